"""Known misconceptions of dCG and nDCG (Part IV)."""

from __future__ import annotations

import math

from .. import variants
from .model import m

ENTRIES = [
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
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, gain, discount=lambda i: math.log(i + 1)),
    ),
    m(
        "gain-ignored",
        ["dcg_at_k", "ndcg_at_k"],
        "the gain parameter ignored (the grade itself taken as the gain, in DCG or IDCG or both)",
        "gain='exp' uses 2**grade - 1 (the notes' formula), gain='linear' the grade itself (ir_measures' "
        "nDCG@k); both DCG and IDCG must use the gain asked for.",
        "Part IV, Gain, and the tip on ir_measures",
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, "linear"),
        ndcg_at_k=(
            lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, ideal_gain="linear"),
            lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, "linear", ideal_gain=gain),
            lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, "linear"),
        ),
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
        "exp-gain-without-minus-one",
        ["dcg_at_k", "ndcg_at_k"],
        "the exponential gain taken as 2**grade (without - 1)",
        "gain='exp' is 2**grade - 1: a document of grade 0 gains 0, not 1.",
        "Part IV, Gain",
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(
            r, j, k, (lambda g: 2**g) if gain == "exp" else "linear"
        ),
        ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(
            r, j, k, (lambda g: 2**g) if gain == "exp" else "linear"
        ),
    ),
    m(
        "discount-shifted",
        ["dcg_at_k", "ndcg_at_k"],
        "the discount read one rank late: log2(i + 2) at rank i",
        "Rank i (counting from 1) is divided by log2(i + 1): the first document by log2(2) = 1.",
        "Part IV, Discount",
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, gain, discount=lambda i: math.log2(i + 2)),
        ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(
            r, j, k, gain, discount=lambda i: math.log2(i + 2)
        ),
    ),
    m(
        "idcg-cut-at-ranking-length",
        ["ndcg_at_k"],
        "the ideal ranking cut to the length of the system's ranking",
        "IDCG@k is the DCG@k of all judged documents sorted by grade, cut at k only: a short ranking is compared "
        "with the best k documents there are.",
        "Part IV, A worked example",
        ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, min(k, len(r)), gain),
    ),
    m(
        "ideal-sorted-ascending",
        ["ndcg_at_k"],
        "the ideal ranking sorted worst first (sorted() without reverse=True)",
        "The ideal ranking puts the best documents first: the judged documents sorted by grade, highest first "
        "(sorted(..., reverse=True)), then cut at k. Sorted lowest first, IDCG is too small and nDCG can pass 1.",
        "Part IV, A worked example",
        ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, best_first=False),
    ),
    m(
        "discount-rank-from-0",
        ["dcg_at_k", "ndcg_at_k"],
        "the discount's rank counted from 0: log2(0 + 1) = 0 at the first document (ZeroDivisionError)",
        "Ranks count from 1: the first document has rank 1 and is divided by log2(1 + 1) = 1. With enumerate, "
        "start at 1 (enumerate(ranking[:k], start=1)) or divide by log2(i + 2) for a 0-based i.",
        "Part IV, Discount",
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, k, gain, discount=math.log2),
        ndcg_at_k=(
            lambda r, j, k, gain="linear": variants.ndcg_value(r, j, k, gain, discount=math.log2),
            lambda r, j, k, gain="linear": (
                variants.dcg_value(r, j, k, gain, discount=math.log2),
                variants.ndcg_value(r, j, k, gain, discount=math.log2),
            )[1],
        ),
    ),
]
