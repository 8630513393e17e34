"""How ``make test`` shares the suite between pytest-xdist's workers (``--dist loadgroup
--no-loadscope-reorder``), in one place (``tests/conftest.py`` applies it; docs/TESTING.md says why).

A test file's tests are one group, run by one worker, so that its module fixtures (a graded batch,
a built autograder.zip) are made once, as ``--dist loadfile`` did. A file whose heavy fixture is
parametrized (a sandbox batch per isolation mode, a platform's entry point per platform) is named
in ``SPLIT`` with those parameter values: each value's tests are then a group of their own, so that
the modes of one file run on both workers at once; the fixture is made once per value either way.

Groups holding a ``slow`` test are sent first (in collection order), so that no long group starts
when the short ones are done and leaves one worker idle while it runs alone. Only the order and the
worker change, never what a test does or sees: nothing here depends on time or load.

The groups are computed from node ids alone, on the workers (to order their collection) and on the
controller (``Groups``, the scheduler ``pytest_xdist_make_scheduler`` returns for ``--dist
loadgroup``): xdist's own ``loadgroup`` reads ``xdist_group`` marks by renaming node ids, which
pytest 9 ignores, so it would send every test on its own and make each module fixture twice."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from xdist.scheduler import LoadScopeScheduling

#: The files split into a group per value of a parameter (a module fixture's, or an isolation mode
#: each test runs its own entry point in): a test belongs to the value its parameter id starts with
#: (``test_x[uid-sys-exit]``: ``uid``), the longest that fits, else to the one it ends with
#: (``test_y[broken-zip-auto]``: ``auto``).
SPLIT: Mapping[str, tuple[str, ...]] = {
    "tests/end_to_end/test_hostile_submissions.py": ("jail", "uid", "container", "lab05-jail"),
    "tests/end_to_end/test_leaks.py": ("jail", "uid", "container", "gradescope", "prairielearn"),
    "tests/platforms/test_prairielearn.py": ("auto", "uid"),
}


def group_of(nodeid: str, split: Mapping[str, Sequence[str]] = SPLIT) -> str:
    """The group of the test ``nodeid``: its file, or ``FILE::VALUE`` in a file ``split`` names
    when its parameter id is VALUE, starts with ``VALUE-`` or (if none starts it) ends with ``-VALUE``."""
    path, _, name = nodeid.partition("::")
    values = split.get(path, ())
    if isinstance(values, str):
        raise TypeError(
            f"group_of: the values {path} is split by are the string {values!r}, expected a tuple of "
            f"parameter values; write ({values!r},)"
        )
    if not name.endswith("]") or "[" not in name:
        return path
    ids = name[name.index("[") + 1 : -1]
    longest = sorted(values, key=len, reverse=True)
    for value in longest:
        if ids == value or ids.startswith(f"{value}-"):
            return f"{path}::{value}"
    for value in longest:
        if ids.endswith(f"-{value}"):
            return f"{path}::{value}"
    return path


#: The longest groups, longest first: sent before every other, so that no long group starts when
#: the short ones are done and leaves one worker idle while it runs alone (the longest first, then
#: the next to the first worker free). Ranked by the time a worker spends on each (its tests' wall
#: time in one ``make test``, ``--cpu-times``), not by CPU alone: some wait more than they compute
#: (the Slurm cluster's jobs, the time limits of test_counterexamples.py's submissions). A split
#: file's groups share its time. A static table: the order never depends on a run's times or the
#: machine's load.
FIRST: tuple[str, ...] = (
    "tests/end_to_end/test_counterexamples.py",
    "tests/local/test_concurrency.py",
    "tests/platforms/test_slurm.py",
    "tests/local/test_shards_class.py",
    "tests/project/test_benchmark.py",
    "tests/grading/test_true_diagnoses.py",
    "tests/end_to_end/test_hostile_submissions.py::jail",
    "tests/end_to_end/test_hostile_submissions.py::uid",
    "tests/end_to_end/test_hostile_submissions.py::container",
    "tests/end_to_end/test_hostile_submissions.py::lab05-jail",
    "tests/grading/test_buggy_submissions.py",
    "tests/platforms/test_container.py",
    "tests/local/test_honest_corpus_batch.py",
    "tests/grading/test_answer_tables.py",
    "tests/grading/test_analysis_own_runs.py",
)


def slow_first(groups: Sequence[str], slow: Iterable[bool], first: Sequence[str] = FIRST) -> list[int]:
    """The order to run tests in, as indices into ``groups`` (each test's group; ``slow``: whether
    each test is marked slow): the tests of the groups ``first`` names, in its order, then every
    test of another group holding a slow test, the rest after, each in its collection order."""
    slow_groups = {group for group, is_slow in zip(groups, slow, strict=True) if is_slow}
    rank = {group: place for place, group in enumerate(first)}

    def key(index: int) -> tuple[int, bool]:
        return rank.get(groups[index], len(rank)), groups[index] not in slow_groups

    return sorted(range(len(groups)), key=key)


class Groups(LoadScopeScheduling):
    """xdist's scheduler by scope (a scope runs whole on one worker, the next scope goes to the
    first worker free), its scopes the groups of ``group_of``."""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)
