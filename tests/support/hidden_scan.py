"""Searching built artefacts for what a student must never see: every hidden edge case's inputs,
every hidden write_run scenario's inputs, every expected value and the answer code, encoded as they
would appear, in the bytes of every file.

The needles:

- each hidden edge case's inputs (its arguments together, and each argument that is a list or
  mapping long enough to be its own; not the grader's own ``{"$measure": ...}`` references), as
  JSON (spaced and compact; spaced is also how the Python source writes them) and as repr;
- each hidden write_run scenario's inputs (``paths.SCENARIOS``: its results per query text, each
  query's results, each result, its queries), the same ways;
- each expected value of the hidden reference (the edge cases' values, ``ir_measures``' value per
  query and the aggregates of both Lab 04 runs, as ``expected.json`` and the Cranfield bundle hold
  them), as its first 12 characters of repr/JSON and as an IEEE double in both byte orders (how
  pickle, numpy and struct store it);
- the top 10 of each query's ranking in both Lab 04 runs (what ``write_run`` must write), as the
  start of a JSON list or a repr;
- the course secret (``course-secret``: the random cases' seed is drawn from it), as written;
- answer code: each distinctive line of code (``MIN_LINE`` characters or more, not an import, a
  comment or text) of the solutions' ``# BEGIN SOLUTION`` blocks, which the handout's stubs leave
  out, and of the lab's answer code (``shipment.code_entries``: the records' answers, the
  misconception catalogue), searched as it is written.

A needle that also appears in what students are given anyway (the handout) is public, not hidden,
and is left out. Files are searched as bytes; a zip is opened and its members searched (zips
inside zips too); a pickle is also loaded and walked, every float and every list or mapping of it
compared with the needles.
"""

from __future__ import annotations

import io
import json
import pickle
import re
import struct
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from autograder import paths
from autograder.grading import course_secret
from autograder.lab import cases, cranfield, scenarios
from autograder.labkit.load import default as default_lab

MIN_CONTAINER = 16  # characters of JSON a list or mapping needs to be a needle of its own
MIN_LINE = 24  # characters a line of answer code needs to be a needle of its own
PREFIX = 12  # characters of a float's repr searched for
START = 6  # bytes an encoded list or mapping is first looked up by
OPENING = re.compile(rb"[\[\(\{]")  # where an encoded list or mapping can start
NUMBER = re.compile(rb"-?\d+\.\d{%d,}" % (PREFIX - 2))  # a float written with enough digits
BINFLOAT = re.compile(rb"G(?=[\x00-\xff]{8})", re.DOTALL)  # pickle's opcode for an 8-byte big-endian float
SIMPLE = {p / q for q in range(1, 31) for p in range(q + 1)}  # fractions anything may print


@dataclass
class Needles:
    texts: dict = field(default_factory=dict)  # encoded list or mapping (bytes) -> what it is
    prefixes: dict = field(default_factory=dict)  # a float's first PREFIX characters (bytes) -> what it is
    floats: dict = field(default_factory=dict)  # float -> what it is
    containers: dict = field(default_factory=dict)  # canonical JSON of an input -> what it is
    code: dict = field(default_factory=dict)  # a line of answer code (bytes, stripped) -> what it is

    def count(self) -> int:
        return len(self.texts) + len(self.prefixes) + len(self.floats) + len(self.code)

    def by_start(self) -> dict:
        """The encoded containers by their first ``START`` bytes (how ``scan`` finds them fast)."""
        grouped: dict[bytes, list] = {}
        for text, what in self.texts.items():
            grouped.setdefault(text[:START], []).append((text, what))
        return grouped


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True)


def _encodings(value) -> set[bytes]:
    """JSON (spaced, as Python source writes it too, and compact; non-ASCII escaped or not) and repr (a
    list also as a tuple)."""
    found = {json.dumps(value).encode(), json.dumps(value, separators=(",", ":")).encode()}
    found.add(json.dumps(value, ensure_ascii=False).encode())
    found.add(repr(value).encode())
    if isinstance(value, list):
        found.add(repr(tuple(value)).encode())
    return found


def _distinctive_float(value) -> bool:
    return (
        isinstance(value, float) and len(repr(value)) > PREFIX and all(abs(value - simple) > 1e-12 for simple in SIMPLE)
    )


def _values(stored: dict, bundle: dict) -> Iterator[tuple[float, str]]:
    for case_id, value in stored["edge"].items():
        if isinstance(value, float):
            yield value, f"{case_id}'s expected value"
    for system, measures in stored["cranfield"].items():
        for label, per_query in measures.items():
            for query, value in per_query.items():
                yield value, f"{label} of query {query} in {system}"
    for system, labels in stored["aggregates"].items():
        for label, value in labels.items():
            yield value, f"{label} aggregate of {system}"
    for system, data in bundle["systems"].items():
        for label, per_query in data["values"].items():
            for query, value in per_query.items():
                yield value, f"{label} of query {query} in {system} (the bundle)"


def _add(mapping: dict, key, what: str) -> None:
    """``what`` a needle is; one needle may be several things (two cases with the same inputs)."""
    mapping[key] = f"{mapping[key]}; {what}" if key in mapping and what not in mapping[key].split("; ") else what


def build(public: bytes) -> Needles:
    """Every needle of the hidden reference but those the handout (``public``) holds anyway."""
    found = Needles()
    for case in cases.EDGE_CASES:
        arguments = [*case.args, *case.kwargs.values()]
        _add(found.containers, _canonical(list(case.args)), f"{case.id}'s inputs")
        for text in _encodings(list(case.args)):
            _add(found.texts, text, f"{case.id}'s inputs")
        for position, argument in enumerate(arguments):
            grader_object = isinstance(argument, dict) and len(argument) == 1 and str(next(iter(argument)))[:1] == "$"
            if not grader_object and isinstance(argument, (list, dict)) and len(json.dumps(argument)) >= MIN_CONTAINER:
                _add(found.containers, _canonical(argument), f"{case.id}'s argument {position}")
                for text in _encodings(argument):
                    _add(found.texts, text, f"{case.id}'s argument {position}")
    for scenario in scenarios.small_scenarios():
        if not scenario.public:
            _add_scenario(found, scenario)
    stored = json.loads(paths.REFERENCE.read_text(encoding="utf-8"))
    bundle = cranfield.bundle()
    for value, what in _values(stored, bundle):
        if _distinctive_float(value):
            _add(found.floats, value, what)
            _add(found.prefixes, repr(value)[:PREFIX].encode(), what)
    for system, data in bundle["systems"].items():
        for query, ranking in data["rankings"].items():
            if len(ranking) >= 10:
                for text in _encodings(list(ranking[:10])):  # without its closing bracket: the list goes on
                    _add(found.texts, text[:-1], f"the top 10 of query {query} in {system}")
    found.texts = {text: what for text, what in found.texts.items() if text not in public}
    found.prefixes = {text: what for text, what in found.prefixes.items() if text not in public}
    found.floats = {
        value: what for value, what in found.floats.items() if repr(value)[:PREFIX].encode() in found.prefixes
    }
    public_text = public.decode("utf-8", "replace")
    found.containers = {key: what for key, what in found.containers.items() if key not in public_text}
    found.code = {line: what for line, what in answer_code_lines().items() if line not in public}
    secret, _ = course_secret.load(paths.RUBRIC, create=True)  # what the builds ship
    found.code[secret.encode()] = "the course secret"  # searched as written, like a line of answer code
    return found


def _add_scenario(found: Needles, scenario) -> None:
    """A hidden scenario's inputs: its results per query text, each query's results, each result, its queries."""
    what = f"{scenario.name} scenario's inputs"
    hits = [hit for results in scenario.results.values() for hit in results]
    for value in (scenario.results, [list(query) for query in scenario.queries], *scenario.results.values(), *hits):
        if len(json.dumps(value)) >= MIN_CONTAINER:
            _add(found.containers, _canonical(value), what)
            for text in _encodings(value):
                _add(found.texts, text, what)
    for hit in hits:
        if _distinctive_float(hit[-1]):
            _add(found.floats, hit[-1], what)
            _add(found.prefixes, repr(hit[-1])[:PREFIX].encode(), what)


#: A line of answer code that computes nothing: text (a string alone, or an argument given one: a
#: misconception's title or explanation, which feedback shows), a field's annotation, or an
#: argument passed on under its own name.
NOT_CODE = re.compile(r"""^(f?["']|\w+=\s*f?["']|\w+: [\w\[\], |]+(  #.*)?$|(\w+)=\3,$)""")
#: Lines of the answer code that the engine's own code needs too, word for word: idioms, not answers
#: (each listed with the public module that holds it).
IDIOMS = {
    b"grouped.setdefault(row[0], []).append(row)",  # grading/runfile_problems.py: a run file's rows by query
    b"union = set(retrieved) | set(relevant)",  # lab/features.py: a case's feature (collection < union)
}


def _code_line(stripped: str) -> bool:
    return (
        len(stripped) >= MIN_LINE
        and not stripped.startswith(("#", "import ", "from "))
        and not NOT_CODE.match(stripped)
        and stripped.encode() not in IDIOMS
    )


def answer_code_lines() -> dict[bytes, str]:
    """Each distinctive line of the solutions' ``# BEGIN SOLUTION`` blocks (what the stubs leave out)
    and of the lab's answer code (``shipment.code_entries``: the records' answers, the misconception
    catalogue): ``MIN_LINE`` characters or more, code (not an import, a comment or text)."""
    from autograder.platforms.common import shipment

    found: dict[bytes, str] = {}
    for path in sorted(paths.SOLUTIONS.rglob("*.py")):
        inside = False
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith("# BEGIN SOLUTION") or stripped.startswith("# END SOLUTION"):
                inside = stripped.startswith("# BEGIN")
            elif inside and _code_line(stripped):
                _add(found, stripped.encode(), f"solution code of {path.relative_to(paths.SOLUTIONS).as_posix()}")
    for name, data, _ in shipment.code_entries(default_lab()):
        if name.endswith(".py"):
            for line in data.decode("utf-8").splitlines():
                if _code_line(line.strip()):
                    _add(found, line.strip().encode(), f"answer code of {name}")
    return found


def _walk(value, needles: Needles, where: str, found: list) -> None:
    """Every float and list or mapping inside an unpickled object, compared with the needles."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, float):
            if item in needles.floats:
                found.append((where, needles.floats[item]))
            continue
        if isinstance(item, (list, tuple, dict)):
            if len(item) <= 64:
                try:
                    key = _canonical(list(item) if isinstance(item, tuple) else item)
                except (TypeError, ValueError):
                    key = ""
                if key in needles.containers:
                    found.append((where, needles.containers[key]))
            stack.extend(item.values() if isinstance(item, dict) else item)
            if isinstance(item, dict):
                stack.extend(item.keys())
        elif hasattr(item, "__dict__"):
            stack.extend(vars(item).values())
        elif hasattr(item, "__slots__"):
            stack.extend(getattr(item, slot) for slot in item.__slots__ if hasattr(item, slot))


def _in_bytes(data: bytes, needles: Needles, starts: dict) -> list[str]:
    """The needles in ``data``: encoded lists and mappings where a bracket opens, floats where a
    number is written with enough digits, and floats where pickle's 8-byte float opcode is."""
    found = []
    for match in OPENING.finditer(data):
        for text, what in starts.get(data[match.start() : match.start() + START], ()):
            if data.startswith(text, match.start()):
                found.append(what)
    for match in NUMBER.finditer(data):
        what = needles.prefixes.get(match.group()[:PREFIX])
        if what:
            found.append(what)
    for match in BINFLOAT.finditer(data):
        (value,) = struct.unpack(">d", data[match.end() : match.end() + 8])
        if value in needles.floats:
            found.append(needles.floats[value])
    found += [what for line, what in needles.code.items() if line in data]
    return found


def scan(files: Iterable[tuple[str, bytes]], needles: Needles, starts: dict | None = None) -> list[tuple[str, str]]:
    """Where each needle is found: ``(file, what)`` (``zip!member`` inside a zip), once per file."""
    starts = needles.by_start() if starts is None else starts
    found: list[tuple[str, str]] = []
    for name, data in files:
        found += [(name, what) for what in dict.fromkeys(_in_bytes(data, needles, starts))]
        if data.startswith(b"PK\x03\x04"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = ((f"{name}!{info.filename}", archive.read(info)) for info in archive.infolist())
                found += scan(members, needles, starts)
        if data[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
            try:
                loaded = pickle.loads(data)  # the build's own files: trusted
            except Exception:
                continue
            walked: list[tuple[str, str]] = []
            _walk(loaded, needles, name, walked)
            found += list(dict.fromkeys(walked))
    return found


def folder_files(folder: Path) -> list[tuple[str, bytes]]:
    return [
        (path.relative_to(folder).as_posix(), path.read_bytes()) for path in sorted(folder.rglob("*")) if path.is_file()
    ]


def handout_bytes() -> bytes:
    """Everything students are given, as one blob (what is in it is public)."""
    return b"\n".join(data for _, data in folder_files(paths.HANDOUT))
