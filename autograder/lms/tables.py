"""Reading an LMS's gradebook export as a table, and writing an import file.

LMS exports come as they were saved: UTF-8 with or without a byte-order mark, UTF-16 with
one (Blackboard's tab-delimited download is reported to be), Windows or Unix line ends, and
comma-, semicolon- (Canvas in locales with a decimal comma) or tab-delimited (Blackboard's
``.xls``, Moodle's tab option). ``read`` takes any of them; ``render`` writes UTF-8 with every
cell spreadsheet-safe (``reports/untrusted.py: csv_cell``).
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import InputError, MissingError
from autograder.reports import untrusted

DELIMITERS = (",", ";", "\t")
_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}
MAX_BYTES = 50 << 20  # a roster larger than this is not a gradebook export


@dataclass(frozen=True)
class Table:
    """A gradebook export: its header (cells stripped of surrounding blanks) and its rows, each
    as long as the header (short rows padded with empty cells), blank lines left out."""

    source: str  # the file's name, for messages
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    delimiter: str
    encoding: str

    def index(self, *names: str) -> int | None:
        """The position of the first header cell equal to one of ``names`` (case-insensitive)."""
        wanted = [name.casefold() for name in names]
        for name in wanted:
            for position, cell in enumerate(self.header):
                if cell.casefold() == name:
                    return position
        return None

    def describe(self) -> str:
        """The header as messages quote it: what was found instead of the expected columns."""
        shown = ", ".join(repr(cell) for cell in self.header[:12])
        more = f" and {len(self.header) - 12} more" if len(self.header) > 12 else ""
        return f"{_NAMES[self.delimiter]}-delimited, columns {shown}{more}"


def decode(data: bytes, source: str) -> tuple[str, str]:
    """The text of an export and the encoding it was read with (by its byte-order mark, else UTF-8)."""
    if data.startswith(b"PK\x03\x04") or data.startswith(b"\xd0\xcf\x11\xe0"):
        raise InputError(
            f"{source} is a spreadsheet workbook (Excel or OpenDocument), not a text export: download the "
            "gradebook as CSV (Canvas, Moodle: 'Plain text file') or as Blackboard's tab-delimited file"
        )
    boms = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
    encoding = next((name for bom, name in boms if data.startswith(bom)), "utf-8")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise InputError(
            f"{source} is not {encoding.upper()} text (byte {error.start}): export the gradebook again from the "
            "LMS, or save it as 'CSV UTF-8' if a spreadsheet program touched it"
        ) from None
    if "\x00" in text:
        raise InputError(f"{source} holds NUL characters: it is not a text export of a gradebook")
    return text, encoding


def _parse(text: str, delimiter: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


def read(path: Path) -> Table:
    """The gradebook export at ``path``: decoded, its delimiter found from its header line (the
    candidate that splits it into the most columns, quotes respected)."""
    path = Path(path)
    if not path.is_file():
        raise MissingError(f"no roster file {path}: pass the LMS's gradebook export with --roster")
    if path.stat().st_size > MAX_BYTES:
        raise InputError(f"{path} is larger than {MAX_BYTES >> 20} MiB: it is not a gradebook export")
    text, encoding = decode(path.read_bytes(), path.name)
    first = next((line for line in text.splitlines() if line.strip()), "")
    if not first:
        raise InputError(f"{path.name} is empty: export the gradebook from the LMS again")
    delimiter = max(DELIMITERS, key=lambda d: (len(_parse(first, d)[0]), -DELIMITERS.index(d)))
    try:
        lines = [row for row in _parse(text, delimiter) if any(cell.strip() for cell in row)]
    except csv.Error as error:
        raise InputError(f"{path.name} is not a readable CSV file ({error})") from None
    header = tuple(cell.strip() for cell in lines[0])
    rows = tuple(tuple(row) + ("",) * (len(header) - len(row)) for row in lines[1:])
    return Table(source=path.name, header=header, rows=rows, delimiter=delimiter, encoding=encoding)


def render(rows: Iterable[tuple[str, ...]], delimiter: str = ",", quote_all: bool = False) -> str:
    """Rows as delimited text with Windows line ends (what the LMS importers and spreadsheets
    expect), every cell made safe by ``untrusted.csv_cell``."""
    out = io.StringIO()
    writer = csv.writer(
        out, delimiter=delimiter, lineterminator="\r\n", quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL
    )
    for cells in rows:
        writer.writerow(untrusted.csv_row(cells))
    return out.getvalue()
