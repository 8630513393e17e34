"""Attempt limits: the verdict on a submission from its earlier attempts (a count per period, a
total, the period's boundary, attempts that did not count), the times students are told, the
rubric's ``attempts:`` and the timezone (``deadline.timezone``), Gradescope's gate
(``submission_metadata.json``, malformed metadata), PrairieLearn's ``gradeRateMinutes`` and a
local batch's flags."""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import intake
from autograder.grading import rubric as rubrics
from autograder.grading.course import attempts
from autograder.grading.results import Status, Student, SubmissionResult
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import setting_support
from autograder.platforms.gradescope import attempts as gradescope_attempts
from autograder.platforms.gradescope import entry
from autograder.platforms.prairielearn import build as prairielearn
from tests.support import subs

UTC = datetime.timezone.utc
NOW = datetime.datetime(2026, 12, 2, 14, 0, tzinfo=UTC)
HOUR = datetime.timedelta(hours=1)
TICK = datetime.timedelta(microseconds=1)
THREE_A_DAY = attempts.AttemptLimits(per_period=3, period_hours=24)


def _ago(*offsets, counted=True) -> list[attempts.Attempt]:
    return [attempts.Attempt(NOW - offset, counted, str(i)) for i, offset in enumerate(offsets)]


#: id: (limits, earlier attempts, allowed, when the next one is available)
VERDICTS = {
    "first attempt": (THREE_A_DAY, [], True, None),
    "two of three today": (THREE_A_DAY, _ago(HOUR, 2 * HOUR), True, None),
    "three of three today": (THREE_A_DAY, _ago(HOUR, 2 * HOUR, 23 * HOUR), False, NOW + HOUR),
    "the oldest just inside the period": (THREE_A_DAY, _ago(HOUR, 2 * HOUR, 24 * HOUR - TICK), False, NOW + TICK),
    "the oldest exactly a period ago": (THREE_A_DAY, _ago(HOUR, 2 * HOUR, 24 * HOUR), True, None),
    "attempts that were not graded": (
        THREE_A_DAY,
        _ago(HOUR, 2 * HOUR) + _ago(3 * HOUR, 4 * HOUR, counted=False),
        True,
        None,
    ),
    "more than allowed in the period (limit lowered)": (
        attempts.AttemptLimits(per_period=2, period_hours=24),
        _ago(HOUR, 2 * HOUR, 5 * HOUR, 20 * HOUR),
        False,
        NOW + 22 * HOUR,  # when three of the four have left the window, one is left: a place
    ),
    "total used": (attempts.AttemptLimits(total=3), _ago(HOUR, 50 * HOUR, 100 * HOUR), False, None),
    "total not used": (attempts.AttemptLimits(total=3), _ago(HOUR, 50 * HOUR), True, None),
    "total used before the period's limit": (
        attempts.AttemptLimits(per_period=3, period_hours=24, total=4),
        _ago(HOUR, 30 * HOUR, 40 * HOUR, 50 * HOUR),
        False,
        None,
    ),
    "later attempts (a regrade of an old one)": (THREE_A_DAY, _ago(-HOUR, -2 * HOUR, -3 * HOUR, HOUR), True, None),
    "no limits": (attempts.AttemptLimits(), _ago(*(n * HOUR for n in range(1, 50))), True, None),
}


@pytest.mark.parametrize("case", VERDICTS.values(), ids=VERDICTS.keys())
def test_verdict(case):
    """Is a submission graded exactly when its student has graded attempts left (in the period's
    sliding window, and in all), and is the next attempt's time when a place frees?"""
    limits, earlier, allowed, next_at = case
    verdict = attempts.decide(limits, NOW, earlier)
    assert (verdict.allowed, verdict.next_at) == (allowed, next_at)


def test_verdict_keeps_the_last_graded_attempt():
    """Is the last graded attempt (not a later ungraded one) what a refusal keeps?"""
    earlier = _ago(3 * HOUR, 2 * HOUR, 10 * HOUR) + _ago(HOUR, counted=False)
    verdict = attempts.decide(THREE_A_DAY, NOW, earlier)
    assert not verdict.allowed and verdict.last == earlier[1]


#: id: (text, the instant)
TIMES = {
    "gradescope json": ("2026-12-01T14:22:32.365935-07:00", datetime.datetime(2026, 12, 1, 21, 22, 32, 365935, UTC)),
    "gradescope export (ruby)": (
        "2026-12-01 14:22:32.365935123 -0700",
        datetime.datetime(2026, 12, 1, 21, 22, 32, 365935, UTC),
    ),
    "zulu": ("2026-12-01T14:22:32Z", datetime.datetime(2026, 12, 1, 14, 22, 32, tzinfo=UTC)),
    "utc": ("2026-12-01 14:22:32 UTC", datetime.datetime(2026, 12, 1, 14, 22, 32, tzinfo=UTC)),
    "minutes only": ("2026-12-01T14:22+05:30", datetime.datetime(2026, 12, 1, 8, 52, tzinfo=UTC)),
}


@pytest.mark.parametrize("case", TIMES.values(), ids=TIMES.keys())
def test_submission_times_are_read_with_their_offset(case):
    """Are the platforms' submission times read as the instant they name?"""
    text, instant = case
    assert attempts.parse_time(text) == instant


@pytest.mark.parametrize("text", ["2026-12-01T14:22:32", "yesterday", "", None, 17, "2026-13-01T00:00:00Z"])
def test_a_time_without_its_offset_is_refused(text):
    """Is a time whose instant is unknown (no offset, not a time, an impossible date) a ValueError
    saying what was expected?"""
    with pytest.raises(ValueError, match="submission time"):
        attempts.parse_time(text)


#: id: (instant, timezone, what the student reads)
MOMENTS = {
    "utc, to the minute": (datetime.datetime(2026, 12, 2, 14, 5, tzinfo=UTC), "", "2026-12-02 14:05 UTC"),
    "rounded up, never earlier": (
        datetime.datetime(2026, 12, 2, 14, 5, 0, 1, tzinfo=UTC),
        "",
        "2026-12-02 14:06 UTC",
    ),
    "the course's timezone": (
        datetime.datetime(2026, 12, 2, 14, 5, tzinfo=UTC),
        "Europe/Madrid",
        "2026-12-02 14:05 UTC (15:05 CET, Europe/Madrid)",
    ),
    "another day there": (
        datetime.datetime(2026, 12, 2, 2, 0, tzinfo=UTC),
        "America/Chicago",
        "2026-12-02 02:00 UTC (2026-12-01 20:00 CST, America/Chicago)",
    ),
}


@pytest.mark.parametrize("case", MOMENTS.values(), ids=MOMENTS.keys())
def test_times_told_in_utc_and_the_course_s_timezone(case):
    instant, zone, text = case
    assert attempts.moment(instant, zone) == text


def test_refusal_says_the_limit_and_when():
    """Does the refusal say the rule, what was used and when the next attempt is (in both zones)?"""
    verdict = attempts.decide(THREE_A_DAY, NOW, _ago(HOUR, 2 * HOUR, 23 * HOUR))
    text = attempts.refusal(THREE_A_DAY, verdict, "Europe/Madrid")
    assert text.startswith(attempts.REFUSED)
    assert "allows 3 graded attempts in any 24 hours" in text and "3 graded attempts in the last 24 hours" in text
    assert "available from 2026-12-02 15:00 UTC (16:00 CET, Europe/Madrid)" in text
    assert "last graded attempt, submitted 2026-12-02 13:00 UTC" in text
    total = attempts.AttemptLimits(total=2)
    assert "no graded attempt left" in attempts.refusal(total, attempts.decide(total, NOW, _ago(HOUR, 2 * HOUR)))


# ---------------------------------------------------------------- the rubric


def _rubric(extra: str) -> rubrics.Rubric:
    return rubrics.parse(paths.RUBRIC.read_text() + extra, lab=default_lab())


MADRID = "deadline: {due: 2026-12-05 23:59, timezone: Europe/Madrid}\n"


def test_rubric_reads_attempts_and_the_deadline_s_timezone():
    """Are the attempts read, and the times told in the deadline's timezone (the one setting), or UTC alone?"""
    rubric = _rubric("attempts:\n  per_period: 3\n  period_hours: 12\n  total: 20\n" + MADRID)
    assert rubric.attempts == attempts.AttemptLimits(3, 12.0, 20) and rubric.timezone == "Europe/Madrid"
    assert not rubrics.load(
        default_lab().place.rubric, default_lab()
    ).attempts.enabled  # the repository's rubric limits nothing
    assert _rubric("attempts: {total: 2}\n").timezone == ""
    assert _rubric("deadline: {due: 2026-12-05T23:59:00-06:00}\n").timezone == ""  # an offset, not a zone


def test_attempts_and_timezone_regrade_nothing():
    """Are attempts and the deadline's timezone left out of the digests (changing them regrades nothing)?"""
    plain, limited = (
        rubrics.load(default_lab().place.rubric, default_lab()),
        _rubric("attempts: {per_period: 1}\n" + MADRID.replace("Europe/Madrid", "Asia/Tokyo")),
    )
    assert (limited.digest, limited.cases_digest) == (plain.digest, plain.cases_digest)


#: id: (the rubric's addition, the field named, what the message says)
WRONG = {
    "unknown key": ("attempts: {per_day: 3}\n", "attempts.per_day", "unknown key"),
    "not a count": ("attempts: {per_period: three}\n", "attempts.per_period", "whole number"),
    "negative total": ("attempts: {total: -1}\n", "attempts.total", "whole number"),
    "a period of nothing": ("attempts: {per_period: 2, period_hours: 0}\n", "attempts.period_hours", "above 0"),
    "a period without a count": ("attempts: {period_hours: 24}\n", "attempts.period_hours", "needs per_period"),
    "not a mapping": ("attempts: 3\n", "attempts", "must be a dict"),
    "unknown timezone": (MADRID.replace("Europe/Madrid", "Mars/Olympus"), "deadline.timezone", "not a timezone"),
    "an offset as timezone": (MADRID.replace("Europe/Madrid", "'+01:00'"), "deadline.timezone", "not a timezone"),
    "a second timezone setting": ("timezone: Europe/Madrid\n", "timezone", "unknown key"),
}


@pytest.mark.parametrize("case", WRONG.values(), ids=WRONG.keys())
def test_wrong_attempts_or_timezone_name_the_field(case):
    extra, field, message = case
    with pytest.raises(rubrics.RubricError, match=rf"{re.escape(field)}: .*{re.escape(message)}"):
        _rubric(extra)


# ---------------------------------------------------------------- Gradescope


def _results(score: float, state: str | None = gradescope_attempts.GRADED, output: str = "graded") -> dict:
    document = {"score": score, "output": output, "tests": [{"name": "precision_at_k: hidden", "score": score}]}
    return gradescope_attempts.marked(document, state) if state else document


def _previous(hours_ago: float, results) -> dict:
    time = NOW - datetime.timedelta(hours=hours_ago)
    return {"submission_time": time.isoformat(), "score": (results or {}).get("score", 0), "results": results}


def _root(tmp_path: Path, previous: list, limits: str = "attempts: {per_period: 2, period_hours: 24}\n", **more):
    """A Gradescope root: the solutions submitted, its metadata, and a rubric with ``limits``."""
    subs.write(tmp_path / "submission", {})
    metadata = {"id": 9, "created_at": NOW.isoformat(), "previous_submissions": previous, **more}
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadata))
    rubric = tmp_path / "grading.yml"
    rubric.write_text(paths.RUBRIC.read_text() + limits + MADRID)
    return tmp_path, rubric


#: id: (earlier submissions, refused, the score kept)
GATES = {
    "two graded today": ([_previous(1, _results(40)), _previous(5, _results(60))], True, 40),
    "one graded, one ungradable": (
        [_previous(1, _results(0, gradescope_attempts.NOT_GRADED)), _previous(5, _results(60))],
        False,
        None,
    ),
    "one graded, one refused": (
        [_previous(1, _results(60, gradescope_attempts.OVER)), _previous(5, _results(60))],
        False,
        None,
    ),
    "the older one a period ago": ([_previous(1, _results(40)), _previous(24, _results(60))], False, None),
    "results of another grader": ([_previous(1, _results(40, None)), _previous(5, _results(60, None))], True, 40),
    "another grader's empty results": (
        [_previous(1, {"score": 0, "tests": []}), _previous(5, _results(60))],
        False,
        None,
    ),
    "a refusal without our marker": (
        [_previous(1, _results(60, None, attempts.REFUSED + " ...")), _previous(5, _results(60))],
        False,
        None,
    ),
    "a failed run (no results)": ([_previous(1, None), _previous(5, _results(60))], False, None),
}


@pytest.mark.parametrize("case", GATES.values(), ids=GATES.keys())
def test_gradescope_gate(case, tmp_path):
    """Allowed 2 graded attempts a day: is a submission refused exactly when two earlier ones were
    graded in the last 24 hours (ungradable ones, refusals and failed runs not counted, with our
    marker or without it), keeping the last graded attempt's score and tests under the message?"""
    previous, refused, score = case
    root, rubric = _root(tmp_path, previous)
    log: list[str] = []
    document = gradescope_attempts.gate(root, rubric, log.append, lab=default_lab())
    assert (document is not None) == refused, log
    if refused:
        assert document["score"] == score and document["tests"] == previous[0]["results"]["tests"]
        assert document["output"].startswith(attempts.REFUSED) and "Europe/Madrid" in document["output"]
        assert document["extra_data"] == {gradescope_attempts.ATTEMPT: gradescope_attempts.OVER}
        assert "over the limit" in log[-1]


def test_gradescope_refusal_runs_no_code(tmp_path):
    """Over the total: does run_autograder's entry write the refusal (the solutions would score
    100: it keeps the last graded 40) without grading anything?"""
    root, rubric = _root(tmp_path, [_previous(30, _results(40))], "attempts: {total: 1}\n")
    log: list[str] = []
    document = entry.run(root, rubric_path=rubric, log=log.append)
    written = json.loads((root / "results" / "results.json").read_text())
    assert written == document and document["score"] == 40 and "no graded attempt left" in document["output"]
    assert not any("isolation" in line for line in log)  # no session opened, no child started


#: id: (how the metadata file is broken, what the warning names)
MALFORMED = {
    "missing": (lambda path: path.unlink(), "cannot be read"),
    "not JSON": (lambda path: path.write_text("{not json"), "is not JSON"),
    "a list": (lambda path: path.write_text("[]"), "top level is not an object"),
    "no created_at": (lambda path: path.write_text(json.dumps({"previous_submissions": []})), "created_at"),
    "a time without offset": (
        lambda path: path.write_text(json.dumps({"created_at": "2026-12-02T14:00:00", "previous_submissions": []})),
        "created_at: '2026-12-02T14:00:00' is not a submission time",
    ),
    "previous not a list": (
        lambda path: path.write_text(json.dumps({"created_at": NOW.isoformat(), "previous_submissions": {}})),
        "previous_submissions is not a list",
    ),
    "an entry without its time": (
        lambda path: path.write_text(
            json.dumps({"created_at": NOW.isoformat(), "previous_submissions": [{"score": 3}]})
        ),
        "previous_submissions[0].submission_time",
    ),
}


@pytest.mark.parametrize("case", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_metadata_grades_normally_with_a_warning(case, tmp_path):
    """Metadata that cannot be counted (missing, not JSON, a time without its offset...): is the
    submission graded (the gate lets it through) and the instructor's log told what is wrong?"""
    breaks, named = case
    root, rubric = _root(tmp_path, [_previous(1, _results(40)), _previous(2, _results(40))])
    breaks(root / "submission_metadata.json")
    log: list[str] = []
    assert gradescope_attempts.gate(root, rubric, log.append, lab=default_lab()) is None
    assert len(log) == 1 and log[0].startswith("warning: attempt limits not applied") and named in log[0], log


@pytest.mark.sandbox
@pytest.mark.slow
def test_gradescope_attempts_in_sequence(tmp_path, cranfield):
    """One graded attempt a day, on the real entry point: the first attempt graded (and marked so),
    the second refused with the first's results, the third a day after the first graded again (the
    refusal did not count), and malformed metadata graded as usual."""
    root, rubric = _root(tmp_path, [], "attempts: {per_period: 1, period_hours: 24}\n")
    metadata = root / "submission_metadata.json"
    first = entry.run(root, rubric_path=rubric, log=lambda line: None)
    assert first["score"] == 100 and first["extra_data"] == {gradescope_attempts.ATTEMPT: "graded"}
    made = [_previous(2, first)]
    metadata.write_text(json.dumps({"created_at": NOW.isoformat(), "previous_submissions": made}))
    second = entry.run(root, rubric_path=rubric, log=lambda line: None)
    assert second["output"].startswith(attempts.REFUSED) and second["tests"] == first["tests"]
    later = (NOW + datetime.timedelta(hours=22)).isoformat()
    made.append({"submission_time": NOW.isoformat(), "score": second["score"], "results": second})
    metadata.write_text(json.dumps({"created_at": later, "previous_submissions": made}))
    third = entry.run(root, rubric_path=rubric, log=lambda line: None)
    assert third["score"] == 100 and third["extra_data"][gradescope_attempts.ATTEMPT] == "graded"
    metadata.write_text("{broken")
    log: list[str] = []
    fourth = entry.run(root, rubric_path=rubric, log=log.append)
    assert fourth["score"] == 100 and any(line.startswith("warning: attempt limits not applied") for line in log)


# ---------------------------------------------------------------- PrairieLearn


#: id: (the rubric's attempts, gradeRateMinutes written (None: none), what the build notes)
RATES = {
    "none": ("", None, []),
    "3 a day": ("attempts: {per_period: 3, period_hours: 24}\n", 480, ["became one every 480 minutes"]),
    "1 an hour": ("attempts: {per_period: 1, period_hours: 1}\n", 60, []),
    "7 an hour (rounded up)": ("attempts: {per_period: 7, period_hours: 1}\n", 9, ["one every 9 minutes"]),
    "a total only": ("attempts: {total: 5}\n", None, ["the total of 5 is not applied there"]),
}


@pytest.mark.parametrize("case", RATES.values(), ids=RATES.keys())
def test_prairielearn_grade_rate(case):
    """Does the sample infoAssessment.json's question wait gradeRateMinutes between gradings (the
    period shared evenly, rounded up), and does the build say what PrairieLearn cannot apply?"""
    extra, minutes, said = case
    rubric = _rubric(extra)
    question = prairielearn.assessment(rubric, default_lab())["zones"][0]["questions"][0]
    assert question.get("gradeRateMinutes") == minutes
    notes = prairielearn.notes(rubric)
    # then what PrairieLearn never applies, of what the rubric sets
    assert notes[len(said) :] == setting_support.notes("prairielearn", setting_support.unset(rubric))
    assert all(part in note for part, note in zip(said, notes, strict=False))


# ---------------------------------------------------------------- a local batch


def _result(submission: str, *emails: str, graded: bool = True, sid: str = "") -> SubmissionResult:
    students = tuple(Student(email.split("@")[0], email, sid) for email in emails) or (
        (Student("", "", sid),) if sid else ()
    )
    return SubmissionResult(submission, Status.GRADED if graded else Status.ERROR, students=students)


def _at(hours: float) -> str:
    return (NOW + datetime.timedelta(hours=hours)).isoformat()


#: id: (results, their submission times from Gradescope's metadata, the submissions flagged)
BATCHES = {
    "one a day, twice in an hour": (
        [_result("a1", "ann@x.edu"), _result("a2", "ann@x.edu")],
        {"a1": _at(0), "a2": _at(1)},
        ["a2"],
    ),
    "one a day, a day apart": (
        [_result("a1", "ann@x.edu"), _result("a2", "ann@x.edu")],
        {"a1": _at(0), "a2": _at(24)},
        [],
    ),
    "the first ungradable": (
        [_result("a1", "ann@x.edu", graded=False), _result("a2", "ann@x.edu")],
        {"a1": _at(0), "a2": _at(1)},
        [],
    ),
    "over the limit does not count either": (
        [_result("a1", "ann@x.edu"), _result("a2", "ann@x.edu"), _result("a3", "ann@x.edu")],
        {"a1": _at(0), "a2": _at(1), "a3": _at(24.5)},
        ["a2"],
    ),
    "a group's submission counts for each member": (
        [_result("g1", "ann@x.edu", "bob@x.edu"), _result("b2", "BOB@x.edu ")],
        {"g1": _at(0), "b2": _at(2)},
        ["b2"],
    ),
    "one student by email, then by SID alone": (
        [_result("a1", "ann@x.edu", sid="007"), _result("a2", sid="007")],
        {"a1": _at(0), "a2": _at(1)},
        ["a2"],
    ),
    "other students": ([_result("a1", "ann@x.edu"), _result("b1", "bob@x.edu")], {"a1": _at(0), "b1": _at(0)}, []),
    "no time, not checked": ([_result("a1", "ann@x.edu"), _result("a2", "ann@x.edu")], {"a1": _at(0)}, []),
    "no students, not checked": ([_result("a1"), _result("a2")], {"a1": _at(0), "a2": _at(1)}, []),
}


def _timed(results: list, times: dict, origin: str = intake.METADATA_TIME) -> tuple:
    return tuple(
        replace(result, submitted=times[result.submission], submitted_from=origin)
        if result.submission in times
        else result
        for result in results
    )


@pytest.mark.parametrize("case", BATCHES.values(), ids=BATCHES.keys())
def test_local_batch_flags_what_is_over_the_limit(case):
    """One graded attempt a day: is each submission a platform would have refused flagged (kept in
    the batch with its grade), by student as the standing says who is who, in submission order?"""
    results, times, expected = case
    flagged = attempts.with_flags(_timed(results, times), attempts.AttemptLimits(per_period=1), "Europe/Madrid")
    assert [result.submission for result in flagged] == [result.submission for result in results]
    said = {result.submission: flag.text for result in flagged for flag in result.flags if flag.kind == "attempts"}
    assert sorted(said) == expected
    assert all("over the attempt limit (1 graded attempt in any 24 hours)" in text for text in said.values())


def test_files_times_are_not_checked_and_old_flags_are_replaced():
    """Are submissions timed by their files' modification times left unchecked (copying changes
    them), and is a flag from an earlier run replaced, not repeated, or dropped when no longer over?"""
    results = [_result("a1", "ann@x.edu"), _result("a2", "ann@x.edu")]
    limits = attempts.AttemptLimits(per_period=1)
    by_files = attempts.with_flags(_timed(results, {"a1": _at(0), "a2": _at(1)}, intake.FILE_TIME), limits)
    assert not any(result.flags for result in by_files)
    once = attempts.with_flags(_timed(results, {"a1": _at(0), "a2": _at(1)}), limits)
    again = attempts.with_flags(once, limits)
    assert again == once and [len(result.flags) for result in again] == [0, 1]
    assert not any(result.flags for result in attempts.with_flags(once, attempts.AttemptLimits()))


def test_gradescope_export_times_are_read(tmp_path):
    """Does a Gradescope export's submission_metadata.yml give each submission its :created_at?"""
    for name in ("submission_1", "submission_2", "submission_3"):
        subs.write(tmp_path / name, {})
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :name: Ann\n  :created_at: 2026-11-30 12:00:00.000000000 -08:00\n"
        "submission_2:\n  :created_at: [not, a, time]\n"
        "submission_3:\n  :submitters: []\n"
    )
    sources = intake.discover([tmp_path], lab=default_lab())
    assert sources[0].submitted == "2026-11-30T12:00:00-08:00"
    assert [source.submitted_from for source in sources] == [intake.METADATA_TIME, "", ""]
    assert attempts.parse_time(sources[0].submitted) == datetime.datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
