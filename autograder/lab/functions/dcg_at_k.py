"""dcg_at_k(ranking, judgments, k, gain="linear"): the discounted cumulative gain of the top k (Part IV)."""

from autograder.lab import cases, features, variants
from autograder.labkit.case import plain
from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction


def answers(made, resolve) -> list:
    """DCG@k as the notes define it: gain (the grade, or 2**grade - 1; negative grades 0) over log2(rank + 1)."""
    return [
        variants.dcg_value(
            list(plain(case.args[0])), plain(case.args[1]), case.kwargs["k"], case.kwargs.get("gain", "linear")
        )
        for case in made
    ]


RECORD = GradedFunction(
    name="dcg_at_k",
    file="metrics.py",
    returns="a number (0 or more)",
    notes_part="Part IV",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    takes=("k", "gain"),
    features=features.ranking(cutoff=True, graded=True),
    random_cases=cases.ranking_cases("dcg_at_k", cutoff=True, gain=True),
    expected=answers,
)
