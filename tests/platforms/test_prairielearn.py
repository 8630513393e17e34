"""PrairieLearn, proven without PrairieLearn or Docker: the question folder parses and says what
PrairieLearn needs; the Dockerfile copies what the entrypoint uses; and the entrypoint, run in a
temporary root that mimics /grade with the image's /grader laid out as the Dockerfile's COPY and
setup.sh leave it, grades the solutions, the stubs, a hostile and a broken submission into
results.json files valid in PrairieLearn's documented format."""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.grading.results import CaseResult, CaseStatus, CheckResult, Flag, FlagKind, Status, SubmissionResult
from autograder.lab import spec
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import shipment
from autograder.platforms.prairielearn import build as prairielearn
from autograder.reports import prairielearn_json
from tests.platforms.test_build import HOSTILE
from tests.support import interpreters, subs

CHECKS = len(
    rubrics.load(default_lab().place.rubric, default_lab()).checks
)  # every check of the rubric is a test of results.json


IMAGE = "someone/lab05-autograder:2026"
MAX_RESULTS = 1024 * 1024  # PrairieLearn refuses results.json over 1 MiB


def check_results(raw: bytes) -> dict:
    """PrairieLearn's external-grader results.json, as documented: at most 1 MiB of JSON; a
    gradable result has ``score`` in [0, 1] and every test a ``name``, ``points`` and ``max_points``
    (0 <= points <= max_points; one missing hides all points) and texts as strings, its score
    consistent with the points; an ungradable one has ``gradable: false`` and ``format_errors``
    (a string or a list of strings)."""
    assert len(raw) <= MAX_RESULTS, f"results.json is {len(raw)} bytes"
    document = json.loads(raw)
    assert isinstance(document, dict)
    number = lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    gradable = document.get("gradable", True)
    assert isinstance(gradable, bool)
    for key in ("message", "output"):
        assert isinstance(document.get(key, ""), str), key
    if not gradable:
        errors = document["format_errors"]
        assert (isinstance(errors, str) and errors) or (
            isinstance(errors, list) and errors and all(isinstance(error, str) and error for error in errors)
        )
        return document
    assert number(document["score"]) and 0 <= document["score"] <= 1
    tests = document.get("tests", [])
    assert isinstance(tests, list)
    for test in tests:
        assert isinstance(test["name"], str) and test["name"]
        assert number(test["points"]) and number(test["max_points"]), test["name"]
        assert 0 <= test["points"] <= test["max_points"], test["name"]
        for key in ("description", "message", "output"):
            assert isinstance(test.get(key, ""), str), (test["name"], key)
    total = sum(test["max_points"] for test in tests)
    if total:
        assert abs(document["score"] - sum(test["points"] for test in tests) / total) < 1e-4
    return document


# ---------------------------------------------------------------- the folders


@pytest.fixture(scope="module")
def built(tmp_path_factory, cranfield):
    return prairielearn.build(tmp_path_factory.mktemp("prairielearn"), image=IMAGE, lab=default_lab())


class _Elements(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict, tuple]] = []  # (tag, attributes, the open tags around it)
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs), tuple(self.open)))
        self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]


def test_info_json_asks_for_external_grading_by_the_image(built):
    """Does info.json parse, with a uuid, the title, and external grading by the given image and
    its entrypoint, a timeout within PrairieLearn's 600 s, and no network?"""
    info = json.loads((built["question"] / "info.json").read_text())
    assert uuid.UUID(info["uuid"]).version == 5
    assert info["title"] == rubrics.load(paths.RUBRIC, lab=default_lab()).title and info["type"] == "v3"
    assert info["gradingMethod"] == "External"
    options = info["externalGradingOptions"]
    assert options["enabled"] is True and options["image"] == IMAGE
    assert options["entrypoint"] == "/grader/entrypoint"
    assert options["timeout"] == min(rubrics.load(paths.RUBRIC, lab=default_lab()).limits.overall_seconds, 600)
    assert options["enableNetworking"] is False


def test_question_html_uploads_the_two_graded_files(built):
    """Does question.html have the question panel, an upload of exactly the graded files, and the
    grader's results inside the submission panel?"""
    parser = _Elements()
    parser.feed((built["question"] / "question.html").read_text())
    tags = {tag: (attributes, around) for tag, attributes, around in parser.found}
    assert "pl-question-panel" in tags
    names = [name.strip() for name in tags["pl-file-upload"][0]["file-names"].split(",")]
    assert names == list(spec.GRADED_FILES)
    assert "pl-submission-panel" in tags["pl-external-grader-results"][1]


def test_question_tests_hold_the_rubric_and_the_hidden_reference(built):
    """Is tests/grading.yml the rubric, valid, and does tests/hidden/ hold the hidden reference the
    entrypoint reads from /grade/tests (edge cases, hidden write_run scenarios, expected values,
    Cranfield bundle, one plan)?"""
    tests = built["question"] / "tests"
    text = (tests / "grading.yml").read_text()
    assert text == paths.RUBRIC.read_text() and rubrics.parse(text, lab=default_lab()).total == 100
    assert (tests / "hidden" / "expected.json").read_bytes() == paths.REFERENCE.read_bytes()
    assert (tests / "hidden" / "edge_cases.json").read_bytes() == paths.EDGE_CASES.read_bytes()
    assert (tests / "hidden" / "scenarios.json").read_bytes() == paths.SCENARIOS.read_bytes()
    assert not (built["image"] / "source" / "lab" / "data").exists()
    assert (tests / "hidden" / "cranfield-bundle.json").is_file()
    assert len(list((tests / "hidden" / "cache").glob("plan-*.pickle"))) == 1


#: PrairieLearn's schema of infoAssessment.json, the part a sample uses, transcribed from
#: apps/platforms/prairielearn/src/schemas/schemas/infoAssessment.json in github.com/PrairieLearn/PrairieLearn
#: (2026-12; definitions ZoneAssessmentJsonSchema, ZoneQuestionBlockJsonSchema, PointsJsonSchema,
#: QuestionIdJsonSchema): the required properties and their types, and no property the schema lacks
#: (it allows no others: additionalProperties false).
UUID_PATTERN = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
POINTS = {"type": "number", "minimum": 0}
INFO_ASSESSMENT_SCHEMA = {
    "type": "object",
    "required": ["uuid", "type", "title", "set", "number"],
    "additionalProperties": False,
    "properties": {
        "uuid": {"type": "string", "pattern": UUID_PATTERN},
        "type": {"type": "string", "enum": ["Homework", "Exam"]},
        "title": {"type": "string"},
        "set": {"type": "string"},
        "number": {"type": "string"},
        "text": {"type": "string"},
        "maxPoints": POINTS,
        "zones": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "title": {"type": "string"},
                    "maxPoints": POINTS,
                    "questions": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "id": {"type": "string"},
                                "points": POINTS,
                                "autoPoints": POINTS,
                                "maxPoints": POINTS,
                                "maxAutoPoints": POINTS,
                                "manualPoints": POINTS,
                                "gradeRateMinutes": {"type": "number", "minimum": 0},
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sample_assessment_uses_the_question_for_the_rubric_s_points(built):
    """Is the sample infoAssessment.json valid by PrairieLearn's schema, a Homework whose one
    question is the built one (its folder questions/lab05/), worth grading.yml's total, with
    PrairieLearn's own rules on points kept (never points with autoPoints; maxAutoPoints only with
    autoPoints on a Homework)?"""
    import jsonschema

    document = json.loads((built["assessment"] / "infoAssessment.json").read_text())
    jsonschema.validate(document, INFO_ASSESSMENT_SCHEMA)
    assert uuid.UUID(document["uuid"]).version == 5
    assert document["uuid"] != json.loads((built["question"] / "info.json").read_text())["uuid"]
    questions = [question for zone in document["zones"] for question in zone["questions"]]
    assert questions[0]["id"] == prairielearn.question_id(default_lab()) == "lab05"
    total = rubrics.load(paths.RUBRIC, lab=default_lab()).total
    assert questions[0]["autoPoints"] == questions[0]["maxAutoPoints"] == total == 100
    assert "points" not in questions[0] and document["type"] == "Homework"
    assert [question["id"] for question in questions[1:]] == [
        prairielearn.analysis_id(default_lab())
    ]  # grading.yml's analysis:


def test_sample_assessment_with_a_grade_rate_is_valid():
    """With attempts limited per period, is gradeRateMinutes on the question of the sample (where
    PrairieLearn reads it: a question, zone or assessment of infoAssessment.json) and still valid?"""
    import jsonschema

    limited = rubrics.parse(
        paths.RUBRIC.read_text() + "attempts: {per_period: 4, period_hours: 24}\n", lab=default_lab()
    )
    document = prairielearn.assessment(limited, default_lab())
    jsonschema.validate(document, INFO_ASSESSMENT_SCHEMA)
    assert document["zones"][0]["questions"][0]["gradeRateMinutes"] == 360
    broken = json.loads(json.dumps(document))
    broken["zones"][0]["questions"][0]["gradeRateMinutes"] = -1
    with pytest.raises(jsonschema.ValidationError, match="gradeRateMinutes"):
        jsonschema.validate(broken, INFO_ASSESSMENT_SCHEMA)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        pytest.param(lambda d: d.pop("set"), "set", id="missing-required"),
        pytest.param(lambda d: d.update(number=5), "number", id="number-not-a-string"),
        pytest.param(lambda d: d.update(type="Quiz"), "type", id="unknown-type"),
        pytest.param(lambda d: d.update(uuid="lab05"), "uuid", id="not-a-uuid"),
        pytest.param(lambda d: d["zones"][0]["questions"][0].update(autoPoints=-1), "autoPoints", id="negative"),
        pytest.param(lambda d: d["zones"][0].update(questions=[]), "questions", id="no-question"),
        pytest.param(lambda d: d.update(allowAcess=[]), "allowAcess", id="misspelt-property"),
    ],
)
def test_the_transcribed_schema_refuses_what_prairielearn_refuses(change, field):
    """Does the schema the sample is checked against refuse a sample broken as PrairieLearn would
    refuse it (so that the check above can fail)?"""
    import jsonschema

    document = prairielearn.assessment(rubrics.load(paths.RUBRIC, lab=default_lab()), default_lab())
    jsonschema.validate(document, INFO_ASSESSMENT_SCHEMA)
    change(document)
    with pytest.raises(jsonschema.ValidationError, match=field):
        jsonschema.validate(document, INFO_ASSESSMENT_SCHEMA)


def test_build_is_reproducible(built, tmp_path):
    """Does building again give byte-identical folders, with the same uuid?"""
    again = prairielearn.build(tmp_path, image=IMAGE, lab=default_lab())
    for part, folder in built.items():
        files = sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(again[part]) for p in again[part].rglob("*") if p.is_file())
        for name in files:
            assert (folder / name).read_bytes() == (again[part] / name).read_bytes(), name


def test_build_refuses_to_replace_a_folder_it_did_not_write(tmp_path, cranfield):
    """Is an existing OUT/question that is not a built question left alone, with a clear error?"""
    (tmp_path / "question").mkdir()
    (tmp_path / "question" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a folder this build wrote"):
        prairielearn.build(tmp_path, lab=default_lab())
    assert (tmp_path / "question" / "notes.txt").read_text() == "mine"


def _dockerfile(built) -> list[list[str]]:
    return [line.split() for line in (built["image"] / "Dockerfile").read_text().splitlines() if line[:1].isupper()]


def test_dockerfile_copies_what_the_entrypoint_needs(built):
    """Does the Dockerfile start from Ubuntu 22.04 (Python 3.10, as on Gradescope), copy the
    shipped grader and the entrypoint from the context, run setup.sh on them, and use the
    entrypoint info.json names; and does the context hold everything the entrypoint reads?"""
    lines = _dockerfile(built)
    assert lines[0] == ["FROM", "ubuntu:22.04"]
    copies = {source: target for word, source, target in (line for line in lines if line[0] == "COPY")}
    assert copies == {"source/": "/grader/source/", "entrypoint": "/grader/entrypoint"}
    run = next(" ".join(line) for line in lines if line[0] == "RUN")
    assert "AUTOGRADER_SOURCE=/grader/source bash /grader/source/setup.sh" in run
    entrypoint = json.loads(next(" ".join(line[1:]) for line in lines if line[0] == "ENTRYPOINT"))
    info = json.loads((built["question"] / "info.json").read_text())
    assert entrypoint == [info["externalGradingOptions"]["entrypoint"]]
    source = built["image"] / "source"
    for name in (
        "setup.sh",
        "requirements.txt",
        "autograder/__main__.py",
        "autograder/sandbox/child/harness.py",
        "assignment/lab05/data.py",
        "ir_datasets/cranfield/docs.txt",
    ):
        assert (source / name).is_file(), name
    shipped = {path.relative_to(source).as_posix() for path in source.rglob("*") if path.is_file()}
    hidden = {"grading.yml", "cranfield-bundle.json", "lab/data/expected.json"}
    assert hidden & shipped == set() and not (source / "cache").exists() and not (source / "hidden").exists()
    assert os.access(built["image"] / "entrypoint", os.X_OK)
    script = (built["image"] / "entrypoint").read_text()
    for used in (
        'HIDDEN="$ROOT/tests/hidden"',
        'AUTOGRADER_HIDDEN="$HIDDEN"',
        "$HIDDEN/cranfield-bundle.json",
        "$HIDDEN/cache",
        "$ROOT/tests/grading.yml",
        "$SOURCE/ir_datasets",
        "$SOURCE/venv/bin/python",
    ):
        assert used in script, used


# ---------------------------------------------------------------- the entrypoint in a simulated /grade


@pytest.fixture(scope="module")
def world():
    """A folder every user may pass through, as / is in the container: only the entrypoint's and
    setup.sh's own permissions keep the sandbox user out of what lies below."""
    folder = Path(tempfile.mkdtemp(prefix="lab05-prairielearn-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def grade(world):
    """A fresh /grade for one run."""
    folder = Path(tempfile.mkdtemp(prefix="grade-", dir=world))
    os.chmod(folder, 0o755)
    return folder


@pytest.fixture(scope="module")
def image_home(built, world):
    """The image's /grader as the Dockerfile leaves it: its COPY lines, then setup.sh (installing
    skipped: the packages are here)."""
    if os.getuid() != 0:
        pytest.fail("the PrairieLearn simulation creates a user and drops privileges: run it as root", pytrace=False)
    image = world / "image"
    for line in _dockerfile(built):
        if line[0] == "COPY":
            source, target = built["image"] / line[1], image / line[2].lstrip("/")
            if source.is_dir():
                shutil.copytree(source, target)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
    environment = {**os.environ, "AUTOGRADER_SOURCE": str(image / "grader" / "source"), "AUTOGRADER_SKIP_INSTALL": "1"}
    subprocess.run(["bash", str(image / "grader" / "source" / "setup.sh")], check=True, env=environment, timeout=120)
    return image / "grader"


def run_entrypoint(
    home: Path,
    grade: Path,
    question: Path,
    files: dict,
    isolation: str,
    output: list | None = None,
    status: int = 0,
    **environment,
) -> dict:
    """The entrypoint on ``files`` uploaded to ``grade/student``, the question's ``tests/`` copied
    to ``grade/tests`` as PrairieLearn does; its results.json, validated when it exits 0
    (``status``: the exit status expected), its output appended to ``output`` when given."""
    (grade / "student").mkdir(parents=True)
    shutil.copytree(question / "tests", grade / "tests")
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps({"params": {}, "submitted_answers": {}}))
    for name, content in files.items():
        (grade / "student" / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "IR_DATASETS"))}
    env.update(
        {
            "AUTOGRADER_GRADE_ROOT": str(grade),
            "AUTOGRADER_HOME": str(home),
            "AUTOGRADER_PYTHON": sys.executable,
            "AUTOGRADER_CHILD_PYTHON": "/usr/bin/python3",
            "AUTOGRADER_ISOLATION": isolation,
            **environment,
        }
    )
    run = subprocess.run(
        ["bash", str(home / "entrypoint")], env=env, capture_output=True, text=True, timeout=300, cwd="/"
    )
    assert run.returncode == status, run.stderr
    if output is not None:
        output.append(run.stdout + run.stderr)
    raw = (grade / "results" / "results.json").read_bytes()
    return check_results(raw) if status == 0 else json.loads(raw)


GRADED = {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}
STUBS = {name: paths.handout_file(name).read_text() for name in spec.GRADED_FILES}


def _hostile(home: Path, grade: Path) -> dict:
    runs, metrics = HOSTILE
    metrics = (
        metrics.replace("{root}/source", f"{home}/source")
        .replace("{root}/results", f"{grade}/results")
        .replace("/autograder/source", "/grader/source")
        .replace("/autograder/results", "/grade/results")
        .replace("{{", "{")
        .replace("}}", "}")
    )
    hunted = [f"{grade}/tests/grading.yml", f"{grade}/data/data.json", f"{grade}/tests/hidden/expected.json"]
    hunted += [f"{grade}/tests/hidden/edge_cases.json", f"{grade}/tests/hidden/cranfield-bundle.json"]
    metrics += f"\nfor path in {hunted!r}:\n"
    metrics += "    try:\n        FOUND.append(open(path).read(100))\n    except OSError:\n        pass\n"
    metrics += (
        "\n\ndef accuracy(retrieved, relevant, collection_size):\n    raise RuntimeError(f'found {len(FOUND)}')\n"
    )
    return {"metrics.py": metrics, "runs.py": runs}


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["auto", "uid"])
class TestEntrypoint:
    def test_solutions_score_1(self, built, image_home, grade, isolation):
        """Does the entrypoint give the solutions a score of 1, every check a test with full points?"""
        document = run_entrypoint(image_home, grade, built["question"], GRADED, isolation)
        assert document["gradable"] is True and document["score"] == 1
        assert len(document["tests"]) == CHECKS
        assert all(test["points"] == test["max_points"] for test in document["tests"])

    def test_stubs_score_0(self, built, image_home, grade, isolation):
        """Do the stubs score 0, with every test listed and the NotImplementedError shown?"""
        document = run_entrypoint(image_home, grade, built["question"], STUBS, isolation)
        assert document["score"] == 0 and len(document["tests"]) == CHECKS
        assert "NotImplementedError" in json.dumps(document)

    def test_hostile_submission_gains_nothing(self, built, image_home, grade, isolation):
        """A submission that forges results.json and hunts for the reference (in the image and in
        /grade/tests/hidden), the rubric and the job's data: is the forged file replaced, nothing
        read, and the score what its code earns?"""
        document = run_entrypoint(image_home, grade, built["question"], _hostile(image_home, grade), isolation)
        assert "forged" not in json.dumps(document) and len(document["tests"]) == CHECKS
        assert document["score"] == 0.18  # write_run's 18 points, which its correct runs.py earns
        assert "found 0" in json.dumps(document)

    @pytest.mark.parametrize(
        "files, problem",
        [
            ({"lab05.zip": b"PK\x03\x04 not a zip at all"}, "not a readable zip"),
            ({"notes.txt": "my metrics are in the notebook"}, "metrics.py"),
        ],
        ids=["broken-zip", "no-graded-files"],
    )
    def test_broken_submission_is_not_gradable(self, built, image_home, grade, isolation, files, problem):
        """Is a submission without usable graded files reported as not gradable, saying why?"""
        document = run_entrypoint(image_home, grade, built["question"], files, isolation)
        assert document["gradable"] is False
        assert problem in " ".join(document["format_errors"])


@pytest.mark.sandbox
@pytest.mark.slow
def test_hidden_reference_comes_from_the_questions_tests(built, image_home, grade, tmp_path):
    """The image holds no reference and no answer code: with the question's tests/hidden/ left out,
    does grading stop (a score of 0, nothing graded) with the job's output saying what is missing
    and that the grader could not run; and with it, do the solutions score 1 (the test class above)?"""
    question = tmp_path / "question"
    shutil.copytree(built["question"], question)
    shutil.rmtree(question / "tests" / "hidden")
    for name, _, _ in shipment.code_entries(
        default_lab()
    ):  # the image as pulled: an earlier job of this module copied it in
        (image_home / "source" / name).unlink(missing_ok=True)
    output: list = []
    document = run_entrypoint(image_home, grade, question, GRADED, "auto", output)
    assert document["score"] == 0 and document["tests"] == []
    assert "the question's tests/grading.yml or tests/hidden/ is missing" in output[0]
    assert "the grader exited with status 1 before writing results.json" in output[0]


@pytest.mark.sandbox
@pytest.mark.slow
def test_entrypoint_writes_results_and_exits_0_when_the_grader_cannot_start(built, image_home, grade):
    """When the grader's interpreter cannot even start: does the entrypoint still leave a valid
    results.json of 0 saying where the details are, and exit 0 (PrairieLearn ignores results
    after a non-zero exit)?"""
    document = run_entrypoint(image_home, grade, built["question"], GRADED, "auto", AUTOGRADER_PYTHON="false")
    assert document["score"] == 0 and document["tests"] == []
    assert "which your instructor sees on PrairieLearn" in document["message"]


@pytest.mark.sandbox
def test_entrypoint_doctor_prints_what_the_container_allows(image_home):
    """Does `entrypoint --doctor`, run on the image alone (no /grade), print the machine's facts and
    find the image's Cranfield?"""
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "IR_DATASETS"))}
    environment.update(
        {
            "AUTOGRADER_HOME": str(image_home),
            "AUTOGRADER_PYTHON": sys.executable,
            "AUTOGRADER_CHILD_PYTHON": "/usr/bin/python3",
        }
    )
    run = subprocess.run(
        ["bash", str(image_home / "entrypoint"), "--doctor"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert run.returncode == 0, run.stderr
    assert f"cached in {image_home / 'source' / 'ir_datasets' / 'cranfield'}" in run.stdout
    assert run.stdout.splitlines()[-1].startswith("isolation auto chooses: ")


# ---------------------------------------------------------------- the renderer


def _result(checks=(), status=Status.GRADED, problems=(), flags=()) -> SubmissionResult:
    return SubmissionResult("s", status, tuple(checks), problems=tuple(problems), flags=tuple(flags))


def _check(score: float, message: str = "", failing: int = 0) -> CheckResult:
    cases = tuple(
        CaseResult(f"c{i}", "a case", True, CaseStatus.ERROR, message, call=f"f({i})") for i in range(failing)
    )
    return CheckResult("accuracy: hidden edge cases", "q1", "accuracy", CheckKind.EDGE, 2, score, "visible", cases)


@pytest.mark.parametrize(
    "result, expected",
    [
        (_result([_check(2), _check(1)]), {"gradable": True, "score": 0.75}),
        (_result([_check(0), _check(0)]), {"gradable": True, "score": 0.0}),
        (
            _result(status=Status.ERROR, problems=["lab05.zip is not a readable zip file"]),
            {"gradable": False, "format_errors": ["lab05.zip is not a readable zip file"]},
        ),
        (
            _result([_check(0)], Status.ERROR, ["the grader failed"], [Flag(FlagKind.GRADER, "internal error")]),
            {"gradable": True, "score": 0.0},
        ),
    ],
    ids=["partial", "zero", "unreadable-zip", "grader-failed"],
)
def test_renderer_scores_in_0_1_and_marks_what_cannot_be_graded(result, expected):
    """Is the score the fraction earned, and only a submission whose own files are unusable not
    gradable (a grader failure still counts as graded, with 0)?"""
    document = prairielearn_json.document(result, lab=default_lab())
    check_results(json.dumps(document).encode())
    assert {key: document[key] for key in expected} == expected


def test_renderer_cuts_long_feedback_to_stay_under_1_mb():
    """With feedback far past 1 MiB (long error messages in every check, in letters JSON escapes
    to 6 bytes each): is the document under the limit, and does it say that text was cut?"""
    checks = [_check(0, "é" * 200_000, failing=6) for _ in range(36)]
    assert sum(len(prairielearn_json.markdown.check_text(check, default_lab())) for check in checks) > 5 * MAX_RESULTS
    raw = json.dumps(prairielearn_json.document(_result(checks), lab=default_lab())).encode()
    check_results(raw)
    assert re.search(r"more characters cut: PrairieLearn keeps results under 1 MB", raw.decode())


def test_the_entrypoint_refuses_with_a_child_python_the_sandbox_user_cannot_read(image_home, grade, built):
    """With a child interpreter under a folder only root may enter, does the entrypoint grade
    nothing (the reference neither): exit non-zero (a failed grading job), results.json without a
    score, and the proof's failure in the job's output?"""
    output: list[str] = []
    with interpreters.sealed() as python:
        document = run_entrypoint(
            image_home, grade, built["question"], GRADED, "uid", output, status=2, AUTOGRADER_CHILD_PYTHON=python
        )
    assert "score" not in document and "could not prove that it grades honest work" in document["message"]
    assert "refused to grade" in output[0] and "No module named '__future__'" in output[0]
