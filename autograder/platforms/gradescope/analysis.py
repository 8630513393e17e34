"""The written analysis on Gradescope: when ``grading.yml`` has ``analysis:`` and the submission
holds ``analysis.yml`` (found and read by the intake's rules), its claims are checked against the
data (the shipped Cranfield bundle: qrels, Lab 04's runs, per-query values) and results.json gains
one test worth 0 points saying each claim's verdict, for the student and the people who grade the
analysis in its own manually graded question (``build.checklist``). It never changes the code's
score; any failure of the check leaves results.json as it was, with a line in the grader's log.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder.grading import intake
from autograder.grading import rubric as rubrics
from autograder.grading.analysis import claims, facts, own_runs
from autograder.grading.results import SubmissionResult
from autograder.labkit.lab import Lab

FILE = "analysis.yml"
NAME = "written analysis: its claims checked against the data (graded by people, 0 points here)"


def claims_test(root: Path, rubric_path: Path, lab: Lab) -> dict[str, Any] | None:
    """The results.json test of the submission's analysis.yml (None: no analysis section, or no file)."""
    points = rubrics.load(rubric_path, lab).analysis
    if points is None:
        return None
    submission = intake.Source(id="submission", path=Path(root) / "submission")
    staged = intake.read_other(submission, FILE, lab)
    if FILE not in staged.files:
        return None
    known = facts.Facts.from_bundle(lab.cranfield.bundle())
    try:
        analysis = claims.parse(staged.files[FILE].decode("utf-8"), known.names(), FILE)
        verdicts = facts.check(analysis, known, own_runs.in_submission(submission, lab))
        said = [f"- {v.title()}: " + ("holds" if v.holds else "; ".join(v.problems)) for v in verdicts]
        held = points.claims_score(verdicts)
        output = "\n".join(
            [f"Claims: {held:g} / {points.claims_max:g} points, given in the analysis's question.", *said]
        )
        passed = all(verdict.holds for verdict in verdicts[: points.claims])
    except (claims.AnalysisError, UnicodeDecodeError) as error:
        output, passed = f"{error}: correct analysis.yml and submit again.", False
    return {
        "name": NAME,
        "score": 0.0,
        "max_score": 0.0,
        "status": "passed" if passed else "failed",
        "output": output,
        "visibility": "visible",
    }


def render_claims(
    render: Callable[[SubmissionResult], dict[str, Any]],
    root: Path,
    rubric_path: Path,
    log: Callable[[str], None],
    lab: Lab,
) -> Callable[[SubmissionResult], dict[str, Any]]:
    """``render`` with the analysis's test appended to its tests (``render`` itself when there is none)."""
    try:
        test = claims_test(root, rubric_path, lab)
    except Exception as error:  # the analysis never costs the code's results: said to the instructor only
        log(f"the written analysis was not checked: {type(error).__name__}: {error}")
        return render
    if test is None:
        return render

    def rendered(result: SubmissionResult) -> dict[str, Any]:
        document = render(result)
        document["tests"] = [*document.get("tests", []), test]
        return document

    return rendered
