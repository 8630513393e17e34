"""The TREC run format as trec_eval reads it, in one place: writing a line, reading a file's
lines, reading a score, and comparing scores (to ``spec.SCORE_TOLERANCE``).

A run file has one line per retrieved document, six columns split on any whitespace::

    query_id Q0 doc_id rank score system_name
"""

from __future__ import annotations

import io
import math

#: A run file's scores must equal the search function's to this (8 decimals: the TREC convention
#: the run writers' contracts ask for).
SCORE_TOLERANCE = 1e-8


COLUMNS = 6
PLACES = 8  # the decimals the contract asks for


def line(query_id: str, doc_id: str, rank: int, score: float, system: str, places: int = PLACES) -> str:
    """One line of a run file, without its line end."""
    return f"{query_id} Q0 {doc_id} {rank} {score:.{places}f} {system}"


def text(rows_: list[tuple[str, str, str, int, float, str]]) -> str:
    """A whole run file from ``(query_id, "Q0", doc_id, rank, score, system)`` rows."""
    return "".join(line(q, d, rank, score, system) + "\n" for q, _, d, rank, score, system in rows_)


def rows(text_: str, limit: int | None = None) -> list[list[str]]:
    """The file's non-blank lines split on whitespace, as trec_eval splits them (lines end at
    ``\n``); at most ``limit`` of them, read one by one (a huge file costs no more than that)."""
    found = []
    for line in io.StringIO(text_):
        columns = line.split()
        if columns:
            found.append(columns)
            if limit is not None and len(found) >= limit:
                break
    return found


def numbered_rows(text_: str, limit: int | None = None) -> list[tuple[int, list[str]]]:
    """``rows`` with each row's line number (from 1, blank lines counted), for a message that names it."""
    found = []
    for number, line in enumerate(io.StringIO(text_), 1):
        columns = line.split()
        if columns:
            found.append((number, columns))
            if limit is not None and len(found) >= limit:
                break
    return found


LAYOUT = "\\n line ends, the last line's too"  # the contract's line ends (any whitespace between columns)


def layout(text_: str) -> str | None:
    """What breaks the contract's line ends in a run file (``\\n`` after every line, the last one too),
    said of the first line it is seen on; None when every line keeps them (an empty file does).
    Whitespace between the columns is free (trec_eval splits on any), and trec_eval reads such a
    file all the same: the columns' values are checked apart."""
    if not text_:
        return None
    lines = text_.split("\n")
    for number, found in enumerate(lines[:-1], 1):
        if found.endswith("\r"):
            return f"line {number} ends with \\r\\n, not \\n"
    if lines[-1]:
        return "the last line has no final newline"
    return None


def score(column: str) -> float | None:
    """The score a column holds, or None when trec_eval could not read one (or it is not finite)."""
    try:
        value = float(column)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def same_score(value: float | None, expected: float) -> bool:
    """Is a score read from a file the expected one, to the contract's tolerance?"""
    return value is not None and abs(value - expected) <= SCORE_TOLERANCE


def same_column(got: str, want: str) -> bool:
    """Are two columns the same as trec_eval reads them (scores compared to the tolerance)?"""
    if got == want:
        return True
    if "." not in got + want:
        return False
    expected = score(want)
    return expected is not None and same_score(score(got), expected)


def run_of(table: list[list[str]]) -> dict[str, dict[str, float]]:
    """The run as trec_eval reads it: ``{query: {doc: score}}``, last score wins; lines it
    cannot read (not 6 columns, no number) are left out."""
    run: dict[str, dict[str, float]] = {}
    for columns in table:
        value = score(columns[4]) if len(columns) == COLUMNS else None
        if value is not None:
            run.setdefault(columns[0], {})[columns[2]] = value
    return run


def repaired(table: list[list[str]]) -> list[list[str]]:
    """``table`` as trec_eval would read it had its lines a second column of ``Q0``: a line of five
    columns whose second is not Q0 gets it. A missing Q0 is one mistake of the format, told once:
    the checks of the file's content and of its evaluation read the lines repaired."""
    return [[row[0], "Q0", *row[1:]] if len(row) == COLUMNS - 1 and row[1] != "Q0" else row for row in table]
