"""evaluate(run, qrels, measure): {query_id: measure(ranking, judgments)} over the qrels (Part V).

It is checked with simple measures of the grader's own (``sandbox/child/toy_measures.py``), never with
reference metric code, which a submission could borrow inside the child.
"""

from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

from .. import answers, cases, features

MEASURES = ("ranking_length", "judged_in_ranking", "grade_of_first", "judgments_count")


RECORD = GradedFunction(
    name="evaluate",
    file="metrics.py",
    returns="a dict {query_id: score} over every query of the qrels",
    notes_part="Part V",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    parameters=("run", "qrels", "measure"),
    features=features.evaluation,
    random_cases=cases.run_cases("evaluate", MEASURES),
    expected=answers.evaluate,
)
