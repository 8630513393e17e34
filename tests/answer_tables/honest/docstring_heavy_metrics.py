"""Lab 05: Evaluating Information Retrieval Systems -- my metrics, with my notes.

Lab 04 answered "How do we rank documents?"; Lab 05 answers "How do we know whether that
ranking is good?". The aim is not only to calculate the standard metrics but to understand
what user behaviour each one approximates. The systems compared are TF-IDF and BM25 from
Lab 04, on Cranfield (1,400 documents, 225 queries, graded judgments).

What I expect (the notes' table, ir_measures on all 225 queries)::

    system   AP       nDCG@10  RR       P@10     R@100
    TF-IDF   0.2737   0.3170   0.5100   0.2284   0.7006
    BM25     0.2405   0.2822   0.5044   0.1991   0.6512

With a word tokenizer (\\b\\w+\\b) BM25 reaches MAP 0.262 and P@10 0.219, closer to TF-IDF
but still below it. The notes print values truncated, not rounded: "R@100 0.7006..." is
0.70066 and so on.

The worked nDCG example (Part IV), grades [3, 0, 2, 1] with the exponential gain::

    rank  grade  gain  discount  gain/discount
    1     3      7     1.000     7.000
    2     0      0     1.585     0.000
    3     2      3     2.000     1.500
    4     1      1     2.322     0.431
    DCG@4 = 8.931, IDCG@4 = 9.393, nDCG@4 = 0.951 (worst order: 5.146 and 0.548)

Linear gain instead: nDCG@4 = 0.930. Cranfield's grade counts:
Counter({3: 734, 2: 387, 4: 363, -1: 225, 1: 128}).

Conventions I follow (ir_measures / trec_eval):

* a document missing from the judgments has grade 0; -1 is never relevant;
* P@k divides by k, even for a shorter ranking;
* R@k divides by R, all judged relevant documents, retrieved or not;
* AP sums P@i at the relevant ranks and divides by R;
* the ideal ranking of nDCG is every judged document of the query, sorted by grade.
"""

import math


def _positive(name, value):
    """Return ``value`` if it is a positive integer, else raise ValueError.

    >>> _positive("k", 10)
    10
    >>> _positive("k", 0)
    Traceback (most recent call last):
    ...
    ValueError: k must be a positive integer, got 0
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def confusion_matrix(retrieved, relevant, collection_size):
    """(TP, FP, FN, TN) for one query.

    Part II: a system that returns nothing for a query with 7 relevant documents in a
    collection of 1,400 has TP = 0, FP = 0, FN = 7, TN = 1,393 and an accuracy of
    1393 / 1400 = 0.995 -- which is why accuracy is useless for retrieval.

    >>> confusion_matrix([], ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], 1400)
    (0, 0, 7, 1393)
    """
    retrieved, relevant = set(retrieved), set(relevant)
    if collection_size < len(retrieved | relevant):
        raise ValueError("collection_size is smaller than the documents retrieved or relevant")
    tp = len(retrieved & relevant)
    return tp, len(retrieved - relevant), len(relevant - retrieved), collection_size - len(retrieved | relevant)


def accuracy(retrieved, relevant, collection_size):
    """(TP + TN) / N.

    >>> accuracy([], ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], 1400)
    0.995
    """
    tp, _fp, _fn, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must be positive")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    """The share of the top k that is relevant.

    The toy ranking R N R N R: P@1 = 1.0, P@2 = 0.5, P@3 = 0.6666666666666666,
    P@4 = 0.5, P@5 = 0.6, P@10 = 0.3.

    >>> precision_at_k(["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}, 3)
    0.6666666666666666
    """
    _positive("k", k)
    _positive("rel", rel)
    return sum(1 for doc in ranking[:k] if judgments.get(doc, 0) >= rel) / k


def recall_at_k(ranking, judgments, k, rel=1):
    """The share of the relevant documents found in the top k.

    The toy ranking: R@1 = 0.3333333333333333, R@3 = 0.6666666666666666, R@5 = 1.0.
    """
    _positive("k", k)
    _positive("rel", rel)
    total = sum(1 for grade in judgments.values() if grade >= rel)
    if total == 0:
        return 0.0
    return sum(1 for doc in ranking[:k] if judgments.get(doc, 0) >= rel) / total


def reciprocal_rank(ranking, judgments, rel=1):
    """1 / the rank of the first relevant document.

    Rankings A = R R R N N N N N N N and B = N N N N N N N R R R: RR 1.0 and 0.125, AP 1.0
    and 0.2540 (B: (1/8 + 2/9 + 3/10) / 3 = 0.21574 when R = 3).
    """
    _positive("rel", rel)
    for rank, doc in enumerate(ranking, start=1):
        if judgments.get(doc, 0) >= rel:
            return 1.0 / rank
    return 0.0


def average_precision(ranking, judgments, rel=1):
    """The mean of P@i over the relevant documents (R of them).

    The toy ranking: (1 + 2/3 + 3/5) / 3 = 0.7555555555555555.
    """
    _positive("rel", rel)
    total = sum(1 for grade in judgments.values() if grade >= rel)
    if total == 0:
        return 0.0
    hits, summed = 0, 0.0
    for rank, doc in enumerate(ranking, start=1):
        if judgments.get(doc, 0) >= rel:
            hits += 1
            summed += hits / rank
    return summed / total


def _gain(grade, gain):
    """linear: the grade; exp: 2**grade - 1 (0 -> 0, 1 -> 1, 2 -> 3, 3 -> 7, 4 -> 15)."""
    if gain not in ("linear", "exp"):
        raise ValueError(f"unknown gain {gain!r}")
    if grade <= 0:
        return 0
    return grade if gain == "linear" else 2**grade - 1


def dcg_at_k(ranking, judgments, k, gain="linear"):
    """Sum of gain / log2(rank + 1) over the top k (see the worked example above)."""
    _positive("k", k)
    _gain(0, gain)
    return sum(_gain(judgments.get(doc, 0), gain) / math.log2(rank + 1) for rank, doc in enumerate(ranking[:k], 1))


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    """DCG@k / IDCG@k; 0.0 when IDCG@k is 0."""
    _positive("k", k)
    _gain(0, gain)
    ideal = sorted(judgments.values(), reverse=True)[:k]
    best = sum(_gain(grade, gain) / math.log2(rank + 1) for rank, grade in enumerate(ideal, 1))
    return dcg_at_k(ranking, judgments, k, gain) / best if best else 0.0


def evaluate(run, qrels, measure):
    """{query id: measure(ranking, judgments)} over every query of the qrels."""
    return {qid: measure(run.get(qid, []), judgments) for qid, judgments in qrels.items()}


def largest_differences(scores_a, scores_b, n=2):
    """The n queries whose scores differ most (Part VI), ties by query id."""
    _positive("n", n)
    common = set(scores_a) & set(scores_b)
    return sorted(common, key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))[:n]
