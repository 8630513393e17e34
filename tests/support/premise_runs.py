"""The premises of the run writer's column diagnoses (``run-columns-*``), re-checked with this file's own
reading of the files: each kind of difference must hold of every wrong file the writer wrote (a file for a
scenario that wants one, whose lines are not the right file's as trec_eval reads them)."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal

PREFIX = "run-columns-"


def _close(got: str, want: str) -> bool:
    if got == want:
        return True
    try:
        return abs(float(got) - float(want)) <= 1e-8
    except ValueError:
        return False


def _wrong(built, files) -> list:
    """(scenario, rows) of every wrong file."""
    found = []
    for name, run in sorted(files.items()):
        scenario = built.scenarios.get(name)
        if scenario is None or scenario.raises or run.canonical or run.table is None or run.problem:
            continue
        right = [line.split() for line in scenario.expected_text().splitlines()]
        same = (
            len(right) == len(run.table)
            and all(  # the score to 1e-8, every other column as written
                len(a) == len(b) == 6 and a[:4] + a[5:] == b[:4] + b[5:] and _close(a[4], b[4])
                for a, b in zip(run.table, right)
            )
        )
        if not same:
            found.append((scenario, run.table))
    return found


def _hits(scenario, titles) -> dict:
    """query id -> [(doc, title, score)] search_fn returned (all of them)."""
    return {
        q: [(h[0], h[1] if len(h) == 3 else titles.get(h[0], ""), h[-1]) for h in scenario.results.get(text, [])]
        for q, text in scenario.queries
    }


def _by_query(table) -> dict:
    found: dict = {}
    for row in table:
        found.setdefault(row[0], []).append(row)
    return found


def _rounded(text: str, value: float) -> bool:
    exponent = Decimal(text).as_tuple().exponent
    return isinstance(exponent, int) and abs(float(text) - value) <= 0.5 * 10.0**exponent + 1e-12


def _holds(key: str, scenario, table, titles) -> bool:
    hits, k = _hits(scenario, titles), scenario.k
    queries = _by_query(table)
    six = all(len(row) == 6 for row in table)
    if key == "doc-titles":  # a title's words are columns, its line breaks break lines: read one stream
        stream, at, count = [c for row in table for c in row], 0, {}
        while at < len(stream):
            q = stream[at]
            count[q] = count.get(q, 0) + 1
            if q not in hits or count[q] > len(hits[q]):
                return False
            words = hits[q][count[q] - 1][1].split()
            if stream[at + 2 : at + 2 + len(words)] != words[: len(stream) - at - 2]:
                return False
            at += 5 + len(words)
        return True
    if key == "doc-scores":
        return six and all(
            i < len(hits[q]) and _close(row[2], repr(float(hits[q][i][2])))
            for q, rows in queries.items()
            for i, row in enumerate(rows)
        )
    if key == "queries":
        given = [q for q, _ in scenario.queries if hits[q][:k]]
        return set(queries) == set(given) and list(queries) != given
    counts = {q: (len(queries.get(q, [])), min(k, len(h)), len(h)) for q, h in hits.items()}
    off = [c for c in counts.values() if c[0] != c[1]]
    if key.startswith("lines"):
        if key == "lines-plus-one":
            return bool(off) and all(got == right + 1 and n > k for got, right, n in off)
        if key == "lines-minus-one":
            return bool(off) and all(got == right - 1 for got, right, n in off)
        return bool(off)
    if not six:
        return False
    docs = {q: [row[2] for row in rows] for q, rows in queries.items()}
    first_k = {q: [h[0] for h in hits[q][:k]] for q in queries}
    score = {q: {h[0]: h[2] for h in hits[q]} for q in queries}
    if key.startswith("order"):
        if any(sorted(docs[q]) != sorted(first_k[q]) for q in queries) or docs == first_k:
            return False
        if key == "order-reversed":
            return all(docs[q] == first_k[q][::-1] for q in queries)
        if key == "order-ascending":
            return all(
                all(score[q][a] <= score[q][b] for a, b in itertools.pairwise(docs[q])) for q in queries
            ) and any(score[q][docs[q][0]] < score[q][docs[q][-1]] for q in queries)
        if key == "order-doc-id":
            return all(docs[q] == sorted(docs[q]) for q in queries)
        return key == "order"
    if key.startswith("ranks"):
        ranks = [row[3] for row in table]
        per_query = any(
            [row[3] for row in rows] != [str(i) for i in range(1, len(rows) + 1)] for rows in queries.values()
        )
        if key == "ranks":
            return per_query
        numbers = [int(r) for r in ranks]
        return per_query and len(queries) > 1 and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    if key.startswith("scores"):
        pairs = [(row[4], score[q].get(row[2])) for q, rows in queries.items() for row in rows]
        if any(value is None for _, value in pairs):
            return False
        bad = [(text, value) for text, value in pairs if not _finite_close(text, value)]
        if key == "scores-rounded":
            return bool(bad) and all(_rounded(text, value) for text, value in bad)
        return bool(bad)
    if key == "q0":
        return any(row[1] != "Q0" for row in table)
    if key == "tag":
        return any(row[5] != scenario.system for row in table)
    raise AssertionError(f"no premise for {PREFIX}{key}")


def _finite_close(text: str, value: float) -> bool:
    try:
        number = float(text)
    except ValueError:
        return False
    return math.isfinite(number) and abs(number - value) <= 1e-8


def run_columns(built, diagnosis, files) -> str | None:
    """What contradicts a ``run-columns-*`` diagnosis: a wrong file the kind of difference is not true of."""
    key = diagnosis.id.removeprefix(PREFIX)
    titles = built.shared_job["tables"].get("titles", {})
    wrong = _wrong(built, files)
    if not wrong:
        return "no wrong file"
    for scenario, table in wrong:
        if not _holds(key, scenario, table, titles):
            return f"{scenario.name}: its file is not {key}"
    return None
