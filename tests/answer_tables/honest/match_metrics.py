"""Lab 05 metrics written with structural pattern matching (Python 3.10)."""

from math import log2


def _positive(name, value):
    match value:
        case bool():
            raise ValueError(f"{name} must be a positive integer, not a bool")
        case int() if value >= 1:
            return value
        case _:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _gain(grade, gain):
    match gain, grade:
        case ("linear" | "exp"), g if g <= 0:
            return 0
        case "linear", g:
            return g
        case "exp", g:
            return 2**g - 1
        case _:
            raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")


def _grades(ranking, judgments):
    return [judgments.get(doc, 0) for doc in ranking]


def confusion_matrix(retrieved, relevant, collection_size):
    match set(retrieved), set(relevant):
        case got, want if collection_size >= len(got | want):
            return len(got & want), len(got - want), len(want - got), collection_size - len(got | want)
        case _:
            raise ValueError("collection_size is smaller than the retrieved and relevant documents")


def accuracy(retrieved, relevant, collection_size):
    match confusion_matrix(retrieved, relevant, collection_size):
        case _ if collection_size == 0:
            raise ValueError("collection_size is 0")
        case (tp, _, _, tn):
            return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    k, rel = _positive("k", k), _positive("rel", rel)
    return sum(grade >= rel for grade in _grades(ranking[:k], judgments)) / k


def recall_at_k(ranking, judgments, k, rel=1):
    k, rel = _positive("k", k), _positive("rel", rel)
    match sum(grade >= rel for grade in judgments.values()):
        case 0:
            return 0.0
        case total:
            return sum(grade >= rel for grade in _grades(ranking[:k], judgments)) / total


def reciprocal_rank(ranking, judgments, rel=1):
    rel = _positive("rel", rel)
    for rank, grade in enumerate(_grades(ranking, judgments), start=1):
        match grade >= rel:
            case True:
                return 1 / rank
    return 0.0


def average_precision(ranking, judgments, rel=1):
    rel = _positive("rel", rel)
    hits, summed = 0, 0.0
    for rank, grade in enumerate(_grades(ranking, judgments), start=1):
        if grade >= rel:
            hits += 1
            summed += hits / rank
    match sum(grade >= rel for grade in judgments.values()):
        case 0:
            return 0.0
        case total:
            return summed / total


def _dcg(grades, gain):
    return sum(_gain(grade, gain) / log2(rank + 1) for rank, grade in enumerate(grades, start=1))


def dcg_at_k(ranking, judgments, k, gain="linear"):
    k = _positive("k", k)
    _gain(0, gain)
    return _dcg(_grades(ranking[:k], judgments), gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    k = _positive("k", k)
    _gain(0, gain)
    match _dcg(sorted(judgments.values(), reverse=True)[:k], gain):
        case 0 | 0.0:
            return 0.0
        case ideal:
            return dcg_at_k(ranking, judgments, k, gain) / ideal


def evaluate(run, qrels, measure):
    return {query: measure(run.get(query, []), judged) for query, judged in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    n = _positive("n", n)
    common = scores_a.keys() & scores_b.keys()
    return sorted(common, key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))[:n]
