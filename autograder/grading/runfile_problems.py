"""What is wrong with a run file, property by property: its TREC format (six columns, Q0, ranks,
order, k, the system name) and its content (what the search function returned, in its order, and
how it was called). Each property maps to None when it holds, else a message; ``told=True`` words
the message for a hidden scenario's student (where, how many: no id, text or score of the file,
which come from the hidden inputs)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from autograder.labkit import trec

if TYPE_CHECKING:
    from autograder.lab.scenarios import Scenario


def _by_query(table: list[list[str]]) -> dict[str, list[list[str]]]:
    grouped: dict[str, list[list[str]]] = {}
    for row in table:
        grouped.setdefault(row[0], []).append(row)
    return grouped


def in_format(table: list[list[str]], scenario: Scenario, told: bool = False) -> dict[str, str | None]:
    """Each TREC format property of the file: None when it holds, else what is wrong (first example).
    ``told``: in words a hidden scenario's student may read (where, how many; no id, text or score
    of the file, which come from the hidden inputs)."""
    found: dict[str, str | None] = {}

    def first(rows_: list[tuple[int, list[str]]], test: Callable[[list[str]], bool], message: str) -> str | None:
        for number, row in rows_:
            if not test(row):
                return f"line {number} {message}" if told else f"line {number}: {' '.join(row)[:120]!r} {message}"
        return None

    numbered = list(enumerate(table, start=1))
    found["6 columns on every line"] = first(numbered, lambda r: len(r) == trec.COLUMNS, "does not have 6 columns")
    six = [(n, r) for n, r in numbered if len(r) == trec.COLUMNS]
    found["Q0 in the second column"] = first(six, lambda r: r[1] == "Q0", "has no Q0 in the second column")
    found["a score trec_eval can read in the fifth column"] = first(
        six, lambda r: trec.score(r[4]) is not None, "has no number in the fifth column"
    )
    name = "the system name it was given" if told else f"the system name {scenario.system}"
    found[f"system name {scenario.system!r} in the last column"] = first(
        six, lambda r: r[5] == scenario.system, f"does not end with {name}"
    )
    ranks = scores = duplicates = at_most_k = None
    for number, (query_id, query_rows) in enumerate(_by_query([r for _, r in six]).items(), start=1):
        query = f"the file's query {number}" if told else f"query {query_id}"
        if ranks is None and [r[3] for r in query_rows] != [str(i) for i in range(1, len(query_rows) + 1)]:
            shown = "" if told else f" {' '.join(r[3] for r in query_rows[:5])}..."
            ranks = f"{query}: ranks{shown} are not 1, 2, 3, ..."
        read = [trec.score(r[4]) for r in query_rows]
        values = [value for value in read if value is not None]
        if scores is None and len(values) == len(read) and any(a < b for a, b in itertools.pairwise(values)):
            shown = "" if told else f" ({', '.join(r[4] for r in query_rows[:4])}...)"
            scores = f"{query}: scores increase down the list{shown}"
        docs = [r[2] for r in query_rows]
        if duplicates is None and len(set(docs)) != len(docs):
            duplicates = f"{query}: a doc id appears twice"
        if at_most_k is None and len(query_rows) > scenario.k:
            at_most_k = f"{query}: {len(query_rows)} lines for k={scenario.k}"
    found["ranks 1, 2, 3, ... within each query"] = ranks
    found["scores non-increasing within each query"] = scores
    found["no doc id twice within a query"] = duplicates
    found["at most k lines per query"] = at_most_k
    return found


def in_content(
    table: list[list[str]], scenario: Scenario, searches: list[Any], told: bool = False
) -> dict[str, str | None]:
    """Does the file hold what the search function returned, in its order, for the queries given?
    ``told``: in words a hidden scenario's student may read (``format_problems``)."""
    expected = scenario.expected_rows()
    found: dict[str, str | None] = {}
    order: list[str] = []
    for row in table:
        if row and (not order or order[-1] != row[0]):
            order.append(row[0])
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    if order == wanted:
        found["every query with results, in the order given"] = None
    elif told:
        found["every query with results, in the order given"] = (
            f"{len(order)} queries in the file, in another order or not all of them ({len(wanted)} expected)"
        )
    else:
        found["every query with results, in the order given"] = (
            f"queries appear as {', '.join(order[:8]) or '(none)'}; "
            f"expected {', '.join(wanted[:8])}{'...' if len(wanted) > 8 else ''}"
        )
    got_docs = [(r[0], r[2]) for r in table if len(r) >= 3]
    want_docs = [(row[0], row[2]) for row in expected]
    found["each query's doc ids in the order search_fn returned"] = (
        None if got_docs == want_docs else (_first_difference(got_docs, want_docs, told))
    )
    scores = None
    for row, want in zip(table, expected):
        value = trec.score(row[4]) if len(row) == trec.COLUMNS else None
        if len(row) == trec.COLUMNS and (row[0], row[2]) == (want[0], want[2]) and not trec.same_score(value, want[4]):
            scores = (
                f"line {table.index(row) + 1}: the score is not search_fn's to 1e-8 (write at least 8 decimals)"
                if told
                else f"query {want[0]}, doc {want[2]}: score {row[4]} but search_fn gave {want[4]!r} "
                f"(write at least 8 decimals)"
            )
            break
    if got_docs != want_docs and scores is None:
        scores = "cannot compare scores: the doc ids differ (see above)"
    found["scores equal search_fn's to 1e-8"] = scores
    found.update(in_search(scenario, searches, told))
    return found


def in_search(scenario: Scenario, searches: list[Any], told: bool = False) -> dict[str, str | None]:
    """Was search_fn called with each query's text and k, in order?"""
    wanted_calls = [[text, scenario.k] for _, text in scenario.queries]
    if searches == wanted_calls:
        return {"search_fn(query.text, k) called for each query": None}
    detail = f"; first call {searches[0]!r}" if searches and not told else ""
    if sorted(map(repr, searches)) == sorted(map(repr, wanted_calls)):
        detail = ": the right calls, in another order than the queries were given"
    elif told and len(searches) == len(wanted_calls):
        detail = "; with another text or k than each query's"
    return {
        "search_fn(query.text, k) called for each query": (
            f"search_fn was called {len(searches)} times for {len(wanted_calls)} queries{detail}"
        )
    }


def _first_difference(got: list[tuple[str, str]], want: list[tuple[str, str]], told: bool = False) -> str:
    for index, (g, w) in enumerate(zip(got, want)):
        if g != w:
            if told:
                return f"line {index + 1}: another query or doc than search_fn returned there"
            return f"line {index + 1}: query {g[0]} doc {g[1]}, expected query {w[0]} doc {w[1]}"
    return f"{len(got)} result lines, expected {len(want)}"


def lacks(table: list[list[str]], scenario: Scenario, told: bool = False) -> str | None:
    """What the file lacks to be checked at all: a line for every query with results (its format
    properties would hold vacuously of an empty or garbage file), or None."""
    present = {row[0] for row in table if len(row) == trec.COLUMNS}
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    missing = [query_id for query_id in wanted if query_id not in present]
    if not missing:
        return None
    if told:
        return f"{len(missing)} of the {len(wanted)} queries with results have no line of 6 columns"
    return (
        f"the file has no line of 6 columns for quer{'ies' if len(missing) > 1 else 'y'} "
        f"{', '.join(missing[:5])}{'...' if len(missing) > 5 else ''}: its format cannot be checked on lines "
        "that are not there"
    )
