"""Lab 05 metrics in a functional style: small pure functions composed with map, filter,
itertools and functools; no loops with mutable counters."""

from functools import partial, reduce
from itertools import accumulate, compress, count, islice
from math import log2
from operator import add


def _require(predicate, message):
    if not predicate:
        raise ValueError(message)


def _positive(name, value):
    _require(isinstance(value, int) and not isinstance(value, bool) and value > 0, f"{name}: positive integer expected")
    return value


def _grade_of(judgments):
    return lambda doc: judgments.get(doc, 0)


def _is_relevant(rel):
    return lambda grade: grade >= rel


def _hits(ranking, judgments, rel):
    return list(map(_is_relevant(rel), map(_grade_of(judgments), ranking)))


def _count(values):
    return reduce(add, map(int, values), 0)


_LINEAR = partial(max, 0)


def _exp(grade):
    return 2**grade - 1 if grade > 0 else 0


def _gain_function(gain):
    _require(gain in ("linear", "exp"), f"unknown gain {gain!r}")
    return _LINEAR if gain == "linear" else _exp


def _dcg(grades, gain_function):
    return sum(map(lambda pair: gain_function(pair[1]) / log2(pair[0] + 1), zip(count(1), grades)))


def confusion_matrix(retrieved, relevant, collection_size):
    got, wanted = frozenset(retrieved), frozenset(relevant)
    tp, fp, fn = map(len, (got & wanted, got - wanted, wanted - got))
    _require(collection_size >= tp + fp + fn, "collection_size smaller than the documents seen")
    return tp, fp, fn, collection_size - (tp + fp + fn)


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    _require(collection_size != 0, "empty collection")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    k, rel = _positive("k", k), _positive("rel", rel)
    return _count(_hits(islice(ranking, k), judgments, rel)) / k


def recall_at_k(ranking, judgments, k, rel=1):
    k, rel = _positive("k", k), _positive("rel", rel)
    total = _count(map(_is_relevant(rel), judgments.values()))
    return _count(_hits(islice(ranking, k), judgments, rel)) / total if total else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    rel = _positive("rel", rel)
    ranks = compress(count(1), _hits(ranking, judgments, rel))
    return next(map(lambda rank: 1.0 / rank, ranks), 0.0)


def average_precision(ranking, judgments, rel=1):
    rel = _positive("rel", rel)
    total = _count(map(_is_relevant(rel), judgments.values()))
    hits = _hits(ranking, judgments, rel)
    found = accumulate(map(int, hits))
    precisions = map(lambda pair: pair[1] / pair[0], zip(count(1), found))
    return sum(compress(precisions, hits)) / total if total else 0.0


def dcg_at_k(ranking, judgments, k, gain="linear"):
    k = _positive("k", k)
    return _dcg(map(_grade_of(judgments), islice(ranking, k)), _gain_function(gain))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    k = _positive("k", k)
    gain_function = _gain_function(gain)
    ideal = _dcg(islice(sorted(judgments.values(), reverse=True), k), gain_function)
    return dcg_at_k(ranking, judgments, k, gain) / ideal if ideal else 0.0


def evaluate(run, qrels, measure):
    return dict(map(lambda item: (item[0], measure(run.get(item[0], []), item[1])), qrels.items()))


def largest_differences(scores_a, scores_b, n=2):
    n = _positive("n", n)
    common = filter(scores_b.__contains__, scores_a)
    return list(islice(sorted(common, key=lambda q: (-abs(scores_a[q] - scores_b[q]), q)), n))
