"""What a hidden run-file case tells its student: where the file goes wrong (which column, which
rank, which line, how many lines) and never a value of the hidden inputs (query ids, query texts,
doc ids, scores, the system name)."""

from __future__ import annotations

import pytest

from autograder.grading import runfile_problems as problems
from autograder.lab.scenarios import small_scenarios


def _hidden_values(scenario) -> set[str]:
    """Every string of the scenario's inputs a message could leak (short ones are too common to test)."""
    values = {scenario.system}
    for query_id, text in scenario.queries:
        values |= {query_id, text}
    for hits in scenario.results.values():
        for hit in hits:
            values |= {str(hit[0]), repr(hit[-1]), f"{hit[-1]:.8f}"}
    return {value for value in values if len(value) >= 3}


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


# (id, how the file is broken, the property that must fail, words its told message must hold)
BROKEN = [
    ("ranks-from-zero", _ranks_from_zero, "ranks 1, 2, 3, ... within each query", "ranks are not 1, 2, 3"),
    ("no-q0", _no_q0, "6 columns", "line 1"),
    ("other-system", _other_system, "system name", "the system name it was given"),
    ("doubled", _doubled, "no doc id twice within a query", "a doc id appears twice"),
]
CONTENT = [
    ("four-decimals", _four_decimals, "scores equal search_fn's to 1e-8", "the score is not search_fn's"),
    ("queries-reordered", _reversed_queries, "every query with results, in the order given", "in another order"),
]


def _scenario(name: str = "query-order"):
    """A hidden scenario: by default one of three queries; "scores": scores of many decimals."""
    found = next(s for s in small_scenarios() if s.name == name)
    assert not found.public and not found.raises
    return found


@pytest.mark.parametrize("case_id, broken, what, words", BROKEN, ids=[row[0] for row in BROKEN])
def test_does_a_hidden_format_case_say_where_and_nothing_hidden(case_id, broken, what, words):
    scenario = _scenario()
    table = broken(_rows(scenario))
    shown = problems.in_format(table, scenario, told=True)
    instructor = problems.in_format(table, scenario)
    failing = {name: message for name, message in shown.items() if message}
    assert any(what in name for name in failing), f"{case_id}: no failing property like {what!r}: {instructor}"
    message = next(message for name, message in failing.items() if what in name)
    assert words in message
    leaked = [value for value in _hidden_values(scenario) if any(value in m for m in failing.values())]
    assert not leaked, f"{case_id}: the student's messages quote hidden inputs {leaked}"


@pytest.mark.parametrize("case_id, broken, what, words", CONTENT, ids=[row[0] for row in CONTENT])
def test_does_a_hidden_content_case_say_where_and_nothing_hidden(case_id, broken, what, words):
    scenario = _scenario("scores" if case_id == "four-decimals" else "query-order")
    calls = [[text, scenario.k] for _, text in scenario.queries]
    table = broken(_rows(scenario))
    shown = problems.in_content(table, scenario, calls, told=True)
    assert shown[what] and words in shown[what], shown
    leaked = [value for value in _hidden_values(scenario) if any(value in (m or "") for m in shown.values())]
    assert not leaked, f"{case_id}: the student's messages quote hidden inputs {leaked}"


def test_does_the_instructor_still_see_the_values():
    """The instructor's words (not told) quote the file: the hidden-safe wording is the student's only."""
    scenario = _scenario()
    table = _ranks_from_zero(_rows(scenario))
    message = problems.in_format(table, scenario)["ranks 1, 2, 3, ... within each query"]
    assert message and scenario.queries[0][0] in message


def test_are_the_right_calls_in_another_order_named_so():
    scenario = _scenario()
    calls = [[text, scenario.k] for _, text in reversed(scenario.queries)]
    message = problems.in_search(scenario, calls, told=True)["search_fn(query.text, k) called for each query"]
    assert message and "another order" in message
