"""The class report one can navigate: a contents list first, the Students table next, the long part
(similar pairs side by side) folded with its count; and the pages given to students carry no link
to a class report they do not have."""

from __future__ import annotations

import re

import pytest

from autograder.grading import rubric
from autograder.grading.results import Status, Student, SubmissionResult
from autograder.labkit.load import default as default_lab
from autograder.local import classwork
from autograder.reports import class_report
from autograder.similarity import compare as similarity
from autograder.similarity.compare import SimilaritySettings
from tests.support import subs

#: id: (how many submissions copy one another, the similar pairs that makes)
CLASSES = {"no-copies": (1, 0), "two-copies": (2, 1), "four-copies": (4, 6)}


def _report(copies: int) -> str:
    """The class report of ``copies`` renamed copies of the solution and one stub submission."""
    batch = {
        f"copy{i}": {name: text.replace("ranking", f"ranking{i}") for name, text in subs.SOLUTION.items()}
        for i in range(copies)
    }
    batch["stub"] = {name: f"# {name} left as given\n" for name in subs.SOLUTION}
    found = similarity.analyse(batch, SimilaritySettings(), lab=default_lab())
    results = [SubmissionResult(sid, Status.GRADED, students=(Student(name=f"Student {sid}"),)) for sid in batch]
    return class_report.render(
        results, rubric.load(default_lab().place.rubric, default_lab()), {"run": "test"}, found, lab=default_lab()
    )


@pytest.fixture(scope="module", params=list(CLASSES))
def report(request):
    copies, pairs = CLASSES[request.param]
    return _report(copies), copies + 1, pairs


def _sections(html: str) -> list[str]:
    return re.findall(r'<h2 id="([^"]+)"', html)


def test_the_contents_come_first_and_link_every_section(report):
    """Is a contents list the report's first section, linking every other section of the page?"""
    html, _, _ = report
    sections = _sections(html)
    assert sections[0] == "contents-heading"
    nav = html[html.index("<nav") : html.index("</nav>")]
    assert re.findall(r'href="#([^"]+)"', nav) == sections[1:]


def test_the_students_table_comes_right_after_the_contents(report):
    """Is the Students section the first after the contents, its table before any other table?"""
    html, _, _ = report
    assert _sections(html)[1] == "students-heading"
    assert html.index('id="students"') < html.index('id="statistics"')


def test_the_contents_count_students_and_similar_pairs(report):
    """Does the contents list say how many students and similar pairs there are?"""
    html, students, pairs = report
    nav = html[html.index("<nav") : html.index("</nav>")]
    assert f'<a href="#students-heading">Students</a> ({students})' in nav
    assert f'<a href="#similarity">Similar code</a> ({pairs} pair{"" if pairs == 1 else "s"})' in nav


def test_the_side_by_side_views_are_folded_with_their_count(report):
    """Are the similar pairs' side-by-side views inside one folded <details> whose summary gives
    their count (and no such fold without a pair)?"""
    html, _, pairs = report
    folds = re.findall(r'<details class="views"><summary>Side by side: (\d+) pairs?,', html)
    assert folds == ([str(pairs)] if pairs else [])
    if pairs:
        fold = html[html.index('<details class="views">') :]
        assert fold.index('id="pair-1-view"') < fold.index("</details>")
        assert "unfoldTarget" in html  # a link to a folded view opens it


def test_the_students_copy_has_no_link_to_the_class_report(tmp_path):
    """Does a batch's feedback.html (given to students) link to no class report, while the
    instructor view, which stays beside the report, links back to it?"""
    result = SubmissionResult("ada", Status.GRADED, students=(Student(name="Ada"),))
    classwork.write_result(tmp_path, result, {}, default_lab())
    folder = tmp_path / "submissions" / "ada"
    assert "index.html" not in (folder / "feedback.html").read_text(encoding="utf-8")
    assert 'href="../../index.html"' in (folder / "instructor.html").read_text(encoding="utf-8")
