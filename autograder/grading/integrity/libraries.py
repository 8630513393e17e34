"""The library-use rule, in one place: metric code that uses an evaluation library
(the Lab's ``evaluation_libraries``) gets no credit for its file's checks, and the instructor is told.

Use is found three ways: the source is read (never run) for imports, including
``__import__("x")`` and ``importlib.import_module("x")``; imports named at run time are counted
(a way to hide one: flagged for a look by hand); and the child reports every attempt to import
one while it runs (inside the jail the libraries are also covered, so the attempt fails).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.grading.results import Flag, FlagKind
from autograder.labkit.lab import Lab


@dataclass(frozen=True)
class Scan:
    """What reading one graded file found."""

    libraries: tuple[str, ...] = ()  # evaluation libraries it imports, sorted
    dynamic: int = 0  # imports naming their module with something other than a constant string


def scan(lab: Lab, source: bytes) -> Scan:
    """The evaluation libraries (``lab``'s) ``source`` imports and how many imports it names at run time;
    an empty ``Scan`` when the source does not parse (or is too deeply nested to)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Scan()
    found: set[str] = set()
    dynamic = 0
    try:
        nodes = list(ast.walk(tree))
    except RecursionError:
        return Scan()
    for node in nodes:
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args:
            function = node.func
            called = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
            if called in ("__import__", "import_module"):
                argument = node.args[0]
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    names = [argument.value]
                elif not isinstance(argument, ast.Constant):
                    dynamic += 1
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in lab.evaluation_libraries)
    return Scan(tuple(sorted(found)), dynamic)


def used(lab: Lab, scans: dict[str, Scan], attempts: list[tuple[str, str]]) -> list[str]:
    """The evaluation libraries the rule's file uses: imported in its source, or tried while it
    was imported or one of its functions ran (``attempts``: ``(module, during)`` from the child)."""
    rule_file = lab.library_rule_file
    during_rule_file = {name for name, file in lab.functions.items() if file == rule_file} | {rule_file}
    found = set(scans.get(rule_file, Scan()).libraries)
    found |= {module.split(".")[0] for module, during in attempts if during in during_rule_file}
    return sorted(found)


def zeroed(lab: Lab, scans: dict[str, Scan], attempts: list[tuple[str, str]]) -> dict[str, str]:
    """``{graded file: why its checks get no credit}`` (empty when the rule holds)."""
    found = used(lab, scans, attempts)
    if not found:
        return {}
    return {
        lab.library_rule_file: f"no credit: {lab.package}/{lab.library_rule_file} uses {', '.join(found)}; this lab's "
        "metrics must be your own code, not an evaluation library's"
    }


def flags(lab: Lab, scans: dict[str, Scan], attempts: list[tuple[str, str]]) -> list[Flag]:
    """What the instructor is told: each file's imports, its run-time imports, each attempt."""
    found = [
        Flag(FlagKind.LIBRARY, f"{lab.package}/{name} imports {', '.join(scan_.libraries)}")
        for name, scan_ in scans.items()
        if scan_.libraries
    ]
    found += [
        Flag(
            FlagKind.LIBRARY,
            f"{lab.package}/{name} imports a module named at run time ({scan_.dynamic}x): check by hand",
        )
        for name, scan_ in scans.items()
        if scan_.dynamic
    ]
    for module, during in sorted(set(attempts)):
        found.append(Flag(FlagKind.LIBRARY, f"tried to import {module} while running {during or 'the submission'}"))
    return found
