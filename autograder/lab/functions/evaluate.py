"""evaluate(run, qrels, measure): {query_id: measure(ranking, judgments)} over the qrels (Part V).

It is checked with simple measures of the grader's own (``sandbox/child/toy_measures.py``), never with
reference metric code, which a submission could borrow inside the child.
"""

from autograder.lab import cases, features
from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

MEASURES = ("ranking_length", "judged_in_ranking", "grade_of_first", "judgments_count")


def answers(made, resolve) -> list:
    """The right answers, with the grader's measures (``resolve`` builds them from their names)."""
    return [
        {query: resolve(measure)(resolve(run).get(query, []), judgments) for query, judgments in qrels.items()}
        for run, qrels, measure in (case.args for case in made)
    ]


RECORD = GradedFunction(
    name="evaluate",
    file="metrics.py",
    returns="a dict {query_id: score} over every query of the qrels",
    notes_part="Part V",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    features=features.evaluation,
    random_cases=cases.run_cases("evaluate", MEASURES),
    expected=answers,
)
