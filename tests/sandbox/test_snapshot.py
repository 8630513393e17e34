"""How the child tells that a call changed its arguments (``harness.snapshot``): a snapshot before the
call and one after, compared; plain items are taken whole (the fast way), anything else item by
item, and both ways give the same snapshot."""

from __future__ import annotations

import types

import pytest

from autograder.sandbox.child import harness

#: id: (an argument, its snapshot)
SNAPSHOTS = {
    "ranking": (["d1", "d2"], ("list", ["d1", "d2"])),
    "tuple-of-plain-items": (("a", 1, 2.5, True, None), ("tuple", ["a", 1, 2.5, True, None])),
    "judgments": ({"d2": 1, "d1": 0}, ("dict", [("'d1'", 0), ("'d2'", 1)])),
    "read-only-judgments": (types.MappingProxyType({"d1": 2}), ("dict", [("'d1'", 2)])),
    "nested-run": ({"q1": ["d1"]}, ("dict", [("'q1'", ("list", ["d1"]))])),
    "a-function-left-out": ([len, "d1"], ("list", [None, "d1"])),
    "a-str-subclass-item-by-item": ([type("Id", (str,), {})("d1")], ("list", ["d1"])),
    "empty": ([], ("list", [])),
}


@pytest.mark.parametrize("value, expected", list(SNAPSHOTS.values()), ids=list(SNAPSHOTS))
def test_a_snapshot_is_the_plain_data_of_an_argument(value, expected):
    """Is the snapshot of an argument its plain data, item by item, whichever way it was taken?"""
    assert harness.snapshot(value) == expected


def _nested(depth: int, leaf: object) -> object:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


@pytest.mark.parametrize("depth", [7, 8, 9, 10])
def test_the_fast_way_stops_where_the_item_by_item_way_does(depth):
    """Does a list of plain items nested ``depth`` deep give the snapshot of the item by item way,
    items below depth 8 left out?"""
    snapshot = harness.snapshot(_nested(depth, ["d1"]))
    for _ in range(min(depth, 8)):  # the lists around it, down to depth 8
        assert snapshot is not None and snapshot[0] == "list"
        (snapshot,) = snapshot[1]
    assert snapshot == (("list", ["d1"]) if depth < 8 else ("list", [None]))


def _swap(ranking):
    ranking[0], ranking[1] = ranking[1], ranking[0]


def _grade(judgments):
    judgments["d1"] = 3


def _same_value_other_type(judgments):
    judgments["d1"] = 1.0


def _replace_by_object(ranking):
    ranking[0] = object()


#: id: (an argument, what the call does to it, is it changed)
CHANGES = {
    "ranking-reordered": (["d1", "d2"], _swap, True),
    "grade-changed": ({"d1": 1}, _grade, True),
    "grade-the-same-number": ({"d1": 1}, _same_value_other_type, False),
    "item-replaced-by-an-object": (["d1", "d2"], _replace_by_object, True),
    "left-alone": (["d1", "d2"], lambda ranking: None, False),
}


@pytest.mark.parametrize("value, call, changed", list(CHANGES.values()), ids=list(CHANGES))
def test_snapshots_tell_a_changed_argument(value, call, changed):
    """Do the snapshots before and after a call differ exactly when the call changed the argument's
    plain data?"""
    before = harness.snapshot(value)
    call(value)
    assert (harness.snapshot(value) != before) is changed
