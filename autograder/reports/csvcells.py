"""Spreadsheet-safe CSV cells: the one rule every CSV the grader writes follows.

A spreadsheet opening a CSV runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab
or carriage return, which some read past) as a formula; a student's name or email in
``grades.csv`` or an LMS import could then compute, link or call out. Such a cell gets a
leading apostrophe, which spreadsheets show as text and do not compute (the usual defence
against CSV injection). The full-width forms of those characters are treated the same, since
some spreadsheet locales read them as the ASCII ones. Numbers written by the grader (points,
never negative) are never changed.
"""

from __future__ import annotations

from collections.abc import Iterable

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def escape(text: str) -> str:
    """``text`` as a cell no spreadsheet evaluates: prefixed with ``'`` when it could be a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def row(cells: Iterable[object]) -> list[str]:
    """Every cell of a CSV row escaped (``None`` is an empty cell)."""
    return [escape("" if cell is None else str(cell)) for cell in cells]
