"""The environment variables the grader and its shipped scripts read, declared once: each is
``AUTOGRADER_<NAME>``. The old name ``LAB05_<NAME>`` is still read, with a one-line warning on
stderr naming the new one (once per variable and process)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

PREFIX = "AUTOGRADER_"
OLD_PREFIX = "LAB05_"  # the names before every lab shared the engine: still read, with a warning

#: Each variable (without its prefix) -> what it sets. The grader reads the first group; the shipped
#: scripts (run_autograder, setup.sh, the entrypoints) the second, with the same fallback.
VARIABLES = {
    "LAB": "the lab's folder (the CLI's --lab): lab/, grading.yml, assignment/, solutions/",
    "HIDDEN": "where a platform keeps the hidden reference (expected.json, the edge cases, the scenarios)",
    "BUNDLE": "the precomputed reference collection's bundle, shipped with the hidden reference",
    "CACHE": "the grader's cache folder (default ~/.cache/autograder)",
    "SHARED_CACHE": "a read-only, pre-warmed cache shards share: Cranfield's bundle and the plans, read first",
    "COURSE_SECRET": "the course secret's file (default: beside the rubric)",
    "SHARD_KEY": "the key shard manifests are signed with, when shards are graded on other machines",
    "SANDBOX_UID": "the first sandbox uid to lease (default 64000)",
    "UID_LEASES": "where the sandbox uids' leases live (default /run/autograder-sandbox-uids)",
    "CHILD_PYTHON": "the interpreter submissions run in",
    # read by the shipped scripts
    "ROOT": "Gradescope's folder for run_autograder and setup.sh (default /autograder)",
    "PYTHON": "the grader's interpreter (run_autograder, the entrypoints)",
    "ISOLATION": "how submissions are enclosed (run_autograder, the PrairieLearn entrypoint)",
    "SOURCE": "where setup.sh finds the grader's source",
    "CHILD_ENV": "where setup.sh installs the children's environment",
    "SKIP_INSTALL": "setup.sh installs nothing when set (the tests' simulation)",
    "REPO": "the container's checkout of the repository (the local container's entrypoint)",
    "CRANFIELD": "where the local container finds Cranfield's files",
    "GRADE_ROOT": "the PrairieLearn entrypoint's grading folder (default /grade)",
    "HOME": "the PrairieLearn image's home of the grader (default /grader)",
}

_warned: set[str] = set()


def name(variable: str) -> str:
    """The variable's full name, ``AUTOGRADER_<variable>``; a ValueError for one not declared."""
    if variable not in VARIABLES:
        raise ValueError(
            f"environment.name: {variable!r} is not a variable of the grader; declare it in VARIABLES "
            f"(known: {', '.join(VARIABLES)})"
        )
    return PREFIX + variable


def get(variable: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable's value (unset or empty: None), from ``AUTOGRADER_<variable>``, else from its old
    name ``LAB05_<variable>`` with a deprecation warning on stderr naming the new one."""
    found = os.environ if environ is None else environ
    new = name(variable)
    if found.get(new):
        return found[new]
    old = OLD_PREFIX + variable
    if found.get(old):
        if variable not in _warned:
            _warned.add(variable)
            print(f"warning: ${old} is deprecated; set ${new} instead", file=sys.stderr)
        return found[old]
    return None
