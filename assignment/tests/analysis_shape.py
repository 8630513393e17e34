"""The shape of ``analysis.yml`` (not its facts): what ``test_analysis.py`` checks, so that a
format mistake shows before grading. The autograder reads the file with the same rules and then
checks every fact against Cranfield's qrels and Lab 04's runs.
"""

from __future__ import annotations

import math
import re

SYSTEMS = ("bm25", "tfidf")
MEASURES = ("AP", "P@10", "R@100", "RR", "nDCG@10", "nDCG@10 exp")
TIE = "tie"
MAX_BYTES = 64 << 10
MAX_CLAIMS = 10
MAX_DOCUMENTS = 20
CLAIM_FIELDS = ("query", "measure", "values", "better", "documents")
OPTIONAL_FIELDS = ("runs",)  # runs: {system: your run file's name}, to check the claim against your own run
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
DOCUMENT_FIELDS = ("doc", "grade", "ranks")
EXAMPLE = "see the example at the top of analysis.yml"


class ShapeError(ValueError):
    """What is wrong with the file, with its line."""


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _identifier(value) -> bool:
    return (_integer(value) or isinstance(value, str)) and 0 < len(str(value)) <= 64


def _number(value) -> bool:
    return (_integer(value) or isinstance(value, float)) and math.isfinite(value)


def _line(node) -> int:
    return node.start_mark.line + 1


def _child(node, key):
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(key):
                return value_node
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key]
    return node


def _load(text: str):
    """``(data, root node)`` of ``text``: safe loading, no anchors or aliases."""
    import yaml

    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise ShapeError(f"analysis.yml is larger than {MAX_BYTES >> 10} KiB; an analysis is a few KiB")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        seen, stack = set(), [node] if node is not None else []
        while stack:
            item = stack.pop()
            if id(item) in seen:
                raise ShapeError(f"line {_line(item)}: uses a YAML alias (*name); write each value out")
            seen.add(id(item))
            if isinstance(item, yaml.MappingNode):
                stack.extend(part for pair in item.value for part in pair)
            elif isinstance(item, yaml.SequenceNode):
                stack.extend(item.value)
        return (loader.construct_document(node) if node is not None else None), node
    except yaml.constructor.ConstructorError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else 1
        raise ShapeError(f"line {line}: a YAML tag (!!...) is not allowed: write plain values") from None
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else 1
        raise ShapeError(f"line {line}: not valid YAML: {error.problem}; check the indentation") from None
    finally:
        loader.dispose()


def _fields(data, node, where: str, fields: tuple, optional: tuple = ()) -> None:
    if not isinstance(data, dict):
        raise ShapeError(f"line {_line(node)}: {where} must be a mapping with {', '.join(fields)}; {EXAMPLE}")
    for name in data:
        if name not in fields + optional:
            raise ShapeError(
                f"line {_line(_child(node, name))}: {where}.{name} is not a field; use {', '.join(fields + optional)}"
            )
    for name in fields:
        if name not in data:
            raise ShapeError(f"line {_line(node)}: {where}.{name} is missing; add it ({EXAMPLE})")


def _per_system(data, node, where: str, accept, what: str) -> None:
    if not isinstance(data, dict) or set(data) != set(SYSTEMS):
        raise ShapeError(f"line {_line(node)}: {where} must name each system once: {', '.join(SYSTEMS)}")
    for system, value in data.items():
        if not accept(value):
            raise ShapeError(f"line {_line(_child(node, system))}: {where}.{system} must be {what}; found {value!r}")


def _runs(data, node, where: str) -> None:
    if not isinstance(data, dict) or not set(data) <= set(SYSTEMS):
        raise ShapeError(f"line {_line(node)}: {where} must map systems ({', '.join(SYSTEMS)}) to your run files")
    for system, name in data.items():
        if not isinstance(name, str) or not RUN_NAME.fullmatch(name):
            raise ShapeError(
                f"line {_line(_child(node, system))}: {where}.{system} must be a run file's name in your submission, "
                f"e.g. my_bm25.run (letters, digits, . _ -; no folder); found {name!r}"
            )


def check(text: str) -> int:
    """The number of claims in ``text``; ``ShapeError`` naming the first problem and its line."""
    data, root = _load(text)
    _fields(data, root, "the file", ("claims",))
    claims, node = data["claims"], _child(root, "claims")
    if not isinstance(claims, list) or len(claims) > MAX_CLAIMS:
        raise ShapeError(f"line {_line(node)}: claims must be a list of at most {MAX_CLAIMS} claims; {EXAMPLE}")
    for index, claim in enumerate(claims):
        where, at = f"claims[{index}]", _child(node, index)
        _fields(claim, at, where, CLAIM_FIELDS, OPTIONAL_FIELDS)
        _runs(claim.get("runs", {}), _child(at, "runs"), f"{where}.runs")
        if not _identifier(claim["query"]):
            raise ShapeError(
                f"line {_line(_child(at, 'query'))}: {where}.query must be a query id; found {claim['query']!r}"
            )
        if claim["measure"] not in MEASURES:
            raise ShapeError(
                f"line {_line(_child(at, 'measure'))}: {where}.measure {claim['measure']!r} is not a measure of the "
                f"lab; use one of: {', '.join(MEASURES)}"
            )
        _per_system(claim["values"], _child(at, "values"), f"{where}.values", _number, "a number")
        if claim["better"] not in (*SYSTEMS, TIE):
            raise ShapeError(
                f"line {_line(_child(at, 'better'))}: {where}.better must be one of: {', '.join((*SYSTEMS, TIE))}"
            )
        documents, listed = claim["documents"], _child(at, "documents")
        if not isinstance(documents, list) or not 1 <= len(documents) <= MAX_DOCUMENTS:
            raise ShapeError(f"line {_line(listed)}: {where}.documents must list 1 to {MAX_DOCUMENTS} documents")
        ids = []
        for number, document in enumerate(documents):
            place, spot = f"{where}.documents[{number}]", _child(listed, number)
            _fields(document, spot, place, DOCUMENT_FIELDS)
            if not _identifier(document["doc"]):
                raise ShapeError(
                    f"line {_line(_child(spot, 'doc'))}: {place}.doc must be a doc id; found {document['doc']!r}"
                )
            if not _integer(document["grade"]):
                raise ShapeError(
                    f"line {_line(_child(spot, 'grade'))}: {place}.grade must be an integer; "
                    f"found {document['grade']!r}"
                )
            _per_system(
                document["ranks"],
                _child(spot, "ranks"),
                f"{place}.ranks",
                lambda rank: rank is None or (_integer(rank) and rank >= 1),
                "a rank from 1, or null",
            )
            if str(document["doc"]) in ids:
                raise ShapeError(
                    f"line {_line(listed)}: {place}: document {document['doc']} is listed twice; give it once"
                )
            ids.append(str(document["doc"]))
    return len(claims)
