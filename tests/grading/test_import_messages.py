"""What a student reads when a graded file does not import, for every way an import can fail: the
exception it raised, a timeout, a crash (the process ended, was killed, or wrote garbage)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from autograder.grading import sandbox_report
from autograder.grading.sandbox_report import import_problems
from autograder.labkit.load import default as default_lab
from autograder.sandbox.channel import Outcome, OutcomeStatus, SandboxResult

HINT = "Code at the top level of a file runs when it is imported: keep it to imports and definitions."
NONE = "None of its functions could be graded."


@dataclass(frozen=True)
class Failure:
    id: str
    file: str
    outcome: Outcome
    message: str


FAILURES = [
    Failure(
        "raised-with-traceback",
        "metrics.py",
        Outcome(
            OutcomeStatus.ERROR,
            error={
                "type": "SyntaxError",
                "message": "invalid syntax (metrics.py, line 38)",
                "traceback": ['  File "metrics.py", line 38'],
            },
        ),
        "lab05/metrics.py could not be imported: SyntaxError: invalid syntax (metrics.py, line 38)\n"
        f'  File "metrics.py", line 38\n{NONE}',
    ),
    Failure(
        "raised-nothing-readable",
        "runs.py",
        Outcome(OutcomeStatus.ERROR, error=None),
        f"lab05/runs.py could not be imported: it raised an exception\n{NONE}",
    ),
    Failure(
        "timed-out",
        "metrics.py",
        Outcome(OutcomeStatus.TIMEOUT, detail="took too long"),
        f"lab05/metrics.py could not be imported: importing it did not finish in time (took too long). {HINT} {NONE}",
    ),
    Failure(
        "budget-spent",
        "metrics.py",
        Outcome(OutcomeStatus.TIMEOUT, detail="used up its function's time budget"),
        "lab05/metrics.py could not be imported: importing it did not finish in time (used up its function's time "
        f"budget). {HINT} {NONE}",
    ),
    Failure(
        "process-ended",
        "runs.py",
        Outcome(OutcomeStatus.CRASH, detail="the process ended (exit status 159)"),
        "lab05/runs.py could not be imported: its process stopped while importing it (the process ended (exit status "
        f"159)). {HINT} {NONE}",
    ),
    Failure(
        "killed-with-stderr",
        "metrics.py",
        Outcome(OutcomeStatus.CRASH, detail="the process ended (killed by signal SIGKILL): MemoryError"),
        "lab05/metrics.py could not be imported: its process stopped while importing it (the process ended (killed by "
        f"signal SIGKILL): MemoryError). {HINT} {NONE}",
    ),
    Failure(
        "wrote-garbage",
        "metrics.py",
        Outcome(OutcomeStatus.CRASH, detail="wrote something that is not an answer to the grading channel"),
        "lab05/metrics.py could not be imported: its process stopped while importing it (wrote something that is not "
        f"an answer to the grading channel). {HINT} {NONE}",
    ),
    Failure(
        "crash-without-detail",
        "runs.py",
        Outcome(OutcomeStatus.CRASH),
        f"lab05/runs.py could not be imported: its process stopped while importing it. {HINT} {NONE}",
    ),
]


@pytest.mark.parametrize("case", FAILURES, ids=lambda case: case.id)
def test_import_failure_reads_as_a_sentence(case):
    """Does each way a graded file can fail to import give one readable sentence naming the file,
    how it failed and what the sandbox saw (never "it the process ended")?"""
    other = "runs.py" if case.file == "metrics.py" else "metrics.py"
    result = SandboxResult(outcomes=[], imports={case.file: case.outcome, other: Outcome(OutcomeStatus.OK)})
    assert import_problems(default_lab(), result) == [case.message]


def test_both_files_failing_give_a_sentence_each_in_file_order():
    """When both graded files fail to import, is each told once, metrics.py first?"""
    result = SandboxResult(
        outcomes=[],
        imports={
            "runs.py": Outcome(OutcomeStatus.TIMEOUT, detail="took too long"),
            "metrics.py": Outcome(OutcomeStatus.CRASH, detail="the process ended (exit status 1)"),
        },
    )
    assert [problem.split(" could")[0] for problem in import_problems(default_lab(), result)] == [
        "lab05/metrics.py",
        "lab05/runs.py",
    ]


@pytest.mark.parametrize("case", FAILURES, ids=lambda case: case.id)
def test_does_every_import_failure_reach_the_instructors_flags(case):
    """Does grades.csv's flags column (the result's flags) name the file that did not import,
    whichever way it failed (an exception included, not only crashes and timeouts)?"""
    other = "runs.py" if case.file == "metrics.py" else "metrics.py"
    result = SandboxResult(outcomes=[], imports={case.file: case.outcome, other: Outcome(OutcomeStatus.OK)})
    flags = sandbox_report.flags(default_lab(), result, [])
    assert [str(flag.kind) for flag in flags if case.file in flag.text] == [
        {"error": "unimported"}.get(str(case.outcome.status), str(case.outcome.status))
    ]
    assert not any(other in flag.text for flag in flags)
