"""The library of known misconceptions: wrong variants of the graded functions, as data.

Each ``Misconception`` names a mistake students really make, explains it in plain words,
points to the part of the notes that settles it, and carries a small function computing the
wrong variant (for ``write_run``: the rows the wrong writer would write). ``diagnosis``
recognises one when a submission's outputs on a check's cases match the variant where the
variant and the right answer differ. A registry as a plain dict, id -> Misconception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Misconception:
    id: str
    functions: tuple          # the graded functions it shows up in
    title: str                # the mistake, in plain words
    explanation: str          # why it is wrong and what is right
    notes: str                # where the notes explain it
    variants: dict            # function -> the wrong implementation, or a tuple of its usual forms;
                              # write_run -> scenario -> the candidate tables the wrong writer writes


def _grade(judgments, doc):
    return judgments.get(doc, 0)


def _positive(judgments, threshold):
    return sum(1 for grade in judgments.values() if grade >= threshold)


def _hits(ranking, judgments, test):
    return [test(_grade(judgments, doc)) for doc in ranking]


def _ap(ranking, judgments, test, denominator):
    found, total = 0, 0.0
    for rank, hit in enumerate(_hits(ranking, judgments, test), start=1):
        if hit:
            found += 1
            total += found / rank
    return total / denominator(found, len(ranking)) if denominator(found, len(ranking)) else 0.0


def _gain(grade, gain, clamp=True):
    grade = max(grade, 0) if clamp else grade
    return (2 ** grade - 1) if gain == "exp" else grade


def _dcg(ranking, judgments, k, gain="linear", discount=lambda i: math.log2(i + 1), clamp=True):
    return sum(_gain(_grade(judgments, doc), gain, clamp) / discount(i) for i, doc in enumerate(ranking[:k], 1))


def _ndcg(ranking, judgments, k, gain="linear", ideal_from=None, cut=True, ideal_gain=None, **dcg):
    ideal = sorted(ideal_from if ideal_from is not None else judgments, key=lambda d: -_grade(judgments, d))
    best = _dcg(ideal, judgments, k if cut else max(len(ideal), 1), ideal_gain or gain, **dcg)
    return _dcg(ranking, judgments, k, gain, **dcg) / best if best > 0 else 0.0


def _ndcg_unguarded(ranking, judgments, k, gain="linear"):
    ideal = sorted(judgments, key=lambda d: -_grade(judgments, d))
    return _dcg(ranking, judgments, k, gain) / _dcg(ideal, judgments, k, gain)


def _rr(ranking, judgments, test, rank_of=lambda index: index + 1, last=False):
    value = 0.0
    for index, hit in enumerate(_hits(ranking, judgments, test)):
        if hit:
            value = 1 / rank_of(index)
            if not last:
                return value
    return value


def m(id, functions, title, explanation, notes, **variants) -> Misconception:
    return Misconception(id, tuple(functions), title, explanation, notes, variants)


LIBRARY = {item.id: item for item in [
    m("precision-over-ranking-length", ["precision_at_k"],
      "P@k divided by the number of documents returned instead of by k",
      "P@k = relevant in the top k / k, even when the ranking has fewer than k documents: the missing "
      "ranks count as not relevant.", "Part II, Precision",
      precision_at_k=lambda r, j, k, rel=1: (sum(_hits(r[:k], j, lambda g: g >= rel)) / len(r[:k])) if r[:k] else 0.0),
    m("minus-one-relevant", ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
      "a grade of -1 counted as relevant",
      "Relevant means grade >= rel (1 by default); grades 0 and -1 are not relevant. Testing grade != 0 "
      "makes Cranfield's -1 judgments relevant.", "Part V, Live evaluation on Cranfield",
      precision_at_k=lambda r, j, k, rel=1: sum(_hits(r[:k], j, lambda g: g != 0)) / k,
      recall_at_k=lambda r, j, k, rel=1: (sum(_hits(r[:k], j, lambda g: g != 0)) / _nonzero(j)) if _nonzero(j) else 0.0,
      reciprocal_rank=lambda r, j, rel=1: _rr(r, j, lambda g: g != 0),
      average_precision=lambda r, j, rel=1: _ap(r, j, lambda g: g != 0, lambda found, n: _nonzero(j))),
    m("rel-ignored", ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
      "the rel threshold ignored", "With rel=2, only documents of grade 2 or more are relevant; the code "
      "treats every positive grade as relevant.", "Part V (relevance >= 1 vs graded relevance)",
      precision_at_k=lambda r, j, k, rel=1: sum(_hits(r[:k], j, lambda g: g >= 1)) / k,
      recall_at_k=lambda r, j, k, rel=1: (sum(_hits(r[:k], j, lambda g: g >= 1)) / _positive(j, 1)) if _positive(j, 1) else 0.0,
      reciprocal_rank=lambda r, j, rel=1: _rr(r, j, lambda g: g >= 1),
      average_precision=lambda r, j, rel=1: _ap(r, j, lambda g: g >= 1, lambda found, n: _positive(j, 1))),
    m("off-by-one-cutoff", ["precision_at_k"], "the top k read one rank off (0-based and 1-based ranks mixed)",
      "Rank 1 is ranking[0]; the top k is ranking[:k].", "Part II, A toy ranking",
      precision_at_k=lambda r, j, k, rel=1: sum(_hits(r[1:k + 1], j, lambda g: g >= rel)) / k),
    m("recall-over-retrieved-relevant", ["recall_at_k"],
      "Recall divided by the relevant documents the ranking retrieved, not by all relevant documents",
      "Recall's denominator R counts every relevant document of the query, also those the system never "
      "returned: that is why recall needs judgments beyond the returned list.", "Part II, Recall",
      recall_at_k=lambda r, j, k, rel=1: (sum(_hits(r[:k], j, lambda g: g >= rel)) / sum(_hits(r, j, lambda g: g >= rel)))
      if sum(_hits(r, j, lambda g: g >= rel)) else 0.0),
    m("recall-over-k", ["recall_at_k"], "Recall@k divided by k (that is P@k)",
      "Recall@k = relevant in the top k / R, the number of relevant documents of the query.", "Part II, Recall",
      recall_at_k=lambda r, j, k, rel=1: sum(_hits(r[:k], j, lambda g: g >= rel)) / k),
    m("no-zero-guard", ["recall_at_k", "average_precision", "ndcg_at_k"],
      "no case for a query without relevant documents (division by zero)",
      "When R = 0 (or IDCG = 0) the measure is defined as 0.0: check before dividing.", "DESIGN contract / Part V",
      recall_at_k=lambda r, j, k, rel=1: sum(_hits(r[:k], j, lambda g: g >= rel)) / _positive(j, rel),
      average_precision=lambda r, j, rel=1: _ap(r, j, lambda g: g >= rel, lambda found, n: _positive(j, rel) or _zero()),
      ndcg_at_k=lambda r, j, k, gain="linear": _ndcg_unguarded(r, j, k, gain)),
    m("rr-zero-based-rank", ["reciprocal_rank"], "the rank counted from 0",
      "Ranks start at 1: a first relevant document at ranking[i] has rank i + 1, and RR = 1 / (i + 1).",
      "Part III, Reciprocal Rank",
      reciprocal_rank=(lambda r, j, rel=1: _rr(r, j, lambda g: g >= rel, rank_of=lambda i: i or _zero()),
                       lambda r, j, rel=1: _rr(r, j, lambda g: g >= rel, rank_of=lambda i: i or 1))),
    m("rr-last-relevant", ["reciprocal_rank"], "RR taken at the last relevant document instead of the first",
      "RR looks only at the first relevant result: stop at the first hit.", "Part III, Reciprocal Rank",
      reciprocal_rank=lambda r, j, rel=1: _rr(r, j, lambda g: g >= rel, last=True)),
    m("ap-over-relevant-retrieved", ["average_precision"],
      "AP divided by the relevant documents retrieved, not by all R relevant ones",
      "AP = (1/R) * sum of P@i at the relevant ranks, where R counts every relevant document of the query; "
      "relevant documents never retrieved contribute 0 but still count in R.", "Part III, Average Precision",
      average_precision=lambda r, j, rel=1: _ap(r, j, lambda g: g >= rel, lambda found, n: found)),
    m("ap-over-ranking-length", ["average_precision"], "AP divided by the length of the ranking",
      "AP divides by R, the number of relevant documents of the query, not by how many were retrieved.",
      "Part III, Average Precision",
      average_precision=lambda r, j, rel=1: _ap(r, j, lambda g: g >= rel, lambda found, n: n)),
    m("ap-every-rank", ["average_precision"], "P@i added at every rank, not only at relevant ranks",
      "AP records the precision only where a relevant document sits (rel(k) = 1), then divides by R.",
      "Part III, Average Precision",
      average_precision=lambda r, j, rel=1: _ap_every_rank(r, j, rel)),
    m("dcg-log2-i", ["dcg_at_k", "ndcg_at_k"], "discount log2(i): rank 2 is not discounted",
      "The gain at rank i is divided by log2(i + 1): rank 1 by 1, rank 2 by 1.585, rank 3 by 2.",
      "Part IV, Discount",
      dcg_at_k=lambda r, j, k, gain="linear": _dcg(r, j, k, gain, discount=lambda i: 1 if i == 1 else math.log2(i)),
      ndcg_at_k=lambda r, j, k, gain="linear": _ndcg(r, j, k, gain, discount=lambda i: 1 if i == 1 else math.log2(i))),
    m("dcg-natural-log", ["dcg_at_k"], "the natural logarithm instead of log2",
      "The discount is log2(i + 1); math.log is the natural logarithm.", "Part IV, Discount",
      dcg_at_k=lambda r, j, k, gain="linear": _dcg(r, j, k, gain, discount=lambda i: math.log(i + 1))),
    m("gain-ignored", ["dcg_at_k", "ndcg_at_k"], "the gain parameter ignored (always the grade itself)",
      "gain='exp' uses 2**grade - 1 (the notes' formula), gain='linear' the grade itself (ir_measures' "
      "nDCG@k); both DCG and IDCG must use the gain asked for.", "Part IV, Gain, and the tip on ir_measures",
      dcg_at_k=lambda r, j, k, gain="linear": _dcg(r, j, k, "linear"),
      ndcg_at_k=lambda r, j, k, gain="linear": _ndcg(r, j, k, gain, ideal_gain="linear")),
    m("minus-one-negative-gain", ["dcg_at_k", "ndcg_at_k"], "a grade of -1 given a negative gain",
      "Negative grades gain 0 (Cranfield's -1 counts as 0 for nDCG).", "Part V, Live evaluation on Cranfield",
      dcg_at_k=lambda r, j, k, gain="linear": _dcg(r, j, k, gain, clamp=False),
      ndcg_at_k=lambda r, j, k, gain="linear": _ndcg(r, j, k, gain, clamp=False)),
    m("idcg-from-retrieved", ["ndcg_at_k"], "IDCG computed from the retrieved documents only",
      "The ideal ranking is all judged documents of the query sorted by grade, also those never retrieved; "
      "re-sorting the retrieved list can only reach 1.0 too easily.", "Part IV, A worked example",
      ndcg_at_k=lambda r, j, k, gain="linear": _ndcg(r, j, k, gain, ideal_from=list(r))),
    m("idcg-not-cut", ["ndcg_at_k"], "IDCG not cut at k", "IDCG@k is the DCG@k of the ideal ranking: "
      "only its top k documents count.", "Part IV, nDCG",
      ndcg_at_k=lambda r, j, k, gain="linear": _ndcg(r, j, k, gain, cut=False)),
    m("evaluate-skips-missing", ["evaluate"], "queries missing from the run left out",
      "Every query of the qrels gets a score; a query the system did not answer is measured on an empty "
      "ranking, and scores 0, which pulls the mean down as ir_measures does.", "Part V, Using ir_measures",
      evaluate=lambda run, qrels, measure: {q: measure(run[q], j) for q, j in qrels.items() if q in run}),
    m("evaluate-over-run", ["evaluate"], "scores given to the run's queries instead of the qrels' queries",
      "Iterate over the qrels: queries without judgments cannot be evaluated, and queries missing from the "
      "run still count.", "Part V, Using ir_measures",
      evaluate=lambda run, qrels, measure: {q: measure(ranking, qrels.get(q, {})) for q, ranking in run.items()}),
    m("differences-signed", ["largest_differences"], "the signed difference instead of the absolute one",
      "A query where system B is much better differs as much as one where A is: sort by |a - b|.",
      "Part VI, Per-query analysis",
      largest_differences=lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-(a[q] - b[q]), q))[:n]),
    m("differences-numeric-ties", ["largest_differences"], "ties ordered by query id as numbers",
      "Ties are broken by query id in string order ('10' before '9').", "the function's contract",
      largest_differences=lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), _number(q)))[:n]),
    m("tn-wrong", ["confusion_matrix", "accuracy"], "TN computed as N - TP - FP (forgetting the misses)",
      "TN counts the documents neither retrieved nor relevant: N - |retrieved ∪ relevant|.", "Part II",
      confusion_matrix=lambda ret, rel, n: _cells(ret, rel, n, lambda tp, fp, fn: n - tp - fp),
      accuracy=lambda ret, rel, n: (lambda c: (c[0] + c[3]) / n)(_cells(ret, rel, n, lambda tp, fp, fn: n - tp - fp))),
    m("accuracy-is-precision", ["accuracy"], "accuracy computed as precision",
      "Accuracy is (TP + TN) / N, the share of all documents classified correctly.", "Part II, Accuracy",
      accuracy=lambda ret, rel, n: (lambda c: c[0] / (c[0] + c[1]) if c[0] + c[1] else 0.0)(_cells(ret, rel, n))),
    m("run-ranks-from-0", ["write_run"], "ranks in the run file start at 0",
      "Ranks count from 1 within each query (enumerate(results, start=1)).", "Part V, write_run",
      write_run=lambda scenario: [[[q, z, d, str(int(r) - 1), s, y] for q, z, d, r, s, y in _rows(scenario)]]),
    m("run-column-order", ["write_run"], "the run file's columns out of order",
      "trec_eval reads exactly six columns: query_id Q0 doc_id rank score system_name.", "Part V, Using ir_measures",
      write_run=lambda scenario: [[[q, z, d, s, r, y] for q, z, d, r, s, y in _rows(scenario)],
                                  [[q, z, r, d, s, y] for q, z, d, r, s, y in _rows(scenario)]]),
    m("run-no-q0", ["write_run"], "the Q0 column left out",
      "The second column is the literal Q0 (an unused iteration field trec_eval still expects).",
      "Part V, Using ir_measures",
      write_run=lambda scenario: [[[q, d, r, s, y] for q, z, d, r, s, y in _rows(scenario)]]),
    m("run-few-decimals", ["write_run"], "scores written with too few decimals",
      "With few decimals, different scores become ties and trec_eval re-orders them by doc id: write "
      "{score:.8f}.", "Part V, write_runs.py",
      write_run=lambda scenario: [_rows(scenario, places=places) for places in range(0, 7)]),
    m("run-unsorted", ["write_run"], "results not written in the order the search function returned",
      "Keep the order of search_fn's results (best first); trec_eval ranks by score, so sorting by doc id "
      "scrambles the scores' order.", "Part V, write_runs.py",
      write_run=lambda scenario: [_sorted_by_doc(_rows(scenario))]),
    m("run-ignores-k", ["write_run"], "k not passed on to the search function",
      "Call search_fn(query.text, k) and write at most k lines per query.", "Part V, write_runs.py",
      write_run=lambda scenario: [_rows(scenario, k=100)]),
]}


def _zero():
    raise ZeroDivisionError("division by zero")


def _nonzero(judgments):
    return sum(1 for grade in judgments.values() if grade != 0)


def _number(query_id):
    try:
        return (0, int(query_id), query_id)
    except ValueError:
        return (1, 0, query_id)


def _ap_every_rank(ranking, judgments, rel):
    total = _positive(judgments, rel)
    if not total:
        return 0.0
    found, value = 0, 0.0
    for rank, hit in enumerate(_hits(ranking, judgments, lambda g: g >= rel), start=1):
        found += hit
        value += found / rank
    return value / total


def _cells(retrieved, relevant, n, tn_of: Callable | None = None):
    retrieved, relevant = set(retrieved), set(relevant)
    tp = len(retrieved & relevant)
    fp, fn = len(retrieved) - tp, len(relevant) - tp
    tn = tn_of(tp, fp, fn) if tn_of else n - len(retrieved | relevant)
    return [tp, fp, fn, tn]


def _rows(scenario, k=None, places=8):
    """The rows the right writer writes for a scenario, as strings (k and decimals overridable)."""
    key = (scenario.name, scenario.system, k or scenario.k, places, id(scenario.results))
    if key not in _ROW_STRINGS or _ROW_STRINGS[key][0] is not scenario.results:
        _ROW_STRINGS[key] = (scenario.results, [
            [query_id, "Q0", hit[0], str(rank), f"{hit[-1]:.{places}f}", scenario.system]
            for query_id, text in scenario.queries
            for rank, hit in enumerate(scenario.results[text][: k or scenario.k], start=1)])
    return _ROW_STRINGS[key][1]


_ROW_STRINGS: dict[tuple, tuple] = {}   # built once per process: Cranfield runs have 22,500 rows


def _sorted_by_doc(rows):
    grouped: dict[str, list] = {}
    for row in rows:
        grouped.setdefault(row[0], []).append(row)
    out = []
    for query_rows in grouped.values():
        for rank, row in enumerate(sorted(query_rows, key=lambda r: r[2]), start=1):
            out.append([row[0], row[1], row[2], str(rank), row[4], row[5]])
    return out


def for_function(function: str) -> list[Misconception]:
    return [item for item in LIBRARY.values() if function in item.variants]
