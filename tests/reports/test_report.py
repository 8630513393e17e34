"""The feedback pages and the class report of a real batch (the examples): golden files for the
markdown and the CSV, and the HTML pages loaded in headless Chromium like an instructor would."""

from __future__ import annotations

import csv
import os
import re
import shutil
from pathlib import Path

import pytest

from autograder import paths
from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from tests.conftest import ARTIFACTS
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

GOLDEN = Path(__file__).parents[1] / "golden"


@pytest.fixture(scope="module")
def examples(tmp_path_factory, cranfield):
    out = tmp_path_factory.mktemp("examples") / "out"
    summary = batch.grade_batch(
        [paths.ROOT / "examples" / "submissions"], out, jobs=2, progress=False, seed="golden", lab=default_lab()
    )
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


def test_feedback_markdown_of_a_partly_done_submission_is_golden(examples):
    """Is bob's feedback.md (three functions left as stubs) the reviewed golden text: under 80
    lines, the summary first, each stub one line of it, no traceback?"""
    out, _ = examples
    page = (out / "submissions" / "bob-partial" / "feedback.md").read_text(encoding="utf-8")
    _golden("feedback-bob-partial.md", page)
    assert len(page.splitlines()) < 80 and re.findall(r"^## .+$", page, re.M)[0] == "## Summary"
    assert page.count("NotImplementedError: dcg_at_k") == 1 and "line 96" not in page


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
        "Grade distribution",
        "Questions",
        "Functions",
        "Misconceptions and other diagnoses",
        "Problems",
        "Similar code",
        "Students",
        "Cases, worst first",
        "Grading run",
    ):
        assert section in text
    mean = sum(result.score for result in results.values()) / len(results)
    assert f"mean\n{mean:.2f}" in browser.find_element(By.ID, "statistics").text.replace(" ", "\n")
    assert browser.find_elements(By.CSS_SELECTOR, "#distribution + figure svg rect")
    misconceptions = browser.find_element(By.ID, "misconceptions")
    row = next(
        row
        for row in misconceptions.find_elements(By.CSS_SELECTOR, "tbody tr")
        if "AP divided by the relevant documents retrieved, not by all R relevant ones" in row.text
    )
    assert "carol-buggy" not in row.text  # folded until asked
    row.find_element(By.TAG_NAME, "summary").click()
    assert "shown by: carol-buggy" in row.text
    problems = browser.find_element(By.ID, "problems").text
    assert "eve-cheating" in problems and "library: lab05/metrics.py imports ir_measures" in problems
    assert "dan-broken" in problems and "SyntaxError" in problems
    rows = browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")
    assert len(rows) == 5
    total = next(
        i for i, th in enumerate(browser.find_elements(By.CSS_SELECTOR, "#students th")) if th.text.startswith("total")
    )
    browser.find_elements(By.CSS_SELECTOR, "#students th")[total].click()
    totals = [
        float(row.find_elements(By.TAG_NAME, "td")[total].text)
        for row in browser.find_elements(By.CSS_SELECTOR, "#students tbody tr")
    ]
    assert totals == sorted(totals) and totals[-1] == 100
    link = browser.find_element(By.ID, "students").find_element(By.LINK_TEXT, "carol-buggy")
    assert link.get_attribute("href").endswith("carol-buggy/feedback.html")


@pytest.mark.browser
def test_feedback_page_in_a_real_browser(examples, browser, open_page):
    """Does carol's feedback.html load cleanly with her diagnoses, hidden cases and the Cranfield plot,
    with no link to a class report (students get the page alone), while her instructor view links
    back to it?"""
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
    summary = browser.find_element(By.ID, "summary")
    assert summary.location["y"] < browser.find_element(By.ID, "ndcg_at_k").location["y"]
    summary.find_element(By.LINK_TEXT, "ndcg_at_k").click()
    assert browser.current_url.endswith("#ndcg_at_k")
    assert browser.find_elements(By.LINK_TEXT, "← class report") == []  # students get this page alone
    open_page(out / "submissions" / "carol-buggy" / "instructor.html", "instructor-carol-buggy.png")
    browser.find_element(By.LINK_TEXT, "← class report").click()  # the instructor's view stays beside it
    assert browser.title == "Lab 05 class report"


@pytest.mark.browser
def test_feedback_page_of_a_partly_done_submission_in_a_real_browser(examples, browser, open_page):
    """Does bob's feedback.html show the summary at once, each stub one line of it, and stay short?"""
    from selenium.webdriver.common.by import By

    out, _ = examples
    open_page(out / "submissions" / "bob-partial" / "feedback.html", "feedback-bob-partial.png")
    rows = {
        row.find_elements(By.TAG_NAME, "td")[0].text.split()[-1]: row.text
        for row in browser.find_elements(By.CSS_SELECTOR, "#summary tr.function")
    }
    assert len(rows) == len(spec.FUNCTIONS)
    assert "not implemented on all" in rows["dcg_at_k"] and "full marks" in rows["write_run"]
    assert browser.execute_script("return document.documentElement.scrollHeight") < 2500
    assert "Traceback" not in browser.find_element(By.TAG_NAME, "body").text


# ---------------------------------------------------------------- a class with stubs, crashes and wrong answers

CRASHING_NDCG = """
import os as _os
def ndcg_at_k(ranking, judgments, k, gain="linear"):
    _os._exit(3)
"""


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, cranfield):
    """A batch of a correct, a partly done (stubs), a buggy (wrong answers), a crashing (ndcg_at_k
    kills its process) and a trimmed (ndcg_at_k deleted) submission."""
    folder = tmp_path_factory.mktemp("mixed")
    for name in ("ada-correct", "bob-partial", "carol-buggy"):
        shutil.copytree(paths.ROOT / "examples" / "submissions" / name, folder / "class" / name)
    subs.write(folder / "class" / "frank-crashes", {"metrics.py": subs.with_function("metrics.py", CRASHING_NDCG)})
    subs.write(folder / "class" / "gina-trimmed", {"metrics.py": subs.SOLUTION["metrics.py"] + "\ndel ndcg_at_k\n"})
    out = folder / "out"
    summary = batch.grade_batch(
        [folder / "class"], out, jobs=2, progress=False, rubric_path=subs.test_rubric(folder), lab=default_lab()
    )
    return out, {result.submission: result for result in summary.results}


def _row(browser, table: str, **starts):
    """The first row of a table whose cells start as ``starts`` says (column heading -> text), and
    its cells as {column heading: text}."""
    from selenium.webdriver.common.by import By

    headings = [th.text.replace("\u2195", "").strip() for th in browser.find_elements(By.CSS_SELECTOR, f"#{table} th")]
    for row in browser.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr"):
        cells = dict(zip(headings, (cell.text for cell in row.find_elements(By.TAG_NAME, "td"))))
        if all(cells.get(heading.replace("_", " "), "").startswith(text) for heading, text in starts.items()):
            return row, cells
    raise AssertionError(f"no row {starts} in #{table}")


@pytest.mark.browser
def test_class_report_separates_wrong_answers_and_says_who(mixed, browser, open_page):
    """In the report of a class with stubs, crashes and wrong answers: does a case count wrong
    answers apart from stubs, crashes and skipped calls (its pass rate over the answers given),
    does clicking it show who, does the function table say where each submission stands, and are
    the partly done submissions under Problems?"""
    from selenium.webdriver.common.by import By

    out, results = mixed
    open_page(out / "index.html", "class-report-cases.png", "#cases-heading")
    label = "the ideal ranking holds judged docs never retrieved"
    row, cells = _row(browser, "cases", case=label)
    assert cells["check"] == "ndcg_at_k: hidden edge cases" and cells["passed"] == "1/5"
    assert (cells["wrong"], cells["not implemented"], cells["skipped"]) == ("1", "2", "1")
    assert cells["pass rate"] == "50%"  # 1 of the 2 answers given
    assert "carol-buggy" not in row.text
    row.find_element(By.TAG_NAME, "summary").click()
    assert "wrong: carol-buggy" in row.text and "not implemented: bob-partial, gina-trimmed" in row.text
    assert "skipped: frank-crashes" in row.text
    link = row.find_element(By.LINK_TEXT, "carol-buggy").get_attribute("href")
    assert link.endswith("submissions/carol-buggy/feedback.html#ndcg_at_k")
    browser.save_screenshot(str(ARTIFACTS / "class-report-who.png"))
    _, example = _row(browser, "cases", check="ndcg_at_k: the notes' examples")
    assert (example["wrong"], example["crashed or timed out"], example["not implemented"]) == ("", "1", "2")
    assert example["pass rate"] == "100%"  # every answer given was right: the stubs and the crash do not count
    _, ndcg = _row(browser, "functions", function="ndcg_at_k")
    assert (ndcg["full marks"], ndcg["not implemented"], ndcg["crashed"], ndcg["wrong"]) == ("1", "2", "1", "1")
    problems = browser.find_element(By.ID, "problems").text
    assert "partly done: not implemented: dcg_at_k, ndcg_at_k, largest_differences" in problems
    assert "partly done: not implemented: ndcg_at_k" in problems and "crash: ndcg_at_k" in problems
    rows = {row["submission"]: row for row in csv.DictReader((out / "grades.csv").open())}
    assert rows["gina-trimmed"]["not_implemented"] == "ndcg_at_k" and rows["frank-crashes"]["not_implemented"] == ""
    assert results["frank-crashes"].unfinished() == []
