"""The two state machines that decide blame, driven by scripted fake children (no process, no
submission): the channel reader (which call an ending is charged to) and the sandbox's retry
loop (restarts, strikes, time budgets, files that did not import)."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field

import pytest

from autograder.sandbox import runner
from autograder.sandbox.channel import OutcomeStatus, Reader, SandboxResult, StopReason
from autograder.sandbox.settings import AFTER_HANG_SECONDS, MAX_BANNED, STRIKES, Call, Isolation, Limits, Mode

LIMITS = Limits(call_seconds=1, submission_seconds=60, memory_mb=256, output_kb=4, functions=3)
CALLS = [
    Call("alpha", "metrics.py"),
    Call("alpha", "metrics.py"),
    Call("beta", "metrics.py"),
    Call("beta", "metrics.py"),
    Call("write_run", "runs.py"),
]


def payload(index):
    return index.to_bytes(4, "big")


def imported(*names, error=None):
    """The imports of ``names``, then "ready" (the child waits for its first call)."""
    events = []
    for name in names:
        events.append(("message", {"importing": name}))
        events.append(("message", {"imported": name, **({"error": error} if error and name == "metrics.py" else {})}))
    return events + [("message", {"ready": True})]


def answers(*indexes):
    return [("message", {"i": index, "value": {"type": "float", "value": 0.5}, "t": 0.001}) for index in indexes]


@dataclass
class ScriptedChild:
    """A child that sends exactly ``events`` (channel messages, then how it ended), and records the
    calls the reader sends it (their indexes; None for the end)."""

    events: list
    pid_parent: bool = True
    watched: list = field(default_factory=list)
    sent: list = field(default_factory=list)
    ended_by: int | None = None  # the signal that ended it (None: it exited)
    cpu_used: float = 0.0

    def send(self, data):
        self.sent.append(None if data is None else int.from_bytes(data[:4], "big"))

    def drain(self):
        pass

    def cpu(self):
        """CPU time used: none beyond what the reader measures by the clock."""
        return 0.0

    def messages(self, deadline_of, line_limit):
        for event in self.events:
            deadline_of(), line_limit()  # the reader's clocks are consulted as with a real child
            yield event

    def launched(self, pid):
        return self.pid_parent

    def watch(self, pid):
        self.watched.append(pid)

    def waited(self):
        """Time waiting for a CPU: a machine with no other load."""
        return 0.0


def read(events, mode=Mode.UID, skip=(), skip_files=(), start=0, child=None):
    result = SandboxResult(outcomes=[None] * len(CALLS))
    reader = Reader(CALLS, start, set(skip), set(skip_files), result, {}, mode)
    child = child or ScriptedChild(events)
    ending = reader.read(child, LIMITS, deadline=float("inf"))
    return reader, result, ending


READER_CASES = [
    # (id, events, ending, {call index: outcome status}, what blame returns)
    (
        "all-answered",
        imported("metrics.py", "runs.py") + answers(0, 1, 2, 3, 4) + [("message", {"done": True})],
        "done",
        {0: "value", 4: "value"},
        None,
    ),
    (
        "hang-in-call-2",
        imported("metrics.py", "runs.py") + answers(0, 1) + [("timeout",)],
        "timeout",
        {0: "value", 1: "value", 2: "timeout"},
        2,
    ),
    (
        "dies-in-call-3",
        imported("metrics.py", "runs.py") + answers(0, 1, 2) + [("eof",)],
        "eof",
        {2: "value", 3: "crash"},
        3,
    ),
    (
        "dies-importing-runs",
        [("message", {"importing": "metrics.py"}), ("message", {"imported": "metrics.py"})]
        + [("message", {"importing": "runs.py"}), ("eof",)],
        "eof",
        {},
        "runs.py",
    ),
    ("answer-out-of-order", imported("metrics.py", "runs.py") + answers(0, 2), "garbage", {0: "value", 1: "crash"}, 1),
    ("answer-twice", imported("metrics.py", "runs.py") + answers(0, 1, 1), "garbage", {0: "value", 1: "crash"}, 1),
    (
        "done-too-early",
        imported("metrics.py", "runs.py") + answers(0) + [("message", {"done": True})],
        "garbage",
        {1: "crash"},
        1,
    ),
    (
        "answer-before-its-call-was-sent",
        [("message", {"importing": "metrics.py"}), ("message", {"imported": "metrics.py"})] + answers(0),
        "garbage",
        {0: "crash"},
        0,
    ),
    ("garbage-line", imported("metrics.py", "runs.py") + [("garbage", b"{not json")], "garbage", {0: "crash"}, 0),
    ("jail-pid-in-uid-mode", [("message", {"jail_pid": 4242})], "garbage", {}, 0),
    (
        "import-message-after-calls",
        imported("metrics.py", "runs.py") + answers(0) + [("message", {"importing": "metrics.py"})],
        "garbage",
        {1: "crash"},
        1,
    ),
]


@pytest.mark.parametrize(
    "events, ending, statuses, blamed", [row[1:] for row in READER_CASES], ids=[row[0] for row in READER_CASES]
)
def test_reader_charges_the_call_under_way(events, ending, statuses, blamed):
    """Does the reader end as the child did, and charge the ending to the call (or import) under way?"""
    reader, result, got = read(events)
    assert got == ending
    if ending != "done":
        assert reader.blame(got, "exit status 1", "") == blamed
    for index, status in statuses.items():
        assert result.outcomes[index] is not None and result.outcomes[index].status == status, index
    if blamed in ("metrics.py", "runs.py"):
        assert result.imports[blamed].status == OutcomeStatus.CRASH


def test_reader_skips_the_calls_of_a_file_that_did_not_import():
    """When metrics.py raises on import, is the next call expected the first of runs.py?"""
    _, result, ending = read(
        imported("metrics.py", "runs.py", error={"type": "SyntaxError"}) + answers(4) + [("message", {"done": True})]
    )
    assert ending == "done" and result.imports["metrics.py"].status == OutcomeStatus.ERROR
    assert result.outcomes[4].status == OutcomeStatus.VALUE and result.outcomes[0] is None


def test_reader_accepts_the_jail_pid_only_first_and_from_its_launcher():
    """In a jail, is the PID 1 report watched when it comes first from the launcher's child, and
    garbage otherwise?"""
    child = ScriptedChild(
        [("message", {"jail_pid": 77})]
        + imported("metrics.py", "runs.py")
        + answers(0, 1, 2, 3, 4)
        + [("message", {"done": True})]
    )
    _, _, ending = read(None, mode=Mode.JAIL, child=child)
    assert ending == "done" and child.watched == [77]
    forged = ScriptedChild([("message", {"jail_pid": 77})], pid_parent=False)
    assert read(None, mode=Mode.JAIL, child=forged)[2] == "garbage" and forged.watched == []
    late = ScriptedChild(imported("metrics.py") + [("message", {"jail_pid": 77})])
    assert read(None, mode=Mode.JAIL, child=late)[2] == "garbage"


#: CALLS with beta's and the run writer's calls secret (the plan puts secret calls last)
SECRET_CALLS = CALLS[:2] + [Call(call.fn, call.file, secret=True) for call in CALLS[2:]]

SENDING_CASES = [
    # (id, calls, functions skipped, calls answered, the calls sent by the time each answer is read, all sent)
    ("public-together", CALLS, {"beta"}, [0, 1, 4], [[0, 1, 4]] * 3, [0, 1, 4, None]),
    (
        "secret-each-when-it-runs",
        SECRET_CALLS,
        set(),
        [0, 1, 2, 3, 4],
        [[0, 1], [0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4]],
        [0, 1, 2, 3, 4, None],
    ),
    ("secret-after-skipped-ones", SECRET_CALLS, {"beta"}, [0, 1, 4], [[0, 1], [0, 1], [0, 1, 4]], [0, 1, 4, None]),
]


@pytest.mark.parametrize(
    "calls, skip, answered, held, sent", [row[1:] for row in SENDING_CASES], ids=[row[0] for row in SENDING_CASES]
)
def test_reader_sends_each_call_when_it_is_to_run_and_never_before(calls, skip, answered, held, sent):
    """Does the child get no call before it says it is ready, then the public calls together (one
    batch), and each secret call only once the call before it is answered, skipping the calls that
    will not run, and then the end?"""
    events = imported("metrics.py", "runs.py") + answers(*answered) + [("message", {"done": True})]
    child = ScriptedChild(events)
    sent_at: list = []

    def watch():  # the calls sent by the time each event is read
        for event in events:
            sent_at.append(list(child.sent))
            yield event

    child.messages = lambda deadline_of, line_limit: watch()  # type: ignore[method-assign]
    result = SandboxResult(outcomes=[None] * len(calls))
    reader = Reader(
        calls,
        0,
        skip,
        set(),
        result,
        {},
        Mode.UID,
        lambda c, index: c.send(None if index is None else payload(index)),
    )
    assert reader.read(child, LIMITS, deadline=float("inf")) == "done"
    assert sent_at[:5] == [[], [], [], [], []]  # the imports and "ready": nothing sent yet
    assert sent_at[5 : 5 + len(answered)] == held
    assert child.sent == sent  # the skipped calls never sent, the end last


def test_reader_keeps_a_bounded_record_of_banned_imports():
    """Is every banned import attributed to what was running, and are at most MAX_BANNED kept?"""
    tries = [("message", {"banned_import": f"ir_measures.m{n}"}) for n in range(MAX_BANNED + 5)]
    _, result, _ = read(
        imported("metrics.py", "runs.py") + answers(0) + tries + answers(1, 2, 3, 4) + [("message", {"done": True})]
    )
    assert len(result.banned_imports) == MAX_BANNED
    assert {during for _, during in result.banned_imports} == {"alpha"}


# ---------------------------------------------------------------- the retry loop


class Script:
    """Fake children for ``runner.run``: each imports its file, says it is ready, then answers the
    calls the loop sends it as ``behaviour[index]`` says (``ok``, ``hang`` or ``crash``); an
    import listed in ``imports`` ends the child while importing."""

    def __init__(self, behaviour: dict, imports: dict | None = None):
        self.behaviour, self.imports, self.started, self.configs = behaviour, imports or {}, [], []
        self.killed: dict = {}  # call index or file -> times it was killed from outside

    def __call__(self, isolation, config, env, work, output, received):
        self.configs.append(config)
        events = []
        for name in ("metrics.py", "runs.py"):
            if name in config["skip_files"]:
                continue
            events.append(("message", {"importing": name}))
            if self.imports.get(name) == "crash":
                return Fake(events + [("eof",)], script=self)
            if self._outside(name, self.imports.get(name)):
                return Fake(events + [("eof",)], script=self, ended_by=signal.SIGKILL)
            events.append(("message", {"imported": name}))
        return Fake(events + [("message", {"ready": True})], script=self)

    def _outside(self, what, behaviour) -> bool:
        """Is ``what`` killed from outside this time (``killed-once``: the first time only)?"""
        if behaviour not in ("killed-once", "killed-always"):
            return False
        self.killed[what] = self.killed.get(what, 0) + 1
        return behaviour == "killed-always" or self.killed[what] == 1


@dataclass
class Fake(ScriptedChild):
    received: int = 0
    script: Script | None = None

    def messages(self, deadline_of, line_limit):
        for event in self.events:
            deadline_of(), line_limit()
            yield event
        if not self.events or self.events[-1] != ("message", {"ready": True}):
            return
        answered = 0
        while answered < len(self.sent):
            index = self.sent[answered]
            answered += 1
            if index is None:
                yield ("message", {"done": True})
                return
            if answered == 1 and self.script is not None:
                self.script.started.append(index)
            what = self.script.behaviour.get(index, "ok") if self.script else "ok"
            deadline_of(), line_limit()
            if self.script is not None and self.script._outside(index, what):
                self.ended_by = signal.SIGKILL
                yield ("eof",)
                return
            if what in ("hang", "crash"):
                yield ("timeout",) if what == "hang" else ("eof",)
                return
            yield answers(index)[0]

    def kill(self, isolation, uid):
        return "exit status 1"


def loop(script: Script):
    isolation = Isolation(Mode.NONE, "python3")
    return runner.run(None, CALLS, payload, LIMITS, isolation, start_child=script)


def statuses(result):
    return [str(outcome.status) for outcome in result.outcomes]


def test_loop_restarts_after_a_hang_and_goes_on_with_the_next_call():
    """Does a hanging call cost that call only, a fresh child continuing with the next one?"""
    script = Script({1: "hang"})
    result = loop(script)
    assert statuses(result) == ["value", "timeout", "value", "value", "value"]
    assert script.started == [0, 2, 4] and result.restarts == 1  # 4: runs.py's own child


def test_each_graded_file_gets_children_of_its_own():
    """Does each graded file run in children that import only it, in a scratch space of its own
    (so one file's functions filling the disk cost only them)?"""
    script = Script({})
    loop(script)
    assert [config["skip_files"] for config in script.configs] == [["runs.py"], ["metrics.py"]]
    assert script.configs[0]["work_dir"] != script.configs[1]["work_dir"]


MANY = [Call("alpha", "metrics.py")] * 6 + [Call("beta", "metrics.py")] * 2 + [Call("write_run", "runs.py")]


def loop_many(script: Script):
    return runner.run(None, MANY, payload, LIMITS, Isolation(Mode.NONE, "python3"), start_child=script)


@pytest.mark.parametrize(
    "behaviour, expected",
    [
        ({0: "crash", 1: "crash", 2: "crash"}, ["crash"] * 3 + ["not-run"] * 3 + ["value"] * 3),
        ({0: "crash", 1: "crash"}, ["crash"] * 2 + ["value"] * 7),
        ({0: "hang", 1: "hang", 2: "hang", 4: "hang"}, ["timeout"] * 3 + ["value", "timeout"] + ["value"] * 4),
        ({6: "crash", 7: "crash"}, ["value"] * 6 + ["crash"] * 2 + ["value"]),
    ],
    ids=["three-crashes", "two-crashes", "hangs", "other-function"],
)
def test_loop_gives_up_on_a_function_only_after_its_strikes(behaviour, expected):
    """Does a function lose its other calls after STRIKES crashes (and only its own calls), while
    hangs alone (bounded by the function's time budget) never stop its other cases from running?"""
    assert STRIKES == 3
    assert statuses(loop_many(Script(behaviour))) == expected


def test_calls_after_a_hang_get_a_short_limit():
    """Once a call of a function hung, do its later calls get AFTER_HANG_SECONDS (others the full
    per-call limit), so that code looping on one kind of input costs seconds, not every case?"""
    seen: dict = {}
    limits = Limits(call_seconds=5, submission_seconds=60, memory_mb=256, output_kb=4, functions=3)
    child = ScriptedChild(imported("metrics.py", "runs.py") + answers(0, 1, 2, 3, 4) + [("message", {"done": True})])
    result = SandboxResult(outcomes=[None] * len(CALLS))
    reader = Reader(
        CALLS,
        0,
        set(),
        set(),
        result,
        {},
        Mode.UID,
        lambda c, index: c.send(None if index is None else payload(index)),
        hung={"alpha"},
    )

    def watch(deadline_of, line_limit):
        for event in child.events:
            deadline = deadline_of()
            if reader.ready() and reader.next_index < len(CALLS):
                seen.setdefault(CALLS[reader.next_index].fn, round(deadline - reader.sent_at, 3))
            yield event

    child.messages = watch  # type: ignore[method-assign]
    assert reader.read(child, limits, deadline=float("inf")) == "done"
    assert seen == {"alpha": AFTER_HANG_SECONDS, "beta": 5.0, "write_run": 5.0}


def test_loop_charges_a_crash_on_import_to_its_file():
    """When runs.py kills the child while importing, do its calls end 'not run: did not import' and
    metrics.py's calls all run?"""
    result = loop(Script({}, imports={"runs.py": "crash"}))
    assert statuses(result)[:4] == ["value"] * 4
    assert result.outcomes[4].status == OutcomeStatus.NOT_RUN and "did not import" in result.outcomes[4].detail
    assert result.imports["runs.py"].status == OutcomeStatus.CRASH


def test_loop_stops_a_function_whose_time_budget_is_spent():
    """When a function's calls have used its time budget, are its other calls not run, saying why?"""
    limits = Limits(call_seconds=1, submission_seconds=1.5, memory_mb=256, output_kb=4, functions=3)
    script = Script({0: "hang"})
    result = runner.run(None, CALLS, payload, limits, Isolation(Mode.NONE, "python3"), start_child=script)
    assert result.outcomes[0].status == OutcomeStatus.TIMEOUT
    assert result.outcomes[1].status == OutcomeStatus.NOT_RUN and "time budget" in result.outcomes[1].detail
    assert result.outcomes[2].status == OutcomeStatus.VALUE


@dataclass
class LoadedChild(ScriptedChild):
    """A child whose every message takes ``seconds``, of which ``waiting`` waiting for a CPU (the
    machine's other load), ``grader`` the grader's own wait to read it, and ``cpu_each`` of CPU time
    (all its threads together)."""

    seconds: float = 0.05
    waiting: float = 0.0
    grader: float = 0.0
    cpu_each: float = 0.0
    clock: float = 0.0
    used: float = 0.0
    grader_clock: list = field(default_factory=lambda: [0.0])

    def messages(self, deadline_of, line_limit):
        import time

        for event in self.events:
            deadline_of(), line_limit()
            time.sleep(self.seconds)
            self.clock += self.waiting
            self.used += self.cpu_each
            self.grader_clock[0] += self.grader
            yield event

    def waited(self):
        return self.clock

    def cpu(self):
        return self.used


@pytest.mark.parametrize(
    ("load", "charged"),
    [
        ({}, (0.1, 0.2)),
        ({"waiting": 0.05}, (0.0, 0.02)),
        ({"grader": 0.05}, (0.0, 0.02)),
        ({"waiting": 0.05, "cpu_each": 0.2}, (0.39, 0.5)),
    ],
    ids=["its-own-time", "the-machine-s-load", "the-grader-s-own-wait", "threads-busying-the-cpus"],
)
def test_reader_charges_a_budget_the_call_s_time_not_the_machine_s_load(load, charged, monkeypatch):
    """Is a function's time budget charged the time its calls took, less what they waited for a
    CPU and what the grader waited to read their answers (a busy machine costs an honest
    submission nothing), but at least the CPU time the child's threads used (threads keeping the
    CPUs busy cannot make a call look cheap)?"""
    from autograder.sandbox import channel

    events = imported("metrics.py", "runs.py") + answers(0, 1, 2, 3, 4) + [("message", {"done": True})]
    child = LoadedChild(events, **load)
    monkeypatch.setattr(channel, "parent_waited", lambda: child.grader_clock[0])
    reader, _, ending = read(events, child=child)
    assert ending == "done"
    low, high = charged
    assert low <= reader.spent["alpha"] <= high, reader.spent


def test_a_call_killed_from_outside_runs_again_in_a_fresh_child():
    """When another process kills the child during a call (a signal the submission cannot send and
    no limit of its own sent), does that call run again, and count as no crash of the function?"""
    script = Script({1: "killed-once"})
    result = loop(script)
    assert statuses(result) == ["value"] * 5 and result.disturbed == []
    assert script.killed == {1: 2} and script.started == [0, 1, 4]  # run twice, killed once


def test_an_import_killed_from_outside_is_imported_again():
    """Is an import killed from outside tried again, its file's calls all run?"""
    result = loop(Script({}, imports={"runs.py": "killed-once"}))
    assert statuses(result) == ["value"] * 5 and result.imports["runs.py"].status == OutcomeStatus.OK


def test_a_call_killed_from_outside_twice_says_the_grader_was_disturbed():
    """Killed from outside again, is the call a crash that says the grader was disturbed (for the
    result not to be kept as final), the function's other calls still run?"""
    result = loop(Script({2: "killed-always"}))
    assert statuses(result) == ["value", "value", "crash", "value", "value"]
    assert "disturbed" in result.outcomes[2].detail and len(result.disturbed) == 1


def test_a_crash_of_its_own_is_not_taken_for_a_kill_from_outside():
    """A child that ends of a signal its own limit sent (SIGKILL at the CPU limit: its CPU time
    says so) or of an exit of its own: charged to the call, never run again?"""
    from autograder.sandbox.runner import _from_outside

    at_limit = Fake([], ended_by=signal.SIGKILL, cpu_used=LIMITS.cpu_seconds())
    exited = Fake([], ended_by=None)
    segfault = Fake([], ended_by=signal.SIGSEGV)
    outside = Fake([], ended_by=signal.SIGKILL, cpu_used=0.5)
    assert [_from_outside(child, LIMITS) for child in (at_limit, exited, segfault, outside)] == [
        False,
        False,
        False,
        True,
    ]


# ---------------------------------------------------------------- why a file's run stopped


def test_each_file_says_its_run_ended_because_its_calls_were_done():
    """Does the runner say each graded file's run stopped because its child was done, with every
    call run and none of them given a reason for not running?"""
    result = loop(Script({}))
    assert result.stops == {"metrics.py": StopReason.DONE, "runs.py": StopReason.DONE}
    assert all(outcome.stop is None for outcome in result.outcomes)


def test_calls_of_a_file_that_did_not_import_say_so_by_their_stop_reason():
    """Do the calls of a graded file whose import crashed carry ``IMPORT_FAILED``, the structured
    reason the grader reads (not the words of their detail)?"""
    result = loop(Script({}, imports={"runs.py": "crash"}))
    runs = [outcome for call, outcome in zip(CALLS, result.outcomes) if call.file == "runs.py"]
    assert runs and {outcome.stop for outcome in runs} == {StopReason.IMPORT_FAILED}
    assert result.stops["metrics.py"] == StopReason.DONE


def test_the_overall_deadline_is_named_as_the_limit_that_stopped_a_run():
    """When a platform's overall deadline comes before the submission's own limit, does the runner
    say that limit stopped the file's run, mark the calls it did not run with it, and leave the
    note about the submission's own time limit out?"""
    script = Script({0: "hang"})
    isolation = Isolation(Mode.NONE, "python3")
    past = time.monotonic() - 1
    result = runner.run(None, CALLS, payload, LIMITS, isolation, start_child=script, overall_deadline=past)
    assert result.stops["metrics.py"] == StopReason.OVERALL_TIME_LIMIT
    not_run = [outcome for outcome in result.outcomes if outcome.status == OutcomeStatus.NOT_RUN]
    assert not_run and {outcome.stop for outcome in not_run} == {StopReason.OVERALL_TIME_LIMIT}
    assert result.notes == []


def test_the_submissions_own_time_limit_is_named_as_the_limit_that_stopped_a_run(monkeypatch):
    """When the submission's own time limit runs out (no overall deadline), does the runner say
    so in the file's stop reason, the calls not run and its note?"""
    monkeypatch.setattr(runner, "STARTUP_SECONDS", -100.0)  # every deadline already past
    result = loop(Script({0: "hang"}))
    assert result.stops["metrics.py"] == StopReason.TIME_LIMIT
    not_run = [outcome for outcome in result.outcomes if outcome.status == OutcomeStatus.NOT_RUN]
    assert not_run and {outcome.stop for outcome in not_run} == {StopReason.TIME_LIMIT}
    assert result.notes == ["the submission's time limit (60 s) ran out"]


def _direct_wait() -> float:
    with open("/proc/thread-self/schedstat", "rb") as stats:
        return int(stats.read().split()[1]) / 1e9


@pytest.mark.parametrize("where", ["this-thread", "another-thread"])
def test_the_graders_wait_is_its_own_threads(where):
    """Does ``parent_waited`` read the wait of the thread that asks (a file of its own, kept open),
    between what that thread's own schedstat says just before and just after?"""
    import threading

    from autograder.sandbox import channel

    seen: dict = {}

    def measure():
        before = _direct_wait()
        seen["value"] = (before, channel.parent_waited(), channel.parent_waited(), _direct_wait())
        seen["key"] = (os.getpid(), threading.get_ident())

    if where == "this-thread":
        measure()
    else:
        thread = threading.Thread(target=measure)
        thread.start()
        thread.join()
    before, first, again, after = seen["value"]
    assert before <= first <= again <= after
    assert seen["key"] in channel._SCHEDSTATS
