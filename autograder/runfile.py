"""Checking the run files a submission's ``write_run`` writes, as trec_eval reads them.

A *scenario* is one call of ``write_run``: a system name, a replayed search function (its
results per query text), the queries in order, and k. The child returns the file's text; here
it is parsed (columns split on any whitespace), checked for the TREC format and for content
(the same docs and order the search function gave, scores to 1e-8), and the Cranfield runs are
evaluated by ``ir_measures`` against the reference table.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

SCORE_TOLERANCE = 1e-8
_ROWS: dict[tuple, tuple] = {}   # expected rows of each scenario (with its results), built once per process


@dataclass(frozen=True)
class Scenario:
    name: str
    system: str
    results: dict          # query text -> [[doc_id, title, score] or [doc_id, score], ...], best first
    queries: tuple         # ((query_id, text), ...) in the order given to write_run
    k: int
    description: str

    def expected_rows(self) -> list[tuple]:
        """The rows the right writer writes: (query_id, "Q0", doc_id, rank, score, system)."""
        key = (self.name, self.system, self.k, id(self.results))
        if key not in _ROWS or _ROWS[key][0] is not self.results:
            _ROWS[key] = (self.results, [(query_id, "Q0", hit[0], rank, hit[-1], self.system)
                                         for query_id, text in self.queries
                                         for rank, hit in enumerate(self.results[text][: self.k], start=1)])
        return _ROWS[key][1]


def small_scenarios() -> list[Scenario]:
    """Hidden write_run scenarios beyond Cranfield: cut at k, empty results, order, scores, ids."""
    def hits(prefix, scores):
        return [[f"{prefix}{i}", f"title {prefix}{i}", score] for i, score in enumerate(scores, start=1)]

    return [
        Scenario("cut-at-k", "sys_k", {"alpha": hits("A", [9, 8, 7, 6, 5, 4, 3, 2]), "beta": hits("B", [3, 2, 1])},
                 (("1", "alpha"), ("2", "beta")), 3, "k=3 with up to 8 results: at most 3 lines per query"),
        Scenario("no-results", "sys_empty", {"first": hits("F", [1.0]), "middle": [], "last": hits("L", [2.0, 1.0])},
                 (("1", "first"), ("2", "middle"), ("3", "last")), 10, "a query with no results writes no line"),
        Scenario("query-order", "sys_order", {"ten": hits("T", [0.5]), "two": hits("W", [0.25]), "one": hits("O", [1.0])},
                 (("10", "ten"), ("2", "two"), ("1", "one")), 5, "queries in the order given (10, 2, 1), not sorted"),
        Scenario("scores", "sys_scores", {"q": [["s1", "t", 12345.678901234], ["s2", "t", 0.123456789],
                                               ["s3", "t", 0.123456789], ["s4", "t", 3e-9], ["s5", "t", -1.5]]},
                 (("7", "q"),), 10, "scores with many decimals, ties, tiny and negative scores"),
        Scenario("doc-ids", "sys_ids", {"q": [["MARCO_00012", "t", 2.0], ["d-1.2", "t", 1.0], ["Ä1", "t", 0.5]]},
                 (("3", "q"),), 10, "doc ids with letters, punctuation and non-ASCII (UTF-8)"),
    ]


def cranfield_scenario(system: str, bundle: dict, k: int = 100) -> Scenario:
    """Lab 04's run of ``system``: hits as [doc_id, score] (the child adds titles from its table)."""
    texts = {query_id: text for query_id, text in bundle["queries"]}
    results = {texts[query_id]: hits for query_id, hits in bundle["systems"][system]["results"].items()}
    return Scenario(f"cranfield-{system}", system, results, tuple(tuple(q) for q in bundle["queries"]), k,
                    f"Lab 04's {system} run on all 225 Cranfield queries, k={k}")


# ------------------------------------------------------------------ reading what was written

def rows(text: str) -> list[list[str]]:
    """The file's non-blank lines split on whitespace, as trec_eval splits them."""
    return [line.split() for line in text.splitlines() if line.strip()]


def _score(column: str):
    try:
        value = float(column)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _by_query(table):
    grouped: dict[str, list] = {}
    for row in table:
        grouped.setdefault(row[0], []).append(row)
    return grouped


def format_problems(table: list[list[str]], scenario: Scenario) -> dict[str, str | None]:
    """Each TREC format property of the file: None when it holds, else what is wrong (first example)."""
    found: dict[str, str | None] = {}

    def first(rows_, test, message):
        for number, row in rows_:
            if not test(row):
                return f"line {number}: {' '.join(row)[:120]!r} {message}"
        return None

    numbered = list(enumerate(table, start=1))
    found["6 columns on every line"] = first(numbered, lambda r: len(r) == 6, "does not have 6 columns")
    six = [(n, r) for n, r in numbered if len(r) == 6]
    found["Q0 in the second column"] = first(six, lambda r: r[1] == "Q0", "has no Q0 in the second column")
    found["a score trec_eval can read in the fifth column"] = first(
        six, lambda r: _score(r[4]) is not None, "has no number in the fifth column")
    found[f"system name {scenario.system!r} in the last column"] = first(
        six, lambda r: r[5] == scenario.system, f"does not end with the system name {scenario.system}")
    ranks = scores = duplicates = at_most_k = None
    for query_id, query_rows in _by_query([r for _, r in six]).items():
        if ranks is None and [r[3] for r in query_rows] != [str(i) for i in range(1, len(query_rows) + 1)]:
            ranks = f"query {query_id}: ranks {' '.join(r[3] for r in query_rows[:5])}... are not 1, 2, 3, ..."
        values = [_score(r[4]) for r in query_rows]
        if scores is None and None not in values and any(a < b for a, b in zip(values, values[1:])):
            scores = f"query {query_id}: scores increase down the list ({', '.join(r[4] for r in query_rows[:4])}...)"
        docs = [r[2] for r in query_rows]
        if duplicates is None and len(set(docs)) != len(docs):
            duplicates = f"query {query_id}: a doc id appears twice"
        if at_most_k is None and len(query_rows) > scenario.k:
            at_most_k = f"query {query_id}: {len(query_rows)} lines for k={scenario.k}"
    found["ranks 1, 2, 3, ... within each query"] = ranks
    found["scores non-increasing within each query"] = scores
    found["no doc id twice within a query"] = duplicates
    found["at most k lines per query"] = at_most_k
    return found


def content_problems(table: list[list[str]], scenario: Scenario, searches: list) -> dict[str, str | None]:
    """Does the file hold what the search function returned, in its order, for the queries given?"""
    expected = scenario.expected_rows()
    found: dict[str, str | None] = {}
    order = []
    for row in table:
        if row and (not order or order[-1] != row[0]):
            order.append(row[0])
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    found["every query with results, in the order given"] = (
        None if order == wanted else f"queries appear as {', '.join(order[:8]) or '(none)'}; "
                                     f"expected {', '.join(wanted[:8])}{'...' if len(wanted) > 8 else ''}")
    got_docs = [(r[0], r[2]) for r in table if len(r) >= 3]
    want_docs = [(row[0], row[2]) for row in expected]
    found["each query's doc ids in the order search_fn returned"] = None if got_docs == want_docs else (
        _first_difference(got_docs, want_docs))
    scores = None
    for row, want in zip(table, expected):
        value = _score(row[4]) if len(row) == 6 else None
        if len(row) == 6 and (row[0], row[2]) == (want[0], want[2]) and (
                value is None or abs(value - want[4]) > SCORE_TOLERANCE):
            scores = (f"query {want[0]}, doc {want[2]}: score {row[4]} but search_fn gave {want[4]!r} "
                      f"(write at least 8 decimals)")
            break
    if got_docs != want_docs and scores is None:
        scores = "cannot compare scores: the doc ids differ (see above)"
    found["scores equal search_fn's to 1e-8"] = scores
    found.update(search_problem(scenario, searches))
    return found


def search_problem(scenario: Scenario, searches: list) -> dict[str, str | None]:
    """Was search_fn called with each query's text and k, in order?"""
    wanted_calls = [[text, scenario.k] for _, text in scenario.queries]
    return {"search_fn(query.text, k) called for each query": None if searches == wanted_calls else (
        f"search_fn was called {len(searches)} times for {len(wanted_calls)} queries"
        + (f"; first call {searches[0]!r}" if searches else ""))}


def _first_difference(got, want) -> str:
    for index, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"line {index + 1}: query {g[0]} doc {g[1]}, expected query {w[0]} doc {w[1]}"
    return f"{len(got)} result lines, expected {len(want)}"


def trec_run(table: list[list[str]]) -> dict[str, dict[str, float]]:
    """The run as trec_eval reads it: ``{query: {doc: score}}``, last score wins; lines it
    cannot read (not 6 columns, no number) are left out."""
    run: dict[str, dict[str, float]] = {}
    for row in table:
        if len(row) == 6 and _score(row[4]) is not None:
            run.setdefault(row[0], {})[row[2]] = _score(row[4])
    return run


_EVALUATED: dict[str, dict] = {}


def equivalent(table: list[list[str]], scenario: Scenario) -> bool:
    """Is the file, as trec_eval reads it, what the right writer writes: the same columns and
    rows in order, scores within 1e-8 (more decimals or other whitespace are fine)?"""
    expected = scenario.expected_rows()
    if len(table) != len(expected):
        return False
    for row, (query_id, q0, doc_id, rank, score, system) in zip(table, expected):
        if len(row) != 6 or row[0] != query_id or row[1] != q0 or row[2] != doc_id or row[5] != system:
            return False
        value = _score(row[4])
        if row[3] != str(rank) or value is None or abs(value - score) > SCORE_TOLERANCE:
            return False
    return True


def evaluate_run(run: dict, qrels: dict, labels, text: str = "") -> dict[str, float]:
    """Aggregates of ``ir_measures`` on ``run`` (memoised by the file's text: equal files cost once)."""
    import ir_measures

    from autograder import measures

    key = hashlib.sha256((repr((tuple(labels), len(qrels), sorted(qrels)[:3])) + (text or repr(sorted(
        (q, sorted(d.items())) for q, d in run.items())))).encode()).hexdigest()
    if key not in _EVALUATED:
        specs = {ir_measures.parse_measure(measures.CRANFIELD[label].ir_measure): label for label in labels}
        scores = ir_measures.calc_aggregate(list(specs), qrels, run) if run else {}
        _EVALUATED[key] = {label: float(scores.get(measure, 0.0)) for measure, label in specs.items()}
    return _EVALUATED[key]
