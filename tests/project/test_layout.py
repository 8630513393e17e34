"""The tests' own layout: tests/ mirrors autograder/ (a test lives where the code it tests lives),
every folder of tests is a package, the helpers are ``tests.support``, and no test module edits
sys.path (pytest puts the repository's root on it, so ``from tests.support import subs`` works from
every folder)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder import paths

TESTS = paths.ROOT / "tests"
#: folders of tests/ that hold data, never test modules (sample submissions there are not tests)
DATA = {"axe", "fixtures", "golden"}
#: folders of tests/ that mirror no package of autograder/, and why
CROSS_CUTTING = {
    "support": "the helpers the tests share",
    "end_to_end": "hostile submissions graded through every platform",
    "project": "the repository's own rules (architecture, documents, layout, benchmark)",
}
SOURCES = sorted(p for p in TESTS.rglob("*.py") if p.relative_to(TESTS).parts[0] not in DATA)
FOLDERS = sorted({p.parent for p in SOURCES})

#: calls that change the list of folders imports are searched in
_EDITS = {"insert", "append", "extend", "remove", "pop", "clear"}


def path_edits(source: str) -> list[int]:
    """The lines of ``source`` whose code (not its strings) changes sys.path or adds a site folder."""
    tree = ast.parse(source)
    modules = {"sys"} | {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "sys" and alias.asname
    }
    bare = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "sys"
        for alias in node.names
        if alias.name == "path"
    }

    def is_path(node: ast.expr) -> bool:
        if isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Name):
            return node.id in bare
        return isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) in modules

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if (node.func.attr in _EDITS and is_path(node.func.value)) or node.func.attr == "addsitedir":
                lines.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(is_path(target) for target in targets):
                lines.append(node.lineno)
    return sorted(lines)


EDITS = [
    pytest.param("import sys\nsys.path.insert(0, 'tests')\n", [2], id="insert"),
    pytest.param("import sys as _sys\nif True:\n    _sys.path.append('x')\n", [3], id="append-under-an-alias"),
    pytest.param("import sys\nsys.path[:0] = ['x', 'y']\n", [2], id="slice-assignment"),
    pytest.param("import sys\nsys.path += ['x']\n", [2], id="augmented-assignment"),
    pytest.param("import sys\nsys.path = ['x']\n", [2], id="replaced"),
    pytest.param("from sys import path\npath.extend(['x'])\n", [2], id="from-sys-import-path"),
    pytest.param("import site\nsite.addsitedir('x')\n", [2], id="site-folder"),
    pytest.param("CHILD = 'import sys; sys.path.insert(0, \"x\")'\n", [], id="in-a-child-s-source"),
    pytest.param("import sys\nprint(sys.path[0], list(sys.path_importer_cache))\n", [], id="read-only"),
    pytest.param("import os\nparts = []\nparts.append(os.path.join('a', 'b'))\n", [], id="os-path"),
]


@pytest.mark.parametrize(("source", "lines"), EDITS)
def test_path_edits_are_found(source, lines):
    """Does the search find each way code can change sys.path, and nothing in strings or reads?"""
    assert path_edits(source) == lines


def test_no_test_module_edits_sys_path():
    """Does no module of tests/ (data aside) change sys.path? The helpers are imported as
    ``tests.support``; tools/ and bench/ as namespace packages from the repository's root."""
    edits = {str(p.relative_to(TESTS)): path_edits(p.read_text(encoding="utf-8")) for p in SOURCES}
    assert {name: lines for name, lines in edits.items() if lines} == {}


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(paths.ROOT)))
def test_every_folder_of_tests_is_a_package(folder: Path):
    """Has every folder of test modules an __init__.py that holds a docstring and nothing else (so
    that two folders may hold a test module of the same name)?"""
    init = folder / "__init__.py"
    assert init.is_file(), f"{init.relative_to(paths.ROOT)} is missing: add one with a docstring"
    body = ast.parse(init.read_text(encoding="utf-8")).body
    assert len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def test_tests_mirror_the_package():
    """Does every test module live in a folder named after a package of autograder/ or the lab's
    package, lab/ (or one of the cross-cutting folders), and none directly in tests/?"""
    packages = {p.parent.name for p in paths.PACKAGE.glob("*/__init__.py")} | {paths.LAB_PACKAGE.name}
    misplaced = [
        str(p.relative_to(TESTS))
        for p in SOURCES
        if p.name.startswith("test_")
        and (p.parent == TESTS or p.relative_to(TESTS).parts[0] not in packages | set(CROSS_CUTTING))
    ]
    assert misplaced == [], f"move them to tests/<package>/ or one of {sorted(CROSS_CUTTING)}"
