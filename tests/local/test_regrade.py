"""Regrading that knows what changed: when only the rubric's points, visibility or scoring change,
the stored answers are scored again (no student code runs); when the calls change, the batch grades
again and says why; either way the grade it replaces is kept beside the new one."""

from __future__ import annotations

import json

import pytest

from autograder.grading import rubric
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.reports import output_paths
from autograder.sandbox import runner
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def _rubric(folder, **replace):
    path = subs.test_rubric(folder)
    text = path.read_text()
    for old, new in replace.items():
        text = text.replace(old, new)
    path.write_text(text)
    return path


def test_changed_points_rescore_stored_answers_without_running_code(tmp_path, cranfield, monkeypatch):
    """After a batch, with two checks' points moved, does a second run rescore both submissions from
    their stored answers (no child started), say why, change the buggy one's score, and keep the
    previous grade.json beside the new one?"""
    subs.write(tmp_path / "in" / "correct", {})
    buggy = subs.with_function(  # P@k divided by the documents returned (a constant answer would earn nothing)
        "metrics.py",
        "def precision_at_k(ranking, judgments, k, rel=1):\n    top = list(ranking)[:k]\n"
        "    return sum(judgments.get(d, 0) >= rel for d in top) / max(len(top), 1)\n",
    )
    subs.write(tmp_path / "in" / "buggy", {"metrics.py": buggy})
    first = batch.grade_batch(
        [tmp_path / "in"], tmp_path / "out", jobs=1, progress=False, rubric_path=_rubric(tmp_path), lab=default_lab()
    )
    before = {result.submission: result.score for result in first.results}

    def no_child(*args, **kwargs):
        raise AssertionError("a child was started to rescore stored answers")

    monkeypatch.setattr(runner, "run", no_child)
    worth = {
        check.kind: check.points
        for check in rubric.load(default_lab().place.rubric, default_lab()).checks
        if check.function == "precision_at_k"
    }
    edge, random_ = (  # two points moved from the edge cases to the random ones
        "{function: precision_at_k, kind: edge, points: %d}",
        "{function: precision_at_k, kind: random, points: %d}",
    )
    e, r = worth[CheckKind.EDGE], worth[CheckKind.RANDOM]
    assert e >= 2, "the test moves two of precision_at_k's edge points"
    moved = _rubric(tmp_path, **{edge % e: edge % (e - 2), random_ % r: random_ % (r + 2)})
    assert moved.read_text().count(edge % (e - 2)) == moved.read_text().count(random_ % (r + 2)) == 1
    second = batch.grade_batch(
        [tmp_path / "in"], tmp_path / "out", jobs=1, progress=False, rubric_path=moved, lab=default_lab()
    )
    assert (second.graded, second.rescored, second.skipped) == (0, 2, 0)
    assert {why for _, why, _, _ in second.changes} == {"the rubric's points, visibility or scoring changed"}
    after = {result.submission: result.score for result in second.results}
    assert after["correct"] == before["correct"] == 100 and after["buggy"] != before["buggy"]
    previous = tmp_path / "out" / "submissions" / "buggy" / output_paths.PREVIOUS
    assert json.loads(previous.read_text())["rubric_digest"] != second.results[0].rubric_digest


def test_changed_calls_grade_again_and_say_why(tmp_path, cranfield):
    """When the rubric draws fewer random cases, does the next run grade again (not rescore) and say
    that the calls changed?"""
    subs.write(tmp_path / "in" / "correct", {})
    batch.grade_batch(
        [tmp_path / "in"], tmp_path / "out", jobs=1, progress=False, rubric_path=_rubric(tmp_path), lab=default_lab()
    )
    fewer = _rubric(tmp_path, **{"random_cases: 40": "random_cases: 10"})
    second = batch.grade_batch(
        [tmp_path / "in"], tmp_path / "out", jobs=1, progress=False, rubric_path=fewer, lab=default_lab()
    )
    assert (second.graded, second.rescored) == (1, 0)
    assert second.changes[0][1] == "the grader, its cases or the rubric's calls changed"
