"""What a platform's grader ships (Gradescope's autograder.zip, PrairieLearn's grader image):
the files of its ``source`` folder, as reproducible ``(name, bytes, mode)`` entries.

``setup.sh`` (installs, creates the unprivileged user student code runs as, locks the grader's
files away from that user, from ``templates/``); ``requirements.txt``; the engine with its
hidden reference; ``grading.yml``; the handout's given files; the Cranfield files from the
local ir_datasets cache; the precomputed Cranfield bundle and the grading plan under the key
the shipped grader will look for, so grading downloads and recomputes nothing.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

from autograder import archive, cache, paths
from autograder.grading import plan as planning
from autograder.grading import reference, rubric
from autograder.lab import cranfield
from autograder.lab.solution import load_lab05
from autograder.lab.spec import GIVEN_FILES, GRADED_FILES

TEMPLATES = Path(__file__).resolve().parent / "templates"
SETUP = TEMPLATES / "setup.sh"
#: What the shipped grader installs: the lab's libraries and the grader's own (not the
#: notebook's or the tests' packages).
REQUIREMENT_FILES = ("lab.txt", "grader.txt")
#: What the children's environment holds (setup.sh installs it in CHILD_ENVIRONMENT).
CHILD_REQUIREMENTS = "requirements-child.txt"
#: Where setup.sh makes the children's environment: outside the grader's folder, which the
#: sandbox user may not read (nothing in it is secret: the allowed packages only).
CHILD_ENVIRONMENT = "/opt/lab05-child"
#: Where the shipped source puts the precomputed Cranfield reference ($LAB05_BUNDLE).
BUNDLE = "cranfield-bundle.json"


def requirements() -> bytes:
    return b"".join((paths.REQUIREMENTS / name).read_bytes() for name in REQUIREMENT_FILES)


def source_entries() -> list[tuple[str, bytes, int]]:
    """Every file of the shipped ``source`` folder (names relative to it)."""
    bundle = cranfield.bundle()
    bundle_bytes = json.dumps(bundle, sort_keys=True, separators=(",", ":")).encode()
    data_cache = load_lab05().data.cache_dir()
    entries = [
        ("setup.sh", SETUP.read_bytes(), 0o755),
        ("requirements.txt", requirements(), 0o644),
        (CHILD_REQUIREMENTS, paths.CHILD_REQUIREMENTS.read_bytes(), 0o644),
        ("grading.yml", paths.RUBRIC.read_bytes(), 0o644),
        (BUNDLE, bundle_bytes, 0o644),
    ]
    entries += archive.files_under(paths.PACKAGE, "autograder/")
    entries += [
        (f"assignment/lab05/{name}", paths.handout_file(name).read_bytes(), 0o644)
        for name in (*GIVEN_FILES, *GRADED_FILES)
    ]
    entries.append(("assignment/tests/public_cases.py", paths.PUBLIC_CASES.read_bytes(), 0o644))
    for name in ("docs.txt", "queries.txt", "qrels.txt"):
        entries.append((f"ir_datasets/cranfield/{name}", (data_cache / name).read_bytes(), 0o644))
    entries += _planned(bundle, bundle_bytes)
    return entries


def _planned(bundle: dict, bundle_bytes: bytes) -> list:
    """The grading plan, precomputed under the key the shipped grader will
    look for (a platform starts every submission with an empty cache): the shipped code, rubric
    and public cases are this repository's own, so ``plan.cache_key`` gives the same key there."""
    stored = reference.load()
    loaded = rubric.load(paths.RUBRIC)
    key = planning.cache_key(loaded, stored.get("digest", ""), cache.fingerprint([bundle_bytes]))
    plan = planning.build(loaded, stored, bundle)
    plan.key = key
    return [
        (f"cache/plan-{key[:32]}.pickle", pickle.dumps(plan, protocol=4), 0o600),
    ]
