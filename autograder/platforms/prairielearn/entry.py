"""What the grader image's ``entrypoint`` calls in PrairieLearn's container: grade
``ROOT/student`` into ``ROOT/results/results.json`` in PrairieLearn's format with the same
session a local batch uses (``grading.oneshot``: the machine's facts and the grader's log on
stdout, the grading job's output that instructors see, and a watchdog on the overall limit)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from autograder.grading import intake
from autograder.labkit import load
from autograder.labkit.lab import Lab
from autograder.platforms.common import oneshot
from autograder.reports import prairielearn_json
from autograder.sandbox.isolation import DEFAULT_UID


def run(
    root: Path = Path("/grade"),
    isolation: str = "auto",
    uid: int = DEFAULT_UID,
    python: str | None = None,
    rubric_path: Path | None = None,
    lab: Lab | None = None,
) -> dict[str, Any]:
    """Grade ``ROOT/student`` into ``ROOT/results/results.json`` (replacing whatever is there).
    If the grader itself cannot run, or runs out of time, the file says so and scores 0. ``lab``: the
    lab shipped beside the grader (default: the environment's, loaded here: an entry point composes)."""
    lab = lab if lab is not None else load.default()
    rubric_path = rubric_path or lab.place.rubric
    results = Path(root) / "results"
    results.mkdir(parents=True, exist_ok=True)
    return oneshot.grade_one(
        intake.Source(id="student", path=Path(root) / "student"),
        results / "results.json",
        functools.partial(prairielearn_json.document, lab=lab),
        prairielearn_json.failed,
        isolation,
        uid,
        python,
        platform="PrairieLearn",
        rubric_path=rubric_path,
        lab=lab,
    )
