"""The analysis file's shape, declared once: ``analysis.yml`` read as untrusted student input
(``yaml`` safe loading, a size cap, no anchors or aliases, a pydantic schema) into claims.

A claim is about one query: the measure, both systems' values, which system is better, and
the documents that explain the difference, each with its grade and its rank in each system's
run; optionally (``runs``) the student's own run file a system's facts come from. What the lab
names (its systems, its measures) comes in the validation's context, from the reference
collection the claims are checked against (``facts.py``). A file that is not valid
gets one message naming its line, the field's path, the value found and what is allowed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from autograder.errors import InputError

MAX_BYTES = 64 << 10  # an analysis is a few KiB
MAX_CLAIMS = 10  # the notes ask for two queries
MAX_DOCUMENTS = 20  # documents per claim: the ones that explain the difference, not the whole ranking
TIE = "tie"  # what ``better`` says when both systems have the same value
#: a run file a claim names (``runs``): a file name of the submission, no folder
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

_CONFIG = ConfigDict(extra="forbid", strict=True, frozen=True)


class AnalysisError(InputError):
    """The analysis file is not valid: the message names its line, the field and what is allowed."""


@dataclass(frozen=True)
class Names:
    """What the claims may name: the reference collection's systems and measures."""

    systems: tuple[str, ...]
    measures: tuple[str, ...]


def _identifier(value: object) -> object:
    """A query or document id as text: YAML reads ``184`` as a number, the data has ``"184"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


Identifier = Annotated[str, BeforeValidator(_identifier), Field(min_length=1, max_length=64)]


def _names(info: ValidationInfo) -> Names:
    names: Names = (info.context or {})["names"]
    return names


def _same_systems(value: dict[str, Any], info: ValidationInfo, what: str) -> dict[str, Any]:
    systems = _names(info).systems
    if set(value) != set(systems):
        raise ValueError(f"{what} must name each system once: {', '.join(systems)}; found {', '.join(value) or 'none'}")
    return value


class Document(BaseModel):
    """A document that explains the difference: its id, its grade, its rank in each system's run."""

    model_config = _CONFIG

    doc: Identifier = Field(description="the document's id, as in the qrels and the runs")
    grade: int = Field(description="its grade in the query's judgments (0 when it is not judged)")
    ranks: dict[str, Annotated[int, Field(ge=1)] | None] = Field(
        description="system -> its rank in that system's run (1 is first), null when the run does not retrieve it"
    )

    @field_validator("ranks")
    @classmethod
    def _every_system(cls, value: dict[str, int | None], info: ValidationInfo) -> dict[str, int | None]:
        return _same_systems(value, info, "ranks")


class Claim(BaseModel):
    """What a student says of one query."""

    model_config = _CONFIG

    query: Identifier = Field(description="the query's id")
    measure: str = Field(description="the measure compared")
    values: dict[str, float] = Field(description="system -> the measure's value on the query (4 decimals)")
    better: str = Field(description="the system with the higher value, or 'tie'")
    documents: list[Document] = Field(min_length=1, max_length=MAX_DOCUMENTS)
    runs: dict[str, str] = Field(
        default_factory=dict,
        description="system -> the name of the student's own run file for it, in the submission beside "
        "analysis.yml (a system not named: Lab 04's reference run)",
    )

    @field_validator("measure")
    @classmethod
    def _known_measure(cls, value: str, info: ValidationInfo) -> str:
        measures = _names(info).measures
        if value not in measures:
            raise ValueError(f"{value!r} is not a measure of the lab; use one of: {', '.join(measures)}")
        return value

    @field_validator("values")
    @classmethod
    def _every_value(cls, value: dict[str, float], info: ValidationInfo) -> dict[str, float]:
        return _same_systems(value, info, "values")

    @field_validator("better")
    @classmethod
    def _known_better(cls, value: str, info: ValidationInfo) -> str:
        allowed = (*_names(info).systems, TIE)
        if value not in allowed:
            raise ValueError(f"{value!r} is not a system; use one of: {', '.join(allowed)}")
        return value

    @field_validator("runs")
    @classmethod
    def _run_files(cls, value: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        systems = _names(info).systems
        for system, name in value.items():
            if system not in systems:
                raise ValueError(f"{system!r} is not a system; name one of: {', '.join(systems)}")
            if not RUN_NAME.fullmatch(name):
                raise ValueError(
                    f"runs.{system}: {name!r} is not a run file's name: give the name of the file in your submission, "
                    "e.g. my_bm25.run (letters, digits, . _ -; no folder)"
                )
        return value

    @field_validator("documents")
    @classmethod
    def _distinct(cls, value: list[Document]) -> list[Document]:
        seen = [document.doc for document in value]
        twice = sorted({doc for doc in seen if seen.count(doc) > 1})
        if twice:
            raise ValueError(f"document {twice[0]} is listed twice: give each document once")
        return value


class AnalysisFile(BaseModel):
    """``analysis.yml``: the claims, one per query the student chose."""

    model_config = _CONFIG

    claims: list[Claim] = Field(min_length=1, max_length=MAX_CLAIMS)


@dataclass(frozen=True)
class Analysis:
    """A valid analysis file: its claims and the line each claim starts on."""

    claims: tuple[Claim, ...]
    lines: tuple[int, ...]


def read(path: Path, names: Names) -> Analysis:
    """The analysis file at ``path`` (read at most ``MAX_BYTES`` + 1 bytes), parsed by ``parse``."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as error:
        raise AnalysisError(f"cannot read the analysis file {path}: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AnalysisError(
            f"{path.name}: byte {error.start} is not UTF-8; save the file as UTF-8 (any editor's default)"
        ) from None
    return parse(text, names, source=path.name)


def parse(text: str, names: Names, source: str = "analysis.yml") -> Analysis:
    """The claims in ``text`` (YAML), validated against ``names``; ``AnalysisError`` naming the
    line, the field's path, the value found and what is allowed otherwise. Nothing is executed:
    the YAML is read with the safe loader, composed once, and refused with anchors or aliases."""
    import yaml

    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise AnalysisError(f"{source}: is larger than {MAX_BYTES >> 10} KiB; an analysis is a few KiB")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _refuse_aliases(node, source)
        data = loader.construct_document(node) if node is not None else None
    except yaml.constructor.ConstructorError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else 1
        raise AnalysisError(f"{source}, line {line}: a YAML tag (!!...) is not allowed: write plain values") from None
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else 1
        raise AnalysisError(f"{source}, line {line}: not valid YAML: {error.problem}; check the indentation") from None
    except yaml.YAMLError as error:
        raise AnalysisError(f"{source}: not valid YAML: {error}") from None
    finally:
        loader.dispose()
    try:
        model = AnalysisFile.model_validate(data, context={"names": names})
    except ValidationError as error:
        raise AnalysisError(_explain(error, node, source)) from None
    lines = tuple(_line(node, ("claims", index)) for index in range(len(model.claims)))
    return Analysis(tuple(model.claims), lines)


def _refuse_aliases(root: Any, source: str) -> None:
    """``AnalysisError`` if a node is reached twice (an alias): an analysis spells out each value."""
    import yaml

    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise AnalysisError(
                f"{source}, line {node.start_mark.line + 1}: uses a YAML alias (*name); write each value out"
            )
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(item for pair in node.value for item in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _child(node: Any, key: object) -> Any:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(key):
                return value_node
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return node.value[key]
    return None


def _line(node: Any, loc: Sequence[object]) -> int:
    """The line (from 1) of the deepest node of ``loc`` the document has."""
    line = node.start_mark.line + 1 if node is not None else 1
    for key in loc:
        node = _child(node, key) if node is not None else None
        if node is None:
            break
        line = node.start_mark.line + 1
    return line


def _path(loc: Sequence[object]) -> str:
    text = ""
    for key in loc:
        text += f"[{key}]" if isinstance(key, int) else f".{key}" if text else str(key)
    return text or "the file"


def _explain(error: ValidationError, node: Any, source: str) -> str:
    """The first problem of ``error`` as one sentence: line, path, what is wrong, the value found."""
    problem = error.errors(include_url=False)[0]
    loc = [key for key in problem["loc"] if not (isinstance(key, str) and key.startswith("function-"))]
    line = _line(node, loc)
    message = problem["msg"].removeprefix("Value error, ")
    if problem["type"] == "missing":
        return f"{source}, line {line}: {_path(loc)} is missing; add it (see the example at the top of analysis.yml)"
    if problem["type"] == "extra_forbidden":
        return f"{source}, line {line}: {_path(loc)} is not a field of a claim; remove it or check its spelling"
    found = problem.get("input")
    shown = "" if isinstance(found, (dict, list)) else f"; found {found!r}"
    more = f" ({error.error_count() - 1} more problem(s) after it)" if error.error_count() > 1 else ""
    return f"{source}, line {line}: {_path(loc)}: {message}{shown}{more}"
