"""Lab 05 metrics (Carol)."""

import math


def _check(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _is_relevant(judgments, rel):
    return lambda doc: judgments.get(doc, 0) >= rel


def confusion_matrix(retrieved, relevant, collection_size):
    retrieved, relevant = set(retrieved), set(relevant)
    if collection_size < len(retrieved | relevant):
        raise ValueError("collection_size is smaller than the documents named")
    tp = len(retrieved & relevant)
    fp = len(retrieved) - tp
    fn = len(relevant) - tp
    return tp, fp, fn, collection_size - tp - fp - fn


def accuracy(retrieved, relevant, collection_size):
    tp, fp, fn, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("empty collection")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    _check("k", k)
    _check("rel", rel)
    return len(list(filter(_is_relevant(judgments, rel), ranking[:k]))) / k


def recall_at_k(ranking, judgments, k, rel=1):
    _check("k", k)
    _check("rel", rel)
    total = sum(grade >= rel for grade in judgments.values())
    if total == 0:
        return 0.0
    return len(list(filter(_is_relevant(judgments, rel), ranking[:k]))) / total


def reciprocal_rank(ranking, judgments, rel=1):
    _check("rel", rel)
    relevant = _is_relevant(judgments, rel)
    return next((1 / rank for rank, doc in enumerate(ranking, 1) if relevant(doc)), 0.0)


def average_precision(ranking, judgments, rel=1):
    _check("rel", rel)
    total = sum(grade >= rel for grade in judgments.values())
    relevant = _is_relevant(judgments, rel)
    precisions, hits = [], 0
    for rank, doc in enumerate(ranking, 1):
        if relevant(doc):
            hits += 1
            precisions.append(hits / rank)
    return sum(precisions) / total if total else 0.0


def _gain(grade, gain):
    if gain == "linear":
        return max(grade, 0)
    if gain == "exp":
        return 2 ** grade - 1 if grade > 0 else 0
    raise ValueError(f"unknown gain {gain!r}")


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _check("k", k)
    _gain(0, gain)
    return sum(_gain(judgments.get(doc, 0), gain) / math.log2(rank + 1)
               for rank, doc in enumerate(ranking[:k], 1))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    ideal = dcg_at_k(sorted(judgments, key=judgments.get, reverse=True), judgments, k, gain)
    return dcg_at_k(ranking, judgments, k, gain) / ideal if ideal > 0 else 0.0


def evaluate(run, qrels, measure):
    return {query: measure(run.get(query, []), judgments) for query, judgments in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    _check("n", n)
    common = [query for query in scores_a if query in scores_b]
    return sorted(common, key=lambda query: (-abs(scores_a[query] - scores_b[query]), query))[:n]


def precision_at_k(ranking, judgments, k, rel=1):
    top = ranking[:k]
    if not top:
        return 0.0
    return sum(1 for d in top if judgments.get(d, 0) >= rel) / len(top)


def average_precision(ranking, judgments, rel=1):
    found, total = 0, 0.0
    for i, d in enumerate(ranking, start=1):
        if judgments.get(d, 0) >= rel:
            found += 1
            total += found / i
    return total / found if found else 0.0


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    ideal = sorted(ranking, key=lambda d: -judgments.get(d, 0))
    best = dcg_at_k(ideal, judgments, k, gain)
    return dcg_at_k(ranking, judgments, k, gain) / best if best > 0 else 0.0
