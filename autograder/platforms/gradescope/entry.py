"""What ``run_autograder`` calls in Gradescope's container: grade ``ROOT/submission`` into
``ROOT/results/results.json`` with the same session a local batch uses (``grading.oneshot``:
the machine's facts and the grader's log on stdout, which only instructors see, and a watchdog
on the overall time limit). When ``grading.yml`` limits attempts, ``attempts.gate`` first reads
``ROOT/submission_metadata.json``: a submission over the limit is not run, and keeps the last
graded attempt's results. With a ``deadline:`` in ``grading.yml``, ``lateness.read`` charges its
penalty by the times the same file vouches for (``created_at``, the due dates). With ``analysis:`` in
``grading.yml`` and an ``analysis.yml`` in the submission, results.json says its claims' verdicts in
a test worth 0 (``analysis.render_claims``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder import cache
from autograder.grading import intake
from autograder.labkit import load
from autograder.labkit.lab import Lab
from autograder.platforms.common import oneshot
from autograder.platforms.gradescope import analysis, attempts, lateness
from autograder.reports import gradescope_json
from autograder.sandbox.isolation import DEFAULT_UID


def run(
    root: Path = Path("/autograder"),
    isolation: str = "auto",
    uid: int = DEFAULT_UID,
    python: str | None = None,
    rubric_path: Path | None = None,
    log: Callable[[str], None] = print,
    lab: Lab | None = None,
) -> dict[str, Any]:
    """Grade ``ROOT/submission`` into ``ROOT/results/results.json`` (replacing whatever is
    there). If the grader itself cannot run, or runs out of time, the file says so and scores 0. ``lab``:
    the lab shipped beside the grader (default: the environment's, loaded here: an entry point composes)."""
    lab = lab if lab is not None else load.default()
    rubric_path = rubric_path or lab.place.rubric
    results = Path(root) / "results"
    results.mkdir(parents=True, exist_ok=True)
    refused = attempts.gate(Path(root), rubric_path, log, lab=lab)
    if refused is not None:
        cache.write_json_atomic(results / "results.json", refused, mode=0o644)
        return refused
    source = intake.Source(id="submission", path=Path(root) / "submission")
    late = lateness.read(Path(root), rubric_path, log, lab=lab)
    return oneshot.grade_one(
        source,
        results / "results.json",
        analysis.render_claims(
            lateness.render_late(attempts.render_marked(functools.partial(gradescope_json.document, lab=lab)), late),
            Path(root),
            rubric_path,
            log,
            lab,
        ),
        attempts.failed_marked(gradescope_json.failed),
        isolation,
        uid,
        python,
        platform="Gradescope",
        log=log,
        rubric_path=rubric_path,
        lab=lab,
    )
