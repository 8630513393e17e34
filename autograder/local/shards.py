"""A class graded on more than one machine: ``grade --shard I/N`` grades a stable share of the
class into its own output folder, and ``merge`` (``local/merge.py``) makes one batch of them.

A submission's shard is a hash of its id (``owner``): adding a submission to the class never moves
another, and every machine computes the same share from the same class folder. A shard writes its
submissions' usual files, a copy of their graded files (``submissions/<id>/graded/``: the code
similarity is computed over the whole class when the shards are merged) and, last, its manifest
``shard.json``: which shard of how many, the whole class's ids, the digests of the rubric, the
reference and the grader, the random cases' seed, the rubric's text, the facts of the run, the
digest of every file of its submissions' folders and, over all of it, a signature (``sign``: an
HMAC-SHA256 with the shard key, ``key``). A shard writes no grades.csv and no class report: those
are the merged batch's.

The signature binds a shard's files to its batch against whoever can edit the shard's folder
between ``grade --shard`` and ``merge`` (a shared drive, a bucket, a TA's copy, a student who got
hold of it) but does not hold the key: an edited grade.json (a score, a name), results.json or
feedback, a file added or removed, and an edited manifest are all refused by ``merge``. The key
is ``AUTOGRADER_SHARD_KEY`` (the course's secret: give the same to every machine that grades a shard
and to the one that merges, e.g. a Kubernetes Secret or the Slurm job's environment), else a
random key kept in the grader's private cache folder (``cache.secret_key``: shards graded and
merged by one user of one machine, or of a shared home). Whoever holds the key (the instructor's
account, the machines that grade) can sign anything: it protects the shards' files in transit
and at rest, not against the grader's own user.

``--shard auto`` takes the shard from the task's own index, 0-based, plus one: a Kubernetes Indexed
Job's ``JOB_COMPLETION_INDEX`` (give the count as ``auto/N``) or a Slurm array's
``SLURM_ARRAY_TASK_ID`` (the count given as ``auto/N``, or ``auto`` alone from an array submitted
whole, ids 0 to ``SLURM_ARRAY_TASK_COUNT`` - 1), never from how many tasks were submitted: a task
retried alone (``sbatch --array=3``) grades shard 4 of N again. docs/SCALING.md has both set-ups.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder import cache, environment
from autograder.errors import InputError
from autograder.local.run_facts import RunFacts
from autograder.reports import output_paths

if TYPE_CHECKING:
    from autograder.grading.intake import Source
    from autograder.grading.results import SubmissionResult
    from autograder.grading.session import Session

MANIFEST = "shard.json"
RUNNING = "shard-run.json"  # written as a shard starts: where and by what it runs, for ``status``
FORMAT = "lab05-shard/1"
GRADED = "graded"  # submissions/<id>/graded/<file>: the graded files as read, for the merged similarity
KEY_VARIABLE = environment.name("SHARD_KEY")  # the course's secret, when shards are graded on other machines
SIGNATURE = "signature"  # the manifest's field holding its HMAC


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1 to ``count``) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def owner(submission: str, count: int) -> int:
    """The shard (1 to ``count``) that grades ``submission``: a hash of its id alone."""
    digest = hashlib.sha256(f"lab05-shard:{submission}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def share(sources: Iterable[Source], shard: Shard) -> list[Source]:
    """The submissions of ``sources`` that ``shard`` grades, in their order."""
    return [source for source in sources if owner(source.id, shard.count) == shard.index]


def _number(text: str, what: str, given: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--shard {given}: {what} {text!r} is not a whole number") from None


def parse(text: str, environ: Mapping[str, str] = os.environ) -> Shard:
    """``I/N`` (1 <= I <= N), ``auto/N`` or ``auto`` (the scheduler's index); ``ValueError`` saying
    what to give otherwise."""
    head, _, tail = text.partition("/")
    count = _number(tail, "the number of shards", text) if tail else 0
    if head == "auto":
        index, count = _scheduled(environ, count, text)
    else:
        if not tail:
            raise InputError(f"--shard {text}: give it as I/N, e.g. 2/4 (the second of four shards), or as auto")
        index = _number(head, "the shard", text)
    if count < 1 or not 1 <= index <= count:
        raise InputError(f"--shard {text}: the shard must be 1 to N of N shards (N at least 1), e.g. 2/4")
    return Shard(index, count)


def _scheduled(environ: Mapping[str, str], count: int, given: str) -> tuple[int, int]:
    """The 1-based shard (and the count) of this task: its own 0-based index + 1, never its place
    in what was submitted (a task retried alone is still its shard)."""
    if environ.get("JOB_COMPLETION_INDEX", "") != "":
        if not count:
            raise InputError(
                f"--shard {given}: a Kubernetes Indexed Job does not tell its pods how many there are: give "
                "--shard auto/N, N the Job's completions"
            )
        return _number(environ["JOB_COMPLETION_INDEX"], "JOB_COMPLETION_INDEX", given) + 1, count
    if environ.get("SLURM_ARRAY_TASK_ID", "") != "":
        task = _number(environ["SLURM_ARRAY_TASK_ID"], "SLURM_ARRAY_TASK_ID", given)
        if not count:
            count = _whole_array(environ, given)
        if not 0 <= task < count:
            raise InputError(
                f"--shard {given}: SLURM_ARRAY_TASK_ID {task} is not a shard of {count}: the array's task ids are "
                f"the shards counted from 0 (--array=0-{count - 1}, or some of them to retry)"
            )
        return task + 1, count
    raise InputError(
        f"--shard {given}: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (a "
        "Slurm array) is set: give the shard as I/N"
    )


def _whole_array(environ: Mapping[str, str], given: str) -> int:
    """The number of shards of a Slurm array submitted whole (task ids 0 to count - 1, step 1); a
    ``ValueError`` otherwise: an array of some tasks (``--array=3``, a retry) does not say how many
    shards the class has."""
    sizes = {
        name: _number(environ.get(f"SLURM_ARRAY_TASK_{name}", "") or "-1", f"SLURM_ARRAY_TASK_{name}", given)
        for name in ("MIN", "MAX", "COUNT", "STEP")
    }
    if sizes["MIN"] == 0 and sizes["COUNT"] >= 1 and sizes["MAX"] == sizes["COUNT"] - 1 and sizes["STEP"] in (-1, 1):
        return sizes["COUNT"]
    shown = ", ".join(f"SLURM_ARRAY_TASK_{name}={value}" for name, value in sizes.items() if value >= 0)
    raise InputError(
        f"--shard {given}: this Slurm array is not every shard from task 0 ({shown or 'no size given'}), e.g. a "
        "task retried alone: give the number of shards, --shard auto/N (as grade.sbatch does)"
    )


def graded_folder(out: Path, submission: str) -> Path:
    return output_paths.submission_folder(out, submission) / GRADED


def key(environ: Mapping[str, str] = os.environ) -> bytes:
    """The key shard manifests are signed with: derived from ``AUTOGRADER_SHARD_KEY`` when it is set
    (the same secret on every machine of the class), else the private cache folder's own key."""
    given = environment.get("SHARD_KEY", environ) or ""
    if not given:
        return cache.secret_key("shard")
    if len(given) < 16:
        raise InputError(
            f"{KEY_VARIABLE} holds {len(given)} characters: give a secret of at least 16 (e.g. the output of "
            "`python -c 'import secrets; print(secrets.token_hex(32))'`), the same for every shard and for merge"
        )
    return hashlib.sha256(b"lab05-shard-key:" + given.encode()).digest()


def sign(manifest: Mapping[str, object], secret: bytes) -> str:
    """The HMAC-SHA256 (hex) of a manifest's fields but its signature (and ``folder``, which merge
    adds), as canonical JSON: a field changed, added or removed changes it."""
    fields = {name: value for name, value in manifest.items() if name not in (SIGNATURE, "folder")}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def signed(manifest: Mapping[str, object], secret: bytes) -> bool:
    """Does the manifest's signature match its fields under ``secret``? (A constant-time check.)"""
    given = manifest.get(SIGNATURE)
    return isinstance(given, str) and hmac.compare_digest(given, sign(manifest, secret))


def listing(out: Path, submission: str) -> dict[str, str]:
    """Every file of a submission's folder in ``out`` (recursively: its graded files too), as its
    path in the folder (POSIX) -> the SHA-256 of its content (of ``link:`` and its target for a
    symbolic link, never followed)."""
    folder = output_paths.submission_folder(out, submission)
    if not folder.is_dir():
        return {}
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(
                f"link:{os.readlink(path)}".encode()
            ).hexdigest()
        elif path.is_file():
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


#: The scheduler's variables a shard's run record keeps (``status`` asks the scheduler about them).
SCHEDULER = ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "HOSTNAME")


def start(out: Path, shard: Shard, environ: Mapping[str, str] = os.environ) -> None:
    """Mark ``out`` as shard ``shard`` being graded: its manifest of an earlier run removed (the
    shard is done again only when this run writes it) and its run record written (``RUNNING``:
    the host, the process and the scheduler's task, for ``status``)."""
    (out / MANIFEST).unlink(missing_ok=True)
    record = {
        "format": FORMAT,
        "shard": shard.index,
        "of": shard.count,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "scheduler": {name: environ[name] for name in SCHEDULER if environ.get(name)},
    }
    cache.write_atomic(out / RUNNING, (json.dumps(record, indent=1) + "\n").encode(), 0o600)


def write(
    out: Path,
    shard: Shard,
    everyone: Iterable[Source],
    results: Sequence[SubmissionResult],
    files: Mapping[str, Mapping[str, bytes]],
    session: Session,
    rubric_path: Path,
    seed: str | None,
    run: RunFacts,
    started: float,
) -> None:
    """A finished shard's graded files (``files``: id -> graded file -> content) and, last, its
    manifest (its presence marks the shard done), signed. None: a shard has no similarity."""
    for result in results:
        for name, data in files.get(result.submission, {}).items():
            cache.write_atomic(graded_folder(out, result.submission) / name, data, 0o600)
    plan = session.plan
    manifest = {
        "format": FORMAT,
        "shard": shard.index,
        "of": shard.count,
        "class": [source.id for source in everyone],
        "submissions": [result.submission for result in results],
        "rubric_digest": plan.rubric.digest,
        "reference_digest": plan.reference_digest,
        "grader_digest": plan.key[:16],
        "rubric": Path(rubric_path).read_text(encoding="utf-8"),
        "rubric_path": str(rubric_path),
        "seed": seed or "",
        "seconds": round(time.monotonic() - started, 1),
        "run": run.shown(),
        "files": {result.submission: listing(out, result.submission) for result in results},
    }
    manifest[SIGNATURE] = sign(manifest, key())
    cache.write_atomic(out / MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode(), 0o600)
    return None
