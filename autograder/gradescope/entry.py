"""What ``run_autograder`` calls in Gradescope's container: grade ``ROOT/submission`` into
``ROOT/results/results.json`` with the same session a local batch uses."""

from __future__ import annotations

import tempfile
import time
import traceback
from pathlib import Path

from autograder import cache, paths
from autograder.grading import intake
from autograder.grading.session import Session
from autograder.reports import gradescope_json
from autograder.sandbox.isolation import DEFAULT_UID


def run(
    root: Path = Path("/autograder"), isolation: str = "auto", uid: int = DEFAULT_UID, python: str | None = None
) -> dict:
    """Grade ``ROOT/submission`` into ``ROOT/results/results.json`` (replacing whatever is
    there). If the grader itself cannot run, the file says so and scores 0."""
    started = time.monotonic()
    results = Path(root) / "results"
    results.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix="lab05-gradescope-") as folder:
            session = Session.open(paths.RUBRIC, isolation, uid, python, Path(folder))
            source = intake.Source("submission", Path(root) / "submission")
            document = gradescope_json.document(session.grade(source, 0))
    except Exception as error:  # the grader cannot run: say so on Gradescope, never a blank page
        document = {
            "score": 0,
            "execution_time": round(time.monotonic() - started, 3),
            "tests": [],
            "output": f"The autograder could not run ({type(error).__name__}: {error}). Your instructor "
            "has been told; your submission was not graded.",
            "extra_data": {"traceback": traceback.format_exc()[-4000:]},
        }
    cache.write_json_atomic(results / "results.json", document, mode=0o644)
    return document
