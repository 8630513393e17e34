"""A lab folder loaded as a value (``autograder/labkit/load.py``, ``lab.py``, ``place.py``): two labs
side by side in one process, each reading its own files through its own modules."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys

import pytest

from autograder import cli, paths
from autograder.grading import reference
from autograder.labkit import misconception, place, scenario
from autograder.labkit.load import default, load

LAB06 = paths.ROOT / "tests" / "fixtures" / "lab06"

#: id -> (how to load it, its title, its student package, its graded files, its first functions)
LABS = {
    "lab05": (default, "Lab 05", "lab05", ("metrics.py", "runs.py"), ("confusion_matrix", "accuracy")),
    "lab06": (lambda: load(LAB06), "Lab 06", "lab06", ("classify.py",), ("f1_score", "majority_label")),
}


@pytest.mark.parametrize("lab_id", LABS)
def test_a_lab_value_holds_its_names_and_api(lab_id):
    """Does each lab's value carry its own title, student package, graded files and functions?"""
    loader, title, package, graded, first = LABS[lab_id]
    lab = loader()
    assert (lab.title, lab.package, lab.graded_files) == (title, package, graded)
    assert tuple(lab.records)[: len(first)] == first
    assert set(lab.functions) == set(lab.records) == set(lab.returns) == set(lab.kinds_for)
    assert all(lab.functions[name] in lab.graded_files for name in lab.functions)


@pytest.mark.parametrize("lab_id", LABS)
def test_a_lab_s_modules_read_its_own_files(lab_id):
    """Do a lab's modules read its own handout (the public cases name only its functions) and its own
    solution package, though the other lab is loaded in the same process?"""
    for other in LABS.values():
        other[0]()  # both labs loaded, whichever is asked about
    lab = LABS[lab_id][0]()
    named = {case.function for case, _ in lab.cases.example_cases()}
    assert named and named <= set(lab.records)
    assert lab.solution.load().__name__ == lab.package
    assert lab.place.public_cases.is_relative_to(lab.place.root)


def test_two_labs_load_side_by_side():
    """Are Lab 05 and Lab 06 two values with modules of their own, and is loading a folder again the
    same value?"""
    first, second = default(), load(LAB06)
    assert first.name != second.name and first.cases is not second.cases
    assert load(LAB06) is second and default() is first
    assert set(first.records).isdisjoint(second.records)


def test_a_copied_lab_is_a_lab_of_its_own(tmp_path):
    """Is a copy of Lab 06 in another folder loaded under another name, reading the copy's files?"""
    copy = tmp_path / "copy"
    shutil.copytree(LAB06, copy, ignore=shutil.ignore_patterns("__pycache__"))
    original, copied = load(LAB06), load(copy)
    assert copied.name != original.name and copied.cases is not original.cases
    assert copied.place.root == copy.resolve()
    assert place.of(copied.cases.__name__).public_cases == copy.resolve() / "assignment" / "tests" / "public_cases.py"


#: id -> (what the folder lacks, the words the error must hold)
BAD_FOLDERS = {
    "empty": ((), "lab/__init__.py"),
    "no-init": (("lab",), "lab/__init__.py"),
}


@pytest.mark.parametrize("case_id", BAD_FOLDERS)
def test_a_folder_without_a_lab_package_is_refused(case_id, tmp_path):
    """Is a folder holding no lab package a ValueError naming the file that is missing?"""
    made, words = BAD_FOLDERS[case_id]
    for folder in made:
        (tmp_path / folder).mkdir()
    with pytest.raises(ValueError, match=r"labkit\.load") as raised:
        load(tmp_path)
    assert words in str(raised.value) and str(tmp_path.resolve()) in str(raised.value)


#: id -> (the handout's package folders, the package found or None for an error)
HANDOUTS = {
    "one": (("lab07",), "lab07"),
    "none": ((), None),
    "two": (("lab07", "lab08"), None),
}


@pytest.mark.parametrize("case_id", HANDOUTS)
def test_the_student_package_is_the_handout_s_one_package(case_id, tmp_path):
    """Is the student package the handout's one folder with __init__.py, and is none or two a
    ValueError naming the handout?"""
    folders, expected = HANDOUTS[case_id]
    for folder in folders:
        (tmp_path / "assignment" / folder).mkdir(parents=True)
        (tmp_path / "assignment" / folder / "__init__.py").write_text("")
    where = place.Place(tmp_path, tmp_path / "lab", tmp_path / "lab" / "data")
    if expected is None:
        with pytest.raises(ValueError, match=r"Place\.student_package") as raised:
            where.student_package()
        assert str(tmp_path / "assignment") in str(raised.value)
    else:
        assert where.student_package() == expected
        assert where.solution_file("x.py") == tmp_path / "solutions" / expected / "x.py"


#: id -> (function asked about, the part expected)
NOTES = {"known": ("f1_score", "Part I"), "unknown": ("no_such_function", "the notes")}


@pytest.mark.parametrize("case_id", NOTES)
def test_notes_part_names_the_part_or_the_notes(case_id):
    """Does Lab.notes_part give a known function's part, and "the notes" for a name the lab lacks?"""
    function, expected = NOTES[case_id]
    lab = load(LAB06)
    assert lab.notes_part(function) == expected


@pytest.mark.parametrize("folder", [paths.LAB_PACKAGE, LAB06 / "lab"], ids=["lab05", "lab06"])
def test_a_lab_s_modules_import_each_other_relatively(folder):
    """Does no module of a lab import its own package by the name autograder.lab (which would tie it
    to one name and stop two labs loading in one process)?"""
    absolute = []
    files = sorted(folder.rglob("*.py"))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            absolute += [f"{path.name}: {name}" for name in names if name.split(".")[:2] == ["autograder", "lab"]]
    assert len(files) > 5 and absolute == []


@pytest.fixture
def lab06_copy(tmp_path):
    """Lab 06 copied into a folder of its own (its reference is written there)."""
    copy = tmp_path / "lab06"
    shutil.copytree(LAB06, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_each_lab_s_reference_is_written_in_one_process(lab06_copy):
    """With Lab 05 loaded, is Lab 06's reference written from Lab 06's own solution and edge cases, and
    read back as that lab's?"""
    default()
    lab = load(lab06_copy)
    written = reference.write(lab)
    assert written == lab06_copy.resolve() / "lab" / "data" / "expected.json"
    stored = reference.load(lab)
    assert set(stored["edge"]) == {case.id for case in lab.cases.EDGE_CASES} and stored["edge"]
    assert stored["cranfield"] == {} and stored["edge_cases"] == reference.cases_digest(lab.place.edge_cases)
    solved = lab.solution.load()
    for case in lab.cases.EDGE_CASES:
        value = stored["edge"][case.id]
        if not (isinstance(value, dict) and "raises" in value):
            assert value == getattr(solved.classify, case.function)(*case.args, **case.kwargs)


#: id -> (how the stored reference is spoiled, the words its error must hold)
SPOILED = {
    "missing": (lambda lab: lab.place.reference.unlink(), "is missing"),
    "other-cases": (lambda lab: lab.place.edge_cases.write_text("[]\n"), "other edge cases"),
}


@pytest.mark.parametrize("case_id", SPOILED)
def test_a_lab_s_spoiled_reference_is_named_with_its_own_files(case_id, lab06_copy):
    """Is a missing or stale reference an error naming the lab's own files, not Lab 05's?"""
    spoil, words = SPOILED[case_id]
    lab = load(lab06_copy)
    reference.write(lab)
    spoil(lab)
    with pytest.raises(reference.ReferenceDataError) as raised:
        reference.load(lab)
    assert words in str(raised.value) and str(lab06_copy.resolve()) in str(raised.value)


def test_the_cli_s_lab_option_writes_that_lab_s_reference(lab06_copy, capsys):
    """Does `--lab FOLDER reference`, run in this process beside Lab 05, write that folder's reference?"""
    target = lab06_copy / "lab" / "data" / "expected.json"
    assert not target.exists()
    assert cli.main(["--lab", str(lab06_copy), "reference"]) == 0
    assert str(target.resolve()) in capsys.readouterr().out
    assert set(json.loads(target.read_text())["edge"]) == {case.id for case in load(lab06_copy).cases.EDGE_CASES}


def test_the_cli_names_a_folder_that_is_no_lab(tmp_path, capsys):
    """Is `--lab` naming a folder without a lab package an error (exit 2) naming the folder?"""
    assert cli.main(["--lab", str(tmp_path), "reference"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: labkit.load") and str(tmp_path.resolve()) in error


#: Lab field -> (its module in Lab 05, its module in Lab 06, which leaves it out)
OPTIONAL_MODULES = {
    "cranfield": ("autograder.lab.cranfield", "autograder.labkit.defaults.cranfield"),
    "measures": ("autograder.lab.measures", "autograder.labkit.defaults.measures"),
    "scenarios": ("autograder.lab.scenarios", "autograder.labkit.defaults.scenarios"),
    "variants": ("autograder.lab.variants", "autograder.labkit.defaults.variants"),
    "concepts": ("autograder.lab.concepts", "autograder.labkit.defaults.concepts"),
}


@pytest.mark.parametrize("field", OPTIONAL_MODULES)
def test_a_lab_may_leave_out_what_it_does_not_have(field):
    """Does Lab 05 keep its own collection, measures, scenarios, variants and concepts, while Lab 06, which has
    no collection and no run writer and leaves those modules out, gets labkit's defaults?"""
    with_them, without = OPTIONAL_MODULES[field]
    assert getattr(default(), field).__name__ == with_them
    assert getattr(load(LAB06), field).__name__ == without


def test_a_lab_without_a_collection_has_an_empty_one():
    """Is a defaulted collection empty (no systems, an empty bundle, no scenarios), and is asking its
    measures for a value a ValueError naming the measure?"""
    lab = load(LAB06)
    assert lab.cranfield.SYSTEMS == () and lab.cranfield.bundle() == {"qrels": {}, "titles": {}, "systems": {}}
    assert lab.scenarios.EXAMPLE == "" and lab.measures.CRANFIELD == {}
    with pytest.raises(ValueError, match="nDCG@10"):
        lab.measures.ir_measures_values("nDCG@10", {}, {})


def _members(protocol) -> set[str]:
    """The names a Protocol declares (its fields, properties and methods)."""
    return {name for name in vars(protocol) if not name.startswith("_")} | set(protocol.__annotations__) - {
        "__dataclass_fields__"
    }


#: id -> (the labkit Protocol, how to get every instance of it a lab holds)
SHAPES_READ = {
    "lab05-misconceptions": (misconception.Misconception, lambda: list(default().misconceptions.LIBRARY.values())),
    "lab06-misconceptions": (misconception.Misconception, lambda: list(load(LAB06).misconceptions.LIBRARY.values())),
    "lab05-scenarios": (scenario.Scenario, lambda: default().scenarios.small_scenarios()),
}


@pytest.mark.parametrize("case_id", SHAPES_READ)
def test_what_a_lab_builds_has_what_the_engine_reads(case_id):
    """Does every misconception and scenario a lab builds have each member of the labkit Protocol the
    engine reads it through (whatever the lab built it with: a dataclass, a namedtuple)?"""
    protocol, made = SHAPES_READ[case_id]
    members, items = _members(protocol), made()
    assert len(members) >= 8 and items
    lacking = {type(item).__name__: sorted(name for name in members if not hasattr(item, name)) for item in items}
    assert {name: missing for name, missing in lacking.items() if missing} == {}


def test_python_m_autograder_names_a_lab_folder_that_is_no_lab(tmp_path):
    """Does `python -m autograder --lab FOLDER` stop, before any command, with a message naming a
    folder that holds no lab package and the option that chose it?"""
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "--lab", str(tmp_path), "reference"],
        env={name: value for name, value in os.environ.items() if not name.endswith("_LAB")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and not (tmp_path / "lab").exists()  # a user's mistake (autograder.errors)
    assert run.stderr.startswith("error: ")
    assert f"the lab folder {tmp_path.resolve()} (--lab or $AUTOGRADER_LAB) holds no lab package" in run.stderr
