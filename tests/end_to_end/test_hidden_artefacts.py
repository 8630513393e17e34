"""What each built artefact holds of the hidden reference (``hidden_scan``: every hidden edge
case's inputs, every hidden write_run scenario's inputs, every expected value, the Lab 04 runs'
rankings, encoded as JSON, repr and pickle, and the solutions' answer code as written, searched in
the bytes of every file, inside zips and unpickled pickles):

- PrairieLearn's image build context (pulled by anyone from a public registry): none of it;
- handout.zip (every student's): none of it;
- the question's files PrairieLearn shows students (``question.html``, ``info.json``): none of it;
- what a student receives (Gradescope's and PrairieLearn's results.json, a local batch's
  results.json, feedback.md and feedback.html): none of it;
- where the hidden reference ships (autograder.zip, private to Gradescope's staff; the question's
  private ``tests/``): every needle of the reference, which proves each can be found; and each kind
  of needle planted in a copy of an image file is found there too.
"""

from __future__ import annotations

import json
import pickle
import zipfile

import pytest

from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.platforms.prairielearn import build as prairielearn
from autograder.reports import output_paths
from tests.platforms.test_build import run_autograder
from tests.platforms.test_prairielearn import built, grade, image_home, run_entrypoint, world  # noqa: F401 (fixtures)
from tests.support import hidden_scan

pytestmark = [pytest.mark.cranfield, pytest.mark.slow]


@pytest.fixture(scope="module")
def needles(cranfield) -> hidden_scan.Needles:
    return hidden_scan.build(hidden_scan.handout_bytes())


@pytest.fixture(scope="module")
def question_and_image(tmp_path_factory, cranfield) -> dict:
    return prairielearn.build(
        tmp_path_factory.mktemp("prairielearn"), image="someone/lab05-autograder:2026", lab=default_lab()
    )


def _shown(found: list) -> str:
    return "\n".join(f"{name}: {what[:160]}" for name, what in found[:20]) + (
        f"\n... and {len(found) - 20} more" if len(found) > 20 else ""
    )


def _labels(found: list) -> set:
    return {label for _, what in found for label in what.split("; ")}


def test_there_are_needles_for_every_edge_case_and_the_values(needles):
    """Does the scan look for every hidden edge case's inputs and for over a thousand expected
    values (so that finding nothing means something)?"""
    from autograder.lab import cases

    labels = {
        label
        for mapping in (needles.texts, needles.containers)
        for what in mapping.values()
        for label in what.split("; ")
    }
    assert {case.id for case in cases.EDGE_CASES} <= {label.split("'s ")[0] for label in labels}
    assert len(needles.floats) > 1000 and len(needles.prefixes) > 1000


def test_there_are_needles_for_every_hidden_scenario_and_the_answer_code(needles):
    """Does the scan look for every hidden write_run scenario's inputs, for the solutions' code (more
    than 40 lines of both graded files) and for the lab's answer code (the records' answers, the
    misconception catalogue: more than 200 lines)?"""
    from autograder.lab import scenarios

    labels = {label for what in needles.containers.values() for label in what.split("; ")}
    hidden = {scenario.name for scenario in scenarios.small_scenarios() if not scenario.public}
    assert len(hidden) >= 10 and {f"{name} scenario's inputs" for name in hidden} <= labels
    labels = {label for what in needles.code.values() for label in what.split("; ")}
    solutions = {label for label in labels if label.startswith("solution code of ")}
    answers = [label for label in labels if label.startswith("answer code of ")]
    assert solutions == {"solution code of lab05/metrics.py", "solution code of lab05/runs.py"}
    assert len(needles.code) > 240 and {"answers.py", "variants.py", "arguments.py", "ranking.py"} <= {
        label.rsplit("/", 1)[-1] for label in answers
    }


def test_prairielearn_image_context_holds_nothing_hidden(question_and_image, needles):
    """Does the grader image's build context (Dockerfile, entrypoint, the engine, Cranfield) hold
    no hidden input and no expected value, in any file, zip or pickle?"""
    found = hidden_scan.scan(hidden_scan.folder_files(question_and_image["image"]), needles)
    assert found == [], _shown(found)


def test_handout_zip_holds_nothing_hidden(dist, needles):
    """Does handout.zip (stubs, given code, notebook, public checks) hold no hidden input and no
    expected value?"""
    found = hidden_scan.scan([("handout.zip", dist["handout"].read_bytes())], needles)
    assert found == [], _shown(found)


def test_what_prairielearn_shows_students_holds_nothing_hidden(question_and_image, needles):
    """Do the question's files outside its private tests/ (question.html, info.json) hold nothing
    hidden?"""
    question = question_and_image["question"]
    shown = [(name, data) for name, data in hidden_scan.folder_files(question) if not name.startswith("tests/")]
    assert [name for name, _ in shown] == ["info.json", "question.html"]
    found = hidden_scan.scan(shown, needles)
    assert found == [], _shown(found)


@pytest.mark.parametrize("where", ["autograder.zip", "the question's tests/"])
def test_every_needle_is_where_the_hidden_reference_ships(where, dist, question_and_image, needles):
    """Is every needle found in autograder.zip (Gradescope's private upload) and in the question's
    private tests/ folder: the scan can find each thing it looks for?"""
    if where == "autograder.zip":
        found = hidden_scan.scan([("autograder.zip", dist["autograder"].read_bytes())], needles)
    else:
        found = hidden_scan.scan(hidden_scan.folder_files(question_and_image["question"] / "tests"), needles)
    wanted = {
        label
        for mapping in (needles.texts, needles.prefixes, needles.containers)
        for what in mapping.values()
        for label in what.split("; ")
    }
    assert sorted(wanted - _labels(found)) == []


@pytest.mark.parametrize("where", ["autograder.zip", "the question's tests/"])
def test_the_course_secret_ships_only_where_the_hidden_reference_does(where, dist, question_and_image, needles):
    """Is the course secret (the random cases' seed is drawn from it) found in autograder.zip and in
    the question's private tests/, where the graders read it, so the scans of what students receive
    can find it there too?"""
    if where == "autograder.zip":
        found = hidden_scan.scan([("autograder.zip", dist["autograder"].read_bytes())], needles)
    else:
        found = hidden_scan.scan(hidden_scan.folder_files(question_and_image["question"] / "tests"), needles)
    assert [name for name, what in found if what == "the course secret"] != []


def test_autograder_zip_keeps_the_hidden_reference_under_hidden(dist):
    """Does autograder.zip keep the hidden reference in source/hidden/ (expected values, edge cases,
    hidden scenarios, Cranfield bundle, the course secret, precomputed plan), and nowhere else, and the answer code in
    its place in the engine (the zip is private)?"""
    names = zipfile.ZipFile(dist["autograder"]).namelist()
    hidden = sorted(name for name in names if name.startswith("hidden/"))
    assert [name.split("/")[-1].split("-")[0] for name in hidden] == [
        "plan",
        "course",
        "cranfield",
        "edge_cases.json",
        "expected.json",
        "scenarios.json",
    ]
    assert not [name for name in names if name.startswith("lab/data/")]
    assert {
        "lab/answers.py",
        "lab/variants.py",
        "lab/misconceptions/catalogue.py",
    } <= set(names)


def test_the_image_lacks_the_answer_code_the_question_brings(question_and_image):
    """Does the image leave out the answer code (the records' answers, the misconception catalogue),
    and does the question's private tests/hidden/code/ hold it, file for file, for the entrypoint to
    copy in?"""
    from autograder.platforms.common import shipment

    code = {name for name, _, _ in shipment.code_entries(default_lab())}
    image = {name for name, _ in hidden_scan.folder_files(question_and_image["image"] / "source")}
    brought = {name for name, _ in hidden_scan.folder_files(question_and_image["question"] / "tests/hidden/code")}
    assert {"lab/answers.py", "lab/variants.py", "lab/misconceptions/ranks.py"} <= code
    assert code & image == set() and brought == code


# (id, the image file a copy of which gets it, the needles' kind (``Needles`` field), a word of their
# labels, how the needle is written into the copy)
PLANTED = [
    ("edge-case inputs", "source/lab/cases.py", "texts", "edge-", lambda key: b"X = " + key),
    ("hidden scenario inputs", "source/lab/scenarios.py", "texts", "scenario's", lambda key: key),
    ("expected value as text", "entrypoint", "floats", "expected", lambda key: b"# " + repr(key).encode()),
    ("expected value pickled", "source/requirements.txt", "floats", "of query", lambda key: pickle.dumps({"v": [key]})),
    ("a Lab 04 ranking", "Dockerfile", "texts", "the top 10", lambda key: b"RUN echo '" + key + b"]'"),
    ("solution code", "source/autograder/grading/judge.py", "code", "metrics.py", lambda key: b"    " + key),
    ("answer code", "source/lab/features.py", "code", "variants.py", lambda key: b"    " + key),
]


@pytest.mark.parametrize("kind, where, field, word, write", PLANTED, ids=[row[0] for row in PLANTED])
def test_a_needle_planted_in_a_copy_of_the_image_is_found(question_and_image, needles, kind, where, field, word, write):
    """With one needle of each kind planted in a copy of an image file, does the scan find that
    needle there (the file as built holds none)?"""
    original = (question_and_image["image"] / where).read_bytes()
    assert hidden_scan.scan([(where, original)], needles) == []
    mapping = getattr(needles, field)
    key = next(key for key, what in mapping.items() if word in what)
    planted = write(key)
    copy = planted if planted.startswith(b"\x80") else original + b"\n" + planted + b"\n"  # a pickle: the whole file
    found = _labels(hidden_scan.scan([(where, copy)], needles))
    assert set(mapping[key].split("; ")) <= found, f"{kind}: {mapping[key]} not found in {where} after planting"


def _carol() -> dict:
    """A buggy submission whose hidden cases fail (edge cases and write_run scenarios alike)."""
    from autograder import paths

    folder = paths.ROOT / "examples" / "submissions" / "carol-buggy"
    return {path.name: path.read_bytes() for path in sorted(folder.rglob("*.py"))}


@pytest.mark.sandbox
@pytest.mark.parametrize("where", ["Gradescope", "PrairieLearn", "a local batch"])
def test_what_a_student_receives_holds_nothing_hidden(where, request, needles, tmp_path):
    """autograder.zip and the question's tests/ are private (they hold the hidden reference): do
    the files a student receives for a buggy submission whose hidden cases fail (Gradescope's and
    PrairieLearn's results.json, a local batch's results.json, feedback.md and feedback.html)
    hold none of it?"""
    if where == "Gradescope":
        document = run_autograder(request.getfixturevalue("gradescope_root"), _carol(), "uid")
        shown = [("results.json", json.dumps(document).encode())]
        failed = any(test["score"] < test["max_score"] for test in document["tests"])
    elif where == "PrairieLearn":
        built, home = request.getfixturevalue("built"), request.getfixturevalue("image_home")
        document = run_entrypoint(home, request.getfixturevalue("grade"), built["question"], _carol(), "uid")
        shown = [("results.json", json.dumps(document).encode())]
        failed = 0 < document["score"] < 1
    else:
        submission = tmp_path / "in" / "carol-buggy"
        submission.mkdir(parents=True)
        for name, data in _carol().items():
            (submission / name).write_bytes(data)
        summary = batch.grade_batch(
            [tmp_path / "in"], tmp_path / "out", jobs=1, progress=False, seed="artefacts", lab=default_lab()
        )
        folder = tmp_path / "out" / "submissions" / "carol-buggy"
        shown = [(name, (folder / name).read_bytes()) for name in output_paths.STUDENT_FILES]
        failed = 0 < summary.results[0].score < summary.results[0].max_score
    assert failed, f"{where}: the buggy submission lost no points: nothing hidden was at stake"
    found = hidden_scan.scan(shown, needles)
    assert found == [], _shown(found)
