"""The analysis's claims checked against the data (``grading/analysis/facts.py``): Cranfield's
qrels and Lab 04's reference runs, from the lab's bundle.

Property tests (hypothesis): every true claim made from the runs (values to 4 decimals, rounded
or truncated) is accepted; every claim with one fact changed (a document, a rank, a grade, the
query, a value beyond the notes' rounding, the direction) is refused, and the refusal names the
fact. A sweep makes the true claim of every query and measure and refuses each perturbation of it.
"""

from __future__ import annotations

import math
import runpy
import subprocess
import sys
from types import SimpleNamespace

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder import paths
from autograder.grading.analysis import claims, facts
from tests.support.claim_changes import PERTURBATIONS, perturbed

handout = SimpleNamespace(**runpy.run_path(str(paths.HANDOUT / "tests" / "analysis_shape.py")))


@pytest.fixture(scope="module")
def known(cranfield):
    return facts.Facts.from_bundle(cranfield)


def four_decimals(value: float, cut: bool) -> float:
    """``value`` to 4 decimals, truncated as the notes print (``cut``) or rounded as the notebook."""
    return math.floor(value * 10_000 + 1e-9) / 10_000 if cut else round(value, 4)


def true_claim(known: facts.Facts, query: str, measure: str, docs: list[str], cut: bool = False) -> dict:
    """The claim the data makes of ``query``, ``measure`` and ``docs``, as a student writes it."""
    systems = known.names().systems
    return {
        "query": query,
        "measure": measure,
        "values": {s: four_decimals(known.values[s][measure][query], cut) for s in systems},
        "better": known.better(measure, query),
        "documents": [
            {"doc": d, "grade": known.qrels[query].get(d, 0), "ranks": {s: known.rank(s, query, d) for s in systems}}
            for d in docs
        ],
    }


def verdicts(known: facts.Facts, *claim_list: dict) -> list[facts.Verdict]:
    """The claims written as a student's YAML file, parsed and checked."""
    text = yaml.safe_dump({"claims": list(claim_list)}, sort_keys=False)
    return facts.check(claims.parse(text, known.names()), known)


def verdicts_of_models(known: facts.Facts, *claim_list: dict) -> list[facts.Verdict]:
    """The claims validated by the schema without the YAML step (the sweep's many claims)."""
    model = claims.AnalysisFile.model_validate({"claims": list(claim_list)}, context={"names": known.names()})
    return facts.check(claims.Analysis(tuple(model.claims), tuple(range(1, len(claim_list) + 1))), known)


def retrieved(known: facts.Facts, query: str) -> list[str]:
    """The documents of either run for ``query``, in a fixed order."""
    docs: list[str] = []
    for system in known.names().systems:
        docs += [d for d in known.rankings[system].get(query, ()) if d not in docs]
    return docs


@st.composite
def claims_of_the_data(draw, known: facts.Facts) -> dict:
    query = draw(st.sampled_from(sorted(known.qrels, key=int)))
    measure = draw(st.sampled_from(known.names().measures))
    pool = retrieved(known, query)
    docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique=True))
    return true_claim(known, query, measure, docs, cut=draw(st.booleans()))


#: how many examples each property draws (the report's counts)
EXAMPLES = 200


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_true_claim_is_accepted(known, data):
    """Is every claim made from the runs (values rounded or truncated to 4 decimals) accepted?"""
    claim = data.draw(claims_of_the_data(known))
    (verdict,) = verdicts(known, claim)
    assert verdict.holds, verdict.problems


@pytest.mark.parametrize("kind", PERTURBATIONS)
@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_claim_with_one_fact_changed_is_refused(known, kind, data):
    """Is a true claim with one fact changed (doc, rank, grade, query, value, sign) refused?"""
    claim = data.draw(claims_of_the_data(known))
    (verdict,) = verdicts(known, perturbed(known, claim, kind, data))
    assert not verdict.holds, (kind, claim)


@pytest.mark.slow
def test_sweep_every_query_and_measure(known):
    """Over every query and measure: is the true claim (its top-10 documents of both runs) accepted,
    and is each single change of it (the query, a document, a rank, a grade, a value, the sign) refused?"""
    systems, measures = known.names().systems, known.names().measures
    accepted = refused = 0
    queries = sorted(known.qrels, key=int)
    for number, query in enumerate(queries):
        other = queries[(number + 1) % len(queries)]
        docs = [d for d in retrieved(known, query) if any((known.rank(s, query, d) or 101) <= 10 for s in systems)]
        for measure in measures:
            claim = true_claim(known, query, measure, docs)
            assert all(v.holds for v in verdicts_of_models(known, claim)), (query, measure)
            accepted += 1
            first = claim["documents"][0]
            swap = next(d for d in retrieved(known, query) if d != first["doc"])
            changes = [
                {**claim, "query": other},
                {**claim, "documents": [{**first, "doc": swap}]},
                {**claim, "documents": [{**first, "ranks": {**first["ranks"], systems[0]: 101}}]},
                {**claim, "documents": [{**first, "grade": first["grade"] + 1}]},
                {**claim, "values": {**claim["values"], systems[1]: claim["values"][systems[1]] + 0.0002}},
                {**claim, "better": next(b for b in (*systems, claims.TIE) if b != claim["better"])},
            ]
            for change in changes:
                assert not verdicts_of_models(known, change)[0].holds, (query, measure, change)
                refused += 1
    assert (accepted, refused) == (len(queries) * len(measures), len(queries) * len(measures) * len(changes))
    print(f"sweep: {accepted} true claims accepted, {refused} changed claims refused")


#: (id, the change to the true claim of query 1's AP, words of the feedback)
WRONG = [
    ("value", {"values": {"tfidf": 0.3}}, ["tfidf's AP on query 1 is 0.2502; the claim says 0.3"]),
    ("value-two-decimals", {"values": {"tfidf": 0.25}}, ["tfidf's AP on query 1 is 0.2502; the claim says 0.25"]),
    ("sign", {"better": "bm25"}, ["on query 1 tfidf is better in AP; the claim says better: bm25"]),
    ("grade", {"grade": 3}, ["document 184 has grade 2 for query 1; the claim says 3"]),
    (
        "rank",
        {"ranks": {"tfidf": 2, "bm25": None}},
        ["document 184 is at rank 4 in bm25's run for query 1; the claim says null"],
    ),
    ("unknown-doc", {"doc": "99999"}, ["there is no document '99999' in the collection"]),
    ("unknown-query", {"query": "999"}, ["there is no query '999' in the collection's qrels"]),
]


@pytest.mark.parametrize(("change", "words"), [case[1:] for case in WRONG], ids=[case[0] for case in WRONG])
def test_feedback_names_the_claim_and_what_the_data_says(known, change, words):
    """Does a wrong fact refuse the claim, the feedback saying what the claim says and what the data says?"""
    claim = true_claim(known, "1", "AP", ["184"])
    document = claim["documents"][0]
    for key, value in change.items():
        if key in document:
            document[key] = value
        elif isinstance(value, dict):
            claim[key] = {**claim[key], **value}
        else:
            claim[key] = value
    (verdict,) = verdicts(known, claim)
    assert verdict.title() == f"claim 1 (line 2: query {claim['query']}, AP)"
    for word in words:
        assert any(word in problem for problem in verdict.problems), verdict.problems


def test_a_document_neither_run_retrieves_explains_nothing(known):
    """Is a real document that neither run retrieves for the query refused as an explanation?"""
    outside = min(known.documents - set(retrieved(known, "1")), key=int)
    claim = true_claim(known, "1", "AP", ["184"])
    claim["documents"] = [
        {"doc": outside, "grade": known.qrels["1"].get(outside, 0), "ranks": {"bm25": None, "tfidf": None}}
    ]
    (verdict,) = verdicts(known, claim)
    assert verdict.problems == (
        f"document {outside} is in neither run for query 1: a document no system retrieves cannot explain their "
        "difference; name documents of the rankings",
    )


def test_handout_names_the_bundles_systems_and_measures(known):
    """Do the students' shape check and the grader name the same systems and measures?"""
    assert (tuple(sorted(handout.SYSTEMS)), tuple(sorted(handout.MEASURES))) == (
        tuple(sorted(known.names().systems)),
        tuple(sorted(known.names().measures)),
    )


@pytest.mark.parametrize(("wrong", "status"), [(False, 0), (True, 1)], ids=["true", "one-wrong-rank"])
def test_command_checks_a_file(known, tmp_path, wrong, status):
    """Does `python -m autograder analysis FILE` say which claims hold, exiting 1 when one is refused?"""
    claim = true_claim(known, "1", "AP", ["184"])
    if wrong:
        claim["documents"][0]["ranks"]["tfidf"] = 1
    path = tmp_path / "analysis.yml"
    path.write_text(yaml.safe_dump({"claims": [claim]}), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "analysis", str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == status, result.stderr
    assert f"{1 - wrong} of 1 claims hold against the data" in result.stdout
    assert ("document 184 is at rank 2 in tfidf's run for query 1; the claim says rank 1" in result.stdout) == wrong


def test_command_names_the_line_of_a_malformed_file(tmp_path):
    """Does a malformed file exit 2 with its line and field, and nothing checked?"""
    path = tmp_path / "analysis.yml"
    path.write_text("claims:\n  - query: 1\n    measure: MAP\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "analysis", str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: analysis.yml, line 3: claims[0].measure: 'MAP' is not a measure")
