"""confusion_matrix(retrieved, relevant, collection_size): (TP, FP, FN, TN) of one query (Part II)."""

from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

from .. import answers, cases, features

RECORD = GradedFunction(
    name="confusion_matrix",
    file="metrics.py",
    returns="a tuple (tp, fp, fn, tn) of 4 integers",
    notes_part="Part II",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    parameters=("retrieved", "relevant", "collection_size"),
    answer_items=("TP", "FP", "FN", "TN"),
    answer_hint="return (tp, fp, fn, tn): TP = |retrieved ∩ relevant|, FP = |retrieved − relevant|, "
    "FN = |relevant − retrieved|, TN = N − |retrieved ∪ relevant|.",
    features=features.cells(),
    random_cases=cases.cell_cases("confusion_matrix"),
    expected=answers.confusion_matrix,
)
