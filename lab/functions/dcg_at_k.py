"""dcg_at_k(ranking, judgments, k, gain="linear"): the discounted cumulative gain of the top k (Part IV)."""

from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

from .. import answers, cases, features

RECORD = GradedFunction(
    name="dcg_at_k",
    file="metrics.py",
    returns="a number (0 or more)",
    notes_part="Part IV",
    kinds=(K.EXAMPLES, K.EDGE, K.RANDOM),
    parameters=("ranking", "judgments", "k", "gain"),
    takes=("k", "gain"),
    features=features.ranking(cutoff=True, graded=True),
    random_cases=cases.ranking_cases("dcg_at_k", cutoff=True, gain=True),
    expected=answers.dcg_at_k,
)
