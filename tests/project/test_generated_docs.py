"""The generated documentation (tools/gendocs.py): the module tree, docs/CLI.md, grading.yml's
reference and JSON Schema, the settings per platform, the environment variables, the output files,
docs/DIAGNOSES.md's table of the notes' concepts."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from autograder import paths
from tools import gendocs


@pytest.mark.parametrize(
    "path",
    [
        gendocs.MODULES,
        gendocs.CLI,
        gendocs.GRADING_YML,
        gendocs.GRADING_SCHEMA,
        gendocs.PLATFORM_SETTINGS,
        gendocs.ENVIRONMENT,
        gendocs.OUTPUT_FILES,
        gendocs.DIAGNOSES,
        gendocs.CLASS_REPORT,
        *gendocs.INCLUDING,
    ],
    ids=[
        "module-tree",
        "cli-reference",
        "grading-yml-reference",
        "grading-yml-json-schema",
        "platform-settings",
        "environment-variables",
        "output-files",
        "concepts-table",
        "class-report-flags",
    ]
    + [f"includes-{page.stem}" for page in gendocs.INCLUDING],
)
def test_generated_docs_are_up_to_date(path: Path):
    """Does each generated document hold what the code says today (run tools/gendocs.py if not)?"""
    assert path.read_text(encoding="utf-8") == gendocs.expected()[path], f"{path.name}: run tools/gendocs.py"


#: id: (a page's text, what ``included`` makes of it)
INCLUDES = {
    "a stale copy replaced by the file": (
        "before\n<!-- include: deploy/slurm/merge.sbatch -->\nold text\n<!-- include:end -->\nafter\n",
        "before\n<!-- include: deploy/slurm/merge.sbatch -->\n```bash\n{merge}\n```\n<!-- include:end -->\nafter\n",
    ),
    "an empty block filled": (
        "<!-- include: deploy/slurm/merge.sbatch -->\n<!-- include:end -->",
        "<!-- include: deploy/slurm/merge.sbatch -->\n```bash\n{merge}\n```\n<!-- include:end -->",
    ),
    "no block: unchanged": ("no include here\n", "no include here\n"),
}


@pytest.mark.parametrize("case", INCLUDES.values(), ids=INCLUDES.keys())
def test_an_included_file_is_shown_as_it_is(case):
    """Does a page's include block hold the named file of the repository, whatever it held before?"""
    text, expected = case
    merge = (paths.ROOT / "deploy" / "slurm" / "merge.sbatch").read_text(encoding="utf-8").rstrip()
    assert gendocs.included(text) == expected.format(merge=merge)


def test_an_include_of_no_file_is_named():
    """Is an include naming no file of the repository refused, naming it?"""
    with pytest.raises(ValueError, match=re.escape("<!-- include: deploy/none.sbatch --> names no file")):
        gendocs.included("<!-- include: deploy/none.sbatch -->\n<!-- include:end -->")


def test_the_tree_follows_a_docstring_change(tmp_path: Path):
    """Does the tree change when a module's docstring does, and name a module that has none?"""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text('"""The package."""\n')
    (package / "sub" / "__init__.py").write_text('"""A sub-package. More words."""\n')
    (package / "mod.py").write_text('"""Does one thing. Then another."""\n')
    assert gendocs.module_tree(package) == (
        "pkg/".ljust(gendocs.COLUMN)
        + "The package.\n"
        + "  sub/".ljust(gendocs.COLUMN)
        + "A sub-package.\n"
        + "  mod.py".ljust(gendocs.COLUMN)
        + "Does one thing."
    )
    (package / "mod.py").write_text("x = 1\n")
    monkey_root = gendocs.ROOT
    gendocs.ROOT = tmp_path
    try:
        with pytest.raises(gendocs.MissingDocstring, match=r"pkg/mod\.py has no docstring"):
            gendocs.module_tree(package)
    finally:
        gendocs.ROOT = monkey_root


@pytest.mark.parametrize(
    ("docstring", "sentence"),
    [
        ("One. Two.", "One."),
        ("Uses e.g. this. Then.", "Uses e.g. this."),
        ("No full stop at all", "No full stop at all"),
        ("Wrapped\nline. Next", "Wrapped line."),
        ("First paragraph\n\nSecond. paragraph", "First paragraph"),
        ("Version 1.2 is fine. Next.", "Version 1.2 is fine."),
    ],
    ids=["two-sentences", "e.g.", "no-stop", "wrapped", "paragraph", "decimal"],
)
def test_first_sentence(docstring: str, sentence: str):
    """Is a module described by its docstring's first sentence, on one line?"""
    assert gendocs.first_sentence(docstring) == sentence


def test_the_cli_reference_lists_every_command():
    """Does docs/CLI.md have a section for every command of the parser, with its usage?"""
    from autograder import cli

    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    text = gendocs.cli_reference()
    for name in commands:
        assert f"\n## {name}\n" in text
        assert f"usage: python -m autograder {name}" in text


#: Paths the documents name that are not in the repository, on purpose.
ELSEWHERE = {
    "tests/grading.yml": "the PrairieLearn question's tests/ folder (dist/question/tests/)",
    "lab/functions/r_precision.py": "docs/ADDING.md's example of a new record",
}
_PATH = re.compile(r"(?<![\w./-])((?:[a-z_0-9]+/)+[a-z_0-9]+\.(?:py|json|yml|txt|md)|[a-z_0-9]+\.py)\b")


def _exists(name: str) -> bool:
    if (paths.ROOT / name).exists() or (paths.PACKAGE / name).exists():
        return True
    folders = (
        "autograder",
        "lab",
        "tests",
        "tools",
        "bench",
        "docs",
        "assignment",
        "solutions",
        "examples",
        "requirements",
    )
    return any(True for folder in folders for _ in (paths.ROOT / folder).glob(f"**/{name}"))


def test_documents_name_only_files_that_exist():
    """Does every file path that README.md, docs/*.md and grading.yml's comments name exist
    (relative to the repository, to autograder/, or below either), so a moved module cannot
    leave a stale pointer behind?"""
    documents = [paths.ROOT / "README.md", paths.ROOT / "grading.yml", *sorted((paths.ROOT / "docs").rglob("*.md"))]
    stale = [
        f"{document.name}:{number}: {match.group(1)}"
        for document in documents
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1)
        for match in _PATH.finditer(line)
        if match.group(1) not in ELSEWHERE and not _exists(match.group(1))
    ]
    assert stale == []


def test_the_path_search_can_fail():
    """Would a stale module name be caught (the search is not vacuous)?"""
    assert _PATH.findall("see `grading/runchecks.py` and probes.py") == ["grading/runchecks.py", "probes.py"]
    assert not _exists("grading/runchecks.py") and not _exists("probes.py")
    assert _exists("grading/runfile_checks.py") and _exists("toy_measures.py")


#: ``path.py: name`` (more names after commas, in the same backticks or in their own): what a
#: document says a module defines.
_NAMED = re.compile(
    r"`((?:[a-z_0-9]+/)*[a-z_0-9]+\.py): ([A-Za-z_][\w.]*(?:, [A-Za-z_][\w.]*)*)`((?:, `[A-Za-z_][\w.]*`)*)"
)


def _defined(path: Path) -> set[str]:
    """The names a module defines: top-level functions, classes, assignments and imports, and
    ``Class.member`` for a class's methods and fields."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.add(f"{node.name}.{member.name}")
                elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                    found.add(f"{node.name}.{member.target.id}")
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        found |= {target.id for target in targets if isinstance(target, ast.Name)}
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return found


def _module(name: str) -> Path | None:
    """The one Python file a document's ``name`` points to (None when several or none)."""
    for base in (paths.ROOT, paths.PACKAGE):
        if (base / name).is_file():
            return base / name
    found = [path for path in paths.PACKAGE.glob(f"**/{name}") if "__pycache__" not in path.parts]
    return found[0] if len(found) == 1 else None


def _named(text: str) -> list[tuple[str, str]]:
    """Every (module, name) a document's ``path.py: name`` references give."""
    pairs = []
    for match in _NAMED.finditer(text):
        names = match.group(2).split(", ") + re.findall(r"`([^`]+)`", match.group(3))
        pairs += [(match.group(1), name) for name in names]
    return pairs


def test_documents_name_only_what_modules_define():
    """Does every ``module.py: name`` that README.md and docs/*.md give name something that module
    defines (a function, class, constant, ``Class.member``), so a moved function cannot leave a
    stale pointer behind?"""
    documents = [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").rglob("*.md"))]
    stale = []
    for document in documents:
        for module, name in _named(document.read_text(encoding="utf-8")):
            path = _module(module)
            if module not in ELSEWHERE and (path is None or name not in _defined(path)):
                stale.append(f"{document.name}: {module}: {name}")
    assert stale == []


def test_the_name_search_can_fail():
    """Would a function named in the wrong module be caught (the search is not vacuous)?"""
    text = "`local/batch.py: _seed`, `_derived` and `lms/roster.py: match, pick`"
    assert _named(text) == [
        ("local/batch.py", "_seed"),
        ("local/batch.py", "_derived"),
        ("lms/roster.py", "match"),
        ("lms/roster.py", "pick"),
    ]
    assert "_seed" not in _defined(_module("local/batch.py")) and "_seed" in _defined(_module("local/resume.py"))
    assert "match" in _defined(_module("lms/roster.py"))


def test_every_flag_is_explained_in_the_class_report_page():
    """Does docs/CLASS_REPORT.md's table give every flag prefix the grader can raise a meaning?"""
    from autograder.grading.vocabulary import FLAG_MEANINGS, FlagKind

    page = gendocs.class_report_page()
    assert set(FLAG_MEANINGS) == set(FlagKind)
    for kind in FlagKind:
        assert f"| `{kind.value}:` | {FLAG_MEANINGS[kind]} |" in page, kind
