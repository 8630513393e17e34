"""The feedback pages and the class report of a real batch (the examples): golden files for the
markdown and the CSV, and the HTML pages loaded in headless Chromium like an instructor would."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from autograder import paths
from autograder.local import batch

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def examples(tmp_path_factory, cranfield):
    out = tmp_path_factory.mktemp("examples") / "out"
    summary = batch.grade_batch([paths.ROOT / "examples" / "submissions"], out, jobs=2, progress=False)
    return out, {result.submission: result for result in summary.results}


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}: run with UPDATE_GOLDEN=1 to write it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file (UPDATE_GOLDEN=1 rewrites)"


def test_feedback_markdown_of_a_buggy_submission_is_golden(examples):
    """Is carol's feedback.md (four misconceptions) exactly the reviewed golden text?"""
    out, _ = examples
    _golden(
        "feedback-carol-buggy.md", (out / "submissions" / "carol-buggy" / "feedback.md").read_text(encoding="utf-8")
    )


def test_feedback_markdown_of_a_broken_submission_is_golden(examples):
    """Is dan's feedback.md (a syntax error) exactly the reviewed golden text?"""
    out, _ = examples
    _golden("feedback-dan-broken.md", (out / "submissions" / "dan-broken" / "feedback.md").read_text(encoding="utf-8"))


def test_grades_csv_is_golden(examples):
    """Is the examples' grades.csv exactly the reviewed golden table?"""
    out, _ = examples
    _golden("grades-examples.csv", (out / "grades.csv").read_text(encoding="utf-8"))


def test_grades_csv_has_lms_columns(examples):
    """Does grades.csv carry name, email and SID columns and one row per submission?"""
    out, results = examples
    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert {"name", "email", "sid", "total"} <= set(rows[0]) and len(rows) == len(results) == 5


@pytest.mark.browser
def test_class_report_in_a_real_browser(examples, browser, open_page):
    """Does index.html load with no console error and show the sections and the batch's numbers?"""
    from selenium.webdriver.common.by import By

    out, results = examples
    open_page(out / "index.html", "class-report.png")
    assert browser.title == "Lab 05 class report"
    text = browser.find_element(By.TAG_NAME, "body").text
    for section in (
        "Score distribution",
        "Questions",
        "Misconceptions",
        "Problems",
        "Similar code",
        "Submissions",
        "Cases, worst first",
        "Grading run",
    ):
        assert section in text
    mean = sum(result.score for result in results.values()) / len(results)
    assert f"mean\n{mean:.2f}" in browser.find_element(By.ID, "statistics").text.replace(" ", "\n")
    assert browser.find_elements(By.CSS_SELECTOR, "#distribution + svg rect")
    misconceptions = browser.find_element(By.ID, "misconceptions").text
    assert "AP divided by the relevant documents retrieved, not by all R relevant ones" in misconceptions
    assert "carol-buggy" in misconceptions
    problems = browser.find_element(By.ID, "problems").text
    assert "eve-cheating" in problems and "library: lab05/metrics.py imports ir_measures" in problems
    assert "dan-broken" in problems and "SyntaxError" in problems
    rows = browser.find_elements(By.CSS_SELECTOR, "#submissions tbody tr")
    assert len(rows) == 5
    total = next(
        i
        for i, th in enumerate(browser.find_elements(By.CSS_SELECTOR, "#submissions th"))
        if th.text.startswith("total")
    )
    browser.find_elements(By.CSS_SELECTOR, "#submissions th")[total].click()
    totals = [
        float(row.find_elements(By.TAG_NAME, "td")[total].text)
        for row in browser.find_elements(By.CSS_SELECTOR, "#submissions tbody tr")
    ]
    assert totals == sorted(totals) and totals[-1] == 100
    link = browser.find_element(By.LINK_TEXT, "carol-buggy").get_attribute("href")
    assert link.endswith("carol-buggy/feedback.html")


@pytest.mark.browser
def test_feedback_page_in_a_real_browser(examples, browser, open_page):
    """Does carol's feedback.html load cleanly with her diagnoses, hidden cases and the Cranfield plot?"""
    from selenium.webdriver.common.by import By

    from autograder.grading.results import points

    out, results = examples
    open_page(out / "submissions" / "carol-buggy" / "feedback.html", "feedback-carol-buggy.png")
    text = browser.find_element(By.TAG_NAME, "body").text
    assert f"Score: {points(results['carol-buggy'].score)} / 100" in text
    assert "Diagnosis: IDCG computed from the retrieved documents only." in text
    assert "hidden case: the ideal ranking holds judged docs never retrieved" in text
    assert "per-query values differ from ir_measures'" in text
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure svg circle")) > 10
