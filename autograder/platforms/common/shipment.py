"""What a platform's grader ships, as reproducible ``(name, bytes, mode)`` entries, in two parts:

- the **engine** (``engine_entries``): ``setup.sh`` (installs, creates the unprivileged user
  student code runs as, locks the grader's files away from that user, from ``templates/``);
  ``requirements.txt``; the ``autograder`` package without its hidden reference
  (``autograder/lab/data/``); the handout's given files, stubs and public cases; the Cranfield
  files from the local ir_datasets cache (public data). Nothing in it is secret: PrairieLearn's
  grader image, which anyone may pull from a public registry, holds this part alone;
- the **hidden** part (``hidden_entries``, names relative to the folder ``$AUTOGRADER_HIDDEN`` names):
  the edge cases' inputs and the expected values (``paths.EDGE_CASES``, ``paths.REFERENCE``), the
  hidden run writer scenarios' inputs (``paths.SCENARIOS``), the
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
from autograder.labkit import load

TEMPLATES = Path(__file__).resolve().parent / "templates"
SETUP = TEMPLATES / "setup.sh"
#: What the shipped grader installs: the lab's libraries and the grader's own (not the
#: notebook's or the tests' packages).
REQUIREMENT_FILES = ("lab.txt", "grader.txt")
#: What the children's environment holds (setup.sh installs it in CHILD_ENVIRONMENT).
CHILD_REQUIREMENTS = paths.SHIPPED_CHILD_REQUIREMENTS
#: Where setup.sh makes the children's environment: outside the grader's folder, which the
#: sandbox user may not read (nothing in it is secret: the allowed packages only).
CHILD_ENVIRONMENT = "/opt/lab05-child"
#: The precomputed Cranfield reference ($AUTOGRADER_BUNDLE), in the hidden folder.
BUNDLE = "cranfield-bundle.json"
#: Where ``autograder.zip``'s source keeps the hidden part ($AUTOGRADER_HIDDEN on Gradescope).
HIDDEN = "hidden/"
#: The lab's modules that hold right answers as code, besides its hidden data folder: the records'
#: answer code (``answers.py``) and the misconception catalogue (each wrong variant is the right
#: code with one thing changed; the contract's argument checks). Hidden like the data: never in
#: PrairieLearn's public image (``code_entries``).
ANSWER_CODE = ("answers.py", "arguments.py", "variants.py", "misconceptions/")
#: Where PrairieLearn's hidden part keeps that code, at its place in the grader's source (the
#: entrypoint copies it in for each job).
CODE = "code/"
#: Where the shipped grader keeps the lab's package (it imports it as ``autograder.lab``): every name
#: of a lab file is made relative to the lab's own package (``paths.LAB_PACKAGE``), wherever its
#: folder is (``--lab FOLDER``), never to the engine's.
SHIPPED_LAB = "autograder/lab/"


def requirements() -> bytes:
    return b"".join((paths.REQUIREMENTS / name).read_bytes() for name in REQUIREMENT_FILES)


def _answer_code(name: str) -> bool:
    """Is ``name`` (relative to ``source``) one of the lab's modules that hold answers as code?"""
    return name.startswith(tuple(SHIPPED_LAB + part for part in ANSWER_CODE))


def _package_entries() -> list[tuple[str, bytes, int]]:
    """The engine's package and the lab's, as the shipped grader holds them (names relative to
    ``source``): the lab's package at ``SHIPPED_LAB`` whatever folder it comes from."""
    engine = [
        entry for entry in archive.files_under(paths.PACKAGE, "autograder/") if not entry[0].startswith(SHIPPED_LAB)
    ]
    return engine + archive.files_under(paths.LAB_PACKAGE, SHIPPED_LAB)


def code_entries() -> list[tuple[str, bytes, int]]:
    """The lab's answer code (``ANSWER_CODE``; names relative to ``source``): what
    ``engine_entries`` leaves out beside the hidden data, for the platforms' private part."""
    return [entry for entry in _package_entries() if _answer_code(entry[0])]


def engine_entries() -> list[tuple[str, bytes, int]]:
    """The grader without anything a student must not see (names relative to ``source``): no hidden
    data and no answer code (``code_entries``), so it cannot grade alone."""
    lab = load.default()  # the lab shipped: the environment's
    hidden = f"{SHIPPED_LAB}{paths.REPOSITORY_DATA.relative_to(paths.LAB_PACKAGE).as_posix()}/"
    entries = [
        ("setup.sh", SETUP.read_bytes(), 0o755),
        ("requirements.txt", requirements(), 0o644),
        (CHILD_REQUIREMENTS, paths.CHILD_REQUIREMENTS.read_bytes(), 0o644),
    ]
    entries += [entry for entry in _package_entries() if not entry[0].startswith(hidden) and not _answer_code(entry[0])]
    entries += [
        (f"assignment/{lab.package}/{name}", paths.handout_file(name).read_bytes(), 0o644)
        for name in (*lab.given_files, *lab.graded_files)
    ]
    entries.append(("assignment/tests/public_cases.py", paths.PUBLIC_CASES.read_bytes(), 0o644))
    entries += [(f"ir_datasets/{name}", data, 0o644) for name, data in lab.cranfield.shipped_files()]
    return entries


def hidden_entries(rubric_path: Path = paths.RUBRIC) -> list[tuple[str, bytes, int]]:
    """What a student must never see (names relative to the hidden folder): the edge cases, the
    expected values, the hidden run writer scenarios, the Cranfield bundle, the course secret kept
    beside ``rubric_path`` (the lab's grading.yml unless ``build --rubric FILE``) and the plan."""
    bundle = load.default().cranfield.bundle()  # the lab shipped: the environment's
    bundle_bytes = json.dumps(bundle, sort_keys=True, separators=(",", ":")).encode()
    entries = [
        (paths.EDGE_CASES.name, paths.EDGE_CASES.read_bytes(), 0o600),
        (paths.REFERENCE.name, paths.REFERENCE.read_bytes(), 0o600),
        (BUNDLE, bundle_bytes, 0o600),
    ]
    if paths.SCENARIOS.is_file():  # a lab with a run writer
        entries.append((paths.SCENARIOS.name, paths.SCENARIOS.read_bytes(), 0o600))
    secret, _ = course_secret.load(rubric_path, create=True)  # the random cases' seed is drawn from it
    entries.append((course_secret.FILE_NAME, (secret + "\n").encode(), 0o600))
    return entries + _planned(bundle, bundle_bytes, rubric_path)


def source_entries(rubric_path: Path = paths.RUBRIC) -> list[tuple[str, bytes, int]]:
    """Every file of ``autograder.zip``'s ``source`` folder: the engine with the answer code, the
    rubric (``rubric_path``, shipped as grading.yml) and, under ``hidden/``, the hidden part
    (Gradescope's zip is private to the course's staff)."""
    entries = engine_entries() + code_entries() + [("grading.yml", Path(rubric_path).read_bytes(), 0o644)]
    return entries + [(HIDDEN + name, data, mode) for name, data, mode in hidden_entries(rubric_path)]


def _planned(bundle: dict[str, Any], bundle_bytes: bytes, rubric_path: Path) -> list[tuple[str, bytes, int]]:
    """The grading plan, precomputed under the key the shipped grader will
    look for (a platform starts every submission with an empty cache): the shipped code, rubric
    and public cases are this repository's own, so ``plan.cache_key`` gives the same key there."""
    lab = load.default()  # the lab shipped: the environment's
    stored = reference.load(lab)
    loaded = rubric.load(rubric_path, lab)
    key = planning.cache_key(lab, loaded, stored.get("digest", ""), cache.fingerprint([bundle_bytes]))
    plan = planning.build(lab, loaded, stored, bundle)
    plan.key = key
    return [
        (f"cache/plan-{key[:32]}.pickle", pickle.dumps(plan, protocol=4), 0o600),
    ]
