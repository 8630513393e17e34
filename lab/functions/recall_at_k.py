"""recall_at_k(ranking, judgments, k, rel=1): relevant documents in the top k, over R (Part II)."""

from autograder.labkit.kinds import PER_QUERY
from autograder.labkit.record import GradedFunction

from .. import cases, features

RECORD = GradedFunction(
    name="recall_at_k",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part II",
    kinds=PER_QUERY,
    parameters=("ranking", "judgments", "k", "rel"),
    takes=("k", "rel"),
    bounded=True,
    features=features.ranking(cutoff=True),
    ir_measure=lambda k, rel=1, gain="linear": f"R(rel={rel})@{k}",
    random_cases=cases.ranking_cases("recall_at_k", cutoff=True),
)
