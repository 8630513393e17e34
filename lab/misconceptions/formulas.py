"""Formula variants that only shift values, one quantity off (Parts II to IV): the documents read (the top
k + 1), a denominator (min(k, R) for P@k, the documents read for R@k, min(R, N) for AP), the logarithm's
base of the discount. Each names *which* quantity of the notes' formula is off, where "every wrong answer
is too high" would not; like every entry, it is named only when its variant explains every judged case."""

from __future__ import annotations

import math

from .. import variants
from .model import m


def _hits(ranking, judgments, rel):
    return sum(variants.hit_flags(ranking, judgments, lambda g: g >= rel))


def _over(numerator, denominator):
    return numerator / denominator if denominator else 0.0


ENTRIES = [
    m(
        "top-k-plus-one",
        ["precision_at_k", "recall_at_k", "dcg_at_k", "ndcg_at_k"],
        "k + 1 documents read: the top k taken as ranking[:k + 1] (or range(k + 1))",
        "The top k is ranking[:k], ranks 1 to k: a slice's end is excluded and range(k) already counts k ranks. "
        "The rest of the formula (P@k still over k, R@k over R) is right.",
        "Part II, A toy ranking",
        precision_at_k=lambda r, j, k, rel=1: _hits(r[: k + 1], j, rel) / k,
        recall_at_k=lambda r, j, k, rel=1: _over(_hits(r[: k + 1], j, rel), variants.count_at_least(j, rel)),
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k + 1, gain),
        ndcg_at_k=(
            lambda r, j, k, gain="linear": _over(
                variants.dcg_value(r, j, k + 1, gain),
                variants.dcg_value(sorted(j, key=lambda d: -variants.grade_of(j, d)), j, k, gain),
            ),
            lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k + 1, gain),
        ),
    ),
    m(
        "precision-over-min-k-r",
        ["precision_at_k"],
        "P@k divided by min(k, R), the most relevant documents the top k could hold, not by k",
        "P@k = relevant in the top k / k: the denominator is k whatever the number R of relevant documents "
        "(min(k, R) is the denominator of neither P@k nor R@k).",
        "Part II, Precision",
        precision_at_k=lambda r, j, k, rel=1: _over(_hits(r[:k], j, rel), min(k, variants.count_at_least(j, rel))),
    ),
    m(
        "recall-over-documents-read",
        ["recall_at_k"],
        "R@k divided by the documents read, min(k, len(ranking)), not by R",
        "Recall@k = relevant in the top k / R, all relevant documents of the query, retrieved or not.",
        "Part II, Recall",
        recall_at_k=lambda r, j, k, rel=1: (
            _over(_hits(r[:k], j, rel), len(r[:k])) if variants.count_at_least(j, rel) else 0.0
        ),
    ),
    m(
        "ap-over-min-r-length",
        ["average_precision"],
        "AP divided by min(R, N), the relevant documents the ranking could hold, not by R",
        "AP = (1/R) * the sum of P@i at the relevant ranks: R counts every relevant document, also those a "
        "short ranking cannot hold.",
        "Part III, Average Precision and MAP",
        average_precision=lambda r, j, rel=1: variants.average_precision_over(
            r, j, lambda g: g >= rel, lambda found, n: min(variants.count_at_least(j, rel), n)
        ),
    ),
    m(
        "discount-log-base",
        ["dcg_at_k"],
        "the discount's logarithm in base 10 (math.log10), not base 2",
        "The gain at rank i is divided by log2(i + 1): rank 1 by 1, rank 2 by 1.585; math.log10(i + 1) divides "
        "rank 1 by 0.301, so every DCG is 3.32 times too large.",
        "Part IV, Discount",
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, gain, discount=lambda i: math.log10(i + 1)),
    ),
]
