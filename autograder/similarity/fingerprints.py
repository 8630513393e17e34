"""Fingerprints of graded files, and where two of them match (for ``similarity``).

A file goes through three steps:

1. ``prepare``: ``canonical`` rewrites what does not change the file's behaviour (docstrings,
   comments, no-op and dead statements, unused names, augmented assignments, loops building a
   list...) and writes the file back one statement a line; the lines the handout holds (the stubs'
   signatures, imports, ``raise NotImplementedError``) are left out. Each line maps back to its
   statement in the file. A file that does not parse is read as written instead: one pass over
   the text leaves out docstrings, comments, the handout's lines and what the tokenizer does not
   need (indentation, spaces between symbols), and writes number literals as ``0``.
2. ``tokenize``: ``kgrams.normalise`` (pygments' lexer) normalises the code: names become ``V``,
   function names ``F``, strings ``S``. Renaming variables changes nothing.
3. ``hashes``: the hash of every ``NOISE``-character gram of the normalised code (no winnowing),
   less the boilerplate grams: the file's fingerprints. The hash is the same in every process,
   so any step may run in a worker.

``compare``: the share of each file's code found in the other, and the matched stretches, here
as line ranges of the file, linked across the two files.
"""

from __future__ import annotations

import array
import bisect
import dataclasses
import functools
import itertools
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from autograder.labkit.lab import Lab
from autograder.similarity import canonical, kgrams

#: Matches shorter than this many normalised characters are noise (MOSS's and copydetect's ``k``).
NOISE = 25

_NEWLINE = re.compile(r"\r\n|\r|\n")
Piece = tuple[str, int]  # a piece of a file's code, and where it starts in the file's text
_SCAN = re.compile(  # one pass, left to right: quotes inside strings and comments are never read as code
    r"""
      (?P<doc>^[ \t]*[rRuUbB]{0,2}(?P<dq>\"\"\"|''')(?:\\.|[^\\])*?(?P=dq))   # a string opening a line
    | (?P<string>[rRbBuUfF]{0,3}(?:(?P<tq>\"\"\"|''')(?:\\.|[^\\])*?(?P=tq)|(?P<sq>["'])(?:\\.|[^\\\n])*?(?P=sq)))
    | (?P<comment>\#[^\n]*)
    | (?P<space>[ \t\f]+)
    | (?P<newline>\n(?:[ \t\f]*\n)*)
    | (?P<number>(?<![\w.])(?:\d\w*(?:\.\w*)?|\.\d\w*)(?:(?<=[eE])[+-]\d\w*)?)
    """,
    re.MULTILINE | re.VERBOSE,
)


def split_lines(text: str) -> tuple[str, ...]:
    """The lines of ``text`` as Python numbers them (the line ranges index these)."""
    return tuple(_NEWLINE.split(text))


def _word(character: str) -> bool:
    return character.isalnum() or character == "_"


@dataclass(frozen=True)
class Prepared:
    """A graded file and the code the tokenizer reads, made of pieces of the file."""

    text: str  # the file, newlines as "\n": what line numbers count
    code: str
    starts: Sequence[int]  # where each piece starts in ``code``...
    origins: Sequence[int]  # ...and in ``text`` (arrays: 8 bytes a piece)
    set_aside: frozenset[int] = frozenset()  # lines of docstrings and of the handout's code
    spans: Sequence[int] | None = None  # how long each piece is in ``text``, when not as in ``code``

    @functools.cached_property
    def line_starts(self) -> list[int]:
        return [0] + [match.end() for match in re.finditer("\n", self.text)]

    def origin(self, position: int) -> int:
        """Where a position of ``code`` comes from in ``text``."""
        if not self.starts:
            return 0
        piece = max(0, bisect.bisect_right(self.starts, position) - 1)
        offset = max(0, position - self.starts[piece])
        if self.spans is None:
            return self.origins[piece] + offset
        length = (self.starts[piece + 1] if piece + 1 < len(self.starts) else len(self.code)) - self.starts[piece]
        # a rewritten statement: its first and last characters map to the statement's, the rest between
        return self.origins[piece] + offset * max(0, self.spans[piece] - 1) // max(1, length - 1)

    def line(self, origin: int) -> int:
        """The 1-based line of a position of ``text``."""
        return bisect.bisect_right(self.line_starts, origin)


def _pieces(text: str, docstrings: list[tuple[int, int]] | None = None, deadline: float | None = None) -> list[Piece]:
    """The code of ``text`` as (piece, where it starts in ``text``), ``"\\n"`` pieces ending lines;
    the docstrings' (start, end) are added to ``docstrings``; ``kgrams.TooSlow`` past ``deadline``."""
    pieces: list[Piece] = []
    done = 0
    for count, match in enumerate(_SCAN.finditer(text)):
        if deadline is not None and count % 256 == 0 and time.monotonic() > deadline:
            raise kgrams.TooSlow
        start, end = match.span()
        if start > done:
            pieces.append((text[done:start], done))
        kind = match.lastgroup
        if kind == "string":
            pieces.append((match.group(), start))
        elif kind == "space" and start > 0 and end < len(text) and _word(text[start - 1]) and _word(text[end]):
            pieces.append((" ", start))
        elif kind == "newline":
            pieces.append(("\n", start))
        elif kind == "number":
            pieces.append(("0", start))
        elif kind == "doc" and docstrings is not None:
            docstrings.append((start, end))
        done = end  # docstrings, comments and the other spaces are left out
    if done < len(text):
        pieces.append((text[done:], done))
    return pieces


def _lines(pieces: list[Piece]) -> Iterator[list[Piece]]:
    """The pieces, line by line (a line's last piece is its ``"\\n"``, if it has one)."""
    line: list[Piece] = []
    for piece in pieces:
        line.append(piece)
        if piece[0] == "\n":
            yield line
            line = []
    if line:
        yield line


@dataclass(frozen=True)
class Handout:
    """What every submission is given, as ``prepare`` reads it: the lines of code of the stubs
    (their signatures and imports are the handout's, not the student's) and the names the
    handout's files define (never left out as unused)."""

    lines: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()


def handout(graded: Sequence[str], given: Sequence[str] = ()) -> Handout:
    """The ``Handout`` of the stubs ``graded`` and the ``given`` files."""
    import ast

    names = set()
    for text in (*graded, *given):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    lines: set[str] = set()
    for text in graded:
        text = _NEWLINE.sub("\n", text)
        lines.update("".join(piece for piece, _ in line).rstrip("\n") for line in _lines(_pieces(text)))
        parsed = canonical.statements(text, frozenset(names))
        lines.update(statement.code for statement in (parsed[0] if parsed else ()))
    return Handout(frozenset(line for line in lines if len(line.strip()) > 3), frozenset(names))


def prepare(text: str, given: Handout = Handout(), deadline: float | None = None) -> Prepared:
    """A graded file, ready for the tokenizer (rewritten by ``canonical``, or as written if it does
    not parse); its lines of code found in the handout are left out; ``kgrams.TooSlow`` past ``deadline``."""
    text = _NEWLINE.sub("\n", text.replace("\ufeff", " "))
    try:
        parsed = canonical.statements(text, given.names, deadline)
    except canonical.TooSlow:
        raise kgrams.TooSlow from None
    if parsed is None:
        return _as_written(text, given.lines, deadline)
    code: list[str] = []
    starts, origins, spans = array.array("q"), array.array("q"), array.array("q")
    set_aside: list[tuple[int, int]] = []
    size = 0
    for statement in parsed[0]:
        if statement.code in given.lines:
            set_aside.append((statement.start, statement.end))
            continue
        for piece, origin, span in (
            (statement.code, statement.start, statement.end - statement.start),
            ("\n", statement.end, 0),
        ):
            code.append(piece)
            starts.append(size)
            origins.append(origin)
            spans.append(span if piece != "\n" else 0)
            size += len(piece)
    prepared = Prepared(text=text, code="".join(code), starts=starts, origins=origins, spans=spans)
    lines = set(parsed[1]) | {
        number
        for start, end in set_aside
        for number in range(prepared.line(start), prepared.line(max(start, end - 1)) + 1)
    }
    return dataclasses.replace(prepared, set_aside=frozenset(lines))


def _as_written(text: str, handout_lines: frozenset[str], deadline: float | None) -> Prepared:
    """A file that does not parse, read as written: docstrings, comments and spaces left out."""
    code: list[str] = []
    starts: list[int] = []
    origins: list[int] = []
    docstrings: list[tuple[int, int]] = []
    set_aside: list[tuple[int, int]] = []
    size = 0
    for line in _lines(_pieces(text, docstrings, deadline)):
        if handout_lines and "".join(piece for piece, _ in line).rstrip("\n") in handout_lines:
            set_aside.append((line[0][1], line[-1][1]))
            line = line[-1:] if line[-1][0] == "\n" else []
        for piece, origin in line:
            code.append(piece)
            starts.append(size)
            origins.append(origin)
            size += len(piece)
    made = Prepared(text=text, code="".join(code), starts=array.array("q", starts), origins=array.array("q", origins))
    lines = {
        number
        for start, end in docstrings + set_aside
        for number in range(made.line(start), made.line(max(start, end - 1)) + 1)
    }
    return dataclasses.replace(made, set_aside=frozenset(lines))


@dataclass(frozen=True)
class Tokens:
    """A prepared file tokenized: the normalised code and, for each of its characters, where it
    comes from in the prepared code."""

    prepared: Prepared
    filtered: str
    origins: kgrams.Int32s  # normalised position -> position in ``prepared.code``

    def lines(self, positions: Iterable[int]) -> list[int]:
        """The file's lines of normalised positions."""
        return [self.prepared.line(self.prepared.origin(int(self.origins[p]))) for p in positions]

    def region(self, start: int, end: int) -> tuple[int, int]:
        """The file's first and last line of the normalised stretch ``[start, end)``; a line at
        either end counts only if at least half of its code is inside (a match often ends a few
        characters into the next ``def`` line)."""
        prepared, text = self.prepared, self.prepared.text
        begin = prepared.origin(int(self.origins[start]))
        stop = prepared.origin(int(self.origins[max(start, end - 1)])) + 1
        first, last = prepared.line(begin), prepared.line(stop - 1)

        def mostly_inside(line: int) -> bool:
            line_begin = prepared.line_starts[line - 1]
            line_end = prepared.line_starts[line] if line < len(prepared.line_starts) else len(text)
            inside = text[max(line_begin, begin) : min(line_end, stop)]
            return 2 * len("".join(inside.split())) >= len("".join(text[line_begin:line_end].split()))

        if first < last:
            first += not mostly_inside(first)
            last -= not mostly_inside(last)
        return (first, last) if first <= last else (last, first)


def tokenize(prepared: Prepared, deadline: float | None = None) -> Tokens:
    """The tokenizer over prepared code (``kgrams.normalise``); ``kgrams.TooSlow`` past ``deadline``."""
    return Tokens(prepared, *kgrams.normalise(prepared.code, deadline))


def hashes(tokens: Tokens, boilerplate: kgrams.Int64s | None = None) -> kgrams.Int64s:
    """The sorted distinct hashes of every gram of the normalised code, less the ``boilerplate``
    ones: the file's fingerprints."""
    import numpy as np

    found = np.unique(kgrams.hashes(tokens.filtered, NOISE))
    return found if boilerplate is None else np.setdiff1d(found, boilerplate, assume_unique=True)


def fingerprint(tokens: Tokens, ignored: kgrams.Int64s | None = None) -> kgrams.Grams:
    """The file's grams for ``compare``, less the ``ignored`` ones (boilerplate, common code)."""
    return kgrams.grams(tokens.filtered, NOISE, ignored)


def handout_files(lab: Lab) -> dict[str, str]:
    """The code every submission of ``lab`` is given: the stubs and the given files, by name."""
    files = lab.graded_files + lab.given_files
    return {name: lab.place.handout_file(name).read_text(encoding="utf-8") for name in files}


def boilerplate(texts: Iterable[str], given: Handout = Handout()) -> kgrams.Int64s:
    """The hashes of every gram of ``texts`` (a sorted array), read with the handout's names kept."""
    import numpy as np

    found = [hashes(tokenize(prepare(text, Handout(names=given.names)))) for text in texts]
    return np.unique(np.concatenate(found)) if found else np.array([], dtype=np.int64)


def _regions(tokens: Tokens, slices: tuple[kgrams.Int64s, kgrams.Int64s]) -> list[tuple[int, int]]:
    """Matched stretches (normalised positions) as the file's line ranges: merged where they touch, cut where
    docstrings or the handout's lines lie between (so a copied function is a region of its
    own), without blank or comment lines at either end."""
    if len(slices[0]) == 0:
        return []
    prepared = tokens.prepared
    lines = split_lines(prepared.text)

    def code(number: int) -> bool:
        line = lines[number - 1].strip() if number <= len(lines) else ""
        return bool(line) and not line.startswith("#") and number not in prepared.set_aside

    pieces = []

    def in_order(start: int, end: int) -> Iterator[tuple[int, int]]:
        """``[start, end)`` cut where the code it maps to does not follow on in the file (``canonical``
        sorts a file's functions, so one stretch may join code from far apart)."""
        lines = tokens.lines(range(start, end))
        cut = start
        for offset in range(1, len(lines)):
            before, after = lines[offset - 1], lines[offset]
            if after < before or any(code(n) for n in range(before + 1, after)):
                yield tokens.region(cut, start + offset)
                cut = start + offset
        yield tokens.region(cut, end)

    for first, last in (region for start, end in zip(*slices) for region in in_order(int(start), int(end))):
        run: list[int] = []
        for number in range(first, last + 2):  # one past the end closes the last run
            if number <= last and number not in prepared.set_aside:
                run.append(number)
                continue
            kept = [n for n in run if code(n)]
            if kept:
                pieces.append((kept[0], kept[-1]))
            run = []
    regions: list[list[int]] = []
    for first, last in sorted(pieces):
        if regions and first <= regions[-1][1] + 1:
            regions[-1][1] = max(regions[-1][1], last)
        else:
            regions.append([first, last])
    return [(first, last) for first, last in regions]


def _region_of(regions: list[tuple[int, int]], line: int) -> int | None:
    index = bisect.bisect_right(regions, (line, float("inf"))) - 1
    return index if index >= 0 and regions[index][0] <= line <= regions[index][1] else None


@dataclass(frozen=True)
class Match:
    """Where two files match: the normalised characters matched in each, and line ranges."""

    matched_a: float
    matched_b: float
    lines_a: tuple[tuple[int, int], ...]
    lines_b: tuple[tuple[int, int], ...]
    links: tuple[tuple[int, int], ...]  # (i, j): region j of b shares the most fingerprints with region i of a


def compare(made_a: kgrams.Grams, made_b: kgrams.Grams, tokens_a: Tokens, tokens_b: Tokens) -> Match | None:
    """Where two files' grams match, as line ranges of each, or None if nothing matches."""
    import numpy as np

    overlap = kgrams.compare(made_a, made_b)
    if overlap is None:
        return None
    regions_a, regions_b = _regions(tokens_a, overlap.slices_a), _regions(tokens_b, overlap.slices_b)
    shared: Counter[tuple[int, int]] = Counter()  # (region of a, region of b) -> fingerprints they share
    lines_a, lines_b = _lines_of(made_a, tokens_a, overlap.shared), _lines_of(made_b, tokens_b, overlap.shared)
    for value in np.unique(overlap.shared).tolist():
        for line_a, line_b in itertools.product(lines_a[value], lines_b[value]):
            i, j = _region_of(regions_a, line_a), _region_of(regions_b, line_b)
            if i is not None and j is not None:
                shared[i, j] += 1
    strongest: dict[int, tuple[int, int]] = {}
    for (i, j), count in sorted(shared.items()):
        if count > shared.get(strongest.get(j, (-1, -1)), 0):
            strongest[j] = (i, j)
    links = set(strongest.values())
    return Match(
        matched_a=float(overlap.matched_a),
        matched_b=float(overlap.matched_b),
        lines_a=tuple(regions_a),
        lines_b=tuple(regions_b),
        links=tuple(sorted(links)),
    )


def _lines_of(made: kgrams.Grams, tokens: Tokens, shared: kgrams.Int64s) -> dict[int, set[int]]:
    """The file's lines where each of the ``shared`` grams starts."""
    import numpy as np

    where = np.isin(made.hashes, shared)
    found: dict[int, set[int]] = {}
    for value, start in zip(made.hashes[where].tolist(), made.starts[where].tolist()):
        found.setdefault(value, set()).update(tokens.lines([start]))
    return found
