"""Running a submission's calls in isolated children (the parent side).

``run(...)`` starts the harness (``child/harness.py``) in a child enclosed as ``Isolation.mode``
says (see ``child/jail.py``), with resource limits, sends it each call's inputs when that call is to
run (never before: code run at import finds no input), reads its channel with a per-call and a
per-submission time limit, and returns one ``Outcome`` per call. Every graded file's calls before
the first secret one (the public calls) run, with its import, before any secret call; what the
children print until the submission's first secret call is sent may reach the student; what any
of its children print after (in any graded file) is kept for the instructor only
(``SandboxResult.hidden_output``).
A call that hangs or kills the child costs that call: the child is killed (its whole PID
namespace, process group or uid) and a fresh one continues with the next call; a function that
does it twice loses its remaining calls.
Every byte from the child is parsed as untrusted data; nothing it writes survives.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder import tempdirs
from autograder.sandbox import cleanup, seccomp
from autograder.sandbox.channel import Child, Reader
from autograder.sandbox.child_process import ChildProcess, Output, start_spare
from autograder.sandbox.outcomes import Outcome, OutcomeStatus, SandboxResult, StopReason
from autograder.sandbox.settings import (
    STARTUP_SECONDS,
    STRIKES,
    Call,
    ChildConfig,
    Isolation,
    Limits,
    Mode,
    Package,
)

#: Starts one child: ``ChildProcess``, or a scripted fake in the tests.
StartChild = Callable[[Isolation, ChildConfig, dict[str, str], Path, Output, int], ChildProcess]


def _environment(home: str) -> dict[str, str]:
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


def prepare(isolation: Isolation) -> None:
    """Start the first child's interpreter ahead, while the grader checks and reads what comes
    before it (``child_process.start_spare``: the namespace jail's children only)."""
    start_spare(isolation, _environment("/scratch"))


@dataclass
class _Progress:
    """What the children of one submission have used and spent so far (shared across restarts)."""

    strikes: dict[str, int] = field(default_factory=dict)  # function -> crashes
    hung: set[str] = field(default_factory=set)  # functions a call of which hung (their later calls get less time)
    spent: dict[str, float] = field(default_factory=dict)  # function -> seconds its calls used
    skip: set[str] = field(default_factory=set)  # functions whose other calls are not run
    failed_files: set[str] = field(default_factory=set)  # graded files that did not import
    budget_gone: set[str] = field(default_factory=set)  # functions that used up their time budget
    # calls (indexes) and imports (files) killed from outside once
    disturbed: set[int | str] = field(default_factory=set)
    received: int = 0  # channel bytes so far, all children of the graded file together
    timed_out: bool = False  # the submission's time limit ran out


def _found_package(lab_dir: Path | None, calls: list[Call]) -> Package:
    """The package of a run that names none: the one folder of ``lab_dir`` holding ``__init__.py``
    (no name without a folder: scripted children), its graded files those the calls name."""
    found = sorted(path.parent.name for path in lab_dir.glob("*/__init__.py")) if lab_dir is not None else []
    if len(found) > 1:
        raise ValueError(
            f"runner.run: {lab_dir} holds {len(found)} packages ({', '.join(found)}) and no package was given; "
            "pass package=Package(name, files) (the lab's package and graded files)"
        )
    return Package(found[0] if found else "", tuple(dict.fromkeys(call.file for call in calls)))


def run(
    lab_dir: Path,
    calls: list[Call],
    payload: Callable[[int], bytes],
    limits: Limits,
    isolation: Isolation,
    slot: int = 0,
    start_child: StartChild = ChildProcess,
    overall_deadline: float | None = None,
    package: Package | None = None,
    after_public: Callable[[SandboxResult], None] | None = None,
    live: Callable[[SandboxResult], None] | None = None,
) -> SandboxResult:
    """Run ``calls`` against the submission's package in ``lab_dir``; ``payload(index)`` gives the
    bytes the child receives for call ``index`` (its inputs, when it is to run). Each graded file gets children
    of its own, with a fresh scratch space (what one file's functions do to the disk or the
    process table costs only them). ``start_child`` starts one child (``ChildProcess``; the
    tests script fake ones to drive the retry loop). ``overall_deadline`` (``time.monotonic()``):
    a platform's overall limit, when it comes first; ``package``: the package (and its graded
    files) the submission is imported as (by default the one ``lab_dir`` holds,
    ``_found_package``). ``after_public(result)`` runs once every graded file's
    public calls have run, before any secret call's inputs reach a child (the counterexamples'
    search, ``grading/counterexamples.py``); ``live(result)`` is handed the result as soon as it is
    made, so that a payload may choose a call's inputs from the answers before it."""
    started = time.monotonic()
    uid = isolation.uids[slot] if isolation.uids else None
    result = SandboxResult(outcomes=[None] * len(calls), uid=uid)
    if live is not None:
        live(result)
    output = Output(limits.output_kb << 10)
    progress = _Progress()
    deadline = started + limits.submission_seconds + 2 * STARTUP_SECONDS
    time_limit = StopReason.TIME_LIMIT  # which time limit stops it: its own, or a platform's that comes first
    if overall_deadline is not None and overall_deadline < deadline:
        deadline, time_limit = overall_deadline, StopReason.OVERALL_TIME_LIMIT
    if uid is not None and lab_dir is not None:  # the uid mode, or a jail entered as root: children drop to uid
        cleanup.private_to(lab_dir, uid)
    files = list(dict.fromkeys(call.file for call in calls))
    package = package or _found_package(lab_dir, calls)
    grading = _Grading(
        lab_dir=lab_dir,
        calls=calls,
        payload=payload,
        limits=limits,
        isolation=isolation,
        uid=uid,
        output=output,
        progress=progress,
        result=result,
        start_child=start_child,
        package=package,
        time_limit=time_limit,
    )
    # every graded file's public calls (and its import) run before any file's secret call: a secret
    # call's inputs can outlive its child in the kernel's shared state (access times, the PID
    # counter), so nothing a later child of this submission prints or answers may be shown, and
    # ``output.secret``, once set, stays set
    secret_start = next((index for index, call in enumerate(calls) if call.secret), len(calls))
    phases = [(calls[:secret_start], 0, False)] + ([(calls, secret_start, True)] if secret_start < len(calls) else [])
    received: dict[str, int] = {}  # channel bytes per graded file, over both phases
    for phase_calls, first, secret in phases:
        if secret and after_public is not None:
            after_public(result)
            after_public = None
        for file in files:
            indexes = [index for index in range(first, len(phase_calls)) if phase_calls[index].file == file]
            imported = result.imports.get(file)
            if secret and (not indexes or imported is None or imported.status != OutcomeStatus.OK):
                continue  # nothing more of this file to run, or it did not import (its public phase said why)
            # each file has its own time and channel budget: one file's functions cannot spend the other's
            functions = len({phase_calls[index].fn for index in indexes})
            now = time.monotonic()
            file_deadline = max(deadline, now + functions * limits.function_seconds() + 2 * STARTUP_SECONDS)
            if overall_deadline is not None:
                file_deadline = min(file_deadline, overall_deadline)
            progress.received = received.get(file, 0)
            phase = dataclasses.replace(grading, calls=phase_calls)
            result.stops[file] = _run_file(phase, file, file_deadline, first)
            received[file] = progress.received
    if after_public is not None:  # no secret call
        after_public(result)
    for index, outcome in enumerate(result.outcomes):
        if outcome is None:
            stop = _not_run(calls[index], result, progress, deadline, time_limit)
            result.outcomes[index] = Outcome(
                status=OutcomeStatus.NOT_RUN, detail=_not_run_detail(calls[index], stop, limits), stop=stop
            )
    result.stdout, result.stderr = output.shown["stdout"].text(), output.shown["stderr"].text()
    result.output_dropped = any(capture.dropped for capture in output.shown.values())
    hidden = output.kept["stdout"].text() + "\n" + output.kept["stderr"].text()
    result.hidden_output = hidden.strip()
    result.elapsed = time.monotonic() - started
    return result


def _feeder(calls: list[Call], payload: Callable[[int], bytes], output: Output) -> Callable[[Child, int | None], None]:
    """What sends a child call ``index`` (None: the end): a secret call's inputs go out only after
    what the child printed so far is read, and from then on its output is kept apart."""

    def feed(child: Any, index: int | None) -> None:
        if index is not None and calls[index].secret and not output.secret:
            child.drain()
            output.secret = True
        child.send(None if index is None else payload(index))

    return feed


@dataclass
class _Grading:
    """One submission's run, as every child of it is started with."""

    lab_dir: Path
    calls: list[Call]
    payload: Callable[[int], bytes]
    limits: Limits
    isolation: Isolation
    uid: int | None
    output: Output
    progress: _Progress
    result: SandboxResult
    start_child: StartChild
    package: Package
    time_limit: StopReason  # which time limit ends the run: the submission's own, or a platform's overall one


def _run_file(grading: _Grading, file: str, deadline: float, first: int = 0) -> StopReason:
    """The calls of one graded file from index ``first`` on, in children that import only it (its
    package's other graded files are not imported), restarted after each crash or hang
    (``channel.Reader`` says which call to blame); returns why it stopped."""
    lab_dir, calls, payload, limits, isolation = (
        grading.lab_dir,
        grading.calls,
        grading.payload,
        grading.limits,
        grading.isolation,
    )
    uid, output, progress, result, start_child = (
        grading.uid,
        grading.output,
        grading.progress,
        grading.result,
        grading.start_child,
    )
    others = set(grading.package.files) - {file}
    start = next((index for index, call in enumerate(calls) if call.file == file and index >= first), len(calls))
    feed = _feeder(calls, payload, output)
    with tempdirs.folder("child-") as scratch_dir:
        scratch = Path(scratch_dir)
        os.chmod(scratch, 0o711)
        work, jail_root = scratch / "work", scratch / "root"
        work.mkdir()
        jail_root.mkdir()
        if isolation.mode == Mode.UID and uid is not None:  # each child's scratch.Watch opens it again
            os.chown(work, 0, uid)
            os.chmod(work, 0o1770)
        processes = limits.processes
        if isolation.mode == Mode.JAIL and os.getuid() != 0:
            processes += cleanup.count_tasks(os.getuid())
        env = _environment("/scratch" if isolation.mode == Mode.JAIL else str(work))
        while True:
            skip_files = others | progress.failed_files
            config: ChildConfig = {
                "package": grading.package.name,
                "graded_files": list(grading.package.files),
                "lab_dir": str(lab_dir),
                "skip_files": sorted(skip_files),
                "isolation": isolation.mode,
                "uid": uid,
                "work_dir": str(work),
                "jail_root": str(jail_root),
                "jail_read": list(isolation.read_paths),
                "jail_hide": list(isolation.hidden_paths),
                "jail_keep": list(isolation.kept_paths),
                "banned": list(isolation.banned),
                "allowed": None if isolation.allowed is None else list(isolation.allowed),
                "read_paths": list(isolation.read_paths),
                "seccomp": base64.b64encode(isolation.seccomp).decode(),
                "environment": env,
                "limits": {
                    "memory_mb": limits.memory_mb,
                    "file_mb": limits.file_mb,
                    "tmp_mb": limits.tmp_mb,
                    "tmp_inodes": limits.tmp_inodes,
                    "processes": processes,
                    "cpu_seconds": limits.cpu_seconds(),
                },
            }
            child = start_child(isolation, config, env, work, output, progress.received)
            state = Reader(
                calls,
                start,
                progress.skip,
                skip_files,
                result,
                progress.spent,
                isolation.mode,
                feed,
                progress.hung,
                files={file},  # a phase's calls may have none of it: its child imports it all the same
            )
            imported = result.imports.get(file)
            try:
                ending = state.read(child, limits, deadline)
            finally:
                how = child.kill(isolation, uid)
                progress.received = child.received
            if output.secret and result.imports.get(file) is not imported:
                _scrub_import(result, file)
            if ending == "done":
                return StopReason.DONE
            blamed = state.blame(ending, how, output.stderr())
            if blamed is None:  # nothing left to run
                return StopReason.NOTHING_LEFT
            if ending == "eof" and _from_outside(child, limits):
                if blamed not in progress.disturbed:  # not the submission's doing: the same again, afresh
                    progress.disturbed.add(blamed)
                    _forget(result, blamed)
                    result.restarts += 1
                    start = blamed if isinstance(blamed, int) else state.next_index
                    continue
                _disturbed(result, blamed, how)
                start = blamed + 1 if isinstance(blamed, int) else state.next_index
                if isinstance(blamed, str):
                    progress.failed_files.add(blamed)
                result.restarts += 1
                continue
            if isinstance(blamed, int):  # a call: its function is struck, or its time spent
                function = calls[blamed].fn
                if ending == "timeout":
                    progress.hung.add(function)
                else:
                    progress.strikes[function] = progress.strikes.get(function, 0) + 1
                out_of_budget = ending == "timeout" and state.budget_ran_out
                if progress.strikes.get(function, 0) >= STRIKES or out_of_budget:
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
                if grading.time_limit == StopReason.TIME_LIMIT:
                    result.notes.append(f"the submission's time limit ({limits.submission_seconds:g} s) ran out")
                return grading.time_limit
            if start >= len(calls):
                return StopReason.NOTHING_LEFT


#: What ends a child from outside: the seccomp filter refuses the child sending these itself, and
#: the kernel sends SIGKILL on its own only at the CPU limit (told apart by the CPU time used).
OUTSIDE_SIGNALS = frozenset(seccomp.OUTSIDE_SIGNALS)


def _from_outside(child: ChildProcess, limits: Limits) -> bool:
    """Did a signal that none of the submission's own limits sends end the child (another process,
    a person, an out-of-memory killer of the whole machine)?"""
    return child.ended_by in OUTSIDE_SIGNALS and child.cpu_used < limits.cpu_seconds() - 1


def _forget(result: SandboxResult, blamed: int | str) -> None:
    """Undo what ``Reader.blame`` recorded, so that the call or import runs again."""
    if isinstance(blamed, int):
        result.outcomes[blamed] = None
    else:
        result.imports.pop(blamed, None)


def _disturbed(result: SandboxResult, blamed: int | str, how: str) -> None:
    """A call or import killed from outside twice: say so (the grader was disturbed, not by the
    submission), for the result not to be taken as final."""
    what = f"call {blamed}" if isinstance(blamed, int) else f"importing {blamed}"
    detail = f"the grader was disturbed: the process was killed from outside the sandbox twice ({how})"
    if isinstance(blamed, int):
        result.outcomes[blamed] = Outcome(status=OutcomeStatus.CRASH, detail=detail)
    else:
        result.imports[blamed] = Outcome(status=OutcomeStatus.CRASH, detail=detail)
    result.disturbed.append(f"{what}: {detail}")


def _scrub_import(result: SandboxResult, file: str) -> None:
    """An import again, in a child started after a secret call ran: its own words (message,
    traceback, what it printed) could carry that call's inputs, so only what happened is kept."""
    outcome = result.imports[file]
    if outcome.status == OutcomeStatus.OK:
        return
    error = outcome.error or {}
    builtin = [name for name in error.get("mro", []) if name not in ("BaseException", "object")][:1]
    erred = outcome.status == OutcomeStatus.ERROR
    kept = {
        "type": builtin[0] if builtin else "an exception",
        "mro": error.get("mro", []),
        "message": "",
        "traceback": [],
    }
    again = "failed when a fresh process imported it again after a hidden case"
    result.imports[file] = Outcome(
        status=outcome.status, error=kept if erred else None, detail="" if erred else again, secret=True
    )


def _not_run(
    call: Call, result: SandboxResult, progress: _Progress, deadline: float, time_limit: StopReason
) -> StopReason:
    """Why a call never ran."""
    if call.file in result.imports and result.imports[call.file].status != OutcomeStatus.OK:
        return StopReason.IMPORT_FAILED
    if call.fn in progress.budget_gone:
        return StopReason.BUDGET
    if call.fn in progress.skip:
        return StopReason.CRASHES
    if time.monotonic() >= deadline:
        return time_limit
    return StopReason.UNKNOWN


def _not_run_detail(call: Call, stop: StopReason, limits: Limits) -> str:
    """A call's reason for not running, in words (a platform's overall limit is the grader's to word)."""
    if stop == StopReason.IMPORT_FAILED:
        return f"{call.file} did not import"
    if stop == StopReason.BUDGET:
        return (
            f"{call.fn} used up its time budget ({limits.function_seconds():.1f} s for all its cases); "
            "its other cases were not run"
        )
    if stop == StopReason.CRASHES:
        return f"{call.fn} crashed {STRIKES} times; its other cases were not run"
    if stop == StopReason.TIME_LIMIT:
        return f"the submission's time limit ({limits.submission_seconds:g} s) ran out first"
    if stop == StopReason.OVERALL_TIME_LIMIT:
        return "the overall time limit ran out first"
    return "not run"
