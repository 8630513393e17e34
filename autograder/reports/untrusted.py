"""Untrusted text made safe where it is shown, one function per kind of output: Markdown, HTML,
CSV cells and the terminal.

Untrusted text is whatever the grader did not write itself: students' names, emails and SIDs (from
Gradescope's ``submission_metadata.yml`` or an LMS roster), file names, what a submission printed
or raised. Each output kind has one rule, here, and every renderer uses it:

- ``visible``: the core of all four. Control characters (C0 but those kept, DEL, C1) and the
  invisible format characters that reorder or hide text (bidirectional overrides and isolates
  such as U+202E, zero-width characters, the byte-order mark) are shown as escapes (``\\x1b``,
  ``\\n``, ``\\u202e``): they are seen, never acted on, and a newline in a name cannot forge a line.
- ``markdown``: one line of text that no Markdown or HTML in it can turn into emphasis, a
  heading, a link, an image, a tag, code or a table's cell: ASCII punctuation that Markdown reads
  is escaped with a backslash (CommonMark's escapes; ``|`` too, for GFM tables).
- ``html``: ``html.escape`` (quotes too: safe in an attribute) of the visible text; newlines and
  tabs are kept (code and printed output in ``<pre>`` keep their lines), since HTML shows them as
  spaces outside ``<pre>``.
- ``csv_cell``: a cell no spreadsheet evaluates (OWASP's CSV injection advice: a cell starting
  with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, or their full-width forms, gets a
  leading apostrophe) and whose newlines and control characters (tabs aside: the csv module
  quotes them) are visible escapes; numbers the grader writes are never changed.
- ``terminal``: one line for stderr or stdout, every control character escaped (ESC, BEL, CR, a
  newline: no screen cleared, no clipboard written by OSC 52, no line overwritten or forged);
  ``TerminalText`` applies the same rule to a whole stream, lines kept (the commands' streams,
  ``cli.main``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from html import escape
from typing import TextIO

#: Invisible format characters that reorder or hide text: bidirectional embeddings, overrides
#: and isolates, marks, zero-width characters, the byte-order mark.
FORMAT_CHARACTERS = "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"

#: Names of the escapes ``visible`` writes for the usual control characters.
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_HIDDEN = re.compile(f"[\x00-\x1f\x7f-\x9f{FORMAT_CHARACTERS}]")

#: ASCII punctuation Markdown (CommonMark, GFM) reads as syntax in running text.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|<>~&])")

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _escape(character: str) -> str:
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` with every control and invisible format character but those in ``keep`` shown
    as an escape (``\\x1b``, ``\\n``, ``\\u202e``)."""
    return _HIDDEN.sub(lambda found: found[0] if found[0] in keep else _escape(found[0]), text)


def markdown(text: str) -> str:
    """``text`` as one line of Markdown that shows it as it is: nothing in it renders."""
    return visible(_MARKDOWN.sub(r"\\\1", text))


def html(text: object) -> str:
    """``text`` as HTML text or a quoted attribute's value: escaped, control characters visible
    (newlines and tabs kept)."""
    return escape(visible(str(text), keep="\n\t"), quote=True)


def csv_cell(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet evaluates (prefixed with ``'`` when it could be a
    formula), on one line (newlines and control characters but tabs visible)."""
    text = "'" + text if text.startswith(FORMULA_STARTS) else text
    return visible(text, keep="\t")


def csv_row(cells: Iterable[object]) -> list[str]:
    """Every cell of a CSV row made safe by ``csv_cell`` (``None`` is an empty cell)."""
    return [csv_cell("" if cell is None else str(cell)) for cell in cells]


def terminal(text: str) -> str:
    """``text`` as one line for a terminal: every control character shown, none sent."""
    return visible(text)


class TerminalText(io.TextIOBase):
    """A text stream that writes to ``stream`` what it is given with every control character but
    newlines and tabs shown as an escape; a carriage return that starts a write (a progress bar
    redrawing its line, on a terminal) is kept."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        redraw = text.startswith("\r") and self.stream.isatty()
        shown = ("\r" if redraw else "") + visible(text[1:] if redraw else text, keep="\n\t")
        self.stream.write(shown)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # the wrapped stream's
        return self.stream.encoding
