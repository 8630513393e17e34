"""What does not change a graded file's behaviour, taken out before it is fingerprinted (for
``fingerprints``): a copy disguised with it reads as its original.

The file is parsed (``ast``), rewritten, and written back one logical line per statement
(``ast.unparse``), each line keeping where its statement is in the file. Rewritten:

- left out: docstrings and other bare strings, comments, annotations, ``pass`` beside other
  statements, statements that do nothing (a constant, a name, arithmetic on them, a call of a
  pure builtin such as ``len``);
- dead code left out: statements after ``return``, ``raise``, ``continue`` or ``break`` in the
  same block, ``if`` and ``while`` on a constant test (``if False:``, ``if 1 > 2:``; ``if True:``
  keeps its body);
- unused code left out: a name assigned and never read (a call in its value stays, as a
  statement), a module function or class nobody names (the handout's names always stay);
- one way to write what has several: ``x += y`` as ``x = x + y``; ``a > b`` as ``b < a``;
  ``elif`` as ``else: if``; a list, set, dict or sum built by a loop as its comprehension
  (``out = []`` then ``for ...: out.append(e)`` as ``out = [e for ...]``); a module function that
  only returns an expression of its parameters, inlined where it is called; runs of imports
  sorted; numbers as ``0``.

``statements`` returns None for a file that does not parse or is too deeply nested to rewrite:
``fingerprints`` then reads its tokens as written. Standard library only.
"""

from __future__ import annotations

import ast
import copy
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from autograder.similarity import idioms

_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BODIES = ("body", "orelse", "finalbody")
_CLOCK_EVERY = 512  # nodes between two looks at the clock


class TooSlow(Exception):
    """The rewriting passed its deadline."""


@dataclass(frozen=True)
class Statement:
    """One line of the rewritten code, and where its statement is in the file: ``[start, end)``."""

    code: str
    start: int
    end: int


# ------------------------------------------------------------------ the rewriting


class _Rewriter(ast.NodeTransformer):
    """One pass of every local rewriting; ``deadline`` bounds it."""

    def __init__(self, deadline: float | None, set_aside: list[ast.Expr]) -> None:
        self.deadline, self.set_aside, self.count = deadline, set_aside, 0

    def visit(self, node: ast.AST) -> Any:  # as ``NodeTransformer.visit``: a node, a list of them or None
        self.count += 1
        if self.deadline is not None and self.count % _CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            raise TooSlow
        node = super().visit(node)
        for field in _BODIES:
            if isinstance(node, ast.AST) and isinstance(getattr(node, field, None), list):
                setattr(node, field, self._block(getattr(node, field), keep_empty=field == "body"))
        return node

    def _block(self, statements: list[ast.stmt], keep_empty: bool) -> list[ast.stmt]:
        kept: list[ast.stmt] = []
        for statement in statements:
            if isinstance(statement, ast.Expr) and idioms.pure(statement.value):
                if isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str):
                    self.set_aside.append(statement)  # a docstring: its lines are nobody's code
                continue
            if isinstance(statement, ast.Pass):
                continue
            kept.append(statement)
            if isinstance(statement, _TERMINAL):
                break  # what follows never runs
        kept = idioms.independent_sorted(idioms.returned_at_once(idioms.loops_as_comprehensions(kept)))
        return kept or ([ast.Pass()] if keep_empty else [])

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.Assign:
        self.generic_visit(node)
        load = copy.deepcopy(node.target)
        for inner in ast.walk(load):
            if hasattr(inner, "ctx"):
                inner.ctx = ast.Load()
        value = ast.BinOp(load, node.op, node.value)
        return ast.copy_location(ast.Assign([node.target], value), node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.Assign | None:
        self.generic_visit(node)
        if node.value is None:
            return None
        return ast.copy_location(ast.Assign([node.target], node.value), node)

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.FunctionDef | ast.AsyncFunctionDef:
        node.returns = None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Compare(self, node: ast.Compare) -> ast.Compare:
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Gt, ast.GtE)):
            flipped = ast.Lt() if isinstance(node.ops[0], ast.Gt) else ast.LtE()
            return ast.copy_location(ast.Compare(node.comparators[0], [flipped], [node.left]), node)
        return node

    def visit_If(self, node: ast.If) -> ast.If | list[ast.stmt] | None:
        self.generic_visit(node)
        known, value = idioms.constant(node.test)
        if not known:
            return node
        return (node.body if value else node.orelse) or None

    def visit_While(self, node: ast.While) -> ast.While | list[ast.stmt] | None:
        self.generic_visit(node)
        known, value = idioms.constant(node.test)
        return node.orelse or None if known and not value else node


class _Numbers(ast.NodeTransformer):
    """Every number as ``0`` (after the constant tests were read)."""

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        if isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool):
            return ast.copy_location(ast.Constant(0), node)
        return node


def _blocks(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list of ``tree`` (bodies, else branches, handlers' bodies)."""
    for node in ast.walk(tree):
        for field in _BODIES:
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _unused(block: list[ast.stmt], read: set[str], keep: frozenset[str]) -> bool:
    """Assignments (and, at module level, functions and classes) in ``block`` of names nobody
    reads, left out (a call in an assigned value stays, as a statement); whether any was."""
    changed = False
    for index, node in enumerate(block):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.names[0].name != "*":
            used = [
                a
                for a in node.names
                if (a.asname or a.name).split(".")[0] in read | keep or getattr(node, "module", "") == "__future__"
            ]
            changed = changed or len(used) < len(node.names)
            node.names = used or node.names
            block[index] = node if used else ast.Pass()
            continue
        name = idioms.bound_name(node)
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            name = node.name
        if name is None or name in read or name in keep or name.startswith("__"):
            continue
        changed = True
        keeps_value = isinstance(node, ast.Assign) and not idioms.pure(node.value)
        block[index] = ast.copy_location(ast.Expr(cast(ast.Assign, node).value), node) if keeps_value else ast.Pass()
    return changed


def _drop_unused(tree: ast.Module, keep: frozenset[str]) -> None:
    for _ in range(3):  # what an unused name alone read becomes unused in turn
        changed = _unused(tree.body, idioms.names_read(tree), keep)
        for function in [node for node in ast.walk(tree) if isinstance(node, _FUNCTIONS)]:
            read = idioms.names_read(function)
            for block in _blocks(function):
                changed = _unused(block, read, frozenset()) or changed
        if not changed:
            return


def _runs_sorted(block: list[ast.stmt], keep: frozenset[str]) -> None:
    """Each run of imports in the order of their text (names sorted within each), and each run of
    definitions in one order: the handout's by name, then the file's own by their shape."""
    kinds = ((ast.Import, ast.ImportFrom), (*_FUNCTIONS, ast.ClassDef))
    keys: tuple[Any, Any] = (
        ast.unparse,
        lambda node: (node.name not in keep, node.name if node.name in keep else idioms.shape(node)),
    )
    for kind, key in zip(kinds, keys):
        start = 0
        while start < len(block):
            end = start
            while end < len(block) and isinstance(block[end], kind):
                if kind is kinds[0]:
                    cast("ast.Import | ast.ImportFrom", block[end]).names.sort(
                        key=lambda alias: (alias.name, alias.asname or "")
                    )
                end += 1
            if end - start > 1:
                block[start:end] = sorted(block[start:end], key=key)
            start = end + 1


def rewrite(tree: ast.Module, keep: frozenset[str] = frozenset(), deadline: float | None = None) -> list[ast.Expr]:
    """``tree`` rewritten in place (see the module's docstring); the docstrings it left out.
    ``keep``: names never left out as unused nor inlined (the handout's)."""
    set_aside: list[ast.Expr] = []
    _Rewriter(deadline, set_aside).visit(tree)
    for _ in range(2):  # a helper that only returns once its unused locals are out, and so on
        _drop_unused(tree, keep)
        _Rewriter(deadline, []).visit(tree)  # what is left: statements doing nothing, loops
        idioms.inline_wrappers(tree, keep)
    _drop_unused(tree, keep)
    for block in [tree.body, *_blocks(tree)]:
        _runs_sorted(block, keep)
    _Numbers().visit(tree)
    return set_aside


# ------------------------------------------------------------------ written back, line by line


class _Where:
    """Text offsets of the parser's positions (lines from 1, columns in UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def offset(self, line: int, column: int) -> int:
        line = min(max(line, 1), len(self.lines))
        text = self.lines[line - 1]
        if not text.isascii():
            column = len(text.encode("utf-8")[:column].decode("utf-8", "ignore"))
        return self.starts[line - 1] + min(column, len(text))

    def line_end(self, line: int) -> int:
        line = min(max(line, 1), len(self.lines))
        return self.starts[line - 1] + len(self.lines[line - 1])


def _header(node: Any) -> tuple[str, ast.AST | None]:
    """A compound statement's first line, and its last part (where the line ends in the file)."""
    unparse = ast.unparse
    if isinstance(node, _FUNCTIONS):
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        last: Any = node.returns or [None, *node.args.args, *node.args.kwonlyargs][-1]
        return f"{prefix} {node.name}({unparse(node.args)}):", last
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(unparse(part) for part in (*node.bases, *node.keywords))
        return f"class {node.name}({bases}):", (node.keywords or node.bases or [None])[-1]
    if isinstance(node, ast.If):
        return f"if {unparse(node.test)}:", node.test
    if isinstance(node, ast.While):
        return f"while {unparse(node.test)}:", node.test
    if isinstance(node, (ast.For, ast.AsyncFor)):
        prefix = "async for" if isinstance(node, ast.AsyncFor) else "for"
        return f"{prefix} {unparse(node.target)} in {unparse(node.iter)}:", node.iter
    if isinstance(node, (ast.With, ast.AsyncWith)):
        prefix = "async with" if isinstance(node, ast.AsyncWith) else "with"
        return f"{prefix} {', '.join(unparse(item) for item in node.items)}:", node.items[-1].context_expr
    if isinstance(node, ast.ExceptHandler):
        kind = f" {unparse(node.type)}" if node.type is not None else ""
        return f"except{kind}{' as ' + node.name if node.name else ''}:", node.type
    return "try:", None


def _branches(node: Any) -> list[tuple[str, Sequence[ast.AST]]]:
    """A compound statement's blocks after its first, each with the line that opens it."""
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        return [("", [handler]) for handler in node.handlers] + [("else:", node.orelse), ("finally:", node.finalbody)]
    return [("else:", getattr(node, "orelse", []))]


def _emit(block: Sequence[ast.AST], where: _Where, out: list[Statement], set_aside_lines: set[int]) -> None:
    node: Any
    for node in block:
        known = getattr(node, "lineno", None) is not None and getattr(node, "end_lineno", None) is not None
        start = where.offset(node.lineno, node.col_offset) if known else (out[-1].end if out else 0)
        if isinstance(node, ast.Match):
            end = where.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
            for written in ast.unparse(node).split("\n"):  # rare: one span for the whole statement
                out.append(Statement(written.strip(), start, end))
            continue
        compound = isinstance(
            node,
            (
                *_FUNCTIONS,
                ast.ClassDef,
                ast.If,
                ast.While,
                ast.For,
                ast.AsyncFor,
                ast.With,
                ast.AsyncWith,
                ast.Try,
                ast.ExceptHandler,
                getattr(ast, "TryStar", ast.Try),
            ),
        )
        if not compound:
            end = where.offset(node.end_lineno, node.end_col_offset) if known else start
            out.append(Statement(ast.unparse(node), start, end))
            continue
        for decorator in getattr(node, "decorator_list", []):
            at = where.offset(decorator.lineno, decorator.col_offset)
            out.append(Statement(f"@{ast.unparse(decorator)}", at, where.line_end(decorator.lineno)))
        code, last = _header(node)
        line: Any = getattr(last, "end_lineno", None) or getattr(node, "lineno", 1)
        out.append(Statement(code, start, max(start, where.line_end(line))))
        _emit(node.body, where, out, set_aside_lines)
        for opening, branch in _branches(node):
            if branch:
                if opening:
                    at = out[-1].end
                    out.append(Statement(opening, at, at))
                _emit(branch, where, out, set_aside_lines)


def statements(
    text: str, keep: frozenset[str] = frozenset(), deadline: float | None = None
) -> tuple[list[Statement], frozenset[int]] | None:
    """(the file's statements rewritten, the lines of its docstrings) or None if it does not parse
    (or is too deeply nested to rewrite); ``text`` has ``\\n`` line ends. ``TooSlow`` past ``deadline``."""
    try:
        tree = ast.parse(text)
        docstrings = rewrite(tree, keep, deadline)
        out: list[Statement] = []
        _emit(tree.body, _Where(text), out, set())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = {n for node in docstrings for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    return out, frozenset(lines)
