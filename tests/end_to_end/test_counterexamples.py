"""Counterexamples through the real sandbox: shrunk only from public cases (the hidden cases' inputs
carry a canary that nothing shown may hold), the same for the same submission and seed, and a
submission that crashes or hangs while it is shrunk loses no point it would not lose without the
search. ``tests/grading/test_counterexamples.py`` tests the search itself, in this process."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import pytest

from autograder.grading import counterexamples, grader, intake
from autograder.grading.diagnosis import shrink
from autograder.grading.session import Session
from autograder.labkit.load import default as default_lab
from autograder.reports import feedback_html, markdown
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.cranfield]

CANARY = "CANARY-7f3a"
CANARIED = ("precision_at_k", "average_precision")

#: precision_at_k wrong only where a hidden input's canary is; average_precision wrong there and on
#: every ranking of two documents or more (public cases too).
CANARY_METRICS = subs.with_function(
    "metrics.py",
    f"""
    _reference_precision_at_k, _reference_average_precision = precision_at_k, average_precision

    def precision_at_k(ranking, judgments, k, rel=1):
        if "{CANARY}" in list(ranking):
            return 0.999
        return _reference_precision_at_k(ranking, judgments, k, rel)

    def average_precision(ranking, judgments, rel=1):
        if "{CANARY}" in list(ranking):
            return 0.999
        value = _reference_average_precision(ranking, judgments, rel)
        return value / 2 if len(ranking) >= 2 else value
    """,
)

#: (id, average_precision's body after its reference value: wrong on long rankings, and crashing or
#: hanging on the empty ranking every search tries first)
HOSTILE = [
    ("crashes on an empty ranking", "import os\n            os._exit(3)"),
    ("hangs on an empty ranking", "while True:\n                pass"),
]


def _hostile(body: str) -> str:
    return subs.with_function(
        "metrics.py",
        f"""
    _reference_average_precision = average_precision

    def average_precision(ranking, judgments, rel=1):
        if len(ranking) == 0:
            {body}
        value = _reference_average_precision(ranking, judgments, rel)
        return value / 2 if len(ranking) >= 2 else value
    """,
    )


#: The sandbox's two enclosures (the uid mode is Gradescope's and PrairieLearn's).
MODES = {"jail": {"isolation": "jail"}, "uid": {"isolation": "uid", "python": "/usr/bin/python3"}}


@pytest.fixture(scope="module", params=list(MODES))
def session(request, tmp_path_factory, cranfield):
    rubric = subs.test_rubric(tmp_path_factory.mktemp("rubric"))
    found = Session.open(default_lab(), rubric_path=rubric, **MODES[request.param])
    assert found.isolation.mode == request.param
    return found


def _staged(tmp_path_factory, name: str, metrics: str) -> intake.Staged:
    folder = subs.write(tmp_path_factory.mktemp(name) / name, {"metrics.py": metrics})
    return intake.read(intake.Source(name, folder), default_lab())


def _canaried(plan):
    """The plan with a canary document added to the ranking of every hidden call of ``CANARIED``
    (unjudged and last, it changes no right answer)."""
    calls = copy.deepcopy(plan.shared_job["calls"])
    marked = 0
    for call in calls:
        if call.get("secret") and call["fn"] in CANARIED and isinstance(call["args"][0], list):
            call["args"][0] = [*call["args"][0], CANARY]
            marked += 1
    assert marked >= 4, "the hidden cases of both functions carry the canary"
    return replace(plan, shared_job={**plan.shared_job, "calls": calls}, encoded={}, variant_answers={})


@pytest.fixture(scope="module")
def canary(session, tmp_path_factory):
    """A submission failing precision_at_k on hidden cases only and average_precision on public and
    hidden ones, graded twice with the same seed on the canaried plan."""
    plan = _canaried(session.plan)
    staged = _staged(tmp_path_factory, "canary", CANARY_METRICS)
    seen: list[tuple[int, list[bool]]] = []  # at each search: the first secret call, which calls had run
    after_public = counterexamples.Finder.after_public

    def watched(finder, result):
        seen.append((finder.submission.secret_start, [outcome is not None for outcome in result.outcomes]))
        return after_public(finder, result)

    counterexamples.Finder.after_public = watched  # type: ignore[method-assign]
    try:
        results = [
            grader.grade(staged, plan, session.isolation, session.rubric.limits, seed="counterexamples") for _ in "ab"
        ]
    finally:
        counterexamples.Finder.after_public = after_public  # type: ignore[method-assign]
    return results, seen


def _shown(result) -> str:
    """Everything a student is shown of ``result``."""
    student = result.student_view()
    return "\n".join(
        [
            markdown.markdown(student, lab=default_lab()),
            feedback_html.render(student, lab=default_lab()),
            json.dumps(student.to_dict(), default=str),
        ]
    )


def test_hidden_inputs_never_reach_a_counterexample(canary, session):
    """Does a function that fails only hidden cases get no counterexample, one that fails public
    ones too get one shrunk from a public case, and does no page a student is shown hold the hidden
    inputs' canary?"""
    result = canary[0][0]
    lost = {check.function for check in result.checks if not check.full}
    assert lost == set(CANARIED)
    found = {check.function: check.counterexample for check in result.checks if check.counterexample}
    assert set(found) == {"average_precision"}
    example = found["average_precision"]
    public = {planned.case.id for planned in session.plan.shared_cases if planned.case.public}
    assert example.start in public or example.start.startswith("random-")
    assert example.size <= example.start_size and example.actual != example.expected
    assert CANARY not in _shown(result)


def test_the_same_submission_and_seed_give_the_same_counterexample(canary):
    """Do two gradings of the same files with the same seed show the same counterexamples?"""
    first, second = ([check.counterexample for check in result.checks] for result in canary[0])
    assert first == second and any(first)


def test_the_search_runs_after_every_public_call_and_before_any_secret_one(canary):
    """When the search starts, has every public call run and no secret one (so no child has held a
    hidden input yet)?"""
    _, seen = canary
    assert len(seen) == 2
    for secret_start, ran in seen:
        assert all(ran[:secret_start]) and not any(ran[secret_start:]) and secret_start < len(ran)


@pytest.mark.parametrize("name, body", HOSTILE, ids=[row[0] for row in HOSTILE])
def test_a_search_that_crashes_or_hangs_costs_no_point(session, tmp_path_factory, monkeypatch, name, body):
    """Does a function that crashes or hangs on the inputs it is shrunk to get the same points on every
    check as without the search, the grading finished, no counterexample it did not fail again, and
    did its search end by its own bounds (no wall clock: a busy machine must not decide it)?"""
    staged = _staged(tmp_path_factory, "hostile", _hostile(body))
    most = -(-shrink.BUDGET // counterexamples.CHUNK) + 1  # rounds any search may take
    rounds: list[list[str]] = []
    original = counterexamples.Finder._round

    def counted(finder, drivers, seconds):
        rounds.append(list(drivers))
        if len(rounds) > most:  # the search would go on: stop it here, the assertion below says so
            raise RuntimeError("the search did not end by its own bounds")
        original(finder, drivers, seconds)

    def graded():
        return grader.grade(staged, session.plan, session.isolation, session.rubric.limits, seed="hostile")

    monkeypatch.setattr(counterexamples, "TOTAL_SECONDS", 1e9)
    monkeypatch.setattr(counterexamples.Finder, "_round", counted)
    searched = graded()
    assert 2 <= len(rounds) <= most, rounds
    monkeypatch.setattr(counterexamples.Finder, "_round", original)
    monkeypatch.setattr(counterexamples, "TOTAL_SECONDS", 0.0)
    alone = graded()
    assert searched.status == alone.status == "graded"
    assert [(c.name, c.score) for c in searched.checks] == [(c.name, c.score) for c in alone.checks]
    assert [[case.status for case in c.cases] for c in searched.checks] == [
        [case.status for case in c.cases] for c in alone.checks
    ]
    assert not any(check.counterexample for check in alone.checks)
    for check in searched.checks:  # a counterexample only where the function was wrong again, never its crash
        found = check.counterexample
        if found is not None:
            assert check.function == "average_precision" and not found.raised, found
            assert found.actual != found.expected and "([]," not in found.call, found
    assert any(check.function == "average_precision" and not check.full for check in searched.checks)


#: (id, a metrics.py with one function keeping state between calls, that function): its answers change once
#: the counter has grown, and its start, asked again first in the search's child, is right
KEPT = [
    (
        "a hits counter never reset",
        subs.with_function(
            "metrics.py",
            """
    _HITS = [0]

    def average_precision(ranking, judgments, rel=1):
        relevant = sum(1 for grade in judgments.values() if grade >= rel)
        if relevant == 0:
            return 0.0
        total = 0.0
        for rank, doc in enumerate(ranking, start=1):
            if judgments.get(doc, 0) >= rel:
                _HITS[0] += 1
                total += min(_HITS[0], rank) / rank
        return total / relevant
    """,
        ),
        "average_precision",
    ),
    (
        "a rank counter never reset",
        subs.with_function(
            "metrics.py",
            """
    _RANK = [0]

    def reciprocal_rank(ranking, judgments, rel=1):
        for doc in ranking:
            _RANK[0] += 1
            if judgments.get(doc, 0) >= rel:
                rank, _RANK[0] = _RANK[0], 0
                return 1.0 / rank
        return 0.0
    """,
        ),
        "reciprocal_rank",
    ),
]


@pytest.mark.parametrize("name, metrics, function", KEPT, ids=[row[0] for row in KEPT])
def test_state_kept_between_calls_is_said_through_the_sandbox(session, tmp_path_factory, name, metrics, function):
    """Is a function whose answer depends on the calls before it told that it answered the same call
    differently (the search's child asks its start again first, whatever the runner sends ahead), and only
    that function?"""
    staged = _staged(tmp_path_factory, "kept", metrics)
    result = grader.grade(staged, session.plan, session.isolation, session.rubric.limits, seed="kept")
    said = {check.function for check in result.checks for d in check.diagnoses if d.id == "shape-answers-change"}
    assert said == {function}
    [diagnosis] = [d for check in result.checks for d in check.diagnoses if d.id == "shape-answers-change"]
    assert "when graded and" in diagnosis.explanation and "asked again in another process" in diagnosis.explanation


#: A runs.py whose write_run ends its lines with "\r\n" (trec_eval reads it; the contract's layout is "\n").
CRLF_RUNS = subs.with_function(
    "runs.py",
    """
    _reference_write_run = write_run

    def write_run(path, system_name, search_fn, queries, k=100):
        _reference_write_run(path, system_name, search_fn, queries, k)
        with open(path, encoding="utf-8") as written:
            text = written.read()
        with open(path, "w", encoding="utf-8", newline="") as out:
            out.write(text.replace("\\n", "\\r\\n"))
    """,
)


def test_a_wrong_run_writer_gets_its_smallest_scenario_through_the_sandbox(session, tmp_path_factory):
    """Does a write_run whose only mistake is its line ends get, through the sandbox, the smallest
    scenario (one query, one result) with both files' lines, "\\r\\n" visible, on a check that lost
    points, and the same points as without the search?"""
    folder = subs.write(tmp_path_factory.mktemp("crlf") / "crlf", {"runs.py": CRLF_RUNS})
    staged = intake.read(intake.Source("crlf", folder), default_lab())
    result = grader.grade(staged, session.plan, session.isolation, session.rubric.limits, seed="crlf")
    [check] = [check for check in result.checks if check.counterexample is not None]
    found = check.counterexample
    assert check.function == "write_run" and not check.full
    assert found.size == 2 and found.start_size > found.size and found.unit == counterexamples.RUN_UNIT
    assert [line.replace("\n", "\r\n") for line in found.expected] == found.actual and found.actual[0].endswith("\r\n")
    assert "\\r\\n" in _shown(result)
