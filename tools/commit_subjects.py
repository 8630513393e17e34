"""``make check``: every commit since the rule was adopted has a subject a log can show whole.

A subject is at most 72 characters, does not end with a full stop, and is followed by a blank line
when a body follows (``git log --oneline``, ``git shortlog`` and every forge cut longer ones). The
rule holds from ``SINCE`` on; earlier history is left as it was written. In a shallow clone that does
not hold ``SINCE``, only the commits the clone has are checked.

    python tools/commit_subjects.py [REVISION]     # default HEAD
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The first commit the rule applies to (issue 31, item 7).
SINCE = "6feb3cd"
LIMIT = 72


def problems(message: str) -> list[str]:
    """What is wrong with one commit message (empty when nothing is)."""
    lines = message.rstrip("\n").split("\n")
    subject = lines[0]
    found = []
    if not subject.strip():
        found.append("the subject is empty")
    if len(subject) > LIMIT:
        found.append(f"the subject has {len(subject)} characters (at most {LIMIT}): put the why in the body")
    if subject.rstrip().endswith("."):
        found.append("the subject ends with a full stop")
    if len(lines) > 1 and lines[1].strip():
        found.append("the subject is not followed by a blank line")
    return found


def _git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def _commits(revision: str) -> Iterable[tuple[str, str]]:
    parent = subprocess.run(["git", "rev-parse", "-q", "--verify", f"{SINCE}^"], cwd=ROOT, capture_output=True)
    span = f"{SINCE}^..{revision}" if parent.returncode == 0 else revision  # SINCE a root, or not cloned
    for record in _git("log", "--format=%h%x00%B%x01", span).split("\x01"):
        if record.strip():
            commit, _, message = record.strip("\n").partition("\x00")
            yield commit, message


def main(argv: list[str]) -> int:
    revision = argv[0] if argv else "HEAD"
    bad = [(commit, problem) for commit, message in _commits(revision) for problem in problems(message)]
    for commit, problem in bad:
        print(f"commit {commit}: {problem}", file=sys.stderr)
    if bad:
        print(
            "reword them before they land: `git commit --amend` for the last one, `git rebase -i` for older ones",
            file=sys.stderr,
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
