"""Mistakes read off the contract and the notes rather than seen: each entry is made from the reference's
quantities, so a mistake of the same kind gets named wherever it shows. Five kinds (issue 32):

- the answer's **type or shape** (evaluate's mean or a list of values where a dict query id -> value is
  due; (id, difference) pairs where query ids are due; a dict where the tuple (tp, fp, fn, tn) is);
- the **value of another measure** of the lab on the same inputs (P@k computed as R@k, RR as AP...), the
  right value **truncated** to a whole number, or **0/1** where a share is due;
- a **formula of a few quantities** combined wrongly: accuracy's cells, AP's sum and denominator, RR over the
  relevant ranks, the gain, the relevance threshold;
- the **ideal ranking** of nDCG built wrongly from the judgments;
- a **default** other than the contract's (rel=1, gain='linear', n=2), seen on the calls that leave it out.

Like every entry, one is named only when its variant reproduces every judged answer of the function."""

from __future__ import annotations

import math

from .. import variants
from .model import m

_CELLS = {
    "tp": lambda c, n: c[0],
    "tn": lambda c, n: c[3],
    "tp + tn": lambda c, n: c[0] + c[3],
    "N": lambda c, n: n,
    "tp + fp": lambda c, n: c[0] + c[1],
    "tp + fn": lambda c, n: c[0] + c[2],
    "tp + fp + fn": lambda c, n: c[0] + c[1] + c[2],
    "fp + fn + tn": lambda c, n: c[1] + c[2] + c[3],
    "tn + fp": lambda c, n: c[3] + c[1],
    "tn + fn": lambda c, n: c[3] + c[2],
}
#: accuracy's wrong fractions of cells (numerator, denominator); (tp + tn) / N is right, and the
#: catalogue's cells.py already names tp / (tp + fp), (tp + tn) / (tp + fp + fn) and, on every case of the
#: plan, tn / N (tn-overlap-twice answers it wherever tp is 0)
_FRACTIONS = [
    (top, bottom)
    for top in ("tp", "tn", "tp + tn")
    for bottom in ("N", "tp + fp", "tp + fn", "tp + fp + fn", "fp + fn + tn", "tn + fp", "tn + fn")
    if (top, bottom) not in {("tp + tn", "N"), ("tp", "tp + fp"), ("tp + tn", "tp + fp + fn"), ("tn", "N")}
]


def _fraction(top, bottom):
    def accuracy(ret, rel, n):
        c = variants.cells(ret, rel, n)
        if n == 0:
            raise ValueError("collection_size is 0")
        below = _CELLS[bottom](c, n)
        return _CELLS[top](c, n) / below if below else 0.0

    def unguarded(ret, rel, n):
        c = variants.cells(ret, rel, n)
        if n == 0:
            raise ValueError("collection_size is 0")
        return _CELLS[top](c, n) / _CELLS[bottom](c, n)

    return accuracy, unguarded


def _slug(text):
    return text.replace(" + ", "-").replace("N", "n")


REL_DEFAULTS = (2, 3, 0)  # rel's wrong defaults tried (the contract's is 1)
N_DEFAULTS = (1, 3, 4, 5, 10)  # n's wrong defaults tried (the contract's is 2)
#: the ids of the generated entries, for the concepts that list them
ACCURACY_IDS = tuple(f"accuracy-{_slug(top)}-over-{_slug(bottom)}" for top, bottom in _FRACTIONS)
DEFAULT_REL_IDS = tuple(f"default-rel-{value}" for value in REL_DEFAULTS)
DEFAULT_N_IDS = tuple(f"default-n-{value}" for value in N_DEFAULTS)


# ---------------------------------------------------------------- the reference's quantities


def _hits(ranking, judgments, test):
    return sum(variants.hit_flags(ranking, judgments, test))


def precision(r, j, k, rel=1, test=None):
    return _hits(r[:k], j, test or (lambda g: g >= rel)) / k


def recall(r, j, k, rel=1, test=None):
    test = test or (lambda g: g >= rel)
    total = sum(1 for g in j.values() if test(g))
    return _hits(r[:k], j, test) / total if total else 0.0


def rr(r, j, rel=1, test=None):
    return variants.reciprocal_rank_with(r, j, test or (lambda g: g >= rel))


def ap(r, j, rel=1, test=None, every_rank=False, denominator=None):
    test = test or (lambda g: g >= rel)
    total = sum(1 for g in j.values() if test(g))
    if not total:
        return 0.0
    found, value = 0, 0.0
    for rank, hit in enumerate(variants.hit_flags(r, j, test), start=1):
        found += hit
        if hit or every_rank:
            value += found / rank
    below = denominator(r, j, found, total) if denominator else total
    return value / below if below else 0.0


def ndcg(r, j, k, gain="linear"):
    return variants.ndcg_value(r, j, k, gain)


def _truncated(measure):
    return lambda *args, **kwargs: math.floor(measure(*args, **kwargs))


def _zero_one(measure):
    """A yes/no answer as a number, 1.0 or 0.0 (True or False, which the judge takes for no number, is an answer
    shape: ``shapes.py``'s booleans)."""
    return lambda *args, **kwargs: float(measure(*args, **kwargs) > 0)


def _evaluated(run, qrels, measure):
    return {q: measure(run.get(q, []), judgments) for q, judgments in qrels.items()}


def _dcg(r, j, k, gain="linear"):
    return variants.dcg_value(r, j, k, gain)


def _common_gaps(a, b):
    return sorted(((q, abs(a[q] - b[q])) for q in set(a) & set(b)), key=lambda pair: (-pair[1], pair[0]))


def _first_missing(a, b):
    """scores_b[q] for every q of scores_a: the KeyError of the first one missing."""
    gaps = {q: abs(a[q] - b[q]) for q in a}  # b[q]: the lookup that raises
    return sorted(gaps, key=lambda q: (-gaps[q], q))


def _gain_plus_one(grade):
    return grade + 1


def _ideal_of(grades, j, k, gain):
    """IDCG@k of a list of grades, as ranks 1, 2, ..."""
    return sum(variants.gain_value(g, gain) / math.log2(i + 1) for i, g in enumerate(grades[:k], start=1))


def _ndcg_with_ideal(ideal_grades):
    def measure(r, j, k, gain="linear"):
        best = _ideal_of(ideal_grades(j, k), j, k, gain)
        return variants.dcg_value(r, j, k, gain) / best if best > 0 else 0.0

    return measure


ENTRIES = [
    # ---------------------------------------------------------------- the answer's type or shape
    m(
        "evaluate-returns-mean",
        ["evaluate"],
        "evaluate returns one number, the mean over the queries, where the contract wants a dict query id -> value",
        "evaluate returns {query_id: measure(ranking, judgments)} for every query of the qrels; the mean of its "
        "values (MAP for average_precision) is the caller's aggregate, not evaluate's answer.",
        "Part V, Live evaluation on Cranfield",
        evaluate=(
            lambda run, qrels, measure: (lambda s: sum(s.values()) / len(s) if s else 0.0)(
                _evaluated(run, qrels, measure)
            ),
            lambda run, qrels, measure: (lambda s: sum(s.values()) / len(s))(_evaluated(run, qrels, measure)),
        ),
    ),
    m(
        "evaluate-returns-values",
        ["evaluate"],
        "evaluate returns the values alone (a list, no query ids) where the contract wants a dict query id -> value",
        "evaluate returns a dict {query_id: measure(ranking, judgments)}: the query ids are its keys, so a caller "
        "can tell which value is which query's.",
        "Part V, Live evaluation on Cranfield",
        evaluate=lambda run, qrels, measure: list(_evaluated(run, qrels, measure).values()),
    ),
    m(
        "differences-returns-pairs",
        ["largest_differences"],
        "largest_differences returns (query id, difference) pairs where the contract wants a list of query ids",
        "largest_differences returns the n query ids alone, largest difference first: ['1', '3'], not "
        "[('1', 0.8), ('3', 0.3)].",
        "Part VI, Per-query analysis",
        largest_differences=(
            lambda a, b, n=2: [list(pair) for pair in _common_gaps(a, b)[:n]],
            lambda a, b, n=2: [[q, a[q] - b[q]] for q, _ in _common_gaps(a, b)[:n]],
        ),
    ),
    m(
        "confusion-returns-dict",
        ["confusion_matrix"],
        "confusion_matrix returns a dict of the cells where the contract wants the tuple (tp, fp, fn, tn)",
        "confusion_matrix returns the four counts in a fixed order, (tp, fp, fn, tn): a tuple (or a list), not a "
        "mapping of names to counts.",
        "Part II, Accuracy, Precision and Recall",
        confusion_matrix=tuple(
            lambda ret, rel, n, names=names: dict(zip(names, variants.cells(ret, rel, n)))
            for names in (("tp", "fp", "fn", "tn"), ("TP", "FP", "FN", "TN"))
        ),
    ),
    m(
        "confusion-as-table",
        ["confusion_matrix"],
        "confusion_matrix returns the 2 x 2 table (rows of cells) where the contract wants the flat (tp, fp, fn, tn)",
        "confusion_matrix returns the four counts as one flat tuple, (tp, fp, fn, tn), not the table's rows.",
        "Part II, Accuracy, Precision and Recall",
        confusion_matrix=(
            lambda ret, rel, n: (lambda c: [[c[0], c[1]], [c[2], c[3]]])(variants.cells(ret, rel, n)),
            lambda ret, rel, n: (lambda c: [[c[0], c[2]], [c[1], c[3]]])(variants.cells(ret, rel, n)),
        ),
    ),
    m(
        "evaluate-returns-pairs",
        ["evaluate"],
        "evaluate returns a list of (query id, value) pairs where the contract wants a dict query id -> value",
        "evaluate returns a dict {query_id: measure(ranking, judgments)}: look a query's value up by its id.",
        "Part V, Live evaluation on Cranfield",
        evaluate=lambda run, qrels, measure: [list(pair) for pair in _evaluated(run, qrels, measure).items()],
    ),
    m(
        "differences-returns-values",
        ["largest_differences"],
        "largest_differences returns the differences themselves where the contract wants the query ids",
        "largest_differences answers which queries differ most: the n query ids, largest difference first.",
        "Part VI, Per-query analysis",
        largest_differences=lambda a, b, n=2: [gap for _, gap in _common_gaps(a, b)[:n]],
    ),
    # ---------------------------------------------------------------- an exception on an allowed input
    m(
        "differences-lookup-keyerror",
        ["largest_differences"],
        "scores_b[q] read for every query of scores_a: a KeyError when a query is scored by one system only",
        "largest_differences compares the queries present in both systems: a query that one of them did not "
        "score is left out, not looked up in the other.",
        "the function's contract",
        largest_differences=(
            lambda a, b, n=2: _first_missing(a, b)[:n],
            lambda a, b, n=2: _first_missing(b, a)[:n],
        ),
    ),
    # ---------------------------------------------------------------- another measure, truncated, 0/1
    m(
        "precision-is-recall",
        ["precision_at_k"],
        "P@k computed as R@k: the relevant documents in the top k divided by R, not by k",
        "P@k = relevant in the top k / k; dividing by R, all relevant documents of the query, is Recall@k.",
        "Part II, Precision",
        precision_at_k=recall,
    ),
    m(
        "rr-is-ap",
        ["reciprocal_rank"],
        "RR computed as AP: the precision at every relevant rank averaged over R",
        "RR = 1 / the rank of the first relevant document: the relevant documents after it do not count.",
        "Part III, Reciprocal Rank and MRR",
        reciprocal_rank=ap,
    ),
    m(
        "ap-is-rr",
        ["average_precision"],
        "AP computed as RR: 1 / the rank of the first relevant document",
        "AP = (1/R) * the sum of P@i at every rank i holding a relevant document: every relevant document counts, "
        "not the first one only.",
        "Part III, Average Precision and MAP",
        average_precision=rr,
    ),
    m(
        "ndcg-is-dcg",
        ["ndcg_at_k"],
        "nDCG@k computed as DCG@k: not divided by IDCG@k",
        "nDCG@k = DCG@k / IDCG@k, the DCG of the ranking over the DCG of the ideal one: between 0 and 1.",
        "Part IV, Graded relevance: DCG and nDCG",
        ndcg_at_k=_dcg,
    ),
    m(
        "truncated-to-whole-number",
        ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k"],
        "the answer truncated to a whole number (// or int()) where a fraction is due",
        "A // b and int(a / b) drop the fraction: every share below 1 becomes 0. Divide with / and keep the float.",
        "Part II, Precision",
        precision_at_k=_truncated(precision),
        recall_at_k=_truncated(recall),
        reciprocal_rank=_truncated(rr),
        average_precision=_truncated(ap),
        dcg_at_k=_truncated(_dcg),
        ndcg_at_k=_truncated(ndcg),
    ),
    m(
        "zero-or-one",
        ["precision_at_k", "recall_at_k", "average_precision", "ndcg_at_k"],
        "1 whenever a relevant document counts at all, else 0: a yes/no where a share is due",
        "The measure is a share between 0 and 1 (a count divided by k or by R, a DCG over its ideal): whether a "
        "relevant document is there is only its numerator's first step.",
        "Part II, Precision",
        precision_at_k=_zero_one(precision),
        recall_at_k=_zero_one(recall),
        average_precision=_zero_one(ap),
        ndcg_at_k=_zero_one(ndcg),
    ),
    # ---------------------------------------------------------------- formulas of a few quantities
    *[
        m(
            ACCURACY_IDS[index],
            ["accuracy"],
            f"accuracy computed as ({top}) / ({bottom})",
            "Accuracy = (TP + TN) / N = (TP + TN) / (TP + FP + FN + TN): the correct decisions, both kinds, "
            "over every document of the collection.",
            "Part II, Accuracy, and why it is not enough",
            accuracy=_fraction(top, bottom),
        )
        for index, (top, bottom) in enumerate(_FRACTIONS)
    ],
    m(
        "ap-over-distinct-grades",
        ["average_precision"],
        "AP divided by the number of distinct relevant grades, not by R",
        "AP = (1/R) * the sum of P@i at the relevant ranks: R counts the relevant documents, however many share "
        "a grade.",
        "Part III, Average Precision and MAP",
        average_precision=lambda r, j, rel=1: ap(
            r, j, rel, denominator=lambda r, j, found, total: len({g for g in j.values() if g >= rel})
        ),
    ),
    m(
        "ap-every-rank-over-hits",
        ["average_precision"],
        "AP as P@i summed at every rank i (not only at the relevant ones), divided by the relevant documents found",
        "AP records the precision only where a relevant document is met, and averages over all R relevant documents.",
        "Part III, Average Precision and MAP",
        average_precision=lambda r, j, rel=1: ap(r, j, rel, every_rank=True, denominator=lambda r, j, f, t: f),
    ),
    m(
        "ap-every-rank-over-length",
        ["average_precision"],
        "AP as the mean of P@i over every rank i of the ranking",
        "AP records the precision only where a relevant document is met, and averages over all R relevant "
        "documents, not over the ranks.",
        "Part III, Average Precision and MAP",
        average_precision=lambda r, j, rel=1: ap(r, j, rel, every_rank=True, denominator=lambda r, j, f, t: len(r)),
    ),
    m(
        "rr-mean-over-relevant-ranks",
        ["reciprocal_rank"],
        "RR as the mean of 1 / rank over every relevant rank, not 1 / the first one's rank",
        "RR = 1 / r, r the rank of the first relevant document only: later relevant documents do not count.",
        "Part III, Reciprocal Rank and MRR",
        reciprocal_rank=(
            lambda r, j, rel=1: (lambda ranks: sum(1 / x for x in ranks) / len(ranks) if ranks else 0.0)(
                [i for i, hit in enumerate(variants.hit_flags(r, j, lambda g: g >= rel), 1) if hit]
            ),
        ),
    ),
    m(
        "rr-sum-over-relevant-ranks",
        ["reciprocal_rank"],
        "RR as the sum of 1 / rank over every relevant rank, not 1 / the first one's rank",
        "RR = 1 / r, r the rank of the first relevant document only: later relevant documents do not count.",
        "Part III, Reciprocal Rank and MRR",
        reciprocal_rank=lambda r, j, rel=1: sum(
            1 / i for i, hit in enumerate(variants.hit_flags(r, j, lambda g: g >= rel), 1) if hit
        ),
    ),
    m(
        "gain-plus-one",
        ["dcg_at_k", "ndcg_at_k"],
        "the linear gain taken as grade + 1, not the grade itself",
        "gain='linear' is the grade itself: grade 0 gains 0, grade 2 gains 2 (and gain='exp' is 2^grade - 1).",
        "Part IV, Three ideas in one formula",
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(
            r, j, k, _gain_plus_one if gain == "linear" else gain
        ),
        ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(
            r, j, k, _gain_plus_one if gain == "linear" else gain
        ),
    ),
    m(
        "relevance-equals-rel",
        ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
        "relevant taken as grade == rel, not grade >= rel",
        "A document is relevant when its grade is at least rel: with rel=1, grades 1, 2, 3 and 4 are all relevant.",
        "Part V, Live evaluation on Cranfield",
        precision_at_k=lambda r, j, k, rel=1: precision(r, j, k, test=lambda g: g == rel),
        recall_at_k=lambda r, j, k, rel=1: recall(r, j, k, test=lambda g: g == rel),
        reciprocal_rank=lambda r, j, rel=1: rr(r, j, test=lambda g: g == rel),
        average_precision=lambda r, j, rel=1: ap(r, j, test=lambda g: g == rel),
    ),
    # ---------------------------------------------------------------- the ideal ranking of nDCG
    m(
        "ideal-unsorted",
        ["ndcg_at_k"],
        "the ideal ranking not sorted: the judged documents in the judgments' own order",
        "IDCG@k is the DCG@k of the ideal ranking: all judged documents sorted by grade, highest first, then cut at k.",
        "Part IV, Graded relevance: DCG and nDCG",
        ndcg_at_k=(
            _ndcg_with_ideal(lambda j, k: list(j.values())),
            _ndcg_with_ideal(lambda j, k: [g for g in j.values() if g > 0]),  # the relevant ones kept, unsorted
        ),
    ),
    m(
        "ideal-best-grade-repeated",
        ["ndcg_at_k"],
        "the ideal ranking taken as the best grade at every one of the k ranks",
        "IDCG@k is the DCG@k of the judged documents sorted by grade: each judged document once, so a query with "
        "one document of the best grade has it at rank 1 only.",
        "Part IV, Graded relevance: DCG and nDCG",
        ndcg_at_k=_ndcg_with_ideal(lambda j, k: [max(j.values(), default=0)] * k),
    ),
    m(
        "ideal-distinct-grades",
        ["ndcg_at_k"],
        "the ideal ranking made of the distinct grades (each grade once), not of every judged document",
        "IDCG@k sorts all judged documents by grade: two documents of grade 2 are two ranks of the ideal ranking.",
        "Part IV, Graded relevance: DCG and nDCG",
        ndcg_at_k=_ndcg_with_ideal(lambda j, k: sorted(set(j.values()), reverse=True)),
    ),
    # ---------------------------------------------------------------- defaults
    *[
        m(
            DEFAULT_REL_IDS[index],
            ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
            f"the default of rel is not 1: the calls that leave rel out answer as with rel = {value}",
            "rel=1 by default: left out, a document is relevant when its grade is at least 1.",
            "Part V, Live evaluation on Cranfield",
            precision_at_k=lambda r, j, k, rel=value: precision(r, j, k, rel),
            recall_at_k=lambda r, j, k, rel=value: recall(r, j, k, rel),
            reciprocal_rank=lambda r, j, rel=value: rr(r, j, rel),
            average_precision=lambda r, j, rel=value: ap(r, j, rel),
        )
        for index, value in enumerate(REL_DEFAULTS)
    ],
    m(
        "default-gain-exp",
        ["dcg_at_k", "ndcg_at_k"],
        "the default of gain is not 'linear': the calls that leave gain out answer as with gain='exp'",
        "gain='linear' by default (trec_eval's nDCG@10): left out, the gain is the grade itself.",
        "Part IV, Three ideas in one formula",
        dcg_at_k=lambda r, j, k, gain="exp": variants.dcg_value(r, j, k, gain),
        ndcg_at_k=lambda r, j, k, gain="exp": variants.ndcg_value(r, j, k, gain),
    ),
    *[
        m(
            DEFAULT_N_IDS[index],
            ["largest_differences"],
            f"the default of n is not 2: the calls that leave n out answer as with n = {value}",
            "n=2 by default: left out, largest_differences returns the two query ids that differ most.",
            "the function's contract",
            largest_differences=lambda a, b, n=value: [q for q, _ in _common_gaps(a, b)][:n],
        )
        for index, value in enumerate(N_DEFAULTS)
    ],
]
