"""The rubric (``grading.yml``): questions, checks, points, visibility, limits, the class report's
similarity analysis, whose submission counts for a student, the deadline and the attempt limits.
Validated on load.

Every error names the file, the field and the fix, e.g.
``grading.yml: questions.q2.checks[1].kind: 'edges' is not a kind; use one of: ...``.
"""

from __future__ import annotations

import collections
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from autograder import paths
from autograder.errors import UsageError
from autograder.grading.course import attempts as attempt_limits
from autograder.grading.course import deadlines, standing
from autograder.lab.spec import EVALUATION_LIBRARIES, FUNCTIONS, KINDS_FOR, VISIBILITIES, CheckKind
from autograder.sandbox.settings import Limits

if TYPE_CHECKING:
    import yaml

MAX_BYTES = 1 << 20  # a rubric is a few KiB
MAX_VALUES = 100_000  # values of the rubric with every YAML alias expanded (a rubric has a few hundred)


#: How a check's cases become its points (``scoring``: the rubric's default, or a check's own):
#: ``groups``: its cases grouped by what they test (each example or edge case a group; random and
#: collection cases by each feature of their inputs, and all of them together), each group passed
#: or not, the points shared between the groups; ``proportional``: the share of cases passed;
#: ``all``: every case or no points.
SCORING = ("groups", "proportional", "all")


class RubricError(UsageError, ValueError):
    """The rubric file is invalid; the message says where and how to fix it."""


Fail = Callable[[str, str], NoReturn]  # fail(field, problem) raises the RubricError that names them
Schema = Mapping[str, type | tuple[type, ...]]  # a section's keys -> the types their values may have


@dataclass(frozen=True)
class SimilaritySettings:
    """``grading.yml``'s ``similarity:`` section (the defaults are here, once); its
    rule lives in ``similarity/``, which only a batch imports."""

    enabled: bool = True
    threshold: float = 0.5  # a pair is listed when the larger of its two shares reaches this


@dataclass(frozen=True)
class CheckSpec:
    question: str
    function: str
    kind: CheckKind
    points: float
    visibility: str = "visible"
    scoring: str = "groups"  # how its cases become its points (``SCORING``)

    @property
    def name(self) -> str:
        return f"{self.function}: {self.kind.label}"

    @property
    def file(self) -> str:
        return FUNCTIONS[self.function]


@dataclass(frozen=True)
class Question:
    id: str
    title: str
    checks: tuple[CheckSpec, ...]

    @property
    def points(self) -> float:
        return sum(check.points for check in self.checks)


@dataclass(frozen=True)
class Rubric:
    title: str
    total: float
    random_seed: int
    random_cases: int
    limits: Limits
    questions: tuple[Question, ...]
    # identifies the rubric a grade was made with: sha256 of what grading reads (all but the
    # similarity section, which only the class report reads; comments do not count either)
    digest: str
    similarity: SimilaritySettings = field(default_factory=SimilaritySettings)
    # what graded code may import besides the standard library (every mode and platform alike)
    allowed_imports: tuple[str, ...] = ("numpy",)
    # identifies what the calls and cases are made of: the digest less the points, visibility,
    # scoring and titles (a change of those alone rescores stored answers, no code runs again)
    cases_digest: str = ""
    # the class-level rules (``students:``, ``deadline:``), which only the class step reads: left out
    # of the digest, like the similarity section, so changing them regrades nothing
    policy: str = standing.DEFAULT_POLICY  # which submission of a student counts (``standing.POLICIES``)
    # whose extension covers a group's submission (``standing.GROUP_EXTENSIONS``)
    group_extension: str = standing.DEFAULT_GROUP_EXTENSION
    deadline: deadlines.Deadline | None = None  # None: nothing is late
    # how many submissions of a student are graded (``grading/course/attempts.py``): class-level too, left
    # out of the digest (changing it regrades nothing)
    attempts: attempt_limits.AttemptLimits = field(default_factory=attempt_limits.AttemptLimits)

    @property
    def checks(self) -> tuple[CheckSpec, ...]:
        return tuple(check for question in self.questions for check in question.checks)

    @property
    def timezone(self) -> str:
        """The course's IANA timezone, the one setting for it: ``deadline.timezone`` ("": none, times
        are said in UTC alone, e.g. the attempt limits' next attempt)."""
        return self.deadline.zone if self.deadline is not None else ""


_TOP: Schema = {
    "title": str,
    "total": (int, float),
    "random_seed": int,
    "random_cases": int,
    "limits": dict,
    "questions": dict,
    "similarity": dict,
    "allowed_imports": list,
    "scoring": str,
    "students": dict,
    "deadline": dict,
    "attempts": dict,
}
#: Read by the class step (and the platforms' attempt gates) only: not in the digest.
_CLASS_LEVEL = ("similarity", "students", "deadline", "attempts")
_LIMITS: Schema = {name: (int, float) if name.endswith("seconds") else int for name in Limits.RUBRIC_FIELDS}
_QUESTION: Schema = {"title": str, "checks": list}
_CHECK: Schema = {"function": str, "kind": str, "points": (int, float), "visibility": str, "scoring": str}
_OPTIONAL = {"visibility", "limits", "similarity", "allowed_imports", "scoring", "students", "deadline", "attempts"}
_SIMILARITY = ("enabled", "threshold")


def _fields(where: str, value: Any, schema: Schema, fail: Fail) -> None:
    if not isinstance(value, dict):
        fail(where, f"must be a mapping with {', '.join(schema)}")
    for key in value:
        if key not in schema:
            fail(f"{where}.{key}" if where else key, f"unknown key; the keys here are: {', '.join(schema)}")
    for key, types in schema.items():
        place = f"{where}.{key}" if where else key
        if key not in value:
            if key not in _OPTIONAL:
                fail(place, "is missing")
            continue
        if isinstance(value[key], bool) or not isinstance(value[key], types):
            names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
            fail(place, f"must be a {names}, got {_shown(value[key])}")


def _similarity(section: dict[str, Any], fail: Fail) -> SimilaritySettings:
    default = SimilaritySettings()
    for key in section:
        if key not in _SIMILARITY:
            fail(f"similarity.{key}", f"unknown key; the keys here are: {', '.join(_SIMILARITY)}")
    enabled = section.get("enabled", default.enabled)
    if not isinstance(enabled, bool):
        fail("similarity.enabled", f"must be true or false, got {_shown(enabled)}")
    threshold = section.get("threshold", default.threshold)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        fail(
            "similarity.threshold",
            f"must be a number above 0 and at most 1 (the share of a submission's code found in another, "
            f"e.g. {default.threshold}), got {_shown(threshold)}",
        )
    return SimilaritySettings(enabled, float(threshold))


def _shown(value: object) -> str:
    """A value as a message quotes it: a list or mapping by its kind (its repr could be huge)."""
    if isinstance(value, (list, dict)):
        return f"a {'list' if isinstance(value, list) else 'mapping'} of {len(value)}"
    return repr(value)[:100]


def _expands_past(node: yaml.Node, limit: int) -> bool:
    """Whether the YAML node, with every alias expanded, holds more than ``limit`` values (walked
    no further than that: an alias bomb costs ``limit`` steps)."""
    stack, count = [node], 0
    while stack:
        current = stack.pop()
        count += 1
        if count > limit:
            return True
        if isinstance(current.value, list):  # a sequence's nodes, a mapping's (key, value) pairs
            stack.extend(part for item in current.value for part in (item if isinstance(item, tuple) else (item,)))
    return False


def _load(text: str, source: str) -> Any:
    """The YAML document in ``text``, without ever expanding aliases past ``MAX_VALUES``."""
    import yaml

    if len(text) > MAX_BYTES:
        raise RubricError(f"{source}: is larger than {MAX_BYTES >> 10} KiB; a rubric is a few KiB")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)  # safe, and fast with libyaml
    try:
        node = loader.get_single_node()
        if node is not None and _expands_past(node, MAX_VALUES):
            raise RubricError(
                f"{source}: its YAML aliases expand to more than {MAX_VALUES} values; a rubric needs a few "
                "hundred: write it without aliases (*name)"
            )
        return loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as error:
        raise RubricError(f"{source}: not valid YAML: {error}") from None
    finally:
        loader.dispose()


def _canonical(value: object) -> object:
    """``value`` with every mapping as a list of (key as text, value) sorted by key: the same
    content gives the same JSON whatever the file's order, comments or key types."""
    if isinstance(value, dict):
        return sorted(((str(key), _canonical(item)) for key, item in value.items()), key=lambda pair: pair[0])
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


def parse(text: str, source: str = "grading.yml") -> Rubric:
    """The rubric in ``text`` (YAML), validated; ``RubricError`` naming the field otherwise."""

    def fail(field: str, problem: str) -> NoReturn:
        raise RubricError(f"{source}: {field}: {problem}")

    data = _load(text, source)
    _fields("", data, _TOP, fail)
    limits = _limits(data, fail)
    if data["random_cases"] < 1:
        fail("random_cases", "must be at least 1")
    questions = _questions(data, fail)
    similarity = _similarity(data.get("similarity", {}), fail)
    limits_on_attempts = attempt_limits.validate(data.get("attempts", {}), fail)
    allowed = _allowed_imports(data, fail)
    total = sum(question.points for question in questions)
    if abs(total - data["total"]) > 1e-9:
        fail("total", f"is {data['total']} but the checks' points add up to {total:g}; change total or the points")
    digest, cases_digest = _digests(data)
    return Rubric(
        title=data["title"],
        total=data["total"],
        random_seed=data["random_seed"],
        random_cases=data["random_cases"],
        limits=limits,
        questions=tuple(questions),
        digest=digest,
        similarity=similarity,
        allowed_imports=tuple(sorted(set(allowed))),
        cases_digest=cases_digest,
        policy=_students(data.get("students", {}), "policy", fail),
        group_extension=_students(data.get("students", {}), "group_extension", fail),
        deadline=deadlines.from_rubric(data.get("deadline", {}), fail),
        attempts=limits_on_attempts,
    )


def _limits(data: dict[str, Any], fail: Fail) -> Limits:
    """``limits:``, over the defaults, each positive."""
    _fields("limits", data.get("limits", {}), _LIMITS, lambda f, p: fail(f, p))
    limits = Limits(**dict(data.get("limits", {})), functions=len(FUNCTIONS))
    for key in Limits.RUBRIC_FIELDS:
        value = getattr(limits, key)
        if value <= 0:
            fail(f"limits.{key}", f"must be positive, got {value}")
    return limits


def _questions(data: dict[str, Any], fail: Fail) -> list[Question]:
    """``questions:``, at least one, no check twice in them."""
    if not data["questions"]:
        fail("questions", "must hold at least one question")
    questions = [_question(question_id, question, data, fail) for question_id, question in data["questions"].items()]
    names = [check.name for question in questions for check in question.checks]
    duplicates = sorted(name for name, count in collections.Counter(names).items() if count > 1)
    if duplicates:
        fail("questions", f"the check {duplicates[0]!r} appears twice; keep one")
    return questions


def _question(question_id: object, question: Any, data: dict[str, Any], fail: Fail) -> Question:
    """One question, with at least one check."""
    where = f"questions.{question_id}"
    _fields(where, question, _QUESTION, fail)
    checks = [
        _check(f"{where}.checks[{index}]", question_id, check, data, fail)
        for index, check in enumerate(question["checks"])
    ]
    if not checks:
        fail(f"{where}.checks", "must hold at least one check")
    return Question(str(question_id), question["title"], tuple(checks))


def _check(place: str, question_id: object, check: Any, data: dict[str, Any], fail: Fail) -> CheckSpec:
    """One check of a question (``place``: where it is, for messages): a function of the student
    API, a kind of check it has, a visibility, points not negative, a way of scoring."""
    _fields(place, check, _CHECK, fail)
    function, kind = check["function"], check["kind"]
    if function not in FUNCTIONS:
        fail(
            f"{place}.function",
            f"{function!r} is not a function of the student API; use one of: {', '.join(FUNCTIONS)}",
        )
    if kind not in KINDS_FOR[function]:
        fail(
            f"{place}.kind",
            f"{kind!r} is not a kind of check for {function}; use one of: {', '.join(KINDS_FOR[function])}",
        )
    kind = CheckKind(kind)
    visibility = check.get("visibility", "visible")
    if visibility not in VISIBILITIES:
        fail(f"{place}.visibility", f"{visibility!r} is not one of {', '.join(VISIBILITIES)}")
    if check["points"] < 0:
        fail(f"{place}.points", f"must not be negative, got {check['points']}")
    scoring = check.get("scoring", data.get("scoring", "groups"))
    if scoring not in SCORING:
        where_scoring = f"{place}.scoring" if "scoring" in check else "scoring"
        fail(where_scoring, f"{scoring!r} is not one of {', '.join(SCORING)} (how cases become points)")
    return CheckSpec(
        question=str(question_id),
        function=function,
        kind=kind,
        points=check["points"],
        visibility=visibility,
        scoring=scoring,
    )


def _allowed_imports(data: dict[str, Any], fail: Fail) -> list[str]:
    """``allowed_imports:``: top-level module names, none an evaluation library."""
    allowed: list[str] = data.get("allowed_imports", ["numpy"])
    for name in allowed:
        if not isinstance(name, str) or not name.isidentifier():
            fail("allowed_imports", f"must list top-level module names, e.g. [numpy]; got {name!r}")
        if name in EVALUATION_LIBRARIES:
            fail("allowed_imports", f"{name} is an evaluation library: metric code may not use it")
    return allowed


def _digests(data: dict[str, Any]) -> tuple[str, str]:
    """The rubric's two digests (``Rubric.digest`` and ``cases_digest``) of its validated ``data``."""
    graded = {key: value for key, value in data.items() if key not in _CLASS_LEVEL}
    scored_only = {"points", "visibility", "scoring", "title", "total"}
    calls = {
        **{key: value for key, value in graded.items() if key not in scored_only},
        "questions": {
            question_id: [
                {key: value for key, value in check.items() if key not in scored_only} for check in question["checks"]
            ]
            for question_id, question in data["questions"].items()
        },
    }
    return (
        hashlib.sha256(json.dumps(_canonical(graded), default=str).encode()).hexdigest(),
        hashlib.sha256(json.dumps(_canonical(calls), default=str).encode()).hexdigest(),
    )


#: ``students:``'s keys -> (the values allowed, each with its meaning; the default).
_STUDENTS = {
    "policy": (standing.POLICIES, standing.DEFAULT_POLICY),
    "group_extension": (standing.GROUP_EXTENSIONS, standing.DEFAULT_GROUP_EXTENSION),
}


def _students(section: dict[str, Any], key: str, fail: Fail) -> str:
    """``students:``'s ``key``: ``policy``, which of a student's submissions counts;
    ``group_extension``, whose extension covers a group's submission (``standing.GROUP_EXTENSIONS``)."""
    for name in section:
        if name not in _STUDENTS:
            fail(f"students.{name}", f"unknown key; the keys here are: {', '.join(_STUDENTS)}")
    allowed, default = _STUDENTS[key]
    value: str = section.get(key, default)
    if value not in allowed:
        fail(f"students.{key}", f"{value!r} is not a {key.replace('_', ' ')}; use one of: {', '.join(allowed)}")
    return value


def load(path: Path = paths.RUBRIC) -> Rubric:
    """Load and validate the rubric file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise RubricError(f"cannot read the rubric {path}: {error.strerror}") from None
    return parse(text, Path(path).name)
