"""What the parent does per message of a child (``sandbox/channel.py``): the clocks of the child (its
wait for a CPU, its CPU time) are read once per arrival of messages, not once per message, and an
answer on a short line is kept without being measured again; each with the same outcome and the
same charge as measuring every message."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from autograder.sandbox.channel import SHORT_LINE, Reader, kept
from autograder.sandbox.outcomes import OutcomeStatus, SandboxResult
from autograder.sandbox.settings import ANSWER_KEPT, Call, Limits, Mode

LIMITS = Limits(call_seconds=10, submission_seconds=60, memory_mb=512, output_kb=8)


@dataclass
class ClockedChild:
    """A child whose messages come in ``arrivals`` (lists of messages read at once), whose clocks
    advance by ``step`` seconds at each arrival, and which counts how often they are read."""

    arrivals: list
    step: float = 0.25
    arrival: int = 0
    readings: int = 0
    sent: list = field(default_factory=list)

    def send(self, data):
        self.sent.append(None if data is None else int.from_bytes(data[:4], "big"))

    def drain(self):
        pass

    def messages(self, deadline_of, line_limit):
        for messages in self.arrivals:
            self.arrival += 1
            for message in messages:
                yield ("message", message, len(json.dumps(message)))
        yield ("eof",)

    def waited(self):
        self.readings += 1
        return self.arrival * self.step

    def cpu(self):
        self.readings += 1
        return self.arrival * self.step

    def launched(self, pid):
        return True

    def watch(self, pid):
        pass


def _answers(indexes):
    return [{"i": index, "value": {"type": "float", "value": 0.5}, "t": 0.001} for index in indexes]


#: (id, how the answers of 6 calls arrive: the indexes of each read of the channel)
ARRIVALS = [
    ("one-read-for-all", [[0, 1, 2, 3, 4, 5]]),
    ("a-read-each", [[0], [1], [2], [3], [4], [5]]),
    ("two-reads", [[0, 1, 2], [3, 4, 5]]),
]


@pytest.mark.parametrize("arrivals", [case[1] for case in ARRIVALS], ids=[case[0] for case in ARRIVALS])
def test_are_the_childs_clocks_read_once_per_arrival_and_every_call_charged_the_same_cpu(arrivals):
    """Are the child's clocks read twice per read of the channel (not per message), every call
    answered, and the CPU the child used charged in all as it was used (the first answer of an
    arrival carrying what was used since the arrival before)?"""
    calls = [Call("alpha", "metrics.py")] * 6
    start = [{"importing": "metrics.py"}, {"imported": "metrics.py"}, {"ready": True}]
    child = ClockedChild([start] + [_answers(indexes) for indexes in arrivals] + [[{"done": True}]])
    result = SandboxResult(outcomes=[None] * len(calls))
    spent: dict[str, float] = {}
    reader = Reader(
        calls,
        0,
        set(),
        set(),
        result,
        spent,
        Mode.NONE,
        lambda c, index: c.send(b"" if index is None else index.to_bytes(4, "big")),
    )
    ending = reader.read(child, LIMITS, deadline=float("inf"))
    assert ending == "done"
    assert [outcome.status for outcome in result.outcomes] == [OutcomeStatus.VALUE] * 6
    reads = 1 + 1 + len(arrivals) + 1  # at the start, then each arrival: the start's, the answers', "done"
    assert child.readings == 2 * reads, f"{child.readings} readings of the clocks for {reads} arrivals"
    assert spent["alpha"] >= 0.25 * len(arrivals) - 1e-9, spent


#: (id, the value of an answer as its line writes it: a child may write any JSON it likes)
VALUES = [
    ("float", '{"type":"float","value":0.123456789}'),
    ("floats-that-grow", "[" + ",".join(["1e15"] * 50) + "]"),
    ("non-ascii-text", '{"type":"str","value":"' + "é" * 200 + '"}'),
    ("nested", '[[[[[1,2],{"a":[3.5,null,true]}]]]]'),
    ("short-line-of-most-growth", "[" + ",".join(["1e15"] * 97) + "]"),
    ("long-answer", json.dumps([{"type": "float", "value": 0.1 * n} for n in range(900)])),
]


def _line(text: str) -> int:
    """The bytes of the answer's channel line, its value written as ``text``."""
    return len(('{"i":3,"value":' + text + ',"t":0.001}').encode())


@pytest.mark.parametrize("text", [case[1] for case in VALUES], ids=[case[0] for case in VALUES])
def test_is_an_answer_kept_as_measuring_it_would_keep_it(text):
    """Is an answer kept the same with its line's length as when it is measured (whole when it
    is small, else its kind and size), and does a line of at most SHORT_LINE bytes never hold an
    answer past ANSWER_KEPT?"""
    value = json.loads(text)
    assert kept(value, _line(text)) == kept(value)
    if _line(text) <= SHORT_LINE:
        assert len(json.dumps(value)) <= ANSWER_KEPT


def test_does_the_line_of_most_growth_fit_its_bound():
    """Is the worst line the bound allows (floats written ``1e15``) within 30 bytes of SHORT_LINE and
    over 3.5 times shorter than its answer, so that the test above checks the bound where it is tight?"""
    text = "[" + ",".join(["1e15"] * 97) + "]"
    assert SHORT_LINE - 30 <= _line(text) <= SHORT_LINE
    assert len(json.dumps(json.loads(text))) > 3.5 * _line(text)
