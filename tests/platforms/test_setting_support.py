"""Which class settings each platform applies (``platforms/common/setting_support.py``): the one
declaration the docs' table, the builds' grid and their notes come from."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.labkit.load import default as default_lab
from autograder.platforms.common import setting_support

PAGE = Path(__file__).resolve().parents[2] / "docs" / "PLATFORM_SETTINGS.md"

#: id: (platform, the settings its build says it cannot apply in full)
NOT_IN_FULL = {
    "local": ("local", ["overall_seconds"]),
    "gradescope": ("gradescope", ["extensions", "group_extension", "policy", "similarity", "overall_seconds"]),
    "prairielearn": (
        "prairielearn",
        ["deadline", "penalty", "extensions", "group_extension", "attempts", "policy", "similarity", "visibility"],
    ),
}


def test_the_docs_table_is_the_declaration():
    """Is the docs' settings x platform table exactly the one the declaration makes?"""
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(r"<!-- settings-table: [^\n]*-->\n(.*?)<!-- /settings-table -->", text, re.S)
    assert found is not None, f"{PAGE.name} has no settings-table markers: run tools/gendocs.py"
    assert found.group(1) == setting_support.table()


@pytest.mark.parametrize("setting", list(setting_support.SUPPORT))
def test_each_setting_is_a_key_of_the_rubric_schema(setting):
    """Is each setting of the table named by a key grading.yml's schema has (so the table cannot
    speak of a setting the rubric does not have)?"""
    from autograder.grading import rubric_schema

    schema = rubric_schema.json_schema()
    section = schema
    for part in setting_support.KEYS[setting].split("."):
        if part == "*":  # any question, any check: the mapping's values, the list's items
            field = section.get("additionalProperties") or section.get("items") or {}
            assert field, (setting, setting_support.KEYS[setting])
            section = schema["$defs"][field["$ref"].split("/")[-1]] if "$ref" in field else field
            continue
        assert part in section["properties"], (setting, setting_support.KEYS[setting])
        field = section["properties"][part]
        if "$ref" not in field and not field.get("anyOf") and field.get("type") in ("object", "array"):
            section = field
            continue
        ref = next((option["$ref"] for option in [field, *field.get("anyOf", [])] if "$ref" in option), None)
        section = schema["$defs"][ref.split("/")[-1]] if ref else {"properties": {}}


def test_the_table_has_a_row_per_setting_and_a_cell_per_platform():
    """Does the table hold the ten settings as rows, the three platforms as columns, and every cell
    a state and how?"""
    rows = setting_support.table().splitlines()[2:]
    assert [row.split("|")[1].strip(" `") for row in rows] == [
        "deadline", "deadline.penalty", "deadline.extensions", "students.group_extension", "attempts",
        "students.policy", "similarity", "limits.overall_seconds", "limits.memory_mb",
        "questions.*.checks.*.visibility",
    ]  # fmt: skip
    for row in rows:
        cells = [cell.strip() for cell in row.split("|")[2:-1]]
        assert len(cells) == 3 and all(re.match(r"(applied|partly|not applicable): \S", cell) for cell in cells), row


@pytest.mark.parametrize("case", NOT_IN_FULL.values(), ids=NOT_IN_FULL.keys())
def test_a_build_names_each_setting_it_cannot_apply(case):
    """Does a platform's notes name exactly the settings it does not apply in full, each with why?"""
    platform, expected = case
    notes = setting_support.notes(platform)
    assert [note.split(" on ")[0] for note in notes] == expected
    assert all(("not applicable: " in note or "partly: " in note) for note in notes)


def test_an_unknown_platform_is_refused_naming_the_known():
    """Is a platform the declaration does not know refused, naming those it knows?"""
    with pytest.raises(ValueError, match="no platform 'moodle': use one of local, gradescope, prairielearn"):
        setting_support.notes("moodle")


@pytest.mark.parametrize("target", ["gradescope", "prairielearn"])
def test_the_build_prints_what_cannot_apply(target, tmp_path):
    """Does `python -m autograder build` print the settings x platform grid, and a note for each
    setting its platform cannot apply?"""
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "build", "--target", target, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    printed = [line.removeprefix("note: ") for line in run.stdout.splitlines() if line.startswith("note: ")]
    from autograder.grading import rubric as rubrics

    missing = setting_support.unset(
        rubrics.load(default_lab().place.rubric, default_lab())
    )  # the repository's rubric: no deadline, no attempts
    expected = setting_support.notes(target, missing)
    assert expected and all(note in printed for note in expected)
    assert not any(note.split(" on ")[0] in missing for note in printed if " on " in note), printed
    grid = setting_support.grid(missing)
    assert "\n".join(grid) in run.stdout and len(grid) == 2 + len(setting_support.SUPPORT)


DEADLINE = "deadline:\n  due: 2026-12-05 23:59\n  timezone: America/Chicago\n  penalty: {penalty}\n  per: day\n"
ATTEMPTS = "attempts: {per_period: 2, period_hours: 24, total: 10}\n"

#: id: (what is added to the repository's grading.yml, the settings a build must call "not set")
RUBRICS = {
    "no deadline, no attempts": ("", {"deadline", "penalty", "extensions", "group_extension", "attempts"}),
    "a deadline with a penalty": (DEADLINE.format(penalty=10), {"attempts"}),
    "a deadline without a penalty": (DEADLINE.format(penalty=0), {"penalty", "attempts"}),
    "a deadline and attempt limits": (DEADLINE.format(penalty=10) + ATTEMPTS, set()),
}


@pytest.mark.parametrize("case", RUBRICS.values(), ids=RUBRICS.keys())
def test_the_grid_says_not_set_of_what_the_rubric_leaves_out(case):
    """Does a build's grid say "not set" (never "applied") of a deadline, penalty or attempt limits the
    rubric does not have, "applied" where it has them, and give no note for what is not set?"""
    from autograder import paths
    from autograder.grading import rubric as rubrics

    added, expected = case
    text = paths.RUBRIC.read_text(encoding="utf-8").replace("students:\n", added + "students:\n", 1)
    missing = setting_support.unset(rubrics.parse(text, lab=default_lab()))
    assert missing == expected
    rows = {line.split()[0]: line for line in setting_support.grid(missing)[2:]}
    for setting, key in setting_support.KEYS.items():
        states = rows[key].removeprefix("  " + key)
        assert states.count("not set") == (3 if setting in expected else 0), rows[key]
    assert not any(note.split(" on ")[0] in expected for note in setting_support.notes("gradescope", missing))
