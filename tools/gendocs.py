"""The documentation that is generated, so that it cannot drift from the code.

- ``docs/ARCHITECTURE.md``'s module tree (between ``<!-- modules:begin -->`` and
  ``<!-- modules:end -->``): every package and module of ``autograder/``, each with the first
  sentence of its docstring. A module without a docstring is an error.
- ``docs/CLI.md``: the command line's reference, from its parser (each command's usage and
  help, as ``--help`` prints them).
- ``docs/GRADING_YML.md`` and ``docs/grading.schema.json``: grading.yml's reference (every key,
  its type, default and meaning) and its JSON Schema, from the models of
  ``autograder/grading/rubric_schema.py``.

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

ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
CLI = ROOT / "docs" / "CLI.md"
GRADING_YML = ROOT / "docs" / "GRADING_YML.md"
GRADING_SCHEMA = ROOT / "docs" / "grading.schema.json"
BEGIN, END = "<!-- modules:begin -->", "<!-- modules:end -->"
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


def architecture(text: str, tree: str) -> str:
    """``text`` with the block between the markers replaced by ``tree`` in a code fence."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{ARCHITECTURE.relative_to(ROOT)} lacks the markers {BEGIN} and {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n```\n{tree}\n```\n{END}{tail}"


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
        ARCHITECTURE: architecture(ARCHITECTURE.read_text(encoding="utf-8"), tree),
        CLI: cli_reference(),
        GRADING_YML: grading_reference(),
        GRADING_SCHEMA: grading_schema(),
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
