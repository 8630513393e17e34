"""The written analysis on Gradescope (``platforms/gradescope/analysis.py``): with ``analysis:`` and an
analysis.yml in the submission, results.json gains one test worth 0 saying each claim's verdict; the
code's score never changes, and a failure of the check leaves results.json as it was."""

from __future__ import annotations

import pytest
import yaml

from autograder import paths
from autograder.grading.analysis import facts
from autograder.grading.results import SubmissionResult
from autograder.labkit import trec
from autograder.labkit.load import default as default_lab
from autograder.platforms.gradescope import analysis

SECTION = "analysis:\n  claims: 2\n  claim_points: 2\n  prose_points: 4\n"


@pytest.fixture(scope="module")
def known(cranfield):
    return facts.Facts.from_bundle(cranfield)


def claim(known: facts.Facts, query: str, doc: str, **wrong) -> dict:
    systems = known.names().systems
    document = {
        "doc": doc,
        "grade": known.qrels[query].get(doc, 0),
        "ranks": {s: known.rank(s, query, doc) for s in systems},
    }
    document.update(wrong)
    return {
        "query": query,
        "measure": "AP",
        "values": {s: round(known.values[s]["AP"][query], 4) for s in systems},
        "better": known.better("AP", query),
        "documents": [document],
    }


def root_with(tmp_path, text: str | None, rubric_text: str | None = None):
    root = tmp_path / "autograder"
    (root / "submission" / "lab05").mkdir(parents=True)
    for name in ("metrics.py", "runs.py"):
        (root / "submission" / "lab05" / name).write_text("# work\n", encoding="utf-8")
    if text is not None:
        (root / "submission" / "analysis.yml").write_text(text, encoding="utf-8")
    rubric = tmp_path / "grading.yml"
    rubric.write_text(rubric_text or paths.RUBRIC.read_text(encoding="utf-8"), encoding="utf-8")
    return root, rubric


#: id: (the analysis.yml, the test's status, words of its output)
CASES = {
    "true": (lambda k: yaml.safe_dump({"claims": [claim(k, "1", "184")]}), "passed", "Claims: 2 / 4 points"),
    "wrong-grade": (
        lambda k: yaml.safe_dump({"claims": [claim(k, "1", "184", grade=1)]}),
        "failed",
        "document 184 has grade 2 for query 1; the claim says 1",
    ),
    "malformed": (lambda k: "claims: [\n", "failed", "analysis.yml, line 2: not valid YAML"),
}


@pytest.mark.parametrize(("made", "status", "words"), CASES.values(), ids=CASES.keys())
def test_the_analysis_test_says_each_claims_verdict(known, tmp_path, made, status, words):
    """Is the analysis a test worth 0 with the claims' verdicts (or the file's mistake and its line)?"""
    root, rubric = root_with(tmp_path, made(known))
    test = analysis.claims_test(root, rubric, default_lab())
    assert (test["score"], test["max_score"], test["status"], test["name"]) == (0.0, 0.0, status, analysis.NAME)
    assert words in test["output"]


@pytest.mark.parametrize(
    ("text", "rubric_text"),
    [(None, None), ("claims: []\n", paths.RUBRIC.read_text(encoding="utf-8").replace(SECTION, ""))],
    ids=["no-file", "no-section"],
)
def test_nothing_is_added_without_a_file_or_a_section(tmp_path, cranfield, text, rubric_text):
    """Without analysis.yml, or without grading.yml's analysis:, is results.json left as the code's?"""
    root, rubric = root_with(tmp_path, text, rubric_text)
    render = lambda result: {"score": 7, "tests": []}
    assert analysis.claims_test(root, rubric, default_lab()) is None
    assert analysis.render_claims(render, root, rubric, print, default_lab()) is render


def test_render_appends_the_test_and_keeps_the_score(known, tmp_path):
    """Does the document keep the code's score and tests, with the analysis's test after them?"""
    root, rubric = root_with(tmp_path, yaml.safe_dump({"claims": [claim(known, "1", "184")]}))
    rendered = analysis.render_claims(
        lambda result: {"score": 7, "tests": [{"name": "code"}]}, root, rubric, print, default_lab()
    )
    document = rendered(SubmissionResult.failed("submission", ()))
    assert document["score"] == 7 and [test["name"] for test in document["tests"]] == ["code", analysis.NAME]


def test_a_failing_check_leaves_the_results_alone(tmp_path, monkeypatch):
    """If checking the analysis fails, is the code's renderer kept and the instructor told?"""
    root, rubric = root_with(tmp_path, "claims: []\n")

    def broken(*args, **kwargs):
        raise OSError("disk gone")

    said: list[str] = []
    monkeypatch.setattr(analysis, "claims_test", broken)
    render = lambda result: {"score": 7}
    assert analysis.render_claims(render, root, rubric, said.append, default_lab()) is render
    assert said == ["the written analysis was not checked: OSError: disk gone"]


#: id: (the run file the submission holds beside analysis.yml: None for none; the test's status, words)
OWN_RUNS = {
    "run-handed-in": ("lab04", "passed", "Claims: 2 / 4 points"),
    "run-missing": (None, "failed", "the run file my_bm25.run is not in the submission"),
    "run-malformed": ("1 Q0 184 1\n", "failed", "my_bm25.run, line 1: 4 columns"),
}


@pytest.mark.parametrize(("run", "status", "words"), OWN_RUNS.values(), ids=OWN_RUNS.keys())
def test_a_claim_naming_the_students_run_is_checked_against_it(known, cranfield, tmp_path, run, status, words):
    """Is a claim naming the student's own run checked against the run file of the Gradescope
    submission, and a missing or malformed one named with its line?"""
    made = {**claim(known, "1", "184"), "runs": {"bm25": "my_bm25.run"}}
    root, rubric = root_with(tmp_path, yaml.safe_dump({"claims": [made]}))
    if run == "lab04":
        hits = cranfield["systems"]["bm25"]["results"]
        run = "".join(
            trec.line(query, doc, rank, score, "mine") + "\n"
            for query, ranked in hits.items()
            for rank, (doc, score) in enumerate(ranked, 1)
        )
    if run is not None:
        (root / "submission" / "my_bm25.run").write_text(run, encoding="utf-8")
    test = analysis.claims_test(root, rubric, default_lab())
    assert (test["score"], test["status"]) == (0.0, status)
    assert words in test["output"], test["output"]
