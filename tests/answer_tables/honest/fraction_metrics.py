"""Lab 05 metrics in exact arithmetic: fractions.Fraction everywhere a ratio is formed, so
P@3 of R N R is exactly 2/3; logarithms are floats (they are irrational anyway)."""

from decimal import Decimal
from fractions import Fraction
from math import log2
from numbers import Integral


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _hits(ranking, judgments, rel):
    return [judgments.get(doc, 0) >= rel for doc in ranking]


def confusion_matrix(retrieved, relevant, collection_size):
    retrieved, relevant = frozenset(retrieved), frozenset(relevant)
    if collection_size < len(retrieved | relevant):
        raise ValueError("collection_size is smaller than the retrieved and relevant documents")
    tp = len(retrieved & relevant)
    return tp, len(retrieved) - tp, len(relevant) - tp, collection_size - len(retrieved | relevant)


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must be positive")
    return Fraction(tp + tn, collection_size)


def precision_at_k(ranking, judgments, k, rel=1):
    k, rel = _positive("k", k), _positive("rel", rel)
    return Fraction(sum(_hits(ranking[:k], judgments, rel)), k)


def recall_at_k(ranking, judgments, k, rel=1):
    k, rel = _positive("k", k), _positive("rel", rel)
    total = sum(grade >= rel for grade in judgments.values())
    return Fraction(sum(_hits(ranking[:k], judgments, rel)), total) if total else Fraction(0)


def reciprocal_rank(ranking, judgments, rel=1):
    rel = _positive("rel", rel)
    for rank, hit in enumerate(_hits(ranking, judgments, rel), start=1):
        if hit:
            return Fraction(1, rank)
    return Fraction(0)


def average_precision(ranking, judgments, rel=1):
    rel = _positive("rel", rel)
    total = sum(grade >= rel for grade in judgments.values())
    if not total:
        return Fraction(0)
    found, summed = 0, Fraction(0)
    for rank, hit in enumerate(_hits(ranking, judgments, rel), start=1):
        if hit:
            found += 1
            summed += Fraction(found, rank)
    return summed / total


def _gain(grade, gain):
    if gain not in ("linear", "exp"):
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")
    return 0 if grade <= 0 else grade if gain == "linear" else 2**grade - 1


def _dcg(grades, gain):
    return sum((Decimal(_gain(grade, gain)) / Decimal(log2(rank + 1)) for rank, grade in enumerate(grades, 1)), Decimal(0))


def dcg_at_k(ranking, judgments, k, gain="linear"):
    k = _positive("k", k)
    _gain(0, gain)
    return _dcg([judgments.get(doc, 0) for doc in ranking[:k]], gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    k = _positive("k", k)
    _gain(0, gain)
    ideal = _dcg(sorted(judgments.values(), reverse=True)[:k], gain)
    return dcg_at_k(ranking, judgments, k, gain) / ideal if ideal else Decimal(0)


def evaluate(run, qrels, measure):
    return {qid: measure(run.get(qid, []), judgments) for qid, judgments in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    n = _positive("n", n)
    common = set(scores_a) & set(scores_b)
    return sorted(common, key=lambda q: (-abs(float(scores_a[q]) - float(scores_b[q])), q))[:n]
