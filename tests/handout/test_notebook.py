"""The student notebook ``assignment/lab05.ipynb``, executed headless with nbclient.

The notebook runs in a copy of the handout (never in ``assignment/`` itself), in a kernel
started with the interpreter that runs these tests. With the reference solutions in place of
the stubs it must run to the end, pass every ``grader.check``, reproduce the notes' table with
``ir_measures`` and agree with it through the student's own ``evaluate``. With the stubs it must
stop at the first function to implement, and say which one.

Cranfield comes from ir_datasets' cache (``IR_DATASETS_HOME``); when it is unavailable the
full run fails with a message saying so, it is not skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from tests.support import notebook_run

pytestmark = [pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = ROOT / "assignment"
NOTEBOOK = ASSIGNMENT / "lab05.ipynb"
SOLUTIONS = ROOT / "solutions" / "lab05"
GRADED_FILES = ("metrics.py", "runs.py")
QUESTIONS = ("q1", "q2", "q3", "q4", "q5", "q6")
RUN_FILES = {"lab04_tfidf.run", "lab04_bm25.run"}

#: The notes' Part V table, printed truncated to 4 decimals (not rounded).
NOTES_TABLE = {
    "tfidf": {"P@10": 0.2284, "R@100": 0.7006, "RR": 0.5100, "AP": 0.2737, "nDCG@10": 0.3170},
    "bm25": {"P@10": 0.1991, "R@100": 0.6512, "RR": 0.5044, "AP": 0.2405, "nDCG@10": 0.2822},
}

#: Injected before the notebook's first cell: which interpreter and folder the kernel uses.
PROBE_ID = "test-probe-kernel"
PROBE = "import os, sys\nprint(sys.executable)\nprint(sys.prefix)\nprint(os.getcwd())"

CRANFIELD_HELP = (
    "Cranfield is not available to ir_datasets, so the notebook cannot run Part V. Seed the cache "
    "(see the README, 'Cranfield offline': `make test` seeds it from ../shared/cranfield) or set "
    "IR_DATASETS_HOME to a cache that holds cranfield/{docs,queries,qrels}.txt."
)


# --------------------------------------------------------------------------- running the notebook


@dataclass
class Execution:
    notebook: nbformat.NotebookNode  # the executed notebook (outputs filled in up to the error)
    workdir: Path  # the handout copy the kernel ran in
    error: CellExecutionError | None
    new_files: set[str]  # files created in workdir, relative, __pycache__ left out
    outside: set[str]  # files created next to workdir (outside the handout copy)

    def cell(self, cell_id: str) -> nbformat.NotebookNode:
        for cell in self.notebook.cells:
            if cell.get("id") == cell_id:
                return cell
        raise AssertionError(f"the notebook has no cell with id {cell_id!r}")

    def text(self, cell_id: str) -> str:
        """Everything the cell printed (streams) and its text/plain results, in order."""
        return notebook_run.cell_text(self.notebook, cell_id)

    def require_success(self) -> None:
        if self.error is None:
            return
        if self.error.ename == "CranfieldUnavailable":
            pytest.fail(f"{CRANFIELD_HELP}\nThe kernel said: {self.error.evalue}", pytrace=False)
        pytest.fail(f"the notebook failed in cell {_failed_cell(self.notebook)!r}:\n{self.error}", pytrace=False)


def _failed_cell(notebook) -> str | None:
    for cell in notebook.cells:
        if any(output.output_type == "error" for output in cell.get("outputs", [])):
            return cell.get("id")
    return None


def _files(folder: Path) -> set[str]:
    return {
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def execute_handout(base: Path, with_solutions: bool, metrics_suffix: str = "") -> Execution:
    """Copy the handout to ``base/assignment``, optionally drop in the solutions (with
    ``metrics_suffix`` appended to metrics.py), run the notebook."""
    workdir = base / "assignment"
    shutil.copytree(
        ASSIGNMENT,
        workdir,
        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.run", ".ipynb_checkpoints"),
    )
    if with_solutions:
        for name in GRADED_FILES:
            shutil.copyfile(SOLUTIONS / name, workdir / "lab05" / name)
        with open(workdir / "lab05" / "metrics.py", "a", encoding="utf-8") as metrics:
            metrics.write(metrics_suffix)
    kernels_dir = base / "kernels"
    before, outside_before = _files(workdir), _files(base)

    notebook = nbformat.read(workdir / "lab05.ipynb", as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(PROBE, id=PROBE_ID))
    error = notebook_run.execute(notebook, workdir, kernels_dir, sys.executable)
    new_files = _files(workdir) - before
    outside = {name for name in _files(base) - outside_before if not name.startswith(("assignment/", "kernels/"))}
    return Execution(notebook, workdir, error, new_files, outside)


@pytest.fixture(scope="module")
def solved(tmp_path_factory) -> Execution:
    """The notebook run to the end on the handout with the reference solutions."""
    return execute_handout(tmp_path_factory.mktemp("notebook-solved"), with_solutions=True)


#: The solutions with a misconception in AP: dividing by the relevant documents retrieved, not by R.
WRONG_AP = """

_reference_average_precision = average_precision


def average_precision(ranking, judgments, rel=1):
    retrieved = sum(judgments.get(doc, 0) >= rel for doc in ranking)
    total = sum(grade >= rel for grade in judgments.values())
    value = _reference_average_precision(ranking, judgments, rel)
    return value * total / retrieved if retrieved else 0.0
"""


@pytest.fixture(scope="module")
def wrong_ap(tmp_path_factory) -> Execution:
    """The notebook run on the solutions with a wrong average_precision."""
    return execute_handout(tmp_path_factory.mktemp("notebook-wrong-ap"), with_solutions=True, metrics_suffix=WRONG_AP)


# --------------------------------------------------------------------------- the committed file


def test_committed_notebook_is_clean():
    """Is the committed notebook valid, output-free, on kernel python3, with one check per question,
    run by the handout's own checker (tests/checks.py), never by otter?"""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    dirty = [cell.get("id") for cell in code if cell.outputs or cell.execution_count is not None]
    assert not dirty, f"cells with outputs or execution counts (clear them before committing): {dirty}"
    first = code[0].source
    assert 'sys.path.insert(0, "tests")\nfrom checks import grader\n' in first and "%autoreload 2" in first
    assert not re.search(r"^\s*(import|from) otter\b", "\n".join(cell.source for cell in code), re.MULTILINE)
    checks = re.findall(r'grader\.check\("(q\d)"\)', "\n".join(cell.source for cell in code))
    assert tuple(checks) == QUESTIONS


# --------------------------------------------------------------------------- with the solutions


def test_kernel_is_the_tests_interpreter(solved):
    """Did the notebook run on this interpreter (this virtualenv), inside the handout copy?"""
    executable, prefix, cwd = solved.text(PROBE_ID).split("\n")[:3]
    assert executable == sys.executable
    assert prefix == sys.prefix
    assert Path(cwd).resolve() == solved.workdir.resolve()


def test_runs_to_the_end(solved):
    """Does every cell run without error when metrics.py and runs.py are the solutions?"""
    solved.require_success()
    unexecuted = [
        cell.get("id") for cell in solved.notebook.cells if cell.cell_type == "code" and cell.execution_count is None
    ]
    assert not unexecuted, f"cells not executed: {unexecuted}"


def test_every_check_passes(solved):
    """Does every grader.check cell report that all its test cases passed?"""
    solved.require_success()
    for question in QUESTIONS:
        cell = solved.cell(f"check-{question}")
        assert cell.source.strip() == f'grader.check("{question}")'
        results = [output for output in cell.outputs if output.output_type == "execute_result"]
        assert results, f"grader.check({question!r}) showed no result"
        summary = results[0].data["text/plain"]
        assert summary.strip() == f"{question} results: All test cases passed!", summary


def _ir_measures_values(execution: Execution) -> dict[str, dict[str, float]]:
    values: dict[str, dict[str, float]] = {}
    for system, measure, value in re.findall(
        r"^(tfidf|bm25)\s+(\S+)\s+(\d+\.\d{4,})\s*$", execution.text("cranfield-ir-measures"), re.MULTILINE
    ):
        values.setdefault(system, {})[measure] = float(value)
    return values


def test_ir_measures_reproduces_the_notes(solved):
    """Do ir_measures' means of the two runs, truncated to 4 decimals, equal the notes' table?"""
    solved.require_success()
    values = _ir_measures_values(solved)
    assert {system: set(measures) for system, measures in values.items()} == {
        system: set(measures) for system, measures in NOTES_TABLE.items()
    }
    for system, measures in NOTES_TABLE.items():
        for measure, expected in measures.items():
            truncated = int(values[system][measure] * 10_000)
            assert truncated == round(expected * 10_000), (
                f"{system} {measure}: ir_measures gives {values[system][measure]}, the notes {expected:.4f}"
            )


def test_own_evaluate_agrees_with_ir_measures(solved):
    """Do the student's own evaluate means agree with ir_measures to 1e-6 on all ten values?"""
    solved.require_success()
    library = _ir_measures_values(solved)
    text = solved.text("cranfield-own")
    rows = re.findall(
        r"^(tfidf|bm25)\s+(\S+)\s+(\d+\.\d{6,})\s+(\d+\.\d{6,})\s+(agree|DIFFERENT)\s*$", text, re.MULTILINE
    )
    assert len(rows) == 10, text
    for system, measure, theirs, yours, verdict in rows:
        assert float(theirs) == library[system][measure]
        assert abs(float(yours) - float(theirs)) <= 1e-6, f"{system} {measure}: {yours} vs {theirs}"
        assert verdict == "agree"
    assert "all values agree with ir_measures" in text


def test_scatter_is_drawn(solved):
    """Does the per-query AP cell show a PNG image and count the queries of each system?"""
    solved.require_success()
    cell = solved.cell("part6-scatter")
    assert any("image/png" in output.get("data", {}) for output in cell.outputs)
    better = re.search(
        r"BM25 is better on (\d+) queries, TF-IDF on (\d+), and they tie on (\d+)", solved.text("part6-scatter")
    )
    assert better and sum(map(int, better.groups())) == 225


def test_top10_lists_of_the_two_most_different_queries(solved):
    """Are the two queries of largest_differences shown, each with ten ranks of both systems?"""
    solved.require_success()
    text = solved.text("part6-top10-lists")
    listed = re.search(r"differ most in AP: \['(\d+)', '(\d+)'\]", text)
    assert listed, text
    shown = re.findall(r"^query (\d+): ", text, re.MULTILINE)
    assert shown == list(listed.groups())
    ranks = re.findall(r"^\s*(\d+)\s+\d+\s+(?:-?\d|\.)\s.*\s\d+\s+(?:-?\d|\.)\s", text, re.MULTILINE)
    assert ranks == [str(rank) for rank in range(1, 11)] * 2, text


def test_analysis_facts_hold_against_the_data(solved, cranfield):
    """Does the cell "analysis-facts" print, for the two most different queries, claims in
    analysis.yml's format that the grader reads and finds true against the data?"""
    from autograder.grading.analysis import claims, facts

    solved.require_success()
    text = solved.text("analysis-facts")
    known = facts.Facts.from_bundle(cranfield)
    verdicts = facts.check(claims.parse(text, known.names()), known)
    listed = re.search(r"differ most in AP: \['(\d+)', '(\d+)'\]", solved.text("part6-top10-lists"))
    assert listed, text
    assert [verdict.query for verdict in verdicts] == list(listed.groups()), text
    assert all(verdict.holds for verdict in verdicts), [verdict.problems for verdict in verdicts]


def test_part6_says_the_ap_agrees_with_ir_measures(solved):
    """With a right AP, does Part VI say so for both runs, and warn of nothing?"""
    solved.require_success()
    cell = solved.cell("part6-ap")
    assert {output.get("name") for output in cell.outputs} == {"stdout"}
    assert solved.text("part6-ap").splitlines() == [
        f"{system}: your AP agrees with ir_measures on all 225 queries" for system in ("tfidf", "bm25")
    ]


def test_part6_warns_when_the_ap_differs_from_ir_measures(wrong_ap):
    """With a wrong AP, does Part VI warn visibly (on stderr) for both runs, naming a query and both
    values, before it plots that AP?"""
    wrong_ap.require_success()
    warnings = "".join(output.text for output in wrong_ap.cell("part6-ap").outputs if output.get("name") == "stderr")
    found = re.findall(
        r"WARNING: your AP differs from ir_measures' on (\d+) of 225 queries of (tfidf|bm25) "
        r"\(query (\d+): yours ([\d.]+), ir_measures ([\d.]+)\)\. The plot and the comparison below use your AP",
        warnings,
    )
    assert [system for _, system, *_ in found] == ["tfidf", "bm25"], warnings
    for count, _, _, yours, theirs in found:
        assert 0 < int(count) <= 225 and float(yours) > float(theirs), warnings
    assert "fix average_precision (Part III) or evaluate (Part V) first" in warnings
    assert "DIFFERENT" in wrong_ap.text("cranfield-own")


def test_failing_checks_show_only_their_message(wrong_ap):
    """Does a failing grader.check show the failed cases only, after a line counting them and the
    passed ones, each with its own message (no traceback, no source line of a test file)?"""
    wrong_ap.require_success()
    cell = wrong_ap.cell("check-q3")
    outputs = [output for output in cell.outputs if output.output_type == "execute_result"]
    text, html = outputs[0].data["text/plain"], outputs[0].data["text/html"]
    assert "Traceback" not in text and "raise " not in text and "Traceback" not in html, text
    failed = re.findall(r"❌ Test case failed\n\s*(.*)\n", text + "\n")
    assert failed, text
    count = re.search(r"\A(q3 results:)\n\s*(\d+) of (\d+) cases failed, (\d+) passed; the failed ones:\n", text)
    assert count and int(count[2]) == len(failed) and int(count[3]) == int(count[2]) + int(count[4]), text
    assert "Test case passed" not in text and "Test case passed" not in html and f"{count[2]} of " in html, text
    for message in failed:
        assert message.startswith("average_precision(") and " returned " in message and "Hint: AP " in message, text
    assert "q1 results: All test cases passed!" in wrong_ap.text("check-q1")


def test_writes_only_the_two_run_files(solved):
    """Does the notebook write nothing but the two .run files in its folder (no checker's log)?"""
    solved.require_success()
    assert solved.new_files == RUN_FILES, solved.new_files
    assert not solved.outside, f"written outside the handout folder: {solved.outside}"


# --------------------------------------------------------------------------- with the stubs


def test_stubs_stop_at_the_first_function_to_implement(tmp_path):
    """With the untouched stubs, does the notebook stop at the first call and name confusion_matrix?"""
    execution = execute_handout(tmp_path, with_solutions=False)
    assert execution.error is not None, "the notebook ran to the end on the stubs"
    assert execution.error.ename == "NotImplementedError", str(execution.error)
    assert _failed_cell(execution.notebook) == "part2-accuracy"
    message = str(execution.error)
    assert "confusion_matrix is not implemented yet" in message, message
    assert "lab05/metrics.py" in message, message
    assert not execution.new_files, execution.new_files


def test_is_the_kernel_gone_once_the_notebook_ran(tmp_path):
    """Does a notebook run leave no kernel behind (nbclient keeps alive a kernel whose manager it
    was handed; three were found alive ten minutes after their tests)?"""
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell("import os\nprint(os.getpid())", id="pid"))
    assert notebook_run.execute(notebook, tmp_path, tmp_path / "kernels", sys.executable) is None
    pid = int(notebook_run.cell_text(notebook, "pid"))
    assert pid != os.getpid() and not Path(f"/proc/{pid}").exists()
