"""Which of ``grading.yml``'s class settings each platform applies, and how: the one declaration
the settings x platform table (``docs/PLATFORM_SETTINGS.md``, written by ``tools/gendocs.py``), the
table each build prints (``grid``) and the builds' notes are made from.

``SUPPORT[setting][platform]`` is ``(state, how)``: ``APPLIED``, ``PARTLY`` (some of it, the
rest said) or ``NOT_APPLICABLE`` (and why, with what to do instead). ``notes(platform)`` is what
a build prints for each setting it cannot apply in full. A build says ``NOT_SET`` of a setting its
rubric leaves out (``unset``: no deadline, no penalty, no attempt limits), never "applied".
"""

from __future__ import annotations

from collections.abc import Collection

from autograder.grading import rubric as rubrics

APPLIED = "applied"
PARTLY = "partly"
NOT_APPLICABLE = "not applicable"
#: What a build prints for a setting the rubric leaves out: nothing of it applies anywhere.
NOT_SET = "not set"

PLATFORMS = {"local": "local (`grade`)", "gradescope": "Gradescope", "prairielearn": "PrairieLearn"}

#: Each setting -> the key of grading.yml that sets it (a test finds each in the rubric's schema).
KEYS = {
    "deadline": "deadline",
    "penalty": "deadline.penalty",
    "extensions": "deadline.extensions",
    "group_extension": "students.group_extension",
    "attempts": "attempts",
    "policy": "students.policy",
    "similarity": "similarity",
    "overall_seconds": "limits.overall_seconds",
    "memory_mb": "limits.memory_mb",
    "visibility": "questions.*.checks.*.visibility",
}

SUPPORT: dict[str, dict[str, tuple[str, str]]] = {
    "deadline": {
        "local": (APPLIED, "by a trusted time: an export's `created_at` or `--times`; none: on time"),
        "gradescope": (APPLIED, "`created_at` against the assignment's `due_date` and `late_due_date`"),
        "prairielearn": (NOT_APPLICABLE, "this grader reads no submission time there: set the access rules' dates"),
    },
    "penalty": {
        "local": (APPLIED, "grades.csv, the report, feedback and the LMS exports give the grade after it"),
        "gradescope": (APPLIED, "results.json's score is the grade after it"),
        "prairielearn": (NOT_APPLICABLE, "no submission time: give reduced credit in the access rules"),
    },
    "extensions": {
        "local": (APPLIED, "the extensions file (`--extensions` or `deadline.extensions`)"),
        "gradescope": (PARTLY, "a student's own due date in the metadata; the extensions file is not read there"),
        "prairielearn": (NOT_APPLICABLE, "no submission time: give the student an access rule of their own"),
    },
    "group_extension": {
        "local": (APPLIED, "each group member late by their own due date (`own`), or as the setting says"),
        "gradescope": (
            PARTLY,
            "one score per submission: the strictest member's dates (`own`, `all`), the most lenient's (`any`)",
        ),
        "prairielearn": (NOT_APPLICABLE, "no submission time: give each student an access rule of their own"),
    },
    "attempts": {
        "local": (APPLIED, "submissions over the limits are flagged in the class report"),
        "gradescope": (APPLIED, "`run_autograder` refuses a submission over the limit, keeping the last grade"),
        "prairielearn": (PARTLY, "`per_period` becomes `gradeRateMinutes`; `total` has no PrairieLearn setting"),
    },
    "policy": {
        "local": (APPLIED, "the submission that counts per student in grades.csv and the exports"),
        "gradescope": (NOT_APPLICABLE, "Gradescope keeps the active submission: choose it there"),
        "prairielearn": (NOT_APPLICABLE, "PrairieLearn keeps the best score of a Homework question"),
    },
    "similarity": {
        "local": (APPLIED, "the class report's Similar code section"),
        "gradescope": (NOT_APPLICABLE, "each run sees one submission: run `grade` on the export"),
        "prairielearn": (NOT_APPLICABLE, "each run sees one submission: run `grade` on the downloaded submissions"),
    },
    "overall_seconds": {
        "local": (NOT_APPLICABLE, "a batch has no overall limit: `limits.submission_seconds` bounds each submission"),
        "gradescope": (
            PARTLY,
            "grading stops starting calls 30 s before it; Gradescope's own timeout is the Autograder Settings' "
            "(set it to the same)",
        ),
        "prairielearn": (APPLIED, "info.json's `timeout` (at most 600 s); grading stops starting calls before it"),
    },
    "memory_mb": {
        "local": (APPLIED, "the address space of each process of a submission, in every isolation mode"),
        "gradescope": (
            APPLIED,
            "each process of a submission; the container's memory is the Autograder Settings' (keep room for it)",
        ),
        "prairielearn": (APPLIED, "each process of a submission; the grading container's memory is PrairieLearn's"),
    },
    "visibility": {
        "local": (APPLIED, "feedback given to students leaves out `hidden` checks; the class report shows all"),
        "gradescope": (APPLIED, "each test's `visibility` in results.json: Gradescope shows it then"),
        "prairielearn": (PARTLY, "no per-test visibility: a check that is not `visible` shows its points only"),
    },
}


def unset(rubric: rubrics.Rubric) -> frozenset[str]:
    """The settings ``rubric`` leaves out, of which a build says ``NOT_SET``: without a deadline, the
    deadline, its penalty and the extensions; a penalty of 0; no attempt limits."""
    missing = set()
    if rubric.deadline is None:
        missing |= {"deadline", "penalty", "extensions", "group_extension"}
    elif not rubric.deadline.penalty:
        missing.add("penalty")
    if not (rubric.attempts.per_period or rubric.attempts.total):
        missing.add("attempts")
    return frozenset(missing)


def cell(setting: str, platform: str) -> str:
    """One cell of the table: its state, then how (or why not)."""
    state, how = SUPPORT[setting][platform]
    return f"{state}: {how}"


def table() -> str:
    """The settings x platform table (Markdown): each setting by its grading.yml key."""
    lines = [
        "| grading.yml | " + " | ".join(PLATFORMS.values()) + " |",
        "|---|" + "---|" * len(PLATFORMS),
    ]
    for setting in SUPPORT:
        lines.append(f"| `{KEYS[setting]}` | " + " | ".join(cell(setting, platform) for platform in PLATFORMS) + " |")
    return "\n".join(lines) + "\n"


def grid(missing: Collection[str] = ()) -> list[str]:
    """The same table for a terminal, the states alone (what a build prints; its notes say how);
    ``NOT_SET`` for the settings in ``missing`` (``unset``: the rubric leaves them out)."""
    names = {"local": "local", "gradescope": "Gradescope", "prairielearn": "PrairieLearn"}
    rows = [["grading.yml", *names.values()]]
    rows += [
        [KEYS[setting], *(NOT_SET if setting in missing else SUPPORT[setting][platform][0] for platform in names)]
        for setting in SUPPORT
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "what applies where (the notes below say how; docs/PLATFORM_SETTINGS.md has the whole table):",
        *("  " + "  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in rows),
    ]


def notes(platform: str, missing: Collection[str] = ()) -> list[str]:
    """What a build for ``platform`` says of the settings it cannot apply in full (none of those in
    ``missing``: the rubric leaves them out)."""
    if platform not in PLATFORMS:
        raise ValueError(f"no platform {platform!r}: use one of {', '.join(PLATFORMS)}")
    return [
        f"{setting} on {PLATFORMS[platform]}: {cell(setting, platform)}"
        for setting, where in SUPPORT.items()
        if where[platform][0] != APPLIED and setting not in missing
    ]
