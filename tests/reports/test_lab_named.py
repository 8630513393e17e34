"""The pages name the lab they are given (``reports/``: ``feedback.build``'s ``lab_title``, the class
report's ``lab``), not the one the engine was imported with: its title, its package and files."""

from __future__ import annotations

import pytest

from autograder import paths
from autograder.grading import rubric
from autograder.grading.results import CaseResult, CaseStatus, CheckResult, FunctionResult, Status, SubmissionResult
from autograder.labkit import load
from autograder.labkit.kinds import CheckKind
from autograder.reports import class_report, feedback, feedback_html, instructor_html, markdown, prairielearn_json

LAB06 = paths.ROOT / "tests" / "fixtures" / "lab06"

#: id -> (how to load the lab, a function of it, where that function lives, what a submission holds)
LABS = {
    "lab05": (load.default, "dcg_at_k", "lab05/metrics.py", "lab05/metrics.py or lab05/runs.py"),
    "lab06": (lambda: load.load(LAB06), "f1_score", "lab06/classify.py", "lab06/classify.py"),
}

#: id -> (the page of submission "s" on a lab, the words the page's title holds after the lab's title)
PAGES = {
    "feedback.md": (lambda result, lab: markdown.markdown(result, lab=lab), "feedback: s"),
    "feedback.html": (lambda result, lab: feedback_html.render(result, lab=lab), "feedback: s"),
    "instructor.html": (lambda result, lab: instructor_html.render(result, lab=lab), "instructor view: s"),
    "index.html": (
        lambda result, lab: class_report.render([result], rubric.load(lab.place.rubric, lab), {}, None, lab=lab),
        "class report",
    ),
}


def _result(function: str, status: CaseStatus = CaseStatus.PASS) -> SubmissionResult:
    """Submission "s": one check of ``function`` with one case of ``status``."""
    case = CaseResult(id="c", description="a case", public=True, status=status)
    made = CheckResult(f"{function}: edge cases", "q1", function, CheckKind.EDGE, 2.0, 0.0, "visible", (case,))
    return SubmissionResult("s", Status.GRADED, (made,))


@pytest.mark.parametrize("page_id", PAGES)
@pytest.mark.parametrize("lab_id", LABS)
def test_every_page_is_titled_with_the_lab_it_is_given(lab_id, page_id):
    """Does each page say the title of the lab it is given, and no other lab's title?"""
    loader, function, _, _ = LABS[lab_id]
    render, words = PAGES[page_id]
    lab = loader()
    page = render(_result(function), lab)
    assert f"{lab.title} {words}" in page
    others = {other().title for other, *_ in LABS.values()} - {lab.title}
    assert not [title for title in others if title in page]


@pytest.mark.parametrize("lab_id", LABS)
def test_a_function_not_importable_is_placed_in_its_lab_s_file(lab_id):
    """Does the headline of a function whose file did not import name the file of the lab given?"""
    loader, function, file, _ = LABS[lab_id]
    made = _result(function, CaseStatus.NOT_IMPORTED).checks
    words, _ = feedback.headline(FunctionResult(function, "q1", made), loader())
    assert words == f"not importable: {file} did not import (see above)"


@pytest.mark.parametrize("lab_id", LABS)
def test_prairielearn_names_the_lab_s_files_when_none_was_found(lab_id):
    """Does PrairieLearn's results.json for a submission with no graded file name the files of the
    lab given?"""
    loader, _, _, wanted = LABS[lab_id]
    document = prairielearn_json.document(SubmissionResult("s", Status.ERROR), loader())
    assert document["format_errors"] == [f"no {wanted} was found in the submission"]
