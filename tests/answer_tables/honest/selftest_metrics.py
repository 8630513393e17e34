"""Lab 05 metrics, with the notes' examples as self-checks (run this file to check them)."""

import math

# (function name, arguments, what the notes say)
NOTES_EXAMPLES = [
    ("precision_at_k", (["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}, 3), 0.6666666666666666),
    ("precision_at_k", (["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}, 5), 0.6),
    ("recall_at_k", (["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}, 3), 0.6666666666666666),
    ("average_precision", (["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}), 0.7555555555555555),
    ("reciprocal_rank", (["A1", "A2", "A3", "N1", "N2", "N3", "N4", "N5", "N6", "N7"], {"A1": 1, "A2": 1, "A3": 1}), 1.0),
    ("reciprocal_rank", (["N1", "N2", "N3", "N4", "N5", "N6", "N7", "B1", "B2", "B3"], {"B1": 1, "B2": 1, "B3": 1}), 0.125),
    ("average_precision", (["N1", "N2", "N3", "N4", "N5", "N6", "N7", "B1", "B2", "B3"], {"B1": 1, "B2": 1, "B3": 1}), 0.21574074074074073),
    ("dcg_at_k", (["A", "B", "C", "D"], {"A": 3, "B": 0, "C": 2, "D": 1}, 4, "exp"), 8.930676558073393),
    ("ndcg_at_k", (["A", "B", "C", "D"], {"A": 3, "B": 0, "C": 2, "D": 1}, 4, "exp"), 0.9507805705218105),
    ("ndcg_at_k", (["B", "D", "C", "A"], {"A": 3, "B": 0, "C": 2, "D": 1}, 4, "exp"), 0.5478475617081823),
    ("ndcg_at_k", (["A", "B", "C", "D"], {"A": 3, "B": 0, "C": 2, "D": 1}, 4), 0.9304581050995894),
    ("accuracy", ([], ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], 1400), 0.995),
    ("confusion_matrix", ([], ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], 1400), (0, 0, 7, 1393)),
    ("largest_differences", ({"1": 0.9, "2": 0.5, "3": 0.1}, {"1": 0.1, "2": 0.5, "3": 0.4}, 2), ["1", "3"]),
]


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def confusion_matrix(retrieved, relevant, collection_size):
    a, b = set(retrieved), set(relevant)
    if collection_size < len(a | b):
        raise ValueError("collection_size is too small for these documents")
    return len(a & b), len(a - b), len(b - a), collection_size - len(a | b)


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if not collection_size:
        raise ValueError("collection_size is 0")
    return (tp + tn) / collection_size


def _hits(ranking, judgments, rel):
    return [judgments.get(doc, 0) >= rel for doc in ranking]


def precision_at_k(ranking, judgments, k, rel=1):
    _positive("k", k)
    _positive("rel", rel)
    return sum(_hits(ranking[:k], judgments, rel)) / k


def recall_at_k(ranking, judgments, k, rel=1):
    _positive("k", k)
    _positive("rel", rel)
    total = sum(grade >= rel for grade in judgments.values())
    return sum(_hits(ranking[:k], judgments, rel)) / total if total else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    _positive("rel", rel)
    hits = _hits(ranking, judgments, rel)
    return 1.0 / (hits.index(True) + 1) if True in hits else 0.0


def average_precision(ranking, judgments, rel=1):
    _positive("rel", rel)
    total = sum(grade >= rel for grade in judgments.values())
    found, summed = 0, 0.0
    for rank, hit in enumerate(_hits(ranking, judgments, rel), 1):
        if hit:
            found += 1
            summed += found / rank
    return summed / total if total else 0.0


def _gain(grade, gain):
    if gain not in ("linear", "exp"):
        raise ValueError(f"unknown gain {gain!r}")
    return 0 if grade <= 0 else grade if gain == "linear" else 2**grade - 1


def dcg_at_k(ranking, judgments, k, gain="linear"):
    _positive("k", k)
    _gain(0, gain)
    return sum(_gain(judgments.get(d, 0), gain) / math.log2(i + 1) for i, d in enumerate(ranking[:k], 1))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _positive("k", k)
    _gain(0, gain)
    ideal = sum(_gain(g, gain) / math.log2(i + 1) for i, g in enumerate(sorted(judgments.values(), reverse=True)[:k], 1))
    return dcg_at_k(ranking, judgments, k, gain) / ideal if ideal else 0.0


def evaluate(run, qrels, measure):
    return {q: measure(run.get(q, []), j) for q, j in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    _positive("n", n)
    shared = set(scores_a) & set(scores_b)
    return sorted(shared, key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))[:n]


def _self_check():
    for name, arguments, expected in NOTES_EXAMPLES:
        got = globals()[name](*arguments)
        ok = got == expected if not isinstance(expected, float) else math.isclose(got, expected, rel_tol=1e-9)
        print(f"{'ok ' if ok else 'BAD'} {name}{arguments!r} = {got!r} (notes: {expected!r})")


if __name__ == "__main__":
    _self_check()
