"""Does the reference agree with ir_measures on random rankings and judgments?

Property-based (hypothesis): rankings shorter and longer than k, unjudged documents, -1
grades, queries with no relevant document, thresholds rel > 1, empty rankings (a query the
run lacks), and several queries at once through ``evaluate``.
"""

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.lab import measures
from autograder.lab.functions.registry import FUNCTIONS as RECORDS

POOL = [f"d{i}" for i in range(25)]

judgments_st = st.dictionaries(st.sampled_from(POOL), st.integers(min_value=-1, max_value=4), max_size=15)
ranking_st = st.lists(st.sampled_from(POOL), unique=True, max_size=20)
k_st = st.integers(min_value=1, max_value=25)
rel_st = st.integers(min_value=1, max_value=4)


def ir_measures_value(measure, ranking, judgments):
    run = {"q": {doc_id: float(len(ranking) - i) for i, doc_id in enumerate(ranking)}} if ranking else {}
    return measures.ir_measures_values(measure, {"q": judgments}, run)["q"]


CUTOFF_FUNCTIONS = ["precision_at_k", "recall_at_k"]
WHOLE_RANKING_FUNCTIONS = ["reciprocal_rank", "average_precision"]


@pytest.mark.parametrize("function", CUTOFF_FUNCTIONS)
@settings(max_examples=150, deadline=None)
@given(ranking=ranking_st, judgments=judgments_st, k=k_st, rel=rel_st)
def test_cutoff_measures(lab05, function, ranking, judgments, k, rel):
    """Do P@k and Recall@k equal ir_measures for any ranking, judgments, k and rel?"""
    measure = RECORDS[function].ir_measure(k=k, rel=rel)
    value = getattr(lab05.metrics, function)(ranking, judgments, k=k, rel=rel)
    assert value == pytest.approx(ir_measures_value(measure, ranking, judgments), abs=1e-9)


@pytest.mark.parametrize("function", WHOLE_RANKING_FUNCTIONS)
@settings(max_examples=150, deadline=None)
@given(ranking=ranking_st, judgments=judgments_st, rel=rel_st)
def test_whole_ranking_measures(lab05, function, ranking, judgments, rel):
    """Do RR and AP equal ir_measures for any ranking, judgments and rel?"""
    measure = RECORDS[function].ir_measure(rel=rel)
    value = getattr(lab05.metrics, function)(ranking, judgments, rel=rel)
    assert value == pytest.approx(ir_measures_value(measure, ranking, judgments), abs=1e-9)


@pytest.mark.parametrize("gain", ["linear", "exp"])
@settings(max_examples=150, deadline=None)
@given(ranking=ranking_st, judgments=judgments_st, k=k_st)
def test_ndcg(lab05, gain, ranking, judgments, k):
    """Does nDCG@k with either gain equal ir_measures (trec_eval / gains mapping)?"""
    measure = RECORDS["ndcg_at_k"].ir_measure(k=k, gain=gain)
    value = lab05.metrics.ndcg_at_k(ranking, judgments, k=k, gain=gain)
    assert 0.0 <= value <= 1.0 + 1e-12
    assert value == pytest.approx(ir_measures_value(measure, ranking, judgments), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(ranking=ranking_st, judgments=judgments_st, k=k_st)
def test_dcg_is_ndcg_times_ideal(lab05, ranking, judgments, k):
    """Is DCG@k of the ranking nDCG@k times the DCG@k of the ideal order of the judged docs?"""
    for gain in ("linear", "exp"):
        ideal = sorted(judgments, key=lambda doc_id: -judgments[doc_id])
        idcg = lab05.metrics.dcg_at_k(ideal, judgments, k, gain=gain)
        dcg = lab05.metrics.dcg_at_k(ranking, judgments, k, gain=gain)
        assert dcg == pytest.approx(lab05.metrics.ndcg_at_k(ranking, judgments, k, gain=gain) * idcg, abs=1e-9)


qrels_st = st.dictionaries(st.sampled_from([str(i) for i in range(1, 12)]), judgments_st, min_size=1, max_size=8)
run_st = st.dictionaries(st.sampled_from([str(i) for i in range(1, 15)]), ranking_st, max_size=10)


@settings(max_examples=80, deadline=None)
@given(qrels=qrels_st, run=run_st)
def test_evaluate_and_mean_match_ir_measures(lab05, qrels, run):
    """Does evaluate score every query of the qrels (missing ones on []) as ir_measures does,
    and is its mean ir_measures' aggregate?"""
    import ir_measures

    scores = lab05.metrics.evaluate(run, qrels, functools.partial(lab05.metrics.average_precision, rel=1))
    assert set(scores) == set(qrels)
    scored_run = {
        query_id: {doc_id: float(len(ranking) - i) for i, doc_id in enumerate(ranking)}
        for query_id, ranking in run.items()
        if ranking
    }
    expected = measures.ir_measures_values("AP(rel=1)", qrels, scored_run)
    assert scores == pytest.approx(expected, abs=1e-9)
    aggregate = ir_measures.calc_aggregate([ir_measures.parse_measure("AP(rel=1)")], qrels, scored_run)
    mean = sum(scores.values()) / len(scores)
    assert mean == pytest.approx(next(iter(aggregate.values()), 0.0), abs=1e-9)


scores_st = st.dictionaries(
    st.sampled_from([str(i) for i in range(1, 30)]), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), max_size=20
)


@settings(max_examples=100, deadline=None)
@given(a=scores_st, b=scores_st, n=st.integers(min_value=1, max_value=6))
def test_largest_differences(lab05, a, b, n):
    """Are the n largest |a - b| over common queries returned, ties by query id ascending?"""
    result = lab05.metrics.largest_differences(a, b, n)
    common = sorted(set(a) & set(b))
    assert len(result) == min(n, len(common)) and set(result) <= set(common)
    keys = [(-abs(a[q] - b[q]), q) for q in result]
    assert keys == sorted(keys)
    if result:
        worst_kept = keys[-1]
        assert all((-abs(a[q] - b[q]), q) >= worst_kept for q in common if q not in result)


@settings(max_examples=100, deadline=None)
@given(
    retrieved=st.sets(st.sampled_from(POOL)),
    relevant=st.sets(st.sampled_from(POOL)),
    extra=st.integers(min_value=0, max_value=50),
)
def test_confusion_matrix_cells_add_up(lab05, retrieved, relevant, extra):
    """Do TP+FP = |retrieved|, TP+FN = |relevant| and all four = N hold, with accuracy (TP+TN)/N?"""
    size = len(retrieved | relevant) + extra
    tp, fp, fn, tn = lab05.metrics.confusion_matrix(list(retrieved), list(relevant), size)
    assert (tp + fp, tp + fn, tp + fp + fn + tn) == (len(retrieved), len(relevant), size)
    if size:
        assert lab05.metrics.accuracy(list(retrieved), list(relevant), size) == (tp + tn) / size
