"""Gradescope's ``submission_metadata.yml``: who made each submission of an export, read without
trusting the file.

The file maps each submission folder to its entry, and the entry's ``:submitters`` to a list of
``:name``, ``:email``, ``:sid`` (Ruby symbols as keys; plain keys are read too) and its
``:created_at`` to when it was submitted (kept as text, at most ``MAX_FIELD`` characters);
everything else in it (``:score``, ``:results``, ``:history``...) is skipped unread. It is read
as a stream of YAML events, never loaded whole, so:

- YAML aliases are never expanded: an alias is a reference to a value already read, usable
  only when that value is a short text, or a submitter or submitter list the reader built
  itself (a "billion laughs" file costs what its bytes cost);
- the grader's memory does not grow with the file: skipped parts are not kept, a kept text is
  at most ``MAX_FIELD`` characters, an entry at most ``MAX_SUBMITTERS`` students, and at most
  ``MAX_ANCHORS`` anchors are remembered;
- no tag is ever constructed (the values are the file's text).

A file that cannot be read as a whole (unreadable, larger than ``MAX_BYTES``, not YAML, not a
mapping of submissions) is a ``MetadataError`` naming the file, the line and the fix: the
batch stops with exit status 2. A malformed *entry* costs only its names: that submission is
graded without them, and ``Metadata.warnings`` says where and what is wrong.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from collections.abc import Collection, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, BinaryIO, Final, Literal, TypeAlias, TypeVar, cast

from autograder.errors import UsageError
from autograder.grading.results import Student

if TYPE_CHECKING:
    import yaml  # its events' types, for the type checker only (PyYAML has no type hints: they read as Any)

FILE_NAME = "submission_metadata.yml"
MAX_BYTES = 64 << 20  # the whole file (an export of a large class with results is a few MiB)
MAX_FIELD = 256  # characters of a name, an email or an SID
MAX_SUBMITTERS = 50  # students of one submission (a Gradescope group is far smaller)
MAX_ANCHORS = 10000  # anchors remembered for aliases (Gradescope's exports use none)
FIELDS = ("name", "email", "sid")
_NULLS = ("", "~", "null", "Null", "NULL")
_EXPECTED = {str: "text", Student: "a student (:name, :email, :sid)", tuple: "a list of students"}
_REMEDY = "download the export again, or remove the file to grade the folder without students' names"


class _Mark(enum.Enum):
    """The reader's own markers, never a value of the file."""

    COLLECTION = "collection"
    READ = "read"


_COLLECTION: Final = _Mark.COLLECTION  # what an anchor on a list or mapping the reader skipped stands for
_T = TypeVar("_T")


class MetadataError(UsageError, ValueError):
    """The metadata file cannot be read as a whole; the message names the file, the line and the fix."""


@dataclasses.dataclass(frozen=True)
class Metadata:
    """What the file says about the wanted submissions."""

    students: dict[str, tuple[Student, ...]]  # submission folder name -> its students
    warnings: dict[str, str]  # submission folder name -> why its entry was not used (graded without names)
    submitted: dict[str, str] = dataclasses.field(default_factory=dict)  # submission folder -> its :created_at text


@dataclasses.dataclass(frozen=True)
class _Problem:
    """Why a part of an entry cannot be used (the reader still consumed all of it)."""

    line: int
    what: str


_Students = tuple[Student, ...]
_Anchored = str | Student | _Students | _Problem | Literal[_Mark.COLLECTION]  # what an anchor stands for
_Found: TypeAlias = _T | _Problem | Literal[_Mark.READ]  # a node before it is read (``_start``)


class _Capped:
    """A binary file that refuses to yield more than ``limit`` bytes (a file that grows, or a
    link to a device, cannot make the reader run for ever)."""

    def __init__(self, handle: BinaryIO, limit: int, source: str):
        self.handle, self.left, self.source = handle, limit, source

    def read(self, size: int = -1) -> bytes:
        chunk = self.handle.read(size if size >= 0 else self.left + 1)
        self.left -= len(chunk)
        if self.left < 0:
            raise MetadataError(_too_large(self.source))
        return chunk


def _too_large(source: str) -> str:
    return f"{source} is larger than {MAX_BYTES >> 20} MiB, more than Gradescope writes for a class: {_REMEDY}"


class _Events:
    """The parser's events, one at a time; remembers the anchors it meets."""

    def __init__(self, events: Iterator[yaml.Event], yaml: ModuleType):
        self.events, self.yaml = events, yaml
        self.anchors: dict[str, _Anchored] = {}

    def next(self) -> yaml.Event:
        return next(self.events)

    def remember(self, event: yaml.Event, value: _Anchored) -> None:
        anchor = getattr(event, "anchor", None)
        if anchor is not None and (anchor in self.anchors or len(self.anchors) < MAX_ANCHORS):
            self.anchors[anchor] = value

    def skip(self, event: yaml.Event) -> None:
        """Consume the node that ``event`` starts (whatever its size), remembering its anchors:
        a scalar's capped text, a collection's as unusable."""
        yaml = self.yaml
        if isinstance(event, yaml.ScalarEvent):
            self.remember(event, _text(event))
            return
        if not isinstance(event, yaml.CollectionStartEvent):
            return  # an alias: nothing to consume
        self.remember(event, _COLLECTION)
        depth = 1
        while depth:
            event = self.next()
            if isinstance(event, yaml.CollectionStartEvent):
                self.remember(event, _COLLECTION)
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent):
                self.remember(event, _text(event))

    def resolve(self, event: yaml.Event, kind: type[_T], what: str) -> _T | _Problem:
        """The value an alias stands for, when it is of ``kind``; else a problem saying what it is."""
        alias, expected = f"*{event.anchor[:40]}", _EXPECTED[kind]
        if event.anchor not in self.anchors:
            held = len(self.anchors) >= MAX_ANCHORS
            found = f"an anchor past the first {MAX_ANCHORS}, which are all the grader keeps" if held else "no anchor"
            return _Problem(_line(event), f"{what} is the alias {alias}, which names {found} defined before it")
        value = self.anchors[event.anchor]
        if isinstance(value, kind):
            return value
        if isinstance(value, _Problem):
            if kind is str:  # an over-long text: its problem is a noun phrase
                return _Problem(_line(event), f"{what} is the alias {alias}, which stands for {value.what}")
            return _Problem(_line(event), f"{what} is the alias {alias} of a part that cannot be used ({value.what})")
        found = "a list or mapping" if value is _COLLECTION else "a value of another kind"
        return _Problem(_line(event), f"{what} is the alias {alias}, which stands for {found}, not {expected}")


def _line(event: yaml.Event) -> int:
    line: int = event.start_mark.line  # PyYAML's marks count from 0
    return line + 1


def _text(event: yaml.Event) -> str | _Problem:
    """A scalar's text (empty for YAML's null), or a problem (a noun phrase) when it is longer than
    a field may be."""
    value: str = event.value  # a scalar event's text
    if event.implicit[0] and event.style in (None, "") and value in _NULLS:
        return ""
    if len(value) > MAX_FIELD:
        return _Problem(_line(event), f"a text of {len(value)} characters, more than the {MAX_FIELD} a field may hold")
    return value


def _key(events: _Events, event: yaml.Event) -> str | None:
    """A mapping key as text (Ruby's ``:name`` and plain ``name`` alike), None for a key that is
    not a short scalar (consumed)."""
    if isinstance(event, events.yaml.ScalarEvent) and len(event.value) <= MAX_FIELD:
        key: str = event.value  # a scalar event's text
        return key
    events.skip(event)
    return None


_READ: Final = _Mark.READ  # a node that starts as expected: its reader reads it


def _start(
    events: _Events,
    event: yaml.Event,
    start: type[yaml.Event],
    kind: type[_T],
    what: str,
    wrong: str,
    empty: _T | None = None,
) -> _Found[_T]:
    """What a node is before it is read: ``_READ`` when it starts with ``start``; else an alias's
    value of ``kind``, ``empty`` for a null (where given), or a problem (the node consumed)."""
    yaml = events.yaml
    if isinstance(event, yaml.AliasEvent):
        return events.resolve(event, kind, what)
    if isinstance(event, start):
        return _READ
    if empty is not None and isinstance(event, yaml.ScalarEvent) and _text(event) == "":
        return empty
    events.skip(event)
    return _Problem(_line(event), f"{what} {wrong}")


def _field(events: _Events, event: yaml.Event, what: str) -> str | _Problem:
    found = _start(events, event, events.yaml.ScalarEvent, str, what, "is a list or mapping, not text")
    if found is not _READ:
        return found
    value = _text(event)
    events.remember(event, value)
    return _Problem(value.line, f"{what} is {value.what}") if isinstance(value, _Problem) else value


def _submitter(events: _Events, event: yaml.Event, where: str) -> Student | _Problem:
    yaml = events.yaml
    found = _start(events, event, yaml.MappingStartEvent, Student, where, "is not a mapping of :name, :email and :sid")
    if found is not _READ:
        return found
    fields: dict[str, str | _Problem] = {}
    problem: _Problem | None = None
    while not isinstance(key_event := events.next(), yaml.MappingEndEvent):
        field = (_key(events, key_event) or "").lstrip(":")
        value_event = events.next()
        if field not in FIELDS or field in fields:
            events.skip(value_event)
            continue
        fields[field] = value = _field(events, value_event, f"{where} :{field}")
        if isinstance(value, _Problem) and problem is None:
            problem = value
    texts = cast("dict[str, str]", fields)  # when no field is a problem (the only time they are read), all are text
    result = problem or Student(*(texts.get(name, "") for name in FIELDS))
    events.remember(event, result)
    return result


def _submitters(events: _Events, event: yaml.Event, where: str) -> _Students | _Problem:
    yaml = events.yaml
    # a tuple an anchor holds is always one the reader built of students (here and in ``_entry``)
    found: _Found[_Students] = _start(
        events, event, yaml.SequenceStartEvent, tuple, where, "is not a list of students", ()
    )
    if found is not _READ:
        return found
    students: list[Student] = []
    problem: _Problem | None = None
    while not isinstance(item := events.next(), yaml.SequenceEndEvent):
        student = _submitter(events, item, f"{where}[{len(students)}]")
        if isinstance(student, _Problem):
            problem = problem or student
        elif len(students) == MAX_SUBMITTERS:
            problem = problem or _Problem(_line(item), f"{where} names more than {MAX_SUBMITTERS} students")
        else:
            students.append(student)
    result = problem or tuple(students)
    events.remember(event, result)
    return result


def _entry(events: _Events, event: yaml.Event) -> tuple[_Students | _Problem, str]:
    """An entry's students (its ``:submitters``) and its ``:created_at`` text ("" when it has none or
    it is not a short text); everything else skipped."""
    yaml = events.yaml
    # a tuple an anchor holds is always one the reader built of students (here and in ``_submitters``)
    found: _Found[_Students] = _start(
        events, event, yaml.MappingStartEvent, tuple, "the entry", "is not a mapping (with :submitters)", ()
    )
    if found is not _READ:
        return found, ""
    students: _Students | _Problem = ()
    created = ""
    while not isinstance(key_event := events.next(), yaml.MappingEndEvent):
        key = _key(events, key_event)
        value_event = events.next()
        if key in (":submitters", "submitters"):
            students = _submitters(events, value_event, key)
        elif key in (":created_at", "created_at"):
            value = _field(events, value_event, key)
            created = value if isinstance(value, str) else ""
        else:
            events.skip(value_event)
    events.remember(event, students)
    return students, created


def _entries(events: _Events, source: str, wanted: Collection[str] | None) -> Metadata:
    yaml = events.yaml
    event = events.next()  # the stream's start
    event = events.next()
    if isinstance(event, yaml.StreamEndEvent):
        return Metadata({}, {})  # an empty file: no names
    event = events.next()  # after the document's start
    if isinstance(event, yaml.ScalarEvent) and _text(event) == "":
        return Metadata({}, {})
    if not isinstance(event, yaml.MappingStartEvent):
        kind = "a list" if isinstance(event, yaml.SequenceStartEvent) else "not a mapping"
        raise MetadataError(
            f"{source}, line {_line(event)}: is not Gradescope's submission metadata: its top level is {kind}, "
            f"not a mapping of submission folders to their submitters: {_REMEDY}"
        )
    students: dict[str, _Students] = {}
    warnings: dict[str, str] = {}
    lines: dict[str, int] = {}  # entry -> the line its key is on (its first, if twice)
    submitted: dict[str, str] = {}
    while not isinstance(key_event := events.next(), yaml.MappingEndEvent):
        key = _key(events, key_event)
        found, created = _entry(events, events.next())
        if key is None or (wanted is not None and key not in wanted):
            continue
        if key in lines:
            warnings[key] = (
                f"{source}, line {_line(key_event)}, entry {key!r}: appears twice (first on line {lines[key]}), "
                "so neither is used"
            )
            students.pop(key, None)
            submitted.pop(key, None)
        elif isinstance(found, _Problem):
            warnings[key] = f"{source}, line {found.line}, entry {key!r}: {found.what}"
        else:
            students[key] = found
        if created and lines.get(key) is None:
            submitted[key] = created
        lines.setdefault(key, _line(key_event))
    if isinstance(events.next(), yaml.DocumentEndEvent) and not isinstance(events.next(), yaml.StreamEndEvent):
        raise MetadataError(f"{source} holds more than one YAML document, where Gradescope writes one: {_REMEDY}")
    return Metadata(students, warnings, submitted)


def read(path: Path, wanted: Collection[str] | None = None) -> Metadata:
    """The students of each submission folder in ``wanted`` (every entry when None) that the file
    names; ``MetadataError`` when the file cannot be read as a whole."""
    import yaml

    source = str(path)
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_BYTES:
                raise MetadataError(_too_large(source))
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when there is one
            events = _Events(yaml.parse(_Capped(handle, MAX_BYTES, source), Loader=loader), yaml)
            return _entries(events, source, wanted)
    except OSError as error:
        raise MetadataError(f"{source} cannot be read ({error.strerror}): {_REMEDY}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise MetadataError(f"{source}{where}: not valid YAML ({problem}): {_REMEDY}") from None
    except StopIteration:
        raise MetadataError(f"{source}: the YAML ends too early: {_REMEDY}") from None
