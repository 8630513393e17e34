"""The parent never trusts the child's answers: malformed, deep, huge or lying ones are judged
as wrong, never crash the grader."""

import json

import pytest

from autograder.grading import judge
from autograder.labkit.load import default as default_lab
from autograder.sandbox import channel, settings
from autograder.sandbox.channel import Outcome

DEEP = {"type": "list", "items": [], "length": 0}
for _ in range(900):
    DEEP = {"type": "list", "items": [DEEP], "length": 1}

MALFORMED = [
    ("short-tuple", {"type": "tuple", "items": [], "length": 4}, (0, 0, 7, 1393)),
    ("items-not-a-list", {"type": "list", "items": "abc", "length": 3}, ["a", "b", "c"]),
    ("dict-items-wrong", {"type": "dict", "items": [[1, 2, 3]], "length": 1}, {"1": 1.0}),
    ("dict-key-unhashable", {"type": "dict", "items": [[{"type": "str", "value": []}, {}]], "length": 1}, {"1": 1.0}),
    ("huge-int", {"type": "int", "value": 10**400}, 0.5),
    ("nan-text", {"type": "float", "value": "nan"}, 0.5),
    ("bool", {"type": "bool", "value": True}, 1.0),
    ("not-a-dict", [1, 2, 3], 0.5),
    ("missing-type", {"value": 0.5}, 0.5),
    ("deep", DEEP, [1]),
    ("float-subclass", {"type": "other", "name": "x.Liar", "bases": ["float"]}, 0.5),
]


@pytest.mark.parametrize("encoded, expected", [row[1:] for row in MALFORMED], ids=[row[0] for row in MALFORMED])
def test_malformed_answer_is_judged_wrong_without_crashing(encoded, expected):
    """Is each malformed answer a failing verdict, and its display value safe to render?"""
    status, message = judge.verdict(Outcome("value", value=encoded), expected, tolerance=default_lab().tolerance)
    assert status == "fail" and message
    json.dumps(judge.plain(encoded))  # storable
    from autograder.reports import markdown as feedback

    feedback.value_text(judge.plain(encoded))  # renderable (no recursion error)


@pytest.mark.parametrize(
    "line, parsed",
    [
        (b'{"i": 1, "value": {"type": "float", "value": 0.5}}', True),
        (b"[1, 2, 3]", False),
        (b"5", False),
        (b"{" * 30000, False),
        (b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}", False),
        (b"not json", False),
        (b'{"x": "' + b"a" * (2 << 20) + b'"}', False),
    ],
    ids=["answer", "list", "number", "brackets", "too-deep", "not-json", "too-long"],
)
def test_channel_lines_are_parsed_defensively(line, parsed):
    """Is only a small, shallow JSON object accepted from the channel?"""
    assert (channel.parse_line(line, settings.LINE_LIMIT) is not None) == parsed


def test_expected_error_and_other_errors():
    """Does an expected ValueError pass, and any other exception fail with what was raised?"""
    raised = Outcome("error", error={"type": "ValueError", "mro": ["ValueError", "Exception"], "message": "k"})
    assert judge.verdict(raised, {"raises": "ValueError"}, tolerance=default_lab().tolerance)[0] == "pass"
    assert judge.verdict(raised, 0.5, tolerance=default_lab().tolerance) == ("error", "raised ValueError: k")
    assert (
        judge.verdict(
            Outcome("value", value={"type": "float", "value": 0.5}),
            {"raises": "ValueError"},
            tolerance=default_lab().tolerance,
        )[0]
        == "fail"
    )


NUMBER = {"type": "float", "value": 0.5001}
#: id -> (the answer, the expected value, the lab's tolerance, the status)
TOLERANCES = {
    "a number within a loose lab's": (NUMBER, 0.5, 1e-3, "pass"),
    "a number outside a strict lab's": (NUMBER, 0.5, 1e-6, "fail"),
    "an item within a loose lab's": ({"type": "list", "items": [NUMBER], "length": 1}, [0.5], 1e-3, "pass"),
    "an item outside a strict lab's": ({"type": "list", "items": [NUMBER], "length": 1}, [0.5], 1e-6, "fail"),
    "a value within a loose lab's": (
        {"type": "dict", "items": [[{"type": "str", "value": "q1"}, NUMBER]], "length": 1},
        {"q1": 0.5},
        1e-3,
        "pass",
    ),
    "a value outside a strict lab's": (
        {"type": "dict", "items": [[{"type": "str", "value": "q1"}, NUMBER]], "length": 1},
        {"q1": 0.5},
        1e-6,
        "fail",
    ),
}


@pytest.mark.parametrize("case_id", TOLERANCES)
def test_an_answer_is_judged_with_the_tolerance_it_is_given(case_id):
    """Is an answer, alone or inside a list or a dict, judged within the tolerance given (the lab's),
    not the one of the lab the engine was imported with?"""
    encoded, expected, tolerance, status = TOLERANCES[case_id]
    assert judge.verdict(Outcome("value", value=encoded), expected, tolerance=tolerance)[0] == status
