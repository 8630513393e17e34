"""How often a failing function is shown a counterexample, and how small it is.

    .venv/bin/python tools/counterexamples.py [--sample N] [--seed S]

Two kinds of wrong code, both trusted and answered in this process as the child answers (never
student code): every form of every misconception of the catalogue (``lab/misconceptions/``; the
run writer's aside: its checks read files, not values) and the reference's single-operator mutants
of metrics.py (``tools/mutants.py``; ``--sample N`` of them). For each function that fails a public
case of one grading's plan, the search (``grading/diagnosis/shrink.py``, as
``grading/counterexamples.py`` drives it in the sandbox) shrinks its smallest failing public case;
a function failing hidden cases only is asked its probes (``counterexamples.probes``: no search
starts from a hidden case) and its smallest wrong probe is shrunk. The table gives, per kind, the
functions failing a public case and those failing hidden cases only, the share of the first shown
a counterexample, how many of the second are, the share of all, the median size of the
counterexamples (documents and judgments) and of the cases they came from, and the median calls
each took. The run writer's are measured in ``tests/grading/test_run_counterexamples.py``;
``tests/grading/test_counterexamples.py`` checks the same in CI.
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.grading import counterexamples
from autograder.grading.diagnosis import shrink
from autograder.labkit.case import Case
from autograder.labkit.load import default as default_lab
from autograder.sandbox.channel import Outcome, OutcomeStatus
from autograder.sandbox.child import harness
from autograder.sandbox.child.values import encode

CALL_SECONDS = 2.0  # a call that runs longer is a timeout, as the sandbox's limit makes it
SEED = "counterexamples"  # the grading whose random cases are drawn


class _Late(BaseException):
    pass


def _late(signum, frame):
    raise _Late


@dataclass
class Searched:
    kind: str  # "catalogue" or "mutants"
    label: str  # the misconception's form or the mutant
    function: str
    start: int  # the size of the case it started from
    found: shrink.Shrunk | None
    hidden_only: bool = False  # it fails hidden cases only: no search may start from one


def answer(functions: dict, function: str, args: list, kwargs: dict, tables: dict) -> Outcome:
    """One call answered by trusted code, as the child answers it (its value encoded, its error's classes)."""
    context: dict = {}
    previous = signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        built = [harness.resolve(_table(arg, tables), context) for arg in args]
        value = encode(functions[function](*built, **kwargs))
    except _Late:
        return Outcome(OutcomeStatus.TIMEOUT, detail=f"over {CALL_SECONDS} s")
    except (Exception, RecursionError) as error:  # what the code raised is its answer
        mro = [cls.__name__ for cls in type(error).__mro__ if cls.__module__ == "builtins"]
        return Outcome(OutcomeStatus.ERROR, error={"type": type(error).__name__, "mro": mro, "message": str(error)})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(OutcomeStatus.VALUE, value=value)


def _table(arg, tables: dict):
    if isinstance(arg, dict) and set(arg) == {"$ref"}:
        return tables[arg["$ref"][0]][arg["$ref"][1]]
    return arg


def search(plan, submission, functions: dict, only: set, kind: str, label: str) -> list[Searched]:
    """Each function of ``only`` that fails a public case, answered by ``functions``, searched."""
    tables, lab = plan.shared_job["tables"], plan.lab
    outcomes: list[Outcome | None] = [None] * len(submission.calls)
    hidden_failures = set()  # the functions failing a hidden case (answered here, never searched from)
    for planned in submission.planned:
        case = planned.case
        if case.function not in only or lab.records[case.function].writes_run_file:
            continue
        outcome = answer(functions, case.function, list(case.args), case.kwargs, tables)
        if counterexamples.public(planned, submission):
            outcomes[planned.call] = outcome
        elif shrink.failure(outcome, planned.expected, lab.records[case.function].returns, lab.tolerance):
            hidden_failures.add(case.function)
    found = []
    for function, (_, start) in counterexamples.starts(plan, submission, outcomes).items():

        def ask(case: Case, function=function) -> Outcome:
            return answer(functions, function, list(case.args), dict(case.kwargs), tables)

        result = shrink.run(start, shrink.Reference(plan.lab, function), ask)
        found.append(Searched(kind, label, function, shrink.size(start), result))
    searched = {row.function for row in found}
    probed = counterexamples.probes(plan, submission, searched)
    for name in sorted(hidden_failures - searched):
        reference = shrink.Reference(lab, name)

        def ask(case: Case, function=name) -> Outcome:
            return answer(functions, function, list(case.args), dict(case.kwargs), tables)

        wrong = [case for case in probed.get(name, []) if _probe_fails(reference, case, ask(case))]
        start = min(wrong, key=shrink.size) if wrong else None
        result = shrink.run(start, reference, ask) if start is not None else None
        found.append(Searched(kind, label, name, shrink.size(start) if start else 0, result, hidden_only=True))
    return found


def _probe_fails(reference, case: Case, outcome: Outcome) -> bool:
    how = reference.failure(case, outcome)
    return how is not None and how.removeprefix("raised ") not in counterexamples.NOT_IMPLEMENTED_ERRORS


def catalogue(plan, submission) -> list[Searched]:
    found = []
    for item in plan.lab.misconceptions.LIBRARY.values():
        for function, forms in item.variants.items():
            if plan.lab.records[function].writes_run_file:
                continue
            for index, form in enumerate(forms if isinstance(forms, tuple) else (forms,)):
                found += search(
                    plan, submission, {function: form}, {function}, "catalogue", f"{item.id}[{function}]{index}"
                )
    return found


def mutants(plan, submission, sample: int, seed: int) -> list[Searched]:
    from tools import mutants as mutation

    generated = mutation.generate("metrics.py")
    if sample:
        generated = sorted(random.Random(seed).sample(generated, min(sample, len(generated))), key=lambda m: m.id)
    calls = [name for name, file in plan.lab.functions.items() if file == "metrics.py"]
    found = []
    for mutant in generated:
        try:
            functions = mutation.load(mutant.source, f"mutant_{mutant.id}")
        except Exception:  # a mutant that does not even load
            continue
        found += search(plan, submission, functions, set(calls), "mutants", mutant.id)
    return found


def table(rows: list[Searched]) -> str:
    lines = [
        "           failing functions                       counterexamples (documents and judgments)",
        "kind       public  hidden only  shown  share  hidden shown  of all  median size  median start  median calls"
        "  stopped early",
    ]
    for kind in ("catalogue", "mutants", "all"):
        everything = [row for row in rows if kind in ("all", row.kind)]
        mine = [row for row in everything if not row.hidden_only]
        shown = [row for row in mine if row.found is not None]
        hidden = [row for row in everything if row.hidden_only and row.found is not None]
        if not everything:
            continue
        share, overall = len(shown) / max(len(mine), 1), (len(shown) + len(hidden)) / len(everything)
        every = shown + hidden
        size = statistics.median(shrink.size(row.found.case) for row in every) if every else float("nan")
        start = statistics.median(row.start for row in every) if every else float("nan")
        calls = statistics.median(row.found.calls for row in every) if every else float("nan")
        early = sum(row.found.stopped_early for row in every)
        lines.append(
            f"{kind:<10} {len(mine):>6}  {len(everything) - len(mine):>11}  {len(shown):>5}  {share:5.1%}  "
            f"{len(hidden):>12}  {overall:6.1%}  {size:>11}  {start:>12}  {calls:>12}  {early:>13}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=0, help="search only a random sample of N mutants (0: all)")
    parser.add_argument("--seed", type=int, default=20261206, help="the sample's seed")
    parser.add_argument("--list", action="store_true", help="print every failing function with no counterexample")
    args = parser.parse_args(argv)
    from autograder.grading.session import Session

    started = time.monotonic()
    plan = Session.open(default_lab()).plan
    submission = plan.for_submission(SEED)
    rows = catalogue(plan, submission) + mutants(plan, submission, args.sample, args.seed)
    print(table(rows))
    if args.list:
        for row in rows:
            if row.found is None:
                why = "fails hidden cases only, no probe wrong" if row.hidden_only else "none found"
                print(f"no counterexample ({why}): {row.kind} {row.label} ({row.function})")
    print(f"\n{len(rows)} failing functions searched in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
