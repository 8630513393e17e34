"""The written analysis where the course grades (grading.yml's ``analysis:``): PrairieLearn's question
beside the code's (its claims checked by the image's entrypoint as autoPoints, its prose graded by
people as manualPoints, with a starter rubric); Gradescope's checklist for the manually graded
question beside the autograder's. Without the section, neither."""

from __future__ import annotations

import html.parser
import json
import uuid

import pytest

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.labkit.load import default as default_lab
from autograder.platforms.gradescope import build as gradescope
from autograder.platforms.prairielearn import build as prairielearn

TEXT = paths.RUBRIC.read_text(encoding="utf-8")
SECTION = "analysis:\n  claims: 2\n  claim_points: 2\n  prose_points: 4\n"

#: id: (grading.yml, the analysis question's (autoPoints, manualPoints) in the sample, the claims' lines of the rubric)
RUBRICS = {
    "default": (TEXT, (4.0, 4.0), ["- (checked by the grader) Claim 1 holds against the data: 2 points", "Claim 2"]),
    "three-claims": (
        TEXT.replace(SECTION, "analysis:\n  claims: 3\n  claim_points: 1\n  prose_points: 5\n"),
        (3.0, 5.0),
        ["- (checked by the grader) Claim 3 holds against the data: 1 points"],
    ),
    "none": (TEXT.replace(SECTION, ""), None, []),
}


@pytest.mark.parametrize(("text", "manual", "lines"), RUBRICS.values(), ids=RUBRICS.keys())
def test_sample_assessment_has_the_analysis_question_with_manual_points(text, manual, lines):
    """Is the analysis its own question of the sample, its claims' points as autoPoints and its prose's as
    manualPoints (the code's question unchanged), and absent without the section?"""
    loaded = rubrics.parse(text, lab=default_lab())
    questions = prairielearn.assessment(loaded, default_lab())["zones"][0]["questions"]
    assert questions[0] == {"id": "lab05", "autoPoints": 100, "maxAutoPoints": 100}
    if manual is None:
        assert len(questions) == 1 and prairielearn.starter_rubric(loaded) == ""
        return
    auto, by_people = manual
    assert questions[1:] == [
        {
            "id": prairielearn.analysis_id(default_lab()),
            "autoPoints": auto,
            "maxAutoPoints": auto,
            "manualPoints": by_people,
        }
    ]
    starter = prairielearn.starter_rubric(loaded)
    assert starter.startswith(f"# Starter rubric: {loaded.title}, the written analysis ({auto + by_people:g} points)")
    for line in lines:
        assert line in starter


class _Uploads(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.uploads: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "pl-file-upload":
            self.uploads.append(dict(attrs)["file-names"])


def test_analysis_question_files():
    """Is the analysis question graded externally by the same image and entrypoint as the code's, with its
    own uuid, an upload of exactly analysis.yml and analysis.md, a starter rubric.md, and tests/analysis.json
    (the points and the facts, no hidden value)?"""
    parts = prairielearn.entries(default_lab())
    files = {name: data for name, data, _ in parts["analysis"]}
    assert sorted(files) == ["info.json", "question.html", "rubric.md", "tests/analysis.json"]
    info = json.loads(files["info.json"])
    code = json.loads({n: d for n, d, _ in parts["question"]}["info.json"])
    assert info["gradingMethod"] == "External" and uuid.UUID(info["uuid"]).version == 5 and info["uuid"] != code["uuid"]
    assert info["externalGradingOptions"]["image"] == code["externalGradingOptions"]["image"]
    assert info["externalGradingOptions"]["entrypoint"] == code["externalGradingOptions"]["entrypoint"]
    data = json.loads(files["tests/analysis.json"])
    assert data["points"] == {"claims": 2, "claim_points": 2.0, "prose_points": 4.0}
    assert sorted(data["facts"]) == ["qrels", "systems", "titles"] and set(data["facts"]["titles"].values()) == {""}
    page = _Uploads()
    page.feed(files["question.html"].decode())
    assert [name.strip() for name in page.uploads[0].split(",")] == ["analysis.yml", "analysis.md"]
    assert files["rubric.md"].decode() == prairielearn.starter_rubric(rubrics.load(paths.RUBRIC, default_lab()))


@pytest.mark.parametrize(("text", "steps"), [(TEXT, 3), (TEXT.replace(SECTION, ""), 0)], ids=["default", "none"])
def test_gradescope_checklist_says_how_to_set_up_the_manual_question(text, steps):
    """Does the build's checklist say to add a manually graded question worth the analysis's points beside
    the autograder's, with its rubric, and say nothing without the section?"""
    said = gradescope.checklist(rubrics.parse(text, lab=default_lab()))
    assert len(said) == steps
    if steps:
        assert "add a question 'Written analysis' worth 8 points beside the autograder's" in said[0]
        assert "claim 1 holds (2), claim 2 holds (2), and the prose, up to 4" in said[1]
