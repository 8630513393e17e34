"""Where submission times come from (``grading/course/times.py``): only a source someone vouches
for, Gradescope's created_at, the instructor's times file or, when named, the files' times."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys

import pytest

from autograder.grading import intake
from autograder.grading.course import times
from autograder.labkit.load import default as default_lab
from tests.support import subs

CHICAGO = datetime.timezone(datetime.timedelta(hours=-6))
UNZIPPED = datetime.datetime(2026, 12, 9, 3, 57, tzinfo=datetime.timezone.utc).timestamp()  # after the due date

SOURCES = {
    # id: (--times, the kind it names, or the start of the error)
    "none given: the metadata": (None, times.METADATA),
    "metadata": ("metadata", times.METADATA),
    "files, named": ("files", times.FILES),
    "a CSV file": ("times.csv", "csv"),
    "a missing CSV file": ("missing.csv", "error: no such file"),
    "an unknown word": ("mtime", "error: is not a source of submission times: use metadata"),
    "a file not CSV": ("times.txt", "error: is not a source of submission times: use metadata"),
}


@pytest.mark.parametrize("case", SOURCES.values(), ids=SOURCES.keys())
def test_a_time_source_is_one_of_those_allowed(case, tmp_path, monkeypatch):
    """Does --times name metadata, files or an existing CSV file, anything else a ValueError naming
    what is allowed?"""
    given, expected = case
    monkeypatch.chdir(tmp_path)
    (tmp_path / "times.csv").write_text("submission,time\n", encoding="utf-8")
    (tmp_path / "times.txt").write_text("submission,time\n", encoding="utf-8")
    if expected.startswith("error: "):
        with pytest.raises(ValueError) as raised:
            times.parse(given)
        words = expected.removeprefix("error: ").split(": ")
        assert all(word in str(raised.value) for word in words), raised.value
        assert given in str(raised.value)
    else:
        assert times.parse(given).kind == expected


TIMES_FILES = {
    # id: (the file's text, submission -> ISO time, or the words of the error)
    "an offset": ("submission,time\nsub_a,2026-12-06T01:00:00-06:00\n", {"sub_a": "2026-12-06T01:00:00-06:00"}),
    "no offset: the zone": ("submission,time\nsub_a,2026-12-05 23:10\n", {"sub_a": "2026-12-05T23:10:00-06:00"}),
    "capitals, a blank line": ("Submission,Time\n\nsub_a,2026-12-05 22:00\n", {"sub_a": "2026-12-05T22:00:00-06:00"}),
    "no header": ("sub_a,2026-12-05 23:10\n", "expected 'submission,time'"),
    "not a time": ("submission,time\nsub_a,yesterday\n", "line 2: the time 'yesterday' is not a date and time"),
    "no time": ("submission,time\nsub_a\n", "line 2: 'sub_a' has no time"),
    "twice": ("submission,time\nsub_a,2026-12-05 22:00\nsub_a,2026-12-05 23:00\n", "line 3: sub_a has a time already"),
}  # fmt: skip


@pytest.mark.parametrize("case", TIMES_FILES.values(), ids=TIMES_FILES.keys())
def test_a_times_file_is_read_or_refused_by_line(case, tmp_path):
    """Does a times file give each submission its time (in the course's zone without an offset), and
    is a bad one refused with the line and what to write?"""
    text, expected = case
    path = tmp_path / "times.csv"
    path.write_text(text, encoding="utf-8")
    if isinstance(expected, str):
        with pytest.raises(ValueError, match="times file") as raised:
            times.read_csv(path, CHICAGO)
        assert expected in str(raised.value), raised.value
    else:
        assert times.read_csv(path, CHICAGO) == expected


def _batch(tmp_path, metadata: bool):
    """Two submissions unpacked 'now' (their files' times after the due date); sub_a with
    Gradescope's created_at when ``metadata``."""
    for name in ("sub_a", "sub_b"):
        folder = subs.write(tmp_path / "in" / name, {})
        for file in folder.iterdir():
            os.utime(file, (UNZIPPED, UNZIPPED))
    if metadata:
        (tmp_path / "in" / "submission_metadata.yml").write_text(
            "sub_a:\n  :submitters:\n  - :name: Ada\n  :created_at: 2026-12-05 20:00:00.0 -06:00\n", encoding="utf-8"
        )
    return intake.discover([tmp_path / "in"], lab=default_lab())


APPLIED = {
    # id: (metadata?, --times, the times file, sub_a's (time, from), sub_b's (time, from))
    "no metadata, no source: untimed": (False, None, "", ("", ""), ("", "")),
    "metadata only: sub_b untimed": (True, None, "", ("2026-12-05T20:00:00-06:00", intake.METADATA_TIME), ("", "")),
    "files named: for those without metadata": (
        True, "files", "",
        ("2026-12-05T20:00:00-06:00", intake.METADATA_TIME), ("2026-12-09T03:57:00+00:00", intake.FILE_TIME),
    ),
    "a times file: replaces the metadata's": (
        True, "times.csv", "submission,time\nsub_a,2026-12-06 01:00\nsub_b,2026-12-05 12:00\n",
        ("2026-12-06T01:00:00-06:00", times.CSV_TIME), ("2026-12-05T12:00:00-06:00", times.CSV_TIME),
    ),
    "a times file naming one: the other keeps none": (
        False, "times.csv", "submission,time\nsub_b,2026-12-05 12:00\n",
        ("", ""), ("2026-12-05T12:00:00-06:00", times.CSV_TIME),
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", APPLIED.values(), ids=APPLIED.keys())
def test_each_submission_is_timed_only_by_a_source_vouched_for(case, tmp_path):
    """Does each submission get its time from the source the instructor names (Gradescope's
    created_at by default, never the files' times unless named), and does the batch count those
    left without one?"""
    metadata, given, text, first, second = case
    sources = _batch(tmp_path, metadata)
    if text:
        (tmp_path / "times.csv").write_text(text, encoding="utf-8")
    chosen = times.parse(str(tmp_path / given) if given == "times.csv" else given)
    timed = times.apply(sources, chosen, CHICAGO, lab=default_lab())
    assert [(source.submitted, source.submitted_from) for source in timed] == [first, second]
    assert times.untimed(timed) == [first[0], second[0]].count("")


def test_a_times_file_naming_no_submission_is_refused(tmp_path):
    """Is a times file that names a submission not in the batch (a typo) refused, naming it?"""
    sources = _batch(tmp_path, False)
    (tmp_path / "times.csv").write_text("submission,time\nsub_c,2026-12-05 12:00\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"names 1 submission.* not in the batch: sub_c"):
        times.apply(sources, times.parse(str(tmp_path / "times.csv")), CHICAGO, lab=default_lab())


def test_grade_with_an_unknown_time_source_exits_2_naming_the_allowed(tmp_path):
    """Does `grade --times` with an unknown source exit 2 before grading, naming the sources allowed?"""
    subs.write(tmp_path / "in" / "sub_a", {})
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(tmp_path / "in"), "--out", str(tmp_path / "out"),
         "--times", "mtime"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert "--times 'mtime' is not a source of submission times: use metadata" in run.stderr
    assert "FILE.csv" in run.stderr and "files" in run.stderr
    assert not (tmp_path / "out" / "submissions").exists()
