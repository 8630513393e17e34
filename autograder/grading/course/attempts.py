"""Attempt limits: how many of a student's submissions are graded (``grading.yml``'s ``attempts:``).

Hidden cases tell a student pass or fail per case, so unlimited attempts turn the grader into an
oracle. A course may allow ``per_period`` graded attempts in any window of ``period_hours`` (a
sliding window: an attempt stops counting ``period_hours`` after it was submitted) and/or
``total`` graded attempts in all. What counts is a *graded* attempt: one whose code was graded,
whatever its score (a file that does not import counts: its code ran). Attempts that could not be
graded (no graded file found or readable, the grader failing or running out of time: status
``error``) and attempts refused for being over the limit do not count: they told the student
nothing about the hidden cases, and the fault may be the platform's.

Time comes from the submissions themselves (the platform's submission times), never from the
clock, so grading the same submission again gives the same verdict. This module decides; the
platforms read their own metadata (``platforms/gradescope/attempts.py``) and the local batch flags
(``flagged``).
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from autograder.errors import InputError
from autograder.grading.course import deadlines, standing
from autograder.grading.intake import FILE_TIME
from autograder.grading.results import Flag, FlagKind, Status, SubmissionResult

UTC = datetime.timezone.utc


@dataclass(frozen=True)
class AttemptLimits:
    """``grading.yml``'s ``attempts:`` section (the defaults are here, once): 0 means no limit."""

    per_period: int = 0  # graded attempts allowed in any window of period_hours
    period_hours: float = 24.0
    total: int = 0  # graded attempts allowed in all

    @property
    def enabled(self) -> bool:
        return bool(self.per_period or self.total)

    @property
    def period(self) -> datetime.timedelta:
        return datetime.timedelta(hours=self.period_hours)

    def words(self) -> str:
        """The limits as a sentence's end: ``3 graded attempts in any 24 hours, 10 in all``."""
        parts = []
        if self.per_period:
            parts.append(f"{_count(self.per_period)} in any {self.period_hours:g} hours")
        if self.total:
            parts.append(f"{_count(self.total) if not parts else self.total} in all")
        return ", ".join(parts)


@dataclass(frozen=True)
class Attempt:
    """One earlier submission: when, whether it counts (it was graded), and its id if known."""

    time: datetime.datetime  # timezone-aware
    counted: bool
    id: str = ""


@dataclass(frozen=True)
class Verdict:
    """May this submission be graded? ``next_at``: when the next graded attempt is available
    (None when this one is, or when every attempt of ``total`` is used)."""

    allowed: bool
    in_period: int  # graded attempts in the window that ends at this submission
    used: int  # graded attempts before this submission
    next_at: datetime.datetime | None = None
    last: Attempt | None = None  # the latest graded attempt before this one

    def reason(self, limits: AttemptLimits) -> str:
        """Why it is over the limit, in words (empty when allowed)."""
        if self.allowed:
            return ""
        if limits.total and self.used >= limits.total:
            return f"all {_count(limits.total)} allowed are used"
        return (
            f"{_count(self.in_period)} in the last {limits.period_hours:g} hours already, "
            f"of the {limits.per_period} allowed"
        )


def _count(number: int) -> str:
    return f"{number} graded attempt{'' if number == 1 else 's'}"


def parse_time(text: object) -> datetime.datetime:
    """A submission time with its offset, as a timezone-aware datetime (read as ``deadlines.parse``
    reads every time: ISO 8601, ``2026-12-01T14:22:32.365935-08:00`` in Gradescope's
    submission_metadata.json, or Ruby's ``2026-12-01 14:22:32.365935000 -08:00`` in an export's
    submission_metadata.yml); ``ValueError`` saying what was expected otherwise (a time without an
    offset is refused: its instant is unknown)."""
    try:
        return deadlines.parse(text if isinstance(text, str) else "", None, "the submission time")
    except ValueError:
        raise InputError(
            f"{str(text)[:60]!r} is not a submission time with its offset, such as 2026-12-01T14:22:32-08:00"
        ) from None


def decide(limits: AttemptLimits, now: datetime.datetime, previous: Iterable[Attempt]) -> Verdict:
    """The verdict on a submission made at ``now``, given the student's ``previous`` attempts
    (those at or after ``now`` are ignored: a regrade of an old submission sees only its past).
    An attempt counts in the window while ``now - period < its time``: it stops counting exactly
    ``period_hours`` after it was made, which is when the next attempt is available."""
    graded = sorted((attempt for attempt in previous if attempt.counted and attempt.time < now), key=_when)
    last = graded[-1] if graded else None
    window = [attempt for attempt in graded if attempt.time > now - limits.period]
    over_total = bool(limits.total) and len(graded) >= limits.total
    over_period = bool(limits.per_period) and len(window) >= limits.per_period
    if not (over_total or over_period):
        return Verdict(allowed=True, in_period=len(window), used=len(graded), next_at=None, last=last)
    # the window frees a place when its (len - per_period + 1)-th oldest attempt leaves it
    next_at = None if over_total else window[len(window) - limits.per_period].time + limits.period
    return Verdict(allowed=False, in_period=len(window), used=len(graded), next_at=next_at, last=last)


def _when(attempt: Attempt) -> datetime.datetime:
    return attempt.time


def moment(instant: datetime.datetime, zone: str = "") -> str:
    """A time for a student: to the minute, rounded up (never earlier than the instant), in UTC and,
    when the course declares one, in its timezone: ``2026-12-02 14:05 UTC (15:05 CET, Europe/Madrid)``."""
    instant = instant.astimezone(UTC)
    if instant.second or instant.microsecond:
        instant = instant.replace(second=0, microsecond=0) + datetime.timedelta(minutes=1)
    text = f"{instant:%Y-%m-%d %H:%M} UTC"
    local = _in_zone(instant, zone)
    if local is None:
        return text
    day = "" if local.date() == instant.date() else f"{local:%Y-%m-%d} "
    return f"{text} ({day}{local:%H:%M} {local.tzname()}, {zone})"


def _in_zone(instant: datetime.datetime, zone: str) -> datetime.datetime | None:
    """``instant`` in the IANA ``zone``; None when no zone is declared or this machine has no
    timezone database (the time is then said in UTC alone)."""
    if not zone or zone == "UTC":
        return None
    try:
        import zoneinfo

        return instant.astimezone(zoneinfo.ZoneInfo(zone))
    except (ImportError, ValueError, OSError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return None


def refusal(limits: AttemptLimits, verdict: Verdict, zone: str = "") -> str:
    """What the student reads when a submission is over the limit (Markdown, one paragraph)."""
    allowed = limits.words()
    when = (
        f"Your next graded attempt is available from {moment(verdict.next_at, zone)}."
        if verdict.next_at is not None
        else "You have no graded attempt left for this assignment; ask your instructor if you need one."
    )
    kept = (
        " The score and results below are those of your last graded attempt, submitted "
        f"{moment(verdict.last.time, zone)}."
        if verdict.last is not None
        else ""
    )
    return (
        f"{REFUSED} This assignment allows {allowed}, and you have made {verdict.reason(limits)}. "
        f"{when}{kept} Attempts that could not be graded (no graded file found, the grader failing) do not count."
    )


#: The first words of every refusal (a platform that drops our marker still recognises one).
REFUSED = "**This submission was not graded: it is over the limit on graded attempts.**"


def with_flags(
    results: tuple[SubmissionResult, ...], limits: AttemptLimits, zone: str = ""
) -> tuple[SubmissionResult, ...]:
    """A local batch's results, each submission over the limit flagged (``FlagKind.ATTEMPTS``; the
    submission stays in the batch and keeps its grade), any such flag from an earlier run replaced.
    A student's submissions are as ``standing.people`` says (one person however their emails, SIDs
    and names are spread; each member of a group); only submission times from the platform's
    metadata are read (a submission timed by its files' modification time is not checked: copying
    changes them). Graded means not of status error."""
    results = tuple(
        replace(result, flags=tuple(flag for flag in result.flags if flag.kind != FlagKind.ATTEMPTS))
        if any(flag.kind == FlagKind.ATTEMPTS for flag in result.flags)
        else result
        for result in results
    )
    if not limits.enabled:
        return results
    by_student: dict[str, list[tuple[str, datetime.datetime, bool]]] = {}
    for person, mine in standing.people(results).items():
        for result in mine:
            if not result.submitted or result.submitted_from == FILE_TIME:
                continue
            try:
                time = parse_time(result.submitted)
            except ValueError:
                continue
            by_student.setdefault(person, []).append((result.submission, time, result.status != Status.ERROR))
    over = flagged(limits, by_student, zone)
    return tuple(
        replace(result, flags=(*result.flags, Flag(FlagKind.ATTEMPTS, over[result.submission])))
        if result.submission in over
        else result
        for result in results
    )


def flagged(
    limits: AttemptLimits, attempts: dict[str, list[tuple[str, datetime.datetime, bool]]], zone: str = ""
) -> dict[str, str]:
    """For a local batch: ``attempts`` maps each student (any key) to their submissions as
    ``(submission id, time, counted)``; returns submission id -> why it is over the limit, for
    every submission that the platform would not have graded (it stays in the batch, flagged)."""
    over: dict[str, str] = {}
    if not limits.enabled:
        return over
    for submissions in attempts.values():
        earlier: list[Attempt] = []
        for submission, time, counted in sorted(submissions, key=lambda item: (item[1], item[0])):
            verdict = decide(limits, time, earlier)
            if not verdict.allowed:
                over.setdefault(
                    submission,
                    f"over the attempt limit ({limits.words()}): submitted {moment(time, zone)} after "
                    f"{verdict.reason(limits)}; a platform enforcing it would not have graded it",
                )
            earlier.append(Attempt(time, counted and verdict.allowed, submission))
    return over


def grade_rate_minutes(limits: AttemptLimits) -> int:
    """PrairieLearn's ``gradeRateMinutes`` nearest to ``per_period`` in ``period_hours``: the
    period shared evenly, rounded up to a whole minute (0: no rate limit)."""
    if not limits.per_period:
        return 0
    return math.ceil(limits.period_hours * 60 / limits.per_period - 1e-9)
