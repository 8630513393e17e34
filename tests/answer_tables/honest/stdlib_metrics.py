"""Lab 05 metrics with the standard library's tools: Counter, heapq, bisect, statistics,
operator and itertools."""

import bisect
import heapq
import itertools
import operator
import statistics
from collections import Counter
from math import log2


def _require_positive(**values):
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _relevant_set(judgments, rel):
    return {doc for doc, grade in judgments.items() if grade >= rel}


def _gain(gain):
    table = {"linear": lambda g: max(g, 0), "exp": lambda g: (1 << g) - 1 if g > 0 else 0}
    try:
        return table[gain]
    except (KeyError, TypeError):
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}") from None


def confusion_matrix(retrieved, relevant, collection_size):
    counts = Counter()
    retrieved, relevant = set(retrieved), set(relevant)
    for doc in retrieved | relevant:
        counts[(doc in retrieved, doc in relevant)] += 1
    seen = sum(counts.values())
    if collection_size < seen:
        raise ValueError("collection_size is smaller than the documents seen")
    return counts[(True, True)], counts[(True, False)], counts[(False, True)], collection_size - seen


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size is 0")
    return operator.truediv(tp + tn, collection_size)


def precision_at_k(ranking, judgments, k, rel=1):
    _require_positive(k=k, rel=rel)
    relevant = _relevant_set(judgments, rel)
    return sum(map(relevant.__contains__, itertools.islice(ranking, k))) / k


def recall_at_k(ranking, judgments, k, rel=1):
    _require_positive(k=k, rel=rel)
    relevant = _relevant_set(judgments, rel)
    return len(relevant.intersection(itertools.islice(ranking, k))) / len(relevant) if relevant else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    _require_positive(rel=rel)
    relevant = _relevant_set(judgments, rel)
    ranks = [rank for rank, doc in enumerate(ranking, 1) if doc in relevant]
    return 1 / ranks[0] if ranks else 0.0


def average_precision(ranking, judgments, rel=1):
    _require_positive(rel=rel)
    relevant = _relevant_set(judgments, rel)
    ranks = []
    for rank, doc in enumerate(ranking, 1):
        if doc in relevant:
            bisect.insort(ranks, rank)
    if not relevant or not ranks:
        return 0.0
    return statistics.fmean((i + 1) / rank for i, rank in enumerate(ranks)) * len(ranks) / len(relevant)


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _require_positive(k=k)
    gain_of = _gain(gain)
    return sum(gain_of(judgments.get(doc, 0)) / log2(rank + 1) for rank, doc in enumerate(itertools.islice(ranking, k), 1))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _require_positive(k=k)
    gain_of = _gain(gain)
    best = heapq.nlargest(k, judgments.values())
    ideal = sum(gain_of(grade) / log2(rank + 1) for rank, grade in enumerate(best, 1))
    return dcg_at_k(ranking, judgments, k, gain) / ideal if ideal else 0.0


def evaluate(run, qrels, measure):
    return {qid: measure(run.get(qid, []), judgments) for qid, judgments in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    _require_positive(n=n)
    common = scores_a.keys() & scores_b.keys()
    return [q for _, q in heapq.nsmallest(n, ((-abs(scores_a[q] - scores_b[q]), q) for q in common))]
