"""Children started from spare interpreters (``sandbox/child_process.py: start_spare``): in the
namespace jail, the next child's Python starts while the grader works, and waits for its
configuration having run nothing but the harness's imports. A child made from one must answer
as a fresh start would: the same values, the same state from one call to the next (a module's
globals carry over within a child, never from the public calls into the secret ones)."""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

import pytest

from autograder import tempdirs
from autograder.sandbox import child_process, runner
from autograder.sandbox import isolation as isolations
from autograder.sandbox.settings import Call, Isolation, Limits, Mode

pytestmark = pytest.mark.sandbox

LIMITS = Limits(call_seconds=30, submission_seconds=60, memory_mb=1024, output_kb=8)

COUNTER = "calls = 0\n\n\ndef count(x):\n    global calls\n    calls += 1\n    return calls\n"
MEMO = "memo = {}\n\n\ndef first(key, value):\n    return memo.setdefault(key, value)\n"
STEADY = "def double(x):\n    return 2 * x\n"

#: (id, metrics.py, function, each call's arguments, how many calls are public, the answers)
STATE_CASES = [
    ("a global counter", COUNTER, "count", [[0]] * 5, 3, [1, 2, 3, 1, 2]),
    ("a memo keyed by one argument", MEMO, "first", [[1, "a"], [1, "b"], [1, "c"], [2, "d"]], 2, ["a", "a", "c", "d"]),
    ("no state", STEADY, "double", [[1], [2], [3]], 2, [2, 4, 6]),
]


def _answers(source: str, fn: str, arguments: list[list[object]], public: int, isolation: Isolation) -> list[object]:
    calls = [Call(fn, "metrics.py", secret=index >= public) for index in range(len(arguments))]
    with tempdirs.folder("lab05-spare-") as temporary:
        package = Path(temporary) / "lab" / "lab05"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "metrics.py").write_text(source)
        (package / "runs.py").write_text("")
        for path in (Path(temporary), package.parent, package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)

        def payload(index: int) -> bytes:
            call = {"fn": fn, "file": "metrics.py", "args": arguments[index]}
            return index.to_bytes(4, "big") + pickle.dumps(call, protocol=4)

        result = runner.run(Path(temporary) / "lab", calls, payload, LIMITS, isolation)
    return [outcome.value.get("value") if outcome and outcome.value else outcome for outcome in result.outcomes]


@pytest.fixture(scope="module")
def jail():
    if os.getuid() != 0:
        pytest.fail("the jail's children run as another user: run these tests as root (CI does)", pytrace=False)
    return isolations.choose("jail", isolations.default_child_python())


@pytest.mark.parametrize(
    "source, fn, arguments, public, expected",
    [case[1:] for case in STATE_CASES],
    ids=[case[0] for case in STATE_CASES],
)
def test_a_child_from_a_spare_answers_as_a_fresh_one(jail, monkeypatch, source, fn, arguments, public, expected):
    """Does a module that keeps state between calls get the same answers from children made from
    spares as from children started afresh, its secret calls answered by a fresh import of it (what
    the public calls left behind does not reach them)?"""
    taken: list[bool] = []
    take = child_process._take_spare

    def counted(isolation, env):
        spare = take(isolation, env)
        taken.append(spare is not None)
        return spare

    monkeypatch.setattr(child_process, "_take_spare", counted)
    runner.prepare(jail)  # the first child's, as choosing the isolation starts it
    with_spares = _answers(source, fn, arguments, public, jail)
    assert taken == [True, True], "each child (the public calls', the secret ones') was made from a spare"
    monkeypatch.setattr(child_process, "_take_spare", lambda isolation, env: None)
    monkeypatch.setattr(child_process, "start_spare", lambda isolation, env: None)
    fresh = _answers(source, fn, arguments, public, jail)
    assert (with_spares, fresh) == (expected, expected)


def _elsewhere(spare: child_process._Spare) -> None:
    spare.owner = os.getpid() + 1  # as a forked batch worker sees its parent's


def _ended(spare: child_process._Spare) -> None:
    spare.process.kill()
    spare.process.wait()


#: (id, the isolation, what happens to the spare before a child is made, is it taken?)
TAKE_CASES = [
    ("this process's, waiting", Mode.JAIL, None, True),
    ("a forked worker's copy of its parent's", Mode.JAIL, _elsewhere, False),
    ("one that ended while waiting", Mode.JAIL, _ended, False),
    ("the uid mode (each child starts in its own folder)", Mode.UID, None, False),
    ("no isolation", Mode.NONE, None, False),
]


@pytest.mark.parametrize("mode, before, taken", [case[1:] for case in TAKE_CASES], ids=[case[0] for case in TAKE_CASES])
def test_a_spare_is_taken_only_by_its_own_process_while_it_waits(mode, before, taken):
    """Is a spare started for the jail's children only, and taken only by the process that started
    it while it still waits (else the child starts afresh)?"""
    isolation = Isolation(mode, sys.executable)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    child_process.start_spare(isolation, env)
    key = (sys.executable, tuple(sorted(env.items())))
    spare = child_process._SPARES.get(key)
    assert (spare is not None) == (mode == Mode.JAIL)
    if spare is not None and before is not None:
        before(spare)
    found = child_process._take_spare(isolation, env)
    try:
        assert (found is not None) == taken
        assert key not in child_process._SPARES
    finally:
        for left in (found, spare):
            if left is not None and left.process.returncode is None:
                left.discard()


def test_discarding_ends_the_waiting_spares():
    """Does ``discard_spares`` (a batch's parent, before its workers fork) end the spare waiting
    in this process, so that none holds memory for the whole batch?"""
    isolation = Isolation(Mode.JAIL, sys.executable)
    child_process.start_spare(isolation, {"PATH": "/usr/bin:/bin"})
    waiting = list(child_process._SPARES.values())
    child_process.discard_spares()
    assert waiting != [] and [spare.process.returncode is None for spare in waiting] == [False] * len(waiting)
    assert child_process._SPARES == {}
