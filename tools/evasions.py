"""Disguised copies of a graded file, for measuring the code similarity (``similarity/compare.py``).

    .venv/bin/python tools/evasions.py FILE [EVASION ...] [--seed S]   # prints the disguised file

Each evasion rewrites a Python file without changing what it does, the way a student hiding a
copy might: ``EVASIONS`` lists them, from the cheapest. ``disguise(source, names, rng)`` applies
the named ones in the list's order. The handout's names (the API's functions and their
parameters) are never renamed, so the copy still fulfils the contract; ``tests/test_similarity_
evasions.py`` checks that disguised copies of correct solutions still give the reference's
answers, and ``tools/separation.py`` measures the scores of copies disguised with 1, 2, ... of
them against those of honest pairs.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WORDS = ("acc", "tmp", "val", "item", "cur", "res", "buf", "part", "step", "slot", "mark", "node", "unit", "cell")


def _protected(tree: ast.Module, keep: frozenset[str]) -> set[str]:
    """Names a rename must leave alone: the handout's, their functions' parameters, builtins,
    imported names, keyword names of calls, ``self``."""
    names = set(keep) | set(dir(builtins)) | {"self", "cls"}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in keep:
            arguments = node.args
            names.update(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))
        elif isinstance(node, ast.ClassDef):
            names.update(n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            names.update(
                t.id for n in node.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
            )
            names.update(
                n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
            )
    return names


def rename(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """Every name of the file's own (locals, helpers, their parameters) renamed."""
    protected = _protected(tree, keep)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
    mapping = {name: f"{rng.choice(WORDS)}_{index}" for index, name in enumerate(sorted(found - protected))}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]
        elif isinstance(node, ast.arg) and node.arg in mapping:
            node.arg = mapping[node.arg]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in mapping:
            node.name = mapping[node.name]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [mapping.get(name, name) for name in node.names]
        elif isinstance(node, ast.ExceptHandler) and node.name in mapping:
            node.name = mapping[node.name]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in mapping:
            for keyword in node.keywords:
                keyword.arg = mapping.get(keyword.arg, keyword.arg) if keyword.arg else None


def reorder(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """The module's functions and classes in another order (each run of definitions between two
    other statements shuffled, so that module code using them still follows them)."""
    runs: list[list] = [[]]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            runs[-1].append(node)
        else:
            runs += [[node], []]
    for run in runs:
        rng.shuffle(run)
    tree.body = [node for run in runs for node in run]


def _bodies(tree: ast.AST):
    """Every statement list of ``tree``."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, field, block


def _docstring(block: list) -> bool:
    first = block[0] if block else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def passes(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """A ``pass`` after every statement (in functions, classes and blocks)."""
    for node, _field, block in list(_bodies(tree)):
        if isinstance(node, ast.Module):
            continue
        block[:] = [new for statement in block for new in (statement, ast.Pass())]


def no_ops(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """Statements that do nothing (a constant, a name already bound, a string) between others."""
    for node, _field, block in list(_bodies(tree)):
        if isinstance(node, ast.Module):
            continue
        out = []
        for statement in block:
            out.append(statement)
            if rng.random() < 0.5:
                out.append(
                    ast.Expr(rng.choice([ast.Constant(None), ast.Constant(0), ast.Constant("..."), ast.Constant(...)]))
                )
        block[:] = out


def augmented(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """``x = x + y`` as ``x += y``, and ``x += y`` as ``x = x + y``."""

    class Swap(ast.NodeTransformer):
        def visit_AugAssign(self, node):
            load = ast.Name(node.target.id, ast.Load()) if isinstance(node.target, ast.Name) else None
            if load is None:
                return node
            return ast.Assign([node.target], ast.BinOp(load, node.op, node.value), lineno=0)

        def visit_Assign(self, node):
            value, targets = node.value, node.targets
            if (
                len(targets) == 1
                and isinstance(targets[0], ast.Name)
                and isinstance(value, ast.BinOp)
                and isinstance(value.left, ast.Name)
                and value.left.id == targets[0].id
            ):
                return ast.AugAssign(targets[0], value.op, value.right)
            return node

    Swap().visit(tree)


def dead_code(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """Code that never runs or is never used: ``if False:`` blocks, statements after a
    ``return``, locals assigned and never read."""
    counter = iter(range(10**6))
    for node, field, block in list(_bodies(tree)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or field != "body":
            continue
        start = 1 if _docstring(block) else 0
        junk = f"unused_{next(counter)}"
        block.insert(start, ast.parse(f"{junk} = 0").body[0])
        block.insert(start + 1, ast.parse(f"if False:\n    {junk} = {junk} + 1\n    print({junk})").body[0])
        if isinstance(block[-1], ast.Return):
            block.append(ast.parse(f"{junk} = None").body[0])


def comments(source: str, rng: random.Random) -> str:
    """Docstrings out, a comment above most statements and after some."""
    tree = ast.parse(source)
    for _, _, block in list(_bodies(tree)):
        if _docstring(block) and len(block) > 1:
            del block[0]
    lines = []
    for line in ast.unparse(tree).split("\n"):
        indent = line[: len(line) - len(line.lstrip())]
        if (
            line.strip()
            and not line.strip().startswith(("else", "elif", "except", "finally", "@"))
            and rng.random() < 0.6
        ):
            lines.append(f"{indent}# {rng.choice(WORDS)} {rng.choice(WORDS)}: see above")
        lines.append(line + (f"  # {rng.choice(WORDS)}" if line.rstrip().endswith(")") and rng.random() < 0.3 else ""))
    return "\n".join(lines) + "\n"


def comparisons(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """``a < b`` as ``b > a``, ``a >= b`` as ``b <= a`` (and so on)."""
    flipped = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in flipped:
            node.left, node.comparators = node.comparators[0], [node.left]
            node.ops = [flipped[type(node.ops[0])]()]


def imports(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """The imports in another order, and some the file never uses."""
    found = [
        n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and getattr(n, "module", "") != "__future__"
    ]
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    found += ast.parse("import os\nimport sys\nfrom collections import defaultdict as _unused_dict").body
    rng.shuffle(found)
    tree.body = future + found + [n for n in tree.body if n not in found and n not in future]


def _fresh(tree: ast.Module, stem: str) -> str:
    taken = {getattr(node, "id", None) for node in ast.walk(tree)} | {
        getattr(node, "name", None) for node in ast.walk(tree)
    }
    number = 0
    while f"{stem}{number}" in taken:
        number += 1
    return f"{stem}{number}"


def _as_loop(name: str, built: ast.AST) -> list | None:
    """``name = <built>`` (a list comprehension or a sum of a generator) as an empty start and a loop."""
    if isinstance(built, ast.ListComp):
        start, element = "[]", built.elt
        grow = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()), [element], []))
    elif (
        isinstance(built, ast.Call)
        and isinstance(built.func, ast.Name)
        and built.func.id == "sum"
        and len(built.args) == 1
        and not built.keywords
        and isinstance(built.args[0], ast.GeneratorExp)
    ):
        start, built = "0", built.args[0]
        grow = ast.parse(f"{name} = {name} + 0").body[0]
        grow.value.right = built.elt
    else:
        return None
    inner: ast.stmt = grow
    for generator in reversed(built.generators):
        if generator.is_async:
            return None
        for condition in reversed(generator.ifs):
            inner = ast.If(condition, [inner], [])
        inner = ast.For(generator.target, generator.iter, [inner], [])
    return [ast.parse(f"{name} = {start}").body[0], inner]


def loops(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """A list comprehension or a sum of a generator assigned (or returned) as a loop."""
    for node, _field, block in list(_bodies(tree)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.If, ast.While, ast.With)):
            continue
        out: list = []
        for statement in block:
            name = (
                statement.targets[0].id
                if isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                else None
            )
            if isinstance(statement, ast.Return) and statement.value is not None:
                fresh = _fresh(tree, "_result")
                rewritten = _as_loop(fresh, statement.value)
                if rewritten is not None:
                    out += [*rewritten, ast.Return(ast.Name(fresh, ast.Load()))]
                    continue
            rewritten = _as_loop(name, statement.value) if name else None
            out += rewritten if rewritten is not None else [statement]
        block[:] = out


def helpers(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """Calls of ``len``, ``sum``, ``max``, ``min`` and ``sorted`` through helpers of the file's own,
    and helpers nobody calls."""
    wrapped = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("len", "sum", "max", "min", "sorted")
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], (ast.Starred, ast.GeneratorExp))
        ):
            helper = wrapped.setdefault(node.func.id, _fresh(tree, f"_{node.func.id}_of"))
            node.func = ast.Name(helper, ast.Load())
    definitions = [
        ast.parse(f"def {helper}(values):\n    return {builtin}(values)").body[0] for builtin, helper in wrapped.items()
    ]
    definitions += ast.parse(
        "def _spare_total(values):\n    total = 0\n    for value in values:\n"
        "        total = total + value\n    return total\n"
        "def _spare_mean(values):\n    return _spare_total(values) / max(len(values), 1)\n"
    ).body
    first = next(
        (index for index, node in enumerate(tree.body) if isinstance(node, (ast.FunctionDef, ast.ClassDef))),
        len(tree.body),
    )
    tree.body[first:first] = definitions


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def swap(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """Adjacent assignments that do not depend on each other, in the other order."""
    for _, _, block in list(_bodies(tree)):
        index = 0
        while index + 1 < len(block):
            a, b = block[index], block[index + 1]
            simple = all(
                isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) for s in (a, b)
            )
            if (
                simple
                and a.targets[0].id != b.targets[0].id
                and a.targets[0].id not in _reads(b)
                and b.targets[0].id not in _reads(a)
            ):
                pure = all(
                    not isinstance(n, ast.Call) or getattr(n.func, "id", "") in ("len", "set", "list", "sum")
                    for s in (a, b)
                    for n in ast.walk(s.value)
                )
                if pure:
                    block[index], block[index + 1] = b, a
                    index += 2
                    continue
            index += 1


def while_loops(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """``for i in range(a, b):`` as a ``while`` loop with a counter (loops without ``continue``)."""
    for _, _, block in list(_bodies(tree)):
        out: list = []
        for node in block:
            call = node.iter if isinstance(node, ast.For) else None
            counted = (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "range"
                and 1 <= len(call.args) <= 2
                and isinstance(node.target, ast.Name)
                and not node.orelse
                and not any(isinstance(n, ast.Continue) for n in ast.walk(node))
            )
            if not counted:
                out.append(node)
                continue
            name = node.target.id
            start, stop = (ast.Constant(0), call.args[0]) if len(call.args) == 1 else call.args
            limit = _fresh(tree, "_stop")
            out += [
                ast.Assign([ast.Name(limit, ast.Store())], stop, lineno=0),
                ast.Assign([ast.Name(name, ast.Store())], start, lineno=0),
                ast.While(
                    ast.Compare(ast.Name(name, ast.Load()), [ast.Lt()], [ast.Name(limit, ast.Load())]),
                    [*node.body, ast.parse(f"{name} = {name} + 1").body[0]],
                    [],
                ),
            ]
        block[:] = out


def inverted_ifs(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """``if c: A else: B`` as ``if not c: B else: A``."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and node.orelse
            and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If))
        ):
            node.test = ast.UnaryOp(ast.Not(), node.test)
            node.body, node.orelse = node.orelse, node.body


def split_assign(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """``a, b = x, y`` as two assignments (when neither value reads a name assigned)."""
    for _, _, block in list(_bodies(tree)):
        out: list = []
        for node in block:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            pairs = (
                isinstance(target, ast.Tuple)
                and isinstance(node.value, ast.Tuple)
                and len(target.elts) == len(node.value.elts)
                and all(isinstance(t, ast.Name) for t in target.elts)
            )
            if pairs and not {t.id for t in target.elts} & _reads(node.value):
                out += [ast.Assign([t], v, lineno=0) for t, v in zip(target.elts, node.value.elts)]
            else:
                out.append(node)
        block[:] = out


def formatting(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """f-strings as concatenations of ``str()`` and ``format()`` calls."""

    class Concatenate(ast.NodeTransformer):
        def visit_JoinedStr(self, node):
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    parts.append(value)
                    continue
                if not isinstance(value, ast.FormattedValue) or (
                    value.format_spec and not isinstance(value.format_spec, ast.JoinedStr)
                ):
                    return node
                if value.format_spec and not all(isinstance(v, ast.Constant) for v in value.format_spec.values):
                    return node
                spec = "".join(v.value for v in value.format_spec.values) if value.format_spec else ""
                inner = value.value
                if value.conversion == ord("r"):
                    inner = ast.Call(ast.Name("repr", ast.Load()), [inner], [])
                elif value.conversion not in (-1, ord("s")):
                    return node
                parts.append(
                    ast.Call(ast.Name("format", ast.Load()), [inner, ast.Constant(spec)], [])
                    if spec
                    else ast.Call(ast.Name("str", ast.Load()), [inner], [])
                )
            if not parts:
                return node
            joined = parts[0]
            for part in parts[1:]:
                joined = ast.BinOp(joined, ast.Add(), part)
            return joined if not isinstance(joined, ast.Constant) or isinstance(joined.value, str) else node

    Concatenate().visit(tree)


def indexing(tree: ast.Module, keep: frozenset[str], rng: random.Random) -> None:
    """``for i, x in enumerate(seq):`` as ``items = list(seq)`` and ``for i in range(len(items)):
    x = items[i]``."""
    for _, _, block in list(_bodies(tree)):
        out: list = []
        for node in block:
            call = node.iter if isinstance(node, ast.For) else None
            target = node.target if isinstance(node, ast.For) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "enumerate"
                and len(call.args) == 1
                and not call.keywords
                and isinstance(target, ast.Tuple)
                and len(target.elts) == 2
                and all(isinstance(t, ast.Name) for t in target.elts)
            ):
                index, item = target.elts
                items = _fresh(tree, "_items")
                out.append(
                    ast.Assign(
                        [ast.Name(items, ast.Store())], ast.Call(ast.Name("list", ast.Load()), call.args, []), lineno=0
                    )
                )
                node.target = ast.Name(index.id, ast.Store())
                node.iter = ast.parse(f"range(len({items}))", mode="eval").body
                node.body.insert(0, ast.parse(f"{item.id} = {items}[{index.id}]").body[0])
            out.append(node)
        block[:] = out


#: (name, what it does), from the cheapest; applied in ``_ORDER``'s order whatever the choice.
EVASIONS = {
    "rename": rename,
    "reorder": reorder,
    "comments": comments,
    "pass": passes,
    "no-ops": no_ops,
    "augmented": augmented,
    "comparisons": comparisons,
    "imports": imports,
    "dead-code": dead_code,
    "loops": loops,
    "helpers": helpers,
    "swap": swap,
    # rewrites ``canonical`` does not undo: what they cost a copy is what the separation measures
    "while-loops": while_loops,
    "inverted-ifs": inverted_ifs,
    "split-assign": split_assign,
    "formatting": formatting,
    "indexing": indexing,
}
_ORDER = (
    "indexing",
    "while-loops",
    "inverted-ifs",
    "split-assign",
    "formatting",
    "helpers",
    "dead-code",
    "loops",
    "swap",
    "augmented",
    "comparisons",
    "no-ops",
    "pass",
    "imports",
    "reorder",
    "rename",
)


def disguise(source: str, chosen, keep: frozenset[str], rng: random.Random) -> str:
    """``source`` with the ``chosen`` evasions (names of ``EVASIONS``); ``keep``: the handout's names."""
    unknown = sorted(set(chosen) - set(EVASIONS))
    if unknown:
        raise ValueError(f"unknown evasion(s) {', '.join(unknown)}: choose among {', '.join(EVASIONS)}")
    tree = ast.parse(source)
    for name in _ORDER:
        if name in chosen:
            EVASIONS[name](tree, keep, rng)
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return comments(text, rng) if "comments" in chosen else text


def handout_names() -> frozenset[str]:
    """The names the handout's files define and their functions' parameters: never renamed."""
    from autograder.labkit import load
    from autograder.similarity import fingerprints

    return fingerprints.handout(list(fingerprints.handout_files(load.default()).values())).names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("evasions", nargs="*", default=list(EVASIONS), help=f"among: {', '.join(EVASIONS)}")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(
        disguise(args.file.read_text(encoding="utf-8"), args.evasions, handout_names(), random.Random(args.seed)),
        end="",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
