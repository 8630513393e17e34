"""accuracy(retrieved, relevant, collection_size): (TP + TN) / N of one query (Part II)."""

from autograder.lab import cases, features, variants
from autograder.labkit.case import raises
from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction


def answers(made, resolve) -> list:
    """(TP + TN) / N, or ValueError for a collection smaller than the union or empty."""
    found = []
    for retrieved, relevant, size in (case.args for case in made):
        union = len(set(retrieved) | set(relevant))
        if size < union or size == 0:
            found.append(raises("ValueError"))
            continue
        tp, _, _, tn = variants.cells(retrieved, relevant, size)
        found.append((tp + tn) / size)
    return found


RECORD = GradedFunction(
    name="accuracy",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part II",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    bounded=True,
    features=features.cells(empty_collection_invalid=True),
    random_cases=cases.cell_cases("accuracy", empty_invalid=True),
    expected=answers,
)
