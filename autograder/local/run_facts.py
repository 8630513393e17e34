"""The facts of one grading run: what the class report's "Grading run" table says of it.

A batch builds them (``batch.grade_batch``), a shard stores them in its manifest as JSON (the
labels as keys, so that shards graded by an earlier version still merge), ``merge`` combines the
shards' facts, and ``batch.finish`` adds the time taken and the similarity when the report is
written. ``LABELS`` spells every label once, in the report's order.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from autograder.errors import InputError

#: Each field's label in the report, in the report's order.
LABELS = {
    "graded_at": "graded at (UTC)",
    "submissions": "submissions",
    "graded_now": "graded in this run",
    "skipped": "skipped (already graded)",
    "time_taken": "time taken",
    "jobs": "jobs",
    "isolation": "isolation",
    "similarity": "similarity",
    "rubric": "rubric",
    "reference": "reference",
    "grader": "grader",
}


@dataclass(frozen=True)
class RunFacts:
    graded_at: str  # when the run started, UTC, "YYYY-mm-dd HH:MM:SS"
    submissions: int  # the batch's submissions, graded now or before
    graded_now: int
    skipped: int  # already graded by an earlier run, their files unchanged
    jobs: int | str  # worker processes ("2 to 4 (by shard)" when merged shards differ)
    isolation: str  # the sandbox's mode(s)
    rubric: str  # grading.yml's path and digest
    reference: str  # the hidden reference's digest
    grader: str  # the grader's name and version
    time_taken: str = ""  # said when the report is written
    similarity: str = ""  # what the similarity step found, said when the report is written

    def shown(self) -> dict[str, str | int]:
        """The facts as the report's table shows them: label -> value, in the report's order."""
        values = asdict(self)
        return {label: values[name] for name, label in LABELS.items()}

    @classmethod
    def from_shown(cls, data: object, where: str) -> RunFacts:
        """The facts a shard's manifest stored (``shown``'s mapping); ``ValueError`` naming
        ``where`` and the label when one is missing or of the wrong type."""
        if not isinstance(data, dict):
            raise InputError(f"{where}: the run's facts are not a mapping: grade the shard again")
        values: dict[str, Any] = {}
        for field in fields(cls):
            label = LABELS[field.name]
            value = data.get(label, "" if field.default == "" else None)
            allowed = (int, str) if field.name == "jobs" else (int,) if field.type == "int" else (str,)
            if isinstance(value, bool) or not isinstance(value, allowed):
                raise InputError(
                    f"{where}: the run's {label!r} is missing or not a {allowed[0].__name__}: grade the shard again"
                )
            values[field.name] = value
        return cls(**values)
