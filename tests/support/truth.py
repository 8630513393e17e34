"""The property test's machinery: trusted code graded in this process (``inprocess``), and what
contradicts the diagnoses shown (``premises`` re-checks each against every case of its function)."""

from __future__ import annotations

from types import SimpleNamespace

from autograder import paths
from autograder.grading import inputs, reference, rubric, runfile_checks
from autograder.grading import plan as planning
from autograder.grading.diagnosis import compositions
from autograder.grading.results import DiagnosisKind
from autograder.lab import spec
from autograder.lab.functions.registry import FUNCTIONS as RECORDS
from autograder.lab.functions.registry import run_writer
from autograder.lab.misconceptions import catalogue
from autograder.labkit.load import default as default_lab
from tests.support import premise_runs, premise_shapes, premises
from tests.support.inprocess import answers, grade

WRITER = run_writer()
ORDER = list(DiagnosisKind)  # misconceptions, then the notes' concepts, conditions, shapes


def load(source: str, name: str) -> dict:
    """A graded file's functions, from its source (trusted: the solution, a mutant or a test's row)."""
    namespace: dict = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace


class Grader:
    """One plan and one submission's calls, answered by the reference unless told otherwise."""

    def __init__(self, cranfield, folder):
        self.plan = planning.build(
            default_lab(),
            rubric.load(default_lab().place.rubric, default_lab()),
            reference.load(default_lab()),
            cranfield,
        )
        self.submission = self.plan.for_submission("true-diagnoses")
        self.folder = folder
        self.solution = {
            file: load(paths.solution_file(file).read_text(encoding="utf-8"), f"reference_{file[:-3]}")
            for file in spec.GRADED_FILES
        }
        everything = {**self.solution["metrics.py"], **self.solution["runs.py"]}
        self.right = answers(everything, self.plan, self.submission, folder)

    def answers(self, functions: dict, only) -> list:
        """The calls of the functions ``only`` answered by ``functions``, the others by the reference."""
        return answers(functions, self.plan, self.submission, self.folder, only=set(only), others=self.right)

    def grade(self, outcomes) -> tuple:
        """``(checks, contradictions)``: the checks, scored and diagnosed, and what contradicts them."""
        checks, files = grade(self.plan, self.submission, outcomes)
        return checks, contradictions(self.plan, self.submission, outcomes, checks, files)

    def run(self, functions: dict, only) -> list[str]:
        return self.grade(self.answers(functions, only))[1]


def contradictions(built, submission, outcomes, checks, files) -> list[str]:
    """What contradicts any diagnosis shown, or the order they are shown in."""
    found, shown = [], {}
    for check in checks:
        kinds = [ORDER.index(d.kind) for d in check.diagnoses]
        if kinds != sorted(kinds):
            found.append(f"{check.name}: shown out of order {[d.id for d in check.diagnoses]}")
        for diagnosis in check.diagnoses:
            shown.setdefault(diagnosis.function, {})[diagnosis.id] = diagnosis
    tables = built.shared_job["tables"]
    for function, diagnoses in shown.items():
        cases = (
            _scenarios(built, checks) if function == WRITER else premises.seen(submission.planned, outcomes, function)
        )
        for diagnosis in diagnoses.values():
            if diagnosis.id.startswith(compositions.PREFIX):
                problem = premises.composition(diagnosis, catalogue.PARTS[function], function, cases, tables)
            elif diagnosis.kind == DiagnosisKind.MISCONCEPTION:
                item = catalogue.LIBRARY[diagnosis.id]
                problem = (
                    premises.run_misconception(item, built.scenarios, files)
                    if function == WRITER
                    else premises.misconception(item, function, cases, tables)
                )
            elif function == WRITER and diagnosis.id == "run-line-ends":
                problem = _line_ends(checks, files)
            elif function == WRITER and diagnosis.id in ("run-lines-before", "run-appended"):
                problem = _lines_before(built, diagnosis, files)
            elif function == WRITER and diagnosis.id.startswith(premise_runs.PREFIX):
                problem = premise_runs.run_columns(built, diagnosis, files)
            elif diagnosis.kind in (DiagnosisKind.CONDITION, DiagnosisKind.CONCEPT):
                problem = premises.condition(
                    diagnosis, cases, _features(function, tables)
                ) or premises.names_only_own_parameters(diagnosis)
            elif function == WRITER:
                problem = _run_shape(diagnosis, cases, files)
            else:
                problem = premise_shapes.shape(diagnosis, cases, tables)
            if problem:
                found.append(f"{function}: {diagnosis.id}: {problem}")
    return found


def _line_ends(checks, files) -> str | None:
    """ "the run file's line ends": only the line-end cases fail, and a file's text breaks them."""
    failing = [case.id for check in checks if check.function == WRITER for case in check.cases if not case.passed]
    if not failing or not all(case_id.endswith(":layout") for case_id in failing):
        return f"failing cases other than line ends: {failing[:3]}"
    return None if any(run.layout for run in files.values()) else "no file breaks the line ends"


def _lines_before(built, diagnosis, files) -> str | None:
    """ "lines before the results": every file not byte for byte right is the right file (as trec_eval reads it)
    after some lines; the same lines in each, or (appended) each file starts with the line that was at the path."""
    leading = set()
    for name, run in files.items():
        scenario = built.scenarios.get(name)
        if run.canonical or scenario is None or scenario.raises:
            continue
        right = [line.split() for line in scenario.expected_text().splitlines() if line.split()]
        if run.table is None or len(run.table) <= len(right) or run.table[len(run.table) - len(right) :] != right:
            return f"{name}: its file is not the right lines after others"
        if diagnosis.id == "run-appended" and not run.appended:
            return f"{name}: its file does not start with the line that was at the path"
        leading.add(str(run.table[: len(run.table) - len(right)]))
    if diagnosis.id == "run-lines-before" and len(leading) != 1:
        return f"the lines before the results differ between files: {len(leading)}"
    return None


def _features(function, tables):
    """The features of a case's inputs, computed here from its arguments (a scenario's: its own)."""
    if function == WRITER:
        return lambda case: case.features
    record = RECORDS[function]
    return lambda case: frozenset(
        record.features(tuple(inputs.resolve(arg, tables) for arg in case.case.args), case.case.kwargs)
    )


def _scenarios(built, checks) -> list:
    """The run writer's scenarios as cases: failed when any property of its file failed."""
    failed: dict[str, bool] = {}
    for check in checks:
        for case in check.cases if check.function == WRITER else ():
            name = runfile_checks.scenario_of(case.id, built.lab.scenarios.EXAMPLE)
            if name in built.scenarios:
                failed[name] = failed.get(name, False) or not case.passed
    return [
        SimpleNamespace(
            name=name,
            failed=bad,
            features=built.scenarios[name].all_features(),
            case=SimpleNamespace(label=lambda name=name: built.scenarios[name].description),
        )
        for name, bad in failed.items()
    ]


def _run_shape(diagnosis, scenarios, files) -> str | None:
    """ "raises X on every call whose file is wrong" (or on N of the M such calls)."""
    error = diagnosis.title.split()[1]
    wrong = [s for s in scenarios if s.failed]
    raised = [s for s in wrong if error in files[s.name].raised]
    said = len(wrong) if "every call" in diagnosis.title else int(diagnosis.title.split(" on ")[1].split()[0])
    return None if len(raised) == said >= 2 else f"{len(raised)} of {len(wrong)} raised {error}, {said} said"
