"""Does the reference agree with ir_measures on all of Cranfield, and reproduce the notes' table?"""

from collections import Counter

import pytest

from autograder.lab import cranfield as reference
from autograder.lab import measures


@pytest.mark.parametrize("system", reference.SYSTEMS)
@pytest.mark.parametrize("label", list(measures.CRANFIELD))
def test_every_query_agrees_with_ir_measures(lab05, cranfield, system, label):
    """Does the reference metric equal ir_measures on each of the 225 queries?"""
    spec = measures.CRANFIELD[label]
    function = getattr(lab05.metrics, spec.function)
    rankings = cranfield["systems"][system]["rankings"]
    expected = cranfield["systems"][system]["values"][label]
    assert len(expected) == 225
    differing = {
        query_id: (function(rankings.get(query_id, []), judgments, **spec.kwargs), expected[query_id])
        for query_id, judgments in cranfield["qrels"].items()
        if abs(function(rankings.get(query_id, []), judgments, **spec.kwargs) - expected[query_id]) > 1e-9
    }
    assert not differing, f"{spec.call_text()} differs from {spec.ir_measure} on {len(differing)} queries"


def test_reference_reproduces_the_notes_table(cranfield):
    """Does every number of the notes' table (and the word-tokenizer BM25) reproduce?"""
    assert reference.disagreements(cranfield) == []


def test_runs_written_to_files_reproduce_the_table_end_to_end(lab05, tmp_path):
    """Written by write_run to real files, read back and evaluated by ir_measures, do Lab 04's
    runs give the notes' table to 4 decimals (truncated, as printed)?"""
    import ir_measures
    from ir_measures import AP, RR, P, Recall, nDCG

    queries, qrels = lab05.data.load_queries(), lab05.data.load_qrels()
    names = {
        P(rel=1) @ 10: "P@10",
        Recall(rel=1) @ 100: "R@100",
        RR(rel=1): "RR",
        AP(rel=1): "AP",
        nDCG @ 10: "nDCG@10",
    }
    for system, search in [("tfidf", lab05.retrieval.search_tfidf), ("bm25", lab05.retrieval.search_bm25)]:
        path = tmp_path / f"lab04_{system}.run"
        lab05.runs.write_run(str(path), system, search, queries)
        run = list(ir_measures.read_trec_run(str(path)))
        assert len(run) == 225 * 100
        scores = ir_measures.calc_aggregate(list(names), qrels, run)
        printed = {names[measure]: reference.truncate(value, 4) for measure, value in scores.items()}
        assert printed == reference.NOTES_TABLE[system], system


def test_word_tokenizer_bm25_gives_the_notes_figures(cranfield):
    """Does BM25 over \\b\\w+\\b tokens reach MAP 0.262 and P@10 0.219, as Part V says?"""
    aggregates = reference.word_bm25()["aggregates"]
    assert (reference.truncate(aggregates["AP"], 3), reference.truncate(aggregates["P@10"], 3)) == ("0.262", "0.219")


def test_collection_is_the_notes_cranfield(cranfield):
    """Are there 225 queries, 1,837 judgments with the notes' grade counts, and 1,400 documents?"""
    grades = Counter(grade for judgments in cranfield["qrels"].values() for grade in judgments.values())
    assert grades == {3: 734, 2: 387, 4: 363, -1: 225, 1: 128}
    assert len(cranfield["queries"]) == 225 and len(cranfield["titles"]) == 1400
    assert all(any(grade >= 1 for grade in judgments.values()) for judgments in cranfield["qrels"].values())


@pytest.mark.parametrize("search", ["search_tfidf", "search_bm25"])
def test_search_contract(lab05, search):
    """Do the given search functions return at most k (doc_id, title, score), best first?"""
    hits = getattr(lab05.retrieval, search)("heat transfer in boundary layers", k=7)
    assert len(hits) == 7
    assert all(
        isinstance(doc_id, str) and isinstance(title, str) and isinstance(score, float) for doc_id, title, score in hits
    )
    assert [score for _, _, score in hits] == sorted((score for _, _, score in hits), reverse=True)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        getattr(lab05.retrieval, search)("heat", k=0)


def test_ties_keep_collection_order(lab05):
    """Do documents with equal scores keep collection order (a query matching nothing ties all)?"""
    hits = lab05.retrieval.search_tfidf("qqqqxyzzy", k=5)
    assert [doc_id for doc_id, _, _ in hits] == ["1", "2", "3", "4", "5"]
    assert {score for _, _, score in hits} == {0.0}
