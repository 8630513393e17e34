"""ndcg_at_k(ranking, judgments, k, gain="linear"): DCG@k over the ideal ranking's (Part IV)."""

from autograder.labkit.kinds import PER_QUERY
from autograder.labkit.record import GradedFunction

from .. import cases, features, measures

RECORD = GradedFunction(
    name="ndcg_at_k",
    file="metrics.py",
    returns="a number between 0 and 1",
    notes_part="Part IV",
    kinds=PER_QUERY,
    parameters=("ranking", "judgments", "k", "gain"),
    takes=("k", "gain"),
    bounded=True,
    features=features.ranking(cutoff=True, graded=True),
    ir_measure=lambda k, rel=1, gain="linear": measures.exp_ndcg(k) if gain == "exp" else f"nDCG@{k}",
    random_cases=cases.ranking_cases("ndcg_at_k", cutoff=True, gain=True),
)
