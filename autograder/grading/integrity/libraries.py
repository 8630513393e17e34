"""The library-use rule, in one place: metric code that uses an evaluation library
(``spec.EVALUATION_LIBRARIES``) gets no credit for its file's checks, and the instructor is told.

Use is found three ways: the source is read (never run) for imports, including
``__import__("x")`` and ``importlib.import_module("x")``; imports named at run time are counted
(a way to hide one: flagged for a look by hand); and the child reports every attempt to import
one while it runs (inside the jail the libraries are also covered, so the attempt fails).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.grading.results import Flag, FlagKind
from autograder.lab.spec import EVALUATION_LIBRARIES, FUNCTIONS, LIBRARY_RULE_FILE, PACKAGE


@dataclass(frozen=True)
class Scan:
    """What reading one graded file found."""

    libraries: tuple[str, ...] = ()  # evaluation libraries it imports, sorted
    dynamic: int = 0  # imports naming their module with something other than a constant string


def scan(source: bytes) -> Scan:
    """The evaluation libraries ``source`` imports and how many imports it names at run time;
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
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in EVALUATION_LIBRARIES)
    return Scan(tuple(sorted(found)), dynamic)


def used(scans: dict[str, Scan], attempts: list[tuple[str, str]]) -> list[str]:
    """The evaluation libraries the rule's file uses: imported in its source, or tried while it
    was imported or one of its functions ran (``attempts``: ``(module, during)`` from the child)."""
    during_rule_file = {name for name, file in FUNCTIONS.items() if file == LIBRARY_RULE_FILE} | {LIBRARY_RULE_FILE}
    found = set(scans.get(LIBRARY_RULE_FILE, Scan()).libraries)
    found |= {module.split(".")[0] for module, during in attempts if during in during_rule_file}
    return sorted(found)


def zeroed(scans: dict[str, Scan], attempts: list[tuple[str, str]]) -> dict[str, str]:
    """``{graded file: why its checks get no credit}`` (empty when the rule holds)."""
    found = used(scans, attempts)
    if not found:
        return {}
    return {
        LIBRARY_RULE_FILE: f"no credit: {PACKAGE}/{LIBRARY_RULE_FILE} uses {', '.join(found)}; this lab's "
        "metrics must be your own code, not an evaluation library's"
    }


def flags(scans: dict[str, Scan], attempts: list[tuple[str, str]]) -> list[Flag]:
    """What the instructor is told: each file's imports, its run-time imports, each attempt."""
    found = [
        Flag(FlagKind.LIBRARY, f"{PACKAGE}/{name} imports {', '.join(scan_.libraries)}")
        for name, scan_ in scans.items()
        if scan_.libraries
    ]
    found += [
        Flag(FlagKind.LIBRARY, f"{PACKAGE}/{name} imports a module named at run time ({scan_.dynamic}x): check by hand")
        for name, scan_ in scans.items()
        if scan_.dynamic
    ]
    for module, during in sorted(set(attempts)):
        found.append(Flag(FlagKind.LIBRARY, f"tried to import {module} while running {during or 'the submission'}"))
    return found
