"""Lab 05 metrics with the first discounts written down: 1 / log2(i + 1) for ranks 1 to 10
(the cutoff the lab uses most), computed for deeper ranks."""

import math

DISCOUNTS = (
    1.0,
    0.6309297535714575,
    0.5,
    0.43067655807339306,
    0.38685280723454163,
    0.35620718710802218,
    0.3333333333333333,
    0.31546487678572877,
    0.30102999566398120,
    0.28906482631788782,
)
VALID_GAINS = frozenset({"linear", "exp"})
TOY_RANKING = ["D1", "D2", "D3", "D4", "D5"]  # the notes' R N R N R, for trying things out
TOY_JUDGMENTS = {"D1": 1, "D3": 1, "D5": 1}


def discount(rank):
    return DISCOUNTS[rank - 1] if rank <= len(DISCOUNTS) else 1.0 / math.log2(rank + 1)


def positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def gain_of(grade, gain):
    if gain not in VALID_GAINS:
        raise ValueError(f"gain must be one of {sorted(VALID_GAINS)}, got {gain!r}")
    if grade <= 0:
        return 0
    return grade if gain == "linear" else (1 << grade) - 1


def confusion_matrix(retrieved, relevant, collection_size):
    ret, rel = set(retrieved), set(relevant)
    union = len(ret | rel)
    if collection_size < union:
        raise ValueError(f"collection_size {collection_size} < {union} documents retrieved or relevant")
    return len(ret & rel), len(ret - rel), len(rel - ret), collection_size - union


def accuracy(retrieved, relevant, collection_size):
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size is 0")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    positive_int(k, "k")
    positive_int(rel, "rel")
    return sum(judgments.get(doc, 0) >= rel for doc in ranking[:k]) / k


def recall_at_k(ranking, judgments, k, rel=1):
    positive_int(k, "k")
    positive_int(rel, "rel")
    total = sum(grade >= rel for grade in judgments.values())
    return sum(judgments.get(doc, 0) >= rel for doc in ranking[:k]) / total if total else 0.0


def reciprocal_rank(ranking, judgments, rel=1):
    positive_int(rel, "rel")
    for rank, doc in enumerate(ranking, 1):
        if judgments.get(doc, 0) >= rel:
            return 1.0 / rank
    return 0.0


def average_precision(ranking, judgments, rel=1):
    positive_int(rel, "rel")
    total = sum(grade >= rel for grade in judgments.values())
    if total == 0:
        return 0.0
    hits, summed = 0, 0.0
    for rank, doc in enumerate(ranking, 1):
        if judgments.get(doc, 0) >= rel:
            hits += 1
            summed += hits / rank
    return summed / total


def dcg_at_k(ranking, judgments, k, gain="linear"):
    positive_int(k, "k")
    gain_of(0, gain)
    return sum(gain_of(judgments.get(doc, 0), gain) * discount(rank) for rank, doc in enumerate(ranking[:k], 1))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    positive_int(k, "k")
    gain_of(0, gain)
    ideal = sorted(judgments.values(), reverse=True)[:k]
    best = sum(gain_of(grade, gain) * discount(rank) for rank, grade in enumerate(ideal, 1))
    return dcg_at_k(ranking, judgments, k, gain) / best if best else 0.0


def evaluate(run, qrels, measure):
    return {qid: measure(run.get(qid, ()), judged) for qid, judged in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    positive_int(n, "n")
    common = sorted(set(scores_a) & set(scores_b))
    ranked = sorted(common, key=lambda q: -abs(scores_a[q] - scores_b[q]))
    return ranked[:n]


if __name__ == "__main__":
    print(precision_at_k(TOY_RANKING, TOY_JUDGMENTS, 3), average_precision(TOY_RANKING, TOY_JUDGMENTS))
