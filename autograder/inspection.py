"""Reading a graded file's source (never running it) for evaluation-library imports."""

from __future__ import annotations

import ast

from autograder.isolation import BANNED_MODULES


def imports(source: bytes) -> tuple[list[str], int]:
    """``(libraries, dynamic)``: the evaluation libraries the source imports (``import x``,
    ``from x import``, ``__import__("x")``, ``importlib.import_module("x")``), sorted, and how
    many imports name their module with something other than a constant string (a way to hide
    one: the instructor is told). ``([], 0)`` when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [], 0
    found, dynamic = set(), 0
    for node in ast.walk(tree):
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
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in BANNED_MODULES)
    return sorted(found), dynamic
