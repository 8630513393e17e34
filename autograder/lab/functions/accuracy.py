"""accuracy(retrieved, relevant, collection_size): (TP + TN) / N of one query (Part II)."""

from autograder.lab import features
from autograder.lab.functions.record import GradedFunction
from autograder.lab.kinds import CheckKind as K

RECORD = GradedFunction(
    name="accuracy",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part II",
    kinds=(K.EXAMPLES, K.EDGE),
    bounded=True,
    features=features.cells(empty_collection_invalid=True),
)
