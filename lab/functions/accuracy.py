"""accuracy(retrieved, relevant, collection_size): (TP + TN) / N of one query (Part II)."""

from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

from .. import answers, cases, features

RECORD = GradedFunction(
    name="accuracy",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part II",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    parameters=("retrieved", "relevant", "collection_size"),
    bounded=True,
    features=features.cells(empty_collection_invalid=True),
    random_cases=cases.cell_cases("accuracy", empty_invalid=True),
    expected=answers.accuracy,
)
