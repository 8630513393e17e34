"""What is wrong with a run file, as the instructor reads it: where the file goes wrong (which line,
which query, which value). A hidden scenario's student reads none of it, only a word of the fixed
vocabulary (``tests/grading/test_hidden_feedback.py``)."""

from __future__ import annotations

import pytest

from autograder.grading import runfile_problems as problems
from autograder.lab.scenarios import small_scenarios


def _rows(scenario):
    return [[str(cell) for cell in row] for row in scenario.expected_rows()]


def _ranks_from_zero(rows):
    return [[*row[:3], str(int(row[3]) - 1), *row[4:]] for row in rows]


def _no_q0(rows):
    return [[row[0], *row[2:]] for row in rows]


def _four_decimals(rows):
    return [[*row[:4], f"{float(row[4]):.4f}", row[5]] for row in rows]


def _reversed_queries(rows):
    first = rows[0][0]
    return [row for row in rows if row[0] != first] + [row for row in rows if row[0] == first]


def _other_system(rows):
    return [[*row[:5], "someone-else"] for row in rows]


def _doubled(rows):
    return rows + rows


# (id, how the file is broken, the property that must fail, words the instructor's message holds)
BROKEN = [
    ("ranks-from-zero", _ranks_from_zero, "ranks 1, 2, 3, ... within each query", "query 10: ranks 0..."),
    ("no-q0", _no_q0, "6 columns", "line 1:"),
    ("other-system", _other_system, "system name", "does not end with the system name sys_order"),
    ("doubled", _doubled, "no doc id twice within a query", "a doc id appears twice"),
]
CONTENT = [
    (
        "four-decimals",
        _four_decimals,
        "scores equal search_fn's to 1e-8",
        "score 12345.6789 but search_fn gave 12345.678901234",
    ),
    ("queries-reordered", _reversed_queries, "every query with results, in the order given", "expected 10, 2, 1"),
]


def _scenario(name: str = "query-order"):
    """A hidden scenario: by default one of three queries; "scores": scores of many decimals."""
    found = next(s for s in small_scenarios() if s.name == name)
    assert not found.public and not found.raises
    return found


@pytest.mark.parametrize("case_id, broken, what, words", BROKEN, ids=[row[0] for row in BROKEN])
def test_does_a_format_property_say_where_the_file_goes_wrong(case_id, broken, what, words):
    """Does the broken format property's message (the instructor's) say where the file goes wrong?"""
    scenario = _scenario()
    found = problems.in_format(broken(_rows(scenario)), scenario)
    failing = {name: message for name, message in found.items() if message}
    assert any(what in name for name in failing), f"{case_id}: no failing property like {what!r}: {found}"
    assert words in next(message for name, message in failing.items() if what in name)


@pytest.mark.parametrize("case_id, broken, what, words", CONTENT, ids=[row[0] for row in CONTENT])
def test_does_a_content_property_say_where_the_file_goes_wrong(case_id, broken, what, words):
    """Does the broken content property's message (the instructor's) quote the file and the inputs?"""
    scenario = _scenario("scores" if case_id == "four-decimals" else "query-order")
    calls = [[text, scenario.k] for _, text in scenario.queries]
    shown = problems.in_content(broken(_rows(scenario)), scenario, calls)
    assert shown[what] and words in shown[what], shown


def test_does_the_instructor_still_see_the_values():
    """The instructor's words (not told) quote the file: the hidden-safe wording is the student's only."""
    scenario = _scenario()
    table = _ranks_from_zero(_rows(scenario))
    message = problems.in_format(table, scenario)["ranks 1, 2, 3, ... within each query"]
    assert message and scenario.queries[0][0] in message


def test_are_the_right_calls_in_another_order_named_so():
    scenario = _scenario()
    calls = [[text, scenario.k] for _, text in reversed(scenario.queries)]
    message = problems.in_search(scenario, calls)["search_fn(query.text, k) called for each query"]
    assert message and "another order" in message


def _positions_as_ids(rows):
    order = list(dict.fromkeys(row[0] for row in rows))
    return [[str(order.index(row[0]) + 1), *row[1:]] for row in rows]


def _last_query_dropped(rows):
    last = rows[-1][0]
    return [row for row in rows if row[0] != last]


# (id, how the file is broken, is the file lacking lines (its format unjudgeable), a content property that fails)
LACKING = [
    ("query-positions-as-ids", _positions_as_ids, False, "every query with results, in the order given"),
    ("last-query-dropped", _last_query_dropped, True, "every query with results, in the order given"),
    ("empty-file", lambda rows: [], True, "every query with results, in the order given"),
]


@pytest.mark.parametrize(("case_id", "broken", "lacking", "content"), LACKING, ids=[c[0] for c in LACKING])
def test_is_a_file_with_all_its_lines_judged_on_them_whatever_its_query_ids(case_id, broken, lacking, content):
    """Is a file with every line but wrong query ids judged on its lines (its format holds; only its
    content fails), while a file missing lines is not given its format's points vacuously?"""
    scenario = _scenario()
    table = broken(_rows(scenario))
    assert (problems.lacks(table, scenario) is not None) is lacking
    assert problems.in_content(table, scenario, [])[content] is not None
    if not lacking:
        assert not [what for what, wrong in problems.in_format(table, scenario).items() if wrong], case_id
