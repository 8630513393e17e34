"""The run writer's wrong files compared with the right rows column by column (in the parent, on trusted
code): which column is wrong and how, said only when it is true of every wrong file the writer wrote.

A *wrong file* is one the writer wrote for a scenario that wants a file, whose rows are not the right
writer's as the checks read them (``runfile_checks.equivalent``). Each is compared with what search_fn returned
for its scenario (every result, the titles too), query by query (a query's rows: those whose first column
is its id, in the file's order): ``findings`` gives each kind of difference the file has (a key of
``SAID``) with what it is in that file; ``diagnoses`` says the kinds that every wrong file has, the
values of a public file (the notes' example, Lab 04's Cranfield runs) as the example, never a hidden
scenario's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, NamedTuple

from autograder.grading.results import Diagnosis, DiagnosisKind
from autograder.labkit import trec

if TYPE_CHECKING:
    from autograder.labkit.scenario import Scenario

Rows = list[list[str]]
PREFIX = "run-columns-"  # every diagnosis id of this module starts with it


class Hit(NamedTuple):
    """One result of search_fn, as the writer is given it."""

    doc_id: str
    title: str
    score: float


class Said(NamedTuple):
    """What a diagnosis of a kind of difference says: its title, the fact, and what the contract wants."""

    title: str
    fact: str
    wanted: str


#: Each kind of difference, in the order they are shown; a kind may hide another (``HIDES``).
SAID = {
    "doc-titles": Said(
        "the doc id column holds search_fn's titles",
        "column 3 holds search_fn's titles, not its doc ids: (doc_id, title, score) unpacked in another order",
        "search_fn returns (doc_id, title, score) tuples: the doc id is the first item.",
    ),
    "doc-scores": Said(
        "the doc id column holds search_fn's scores",
        "column 3 holds search_fn's scores, not its doc ids: (doc_id, title, score) unpacked in another order",
        "search_fn returns (doc_id, title, score) tuples: the doc id is the first item.",
    ),
    "queries": Said(
        "queries written in another order than given",
        "the queries are written in another order than the one the queries iterable gives",
        "Write the queries in the order they are given.",
    ),
    "lines-plus-one": Said(
        "one line too many per query",
        "where search_fn returns more than k results, a query gets k + 1 lines: the cut is one result late",
        "Write at most k lines per query, the first k results.",
    ),
    "lines-minus-one": Said(
        "one line too few per query",
        "a query gets one line fewer than the results search_fn returned (at most k): the cut is one result early",
        "Write every result search_fn returned, up to k of them.",
    ),
    "lines": Said(
        "the number of lines per query",
        "some queries get another number of lines than min(k, the results search_fn returned)",
        "Write one line per result search_fn returned, at most k per query.",
    ),
    "order-reversed": Said(
        "search_fn's results written in reverse",
        "each query's rows are search_fn's results in reverse order",
        "search_fn's order is the ranking, best first: keep search_fn's order.",
    ),
    "order-ascending": Said(
        "rows in ascending score order",
        "rows are in ascending score order: the results are re-sorted",
        "search_fn's order is the ranking, best first: keep search_fn's order.",
    ),
    "order-doc-id": Said(
        "rows sorted by doc id",
        "each query's rows are sorted by doc id: the results are re-sorted",
        "search_fn's order is the ranking, best first: keep search_fn's order.",
    ),
    "order": Said(
        "results not in search_fn's order",
        "each query holds the documents search_fn returned, but some query holds them in another order",
        "search_fn's order is the ranking, best first: keep search_fn's order.",
    ),
    "ranks-count-on": Said(
        "the rank column counts on across queries",
        "the rank column counts on across queries instead of starting again at 1 for each query",
        "Ranks start at 1 for each query: reset the counter for each query (or enumerate each query's results from 1).",
    ),
    "ranks": Said(
        "the rank column is not 1, 2, 3... in each query",
        "the rank column does not number each query's rows 1, 2, 3... in the order they are written",
        "Each query's first line has rank 1, the next 2, and so on.",
    ),
    "scores-rounded": Said(
        "scores rounded",
        "the score column holds search_fn's scores rounded to fewer decimals than the contract's 8",
        "Scores must equal search_fn's to 1e-8: write {score:.8f} (more decimals are fine, fewer are not).",
    ),
    "scores": Said(
        "the score column is not search_fn's scores",
        "the score column does not hold the scores search_fn gave the documents",
        "Write each result's score with {score:.8f}.",
    ),
    "q0": Said(
        "the second column is not Q0",
        "the second column is not the literal Q0",
        "The second column is always Q0.",
    ),
    "tag": Said(
        "the tag column is not the system name",
        "the last column (the tag) is not the system_name the writer was given",
        "The last column is system_name, as given.",
    ),
}
#: What a kind of difference hides when both are common: its general kind, and for results reversed their
#: ascending score order (which reversing search_fn's order gives, and says less).
HIDES = {
    "lines-plus-one": ("lines",),
    "lines-minus-one": ("lines",),
    "order-reversed": ("order", "order-ascending"),
    "order-ascending": ("order",),
    "order-doc-id": ("order",),
    "ranks-count-on": ("ranks",),
    "scores-rounded": ("scores",),
}


_HITS: dict[tuple[str, int, int], tuple[object, dict[str, list[Hit]]]] = {}  # a batch's scenarios, built once


def hits_of(scenario: Scenario, titles: dict[str, Any]) -> dict[str, list[Hit]]:
    """Every result search_fn returns for each query id (not cut at k), titles from ``titles`` where the
    scenario's hits have none (Lab 04's runs: the child adds them from the same table). Kept for the next
    wrong file of the same scenario (Lab 04's runs have 22,500 results)."""
    key = (scenario.name, id(scenario.results), id(titles))
    if key in _HITS and _HITS[key][0] is scenario.results:
        return _HITS[key][1]
    if len(_HITS) > 32:
        _HITS.clear()
    made = {
        str(query_id): [
            Hit(str(hit[0]), str(hit[1] if len(hit) > 2 else titles.get(hit[0], "")), float(hit[-1]))
            for hit in scenario.results.get(text, [])
        ]
        for query_id, text in scenario.queries
    }
    _HITS[key] = (scenario.results, made)
    return made


def grouped(table: Sequence[Sequence[str]]) -> dict[str, list[Sequence[str]]]:
    """Each query's rows (first column), queries in the order they first appear."""
    groups: dict[str, list[Sequence[str]]] = {}
    for row in table:
        groups.setdefault(row[0], []).append(row)
    return groups


def findings(table: Rows, scenario: Scenario, titles: dict[str, Any]) -> dict[str, str]:
    """Each kind of difference (a key of ``SAID``) between a wrong file's rows and the right writer's, with
    what it is in this file (values of this file: shown only for a public scenario)."""
    hits = hits_of(scenario, titles)
    if not table:  # no line at all: only how many lines each query got can be said
        return dict(_lines({}, hits, scenario.k))
    if (titled := _doc_titles(table, hits)) is not None:
        return {"doc-titles": titled}  # the other columns moved with the title's words
    if any(row[0] not in hits for row in table):
        return {}
    if any(len(row) != trec.COLUMNS for row in table):
        return {}
    groups = grouped(table)
    found: dict[str, str] = {}
    for key, detail in (
        ("doc-scores", _doc_scores(groups, hits)),
        ("queries", _queries(list(groups), [q for q, _ in scenario.queries if hits[str(q)][: scenario.k]])),
        *_lines(groups, hits, scenario.k),
        *_order(groups, hits, scenario.k),
        *_ranks(table, groups),
        *_scores(groups, hits),
        ("q0", next((f"{row[1]!r} in query {row[0]}" for row in table if row[1] != "Q0"), None)),
        ("tag", next((f"{row[5]!r}, not {scenario.system!r}" for row in table if row[5] != scenario.system), None)),
    ):
        if detail is not None:
            found[key] = detail
    return found


def _doc_titles(table: Rows, hits: dict[str, list[Hit]]) -> str | None:
    """Every line is a result's with its title where the doc id belongs, and some title is not its doc id.
    Read as one stream of columns: a title's words are columns, and a title with a line break in it (some
    of Cranfield's) breaks its line in two."""
    columns = [column for row in table for column in row]
    seen: dict[str, int] = {}  # each query's lines so far
    at, differs = 0, None
    while at < len(columns):
        query_id = columns[at]
        index = seen[query_id] = seen.get(query_id, -1) + 1 if query_id in hits else -1
        if index < 0 or index >= len(hits[query_id]):
            return None
        hit = hits[query_id][index]
        words = hit.title.split()
        if columns[at + 2 : at + 2 + len(words)] != words[: max(0, len(columns) - at - 2)]:
            return None
        if differs is None and words != [hit.doc_id]:
            differs = f"query {query_id}'s line {index + 1} holds {hit.title[:60]!r} where the doc id is {hit.doc_id!r}"
        at += trec.COLUMNS - 1 + len(words)  # the file's read part may end within its last line
    return differs


def _doc_scores(groups: dict[str, list[Sequence[str]]], hits: dict[str, list[Hit]]) -> str | None:
    """Every row's doc id column holds the score of the result at its place, and some doc id is not one."""
    for query_id, rows in groups.items():
        for index, row in enumerate(rows):
            if index >= len(hits[query_id]) or not trec.same_score(trec.score(row[2]), hits[query_id][index].score):
                return None
    query_id, rows = next(iter(groups.items()))
    return f"query {query_id}'s first line holds {rows[0][2]!r} where the doc id is {hits[query_id][0].doc_id!r}"


def _queries(written: list[str], given: list[str]) -> str | None:
    """The queries with lines are the ones given, in another order."""
    if sorted(written) != sorted(given) or written == given:
        return None
    how = (
        "sorted as strings"
        if written == sorted(given)
        else "sorted as numbers"
        if all(q.isdigit() for q in given) and written == sorted(given, key=int)
        else "reversed"
        if written == given[::-1]
        else "in another order"
    )
    return f"{_few(written)} for the order given, {_few(given)} ({how})"


def _few(items: Sequence[str], count: int = 4) -> str:
    return ", ".join(items[:count]) + (", ..." if len(items) > count else "")


def _lines(groups: dict[str, list[Sequence[str]]], hits: dict[str, list[Hit]], k: int) -> Iterable[tuple[str, str]]:
    """Queries whose number of lines is not min(k, results): how many, and whether every such query has one
    more (search_fn returned more than k) or one fewer."""
    off: list[tuple[str, int, int, int]] = []  # (query, lines, right lines, results)
    for query_id, results in hits.items():
        count, right = len(groups.get(query_id, [])), min(k, len(results))
        if count != right:
            off.append((query_id, count, right, len(results)))
    if not off:
        return
    query_id, count, right, returned = off[0]
    detail = f"query {query_id} has {count} line{'s' * (count != 1)} where search_fn returned {returned} and k is {k}"
    if all(count == right + 1 and returned > right for _, count, right, returned in off):
        yield "lines-plus-one", detail
    if all(count == right - 1 for _, count, right, _ in off):
        yield "lines-minus-one", detail
    yield "lines", detail


def _order(groups: dict[str, list[Sequence[str]]], hits: dict[str, list[Hit]], k: int) -> Iterable[tuple[str, str]]:
    """Every query holds the right documents; some in another order: reversed, by ascending score, by doc id."""
    moved = []
    for query_id, rows in groups.items():
        written, right = [row[2] for row in rows], [hit.doc_id for hit in hits[query_id][:k]]
        if sorted(written) != sorted(right):
            return
        if written != right:
            moved.append((query_id, written, right))
    if not moved:
        return
    query_id, written, right = moved[0]
    detail = f"query {query_id}'s documents are {_few(written)}; search_fn returned {_few(right)}"
    score_of = {q: {hit.doc_id: hit.score for hit in hits[q]} for q in groups}
    if all([row[2] for row in rows] == [h.doc_id for h in hits[q][:k]][::-1] for q, rows in groups.items()):
        yield "order-reversed", detail
    ascending = all(
        all(score_of[q][a[2]] <= score_of[q][b[2]] for a, b in itertools.pairwise(rows)) for q, rows in groups.items()
    )
    if ascending and any(score_of[q][w[0]] < score_of[q][w[-1]] for q, w, _ in moved):
        yield "order-ascending", detail
    if all([row[2] for row in rows] == sorted(row[2] for row in rows) for rows in groups.values()):
        yield "order-doc-id", detail
    yield "order", detail


def _ranks(table: Rows, groups: dict[str, list[Sequence[str]]]) -> Iterable[tuple[str, str]]:
    """The rank column against 1, 2, 3... in each query's rows; counting on across queries when the ranks
    go up by one over the whole file and a query after the first does not start at 1."""
    numbers = [int(row[3]) if row[3].lstrip("-").isdigit() else None for row in table]
    wrong = next(
        (
            (query_id, [row[3] for row in rows])
            for query_id, rows in groups.items()
            if [row[3] for row in rows] != [str(rank) for rank in range(1, len(rows) + 1)]
        ),
        None,
    )
    if wrong is None:
        return
    query_id, ranks = wrong
    contiguous = [row[0] for row in table] == [q for q, rows in groups.items() for _ in rows]
    if contiguous and None not in numbers and len(groups) > 1:
        start = numbers[0]
        if all(number == start + index for index, number in enumerate(numbers)):  # type: ignore[operator]
            yield "ranks-count-on", f"query {query_id} starts at rank {ranks[0]}, not 1"
    yield "ranks", f"query {query_id}'s ranks are {_few(ranks, 3)}, not {_few(['1', '2', '3'][: len(ranks)], 3)}"


def _scores(groups: dict[str, list[Sequence[str]]], hits: dict[str, list[Hit]]) -> Iterable[tuple[str, str]]:
    """The score column against the score search_fn gave each row's document: wrong somewhere, and whether
    every score is search_fn's rounded to the decimals written."""
    wrong: list[tuple[str, float]] = []
    rounded = True
    for query_id, rows in groups.items():
        score_of = {hit.doc_id: hit.score for hit in hits[query_id]}
        for row in rows:
            if row[2] not in score_of:
                return  # a document search_fn did not return: its score says nothing
            expected = score_of[row[2]]
            try:
                close = abs(float(row[4]) - expected) <= trec.SCORE_TOLERANCE  # nan and inf are not close
            except ValueError:
                close = False
            if not close:
                wrong.append((row[4], expected))
                rounded = rounded and is_rounded(row[4], expected)
    if not wrong:
        return
    written, expected = wrong[0]
    detail = f"{written!r} for search_fn's {expected!r}"
    if rounded:
        yield "scores-rounded", detail
    yield "scores", detail


def is_rounded(written: str, expected: float) -> bool:
    """Is ``written`` the number ``expected`` rounded to the places it shows (``0.1235`` for 0.123456789,
    ``1.2e-05`` for 1.234e-05, ``12`` for 12.3)?"""
    try:
        exponent = Decimal(written).as_tuple().exponent
        value = float(written)
    except (InvalidOperation, ValueError):
        return False
    if not isinstance(exponent, int):
        return False  # inf, nan
    return abs(value - expected) <= 0.5 * 10.0**exponent * (1 + 1e-9) + 1e-12


# ------------------------------------------------------------------ what every wrong file shares


class Wrong(NamedTuple):
    """A wrong file: its scenario's name and description, whether public, and its findings."""

    name: str
    where: str  # how a message names it ("its tfidf run")
    public: bool
    found: dict[str, str]
    tags: frozenset[str]  # its last column's values


def common(wrong: Sequence[Wrong]) -> list[str]:
    """The kinds of difference every wrong file has, in ``SAID``'s order, a general kind only when none of
    its specific kinds is common."""
    if not wrong:
        return []
    shared = [key for key in SAID if all(key in file.found for file in wrong)]
    hidden = {other for key in shared for other in HIDES.get(key, ())}
    return [key for key in shared if key not in hidden]


def diagnoses(writer: str, wrong: Sequence[Wrong], files: int, notes: str, statement: str) -> list[Diagnosis]:
    """A diagnosis for each kind of difference every wrong file has (``files``: how many the writer wrote;
    ``statement``: the notes' words on the run file, "" if the lab states none)."""
    said = f" What the notes say: {statement}." if statement else ""
    shown = next((file for file in wrong if file.public), None)
    every = f"every wrong file ({len(wrong)} of its {files})" if len(wrong) > 1 else f"its wrong file (1 of {files})"
    found = []
    for key in common(wrong):
        title, fact, wanted = SAID[key]
        example = f" (in {shown.where}: {shown.found[key]})" if shown is not None else ""
        if key == "tag" and len({tag for file in wrong for tag in file.tags}) == 1:
            example += f"; it is {next(iter(wrong[0].tags))!r} in every file" if shown is not None else ""
        found.append(
            Diagnosis(
                id=PREFIX + key,
                function=writer,
                title=title,
                explanation=f"In {every}, {fact}{example}. {wanted}{said}",
                notes=notes,
                kind=DiagnosisKind.CONCEPT if statement else DiagnosisKind.SHAPE,
            )
        )
    return found
