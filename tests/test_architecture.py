"""The layout's rules that import-linter cannot state: no import cycles, the child on the standard
library alone, small modules, empty package files, and no pointer to a document outside the
repository. (The layer contracts themselves run with `lint-imports`, in `make check`.)"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp
import pytest

from autograder import paths

MODULES = sorted(paths.PACKAGE.rglob("*.py"))
CHILD = paths.PACKAGE / "sandbox" / "child"
MAX_LINES = 400


def _name(path: Path) -> str:
    parts = path.relative_to(paths.ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_cycles():
    """Is the grader's import graph free of cycles (at module level and between packages)?"""
    graph = grimp.build_graph("autograder")
    modules = sorted(graph.modules)
    cycles = []
    for module in modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(imported=module, importer=imported):
                cycles.append((module, imported))
    assert cycles == []


@pytest.mark.parametrize("path", sorted(CHILD.glob("*.py")), ids=lambda p: p.name)
def test_child_imports_only_the_standard_library(path):
    """Does every import in the sandbox's child programs name a standard-library module (or a
    sibling child module, found by path before the child encloses itself)?"""
    siblings = {p.stem for p in CHILD.glob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            found.add((node.module or "").split(".")[0])
    assert sorted(found - set(sys.stdlib_module_names) - siblings) == []


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_module_is_small(path):
    """Is every module at most 400 lines?"""
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


@pytest.mark.parametrize("path", [p for p in MODULES if p.name == "__init__.py"], ids=_name)
def test_package_file_holds_only_a_docstring(path):
    """Is every __init__.py a docstring and nothing else (no logic, no re-exports)?"""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    assert len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def test_no_grab_bag_modules():
    """Are modules named by their role (no utils, helpers, misc, common)?"""
    assert [p for p in MODULES if p.stem in ("utils", "util", "helpers", "misc", "common")] == []


def test_nothing_points_outside_the_repository():
    """Does no code, message or document name a file outside the repository (DESIGN.md, ../shared)?"""
    texts = [
        *MODULES,
        *paths.ROOT.glob("*.md"),
        *paths.ROOT.glob("docs/*.md"),
        paths.RUBRIC,
        *(paths.HANDOUT / "lab05").glob("*.py"),
        *paths.SOLUTIONS.rglob("*.py"),
    ]
    offending = [
        str(p.relative_to(paths.ROOT))
        for p in texts
        if "DESIGN.md" in p.read_text(encoding="utf-8") or "lab05-notes.txt" in p.read_text(encoding="utf-8")
    ]
    assert offending == []
