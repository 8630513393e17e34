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

from autograder.lab import variants


@dataclass(frozen=True)
class Misconception:
    id: str
    functions: tuple  # the graded functions it shows up in
    title: str  # the mistake, in plain words
    explanation: str  # why it is wrong and what is right
    notes: str  # where the notes explain it
    variants: dict  # function -> the wrong implementation, or a tuple of its usual forms;
    # write_run -> scenario -> the candidate tables the wrong writer writes


def m(id, functions, title, explanation, notes, **variants) -> Misconception:
    return Misconception(id, tuple(functions), title, explanation, notes, variants)


LIBRARY = {
    item.id: item
    for item in [
        m(
            "precision-over-ranking-length",
            ["precision_at_k"],
            "P@k divided by the number of documents returned instead of by k",
            "P@k = relevant in the top k / k, even when the ranking has fewer than k documents: the missing "
            "ranks count as not relevant.",
            "Part II, Precision",
            precision_at_k=lambda r, j, k, rel=1: (
                (sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / len(r[:k])) if r[:k] else 0.0
            ),
        ),
        m(
            "minus-one-relevant",
            ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
            "a grade of -1 counted as relevant",
            "Relevant means grade >= rel (1 by default); grades 0 and -1 are not relevant. Testing grade != 0 "
            "makes Cranfield's -1 judgments relevant.",
            "Part V, Live evaluation on Cranfield",
            precision_at_k=lambda r, j, k, rel=1: sum(variants.hit_flags(r[:k], j, lambda g: g != 0)) / k,
            recall_at_k=lambda r, j, k, rel=1: (
                (sum(variants.hit_flags(r[:k], j, lambda g: g != 0)) / variants.count_nonzero(j))
                if variants.count_nonzero(j)
                else 0.0
            ),
            reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g != 0),
            average_precision=lambda r, j, rel=1: variants.average_precision_over(
                r, j, lambda g: g != 0, lambda found, n: variants.count_nonzero(j)
            ),
        ),
        m(
            "rel-ignored",
            ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
            "the rel threshold ignored",
            "With rel=2, only documents of grade 2 or more are relevant; the code "
            "treats every positive grade as relevant.",
            "Part V (relevance >= 1 vs graded relevance)",
            precision_at_k=lambda r, j, k, rel=1: sum(variants.hit_flags(r[:k], j, lambda g: g >= 1)) / k,
            recall_at_k=lambda r, j, k, rel=1: (
                (sum(variants.hit_flags(r[:k], j, lambda g: g >= 1)) / variants.count_at_least(j, 1))
                if variants.count_at_least(j, 1)
                else 0.0
            ),
            reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g >= 1),
            average_precision=lambda r, j, rel=1: variants.average_precision_over(
                r, j, lambda g: g >= 1, lambda found, n: variants.count_at_least(j, 1)
            ),
        ),
        m(
            "off-by-one-cutoff",
            ["precision_at_k"],
            "the top k read one rank off (0-based and 1-based ranks mixed)",
            "Rank 1 is ranking[0]; the top k is ranking[:k].",
            "Part II, A toy ranking",
            precision_at_k=lambda r, j, k, rel=1: sum(variants.hit_flags(r[1 : k + 1], j, lambda g: g >= rel)) / k,
        ),
        m(
            "recall-over-retrieved-relevant",
            ["recall_at_k"],
            "Recall divided by the relevant documents the ranking retrieved, not by all relevant documents",
            "Recall's denominator R counts every relevant document of the query, also those the system never "
            "returned: that is why recall needs judgments beyond the returned list.",
            "Part II, Recall",
            recall_at_k=lambda r, j, k, rel=1: (
                (
                    sum(variants.hit_flags(r[:k], j, lambda g: g >= rel))
                    / sum(variants.hit_flags(r, j, lambda g: g >= rel))
                )
                if sum(variants.hit_flags(r, j, lambda g: g >= rel))
                else 0.0
            ),
        ),
        m(
            "recall-over-k",
            ["recall_at_k"],
            "Recall@k divided by k (that is P@k)",
            "Recall@k = relevant in the top k / R, the number of relevant documents of the query.",
            "Part II, Recall",
            recall_at_k=lambda r, j, k, rel=1: sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / k,
        ),
        m(
            "no-zero-guard",
            ["recall_at_k", "average_precision", "ndcg_at_k"],
            "no case for a query without relevant documents (division by zero)",
            "When R = 0 (or IDCG = 0) the measure is defined as 0.0: check before dividing.",
            "the function's docstring (its edge cases) / Part V",
            recall_at_k=lambda r, j, k, rel=1: (
                sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / variants.count_at_least(j, rel)
            ),
            average_precision=lambda r, j, rel=1: variants.average_precision_over(
                r,
                j,
                lambda g: g >= rel,
                lambda found, n: variants.count_at_least(j, rel) or variants.division_by_zero(),
            ),
            ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_unguarded(r, j, k, gain),
        ),
        m(
            "rr-zero-based-rank",
            ["reciprocal_rank"],
            "the rank counted from 0",
            "Ranks start at 1: a first relevant document at ranking[i] has rank i + 1, and RR = 1 / (i + 1).",
            "Part III, Reciprocal Rank",
            reciprocal_rank=(
                lambda r, j, rel=1: variants.reciprocal_rank_with(
                    r, j, lambda g: g >= rel, rank_of=lambda i: i or variants.division_by_zero()
                ),
                lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g >= rel, rank_of=lambda i: i or 1),
            ),
        ),
        m(
            "rr-last-relevant",
            ["reciprocal_rank"],
            "RR taken at the last relevant document instead of the first",
            "RR looks only at the first relevant result: stop at the first hit.",
            "Part III, Reciprocal Rank",
            reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g >= rel, last=True),
        ),
        m(
            "ap-over-relevant-retrieved",
            ["average_precision"],
            "AP divided by the relevant documents retrieved, not by all R relevant ones",
            "AP = (1/R) * sum of P@i at the relevant ranks, where R counts every relevant document of the query; "
            "relevant documents never retrieved contribute 0 but still count in R.",
            "Part III, Average Precision",
            average_precision=lambda r, j, rel=1: variants.average_precision_over(
                r, j, lambda g: g >= rel, lambda found, n: found
            ),
        ),
        m(
            "ap-over-ranking-length",
            ["average_precision"],
            "AP divided by the length of the ranking",
            "AP divides by R, the number of relevant documents of the query, not by how many were retrieved.",
            "Part III, Average Precision",
            average_precision=lambda r, j, rel=1: variants.average_precision_over(
                r, j, lambda g: g >= rel, lambda found, n: n
            ),
        ),
        m(
            "ap-every-rank",
            ["average_precision"],
            "P@i added at every rank, not only at relevant ranks",
            "AP records the precision only where a relevant document sits (rel(k) = 1), then divides by R.",
            "Part III, Average Precision",
            average_precision=lambda r, j, rel=1: variants.average_precision_every_rank(r, j, rel),
        ),
        m(
            "dcg-log2-i",
            ["dcg_at_k", "ndcg_at_k"],
            "discount log2(i): rank 2 is not discounted",
            "The gain at rank i is divided by log2(i + 1): rank 1 by 1, rank 2 by 1.585, rank 3 by 2.",
            "Part IV, Discount",
            dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(
                r, j, k, gain, discount=lambda i: 1 if i == 1 else math.log2(i)
            ),
            ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(
                r, j, k, gain, discount=lambda i: 1 if i == 1 else math.log2(i)
            ),
        ),
        m(
            "dcg-natural-log",
            ["dcg_at_k"],
            "the natural logarithm instead of log2",
            "The discount is log2(i + 1); math.log is the natural logarithm.",
            "Part IV, Discount",
            dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(
                r, j, k, gain, discount=lambda i: math.log(i + 1)
            ),
        ),
        m(
            "gain-ignored",
            ["dcg_at_k", "ndcg_at_k"],
            "the gain parameter ignored (always the grade itself)",
            "gain='exp' uses 2**grade - 1 (the notes' formula), gain='linear' the grade itself (ir_measures' "
            "nDCG@k); both DCG and IDCG must use the gain asked for.",
            "Part IV, Gain, and the tip on ir_measures",
            dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, "linear"),
            ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, ideal_gain="linear"),
        ),
        m(
            "minus-one-negative-gain",
            ["dcg_at_k", "ndcg_at_k"],
            "a grade of -1 given a negative gain",
            "Negative grades gain 0 (Cranfield's -1 counts as 0 for nDCG).",
            "Part V, Live evaluation on Cranfield",
            dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, gain, clamp=False),
            ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, clamp=False),
        ),
        m(
            "idcg-from-retrieved",
            ["ndcg_at_k"],
            "IDCG computed from the retrieved documents only",
            "The ideal ranking is all judged documents of the query sorted by grade, also those never retrieved; "
            "re-sorting the retrieved list can only reach 1.0 too easily.",
            "Part IV, A worked example",
            ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, ideal_from=list(r)),
        ),
        m(
            "idcg-not-cut",
            ["ndcg_at_k"],
            "IDCG not cut at k",
            "IDCG@k is the DCG@k of the ideal ranking: only its top k documents count.",
            "Part IV, nDCG",
            ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, cut=False),
        ),
        m(
            "evaluate-skips-missing",
            ["evaluate"],
            "queries missing from the run left out",
            "Every query of the qrels gets a score; a query the system did not answer is measured on an empty "
            "ranking, and scores 0, which pulls the mean down as ir_measures does.",
            "Part V, Using ir_measures",
            evaluate=lambda run, qrels, measure: {q: measure(run[q], j) for q, j in qrels.items() if q in run},
        ),
        m(
            "evaluate-over-run",
            ["evaluate"],
            "scores given to the run's queries instead of the qrels' queries",
            "Iterate over the qrels: queries without judgments cannot be evaluated, and queries missing from the "
            "run still count.",
            "Part V, Using ir_measures",
            evaluate=lambda run, qrels, measure: {q: measure(ranking, qrels.get(q, {})) for q, ranking in run.items()},
        ),
        m(
            "differences-signed",
            ["largest_differences"],
            "the signed difference instead of the absolute one",
            "A query where system B is much better differs as much as one where A is: sort by |a - b|.",
            "Part VI, Per-query analysis",
            largest_differences=lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-(a[q] - b[q]), q))[:n],
        ),
        m(
            "differences-numeric-ties",
            ["largest_differences"],
            "ties ordered by query id as numbers",
            "Ties are broken by query id in string order ('10' before '9').",
            "the function's contract",
            largest_differences=lambda a, b, n=2: sorted(
                set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), variants.numeric_id(q))
            )[:n],
        ),
        m(
            "tn-wrong",
            ["confusion_matrix", "accuracy"],
            "TN computed as N - TP - FP (forgetting the misses)",
            "TN counts the documents neither retrieved nor relevant: N - |retrieved ∪ relevant|.",
            "Part II",
            confusion_matrix=lambda ret, rel, n: variants.cells(ret, rel, n, lambda tp, fp, fn: n - tp - fp),
            accuracy=lambda ret, rel, n: (lambda c: (c[0] + c[3]) / n)(
                variants.cells(ret, rel, n, lambda tp, fp, fn: n - tp - fp)
            ),
        ),
        m(
            "accuracy-is-precision",
            ["accuracy"],
            "accuracy computed as precision",
            "Accuracy is (TP + TN) / N, the share of all documents classified correctly.",
            "Part II, Accuracy",
            accuracy=lambda ret, rel, n: (lambda c: c[0] / (c[0] + c[1]) if c[0] + c[1] else 0.0)(
                variants.cells(ret, rel, n)
            ),
        ),
        m(
            "run-ranks-from-0",
            ["write_run"],
            "ranks in the run file start at 0",
            "Ranks count from 1 within each query (enumerate(results, start=1)).",
            "Part V, write_run",
            write_run=lambda scenario: [
                [[q, z, d, str(int(r) - 1), s, y] for q, z, d, r, s, y in variants.rows(scenario)]
            ],
        ),
        m(
            "run-column-order",
            ["write_run"],
            "the run file's columns out of order",
            "trec_eval reads exactly six columns: query_id Q0 doc_id rank score system_name.",
            "Part V, Using ir_measures",
            write_run=lambda scenario: [
                [[q, z, d, s, r, y] for q, z, d, r, s, y in variants.rows(scenario)],
                [[q, z, r, d, s, y] for q, z, d, r, s, y in variants.rows(scenario)],
            ],
        ),
        m(
            "run-no-q0",
            ["write_run"],
            "the Q0 column left out",
            "The second column is the literal Q0 (an unused iteration field trec_eval still expects).",
            "Part V, Using ir_measures",
            write_run=lambda scenario: [[[q, d, r, s, y] for q, z, d, r, s, y in variants.rows(scenario)]],
        ),
        m(
            "run-few-decimals",
            ["write_run"],
            "scores written with too few decimals",
            "With few decimals, different scores become ties and trec_eval re-orders them by doc id: write "
            "{score:.8f}.",
            "Part V, write_runs.py",
            write_run=lambda scenario: [variants.rows(scenario, places=places) for places in range(0, 7)],
        ),
        m(
            "run-unsorted",
            ["write_run"],
            "results not written in the order the search function returned",
            "Keep the order of search_fn's results (best first); trec_eval ranks by score, so sorting by doc id "
            "scrambles the scores' order.",
            "Part V, write_runs.py",
            write_run=lambda scenario: [variants.sorted_by_doc(variants.rows(scenario))],
        ),
        m(
            "run-ignores-k",
            ["write_run"],
            "k not passed on to the search function",
            "Call search_fn(query.text, k) and write at most k lines per query.",
            "Part V, write_runs.py",
            write_run=lambda scenario: [variants.rows(scenario, k=100)],
        ),
    ]
}


def for_function(function: str) -> list[Misconception]:
    return [item for item in LIBRARY.values() if function in item.variants]
