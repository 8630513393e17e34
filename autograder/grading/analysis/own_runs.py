"""The student's own runs, where a claim says so: ``runs: {bm25: my_bm25.run}`` names a run file of
the submission that the claim's facts about that system are checked against, instead of Lab 04's
reference run.

A run file is untrusted input, read as data and never executed: found by the intake's rules (never
through a symbolic link, at most ``intake.MAX_FILE`` bytes, ``MAX_LINES`` lines), parsed by the
engine's TREC reader (``labkit/trec.py``: six columns split on any whitespace, a finite score) with
every malformed line refused by its number, ranked as ``ir_measures`` ranks (score descending, ties
by doc id descending, a doc listed twice keeps its last score), and evaluated by the lab's own
reference measures (``lab.measures``). A missing or malformed run refuses the claims that name it,
saying which file and line; it never stops the other claims.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from autograder.errors import InputError
from autograder.grading import intake
from autograder.labkit import trec
from autograder.labkit.lab import Lab

MAX_LINES = 250_000  # 225 queries x 1,000 documents fit; a run file is not larger
RUN_LINE = "query_id Q0 doc_id rank score system_name"

#: ``(measure, qrels, run) -> {query: value}``: the lab's reference measure of a run, per query
Measure = Callable[[str, Mapping[str, Mapping[str, int]], Mapping[str, Mapping[str, float]]], Mapping[str, float]]


class RunError(InputError):
    """A run file a claim names is missing or malformed: the message names the file and the line."""


@dataclass(frozen=True)
class OwnRun:
    """A student's run file as ``ir_measures`` reads it: query -> doc -> score."""

    name: str
    scores: Mapping[str, Mapping[str, float]]

    def ranking(self, query: str) -> list[str]:
        """The documents retrieved for ``query``, best first, as ``ir_measures`` orders them."""
        docs = self.scores.get(query, {})
        return [doc for doc, _ in sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def parse(data: bytes, name: str) -> OwnRun:
    """The run in ``data`` (the file ``name``); ``RunError`` naming the first line that is not a run's."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise RunError(f"{name}, line {line}: byte {error.start} is not UTF-8; save the run as UTF-8 text") from None
    rows = trec.numbered_rows(text, MAX_LINES + 1)
    if len(rows) > MAX_LINES:
        raise RunError(f"{name}: has more than {MAX_LINES:,} lines; a run of Cranfield has at most 1,000 a query")
    scores: dict[str, dict[str, float]] = {}
    for number, columns in rows:
        if len(columns) != trec.COLUMNS:
            raise RunError(
                f"{name}, line {number}: {len(columns)} columns; a run's line has {trec.COLUMNS}: {RUN_LINE} "
                "(one line per retrieved document)"
            )
        value = trec.score(columns[4])
        if value is None:
            raise RunError(f"{name}, line {number}: the score {columns[4][:40]!r} is not a finite number")
        scores.setdefault(columns[0], {})[columns[2]] = value
    if not scores:
        raise RunError(f"{name}: has no line of a run ({RUN_LINE}): hand in the run file your code wrote")
    return OwnRun(name=name, scores=scores)


@dataclass(frozen=True)
class RunSource:
    """Where a claim's own runs come from (``read``: a run file's name -> its bytes, ``RunError`` when
    it cannot be had) and how they are measured (``measure``)."""

    read: Callable[[str], bytes]
    measure: Measure

    def run(self, name: str) -> OwnRun:
        return parse(self.read(name), name)


def lab_measure(measures: ModuleType) -> Measure:
    """The lab's reference measures (``lab.measures``: ``CRANFIELD``'s labels, ``ir_measures_values``)."""

    def measure(
        label: str, qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Mapping[str, float]]
    ) -> Mapping[str, float]:
        values: Mapping[str, float] = measures.ir_measures_values(measures.CRANFIELD[label].ir_measure, qrels, run)
        return values

    return measure


def _missing(name: str, where: str) -> RunError:
    return RunError(
        f"the run file {name} is not in {where}: submit it beside analysis.yml, or remove the claim's runs: to "
        "check it against Lab 04's reference runs"
    )


def in_submission(source: intake.Source, lab: Lab) -> RunSource:
    """Run files of a submission (a folder or a zip), found and read by the intake's rules."""

    def read(name: str) -> bytes:
        staged = intake.read_other(source, name, lab)
        if name not in staged.files:
            said = [problem for problem in staged.problems if not problem.startswith(f"no {name} found")]
            if said:
                raise RunError(f"the run file {name} was not read: {'; '.join(said)}")
            raise _missing(name, "the submission")
        return staged.files[name]

    return RunSource(read=read, measure=lab_measure(lab.measures))


def in_folder(folder: Path, lab: Lab) -> RunSource:
    """Run files beside an analysis file on disk (``python -m autograder analysis FILE``): never
    through a symbolic link, at most ``intake.MAX_FILE`` bytes."""

    def read(name: str) -> bytes:
        path = Path(folder) / name
        try:
            info = os.lstat(path)
        except OSError:
            raise _missing(name, str(folder)) from None
        if not stat.S_ISREG(info.st_mode):
            raise RunError(f"the run file {name} is a symbolic link or not a regular file: give the file itself")
        if info.st_size > intake.MAX_FILE:
            raise RunError(f"the run file {name} is larger than {intake.MAX_FILE >> 10} KiB: it was not read")
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(descriptor, "rb") as handle:
            return handle.read(intake.MAX_FILE + 1)

    return RunSource(read=read, measure=lab_measure(lab.measures))
