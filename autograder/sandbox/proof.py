"""Proving that the sandbox grades, before anyone is graded: a known honest probe submission,
run in the exact isolation and child interpreter a batch or a platform will grade with.

The self-test (``isolation.self_test``) proves that a child cannot read what it must not; it
imports nothing the harness has not loaded already, so a child interpreter the sandbox user
cannot read (a Python under ``/root``) passed it, and then every submission, the reference
too, "scored" 0. The proof grades a small submission of its own (``PROBE``, not the lab's
code) whose calls exercise what grading needs: importing the standard library after the child
is enclosed (``from __future__``, ``fractions``, ``statistics``...), each package the rubric
allows, numpy in threads when it is allowed, the harness's call loop (several calls, their
values) and a run file written through the harness's path and search replay. The parent
checks every answer; anything short of all of them right raises ``ProofError``, saying what
failed and what to do, and nothing is graded. A proof that passed is remembered in the private
cache (``proved-*.json``) while nothing it depends on changes: the isolation (its mode,
interpreter, what children read, the allowed imports, the filter), this user, the modes and
owners of the interpreter's and its libraries' folders, and the sandbox's own code.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from autograder import cache, tempdirs
from autograder.errors import UsageError
from autograder.sandbox import runner
from autograder.sandbox.outcomes import Outcome, OutcomeStatus, SandboxResult
from autograder.sandbox.settings import Call, Isolation, Limits, Mode, Package

#: The probe submission's package: its own name and files (none of the lab's).
PACKAGE = Package(name="probe", files=("calls.py", "runs.py"))

_CALLS = '''
from __future__ import annotations

import fractions
import statistics
import threading
from collections import Counter


def standard_library():
    """Modules the harness has not loaded, imported once the child is enclosed."""
    import decimal
    import heapq
    import re

    third = fractions.Fraction(1, 3) + fractions.Fraction(1, 6)
    cents = decimal.Decimal("0.10") + decimal.Decimal("0.20")
    words = sorted(Counter(re.findall(r"[a-z]+", "b a b c b a")).items())
    return f"{third} {cents} {statistics.fmean([1, 2, 3, 4])} {heapq.nsmallest(2, [5, 1, 4, 2])} {words}"


def power_sum(values, power):
    """One of several calls: the harness's loop answers each with its own value."""
    return repr(sum(value**power for value in values))


def packages(names):
    """Each package the course allows, imported."""
    import importlib

    return " ".join(importlib.import_module(name).__name__ for name in names)


def numpy_threads(size):
    """numpy, from two threads at once."""
    import numpy

    found = [None, None]

    def work(slot):
        values = numpy.arange(size * (slot + 1), dtype=numpy.float64)
        found[slot] = repr(float(values.dot(values)))

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return " ".join(found)
'''

_RUNS = '''
from __future__ import annotations


def write_trec(path, system_name, search_fn, queries, k=10):
    """A run file: a line per result, as trec_eval reads it."""
    with open(path, "w", encoding="utf-8", newline="\\n") as out:
        for query in queries:
            for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k)[:k], start=1):
                out.write(f"{query.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\\n")
'''

PROBE = {"calls.py": _CALLS, "runs.py": _RUNS}

#: What to do, by what failed.
UNREADABLE = (
    "make the child interpreter and its libraries readable to other users (chmod o+rx on its folders, or "
    "install it outside /root, as setup.sh installs /opt/autograder-child), or name another with --child-python"
)
NOT_STARTED = "name a Python interpreter that runs here with --child-python (or $AUTOGRADER_CHILD_PYTHON)"
PACKAGES = (
    "install the packages grading.yml's allowed_imports names into the child interpreter (make setup, or the "
    "platform's setup.sh: requirements/child.txt), or name one that has them with --child-python"
)
BROKEN = (
    "the sandbox itself misbehaves on this machine: grade elsewhere, and report this message with the output "
    "of `python -m autograder doctor`"
)

_SEARCH = {"$search": {"results": {"alpha": [["d2", "t2", 2.5], ["d1", "t1", 1.25]]}, "titles": {}, "overfull": False}}
_QUERIES = {"$queries": [["1", "alpha"], ["2", "nothing"]]}
_RUN_TEXT = "1 Q0 d2 1 2.50000000 probe\n1 Q0 d1 2 1.25000000 probe\n"


@dataclass(frozen=True)
class _Check:
    """One call of the probe and the answer it must give."""

    fn: str
    file: str
    args: list[object]
    expected: str  # the returned text, or the run file's text for the run file's call
    what: str  # what a wrong answer shows is broken
    hint: str = ""  # what to do when it is wrong (default: ``BROKEN``)


def checks(allowed: tuple[str, ...] | None) -> list[_Check]:
    """The probe's calls: every one always, the packages' and numpy's when the rubric allows them
    (``allowed``: the isolation's allowed imports; None, anything, proves none)."""
    found = [
        _Check(
            fn="standard_library",
            file="calls.py",
            args=[],
            expected="1/2 0.30 2.5 [1, 2] [('a', 2), ('b', 3), ('c', 1)]",
            what="the standard library",
        )
    ]
    for power in (1, 2, 3):
        expected = repr(sum(value**power for value in (1, 2, 3)))
        found.append(
            _Check(fn="power_sum", file="calls.py", args=[[1, 2, 3], power], expected=expected, what="the call loop")
        )
    names = tuple(allowed or ())
    if names:
        found.append(
            _Check(
                fn="packages",
                file="calls.py",
                args=[list(names)],
                expected=" ".join(names),
                what="the allowed packages",
                hint=PACKAGES,
            )
        )
    if "numpy" in names:
        sums = " ".join(repr(float(sum(i * i for i in range(1000 * (slot + 1))))) for slot in range(2))
        found.append(
            _Check(
                fn="numpy_threads",
                file="calls.py",
                args=[1000],
                expected=sums,
                what="numpy in threads",
                hint=PACKAGES,
            )
        )
    run_args: list[object] = [{"$path": "probe.run"}, "probe", _SEARCH, _QUERIES, 10]
    found.append(_Check(fn="write_trec", file="runs.py", args=run_args, expected=_RUN_TEXT, what="a run file"))
    return found


class ProofError(UsageError, RuntimeError):
    """The probe did not score full: grading here would give honest work wrong grades."""


@dataclass(frozen=True)
class Proof:
    """A proof that passed: how long it took (0 when remembered) and whether it was remembered."""

    seconds: float
    remembered: bool


#: Runs the probe's calls: ``runner.run`` (the tests count or replace it).
Run = Callable[..., SandboxResult]


def prove(isolation: Isolation, run: Run | None = None) -> Proof:
    """Grade the probe in ``isolation`` (remembered while nothing it depends on changes);
    ``ProofError`` when any answer is missing or wrong."""
    started = time.monotonic()
    stored = cache.cache_dir() / f"proved-{_key(isolation)[:32]}.json"
    if stored.is_file():
        return Proof(0.0, True)
    problem = _problem(isolation, run or runner.run)
    if problem is not None:
        raise ProofError(refusal(isolation, *problem))
    cache.write_json_atomic(stored, {"passed": True})
    return Proof(time.monotonic() - started, False)


def refusal(isolation: Isolation, problem: str, hint: str) -> str:
    """What the refusal says: what failed, that nothing is graded, and what to do (``hint``)."""
    return (
        f"the sandbox cannot grade here: a known honest probe submission did not score full in the "
        f"{isolation.mode} mode with the child interpreter {isolation.python} ({problem}), so nothing is graded, "
        f"stored or replaced. To fix it: {hint}; `python -m autograder doctor` runs the same proof"
    )


def _key(isolation: Isolation) -> str:
    """What the proof depends on: the isolation but its leased uids (any sandbox uid is another
    user alike), this user, the folders' modes and owners along the interpreter's and its
    libraries' paths, and the sandbox's code (parent and child)."""
    modes: list[tuple[object, ...]] = []
    for path in dict.fromkeys([isolation.python, os.path.realpath(isolation.python), *isolation.read_paths]):
        for part in [Path(path), *Path(path).parents]:
            try:
                info = os.stat(part)
                modes.append((str(part), info.st_mode, info.st_uid, info.st_gid, info.st_mtime_ns))
            except OSError:
                modes.append((str(part), None))
    code = sorted(Path(__file__).parent.rglob("*.py"))
    return cache.fingerprint([replace(isolation, uids=()), bool(isolation.uids), os.getuid(), modes, *code])


def _payload(found: list[_Check]) -> Callable[[int], bytes]:
    def payload(index: int) -> bytes:
        check = found[index]
        sent = {"fn": check.fn, "file": check.file, "args": check.args, "kwargs": {}}
        return index.to_bytes(4, "big") + pickle.dumps(sent, protocol=4)

    return payload


def _problem(isolation: Isolation, run: Run) -> tuple[str, str] | None:
    """Run the probe; None when every answer is right, else the first thing that failed and what
    to do about it."""
    found = checks(isolation.allowed)
    calls = [Call(check.fn, check.file) for check in found]
    limits = Limits(call_seconds=20, submission_seconds=60, memory_mb=1024, output_kb=8)
    with tempdirs.folder("proof-") as temporary:
        folder = Path(temporary)
        os.chmod(folder, 0o711)
        package = folder / "lab" / PACKAGE.name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        for name, source in PROBE.items():
            (package / name).write_text(source)
        for path in (folder / "lab", package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        try:
            result = run(folder / "lab", calls, _payload(found), limits, isolation, package=PACKAGE)
        except OSError as error:
            return f"cannot start the child interpreter: {error}", NOT_STARTED
    for file in PACKAGE.files:
        imported = result.imports.get(file)
        if imported is None or imported.status != OutcomeStatus.OK:
            blocked = unreadable(isolation)
            hint = UNREADABLE if blocked or imported is not None else NOT_STARTED
            return _failed_import(file, imported, result, blocked), hint
    for check, outcome in zip(found, result.outcomes):
        wrong = _wrong(check, outcome, result)
        if wrong is not None:
            return wrong, check.hint or BROKEN
    return None


def _failed_import(file: str, imported: Outcome | None, result: SandboxResult, blocked: str | None) -> str:
    """Why the probe's ``file`` did not import: the child's own words, and which folder of the
    interpreter the sandbox user cannot read (``blocked``), if one."""
    if imported is None:
        said = f"the child never imported it; stderr: {result.stderr.strip()[-300:] or '(nothing)'}"
    else:
        error = imported.error or {}
        said = f"{error.get('type', imported.status)}: {error.get('message') or imported.detail}"
    where = f"; the sandbox user cannot read {blocked}" if blocked else ""
    return f"importing the probe's {file} failed: {said}{where}"


def _wrong(check: _Check, outcome: Outcome | None, result: SandboxResult) -> str | None:
    """What is wrong with one call's answer (None: it is right)."""
    call = f"{check.fn}({', '.join(map(repr, check.args))[:120]})"
    if outcome is None or outcome.status != OutcomeStatus.VALUE:
        status = "no answer" if outcome is None else outcome.status
        error = (outcome.error or {}) if outcome else {}
        said = f"{error.get('type')}: {error.get('message')}" if error else (outcome.detail if outcome else "")
        stderr = result.stderr.strip()[-300:]
        return f"{check.what}: {call} gave {status} ({said}){f'; stderr: {stderr}' if stderr else ''}"
    value: Any = outcome.value
    if check.file == "runs.py":
        if not isinstance(value, dict) or value.get("missing") or "text" not in value:
            return f"{check.what}: {call} wrote no run file the parent could read back"
        actual = value["text"]
    else:
        actual = value.get("value") if isinstance(value, dict) and value.get("type") == "str" else value
    if actual != check.expected:
        return f"{check.what}: {call} returned {actual!r}, expected {check.expected!r}"
    return None


def unreadable(isolation: Isolation) -> str | None:
    """The first folder or file of the child interpreter (its executable, its prefix, its library
    folders) that a sandbox uid cannot reach: not searchable, or not readable, by other users.
    None when children keep the grader's own uid, or when every one of them is reachable."""
    if isolation.mode == Mode.NONE or not isolation.uids:
        return None
    for path in [isolation.python, *isolation.read_paths]:
        target = Path(path)
        for part in [*reversed(target.parents), target]:
            try:
                info = os.stat(part)
            except OSError:
                continue
            if part != target:
                needed = 0o001  # a folder on the way: searched
            elif path == isolation.python:
                continue  # the executable itself: root starts it, before the drop
            else:
                needed = 0o005 if os.path.isdir(part) else 0o004  # a library folder listed and read; a file read
            if info.st_mode & needed != needed:
                return f"{part} (mode {info.st_mode & 0o777:04o}, owner uid {info.st_uid})"
    return None
