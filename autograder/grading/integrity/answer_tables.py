"""Answers without computation, in one place: the graded files are read (never run) for evidence
that they hold answers instead of computing them (a table built offline from public data, keyed
by the arguments). Each file with evidence gets one flag (``FlagKind.ANSWERS``) that names what
was found, where, for the instructor to judge in seconds. It never changes a score and no
student view shows it (``SubmissionResult.student_view``).

The rules, per graded file; every threshold is below, and only here:

- ``literals``: literal containers (dict, list, tuple, set displays, nested ones included)
  holding ``LITERAL_CONSTANTS`` constants or more in all, however many literals they are split
  into. The evidence names the largest.
- ``constants``: ``CONSTANTS`` or more constants in the code outside docstrings (a table spread
  over calls, assignments or an if/elif chain).
- ``numbers``: ``PRECISE_NUMBERS`` or more numbers that look like answers (a float of 3
  significant digits or more, an integer of 4 or more before its trailing zeros), in the code or
  written in strings (docstrings included).
- ``encoded``: a string or bytes literal of ``ENCODED_CHARACTERS`` or more that looks encoded:
  bytes (named by their header: zlib, gzip, bz2, lzma, pickle), characters outside text,
  or words of 16 characters or more mixing letters and digits (base64, hex, base85); an
  integer literal of ``BIG_INTEGER_DIGITS`` digits or more; any string of ``HUGE_STRING``
  characters or more.
- ``compared``: ``COMPARISONS`` or more tests of an argument for equality or membership against
  a literal, or ``match`` cases on one (an if/elif chain of answers).
- ``keyed``, ``searched``, ``decoded``, ``read``: what the code does with its arguments and its
  data (hashing or serialising the arguments to look answers up, searching a table of
  arguments, decoding blobs, reading files, the network or the caller's frames):
  ``answer_code``'s docstring states them; they need no threshold (honest metric code does none
  of them; a memo such as ``functools.lru_cache`` or ``cache[key] = value`` is computation).
- ``returned``: a function the grader calls returns an entry of a table as it is, with no
  arithmetic over its arguments (``answer_code``), from a table into which ``TABLE_DATA``
  constants or more flow (data written in the file, not a table computed from a few constants).

Only the code that runs when the grader imports the file is read: the body of an
``if __name__ == "__main__":`` (self-tests, a demo) never runs then, unless the file rebinds
``__name__`` or names it in a string. Written-out tables of numbers that only computation uses
(``answer_code``'s ``computational``) count in no counted rule: a table of discounts multiplied
with the grades is code, not answers.

- ``unread``: code the scan cannot read to the end, a file of more than ``CODE_NODES`` syntax
  nodes (honest files have under 1,500) or nested too deeply; or the scan's own failure. A file
  that hides from the scan is worth a look, and a bug of the scan costs no student anything.

A file that does not parse (it will not import either) has no evidence. Each counted threshold
is at least twice what any honest file reaches (the repository's, those of
``tests/fixtures/answer_tables/honest/`` and the solution's mutants; ``tests/grading/test_answer_tables.py``).
"""

from __future__ import annotations

import ast
import base64
import binascii
import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from autograder.grading.integrity import answer_code
from autograder.grading.results import Flag, FlagKind

LITERAL_CONSTANTS = 600
CONSTANTS = 1500
PRECISE_NUMBERS = 100
COMPARISONS = 30
ENCODED_CHARACTERS = 200
BIG_INTEGER_DIGITS = 40
HUGE_STRING = 64 * 1024
#: A table returned as it is (``returned``) holds data when this many constants flow into it (a
#: string counts one per 16 characters): a table computed from a few constants is a function of its
#: key. No honest file we have returns an entry of any table as it is (tests/grading/test_answer_tables.py).
TABLE_DATA = 16
#: Files with more syntax nodes than this are not read for what their code does (the reading
#: would take seconds): that is evidence itself.
CODE_NODES = 20_000
#: At most this many pieces of evidence per flag (the rest are counted).
EVIDENCE = 5

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_HEX = set("0123456789abcdefABCDEF")
_BASE64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_HEADERS = (  # what the first decoded bytes say the data is
    (b"\x78\x01", "zlib-compressed"),
    (b"\x78\x5e", "zlib-compressed"),
    (b"\x78\x9c", "zlib-compressed"),
    (b"\x78\xda", "zlib-compressed"),
    (b"\x1f\x8b", "gzip-compressed"),
    (b"BZh", "bz2-compressed"),
    (b"\xfd7zXZ\x00", "lzma-compressed"),
    (b"\x5d\x00\x00", "lzma-compressed"),
    (b"\x80\x02", "a pickle"),
    (b"\x80\x03", "a pickle"),
    (b"\x80\x04", "a pickle"),
    (b"\x80\x05", "a pickle"),
)
_DISPLAYS = {ast.Dict: "dict", ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}


@dataclass(frozen=True, order=True)
class Finding:
    line: int
    rule: str
    text: str


def _precise(value: object) -> bool:
    """Does the number look like an answer rather than a constant of the code (0.5, 1e-6, 100)?"""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    if isinstance(value, int):
        return len(str(abs(value)).rstrip("0")) >= 4 if value.bit_length() < 64 else True
    mantissa = repr(abs(value)).split("e")[0].replace(".", "").strip("0")
    return not value.is_integer() and len(mantissa) >= 3


def _precise_text(token: str) -> bool:
    """``_precise`` for a number written in a string (a long run of digits always is)."""
    if len(token) > 30:
        return True
    return _precise(int(token) if token.lstrip("+-").isdigit() else float(token))


def _size(count: int, unit: str = "characters") -> str:
    return f"{count:,} {unit}" if count < 10_000 else f"{count / 1024:,.0f} KB"


def _header(data: bytes) -> str:
    return next((f" ({name})" for magic, name in _HEADERS if data.startswith(magic)), "")


def _looks_encoded(text: str) -> str:
    """How a long string looks encoded ("a base64 string (zlib-compressed)"), or ""."""
    binary = sum(1 for c in text if (ord(c) < 32 and c not in "\t\n\r") or 0x7F <= ord(c) < 0xA0)
    if binary >= ENCODED_CHARACTERS:
        return "a string of binary data"
    words = [w for w in text.split() if len(w) >= 16 and any(c.isdigit() for c in w) and any(c.isalpha() for c in w)]
    if sum(map(len, words)) < ENCODED_CHARACTERS:
        return ""
    letters = set("".join(text.split()))
    if letters <= _HEX:
        try:
            return "a hex string" + _header(bytes.fromhex("".join(text.split())[:64]))
        except ValueError:
            return "a hex string"
    if letters <= _BASE64:
        head = "".join(text.split())[:64].replace("-", "+").replace("_", "/")
        try:
            return "a base64 string" + _header(base64.b64decode(head + "=" * (-len(head) % 4)))
        except (binascii.Error, ValueError):
            return "a base64 string"
    return "an encoded-looking string"


def _strings(node: ast.Constant, found: list[Finding]) -> int:
    """Findings about one string, bytes or number constant; returns how many precise numbers it holds."""
    value, line = node.value, node.lineno
    if isinstance(value, bytes):
        if len(value) >= ENCODED_CHARACTERS:
            found.append(
                Finding(line, "encoded", f"bytes of {_size(len(value), 'bytes')}{_header(value)} at line {line}")
            )
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() * 0.30103 >= BIG_INTEGER_DIGITS:
        found.append(
            Finding(line, "encoded", f"an integer of {int(value.bit_length() * 0.30103) + 1:,} digits at line {line}")
        )
        return 1
    if not isinstance(value, str):
        return int(_precise(value))
    if len(value) >= HUGE_STRING:
        found.append(Finding(line, "encoded", f"a string of {_size(len(value))} at line {line}"))
    elif len(value) >= ENCODED_CHARACTERS and (look := _looks_encoded(value)):
        found.append(Finding(line, "encoded", f"{look} of {_size(len(value))} at line {line}"))
    return sum(1 for token in _NUMBER.findall(value) if _precise_text(token))


@dataclass(frozen=True)
class Counts:
    """What the counted rules count in one file (their thresholds are above)."""

    literal_constants: int = 0  # constants inside literal containers, all of them together
    constants: int = 0  # constants outside docstrings
    numbers: int = 0  # numbers that look like answers, in the code and in strings
    compared: int = 0  # tests of arguments against literals
    nodes: int = 0  # the syntax tree's size


@dataclass
class _Tally:
    """What the walk of one file has counted so far."""

    containers: list[list[Any]] = field(default_factory=list)  # [line, kind, entries, constants]
    constants: int = 0  # constants outside docstrings and f-strings
    precise: int = 0  # numbers that look like answers
    lines: list[int] = field(default_factory=list)  # the lines of the constants counted
    nodes: int = 0


def _literals(tree: ast.Module, found: list[Finding], computational: set[int]) -> Counts:
    """The rules on what the file writes down: literals, constants, numbers, strings (the
    written-out tables that only computation uses left out)."""
    tally = _walk(tree, _docstrings(tree), found, computational)
    in_literals = sum(c[3] for c in tally.containers)
    if in_literals >= LITERAL_CONSTANTS:
        found.append(_largest(tally.containers, in_literals))
    if tally.constants >= CONSTANTS:
        first, last = min(tally.lines), max(tally.lines)
        found.append(Finding(first, "constants", f"{tally.constants:,} constants in the code (lines {first}-{last})"))
    if tally.precise >= PRECISE_NUMBERS:
        found.append(Finding(min(tally.lines or [1]), "numbers", f"{tally.precise:,} numbers that look like answers"))
    return Counts(
        literal_constants=in_literals,
        constants=tally.constants,
        numbers=tally.precise,
        compared=0,
        nodes=tally.nodes,
    )


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the module's, classes' and functions' docstring constants."""
    return {
        id(body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        for body in [node.body]
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    }


def _walk(tree: ast.Module, docstrings: set[int], found: list[Finding], computational: set[int]) -> _Tally:
    """Every node of the tree (depth first, last child first) but the ``computational`` ones, each
    constant counted in the outermost literal container that holds it (through signs only);
    ``_strings``'s findings."""
    tally = _Tally()
    stack: list[tuple[Any, int, bool]] = [(tree, -1, False)]  # (node, its container's index or -1, in an f-string)
    while stack:
        node, owner, text = stack.pop()
        tally.nodes += 1
        if id(node) in computational:
            continue
        owner = _owner(node, owner, tally.containers)
        if isinstance(node, ast.Constant):
            tally.precise += _strings(node, found)
            if not text and id(node) not in docstrings:
                _count(node, owner, tally)
        pieces = isinstance(node, ast.JoinedStr)
        stack.extend((child, owner, pieces) for child in ast.iter_child_nodes(node))
    return tally


def _owner(node: Any, owner: int, containers: list[list[Any]]) -> int:
    """The index of the literal container ``node`` counts in: a new one for the outermost
    display, its container's inside one (or a sign or a constant), -1 anywhere else."""
    kind = _DISPLAYS.get(type(node))
    if kind and owner < 0:
        entries = len(node.keys) if isinstance(node, ast.Dict) else len(node.elts)
        containers.append([node.lineno, kind, entries, 0])
        return len(containers) - 1
    if not kind and not isinstance(node, (ast.UnaryOp, ast.Constant, ast.USub, ast.UAdd)):
        return -1
    return owner


def _count(node: ast.Constant, owner: int, tally: _Tally) -> None:
    """One constant of the code (not None, a bool or ``...``) counted, and in its container."""
    if node.value is None or isinstance(node.value, bool) or node.value is Ellipsis:
        return
    tally.constants += 1
    tally.lines.append(node.lineno)
    if owner >= 0:
        tally.containers[owner][3] += 1


def _largest(containers: list[list[Any]], in_literals: int) -> Finding:
    """The ``literals`` finding: the literal holding the most constants (the first of them)."""
    line, kind, entries, _ = max(containers, key=lambda c: (c[3], -c[0]))
    more = len([c for c in containers if c[3]]) - 1
    said = f"a {kind} literal of {entries:,} entries at line {line}"
    if more:
        said += f" and {more:,} more literals ({in_literals:,} constants in all)"
    return Finding(line, "literals", said)


def _imported(tree: ast.Module) -> tuple[ast.Module, int]:
    """The code that runs when the grader imports the file, and how many syntax nodes it has:
    the tree without the bodies of its ``if __name__ == "__main__":`` (their ``else`` runs),
    unless the file could make the test true on import (it binds ``__name__`` or names it in a
    string)."""
    rebound, nodes = False, 0
    for node in ast.walk(tree):
        nodes += 1
        rebound = rebound or (
            (isinstance(node, ast.Name) and node.id == "__name__" and not isinstance(node.ctx, ast.Load))
            or (isinstance(node, ast.Constant) and node.value == "__name__")
            or (isinstance(node, (ast.Import, ast.ImportFrom)) and any(a.asname == "__name__" for a in node.names))
        )
    for node in tree.body if not rebound else []:
        if isinstance(node, ast.If) and _main(node.test):
            nodes -= sum(1 for statement in node.body for _ in ast.walk(statement))
            node.body = []
    return tree, nodes


def _main(test: ast.expr) -> bool:
    """Is ``test`` ``__name__ == "__main__"`` (either way round)?"""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def read(source: bytes, functions: Collection[str]) -> tuple[list[Finding], Counts]:
    """The evidence in one graded file, by line, and what the counted rules counted; none when
    it does not parse (it cannot import either); ``functions``: the functions the lab grades. Code
    the scan cannot read to the end (nested too deeply for it) is evidence itself: a file that hides
    from the scan is worth a look."""
    try:
        tree, nodes = _imported(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], Counts()
    found: list[Finding] = []
    if nodes > CODE_NODES:
        counts = replace(_literals(tree, found, set()), nodes=nodes)
        text = f"{nodes:,} syntax nodes, too many for the scan to read its code: check it by hand"
        return sorted(set(found + [Finding(1, "unread", text)])), counts
    try:
        code = answer_code.read(tree, TABLE_DATA, functions)
    except RecursionError:
        counts = replace(_literals(tree, found, set()), nodes=nodes)
        return sorted(
            set(found + [Finding(1, "unread", "code nested too deeply for the scan to read: check it by hand")])
        ), counts
    counts = replace(_literals(tree, found, code.computational), nodes=nodes)
    found += [Finding(*item) for item in code.found]
    if len(code.compared) >= COMPARISONS:
        first, last = min(code.compared), max(code.compared)
        text = f"{len(code.compared):,} tests of arguments against constants (lines {first}-{last})"
        found.append(Finding(first, "compared", text))
    return sorted(set(found)), replace(counts, compared=len(code.compared))


def scan(source: bytes, functions: Collection[str]) -> list[Finding]:
    """The evidence in one graded file (``read``'s findings)."""
    return read(source, functions)[0]


def evidence(found: list[Finding]) -> str:
    """The findings in a few words: the first of each rule, how many more like it."""
    by_rule: dict[str, list[Finding]] = {}
    for item in found:
        by_rule.setdefault(item.rule, []).append(item)
    parts = []
    for items in sorted(by_rule.values()):
        parts.append(items[0].text + (f" (and {len(items) - 1} more like it)" if len(items) > 1 else ""))
    shown = parts[:EVIDENCE]
    return "; ".join(shown) + (f"; and {len(parts) - len(shown)} more kinds of evidence" if parts[EVIDENCE:] else "")


def flags(package: str, files: dict[str, bytes], functions: Collection[str]) -> list[Flag]:
    """One flag per graded file (of the student ``package``, whose lab grades ``functions``) with
    evidence of answers without computation."""
    found = []
    for name in sorted(files):
        try:
            items = scan(files[name], functions)
        except Exception as error:  # a bug of the scan costs its student nothing: the instructor looks
            items = [Finding(1, "unread", f"the scan failed ({type(error).__name__}): check it by hand")]
        if items:
            text = f"{package}/{name} may hold answers instead of computing them: {evidence(items)}"
            found.append(Flag(FlagKind.ANSWERS, text))
    return found
