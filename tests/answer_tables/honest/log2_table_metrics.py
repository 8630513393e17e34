"""Lab 05 metrics with the discounts precomputed once: log2(rank + 1) for ranks 1..1000 (the
runs hold 100 documents, the qrels at most a few hundred), math.log2 beyond."""

import math

MAX_PRECOMPUTED = 1000
LOG2 = [0.0] + [math.log2(rank + 1) for rank in range(1, MAX_PRECOMPUTED + 1)]
DISCOUNT = tuple(0.0 if rank == 0 else 1.0 / LOG2[rank] for rank in range(len(LOG2)))
EXP_GAIN = [2**grade - 1 for grade in range(0, 11)]


def _discount(rank):
    return DISCOUNT[rank] if rank <= MAX_PRECOMPUTED else 1.0 / math.log2(rank + 1)


def _gain(grade, gain):
    if grade <= 0:
        return 0
    if gain == "linear":
        return grade
    return EXP_GAIN[grade] if grade < len(EXP_GAIN) else 2**grade - 1


def _valid(k=1, rel=1, gain="linear"):
    for name, value in (("k", k), ("rel", rel)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if gain not in ("linear", "exp"):
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")


def confusion_matrix(retrieved, relevant, collection_size):
    r, v = set(retrieved), set(relevant)
    if collection_size < len(r | v):
        raise ValueError("collection_size is smaller than the union of retrieved and relevant")
    return len(r & v), len(r - v), len(v - r), collection_size - len(r | v)


def accuracy(retrieved, relevant, collection_size):
    tp, fp, fn, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must be positive")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    _valid(k=k, rel=rel)
    return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / k


def recall_at_k(ranking, judgments, k, rel=1):
    _valid(k=k, rel=rel)
    total = sum(1 for g in judgments.values() if g >= rel)
    return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / total if total else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    _valid(rel=rel)
    return next((1.0 / r for r, d in enumerate(ranking, 1) if judgments.get(d, 0) >= rel), 0.0)


def average_precision(ranking, judgments, rel=1):
    _valid(rel=rel)
    total = sum(1 for g in judgments.values() if g >= rel)
    hits, summed = 0, 0.0
    for r, d in enumerate(ranking, 1):
        if judgments.get(d, 0) >= rel:
            hits += 1
            summed += hits / r
    return summed / total if total else 0.0


def _dcg(grades, gain):
    return sum(_gain(g, gain) * _discount(r) for r, g in enumerate(grades, 1))


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _valid(k=k, gain=gain)
    return _dcg([judgments.get(d, 0) for d in ranking[:k]], gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _valid(k=k, gain=gain)
    best = _dcg(sorted(judgments.values(), reverse=True)[:k], gain)
    return _dcg([judgments.get(d, 0) for d in ranking[:k]], gain) / best if best else 0.0


def evaluate(run, qrels, measure):
    return {q: measure(run.get(q, []), j) for q, j in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    _valid(k=n)
    keys = [q for q in sorted(scores_a) if q in scores_b]
    keys.sort(key=lambda q: abs(scores_a[q] - scores_b[q]), reverse=True)
    return keys[:n]
