"""The handout's public checks: pytest in the handout folder and grader.check in the notebook."""

import json
import runpy
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from autograder import paths
from autograder.lab import spec
from tests.conftest import make_handout

#: the handout's own public cases, read from its file (the handout is not a package of this repository)
public_cases = SimpleNamespace(**runpy.run_path(str(paths.HANDOUT / "tests" / "public_cases.py")))

QUESTIONS = sorted({case.question for case in public_cases.CASES})


def _pytest_in(handout):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rf"],
        cwd=handout,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_solutions_pass_every_public_check(tmp_path):
    """Does `pytest` in the handout pass every notes example, and the import check of each graded
    file, with the reference solutions?"""
    result = _pytest_in(make_handout(tmp_path / "handout", paths.SOLUTIONS / "lab05"))
    assert result.returncode == 0, result.stdout
    assert f"{len(public_cases.CASES) + len(spec.GRADED_FILES)} passed" in result.stdout


def test_stubs_fail_every_check_with_a_pointer(tmp_path):
    """With the stubs, does every check fail and name the function to implement?"""
    result = _pytest_in(make_handout(tmp_path / "handout"))
    assert f"{len(public_cases.CASES)} failed" in result.stdout
    sections = {section.split("]]", 1)[0]: section for section in result.stdout.split(" test_notes_example[")[1:]}
    for case in public_cases.CASES:
        section = sections[f"{case.function}[{case.id}"]
        assert f"{case.function} is not implemented yet: write it in lab05/" in section, case.id


BUGGY_PRECISION = """

def precision_at_k(ranking, judgments, k, rel=1):
    top = ranking[:k]
    return sum(judgments.get(d, 0) >= rel for d in top) / len(top)
"""


def test_failure_names_function_input_expected_actual_and_hint(tmp_path):
    """Does a wrong value get a message with the call, the notes' value, the actual value and a hint?"""
    handout = make_handout(tmp_path / "handout", paths.SOLUTIONS / "lab05")
    with open(handout / "lab05" / "metrics.py", "a") as metrics:
        metrics.write(BUGGY_PRECISION)
    result = _pytest_in(handout)
    assert "1 failed" in result.stdout, result.stdout
    assert (
        "precision_at_k(['D1', 'D2', 'D3', 'D4', 'D5'], {'D1': 1, 'D3': 1, 'D5': 1}, k=10) "
        "returned 0.6, expected 0.3 (3/10). Hint: P@10 divides by k = 10"
    ) in result.stdout


def test_every_case_has_a_question_and_a_value():
    """Does every public case belong to q1..q6, name an API function and carry the notes' value?"""
    assert QUESTIONS == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert len({case.id for case in public_cases.CASES}) == len(public_cases.CASES)
    for case in public_cases.CASES:
        assert case.function in {
            "confusion_matrix",
            "accuracy",
            "precision_at_k",
            "recall_at_k",
            "reciprocal_rank",
            "average_precision",
            "dcg_at_k",
            "ndcg_at_k",
            "write_run",
            "evaluate",
            "largest_differences",
        }
        assert case.expected is not None and case.shown


#: The notebook's first lines, then each question's check: what grader.check found, as JSON, and
#: the modules it loaded from outside the standard library and the handout (the checker needs none).
GRADER_CHECK = textwrap.dedent("""
    import json, sys
    before = set(sys.modules)
    sys.path.insert(0, "tests")
    from checks import grader
    report = {}
    for question in sys.argv[1:]:
        result = grader.check(question)
        report[question] = [result.passed_all, result.score, result.possible, repr(result), result._repr_html_()]
    own = {"__main__", "checks", "public_cases", "lab05", *sys.stdlib_module_names}
    report["loaded"] = sorted({name.split(".")[0] for name in set(sys.modules) - before} - own)
    print(json.dumps(report))
""")


def _grader_check(handout, questions=QUESTIONS) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", GRADER_CHECK, *questions], cwd=handout, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report.pop("loaded") == [], "grader.check loaded modules from outside the standard library"
    return report


@pytest.mark.parametrize("graded, passes", [("solutions", True), ("stubs", False)])
def test_grader_check_runs_the_same_cases(tmp_path, graded, passes):
    """Does grader.check("qN") run each question's public cases: all pass with the solutions,
    all fail with the stubs, naming the function?"""
    handout = make_handout(tmp_path / "handout", paths.SOLUTIONS / "lab05" if graded == "solutions" else None)
    report = _grader_check(handout)
    for question in QUESTIONS:
        passed_all, score, possible, text, _ = report[question]
        assert possible == len(public_cases.cases_for(question))
        assert passed_all is passes and score == (possible if passes else 0), (question, text)
        if passes:
            assert text == f"{question} results: All test cases passed!"
        else:
            for case in public_cases.cases_for(question):
                assert f"{case.function} is not implemented yet" in text, (question, case.id)


def test_grader_check_shows_only_the_failures_after_a_count(tmp_path):
    """With one wrong function, does grader.check show a count of failed and passed cases, then the
    failed cases only, each with its message (call, values, hint), in text and in HTML; and do the
    other questions still pass?"""
    handout = make_handout(tmp_path / "handout", paths.SOLUTIONS / "lab05")
    with open(handout / "lab05" / "metrics.py", "a") as metrics:
        metrics.write(BUGGY_PRECISION)
    report = _grader_check(handout, ["q2", "q3"])
    passed_all, score, possible, text, html = report["q2"]
    assert (passed_all, score, possible) == (False, possible - 1, len(public_cases.cases_for("q2")))
    assert text.splitlines()[:2] == [
        "q2 results:",
        f"    1 of {possible} cases failed, {possible - 1} passed; the failed ones:",
    ]
    assert "toy-p@10-short-ranking result:" in text and text.count("Test case failed") == 1, text
    assert "returned 0.6, expected 0.3 (3/10). Hint: P@10 divides by k = 10" in text
    assert f"1 of {possible} cases failed" in html and "returned 0.6, expected 0.3" in html
    assert "toy-p@1 result" not in text and "toy-recall@5" not in html, "passed cases are not listed"
    assert report["q3"][0] is True and report["q3"][3] == "q3 results: All test cases passed!"


def test_grader_check_names_the_questions_for_an_unknown_one(tmp_path):
    """Is grader.check("q9") a ValueError that lists the questions there are?"""
    handout = make_handout(tmp_path / "handout", paths.SOLUTIONS / "lab05")
    result = subprocess.run(
        [sys.executable, "-c", GRADER_CHECK, "q9"], cwd=handout, capture_output=True, text=True, timeout=300
    )
    assert result.returncode != 0
    assert "ValueError: grader.check('q9'): there is no such question; the questions are ['q1', 'q2'" in result.stderr
