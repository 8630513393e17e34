"""Deadlines: when a submission is late and what that costs. The late policy's rule lives here
alone, as pure functions (no clock, no files); ``grading.yml``'s ``deadline:`` section sets it.

The rule (``lateness`` and ``grade``), for a submission handed in at ``submitted`` against the due
date ``due`` that applies to it (the class's, or an extension's):

- **on time** when ``submitted <= due``: a submission at the due date's very second is on time;
- otherwise it is ``submitted - due`` late, and the units charged are the *started* hours or days
  (``per``): ``units = ceil(late / unit)``, so one second late is one unit;
- the penalty is ``min(cap, units * penalty)`` percent of the maximum score, and the grade
  ``max(0, score - max_score * percent / 100)``: never below 0;
- after the **last accepted** time the submission is not accepted: its grade is 0 (a student's
  last accepted time moves with their extension: ``last_accepted + (their due - the class's due)``);
- no due date (no ``deadline:`` section): nothing is late, and no ``Late`` is made;
- an unknown submission time (a result stored without one) counts as on time, and says so.

Times are aware datetimes; a time written without an offset is read in the section's
``timezone`` (an IANA name), and every time is shown in it.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass

from autograder.errors import InputError

UNITS = {"hour": 3600, "day": 86400}  # seconds of each unit a penalty is charged per
EXAMPLE = "2026-12-05 23:59"

_TIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?"
    r"\s*(Z|UTC|[+-]\d\d(?::?\d\d)?)?"
)


@dataclass(frozen=True)
class Deadline:
    """The class's due date and late policy (``grading.yml``'s ``deadline:``)."""

    due: datetime.datetime  # aware
    zone: str = ""  # the IANA timezone times are read and shown in ("": the due date's own offset)
    penalty: float = 0.0  # percent of the maximum score per started unit late
    per: str = "day"  # the unit: a key of UNITS
    cap: float = 100.0  # at most this percent in all
    last_accepted: datetime.datetime | None = None  # later: not accepted (grade 0)
    extensions: str = ""  # the extensions CSV named by the rubric ("" none), relative to it

    def tz(self) -> datetime.tzinfo:
        return zone(self.zone) if self.zone else self.due.tzinfo  # type: ignore[return-value]

    def words(self) -> str:
        """The policy in one sentence, for the class report."""
        text = f"due {shown(self.due, self.tz())}"
        if self.penalty:
            text += f"; {points_text(self.penalty)}% of the points per started {self.per} late"
            text += f", at most {points_text(self.cap)}%" if self.cap < 100 else ""
        else:
            text += "; no penalty for lateness (only shown)"
        if self.last_accepted is not None:
            text += f"; nothing accepted after {shown(self.last_accepted, self.tz())}"
        return text


@dataclass(frozen=True)
class Late:
    """How late one submission was and what it costs (stored in its result: what its student was told)."""

    due: str  # the due date that applied, ISO 8601 with its offset
    submitted: str = ""  # when it was submitted, ISO 8601 ("" unknown: counted on time)
    seconds: int = 0  # how late (0: on time)
    units: int = 0  # started hours or days charged
    per: str = "day"
    percent: float = 0.0  # of the maximum score, capped
    accepted: bool = True  # False: after the last accepted time, graded 0
    extended: bool = False  # the due date is the student's extension
    note: str = ""  # where the submission time came from, when not from Gradescope's metadata

    @property
    def on_time(self) -> bool:
        return self.seconds == 0 and self.accepted


def zone(name: str) -> datetime.tzinfo:
    """The IANA timezone ``name``; ``ValueError`` saying what to write otherwise."""
    import zoneinfo

    if name.upper() == "UTC":
        return datetime.timezone.utc
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise InputError(
            f"{name[:60]!r} is not a timezone this machine knows: write an IANA name such as America/Chicago or "
            "Europe/Madrid"
        ) from None


def parse(value: object, tz: datetime.tzinfo | None, what: str = "the time") -> datetime.datetime:
    """A date and time as ``grading.yml``, an extensions file or Gradescope's metadata write it
    (``2026-12-05 23:59``, ``2026-12-05T23:59:00-06:00``, Ruby's ``2026-12-05 23:59:00.123456789
    -06:00``, a YAML timestamp): an aware datetime. Without an offset it is read in ``tz``; with
    neither, or not a time at all, ``ValueError`` saying how to write it."""
    if isinstance(value, datetime.datetime):
        found = value
    elif isinstance(value, datetime.date):
        raise InputError(f"{what} {value.isoformat()} has no time of day: write one too, e.g. {value} 23:59")
    else:
        match = _TIME.fullmatch(str(value).strip())
        if match is None:
            raise InputError(
                f"{what} {str(value)[:60]!r} is not a date and time: write it as {EXAMPLE} (or with an offset, "
                "2026-12-05T23:59:00-06:00)"
            )
        year, month, day, hour, minute, second, fraction, offset = match.groups()
        try:
            found = datetime.datetime(
                int(year), int(month), int(day), int(hour), int(minute), int(second or 0),
                int((fraction or "0")[:6].ljust(6, "0")), tzinfo=_offset(offset),
            )  # fmt: skip
        except ValueError as error:
            raise InputError(f"{what} {str(value)[:60]!r} is not a real date and time ({error})") from None
    if found.tzinfo is None:
        if tz is None:
            raise InputError(
                f"{what} {str(value)[:60]!r} says no timezone: give it an offset (2026-12-05T23:59:00-06:00) or "
                "set deadline.timezone in grading.yml (e.g. America/Chicago)"
            )
        found = found.replace(tzinfo=tz)
    return found


def _offset(text: str | None) -> datetime.tzinfo | None:
    if not text:
        return None
    if text in ("Z", "UTC"):
        return datetime.timezone.utc
    digits = text[1:].replace(":", "")
    minutes = int(digits[:2]) * 60 + int(digits[2:4] or 0)
    return datetime.timezone(datetime.timedelta(minutes=minutes if text[0] == "+" else -minutes))


def iso(moment: datetime.datetime, tz: datetime.tzinfo | None = None) -> str:
    """A time as stored: ISO 8601 to the second, with its offset (in ``tz`` when given)."""
    return (moment.astimezone(tz) if tz else moment).isoformat(timespec="seconds")


def shown(moment: datetime.datetime | str, tz: datetime.tzinfo | None = None) -> str:
    """A time as people read it: ``2026-12-05 23:59 UTC-06:00`` (in ``tz`` when given)."""
    if isinstance(moment, str):
        moment = datetime.datetime.fromisoformat(moment)
    if tz is not None:
        moment = moment.astimezone(tz)
    offset = moment.utcoffset() or datetime.timedelta(0)
    sign, minutes = ("-" if offset < datetime.timedelta(0) else "+"), abs(int(offset.total_seconds())) // 60
    return f"{moment:%Y-%m-%d %H:%M} UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def duration(seconds: int) -> str:
    """``3 d 4 h``, ``2 h 5 min``, ``40 s``: how late, for people."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, rest = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min" if minutes else f"{rest} s"


def points_text(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def lateness(
    submitted: datetime.datetime | None,
    deadline: Deadline,
    due: datetime.datetime | None = None,
    note: str = "",
) -> Late:
    """How late a submission handed in at ``submitted`` is against ``due`` (a student's extension;
    the class's due date by default), under ``deadline``'s policy (the module's rule)."""
    due = due or deadline.due
    extended = due != deadline.due
    tz = deadline.tz()
    if submitted is None:
        return Late(
            due=iso(due, tz), submitted="", extended=extended, note=note or "submission time unknown: counted on time"
        )
    seconds = max(0, math.ceil((submitted - due).total_seconds()))
    units = math.ceil(seconds / UNITS[deadline.per]) if seconds else 0
    percent = min(deadline.cap, units * deadline.penalty)
    last = deadline.last_accepted
    accepted = last is None or submitted <= last + (due - deadline.due)
    return Late(
        due=iso(due, tz),
        submitted=iso(submitted, tz),
        seconds=seconds,
        units=units,
        per=deadline.per,
        percent=percent,
        accepted=accepted,
        extended=extended,
        note=note,
    )


def deduction(late: Late | None, max_score: float) -> float:
    """The points a late submission loses (all it earned when not accepted, see ``grade``)."""
    return 0.0 if late is None else round(max_score * late.percent / 100, 4)


def grade(score: float, max_score: float, late: Late | None) -> float:
    """The grade after the penalty: ``max(0, score - deduction)``; 0 when not accepted."""
    if late is not None and not late.accepted:
        return 0.0
    return round(max(0.0, score - deduction(late, max_score)), 4)


def describe(late: Late | None, max_score: float) -> str:
    """The lateness in words ("" without a due date), as feedback, the report and grades say it."""
    if late is None:
        return ""
    due = f"due {shown(late.due)}" + (" (extended)" if late.extended else "")
    if not late.submitted:
        return f"{late.note} ({due})"
    when = f"submitted {shown(late.submitted)}"
    source = f"; {late.note}" if late.note else ""
    if not late.accepted:
        return f"not accepted: {when}, after the last accepted time ({due}): graded 0{source}"
    if not late.seconds:
        return f"on time: {when} ({due}){source}"
    cost = (
        f"{late.units} started {late.per}{'s' if late.units != 1 else ''} charged, -{points_text(late.percent)}% "
        f"(-{points_text(deduction(late, max_score))} points)"
        if late.percent
        else "no penalty"
    )
    return f"late by {duration(late.seconds)}: {when} ({due}); {cost}{source}"


def brief(late: Late | None) -> str:
    """The lateness in a few words, for a table's cell ("" without a due date)."""
    if late is None:
        return ""
    extended = " (extended)" if late.extended else ""
    if not late.accepted:
        return f"not accepted: late by {duration(late.seconds)}{extended}"
    if not late.submitted:
        return "time unknown: on time" + extended
    return (f"late by {duration(late.seconds)}" if late.seconds else "on time") + extended
