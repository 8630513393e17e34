"""Lab 05 metrics, vectorised: every measure works on a numpy array of the ranking's grades."""

import numbers

import numpy as np


def _check_positive(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _grades(docs, judgments):
    return np.fromiter((judgments.get(d, 0) for d in docs), dtype=np.float64, count=len(docs))


def _judged(judgments):
    return np.fromiter(judgments.values(), dtype=np.float64, count=len(judgments))


def _gains(grades, gain):
    clipped = np.clip(grades, 0, None)
    if gain == "linear":
        return clipped
    if gain == "exp":
        return np.exp2(clipped) - 1.0
    raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")


def _dcg(grades, gain):
    if grades.size == 0:
        return 0.0
    discounts = np.log2(np.arange(2, grades.size + 2, dtype=np.float64))
    return float(np.sum(_gains(grades, gain) / discounts))


def confusion_matrix(retrieved, relevant, collection_size):
    retrieved_ids = np.unique(np.asarray(list(retrieved), dtype=object).astype(str))
    relevant_ids = np.unique(np.asarray(list(relevant), dtype=object).astype(str))
    tp = np.intersect1d(retrieved_ids, relevant_ids).size
    fp = retrieved_ids.size - tp
    fn = relevant_ids.size - tp
    if collection_size < tp + fp + fn:
        raise ValueError("collection_size is smaller than the documents retrieved or relevant")
    return int(tp), int(fp), int(fn), int(collection_size - tp - fp - fn)


def accuracy(retrieved, relevant, collection_size):
    tp, _fp, _fn, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must be positive")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    k = _check_positive("k", k)
    rel = _check_positive("rel", rel)
    return float(np.count_nonzero(_grades(list(ranking)[:k], judgments) >= rel)) / k


def recall_at_k(ranking, judgments, k, rel=1):
    k = _check_positive("k", k)
    rel = _check_positive("rel", rel)
    total = np.count_nonzero(_judged(judgments) >= rel)
    if total == 0:
        return 0.0
    return float(np.count_nonzero(_grades(list(ranking)[:k], judgments) >= rel)) / total


def reciprocal_rank(ranking, judgments, rel=1):
    rel = _check_positive("rel", rel)
    hits = np.flatnonzero(_grades(list(ranking), judgments) >= rel)
    return 1.0 / (hits[0] + 1) if hits.size else 0.0


def average_precision(ranking, judgments, rel=1):
    rel = _check_positive("rel", rel)
    total = np.count_nonzero(_judged(judgments) >= rel)
    relevant = _grades(list(ranking), judgments) >= rel
    if total == 0 or not relevant.any():
        return 0.0
    precisions = np.cumsum(relevant) / np.arange(1, relevant.size + 1)
    return float(np.sum(precisions[relevant])) / total


def dcg_at_k(ranking, judgments, k, gain="linear"):
    k = _check_positive("k", k)
    _gains(np.zeros(0), gain)
    return _dcg(_grades(list(ranking)[:k], judgments), gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    k = _check_positive("k", k)
    _gains(np.zeros(0), gain)
    ideal = np.sort(_judged(judgments))[::-1][:k]
    best = _dcg(ideal, gain)
    if best == 0:
        return 0.0
    return _dcg(_grades(list(ranking)[:k], judgments), gain) / best


def evaluate(run, qrels, measure):
    return {qid: measure(run.get(qid, []), judgments) for qid, judgments in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    n = _check_positive("n", n)
    common = sorted(set(scores_a) & set(scores_b))
    if not common:
        return []
    gaps = np.abs(np.array([scores_a[q] for q in common], dtype=float) - np.array([scores_b[q] for q in common]))
    order = np.lexsort((np.arange(len(common)), -gaps))
    return [common[i] for i in order[:n]]
