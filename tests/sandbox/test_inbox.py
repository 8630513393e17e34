"""What the parent writes to a child's inbox (``sandbox/child_process.py: ChildProcess.send``): a
batch of public calls goes out in a few large writes, not one per call, and a secret call's inputs
reach the pipe only once every call before it is answered. Real children (--isolation none: the
writing is the same in every mode), each write to an inbox recorded and split back into frames."""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

import pytest

from autograder import tempdirs
from autograder.sandbox import child_process, runner
from autograder.sandbox.outcomes import OutcomeStatus, SandboxResult
from autograder.sandbox.settings import Call, Isolation, Limits, Mode

LIMITS = Limits(call_seconds=60, submission_seconds=120, memory_mb=1024, output_kb=8)

SOURCE = "def echo(text):\n    return len(text)\n"

#: (id, public calls, secret calls, bytes of each call's argument, at most this many writes in all)
CASES = [
    ("200-small-public-calls", 200, 0, 1_000, 6),
    ("60-public-calls-of-20-KB", 60, 0, 20_000, 24),
    ("public-then-3-secret", 50, 3, 1_000, 2 + 3 + 1),
    ("one-public-call", 1, 0, 10, 2),
]


def _frames(stream: bytes) -> list[int]:
    """The call indexes of the inbox frames in ``stream`` (-1: the end), as the harness reads them."""
    found, at = [], 0
    while at + 4 <= len(stream):
        size = int.from_bytes(stream[at : at + 4], "big")
        found.append(int.from_bytes(stream[at + 4 : at + 8], "big") if size else -1)
        at += 4 + size
    return found


def _graded(public: int, secret: int, size: int, monkeypatch: pytest.MonkeyPatch) -> tuple[SandboxResult, list]:
    """Run the calls on a real child; returns the result and each inbox write as (call indexes whose
    frames it ended, how many calls were answered when it was made)."""
    calls = [Call("echo", "metrics.py", secret=number >= public) for number in range(public + secret)]
    inboxes: set[int] = set()
    writes: list[tuple[int, bytes, int]] = []
    live: list[SandboxResult] = []
    real_init, real_write = child_process.ChildProcess.__init__, os.write

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        if self.inbox is not None:
            inboxes.add(self.inbox)

    def write(fd: int, data) -> int:
        written = real_write(fd, data)
        if fd in inboxes:
            answered = sum(outcome is not None for outcome in live[0].outcomes) if live else 0
            writes.append((fd, bytes(data[:written]), answered))
        return written

    monkeypatch.setattr(child_process.ChildProcess, "__init__", init)
    monkeypatch.setattr(child_process.os, "write", write)
    with tempdirs.folder("lab05-inbox-") as temporary:
        folder = Path(temporary)
        package = folder / "lab" / "lab05"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "metrics.py").write_text(SOURCE)

        def payload(index: int) -> bytes:
            call = {"fn": "echo", "file": "metrics.py", "args": ["x" * size]}
            return index.to_bytes(4, "big") + pickle.dumps(call, protocol=4)

        result = runner.run(
            folder / "lab", calls, payload, LIMITS, Isolation(Mode.NONE, sys.executable), live=live.append
        )
    monkeypatch.undo()
    streams: dict[int, bytes] = {}  # each child's inbox (a descriptor number is not reused while it is open)
    ended = []
    for fd, data, answered in writes:
        before = len(_frames(streams.get(fd, b"")))
        streams[fd] = streams.get(fd, b"") + data
        ended.append((_frames(streams[fd])[before:], answered))
        if ended[-1][0][-1:] == [-1]:
            streams.pop(fd)  # the end: a later child may get the same number
    return result, ended


@pytest.mark.parametrize(("public", "secret", "size", "most"), [case[1:] for case in CASES], ids=[c[0] for c in CASES])
def test_does_a_batch_of_public_calls_reach_the_child_in_a_few_writes(monkeypatch, public, secret, size, most):
    """Are all the calls answered, with every frame written once, in at most a few writes (a
    batch of public calls no longer costs a write, and a wake-up of the child, per call)?"""
    result, writes = _graded(public, secret, size, monkeypatch)
    assert [outcome.status if outcome else None for outcome in result.outcomes] == [OutcomeStatus.VALUE] * (
        public + secret
    )
    assert [outcome.value for outcome in result.outcomes if outcome] == [{"type": "int", "value": size}] * (
        public + secret
    )
    sent = [index for frames, _ in writes for index in frames]
    ends = [-1] * (1 + (secret > 0))  # the public calls' child, then the secret calls' own
    assert sorted(sent) == [*ends, *range(public + secret)], f"frames written: {sent}"
    assert len(writes) <= most, f"{len(writes)} writes for {public + secret} calls of {size} bytes (at most {most})"


@pytest.mark.parametrize("secret", [1, 3], ids=["one-secret-call", "three-secret-calls"])
def test_does_a_secret_calls_frame_reach_the_pipe_only_once_every_call_before_it_is_answered(monkeypatch, secret):
    """Is each secret call's frame written alone, and only when every call before it is answered
    (its inputs reach the child only when it is to run), whatever was queued with the public ones?"""
    public = 40
    _, writes = _graded(public, secret, 100, monkeypatch)
    for frames, answered in writes:
        hidden = [index for index in frames if index >= public]
        if hidden:
            assert len(frames) == 1, f"a secret call's frame went out with others: {frames}"
            assert answered == hidden[0], f"call {hidden[0]} written when {answered} calls were answered"
    assert sorted(index for frames, _ in writes for index in frames if index >= public) == list(
        range(public, public + secret)
    )
