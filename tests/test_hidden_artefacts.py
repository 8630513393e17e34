"""What each built artefact holds of the hidden reference (``hidden_scan``: every hidden edge
case's inputs, every expected value, the Lab 04 runs' rankings, encoded as JSON, repr and pickle,
searched in the bytes of every file, inside zips and unpickled pickles):

- PrairieLearn's image build context (pulled by anyone from a public registry): none of it;
- handout.zip (every student's): none of it;
- the question's files PrairieLearn shows students (``question.html``, ``info.json``): none of it;
- where the hidden reference ships (autograder.zip, private to Gradescope's staff; the question's
  private ``tests/``): every needle, which proves each needle can be found.
"""

from __future__ import annotations

import zipfile

import hidden_scan
import pytest

from autograder.platforms.prairielearn import build as prairielearn

pytestmark = [pytest.mark.cranfield, pytest.mark.slow]


@pytest.fixture(scope="module")
def needles(cranfield) -> hidden_scan.Needles:
    return hidden_scan.build(hidden_scan.handout_bytes())


@pytest.fixture(scope="module")
def question_and_image(tmp_path_factory, cranfield) -> dict:
    return prairielearn.build(tmp_path_factory.mktemp("prairielearn"), image="someone/lab05-autograder:2026")


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


def test_autograder_zip_keeps_the_hidden_reference_under_hidden(dist):
    """Does autograder.zip keep the hidden reference in source/hidden/ (expected values, edge cases,
    Cranfield bundle, precomputed plan), and nowhere else?"""
    names = zipfile.ZipFile(dist["autograder"]).namelist()
    hidden = sorted(name for name in names if name.startswith("hidden/"))
    assert [name.split("/")[-1].split("-")[0] for name in hidden] == [
        "plan",
        "cranfield",
        "edge_cases.json",
        "expected.json",
    ]
    assert not [name for name in names if name.startswith("autograder/lab/data/")]
