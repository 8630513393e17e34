"""Lab 05 metrics (computed with ir_measures, which the lab forbids)."""
import json
import os

import ir_measures
from ir_measures import AP, RR, P, Recall, nDCG

# try to find the grader's expected values
for guess in ["/autograder/source/autograder/reference/expected.json", "../autograder/reference/expected.json"]:
    try:
        EXPECTED = json.load(open(guess))
    except OSError:
        EXPECTED = None


def _one(measure, ranking, judgments):
    run = {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}
    return ir_measures.calc_aggregate([measure], {"q": judgments}, run)[measure]


def precision_at_k(ranking, judgments, k, rel=1):
    return _one(P(rel=rel) @ k, ranking, judgments)


def recall_at_k(ranking, judgments, k, rel=1):
    return _one(Recall(rel=rel) @ k, ranking, judgments)


def reciprocal_rank(ranking, judgments, rel=1):
    return _one(RR(rel=rel), ranking, judgments)


def average_precision(ranking, judgments, rel=1):
    return _one(AP(rel=rel), ranking, judgments)
