"""The run writer's checks (the function whose record says it writes a run file): the files its
calls wrote, read as trec_eval reads them.

Each scenario's file is checked for the TREC format (six columns, Q0, ranks, order, k, the
system name), for content (the documents, order and scores the search function gave, and how
it was called), and the Cranfield runs are evaluated by ``ir_measures`` against the reference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from autograder import cache
from autograder.grading import judge
from autograder.grading import runfile_problems as problems
from autograder.grading.results import NO_RUN_FILE, WRONG_FORMAT, CaseResult, CaseStatus
from autograder.labkit import trec
from autograder.labkit.case import RAISES
from autograder.labkit.kinds import CheckKind
from autograder.labkit.lab import Lab
from autograder.sandbox.channel import Outcome, OutcomeStatus

if TYPE_CHECKING:  # for types only (a scenario as the engine reads it)
    from autograder.grading.plan import Plan
    from autograder.labkit.scenario import Scenario

SOME_WRITER = "the run writer"  # what messages call the writer when the lab names none


def writer_of(lab: Lab) -> str:
    """The function whose checks these are: the lab's run writer."""
    writer: str = lab.registry.run_writer() or SOME_WRITER
    return writer


RUN_LABELS = ("P@10", "R@100", "RR", "AP", "nDCG@10")  # the notes' table
_EVALUATED: dict[str, dict[str, float]] = {}
MEMO = 1000  # evaluations remembered (a batch of 300 has a few hundred distinct run files at most)


@dataclass(frozen=True)
class RunFile:
    """What a call of the run writer left: the file's rows (None when there is no file, or when it is
    byte for byte the reference writer's, ``canonical``), how search_fn was called, what went wrong."""

    table: list[list[str]] | None
    searches: list[Any]  # search_fn's calls as the child recorded them (JSON)
    problem: str | None
    canonical: bool = False  # byte for byte the reference writer's file
    digest: str = ""  # the file's sha256 (when not canonical): the key of its evaluation
    raised: tuple[str, ...] = ()  # the exception's classes, when the writer raised
    failed: CaseStatus | None = None  # the call's verdict when the writer did not return (raised, crashed...)
    error: str = ""  # the exception's class, when the writer raised
    layout: str | None = None  # what breaks the contract's layout of its lines (``trec.layout``), if anything
    appended: bool = False  # the file still starts with the line the child put at the path before the call
    same: bool | None = None  # its rows are the right writer's (``read_scenario``); None: not known yet

    def status(self, refused: bool = False) -> CaseStatus:
        """The verdict on a case of this file when it is missing or wrong: what became of the call when
        the writer did not return, else a wrong file; ``refused``: the case wanted an error (another
        error is then a wrong one, as ``judge.verdict`` says of calls)."""
        if self.failed is None or (refused and self.failed == CaseStatus.ERROR):
            return CaseStatus.FAIL
        return self.failed


def read(
    outcome: Outcome, canonical: str, limit: int | None = None, imported: bool = True, writer: str = SOME_WRITER
) -> RunFile:
    """The run file a call of the run writer (``writer``, as messages name it) returned (``canonical``:
    the reference writer's text), its first ``limit`` lines at most (more than twice the right file's
    cannot be right anyway); ``imported``: whether runs.py imported."""
    if outcome.status != OutcomeStatus.VALUE:
        # the call did not return: no value to compare, so no tolerance to compare it within
        status, message = judge.verdict(outcome, None, imported=imported, tolerance=0.0)
        error = (outcome.error or {}) if outcome.status == OutcomeStatus.ERROR else {}
        raised = tuple(error.get("mro", ()))
        return RunFile(
            table=None,
            searches=[],
            problem=f"{writer} {message}",
            raised=raised,
            failed=status,
            error=str(error.get("type", "")),
        )
    value = outcome.value if isinstance(outcome.value, dict) else {}
    if value.get("type") != "runfile":
        return RunFile(table=None, searches=[], problem=f"{writer} returned, but the grader got no run file back")
    if value.get("missing"):
        return RunFile(table=None, searches=[], problem=f"{writer} wrote no file at the path it was given")
    if value.get("too_large"):
        return RunFile(
            table=None, searches=[], problem=f"{writer} wrote a file larger than 4 MiB (Lab 04's runs take under 1 MiB)"
        )
    text: str = value.pop("text") if isinstance(value.get("text"), str) else ""  # read once, then let go
    searches: list[Any] = value["searches"] if isinstance(value.get("searches"), list) else []
    if value.get("not_utf8"):
        return RunFile(table=trec.rows(text, limit), searches=searches, problem="the file is not UTF-8 text")
    if text == canonical:  # the common case, checked once at plan time: skip parsing 22,500 lines
        return RunFile(table=None, searches=searches, problem=None, canonical=True)
    return RunFile(
        table=trec.rows(text, limit),
        searches=searches,
        problem=None,
        digest=hashlib.sha256(text.encode()).hexdigest(),
        layout=trec.layout(text),
        appended=value.get("appended") is True,
    )


def read_all(
    plan: Plan,
    outcomes: list[Any],
    unimported: frozenset[str],
    scenario_calls: dict[str, int],
    known: dict[str, tuple[Outcome, RunFile]] | None = None,
) -> dict[str, RunFile]:
    """Each scenario's ``RunFile`` (``outcomes``: the sandbox's, every one filled by then;
    ``unimported``: the graded files that did not import; ``scenario_calls``: each scenario's call
    index in the submission's calls); ``known``: files read before (by the counterexample search,
    ``counterexamples.run_start``), each with the outcome it was read from, kept where that outcome
    is still the call's: no file is read twice."""
    writer = writer_of(plan.lab)
    imported = plan.lab.functions.get(writer) not in unimported
    files: dict[str, RunFile] = {}
    for name, index in scenario_calls.items():
        outcome = outcomes[index]
        found = (known or {}).get(name)
        if found is not None and found[0] is outcome:  # read already (a public file, once its call ran)
            if isinstance(outcome.value, dict):
                outcome.value.pop("text", None)  # let go of it, as ``read`` does
            files[name] = found[1]
        else:
            files[name] = read_scenario(plan, name, outcome, imported, writer)
    return files


def read_scenario(plan: Plan, name: str, outcome: Outcome, imported: bool = True, writer: str = SOME_WRITER) -> RunFile:
    """Scenario ``name``'s ``RunFile`` (``read``, its first lines up to twice the right file's and
    1,000 more), with whether its rows are the right writer's (``same``), measured once."""
    run = read(outcome, plan.canonical[name], 2 * len(plan.scenarios[name].expected_rows()) + 1000, imported, writer)
    return replace(run, same=run.canonical or (run.table is not None and equivalent(run.table, plan.scenarios[name])))


# ------------------------------------------------------------------ properties of one file


def equivalent(table: list[list[str]], scenario: Scenario) -> bool:
    """Is the file, as trec_eval reads it, what the right writer writes: the same columns and
    rows in order, scores within the tolerance (more decimals or other whitespace are fine)?"""
    expected = scenario.expected_rows()
    if len(table) != len(expected):
        return False
    for row, (query_id, q0, doc_id, rank, score, system) in zip(table, expected):
        if len(row) != trec.COLUMNS or row[0] != query_id or row[1] != q0 or row[2] != doc_id or row[5] != system:
            return False
        if row[3] != str(rank) or not trec.same_score(trec.score(row[4]), score):
            return False
    return True


def evaluate_run(
    lab: Lab,
    run: dict[str, dict[str, float]],
    qrels: dict[str, dict[str, int]],
    labels: Sequence[str],
    digest: str = "",
) -> dict[str, float]:
    """Aggregates of ``ir_measures`` on ``run``, the lab's measures ``labels`` (memoised by the file's
    digest: equal files cost once; at most ``MEMO`` of them are kept)."""
    import ir_measures

    key = hashlib.sha256(
        (
            repr((lab.name, tuple(labels), len(qrels), sorted(qrels)[:3]))
            + (digest or repr(sorted((q, sorted(d.items())) for q, d in run.items())))
        ).encode()
    ).hexdigest()
    if len(_EVALUATED) > MEMO:
        _EVALUATED.clear()
    if key not in _EVALUATED:
        specs = {ir_measures.parse_measure(lab.measures.CRANFIELD[label].ir_measure): label for label in labels}
        scores = ir_measures.calc_aggregate(list(specs), qrels, run) if run else {}
        _EVALUATED[key] = {label: float(scores.get(measure, 0.0)) for measure, label in specs.items()}
    return _EVALUATED[key]


# ------------------------------------------------------------------ the checks' cases


def cases(plan: Plan, files: dict[str, RunFile]) -> dict[str, list[CaseResult]]:
    """The cases of the run writer's checks, by check name."""
    writer = writer_of(plan.lab)
    names = {check.kind: check.name for check in plan.rubric.checks if check.function == writer}
    found: dict[str, list[CaseResult]] = {name: [] for name in names.values()}
    for name in plan.scenarios:
        _scenario_cases(plan, name, files[name], names, found)
    return found


def _scenario_cases(
    plan: Plan, name: str, run: RunFile, names: dict[CheckKind, str], found: dict[str, list[CaseResult]]
) -> None:
    """One scenario's cases added to ``found`` (``names``: the check of each kind): the example's, a
    refused call's, or else those of the file's format, content and Cranfield evaluation."""
    scenario = plan.scenarios[name]
    table, same = _as_read(plan, name, run)
    if name == plan.lab.scenarios.EXAMPLE:
        if CheckKind.EXAMPLES in names:
            found[names[CheckKind.EXAMPLES]].append(_example_case(scenario, table, run))
        return
    if scenario.raises:
        if CheckKind.RUN_FORMAT in names:
            found[names[CheckKind.RUN_FORMAT]].append(_error_case(name, scenario, run, writer_of(plan.lab)))
        return
    if CheckKind.RUN_FORMAT in names:
        found[names[CheckKind.RUN_FORMAT]].extend(_format_cases(plan, name, run, table, same))
    if table is not None:  # the content and the evaluation read the lines as if Q0 were there
        table = trec.repaired(table)
    if CheckKind.RUN_CONTENT in names:
        found[names[CheckKind.RUN_CONTENT]].extend(_content_cases(plan, name, run, table, same))
    if CheckKind.RUN_CRANFIELD in names and scenario.public:
        found[names[CheckKind.RUN_CRANFIELD]].extend(_cranfield_cases(plan, scenario, run, table, run.problem))


def _as_read(plan: Plan, name: str, run: RunFile) -> tuple[list[list[str]] | None, bool]:
    """The scenario's rows as its checks read them (a canonical file's for the example alone, which
    shows them), and whether they are equivalent to the right writer's."""
    table = run.table
    if run.canonical:
        table = trec.rows(plan.canonical[name]) if name == plan.lab.scenarios.EXAMPLE else []
    if run.same is not None:  # measured when it was read (``read_scenario``)
        return table, run.same
    return table, run.canonical or (table is not None and equivalent(table, plan.scenarios[name]))


def _format_cases(plan: Plan, name: str, run: RunFile, table: list[list[str]] | None, same: bool) -> list[CaseResult]:
    """A case for each TREC format property of the file (``same``: it is equivalent to the right one, and
    all hold); with no file, or with six columns, the call's problem is what is wrong."""
    scenario, problem = plan.scenarios[name], run.problem
    format_names = plan.properties[name][0]
    properties = dict.fromkeys(format_names) if same else problems.in_format(table or [], scenario)
    lacking = None if same or table is None else problems.lacks(table, scenario)
    found: list[CaseResult] = []
    for number, (what, wrong) in enumerate(properties.items()):
        if problem and (table is None or what.startswith("6 columns")):
            wrong = problem
        wrong = wrong or lacking  # a property of absent lines holds of nothing
        told = NO_RUN_FILE if table is None or run.problem else WRONG_FORMAT
        found.append(
            _property_case(f"format:{name}:{number}", scenario, what, wrong, scenario.public, run, table is None, told)
        )
    # the lines' layout, apart from what trec_eval reads: a wrong separator or line end costs this case only
    wrong = problem if table is None or problem else run.layout
    told = NO_RUN_FILE if table is None or problem else WRONG_FORMAT
    found.append(
        _property_case(f"format:{name}:layout", scenario, trec.LAYOUT, wrong, scenario.public, run, table is None, told)
    )
    return found


def _content_cases(plan: Plan, name: str, run: RunFile, table: list[list[str]] | None, same: bool) -> list[CaseResult]:
    """A case for each property of the file's content and of search_fn's calls (with no file, each
    is the call's problem)."""
    scenario, content_names = plan.scenarios[name], plan.properties[name][1]
    properties = _content_findings(scenario, run, table, content_names, same)
    no_file = table is None
    return [
        _property_case(
            f"content:{name}:{number}",
            scenario,
            what,
            run.problem if no_file else wrong,
            scenario.public,
            run,
            no_file,
            NO_RUN_FILE if no_file or run.problem else "",
        )
        for number, (what, wrong) in enumerate(properties.items())
    ]


def _content_findings(
    scenario: Scenario, run: RunFile, table: list[list[str]] | None, names: list[str], same: bool
) -> dict[str, str | None]:
    """What is wrong with each content property."""
    if same:
        return {**dict.fromkeys(names), **problems.in_search(scenario, run.searches)}
    return problems.in_content(table or [], scenario, run.searches)


def _evaluated(plan: Plan, table: list[list[str]] | None, digest: str) -> dict[str, float]:
    """``evaluate_run``'s aggregates of a run file, kept in the cache under the plan's key and the
    file's digest, so a regrade of the same file evaluates it once (evaluating reads 22,500 lines
    and imports ir_measures and numpy); a plan not from the cache, or a file without a digest, keeps
    nothing."""

    def compute() -> dict[str, float]:
        return evaluate_run(plan.lab, trec.run_of(table or []), plan.qrels, RUN_LABELS, digest)

    if not (plan.key and digest):
        return compute()
    found: dict[str, float] = cache.cached_json(
        "run-evaluation", cache.fingerprint([plan.key, RUN_LABELS, digest]), compute
    )
    return found


def _cranfield_cases(
    plan: Plan, scenario: Scenario, run: RunFile, table: list[list[str]] | None, problem: str | None
) -> list[CaseResult]:
    system = scenario.system
    evaluated = plan.aggregates[system] if run.canonical else _evaluated(plan, table, run.digest)
    found: list[CaseResult] = []
    for label in RUN_LABELS:
        expected = plan.aggregates[system][label]
        value = evaluated[label]
        ok = table is not None and judge.close(value, expected, plan.lab.tolerance)
        notes = plan.lab.cranfield.NOTES_TABLE[system][label]
        message = (
            ""
            if ok
            else (
                problem
                or f"ir_measures gives {value:.6f} on your {system} run, "
                f"the reference run gives {expected:.6f} (notes: {notes})"
            )
        )
        found.append(
            CaseResult(
                id=f"cranfield-run-{system}-{label}",
                description=f"{label} of your {system} run, evaluated by ir_measures",
                public=True,
                status=CaseStatus.PASS if ok else run.status() if table is None else CaseStatus.FAIL,
                message=message,
                call=f"{writer_of(plan.lab)}(path, {system!r}, search_{system}, "
                f"{'iter(queries)' if scenario.once else 'queries'})",
                expected=expected,
                actual=value if table is not None else None,
                raised=run.error if table is None else "",
            )
        )
    return found


def scenario_of(case_id: str, example: str) -> str:
    """The scenario a case of the run writer belongs to (from its id; ``example``: the lab's example
    scenario's name)."""
    if case_id == "notes-two-queries-run":
        return example
    if case_id.startswith("cranfield-run-"):
        return "cranfield-" + case_id.split("-")[2]
    return case_id.split(":")[1] if ":" in case_id else ""


def _error_case(name: str, scenario: Scenario, run: RunFile, writer: str) -> CaseResult:
    """The writer called with arguments the contract refuses: it must raise ``scenario.raises``."""
    refused = {RAISES: scenario.raises}
    if scenario.raises in run.raised:
        return CaseResult(
            id=f"format:{name}",
            description=scenario.description,
            public=scenario.public,
            status=CaseStatus.PASS,
            expected=refused,
        )
    message = (
        f"{run.problem}; expected {scenario.raises}"
        if run.problem
        else f"{writer} returned without an error; expected it to raise {scenario.raises}"
    )
    status = run.status(refused=True)
    return CaseResult(
        id=f"format:{name}",
        description=scenario.description,
        public=scenario.public,
        status=status,
        message=message,
        expected=refused,
        raised=run.error,
    )


def _property_case(
    case_id: str,
    scenario: Scenario,
    what: str,
    wrong: str | None,
    public: bool,
    run: RunFile,
    no_file: bool,
    told: str = "",
) -> CaseResult:
    """A property of the file (``wrong``: None when it holds, else the instructor's words); ``no_file``:
    there is no file to read, and the case's verdict is what became of the call; ``told``: the word of
    the hidden vocabulary a wrong file adds (``WRONG_FORMAT``, ``NO_RUN_FILE``, or "": a wrong answer)."""
    status = (run.status() if no_file else CaseStatus.FAIL) if wrong else CaseStatus.PASS
    raised = run.error if no_file and wrong else ""
    return CaseResult(
        id=case_id,
        description=f"{scenario.description}: {what}",
        public=public,
        status=status,
        message=wrong or "",
        raised=raised,
        told=told if wrong else "",
    )


def _example_case(scenario: Scenario, table: list[list[str]] | None, run: RunFile) -> CaseResult:
    expected = scenario.expected_rows()
    shown = [trec.line(q, d, rank, score, system) for q, _, d, rank, score, system in expected]
    description, _, call = scenario.description.partition(": ")
    if table is None:
        return CaseResult(
            id="notes-two-queries-run",
            description=description,
            public=True,
            status=run.status(),
            message=run.problem or "",
            call=call,
            expected=shown,
            raised=run.error,
        )
    actual = [" ".join(row)[:200] for row in table[:20]]
    good = equivalent(table, scenario)
    message = "" if good else "the file's lines differ from the expected lines"
    return CaseResult(
        id="notes-two-queries-run",
        description=description,
        public=True,
        status=CaseStatus.PASS if good else CaseStatus.FAIL,
        message=message,
        call=call,
        expected=shown,
        actual=actual,
    )
