"""The smallest counterexample of every failing function, found through the sandbox.

Once every graded file's public calls have run, and before any secret call's inputs reach a child
(``runner.run``'s ``after_public``: nothing a later child could know of a hidden input shapes
what is found), ``Finder`` takes, for each function that failed a public case (the notes'
examples, Cranfield, the random cases; never a hidden edge case), the smallest such case and
shrinks it (``diagnosis/shrink.py``); for the run writer, its smallest public scenario whose file
is wrong (the notes' example, a Cranfield run; never a hidden scenario), shrunk as a scenario
(``diagnosis/shrink_run.py``, ``run_start``). A function that failed no public case is asked a
few *probes* first (``probes``: public-space inputs, one-step variants of its public cases and fresh
random cases drawn from the submission's seed, chosen to cover each feature they have, never
from a hidden input nor by one): where one is wrong, the smallest such is shrunk, so a function
that fails hidden cases only can still be shown a counterexample. Each step is one call of the
student's function in a child, through the usual channel and its limits; the right answers are the
lab's, computed here. Calls run ``CHUNK`` at a time per function in one child (a call's inputs are
chosen when it is to run, from the answers before it); a function gets at most ``shrink.BUDGET``
calls and ``SECONDS`` of its calls' time (a hang counts its whole limit), and ends when a call of
it did not run (struck after crashes, or past its child's limits); all of a submission's shrinking
is guarded by ``TOTAL_SECONDS`` of wall clock, which these bounds keep any search far from (a
bound a busy machine meets would make the counterexample depend on load): what ran out first is
said (``Counterexample.stopped_early``). The calls left in a child's last
chunk ask the smallest case again: any that passes, crashes or hangs there drops the counterexample
(answers that change between calls prove nothing). Nothing found here changes a point.
"""

from __future__ import annotations

import random
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from autograder import cache
from autograder.grading import inputs, judge, payloads, runfile_checks, runfile_problems
from autograder.grading import plan as plan_module
from autograder.grading.diagnosis import repeats, shrink, shrink_run
from autograder.grading.plan import Plan, PlannedCase, SubmissionPlan
from autograder.grading.results import NOT_IMPLEMENTED_ERRORS, PROBE, CheckResult, Counterexample, Diagnosis
from autograder.labkit.case import Case
from autograder.labkit.kinds import TUNING, CheckKind
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult
from autograder.sandbox.child import toy_measures
from autograder.sandbox.settings import Call, Limits

if TYPE_CHECKING:  # a scenario as the engine reads it, whatever lab made it
    from autograder.labkit.scenario import Scenario

CHUNK = 25  # calls of one function per child
#: Time bounds stop only a pathological search (calls slow, hanging or crashing): the call budget
#: ends the others, so the counterexample, like the grade, does not depend on how busy the machine is.
SECONDS = 10.0  # the time all of one function's shrinking calls may take
TOTAL_SECONDS = 300.0  # all of one submission's shrinking, wall clock: a guard no search should meet
#: The kinds of check whose cases a counterexample may start from: public by construction.
PUBLIC_KINDS = (CheckKind.EXAMPLES, CheckKind.CRANFIELD, CheckKind.RANDOM)

#: Runs calls in the sandbox: (calls, payload(index), live(result)) -> the run's result; ``live`` is
#: handed the result as soon as it is made, so a payload can read the answers before its call.
RunCalls = Callable[[list[Call], Callable[[int], bytes], Callable[[SandboxResult], None], Limits, float], SandboxResult]
PROBES = 30  # probes of one function at most (one call each)
PER_FEATURE = 2  # probes chosen per feature of the inputs
PROBE_POOL = (4, 12)  # the public cases whose one-step variants are drawn from, and the fresh random cases
RUN_UNIT = "scenario"  # what a run writer's counterexample's size counts (``Counterexample.unit``)


@dataclass(frozen=True)
class RunStart:
    """Where the run writer's search starts: a public scenario whose file is wrong."""

    name: str  # the scenario's name
    call: int  # its graded call's index
    check: str  # the check a counterexample of it is shown on (another when that one has full marks)
    scenario: Any  # the scenario as the search starts from it (``shrink_run.start_of``)


def starts(
    plan: Plan, submission: SubmissionPlan, outcomes: list[Outcome | None]
) -> dict[str, tuple[PlannedCase, Case]]:
    """For each function that failed a public case (a wrong value, or an error where none was due
    but NotImplementedError), the smallest such case, with its inputs resolved: ``{function:
    (planned case, case to shrink)}``; a case of valid arguments comes before one that must raise
    (a wrong value says more than a check missed), then the smaller, then the first. Only public
    cases of public checks, whose calls ran before the first secret one, ever start a search."""
    lab, tables = plan.lab, plan.shared_job["tables"]
    found: dict[str, tuple[tuple[bool, int], PlannedCase, Case]] = {}
    for planned in submission.planned:
        record = lab.records.get(planned.case.function)
        if record is None or record.writes_run_file or not public(planned, submission):
            continue
        outcome = outcomes[planned.call] if planned.call < len(outcomes) else None
        how = shrink.failure(outcome, planned.expected, record.returns, lab.tolerance)
        if how is None or how.removeprefix("raised ") in NOT_IMPLEMENTED_ERRORS:
            continue
        case = resolved(planned.case, tables)
        rank = (judge.wants_error(planned.expected), shrink.size(case))
        function = planned.case.function
        if function not in found or rank < found[function][0]:
            found[function] = (rank, planned, case)
    return {function: (planned, case) for function, (_, planned, case) in sorted(found.items())}


def run_start(
    plan: Plan,
    submission: SubmissionPlan,
    outcomes: list[Outcome | None],
    files: dict[str, tuple[Outcome, runfile_checks.RunFile]] | None = None,
) -> RunStart | None:
    """The run writer's smallest public scenario (the notes' example, a Cranfield run) whose file is
    wrong (``shrink_run.Reference.failure``; an error but NotImplementedError), or None. Only public
    scenarios, whose calls ran before the first secret one, ever start a search; a hidden scenario
    never does. Each file is read once (``runfile_checks.read_scenario``), kept in ``files`` with the
    outcome it was read from for the run writer's checks (``runfile_checks.read_all``); a right file
    costs no reference file."""
    files = {} if files is None else files
    lab = plan.lab
    writer = lab.registry.run_writer()
    if not writer or writer not in lab.records:
        return None
    reference, titles = shrink_run.Reference(writer), plan.shared_job["tables"].get("titles", {})
    checks = {check.kind: check.name for check in plan.rubric.checks if check.function == writer}
    found: list[tuple[int, str, RunStart]] = []
    for name, index in submission.scenario_calls.items():
        scenario = plan.scenarios[name]
        call = submission.calls[index] if index < len(submission.calls) else None
        if not scenario.public or scenario.raises or call is None or call.get("secret"):
            continue
        if index >= submission.secret_start or index >= len(outcomes):
            continue
        outcome = outcomes[index]
        run = _read(plan, name, outcome, files)
        if run is not None and _right_file(plan, name, run):  # the common case: no reference file made
            continue
        start = shrink_run.start_of(scenario, titles)
        how = reference.failure(start, outcome, run)
        if how is None or how.removeprefix("raised ") in NOT_IMPLEMENTED_ERRORS:
            continue
        kind = CheckKind.EXAMPLES if name == lab.scenarios.EXAMPLE else _run_kind(how)
        check = checks.get(kind) or next(iter(checks.values()), "")
        found.append((shrink_run.size(start), name, RunStart(name, index, check, start)))
    return min(found, key=lambda item: item[:2])[2] if found else None


def _read(
    plan: Plan, name: str, outcome: Outcome | None, files: dict[str, tuple[Outcome, runfile_checks.RunFile]]
) -> runfile_checks.RunFile | None:
    """Scenario ``name``'s file as its checks read it (``runfile_checks.read_scenario``; the outcome left
    whole), kept in ``files``; None when the call returned none (nothing to read)."""
    if outcome is None or outcome.status != OutcomeStatus.VALUE:
        return None
    if name not in files or files[name][0] is not outcome:
        value = dict(outcome.value) if isinstance(outcome.value, dict) else outcome.value
        files[name] = (outcome, runfile_checks.read_scenario(plan, name, replace(outcome, value=value)))
    return files[name][1]


def _right_file(plan: Plan, name: str, run: runfile_checks.RunFile) -> bool:
    """Is scenario ``name``'s file right (``shrink_run.Reference.failure`` would say None): the right
    writer's rows in the contract's layout, search_fn called as it should be? The right file of a
    public scenario as a search starts from it (``shrink_run.start_of``) is the plan's."""
    return (
        run.problem is None
        and bool(run.same)
        and (run.canonical or (not run.layout and not run.appended))
        and not any(runfile_problems.in_search(plan.scenarios[name], run.searches).values())
    )


def probes(plan: Plan, submission: SubmissionPlan, skip: set[str]) -> dict[str, list[Case]]:
    """For each function with a public case (but those of ``skip``, and the run writer), inputs of
    the public input space to ask it before any secret call: the one-step variants
    (``shrink.CASES``) of its ``PROBE_POOL[0]`` smallest public cases and ``PROBE_POOL[1]`` fresh
    random cases (``record.random_cases``, drawn from the submission's seed), each an input the
    contract allows and not a case graded already. First the smallest public case of valid arguments with each tuning
    parameter set to a value the contract refuses (``REFUSED``: the call must raise), then for each
    feature the others have (``record.features``, in name order) the ``PER_FEATURE`` smallest; at
    most ``PROBES`` in all. Nothing here reads a
    hidden case: the same probes whatever the hidden cases are."""
    lab, tables = plan.lab, plan.shared_job["tables"]
    public_cases: dict[str, list[Case]] = {}
    known = _valued(plan)
    for planned in submission.planned:
        record = lab.records.get(planned.case.function)
        small = planned.kind != CheckKind.CRANFIELD  # a collection's run: no small input to vary
        if record is not None and not record.writes_run_file and small and public(planned, submission):
            public_cases.setdefault(planned.case.function, []).append(resolved(planned.case, tables))
    found: dict[str, list[Case]] = {}
    for function in sorted(set(public_cases) - skip):
        record, (reference, valued) = (
            lab.records[function],
            known.setdefault(function, (shrink.Reference(lab, function), {})),
        )
        seen = {shrink.CASES.key(case) for case in public_cases[function]}
        smallest = sorted(public_cases[function], key=lambda case: (shrink.size(case), case.id))[: PROBE_POOL[0]]
        pool = [variant for case in smallest for variant in shrink.CASES.candidates(case)]
        if record.random_cases is not None:
            pool += record.random_cases(random.Random(f"{submission.seed}/probes/{function}"), PROBE_POOL[1])
        having: dict[str, list[tuple[int, str, Case]]] = {}
        for case in pool:
            key = shrink.CASES.key(case)
            if key in seen:
                continue
            seen.add(key)
            if key not in valued:
                try:
                    reference.expected(case)
                    resolved_args = tuple(inputs.resolve(arg, None) for arg in case.args)
                    valued[key] = tuple(record.features(resolved_args, case.kwargs))
                except Exception:  # not an input the contract allows
                    valued[key] = None
            features = valued[key]
            for feature in features or ():
                having.setdefault(feature, []).append((shrink.size(case), key, case))
        chosen: dict[str, Case] = {}
        valid = [case for case in smallest if not judge.wants_error(_expected(reference, case))]
        for case in _refused(valid[0], record.parameters) if valid else []:  # first: the calls that must raise
            key = shrink.CASES.key(case)
            if key not in seen and judge.wants_error(_expected(reference, case)):
                seen.add(key)
                chosen[key] = replace(case, id=f"{PROBE}{len(chosen) + 1}", public=True)
        for feature in sorted(having):
            for _, key, case in sorted(having[feature], key=lambda item: item[:2])[:PER_FEATURE]:
                if len(chosen) < PROBES:
                    chosen.setdefault(key, replace(case, id=f"{PROBE}{len(chosen) + 1}", public=True))
        found[function] = list(chosen.values())
    return found


#: Each cached plan's probe candidates valued (its key -> function -> (the lab's answers, candidate key -> its
#: features, or None for an input the contract refuses)): a candidate's value depends on the plan alone, so a
#: batch values the variants of the notes' examples once, and each submission only its own random ones.
_VALUED: dict[str, dict[str, tuple[shrink.Reference, dict[str, tuple[str, ...] | None]]]] = {}
VALUED_MEMO = 20_000  # candidates and answers kept per plan at most (a submission values a few hundred)


def _valued(plan: Plan) -> dict[str, tuple[shrink.Reference, dict[str, tuple[str, ...] | None]]]:
    """``plan``'s valued probe candidates, by function (a fresh table for a plan not from the cache: no
    key says which plan it is); emptied once it holds ``VALUED_MEMO`` candidates and answers (a search
    started from a probe adds its candidates' answers: a batch of many wrong submissions would grow it)."""
    if not plan.key:
        return {}
    known = _VALUED.setdefault(plan.key, {})
    if sum(len(valued) + len(reference.known) for reference, valued in known.values()) > VALUED_MEMO:
        known.clear()
    return known


def warm(plan: Plan) -> None:
    """Value once, before a batch's workers fork, the probe candidates its submissions share (the
    variants of the notes' examples, kept by the plan's key, ``_valued``): each worker inherits them,
    and values only its submissions' own random ones."""
    probes(plan, plan.for_submission("warm-up", kept=False), set())


def _reference(plan: Plan, function: str) -> shrink.Reference:
    """The lab's answers of ``function``'s inputs, those ``probes`` valued kept (``_valued``)."""
    return _valued(plan).setdefault(function, (shrink.Reference(plan.lab, function), {}))[0]


def kept_probes(plan: Plan, submission: SubmissionPlan, skip: set[str]) -> dict[str, list[Case]]:
    """``probes``, kept in the cache with the lab's answers on them under the plan's key, the
    submission's seed and ``skip`` (its cases are the plan's for that seed, ``Plan.for_submission``):
    a regrade of the same files values them once, and its probes' answers come from the cache
    (``_reference``) instead of ir_measures."""
    if not plan.key:
        return probes(plan, submission, skip)

    def compute() -> tuple[dict[str, list[Case]], dict[str, dict[str, Any]]]:
        found, answers = probes(plan, submission, skip), dict[str, dict[str, Any]]()
        for function, cases in found.items():
            reference, answers[function] = _reference(plan, function), {}
            for case in cases:
                try:
                    answers[function][shrink.CASES.key(case)] = reference.expected(case)
                except Exception:  # valued again when asked (and the search says why it failed)
                    continue
        return found, answers

    found, answers = cache.cached_pickle(
        "probes", cache.fingerprint([plan.key, submission.seed, *sorted(skip)]), compute
    )
    for function, answered in answers.items():
        _reference(plan, function).known.update(answered)
    return found


#: Values of each tuning parameter the contract refuses (a probe that must raise; one the lab's answers
#: take, ``_expected``, is no probe).
REFUSED: dict[str, tuple[Any, ...]] = {"k": (0, -1, 1.5), "rel": (0, -1, 1.5), "n": (0, -1, 1.5), "gain": ("unknown",)}


def _expected(reference: shrink.Reference, case: Case) -> Any:
    """The lab's answer on ``case``, or None when it cannot take it (not an input of the contract)."""
    try:
        return reference.expected(case)
    except Exception:
        return None


def _refused(case: Case, parameters: tuple[str, ...]) -> list[Case]:
    """``case`` with each tuning parameter the function takes (of ``parameters``) set to a value the
    contract refuses."""
    return [
        replace(case, kwargs={**case.kwargs, name: value})
        for name in parameters
        if name in TUNING
        for value in REFUSED.get(name, ())
    ]


def _size(probe: Any) -> int:
    """A probe's size: a case's, or a run writer's scenario's."""
    return shrink.size(probe) if isinstance(probe, Case) else shrink_run.size(probe)


def _run_kind(how: str) -> CheckKind:
    """The check of a file wrong in this way (``shrink_run.Reference.failure``)."""
    return CheckKind.RUN_CONTENT if how in (shrink_run.LINES, shrink_run.SEARCH_CALLS) else CheckKind.RUN_FORMAT


def public(planned: PlannedCase, submission: SubmissionPlan) -> bool:
    """May ``planned`` start a search? A public case of a public kind, its call before every secret one."""
    call = submission.calls[planned.call] if planned.call < len(submission.calls) else None
    return (
        planned.case.public
        and planned.kind in PUBLIC_KINDS
        and call is not None
        and not call.get("secret")
        and planned.call < submission.secret_start
    )


def resolved(case: Case, tables: dict[str, dict[str, Any]]) -> Case:
    """``case`` with every table reference replaced by its (public) data: shrinking changes it."""

    def value(arg: Any) -> Any:
        if isinstance(arg, dict) and set(arg) == {"$ref"}:
            table, key = arg["$ref"]
            return tables[table][key]
        return arg

    return replace(case, args=tuple(value(arg) for arg in case.args))


def counterexample(found: shrink.Shrunk, returns: str = "", parameters: tuple[str, ...] = ()) -> Counterexample:
    """What the feedback shows of a shrunk case (called in its form, by the function's ``parameters``)."""
    outcome = found.outcome
    raised = ""
    if outcome.status == OutcomeStatus.ERROR:
        error = outcome.error or {}
        raised = judge.capped(f"raised {error.get('type', 'an exception')}: {error.get('message', '')}".rstrip(": "))
    call = found.case.call_text(limit=600, parameters=parameters)
    legend = [
        f"# {name}: the grader's measure: {words}"
        for name, words in toy_measures.DESCRIPTIONS.items()
        if re.search(rf"\b{name}\b", call)
    ]
    return Counterexample(
        call="\n".join([call, *legend]),
        expected=found.expected,
        actual=judge.shown(outcome.value) if outcome.status == OutcomeStatus.VALUE else None,
        raised=raised,
        size=shrink.size(found.case),
        start_size=shrink.size(found.start),
        start=found.start.id,
        calls=found.calls,
        stopped_early=found.stopped_early,
    )


def run_counterexample(found: shrink.Shrunk, writer: str, start: str) -> Counterexample:
    """What the feedback shows of a shrunk scenario of the run writer (``start``: the public scenario
    it came from): the call and what its arguments hold, the right file's lines and the writer's
    (a few, from the first that differs: ``shrink_run.shown``; each line's end visible)."""
    outcome = found.outcome
    raised = ""
    if outcome.status == OutcomeStatus.ERROR:
        error = outcome.error or {}
        raised = judge.capped(f"raised {error.get('type', 'an exception')}: {error.get('message', '')}".rstrip(": "))
    actual = shrink_run.written(outcome) if outcome.status == OutcomeStatus.VALUE else None
    if found.how == shrink_run.NO_FILE and not raised:
        raised = f"{writer} wrote no file at the path it was given"
    if judge.wants_error(found.expected):
        expected: Any = found.expected
    else:
        expected, actual = shrink_run.shown(found.expected, actual)
    call = shrink_run.call_text(found.case, writer)
    if found.how == shrink_run.SEARCH_CALLS:
        value = outcome.value if isinstance(outcome.value, dict) else {}
        searches = value.get("searches", []) if isinstance(value.get("searches"), list) else []
        wanted = [[text, found.case.k] for _, text in found.case.queries]
        call += f"\n# search_fn was called with {judge.capped(repr(searches))}; the contract: {wanted!r}"
    return Counterexample(
        call=call,
        expected=expected,
        actual=actual if not raised else None,
        raised=raised,
        size=shrink_run.size(found.case),
        start_size=shrink_run.size(found.start),
        start=start,
        calls=found.calls,
        stopped_early=found.stopped_early,
        unit=RUN_UNIT,
    )


def said_again(checks: tuple[CheckResult, ...], changed: dict[str, tuple[str, Diagnosis]]) -> tuple[CheckResult, ...]:
    """The checks, each function's "answers the same call differently" (``Finder.changed``) added on the
    check its start case belongs to, when that check lost points and does not say it already."""
    by_check = dict(changed.values())
    return tuple(
        replace(check, diagnoses=(*check.diagnoses, by_check[check.name]))
        if check.name in by_check
        and not check.full
        and not check.note
        and all(d.id != by_check[check.name].id for d in check.diagnoses)
        else check
        for check in checks
    )


def attach(checks: tuple[CheckResult, ...], found: dict[str, tuple[str, Counterexample]]) -> tuple[CheckResult, ...]:
    """The checks, each function's counterexample on the check its start case belongs to
    (``found``: function -> (that check's name, the counterexample)), or, when that check has full
    marks (a run file wrong in a way only another check reads), on the function's first check that
    lost points; a check with a note (no credit) gets none. A diagnosis of the function that says
    what every wrong answer is (too high, the right items in another order, ...) is dropped where
    its counterexample is not
    (``_contradicted``): the graded cases alone told it, and the feedback would show both."""
    by_check = dict(found.values())
    for function, (name, _) in found.items():
        named = next((check for check in checks if check.name == name), None)
        if named is not None and named.full:
            other = next((c for c in checks if c.function == function and not c.full and not c.note), None)
            by_check[other.name if other is not None else name] = by_check.pop(name)
    attached = []
    for check in checks:
        if check.function in found:
            counterexample = found[check.function][1]
            kept = tuple(diagnosis for diagnosis in check.diagnoses if not _contradicted(diagnosis, counterexample))
            check = replace(check, diagnoses=kept) if kept != check.diagnoses else check
        if check.name in by_check and not check.full and not check.note:
            check = replace(check, counterexample=by_check[check.name])
        attached.append(check)
    return tuple(attached)


def _items(value: object) -> list[str] | None:
    """A list answer's items, sorted by their text (None for anything but a list)."""
    return sorted(map(repr, value)) if isinstance(value, (list, tuple)) else None


def _sign(sign: int) -> Callable[[object, object], bool]:
    """The claim that a wrong answer is a number on that side of the right one."""
    return lambda actual, expected: (
        _number(actual) and _number(expected) and (float(actual) - float(expected)) * sign > 0  # type: ignore[arg-type]
    )


#: What a diagnosis says of every wrong answer (``diagnosis/shapes.py``'s shapes, by id), as a test of one
#: (answer, right answer): a counterexample is a wrong answer too, so one that fails the test refutes it.
CLAIMS: dict[str, Callable[[object, object], bool]] = {
    "shape-too-high": _sign(1),
    "shape-too-low": _sign(-1),
    "shape-reordered": lambda actual, expected: _items(actual) is not None and _items(actual) == _items(expected),
    "shape-reversed": lambda actual, expected: (
        isinstance(actual, (list, tuple))
        and isinstance(expected, (list, tuple))
        and list(actual) == list(expected)[::-1]
    ),
}
#: The direction claim as the last sentence of a condition's explanation (``diagnosis/conditions.py``).
DIRECTED_SENTENCES = {" Every wrong answer is too high.": _sign(1), " Every wrong answer is too low.": _sign(-1)}


def _contradicted(diagnosis: Diagnosis, found: Counterexample) -> bool:
    """Does ``diagnosis`` say of every wrong answer something ``found`` (a wrong answer too, or a
    call that raised) is not?"""
    claim = CLAIMS.get(diagnosis.id) or next(
        (test for sentence, test in DIRECTED_SENTENCES.items() if diagnosis.explanation.endswith(sentence)), None
    )
    if claim is None:
        return False
    return bool(found.raised) or not claim(found.actual, found.expected)


def _ran(outcome: Outcome | None) -> bool:
    """Did the call run (its function was not struck, nor the run stopped before it)?"""
    return outcome is not None and outcome.status != OutcomeStatus.NOT_RUN


def _took(outcome: Outcome | None, limits: Limits) -> float:
    """A call's time: what its child measured, or its whole limit when it did not finish."""
    if outcome is None:
        return 0.0
    return limits.call_seconds if outcome.status == OutcomeStatus.TIMEOUT else outcome.seconds


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class _Driver:
    """One function's search, driven one call at a time as the sandbox asks for inputs."""

    check: str  # the check its start case belongs to
    call: int  # the start's graded call (its index in the submission's calls)
    start_case: Any  # the case the search started from (a run writer's scenario for ``shrink_run``)
    reference: shrink.Answers
    progress: shrink.Progress
    search: Any  # the ``shrink.steps`` generator
    encode: Callable[[Any], bytes]  # a candidate as the body of its call's payload
    queued: Case | None = None  # the case to ask next (None: the search has ended)
    awaiting: int | None = None  # the call (index in the run) whose answer the search awaits
    result: shrink.Shrunk | None = None
    checks: dict[int, None] = field(default_factory=dict)  # calls that asked the smallest case again
    spent: float = 0.0  # its calls' time so far
    first: Outcome | None = None  # the start's answer as the first call of the search's first child
    asked: bool = False  # has a child of its own run (``first`` is then what its first call answered)

    @classmethod
    def start(
        cls,
        where: tuple[str, int],
        case: Any,
        reference: shrink.Answers,
        encode: Callable[[Any], bytes],
        space: shrink.Space | None = None,
    ) -> _Driver:
        """A search from ``case`` (``where``: its check and graded call), its candidates ``space``'s."""
        progress = shrink.Progress(best=case)
        search = shrink.steps(case, reference, shrink.BUDGET, progress, space)
        return cls(*where, case, reference, progress, search, encode, queued=next(search))

    @property
    def done(self) -> bool:
        return self.queued is None

    def hand(self, index: int) -> Any:
        """The case call ``index`` asks: the search's next, or (once it ended) its smallest again."""
        if self.queued is not None:
            self.awaiting = index
            return self.queued
        self.checks[index] = None
        return self.result.case if self.result is not None else self.progress.best

    def answer(self, index: int, outcome: Outcome | None) -> None:
        """What call ``index`` answered, if the search awaits it."""
        if self.awaiting != index or outcome is None or outcome.status == OutcomeStatus.NOT_RUN:
            return  # not sent after all (the run's time ran out): ``stop`` keeps where the search stands
        self.awaiting = None
        try:
            self.queued = self.search.send(outcome)
        except StopIteration as stop:
            self.queued, self.result = None, stop.value

    def rechecked(self, outcomes: list[Outcome | None]) -> None:
        """Drop the result when the smallest case, asked again, did not fail the same way."""
        checks, self.checks = self.checks, {}
        for index in checks:
            outcome = outcomes[index]
            if outcome is None or outcome.status == OutcomeStatus.NOT_RUN or self.result is None:
                continue
            if self.reference.failure(self.result.case, outcome) != self.result.how:
                self.result = None

    def stop(self) -> None:
        """No more calls: keep where the search stands (the start was wrong again, the same way)."""
        if self.queued is None:
            return
        self.queued = None
        progress = self.progress
        if progress.how is not None and progress.outcome is not None:
            self.result = shrink.shrunk(progress, self.reference, self.start_case, progress.outcome, True)


class Finder:
    """Finds the counterexamples of one submission (``after_public`` is the runner's hook); what it
    found is ``found``: function -> (the check its start case belongs to, the counterexample)."""

    def __init__(
        self, plan: Plan, submission: SubmissionPlan, run_calls: RunCalls, limits: Limits, deadline: float | None = None
    ):
        self.plan, self.submission, self.run_calls, self.limits = plan, submission, run_calls, limits
        self.deadline = deadline  # a platform's overall limit (``time.monotonic()``), if any
        self.found: dict[str, tuple[str, Counterexample]] = {}
        #: function -> (the check of its start case, the diagnosis): the start case, asked again as the first
        #: call of a fresh child, answered another value than when graded (state kept between calls)
        self.changed: dict[str, tuple[str, Diagnosis]] = {}
        self.problem = ""  # why the search failed, if it did (a grader's bug)
        #: the public run files read (``run_start``), each with its outcome: the checks read them from here
        self.files: dict[str, tuple[Outcome, runfile_checks.RunFile]] = {}

    def allowed(self) -> float:
        """The seconds the search may take: ``TOTAL_SECONDS``, and under a platform's overall limit
        at most half of what is left beyond the time the secret calls may need."""
        if self.deadline is None:
            return TOTAL_SECONDS
        return min(TOTAL_SECONDS, (self.deadline - time.monotonic() - self.limits.submission_seconds) / 2)

    def after_public(self, result: SandboxResult) -> None:
        """Shrink each function's smallest failing public case (the public calls' answers are in
        ``result``). A failure of the search itself (a bug of the grader's) costs the submission
        nothing: no counterexample, and ``problem`` says why, for the instructor's log."""
        try:
            self._search(result)
        except Exception:  # the grading goes on without counterexamples; the instructor is told
            self.found = {}
            self.problem = traceback.format_exc(limit=-3).strip().splitlines()[-1][:300]

    def _search(self, result: SandboxResult) -> None:
        lab = self.plan.lab
        begun, allowed = time.monotonic(), self.allowed()
        drivers: dict[str, _Driver] = {}
        outcomes = list(result.outcomes)
        for function, (planned, case) in starts(self.plan, self.submission, outcomes).items():
            drivers[function] = _Driver.start(
                (planned.check, planned.call), case, shrink.Reference(lab, function), self._case_body
            )
        writer, run = lab.registry.run_writer(), run_start(self.plan, self.submission, outcomes, self.files)
        started = {writer: run.name} if writer and run is not None else {}
        if writer and run is not None:
            drivers[writer] = _Driver.start(
                (run.check, run.call),
                run.scenario,
                shrink_run.Reference(writer),
                self._scenario_body,
                shrink_run.SCENARIOS,
            )
        started.update(self._probe(drivers, outcomes, allowed - (time.monotonic() - begun)))
        while any(not driver.done for driver in drivers.values()):
            left = allowed - (time.monotonic() - begun)
            active = [name for name, driver in drivers.items() if not driver.done]
            if left <= 0:
                break
            self._round({name: drivers[name] for name in active}, left)
        for function, driver in drivers.items():
            self._changed(function, driver, result)
            driver.stop()
            if driver.result is not None and function == writer:
                self.found[function] = (driver.check, run_counterexample(driver.result, function, started[function]))
            elif driver.result is not None:
                record = lab.records[function]
                found = counterexample(driver.result, record.returns, record.parameters)
                self.found[function] = (driver.check, found)

    def _probe(self, drivers: dict[str, _Driver], outcomes: list[Outcome | None], seconds: float) -> dict[str, str]:
        """Ask each function no search starts for its ``probes``, and the run writer, when none
        starts, the notes' example with arguments the contract refuses (``shrink_run.probes``), in
        one child; a search starts from the smallest probe each is wrong on (the probes come
        smallest first per feature). Returns the run writer's start probe, if any."""
        lab, writer = self.plan.lab, self.plan.lab.registry.run_writer()
        owners: list[tuple[str, Any, shrink.Answers, shrink.Space | None]] = [
            (function, case, _reference(self.plan, function), None)
            for function, cases in kept_probes(self.plan, self.submission, set(drivers)).items()
            for case in cases
        ]
        example = self.plan.scenarios.get(lab.scenarios.EXAMPLE) if writer else None
        if writer and writer not in drivers and example is not None and self._imported(writer, outcomes):
            titles = self.plan.shared_job["tables"].get("titles", {})
            refused = shrink_run.probes(shrink_run.start_of(example, titles))
            owners += [(writer, probe, shrink_run.Reference(writer), shrink_run.SCENARIOS) for probe in refused]
        if not owners or seconds <= 0:
            return {}
        functions = {function for function, *_ in owners}
        calls = [Call(f, lab.functions[f], large=lab.records[f].writes_run_file) for f, *_ in owners]
        bodies = [self._body(function, probe) for function, probe, *_ in owners]
        limits = replace(
            self.limits,
            call_seconds=min(self.limits.call_seconds, SECONDS),
            submission_seconds=SECONDS * len(functions),
            functions=len(functions),
        )
        result = self.run_calls(
            calls, lambda index: index.to_bytes(4, "big") + bodies[index], lambda _: None, limits, seconds
        )
        first: dict[str, tuple[Any, shrink.Answers, shrink.Space | None]] = {}
        for index, (function, probe, reference, space) in enumerate(owners):
            outcome = result.outcomes[index] if index < len(result.outcomes) else None
            how = reference.failure(probe, outcome)
            wrong = how is not None and how.removeprefix("raised ") not in NOT_IMPLEMENTED_ERRORS
            if wrong and (function not in first or _size(probe) < _size(first[function][0])):
                first[function] = (probe, reference, space)
        for function, (probe, reference, space) in first.items():
            kinds = (CheckKind.RUN_FORMAT,) if function == writer else (CheckKind.RANDOM,)
            check = next((c.name for c in self.plan.rubric.checks if c.function == function and c.kind in kinds), "")
            check = check or next((c.name for c in self.plan.rubric.checks if c.function == function), "")
            body = self._scenario_body if function == writer else self._case_body
            drivers[function] = _Driver.start((check, -1), probe, reference, body, space)
        return {writer: first[writer][0].name} if writer in first else {}

    def _imported(self, function: str, outcomes: list[Outcome | None]) -> bool:
        """Did a public call of ``function`` return or raise (its file imported, it is no stub)?"""
        for name, index in self.submission.scenario_calls.items():
            outcome = outcomes[index] if index < len(outcomes) else None
            if self.plan.scenarios[name].public and outcome is not None and judge.answered(outcome):
                error = (outcome.error or {}).get("type", "") if outcome.status == OutcomeStatus.ERROR else ""
                return error not in NOT_IMPLEMENTED_ERRORS
        return False

    def _body(self, function: str, probe: Any) -> bytes:
        """A probe's call, as its payload's body."""
        return self._scenario_body(probe) if self.plan.lab.records[function].writes_run_file else self._case_body(probe)

    def _case_body(self, case: Case) -> bytes:
        """A call of a function's case, as its payload's body."""
        return payloads.encode(plan_module.call_of(self.plan.lab, case), {"tables": {}, "results": {}, "queries": {}})

    def _scenario_body(self, scenario: Scenario) -> bytes:
        """A call of the run writer on a (public, shrunk) scenario, as its payload's body: the plan's
        own call of a scenario, its data attached as the plan attaches a scenario's."""
        call = plan_module._scenario_call(self.plan.lab, scenario)
        name = scenario.name
        job: plan_module.Job = {
            "tables": {},
            "results": {name: scenario.results},
            "queries": {name: [list(query) for query in scenario.queries]},
        }
        return payloads.encode(call, job)

    def _changed(self, function: str, driver: _Driver, result: SandboxResult) -> None:
        """Note a start case whose answer, asked again first in a fresh child, is another value (not
        said of the run writer: its answers are files, and its scenarios' checks say what differs)."""
        if self.plan.lab.records[function].writes_run_file or driver.call < 0:  # a probe: never graded
            return
        graded, again = result.outcomes[driver.call], driver.first
        if (
            graded is None
            or again is None
            or graded.status != OutcomeStatus.VALUE
            or again.status != OutcomeStatus.VALUE
        ):
            return
        if repeats.values_differ(graded.value, again.value, self.plan.lab.tolerance):
            label = driver.start_case.call_text(limit=200, parameters=self.plan.lab.records[function].parameters)
            diagnosis = repeats.asked_again(
                function, self.plan.lab.notes_part(function), label, graded.value, again.value
            )
            self.changed[function] = (driver.check, diagnosis)

    def _round(self, drivers: dict[str, _Driver], seconds: float) -> None:
        """One child's run: ``CHUNK`` calls of each function still searching, their inputs chosen as
        they are sent."""
        lab = self.plan.lab
        owners = [name for name in drivers for _ in range(CHUNK)]
        calls = [Call(name, lab.functions[name], large=lab.records[name].writes_run_file) for name in owners]
        live: list[SandboxResult] = []
        sent: dict[int, bytes] = {}

        def payload(index: int) -> bytes:
            if index in sent:  # the same call again (its child was killed from outside)
                return sent[index]
            driver = drivers[owners[index]]
            if index > 0 and owners[index - 1] == owners[index] and live:
                driver.answer(index - 1, live[0].outcomes[index - 1])
            sent[index] = index.to_bytes(4, "big") + driver.encode(driver.hand(index))
            return sent[index]

        limits = replace(
            self.limits,
            call_seconds=min(self.limits.call_seconds, SECONDS),
            submission_seconds=SECONDS * len(drivers),
            functions=len(drivers),
        )
        result = self.run_calls(calls, payload, live.append, limits, seconds)
        for index, name in enumerate(owners):
            drivers[name].answer(index, result.outcomes[index])
        for name, driver in drivers.items():
            driver.rechecked(result.outcomes)
            mine = [index for index, owner in enumerate(owners) if owner == name]
            if not driver.asked:  # its first call in its first child asks the start (a call may ask it again)
                driver.asked, driver.first = True, result.outcomes[mine[0]]
            driver.spent += sum(_took(result.outcomes[index], limits) for index in mine)
            if driver.spent >= SECONDS or not all(_ran(result.outcomes[index]) for index in mine):
                driver.stop()  # its time is spent, or a call of it did not run (its child's limits)
