"""Gradescope's ``autograder.zip``, reproducible (the same inputs give a byte-identical zip).

It unpacks into ``/autograder/source``: the shipped grader (``grading.shipment``: ``setup.sh``,
the engine, Cranfield, the rubric and, under ``hidden/``, the hidden reference and the
precomputed plan: the zip is uploaded privately, only the course's staff can download it) and
``run_autograder`` (grades ``/autograder/submission`` into ``/autograder/results/results.json``
with this same engine) from ``templates/``.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from autograder import archive, paths
from autograder.platforms.common import setting_support, shipment

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: autograder.zip's own mode: it holds the answers, so owner-only (like a batch's out/).
PRIVATE = 0o600


def build(target: Path, rubric_path: Path | None = None) -> Path:
    """Write ``autograder.zip`` at ``target``, shipping the rubric at ``rubric_path`` (by default the
    lab's grading.yml) and the course secret beside it."""
    entries = shipment.source_entries(rubric_path or paths.RUBRIC)
    entries.append(("run_autograder", (TEMPLATES / "run_autograder").read_bytes(), 0o755))
    return archive.write_zip(target, entries, mode=PRIVATE)


def notes(missing: Collection[str] = ()) -> list[str]:
    """What the build says of the settings Gradescope cannot apply in full (``setting_support``),
    but those the rubric leaves out (``missing``, ``setting_support.unset``)."""
    return setting_support.notes("gradescope", missing)
