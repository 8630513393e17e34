"""The course secret and the random cases' seed drawn from it: a grade is a function of the
graded files and the course.

A grading's random cases are drawn from a seed made of the course secret, the rubric's cases'
digest (``Rubric.cases_digest``: what the calls and cases are made of, from the parsed rubric, so
neither a comment, the keys' order, a class setting such as the deadline, its penalty, extensions
or attempts, nor a check's points changes it) and the digests of the graded files as graded
(``seed_for``). The same files under the same rubric draw the same cases wherever they are graded
(a batch, any shard of it, a regrade, a platform built from another copy of grading.yml);
a file changed by one byte draws new ones, so a table of answers copied from earlier feedback
gains nothing. The secret is kept beside the rubric in ``course-secret`` (git-ignored, never in
the handout; a platform build ships it with the hidden reference): with it a student could
precompute the cases, so it never reaches them, and only the seed derived from it is recorded
(``SubmissionResult.random_seed``).

Only a local batch makes a missing secret (on first use, beside the rubric). A platform run
(Gradescope, PrairieLearn) without the secret its build should have shipped refuses to grade
(``MissingSecret``): cases drawn afresh would give the same files another grade at every run.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from pathlib import Path

from autograder import environment, paths
from autograder.errors import InputError, UsageError

FILE_NAME = "course-secret"


#: Names the file holding the course secret, wherever the course keeps it (outside the checkout,
#: a secrets store's mount, the test suite's fixed one): then it is used for every rubric.
ENVIRONMENT = environment.name("COURSE_SECRET")


class MissingSecret(UsageError, RuntimeError):
    """No course secret where a platform run needs it: nothing may be graded (the build shipped none)."""


def location(rubric_path: Path) -> Path:
    """Where the course secret of the rubric at ``rubric_path`` is kept: the file
    ``$AUTOGRADER_COURSE_SECRET`` names, else beside the rubric, or on a platform (where the build
    shipped it with the hidden reference, ``shipment.hidden_entries``) in the folder
    ``$AUTOGRADER_HIDDEN`` names."""
    named = environment.get("COURSE_SECRET")
    if named:
        return Path(named)
    beside = Path(rubric_path).parent / FILE_NAME
    shipped = paths.LAB_DATA / FILE_NAME
    return shipped if not beside.is_file() and shipped.is_file() else beside


def load(rubric_path: Path, create: bool) -> tuple[str, str]:
    """The course secret kept beside the rubric and a note for the instructor (``""`` when there
    is nothing to say). ``create``: a missing secret is made now (a local batch) and the note says
    so; otherwise a missing one raises ``MissingSecret``, whose message says to rebuild with one."""
    where = location(rubric_path)
    if where.is_file():
        text = where.read_text(encoding="utf-8").strip()
        if len(text) < 32 or any(char not in "0123456789abcdef" for char in text):
            raise InputError(
                f"the course secret {where} is not 32 or more lowercase hex digits (it holds {len(text)} "
                "characters); delete it to have a new one made, or restore the course's own"
            )
        return text, ""
    if not create:
        raise MissingSecret(
            f"no course secret at {where} (nor {paths.LAB_DATA / FILE_NAME}): the autograder was built without "
            f"one, so the same files would get other random cases, and another grade, at every run; nothing "
            f"was graded. Rebuild it (python -m autograder build) from a checkout with the course's {FILE_NAME} "
            f"beside grading.yml (a local batch makes one on first use), upload it again and regrade"
        )
    text = secrets.token_hex(32)
    try:
        where.write_text(text + "\n", encoding="utf-8")
        where.chmod(0o600)
    except OSError as error:
        raise InputError(
            f"cannot make the course secret at {where} ({error.strerror or error}): a local batch keeps one "
            f"beside the rubric on first use; make that folder writable, or name a file with "
            f"${ENVIRONMENT} (an existing course secret there is read, a missing one made)"
        ) from None
    return text, (
        f"made a new course secret at {where}: keep it with the rubric (never in the handout) so that "
        "every grading of the same files draws the same random cases"
    )


def seed_for(secret: str, rubric: str, digests: Mapping[str, str], lab: str) -> str:
    """The random cases' seed of the graded files with these ``digests`` (file name -> sha256)
    under the rubric whose cases' digest is ``rubric`` (``Rubric.cases_digest``) of the lab whose
    short name is ``lab`` (``Lab.slug``: Lab 05's draws are those it drew when the text named it
    alone); a digest that reveals nothing of ``secret``."""
    if not secret:
        raise ValueError("seed_for needs the course secret; got an empty one (see course_secret.load)")
    if not lab or any(char.isspace() for char in lab):
        raise ValueError(f"seed_for needs the lab's short name (Lab.slug), one word; got {lab!r}")
    files = "\n".join(f"{name}={digest}" for name, digest in sorted(digests.items()))
    text = f"{lab} random cases\n{secret}\n{rubric}\n{files}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
