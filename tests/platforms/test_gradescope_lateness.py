"""The late penalty on Gradescope (``platforms/gradescope/lateness.py``): run_autograder charges
grading.yml's penalty by the times Gradescope's submission_metadata.json vouches for."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.platforms.gradescope import entry, lateness
from tests.support import subs

DEADLINE = "deadline:\n  due: 2026-12-05 23:59\n  timezone: America/Chicago\n  penalty: 10\n  per: day\n  cap: 25\n"
DUE = "2026-12-10T23:59:00-06:00"  # Gradescope's due date: it wins over grading.yml's


def _metadata(created, due=DUE, late_due=None, own=None):
    """Gradescope's metadata: created_at, the assignment's dates and the one user's own (``own``)."""
    user = {"email": "ada@example.edu", "id": 1, "name": "Ada"}
    if own is not None:
        user["assignment"] = {"due_date": own[0], "late_due_date": own[1], "release_date": None}
    return {
        "id": 9,
        "created_at": created,
        "assignment": {"due_date": due, "late_due_date": late_due, "title": "Lab 05", "total_points": "100.0"},
        "users": [user],
        "previous_submissions": [],
    }


@dataclass(frozen=True)
class Scored:
    """What render_late reads and replaces of a SubmissionResult: 80 / 100."""

    score: float = 80.0
    max_score: float = 100.0
    late: object = None


LATE = {
    # id: (the metadata, the score Gradescope keeps of 80 / 100 (None: 0 for not accepted), what the log says)
    "on time": (_metadata("2026-12-10T20:00:00-06:00"), 80, "on time"),
    "1 h late: a day's 10%": (_metadata("2026-12-11T00:59:00-06:00"), 70, "late"),
    "5 days late: the 25% cap": (_metadata("2026-12-15T20:00:00-06:00"), 55, "late"),
    "an extension (own due date): none": (
        _metadata("2026-12-11T00:59:00-06:00", own=("2026-12-12T23:59:00-06:00", None)), 80, "extended",
    ),
    "after the late due date: 0": (
        _metadata("2026-12-12T00:30:00-06:00", late_due="2026-12-11T23:59:00-06:00"), 0, "late",
    ),
    "after the class's late due date, before the own one: accepted": (
        _metadata(
            "2026-12-12T00:30:00-06:00", late_due="2026-12-11T23:59:00-06:00",
            own=("2026-12-10T23:59:00-06:00", "2026-12-13T23:59:00-06:00"),
        ), 60, "late",  # 2 started days: 20%
    ),
    "no created_at: no trusted time, none": (_metadata(None), 80, "no trusted submission time"),
    "created_at not a time: none": (_metadata("yesterday"), 80, "no trusted submission time"),
    "no assignment dates: grading.yml's due": (_metadata("2026-12-06T01:00:00-06:00", due=None), 70, "late"),
}  # fmt: skip


@pytest.mark.parametrize("case", LATE.values(), ids=LATE.keys())
def test_gradescope_charges_the_penalty_by_its_metadata(case, tmp_path):
    """Scored 80 / 100: is the score Gradescope keeps less grading.yml's penalty by created_at against
    the assignment's due date (a student's own due date an extension; after the late due date 0),
    and none without a trusted time, the log saying which?"""
    data, kept, said = case
    (tmp_path / "submission_metadata.json").write_text(json.dumps(data), encoding="utf-8")
    rubric = tmp_path / "grading.yml"
    rubric.write_text(paths.RUBRIC.read_text(encoding="utf-8") + DEADLINE, encoding="utf-8")
    log: list[str] = []
    late = lateness.read(tmp_path, rubric, log.append, lab=default_lab())
    assert said in log[-1], log
    document = lateness.render_late(lambda r: {"score": r.score, "late": r.late}, late)(Scored())
    assert document["score"] == kept
    assert (document["late"] is not None) == (late is not None)


def test_without_a_deadline_gradescope_charges_nothing(tmp_path):
    """Without a deadline: section in grading.yml, is nothing charged (Gradescope's own late settings
    apply), even a week late?"""
    (tmp_path / "submission_metadata.json").write_text(json.dumps(_metadata("2026-12-17T20:00:00-06:00")))
    assert lateness.read(tmp_path, paths.RUBRIC, lambda line: None, lab=default_lab()) is None


def _group(created):
    """Ada, extended to 2026-12-12, and Ben, with the assignment's due date, submitting together."""
    data = _metadata(created, own=("2026-12-12T23:59:00-06:00", None))
    data["users"].append({"email": "ben@example.edu", "id": 2, "name": "Ben"})
    return data


#: students.group_extension -> (the score Gradescope keeps of 80 / 100 a day after the assignment's
#: due date, and before Ada's own, what the log says of the group)
GROUP = {
    "own": (70, "timed by the strictest member's, Ben's (grading.yml students.group_extension: own"),
    "all": (70, "timed by the strictest member's, Ben's (grading.yml students.group_extension: all"),
    "any": (80, "timed by the most lenient member's, Ada's (grading.yml students.group_extension: any"),
}


@pytest.mark.parametrize("setting", GROUP, ids=list(GROUP))
def test_a_group_gets_one_score_by_the_setting(setting, tmp_path):
    """A group of an extended student and one without, a day late by the assignment's due date: is
    the one score Gradescope keeps the strictest member's (own, all), or the most lenient's (any),
    and does the log say whose dates applied and why?"""
    kept, said = GROUP[setting]
    (tmp_path / "submission_metadata.json").write_text(json.dumps(_group("2026-12-11T00:59:00-06:00")))
    rubric = tmp_path / "grading.yml"
    text = paths.RUBRIC.read_text(encoding="utf-8") + DEADLINE
    rubric.write_text(text + f"students:\n  policy: latest\n  group_extension: {setting}\n", encoding="utf-8")
    log: list[str] = []
    late = lateness.read(tmp_path, rubric, log.append, lab=default_lab())
    assert lateness.render_late(lambda r: {"score": r.score}, late)(Scored())["score"] == kept
    assert [line for line in log if said in line], log


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("own", [None, ("2026-12-12T23:59:00-06:00", None)], ids=["late", "extended"])
def test_run_autograder_applies_the_penalty_or_the_extension(own, tmp_path, cranfield):
    """On the real entry point, the solutions submitted an hour after Gradescope's due date: is
    results.json's score 90 (a day's 10%) and its output saying how late, and 100 with an extension?"""
    subs.write(tmp_path / "submission", {})
    metadata = _metadata("2026-12-11T00:59:00-06:00", own=own)
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    rubric = subs.test_rubric(tmp_path)
    rubric.write_text(rubric.read_text(encoding="utf-8") + "\n" + DEADLINE, encoding="utf-8")
    document = entry.run(tmp_path, rubric_path=rubric, log=lambda line: None)
    written = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert written == document
    assert document["score"] == (90 if own is None else 100), document["output"][:500]
    assert ("late by" in document["output"]) == (own is None)
