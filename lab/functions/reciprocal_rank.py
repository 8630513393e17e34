"""reciprocal_rank(ranking, judgments, rel=1): 1 / the rank of the first relevant document (Part III)."""

from autograder.labkit.kinds import PER_QUERY
from autograder.labkit.record import GradedFunction

from .. import cases, features

RECORD = GradedFunction(
    name="reciprocal_rank",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part III",
    kinds=PER_QUERY,
    parameters=("ranking", "judgments", "rel"),
    takes=("rel",),
    bounded=True,
    features=features.ranking(cutoff=False),
    ir_measure=lambda k=None, rel=1, gain="linear": f"RR(rel={rel})",
    random_cases=cases.ranking_cases("reciprocal_rank"),
)
