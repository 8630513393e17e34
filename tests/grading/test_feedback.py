"""Why a case did not pass, where each function stands, and the feedback and class report built on
that one classification, without a sandbox: small results made by hand, each renderer read back."""

from __future__ import annotations

import csv
import html
import io
import json
import re

import pytest

from autograder.grading import rubric, scoring
from autograder.grading.plan import PlannedCase
from autograder.grading.results import (
    FAILURES,
    CaseResult,
    CaseStatus,
    CheckResult,
    Diagnosis,
    DiagnosisKind,
    FunctionResult,
    FunctionState,
    Status,
    SubmissionResult,
)
from autograder.lab.cases import Case, raises
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.reports import (
    class_report,
    class_tables,
    feedback,
    feedback_html,
    grades_csv,
    gradescope_json,
    markdown,
)
from autograder.sandbox.channel import Outcome

S = CaseStatus
NOT_IMPLEMENTED = "NotImplementedError"
STUB_MESSAGE = "raised NotImplementedError: dcg_at_k is not implemented yet"
STUB_TRACEBACK = ('File "lab05/metrics.py", line 96, in dcg_at_k\n    raise NotImplementedError("...")',)
HIDDEN = 0.7310585786  # a hidden expected value: never rendered


def case(status=S.PASS, raised="", public=False, **more) -> CaseResult:
    fields = {"id": "c", "description": "a case", "public": public, "status": status, "raised": raised, **more}
    return CaseResult(**fields)


def check(function, kind, cases, score=None, points=2.0, note="", question="q4", diagnoses=()) -> CheckResult:
    cases = tuple(cases)
    if score is None:
        score = points * sum(c.passed for c in cases) / len(cases) if cases else 0.0
    name = f"{function}: {kind.label}"
    return CheckResult(name, question, function, kind, points, score, "visible", cases, note, tuple(diagnoses))


# ---------------------------------------------------------------- the classification


@pytest.mark.parametrize(
    "status, raised, why",
    [
        (S.PASS, "", None),
        (S.FAIL, "", S.FAIL),
        (S.FAIL, NOT_IMPLEMENTED, S.NOT_IMPLEMENTED),
        (S.FAIL, "TypeError", S.FAIL),
        (S.ERROR, NOT_IMPLEMENTED, S.NOT_IMPLEMENTED),
        (S.ERROR, "KeyError", S.ERROR),
        (S.TIMEOUT, "", S.CRASH),
        (S.CRASH, "", S.CRASH),
        (S.NOT_RUN, "", S.NOT_RUN),
        (S.NOT_IMPORTED, "", S.NOT_IMPORTED),
    ],
    ids=[
        "passed",
        "wrong-answer",
        "stub-where-a-valueerror-is-due",
        "wrong-error-where-one-is-due",
        "stub",
        "another-error",
        "timeout",
        "crash",
        "skipped",
        "file-did-not-import",
    ],
)
def test_why_a_case_did_not_pass(status, raised, why):
    """Is each verdict, with the exception the call raised, classified as the feedback and the
    report count it (a stub met where a ValueError is due is not implemented, not a failure of its own)?"""
    assert case(status, raised).why == why


def _cases(spec: str) -> list[CaseResult]:
    """``"3p 2w"``: 3 passed, 2 wrong (p, w wrong, n not implemented, r raised, c crash, s skipped, i not imported)."""
    kinds = {
        "p": (S.PASS, ""),
        "w": (S.FAIL, ""),
        "n": (S.ERROR, NOT_IMPLEMENTED),
        "r": (S.ERROR, "TypeError"),
        "c": (S.CRASH, ""),
        "s": (S.NOT_RUN, ""),
        "i": (S.NOT_IMPORTED, ""),
    }
    return [case(*kinds[part[-1]]) for part in spec.split() for _ in range(int(part[:-1]))]


@pytest.mark.parametrize(
    "cases, note, state",
    [
        ("5p", "", FunctionState.FULL),
        ("6n", "", FunctionState.NOT_IMPLEMENTED),
        ("1p 5n", "", FunctionState.NOT_IMPLEMENTED),
        ("3p 2w", "", FunctionState.WRONG),
        ("3w 2r", "", FunctionState.WRONG),
        ("1w 4r", "", FunctionState.RAISED),
        ("3w 2c 10s", "", FunctionState.CRASHED),
        ("8i", "", FunctionState.NOT_IMPORTABLE),
        ("5p", "no credit: lab05/metrics.py uses ir_measures", FunctionState.NO_CREDIT),
        ("", "not graded: no metrics.py or runs.py found", FunctionState.NOT_GRADED),
    ],
    ids=[
        "full",
        "stub",
        "mostly-stub",
        "wrong",
        "wrong-and-errors",
        "errors",
        "crashed-then-skipped",
        "not-importable",
        "library",
        "nothing-graded",
    ],
)
def test_where_a_function_stands(cases, note, state):
    """Is a function's state the kind of failure most of its cases have (crashes and the calls
    skipped after them together), whatever its points, unless a rule took its credit away?"""
    made = check("dcg_at_k", CheckKind.EDGE, _cases(cases), note=note)
    assert FunctionResult("dcg_at_k", "q4", (made,)).state == state


@pytest.mark.parametrize(
    "cases, headline",
    [
        ("5p", "full marks (5 cases)"),
        ("6n", "not implemented on all 6 cases"),
        ("3p 2w", "wrong on 2 of 5 cases"),
        ("3w 2r", "wrong on all 5 cases (3 wrong, 2 raised an error)"),
        ("3w 2c 10s", "crashed or hung on 2 cases; 10 others not run (3 wrong)"),
        ("8i", "not importable: lab05/metrics.py did not import (see above)"),
        ("1p", "full marks (1 case)"),
        ("1w", "wrong on its only case"),
        ("2p 1c", "crashed or hung on 1 case"),
    ],
    ids=["full", "stub", "wrong", "wrong-and-errors", "crashed", "not-importable", "one", "only-one", "one-crash"],
)
def test_a_functions_state_in_words(cases, headline):
    """Does the summary line say the function's state with how many of its cases, the calls
    skipped after a crash apart from the crashes?"""
    made = check("dcg_at_k", CheckKind.EDGE, _cases(cases))
    assert feedback.headline(FunctionResult("dcg_at_k", "q4", (made,)), lab=default_lab())[0] == headline


def test_a_grade_stored_before_the_classification_still_loads():
    """Does a grade.json written without the cases' ``raised`` load, its cases then classified by
    their status alone?"""
    result = SubmissionResult("old", Status.GRADED, (check("dcg_at_k", CheckKind.EDGE, _cases("1p 1n 1w")),))
    stored = json.loads(json.dumps(result.to_dict()))
    for item in stored["checks"][0]["cases"]:
        del item["raised"]
    loaded = SubmissionResult.from_dict(stored)
    assert [c.why for c in loaded.checks[0].cases] == [None, S.ERROR, S.FAIL]
    assert SubmissionResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


#: every ``status`` a grade.json held before ``Why`` was merged into ``CaseStatus`` (issue 19)
STORED_BEFORE = ("pass", "fail", "error", "timeout", "crash", "not-run", "not-imported")


@pytest.mark.parametrize("stored", STORED_BEFORE)
def test_every_status_stored_before_the_merge_still_loads(stored):
    """Does a case stored with each status an older grade.json holds load as that status, written
    back the same, and classified as one of the failures feedback counts (None only when it passed)?"""
    result = SubmissionResult("old", Status.GRADED, (check("dcg_at_k", CheckKind.EDGE, _cases("1p")),))
    document = json.loads(json.dumps(result.to_dict()))
    document["checks"][0]["cases"][0]["status"] = stored
    loaded = SubmissionResult.from_dict(document).checks[0].cases[0]
    assert loaded.status.value == stored and loaded.status.judged == (stored in ("pass", "fail", "error"))
    assert json.loads(json.dumps(SubmissionResult.from_dict(document).to_dict())) == document
    assert (loaded.why is None) == (stored == "pass") and (loaded.why is None or loaded.why in FAILURES)


def _planned(function="precision_at_k", expected=0.5) -> PlannedCase:
    made = Case("edge-x", function, "what it tests", (["a"], {"a": 1}), {"k": 2})
    return PlannedCase("precision_at_k: hidden edge cases", CheckKind.EDGE, made, expected, 0)


def _error(kind: str) -> dict:
    return {"type": kind, "mro": [kind, "Exception"], "message": "not yet", "traceback": ["File ..."]}


@pytest.mark.parametrize(
    "outcome, expected, unimported, status, raised",
    [
        (Outcome("error", error=_error(NOT_IMPLEMENTED)), 0.5, frozenset(), S.ERROR, NOT_IMPLEMENTED),
        (Outcome("error", error=_error(NOT_IMPLEMENTED)), raises("ValueError"), frozenset(), S.FAIL, NOT_IMPLEMENTED),
        (Outcome("error", error=_error("ValueError")), raises("ValueError"), frozenset(), S.PASS, "ValueError"),
        (Outcome("not-run", detail="lab05/metrics.py did not import"), 0.5, {"metrics.py"}, S.NOT_IMPORTED, ""),
        (Outcome("not-run", detail="its budget ran out"), 0.5, frozenset(), S.NOT_RUN, ""),
    ],
    ids=["stub", "stub-where-valueerror-is-due", "valueerror-as-due", "file-did-not-import", "budget"],
)
def test_a_call_case_records_what_it_raised(outcome, expected, unimported, status, raised):
    """Does a call's case keep the exception's class and say when its file did not import?"""
    made = scoring.call_case(default_lab(), _planned(expected=expected), outcome, frozenset(unimported))
    assert (made.status, made.raised if made.status != S.PASS else "ValueError") == (status, raised)


# ---------------------------------------------------------------- the feedback


def _result(note: str = "") -> SubmissionResult:
    """A partly done submission: dcg_at_k a stub, precision_at_k wrong (a public, a hidden and a
    random case), recall_at_k right, and optionally the library rule on every check."""
    stub = [
        case(S.ERROR, NOT_IMPLEMENTED, i == 0, message=STUB_MESSAGE, traceback=STUB_TRACEBACK, call=f"dcg_at_k({i})")
        for i in range(20)
    ]
    stub.append(case(S.FAIL, NOT_IMPLEMENTED, description="k=0: ValueError", traceback=STUB_TRACEBACK))
    public = case(
        S.FAIL,
        public=True,
        message="returned 0.875, expected 0.125",
        call="precision_at_k(['D1', 'D2'], {'D1': 1}, k=10)",
        expected=0.125,
        actual=0.875,
        hint="P@10 divides by k",
    )
    hidden = case(S.FAIL, description="ranking shorter than k (k=5)", expected=HIDDEN, actual=0.4, message="x 0.4")
    random_call = "precision_at_k(['d03', 'd11', 'd07'], {'d07': 4, 'd11': 0}, k=20, rel=3)"
    random = case(S.FAIL, public=True, call=random_call, expected=0.05, actual=0.333333, message="returned")
    diagnosis = Diagnosis("p-len", "precision_at_k", "P@k divided by the ranking's length", "Divide by k.", "Part II")
    checks = (
        check("precision_at_k", CheckKind.EXAMPLES, [public, case()], question="q2", diagnoses=[diagnosis]),
        check("precision_at_k", CheckKind.EDGE, [hidden, case(), case()], question="q2", diagnoses=[diagnosis]),
        check("precision_at_k", CheckKind.RANDOM, [random, case()], question="q2"),
        check("recall_at_k", CheckKind.EDGE, [case(), case()], question="q2"),
        check("dcg_at_k", CheckKind.EDGE, stub),
    )
    if note:
        checks = tuple(
            CheckResult(c.name, c.question, c.function, c.kind, c.max_score, 0.0, c.visibility, c.cases, note)
            for c in checks
        )
    return SubmissionResult("bob", Status.GRADED, checks)


def _gradescope(result) -> str:
    document = gradescope_json.document(result, lab=default_lab())
    return "\n".join([document["output"]] + [test["output"] for test in document["tests"]])


PAGES = {
    "feedback.md": lambda result: markdown.markdown(result, lab=default_lab()),
    "feedback.html": lambda result: feedback_html.render(result, lab=default_lab()),
    "results.json": _gradescope,
}


@pytest.mark.parametrize("name", PAGES)
def test_a_stub_is_one_line(name):
    """Is a function left as its stub said in its state and its error's words once, with none of
    its 21 tracebacks?"""
    page = PAGES[name](_result())
    assert page.count("dcg_at_k is not implemented yet") == 1 and "line 96, in dcg_at_k" not in page
    assert "not implemented on all 21 cases" in page


@pytest.mark.parametrize("name", PAGES)
def test_library_use_is_one_banner(name):
    """With no credit on every check for library use, is the reason said once, not once per check?"""
    note = "no credit: lab05/metrics.py uses ir_measures; this lab's metrics must be your own code"
    page = PAGES[name](_result(note))
    assert page.count("uses ir_measures") == 1


@pytest.mark.parametrize("name", PAGES)
def test_cases_show_each_value_once_and_hidden_ones_only_what_was_tested(name):
    """Does a public case show its call, expected and actual value once each (not again in a
    "returned..., expected..." message), a random case its whole call and both values, and a
    hidden case what was tested and that it was wrong, never a value (the expected one, or the
    student's own, which could carry the hidden inputs)?"""
    page = PAGES[name](_result()).replace("&#x27;", "'")
    assert "precision_at_k(['D1', 'D2'], {'D1': 1}, k=10)" in page and "returned 0.875" not in page
    assert page.count("0.125") == 1 and page.count("0.875") == 1
    assert "precision_at_k(['d03', 'd11', 'd07'], {'d07': 4, 'd11': 0}, k=20, rel=3)" in page
    assert "0.05" in page and "0.333333" in page
    assert "ranking shorter than k (k=5)" in page and "0.4" not in page and "0.731" not in page


def _plain(page: str) -> str:
    """What a page says, whatever its markup."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


SAID = [
    "not implemented on all 21 cases",
    "wrong on 3 of 7 cases",
    "Diagnosis: P@k divided by the ranking's length",
    "hidden case: ranking shorter than k (k=5)",
    "precision_at_k(['d03', 'd11', 'd07'], {'d07': 4, 'd11': 0}, k=20, rel=3)",
    "hint: P@10 divides by k",
    "1/2 cases passed",
]


@pytest.mark.parametrize("said", SAID, ids=range(len(SAID)))
def test_the_three_renderings_say_the_same(said):
    """Do feedback.md, feedback.html and results.json's texts each say the same thing about the
    functions, their cases and the diagnosis (markup and layout aside)?"""
    assert [name for name, render in PAGES.items() if said not in _plain(render(_result()))] == []


def test_the_summary_comes_first_and_links_to_the_detail():
    """Is feedback.md's first section the summary, one line per function, a function with a detail
    linked to it, and the detail after the summary?"""
    page = markdown.markdown(_result(), {"q2": "Part II", "q4": "Part IV"}, lab=default_lab())
    headings = re.findall(r"^## (.+)$", page, re.M)
    assert headings == ["Summary", "precision_at_k"]
    assert "  - ✗ [precision_at_k](#precision_at_k) (" in page and "  - ✓ recall_at_k (" in page
    assert page.index("## Summary") < page.index("## precision_at_k") < page.index("Diagnosis: P@k")
    assert page.count("Diagnosis: P@k") == 1  # two checks carry it: said once for the function


def test_a_stubbed_check_on_a_platform_is_one_line():
    """Does a check of a stubbed function show, on Gradescope, one line naming its state?"""
    document = gradescope_json.document(_result(), lab=default_lab())
    test = next(test for test in document["tests"] if test["name"].startswith("dcg_at_k"))
    assert test["output"].count("\n") == 0 and "not implemented" in test["output"]
    assert document["output_format"] == test["output_format"] == "md"


def test_the_feedback_page_links_back_to_the_report_only_in_a_local_batch():
    """Does feedback.html link to the class report when given its address, and not otherwise?"""
    assert 'href="../../index.html"' in feedback_html.render(_result(), report="../../index.html", lab=default_lab())
    assert "class report" not in feedback_html.render(_result(), lab=default_lab())


# ---------------------------------------------------------------- the class report


def _class() -> list[SubmissionResult]:
    """A correct, a stubbed, a crashing and a wrong submission of one function's two cases."""

    def one(name, statuses, raised="") -> SubmissionResult:
        made = [case(status, raised, description=f"case {i}", id=f"c{i}") for i, status in enumerate(statuses, start=1)]
        return SubmissionResult(name, Status.GRADED, (check("dcg_at_k", CheckKind.EDGE, made),))

    condition = Diagnosis(
        "condition-one-exp",
        "dcg_at_k",
        "fails exactly on the cases with gain='exp'",
        "...",
        "IV",
        DiagnosisKind.CONDITION,
    )
    wrong = one("wrong", [S.PASS, S.FAIL])
    wrong = SubmissionResult(
        "wrong", Status.GRADED, tuple(CheckResult(**{**c.__dict__, "diagnoses": (condition,)}) for c in wrong.checks)
    )
    return [
        one("right", [S.PASS, S.PASS]),
        one("stub", [S.ERROR, S.FAIL], NOT_IMPLEMENTED),
        one("crash", [S.CRASH, S.NOT_RUN]),
        wrong,
    ]


def test_cases_count_wrong_answers_apart():
    """Does each case count wrong answers apart from stubs and crashes, its pass rate being over
    the answers given?"""
    tallies = {tally.label: tally for tally in class_tables.case_tallies(_class())}
    first, second = tallies["case 1"], tallies["case 2"]
    assert (first.passed, first.count(S.NOT_IMPLEMENTED), first.count(S.CRASH), first.rate) == (2, 1, 1, 1.0)
    assert (second.passed, second.count(S.FAIL), second.count(S.NOT_IMPLEMENTED), second.rate) == (1, 1, 1, 0.5)
    assert second.count(S.NOT_RUN) == 1 and list(tallies) == ["case 2", "case 1"]  # worst first


def test_the_report_says_who_and_lists_partly_done_submissions():
    """Does the report list who failed a case under each why, name the stubbed submission as partly
    done under Problems, and show a condition where no misconception was named?"""
    html = class_report.render(
        _class(), rubric.load(default_lab().place.rubric, default_lab()), {}, None, lab=default_lab()
    )
    cases = html[html.index('id="cases"') :]
    assert re.search(r"<strong>wrong</strong>: <a href=\"submissions/wrong/feedback.html#dcg_at_k\">wrong</a>", cases)
    assert "<strong>not implemented</strong>: <a" in cases and "<strong>crashed or timed out</strong>: <a" in cases
    problems = html[html.index('id="problems"') :]
    assert "partly done: not implemented: dcg_at_k" in problems[: problems.index("</table>")]
    diagnoses = html[html.index('id="misconceptions"') :]
    assert "separating condition" in diagnoses and "fails exactly on the cases with gain=&#x27;exp&#x27;" in diagnoses


def test_grades_csv_flags_partly_done_submissions():
    """Does grades.csv name, per submission, the functions left not implemented?"""
    rows = list(
        csv.DictReader(io.StringIO(grades_csv.render(_class(), rubric.load(default_lab().place.rubric, default_lab()))))
    )
    assert {row["submission"]: row["not_implemented"] for row in rows} == {
        "right": "",
        "stub": "dcg_at_k",
        "crash": "",
        "wrong": "",
    }


def test_jobs_default_to_the_cpus_the_process_may_use(monkeypatch):
    """Does the batch's default number of jobs follow the process's CPU affinity, not the machine's cores?"""
    monkeypatch.setattr(batch.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(batch.os, "cpu_count", lambda: 64)
    assert batch.usable_cpus() == 1


@pytest.mark.parametrize(
    "cases, tally", [("1p", "its one case passed"), ("1w", "its one case failed"), ("3p 2w", "3/5 cases passed")]
)
def test_a_checks_tally_counts_in_words(cases, tally):
    """Does a check's tally read as English for one case as for many (never "1/1 cases")?"""
    assert feedback.check_view(check("dcg_at_k", CheckKind.EDGE, _cases(cases))).tally == tally


#: (id, a value the student's function returned, what feedback prints of it)
KEYS = [
    ("int-keys", {1: -2, 2: 0}, "{1: -2, 2: 0}"),
    ("str-keys", {"1": -2, "2": 0}, "{'1': -2, '2': 0}"),
    ("mixed-keys", {"1": 0.5, 2: 0.25}, "{'1': 0.5, 2: 0.25}"),
    ("tuple-key", {("1", "a"): 1}, '{["1", "a"]: 1}'),
    ("bool-key", {True: 1}, "{true: 1}"),
]


@pytest.mark.parametrize(("returned", "printed"), [case[1:] for case in KEYS], ids=[case[0] for case in KEYS])
def test_does_feedback_tell_an_int_key_from_a_str_key(returned, printed):
    """A dict keyed by int(query_id) was shown as {'1': -2}, just like the right answer keyed by
    the query id string: is every key that is not a string printed bare, each string quoted?"""
    from autograder.grading import judge
    from autograder.reports.feedback import value_text
    from autograder.sandbox.child.values import encode

    assert value_text(judge.plain(encode(returned))) == printed
