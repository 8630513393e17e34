"""grading.yml's schema, declared once: every key, its type, what it means and the rule its value
must meet (pydantic models). ``rubric.py`` loads the YAML and builds the ``Rubric`` from them;
``tools/gendocs.py`` writes the reference page and the JSON Schema from them.

What the lab defines (its functions, their kinds of check, the evaluation libraries) is not named
here: it comes in the validation's context (``LabNames``), from the lab the rubric is parsed for.
A ``ValidationError`` becomes one message naming the key's path, the value found and what is
allowed (``explain``), e.g. ``questions.q2.checks.1.kind: 'edges' is not a kind of check for
<the function>; use one of: examples, edge, random``.
"""

from __future__ import annotations

import collections
import datetime
import difflib
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from autograder.grading.analysis.points import AnalysisPoints
from autograder.grading.course import deadlines, standing
from autograder.grading.course.attempts import AttemptLimits
from autograder.grading.rubric_settings import SCORING, SimilaritySettings
from autograder.sandbox.settings import Limits

#: Read by the class step (and the platforms' attempt gates) only: not in the rubric's digest, nor
#: in the random cases' seed (a class setting such as the deadline, its penalty or extensions, the
#: attempt limits, changes no grade's cases).
CLASS_LEVEL = ("similarity", "students", "deadline", "attempts", "analysis")
#: What only scores the answers (a question's or check's title, points, visibility and scoring, the
#: total): in the rubric's digest, not in the cases' digest (``Rubric.cases_digest``), so changing
#: them rescores the same calls and the same random cases (the seed is drawn from the cases' digest).
SCORED_ONLY = ("points", "visibility", "scoring", "title", "total")

_CONFIG = ConfigDict(extra="forbid", strict=True, frozen=True)


@dataclass(frozen=True)
class LabNames:
    """What the lab a rubric is parsed for defines: the validation's context (``{"lab": LabNames}``)."""

    functions: tuple[str, ...]  # the student API's functions
    kinds_for: Mapping[str, tuple[str, ...]]  # function -> the kinds of check it has
    kind_labels: Mapping[str, str]  # kind -> its label in results (``<function>: <label>``)
    visibilities: tuple[str, ...]  # who sees a check's result and when (the platform's values)
    evaluation_libraries: tuple[str, ...]  # what metric code may not import


def _lab(info: ValidationInfo) -> LabNames:
    names = info.context.get("lab") if isinstance(info.context, dict) else None
    if not isinstance(names, LabNames):
        raise TypeError("rubric_schema: validate with context={'lab': LabNames(...)}, the lab's names")
    return names


def shown(value: object) -> str:
    """A value as a message quotes it: a list or mapping by its kind (its repr could be huge)."""
    if isinstance(value, (list, dict)):
        return f"a {'list' if isinstance(value, list) else 'mapping'} of {len(value)}"
    return repr(value)[:100]


def _wrong(problem: str, key: str = "") -> PydanticCustomError:
    """An error whose message is ``problem``, at the model's ``key`` (a model-wide rule's field)."""
    return PydanticCustomError("rubric", "{problem}", {"problem": problem, "key": key})


def _number(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _wrong(f"must be a number, got {shown(value)}")
    return value


def _moment(value: object) -> object:
    if not isinstance(value, (str, datetime.date)):
        raise _wrong(f"must be a date and time, e.g. {deadlines.EXAMPLE}, got {shown(value)}")
    return value


#: A number as YAML writes it (an int stays an int, so that totals print as written).
Number = Annotated[int | float, BeforeValidator(_number), WithJsonSchema({"type": "number"})]
#: A time: ``2026-12-05 23:59`` (read in ``deadline.timezone``) or with an offset (YAML reads that
#: as a timestamp). The JSON Schema says a string: JSON has no timestamps.
Moment = Annotated[
    str | datetime.datetime | datetime.date,
    BeforeValidator(_moment),
    WithJsonSchema({"type": "string"}),
]


class LimitsSection(BaseModel):
    """``limits:``: how long and how much a submission may take (over the sandbox's defaults)."""

    model_config = _CONFIG

    call_seconds: Number = Field(
        Limits.call_seconds,
        description="Seconds one call of a student's function may take.",
        json_schema_extra={"exclusiveMinimum": 0},
    )
    submission_seconds: Number = Field(
        Limits.submission_seconds,
        description="Seconds all calls of one submission may take.",
        json_schema_extra={"exclusiveMinimum": 0},
    )
    memory_mb: int = Field(
        Limits.memory_mb,
        description="The address space of each process of a submission, in MiB (the container must hold it "
        "and the grader).",
        json_schema_extra={"exclusiveMinimum": 0},
    )
    output_kb: int = Field(
        Limits.output_kb,
        description="What is kept of a submission's stdout and of its stderr, in KiB.",
        json_schema_extra={"exclusiveMinimum": 0},
    )
    overall_seconds: Number = Field(
        Limits.overall_seconds,
        description="Seconds the platform's whole run may take (Gradescope's default: 600); grading stops "
        "starting calls 30 s before it.",
        json_schema_extra={"exclusiveMinimum": 0},
    )

    @field_validator("*")
    @classmethod
    def _positive(cls, value: int | float) -> int | float:
        if value <= 0:
            raise ValueError(f"must be positive, got {value}")
        return value


class CheckEntry(BaseModel):
    """One check of a question: a function of the student API, a kind of check it has, its points."""

    model_config = _CONFIG

    function: str = Field(description="The function of the student API the check grades.")
    kind: str = Field(description="The kind of check: one the function has (the lab says which).")
    points: Number = Field(
        description="The check's points, shared by its cases as `scoring` says.", json_schema_extra={"minimum": 0}
    )
    visibility: str = Field(
        "visible",
        description="Who sees the check's result and when (Gradescope's values, e.g. hidden).",
    )
    scoring: str | None = Field(
        None,
        description="How this check's cases become its points; the rubric's `scoring` when not given.",
        json_schema_extra={"enum": [*SCORING, None]},
    )

    @field_validator("function")
    @classmethod
    def _a_function(cls, function: str, info: ValidationInfo) -> str:
        functions = _lab(info).functions
        if function not in functions:
            raise ValueError(f"{function!r} is not a function of the student API; use one of: {', '.join(functions)}")
        return function

    @field_validator("kind")
    @classmethod
    def _a_kind_of_the_function(cls, kind: str, info: ValidationInfo) -> str:
        function = info.data.get("function")
        if function is None:  # the function is wrong: that is the error to report
            return kind
        kinds = _lab(info).kinds_for[function]
        if kind not in kinds:
            raise ValueError(f"{kind!r} is not a kind of check for {function}; use one of: {', '.join(kinds)}")
        return kind

    @field_validator("points")
    @classmethod
    def _not_negative(cls, points: int | float) -> int | float:
        if points < 0:
            raise ValueError(f"must not be negative, got {points}")
        return points

    @field_validator("visibility")
    @classmethod
    def _a_visibility(cls, visibility: str, info: ValidationInfo) -> str:
        visibilities = _lab(info).visibilities
        if visibility not in visibilities:
            raise ValueError(f"{visibility!r} is not one of {', '.join(visibilities)}")
        return visibility

    @field_validator("scoring")
    @classmethod
    def _a_scoring(cls, scoring: str | None) -> str | None:
        return _scoring(scoring) if scoring is not None else None


def _scoring(scoring: str) -> str:
    if scoring not in SCORING:
        raise ValueError(f"{scoring!r} is not one of {', '.join(SCORING)} (how cases become points)")
    return scoring


class QuestionEntry(BaseModel):
    """One question: a title and its checks."""

    model_config = _CONFIG

    title: str = Field(description="The question's title, as students read it.")
    checks: list[CheckEntry] = Field(description="The question's checks, at least one.", min_length=1)


class SimilaritySection(BaseModel):
    """``similarity:``: the class report's code-similarity section, never shown to students."""

    model_config = _CONFIG

    enabled: bool = Field(SimilaritySettings.enabled, description="false turns the analysis off.")
    threshold: float = Field(
        SimilaritySettings.threshold,
        description="A pair of submissions is listed when this share (0 to 1] of one's own code (not the "
        "handout's, not code many submissions share) is found in the other.",
        json_schema_extra={"exclusiveMinimum": 0, "maximum": 1},
    )

    @field_validator("enabled", mode="wrap")
    @classmethod
    def _true_or_false(cls, value: object, handler: Any) -> bool:
        if not isinstance(value, bool):
            raise _wrong(f"must be true or false, got {shown(value)}")
        return bool(handler(value))

    @field_validator("threshold", mode="wrap")
    @classmethod
    def _a_share(cls, value: object, handler: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise _wrong(
                "must be a number above 0 and at most 1 (the share of a submission's code found in another, "
                f"e.g. {SimilaritySettings.threshold}), got {shown(value)}"
            )
        return float(handler(value))


class StudentsSection(BaseModel):
    """``students:``: which submission of a student counts in grades, reports and exports."""

    model_config = _CONFIG

    policy: str = Field(
        standing.DEFAULT_POLICY,
        description="Which submission of a student counts: "
        + "; ".join(f"{name}: {meaning}" for name, meaning in standing.POLICIES.items())
        + ".",
        json_schema_extra={"enum": list(standing.POLICIES)},
    )

    group_extension: str = Field(
        standing.DEFAULT_GROUP_EXTENSION,
        description="Whose extension covers a group's submission: "
        + "; ".join(f"{name}: {meaning}" for name, meaning in standing.GROUP_EXTENSIONS.items())
        + ".",
        json_schema_extra={"enum": list(standing.GROUP_EXTENSIONS)},
    )

    @field_validator("policy")
    @classmethod
    def _a_policy(cls, policy: str) -> str:
        if policy not in standing.POLICIES:
            raise ValueError(f"{policy!r} is not a policy; use one of: {', '.join(standing.POLICIES)}")
        return policy

    @field_validator("group_extension")
    @classmethod
    def _a_group_extension(cls, choice: str) -> str:
        if choice not in standing.GROUP_EXTENSIONS:
            raise ValueError(f"{choice!r} is not a group extension; use one of: {', '.join(standing.GROUP_EXTENSIONS)}")
        return choice


class DeadlineSection(BaseModel):
    """``deadline:``: the due date and the late policy (without it nothing is late)."""

    model_config = _CONFIG

    due: Moment = Field(
        description=f"The due date, e.g. due: {deadlines.EXAMPLE} (in timezone) or due: 2026-12-05T23:59:00-06:00"
    )
    timezone: str = Field(
        deadlines.Deadline.zone, description="An IANA name (America/Chicago) for times written without an offset."
    )
    penalty: Number = Field(
        deadlines.Deadline.penalty,
        description="Percent of the points taken per started unit (`per`) late; 0: lateness is only shown.",
        json_schema_extra={"minimum": 0, "maximum": 100},
    )
    per: str = Field(
        deadlines.Deadline.per,
        description="The unit a penalty is charged per.",
        json_schema_extra={"enum": list(deadlines.UNITS)},
    )
    cap: Number = Field(
        deadlines.Deadline.cap,
        description="At most this percent in all.",
        json_schema_extra={"minimum": 0, "maximum": 100},
    )
    last_accepted: Moment | None = Field(None, description="Later submissions are graded 0.")
    extensions: str = Field(
        deadlines.Deadline.extensions,
        description="A CSV file (email or sid, due) relative to grading.yml; `grade --extensions FILE` overrides it.",
    )
    _deadline: deadlines.Deadline | None = PrivateAttr(None)

    @field_validator("timezone")
    @classmethod
    def _a_zone(cls, name: str) -> str:
        if name:
            deadlines.zone(name)  # ValueError saying what to write
        return name

    @field_validator("penalty", "cap")
    @classmethod
    def _a_percent(cls, value: int | float) -> int | float:
        if not 0 <= value <= 100:
            raise ValueError(f"must be a percent of the points from 0 to 100, got {value!r}")
        return value

    @field_validator("per")
    @classmethod
    def _a_unit(cls, per: str) -> str:
        if per not in deadlines.UNITS:
            raise ValueError(f"{per!r} is not a unit; use one of: {', '.join(deadlines.UNITS)}")
        return per

    @model_validator(mode="after")
    def _times(self) -> DeadlineSection:
        tz = deadlines.zone(self.timezone) if self.timezone else None
        try:
            due = deadlines.parse(self.due, tz, "the due date")
        except ValueError as error:
            raise _wrong(str(error), "due") from None
        try:
            last = (
                deadlines.parse(self.last_accepted, tz or due.tzinfo, "the last accepted time")
                if self.last_accepted
                else None
            )
        except ValueError as error:
            raise _wrong(str(error), "last_accepted") from None
        if last is not None and last < due:
            raise _wrong(
                f"{deadlines.shown(last)} is before the due date {deadlines.shown(due)}: make it later", "last_accepted"
            )
        self._deadline = deadlines.Deadline(
            due=due,
            zone=self.timezone,
            penalty=float(self.penalty),
            per=self.per,
            cap=float(self.cap),
            last_accepted=last,
            extensions=self.extensions,
        )
        return self

    def value(self) -> deadlines.Deadline:
        """The deadline the section sets."""
        if self._deadline is None:
            raise TypeError("DeadlineSection.value: the section was not validated; use RubricFile.model_validate")
        return self._deadline


class AttemptsSection(BaseModel):
    """``attempts:``: graded attempts a student may make (0: no limit; none by default)."""

    model_config = _CONFIG

    per_period: int = Field(
        AttemptLimits.per_period,
        description="Graded attempts allowed in any window of `period_hours` (a sliding window).",
        ge=0,
    )
    period_hours: Number = Field(
        AttemptLimits.period_hours,
        description="The window, in hours.",
        json_schema_extra={"exclusiveMinimum": 0, "maximum": 24 * 366},
    )
    total: int = Field(AttemptLimits.total, description="Graded attempts allowed in all.", ge=0)

    @field_validator("per_period", "total", mode="wrap")
    @classmethod
    def _a_count(cls, value: object, handler: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _wrong(f"must be a whole number of graded attempts (0: no limit), got {value!r}"[:200])
        return int(handler(value))

    @field_validator("period_hours")
    @classmethod
    def _hours(cls, hours: int | float) -> int | float:
        if not 0 < hours <= 24 * 366:
            raise ValueError(f"must be a number of hours above 0 (e.g. 24), got {hours!r}"[:200])
        return hours

    @model_validator(mode="after")
    def _a_period_needs_a_count(self) -> AttemptsSection:
        if "period_hours" in self.model_fields_set and not self.per_period:
            raise _wrong("needs per_period: how many graded attempts the period allows", "period_hours")
        return self

    def value(self) -> AttemptLimits:
        """The limits the section sets."""
        return AttemptLimits(self.per_period, float(self.period_hours), self.total)


class AnalysisSection(BaseModel):
    """``analysis:``: the written analysis's points (analysis.yml's claims checked against the data, analysis.md
    graded by people), apart from the code's ``total``: a missing or broken analysis never changes the code's
    points. Without the section there is no analysis part."""

    model_config = _CONFIG

    claims: int = Field(
        AnalysisPoints.claims,
        description="How many claims count (the notes ask for two queries): the first ones of analysis.yml.",
        ge=1,
        le=10,
    )
    claim_points: Number = Field(
        AnalysisPoints.claim_points,
        description="Points of each counted claim that holds against the data (every fact of it).",
        json_schema_extra={"minimum": 0},
    )
    prose_points: Number = Field(
        AnalysisPoints.prose_points,
        description="Points of the prose (analysis.md), graded by people: the grading sheet's prose_points.",
        json_schema_extra={"minimum": 0},
    )

    @field_validator("claim_points", "prose_points")
    @classmethod
    def _not_negative(cls, value: int | float) -> int | float:
        if value < 0:
            raise ValueError(f"must be 0 or more points, got {value!r}")
        return value

    def value(self) -> AnalysisPoints:
        """The points the section sets."""
        return AnalysisPoints(self.claims, float(self.claim_points), float(self.prose_points))


def _question_id(key: object) -> object:
    return str(key) if isinstance(key, int) and not isinstance(key, bool) else key  # YAML reads `1:` as a number


#: A question's id: text, or a number YAML read from one (``1:``), kept as its text.
QuestionId = Annotated[str, BeforeValidator(_question_id)]


class RubricFile(BaseModel):
    """grading.yml: what is graded, for how many points, who sees what, and the class's rules."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, title="grading.yml")

    title: str = Field(description="The lab's title, as the reports show it.")
    total: Number = Field(description="The rubric's points: the checks' points must add up to it.")
    random_seed: int = Field(description="The seed of the random cases (with the course secret).")
    random_cases: int = Field(description="How many random cases each random check draws.", ge=1)
    limits: LimitsSection = Field(LimitsSection.model_validate({}), description=LimitsSection.__doc__)
    questions: dict[QuestionId, QuestionEntry] = Field(
        description="The questions, by id (e.g. q1), in order; at least one, no check twice.", min_length=1
    )
    similarity: SimilaritySection = Field(SimilaritySection.model_validate({}), description=SimilaritySection.__doc__)
    allowed_imports: list[str] = Field(
        ["numpy"],
        description="What graded code may import besides the standard library (top-level module names; no "
        "evaluation library).",
    )
    scoring: str = Field(
        "groups",
        description="How a check's cases become its points, for every check without its own: groups (cases "
        "grouped by what they test, each group passed or not), proportional (the share of cases passed) or "
        "all (every case or nothing).",
        json_schema_extra={"enum": list(SCORING)},
    )
    students: StudentsSection = Field(StudentsSection.model_validate({}), description=StudentsSection.__doc__)
    deadline: DeadlineSection | None = Field(None, description=DeadlineSection.__doc__)
    attempts: AttemptsSection = Field(AttemptsSection.model_validate({}), description=AttemptsSection.__doc__)
    analysis: AnalysisSection | None = Field(None, description=AnalysisSection.__doc__)

    @field_validator("deadline", mode="before")
    @classmethod
    def _a_section_or_nothing(cls, section: object) -> object:
        if section is None:  # `deadline:` with nothing under it: a slip, not "no deadline"
            raise _wrong(f"must be a dict of {', '.join(DeadlineSection.model_fields)}, got None")
        return None if section == {} else section  # `deadline: {}`: no deadline, as without the section

    @field_validator("allowed_imports")
    @classmethod
    def _modules(cls, names: list[str], info: ValidationInfo) -> list[str]:
        for name in names:
            if not name.isidentifier():
                raise ValueError(f"must list top-level module names, e.g. [numpy]; got {name!r}")
            if name in _lab(info).evaluation_libraries:
                raise ValueError(f"{name} is an evaluation library: metric code may not use it")
        return names

    @field_validator("scoring")
    @classmethod
    def _a_scoring(cls, scoring: str) -> str:
        return _scoring(scoring)

    @model_validator(mode="after")
    def _checks_add_up(self, info: ValidationInfo) -> RubricFile:
        labels = _lab(info).kind_labels
        names = [
            f"{check.function}: {labels[check.kind]}"
            for question in self.questions.values()
            for check in question.checks
        ]
        duplicates = sorted(name for name, count in collections.Counter(names).items() if count > 1)
        if duplicates:
            raise _wrong(f"the check {duplicates[0]!r} appears twice; keep one", "questions")
        points = sum(check.points for question in self.questions.values() for check in question.checks)
        if abs(points - self.total) > 1e-9:
            raise _wrong(
                f"is {self.total} but the checks' points add up to {points:g}; change total or the points", "total"
            )
        return self


def json_schema() -> dict[str, Any]:
    """grading.yml's JSON Schema (``docs/grading.schema.json``), from the models: the lab's names
    (functions, kinds, visibilities) are any text there, as the lab says which."""
    return RubricFile.model_json_schema()


# ---------------------------------------------------------------- one message per error


def _model_at(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model of the mapping at ``loc`` in grading.yml, if it is one."""
    annotation: Any = RubricFile
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(str(part))
            if field is None:
                return None
            annotation = field.annotation
        else:  # a list's or a mapping's item
            arguments = get_args(annotation)
            annotation = arguments[-1] if arguments else None
    annotation = _unwrap(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """``X | None`` -> ``X``."""
    if get_origin(annotation) in (Union, types.UnionType):
        return next((argument for argument in get_args(annotation) if argument is not type(None)), None)
    return annotation


def _description(loc: tuple[int | str, ...]) -> str:
    """What the key at ``loc`` is for, as its field's description says."""
    model = _model_at(loc[:-1])
    field = model.model_fields.get(str(loc[-1])) if model is not None else None
    return (field.description or "") if field is not None else ""


def _keys(model: type[BaseModel] | None) -> str:
    return ", ".join(model.model_fields) if model is not None else ""


_TYPES = {
    "string_type": "a str",
    "int_type": "a whole number (int)",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
}


def _problem(error: Mapping[str, Any]) -> str:
    """What ``error`` (one of a ``ValidationError``'s) says is wrong, for the reader."""
    kind, loc, found, ctx = error["type"], error["loc"], error.get("input"), error.get("ctx") or {}
    if kind == "rubric":
        return str(ctx["problem"])
    if kind == "value_error":
        return str(ctx["error"])
    if kind in ("missing", "too_short"):
        meaning = _description(loc)
        said = "is missing" if kind == "missing" else "is empty"
        return f"{said}: {meaning[:1].lower()}{meaning[1:]}" if meaning else said
    if kind == "extra_forbidden":
        keys = _keys(_model_at(loc[:-1]))
        close = difflib.get_close_matches(str(loc[-1]), keys.split(", "), n=1)
        return f"unknown key; the keys here are: {keys}{f'; did you mean {close[0]}?' if close else ''}"
    if kind in ("model_type", "dict_type"):
        keys = _keys(_model_at(loc))
        return f"must be a dict{f' of {keys}' if keys else ''}, got {shown(found)}"
    if kind in _TYPES and loc[-1:] == ("[key]",):
        return f"{shown(found)} is not an id: name it with text, e.g. q1"
    if kind in _TYPES:
        return f"must be {_TYPES[kind]}, got {shown(found)}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}, got {shown(found)}"
    return f"{error['msg']}, got {shown(found)}"  # pragma: no cover - a kind of error no key above makes


def explain(error: ValidationError) -> str:
    """The first of ``error``'s problems, as ``path: problem`` (``questions.q2.checks.1.kind: ...``)."""
    errors = error.errors(include_url=False)
    first = next((found for found in errors if found["type"] == "extra_forbidden"), errors[0])  # a misspelt key first
    loc = tuple(first["loc"])
    key = (first.get("ctx") or {}).get("key", "") if first["type"] == "rubric" else ""
    path = ".".join(str(part) for part in (*loc, key) if part not in ("", "[key]"))
    return f"{path}: {_problem(first)}" if path else _problem(first)
