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

from autograder import archive
from autograder.grading.rubric import Rubric
from autograder.labkit.lab import Lab
from autograder.platforms.common import setting_support, shipment

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: autograder.zip's own mode: it holds the answers, so owner-only (like a batch's out/).
PRIVATE = 0o600


def build(target: Path, lab: Lab, rubric_path: Path | None = None) -> Path:
    """Write ``autograder.zip`` for ``lab`` at ``target``, shipping the rubric at ``rubric_path`` (by
    default the lab's grading.yml) and the course secret beside it."""
    entries = shipment.source_entries(lab, rubric_path)
    entries.append(("run_autograder", (TEMPLATES / "run_autograder").read_bytes(), 0o755))
    return archive.write_zip(target, entries, mode=PRIVATE)


def notes(missing: Collection[str] = ()) -> list[str]:
    """What the build says of the settings Gradescope cannot apply in full (``setting_support``),
    but those the rubric leaves out (``missing``, ``setting_support.unset``)."""
    return setting_support.notes("gradescope", missing)


def checklist(rubric: Rubric) -> list[str]:
    """What the instructor sets up by hand on Gradescope for the written analysis (``grading.yml``'s
    ``analysis:``; nothing without it): a manually graded question beside the autograder's, and its rubric."""
    points = rubric.analysis
    if points is None:
        return []
    claims = ", ".join(f"claim {number} holds ({points.claim_points:g})" for number in range(1, points.claims + 1))
    return [
        f"the written analysis ({points.total:g} points) is graded by people, apart from the autograder's "
        f"{rubric.total:g}: in the assignment's Edit Outline, add a question 'Written analysis' worth "
        f"{points.total:g} points beside the autograder's (students upload analysis.yml and analysis.md with their "
        "code; the autograder ignores them)",
        f"its rubric (Grade Submissions, Written analysis): {claims}, and the prose, up to {points.prose_points:g} "
        "(names the documents one system finds and the other misses; connects them to the words; connects the "
        "rankings to the measure's difference)",
        "the autograder adds a test worth 0 points with each claim's verdict when a submission holds analysis.yml "
        "(or run `python -m autograder analysis analysis.yml`); docs/ANALYSIS.md says how the analysis is graded",
    ]
