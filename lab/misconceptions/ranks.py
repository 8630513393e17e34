"""Known misconceptions of reciprocal rank and average precision (Part III)."""

from __future__ import annotations

from .. import variants
from .model import m

ENTRIES = [
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
        average_precision=lambda r, j, rel=1: variants.average_precision_with(r, j, rel, every_rank=True),
    ),
    m(
        "rr-rank-plus-one",
        ["reciprocal_rank"],
        "the rank counted one too high: 1 / (rank + 1)",
        "The first document has rank 1: a first relevant document at ranking[i] gives RR = 1 / (i + 1).",
        "Part III, Reciprocal Rank",
        reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(
            r, j, lambda g: g >= rel, rank_of=lambda i: i + 2
        ),
    ),
    m(
        "rr-none-without-relevant",
        ["reciprocal_rank"],
        "no return value when no relevant document is retrieved (None instead of 0.0)",
        "When the ranking holds no relevant document RR is 0.0: return it after the loop.",
        "Part III, Reciprocal Rank",
        reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g >= rel) or None,
    ),
    m(
        "rr-top-10",
        ["reciprocal_rank"],
        "RR computed over the top 10 only (RR@10)",
        "RR reads the whole ranking: a first relevant document at rank 25 gives 1/25, not 0.",
        "Part III, Reciprocal Rank",
        reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r[:10], j, lambda g: g >= rel),
    ),
    m(
        "rr-first-in-judgments",
        ["reciprocal_rank"],
        "RR taken at the first relevant document of the judgments, not the first of the ranking",
        "RR looks at the ranking from the top: 1 / the best rank at which any relevant document appears.",
        "Part III, Reciprocal Rank",
        reciprocal_rank=lambda r, j, rel=1: next(
            (1 / (list(r).index(doc) + 1) for doc, grade in j.items() if grade >= rel and doc in r), 0.0
        ),
    ),
    m(
        "ap-precision-at-rel-1",
        ["average_precision"],
        "P@i inside AP computed at rel=1 (rel not passed on)",
        "With rel=2, P@i counts the documents of grade 2 or more in the top i, as the relevant ranks and R do.",
        "Part III, Average Precision",
        average_precision=lambda r, j, rel=1: variants.average_precision_with(
            r, j, rel, lambda top, found: sum(variants.hit_flags(top, j, lambda g: g >= 1)) / len(top)
        ),
    ),
    m(
        "ap-precision-before-hit",
        ["average_precision"],
        "P@i at a relevant rank leaves out the relevant document at rank i itself",
        "At a relevant rank i, P@i counts the relevant documents in the top i, that one included: the first "
        "relevant document at rank 1 gives P@1 = 1.",
        "Part III, Average Precision",
        average_precision=lambda r, j, rel=1: variants.average_precision_with(
            r, j, rel, lambda top, found: (found - 1) / len(top)
        ),
    ),
    m(
        "ap-stops-at-first-relevant",
        ["average_precision"],
        "AP returned at the first relevant document (a return inside the loop)",
        "AP adds P@i at every relevant rank of the whole ranking before dividing by R: return after the loop, "
        "once every relevant rank has been added.",
        "Part III, Average Precision",
        average_precision=lambda r, j, rel=1: variants.average_precision_over(
            r[: next((rank for rank, hit in enumerate(variants.hit_flags(r, j, lambda g: g >= rel), 1) if hit), 0)],
            j,
            lambda g: g >= rel,
            lambda found, n: variants.count_at_least(j, rel),
        ),
    ),
    m(
        "rr-top-100",
        ["reciprocal_rank"],
        "RR computed over the top 100 only",
        "RR reads the whole ranking, however long: a first relevant document at rank 120 gives 1/120, not 0. "
        "No cut-off belongs to RR unless one is asked for (RR@k).",
        "Part III, Reciprocal Rank",
        reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r[:100], j, lambda g: g >= rel),
    ),
]
