"""The grading plan: every call a submission answers and what each check expects of it.

Built once per batch from the rubric, the stored reference and the Cranfield bundle. The
*shared job* holds the inputs of the calls every submission answers; each grading adds random
cases of its own, drawn from a seed made of the course secret and its files
(``course_secret.seed_for``; a fresh one, ``fresh_seed``, without a secret; stored with the
result) and valued live by ``ir_measures``: no pool, nothing a table of answers could hold. The
calls run public first (the notes' examples, Cranfield, the random cases) and secret ones last
(the hidden edge cases and the run writer's hidden scenarios): what a submission prints after a
secret call's inputs reached it is not shown.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypedDict

from autograder import cache, paths
from autograder.errors import InputError
from autograder.grading import inputs, runfile_problems
from autograder.grading.rubric import CheckSpec, Rubric
from autograder.labkit import call_forms, trec
from autograder.labkit.case import Case, plain, valid_tuning
from autograder.labkit.kinds import CheckKind
from autograder.labkit.lab import Lab

if TYPE_CHECKING:  # a scenario as the engine reads it, whatever lab made it
    from autograder.labkit.scenario import Scenario


class _CallFields(TypedDict):
    fn: str  # the function called
    file: str  # the graded file that defines it
    args: list[
        Any
    ]  # plain data, with tags (``$ref``, ``$search``, ``$queries(-once)``, ``$path``) ``payloads`` resolves
    kwargs: dict[str, Any]


class PlannedCall(_CallFields, total=False):
    """One call a submission answers, as the plan holds it (a plain dict: plans are stored and pickled)."""

    secret: bool  # its inputs are hidden from the student (absent: public)
    partial: bool  # its keyword arguments are bound by functools.partial first (``call_forms``)


class _JobFields(TypedDict):
    tables: dict[str, dict[str, Any]]  # table -> key -> value (``$ref`` names one: rankings, judgments, titles)
    results: dict[str, Any]  # scenario -> its search function's results, by query text
    queries: dict[str, list[list[str]]]  # scenario -> its queries, [query id, text]


class Job(_JobFields, total=False):
    """What calls' tags refer to: the plan's shared job holds its calls too; a grading's own random
    calls refer to an empty one (``payloads``)."""

    calls: list[PlannedCall]  # the shared calls, in the order they run
    overfull: list[str]  # the scenarios whose search function returns more than k results


@dataclass(frozen=True)
class PlannedCase:
    check: str  # the check's name
    kind: CheckKind  # the check's kind
    case: Case
    expected: object
    call: int  # the index of its call in the submission's call list
    features: frozenset[str] = frozenset()  # what its inputs have (``lab.features``), for diagnoses


def _features(lab: Lab, case: Case, tables: dict[str, dict[str, Any]] | None) -> frozenset[str]:
    return frozenset(
        lab.records[case.function].features(tuple(inputs.resolve(arg, tables) for arg in case.args), case.kwargs)
    )


@dataclass(frozen=True)
class SubmissionPlan:
    """What one grading of one submission runs: every call in order, its cases, and its seed."""

    calls: list[PlannedCall]  # in the order they run
    planned: list[PlannedCase]  # each naming its call's index in ``calls``
    scenario_calls: dict[str, int]  # the run writer's scenario -> its call's index
    seed: str  # what its random cases were drawn with
    random_calls: int  # how many of the calls are its own random ones
    secret_start: int  # the index of its first secret call (len(calls) when there is none)


@dataclass
class Plan:
    lab: Lab  # the lab it grades (not stored: ``cached`` hands it back)
    rubric: Rubric
    reference_digest: str
    shared_job: Job
    shared_cases: list[PlannedCase]
    scenarios: dict[str, Scenario]  # scenario name -> the scenario
    scenario_calls: dict[str, int]  # scenario name -> call index
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> grade
    aggregates: dict[str, dict[str, Any]]  # system -> label -> reference aggregate
    random_checks: dict[str, str] = field(default_factory=dict)  # function -> the name of its random check
    canonical: dict[str, str] = field(default_factory=dict)  # scenario -> the reference writer's exact text
    # scenario -> (format names, content names)
    properties: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    # case id -> the reference's answers at k - 1, k + 1, rel + 1
    neighbours: dict[str, dict[str, Any]] = field(default_factory=dict)
    secret_start: int = 0  # the shared job's first secret call (they all come after the public ones)
    key: str = ""  # the cache key it was stored under, if any
    # call index -> its payload (not stored)
    encoded: dict[int, bytes] = field(default_factory=dict, repr=False, compare=False)
    # the catalogue's (not stored)
    variant_answers: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict[str, object]:
        kept = {name: value for name, value in self.__dict__.items() if name != "lab"}
        return {**kept, "encoded": {}, "variant_answers": {}}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state, lab=None)  # ``cached`` hands the lab back

    def calls(self) -> list[PlannedCall]:
        return self.shared_job["calls"]

    def for_submission(self, seed: str, kept: bool = True) -> SubmissionPlan:
        """One grading's calls: the shared public ones, then random ones drawn with ``seed``
        (``fresh_seed``), then the shared secret ones; every case names its call's index. The
        random cases and their answers are kept in the cache under the plan's key and the seed
        (``kept``, for a plan from the cache), so a regrade of the same files (the same seed)
        values them once: valuing them imports ir_measures and numpy, most of a warm grade's plan."""
        if not (kept and self.key):
            drawn = self._drawn(seed)
        else:
            drawn = cache.cached_pickle("random", cache.fingerprint([self.key, seed]), lambda: self._drawn(seed))
        start, shift = self.secret_start, len(drawn)
        planned = [replace(item, call=item.call + shift) if item.call >= start else item for item in self.shared_cases]
        planned += [
            PlannedCase(
                check=check,
                kind=CheckKind.RANDOM,
                case=case,
                expected=expected,
                call=start + number,
                features=_features(self.lab, case, None),
            )
            for number, (check, case, expected) in enumerate(drawn)
        ]
        shared = self.shared_job["calls"]
        calls = shared[:start] + [call_of(self.lab, case) for _, case, _ in drawn] + shared[start:]
        scenario_calls = {name: index + (shift if index >= start else 0) for name, index in self.scenario_calls.items()}
        return SubmissionPlan(
            calls=calls,
            planned=planned,
            scenario_calls=scenario_calls,
            seed=seed,
            random_calls=shift,
            secret_start=start + shift,
        )

    def _drawn(self, seed: str) -> list[tuple[str, Case, object]]:
        """The random cases drawn with ``seed`` for each random check, with their checks and answers."""
        drawn: list[tuple[str, Case, object]] = []
        for function, check in sorted(self.random_checks.items()):
            rng = random.Random(f"{self.rubric.random_seed}:{seed}:{function}")
            generate = self.lab.records[function].random_cases
            if generate is None:  # the rubric refuses random checks of a function without generators
                continue
            made = generate(rng, self.rubric.random_cases)
            answers = self.lab.registry.answers(function, made, inputs.resolve)
            drawn += [(check, case, expected) for case, expected in zip(made, answers)]
            drawn += _other_forms(self.lab, check, made, answers)
        return drawn


def _other_forms(lab: Lab, check: str, made: list[Case], answers: list[Any]) -> list[tuple[str, Case, object]]:
    """The first random case of valid arguments again in each of the contract's other call forms
    (``call_forms.FORMS``), with its answer: none for a function whose record names no parameters."""
    if not made or not lab.records[made[0].function].parameters:
        return []
    first = next(((case, expected) for case, expected in zip(made, answers) if valid_tuning(case.kwargs)), None)
    if first is None:
        return []
    case, expected = first
    return [(check, replace(case, id=f"{case.id}-{form}", form=form), expected) for form in call_forms.FORMS]


def fresh_seed() -> str:
    """A seed no one can guess: a grading's random cases are drawn from it."""
    return secrets.token_hex(16)


def call_of(lab: Lab, case: Case, secret: bool = False) -> PlannedCall:
    """The call ``case`` makes, in its form (``call_forms.bind``, by its record's parameters)."""
    args, kwargs, partial = call_forms.bind(lab.records[case.function].parameters, case.args, case.kwargs, case.form)
    call: PlannedCall = {
        "fn": case.function,
        "file": lab.functions[case.function],
        "args": list(args),
        "kwargs": kwargs,
    }
    if partial:
        call["partial"] = True
    return {**call, "secret": True} if secret else call


def build(lab: Lab, rubric: Rubric, reference: dict[str, Any], bundle: dict[str, Any]) -> Plan:
    """The plan for ``rubric`` of ``lab``: calls for every check it holds, with their expected values."""
    kinds = {(check.function, check.kind): check for check in rubric.checks}
    made = _Made(lab=lab, tables={"rankings": {}, "judgments": bundle["qrels"], "titles": bundle["titles"]})
    _add_examples(made, kinds)
    _add_cranfield(made, kinds, reference, bundle)
    planned_scenarios = _scenarios(lab, kinds, bundle)
    scenario_calls: dict[str, int] = {}
    ordered = sorted(planned_scenarios.values(), key=lambda scenario: not scenario.public)  # public first
    public_scenarios = [scenario for scenario in ordered if scenario.public]
    _add_scenario_calls(made, public_scenarios, scenario_calls)
    secret_start = len(made.calls)
    _add_edge_cases(made, kinds, reference)
    _add_scenario_calls(made, ordered[len(public_scenarios) :], scenario_calls)
    job = _job(made, planned_scenarios)
    random_checks = {check.function: check.name for check in rubric.checks if check.kind == CheckKind.RANDOM}
    canonical, properties = _expected_runs(planned_scenarios)
    return Plan(
        lab=lab,
        rubric=rubric,
        reference_digest=reference.get("digest", ""),
        shared_job=job,
        shared_cases=made.planned,
        scenarios=planned_scenarios,
        scenario_calls=scenario_calls,
        qrels=bundle["qrels"],
        aggregates=reference["aggregates"],
        random_checks=random_checks,
        canonical=canonical,
        properties=properties,
        neighbours=of_reference(lab, [p.case for p in made.planned], made.tables),
        secret_start=secret_start,
    )


@dataclass
class _Made:
    """The shared job's calls and cases as ``build`` adds them, in the order they run."""

    lab: Lab
    tables: dict[str, dict[str, Any]]  # what the calls' ``$ref`` tags name
    calls: list[PlannedCall] = field(default_factory=list)
    planned: list[PlannedCase] = field(default_factory=list)

    def add(self, check: CheckSpec, case: Case, expected: object) -> None:
        """A case of ``check`` and its call (secret unless the case is public), next in order."""
        self.planned.append(
            PlannedCase(
                check=check.name,
                kind=check.kind,
                case=case,
                expected=expected,
                call=len(self.calls),
                features=_features(self.lab, case, self.tables),
            )
        )
        self.calls.append(call_of(self.lab, case, secret=not case.public))


def _job(made: _Made, planned_scenarios: dict[str, Scenario]) -> Job:
    """The shared job: its tables and calls, and what the scenarios' calls refer to."""
    return {
        "tables": made.tables,
        "calls": made.calls,
        "results": {name: scenario.results for name, scenario in planned_scenarios.items()},
        "queries": {name: [list(q) for q in scenario.queries] for name, scenario in planned_scenarios.items()},
        "overfull": sorted(name for name, scenario in planned_scenarios.items() if scenario.overfull),
    }


def _add_examples(made: _Made, kinds: dict[tuple[str, CheckKind], CheckSpec]) -> None:
    """The notes' examples of every function with an examples check (the run writer's aside)."""
    for case, expected in made.lab.cases.example_cases():
        check = kinds.get((case.function, CheckKind.EXAMPLES))
        if check and not made.lab.records[case.function].writes_run_file:
            made.add(check, case, expected)


def _add_cranfield(
    made: _Made, kinds: dict[tuple[str, CheckKind], CheckSpec], reference: dict[str, Any], bundle: dict[str, Any]
) -> None:
    """The Cranfield cases of every measure with a Cranfield check: each query of each of Lab 04's
    systems, its ranking put in the rankings table, its expected value the stored reference's."""
    for label, spec in made.lab.measures.CRANFIELD.items():
        check = kinds.get((spec.function, CheckKind.CRANFIELD))
        if not check:
            continue
        for system in reference["cranfield"]:
            for query_id in sorted(bundle["qrels"], key=int):
                key = f"{system}/{query_id}"
                made.tables["rankings"][key] = bundle["systems"][system]["rankings"].get(query_id, [])
                case = Case(
                    id=f"cranfield-{system}-{label}-{query_id}",
                    function=spec.function,
                    description=f"{label} of query {query_id} in Lab 04's {system} run",
                    args=({"$ref": ["rankings", key]}, {"$ref": ["judgments", query_id]}),
                    kwargs=dict(spec.kwargs),
                    public=True,
                )
                made.add(check, case, reference["cranfield"][system][label][query_id])


def _add_edge_cases(made: _Made, kinds: dict[tuple[str, CheckKind], CheckSpec], reference: dict[str, Any]) -> None:
    """The hidden edge cases of every function with an edge check (one of a function outside the API: ValueError)."""
    for case in made.lab.cases.EDGE_CASES:
        if case.function not in made.lab.records:
            raise InputError(f"the hidden edge case {case.id} is of {case.function!r}, not a function of the API")
        check = kinds.get((case.function, CheckKind.EDGE))
        if check:
            made.add(check, case, reference["edge"][case.id])


def _add_scenario_calls(made: _Made, chosen: list[Scenario], scenario_calls: dict[str, int]) -> None:
    """A run writer's call for each of the ``chosen`` scenarios, its index put in ``scenario_calls``."""
    for scenario in chosen:
        scenario_calls[scenario.name] = len(made.calls)
        made.calls.append(_scenario_call(made.lab, scenario))


def _expected_runs(
    planned_scenarios: dict[str, Scenario],
) -> tuple[dict[str, str], dict[str, tuple[list[str], list[str]]]]:
    """Each scenario's reference run file (its exact text) and the problems that text has, in format
    and in content (none expected; empty for a scenario whose call must raise: no file to compare)."""
    canonical: dict[str, str] = {}
    properties: dict[str, tuple[list[str], list[str]]] = {}
    for name, scenario in planned_scenarios.items():
        if scenario.raises:  # no file to compare: the call must raise
            canonical[name], properties[name] = "", ([], [])
            continue
        canonical[name] = scenario.expected_text()
        table = trec.rows(canonical[name])
        searches = [[text, scenario.k] for _, text in scenario.queries]
        properties[name] = (
            list(runfile_problems.in_format(table, scenario)),
            list(runfile_problems.in_content(table, scenario, searches)),
        )
    return canonical, properties


def _scenario_call(lab: Lab, scenario: Scenario) -> PlannedCall:
    writer = lab.registry.run_writer() or ""  # there are scenarios only where the lab has a run writer
    call: PlannedCall = {
        "fn": writer,
        "file": lab.functions[writer],
        "kwargs": {"k": scenario.k} if scenario.pass_k else {},
        "args": [
            {"$path": f"{scenario.name}.run"},
            scenario.system,
            {"$search": scenario.name},
            {"$queries-once" if scenario.once else "$queries": scenario.name},
        ],
    }
    return call if scenario.public else {**call, "secret": True}


def cache_key(lab: Lab, rubric: Rubric, reference_digest: str, bundle_key: str) -> str:
    """The key a plan is stored under: everything it is made of (the rubric's calls and cases, not
    its points, visibility or scoring; the stored reference, the Cranfield bundle's key, all of the
    grader's code, the hidden run writer scenarios, the public cases and the ir_measures version).
    ``grading.shipment`` ships the plan under this same key."""
    from importlib import metadata

    code = sorted(paths.PACKAGE.rglob("*.py"))  # all of the grader: names, cases, checks
    if not lab.place.package.is_relative_to(paths.PACKAGE):  # a lab of its own folder: its code too
        code += sorted(lab.place.package.rglob("*.py"))
    scenarios_file = [lab.place.scenarios] if lab.place.scenarios.is_file() else []  # the hidden scenarios' inputs
    return cache.fingerprint(
        [
            rubric.cases_digest,
            reference_digest,
            bundle_key,
            *code,
            *scenarios_file,
            lab.place.public_cases,
            metadata.version("ir_measures"),
        ]
    )


def cached(
    lab: Lab,
    rubric: Rubric,
    reference: dict[str, Any],
    bundle_key: str,
    load_bundle: Callable[[], dict[str, Any]],
    check_reference: Callable[[dict[str, Any], dict[str, Any]], None],
) -> Plan:
    """``build``'s plan from the on-disk cache (``cache_key``); ``load_bundle`` runs only on a
    miss, and ``check_reference(reference, bundle)`` checks the reference against it."""

    def compute() -> Plan:
        bundle = load_bundle()
        check_reference(reference, bundle)
        return build(lab, rubric, reference, bundle)

    key = cache_key(lab, rubric, reference.get("digest", ""), bundle_key)
    plan: Plan = cache.cached_pickle("plan", key, compute)
    plan.lab = lab  # never stored: the lab's modules are code, not data
    plan.key = key
    plan.rubric = rubric  # as loaded now: what the key leaves out (the similarity section) may differ
    return plan


def _scenarios(lab: Lab, kinds: dict[tuple[str, CheckKind], CheckSpec], bundle: dict[str, Any]) -> dict[str, Scenario]:
    """The run writer's scenarios the rubric's checks need (none when the lab has no run writer)."""
    scenarios, writer = lab.scenarios, lab.registry.run_writer()
    found: dict[str, Scenario] = {}
    if writer is None:
        return found
    if (writer, CheckKind.EXAMPLES) in kinds:
        example = scenarios.example_scenario()
        found[example.name] = example
    if (writer, CheckKind.RUN_FORMAT) in kinds or (writer, CheckKind.RUN_CONTENT) in kinds:
        found.update({scenario.name: scenario for scenario in scenarios.small_scenarios()})
    if any((writer, kind) in kinds for kind in (CheckKind.RUN_FORMAT, CheckKind.RUN_CONTENT, CheckKind.RUN_CRANFIELD)):
        for system in lab.cranfield.SYSTEMS:
            scenario = scenarios.cranfield_scenario(system, bundle)
            found[scenario.name] = scenario
    return found


# ---------------------------------------------------------------- the answers next to a case's
# A wrong answer equal to the answer at k - 1, k + 1 or rel + 1 points at an off-by-one
# (``grading/diagnosis``): a plan's shared cases get the reference solution's (``of_reference``, only
# where plans are built), a random case ``ir_measures``' (``random_neighbours``).


def random_neighbours(lab: Lab, case: Case) -> dict[str, Any]:
    """A random case's answers with k - 1, k + 1 and rel + 1, from ``ir_measures`` (the solutions
    are not where platforms grade): wrong answers equal to one of them point at an off-by-one."""
    record = lab.records[case.function]
    if record.ir_measure is None or not valid_tuning(case.kwargs):
        return {}
    k, rel, gain = case.kwargs.get("k"), case.kwargs.get("rel", 1), case.kwargs.get("gain", "linear")
    found = {}
    for key, delta in (("k", -1), ("k", 1), ("rel", 1)):
        if key not in record.takes or (key == "k" and k is None):
            continue
        value = (k if key == "k" else rel) + delta  # type: ignore[operator]  # k is set when key is "k"
        if value < 1:
            continue
        moved = {"k": value, "rel": rel, "gain": gain} if key == "k" else {"k": k, "rel": value, "gain": gain}
        ranking, judgments = (plain(arg) for arg in case.args)
        run = {"q": {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}} if ranking else {}
        found[f"{key}{delta:+d}"] = lab.measures.ir_measures_values(record.ir_measure(**moved), {"q": judgments}, run)[
            "q"
        ]
    return found


def of_reference(lab: Lab, made: list[Case], tables: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each case with a cutoff or a threshold, the reference's answers with k - 1, k + 1 and
    rel + 1: wrong answers equal to one of them point at an off-by-one (``grading.shapes``)."""
    functions = lab.solution.reference_metrics()
    if functions is None:  # the solutions are not here (they are only where plans are built)
        return {}
    found: dict[str, dict[str, Any]] = {}
    for case in made:
        function = functions.get(case.function)
        if function is None:
            continue
        arguments = [inputs.resolve(arg, tables) for arg in case.args]
        for key, delta in (("k", -1), ("k", 1), ("rel", 1)):
            takes = "k" in case.kwargs if key == "k" else key in lab.records[case.function].takes
            if not takes:
                continue
            value = case.kwargs.get(key, 1)
            if not isinstance(value, int) or isinstance(value, bool) or value + delta < 1:
                continue
            try:
                answer = function(*arguments, **{**case.kwargs, key: value + delta})
            except Exception:
                continue
            found.setdefault(case.id, {})[f"{key}{delta:+d}"] = list(answer) if isinstance(answer, tuple) else answer
    return found
