"""Running a submission's calls in isolated children (the parent side).

``run(...)`` starts the harness (``child/harness.py``) in a child enclosed as ``Isolation.mode``
says (see ``child/jail.py``), with resource limits, reads its channel with a per-call and a
per-submission time limit, and returns one ``Outcome`` per call. A call that hangs or kills the
child costs that call: the child is killed (its whole PID namespace, process group or uid) and a
fresh one continues with the next call; a function that does it twice loses its remaining calls.
Every byte from the child is parsed as untrusted data; nothing it writes survives.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

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
    package in ``lab_dir``; the job files hold the calls' inputs. ``start_child`` starts one
    child (``ChildProcess``; the tests script fake ones to drive the retry loop).
    ``overall_deadline`` (``time.monotonic()``): a platform's overall limit, when it comes first."""
    started = time.monotonic()
    uid = isolation.uid + slot if isolation.uid is not None else None
    result = SandboxResult(outcomes=[None] * len(calls))
    output = {"stdout": Capture(limits.output_kb << 10), "stderr": Capture(limits.output_kb << 10)}
    strikes: dict[str, int] = {}
    spent: dict[str, float] = {}  # seconds each function has used
    received = 0  # channel bytes so far, all children together
    skip: set[str] = set()  # functions whose other calls are not run
    skip_files: set[str] = set()  # graded files that did not import
    budget_gone: set[str] = set()  # functions that used up their time budget
    start = 0
    deadline = started + limits.submission_seconds + 2 * STARTUP_SECONDS
    deadline = min(deadline, overall_deadline) if overall_deadline is not None else deadline
    with tempfile.TemporaryDirectory(prefix="lab05-child-") as scratch_dir:
        scratch = Path(scratch_dir)
        os.chmod(scratch, 0o711)
        work, jail_root = scratch / "work", scratch / "root"
        work.mkdir()
        jail_root.mkdir()
        if isolation.mode == Mode.UID:
            assert uid is not None  # the uid mode always has a sandbox uid (isolation.choose)
            os.chown(work, uid, uid)
            os.chmod(work, 0o700)
            cleanup.private_to(lab_dir, uid)
        processes = limits.processes
        if isolation.mode == Mode.JAIL and os.getuid() != 0:
            processes += cleanup.count_tasks(os.getuid())
        home = "/scratch" if isolation.mode == Mode.JAIL else str(work)
        env = _environment(home)
        while True:
            config = {
                "jobs": [str(path) for path in job_files],
                "lab_dir": str(lab_dir),
                "start": start,
                "skip": sorted(skip),
                "skip_files": sorted(skip_files),
                "isolation": isolation.mode,
                "uid": uid,
                "work_dir": str(work),
                "jail_root": str(jail_root),
                "jail_read": list(isolation.read_paths),
                "jail_hide": list(isolation.hidden_paths),
                "banned": list(isolation.banned),
                "environment": env,
                "limits": {
                    "memory_mb": limits.memory_mb,
                    "file_mb": limits.file_mb,
                    "tmp_mb": limits.tmp_mb,
                    "processes": processes,
                    "cpu_seconds": limits.submission_seconds + 5,
                },
            }
            child = start_child(isolation, config, env, work, output, received)
            state = Reader(calls, start, skip, skip_files, result, spent, isolation.mode)
            try:
                ending = state.read(child, limits, deadline)
            finally:
                how = child.kill(isolation, uid)
                received = child.received
            if ending == "done":
                break
            blamed = state.blame(ending, how, output["stderr"].text())
            if blamed is None:  # nothing left to run, or the submission's time is up
                break
            function = calls[blamed]["fn"] if isinstance(blamed, int) else None
            if function:
                strikes[function] = strikes.get(function, 0) + 1
                out_of_budget = ending == "timeout" and state.budget_ran_out
                if strikes[function] >= STRIKES or out_of_budget:
                    skip.add(function)
                    if out_of_budget:
                        budget_gone.add(function)
                start = max(blamed + 1, state.next_index)
            else:
                skip_files.add(blamed)
                start = state.next_index
            result.restarts += 1
            if time.monotonic() >= deadline:
                result.notes.append(f"the submission's time limit ({limits.submission_seconds:g} s) ran out")
                break
            if start >= len(calls):
                break
    for index, outcome in enumerate(result.outcomes):
        if outcome is None:
            call = calls[index]
            if call["file"] in result.imports and result.imports[call["file"]].status != OutcomeStatus.OK:
                reason = f"lab05/{call['file']} did not import"
            elif call["fn"] in budget_gone:
                reason = (
                    f"{call['fn']} used up its time budget ({limits.function_seconds():.1f} s for all its "
                    "cases); its other cases were not run"
                )
            elif call["fn"] in skip:
                reason = f"{call['fn']} crashed or hung {STRIKES} times; its other cases were not run"
            elif time.monotonic() >= deadline:
                reason = f"the submission's time limit ({limits.submission_seconds:g} s) ran out first"
            else:
                reason = "not run"
            result.outcomes[index] = Outcome(OutcomeStatus.NOT_RUN, detail=reason)
    result.stdout, result.stderr = output["stdout"].text(), output["stderr"].text()
    result.elapsed = time.monotonic() - started
    return result
