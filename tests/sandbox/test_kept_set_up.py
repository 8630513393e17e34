"""What a grading command's set-up keeps in the private cache between commands: the seccomp filter
(``seccomp.child_filter``, built once, then read back without importing libseccomp's binding), the
isolation's self-test (``isolation._self_test``, run again only when what it proves changes) and
the child interpreter's probe (``interpreter.probe``, one per environment)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.sandbox import interpreter, isolation, seccomp
from autograder.sandbox.settings import Isolation, Mode


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A cache of the test's own, and a filter no earlier call of this process remembers."""
    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))
    seccomp.child_filter.cache_clear()
    yield tmp_path / "cache"
    seccomp.child_filter.cache_clear()


def _another_rule(monkeypatch):
    monkeypatch.setitem(seccomp.ALLOWED, "kcmp", seccomp.Allowed("a call allowed since the filter was built"))


def _another_refusal(monkeypatch):
    monkeypatch.setitem(seccomp.REFUSED_WITH, "socket", 13 + 84)  # EACCES -> EPROTONOSUPPORT


def _another_architecture(monkeypatch):
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "aarch64")


def _nothing(monkeypatch):
    pass


#: (id, what changes between the build and the next command, is the built filter read back?)
FILTER_CASES = [
    ("nothing changed", _nothing, True),
    ("one call more allowed", _another_rule, False),
    ("a refusal's errno changed", _another_refusal, False),
    ("another architecture", _another_architecture, False),
]


@pytest.mark.parametrize("change, kept", [case[1:] for case in FILTER_CASES], ids=[case[0] for case in FILTER_CASES])
def test_a_built_filter_is_read_back_while_its_rules_stand(private_cache, monkeypatch, change, kept):
    """Once a command built the filter, does the next one read the same bytes back without
    loading libseccomp's binding while the rules and the architecture stand, and build it again
    when either changed?"""
    built = seccomp.child_filter()
    seccomp.child_filter.cache_clear()  # the next command
    change(monkeypatch)
    loaded = []
    binding = seccomp._binding

    def counted():
        loaded.append(True)
        return binding()

    monkeypatch.setattr(seccomp, "_binding", counted)
    again = seccomp.child_filter()
    assert len(loaded) == (0 if kept else 1)
    assert again == built or not kept
    assert len(list(private_cache.glob("seccomp-*.bpf"))) == (1 if kept else 2)


BASE = Isolation(mode=Mode.UID, python=sys.executable, uids=(64001, 64002), banned=("ir_measures",), seccomp=b"\1")

#: (id, the isolation of the next command, does the self-test's child run again?)
SELF_TEST_CASES = [
    ("the same isolation", BASE, False),
    ("other leased uids", replace(BASE, uids=(64007, 64008)), False),
    ("one leased uid fewer", replace(BASE, uids=(64001,)), False),
    ("no uid: children keep the grader's", replace(BASE, uids=()), True),
    ("another banned library", replace(BASE, banned=("ir_measures", "ranx")), True),
    ("another filter", replace(BASE, seccomp=b"\2"), True),
    ("the namespace jail", replace(BASE, mode=Mode.JAIL), True),
]


@pytest.mark.parametrize(
    "following, again", [case[1:] for case in SELF_TEST_CASES], ids=[case[0] for case in SELF_TEST_CASES]
)
def test_the_self_test_runs_again_only_when_what_it_proves_changes(private_cache, monkeypatch, following, again):
    """After a self-test passed, does a command whose isolation differs only in the sandbox uids it
    leased (any of them is another user alike; the probe runs as the first) start no self-test
    child, while any other difference starts one?"""
    ran: list[Isolation] = []

    def self_test(chosen, protected=None):
        ran.append(chosen)
        return None

    monkeypatch.setattr(isolation, "self_test", self_test)
    assert isolation._self_test(BASE) is None
    assert isolation._self_test(following) is None
    assert ran == [BASE, following] if again else ran == [BASE]


def _environment(folder, name):
    """A virtual environment over this test's Python (its ``bin/python`` a link to it)."""
    root = folder / name
    (root / "bin").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text(
        f"home = {Path(sys.executable).resolve().parent}\ninclude-system-site-packages = false\n"
    )
    (root / "bin" / "python").symlink_to(Path(sys.executable).resolve())
    return root


@pytest.mark.parametrize(
    "first, second, shared",
    [("one", "one", True), ("one", "two", False)],
    ids=["the same environment twice", "two environments over one Python"],
)
def test_each_environment_gets_its_own_probe(private_cache, tmp_path, first, second, shared):
    """Is the child interpreter's probe remembered for the environment it was made in: read back
    for the same one, made anew (with that environment's own prefix) for another environment over
    the same Python?"""
    made = {name: _environment(tmp_path, name) for name in {first, second}}
    facts = [interpreter.probe(str(made[name] / "bin" / "python"), (), None) for name in (first, second)]
    assert [Path(found["prefix"]) for found in facts] == [made[first], made[second]]
    assert len(list(private_cache.glob("probe-*.json"))) == (1 if shared else 2)
