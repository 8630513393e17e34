"""What a platform's grader ships, as reproducible ``(name, bytes, mode)`` entries, in two parts:

- the **engine** (``engine_entries``): ``setup.sh`` (installs, creates the unprivileged user
  student code runs as, locks the grader's files away from that user, from ``templates/``);
  ``requirements.txt``; the ``autograder`` package; the lab's package as ``lab/`` without its
  hidden reference (``lab/data/``) and its answer code; the handout's given files, stubs and public cases; the Cranfield
  files from the local ir_datasets cache (public data). Nothing in it is secret: PrairieLearn's
  grader image, which anyone may pull from a public registry, holds this part alone;
- the **hidden** part (``hidden_entries``, names relative to the folder ``$AUTOGRADER_HIDDEN`` names):
  the edge cases' inputs and the expected values (``Place.edge_cases``, ``Place.reference``), the
  hidden run writer scenarios' inputs (``Place.scenarios``), the
  precomputed Cranfield bundle (Lab 04's runs and ``ir_measures``' values per query) and the
  grading plan with its shared job (every hidden input and expected value), stored under the
  key the shipped grader will look for, so grading downloads and recomputes nothing;
- the **answer code** (``code_entries``): the lab's modules that compute right answers
  (``ANSWER_CODE``: the records' answers, the misconception catalogue), without which the engine
  cannot grade.

Gradescope's ``autograder.zip`` (uploaded privately) ships all three, the answer code in its place,
the hidden part under ``source/hidden/``, with ``grading.yml`` (``source_entries``); PrairieLearn
puts the hidden part in the question's private ``tests/hidden/``, the answer code in
``tests/hidden/code/`` (its entrypoint copies it into the engine for each job) and the rubric in
``tests/grading.yml``.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

from autograder import archive, cache, paths
from autograder.grading import course_secret, reference, rubric
from autograder.grading import plan as planning
from autograder.labkit.lab import Lab

TEMPLATES = Path(__file__).resolve().parent / "templates"
SETUP = TEMPLATES / "setup.sh"
#: What the shipped grader installs: the lab's libraries and the grader's own (not the
#: notebook's or the tests' packages).
REQUIREMENT_FILES = ("lab.txt", "grader.txt")
#: What the children's environment holds (setup.sh installs it in CHILD_ENVIRONMENT).
CHILD_REQUIREMENTS = paths.SHIPPED_CHILD_REQUIREMENTS
#: Where setup.sh makes the children's environment: outside the grader's folder, which the
#: sandbox user may not read (nothing in it is secret: the allowed packages only); the engine's,
#: whatever lab it grades.
CHILD_ENVIRONMENT = "/opt/autograder-child"
#: The precomputed Cranfield reference ($AUTOGRADER_BUNDLE), in the hidden folder.
BUNDLE = "cranfield-bundle.json"
#: Where ``autograder.zip``'s source keeps the hidden part ($AUTOGRADER_HIDDEN on Gradescope).
HIDDEN = "hidden/"
#: The lab's modules that hold right answers as code, besides its hidden data folder: the records'
#: answer code (``answers.py``) and the misconception catalogue (each wrong variant is the right
#: code with one thing changed; the contract's argument checks). Hidden like the data: never in
#: PrairieLearn's public image (``code_entries``).
ANSWER_CODE = ("answers.py", "arguments.py", "variants.py", "concepts.py", "misconceptions/")
#: Where PrairieLearn's hidden part keeps that code, at its place in the grader's source (the
#: entrypoint copies it in for each job).
CODE = "code/"


def requirements() -> bytes:
    return b"".join((paths.REQUIREMENTS / name).read_bytes() for name in REQUIREMENT_FILES)


#: Where the shipped source keeps the lab's package: ``lab/``, as in a lab's folder, the shipped
#: source being the lab's folder (its ``grading.yml``, ``assignment/``) with the engine beside it.
LAB = "lab/"


def _answer_code(name: str) -> bool:
    """Is ``name`` (relative to ``source``) one of the lab's modules that hold answers as code?"""
    return name.startswith(tuple(LAB + part for part in ANSWER_CODE))


def _lab_files(lab: Lab) -> list[tuple[str, bytes, int]]:
    """Every file of ``lab``'s package (names relative to ``source``) but its hidden reference."""
    hidden = f"{LAB}data/"
    return [entry for entry in archive.files_under(lab.place.package, LAB) if not entry[0].startswith(hidden)]


def code_entries(lab: Lab) -> list[tuple[str, bytes, int]]:
    """``lab``'s answer code (``ANSWER_CODE``; names relative to ``source``): what
    ``engine_entries`` leaves out beside the hidden data, for the platforms' private part."""
    return [entry for entry in _lab_files(lab) if _answer_code(entry[0])]


def engine_entries(lab: Lab) -> list[tuple[str, bytes, int]]:
    """The grader without anything a student must not see (names relative to ``source``): no hidden
    data and no answer code (``code_entries``), so it cannot grade alone; ``lab``: the lab shipped."""
    entries = [
        ("setup.sh", SETUP.read_bytes(), 0o755),
        ("requirements.txt", requirements(), 0o644),
        (CHILD_REQUIREMENTS, paths.CHILD_REQUIREMENTS.read_bytes(), 0o644),
    ]
    entries += archive.files_under(paths.PACKAGE, "autograder/")
    entries += [entry for entry in _lab_files(lab) if not _answer_code(entry[0])]
    entries += [
        (f"assignment/{lab.package}/{name}", lab.place.handout_file(name).read_bytes(), 0o644)
        for name in (*lab.given_files, *lab.graded_files)
    ]
    entries.append(("assignment/tests/public_cases.py", lab.place.public_cases.read_bytes(), 0o644))
    entries += [(f"ir_datasets/{name}", data, 0o644) for name, data in lab.cranfield.shipped_files()]
    return entries


def hidden_entries(lab: Lab, rubric_path: Path | None = None) -> list[tuple[str, bytes, int]]:
    """What a student must never see of ``lab`` (names relative to the hidden folder): the edge cases,
    the expected values, the hidden run writer scenarios, the Cranfield bundle, the course secret kept
    beside ``rubric_path`` (the lab's grading.yml unless ``build --rubric FILE``) and the precomputed plan."""
    rubric_path = Path(rubric_path) if rubric_path is not None else lab.place.rubric
    bundle = lab.cranfield.bundle()
    bundle_bytes = json.dumps(bundle, sort_keys=True, separators=(",", ":")).encode()
    entries = [
        (lab.place.edge_cases.name, lab.place.edge_cases.read_bytes(), 0o600),
        (lab.place.reference.name, lab.place.reference.read_bytes(), 0o600),
        (BUNDLE, bundle_bytes, 0o600),
    ]
    if lab.place.scenarios.is_file():  # a lab with a run writer
        entries.append((lab.place.scenarios.name, lab.place.scenarios.read_bytes(), 0o600))
    secret, _ = course_secret.load(rubric_path, create=True)  # the random cases' seed is drawn from it
    entries.append((course_secret.FILE_NAME, (secret + "\n").encode(), 0o600))
    return entries + _planned(lab, bundle, bundle_bytes, rubric_path)


def source_entries(lab: Lab, rubric_path: Path | None = None) -> list[tuple[str, bytes, int]]:
    """Every file of ``autograder.zip``'s ``source`` folder for ``lab``: the engine with the answer code,
    the rubric (``rubric_path``, shipped as grading.yml; the lab's own by default) and, under
    ``hidden/``, the hidden part (Gradescope's zip is private to the course's staff)."""
    rubric_path = Path(rubric_path) if rubric_path is not None else lab.place.rubric
    entries = engine_entries(lab) + code_entries(lab) + [("grading.yml", rubric_path.read_bytes(), 0o644)]
    return entries + [(HIDDEN + name, data, mode) for name, data, mode in hidden_entries(lab, rubric_path)]


def _planned(lab: Lab, bundle: dict[str, Any], bundle_bytes: bytes, rubric_path: Path) -> list[tuple[str, bytes, int]]:
    """The grading plan, precomputed under the key the shipped grader will
    look for (a platform starts every submission with an empty cache): the shipped code, rubric
    and public cases are this repository's own, so ``plan.cache_key`` gives the same key there."""
    stored = reference.load(lab)
    loaded = rubric.load(rubric_path, lab)
    key = planning.cache_key(lab, loaded, stored.get("digest", ""), cache.fingerprint([bundle_bytes]))
    plan = planning.build(lab, loaded, stored, bundle)
    plan.key = key
    return [
        (f"cache/plan-{key[:32]}.pickle", pickle.dumps(plan, protocol=4), 0o600),
    ]
