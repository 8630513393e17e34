"""dcg_at_k(ranking, judgments, k, gain="linear"): the discounted cumulative gain of the top k (Part IV)."""

from autograder.lab import features
from autograder.lab.functions.record import GradedFunction
from autograder.lab.kinds import CheckKind as K

RECORD = GradedFunction(
    name="dcg_at_k",
    file="metrics.py",
    returns="a number (0 or more)",
    notes_part="Part IV",
    kinds=(K.EXAMPLES, K.EDGE),
    takes=("k", "gain"),
    features=features.ranking(cutoff=True, graded=True),
)
