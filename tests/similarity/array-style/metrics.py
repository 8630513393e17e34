"""Lab 05 metrics: each measure computed on a numpy array of the ranking's grades."""

from operator import index

import numpy as np

GAIN = {
    "linear": lambda grades: np.maximum(grades, 0),
    "exp": lambda grades: np.where(grades > 0, np.exp2(grades) - 1, 0),
}


def positive(value, what):
    """``value`` as an int, if it is a positive integer (bools are not)."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a positive integer, not a bool")
    try:
        number = index(value)
    except TypeError:
        raise ValueError(f"{what} must be a positive integer, got {value!r}") from None
    if number < 1:
        raise ValueError(f"{what} must be a positive integer, got {number}")
    return number


def grades_of(docs, judgments):
    return np.array([judgments.get(doc, 0) for doc in docs], dtype=float)


def count_relevant(judgments, rel):
    return int(np.count_nonzero(np.fromiter(judgments.values(), dtype=float, count=len(judgments)) >= rel))


def discounted(grades, gain):
    """DCG of ``grades`` in rank order."""
    if not isinstance(gain, str) or gain not in GAIN:
        raise ValueError(f"unknown gain {gain!r}: use 'linear' or 'exp'")
    return float(np.sum(GAIN[gain](grades) / np.log2(np.arange(2, grades.size + 2))))


def confusion_matrix(retrieved, relevant, collection_size):
    got, wanted = set(retrieved), set(relevant)
    cells = [len(got & wanted), len(got - wanted), len(wanted - got)]
    if collection_size < sum(cells):
        raise ValueError(f"only {collection_size} documents but {sum(cells)} are retrieved or relevant")
    return (*cells, collection_size - sum(cells))


def accuracy(retrieved, relevant, collection_size):
    cells = confusion_matrix(retrieved, relevant, collection_size)
    if not collection_size:
        raise ValueError("collection_size must not be 0")
    return (cells[0] + cells[3]) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    k, rel = positive(k, "k"), positive(rel, "rel")
    return np.count_nonzero(grades_of(ranking[:k], judgments) >= rel) / k


def recall_at_k(ranking, judgments, k, rel=1):
    k, rel = positive(k, "k"), positive(rel, "rel")
    big_r = count_relevant(judgments, rel)
    return np.count_nonzero(grades_of(ranking[:k], judgments) >= rel) / big_r if big_r else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    rel = positive(rel, "rel")
    where = np.flatnonzero(grades_of(ranking, judgments) >= rel)
    return 1.0 / (where[0] + 1) if where.size else 0.0


def average_precision(ranking, judgments, rel=1):
    rel = positive(rel, "rel")
    big_r = count_relevant(judgments, rel)
    hit = grades_of(ranking, judgments) >= rel
    if big_r == 0 or not hit.any():
        return 0.0
    precision_at = np.cumsum(hit) / np.arange(1, hit.size + 1)
    return float(precision_at[hit].sum()) / big_r


def dcg_at_k(ranking, judgments, k, gain="linear"):
    return discounted(grades_of(ranking[: positive(k, "k")], judgments), gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    k = positive(k, "k")
    best = np.sort(np.fromiter(judgments.values(), dtype=float, count=len(judgments)))[::-1][:k]
    ideal = discounted(best, gain)
    return dcg_at_k(ranking, judgments, k, gain) / ideal if ideal > 0 else 0.0


def evaluate(run, qrels, measure):
    return dict((q, measure(run[q] if q in run else [], qrels[q])) for q in qrels)


def largest_differences(scores_a, scores_b, n=2):
    n = positive(n, "n")
    shared = sorted(set(scores_a).intersection(scores_b))
    gaps = np.array([abs(float(scores_a[q]) - float(scores_b[q])) for q in shared])
    return [shared[i] for i in np.argsort(-gaps, kind="stable")[:n]]
