"""Lab 05: evaluation metrics for ranked retrieval (you implement every function here).

Types used throughout (see also ``lab05/data.py``):

- a *ranking* is a sequence of doc ids, best first: index 0 is rank 1; no doc id twice;
  the grader passes a list or a tuple (never a numpy array);
- *judgments* maps doc id -> integer grade for one query; a doc missing from it has grade 0;
  the grader passes a dict or a read-only mapping (``types.MappingProxyType``);
- *qrels* maps query id -> judgments; a *run* maps query id -> ranking (a dict or a read-only
  mapping too).

A doc is *relevant at threshold* ``rel`` when its grade is >= ``rel``; grades 0 and -1 are
never relevant (``rel`` is a positive integer). ``k`` is a positive integer cutoff. Invalid
``k``, ``rel`` or ``gain`` raise ``ValueError``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence

# BEGIN SOLUTION
from numbers import Integral

_GAINS = {
    "linear": lambda grade: max(grade, 0),
    "exp": lambda grade: 2**grade - 1 if grade > 0 else 0,
}


def _positive_int(name: str, value, function: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{function}: {name} must be a positive integer, got {value!r}")
    return int(value)


def _gain_function(gain, function: str):
    if gain not in _GAINS:
        raise ValueError(f"{function}: gain must be one of {sorted(_GAINS)}, got {gain!r}")
    return _GAINS[gain]


def _relevant_flags(ranking, judgments, rel: int) -> list[bool]:
    return [judgments.get(doc_id, 0) >= rel for doc_id in ranking]


def _count_relevant(judgments, rel: int) -> int:
    return sum(1 for grade in judgments.values() if grade >= rel)


def _dcg(grades, gain_of) -> float:
    return sum(gain_of(grade) / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1))


# END SOLUTION


def confusion_matrix(
    retrieved: Collection[str], relevant: Collection[str], collection_size: int
) -> tuple[int, int, int, int]:
    """The four cells of Part II's table for one query: ``(tp, fp, fn, tn)``.

    Every document of the collection is either retrieved or not, and relevant or not::

        TP = |retrieved ∩ relevant|        FP = |retrieved − relevant|
        FN = |relevant − retrieved|        TN = N − |retrieved ∪ relevant|

    where ``retrieved`` is the set of doc ids the system returned, ``relevant`` the set of
    doc ids judged relevant and N = ``collection_size``, the number of documents in the
    collection. Order and repetition in ``retrieved`` and ``relevant`` do not matter.

    Edge cases: empty ``retrieved`` gives TP = FP = 0. ``ValueError`` if N is smaller than
    the number of distinct doc ids in ``retrieved`` and ``relevant`` together.

    Example (Part II, a system that returns nothing for a query with 7 relevant documents):

    >>> confusion_matrix([], ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], 1400)
    (0, 0, 7, 1393)
    """
    # BEGIN SOLUTION
    retrieved_set, relevant_set = set(retrieved), set(relevant)
    union = len(retrieved_set | relevant_set)
    if isinstance(collection_size, bool) or not isinstance(collection_size, Integral):
        raise ValueError(f"confusion_matrix: collection_size must be an integer, got {collection_size!r}")
    if collection_size < union:
        raise ValueError(
            f"confusion_matrix: collection_size={collection_size} is smaller than the "
            f"{union} distinct documents retrieved or relevant"
        )
    tp = len(retrieved_set & relevant_set)
    return tp, len(retrieved_set) - tp, len(relevant_set) - tp, int(collection_size) - union
    # END SOLUTION


def accuracy(retrieved: Collection[str], relevant: Collection[str], collection_size: int) -> float:
    """The share of documents classified correctly: ``(TP + TN) / N``.

    TP, TN are the cells of ``confusion_matrix(retrieved, relevant, collection_size)`` and
    N = ``collection_size`` = TP + FP + FN + TN, the number of documents in the collection.

    Edge cases: the same ``ValueError`` as ``confusion_matrix``; ``ValueError`` if N is 0.

    Example (Part II: returning nothing for a query with 7 relevant of 1,400 documents scores
    1393 / 1400 = 99.5%, which is why accuracy is useless for retrieval):

    >>> round(accuracy([], ["D1", "D2", "D3", "D4", "D5", "D6", "D7"], 1400), 4)
    0.995
    """
    # BEGIN SOLUTION
    tp, _, _, tn = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("accuracy: collection_size must be positive, got 0")
    return (tp + tn) / collection_size
    # END SOLUTION


def precision_at_k(ranking: Sequence[str], judgments: Mapping[str, int], k: int, rel: int = 1) -> float:
    """Precision at cutoff k: the share of the top k ranks that hold a relevant document.

    ``P@k = |{i <= k : grade(ranking[i]) >= rel}| / k``

    where i runs over ranks 1..min(k, len(ranking)), ``grade(d)`` is ``judgments.get(d, 0)``
    and ``rel`` the relevance threshold.

    Edge cases: the denominator is k even when the ranking is shorter than k (missing ranks
    count as not relevant, as in trec_eval); an empty ranking gives 0.0; unjudged documents
    are not relevant.

    Example (Part II, the toy ranking R N R N R):

    >>> toy = ["D1", "D2", "D3", "D4", "D5"]
    >>> judgments = {"D1": 1, "D3": 1, "D5": 1}
    >>> precision_at_k(toy, judgments, k=3)
    0.6666666666666666
    """
    # BEGIN SOLUTION
    k = _positive_int("k", k, "precision_at_k")
    rel = _positive_int("rel", rel, "precision_at_k")
    return sum(_relevant_flags(ranking[:k], judgments, rel)) / k
    # END SOLUTION


def recall_at_k(ranking: Sequence[str], judgments: Mapping[str, int], k: int, rel: int = 1) -> float:
    """Recall at cutoff k: the share of all relevant documents found in the top k ranks.

    ``Recall@k = |{i <= k : grade(ranking[i]) >= rel}| / R``

    where i runs over ranks 1..min(k, len(ranking)), ``grade(d)`` is ``judgments.get(d, 0)``
    and R is the number of judged documents with grade >= ``rel``, retrieved or not.

    Edge cases: 0.0 when R = 0 (the query has no relevant document); unjudged documents are
    not relevant; a ranking shorter than k is simply read to its end.

    Example (Part II, the toy ranking R N R N R with its 3 relevant documents):

    >>> toy = ["D1", "D2", "D3", "D4", "D5"]
    >>> recall_at_k(toy, {"D1": 1, "D3": 1, "D5": 1}, k=3)
    0.6666666666666666
    """
    # BEGIN SOLUTION
    k = _positive_int("k", k, "recall_at_k")
    rel = _positive_int("rel", rel, "recall_at_k")
    total = _count_relevant(judgments, rel)
    if total == 0:
        return 0.0
    return sum(_relevant_flags(ranking[:k], judgments, rel)) / total
    # END SOLUTION


def reciprocal_rank(ranking: Sequence[str], judgments: Mapping[str, int], rel: int = 1) -> float:
    """Reciprocal rank: ``RR = 1 / r``, r the rank of the first relevant document.

    Ranks start at 1 (``ranking[0]`` is rank 1); relevant means ``judgments.get(d, 0) >= rel``.
    MRR is the mean of RR over queries.

    Edge cases: 0.0 when no relevant document is in the ranking (also for an empty ranking).

    Example (Part III: ranking B = N N N N N N N R R R finds its first relevant at rank 8):

    >>> ranking_b = [f"D{i}" for i in range(1, 11)]
    >>> reciprocal_rank(ranking_b, {"D8": 1, "D9": 1, "D10": 1})
    0.125
    """
    # BEGIN SOLUTION
    rel = _positive_int("rel", rel, "reciprocal_rank")
    for rank, relevant in enumerate(_relevant_flags(ranking, judgments, rel), start=1):
        if relevant:
            return 1.0 / rank
    return 0.0
    # END SOLUTION


def average_precision(ranking: Sequence[str], judgments: Mapping[str, int], rel: int = 1) -> float:
    """Average precision over the whole ranking: ``AP = (1/R) * sum_i P@i * rel(i)``.

    i runs over every rank of the ranking (1..len(ranking)); ``rel(i)`` is 1 when the document
    at rank i has grade >= ``rel`` and 0 otherwise; ``P@i`` is the precision at cutoff i; R is
    the number of judged documents with grade >= ``rel``, retrieved or not, so relevant
    documents never retrieved contribute 0 but still count in R. MAP is the mean over queries.

    Edge cases: 0.0 when R = 0; 0.0 when no relevant document is retrieved.

    Example (Part III, R N R N R: (1 + 2/3 + 3/5) / 3):

    >>> toy = ["D1", "D2", "D3", "D4", "D5"]
    >>> round(average_precision(toy, {"D1": 1, "D3": 1, "D5": 1}), 3)
    0.756
    """
    # BEGIN SOLUTION
    rel = _positive_int("rel", rel, "average_precision")
    total = _count_relevant(judgments, rel)
    if total == 0:
        return 0.0
    found, precision_sum = 0, 0.0
    for rank, relevant in enumerate(_relevant_flags(ranking, judgments, rel), start=1):
        if relevant:
            found += 1
            precision_sum += found / rank
    return precision_sum / total
    # END SOLUTION


def dcg_at_k(ranking: Sequence[str], judgments: Mapping[str, int], k: int, gain: str = "linear") -> float:
    """Discounted cumulative gain at cutoff k: ``DCG@k = sum_i gain(grade_i) / log2(i + 1)``.

    i runs over ranks 1..min(k, len(ranking)); ``grade_i`` is ``judgments.get(d, 0)`` for the
    document d at rank i. ``gain="linear"`` uses the grade itself (trec_eval, ``ir_measures``'
    ``nDCG@k``); ``gain="exp"`` uses ``2**grade - 1`` (Part IV, ``nDCG(dcg='exp-log2')@k``).
    Negative grades gain 0 with either gain.

    Edge cases: an empty ranking gives 0.0; ``ValueError`` for an unknown ``gain``.

    Example (Part IV, grades [3, 0, 2, 1] with the exponential gain: 7 + 0 + 3/2 + 1/log2(5)):

    >>> ranking = ["A", "B", "C", "D"]
    >>> round(dcg_at_k(ranking, {"A": 3, "B": 0, "C": 2, "D": 1}, k=4, gain="exp"), 3)
    8.931
    """
    # BEGIN SOLUTION
    k = _positive_int("k", k, "dcg_at_k")
    gain_of = _gain_function(gain, "dcg_at_k")
    return _dcg([judgments.get(doc_id, 0) for doc_id in ranking[:k]], gain_of)
    # END SOLUTION


def ndcg_at_k(ranking: Sequence[str], judgments: Mapping[str, int], k: int, gain: str = "linear") -> float:
    """Normalised DCG at cutoff k: ``nDCG@k = DCG@k / IDCG@k``.

    ``DCG@k`` is ``dcg_at_k(ranking, judgments, k, gain)``. ``IDCG@k`` is the DCG@k of the
    ideal ranking: *all judged documents of the query* (retrieved or not) sorted by grade,
    highest first, cut at k. ``gain`` is ``"linear"`` or ``"exp"`` as in ``dcg_at_k``.

    Edge cases: 0.0 when IDCG@k = 0 (no judged document with a positive grade); the result
    is between 0 and 1, and 1 exactly for an ideal ranking.

    Example (Part IV, grades [3, 0, 2, 1]: 8.931 / 9.393 with the exponential gain):

    >>> ranking = ["A", "B", "C", "D"]
    >>> round(ndcg_at_k(ranking, {"A": 3, "B": 0, "C": 2, "D": 1}, k=4, gain="exp"), 3)
    0.951
    """
    # BEGIN SOLUTION
    k = _positive_int("k", k, "ndcg_at_k")
    _gain_function(gain, "ndcg_at_k")
    ideal_ranking = sorted(judgments, key=lambda doc_id: judgments[doc_id], reverse=True)
    ideal = dcg_at_k(ideal_ranking, judgments, k, gain)
    if ideal == 0:
        return 0.0
    return dcg_at_k(ranking, judgments, k, gain) / ideal
    # END SOLUTION


def evaluate(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    measure: Callable[[Sequence[str], Mapping[str, int]], float],
) -> dict[str, float]:
    """One score per query: ``{query_id: measure(run[query_id], qrels[query_id])}``.

    ``measure`` is any function of ``(ranking, judgments)``, e.g.
    ``functools.partial(precision_at_k, k=10)``. Every query of ``qrels`` gets a score: a
    query missing from ``run`` is measured on an empty ranking ``[]``; queries in ``run``
    but not in ``qrels`` are ignored (they have no judgments). The mean of the returned
    values is the aggregate (MAP for ``average_precision``), averaged over *every* query
    in the qrels, as ``ir_measures`` does.

    Example (Part V: a query the system did not answer scores 0):

    >>> evaluate({"1": ["D1"]}, {"1": {"D1": 1}, "2": {"D7": 2}}, reciprocal_rank)
    {'1': 1.0, '2': 0.0}
    """
    # BEGIN SOLUTION
    return {query_id: measure(run.get(query_id, []), judgments) for query_id, judgments in qrels.items()}
    # END SOLUTION


def largest_differences(scores_a: Mapping[str, float], scores_b: Mapping[str, float], n: int = 2) -> list[str]:
    """The n query ids where two systems' per-query scores differ most (Part VI).

    Over the query ids present in both ``scores_a`` and ``scores_b``, sort by
    ``|scores_a[q] - scores_b[q]|`` descending, ties by query id ascending in string order
    ("10" before "9"), and return the first n query ids.

    Edge cases: fewer than n common queries returns them all; no common query returns [];
    ``ValueError`` if n is not a positive integer.

    Example (Part VI, per-query AP of two systems):

    >>> largest_differences({"1": 0.9, "2": 0.5, "3": 0.1}, {"1": 0.1, "2": 0.5, "3": 0.4}, n=2)
    ['1', '3']
    """
    # BEGIN SOLUTION
    n = _positive_int("n", n, "largest_differences")
    common = set(scores_a) & set(scores_b)
    return sorted(common, key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))[:n]
    # END SOLUTION
