"""The run writer's checks (the function whose record says it writes a run file): the files its
calls wrote, read as trec_eval reads them.

Each scenario's file is checked for the TREC format (six columns, Q0, ranks, order, k, the
system name), for content (the documents, order and scores the search function gave, and how
it was called), and the Cranfield runs are evaluated by ``ir_measures`` against the reference.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autograder.grading import judge
from autograder.grading.results import CaseResult, CaseStatus
from autograder.lab import cranfield, measures
from autograder.lab.functions.registry import run_writer
from autograder.lab.scenarios import EXAMPLE
from autograder.lab.spec import FUNCTIONS, CheckKind
from autograder.labkit import trec
from autograder.sandbox.channel import Outcome, OutcomeStatus

if TYPE_CHECKING:  # a lab without a run writer has no Scenario
    from autograder.lab.scenarios import Scenario

WRITER = run_writer() or "the run writer"  # the function whose checks these are
RUN_LABELS = ("P@10", "R@100", "RR", "AP", "nDCG@10")  # the notes' table
_EVALUATED: dict[str, dict] = {}
MEMO = 1000  # evaluations remembered (a batch of 300 has a few hundred distinct run files at most)


@dataclass(frozen=True)
class RunFile:
    """What a call of the run writer left: the file's rows (None when there is no file, or when it is
    byte for byte the reference writer's, ``canonical``), how search_fn was called, what went wrong."""

    table: list | None
    searches: list
    problem: str | None
    canonical: bool = False  # byte for byte the reference writer's file
    digest: str = ""  # the file's sha256 (when not canonical): the key of its evaluation
    raised: tuple = ()  # the exception's classes, when the writer raised
    failed: CaseStatus | None = None  # the call's verdict when the writer did not return (raised, crashed...)
    error: str = ""  # the exception's class, when the writer raised

    def status(self, refused: bool = False) -> CaseStatus:
        """The verdict on a case of this file when it is missing or wrong: what became of the call when
        the writer did not return, else a wrong file; ``refused``: the case wanted an error (another
        error is then a wrong one, as ``judge.verdict`` says of calls)."""
        if self.failed is None or (refused and self.failed == CaseStatus.ERROR):
            return CaseStatus.FAIL
        return self.failed


def read(outcome: Outcome, canonical: str, limit: int | None = None, imported: bool = True) -> RunFile:
    """The run file a call of the run writer returned (``canonical``: the reference writer's text), its
    first ``limit`` lines at most (more than twice the right file's cannot be right anyway);
    ``imported``: whether runs.py imported."""
    if outcome.status != OutcomeStatus.VALUE:
        status, message = judge.verdict(outcome, None, imported=imported)
        error = (outcome.error or {}) if outcome.status == OutcomeStatus.ERROR else {}
        raised = tuple(error.get("mro", ()))
        return RunFile(None, [], f"{WRITER} {message}", raised=raised, failed=status, error=str(error.get("type", "")))
    value = outcome.value if isinstance(outcome.value, dict) else {}
    if value.get("type") != "runfile":
        return RunFile(None, [], f"{WRITER} returned, but the grader got no run file back")
    if value.get("missing"):
        return RunFile(None, [], f"{WRITER} wrote no file at the path it was given")
    if value.get("too_large"):
        return RunFile(None, [], f"{WRITER} wrote a file larger than 4 MiB (Lab 04's runs take under 1 MiB)")
    text: str = value.pop("text") if isinstance(value.get("text"), str) else ""  # read once, then let go
    searches: list = value["searches"] if isinstance(value.get("searches"), list) else []
    if value.get("not_utf8"):
        return RunFile(trec.rows(text, limit), searches, "the file is not UTF-8 text")
    if text == canonical:  # the common case, checked once at plan time: skip parsing 22,500 lines
        return RunFile(None, searches, None, canonical=True)
    return RunFile(trec.rows(text, limit), searches, None, digest=hashlib.sha256(text.encode()).hexdigest())


def read_all(plan, outcomes: list, unimported: frozenset, scenario_calls: dict) -> dict[str, RunFile]:
    """Each scenario's ``RunFile`` (``unimported``: the graded files that did not import;
    ``scenario_calls``: each scenario's call index in the submission's calls)."""
    imported = FUNCTIONS.get(WRITER) not in unimported
    return {
        name: read(
            outcomes[index], plan.canonical[name], 2 * len(plan.scenarios[name].expected_rows()) + 1000, imported
        )
        for name, index in scenario_calls.items()
    }


# ------------------------------------------------------------------ properties of one file


def _by_query(table):
    grouped: dict[str, list] = {}
    for row in table:
        grouped.setdefault(row[0], []).append(row)
    return grouped


def format_problems(table: list[list[str]], scenario: Scenario) -> dict[str, str | None]:
    """Each TREC format property of the file: None when it holds, else what is wrong (first example)."""
    found: dict[str, str | None] = {}

    def first(rows_, test, message):
        for number, row in rows_:
            if not test(row):
                return f"line {number}: {' '.join(row)[:120]!r} {message}"
        return None

    numbered = list(enumerate(table, start=1))
    found["6 columns on every line"] = first(numbered, lambda r: len(r) == trec.COLUMNS, "does not have 6 columns")
    six = [(n, r) for n, r in numbered if len(r) == trec.COLUMNS]
    found["Q0 in the second column"] = first(six, lambda r: r[1] == "Q0", "has no Q0 in the second column")
    found["a score trec_eval can read in the fifth column"] = first(
        six, lambda r: trec.score(r[4]) is not None, "has no number in the fifth column"
    )
    found[f"system name {scenario.system!r} in the last column"] = first(
        six, lambda r: r[5] == scenario.system, f"does not end with the system name {scenario.system}"
    )
    ranks = scores = duplicates = at_most_k = None
    for query_id, query_rows in _by_query([r for _, r in six]).items():
        if ranks is None and [r[3] for r in query_rows] != [str(i) for i in range(1, len(query_rows) + 1)]:
            ranks = f"query {query_id}: ranks {' '.join(r[3] for r in query_rows[:5])}... are not 1, 2, 3, ..."
        read = [trec.score(r[4]) for r in query_rows]
        values = [value for value in read if value is not None]
        if scores is None and len(values) == len(read) and any(a < b for a, b in itertools.pairwise(values)):
            scores = f"query {query_id}: scores increase down the list ({', '.join(r[4] for r in query_rows[:4])}...)"
        docs = [r[2] for r in query_rows]
        if duplicates is None and len(set(docs)) != len(docs):
            duplicates = f"query {query_id}: a doc id appears twice"
        if at_most_k is None and len(query_rows) > scenario.k:
            at_most_k = f"query {query_id}: {len(query_rows)} lines for k={scenario.k}"
    found["ranks 1, 2, 3, ... within each query"] = ranks
    found["scores non-increasing within each query"] = scores
    found["no doc id twice within a query"] = duplicates
    found["at most k lines per query"] = at_most_k
    return found


def content_problems(table: list[list[str]], scenario: Scenario, searches: list) -> dict[str, str | None]:
    """Does the file hold what the search function returned, in its order, for the queries given?"""
    expected = scenario.expected_rows()
    found: dict[str, str | None] = {}
    order: list[str] = []
    for row in table:
        if row and (not order or order[-1] != row[0]):
            order.append(row[0])
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    found["every query with results, in the order given"] = (
        None
        if order == wanted
        else f"queries appear as {', '.join(order[:8]) or '(none)'}; "
        f"expected {', '.join(wanted[:8])}{'...' if len(wanted) > 8 else ''}"
    )
    got_docs = [(r[0], r[2]) for r in table if len(r) >= 3]
    want_docs = [(row[0], row[2]) for row in expected]
    found["each query's doc ids in the order search_fn returned"] = (
        None if got_docs == want_docs else (_first_difference(got_docs, want_docs))
    )
    scores = None
    for row, want in zip(table, expected):
        value = trec.score(row[4]) if len(row) == trec.COLUMNS else None
        if len(row) == trec.COLUMNS and (row[0], row[2]) == (want[0], want[2]) and not trec.same_score(value, want[4]):
            scores = (
                f"query {want[0]}, doc {want[2]}: score {row[4]} but search_fn gave {want[4]!r} "
                f"(write at least 8 decimals)"
            )
            break
    if got_docs != want_docs and scores is None:
        scores = "cannot compare scores: the doc ids differ (see above)"
    found["scores equal search_fn's to 1e-8"] = scores
    found.update(search_problem(scenario, searches))
    return found


def search_problem(scenario: Scenario, searches: list) -> dict[str, str | None]:
    """Was search_fn called with each query's text and k, in order?"""
    wanted_calls = [[text, scenario.k] for _, text in scenario.queries]
    return {
        "search_fn(query.text, k) called for each query": None
        if searches == wanted_calls
        else (
            f"search_fn was called {len(searches)} times for {len(wanted_calls)} queries"
            + (f"; first call {searches[0]!r}" if searches else "")
        )
    }


def _first_difference(got, want) -> str:
    for index, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"line {index + 1}: query {g[0]} doc {g[1]}, expected query {w[0]} doc {w[1]}"
    return f"{len(got)} result lines, expected {len(want)}"


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


def evaluate_run(run: dict, qrels: dict, labels, digest: str = "") -> dict[str, float]:
    """Aggregates of ``ir_measures`` on ``run`` (memoised by the file's digest: equal files cost once;
    at most ``MEMO`` of them are kept)."""
    import ir_measures

    key = hashlib.sha256(
        (
            repr((tuple(labels), len(qrels), sorted(qrels)[:3]))
            + (digest or repr(sorted((q, sorted(d.items())) for q, d in run.items())))
        ).encode()
    ).hexdigest()
    if len(_EVALUATED) > MEMO:
        _EVALUATED.clear()
    if key not in _EVALUATED:
        specs = {ir_measures.parse_measure(measures.CRANFIELD[label].ir_measure): label for label in labels}
        scores = ir_measures.calc_aggregate(list(specs), qrels, run) if run else {}
        _EVALUATED[key] = {label: float(scores.get(measure, 0.0)) for measure, label in specs.items()}
    return _EVALUATED[key]


# ------------------------------------------------------------------ the checks' cases


def cases(plan, files: dict[str, RunFile]) -> dict[str, list[CaseResult]]:
    """The cases of the run writer's checks, by check name."""
    names = {check.kind: check.name for check in plan.rubric.checks if check.function == WRITER}
    found: dict[str, list[CaseResult]] = {name: [] for name in names.values()}
    for name, scenario in plan.scenarios.items():
        run = files[name]
        table, searches, problem = run.table, run.searches, run.problem
        format_names, content_names = plan.properties[name]
        if run.canonical:
            table = trec.rows(plan.canonical[name]) if name == EXAMPLE else []
        equivalent_file = run.canonical or (table is not None and equivalent(table, scenario))
        if name == EXAMPLE:
            if CheckKind.EXAMPLES in names:
                found[names[CheckKind.EXAMPLES]].append(_example_case(scenario, table, run))
            continue
        public = scenario.public
        if scenario.raises:
            if CheckKind.RUN_FORMAT in names:
                found[names[CheckKind.RUN_FORMAT]].append(_error_case(name, scenario, run))
            continue
        if CheckKind.RUN_FORMAT in names:
            properties = dict.fromkeys(format_names) if equivalent_file else format_problems(table or [], scenario)
            lacking = None if equivalent_file or table is None else lacks(table, scenario)
            for number, (what, wrong) in enumerate(properties.items()):
                if problem and (table is None or what.startswith("6 columns")):
                    wrong = problem
                wrong = wrong or lacking  # a property of lines that are not there holds of nothing
                found[names[CheckKind.RUN_FORMAT]].append(
                    _property_case(f"format:{name}:{number}", scenario, what, wrong, public, run, table is None)
                )
        if table is not None:  # the content and the evaluation read the lines as if Q0 were there
            table = trec.repaired(table)
        if CheckKind.RUN_CONTENT in names:
            properties = (
                {**dict.fromkeys(content_names), **search_problem(scenario, searches)}
                if equivalent_file
                else content_problems(table or [], scenario, searches)
            )
            for number, (what, wrong) in enumerate(properties.items()):
                found[names[CheckKind.RUN_CONTENT]].append(
                    _property_case(
                        f"content:{name}:{number}",
                        scenario,
                        what,
                        problem if table is None else wrong,
                        public,
                        run,
                        table is None,
                    )
                )
        if CheckKind.RUN_CRANFIELD in names and public:
            found[names[CheckKind.RUN_CRANFIELD]].extend(_cranfield_cases(plan, scenario, run, table, problem))
    return found


def _cranfield_cases(plan, scenario, run, table, problem) -> list[CaseResult]:
    system = scenario.system
    evaluated = (
        plan.aggregates[system]
        if run.canonical
        else evaluate_run(trec.run_of(table or []), plan.qrels, RUN_LABELS, run.digest)
    )
    found = []
    for label in RUN_LABELS:
        expected = plan.aggregates[system][label]
        value = evaluated[label]
        ok = table is not None and judge.close(value, expected)
        notes = cranfield.NOTES_TABLE[system][label]
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
                f"cranfield-run-{system}-{label}",
                f"{label} of your {system} run, evaluated by ir_measures",
                True,
                CaseStatus.PASS if ok else run.status() if table is None else CaseStatus.FAIL,
                message,
                f"{WRITER}(path, {system!r}, search_{system}, queries)",
                expected,
                value if table is not None else None,
                raised=run.error if table is None else "",
            )
        )
    return found


def scenario_of(case_id: str) -> str:
    """The scenario a case of the run writer belongs to (from its id)."""
    if case_id == "notes-two-queries-run":
        return EXAMPLE
    if case_id.startswith("cranfield-run-"):
        return "cranfield-" + case_id.split("-")[2]
    return case_id.split(":")[1] if ":" in case_id else ""


def lacks(table: list[list[str]], scenario: Scenario) -> str | None:
    """What the file lacks to be checked at all: a line for every query with results (its format
    properties would hold vacuously of an empty or garbage file), or None."""
    present = {row[0] for row in table if len(row) == trec.COLUMNS}
    wanted = [query_id for query_id, text in scenario.queries if scenario.results[text][: scenario.k]]
    missing = [query_id for query_id in wanted if query_id not in present]
    if not missing:
        return None
    return (
        f"the file has no line of 6 columns for quer{'ies' if len(missing) > 1 else 'y'} "
        f"{', '.join(missing[:5])}{'...' if len(missing) > 5 else ''}: its format cannot be checked on lines "
        "that are not there"
    )


def _error_case(name: str, scenario: Scenario, run: RunFile) -> CaseResult:
    """The writer called with arguments the contract refuses: it must raise ``scenario.raises``."""
    if scenario.raises in run.raised:
        return CaseResult(f"format:{name}", scenario.description, scenario.public, CaseStatus.PASS)
    message = (
        f"{run.problem}; expected {scenario.raises}"
        if run.problem
        else f"{WRITER} returned without an error; expected it to raise {scenario.raises}"
    )
    status = run.status(refused=True)
    return CaseResult(f"format:{name}", scenario.description, scenario.public, status, message, raised=run.error)


def _property_case(case_id, scenario, what, wrong, public, run: RunFile, no_file: bool) -> CaseResult:
    """A property of the file (``wrong``: None when it holds); ``no_file``: there is no file to
    read, and the case's verdict is what became of the call."""
    status = (run.status() if no_file else CaseStatus.FAIL) if wrong else CaseStatus.PASS
    raised = run.error if no_file and wrong else ""
    return CaseResult(case_id, f"{scenario.description}: {what}", public, status, wrong or "", raised=raised)


def _example_case(scenario, table, run: RunFile) -> CaseResult:
    expected = scenario.expected_rows()
    shown = [trec.line(q, d, rank, score, system) for q, _, d, rank, score, system in expected]
    description, _, call = scenario.description.partition(": ")
    if table is None:
        return CaseResult(
            "notes-two-queries-run", description, True, run.status(), run.problem or "", call, shown, raised=run.error
        )
    actual = [" ".join(row)[:200] for row in table[:20]]
    good = equivalent(table, scenario)
    message = "" if good else "the file's lines differ from the expected lines"
    return CaseResult(
        "notes-two-queries-run",
        description,
        True,
        CaseStatus.PASS if good else CaseStatus.FAIL,
        message,
        call,
        shown,
        actual,
    )
