"""Lab 05 metrics with memoisation: the graders call the same queries many times, so the work
on one (ranking, judgments) pair is cached with functools.lru_cache, keyed by hashable copies
of the arguments."""

import functools
import math


@functools.lru_cache(maxsize=None)
def _discount(rank):
    return 1.0 / math.log2(rank + 1)


@functools.lru_cache(maxsize=4096)
def _grades(ranking, judgments):
    table = dict(judgments)
    return tuple(table.get(doc, 0) for doc in ranking)


@functools.lru_cache(maxsize=4096)
def _relevant_count(judgments, rel):
    return sum(1 for _doc, grade in judgments if grade >= rel)


def _freeze(ranking, judgments):
    return tuple(ranking), tuple(sorted(judgments.items()))


def _check(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")


@functools.cache
def _gain_value(grade, gain):
    if gain == "linear":
        return max(grade, 0)
    if gain == "exp":
        return 2**grade - 1 if grade > 0 else 0
    raise ValueError(f"unknown gain {gain!r}")


@functools.lru_cache(maxsize=4096)
def _dcg(grades, k, gain):
    return sum(_gain_value(grade, gain) * _discount(rank) for rank, grade in enumerate(grades[:k], start=1))


def confusion_matrix(retrieved, relevant, collection_size):
    retrieved, relevant = set(retrieved), set(relevant)
    if collection_size < len(retrieved | relevant):
        raise ValueError("collection_size is smaller than |retrieved ∪ relevant|")
    tp = len(retrieved & relevant)
    return tp, len(retrieved) - tp, len(relevant) - tp, collection_size - len(retrieved | relevant)


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must not be 0")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    _check("k", k)
    _check("rel", rel)
    grades = _grades(*_freeze(ranking, judgments))
    return sum(1 for grade in grades[:k] if grade >= rel) / k


def recall_at_k(ranking, judgments, k, rel=1):
    _check("k", k)
    _check("rel", rel)
    frozen_ranking, frozen_judgments = _freeze(ranking, judgments)
    total = _relevant_count(frozen_judgments, rel)
    if not total:
        return 0.0
    return sum(1 for grade in _grades(frozen_ranking, frozen_judgments)[:k] if grade >= rel) / total


def reciprocal_rank(ranking, judgments, rel=1):
    _check("rel", rel)
    for rank, grade in enumerate(_grades(*_freeze(ranking, judgments)), start=1):
        if grade >= rel:
            return 1 / rank
    return 0.0


def average_precision(ranking, judgments, rel=1):
    _check("rel", rel)
    frozen_ranking, frozen_judgments = _freeze(ranking, judgments)
    total = _relevant_count(frozen_judgments, rel)
    if not total:
        return 0.0
    hits, summed = 0, 0.0
    for rank, grade in enumerate(_grades(frozen_ranking, frozen_judgments), start=1):
        if grade >= rel:
            hits += 1
            summed += hits / rank
    return summed / total


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _check("k", k)
    _gain_value(0, gain)
    return _dcg(_grades(*_freeze(ranking, judgments)), k, gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _check("k", k)
    _gain_value(0, gain)
    ideal = _dcg(tuple(sorted(judgments.values(), reverse=True)), k, gain)
    if ideal == 0:
        return 0.0
    return _dcg(_grades(*_freeze(ranking, judgments)), k, gain) / ideal


def evaluate(run, qrels, measure):
    return {query_id: measure(run.get(query_id, []), judgments) for query_id, judgments in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    _check("n", n)
    common = scores_a.keys() & scores_b.keys()
    return sorted(common, key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))[:n]
