"""Lab 05 metrics that check every input first and say exactly what is wrong."""

import math
from collections.abc import Mapping

LINEAR = "linear"
EXP = "exp"


def _check_int(function, name, value):
    if value is None:
        raise ValueError(f"{function}: {name} is None")
    if value is True or value is False:
        raise ValueError(f"{function}: {name} must be an integer, not a bool")
    if not isinstance(value, int):
        raise ValueError(f"{function}: {name} must be an integer, got {type(value).__name__}")
    if value == 0:
        raise ValueError(f"{function}: {name} must be positive, got 0")
    if value < 0:
        raise ValueError(f"{function}: {name} must be positive, got {value}")
    return value


def _check_gain(function, gain):
    if gain is None:
        raise ValueError(f"{function}: gain is None")
    if not isinstance(gain, str):
        raise ValueError(f"{function}: gain must be a string")
    if gain == "":
        raise ValueError(f"{function}: gain is empty")
    if gain != LINEAR and gain != EXP:
        raise ValueError(f"{function}: gain must be 'linear' or 'exp', got {gain!r}")
    return gain


def _check_judgments(function, judgments):
    if not isinstance(judgments, Mapping):
        raise ValueError(f"{function}: judgments must be a mapping")
    return judgments


def _grade(judgments, doc):
    grade = judgments.get(doc, 0)
    if grade is None or grade == -1:
        return 0 if grade is None else -1
    return grade


def confusion_matrix(retrieved, relevant, collection_size):
    if collection_size is None or collection_size is True or collection_size is False:
        raise ValueError("confusion_matrix: collection_size must be an integer")
    retrieved, relevant = set(retrieved), set(relevant)
    union = retrieved | relevant
    if collection_size < len(union):
        raise ValueError(f"confusion_matrix: collection_size {collection_size} < {len(union)}")
    tp = len(retrieved & relevant)
    fp = len(retrieved) - tp
    fn = len(relevant) - tp
    tn = collection_size - len(union)
    if tn < 0:
        raise ValueError("confusion_matrix: negative TN")
    return tp, fp, fn, tn


def accuracy(retrieved, relevant, collection_size):
    tp, fp, fn, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("accuracy: collection_size is 0")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    _check_int("precision_at_k", "k", k)
    _check_int("precision_at_k", "rel", rel)
    _check_judgments("precision_at_k", judgments)
    hits = 0
    for doc in ranking[:k]:
        if _grade(judgments, doc) >= rel:
            hits += 1
    return hits / k


def recall_at_k(ranking, judgments, k, rel=1):
    _check_int("recall_at_k", "k", k)
    _check_int("recall_at_k", "rel", rel)
    _check_judgments("recall_at_k", judgments)
    total = sum(1 for grade in judgments.values() if grade >= rel)
    if total == 0:
        return 0.0
    hits = sum(1 for doc in ranking[:k] if _grade(judgments, doc) >= rel)
    return hits / total


def reciprocal_rank(ranking, judgments, rel=1):
    _check_int("reciprocal_rank", "rel", rel)
    _check_judgments("reciprocal_rank", judgments)
    if len(ranking) == 0:
        return 0.0
    for rank, doc in enumerate(ranking, start=1):
        if _grade(judgments, doc) >= rel:
            return 1.0 / rank
    return 0.0


def average_precision(ranking, judgments, rel=1):
    _check_int("average_precision", "rel", rel)
    _check_judgments("average_precision", judgments)
    total = sum(1 for grade in judgments.values() if grade >= rel)
    if total == 0 or len(ranking) == 0:
        return 0.0
    hits, summed = 0, 0.0
    for rank, doc in enumerate(ranking, start=1):
        if _grade(judgments, doc) >= rel:
            hits += 1
            summed += hits / rank
    return summed / total


def _gain(grade, gain):
    if grade <= 0:
        return 0
    if gain == LINEAR:
        return grade
    if gain == EXP:
        return 2**grade - 1
    raise ValueError(f"unknown gain {gain!r}")


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _check_int("dcg_at_k", "k", k)
    _check_gain("dcg_at_k", gain)
    _check_judgments("dcg_at_k", judgments)
    total = 0.0
    for rank, doc in enumerate(ranking[:k], start=1):
        total += _gain(_grade(judgments, doc), gain) / math.log2(rank + 1)
    return total


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _check_int("ndcg_at_k", "k", k)
    _check_gain("ndcg_at_k", gain)
    _check_judgments("ndcg_at_k", judgments)
    ideal = sorted(judgments.values(), reverse=True)[:k]
    best = sum(_gain(grade, gain) / math.log2(rank + 1) for rank, grade in enumerate(ideal, start=1))
    if best == 0 or best == 0.0:
        return 0.0
    return dcg_at_k(ranking, judgments, k, gain) / best


def evaluate(run, qrels, measure):
    if not callable(measure):
        raise ValueError("evaluate: measure must be callable")
    scores = {}
    for query_id, judgments in qrels.items():
        ranking = run.get(query_id)
        if ranking is None:
            ranking = []
        scores[query_id] = measure(ranking, judgments)
    return scores


def largest_differences(scores_a, scores_b, n=2):
    _check_int("largest_differences", "n", n)
    common = [q for q in scores_a if q in scores_b]
    if len(common) == 0:
        return []
    common.sort(key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))
    return common[:n]
