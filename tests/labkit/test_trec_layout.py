"""The run file's line ends (``labkit/trec.py: layout``) on worked examples: the contract's ``\\n`` after
every line, the last one too; whitespace between the columns is free, as trec_eval splits on any."""

from __future__ import annotations

import pytest

from autograder.labkit import trec

LAYOUTS = [
    # (id, the file's text, what is wrong or None)
    ("empty", "", None),
    ("one-line", "1 Q0 d1 1 0.50000000 bm25\n", None),
    ("tabs", "1\tQ0\td1\t1\t0.5\tbm25\n", None),
    ("two-spaces", "1  Q0  d1  1  0.5  bm25\n2 Q0 d2 1 0.4 bm25\n", None),
    ("no-final-newline", "1 Q0 d1 1 0.5 bm25\n2 Q0 d2 1 0.4 bm25", "the last line has no final newline"),
    ("crlf", "1 Q0 d1 1 0.5 bm25\r\n", "line 1 ends with \\r\\n, not \\n"),
    ("crlf-second", "1 Q0 d1 1 0.5 bm25\n2 Q0 d2 1 0.4 bm25\r\n", "line 2 ends with \\r\\n, not \\n"),
]


@pytest.mark.parametrize("text, wrong", [row[1:] for row in LAYOUTS], ids=[row[0] for row in LAYOUTS])
def test_a_run_files_line_ends(text, wrong):
    """Is a file whose lines all end with \\n (whatever separates its columns) right, and is a \\r\\n or a
    missing final newline named on the first line it is seen on?"""
    assert trec.layout(text) == wrong
