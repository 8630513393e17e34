"""grading.yml's schema, declared once (autograder/grading/rubric_schema.py): the messages its
mistakes get, the lab's names taken from the lab, and the JSON Schema generated from it, which
every grading.yml of the repository meets."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from autograder import paths
from autograder.grading import rubric, rubric_schema
from autograder.labkit.load import default, load
from autograder.labkit.load import default as default_lab
from autograder.sandbox.settings import Limits
from tests.support import classes, generated

BASE = paths.RUBRIC.read_text(encoding="utf-8")
LAST = """      - {function: largest_differences, kind: examples, points: 1}
      - {function: largest_differences, kind: edge, points: 2}
      - {function: largest_differences, kind: random, points: 3}"""

#: id: (grading.yml as the mistake leaves it, the whole message)
MISTAKES = {
    "kind misspelt": (
        BASE.replace("{function: precision_at_k, kind: edge", "{function: precision_at_k, kind: edges"),
        "grading.yml: questions.q2.checks.1.kind: 'edges' is not a kind of check for precision_at_k; use one of: "
        "examples, edge, random, cranfield",
    ),
    "key misspelt": (
        BASE.replace("{function: accuracy, kind: edge, points: 1}", "{function: accuracy, kind: edge, point: 1}"),
        "grading.yml: questions.q1.checks.4.point: unknown key; the keys here are: function, kind, points, "
        "visibility, scoring; did you mean points?",
    ),
    "points as text": (
        BASE.replace("{function: accuracy, kind: edge, points: 1}", "{function: accuracy, kind: edge, points: one}"),
        "grading.yml: questions.q1.checks.4.points: must be a number, got 'one'",
    ),
    "no checks": (
        BASE.replace(LAST, "    checks: []").replace("total: 100", "total: 94"),
        "grading.yml: questions.q6.checks: is empty: the question's checks, at least one.",
    ),
    "a count as yes": (
        BASE + "attempts: {total: yes}\n",
        "grading.yml: attempts.total: must be a whole number of graded attempts (0: no limit), got True",
    ),
    "a section as a list": (
        BASE + "students: [latest]\n",
        "grading.yml: students: must be a dict of policy, group_extension, got a list of 1",
    ),
    "a missing key": (
        BASE.replace("random_seed: 20261130\n", ""),
        "grading.yml: random_seed: is missing: the seed of the random cases (with the course secret).",
    ),
    "a section's missing key": (
        BASE + "deadline: {penalty: 10}\n",
        "grading.yml: deadline.due: is missing: the due date, e.g. due: 2026-12-05 23:59 (in timezone) or due: "
        "2026-12-05T23:59:00-06:00",
    ),
    "a due date before the last": (
        BASE + "deadline: {due: 2026-12-05T23:59:00Z, last_accepted: 2026-12-01T00:00:00Z}\n",
        "grading.yml: deadline.last_accepted: 2026-12-01 00:00 UTC+00:00 is before the due date 2026-12-05 23:59 "
        "UTC+00:00: make it later",
    ),
    "points that do not add up": (
        BASE.replace("total: 100", "total: 99"),
        "grading.yml: total: is 99 but the checks' points add up to 100; change total or the points",
    ),
    "a limit of nothing": (
        BASE.replace("output_kb: 64", "output_kb: 0"),
        "grading.yml: limits.output_kb: must be positive, got 0",
    ),
    "a bool as a number": (
        BASE.replace("total: 100", "total: true"),
        "grading.yml: total: must be a number, got True",
    ),
    "not a mapping at all": (
        "- a list\n",
        "grading.yml: must be a dict of title, total, random_seed, random_cases, "
        "limits, questions, similarity, allowed_imports, scoring, students, deadline, attempts, analysis, got a list "
        "of 1",
    ),
    "an analysis claim worth less than nothing": (
        BASE.replace("  claim_points: 2\n", "  claim_points: -1\n"),
        "grading.yml: analysis.claim_points: must be 0 or more points, got -1",
    ),
    "an analysis counting no claim": (
        BASE.replace("  claims: 2\n", "  claims: 0\n"),
        "grading.yml: analysis.claims: must be at least 1, got 0",
    ),
}


MISTAKES["a deadline with nothing under it"] = (
    BASE + "deadline:\n",
    "grading.yml: deadline: must be a dict of due, timezone, penalty, per, cap, last_accepted, extensions, got None",
)


@pytest.mark.parametrize("case", MISTAKES.values(), ids=MISTAKES.keys())
def test_a_mistake_gets_one_message_naming_the_key_the_value_and_what_is_allowed(case):
    """Does each typical mistake stop the rubric with one message: the key's path (dots, list
    indexes as numbers), the value found and what is allowed, and no pydantic dump?"""
    text, message = case
    with pytest.raises(rubric.RubricError) as raised:
        rubric.parse(text, lab=default_lab())
    assert str(raised.value) == message


#: id: (grading.yml with a key left out or written another way, what the Rubric then holds, its value)
LEFT_OUT = {
    "a limit left out": (
        BASE.replace("  call_seconds: 5\n", ""),
        lambda r: (r.limits.call_seconds, r.limits.memory_mb),
        (5.0, 512),
    ),
    "an empty deadline": (BASE + "deadline: {}\n", lambda r: r.deadline, None),
    "a number as a question's id": (BASE.replace("  q1:", "  1:"), lambda r: r.questions[0].id, "1"),
    "a check's own scoring": (
        BASE.replace("kind: run_format, points: 5, scoring: proportional", "kind: run_format, points: 5, scoring: all"),
        lambda r: next(check.scoring for check in r.checks if check.kind == "run_format"),
        "all",
    ),
    "the analysis's points": (BASE, lambda r: (r.analysis.claims_max, r.analysis.total), (4.0, 8.0)),
    "no analysis section": (
        BASE.replace("analysis:\n  claims: 2\n  claim_points: 2\n  prose_points: 4\n", ""),
        lambda r: r.analysis,
        None,
    ),
    "the rubric's scoring": (
        BASE.replace("allowed_imports: [numpy]", "allowed_imports: [numpy]\nscoring: all"),
        lambda r: r.checks[0].scoring,
        "all",
    ),
}


@pytest.mark.parametrize("case", LEFT_OUT.values(), ids=LEFT_OUT.keys())
def test_what_is_left_out_takes_its_default(case):
    """Does a key left out take its default (a limit the sandbox's, no deadline, the rubric's
    scoring), and a question's id written as a number become its text?"""
    text, read, value = case
    assert read(rubric.parse(text, lab=default_lab())) == value


def _names(**changes: Any) -> rubric_schema.LabNames:
    made_up = {
        "functions": ("mean_rank",),
        "kinds_for": {"mean_rank": ("examples", "random")},
        "kind_labels": {"examples": "the notes' examples", "random": "random cases"},
        "visibilities": ("visible", "hidden"),
        "evaluation_libraries": ("ranx",),
    }
    return rubric_schema.LabNames(**{**made_up, **changes})


MADE_UP = {
    "title": "Lab 99",
    "total": 3,
    "random_seed": 1,
    "random_cases": 5,
    "questions": {"q1": {"title": "One", "checks": [{"function": "mean_rank", "kind": "random", "points": 3}]}},
}

#: id: (the made-up lab's rubric with one change, the message, or "" when it is valid there)
MADE_UP_CASES = {
    "its own function": ({}, ""),
    "a function of lab 05": (
        {"function": "precision_at_k"},
        "questions.q1.checks.0.function: 'precision_at_k' is not a function of the student API; use one of: mean_rank",
    ),
    "a kind it lacks": (
        {"kind": "edge"},
        "questions.q1.checks.0.kind: 'edge' is not a kind of check for mean_rank; use one of: examples, random",
    ),
    "a visibility it lacks": (
        {"visibility": "after_due_date"},
        "questions.q1.checks.0.visibility: 'after_due_date' is not one of visible, hidden",
    ),
}


@pytest.mark.parametrize("case", MADE_UP_CASES.values(), ids=MADE_UP_CASES.keys())
def test_the_lab_s_names_come_from_the_lab_the_rubric_is_parsed_for(case):
    """Are the functions, kinds and visibilities the ones of the lab given in the context (a
    made-up lab accepts its own function and refuses Lab 05's), not names the schema holds?"""
    change, message = case
    data = json.loads(json.dumps(MADE_UP))
    data["questions"]["q1"]["checks"][0].update(change)
    try:
        rubric_schema.RubricFile.model_validate(data, context={"lab": _names()})
        found = ""
    except rubric_schema.ValidationError as error:
        found = rubric_schema.explain(error)
    assert found == message


def test_an_evaluation_library_is_the_lab_s_own():
    """Is an allowed import refused as an evaluation library when the lab's list names it, and only then?"""
    data = {**MADE_UP, "allowed_imports": ["ranx"]}
    with pytest.raises(rubric_schema.ValidationError) as raised:
        rubric_schema.RubricFile.model_validate(data, context={"lab": _names()})
    assert rubric_schema.explain(raised.value) == (
        "allowed_imports: ranx is an evaluation library: metric code may not use it"
    )
    valid = rubric_schema.RubricFile.model_validate(data, context={"lab": _names(evaluation_libraries=())})
    assert valid.allowed_imports == ["ranx"]


LAB06 = paths.ROOT / "tests" / "fixtures" / "lab06"

#: id -> (the rubric file, the lab it is parsed for, its checks' functions or the words its error holds)
LAB_RUBRICS = {
    "lab06 for lab06": (LAB06 / "grading.yml", lambda: load(LAB06), ("f1_score", "majority_label")),
    "lab05 for lab05": (paths.RUBRIC, default, ("confusion_matrix", "largest_differences")),
    "lab06 for lab05": (LAB06 / "grading.yml", default, "'f1_score' is not a function of the student API"),
    "lab05 for lab06": (paths.RUBRIC, lambda: load(LAB06), "'confusion_matrix' is not a function of the student API"),
}


@pytest.mark.parametrize("case_id", LAB_RUBRICS)
def test_a_rubric_is_checked_against_the_lab_it_is_given(case_id):
    """Does ``rubric.load(path, lab)`` accept the functions of the lab it is given, and refuse another
    lab's, whichever lab the environment chose?"""
    path, loader, want = LAB_RUBRICS[case_id]
    if isinstance(want, str):
        with pytest.raises(rubric.RubricError, match=re.escape(want)):
            rubric.load(path, loader())
        return
    loaded = rubric.load(path, loader())
    assert (loaded.checks[0].function, loaded.checks[-1].function) == want
    assert loaded.limits.functions == len(loader().functions)


def test_validating_without_the_lab_s_names_says_what_to_pass():
    """Does validation without the lab's names in the context raise a TypeError saying what to pass?"""
    with pytest.raises(TypeError, match=r"context=\{'lab': LabNames"):
        rubric_schema.RubricFile.model_validate(MADE_UP)


def test_the_limits_section_is_the_sandbox_s_rubric_limits():
    """Are the keys of limits: the ones the sandbox lets a rubric set, with the sandbox's defaults?"""
    fields = rubric_schema.LimitsSection.model_fields
    assert tuple(fields) == Limits.RUBRIC_FIELDS
    assert {key: field.default for key, field in fields.items()} == {key: getattr(Limits(), key) for key in fields}


def _models() -> list[type[rubric_schema.BaseModel]]:
    return [
        rubric_schema.RubricFile,
        *(
            model
            for model in vars(rubric_schema).values()
            if isinstance(model, type)
            and issubclass(model, rubric_schema.BaseModel)
            and model.__name__.endswith(("Section", "Entry"))
        ),
    ]


@pytest.mark.parametrize("model", _models(), ids=lambda model: model.__name__)
def test_every_key_says_what_it_means(model):
    """Does every key of each section have a description (the reference page's meaning column)?"""
    assert model.__doc__ and all(field.description for field in model.model_fields.values())


# ---------------------------------------------------------------- the JSON Schema

SCHEMA = json.loads((paths.ROOT / "docs" / "grading.schema.json").read_text(encoding="utf-8"))


def _as_json(value: object) -> object:
    """A YAML value as JSON holds it: a timestamp as its text."""
    if isinstance(value, dict):
        return {str(key): _as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _written_by_tests(tmp_path: Path) -> dict[str, str]:
    return {
        "the class's (tests/classes.py)": classes.rubric_text(),
        "the generated class's (tests/generated.py)": generated.light_rubric(tmp_path).read_text(encoding="utf-8"),
        "with attempts and a timezone (test_attempts)": BASE
        + "attempts:\n  per_period: 3\n  period_hours: 12\n  total: 20\n"
        + "deadline: {due: 2026-12-05 23:59, timezone: Europe/Madrid}\n",
    }


GRADING_YMLS = {
    "the repository's": paths.ROOT / "grading.yml",
    "the second lab's (tests/fixtures/lab06)": paths.ROOT / "tests" / "fixtures" / "lab06" / "grading.yml",
}


def test_every_grading_yml_of_the_repository_meets_the_json_schema(tmp_path):
    """Do the repository's grading.yml, the fixtures' and those the tests write all meet
    docs/grading.schema.json (and are there any beyond those listed here)?"""
    found = sorted(
        path.relative_to(paths.ROOT)
        for path in paths.ROOT.glob("**/grading.yml")
        if not any(
            part.startswith(".") or part in ("dist", "build", "node_modules")
            for part in path.relative_to(paths.ROOT).parts
        )
    )
    assert found == sorted(path.relative_to(paths.ROOT) for path in GRADING_YMLS.values())
    texts = {name: path.read_text(encoding="utf-8") for name, path in GRADING_YMLS.items()} | _written_by_tests(
        tmp_path
    )
    validator = jsonschema.Draft202012Validator(SCHEMA)
    problems = {
        name: [error.message for error in validator.iter_errors(_as_json(yaml.safe_load(text)))]
        for name, text in texts.items()
    }
    assert problems == {name: [] for name in texts}


#: id: the mistakes the JSON Schema refuses too (so an editor flags them before the grader does)
REFUSED = {
    name: MISTAKES[name][0]
    for name in (
        "key misspelt",
        "points as text",
        "no checks",
        "a count as yes",
        "a section as a list",
        "a missing key",
        "a limit of nothing",
        "a bool as a number",
        "not a mapping at all",
    )
}


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_the_json_schema_refuses_what_the_grader_refuses(text):
    """Does the JSON Schema refuse each mistake it can see (a key, a type, a bound), as the grader does?"""
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(_as_json(yaml.safe_load(text))))
