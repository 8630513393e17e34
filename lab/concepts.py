"""The notes' concepts: every definition and edge case the notes (and the functions' contract) state,
one table, in their words, with the part that states it, the functions it governs and the features of
the inputs where it decides the answer (``features.FEATURES`` ids). A diagnosis names a concept when
the failing cases of a function are exactly the cases where that concept decides the answer
(``grading.diagnosis.conditions``): a mistake nobody catalogued still gets the notes' definition it
breaks. A registry as a plain dict, in the order to prefer (the first concept that fits is named)."""

from __future__ import annotations

from autograder.labkit.concept import Concept

from .features import DEPTHS
from .misconceptions import contract

RANKED = ("precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision")
GRADED = ("dcg_at_k", "ndcg_at_k")
CUT = ("precision_at_k", "recall_at_k", "dcg_at_k", "ndcg_at_k")
CONTRACT = "the function's contract"

#: Features that only make a measure's answer nonzero (a relevant document retrieved): a condition that
#: pairs one with a concept's feature is still about that concept.
ENABLING = ("relevant-retrieved",)
#: the measures answered as whole numbers or 0/1: a mistake about the share any of them is
WHOLE = ("truncated-to-whole-number", "zero-or-one")


def _c(id, name, statement, part, functions, features, misconceptions=()) -> Concept:
    return Concept(
        id=id,
        name=name,
        statement=statement,
        part=part,
        functions=tuple(functions),
        features=tuple(features),
        misconceptions=tuple(misconceptions),
    )


CONCEPTS = {
    concept.id: concept
    for concept in [
        _c(
            "arguments-refused",
            "refused arguments raise ValueError",
            "a cut-off, a relevance threshold or a count that is not a positive integer raises ValueError",
            CONTRACT,
            (*RANKED, *GRADED, "largest_differences"),
            ("invalid-argument", "invalid-k"),
            ("k-zero-accepted", "non-integer-type-error"),
        ),
        _c(
            "gain-refused",
            "an unknown gain raises ValueError",
            "gain is 'linear' or 'exp': an unknown gain is a ValueError",
            CONTRACT,
            GRADED,
            ("invalid-argument",),
            ("unknown-gain-linear",),
        ),
        _c(
            "collection-refused",
            "a collection too small raises ValueError",
            "ValueError if collection_size is smaller than their union; accuracy: ValueError when collection_size is 0",
            CONTRACT,
            ("confusion_matrix", "accuracy"),
            ("invalid-argument",),
            ("empty-collection-accepted", "collection-size-unchecked"),
        ),
        _c(
            "four-cells",
            "the four cells TP, FP, FN, TN",
            "For one query, every document in the collection falls into one of four cells: the system "
            "retrieved it or not, and it is relevant or not",
            "Part II, Accuracy, Precision and Recall",
            ("confusion_matrix", "accuracy"),
            ("misses", "false-alarms", "no-true-negatives", "nothing-retrieved", "hits"),
            (
                "tn-wrong",
                "fp-fn-swapped",
                "tn-overlap-twice",
                "confusion-returns-dict",
                "confusion-as-table",
            ),
        ),
        _c(
            "sets-of-ids",
            "doc ids counted once",
            "retrieved and relevant are collections of doc ids: a doc id listed twice counts once",
            CONTRACT,
            ("confusion_matrix", "accuracy"),
            ("repeated-ids",),
            ("duplicates-counted",),
        ),
        _c(
            "accuracy-over-n",
            "accuracy = (TP + TN) / N",
            "Accuracy = (TP + TN) / (TP + FP + FN + TN) = correct decisions / all documents",
            "Part II, Accuracy, and why it is not enough",
            ("accuracy",),
            ("no-true-negatives", "misses", "false-alarms", "hits"),
            (
                "accuracy-is-precision",
                "accuracy-over-union",
                "accuracy-integer-division",
                "tn-overlap-twice",
                *contract.ACCURACY_IDS,
                *WHOLE,
            ),
        ),
        _c(
            "precision-over-k",
            "P@k divides by k",
            "P@k = relevant in the top k / k (even when the ranking is shorter than k)",
            "Part II, Precision",
            ("precision_at_k",),
            ("shorter-than-k", "empty-ranking"),
            ("precision-over-ranking-length", "precision-over-min-k-r", "precision-is-recall", *WHOLE),
        ),
        _c(
            "top-k-only",
            "only the top k counts",
            "we look only at the top k results: documents below the cutoff do not matter for P@k",
            "Part II, A toy ranking",
            CUT,
            ("cut-at-k", "k-is-1"),
            ("cutoff-ignored", "off-by-one-cutoff", "top-k-plus-one"),
        ),
        _c(
            "recall-over-all-relevant",
            "R counts all relevant documents, not min(k, R)",
            "Recall@k = relevant in the top k / all relevant: its denominator counts relevant documents the "
            "system never showed (R, not min(k, R))",
            "Part II, Recall",
            ("recall_at_k",),
            ("relevant-not-retrieved", "more-relevant-than-k", "more-relevant-than-retrieved"),
            (
                "recall-over-retrieved-relevant",
                "recall-over-k",
                "r-counts-judged",
                "recall-over-documents-read",
                *WHOLE,
            ),
        ),
        _c(
            "relevance-threshold",
            "relevant means grade >= rel (default rel = 1)",
            "For binary metrics we treat relevance >= 1 as relevant (rel=1 by default; grade >= rel)",
            "Part V, Live evaluation on Cranfield",
            RANKED,
            ("rel-above-1", "positive-below-rel", "rel-left-out", "above-rel-retrieved"),
            (
                "rel-ignored",
                "relevance-strictly-above",
                "r-ignores-rel",
                "ap-precision-at-rel-1",
                "relevance-equals-rel",
                *contract.DEFAULT_REL_IDS,
            ),
        ),
        _c(
            "minus-one",
            "a grade of -1 counts as 0",
            "a grade of -1 counts as 0: it is never relevant and gains nothing",
            "Part V, Live evaluation on Cranfield",
            (*RANKED, *GRADED),
            ("minus-one", "minus-one-retrieved"),
            ("minus-one-relevant", "minus-one-negative-gain"),
        ),
        _c(
            "unjudged-grade-0",
            "an unjudged document has grade 0",
            "a doc missing from the judgments has grade 0",
            CONTRACT,
            (*RANKED, *GRADED),
            ("unjudged",),
            ("unjudged-key-error",),
        ),
        _c(
            "counted-not-summed",
            "binary metrics count relevant documents",
            'Precision and recall count relevant documents: binary metrics collapse every grade into "relevant"',
            "Part IV, Graded relevance",
            ("precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision"),
            ("graded", "graded-retrieved"),
            ("grades-summed", "judged-is-relevant"),
        ),
        _c(
            "zero-without-relevant",
            "0.0 without relevant documents",
            "0.0 when R = 0 (nDCG: 0.0 when IDCG = 0); With no relevant result, RR = 0",
            CONTRACT,
            ("recall_at_k", "reciprocal_rank", "average_precision", "ndcg_at_k"),
            ("no-relevant", "nothing-relevant-retrieved"),
            ("no-zero-guard", "rr-none-without-relevant"),
        ),
        _c(
            "rank-of-first-relevant",
            "RR = 1 / the rank of the first relevant document, ranks from 1",
            "r is the rank of the first relevant result: at rank 1, RR = 1; at rank 2, 0.5; at rank 5, 0.2 "
            "(ranks start at 1)",
            "Part III, Reciprocal Rank and MRR",
            ("reciprocal_rank",),
            ("first-relevant-later",),
            (
                "rr-zero-based-rank",
                "rr-rank-plus-one",
                "rr-last-relevant",
                "rr-first-in-judgments",
                "rr-is-ap",
                "rr-mean-over-relevant-ranks",
                "rr-sum-over-relevant-ranks",
                *WHOLE,
            ),
        ),
        _c(
            "whole-ranking",
            "RR and AP are not truncated at 10",
            "RR and AP read the whole ranking: AP sums P@i over every rank i = 1..N, not only the top 10",
            "Part III, Why rank position matters",
            ("reciprocal_rank", "average_precision"),
            (
                "first-relevant-below-10",
                "relevant-below-10",
                *(f"{kind}-below-{depth}" for kind in ("relevant", "first-relevant") for depth in DEPTHS),
            ),
            ("rr-top-10", "rr-top-100"),
        ),
        _c(
            "ap-over-r",
            "AP divides by R",
            "AP = (1/R) * sum of P@i * rel(i): every time we meet a relevant document, record the precision at "
            "that point; then average those values over all R relevant documents",
            "Part III, Average Precision and MAP",
            ("average_precision",),
            ("relevant-not-retrieved", "first-relevant-later", "relevant-retrieved", "more-relevant-than-retrieved"),
            (
                "ap-over-relevant-retrieved",
                "ap-over-ranking-length",
                "ap-every-rank",
                "ap-precision-before-hit",
                "ap-stops-at-first-relevant",
                "ap-over-min-r-length",
                "ap-is-rr",
                "ap-over-distinct-grades",
                "ap-every-rank-over-hits",
                "ap-every-rank-over-length",
                *WHOLE,
            ),
        ),
        _c(
            "gain",
            "linear gain = grade, exp gain = 2^grade - 1",
            "gain='linear' is the grade itself (trec_eval's nDCG@10); gain='exp' is 2^grade - 1: grade 0 -> 0, "
            "1 -> 1, 2 -> 3, 3 -> 7, 4 -> 15",
            "Part IV, Three ideas in one formula",
            GRADED,
            ("graded", "exp-gain", "graded-retrieved"),
            ("gain-ignored", "exp-gain-without-minus-one", "gain-plus-one", "default-gain-exp", *WHOLE),
        ),
        _c(
            "log-discount",
            "the log2(i + 1) discount",
            "the gain at rank i is divided by log2(i + 1): rank 1 by 1 (full value), rank 2 by 1.58, rank 3 by 2",
            "Part IV, Three ideas in one formula",
            GRADED,
            ("first-relevant-later", "gain-below-rank-1"),
            ("dcg-log2-i", "dcg-natural-log", "discount-shifted", "discount-rank-from-0", "discount-log-base"),
        ),
        _c(
            "ideal-from-judgments",
            "IDCG from the judgments sorted, not the ranking",
            "IDCG@k is the DCG@k of the ideal ranking, all judged documents sorted by grade, highest first",
            "Part IV, Graded relevance: DCG and nDCG",
            ("ndcg_at_k",),
            ("relevant-not-retrieved", "more-relevant-than-k", "more-relevant-than-retrieved"),
            (
                "idcg-from-retrieved",
                "idcg-not-cut",
                "idcg-cut-at-ranking-length",
                "ideal-sorted-ascending",
                "ideal-unsorted",
                "ideal-best-grade-repeated",
                "ideal-distinct-grades",
                "ndcg-is-dcg",
                *WHOLE,
            ),
        ),
        _c(
            "every-query-of-the-qrels",
            "evaluate keeps every query of the qrels",
            "{query_id: measure(ranking, judgments)} for every query in qrels (also one without relevant "
            "documents); a query missing from the run gets an empty ranking; queries in the run but not in "
            "qrels are ignored",
            CONTRACT,
            ("evaluate",),
            ("query-missing-from-run", "query-not-in-qrels", "empty-qrels", "query-without-relevant"),
            (
                "evaluate-skips-missing",
                "evaluate-over-run",
                "evaluate-run-lookup",
                "evaluate-union",
                "evaluate-missing-as-zero",
                "evaluate-previous-ranking",
                "evaluate-returns-mean",
                "evaluate-returns-values",
                "evaluate-returns-pairs",
                "evaluate-arguments-swapped",
                "evaluate-whole-qrels",
            ),
        ),
        _c(
            "largest-absolute-difference",
            "largest differences by absolute difference",
            "the n query ids with the largest absolute difference, largest first",
            "Part VI, Per-query analysis",
            ("largest_differences",),
            ("b-above-a",),
            (
                "differences-signed",
                "differences-ascending",
                "differences-relative",
                "differences-returns-pairs",
                "differences-returns-values",
            ),
        ),
        _c(
            "ties-by-query-id",
            "ties by query id",
            "ties by query id ascending (string order)",
            CONTRACT,
            ("largest_differences",),
            ("tied-differences", "ids-of-different-lengths"),
            (
                "differences-numeric-ties",
                "differences-ties-descending",
                "differences-ties-in-input-order",
                "differences-ties-by-score",
            ),
        ),
        _c(
            "queries-in-both",
            "only the queries both systems scored",
            "over the queries present in both (all of them if fewer than n, [] if none); n=2 by default",
            CONTRACT,
            ("largest_differences",),
            ("queries-in-one-system-only", "n-above-common", "n-left-out"),
            (
                "differences-missing-as-zero",
                "differences-not-cut",
                "differences-lookup-keyerror",
                *contract.DEFAULT_N_IDS,
            ),
        ),
        _c(
            "run-file-format",
            "run file `qid Q0 docid rank score tag`",
            "TREC-style run files, query_id Q0 doc_id rank score system: one line per result, "
            "{query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}, ranks from 1, in the order search_fn "
            "returned, queries in the order given, a final newline",
            "Part V, Using ir_measures",
            ("write_run",),
            (
                "overfull-search",
                "k-left-out",
                "query-without-results",
                "queries-unsorted-as-strings",
                "queries-unsorted-as-numbers",
                "fine-scores",
                "non-ascii-ids",
            ),
            (
                "run-ranks-from-0",
                "run-column-order",
                "run-no-q0",
                "run-few-decimals",
                "run-unsorted",
                "run-ignores-k",
                "run-not-cut",
                "run-sorted-queries",
                "run-significant-digits",
                "run-resorted-by-score",
            ),
        ),
    ]
}


def for_function(function: str) -> list[Concept]:
    """The concepts that govern ``function``, in the table's order."""
    return [concept for concept in CONCEPTS.values() if function in concept.functions]
