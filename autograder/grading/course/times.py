"""Where a submission's time comes from: only from someone who vouches for it.

A submission is late only by a time a platform or the instructor vouches for:

- ``metadata`` (the default): Gradescope's ``:created_at`` in an export's
  ``submission_metadata.yml`` (read by ``intake.discover``); a submission without one has no
  trusted time and is counted on time;
- ``FILE.csv``: the instructor's table of times, a header ``submission,time`` and a row per
  submission (its folder's or zip's name, or its id) with its time as ``grading.yml`` writes
  one (``deadlines.parse``; without an offset, in the course's timezone): it replaces the
  metadata's time of the submissions it names;
- ``files``: the files' modification times, for the submissions without a metadata time, when
  the instructor says they can be trusted (unzipping or copying sets them to that moment).

The files' times are never read unless the instructor names ``files``: a folder unpacked from
a zip would otherwise be "late" by the time it was unpacked. The batch says how many submissions
had no trusted time (``untimed``).
"""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.errors import InputError
from autograder.grading import intake
from autograder.grading.course import deadlines
from autograder.labkit.lab import Lab

METADATA = "metadata"
FILES = "files"
ALLOWED = (
    f"{METADATA} (Gradescope's created_at, the default), {FILES} (trust the files' modification times) "
    "or FILE.csv (a table with the header submission,time)"
)
CSV_TIME = "the instructor's times file"
HEADER = ("submission", "time")
MAX_TIMES_FILE = 4 << 20  # bytes of a times file that are read


@dataclass(frozen=True)
class TimeSource:
    """The source the instructor names: ``kind`` METADATA, FILES or "csv" (with its ``path``)."""

    kind: str = METADATA
    path: Path | None = None

    def words(self) -> str:
        """The source in words, for the report's facts."""
        if self.kind == FILES:
            return "the files' modification times where Gradescope's metadata has no created_at (--times files)"
        if self.kind == "csv":
            return f"{self.path} where it names the submission, else Gradescope's created_at"
        return "Gradescope's created_at only"


def parse(text: str | None) -> TimeSource:
    """The time source ``--times`` names; ``ValueError`` naming what is allowed for anything else."""
    if text is None or text == METADATA:
        return TimeSource()
    if text == FILES:
        return TimeSource(FILES)
    path = Path(text)
    if path.suffix.lower() == ".csv":
        if not path.is_file():
            raise InputError(f"--times {text}: no such file: name an existing CSV file with the header submission,time")
        return TimeSource("csv", path)
    raise InputError(f"--times {text!r} is not a source of submission times: use {ALLOWED}")


def read_csv(path: Path, tz: datetime.tzinfo | None) -> dict[str, str]:
    """Submission -> ISO 8601 time from a times file; ``ValueError`` naming the line and what to write."""
    data = path.read_bytes()[:MAX_TIMES_FILE]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"times file {path}: not UTF-8 text (byte {error.start}): save it as UTF-8 CSV") from None
    rows = list(csv.reader(io.StringIO(text)))
    header = tuple(cell.strip().lower() for cell in rows[0]) if rows else ()
    if header[:2] != HEADER:
        raise InputError(
            f"times file {path}: its first line is {','.join(header)!r}, expected {','.join(HEADER)!r}: add that "
            "header, then a row per submission (e.g. submission_7,2026-12-05 23:10)"
        )
    found: dict[str, str] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < 2:
            raise InputError(f"times file {path}, line {number}: {','.join(row)!r} has no time: write submission,time")
        name = row[0].strip()
        when = deadlines.parse(row[1], tz, f"times file {path}, line {number}: the time")
        if name in found:
            raise InputError(f"times file {path}, line {number}: {name} has a time already: keep one row for it")
        found[name] = deadlines.iso(when)
    return found


def apply(
    sources: Sequence[intake.Source], chosen: TimeSource, tz: datetime.tzinfo | None, lab: Lab
) -> list[intake.Source]:
    """``sources`` (of ``lab``: whose graded files' times ``files`` reads) with their times from ``chosen``
    (the module's rule); ``ValueError`` when a times file names no submission of the batch (a typo
    would otherwise leave a student untimed)."""
    if chosen.kind == FILES:
        return [
            replace(source, submitted=intake.file_time(source.path, lab), submitted_from=intake.FILE_TIME)
            if not source.submitted
            else source
            for source in sources
        ]
    if chosen.kind != "csv" or chosen.path is None:
        return list(sources)
    times = read_csv(chosen.path, tz)
    names = {name: source for source in sources for name in (source.id, source.path.name, source.path.stem)}
    unknown = sorted(name for name in times if name not in names)
    if unknown:
        raise InputError(
            f"times file {chosen.path} names {len(unknown)} submission(s) not in the batch: {', '.join(unknown[:10])}: "
            "write each submission's folder or zip name (without .zip)"
        )
    by_source = {names[name].id: when for name, when in times.items()}
    return [
        replace(source, submitted=by_source[source.id], submitted_from=CSV_TIME) if source.id in by_source else source
        for source in sources
    ]


def untimed(items: Iterable[intake.Source] | Iterable[object]) -> int:
    """How many of ``items`` (sources or results) have no trusted time."""
    return sum(not getattr(item, "submitted", "") for item in items)
