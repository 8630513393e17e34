"""The documentation that is generated, so that it cannot drift from the code.

- ``docs/MODULES.md``: the module tree, every package and module of ``autograder/``, each with the
  first sentence of its docstring. A module without a docstring is an error.
- ``docs/CLI.md``: the command line's reference, from its parser (each command's usage and
  help, as ``--help`` prints them).
- ``docs/DIAGNOSES.md``'s table of the notes' concepts (between ``<!-- concepts:begin -->`` and
  ``<!-- concepts:end -->``), from ``autograder/lab/concepts.py``.
- ``docs/GRADING_YML.md`` and ``docs/grading.schema.json``: grading.yml's reference (every key,
  its type, default and meaning) and its JSON Schema, from the models of
  ``autograder/grading/rubric_schema.py``.
- ``docs/PLATFORM_SETTINGS.md``: which of grading.yml's class settings each platform applies, from
  ``autograder/platforms/common/setting_support.py`` (what each build prints).
- ``docs/ENVIRONMENT.md``: the environment variables, from ``autograder/environment.py``.
- ``docs/OUTPUT_FILES.md``: the files a batch and the platforms write and their fields, from the
  docstrings of the modules that write them and ``grades.csv``'s header as it is written.
- The files a page includes (``INCLUDING``): between ``<!-- include: PATH -->`` and
  ``<!-- include:end -->``, the repository's file PATH in a code fence (the scripts and manifests
  docs/SCALING.md shows are the files the tests run, never a copy of them).

    .venv/bin/python tools/gendocs.py           # rewrite them
    .venv/bin/python tools/gendocs.py --check   # exit 1 and name what differs (tests run this)
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODULES = ROOT / "docs" / "MODULES.md"
PLATFORM_SETTINGS = ROOT / "docs" / "PLATFORM_SETTINGS.md"
ENVIRONMENT = ROOT / "docs" / "ENVIRONMENT.md"
OUTPUT_FILES = ROOT / "docs" / "OUTPUT_FILES.md"
CLI = ROOT / "docs" / "CLI.md"
GRADING_YML = ROOT / "docs" / "GRADING_YML.md"
DIAGNOSES = ROOT / "docs" / "DIAGNOSES.md"
CONCEPTS_BEGIN, CONCEPTS_END = "<!-- concepts:begin -->", "<!-- concepts:end -->"
GRADING_SCHEMA = ROOT / "docs" / "grading.schema.json"
INCLUDING = (ROOT / "docs" / "SCALING.md",)  # the pages that include files
INCLUDE = re.compile(r"<!-- include: (\S+) -->\n.*?<!-- include:end -->", re.DOTALL)
FENCES = {".sbatch": "bash", ".sh": "bash", ".yaml": "yaml", ".yml": "yaml"}
CLASS_REPORT = ROOT / "docs" / "CLASS_REPORT.md"
FLAGS_BEGIN = "<!-- flags-table: made from grading/vocabulary.py: FLAG_MEANINGS by tools/gendocs.py -->"
FLAGS_END = "<!-- /flags-table -->"
WIDTH = 100  # characters per line of the tree
COLUMN = 34  # where the descriptions start


class MissingDocstring(ValueError):
    """A module of the package has no docstring: the tree would have nothing to say of it."""


def first_sentence(docstring: str) -> str:
    """The docstring's first sentence, on one line: up to the first full stop that ends a
    sentence (followed by a space or the end), or the whole first paragraph."""
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    match = re.search(r"(?<!e\.g)(?<!i\.e)(?<!\bvs)\.(\s|$)", paragraph)
    return paragraph[: match.start() + 1] if match else paragraph


def _docstring(path: Path) -> str:
    text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not text:
        raise MissingDocstring(f"{path.relative_to(ROOT)} has no docstring: add one saying what the module is for")
    return text


def _entry(name: str, depth: int, text: str) -> list[str]:
    head = "  " * depth + name
    lines = textwrap.wrap(text, WIDTH - COLUMN) or [""]
    if len(head) >= COLUMN - 1:
        out = [head]
    else:
        out = [head.ljust(COLUMN) + lines.pop(0)]
    return out + [" " * COLUMN + line for line in lines]


def module_tree(package: Path) -> str:
    """The tree of ``package``: folders first, then modules, each sorted by name; a package is
    described by its ``__init__.py``."""
    lines = _entry(package.name + "/", 0, first_sentence(_docstring(package / "__init__.py")))

    def walk(folder: Path, depth: int) -> None:
        subpackages = sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file())
        modules = sorted(p for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
        for sub in subpackages:
            lines.extend(_entry(sub.name + "/", depth, first_sentence(_docstring(sub / "__init__.py"))))
            walk(sub, depth + 1)
        for module in modules:
            lines.extend(_entry(module.name, depth, first_sentence(_docstring(module))))

    walk(package, 1)
    return "\n".join(lines)


def modules_page(tree: str) -> str:
    """docs/MODULES.md: the package's tree in a code fence, under a few words on how to read it."""
    return "\n".join(
        [
            "# The modules",
            "",
            "Generated by `tools/gendocs.py` from each module's docstring (a test fails when it differs): every",
            "package and module of `autograder/`, with the first sentence of its docstring. How they fit",
            "together, and where each rule lives: [the architecture](ARCHITECTURE.md).",
            "",
            "```",
            tree,
            "```",
            "",
        ]
    )


def platform_settings() -> str:
    """docs/PLATFORM_SETTINGS.md: the settings x platform table, as the builds print it in short."""
    from autograder.platforms.common import setting_support

    return "\n".join(
        [
            "# What applies where",
            "",
            "Generated by `tools/gendocs.py` from `autograder/platforms/common/setting_support.py`, the one",
            "declaration of which class setting of `grading.yml` each platform applies (a test fails when it",
            "differs). Every `build` prints the same table in short, then a `note:` for each setting its",
            "platform cannot apply in full; of a setting its `grading.yml` leaves out (no `deadline:`, a",
            "`penalty` of 0, no `attempts:`) it says `not set`, and gives no note.",
            "",
            "<!-- settings-table: made from setting_support.table() -->",
            setting_support.table() + "<!-- /settings-table -->",
            "",
            "The keys are explained in [grading.yml's reference](GRADING_YML.md).",
            "",
        ]
    )


def flags_table() -> str:
    """Every flag's prefix and what it tells, from where the flags are declared."""
    from autograder.grading.vocabulary import FLAG_MEANINGS, FlagKind

    missing = [kind.value for kind in FlagKind if kind not in FLAG_MEANINGS]
    if missing:
        raise ValueError(f"gendocs: FLAG_MEANINGS says nothing of the flags {missing}: add what each tells")
    rows = [f"| `{kind.value}:` | {FLAG_MEANINGS[kind]} |" for kind in FlagKind]
    return "\n".join(["| flag | what it tells |", "|---|---|", *rows]) + "\n"


def class_report_page() -> str:
    """docs/CLASS_REPORT.md, written by hand but for its table of flags (between its markers)."""
    text = CLASS_REPORT.read_text(encoding="utf-8")
    head, found, rest = text.partition(FLAGS_BEGIN + "\n")
    _, ended, tail = rest.partition(FLAGS_END)
    if not (found and ended):
        raise ValueError(f"gendocs: {CLASS_REPORT.name} lacks the markers {FLAGS_BEGIN} and {FLAGS_END}")
    return head + FLAGS_BEGIN + "\n" + flags_table() + FLAGS_END + tail


def environment_page() -> str:
    """docs/ENVIRONMENT.md: every environment variable, what it sets, from autograder/environment.py."""
    from autograder import environment

    parts = [
        "# Environment variables",
        "",
        "Generated by `tools/gendocs.py` from `autograder/environment.py`, where each is declared once (a",
        f"test fails when it differs). Each is `{environment.PREFIX}<NAME>`; the old name",
        f"`{environment.OLD_PREFIX}<NAME>` is still read, with a one-line warning naming the new one.",
        "",
        "| variable | what it sets |",
        "|---|---|",
    ]
    parts += [f"| `{environment.name(name)}` | {_cell(text)} |" for name, text in environment.VARIABLES.items()]
    return "\n".join(parts) + "\n"


def _described(module: Any) -> str:
    """A module's docstring as Markdown paragraphs (its reST double backticks made single)."""
    text = textwrap.dedent(module.__doc__ or "").strip()
    return text.replace("``", "`")


def output_files() -> str:
    """docs/OUTPUT_FILES.md: where a batch's files are, and each file's fields, from the modules that
    write them."""
    from autograder.grading import rubric
    from autograder.labkit import load
    from autograder.reports import grades_csv, gradescope_json, output_paths, prairielearn_json

    lab = load.default()
    listing = (output_paths.__doc__ or "").split("\n\n")
    header = grades_csv.render([], rubric.load(lab.place.rubric, lab)).strip()
    return "\n".join(
        [
            "# Output files",
            "",
            "Generated by `tools/gendocs.py` from the modules that write each file (a test fails when it",
            "differs).",
            "",
            "## A batch's folder (`grade --out OUT`)",
            "",
            "From `autograder/reports/output_paths.py`:",
            "",
            "```",
            textwrap.dedent(listing[1]).strip() if len(listing) > 1 else "",
            "```",
            "",
            " ".join(" ".join(part.split()) for part in listing[2:]),
            "",
            "## `grades.csv`",
            "",
            _described(grades_csv),
            "",
            "Its header, for this repository's `grading.yml` (a column per question between `penalty` and `total`):",
            "",
            "```",
            header,
            "```",
            "",
            "## `results.json` (Gradescope, and a local batch's)",
            "",
            _described(gradescope_json),
            "",
            "## `results.json` (PrairieLearn)",
            "",
            _described(prairielearn_json),
            "",
        ]
    )


def concepts_table(text: str) -> str:
    """``text`` with the block between the concepts markers replaced by the lab's concepts table."""
    from autograder.labkit import load

    concepts = load.default().concepts

    if CONCEPTS_BEGIN not in text or CONCEPTS_END not in text:
        raise ValueError(f"{DIAGNOSES.relative_to(ROOT)} lacks the markers {CONCEPTS_BEGIN} and {CONCEPTS_END}")
    rows = [
        "| concept | in a few words | what the notes say | where | functions | decided on |",
        "|---|---|---|---|---|---|",
    ]
    for concept in concepts.CONCEPTS.values():
        cells = (
            f"`{concept.id}`",
            concept.name,
            concept.statement,
            concept.part,
            ", ".join(f"`{name}`" for name in concept.functions),
            ", ".join(f"`{name}`" for name in concept.features),
        )
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    head, rest = text.split(CONCEPTS_BEGIN, 1)
    _, tail = rest.split(CONCEPTS_END, 1)
    return f"{head}{CONCEPTS_BEGIN}\n" + "\n".join(rows) + f"\n{CONCEPTS_END}{tail}"


def included(text: str) -> str:
    """``text`` with each included file's block holding the file as it is, in a code fence."""

    def block(match: re.Match[str]) -> str:
        path = ROOT / match.group(1)
        if not path.is_file():
            raise ValueError(f"{match.group(0).splitlines()[0]} names no file of the repository: fix the path")
        content = path.read_text(encoding="utf-8")
        fence = FENCES.get(path.suffix, "")
        return f"<!-- include: {match.group(1)} -->\n```{fence}\n{content.rstrip()}\n```\n<!-- include:end -->"

    return INCLUDE.sub(block, text)


def _help(parser: argparse.ArgumentParser) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        parser.print_help()
    return out.getvalue().rstrip()


def cli_reference() -> str:
    """docs/CLI.md: the program's help, then each command's, in the parser's order."""
    os.environ["COLUMNS"] = str(WIDTH)  # argparse wraps to the terminal; the reference must not depend on it
    from autograder import cli

    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = [
        "# The command line",
        "",
        "Generated from the parser by `tools/gendocs.py` (a test fails when it differs); each command's",
        "`--help` says the same.",
        "",
        "```",
        _help(parser),
        "```",
    ]
    for name, sub in commands.choices.items():
        parts += ["", f"## {name}", "", "```", _help(sub), "```"]
    return "\n".join(parts) + "\n"


def grading_schema() -> str:
    """docs/grading.schema.json: grading.yml's JSON Schema, from its models."""
    from autograder.grading import rubric_schema

    return json.dumps(rubric_schema.json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


_TYPES = {"string": "text", "integer": "whole number", "number": "number", "boolean": "true or false"}


def _kind(field: dict[str, Any]) -> str:
    """A JSON Schema property's type, in words."""
    if "$ref" in field:
        return "mapping (its section below)"
    if "anyOf" in field:
        return " or ".join(_kind(option) for option in field["anyOf"] if option.get("type") != "null")
    kind = field.get("type", "")
    if kind == "array":
        return f"list of {_kind(field['items'])}"
    if kind == "object":
        return f"mapping of ids to {_kind(field['additionalProperties'])}"
    return _TYPES.get(kind, kind)


def _allowed(field: dict[str, Any]) -> str:
    """What a property's value may be, beyond its type."""
    bounds = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "minItems": "items >="}
    words = [f"{sign} {field[key]}" for key, sign in bounds.items() if key in field]
    if "enum" in field:
        words.append("one of " + ", ".join(f"`{value}`" for value in field["enum"] if value is not None))
    return "; ".join(words) or "any"


def _sections(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each mapping of grading.yml as (its path, its schema), the top level first, then in the
    order the keys come."""
    found = [("grading.yml", schema)]
    for path, section in found:
        for key, field in section["properties"].items():
            options = [field, *field.get("anyOf", []), field.get("items", {}), field.get("additionalProperties", {})]
            for option in options:
                if isinstance(option, dict) and "$ref" in option:
                    inner = {"items": ".<n>", "additionalProperties": ".<id>"}.get(_holder(field, option), "")
                    where = key if path == "grading.yml" else f"{path}.{key}"
                    found.append((where + inner, schema["$defs"][option["$ref"].split("/")[-1]]))
    return found


def _holder(field: dict[str, Any], option: dict[str, Any]) -> str:
    """Which part of ``field`` holds ``option``: its list's items, its mapping's values, or itself ("")."""
    return next((part for part in ("items", "additionalProperties") if field.get(part) is option), "")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def grading_reference() -> str:
    """docs/GRADING_YML.md: every key of grading.yml, its type, what it may be, its default and what it
    means, section by section."""
    from autograder.grading import rubric_schema

    schema = rubric_schema.json_schema()
    parts = [
        "# grading.yml",
        "",
        "Generated by `tools/gendocs.py` from the models of `autograder/grading/rubric_schema.py`, as is",
        "its JSON Schema, `docs/grading.schema.json` (a test fails when either differs). A function's",
        "name, a kind of check and a visibility are text here: the lab says which it has, and",
        "grading.yml is checked against them when it is loaded. Each section below is named by its",
        "path, as an error names a key: `questions.q2.checks.1.kind` is the kind of q2's second check.",
    ]
    for path, section in _sections(schema):
        required = set(section.get("required", ()))
        parts += ["", f"## `{path}`", "", _cell(section.get("description", "")), ""]
        parts += ["| key | type | allowed | default | meaning |", "|---|---|---|---|---|"]
        for key, field in section["properties"].items():
            default = "required" if key in required else f"`{json.dumps(field.get('default'))}`"
            meaning = field.get("description") or schema["$defs"][field["$ref"].split("/")[-1]]["description"]
            cells = (f"`{key}`", _kind(field), _allowed(field), default, meaning)
            parts.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(parts) + "\n"


def expected() -> dict[Path, str]:
    """Each generated file and the text it should hold."""
    tree = module_tree(ROOT / "autograder") + "\n\n" + module_tree(ROOT / "lab")  # the engine, then Lab 05's package
    return {
        MODULES: modules_page(tree),
        CLI: cli_reference(),
        GRADING_YML: grading_reference(),
        DIAGNOSES: concepts_table(DIAGNOSES.read_text(encoding="utf-8")),
        GRADING_SCHEMA: grading_schema(),
        PLATFORM_SETTINGS: platform_settings(),
        ENVIRONMENT: environment_page(),
        OUTPUT_FILES: output_files(),
        **{page: included(page.read_text(encoding="utf-8")) for page in INCLUDING},
        CLASS_REPORT: class_report_page(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the files are up to date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in expected().items():
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    for path in stale:
        verb = "is out of date: run tools/gendocs.py" if args.check else "rewritten"
        print(f"{path.relative_to(ROOT)} {verb}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
