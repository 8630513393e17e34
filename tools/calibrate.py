"""Does a misconception cost real points? Per function, the share of its points each known
misconception of the catalogue loses under the rubric's scoring, without a sandbox: the function's
cases are answered as the wrong variant answers them (the run writer: the wrong writer's files),
every other function's as the reference does, and the checks scored as a grading scores them.

    .venv/bin/python tools/calibrate.py [--rubric grading.yml] [--seed S] [--gradings N]

Random cases are drawn afresh at every grading: each misconception is scored over ``--gradings``
draws and its median and minimum share are printed, then per function the minimum and median
over its misconceptions, and how many cost less than a quarter of the function's points. Mutants
of the reference graded in the sandbox: ``tools/mutants.py --shares``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import paths  # noqa: E402
from autograder.grading import plan as planning  # noqa: E402
from autograder.grading import (  # noqa: E402
    reference,
    runfile_checks,
    scoring,
)
from autograder.grading import rubric as rubrics  # noqa: E402
from autograder.grading.diagnosis import answers as diagnosis  # noqa: E402
from autograder.labkit import load  # noqa: E402

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab import cranfield, variants  # noqa: E402
from autograder.lab.functions.registry import run_writer  # noqa: E402
from autograder.lab.misconceptions import catalogue  # noqa: E402
from autograder.labkit.load import default as default_lab  # noqa: E402
from autograder.sandbox.channel import Outcome, OutcomeStatus  # noqa: E402
from autograder.sandbox.child.values import encode  # noqa: E402

QUARTER = 0.25 - 1e-9  # a quarter, less a rounding error (3.25 of 13 points is a quarter)


def _outcome(kind: str, value) -> Outcome:
    if kind == "raises":
        return Outcome(OutcomeStatus.ERROR, error={"type": value, "mro": [value, "Exception"], "message": ""})
    return Outcome(OutcomeStatus.VALUE, value=encode(list(value) if isinstance(value, tuple) else value))


def _right(planned) -> Outcome:
    expected = planned.expected
    if isinstance(expected, dict) and set(expected) == {"raises"}:
        return _outcome("raises", expected["raises"])
    return _outcome("value", expected)


def share_lost(built, submission, item, function: str) -> float:
    """The share of ``function``'s points lost when it answers as ``item``'s variant."""
    tables = built.shared_job["tables"]
    outcomes = [Outcome(OutcomeStatus.NOT_RUN)] * len(submission.calls)
    for planned in submission.planned:
        if planned.case.function == function and function in item.variants:
            forms = item.variants[function]
            variant = forms[-1] if isinstance(forms, tuple) else forms
            outcomes[planned.call] = _outcome(*diagnosis._run(variant, planned.case, tables))
        else:
            outcomes[planned.call] = _right(planned)
    files = {}
    for name, scenario in built.scenarios.items():
        if scenario.raises:  # the right writer refuses these arguments
            files[name] = runfile_checks.read(_outcome("raises", scenario.raises), "", writer=run_writer() or "")
            continue
        rows = variants.rows(scenario)
        if function == run_writer() and function in item.variants:
            candidates = list(item.variants[function](scenario))
            rows = candidates[0] if candidates else rows
        searches = [[text, scenario.k] for _, text in scenario.queries]
        files[name] = runfile_checks.RunFile([list(map(str, row)) for row in rows], searches, None)
    checks = scoring.score_checks(built, submission.planned, outcomes, {}, files)
    mine = [check for check in checks if check.function == function]
    possible = sum(check.max_score for check in mine)
    return (possible - sum(check.score for check in mine)) / possible if possible else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rubric", type=Path, default=paths.RUBRIC)
    parser.add_argument("--seed", default="calibrate")
    parser.add_argument("--gradings", type=int, default=5)
    args = parser.parse_args(argv)
    built = planning.build(
        default_lab(), rubrics.load(args.rubric, lab=default_lab()), reference.load(default_lab()), cranfield.bundle()
    )
    submissions = [built.for_submission(f"{args.seed}-{n}") for n in range(args.gradings)]
    per_function: dict[str, list[float]] = {}
    print(f"{'misconception':<32} {'function':<20} {'median':>7} {'min':>7}")
    for item in catalogue.LIBRARY.values():
        for function in item.variants:
            shares = [share_lost(built, submission, item, function) for submission in submissions]
            median = statistics.median(shares)
            per_function.setdefault(function, []).append(min(shares))
            flag = "  < 1/4" if min(shares) < QUARTER else ""
            print(f"{item.id:<32} {function:<20} {median:>7.1%} {min(shares):>7.1%}{flag}")
    print(f"\n{'function':<20} {'misconceptions':>14} {'min':>7} {'median':>7} {'below 1/4':>10}")
    for function, shares in per_function.items():
        below = sum(share < QUARTER for share in shares)
        print(f"{function:<20} {len(shares):>14} {min(shares):>7.1%} {statistics.median(shares):>7.1%} {below:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
