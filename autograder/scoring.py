"""From the child's outcomes to check results: every case judged, every check scored.

A check's score is its points times the share of its cases passed. Cases of calls are judged
by ``compare.verdict``; ``write_run``'s checks read the run files the child returned.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder import compare, cranfield, runfile
from autograder.results import CaseResult, CheckResult
from autograder.sandbox import Outcome

RUN_LABELS = ("P@10", "R@100", "RR", "AP", "nDCG@10")   # the notes' table


def _json(value):
    if isinstance(value, tuple):
        return [_json(item) for item in value]
    if isinstance(value, list):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    return value


def call_case(planned, outcome: Outcome) -> CaseResult:
    """One call's case result; passing Cranfield cases are kept lean (there are thousands)."""
    status, message = compare.verdict(outcome, planned.expected)
    case = planned.case
    if status == "pass" and case.id.startswith("cranfield-"):
        return CaseResult(case.id, "", case.public, status)
    traceback = tuple((outcome.error or {}).get("traceback", ())) if outcome.status == "error" else ()
    return CaseResult(case.id, case.description, case.public, status, message, case.call_text(),
                      _json(planned.expected), compare.plain(outcome.value) if outcome.status == "value" else None,
                      traceback)


@dataclass(frozen=True)
class RunFile:
    """What a write_run call left: the file's rows (None when there is no file, or when it is
    byte for byte the reference writer's, ``canonical``), how search_fn was called, what went wrong."""
    table: list | None
    searches: list
    problem: str | None
    canonical: bool = False      # byte for byte the reference writer's file
    text: str = ""               # the file (when not canonical), the key of its evaluation


def _run_file(outcome: Outcome, canonical: str) -> RunFile:
    status, message = compare.verdict(outcome, None)
    if outcome.status != "value":
        return RunFile(None, [], f"write_run {message}")
    value = outcome.value if isinstance(outcome.value, dict) else {}
    if value.get("type") != "runfile":
        return RunFile(None, [], "write_run returned, but the grader got no run file back")
    if value.get("missing"):
        return RunFile(None, [], "write_run wrote no file at the path it was given")
    if value.get("too_large"):
        return RunFile(None, [], "write_run wrote a file larger than 16 MiB")
    text = value.get("text") if isinstance(value.get("text"), str) else ""
    searches = value.get("searches") if isinstance(value.get("searches"), list) else []
    if value.get("not_utf8"):
        return RunFile(runfile.rows(text), searches, "the file is not UTF-8 text")
    if text == canonical:  # the common case, checked once at plan time: skip parsing 22,500 lines
        return RunFile(None, searches, None, canonical=True)
    return RunFile(runfile.rows(text), searches, None, text=text)


def run_tables(plan, outcomes: list) -> dict:
    """Each write_run scenario's ``RunFile``."""
    return {name: _run_file(outcomes[index], plan.canonical[name]) for name, index in plan.scenario_calls.items()}


def run_cases(plan, tables: dict) -> dict[str, list[CaseResult]]:
    """The cases of write_run's checks, by check name."""
    names = {check.kind: check.name for check in plan.rubric.checks if check.function == "write_run"}
    found: dict[str, list[CaseResult]] = {name: [] for name in names.values()}
    for name, scenario in plan.scenarios.items():
        run = tables[name]
        table, searches, problem = run.table, run.searches, run.problem
        format_names, content_names = plan.properties[name]
        if run.canonical:
            table = runfile.rows(plan.canonical[name]) if name == "notes-two-queries" else []
        equivalent = run.canonical or (table is not None and runfile.equivalent(table, scenario))
        if name == "notes-two-queries":
            if "examples" in names:
                found[names["examples"]].append(_example_case(scenario, table, problem))
            continue
        public = name.startswith("cranfield-")
        if "run_format" in names:
            properties = (dict.fromkeys(format_names) if equivalent
                          else runfile.format_problems(table or [], scenario))
            for number, (what, wrong) in enumerate(properties.items()):
                if problem and (table is None or what.startswith("6 columns")):
                    wrong = problem
                found[names["run_format"]].append(_property_case(f"format-{name}-{number}", scenario, what, wrong,
                                                                 public))
        if "run_content" in names:
            properties = ({**dict.fromkeys(content_names), **runfile.search_problem(scenario, searches)}
                          if equivalent else runfile.content_problems(table or [], scenario, searches))
            for number, (what, wrong) in enumerate(properties.items()):
                found[names["run_content"]].append(_property_case(
                    f"content-{name}-{number}", scenario, what, problem if table is None else wrong, public))
        if "run_cranfield" in names and public:
            system = scenario.system
            evaluated = (plan.aggregates[system] if run.canonical
                         else runfile.evaluate_run(runfile.trec_run(table or []), plan.qrels, RUN_LABELS, run.text))
            for label in RUN_LABELS:
                expected = plan.aggregates[system][label]
                value = evaluated[label]
                ok = table is not None and compare.close(value, expected)
                notes = cranfield.NOTES_TABLE[system][label]
                message = "" if ok else (problem or f"ir_measures gives {value:.6f} on your {system} run, "
                                                    f"the reference run gives {expected:.6f} (notes: {notes})")
                found[names["run_cranfield"]].append(CaseResult(
                    f"cranfield-run-{system}-{label}", f"{label} of your {system} run, evaluated by ir_measures",
                    True, "pass" if ok else "fail", message, f"write_run(path, {system!r}, search_{system}, queries)",
                    expected, value if table is not None else None))
    return found


def _property_case(case_id, scenario, what, wrong, public) -> CaseResult:
    return CaseResult(case_id, f"{scenario.description}: {what}", public, "fail" if wrong else "pass", wrong or "")


def _example_case(scenario, table, problem) -> CaseResult:
    expected = scenario.expected_rows()
    shown = [" ".join(map(str, row[:4])) + f" {row[4]:.8f} {row[5]}" for row in expected]
    description, _, call = scenario.description.partition(": ")
    if table is None:
        return CaseResult("notes-two-queries-run", description, True, "fail", problem, call, shown)
    actual = [" ".join(row) for row in table][:20]
    good = len(table) == len(expected) and all(
        len(row) == 6 and row[:3] == [str(e[0]), e[1], e[2]] and row[3] == str(e[3]) and row[5] == e[5]
        and runfile._score(row[4]) is not None and abs(runfile._score(row[4]) - e[4]) <= runfile.SCORE_TOLERANCE
        for row, e in zip(table, expected))
    message = "" if good else "the file's lines differ from the expected lines"
    return CaseResult("notes-two-queries-run", description, True, "pass" if good else "fail", message, call,
                      shown, actual)


def score_checks(plan, planned_cases: list, outcomes: list, zeroed: dict[str, str],
                 tables: dict) -> tuple[CheckResult, ...]:
    """Every check of the rubric with its cases and score; ``zeroed`` maps a graded file to
    the reason its checks get no credit (e.g. an evaluation library); ``tables`` are the run
    files (``run_tables``)."""
    cases: dict[str, list[CaseResult]] = {}
    for planned in planned_cases:
        cases.setdefault(planned.check, []).append(call_case(planned, outcomes[planned.call]))
    for name, found in run_cases(plan, tables).items():
        cases.setdefault(name, []).extend(found)
    checks = []
    for spec in plan.rubric.checks:
        mine = tuple(cases.get(spec.name, ()))
        passed = sum(case.passed for case in mine)
        score = round(spec.points * passed / len(mine), 4) if mine else 0.0
        note = zeroed.get(spec.file, "")
        checks.append(CheckResult(spec.name, spec.question, spec.function, spec.kind, spec.points,
                                  0.0 if note else score, spec.visibility, mine, note))
    return tuple(checks)
