"""The run writer's smallest counterexample (``grading/diagnosis/shrink_run.py``, driven through the
sandbox by ``grading/counterexamples.py``): one-bug writers of each kind answered in this process
(trusted code only), each shrunk from a public scenario to the smallest whose file is still wrong,
never from a hidden scenario; ``tests/end_to_end/test_counterexamples.py`` grades in the real sandbox."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from autograder.grading import counterexamples, runfile_checks
from autograder.grading.diagnosis import shrink, shrink_run
from autograder.labkit.case import RAISES
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult
from tests.support.inprocess import answer_call, fake_run, unmade
from tests.support.truth import Grader

pytestmark = pytest.mark.cranfield


def _writer(line, sort=None, end="\n", final=True, cut=True, ask=None):
    """A run writer with one bug: ``line(query_id, doc_id, rank, score, system)`` a line's text,
    ``sort`` a key results are re-sorted by, ``end`` the line end, ``final`` a newline after the
    last line, ``cut`` the results cut at k, ``ask`` the k search_fn is asked for."""

    def write_run(path, system_name, search_fn, queries, k=100):
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError("k must be a positive integer")
        if not system_name or any(c.isspace() for c in system_name):
            raise ValueError("system_name must be a word")
        written = []
        for query in queries:
            results = list(search_fn(query.text, ask(k) if ask else k))
            results = results[:k] if cut else results
            if sort is not None:
                results = sorted(results, key=sort)
            for rank, (doc_id, _title, score) in enumerate(results, start=1):
                written.append(line(query.query_id, doc_id, rank, score, system_name))
        text = end.join(written) + (end if written and final else "")
        with open(path, "w", encoding="utf-8", newline="") as out:
            out.write(text)

    return write_run


def _right(q, d, rank, score, system):
    return f"{q} Q0 {d} {rank} {score:.8f} {system}"


def _printed(path, system_name, search_fn, queries, k=100):
    """print() with a Windows line end: every line ends with \\r\\n."""
    with open(path, "w", encoding="utf-8") as out:
        for query in queries:
            for rank, (doc_id, _, score) in enumerate(search_fn(query.text, k)[:k], 1):
                print(f"{query.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}", file=out, end="\r\n")


def _joined(path, system_name, search_fn, queries, k=100):
    """Lines joined by "\\n": no newline after the last one."""
    rows = [
        " ".join([query.query_id, "Q0", doc, str(n + 1), format(score, ".8f"), system_name])
        for query in queries
        for n, (doc, title, score) in enumerate(search_fn(query.text, k)[:k])
    ]
    with open(path, "w") as out:
        out.write("\n".join(rows))


def _by_string_id(path, system_name, search_fn, queries, k=100):
    """The queries sorted by their ids as strings ("10" before "2"), not kept in the order given."""
    lines = []
    for query in sorted(queries, key=lambda q: q.query_id):
        hits = search_fn(query.text, k)[:k]
        lines += [f"{query.query_id} Q0 {d} {i} {s:.8f} {system_name}\n" for i, (d, _, s) in enumerate(hits, 1)]
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(lines)


def _read_twice(path, system_name, search_fn, queries, k=100):
    """The queries read twice (counted first): a one-pass iterator is empty the second time."""
    if sum(1 for _ in queries) == 0:
        return
    with open(path, "w", encoding="utf-8") as out:
        for query in queries:
            for rank, (doc_id, _, score) in enumerate(search_fn(query.text, k)[:k], start=1):
                out.write(_right(query.query_id, doc_id, rank, score, system_name) + "\n")


#: (id, a one-bug writer, how its file is wrong (``shrink_run``), the largest its smallest may be,
#: what its lines must show)
WRITERS = [
    ("layout: \\r\\n by newline=''", _writer(_right, end="\r\n"), shrink_run.LAYOUT, 2, "\\r\\n"),
    ("layout: \\r\\n by print", _printed, shrink_run.LAYOUT, 2, "\\r\\n"),
    ("layout: no final newline", _joined, shrink_run.LAYOUT, 2, "demo']"),
    ("order: re-sorted by doc id", _writer(_right, sort=lambda hit: hit[0]), shrink_run.LINES, 3, "Q0 a 1 1.12345679"),
    ("order: re-sorted by score ascending", _writer(_right, sort=lambda hit: hit[2]), shrink_run.LINES, 3, "Q0"),
    ("order: queries sorted as strings", _by_string_id, shrink_run.LINES, 4, "Q0"),
    ("columns: rank from 0", _writer(lambda q, d, r, s, n: _right(q, d, r - 1, s, n)), shrink_run.LINES, 2, " 0 "),
    ("columns: 4 decimals", _writer(lambda q, d, r, s, n: f"{q} Q0 {d} {r} {s:.4f} {n}"), shrink_run.LINES, 2, "."),
    ("columns: no Q0", _writer(lambda q, d, r, s, n: f"{q} {d} {r} {s:.8f} {n}"), shrink_run.LINES, 2, "'1 a 1 0.5"),
    ("k: k + 1 lines", _writer(_right, cut=False, ask=lambda k: k + 1), shrink_run.LINES, 3, "Q0 b 2"),
    ("k: search_fn asked for 100", _writer(_right, ask=lambda k: 100), shrink_run.SEARCH_CALLS, 1, "[]"),
    ("queries: read twice", _read_twice, shrink_run.LINES, 2, "iter(queries)"),
]


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return Grader(cranfield, tmp_path_factory.mktemp("run-counterexamples"))


def _found(graded, writer):
    """The Finder's counterexample of ``writer`` (run in this process as the sandbox would), and the calls it sent."""
    plan = graded.plan
    functions = {**graded.solution["runs.py"], "write_run": writer}
    log: list = []
    finder = counterexamples.Finder(
        plan, graded.submission, fake_run(functions, graded.folder, log), plan.rubric.limits
    )
    outcomes = graded.answers(functions, {"write_run"})
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    assert not finder.problem, finder.problem
    return finder, log


def _asking(graded, writer):
    """What ``writer`` (answering here, as the child would) does on a scenario sent as the Finder sends it."""
    plan = graded.plan
    finder = counterexamples.Finder(plan, graded.submission, None, plan.rubric.limits)
    functions = {**graded.solution["runs.py"], "write_run": writer}

    def ask(scenario) -> Outcome:
        return answer_call(functions, *unmade(pickle.loads(finder._scenario_body(scenario))), graded.folder)

    return ask


@pytest.mark.parametrize("name, writer, how, largest, shows", WRITERS, ids=[row[0] for row in WRITERS])
def test_a_wrong_writer_shrinks_to_its_smallest_scenario(graded, name, writer, how, largest, shows):
    """Does each one-bug writer's file, wrong on a public scenario, shrink to a valid scenario no
    larger than ``largest`` (and smaller than its start), still wrong the same way when asked again,
    whose lines show the mistake?"""
    plan, submission = graded.plan, graded.submission
    outcomes = graded.answers({**graded.solution["runs.py"], "write_run": writer}, {"write_run"})
    start = counterexamples.run_start(plan, submission, outcomes)
    assert start is not None and plan.scenarios[start.name].public
    reference, ask = shrink_run.Reference("write_run"), _asking(graded, writer)
    found = shrink.run(start.scenario, reference, ask, space=shrink_run.SCENARIOS)
    assert found is not None and found.how == how
    assert shrink_run.size(found.case) <= min(largest, shrink_run.size(start.scenario) - 1)
    assert shrink_run.valid(found.case) and reference.failure(found.case, ask(found.case)) == how
    shown = counterexamples.run_counterexample(found, "write_run", start.name)
    assert shows in repr(shown.actual) + shown.raised + shown.call
    assert shown.expected == shrink_run.lines(found.case.expected_text())[: shrink_run.SHOWN_LINES]


def test_the_driver_finds_what_the_search_finds_and_shows_it_on_a_failing_check(graded):
    """Through the sandbox's driver (calls in chunks, inputs chosen as each is sent), does a writer
    whose only mistake is its line ends (a layout the notes' example check does not read) get the
    counterexample the search finds alone, on a check of write_run that lost points?"""
    writer = WRITERS[0][1]
    plan = graded.plan
    functions = {**graded.solution["runs.py"], "write_run": writer}
    log: list = []
    finder = counterexamples.Finder(
        plan, graded.submission, fake_run(functions, graded.folder, log), plan.rubric.limits
    )
    outcomes = graded.answers(functions, {"write_run"})
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    assert not finder.problem
    check, found = finder.found["write_run"]
    start = counterexamples.run_start(plan, graded.submission, outcomes)
    alone = shrink.run(
        start.scenario, shrink_run.Reference("write_run"), _asking(graded, writer), space=shrink_run.SCENARIOS
    )
    assert found.call == shrink_run.call_text(alone.case, "write_run") and found.unit == counterexamples.RUN_UNIT
    assert found.actual == ["1 Q0 a 1 0.50000000 demo\r\n"] and found.expected == ["1 Q0 a 1 0.50000000 demo\n"]
    assert sum(body["fn"] == "write_run" for body in log) <= shrink.BUDGET + counterexamples.CHUNK
    checks, _ = graded.grade(outcomes)
    attached = counterexamples.attach(checks, finder.found)
    shown_on = [c for c in attached if c.counterexample is not None and c.function == "write_run"]
    assert [c.name for c in shown_on] != [] and all(not c.full for c in shown_on)
    assert check in {c.name for c in checks if c.function == "write_run"}


def test_an_honest_writer_starts_no_search(graded):
    """Does the reference writer, right on every scenario, start no search?"""
    assert counterexamples.run_start(graded.plan, graded.submission, graded.right) is None


def test_a_public_scenarios_right_file_as_a_search_starts_is_the_plans(graded):
    """Is the right file of each public scenario, as a search starts from it (``start_of``: titles
    added, renamed), the plan's own, text and rows: so that a file its checks read as right
    (``runfile_checks.read_scenario``) is one ``Reference.failure`` finds right?"""
    plan = graded.plan
    titles = plan.shared_job["tables"].get("titles", {})
    public = [name for name, scenario in plan.scenarios.items() if scenario.public and not scenario.raises]
    assert len(public) >= 2, "the example and the Cranfield runs are public"
    for name in public:
        start = shrink_run.start_of(plan.scenarios[name], titles)
        assert start.expected_text() == plan.canonical[name], name
        assert start.expected_rows() == plan.scenarios[name].expected_rows(), name


#: (id, a right run writer): the plan's text byte for byte, or the right rows written otherwise
RIGHT_WRITERS = [
    ("canonical", _writer(_right)),
    ("ten decimals", _writer(lambda q, d, r, s, n: f"{q} Q0 {d} {r} {s:.10f} {n}")),
]


@pytest.mark.parametrize("name, writer", RIGHT_WRITERS, ids=[row[0] for row in RIGHT_WRITERS])
def test_a_right_run_file_is_read_once_and_costs_no_reference_file(graded, monkeypatch, name, writer):
    """Does a right writer start no search without the grader making any reference file, each public
    file read once (kept with its outcome), and do the checks read from those same files what
    reading every file afresh reads?"""
    plan, submission = graded.plan, graded.submission
    functions = {**graded.solution["runs.py"], "write_run": writer}
    outcomes, fresh = graded.answers(functions, {"write_run"}), graded.answers(functions, {"write_run"})

    def refused(self, scenario):
        raise AssertionError(f"a reference file made for {scenario.name}")

    files: dict = {}
    with monkeypatch.context() as patched:
        patched.setattr(shrink_run.Reference, "expected", refused)
        assert counterexamples.run_start(plan, submission, outcomes, files) is None
    public = {name for name, scenario in plan.scenarios.items() if scenario.public and not scenario.raises}
    assert set(files) == public and all(files[name][0] is outcomes[submission.scenario_calls[name]] for name in public)
    read = runfile_checks.read_all(plan, outcomes, frozenset(), submission.scenario_calls, files)
    assert all(read[name] is files[name][1] for name in public)
    assert read == runfile_checks.read_all(plan, fresh, frozenset(), submission.scenario_calls)
    assert all(read[name].same for name in public)


@pytest.mark.parametrize("name, writer, how, largest, shows", WRITERS, ids=[row[0] for row in WRITERS])
def test_a_wrong_run_file_read_once_fails_as_one_read_afresh(graded, name, writer, how, largest, shows):
    """Does the file a one-bug writer left on its start scenario, read once for the search and its
    checks, fail there as the same file read afresh does (``Reference.failure`` without it)?"""
    plan, submission = graded.plan, graded.submission
    outcomes = graded.answers({**graded.solution["runs.py"], "write_run": writer}, {"write_run"})
    files: dict = {}
    start = counterexamples.run_start(plan, submission, outcomes, files)
    assert start is not None and start.name in files
    outcome, run = files[start.name]
    reference = shrink_run.Reference("write_run")
    assert reference.failure(start.scenario, outcome, run) == reference.failure(start.scenario, outcome)
    assert reference.failure(start.scenario, outcome) is not None


CANARY = "CANARY-5e1b"


def _strings(value) -> set:
    """Every string in ``value`` (keys too), at any depth."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return set().union(*map(_strings, value))
    if dataclasses.is_dataclass(value):
        return _strings(dataclasses.asdict(value))
    return set()


def test_a_writer_search_never_holds_a_hidden_scenarios_value(graded):
    """With every write_run call answered wrong (hidden scenarios' too, their queries marked with a
    canary), does the search start from a public scenario run before every secret call, and does no
    payload it sends, nor the counterexample, hold a canary or a value only a hidden scenario has
    (a query id, text, document id or title of at least 3 characters: shorter ones are what ids
    are renamed to)?"""
    plan, submission = graded.plan, graded.submission
    hidden = {name: s for name, s in plan.scenarios.items() if not s.public}
    public = set().union(*(_strings([s.results, s.queries, s.system]) for s in plan.scenarios.values() if s.public))
    only_hidden = {
        value for s in hidden.values() for value in _strings([s.results, s.queries, s.system]) if len(value) >= 3
    } - public
    assert only_hidden, "the hidden scenarios have values of their own"
    marked = {
        name: dataclasses.replace(s, queries=tuple((q, CANARY + t) for q, t in s.queries)) for name, s in hidden.items()
    }
    canaried = dataclasses.replace(plan, scenarios={**plan.scenarios, **marked})
    wrong = [Outcome(OutcomeStatus.ERROR, error={"type": "KeyError", "mro": ["KeyError"], "message": "x"})] * len(
        submission.calls
    )
    start = counterexamples.run_start(canaried, submission, wrong)
    assert start is not None and start.call < submission.secret_start and canaried.scenarios[start.name].public
    log: list = []
    finder = counterexamples.Finder(canaried, submission, fake_run({}, graded.folder, log), plan.rubric.limits)
    finder.after_public(SandboxResult(outcomes=wrong))
    assert log and "write_run" in finder.found
    sent = _strings(log) | _strings(finder.found["write_run"][1])
    assert not any(CANARY in value for value in sent | _strings(finder.found))
    assert sent & only_hidden == set()


def _unchecked(path, system_name, search_fn, queries, k=100):
    """Right on every argument the contract takes, and refuses none (no ValueError for k=0 nor a bad name)."""
    with open(path, "w", encoding="utf-8") as out:
        for query in queries:
            for rank, (doc_id, _, score) in enumerate(list(search_fn(query.text, k))[: max(k, 0)], 1):
                out.write(_right(query.query_id, doc_id, rank, score, system_name) + "\n")


def _names_unchecked(path, system_name, search_fn, queries, k=100):
    """Refuses a bad k, never a system name that is empty or holds whitespace."""
    if type(k) is not int or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}")
    _unchecked(path, system_name, search_fn, queries, k)


#: (id, a writer right on every public scenario but refusing too little, what its counterexample's call holds)
REFUSING_TOO_LITTLE = [
    ("no argument refused", _unchecked, "k=0"),
    ("no system name refused", _names_unchecked, "(path, ''"),
]


@pytest.mark.parametrize("name, writer, holds", REFUSING_TOO_LITTLE, ids=[row[0] for row in REFUSING_TOO_LITTLE])
def test_a_writer_wrong_on_hidden_scenarios_only_gets_a_probe_counterexample(graded, name, writer, holds):
    """Does a writer right on every public scenario (no search starts from one) that does not refuse
    what the contract refuses get, through the driver, the smallest refused call (no query) from a
    probe, with "raises ValueError" expected, on a check of write_run that lost points?"""
    plan = graded.plan
    functions = {**graded.solution["runs.py"], "write_run": writer}
    outcomes = graded.answers(functions, {"write_run"})
    assert counterexamples.run_start(plan, graded.submission, outcomes) is None
    finder = counterexamples.Finder(plan, graded.submission, fake_run(functions, graded.folder, []), plan.rubric.limits)
    finder.after_public(SandboxResult(outcomes=list(outcomes)))
    check, found = finder.found["write_run"]
    assert found.start.startswith("probe-") and found.expected == {RAISES: "ValueError"} and holds in found.call
    assert found.size == 0 < found.start_size and found.actual == []
    checks, _ = graded.grade(outcomes)
    assert any(c.name == check and not c.full for c in checks)
