"""largest_differences(scores_a, scores_b, n=2): the n query ids where two systems differ most (Part VI)."""

from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

from .. import answers, cases, features

RECORD = GradedFunction(
    name="largest_differences",
    file="metrics.py",
    returns="a list of query ids",
    notes_part="Part VI",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    parameters=("scores_a", "scores_b", "n"),
    takes=("n",),
    features=features.differences,
    random_cases=cases.score_cases("largest_differences"),
    expected=answers.largest_differences,
)
