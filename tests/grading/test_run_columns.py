"""The run writer's column diagnoses (``grading/diagnosis/run_columns.py``): which column of its wrong files is
wrong and how, said only when every wrong file has it. Small worked files first (no Cranfield), then the
one-bug writers of ``tests/fixtures/concept_bugs/run_columns.py`` graded in this process, each told its
kind and never contradicted (``tests/support/premise_runs.py``)."""

from __future__ import annotations

import pytest

from autograder.grading.diagnosis import run_columns
from autograder.lab import concepts, spec
from autograder.lab.scenarios import Scenario
from tests.fixtures.concept_bugs.run_columns import RUN_COLUMN_BUGS
from tests.support import subs, truth

# Two queries, search_fn returning three results for the first and two for the second; k=2 (so the first
# query is cut), system "sys".
TWO = Scenario(
    name="two",
    system="sys",
    results={
        "one": [["d1", "first doc", 3.0], ["d2", "second doc", 2.123456789], ["d3", "third", 1.0]],
        "two": [["e1", "e title", 0.5], ["e2", "f title", 0.25]],
    },
    queries=(("1", "one"), ("2", "two")),
    k=2,
    description="two queries",
)


def _rows(*lines: str) -> list[list[str]]:
    return [line.split() for line in lines]


FILES = [
    # (id, the file's lines, the kinds of difference it has)
    (
        "right",
        _rows("1 Q0 d1 1 3.0 sys", "1 Q0 d2 2 2.123456789 sys", "2 Q0 e1 1 0.5 sys", "2 Q0 e2 2 0.25 sys"),
        set(),
    ),
    (
        "ranks-count-on",
        _rows("1 Q0 d1 1 3.0 sys", "1 Q0 d2 2 2.123456789 sys", "2 Q0 e1 3 0.5 sys", "2 Q0 e2 4 0.25 sys"),
        {"ranks-count-on", "ranks"},
    ),
    (
        "ranks-from-0",
        _rows("1 Q0 d1 0 3.0 sys", "1 Q0 d2 1 2.123456789 sys", "2 Q0 e1 0 0.5 sys", "2 Q0 e2 1 0.25 sys"),
        {"ranks"},
    ),
    (
        "ranks-as-floats",  # trec_eval would read them, the contract's {rank} does not write them
        _rows("1 Q0 d1 1.0 3.0 sys", "1 Q0 d2 2.0 2.123456789 sys", "2 Q0 e1 1.0 0.5 sys", "2 Q0 e2 2.0 0.25 sys"),
        {"ranks"},
    ),
    (
        "titles",  # "first doc" is two columns
        _rows(
            "1 Q0 first doc 1 3.0 sys", "1 Q0 second doc 2 2.1 sys", "2 Q0 e title 1 0.5 sys", "2 Q0 f title 2 1 sys"
        ),
        {"doc-titles"},
    ),
    (
        "scores-as-doc-ids",
        _rows("1 Q0 3.0 1 3.0 sys", "1 Q0 2.123456789 2 2.123456789 sys", "2 Q0 0.5 1 0.5 sys", "2 Q0 0.25 2 0.25 sys"),
        {"doc-scores"},
    ),
    (
        "queries-swapped",
        _rows("2 Q0 e1 1 0.5 sys", "2 Q0 e2 2 0.25 sys", "1 Q0 d1 1 3.0 sys", "1 Q0 d2 2 2.123456789 sys"),
        {"queries"},
    ),
    (
        "reversed",
        _rows("1 Q0 d2 1 2.123456789 sys", "1 Q0 d1 2 3.0 sys", "2 Q0 e2 1 0.25 sys", "2 Q0 e1 2 0.5 sys"),
        {"order-reversed", "order-ascending", "order"},
    ),
    (
        "one-query-moved",  # neither reversed nor ascending in every query: only "another order"
        _rows("1 Q0 d2 1 2.123456789 sys", "1 Q0 d1 2 3.0 sys", "2 Q0 e1 1 0.5 sys", "2 Q0 e2 2 0.25 sys"),
        {"order"},
    ),
    (
        "k-plus-one",
        _rows(
            "1 Q0 d1 1 3.0 sys",
            "1 Q0 d2 2 2.123456789 sys",
            "1 Q0 d3 3 1.0 sys",
            "2 Q0 e1 1 0.5 sys",
            "2 Q0 e2 2 0.25 sys",
        ),
        {"lines-plus-one", "lines"},
    ),
    ("k-minus-one", _rows("1 Q0 d1 1 3.0 sys", "2 Q0 e1 1 0.5 sys"), {"lines-minus-one", "lines"}),
    ("empty", [], {"lines"}),
    (
        "rounded",
        _rows("1 Q0 d1 1 3.0 sys", "1 Q0 d2 2 2.1235 sys", "2 Q0 e1 1 0.5 sys", "2 Q0 e2 2 0.25 sys"),
        {"scores-rounded", "scores"},
    ),
    (
        "scores-are-ranks",
        _rows("1 Q0 d1 1 1 sys", "1 Q0 d2 2 2 sys", "2 Q0 e1 1 1 sys", "2 Q0 e2 2 2 sys"),
        {"scores"},
    ),
    (
        "tag",
        _rows("1 Q0 d1 1 3.0 run", "1 Q0 d2 2 2.123456789 run", "2 Q0 e1 1 0.5 run", "2 Q0 e2 2 0.25 run"),
        {"tag"},
    ),
    (
        "q0",
        _rows("1 0 d1 1 3.0 sys", "1 0 d2 2 2.123456789 sys", "2 0 e1 1 0.5 sys", "2 0 e2 2 0.25 sys"),
        {"q0"},
    ),
    ("unknown-query", _rows("9 Q0 d1 1 3.0 sys"), set()),
]


@pytest.mark.parametrize("table, kinds", [row[1:] for row in FILES], ids=[row[0] for row in FILES])
def test_a_wrong_files_columns_are_told_apart(table, kinds):
    """Does the comparison with search_fn's results find exactly the kinds of difference the file has?"""
    assert set(run_columns.findings(table, TWO, {})) == kinds


ROUNDED = [
    # (id, written, search_fn's score, rounded to the places it shows?)
    ("four-decimals", "0.1235", 0.123456789, True),
    ("truncated", "0.1234", 0.123456789, False),
    ("scientific", "1.235e-01", 0.123456789, True),
    ("integer", "12", 12.3, True),
    ("another-number", "2", 12.3, False),
    ("not-a-number", "high", 1.0, False),
    ("infinite", "inf", 1.0, False),
]


@pytest.mark.parametrize("written, score, rounded", [row[1:] for row in ROUNDED], ids=[row[0] for row in ROUNDED])
def test_a_score_is_rounded_only_to_the_places_it_shows(written, score, rounded):
    """Is a written score search_fn's rounded to the decimals it shows (not truncated, not another number)?"""
    assert run_columns.is_rounded(written, score) is rounded


def _wrong(name: str, public: bool, found: dict, tags=frozenset({"sys"})) -> run_columns.Wrong:
    return run_columns.Wrong(name, f"its {name} run", public, found, frozenset(tags))


COMMON = [
    # (id, each wrong file's kinds, what is said)
    ("one-kind-everywhere", [{"tag": "x"}, {"tag": "y"}], ["tag"]),
    ("not-in-every-file", [{"tag": "x", "q0": "x"}, {"tag": "y"}], ["tag"]),
    ("nothing-shared", [{"tag": "x"}, {"q0": "y"}], []),
    ("specific-hides-general", [{"ranks-count-on": "x", "ranks": "x"}] * 2, ["ranks-count-on"]),
    ("general-when-specific-differs", [{"ranks-count-on": "x", "ranks": "x"}, {"ranks": "y"}], ["ranks"]),
    ("reversed-hides-ascending", [{"order-reversed": "x", "order-ascending": "x", "order": "x"}], ["order-reversed"]),
    ("no-wrong-file", [], []),
]


@pytest.mark.parametrize("found, said", [row[1:] for row in COMMON], ids=[row[0] for row in COMMON])
def test_a_kind_is_said_only_when_every_wrong_file_has_it(found, said):
    """Is a kind of difference said only when every wrong file has it, a general one only when no specific one
    of it is common?"""
    wrong = [_wrong(f"f{index}", True, kinds) for index, kinds in enumerate(found)]
    assert run_columns.common(wrong) == said


def test_a_hidden_files_values_are_never_shown():
    """When only hidden scenarios' files are wrong, does the diagnosis say the kind without any of their
    values (a hidden input must not reach the student)?"""
    secret = "query 7 starts at rank 4, not 1"
    [said] = run_columns.diagnoses("write_run", [_wrong("hidden", False, {"ranks-count-on": secret})], 3, "n", "")
    assert said.id == "run-columns-ranks-count-on" and secret not in said.explanation
    [shown] = run_columns.diagnoses("write_run", [_wrong("public", True, {"ranks-count-on": secret})], 3, "n", "")
    assert secret in shown.explanation


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("run-columns"))


@pytest.mark.cranfield
@pytest.mark.parametrize("bug", RUN_COLUMN_BUGS, ids=[bug["id"] for bug in RUN_COLUMN_BUGS])
def test_a_run_writers_column_mistake_is_told_which_column(graded, bug):
    """Does a one-bug run writer lose points and get told which column of its files is wrong and how, with the
    notes' run file format (or the catalogue's misconception, where one explains its files), and no diagnosis
    that a judged file contradicts?"""
    functions = truth.load(subs.with_function(spec.FUNCTIONS["write_run"], bug["source"]), "bug_runs")
    checks, contradicted = graded.grade(graded.answers(functions, {"write_run"}))
    failing = [check for check in checks if check.function == "write_run" and not check.full]
    shown = {d.id: d for check in failing for d in check.diagnoses}
    assert failing, "the bug passes every check"
    assert bug["said"] in shown, list(shown)
    if bug["said"].startswith(run_columns.PREFIX):
        assert concepts.CONCEPTS["run-file-format"].statement in shown[bug["said"]].explanation
    assert contradicted == []
