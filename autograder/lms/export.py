"""``python -m autograder export``: a graded batch into an LMS's gradebook import.

``FORMATS``: every LMS of ``registry.MODULES``, loaded. ``build`` reads the roster (the LMS's own
gradebook export, so the ids, sections and column ids come from the LMS) and the batch, matches
them (``roster.match``) and renders the import; ``export`` also writes it. Every choice made and
everything left out is in ``Export.messages`` (the command prints them on stderr).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from autograder import cache
from autograder.errors import InputError
from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.course import standing
from autograder.grading.results import points
from autograder.lms import batch_results, registry, roster, tables
from autograder.reports import analysis_grades, output_paths

FORMATS: dict[str, roster.Format] = {
    name: importlib.import_module(module).FORMAT for name, module in registry.MODULES.items()
}


#: What to do about people of the batch sharing an SID or an email (``standing.shared_identities``).
SHARED_ADVICE = (
    ": each keeps their own grade, matched to the roster by their other identifier only (else left out, "
    "listed above): correct the SID or email in the roster or where the submissions' metadata comes from, "
    "run the class step again and export again"
)


@dataclass(frozen=True)
class Export:
    text: str  # the import file
    messages: tuple[str, ...]  # for the instructor: choices made, what was left out and why
    summary: str


def build(
    lms: str,
    roster_path: Path,
    batch_dir: Path,
    column: str | None = None,
    suffix: str = ".csv",
    analysis: AnalysisPoints | None = None,
) -> Export:
    """The import file for ``lms`` (a key of ``FORMATS``) filling ``column`` (a grade column of the
    roster, or a part of its name; the roster's only one by default); ``suffix`` is the output
    file's (Blackboard: ``.csv`` is comma-delimited, anything else tab-delimited). With ``analysis``
    (``grading.yml``'s points of it), the written analysis's points from the batch's grading sheet
    (``OUT/analysis.csv``) instead of the code's."""
    if lms not in FORMATS:
        raise InputError(f"unknown LMS {lms!r}: choose one of {', '.join(sorted(FORMATS))}")
    form = FORMATS[lms]
    batch = batch_results.read(batch_dir)
    gradebook = form.read(tables.read(roster_path))
    if not gradebook.people:
        raise InputError(f"{gradebook.table.source} lists no students: export the gradebook from {form.name} again")
    chosen, notes = roster.pick(gradebook, form, column)
    found = standing.build(batch.results, batch.policy)
    sheet = None
    if analysis is not None:
        sheet = analysis_grades.merged(
            batch_dir,
            [result.submission for result in batch.results],
            analysis,
            {result.submission: result.students for result in batch.results},
        )
        if sheet is None:
            raise InputError(
                f"{batch_dir} has no {output_paths.ANALYSIS_SHEET}: write it with python -m autograder "
                "analysis-sheet PATH... --out DIR, have it filled in, then export again"
            )
    matching = roster.match(gradebook, found, sheet)
    most = analysis.total if analysis is not None else max(result.max_score for result in batch.results)
    if chosen.points is not None and abs(chosen.points - most) > 1e-6:
        notes.append(
            f"points: {chosen.header!r} is worth {points(chosen.points)} points in {form.name}, the grades are out of "
            f"{points(most)}: change the column's points possible, or the grades will read as out of "
            f"{points(chosen.points)}"
        )
    messages = (
        *batch.notes,
        *gradebook.notes,
        *notes,
        *matching.messages,
        *(f"shared: {line}{SHARED_ADVICE}" for line in standing.shared_identities(batch.results)),
        *roster.key_notes(gradebook, matching.cells),
    )
    people = len(gradebook.people)
    summary = (
        f"{form.name} import for {chosen.header!r}: {matching.graded} of {people} roster students graded, "
        f"{people - matching.graded} left empty; {len(found.rows)} students in {len(batch.results)} submissions "
        f"({standing.POLICIES[found.policy]} counts), {matching.unmatched} matching nobody in the roster"
    )
    return Export(form.render(gradebook, chosen, matching.cells, suffix), messages, summary)


def export(
    lms: str,
    roster_path: Path,
    batch_dir: Path,
    out: Path,
    column: str | None = None,
    analysis: AnalysisPoints | None = None,
) -> Export:
    """``build``, then write the import file to ``out`` (atomically; never over the roster)."""
    roster_path, out = Path(roster_path), Path(out)
    if out.exists() and roster_path.exists() and out.resolve() == roster_path.resolve():
        raise InputError(f"--out {out} is the roster itself: write the import to another file")
    result = build(lms, roster_path, batch_dir, column, out.suffix, analysis)
    cache.write_atomic(out, result.text.encode("utf-8"), 0o600)
    return result
