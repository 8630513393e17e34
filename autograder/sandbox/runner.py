"""Running a submission's calls in isolated children (the parent side).

``run(...)`` starts the harness (``child/harness.py``) in a child enclosed as ``Isolation.mode``
says (see ``child/jail.py``), with resource limits, reads its channel with a per-call and a
per-submission time limit, and returns one ``Outcome`` per call. A call that hangs or kills the
child costs that call: the child is killed (its whole PID namespace, process group or uid) and a
fresh one continues with the next call; a function that does it twice loses its remaining calls.
Every byte from the child is parsed as untrusted data; nothing it writes survives.
"""

from __future__ import annotations

import base64
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder import tempdirs
from autograder.sandbox import cleanup
from autograder.sandbox.channel import STARTUP_SECONDS, STRIKES, Outcome, OutcomeStatus, Reader, SandboxResult
from autograder.sandbox.child_process import Capture, ChildProcess
from autograder.sandbox.settings import Isolation, Limits, Mode


def _environment(home: str) -> dict:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
    }


@dataclass
class _Progress:
    """What the children of one submission have used and spent so far (shared across restarts)."""

    strikes: dict = field(default_factory=dict)  # function -> crashes and hangs
    spent: dict = field(default_factory=dict)  # function -> seconds its calls used
    skip: set = field(default_factory=set)  # functions whose other calls are not run
    failed_files: set = field(default_factory=set)  # graded files that did not import
    budget_gone: set = field(default_factory=set)  # functions that used up their time budget
    received: int = 0  # channel bytes so far, all children of the graded file together
    timed_out: bool = False  # the submission's time limit ran out


def run(
    lab_dir: Path,
    job_files: list,
    calls: list,
    limits: Limits,
    isolation: Isolation,
    slot: int = 0,
    start_child=ChildProcess,
    overall_deadline: float | None = None,
) -> SandboxResult:
    """Run ``calls`` (``[{"fn", "file"}, ...]``, the job's call list) against the ``lab05``
    package in ``lab_dir``; the job files hold the calls' inputs. Each graded file gets children
    of its own, with a fresh scratch space (what one file's functions do to the disk or the
    process table costs only them). ``start_child`` starts one child (``ChildProcess``; the
    tests script fake ones to drive the retry loop). ``overall_deadline`` (``time.monotonic()``):
    a platform's overall limit, when it comes first."""
    started = time.monotonic()
    uid = isolation.uid + slot if isolation.uid is not None else None
    result = SandboxResult(outcomes=[None] * len(calls))
    output = {"stdout": Capture(limits.output_kb << 10), "stderr": Capture(limits.output_kb << 10)}
    progress = _Progress()
    deadline = started + limits.submission_seconds + 2 * STARTUP_SECONDS
    deadline = min(deadline, overall_deadline) if overall_deadline is not None else deadline
    if uid is not None and lab_dir is not None:  # the uid mode, or a jail entered as root: children drop to uid
        cleanup.private_to(lab_dir, uid)
    files = list(dict.fromkeys(call["file"] for call in calls))
    for file in files:
        # each file has its own time and channel budget: one file's functions cannot spend the other's
        functions = len({call["fn"] for call in calls if call["file"] == file})
        file_deadline = max(deadline, time.monotonic() + functions * limits.function_seconds() + 2 * STARTUP_SECONDS)
        if overall_deadline is not None:
            file_deadline = min(file_deadline, overall_deadline)
        progress.received = 0
        others = set(files) - {file}
        _run_file(
            file,
            others,
            lab_dir,
            job_files,
            calls,
            limits,
            isolation,
            uid,
            output,
            progress,
            result,
            file_deadline,
            start_child,
        )
    for index, outcome in enumerate(result.outcomes):
        if outcome is None:
            result.outcomes[index] = Outcome(
                OutcomeStatus.NOT_RUN, detail=_not_run(calls[index], result, progress, limits, deadline)
            )
    result.stdout, result.stderr = output["stdout"].text(), output["stderr"].text()
    result.elapsed = time.monotonic() - started
    return result


def _run_file(
    file, others, lab_dir, job_files, calls, limits, isolation, uid, output, progress, result, deadline, start_child
) -> None:
    """The calls of one graded file, in children that import only it, restarted after each
    crash or hang (``channel.Reader`` says which call to blame)."""
    start = next(index for index, call in enumerate(calls) if call["file"] == file)
    with tempdirs.folder("lab05-child-") as scratch_dir:
        scratch = Path(scratch_dir)
        os.chmod(scratch, 0o711)
        work, jail_root = scratch / "work", scratch / "root"
        work.mkdir()
        jail_root.mkdir()
        if isolation.mode == Mode.UID:
            os.chown(work, uid, uid)
            os.chmod(work, 0o700)
        processes = limits.processes
        if isolation.mode == Mode.JAIL and os.getuid() != 0:
            processes += cleanup.count_tasks(os.getuid())
        env = _environment("/scratch" if isolation.mode == Mode.JAIL else str(work))
        while True:
            skip_files = others | progress.failed_files
            config = {
                "jobs": [str(path) for path in job_files],
                "lab_dir": str(lab_dir),
                "start": start,
                "skip": sorted(progress.skip),
                "skip_files": sorted(skip_files),
                "isolation": isolation.mode,
                "uid": uid,
                "work_dir": str(work),
                "jail_root": str(jail_root),
                "jail_read": list(isolation.read_paths),
                "jail_hide": list(isolation.hidden_paths),
                "banned": list(isolation.banned),
                "read_paths": list(isolation.read_paths),
                "seccomp": base64.b64encode(isolation.seccomp).decode(),
                "environment": env,
                "limits": {
                    "memory_mb": limits.memory_mb,
                    "file_mb": limits.file_mb,
                    "tmp_mb": limits.tmp_mb,
                    "tmp_inodes": limits.tmp_inodes,
                    "processes": processes,
                    "cpu_seconds": limits.submission_seconds + 5,
                },
            }
            child = start_child(isolation, config, env, work, output, progress.received)
            state = Reader(calls, start, progress.skip, skip_files, result, progress.spent, isolation.mode)
            try:
                ending = state.read(child, limits, deadline)
            finally:
                how = child.kill(isolation, uid)
                progress.received = child.received
            if ending == "done":
                return
            blamed = state.blame(ending, how, output["stderr"].text())
            if blamed is None:  # nothing left to run, or the submission's time is up
                return
            function = calls[blamed]["fn"] if isinstance(blamed, int) else None
            if function:
                progress.strikes[function] = progress.strikes.get(function, 0) + 1
                out_of_budget = ending == "timeout" and state.budget_ran_out
                if progress.strikes[function] >= STRIKES or out_of_budget:
                    progress.skip.add(function)
                    if out_of_budget:
                        progress.budget_gone.add(function)
                start = max(blamed + 1, state.next_index)
            else:
                progress.failed_files.add(blamed)
                start = state.next_index
            result.restarts += 1
            if time.monotonic() >= deadline:
                progress.timed_out = True
                result.notes.append(f"the submission's time limit ({limits.submission_seconds:g} s) ran out")
                return
            if start >= len(calls):
                return


def _not_run(call, result, progress, limits, deadline) -> str:
    """Why a call never ran."""
    if call["file"] in result.imports and result.imports[call["file"]].status != OutcomeStatus.OK:
        return f"lab05/{call['file']} did not import"
    if call["fn"] in progress.budget_gone:
        return (
            f"{call['fn']} used up its time budget ({limits.function_seconds():.1f} s for all its cases); "
            "its other cases were not run"
        )
    if call["fn"] in progress.skip:
        return f"{call['fn']} crashed or hung {STRIKES} times; its other cases were not run"
    if time.monotonic() >= deadline:
        return f"the submission's time limit ({limits.submission_seconds:g} s) ran out first"
    return "not run"
