"""The layout's rules that import-linter cannot state: no import cycles, the child on the standard
library alone, small modules, empty package files, and no pointer to a document outside the
repository. (The layer contracts themselves run with `lint-imports`, in `make check`.)"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from autograder import paths

MODULES = sorted([*paths.PACKAGE.rglob("*.py"), *paths.LAB_PACKAGE.rglob("*.py")])  # the engine and Lab 05's package
CHILD = paths.PACKAGE / "sandbox" / "child"


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


def test_no_report_loads_the_sandbox():
    """Does importing every report module load no module of the sandbox? (They import the rubric and the
    similarity analysis for types only, which import-linter's contract for reports lets pass.)"""
    reports = sorted(_name(p) for p in (paths.PACKAGE / "reports").glob("*.py"))
    script = "import importlib, sys\n"
    script += f"for name in {reports!r}:\n    importlib.import_module(name)\n"
    script += "print('\\n'.join(sys.modules))"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=paths.ROOT)
    loaded = run.stdout.split()
    assert "autograder.reports.class_report" in loaded
    assert [name for name in loaded if name.startswith("autograder.sandbox")] == []


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


ENGINE = [
    path
    for folder in ("grading", "sandbox", "reports", "similarity", "platforms", "local", "lms", "labkit")
    for path in sorted((paths.PACKAGE / folder).rglob("*.py"))
]


def test_the_engine_names_no_lab_function():
    """Does no lab function's name appear anywhere in the engine (grading/, sandbox/, reports/,
    similarity/, platforms/, local/, lms/ and labkit/: code, comments or docstrings): the engine
    reads each function from its record?"""
    import re

    from autograder.lab.functions.registry import FUNCTIONS

    pattern = re.compile(r"\b(" + "|".join(map(re.escape, FUNCTIONS)) + r")\b")
    found = [
        f"{path.relative_to(paths.ROOT)}:{number}: {line.strip()[:80]}"
        for path in ENGINE
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert len(ENGINE) > 30 and found == []


#: The modules that compose, and so choose the lab (``labkit.load.default``: the one ``--lab`` or
#: ``$AUTOGRADER_LAB`` names): the CLI and the platforms' entry points. Every other module is handed it.
COMPOSERS = ("cli.py", "platforms/gradescope/entry.py", "platforms/prairielearn/entry.py")


def _loads_the_default_lab(source: str) -> list[int]:
    """The lines of ``source`` that take the environment's lab: ``load.default`` (``labkit.load``'s
    function, however reached) or an import of it by name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ("default", "or_default"):
            reached = node.value
            if (isinstance(reached, ast.Name) and reached.id == "load") or (
                isinstance(reached, ast.Attribute) and reached.attr == "load"
            ):
                found.append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "autograder.labkit.load"
            and any(alias.name in ("default", "or_default") for alias in node.names)
        ):
            found.append(node.lineno)
    return sorted(found)


DEFAULT_LAB_TAKEN = {
    "a-call": ("lab = load.default()\n", [1]),
    "a-call-through-labkit": ("import autograder.labkit\nlab = autograder.labkit.load.default()\n", [2]),
    "an-import-by-name": ("from autograder.labkit.load import default as chosen\n", [1]),
    "the-old-fallback": ("lab = load.or_default(None)\n", [1]),
    "a-lab-handed-in": ("def grade(lab):\n    return lab.title\n", []),
    "another-default": ("where = place.default()\nloaded = load.load(folder)\n", []),
}


@pytest.mark.parametrize("source, lines", DEFAULT_LAB_TAKEN.values(), ids=DEFAULT_LAB_TAKEN.keys())
def test_taking_the_environment_s_lab_is_recognised(source, lines):
    """Does the scan find every way of taking the environment's lab, and nothing else?"""
    assert _loads_the_default_lab(source) == lines


def test_only_the_composers_take_the_environment_s_lab():
    """Does no module of the grader but the CLI and the platforms' entry points take the environment's
    lab (``labkit.load.default``): is every engine function handed the lab it grades?"""
    taking = {
        path.relative_to(paths.PACKAGE).as_posix()
        for path in MODULES
        if not path.is_relative_to(paths.PACKAGE / "labkit")
        if _loads_the_default_lab(path.read_text(encoding="utf-8"))
    }
    assert taking == set(COMPOSERS)


def _imports_the_lab_by_name(source: str) -> list[int]:
    """The lines of ``source`` that import the environment's lab by its module name,
    ``autograder.lab`` (which ``labkit.load.activate`` makes): import-linter cannot see them, the
    module living outside the package."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            named = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        if any(name == "autograder.lab" or name.startswith("autograder.lab.") for name in named):
            found.append(node.lineno)
    return found


LAB_BY_NAME = {
    "a-module": ("from autograder.lab import spec\n", [1]),
    "the-package": ("from autograder import lab\n", [1]),
    "a-plain-import": ("import autograder.lab.cases\n", [1]),
    "labkit": ("from autograder.labkit import load\nfrom autograder.labkit.lab import Lab\n", []),
}


@pytest.mark.parametrize("source, lines", LAB_BY_NAME.values(), ids=LAB_BY_NAME.keys())
def test_importing_the_lab_by_name_is_recognised(source, lines):
    """Does the scan find every import of ``autograder.lab``, and not labkit's?"""
    assert _imports_the_lab_by_name(source) == lines


def test_no_module_of_the_grader_imports_the_lab_by_name():
    """Does no module of the grader (``autograder/``) import ``autograder.lab``: is the lab always
    handed in as a ``Lab``, whatever ``--lab`` chose?"""
    found = [
        f"{path.relative_to(paths.ROOT)}:{line}"
        for path in sorted(paths.PACKAGE.rglob("*.py"))
        for line in _imports_the_lab_by_name(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_every_record_is_whole_and_the_spec_is_made_of_them():
    """Is each graded function's record whole (what it takes, its random cases and their answers,
    its features, its run file), and are the spec's views of the API made from the records?"""
    from autograder.lab import spec
    from autograder.lab.functions.registry import FUNCTIONS

    assert {name: record.check() for name, record in FUNCTIONS.items() if record.check()} == {}
    assert list(spec.FUNCTIONS) == list(FUNCTIONS) and paths.student_package() == spec.PACKAGE
    assert {name: record.returns for name, record in FUNCTIONS.items()} == spec.RETURNS
    assert {name: record.kinds for name, record in FUNCTIONS.items()} == spec.KINDS_FOR


def test_an_incomplete_record_says_what_it_lacks():
    """Can the record check fail: does a record with random checks and no way to compute their
    answers, or a tuning parameter the engine does not know, say so?"""
    from autograder.labkit.kinds import CheckKind
    from autograder.labkit.record import GradedFunction

    broken = GradedFunction("f", "metrics.py", "a number", "Part I", (CheckKind.RANDOM,), takes=("depth",))
    problems = broken.check()
    assert any("depth" in problem for problem in problems) and any("random_cases" in problem for problem in problems)


WIDE = 5  # a dataclass of this many fields or more is built by keyword


def _init_fields(node: ast.ClassDef) -> list[str] | None:
    """The fields a dataclass's ``__init__`` takes (its own, not its bases'); None: not a dataclass."""
    decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
    if not any(getattr(d, "id", getattr(d, "attr", "")) == "dataclass" for d in decorators):
        return None
    fields = []
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        if ast.unparse(item.annotation).startswith(("ClassVar", "InitVar")):
            continue
        value = item.value
        if isinstance(value, ast.Call) and any(
            k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False for k in value.keywords
        ):
            continue
        fields.append(item.target.id)
    return fields


def _wide_dataclasses(trees: dict[Path, ast.Module]) -> set[str]:
    """The names of the package's dataclasses of ``WIDE`` fields or more (a name also given to a class
    that is not one, or to a narrower one, is left out: a call cannot be told apart by its name)."""
    widths: dict[str, list[int | None]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                fields = _init_fields(node)
                widths.setdefault(node.name, []).append(None if fields is None else len(fields))
    return {name for name, found in widths.items() if all(w is not None and w >= WIDE for w in found)}


def test_wide_dataclasses_are_built_by_keyword():
    """Is every dataclass of five fields or more built with its fields named (a positional call to
    one reads as a row of values whose meaning depends on the fields' order)?"""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in MODULES}
    wide = _wide_dataclasses(trees)
    assert len(wide) > 10  # the rule looks at something
    positional = [
        f"{path.relative_to(paths.ROOT)}:{node.lineno} {name}"
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and node.args
        and (name := getattr(node.func, "id", getattr(node.func, "attr", None))) in wide
    ]
    assert positional == []
