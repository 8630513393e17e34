"""The hidden edge cases' labels (what a student is told a hidden case tested) name the property the case's
expected value depends on: one row per case, the feature of its inputs that property is (``lab/features.py``,
computed here from the case's inputs) and the words of the label that name it."""

from __future__ import annotations

import pytest

from autograder.grading import inputs
from autograder.labkit.load import default as default_lab

LABELS = [
    # (case id, the feature its answer turns on ("" where no feature of the lab says it), words of its label)
    ("edge-confusion_matrix-all-hits", "hits", "every retrieved doc relevant"),
    ("edge-confusion_matrix-repeated", "repeated-ids", "listed twice"),
    ("edge-confusion_matrix-repeated-relevant", "repeated-ids", "listed twice in relevant"),
    ("edge-confusion_matrix-no-tn", "no-true-negatives", "TN = 0"),
    ("edge-confusion_matrix-nothing", "nothing-retrieved", "nothing retrieved"),
    ("edge-confusion_matrix-mixed", "misses", "misses"),
    ("edge-confusion_matrix-too-small", "invalid-argument", "smaller than the union: ValueError"),
    ("edge-confusion_matrix-empty-collection", "nothing-retrieved", "nothing retrieved or relevant"),
    ("edge-accuracy-perfect", "hits", "exactly the relevant docs"),
    ("edge-accuracy-all-wrong", "no-true-negatives", "exactly the non-relevant docs"),
    ("edge-accuracy-half-right", "false-alarms", "one false alarm among 10 documents"),
    ("edge-accuracy-empty-system", "nothing-retrieved", "retrieving nothing"),
    ("edge-accuracy-repeated", "repeated-ids", "listed twice in retrieved and in relevant"),
    ("edge-accuracy-too-small", "invalid-argument", "smaller than the union: ValueError"),
    ("edge-accuracy-empty-collection", "invalid-argument", "0 documents: ValueError"),
    ("edge-precision_at_k-short", "shorter-than-k", "shorter than k (divide by k)"),
    ("edge-precision_at_k-empty", "empty-ranking", "empty ranking"),
    ("edge-precision_at_k-none-relevant", "no-relevant", "no relevant document"),
    ("edge-precision_at_k-unjudged", "unjudged", "unjudged"),
    ("edge-precision_at_k-minus-one", "minus-one-retrieved", "grade -1"),
    ("edge-precision_at_k-rel-2", "rel-above-1", "rel=2"),
    ("edge-precision_at_k-k-1", "k-is-1", "k=1"),
    ("edge-precision_at_k-k-cuts", "cut-at-k", "k smaller than the ranking"),
    ("edge-precision_at_k-k-0", "invalid-k", "k=0 is not a positive integer"),
    ("edge-precision_at_k-rel-0", "invalid-argument", "rel=0 is not a positive integer"),
    ("edge-precision_at_k-rel-fraction", "invalid-argument", "rel=1.5 is not a positive integer"),
    ("edge-precision_at_k-k-float", "invalid-k", "k=2.5 is not a positive integer"),
    ("edge-precision_at_k-empty-k-0", "invalid-k", "k=0 with an empty ranking"),
    ("edge-precision_at_k-empty-rel-0", "invalid-argument", "rel=0 with an empty ranking"),
    ("edge-recall_at_k-r-zero", "no-relevant", "R = 0"),
    ("edge-recall_at_k-no-judgments", "no-relevant", "empty judgments"),
    ("edge-recall_at_k-missed", "relevant-not-retrieved", "never retrieved still count in R"),
    ("edge-recall_at_k-rel-3", "rel-above-1", "rel=3"),
    ("edge-recall_at_k-minus-one", "minus-one", "grade -1 is not in R"),
    ("edge-recall_at_k-short", "more-relevant-than-retrieved", "R still counts every relevant document"),
    ("edge-recall_at_k-k-cuts", "cut-at-k", "below rank k do not count"),
    ("edge-recall_at_k-k-0", "invalid-k", "k=0 is not a positive integer"),
    ("edge-recall_at_k-none-relevant-rel-0", "invalid-argument", "rel=0 on a query without relevant documents"),
    ("edge-recall_at_k-rel-fraction", "invalid-argument", "rel=1.5 is not a positive integer"),
    ("edge-recall_at_k-empty-k-0", "invalid-k", "k=0 with an empty ranking"),
    ("edge-recall_at_k-deep", "relevant-retrieved", "a relevant document at rank 1,100 counts"),
    ("edge-reciprocal_rank-none", "nothing-relevant-retrieved", "no relevant doc retrieved"),
    ("edge-reciprocal_rank-empty", "empty-ranking", "empty ranking"),
    ("edge-reciprocal_rank-rank-4", "first-relevant-later", "rank 4"),
    ("edge-reciprocal_rank-rel-2", "positive-below-rel", "rel=2 skips a grade-1 doc"),
    ("edge-reciprocal_rank-rel-3", "positive-below-rel", "rel=3 skips grades 1 and 2"),
    ("edge-reciprocal_rank-minus-one", "minus-one-retrieved", "grade -1"),
    ("edge-reciprocal_rank-rel-0", "invalid-argument", "rel=0 is not a positive integer"),
    ("edge-reciprocal_rank-rel-fraction", "invalid-argument", "rel=1.5 is not a positive integer"),
    ("edge-reciprocal_rank-empty-rel-0", "invalid-argument", "rel=0 with an empty ranking"),
    ("edge-reciprocal_rank-deep", "first-relevant-below-1000", "below rank 1,000"),
    ("edge-average_precision-r-zero", "no-relevant", "R = 0"),
    ("edge-average_precision-none-retrieved", "nothing-relevant-retrieved", "none is retrieved"),
    ("edge-average_precision-missed", "relevant-not-retrieved", "never retrieved still count in R"),
    ("edge-average_precision-rel-2", "rel-above-1", "rel=2"),
    ("edge-average_precision-minus-one", "minus-one-retrieved", "grade -1"),
    ("edge-average_precision-perfect", "relevant-retrieved", "all relevant docs at the top"),
    ("edge-average_precision-empty", "empty-ranking", "empty ranking"),
    ("edge-average_precision-rel-neg", "invalid-argument", "rel=-1 is not a positive integer"),
    ("edge-average_precision-rel-fraction", "invalid-argument", "rel=1.5 is not a positive integer"),
    ("edge-average_precision-none-relevant-rel-0", "invalid-argument", "rel=0 on a query without relevant"),
    ("edge-average_precision-deep", "relevant-below-1000", "below rank 1,000 still count"),
    ("edge-dcg_at_k-linear-default", "graded", "default gain is linear"),
    ("edge-dcg_at_k-exp", "exp-gain", "gain='exp'"),
    ("edge-dcg_at_k-rank-2", "first-relevant-later", "rank 2 is divided by log2(3)"),
    ("edge-dcg_at_k-k-cuts", "cut-at-k", "below rank k do not count"),
    ("edge-dcg_at_k-short", "shorter-than-k", "shorter than k"),
    ("edge-dcg_at_k-unjudged", "unjudged", "unjudged docs gain 0"),
    ("edge-dcg_at_k-minus-one-linear", "minus-one-retrieved", "grade -1 gains 0 (linear)"),
    ("edge-dcg_at_k-minus-one-exp", "minus-one-retrieved", "grade -1 gains 0 (exp)"),
    ("edge-dcg_at_k-empty", "empty-ranking", "empty ranking"),
    ("edge-dcg_at_k-bad-gain", "invalid-argument", "unknown gain: ValueError"),
    ("edge-dcg_at_k-gain-upper-case", "invalid-argument", "is unknown: ValueError"),
    ("edge-dcg_at_k-k-0", "invalid-k", "k=0 is not a positive integer"),
    ("edge-dcg_at_k-empty-unknown-gain", "invalid-argument", "unknown gain with an empty ranking"),
    ("edge-dcg_at_k-empty-k-0", "invalid-k", "k=0 with an empty ranking"),
    ("edge-ndcg_at_k-unretrieved-in-ideal", "relevant-not-retrieved", "judged docs never retrieved"),
    ("edge-ndcg_at_k-ideal-cut", "more-relevant-than-k", "ideal ranking is cut at k"),
    ("edge-ndcg_at_k-idcg-zero", "no-relevant", "IDCG = 0"),
    ("edge-ndcg_at_k-minus-one", "minus-one-retrieved", "grade -1 gains 0"),
    ("edge-ndcg_at_k-perfect", "relevant-retrieved", "an ideal ranking scores 1"),
    ("edge-ndcg_at_k-exp", "exp-gain", "gain='exp'"),
    ("edge-ndcg_at_k-rank-2", "first-relevant-later", "rank 2"),
    ("edge-ndcg_at_k-shorter-than-k", "shorter-than-k", "cut at k, not at the ranking's length"),
    ("edge-ndcg_at_k-empty", "empty-ranking", "empty ranking"),
    ("edge-ndcg_at_k-bad-gain", "invalid-argument", "unknown gain: ValueError"),
    ("edge-ndcg_at_k-gain-capitalised", "invalid-argument", "is unknown: ValueError"),
    ("edge-ndcg_at_k-none-relevant-unknown-gain", "invalid-argument", "unknown gain on a query without relevant"),
    ("edge-ndcg_at_k-empty-k-0", "invalid-k", "k=0 with an empty ranking"),
    ("edge-evaluate-missing-query", "query-missing-from-run", "missing from the run gets []"),
    ("edge-evaluate-extra-query", "query-not-in-qrels", "missing from the qrels is ignored"),
    ("edge-evaluate-empty-qrels", "empty-qrels", "empty qrels"),
    ("edge-evaluate-order", "", "in its order"),
    ("edge-evaluate-judgments", "", "its own judgments"),
    ("edge-evaluate-no-relevant-query", "query-without-relevant", "without relevant documents keeps its score"),
    ("edge-largest_differences-tie-string-order", "tied-differences", "ascending, in string order"),
    ("edge-largest_differences-one-side", "queries-in-one-system-only", "present in only one system"),
    ("edge-largest_differences-n-large", "n-above-common", "n larger than the common queries"),
    ("edge-largest_differences-absolute", "b-above-a", "absolute"),
    ("edge-largest_differences-no-common", "n-above-common", "no common query"),
    ("edge-largest_differences-n-0", "invalid-argument", "n=0 is not a positive integer"),
    ("edge-largest_differences-default-n", "n-left-out", "n left out"),
    ("edge-largest_differences-no-common-n-0", "invalid-argument", "n=0 with no common query"),
]


def _cases() -> dict:
    return {case.id: case for case in default_lab().cases.edge_cases()}


def test_every_hidden_edge_case_has_a_row():
    """Does the table cover every hidden edge case, and only those?"""
    assert sorted(row[0] for row in LABELS) == sorted(_cases())


@pytest.mark.parametrize(("case_id", "feature", "words"), LABELS, ids=[row[0] for row in LABELS])
def test_a_hidden_label_names_the_feature_its_answer_turns_on(case_id, feature, words):
    """Does a hidden case's label (what its student is told was tested) name the property its expected value
    depends on, a property its inputs really have?"""
    lab = default_lab()
    case = _cases()[case_id]
    assert words in case.label()
    if feature:
        assert feature in lab.features.FEATURES
        built = tuple(inputs.resolve(arg, {}) for arg in case.args)
        assert feature in set(lab.records[case.function].features(built, case.kwargs))
