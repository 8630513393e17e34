"""The registry of LMSs, as a plain dict: each LMS's name and the module that reads its gradebook
export and writes its import (``FORMAT``). It imports nothing, so that the CLI names the LMSs
without loading them; ``export.FORMATS`` loads them."""

from __future__ import annotations

#: name (``--lms``) -> the module holding that LMS's ``FORMAT``
MODULES: dict[str, str] = {
    "canvas": "autograder.lms.canvas",
    "moodle": "autograder.lms.moodle",
    "blackboard": "autograder.lms.blackboard",
}


def names() -> str:
    """The LMSs' names for a reader: "blackboard, canvas or moodle"."""
    ordered = sorted(MODULES)
    return ", ".join(ordered[:-1]) + (" or " if len(ordered) > 1 else "") + ordered[-1]
