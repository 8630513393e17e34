"""Gradescope: a grade as its ``results.json`` (top-level ``score``, ``execution_time``,
``output``, and one test per check with ``name``, ``score``, ``max_score``, ``status``,
``output`` and ``visibility``), and ``run``, what ``run_autograder`` calls in its container."""

from __future__ import annotations

import tempfile
import time
import traceback
from pathlib import Path

from autograder import cache, feedback, layout
from autograder.results import SubmissionResult

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def results_json(result: SubmissionResult) -> dict:
    """The ``results.json`` document (a dict ready for ``json.dump``)."""
    tests = []
    for number, check in enumerate(result.checks, start=1):
        tests.append({
            "name": check.name,
            "number": f"{check.question[1:] if check.question[1:].isdigit() else check.question}.{number}",
            "score": round(check.score, 4),
            "max_score": check.max_score,
            "status": "passed" if check.score >= check.max_score else "failed",
            "output": feedback.check_text(check),
            "output_format": "text",
            "visibility": check.visibility,
            "tags": [check.question, check.function],
        })
    return {
        "score": result.score,
        "execution_time": round(result.execution_time, 3),
        "output": feedback.summary_text(result),
        "output_format": "text",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def run(root: Path = Path("/autograder"), isolation: str = "auto", uid: int = 64000,
        python: str | None = None) -> dict:
    """Grade ``ROOT/submission`` into ``ROOT/results/results.json`` (replacing whatever is
    there). If the grader itself cannot run, the file says so and scores 0."""
    from autograder import batch, submission

    started = time.monotonic()
    results = Path(root) / "results"
    results.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix="lab05-gradescope-") as folder:
            context, _ = batch.prepare(layout.RUBRIC, isolation, uid, python, Path(folder))
            source = submission.Source("submission", Path(root) / "submission")
            document = results_json(batch.grade_safely(source, context, 0))
    except Exception as error:  # the grader cannot run: say so on Gradescope, never a blank page
        document = {"score": 0, "execution_time": round(time.monotonic() - started, 3), "tests": [],
                    "output": f"The autograder could not run ({type(error).__name__}: {error}). Your instructor "
                              "has been told; your submission was not graded.",
                    "extra_data": {"traceback": traceback.format_exc()[-4000:]}}
    cache.write_json_atomic(results / "results.json", document, mode=0o644)
    return document
