"""Hostile YAML an instructor is handed: Gradescope's ``submission_metadata.yml`` (an alias bomb,
malformed entries, files that are not metadata at all) and a rubric with aliases. A malformed
entry costs only that submission's names, with a warning naming the file, the line and the entry;
a file that cannot be read at all stops the batch with exit status 2 and a message; nothing
expands an alias."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import intake, rubric
from autograder.grading.results import Student
from autograder.labkit.load import default as default_lab
from tests.support import hostile_files

METADATA = "submission_metadata.yml"
MAX_FIELD, MAX_SUBMITTERS, MAX_BYTES = 256, 50, 64 << 20  # metadata.py's caps, as the messages state them
ADA = "submission_1:\n  :submitters:\n  - :name: Ada Lovelace\n    :email: ada@example.edu\n    :sid: '1815'\n"
ADA_STUDENT = (Student("Ada Lovelace", "ada@example.edu", "1815"),)


def _discover(tmp_path: Path, text: str | bytes) -> dict:
    """The export's sources by id, its metadata file being ``text``."""
    folder = hostile_files.export(tmp_path / "export", text)
    return {source.id: source for source in intake.discover([folder], lab=default_lab())}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=600, cwd=paths.ROOT
    )


# ---------------------------------------------------------------- the alias bomb


def test_the_alias_bomb_is_the_reported_371_bytes():
    """Is the fixture the attack as reported: 371 bytes whose fields expand to 531,441 strings each?"""
    import yaml

    text = hostile_files.alias_bomb()
    assert len(text.encode("utf-8")) == 371
    loaded = yaml.safe_load(text)["submission_1"][":submitters"][0][":name"]
    leaves = 0
    stack = [loaded]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item[:1] * len(item) if item and item[0] is item[-1] else item)
            continue
        leaves += 1
        if leaves > 1000:  # enough to know it is a bomb without expanding all of it
            break
    assert leaves > 1000


def test_alias_bomb_costs_its_submissions_their_names_only(tmp_path):
    """Read from a class folder, does the 371-byte alias bomb give both submissions no names (none
    of its expansion reaches a field) and a note naming the file, the line and the entry?"""
    sources = _discover(tmp_path, hostile_files.alias_bomb())
    where = tmp_path / "export" / METADATA
    assert [source.students for source in sources.values()] == [(), ()]
    assert sources["submission_1"].notes == (
        f"{where}, line 10, entry 'submission_1': :submitters[0] :name is the alias *f, which stands for a list "
        "or mapping, not text: graded without its students' names",
    )
    assert (
        sources["submission_2"]
        .notes[0]
        .startswith(
            f"{where}, line 17, entry 'submission_2': :submitters[0] is the alias *s of a part that cannot be used"
        )
    )


@pytest.mark.sandbox
@pytest.mark.slow
def test_alias_bomb_batch_grades_and_writes_small_files(tmp_path, cranfield):
    """Graded by the command line, does the export with the alias bomb exit 0 with both submissions
    graded, a warning per entry on stderr, and outputs of their usual size (the bomb made a 116 MB
    grades.csv and a 275 MB class report)?"""
    folder = hostile_files.export(tmp_path / "export", hostile_files.alias_bomb())
    run = _cli("grade", str(folder), "--out", str(tmp_path / "out"), "--jobs", "1")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2 and all("graded without its students' names" in line for line in warnings)
    out = tmp_path / "out"
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert [(row["submission"], row["name"], row["total"]) for row in rows] == [
        ("submission_1", "", "100"),
        ("submission_2", "", "100"),
    ]
    assert "submission_metadata.yml, line 10, entry 'submission_1'" in rows[0]["flags"]
    sizes = {path.name: path.stat().st_size for path in out.rglob("*") if path.is_file() and path.name != "grade.json"}
    assert sizes["grades.csv"] < 4096 and sizes["index.html"] < (1 << 20)
    assert max(sizes.values()) < (1 << 20), sizes


# ---------------------------------------------------------------- malformed entries: graded without names


@dataclass(frozen=True)
class Entry:
    id: str
    entry: str  # submission_2's entry, after submission_1's valid one (which starts on line 1)
    problem: str  # what the warning says, after "FILE, line N, entry 'submission_2': "
    line: int


LONG = "x" * (MAX_FIELD + 44)
MANY = "".join(f"  - :name: Student {n}\n" for n in range(MAX_SUBMITTERS + 1))

MALFORMED = [
    Entry("entry-is-a-list", "submission_2: [1, 2]\n", "the entry is not a mapping (with :submitters)", 6),
    Entry("submitters-is-a-number", "submission_2:\n  :submitters: 5\n", ":submitters is not a list of students", 7),
    Entry(
        "submitter-is-text",
        "submission_2:\n  :submitters:\n  - Grace Hopper\n",
        ":submitters[0] is not a mapping of :name, :email and :sid",
        8,
    ),
    Entry(
        "name-is-a-mapping",
        "submission_2:\n  :submitters:\n  - :name: {first: Grace}\n",
        ":submitters[0] :name is a list or mapping, not text",
        8,
    ),
    Entry(
        "name-too-long",
        f"submission_2:\n  :submitters:\n  - :name: Grace\n    :email: {LONG}\n",
        f":submitters[0] :email is a text of {len(LONG)} characters, more than the 256 a field may hold",
        9,
    ),
    Entry(
        "too-many-submitters",
        f"submission_2:\n  :submitters:\n{MANY}",
        ":submitters names more than 50 students",
        8 + MAX_SUBMITTERS,
    ),
    Entry(
        "alias-of-nothing",
        "submission_2:\n  :submitters:\n  - :name: *nobody\n",
        ":submitters[0] :name is the alias *nobody, which names no anchor defined before it",
        8,
    ),
    Entry(
        "alias-of-a-list",
        "lists: &l [a, b]\nsubmission_2:\n  :submitters:\n  - :sid: *l\n",
        ":submitters[0] :sid is the alias *l, which stands for a list or mapping, not text",
        9,
    ),
    Entry(
        "entry-twice",
        "submission_2: {':submitters': []}\nsubmission_2: {':submitters': []}\n",
        "appears twice (first on line 6), so neither is used",
        7,
    ),
]


@pytest.mark.parametrize("case", MALFORMED, ids=lambda case: case.id)
def test_malformed_entry_is_graded_without_names_and_said_where(case, tmp_path):
    """Does a malformed entry leave its submission without names, with a note naming the file, the
    line, the entry and what is wrong, while the valid entry beside it keeps its student?"""
    sources = _discover(tmp_path, ADA + case.entry)
    where = tmp_path / "export" / METADATA
    assert sources["submission_1"].students == ADA_STUDENT and sources["submission_1"].notes == ()
    assert sources["submission_2"].students == ()
    assert sources["submission_2"].notes == (
        f"{where}, line {case.line}, entry 'submission_2': {case.problem}: graded without its students' names",
    )


# ---------------------------------------------------------------- what Gradescope writes is read as before

VALID = {
    # id: (submission_2's entry, its students)
    "ruby-keys-results-skipped": (
        "submission_2:\n  :submitters:\n  - :name: Grace Hopper\n    :email: grace@example.edu\n    :sid: '1906'\n"
        "  :created_at: 2026-11-30 12:00:00.000000000 -08:00\n  :score: 87.5\n"
        "  :results:\n    :tests: [{':name': x, ':output': [[[1, 2]]]}]\n",
        (Student("Grace Hopper", "grace@example.edu", "1906"),),
    ),
    "plain-keys": (
        "submission_2:\n  submitters:\n  - {name: Grace Hopper, email: grace@example.edu, sid: S1}\n",
        (Student("Grace Hopper", "grace@example.edu", "S1"),),
    ),
    "sid-as-written": (
        "submission_2:\n  :submitters:\n  - :name: Grace Hopper\n    :sid: 0123\n",
        (Student("Grace Hopper", "", "0123"),),
    ),
    "null-fields": (
        "submission_2:\n  :submitters:\n  - :name: Grace Hopper\n    :email: ~\n    :sid:\n",
        (Student("Grace Hopper", "", ""),),
    ),
    "a-group-by-alias": (
        "other:\n  :submitters:\n  - &1\n    :name: Grace Hopper\n    :sid: '1906'\n"
        "submission_2:\n  :submitters:\n  - *1\n  - :name: Alan Turing\n",
        (Student("Grace Hopper", "", "1906"), Student("Alan Turing", "", "")),
    ),
    "no-submitters": ("submission_2:\n  :score: 3\n", ()),
    "empty-entry": ("submission_2:\n", ()),
}


@pytest.mark.parametrize("case", VALID.values(), ids=VALID.keys())
def test_gradescope_metadata_names_students_as_written(case, tmp_path):
    """Is each student read as Gradescope wrote them (Ruby or plain keys, SIDs as written, nulls as
    empty, a submitter repeated by alias, everything else of an entry skipped), with no warning?"""
    entry, students = case
    sources = _discover(tmp_path, ADA + entry)
    assert sources["submission_1"].students == ADA_STUDENT
    assert (sources["submission_2"].students, sources["submission_2"].notes) == (students, ())


# ---------------------------------------------------------------- a file that is not metadata: exit 2


FILES = {
    # id: (the file's bytes, or the size of a sparse file; what the error says after the path)
    "not-yaml": (ADA.encode() + b"submission_2: [unclosed\n", ", line 7: not valid YAML"),
    "top-level-list": (b"- submission_1\n- submission_2\n", ", line 1: is not Gradescope's submission metadata"),
    "two-documents": (ADA.encode() + b"---\nsubmission_2: {}\n", " holds more than one YAML document"),
    "not-utf8": (ADA.encode() + b"submission_2: \xff\xfe\n", ": not valid YAML"),
    "too-large": (MAX_BYTES + 1, " is larger than 64 MiB"),
}


@pytest.mark.parametrize("case", FILES.values(), ids=FILES.keys())
def test_a_file_that_is_not_metadata_is_a_clear_error(case, tmp_path):
    """Does a metadata file that cannot be read as a whole raise a ValueError naming the file, the
    line where there is one, and what to do?"""
    content, expected = case
    folder = hostile_files.export(tmp_path / "export", b"")
    where = folder / METADATA
    if isinstance(content, int):
        with open(where, "wb") as handle:
            handle.truncate(content)  # sparse: costs no disk
    else:
        where.write_bytes(content)
    with pytest.raises(ValueError) as error:
        intake.discover([folder], lab=default_lab())
    assert str(error.value).startswith(f"{where}{expected}")
    assert str(error.value).endswith(
        "download the export again, or remove the file to grade the folder without students' names"
    )


def test_cli_stops_with_exit_2_on_a_file_that_is_not_metadata(tmp_path):
    """Does `grade` on an export whose metadata is not YAML exit 2 with the message, no traceback,
    and nothing written?"""
    folder = hostile_files.export(tmp_path / "export", ADA + "submission_2: [unclosed\n")
    run = _cli("grade", str(folder), "--out", str(tmp_path / "out"))
    assert run.returncode == 2
    assert f"error: {folder / METADATA}, line 7: not valid YAML" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "out").exists()


# ---------------------------------------------------------------- the rubric


def _title_bomb(levels: int) -> str:
    """grading.yml whose title is the alias bomb's lists (anchors defined inside the title itself)."""
    lists = [line.split(": ", 1)[1] for line in hostile_files.alias_bomb(levels).splitlines()[:levels]]
    text = paths.RUBRIC.read_text(encoding="utf-8")
    return re.sub(r"(?m)^title: .*$", f"title: [{', '.join(lists)}]", text, count=1)


def test_rubric_alias_bomb_is_refused_without_expanding_it():
    """A rubric whose title holds the alias bomb (9**6 strings once expanded): is it refused with a
    message that says why, in a few lines?"""
    with pytest.raises(rubric.RubricError) as error:
        rubric.parse(_title_bomb(6), lab=default_lab())
    assert str(error.value) == (
        "grading.yml: its YAML aliases expand to more than 100000 values; a rubric needs a few hundred: write it "
        "without aliases (*name)"
    )


def test_rubric_error_quotes_a_list_by_its_size_not_its_content():
    """A rubric title given a smaller bomb (7,380 values): does the message name the field and the
    list's size, not its 50 KB of content?"""
    with pytest.raises(rubric.RubricError) as error:
        rubric.parse(_title_bomb(4), lab=default_lab())
    assert str(error.value) == "grading.yml: title: must be a str, got a list of 4"
