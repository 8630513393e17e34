"""Reading a graded file's source (never running it) for evaluation-library imports."""

from __future__ import annotations

import ast

from autograder.isolation import BANNED_MODULES


def dynamic_imports(source: bytes) -> int:
    """How many imports name their module with something other than a constant string (a way
    to hide an evaluation library from ``library_imports``): the instructor is told."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return 0
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and not isinstance(node.args[0], ast.Constant):
            function = node.func
            called = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
            count += called in ("__import__", "import_module")
    return count


def library_imports(source: bytes) -> list[str]:
    """Evaluation libraries the source imports (``import x``, ``from x import``,
    ``__import__("x")``, ``importlib.import_module("x")``), sorted; [] if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            function = node.func
            called = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
            if called in ("__import__", "import_module") and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in BANNED_MODULES)
    return sorted(found)
