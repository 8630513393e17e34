"""Gradescope's ``autograder.zip``, reproducible (the same inputs give a byte-identical zip).

It unpacks into ``/autograder/source``: the shipped grader (``grading.shipment``: ``setup.sh``,
the engine, Cranfield, the rubric and, under ``hidden/``, the hidden reference and the
precomputed plan: the zip is uploaded privately, only the course's staff can download it) and
``run_autograder`` (grades ``/autograder/submission`` into ``/autograder/results/results.json``
with this same engine) from ``templates/``.
"""

from __future__ import annotations

from pathlib import Path

from autograder import archive
from autograder.labkit.lab import Lab
from autograder.platforms.common import setting_support, shipment

TEMPLATES = Path(__file__).resolve().parent / "templates"


def build(target: Path, lab: Lab) -> Path:
    """Write ``autograder.zip`` for ``lab`` at ``target``."""
    entries = shipment.source_entries(lab)
    entries.append(("run_autograder", (TEMPLATES / "run_autograder").read_bytes(), 0o755))
    return archive.write_zip(target, entries)


def notes() -> list[str]:
    """What the build says of the settings Gradescope cannot apply in full (``setting_support``)."""
    return setting_support.notes("gradescope")
