"""The run writer's diagnoses: what explains the files it wrote (in the parent, on trusted code).

A known misconception (``lab.misconceptions.runs``) is named when it explains *every* scenario the
writer was called for: the file it wrote is one of the variant's candidate files (where the variant
writes the right file, the submission must too), search_fn was called as the variant calls it
(``searches``: each call's text and k, as the replayed search function recorded them), and on at
least one scenario the variant is wrong. Then the condition that separates the scenarios whose
files are wrong (their features, ``Scenario.all_features``), and the shape of its failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from autograder.grading import runfile_checks
from autograder.grading.diagnosis import conditions, run_columns, shapes
from autograder.grading.results import CheckResult, Diagnosis, DiagnosisKind, shown_error
from autograder.labkit import trec
from autograder.labkit.lab import Lab

if TYPE_CHECKING:
    from autograder.grading.plan import Plan
    from autograder.labkit.misconception import Misconception
    from autograder.labkit.scenario import Scenario

RIGHT = ("right",)  # the reference writer's file, byte for byte
Rows = list[list[str]]  # a run file's lines, split into columns
#: What a call of the writer left (``left``): its rows, ``RIGHT``, ("raises", classes), ("no file",) or None.
Left = Rows | tuple[str, ...] | tuple[str, tuple[str, ...]] | None
Candidate = Rows | tuple[str, str]  # a file a variant writes, or ("raises", the exception's class)


def left(run: runfile_checks.RunFile) -> Left:
    """What a call of the writer left: its rows, ``RIGHT``, ("raises", classes), ("no file",), or
    None when the call itself was not judged (it hung, crashed or did not run)."""
    if run.canonical:
        return RIGHT
    if run.table is not None:
        return run.table
    if run.failed is not None and not run.failed.judged:
        return None
    if run.failed is not None:
        return ("raises", run.raised)
    return ("no file",)


def right_calls(scenario: Scenario) -> list[list[str | int]]:
    """How the right writer calls search_fn: each query's text, with k."""
    return [[text, scenario.k] for _, text in scenario.queries]


def rows_equal(table: Sequence[Sequence[str]], rows: Sequence[Sequence[str]]) -> bool:
    if len(table) != len(rows):
        return False
    for got, want in zip(table, rows):
        if len(got) != len(want) or not all(trec.same_column(a, b) for a, b in zip(got, want)):
            return False
    return True


def _is(got: Left, candidate: Candidate, right_rows: Rows) -> bool:
    """Is what the writer left the variant's ``candidate`` (rows, or ("raises", class))?"""
    if isinstance(candidate, tuple):
        return isinstance(got, tuple) and got[0] == "raises" and candidate[1] in got[1]
    if got is RIGHT:
        return rows_equal(candidate, right_rows)
    return isinstance(got, list) and rows_equal(got, candidate)


def explains(
    lab: Lab, item: Misconception, scenarios: dict[str, Scenario], files: dict[str, runfile_checks.RunFile]
) -> bool:
    """Does the misconception ``item`` explain every scenario's file and search calls, and is its
    variant wrong on some scenario?"""
    telling = 0
    judged = [(name, left(files[name])) for name in scenarios if name in files]
    for name, got in sorted(judged, key=lambda pair: pair[1] is RIGHT):
        scenario = scenarios[name]
        if got is None or (scenario.raises and not item.arguments):
            continue
        searched = files[name].searches if isinstance(got, list) or got is RIGHT else None  # a raise may stop it
        verdict = _scenario(lab, item, scenario, got, searched)
        if verdict is None:
            return False
        telling += verdict
    return telling >= 1


def _scenario(lab: Lab, item: Misconception, scenario: Scenario, got: Left, searched: list[Any] | None) -> bool | None:
    """None when the variant does not explain what the writer left for ``scenario``; else whether the
    variant is wrong there. Where search_fn returns more than k results, the variant's file of every
    result is one of its candidates too (not cutting at k is a mistake of its own, often made with
    another: the notes' own writer trusts search_fn), but it does not make the variant wrong."""
    writer = runfile_checks.writer_of(lab)
    right_rows: Rows = [] if scenario.raises else lab.variants.rows(scenario)
    right = ("raises", scenario.raises) if scenario.raises else right_rows
    wanted = right_calls(scenario)
    calls = list(item.searches(scenario)) if item.searches else []
    matched = somewhere_right = False
    for index, candidate in enumerate(item.variants[writer](scenario)):  # made one at a time (Cranfield's)
        called = calls[index] if calls else wanted
        matched = matched or (_is(got, candidate, right_rows) and searched in (None, called))
        somewhere_right = somewhere_right or (
            called == wanted
            and (
                candidate == right
                if isinstance(candidate, tuple)
                else bool(right_rows) and rows_equal(candidate, right)
            )
        )
        if matched and somewhere_right:
            break
    if not matched and scenario.overfull:
        uncut = item.variants[writer](replace(scenario, k=lab.variants.UNCUT))
        matched = any(
            _is(got, candidate, right_rows) and searched in (None, calls[index] if calls else wanted)
            for index, candidate in enumerate(uncut)
        )
    return not somewhere_right if matched else None


def diagnose(
    plan: Plan, files: dict[str, runfile_checks.RunFile], checks: Sequence[CheckResult]
) -> dict[str, list[Diagnosis]]:
    """{check: [diagnosis, ...]} of the run writer's checks."""
    found: dict[str, list[Diagnosis]] = {}
    writer = runfile_checks.writer_of(plan.lab)
    run_checks = [check.name for check in plan.rubric.checks if check.function == writer]
    named = False
    for item in plan.lab.misconceptions.for_function(writer):  # the first that explains every file (as for calls)
        if explains(plan.lab, item, plan.scenarios, files):
            for name in run_checks:
                found.setdefault(name, []).append(Diagnosis.of_misconception(item, writer))
            named = True
            break
    failing = any(check.function == writer and not check.full for check in checks)
    columns = _columns(plan, files) if failing and not named else []
    general = _line_ends(plan, checks, files) + _lines_before(plan, files) + columns + _conditions(plan, checks, files)
    general.sort(key=lambda diagnosis: list(DiagnosisKind).index(diagnosis.kind))  # stable: concepts, then shapes
    for check in checks:
        if check.function == writer and not check.full:
            found.setdefault(check.name, []).extend(general)
    return found


def wrong_files(plan: Plan, files: dict[str, runfile_checks.RunFile]) -> list[run_columns.Wrong]:
    """The files the writer wrote that are not the right rows as the checks read them (``equivalent``: the
    columns as trec_eval splits them, scores to 1e-8, ranks as written; for scenarios that want a file),
    the public ones first (the notes' example, then Lab 04's runs), each with what differs."""
    titles = plan.shared_job["tables"].get("titles", {})
    example = plan.lab.scenarios.EXAMPLE
    wrong = []
    for name, run in sorted(files.items(), key=lambda item: (item[0] != example, item[0])):
        scenario = plan.scenarios.get(name)
        if scenario is None or scenario.raises or run.canonical or run.table is None or run.problem:
            continue
        if runfile_checks.equivalent(run.table, scenario):  # as the checks read it: ranks as written
            continue
        where = "the notes' example" if name == example else f"its {scenario.system} run"
        found = run_columns.findings(run.table, scenario, titles)
        tags = frozenset(row[trec.COLUMNS - 1] for row in run.table if len(row) == trec.COLUMNS)
        wrong.append(run_columns.Wrong(name, where, scenario.public, found, tags))
    return sorted(wrong, key=lambda file: not file.public)


def _columns(plan: Plan, files: dict[str, runfile_checks.RunFile]) -> list[Diagnosis]:
    """Which column of its wrong files is wrong, and how, for each kind of difference every one has
    (``run_columns``), with the notes' words on the run file when the lab states them."""
    writer = runfile_checks.writer_of(plan.lab)
    concept = getattr(plan.lab.concepts, "CONCEPTS", {}).get(LINE_ENDS_CONCEPT)
    written = sum(1 for run in files.values() if run.canonical or run.table is not None)
    return run_columns.diagnoses(
        writer,
        wrong_files(plan, files),
        written,
        concept.part if concept is not None else plan.lab.notes_part(writer),
        concept.statement if concept is not None else "",
    )


def _conditions(plan: Plan, checks: Sequence[CheckResult], files: dict[str, runfile_checks.RunFile]) -> list[Diagnosis]:
    """The condition separating the scenarios whose file is wrong from the others, and the shape."""
    writer = runfile_checks.writer_of(plan.lab)
    failed: dict[str, bool] = {}
    for check in checks:
        if check.function != writer:
            continue
        for case in check.cases:
            name = runfile_checks.scenario_of(case.id, plan.lab.scenarios.EXAMPLE)
            if name in plan.scenarios:
                failed[name] = failed.get(name, False) or not case.passed
    judged = [
        (plan.scenarios[name].all_features(), bad, plan.scenarios[name].description)
        for name, bad in sorted(failed.items())
    ]
    found = [condition] if (condition := conditions.diagnosis(plan.lab, writer, judged)) is not None else []
    wrong = [files[name] for name, bad in sorted(failed.items()) if bad and name in files]
    return found + _raises(writer, plan.lab.notes_part(writer), wrong)


LINE_ENDS = "run-line-ends"  # the id of the diagnosis of files whose line ends alone are wrong
LINE_ENDS_CONCEPT = "run-file-format"  # the lab's concept it names, when the lab states it


def _line_ends(plan: Plan, checks: Sequence[CheckResult], files: dict[str, runfile_checks.RunFile]) -> list[Diagnosis]:
    """When the only cases the writer fails are its files' line ends (``trec.layout``): what is wrong with
    them, in the first file, and the notes' concept about the run file."""
    writer = runfile_checks.writer_of(plan.lab)
    failing = [case.id for check in checks if check.function == writer for case in check.cases if not case.passed]
    if not failing or not all(case_id.endswith(":layout") for case_id in failing):
        return []
    wrong = [files[name] for name in sorted(files) if files[name].layout]
    if not wrong:
        return []
    concept = getattr(plan.lab.concepts, "CONCEPTS", {}).get(LINE_ENDS_CONCEPT)
    said = f" What the notes say: {concept.statement}." if concept is not None else ""
    return [
        Diagnosis(
            id=LINE_ENDS,
            function=writer,
            title="the run file's line ends",
            explanation=f"Only the line ends of its files are wrong (trec_eval reads them right): in {len(wrong)} "
            f"of its {len(files)} files, {wrong[0].layout}. Every line ends with \\n, the last one too.{said}",
            notes=concept.part if concept is not None else plan.lab.notes_part(writer),
            kind=DiagnosisKind.CONCEPT,
        )
    ]


LINES_BEFORE = "run-lines-before"  # the id of the diagnosis of files that are right but for lines before them
APPENDED = "run-appended"  # the id of the diagnosis of files that kept the line that was at the path


def lines_before(plan: Plan, files: dict[str, runfile_checks.RunFile]) -> tuple[int, str, bool] | None:
    """When every file that is not the right one is the right rows with lines before them (the same
    lines in each, or the line that was at the path before the call): how many files, the first such
    line, and whether it is the line that was there (the file opened for appending); else None."""
    before: set[tuple[tuple[str, ...], ...]] = set()
    appended = []
    for name, run in sorted(files.items()):
        scenario = plan.scenarios.get(name)
        if run.canonical or scenario is None or scenario.raises:
            continue
        if run.table is None:
            return None
        right_rows = plan.lab.variants.rows(scenario)
        extra = len(run.table) - len(right_rows)
        if extra < 1 or not rows_equal(run.table[extra:], right_rows):
            return None
        before.add(tuple(tuple(row) for row in run.table[:extra]))
        appended.append(run.appended)
    if not appended:
        return None
    if all(appended):
        return len(appended), "", True
    if len(before) != 1 or any(appended):
        return None
    return len(appended), " ".join(next(iter(before))[0]), False


def _lines_before(plan: Plan, files: dict[str, runfile_checks.RunFile]) -> list[Diagnosis]:
    """Files right but for lines before the results: kept from before the call (opened with "a"), or
    the same lines (a header) written before the results in every file; the notes' concept about the
    run file, when the lab states it."""
    found = lines_before(plan, files)
    if found is None:
        return []
    count, first, appended = found
    writer = runfile_checks.writer_of(plan.lab)
    concept = getattr(plan.lab.concepts, "CONCEPTS", {}).get(LINE_ENDS_CONCEPT)
    said = f" What the notes say: {concept.statement}." if concept is not None else ""
    where = f"in {count} of its {len(files)} files"
    if appended:
        title = "the run file opened for appending"
        explanation = (
            f"Its files keep the line that was at the path before the call ({where}), then the right lines: "
            'the file is opened for appending ("a"), so a run written twice holds both. The run file replaces '
            f'any file at the path: open it with "w".{said}'
        )
    else:
        title = "a line before the results in the run file"
        explanation = (
            f"Its files hold the right lines, but {where} the same line comes before them: {first[:80]!r}. "
            f"A run file holds only result lines (trec_eval reads every line as a result).{said}"
        )
    return [
        Diagnosis(
            id=APPENDED if appended else LINES_BEFORE,
            function=writer,
            title=title,
            explanation=explanation,
            notes=concept.part if concept is not None else plan.lab.notes_part(writer),
            kind=DiagnosisKind.CONCEPT,
        )
    ]


def _raises(writer: str, notes: str, wrong: list[runfile_checks.RunFile]) -> list[Diagnosis]:
    """The same exception raised by (nearly) every call whose file is wrong."""
    raised = [shown_error(run.error, run.raised) for run in wrong if run.error]  # named as hidden cases name it
    if len(raised) < shapes.MIN_CASES or len(set(raised)) != 1 or len(raised) < 0.8 * len(wrong):
        return []
    error = raised[0]
    if error in shapes.NOT_A_BUG:
        return []
    every = (
        "every call whose file is wrong"
        if len(raised) == len(wrong)
        else f"{len(raised)} of the {len(wrong)} calls whose file is wrong"
    )
    return [
        Diagnosis(
            id="shape-raises",
            function=writer,
            title=f"raises {error} on {every}",
            explanation=f"{writer} raises {error} on {every}, where the contract asks for a file: its traceback "
            "(in the first failing case) shows where.",
            notes=notes,
            kind=DiagnosisKind.SHAPE,
        )
    ]
