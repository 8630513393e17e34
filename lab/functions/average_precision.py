"""average_precision(ranking, judgments, rel=1): the sum of P@i at the relevant ranks, over R (Part III)."""

from autograder.labkit.kinds import PER_QUERY
from autograder.labkit.record import GradedFunction

from .. import cases, features

RECORD = GradedFunction(
    name="average_precision",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part III",
    kinds=PER_QUERY,
    parameters=("ranking", "judgments", "rel"),
    takes=("rel",),
    bounded=True,
    features=features.ranking(cutoff=False),
    ir_measure=lambda k=None, rel=1, gain="linear": f"AP(rel={rel})",
    random_cases=cases.ranking_cases("average_precision"),
)
