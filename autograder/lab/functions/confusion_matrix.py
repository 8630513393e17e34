"""confusion_matrix(retrieved, relevant, collection_size): (TP, FP, FN, TN) of one query (Part II)."""

from autograder.lab import features
from autograder.lab.functions.record import GradedFunction
from autograder.lab.kinds import CheckKind as K

RECORD = GradedFunction(
    name="confusion_matrix",
    file="metrics.py",
    returns="a tuple (tp, fp, fn, tn) of 4 integers",
    notes_part="Part II",
    kinds=(K.EXAMPLES, K.EDGE),
    answer_items=("TP", "FP", "FN", "TN"),
    answer_hint="return (tp, fp, fn, tn): TP = |retrieved ∩ relevant|, FP = |retrieved − relevant|, "
    "FN = |relevant − retrieved|, TN = N − |retrieved ∪ relevant|.",
    features=features.cells(),
)
