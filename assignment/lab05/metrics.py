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
    raise NotImplementedError(
        "confusion_matrix is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part II of the notes explains it)"
    )


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
    raise NotImplementedError(
        "accuracy is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part II of the notes explains it)"
    )


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
    raise NotImplementedError(
        "precision_at_k is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part II of the notes explains it)"
    )


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
    raise NotImplementedError(
        "recall_at_k is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part II of the notes explains it)"
    )


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
    raise NotImplementedError(
        "reciprocal_rank is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part III of the notes explains it)"
    )


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
    raise NotImplementedError(
        "average_precision is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part III of the notes explains it)"
    )


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
    raise NotImplementedError(
        "dcg_at_k is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part IV of the notes explains it)"
    )


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
    raise NotImplementedError(
        "ndcg_at_k is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part IV of the notes explains it)"
    )


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
    raise NotImplementedError(
        "evaluate is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part V of the notes explains it)"
    )


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
    raise NotImplementedError(
        "largest_differences is not implemented yet: write it in lab05/metrics.py "
        "(its docstring has the contract; Part VI of the notes explains it)"
    )
