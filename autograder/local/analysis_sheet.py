"""The written analysis's grading sheet for a class: ``OUT/analysis.csv``, a row per submission,
its claims already checked against the data (``grading/analysis/``) and its prose for a TA to grade.

``write`` makes the sheet from the submissions (the same PATHs as ``grade``), writes each submission's
``analysis-feedback.md`` for its student (the claims' points and verdicts), and keeps what a TA
already wrote in it (``prose_points``, ``comment``, ``grader``) when it is made again, so a regrade
never loses a TA's work. ``reports/analysis_grades.py`` reads it back, for grades.csv and the LMS
exports.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from autograder import cache
from autograder.grading import intake
from autograder.grading.analysis import claims, facts, own_runs
from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.results import points as shown
from autograder.labkit.lab import Lab
from autograder.reports import analysis_grades, output_paths, untrusted

FILE = "analysis.yml"  # the file of a submission the claims are read from


def claims_of(
    source: intake.Source, known: facts.Facts, rubric_points: AnalysisPoints, lab: Lab
) -> tuple[float, tuple[str, ...]]:
    """A submission's claims points and what explains them, a sentence each (why 0, or each claim's verdict)."""
    staged = intake.read_other(source, FILE, lab)
    if FILE not in staged.files:
        said = [problem for problem in staged.problems if not problem.startswith(f"no {FILE} found")]
        return 0.0, (f"no {FILE} read: " + ("; ".join(said) or "the submission has none"),)
    try:
        analysis = claims.parse(staged.files[FILE].decode("utf-8"), known.names(), source=FILE)
    except (claims.AnalysisError, UnicodeDecodeError) as error:
        return 0.0, (str(error),)
    verdicts = facts.check(analysis, known, own_runs.in_submission(source, lab))
    said = [f"{v.title()}: " + ("holds" if v.holds else "; ".join(v.problems)) for v in verdicts]
    beyond = len(verdicts) - rubric_points.claims
    if beyond > 0:
        said.append(f"claims after the first {rubric_points.claims} count for nothing ({beyond} more)")
    return rubric_points.claims_score(verdicts), tuple(said)


def feedback(score: float, said: tuple[str, ...], rubric_points: AnalysisPoints) -> str:
    """``OUT/submissions/<id>/analysis-feedback.md``: the claims' points and each verdict, for the student
    (made only of their own file and public data)."""
    lines = [
        "# Your written analysis: its claims checked against the data",
        "",
        f"**Claims: {shown(score)} / {shown(rubric_points.claims_max)}** (the prose, out of "
        f"{shown(rubric_points.prose_points)}, is graded by people)",
        "",
        *(f"- {untrusted.markdown(sentence)}" for sentence in said),
    ]
    return "\n".join(lines) + "\n"


def write(
    out: Path, sources: Sequence[intake.Source], known: facts.Facts, rubric_points: AnalysisPoints, lab: Lab
) -> Path:
    """``OUT/analysis.csv`` for ``sources``, keeping the TA's cells of a sheet already there."""
    path = Path(out) / output_paths.ANALYSIS_SHEET
    students = {source.id: source.students for source in sources}
    kept = analysis_grades.ta_cells(path, students, students) if path.exists() else {}
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(analysis_grades.COLUMNS)
    for source in sorted(sources, key=lambda source: source.id):
        score, said = claims_of(source, known, rubric_points, lab)
        folder = output_paths.submission_folder(out, source.id)
        folder.mkdir(parents=True, exist_ok=True)
        told = feedback(score, said, rubric_points).encode()
        cache.write_atomic(folder / output_paths.ANALYSIS_FEEDBACK, told, 0o644)
        ta = kept.get(source.id, {})
        people = source.students
        writer.writerow(
            untrusted.csv_row(
                [
                    source.id,
                    "; ".join(student.name for student in people),
                    "; ".join(student.email for student in people),
                    "; ".join(student.sid for student in people),
                    shown(score),
                    shown(rubric_points.claims_max),
                    " | ".join(said),
                    ta.get("prose_points", ""),
                    shown(rubric_points.prose_points),
                    ta.get("comment", ""),
                    ta.get("grader", ""),
                ]
            )
        )
    Path(out).mkdir(parents=True, exist_ok=True)
    cache.write_atomic(path, text.getvalue().encode(), 0o644)
    return path
