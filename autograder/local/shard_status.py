"""``status OUT``: which shards of a class graded in OUT's sub-folders (``grade --shard I/N --out
OUT/shard-T``, T = I - 1: the array task or the Indexed Job's index) are done, running, failed or
missing, and the command that grades again the failed and missing ones.

A shard's folder says what it is: its manifest (``shards.MANIFEST``, written last) means done;
otherwise its run record (``shards.RUNNING``, written as it starts) names the host, the process and
the scheduler's task that grade it. That process is running when it is alive on this host, or when
Slurm still lists its task (``squeue``); otherwise it stopped without finishing: failed. A run on
another host that no scheduler here can tell about is reported as running, saying so. A shard no
folder holds is missing. Failed and missing shards are resubmitted by their task ids
(``sbatch --array=T,...``): each grades its own shard and continues what a failed run wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from autograder.errors import InputError
from autograder.local import shards
from autograder.reports import output_paths

State = Literal["done", "running", "failed", "missing"]
STATES: tuple[State, ...] = ("done", "running", "failed", "missing")

#: ``squeue``'s answer for a Slurm job id: its state ("RUNNING", "PENDING"...), "" when it lists
#: none, None when it cannot be asked.
Queue = Callable[[str], "str | None"]


@dataclass(frozen=True)
class ShardState:
    """Shard ``index`` of ``count``: its state, its folder (None: missing) and what tells it."""

    index: int
    count: int
    state: State
    folder: Path | None
    detail: str

    @property
    def task(self) -> int:
        """Its array task id (Slurm) or completion index (Kubernetes): the shard less one."""
        return self.index - 1


def squeue(job: str) -> str | None:
    """What Slurm's ``squeue`` says of ``job`` (a job id, or ARRAY_TASK as ``12_3``)."""
    if shutil.which("squeue") is None:
        return None
    try:
        done = subprocess.run(
            ["squeue", "--noheader", "--jobs", job, "--format", "%T"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return "" if "Invalid job id" in done.stderr else None
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _read(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("shard"), int) or not isinstance(data.get("of"), int):
        return None
    return data


def _graded(folder: Path) -> int:
    return sum(1 for _ in (folder / output_paths.SUBMISSIONS).glob("*/grade.json"))


def _running(record: Mapping[str, object], folder: Path, host: str, queue: Queue) -> tuple[State, str]:
    """Whether a shard with a run record and no manifest is still running, and why we think so."""
    scheduler = record.get("scheduler")
    scheduled = scheduler if isinstance(scheduler, dict) else {}
    where = f"started {record.get('started', '?')} on {record.get('host', '?')}"
    progress = f"{_graded(folder)} submission(s) graded so far"
    array, task = scheduled.get("SLURM_ARRAY_JOB_ID"), scheduled.get("SLURM_ARRAY_TASK_ID")
    job = f"{array}_{task}" if array and task is not None else scheduled.get("SLURM_JOB_ID")
    if isinstance(job, str) and job:
        state = queue(job)
        if state:
            return "running", f"Slurm job {job} is {state.lower()}; {where}; {progress}"
        if state == "":
            return "failed", f"Slurm job {job} ended without finishing the shard; {where}; {progress}"
    pid = record.get("pid")
    if record.get("host") == host and isinstance(pid, int):
        if _alive(pid):
            return "running", f"process {pid} is running; {where}; {progress}"
        return "failed", f"process {pid} ended without finishing the shard; {where}; {progress}"
    return "running", f"{where} (no scheduler here says whether it still runs); {progress}"


def survey(out: Path, count: int | None = None, queue: Queue = squeue, host: str | None = None) -> list[ShardState]:
    """The state of every shard of the class graded in ``out``'s sub-folders, in shard order
    (``count``: the number of shards, else the one the folders record); a ``ValueError`` when
    ``out`` holds no shard and no count is given, or shards of several counts."""
    if not out.is_dir():
        raise InputError(f"status {out}: no such folder: give the folder that holds the shards' --out folders")
    host = host or socket.gethostname()
    found: dict[int, tuple[Path, dict[str, object], bool]] = {}
    counts: dict[int, Path] = {}
    for folder in sorted(path for path in out.iterdir() if path.is_dir()):
        manifest = _read(folder / shards.MANIFEST)
        record = manifest or _read(folder / shards.RUNNING)
        if record is None:
            continue
        index, of = int(str(record["shard"])), int(str(record["of"]))
        counts.setdefault(of, folder)
        if count is None or of == count:
            found.setdefault(index, (folder, record, manifest is not None))
    if count is None:
        if len(counts) != 1:
            shown = ", ".join(f"{of} ({folder})" for of, folder in sorted(counts.items())) or "none found"
            raise InputError(f"status {out}: the shards' number is not clear ({shown}): give it as --shards N")
        count = next(iter(counts))
    states: list[ShardState] = []
    for index in range(1, count + 1):
        place: Path | None
        if index not in found:
            state: State = "missing"
            place, detail = None, "no folder holds it"
        elif found[index][2]:
            place, record = found[index][:2]
            submissions = record.get("submissions")
            graded = len(submissions) if isinstance(submissions, list) else 0
            state, detail = "done", f"{graded} submission(s), {record.get('seconds')} s"
        else:
            where, record = found[index][:2]
            place = where
            state, detail = _running(record, where, host, queue)
        states.append(ShardState(index=index, count=count, state=state, folder=place, detail=detail))
    return states


def resubmit(states: list[ShardState], out: Path) -> list[str]:
    """The commands that grade the failed and missing shards again (none: nothing to resubmit)."""
    again = [state for state in states if state.state in ("failed", "missing")]
    if not again:
        return []
    tasks = ",".join(str(state.task) for state in again)
    first = again[0]
    return [
        f"retry=$(sbatch --parsable --array={tasks} grade.sbatch) && sbatch --dependency=afterany:$retry merge.sbatch",
        f"or by hand, each: python -m autograder grade CLASS --shard {first.index}/{first.count} --out "
        f"{first.folder or out / f'shard-{first.task}'} --seed SEED (the shard's own options)",
    ]


def report(states: list[ShardState], out: Path) -> str:
    """What ``status`` prints: a line per shard and the commands to resubmit."""
    tally = ", ".join(f"{sum(state.state == name for state in states)} {name}" for name in STATES)
    lines = [f"{len(states)} shards in {out}: {tally}"]
    for state in states:
        where = f" in {state.folder}" if state.folder is not None else ""
        lines.append(f"  shard {state.index}/{state.count} (task {state.task}) {state.state}{where}: {state.detail}")
    commands = resubmit(states, out)
    if commands:
        lines.append("resubmit the failed and missing shards (each continues what its folder holds):")
        lines += [f"  {command}" for command in commands]
    elif all(state.state == "done" for state in states):
        lines.append("every shard is done: merge them (merge.sbatch, or python -m autograder merge OUT SHARD_OUT...)")
    return "\n".join(lines)
