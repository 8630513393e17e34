"""Known misconceptions of relevance (grade >= rel) in precision, recall, reciprocal rank and average precision,
of precision and recall themselves, and of the cut-off k (Parts II and III; ``ranks`` holds those of RR and AP
alone)."""

from __future__ import annotations

import math

from .. import variants
from .model import m


def _count_absolute(judgments, rel):
    """R with the grades' signs dropped: the judged documents whose abs(grade) >= rel."""
    return sum(1 for grade in judgments.values() if abs(grade) >= rel)


ENTRIES = [
    m(
        "precision-over-ranking-length",
        ["precision_at_k"],
        "P@k divided by the number of documents returned instead of by k",
        "P@k = relevant in the top k / k, even when the ranking has fewer than k documents: the missing "
        "ranks count as not relevant. (np.mean over the top k divides by its length too, and gives nan for "
        "an empty ranking.)",
        "Part II, Precision",
        precision_at_k=(
            lambda r, j, k, rel=1: (
                (sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / len(r[:k])) if r[:k] else 0.0
            ),
            lambda r, j, k, rel=1: (
                (sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / len(r[:k])) if r[:k] else math.nan
            ),
        ),
    ),
    m(
        "minus-one-relevant",
        ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
        "a grade of -1 counted as relevant",
        "Relevant means grade >= rel (1 by default); grades 0 and -1 are not relevant. Testing grade != 0 "
        "or abs(grade) >= rel makes Cranfield's -1 judgments relevant.",
        "Part V, Live evaluation on Cranfield",
        # relevant taken as grade != 0, or as abs(grade) >= rel (the grade's sign dropped)
        precision_at_k=(
            lambda r, j, k, rel=1: sum(variants.hit_flags(r[:k], j, lambda g: g != 0)) / k,
            lambda r, j, k, rel=1: sum(variants.hit_flags(r[:k], j, lambda g: abs(g) >= rel)) / k,
        ),
        recall_at_k=(
            lambda r, j, k, rel=1: (
                (sum(variants.hit_flags(r[:k], j, lambda g: g != 0)) / variants.count_nonzero(j))
                if variants.count_nonzero(j)
                else 0.0
            ),
            lambda r, j, k, rel=1: (
                sum(variants.hit_flags(r[:k], j, lambda g: abs(g) >= rel)) / _count_absolute(j, rel)
                if _count_absolute(j, rel)
                else 0.0
            ),
        ),
        reciprocal_rank=(
            lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g != 0),
            lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: abs(g) >= rel),
        ),
        average_precision=(
            lambda r, j, rel=1: variants.average_precision_over(
                r, j, lambda g: g != 0, lambda found, n: variants.count_nonzero(j)
            ),
            lambda r, j, rel=1: variants.average_precision_over(
                r, j, lambda g: abs(g) >= rel, lambda found, n: _count_absolute(j, rel)
            ),
        ),
    ),
    m(
        "rel-ignored",
        ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
        "the rel threshold ignored",
        "With rel=2, only documents of grade 2 or more are relevant; the code treats every positive grade as relevant.",
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
            (sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / sum(variants.hit_flags(r, j, lambda g: g >= rel)))
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
        recall_at_k=variants.zero_over_zero(
            lambda r, j, k, rel=1: (
                sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / variants.count_at_least(j, rel)
            )
        ),
        average_precision=variants.zero_over_zero(
            lambda r, j, rel=1: variants.average_precision_over(
                r,
                j,
                lambda g: g >= rel,
                lambda found, n: variants.count_at_least(j, rel) or variants.division_by_zero(),
            )
        ),
        ndcg_at_k=variants.zero_over_zero(variants.ndcg_unguarded),
    ),
    m(
        "relevance-strictly-above",
        ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"],
        "relevant taken as grade > rel instead of grade >= rel",
        "A document is relevant when its grade is at least rel: with rel=1, grade 1 is relevant.",
        "Part V (relevance >= 1 vs graded relevance)",
        precision_at_k=lambda r, j, k, rel=1: sum(variants.hit_flags(r[:k], j, lambda g: g > rel)) / k,
        recall_at_k=lambda r, j, k, rel=1: (
            sum(variants.hit_flags(r[:k], j, lambda g: g > rel)) / variants.count_at_least(j, rel + 1)
            if variants.count_at_least(j, rel + 1)
            else 0.0
        ),
        reciprocal_rank=lambda r, j, rel=1: variants.reciprocal_rank_with(r, j, lambda g: g > rel),
        average_precision=lambda r, j, rel=1: variants.average_precision_over(
            r, j, lambda g: g > rel, lambda found, n: variants.count_at_least(j, rel + 1)
        ),
    ),
    m(
        "unjudged-key-error",
        ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k"],
        "judgments[doc] read for unjudged documents (a KeyError)",
        "A document missing from the judgments has grade 0: read it with judgments.get(doc, 0).",
        "Part II (the judgments of one query)",
        precision_at_k=lambda r, j, k, rel=1: sum(variants.strict(r[:k], j, lambda g: g >= rel)) / k,
        recall_at_k=lambda r, j, k, rel=1: (
            sum(variants.strict(r[:k], j, lambda g: g >= rel)) / variants.count_at_least(j, rel)
            if variants.count_at_least(j, rel)
            else 0.0
        ),
        reciprocal_rank=lambda r, j, rel=1: next(
            (1 / i for i, hit in enumerate(variants.strict(r, j, lambda g: g >= rel), 1) if hit), 0.0
        ),
        average_precision=(
            lambda r, j, rel=1: (
                variants.strict(r, j, lambda g: g >= rel),  # raises KeyError for an unjudged document
                variants.average_precision_over(
                    r, j, lambda g: g >= rel, lambda found, n: variants.count_at_least(j, rel)
                ),
            )[1],
            # R = 0 answered 0.0 before the ranking is read: no KeyError there
            lambda r, j, rel=1: (
                variants.average_precision_over(
                    r, j, lambda g: g >= rel, lambda found, n: variants.count_at_least(j, rel)
                )
                if not variants.count_at_least(j, rel) or variants.strict(r, j, lambda g: g >= rel) is not None
                else 0.0
            ),
        ),
        dcg_at_k=lambda r, j, k, gain="linear": (
            variants.strict(r[:k], j, lambda g: g),  # raises KeyError for an unjudged document
            variants.dcg_value(r, j, k, gain),
        )[1],
        ndcg_at_k=(
            lambda r, j, k, gain="linear": (
                variants.strict(r[:k], j, lambda g: g),
                variants.ndcg_value(r, j, k, gain),
            )[1],
            # IDCG = 0 answered 0.0 before the ranking is read: no KeyError there
            lambda r, j, k, gain="linear": (
                0.0
                if not variants.dcg_value(sorted(j, key=lambda d: -j[d]), j, k, gain)
                else (variants.strict(r[:k], j, lambda g: g), variants.ndcg_value(r, j, k, gain))[1]
            ),
        ),
    ),
    m(
        "r-counts-judged",
        ["recall_at_k", "average_precision"],
        "R counted as every judged document (grades 0 and -1 too)",
        "R is the number of relevant documents of the query, those with grade >= rel; a judged document of grade 0 "
        "or -1 is not relevant.",
        "Part II, Recall; Part III, Average Precision",
        recall_at_k=lambda r, j, k, rel=1: (
            sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / len(j) if len(j) else 0.0
        ),
        average_precision=lambda r, j, rel=1: variants.average_precision_over(
            r, j, lambda g: g >= rel, lambda found, n: len(j)
        ),
    ),
    m(
        "r-ignores-rel",
        ["recall_at_k", "average_precision"],
        "R counted at grade >= 1 whatever rel",
        "With rel=2 only documents of grade 2 or more are relevant, in the top k and in R alike: R = the judged "
        "documents with grade >= rel.",
        "Part V (relevance >= 1 vs graded relevance)",
        recall_at_k=lambda r, j, k, rel=1: (
            sum(variants.hit_flags(r[:k], j, lambda g: g >= rel)) / variants.count_at_least(j, 1)
            if variants.count_at_least(j, 1)
            else 0.0
        ),
        average_precision=lambda r, j, rel=1: variants.average_precision_over(
            r, j, lambda g: g >= rel, lambda found, n: variants.count_at_least(j, 1)
        ),
    ),
    m(
        "grades-summed",
        ["precision_at_k", "recall_at_k"],
        "the grades of the relevant documents added up instead of the documents counted",
        "P@k and Recall@k count relevant documents: a document of grade 2 counts once, like one of grade 1.",
        "Part II, Precision and Recall",
        precision_at_k=lambda r, j, k, rel=1: variants.grade_sum(r[:k], j, rel) / k,
        recall_at_k=lambda r, j, k, rel=1: (
            variants.grade_sum(r[:k], j, rel) / variants.count_at_least(j, rel)
            if variants.count_at_least(j, rel)
            else 0.0
        ),
    ),
    m(
        "judged-is-relevant",
        ["precision_at_k", "reciprocal_rank"],
        "every judged document taken as relevant, whatever its grade",
        "A document is relevant when its grade is at least rel; the judgments also list documents of grade 0 "
        "and -1, which are not relevant.",
        "Part I, Relevance judgments",
        precision_at_k=lambda r, j, k, rel=1: sum(doc in j for doc in r[:k]) / k,
        reciprocal_rank=lambda r, j, rel=1: next((1 / rank for rank, doc in enumerate(r, 1) if doc in j), 0.0),
    ),
    m(
        "cutoff-ignored",
        ["precision_at_k", "recall_at_k", "dcg_at_k", "ndcg_at_k"],
        "k ignored: the whole ranking counted, not only its top k",
        "A measure at k reads the top k documents only, ranking[:k]: whatever lies below rank k does not count, "
        "however relevant (in nDCG@k, in DCG and IDCG alike).",
        "Part II, Precision and Recall; Part IV, nDCG",
        precision_at_k=lambda r, j, k, rel=1: sum(variants.hit_flags(r, j, lambda g: g >= rel)) / k,
        recall_at_k=lambda r, j, k, rel=1: (
            sum(variants.hit_flags(r, j, lambda g: g >= rel)) / variants.count_at_least(j, rel)
            if variants.count_at_least(j, rel)
            else 0.0
        ),
        dcg_at_k=lambda r, j, k, gain="linear": variants.dcg_value(r, j, len(r), gain),
        ndcg_at_k=lambda r, j, k, gain="linear": variants.ndcg_value(r, j, max(len(r), 1), gain, cut=False),
    ),
]
