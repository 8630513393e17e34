"""The building blocks of the misconception catalogue's wrong variants: relevance tests, precision
sums, gains and discounts, and the rows a (right or wrong) run writer writes. Plain functions of
plain values, run by the parent on trusted inputs only."""

from __future__ import annotations

import math
from collections.abc import Callable

from autograder.labkit import trec


def grade_of(judgments, doc):
    """A document's grade (0 when unjudged)."""
    return judgments.get(doc, 0)


def count_at_least(judgments, threshold):
    """R: the judged documents whose grade is at least ``threshold``."""
    return sum(1 for grade in judgments.values() if grade >= threshold)


def count_nonzero(judgments):
    """The judged documents whose grade is not 0 (-1 included: a common slip)."""
    return sum(1 for grade in judgments.values() if grade != 0)


def hit_flags(ranking, judgments, test):
    """For each rank, does ``test(grade)`` hold?"""
    return [test(grade_of(judgments, doc)) for doc in ranking]


def average_precision_over(ranking, judgments, test, denominator):
    """The sum of P@i at the ranks where ``test`` holds, over ``denominator(found, length)``."""
    found, total = 0, 0.0
    for rank, hit in enumerate(hit_flags(ranking, judgments, test), start=1):
        if hit:
            found += 1
            total += found / rank
    return total / denominator(found, len(ranking)) if denominator(found, len(ranking)) else 0.0


def average_precision_with(ranking, judgments, rel, precision=None, every_rank=False):
    """AP over R (the judged documents with grade >= rel) made the usual wrong ways: the sum of
    ``precision(top i, relevant found in it)`` (default: P@i) at each relevant rank i, or at every
    rank (``every_rank``)."""
    total = count_at_least(judgments, rel)
    if not total:
        return 0.0
    found, value = 0, 0.0
    for rank, hit in enumerate(hit_flags(ranking, judgments, lambda g: g >= rel), start=1):
        found += hit
        if hit or every_rank:
            value += precision(ranking[:rank], found) if precision else found / rank
    return value / total


def grade_sum(ranking, judgments, rel):
    """The grades of the relevant documents in ``ranking`` added up (not the documents counted)."""
    return sum(grade_of(judgments, doc) for doc in ranking if grade_of(judgments, doc) >= rel)


def gain_value(grade, gain, clamp=True):
    """The gain of a grade: itself (linear) or 2**grade - 1 (exp); negative grades clamped to 0.
    ``gain`` may also be a function of the grade (a wrong gain)."""
    grade = max(grade, 0) if clamp else grade
    if callable(gain):
        return gain(grade)
    return (2**grade - 1) if gain == "exp" else grade


def log2_discount(rank):
    return math.log2(rank + 1)


def dcg_value(ranking, judgments, k, gain="linear", discount=log2_discount, clamp=True):
    """DCG@k with a given discount and clamping."""
    return sum(
        gain_value(grade_of(judgments, doc), gain, clamp) / discount(rank) for rank, doc in enumerate(ranking[:k], 1)
    )


def ndcg_value(
    ranking, judgments, k, gain="linear", ideal_from=None, cut=True, ideal_gain=None, best_first=True, **options
):
    """nDCG@k whose ideal ranking comes from ``ideal_from`` (default: all judged documents), sorted best
    first (or worst first), cut at k or not, with its own gain; ``options`` go to ``dcg_value``
    (discount, clamp)."""
    sign = -1 if best_first else 1
    ideal = sorted(ideal_from if ideal_from is not None else judgments, key=lambda d: sign * grade_of(judgments, d))
    best = dcg_value(ideal, judgments, k if cut else max(len(ideal), 1), ideal_gain or gain, **options)
    return dcg_value(ranking, judgments, k, gain, **options) / best if best > 0 else 0.0


def ndcg_unguarded(ranking, judgments, k, gain="linear"):
    """nDCG@k dividing by IDCG without checking it is 0."""
    ideal = sorted(judgments, key=lambda d: -grade_of(judgments, d))
    return dcg_value(ranking, judgments, k, gain) / dcg_value(ideal, judgments, k, gain)


def reciprocal_rank_with(ranking, judgments, test, rank_of=lambda index: index + 1, last=False):
    """1 / rank of the first (or ``last``) document where ``test`` holds, ranks counted by ``rank_of``."""
    value = 0.0
    for index, hit in enumerate(hit_flags(ranking, judgments, test)):
        if hit:
            value = 1 / rank_of(index)
            if not last:
                return value
    return value


def strict(ranking, judgments, test):
    """``hit_flags`` reading judgments[doc] (a KeyError for an unjudged document)."""
    return [test(judgments[doc]) for doc in ranking]


def zero_over_zero(measure: Callable) -> tuple:
    """The two usual forms of a measure that divides by zero: Python's ZeroDivisionError, and the NaN
    that numpy's 0.0 / 0.0 gives."""

    def as_nan(*args, **kwargs):
        try:
            return measure(*args, **kwargs)
        except ZeroDivisionError:
            return math.nan

    return (measure, as_nan)


def division_by_zero():
    raise ZeroDivisionError("division by zero")


def previous_ranking_scores(run, qrels, measure):
    """evaluate's slip of carrying a ranking over: a query the run lacks is measured on the ranking of the
    query before it (an empty one for the first)."""
    scores: dict = {}
    ranking: object = []
    for query_id, judgments in qrels.items():
        ranking = run.get(query_id, ranking)
        scores[query_id] = measure(ranking, judgments)
    return scores


def relative_gap(a, b):
    """|a - b| over the larger score (0 when both are 0): largest_differences' slip of a relative difference."""
    top = max(a, b)
    return abs(a - b) / top if top else 0.0


def numeric_id(query_id):
    """A sort key ordering query ids as numbers (a slip: the contract orders them as strings)."""
    try:
        return (0, int(query_id), query_id)
    except ValueError:
        return (1, 0, query_id)


def cells(retrieved, relevant, n, tn_of: Callable | None = None):
    """The confusion matrix ``[tp, fp, fn, tn]``, TN computed by ``tn_of`` when given."""
    retrieved, relevant = set(retrieved), set(relevant)
    tp = len(retrieved & relevant)
    fp, fn = len(retrieved) - tp, len(relevant) - tp
    tn = tn_of(tp, fp, fn) if tn_of else n - len(retrieved | relevant)
    return [tp, fp, fn, tn]


def cells_counted(retrieved, relevant, n, loop_retrieved=False, lengths=False):
    """The confusion matrix with the lists counted: TP and FP by a loop over ``retrieved`` as given
    (``loop_retrieved``), or FP and FN from the lists' lengths (``lengths``)."""
    right = set(relevant)
    tp, fp, fn, tn = cells(retrieved, relevant, n)
    if loop_retrieved:
        tp, fp = sum(doc in right for doc in retrieved), sum(doc not in right for doc in retrieved)
    if lengths:
        fp, fn = len(retrieved) - tp, len(relevant) - tp
    return [tp, fp, fn, tn]


def cells_from_lists(retrieved, relevant, n, loop_retrieved=False):
    """The confusion matrix with FP and FN from the lists' lengths and TN = N - TP - FP - FN; TP by a
    loop over ``retrieved`` as given (``loop_retrieved``) or from the sets."""
    tp = sum(doc in set(relevant) for doc in retrieved) if loop_retrieved else len(set(retrieved) & set(relevant))
    fp, fn = len(retrieved) - tp, len(relevant) - tp
    return [tp, fp, fn, n - tp - fp - fn]


def accuracy_of(matrix, n):
    """(TP + TN) / N of a confusion matrix."""
    return (matrix[0] + matrix[3]) / n


UNCUT = 10**6  # a k no search function reaches: the rows of every result the search function returned
_ROW_STRINGS: dict[tuple, tuple] = {}  # built once per process: Cranfield runs have 22,500 rows
KEPT_ROWS = 2000  # a wrong writer's rows kept for the next call, at most (the small scenarios')


def rows(scenario, k=None, places=trec.PLACES, queries=None, score_format=None):
    """The rows the right writer writes for a scenario, as strings (k, decimals, the queries' order and
    the scores' format spec overridable: a format the scores refuse raises its ValueError). Kept for
    the next call when they are the right writer's or few: a wrong writer's Cranfield run is made
    again when asked for (22,500 rows, a few MB each)."""
    ordered = tuple(queries or scenario.queries)
    key = (scenario.name, scenario.system, k or scenario.k, places, id(scenario.results), ordered, score_format)
    if key in _ROW_STRINGS and _ROW_STRINGS[key][0] is scenario.results:
        return _ROW_STRINGS[key][1]
    made = [
        (
            trec.line(query_id, hit[0], rank, hit[-1], scenario.system, places)
            if score_format is None
            else f"{query_id} Q0 {hit[0]} {rank} {format(hit[-1], score_format)} {scenario.system}"
        ).split()
        for query_id, text in ordered
        for rank, hit in enumerate(scenario.results[text][: k or scenario.k], start=1)
    ]
    right = (k or scenario.k) == scenario.k and places == trec.PLACES and queries is None and score_format is None
    if right or len(made) <= KEPT_ROWS:
        _ROW_STRINGS[key] = (scenario.results, made)
    return made


def rows_or_error(scenario, **options) -> list:
    """``rows``, or ``("raises", "ValueError")`` when the scores refuse the format."""
    try:
        return rows(scenario, **options)
    except ValueError:
        return ("raises", "ValueError")  # type: ignore[return-value]


def query_orders(scenario) -> list:
    """The queries sorted by id as strings, and as numbers (when every id is a number)."""
    orders = [sorted(scenario.queries, key=lambda query: query[0])]
    if all(query_id.isdigit() for query_id, _ in scenario.queries):
        orders.append(sorted(scenario.queries, key=lambda query: int(query[0])))
    return orders


def sorted_by_doc(table):
    """The rows of each query re-sorted by doc id and re-ranked (a writer that sorts)."""
    grouped: dict[str, list] = {}
    for row in table:
        grouped.setdefault(row[0], []).append(row)
    out = []
    for query_rows in grouped.values():
        for rank, row in enumerate(sorted(query_rows, key=lambda r: r[2]), start=1):
            out.append([row[0], row[1], row[2], str(rank), row[4], row[5]])
    return out


def resorted_by_score(scenario):
    """The rows of a writer that sorts each query's results again by score, highest first, ties by doc id,
    then ranks them: the scores search_fn gave, at full precision."""
    return [
        trec.line(qid, hit[0], rank, hit[-1], scenario.system, trec.PLACES).split()
        for qid, asked in scenario.queries
        for rank, hit in enumerate(sorted(scenario.results[asked][: scenario.k], key=lambda hit: (-hit[-1], hit[0])), 1)
    ]
