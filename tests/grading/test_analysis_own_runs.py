"""Claims checked against the student's own runs, where the claim says so (``runs: {bm25: my.run}``,
``grading/analysis/own_runs.py``): the run file read as untrusted data (the engine's TREC reader,
every malformed line named), ranked as ``ir_measures`` ranks, evaluated by the lab's reference
measures.

Property tests (hypothesis) on runs made from Lab 04's runs with changes (scores changed, documents
dropped, a query left out): every true claim of the changed run is accepted; every such claim with
one fact changed (doc, rank, grade, query, value, sign) is refused.
"""

from __future__ import annotations

import math
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.grading import intake
from autograder.grading.analysis import claims, facts, own_runs
from autograder.grading.analysis.points import AnalysisPoints
from autograder.labkit import trec
from autograder.labkit.load import default as default_lab
from autograder.local import analysis_sheet
from tests.support.claim_changes import PERTURBATIONS, perturbed

RUN = "my_bm25.run"
SYSTEM = "bm25"  # the system whose run the claims name


@pytest.fixture(scope="module")
def lab():
    return default_lab()


@pytest.fixture(scope="module")
def known(cranfield):
    return facts.Facts.from_bundle(cranfield)


def run_text(results: dict[str, list[tuple[str, float]]]) -> str:
    """A run file of ``results`` (query -> (doc, score) in the order written), as write_run writes it."""
    return "".join(
        trec.line(query, doc, rank, score, "mine") + "\n"
        for query, hits in results.items()
        for rank, (doc, score) in enumerate(hits, 1)
    )


def lab04(cranfield, system: str = SYSTEM) -> dict[str, list[tuple[str, float]]]:
    """Lab 04's search results of ``system``, as its run was written."""
    return {
        query: [(doc, score) for doc, score in hits] for query, hits in cranfield["systems"][system]["results"].items()
    }


def source(text: str | bytes, lab) -> own_runs.RunSource:
    """Run files held in memory: ``RUN`` is ``text``, any other name is missing."""
    data = text.encode() if isinstance(text, str) else text

    def read(name: str) -> bytes:
        if name != RUN:
            raise own_runs.RunError(f"the run file {name} is not in the submission")
        return data

    return own_runs.RunSource(read=read, measure=own_runs.lab_measure(lab.measures))


#: (id, the run file, words of the message: the file and the line)
MALFORMED = [
    ("five-columns", "1 Q0 184 1 2.5 mine\n1 184 2 1.5 mine\n", ["my_bm25.run, line 2: 5 columns", "Q0 doc_id"]),
    ("seven-columns", "1 Q0 184 1 2.5 my run\n", ["my_bm25.run, line 1: 7 columns"]),
    ("score-text", "\n1 Q0 184 1 high mine\n", ["my_bm25.run, line 2: the score 'high' is not a finite number"]),
    ("score-nan", "1 Q0 184 1 nan mine\n", ["my_bm25.run, line 1: the score 'nan'"]),
    ("score-infinite", "1 Q0 184 1 inf mine\n", ["my_bm25.run, line 1: the score 'inf'"]),
    ("empty", "\n\n", ["my_bm25.run: has no line of a run"]),
    ("not-utf8", b"1 Q0 12 1 2.5 s\n1 Q0 184 1 2.5 \xff\n", ["my_bm25.run, line 2: byte 31 is not UTF-8"]),
    ("too-many-lines", "1 Q0 184 1 2.5 mine\n" * (own_runs.MAX_LINES + 1), ["more than 250,000 lines"]),
]


@pytest.mark.parametrize(("text", "words"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED])
def test_malformed_run_is_refused_naming_its_file_and_line(text, words):
    """Is a run file that is not a run refused with one message naming the file and the line?"""
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(own_runs.RunError) as caught:
        own_runs.parse(data, RUN)
    for word in words:
        assert word in str(caught.value), caught.value


#: (id, the run file, query 1's ranking as ir_measures reads it)
RANKED = [
    ("by-score", "1 Q0 a 1 1.0 s\n1 Q0 b 2 3.0 s\n1 Q0 c 3 2.0 s\n", ["b", "c", "a"]),
    ("ties-by-doc-id-descending", "1 Q0 10 1 1.0 s\n1 Q0 9 2 1.0 s\n1 Q0 2 3 1.0 s\n", ["9", "2", "10"]),
    ("doc-twice-last-score-wins", "1 Q0 a 1 3.0 s\n1 Q0 b 2 2.0 s\n1 Q0 a 3 1.0 s\n", ["b", "a"]),
    ("any-whitespace-other-queries", "2 Q0 z 1 9.0 s\n1\tQ0  a 1 1.0 s\r\n", ["a"]),
]


@pytest.mark.parametrize(("text", "expected"), [case[1:] for case in RANKED], ids=[case[0] for case in RANKED])
def test_run_is_ranked_as_ir_measures_ranks_it(text, expected):
    """Is a run's query ranked by score descending, ties by doc id descending, a doc's last score kept?"""
    assert own_runs.parse(text.encode(), RUN).ranking("1") == expected


def test_lab04_run_written_again_gives_the_reference_facts(cranfield, known, lab):
    """Does Lab 04's own run, as a student's file, give the reference's rankings and values?"""
    run = own_runs.parse(run_text(lab04(cranfield)).encode(), RUN)
    measure = own_runs.lab_measure(lab.measures)
    queries = sorted(known.qrels, key=int)[::25]
    for query in queries:
        assert run.ranking(query) == list(known.rankings[SYSTEM][query]), query
        for label in known.names().measures:
            value = measure(label, {query: known.qrels[query]}, {query: run.scores.get(query, {})})[query]
            assert math.isclose(value, known.values[SYSTEM][label][query], abs_tol=1e-12), (query, label)
    assert len(queries) == 9


def changed_run(cranfield, data: st.DataObject) -> tuple[dict[str, list[tuple[str, float]]], str]:
    """Lab 04's run with one query changed (scores reversed or shuffled, documents dropped, or the query
    left out), and that query."""
    results = lab04(cranfield)
    query = data.draw(st.sampled_from(sorted(results, key=int)))
    hits = results[query]
    change = data.draw(st.sampled_from(["reverse", "shuffle", "drop", "leave-out"]))
    if change == "reverse":
        results[query] = [(doc, -score) for doc, score in hits]
    elif change == "shuffle":
        scores = data.draw(st.permutations([score for _, score in hits]))
        results[query] = [(doc, score) for (doc, _), score in zip(hits, scores)]
    elif change == "drop":
        kept = data.draw(st.lists(st.sampled_from(hits), min_size=1, max_size=len(hits), unique=True))
        results[query] = kept
    else:
        del results[query]
    return results, query


def own_facts(
    known: facts.Facts, lab, results: dict[str, list[tuple[str, float]]], query: str, measure: str
) -> facts.Facts:
    """The facts of ``query`` with bm25's from ``results``, computed here: the ranking sorted as the
    conventions say, ``measure`` by the lab's reference measure."""
    scores = dict(results.get(query, []))
    ranking = [doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]
    spec = lab.measures.CRANFIELD[measure]
    values = {measure: lab.measures.ir_measures_values(spec.ir_measure, {query: known.qrels[query]}, {query: scores})}
    return facts.Facts(
        qrels=known.qrels,
        rankings={**known.rankings, SYSTEM: {query: ranking}},
        values={**known.values, SYSTEM: values},
        documents=known.documents,
    )


def true_claim(truth: facts.Facts, query: str, measure: str, data: st.DataObject) -> dict:
    """A claim the changed run makes of ``query`` (documents of either run, values to 4 decimals)."""
    systems = truth.names().systems
    pool = sorted({d for s in systems for d in truth.rankings[s].get(query, ())}, key=int)
    docs = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique=True))
    cut = data.draw(st.booleans())
    value = {s: truth.values[s][measure][query] for s in systems}
    return {
        "query": query,
        "measure": measure,
        "values": {s: math.floor(v * 10_000 + 1e-9) / 10_000 if cut else round(v, 4) for s, v in value.items()},
        "better": truth.better(measure, query),
        "documents": [
            {"doc": d, "grade": truth.qrels[query].get(d, 0), "ranks": {s: truth.rank(s, query, d) for s in systems}}
            for d in docs
        ],
        "runs": {SYSTEM: RUN},
    }


def verdict(known: facts.Facts, claim: dict, runs: own_runs.RunSource) -> facts.Verdict:
    text = yaml.safe_dump({"claims": [claim]}, sort_keys=False)
    (found,) = facts.check(claims.parse(text, known.names()), known, runs)
    return found


#: how many examples each property draws (the report's counts)
EXAMPLES = 100


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_true_claim_of_a_changed_run_is_accepted(cranfield, known, lab, data):
    """Is every claim made from a student's run (Lab 04's, changed) accepted when the claim names it?"""
    results, query = changed_run(cranfield, data)
    measure = data.draw(st.sampled_from(known.names().measures))
    claim = true_claim(own_facts(known, lab, results, query, measure), query, measure, data)
    found = verdict(known, claim, source(run_text(results), lab))
    assert found.holds, found.problems


@pytest.mark.parametrize("kind", PERTURBATIONS)
@pytest.mark.slow
@settings(
    max_examples=EXAMPLES // 2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_claim_of_a_changed_run_with_one_fact_changed_is_refused(cranfield, known, lab, kind, data):
    """Is a true claim of a student's run with one fact changed (doc, rank, grade, query, value, sign) refused?"""
    results, query = changed_run(cranfield, data)
    measure = data.draw(st.sampled_from(known.names().measures))
    truth = own_facts(known, lab, results, query, measure)
    claim = true_claim(truth, query, measure, data)
    found = verdict(known, perturbed(truth, claim, kind, data), source(run_text(results), lab))
    assert not found.holds, (kind, claim)


def test_claim_of_the_reference_is_refused_against_a_changed_run(cranfield, known, lab):
    """Is a claim true of Lab 04's run refused once it names a run that ranks otherwise, the
    feedback naming the student's file?"""
    results = lab04(cranfield)
    results["1"] = [(doc, -score) for doc, score in results["1"]]
    claim = {
        "query": "1",
        "measure": "AP",
        "values": {s: round(known.values[s]["AP"]["1"], 4) for s in ("tfidf", "bm25")},
        "better": known.better("AP", "1"),
        "documents": [{"doc": "184", "grade": 2, "ranks": {s: known.rank(s, "1", "184") for s in ("tfidf", "bm25")}}],
    }
    assert verdict(known, claim, source(run_text(results), lab)).holds
    found = verdict(known, {**claim, "runs": {SYSTEM: RUN}}, source(run_text(results), lab))
    assert found.problems == (
        f"bm25's AP on query 1 in your run {RUN} is 0.0900; the claim says 0.2155 (give it to 4 decimals, as the "
        "notebook prints it)",
        f"document 184 is at rank 97 in your run {RUN} (bm25) for query 1; the claim says rank 4",
    )


#: (id, the run file beside analysis.yml (None: none), the problem the claim naming it gets)
UNREADABLE = [
    (
        "missing",
        None,
        "the run file my_bm25.run is not in {folder}: submit it beside analysis.yml, or remove the claim's runs: "
        "to check it against Lab 04's reference runs",
    ),
    ("malformed", "1 Q0 184 1 2.5 mine\n1 Q0 12 2.0 mine\n", "my_bm25.run, line 2: 5 columns; a run's line has 6"),
    ("too-large", "#" * (intake.MAX_FILE + 1), "the run file my_bm25.run is larger than 1024 KiB: it was not read"),
]


@pytest.mark.parametrize(("text", "problem"), [case[1:] for case in UNREADABLE], ids=[case[0] for case in UNREADABLE])
def test_missing_or_malformed_run_refuses_its_claim_only(known, lab, tmp_path, text, problem):
    """Does a missing or malformed run refuse the claim naming it, saying which file and line, and
    leave the other claim (on Lab 04's runs) holding?"""
    if text is not None:
        (tmp_path / RUN).write_text(text, encoding="utf-8")
    other = {key: value for key, value in true_claim_of_lab04(known, "2").items() if key != "runs"}
    written = yaml.safe_dump({"claims": [true_claim_of_lab04(known, "1"), other]}, sort_keys=False)
    first, second = facts.check(claims.parse(written, known.names()), known, own_runs.in_folder(tmp_path, lab))
    assert len(first.problems) == 1 and first.problems[0].startswith(problem.format(folder=tmp_path)), first.problems
    assert second.holds, second.problems


def true_claim_of_lab04(known: facts.Facts, query: str) -> dict:
    """The reference's true claim of ``query``'s AP with its first bm25 document, naming ``RUN``."""
    doc = known.rankings[SYSTEM][query][0]
    return {
        "query": query,
        "measure": "AP",
        "values": {s: round(known.values[s]["AP"][query], 4) for s in ("tfidf", "bm25")},
        "better": known.better("AP", query),
        "documents": [
            {
                "doc": doc,
                "grade": known.qrels[query].get(doc, 0),
                "ranks": {s: known.rank(s, query, doc) for s in ("tfidf", "bm25")},
            }
        ],
        "runs": {SYSTEM: RUN},
    }


def test_claim_naming_a_run_where_runs_cannot_be_read_is_refused(known):
    """Without a place to read runs from, is a claim naming one refused, saying how to check it instead?"""
    text = yaml.safe_dump({"claims": [true_claim_of_lab04(known, "1")]}, sort_keys=False)
    (found,) = facts.check(claims.parse(text, known.names()), known)
    assert found.problems == (
        f"the claim names your own run ({RUN}), which cannot be read here: remove the claim's runs: to check it "
        "against Lab 04's reference runs",
    )


@pytest.mark.parametrize("packed", [False, True], ids=["folder", "zip"])
def test_sheet_reads_the_run_from_the_submission(cranfield, known, lab, tmp_path, packed):
    """Does the grading sheet read the claim's run from the submission (a folder or a zip), and hold
    the claim true of it?"""
    text = yaml.safe_dump({"claims": [true_claim_of_lab04(known, "1")]}, sort_keys=False)
    files = {"analysis.yml": text, RUN: run_text(lab04(cranfield))}
    if packed:
        path = tmp_path / "ada.zip"
        with zipfile.ZipFile(path, "w") as archive:
            for name, content in files.items():
                archive.writestr(name, content)
    else:
        path = tmp_path / "ada"
        path.mkdir()
        for name, content in files.items():
            (path / name).write_text(content, encoding="utf-8")
    points = AnalysisPoints(claims=2, claim_points=2.0, prose_points=4.0)
    score, said = analysis_sheet.claims_of(intake.Source(id="ada", path=path), known, points, lab)
    assert (score, said) == (2.0, ("claim 1 (line 2: query 1, AP): holds",))


@pytest.mark.parametrize(("given", "status", "words"), [(True, 0, "1 of 1 claims hold"), (False, 1, "is not in")])
def test_command_reads_runs_beside_the_file(cranfield, known, tmp_path, given, status, words):
    """Does `python -m autograder analysis FILE` read a claim's run from FILE's folder, and say when it is not there?"""
    (tmp_path / "analysis.yml").write_text(
        yaml.safe_dump({"claims": [true_claim_of_lab04(known, "1")]}, sort_keys=False), encoding="utf-8"
    )
    if given:
        (tmp_path / RUN).write_text(run_text(lab04(cranfield)), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "analysis", str(tmp_path / "analysis.yml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == status, result.stderr
    assert words in result.stdout and "Traceback" not in result.stderr


def test_command_refuses_a_run_through_a_symbolic_link(cranfield, known, tmp_path, lab):
    """Is a run file that is a symbolic link refused, not followed?"""
    target = tmp_path / "elsewhere.run"
    target.write_text(run_text(lab04(cranfield)), encoding="utf-8")
    (tmp_path / RUN).symlink_to(target)
    with pytest.raises(own_runs.RunError, match="symbolic link"):
        own_runs.in_folder(Path(tmp_path), lab).run(RUN)
