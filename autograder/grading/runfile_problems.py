"""What is wrong with a run file, property by property: its TREC format (six columns, Q0, ranks,
order, k, the system name) and its content (what the search function returned, in its order, and
how it was called). Each property maps to None when it holds, else a message for the instructor
(it quotes the file and the scenario's inputs: a hidden scenario's student reads only a word of
``vocabulary.HIDDEN_STATES``, ``CaseResult.for_student``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from autograder.labkit import trec

if TYPE_CHECKING:
    from autograder.labkit.scenario import Scenario


def _by_query(table: list[list[str]]) -> dict[str, list[list[str]]]:
    grouped: dict[str, list[list[str]]] = {}
    for row in table:
        grouped.setdefault(row[0], []).append(row)
    return grouped


def in_format(table: list[list[str]], scenario: Scenario) -> dict[str, str | None]:
    """Each TREC format property of the file: None when it holds, else what is wrong (first example)."""
    numbered = list(enumerate(table, start=1))
    found = {"6 columns on every line": _first(numbered, lambda r: len(r) == trec.COLUMNS, "does not have 6 columns")}
    six = [(n, r) for n, r in numbered if len(r) == trec.COLUMNS]
    found.update(_in_columns(six, scenario))
    found.update(_in_queries([r for _, r in six], scenario))
    return found


def _first(rows: list[tuple[int, list[str]]], test: Callable[[list[str]], bool], message: str) -> str | None:
    """The first numbered row failing ``test``, said with ``message`` (None when every row passes)."""
    for number, row in rows:
        if not test(row):
            return f"line {number}: {' '.join(row)[:120]!r} {message}"
    return None


def _in_columns(six: list[tuple[int, list[str]]], scenario: Scenario) -> dict[str, str | None]:
    """The properties of each line of 6 columns: Q0, a score trec_eval reads, the system name."""
    return {
        "Q0 in the second column": _first(six, lambda r: r[1] == "Q0", "has no Q0 in the second column"),
        "a score trec_eval can read in the fifth column": _first(
            six, lambda r: trec.score(r[4]) is not None, "has no number in the fifth column"
        ),
        _system_property(scenario): _first(
            six, lambda r: r[5] == scenario.system, f"does not end with the system name {scenario.system}"
        ),
    }


def _system_property(scenario: Scenario) -> str:
    """The system name's property, as a case's label says it: a hidden scenario's name is one of its
    inputs, so its label does not quote it."""
    return (
        f"system name {scenario.system!r} in the last column"
        if scenario.public
        else "the system name given in the last column"
    )


def _in_queries(six: list[list[str]], scenario: Scenario) -> dict[str, str | None]:
    """The properties of each query's lines (``_QUERY_PROPERTIES``), each said of the first query
    (in the file's order) that breaks it."""
    found: dict[str, str | None] = dict.fromkeys(property for property, _ in _QUERY_PROPERTIES)
    for query_id, query_rows in _by_query(six).items():
        for property, problem in _QUERY_PROPERTIES:
            if found[property] is None:
                found[property] = problem(f"query {query_id}", query_rows, scenario)
    return found


def _ranks(query: str, rows: list[list[str]], scenario: Scenario) -> str | None:
    """Are the query's ranks 1, 2, 3, ...?"""
    if [r[3] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]:
        return None
    return f"{query}: ranks {' '.join(r[3] for r in rows[:5])}... are not 1, 2, 3, ..."


def _scores(query: str, rows: list[list[str]], scenario: Scenario) -> str | None:
    """Do the query's scores (when all are numbers) never increase down the list?"""
    read = [trec.score(r[4]) for r in rows]
    values = [value for value in read if value is not None]
    if len(values) == len(read) and any(a < b for a, b in itertools.pairwise(values)):
        return f"{query}: scores increase down the list ({', '.join(r[4] for r in rows[:4])}...)"
    return None


def _duplicates(query: str, rows: list[list[str]], scenario: Scenario) -> str | None:
    """Is each of the query's doc ids there once?"""
    docs = [r[2] for r in rows]
    return f"{query}: a doc id appears twice" if len(set(docs)) != len(docs) else None


def _at_most_k(query: str, rows: list[list[str]], scenario: Scenario) -> str | None:
    """Has the query at most k lines?"""
    return f"{query}: {len(rows)} lines for k={scenario.k}" if len(rows) > scenario.k else None


# each property of a query's lines, in the order the file's problems are listed
_QUERY_PROPERTIES: tuple[tuple[str, Callable[[str, list[list[str]], Scenario], str | None]], ...] = (
    ("ranks 1, 2, 3, ... within each query", _ranks),
    ("scores non-increasing within each query", _scores),
    ("no doc id twice within a query", _duplicates),
    ("at most k lines per query", _at_most_k),
)


def in_content(table: list[list[str]], scenario: Scenario, searches: list[Any]) -> dict[str, str | None]:
    """Does the file hold what the search function returned, in its order, for the queries given?"""
    expected = scenario.expected_rows()
    found: dict[str, str | None] = {"every query with results, in the order given": _query_order(table, scenario)}
    got_docs = [(r[0], r[2]) for r in table if len(r) >= 3]
    want_docs = [(row[0], row[2]) for row in expected]
    found["each query's doc ids in the order search_fn returned"] = (
        None if got_docs == want_docs else _first_difference(got_docs, want_docs)
    )
    scores = _first_wrong_score(table, expected)
    if got_docs != want_docs and scores is None:
        scores = "cannot compare scores: the doc ids differ (see above)"
    found["scores equal search_fn's to 1e-8"] = scores
    found.update(in_search(scenario, searches))
    return found


def _query_order(table: list[list[str]], scenario: Scenario) -> str | None:
    """Are the queries with results in the file, in the order given (None), or what is not?"""
    order: list[str] = []
    for row in table:
        if row and (not order or order[-1] != row[0]):
            order.append(row[0])
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    if order == wanted:
        return None
    return (
        f"queries appear as {', '.join(order[:8]) or '(none)'}; "
        f"expected {', '.join(wanted[:8])}{'...' if len(wanted) > 8 else ''}"
    )


def _first_wrong_score(table: list[list[str]], expected: list[tuple[Any, ...]]) -> str | None:
    """The first line of 6 columns, at its expected query and doc, whose score is not search_fn's."""
    for row, want in zip(table, expected):
        value = trec.score(row[4]) if len(row) == trec.COLUMNS else None
        if len(row) == trec.COLUMNS and (row[0], row[2]) == (want[0], want[2]) and not trec.same_score(value, want[4]):
            return (
                f"query {want[0]}, doc {want[2]}: score {row[4]} but search_fn gave {want[4]!r} "
                "(write at least 8 decimals)"
            )
    return None


def in_search(scenario: Scenario, searches: list[Any]) -> dict[str, str | None]:
    """Was search_fn called with each query's text and k, in order?"""
    wanted_calls = [[text, scenario.k] for _, text in scenario.queries]
    if searches == wanted_calls:
        return {"search_fn(query.text, k) called for each query": None}
    detail = f"; first call {searches[0]!r}" if searches else ""
    if sorted(map(repr, searches)) == sorted(map(repr, wanted_calls)):
        detail = ": the right calls, in another order than the queries were given"
    return {
        "search_fn(query.text, k) called for each query": (
            f"search_fn was called {len(searches)} times for {len(wanted_calls)} queries{detail}"
        )
    }


def _first_difference(got: list[tuple[str, str]], want: list[tuple[str, str]]) -> str:
    for index, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"line {index + 1}: query {g[0]} doc {g[1]}, expected query {w[0]} doc {w[1]}"
    return f"{len(got)} result lines, expected {len(want)}"


def lacks(table: list[list[str]], scenario: Scenario) -> str | None:
    """What the file lacks to be checked at all: fewer lines of 6 columns than the right file has,
    and no line for some query with results (its format properties would hold vacuously of an empty
    or garbage file), or None. A file with all its lines, whatever its query ids, is checked on them:
    wrong ids are its content's fault (``in_content``), not its format's."""
    six = [row for row in table if len(row) == trec.COLUMNS]
    if len(six) >= len(scenario.expected_rows()):
        return None
    present = {row[0] for row in six}
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    missing = [query_id for query_id in wanted if query_id not in present]
    if not missing:
        return None
    return (
        f"the file has no line of 6 columns for quer{'ies' if len(missing) > 1 else 'y'} "
        f"{', '.join(missing[:5])}{'...' if len(missing) > 5 else ''}: its format cannot be checked on lines "
        "that are not there"
    )
