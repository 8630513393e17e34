"""The rubric (``grading.yml``): questions, checks, points, visibility, limits, the class report's
similarity analysis, whose submission counts for a student, the deadline and the attempt limits.
Loaded safely (a size and an alias-expansion limit) and validated by its schema, declared once
in ``rubric_schema``; every error names the file, the key's path, the value and what is allowed, e.g.
``grading.yml: questions.q2.checks.1.kind: 'edges' is not a kind of check for <the function>;
use one of: ...``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder import cache, paths
from autograder.errors import UsageError
from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.course import attempts as attempt_limits
from autograder.grading.course import deadlines, standing
from autograder.grading.rubric_settings import SCORING as SCORING
from autograder.grading.rubric_settings import SimilaritySettings as SimilaritySettings
from autograder.labkit.kinds import CheckKind
from autograder.labkit.lab import Lab
from autograder.sandbox.settings import Limits

if TYPE_CHECKING:
    import yaml

    from autograder.grading import rubric_schema as schema

MAX_BYTES = 1 << 20  # a rubric is a few KiB
MAX_VALUES = 100_000  # values of the rubric with every YAML alias expanded (a rubric has a few hundred)


class RubricError(UsageError, ValueError):
    """The rubric file is invalid; the message says where and how to fix it."""


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
    # identifies the rubric a grade was made with: sha256 of what grading reads (all but the class
    # settings, ``rubric_schema.CLASS_LEVEL``; comments, key order and spacing do not count either)
    digest: str
    similarity: SimilaritySettings = field(default_factory=SimilaritySettings)
    # what graded code may import besides the standard library (every mode and platform alike)
    allowed_imports: tuple[str, ...] = ("numpy",)
    # identifies what the calls and cases are made of: the digest less the points, visibility,
    # scoring and titles (a change of those alone rescores stored answers, no code runs again); the
    # random cases' seed is drawn from it (``course_secret.seed_for``)
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
    # the written analysis's points, apart from ``total`` (``grading/analysis/points.py``; None: no analysis
    # part): class-level too, left out of the digest (changing it regrades no code)
    analysis: AnalysisPoints | None = None

    @property
    def checks(self) -> tuple[CheckSpec, ...]:
        return tuple(check for question in self.questions for check in question.checks)

    @property
    def timezone(self) -> str:
        """The course's IANA timezone, the one setting for it: ``deadline.timezone`` ("": none, times
        are said in UTC alone, e.g. the attempt limits' next attempt)."""
        return self.deadline.zone if self.deadline is not None else ""


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


#: The grader's code that makes a ``Rubric`` of a file's text (the schema, its defaults, the values it
#: builds): a change of any of it is a miss of the validated rubrics kept in the cache.
RUBRIC_CODE = (
    "grading/rubric.py",
    "grading/rubric_schema.py",
    "grading/rubric_settings.py",
    "grading/analysis/points.py",
    "grading/course/attempts.py",
    "grading/course/deadlines.py",
    "grading/course/standing.py",
    "labkit/kinds.py",
    "sandbox/settings.py",
)


def parse(text: str, source: str = "grading.yml", *, lab: Lab) -> Rubric:
    """The rubric in ``text`` (YAML) for ``lab`` (the functions and kinds it may name),
    validated by its schema (``rubric_schema``); ``RubricError`` naming the key's path, the value
    found and what is allowed otherwise. A valid rubric is kept in the cache, keyed by its text, the
    lab's names and ``RUBRIC_CODE``: a grade of an unchanged rubric imports neither YAML nor the
    schema's pydantic (an invalid one is never kept: it is validated, and refused, every time)."""
    names = (
        tuple(lab.functions),
        tuple((function, tuple(kinds)) for function, kinds in lab.kinds_for.items()),
        tuple((kind.value, kind.label) for kind in CheckKind),
        tuple(lab.visibilities),
        tuple(lab.evaluation_libraries),
    )
    code = [paths.PACKAGE / name for name in RUBRIC_CODE]
    key = cache.fingerprint([text, source, repr(names), *code])
    return cache.cached_pickle("rubric", key, lambda: _validated(text, source, lab))


def _validated(text: str, source: str, lab: Lab) -> Rubric:
    """``parse``'s rubric, read and validated (no cache)."""
    from pydantic import ValidationError

    from autograder.grading import rubric_schema as schema

    data = _load(text, source)
    names = schema.LabNames(
        functions=tuple(lab.functions),
        kinds_for={function: tuple(kinds) for function, kinds in lab.kinds_for.items()},
        kind_labels={kind.value: kind.label for kind in CheckKind},
        visibilities=tuple(lab.visibilities),
        evaluation_libraries=tuple(lab.evaluation_libraries),
    )
    try:
        model = schema.RubricFile.model_validate(data, context={"lab": names})
    except ValidationError as error:
        raise RubricError(f"{source}: {schema.explain(error)}") from None
    questions = tuple(
        Question(
            question_id,
            question.title,
            tuple(
                CheckSpec(
                    question=question_id,
                    function=check.function,
                    kind=CheckKind(check.kind),
                    points=check.points,
                    visibility=check.visibility,
                    scoring=check.scoring or model.scoring,
                )
                for check in question.checks
            ),
        )
        for question_id, question in model.questions.items()
    )
    digest, cases_digest = _digests(model)
    return Rubric(
        title=model.title,
        total=model.total,
        random_seed=model.random_seed,
        random_cases=model.random_cases,
        limits=Limits(**model.limits.model_dump(exclude_unset=True), functions=len(lab.functions)),
        questions=questions,
        digest=digest,
        similarity=SimilaritySettings(model.similarity.enabled, model.similarity.threshold),
        allowed_imports=tuple(sorted(set(model.allowed_imports))),
        cases_digest=cases_digest,
        policy=model.students.policy,
        group_extension=model.students.group_extension,
        deadline=model.deadline.value() if model.deadline is not None else None,
        attempts=model.attempts.value(),
        analysis=model.analysis.value() if model.analysis is not None else None,
    )


def _digests(model: schema.RubricFile) -> tuple[str, str]:
    """The rubric's two digests (``Rubric.digest`` and ``cases_digest``), defined once here, of its
    validated ``model``: what grading reads, without the class settings (``schema.CLASS_LEVEL``); and
    of that, what the calls and random cases are made of, without what only scores them
    (``schema.SCORED_ONLY``). Made of the parsed values, every default filled in, so neither a
    comment, the keys' order, the file's spacing nor a value written as its default changes them."""
    from autograder.grading import rubric_schema as schema

    graded = model.model_dump(mode="json", exclude=set(schema.CLASS_LEVEL))
    scored_only = set(schema.SCORED_ONLY)
    calls = {
        **{key: value for key, value in graded.items() if key not in scored_only},
        "questions": {
            question_id: [
                {key: value for key, value in check.items() if key not in scored_only} for check in question["checks"]
            ]
            for question_id, question in graded["questions"].items()
        },
    }
    return (
        hashlib.sha256(json.dumps(_canonical(graded)).encode()).hexdigest(),
        hashlib.sha256(json.dumps(_canonical(calls)).encode()).hexdigest(),
    )


def load(path: Path, lab: Lab) -> Rubric:
    """Load and validate the rubric file ``path`` for ``lab`` (``lab.place.rubric``: its own)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise RubricError(f"cannot read the rubric {path}: {error.strerror}") from None
    return parse(text, Path(path).name, lab=lab)
