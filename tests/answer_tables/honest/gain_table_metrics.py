"""Lab 05 metrics with small lookup tables: the exponential gains of Cranfield's grades are
written down (2**g - 1 for g = 1..4), the cutoffs' names too."""

import math

EXP_GAINS = {1: 1, 2: 3, 3: 7, 4: 15}
GAINS = {
    "linear": lambda grade: grade if grade > 0 else 0,
    "exp": lambda grade: EXP_GAINS.get(grade, 2**grade - 1) if grade > 0 else 0,
}
ERRORS = {
    "k": "k must be a positive integer",
    "rel": "rel must be a positive integer",
    "n": "n must be a positive integer",
    "gain": "gain must be 'linear' or 'exp'",
}
CELL_NAMES = ("tp", "fp", "fn", "tn")


def _positive(name, value):
    if type(value) is bool or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{ERRORS[name]} (got {value!r})")
    return value


def _gain(gain):
    if gain not in GAINS:
        raise ValueError(ERRORS["gain"])
    return GAINS[gain]


def confusion_matrix(retrieved, relevant, collection_size):
    a, b = set(retrieved), set(relevant)
    cells = dict(zip(CELL_NAMES, (len(a & b), len(a - b), len(b - a), 0)))
    seen = cells["tp"] + cells["fp"] + cells["fn"]
    if collection_size < seen:
        raise ValueError("collection_size is too small")
    cells["tn"] = collection_size - seen
    return tuple(cells[name] for name in CELL_NAMES)


def accuracy(retrieved, relevant, collection_size):
    tp, fp, fn, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size is 0")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    _positive("k", k), _positive("rel", rel)
    return len([d for d in ranking[:k] if judgments.get(d, 0) >= rel]) / k


def recall_at_k(ranking, judgments, k, rel=1):
    _positive("k", k), _positive("rel", rel)
    wanted = len([g for g in judgments.values() if g >= rel])
    return len([d for d in ranking[:k] if judgments.get(d, 0) >= rel]) / wanted if wanted else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    _positive("rel", rel)
    return next((1 / (i + 1) for i, d in enumerate(ranking) if judgments.get(d, 0) >= rel), 0.0)


def average_precision(ranking, judgments, rel=1):
    _positive("rel", rel)
    wanted = len([g for g in judgments.values() if g >= rel])
    if not wanted:
        return 0.0
    found, total = 0, 0.0
    for i, d in enumerate(ranking, start=1):
        if judgments.get(d, 0) >= rel:
            found += 1
            total += found / i
    return total / wanted


def _dcg(grades, gain_of):
    return sum(gain_of(g) / math.log2(i + 2) for i, g in enumerate(grades))


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _positive("k", k)
    return _dcg([judgments.get(d, 0) for d in ranking[:k]], _gain(gain))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _positive("k", k)
    best = _dcg(sorted(judgments.values(), reverse=True)[:k], _gain(gain))
    return dcg_at_k(ranking, judgments, k, gain) / best if best > 0 else 0.0


def evaluate(run, qrels, measure):
    return {q: measure(run[q] if q in run else [], j) for q, j in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    _positive("n", n)
    both = sorted(set(scores_a).intersection(scores_b))
    both.sort(key=lambda q: abs(scores_a[q] - scores_b[q]), reverse=True)
    return both[:n]
