"""One way to write what can be written several ways, for ``canonical``: the small judgments
it makes on ``ast`` nodes (does a value only compute, which name does a statement bind) and the
rewritings of a block or a module that give alike code one shape (a loop building a list as its
comprehension, a wrapper inlined where called, independent assignments in one order).
Standard library only.
"""

from __future__ import annotations

import ast
import builtins
import copy
import keyword
import re
from collections.abc import Callable
from typing import Any, cast

#: Calls of these builtins do nothing of their own: a statement made of them does nothing.
_PURE = "abs all any bool dict enumerate float int isinstance len list max min range repr reversed round set sorted"
PURE_CALLS = frozenset(f"{_PURE} str sum tuple zip".split())

# ------------------------------------------------------------------ small judgments


def pure(node: ast.AST) -> bool:
    """Evaluating ``node`` only computes a value (it calls ``PURE_CALLS`` at most)."""
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda)):
            return False
        if isinstance(inner, ast.Call) and not (isinstance(inner.func, ast.Name) and inner.func.id in PURE_CALLS):
            return False
    return True


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {  # constants of the file: any value
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def constant(node: ast.AST) -> tuple[bool, Any]:  # Any: ``ast.Constant.value``'s type
    """(True, value) for a test made of constants (numbers, strings, booleans, None), compared,
    negated or combined with and/or; (False, None) when it depends on anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        return _negated(node)
    if isinstance(node, ast.BoolOp):
        return _combined(node)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return _compared(node)
    return False, None


def _negated(node: ast.UnaryOp) -> tuple[bool, Any]:
    """``constant`` of ``not test`` or ``-number``."""
    known, value = constant(node.operand)
    if known and (isinstance(node.op, ast.Not) or isinstance(value, (int, float))):
        return True, (not value) if isinstance(node.op, ast.Not) else -value
    return False, None


def _combined(node: ast.BoolOp) -> tuple[bool, Any]:
    """``constant`` of tests combined with and/or."""
    values = [constant(value) for value in node.values]
    if all(known for known, _ in values):
        truths = [bool(value) for _, value in values]
        return True, all(truths) if isinstance(node.op, ast.And) else any(truths)
    return False, None


def _compared(node: ast.Compare) -> tuple[bool, Any]:
    """``constant`` of one comparison of two constants (False when Python refuses to compare them)."""
    (left_known, left), (right_known, right) = constant(node.left), constant(node.comparators[0])
    if left_known and right_known:
        try:
            return True, _COMPARE[type(node.ops[0])](left, right)
        except TypeError:
            return False, None
    return False, None


def names_read(tree: ast.AST) -> set[str]:
    """Every name ``tree`` reads (and every attribute name, which a module's own names may be)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            found.add(node.value)  # __all__, getattr(module, "name")
    return found


def bound_name(node: ast.AST) -> str | None:
    """The name a simple assignment ``name = value`` binds, or None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    return None


_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_KEPT_WORDS = frozenset(keyword.kwlist) | frozenset(dir(builtins))


def shape(node: ast.AST) -> str:
    """``node`` written with every name of the file's own as ``V`` (what the fingerprints see)."""
    return _WORD.sub(lambda match: match.group() if match.group() in _KEPT_WORDS else "V", ast.unparse(node))


def returned_at_once(statements: list[ast.stmt]) -> list[ast.stmt]:
    """``name = value`` followed by ``return name`` as ``return value``."""
    out: list[ast.stmt] = []
    for statement in statements:
        previous = out[-1] if out else None
        value = statement.value if isinstance(statement, ast.Return) else None
        if previous is not None and isinstance(value, ast.Name) and bound_name(previous) == value.id:
            out[-1] = ast.copy_location(ast.Return(cast(ast.Assign, previous).value), previous)
            out[-1].end_lineno, out[-1].end_col_offset = statement.end_lineno, statement.end_col_offset
            continue
        out.append(statement)
    return out


def independent_sorted(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Each run of assignments that do not depend on one another (pure values, distinct names,
    none reading another's), in one order: the order of their shapes."""
    out: list[ast.stmt] = []
    run: list[tuple[str, set[str], ast.stmt]] = []  # (name, the names its value reads, the assignment)
    statement: Any  # None past the last; an ``ast.Assign`` wherever ``bound_name`` names one
    for statement in [*statements, None]:
        name = bound_name(statement) if statement is not None else None
        if name is not None and pure(statement.value):
            reads = {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}
            if all(name != other and name not in other_reads and other not in reads for other, other_reads, _ in run):
                run.append((name, reads, statement))
                continue
        out += (
            [item[2] for item in sorted(run, key=lambda item: shape(item[2]))] if len(run) > 1 else [i[2] for i in run]
        )
        run = []
        if name is not None and pure(statement.value):
            run = [(name, {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}, statement)]
        elif statement is not None:
            out.append(statement)
    return out


def _loop_parts(loop: Any) -> tuple[list[ast.comprehension], ast.AST]:
    """A loop whose body is nested loops and ifs around one statement: (generators, the statement)."""
    generators: list[ast.comprehension] = []
    node: Any = loop
    while True:
        if isinstance(node, ast.For) and not node.orelse and len(node.body) == 1:
            generators.append(ast.comprehension(node.target, node.iter, [], 0))
            node = node.body[0]
        elif isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 and generators:
            generators[-1].ifs.append(node.test)
            node = node.body[0]
        else:
            return generators, node


def _built(name: str, start: ast.AST, inner: ast.AST, generators: list[ast.comprehension]) -> ast.expr | None:
    """The comprehension a loop's ``inner`` statement builds ``name`` with, from ``start``, or None."""
    if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call) and len(inner.value.args) == 1:
        return _added(name, start, inner.value, generators)
    if isinstance(inner, ast.Assign) and len(inner.targets) == 1:
        return _stored(name, start, inner, generators)
    return None


def _added(name: str, start: ast.AST, call: ast.Call, generators: list[ast.comprehension]) -> ast.expr | None:
    """``name.append(element)`` from ``[]`` as a list comprehension, ``name.add(element)`` from
    ``set()`` as a set comprehension, or None."""
    if not (isinstance(call.func, ast.Attribute) and _is_name(call.func.value, name)):
        return None
    element = call.args[0]
    if call.func.attr == "append" and isinstance(start, ast.List) and not start.elts:
        return ast.ListComp(element, generators)
    if call.func.attr == "add" and isinstance(start, ast.Call) and _is_call(start, "set"):
        return ast.SetComp(element, generators)
    return None


def _stored(name: str, start: ast.AST, inner: ast.Assign, generators: list[ast.comprehension]) -> ast.expr | None:
    """``name[key] = value`` from ``{}`` as a dict comprehension, ``name = name + value`` from ``0``
    as a sum of a generator, or None."""
    target = inner.targets[0]
    if (
        isinstance(target, ast.Subscript)
        and _is_name(target.value, name)
        and isinstance(start, ast.Dict)
        and not start.keys
    ):
        return ast.DictComp(target.slice, inner.value, generators)
    value = inner.value
    if (
        bound_name(inner) == name
        and isinstance(value, ast.BinOp)
        and isinstance(value.op, ast.Add)
        and _is_name(value.left, name)
        and isinstance(start, ast.Constant)
        and start.value == 0
    ):
        return ast.Call(ast.Name("sum", ast.Load()), [ast.GeneratorExp(value.right, generators)], [])
    return None


def _is_name(node: ast.AST, name: str) -> bool:
    """Whether ``node`` is the name ``name``."""
    return isinstance(node, ast.Name) and node.id == name


def _is_call(node: Any, name: str) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == name and not node.args and not node.keywords


def loops_as_comprehensions(statements: list[ast.stmt]) -> list[ast.stmt]:
    """``name = <empty>`` followed by a loop that only adds to ``name``, as one assignment."""
    out: list[ast.stmt] = []
    for statement in statements:
        previous: Any = out[-1] if out else None
        name = bound_name(previous) if previous is not None else None
        if name is not None and isinstance(statement, ast.For):
            generators, inner = _loop_parts(statement)
            built = _built(name, previous.value, inner, generators) if generators else None
            if built is not None and name not in {
                n.id for g in generators for n in ast.walk(g) if isinstance(n, ast.Name)
            }:
                out[-1] = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], built), previous)
                out[-1].end_lineno, out[-1].end_col_offset = statement.end_lineno, statement.end_col_offset
                continue
        out.append(statement)
    return out


class _Inline(ast.NodeTransformer):
    """Calls of ``wrappers`` (name -> (parameters, the expression returned)) as their expression."""

    def __init__(self, wrappers: dict[str, tuple[list[str], ast.expr]]) -> None:
        self.wrappers, self.changed = wrappers, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        wrapper = self.wrappers.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if wrapper is None or node.keywords or len(node.args) != len(wrapper[0]):
            return node
        if any(isinstance(argument, ast.Starred) for argument in node.args):
            return node
        arguments = dict(zip(wrapper[0], node.args))
        expression = copy.deepcopy(wrapper[1])
        for inner in ast.walk(expression):
            for field, value in ast.iter_fields(inner):
                if isinstance(value, ast.Name) and value.id in arguments:
                    setattr(inner, field, copy.deepcopy(arguments[value.id]))
                elif isinstance(value, list):
                    value[:] = [
                        copy.deepcopy(arguments[item.id])
                        if isinstance(item, ast.Name) and item.id in arguments
                        else item
                        for item in value
                    ]
        if isinstance(expression, ast.Name) and expression.id in arguments:
            expression = copy.deepcopy(arguments[expression.id])
        self.changed = True
        return ast.copy_location(expression, node)


def inline_wrappers(tree: ast.Module, keep: frozenset[str]) -> None:
    """Module functions that only return an expression of their parameters, inlined where called."""
    wrappers = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name in keep or node.decorator_list or len(node.body) != 1:
            continue
        arguments, body = node.args, node.body[0]
        if not isinstance(body, ast.Return) or body.value is None:
            continue
        simple = not (arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs)
        if simple and not arguments.defaults and node.name not in names_read(body.value):
            wrappers[node.name] = ([argument.arg for argument in arguments.args], body.value)
    for _ in range(3):  # a wrapper of a wrapper
        inline = _Inline(wrappers)
        inline.visit(tree)
        if not inline.changed:
            return
