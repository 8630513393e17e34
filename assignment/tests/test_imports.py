"""Public check: your graded files import only what the autograder gives them.

The autograder runs ``lab05/metrics.py`` and ``lab05/runs.py`` with Python's standard library and
the packages below, nothing else: any other import fails there, and with it every function of the
file. This check reads your files (it does not run them) and names each import that would fail.
"""

import ast
import sys
from pathlib import Path

import pytest

ALLOWED = ("numpy",)  # besides the standard library (what your course allows, the same in the autograder)
GRADED = ("metrics.py", "runs.py")
LAB05 = Path(__file__).resolve().parent.parent / "lab05"


def imports(source: str) -> list:
    """``(line, top-level module)`` of every import in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


@pytest.mark.parametrize("name", GRADED)
def test_only_allowed_imports(name):
    """Does this graded file import only the standard library, numpy and lab05 itself?"""
    allowed = {*sys.stdlib_module_names, *ALLOWED, "lab05"}
    wrong = [
        f"line {line}: import {module}"
        for line, module in imports((LAB05 / name).read_text(encoding="utf-8"))
        if module not in allowed
    ]
    if wrong:
        pytest.fail(
            f"lab05/{name} imports what the autograder does not have: {'; '.join(wrong)}. Graded code may "
            f"import Python's standard library and {', '.join(ALLOWED)} only: remove these imports "
            "(use them in the notebook instead).",
            pytrace=False,
        )
