"""The course section of the handout's ``README.md``, rendered from ``grading.yml``: when the lab
is due and what lateness costs, how many graded attempts a student has, where to submit on the
platform the build targets, and what graded code may import with the versions it is graded with
(the children's pins, ``requirements/child.txt``: the handout's other pins are not the grader's).

``assignment/README.md`` holds the section between ``BEGIN`` and ``END``, rendered for Gradescope
(``python -m autograder handout-readme`` rewrites it; a test fails while it differs); ``build``
renders it afresh into handout.zip for the platform it targets (``handout.build``'s ``readme``).
It lives with the platforms, which may read the rubric (the handout's tools never read the engine).
"""

from __future__ import annotations

from pathlib import Path

from autograder.errors import InputError
from autograder.grading import rubric as rubrics
from autograder.grading.course import attempts as attempt_limits
from autograder.labkit.lab import Lab
from autograder.platforms.common import doctor

BEGIN = "<!-- course: made from grading.yml by `python -m autograder handout-readme`; edit grading.yml -->"
END = "<!-- /course -->"
#: The platform each build targets -> where its students submit, and whether it takes a zip.
PLATFORMS = {
    "gradescope": ("upload the two files to the lab's assignment on Gradescope", True),
    "prairielearn": ("upload the two files to the lab's question on PrairieLearn (it asks for each by name)", False),
}
DEFAULT_PLATFORM = "gradescope"


def section(rubric: rubrics.Rubric, platform: str, lab: Lab, pins: dict[str, str]) -> str:
    """The section's Markdown, for ``platform`` (a key of ``PLATFORMS``)."""
    if platform not in PLATFORMS:
        raise InputError(f"handout README: no platform {platform!r}; use one of {', '.join(PLATFORMS)}")
    where, zipped = PLATFORMS[platform]
    graded = " and ".join(f"`{lab.package}/{name}`" for name in lab.graded_files)
    lines = ["## This course", ""]
    deadline = rubric.deadline
    if platform == "prairielearn":  # the grader reads no submission time there (setting_support)
        lines.append(
            "- **Deadline:** the dates of the lab's assessment on PrairieLearn (its access rules set any late credit)."
        )
    elif deadline is None:
        lines.append("- **Deadline:** your instructor gives the due date; the autograder charges no late penalty.")
    else:
        lines.append(f"- **Deadline:** {deadline.words()}.")
    limits = rubric.attempts
    if not limits.enabled:
        lines.append("- **Attempts:** no limit on graded attempts.")
    elif platform == "prairielearn":
        rate = attempt_limits.grade_rate_minutes(limits)
        lines.append(
            "- **Attempts:** "
            + (f"one graded submission every {rate} minutes" if rate else "no limit on graded attempts")
            + " (each grading tells you which hidden cases pass: use them well)."
        )
    else:
        lines.append(
            f"- **Attempts:** {limits.words()} (an attempt that could not be graded does not count; over the "
            "limit, your last graded result stays and the autograder says when you may submit again)."
        )
    how = f"{where}, or a zip of them (flat or inside a `{lab.package}/` folder)" if zipped else where
    lines.append(f"- **Submit:** {graded}: {how}.")
    allowed = [f"`{name}` {pins[name]}" if name in pins else f"`{name}`" for name in rubric.allowed_imports]
    lines.append(
        "- **What your graded files may import:** Python's standard library"
        + (f" and {', '.join(allowed)}" if allowed else "")
        + ", nothing else; your code is graded with exactly "
        + ("these versions" if allowed else "the standard library")
        + ", and `requirements.txt` installs them. Its other packages (for the notebook and the public "
        "checks) are pinned to the versions your instructor built the lab with; the grader does not "
        "run them on your code."
    )
    return "\n".join(lines) + "\n"


def render(text: str, rubric: rubrics.Rubric, platform: str, lab: Lab, pins: dict[str, str] | None = None) -> str:
    """``text`` (a README) with the course section between its markers rendered anew."""
    if BEGIN not in text or END not in text:
        raise InputError(
            f"handout README: no course section: put the lines {BEGIN} and {END} where it goes in "
            f"{lab.place.handout / 'README.md'}"
        )
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    found = doctor.pins() if pins is None else pins
    return f"{head}{BEGIN}\n{section(rubric, platform, lab, found)}{END}{tail}"


def expected(lab: Lab, platform: str = DEFAULT_PLATFORM, rubric_path: Path | None = None) -> str:
    """The lab's handout README as it should be for ``platform`` under the rubric at ``rubric_path``
    (by default the lab's grading.yml)."""
    path = lab.place.handout / "README.md"
    loaded = rubrics.load(rubric_path or lab.place.rubric, lab)
    return render(path.read_text(encoding="utf-8"), loaded, platform, lab)


def write(lab: Lab) -> Path:
    """Rewrite the handout's README.md's course section (for Gradescope): the file written."""
    path = lab.place.handout / "README.md"
    path.write_text(expected(lab), encoding="utf-8")
    return path
