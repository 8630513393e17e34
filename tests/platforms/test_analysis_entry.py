"""The written analysis's question on PrairieLearn (``platforms/prairielearn/analysis_entry.py``): the
image's entrypoint checks ``/grade/student/analysis.yml``'s claims against the data it is shipped
(``tests/analysis.json``) into results.json: the score the share of the counted claims' points, each
claim a test naming its wrong facts; a missing, malformed or linked file scores 0, saying why. It runs
from the shipped engine alone (no answer code, no hidden data)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from autograder.grading import rubric
from autograder.grading.analysis import facts
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import shipment
from autograder.platforms.prairielearn import analysis_entry
from autograder.platforms.prairielearn import build as prairielearn


@pytest.fixture(scope="module")
def data(cranfield):
    return prairielearn.analysis_data(rubric.load(default_lab().place.rubric, default_lab()), default_lab())


def claim(known: facts.Facts, query: str, doc: str, **wrong) -> dict:
    systems = known.names().systems
    made = {
        "query": query,
        "measure": "AP",
        "values": {s: round(known.values[s]["AP"][query], 4) for s in systems},
        "better": known.better("AP", query),
        "documents": [
            {
                "doc": doc,
                "grade": known.qrels[query].get(doc, 0),
                "ranks": {s: known.rank(s, query, doc) for s in systems},
            }
        ],
    }
    made["documents"][0].update(wrong)
    return made


def grade_root(tmp_path, data, text: str | None, link: bool = False):
    root = tmp_path / "grade"
    (root / "tests").mkdir(parents=True)
    (root / "student").mkdir()
    (root / "tests" / analysis_entry.DATA).write_text(json.dumps(data), encoding="utf-8")
    if text is not None:
        target = root / "student" / ("real.yml" if link else "analysis.yml")
        target.write_text(text, encoding="utf-8")
        if link:
            os.symlink(target, root / "student" / "analysis.yml")
    return root


#: id: (what the student submits, the score, the tests' points, words of the message)
CASES = {
    "both-true": (
        lambda k: {"claims": [claim(k, "1", "184"), claim(k, "2", k.rankings["tfidf"]["2"][0])]},
        1.0,
        [2, 2],
        "Claims: 4 / 4",
    ),
    "one-wrong-rank": (
        lambda k: {"claims": [claim(k, "1", "184"), claim(k, "1", "184", ranks={"bm25": 1, "tfidf": 2})]},
        0.5,
        [2, 0],
        "Claims: 2 / 4",
    ),
    "three-claims": (
        lambda k: {"claims": [claim(k, "1", "184") for _ in range(3)]},
        1.0,
        [2, 2],
        "count for nothing (1 more)",
    ),
    "malformed": (
        lambda k: "claims:\n  - query: 1\n    measure: MAP\n",
        0.0,
        [],
        "analysis.yml, line 3: claims[0].measure",
    ),
    "missing": (lambda k: None, 0.0, [], "No analysis.yml was submitted"),
    "names-an-own-run": (
        lambda k: {"claims": [claim(k, "1", "184"), {**claim(k, "1", "184"), "runs": {"bm25": "my_bm25.run"}}]},
        0.5,
        [2, 0],
        "Claims: 2 / 4",
    ),
}


@pytest.mark.parametrize(("made", "score", "tests", "words"), CASES.values(), ids=CASES.keys())
def test_results_json_of_the_claims(tmp_path, data, made, score, tests, words):
    """Does results.json score the share of the counted claims that hold, a test per claim, and say why?"""
    known = facts.Facts.from_bundle(data["facts"])
    content = made(known)
    text = content if content is None or isinstance(content, str) else yaml.safe_dump(content)
    result = analysis_entry.run(grade_root(tmp_path, data, text))
    stored = json.loads((tmp_path / "grade" / "results" / "results.json").read_text())
    assert stored == result and result["gradable"] is True
    assert (result["score"], [test["points"] for test in result["tests"]]) == (score, tests)
    assert words in result["message"]
    if score == 0.5 and "runs" in content["claims"][1]:
        assert result["tests"][1]["message"] == (
            "the claim names your own run (my_bm25.run), which cannot be read here: remove the claim's runs: to "
            "check it against Lab 04's reference runs"
        )
    elif score == 0.5:
        assert (
            "document 184 is at rank 4 in bm25's run for query 1; the claim says rank 1"
            in result["tests"][1]["message"]
        )


def test_a_linked_file_is_not_followed(tmp_path, data):
    """Is analysis.yml as a symbolic link refused (0, saying so), never read through?"""
    known = facts.Facts.from_bundle(data["facts"])
    result = analysis_entry.run(
        grade_root(tmp_path, data, yaml.safe_dump({"claims": [claim(known, "1", "184")]}), link=True)
    )
    assert result["score"] == 0.0 and "not a regular file" in result["message"]


def test_runs_from_the_shipped_engine_alone(tmp_path, data):
    """Does `python -m autograder.platforms.prairielearn.analysis_entry` run from the image's engine (no
    answer code, no hidden data, no lab loaded), as the entrypoint calls it?"""
    source = tmp_path / "source"
    for name, content, _mode in shipment.engine_entries(default_lab()):
        path = source / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    known = facts.Facts.from_bundle(data["facts"])
    root = grade_root(tmp_path, data, yaml.safe_dump({"claims": [claim(known, "1", "184")]}))
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(source), "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "autograder.platforms.prairielearn.analysis_entry", "--root", str(root)],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 0.5
