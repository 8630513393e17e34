"""Mutation testing of the grader: can every check fail, and does the feedback name the bug?

    .venv/bin/python tools/mutants.py [--sample N] [--seed S] [--jobs J] [--keep DIR]

Every single-operator mutant of the reference solution (``solutions/lab05/metrics.py`` and
``runs.py``), generated with cosmic-ray's operators, is

1. classified in-process (the mutants are the reference's own code): *equivalent* when it gives
   the solution's answers (to the grader's tolerance) on every planned case, the random pools and
   a larger random pool of its own, and the same run files; otherwise the API functions whose
   answers differ are the ones it *affects*;
2. graded, when not equivalent, by the real engine (sandbox and all) as a submission;
3. counted: *killed* (it loses points), *collateral* (it loses points in checks of functions it
   does not affect), *diagnosed* (a diagnosis on a check of a function it affects) and *specific*
   (that diagnosis names a misconception or a separating condition, not only an answer's shape).

The table goes to stdout; ``--keep`` keeps the graded batch. ``tests/grading/test_mutants.py`` runs a
fixed sample of this in CI.
"""

from __future__ import annotations

import argparse
import collections
import copy
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder import paths
from autograder.grading import inputs
from autograder.grading.diagnosis.answers import same
from autograder.labkit import load

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab import cases as lab_cases  # noqa: E402
from autograder.lab import spec  # noqa: E402
from autograder.lab.functions.registry import FUNCTIONS as RECORDS  # noqa: E402
from autograder.labkit import trec  # noqa: E402
from autograder.labkit.load import default as default_lab  # noqa: E402

GenericQuery = collections.namedtuple("GenericQuery", ["query_id", "text"])
EXTRA_RANDOM = 600  # random cases per function beyond the plan's pools, for the equivalence check
SECONDS = 30  # a mutant's whole in-process classification


@dataclass
class Mutant:
    id: str
    file: str
    operator: str
    line: int
    source: str
    affects: tuple = ()  # API functions whose answers differ from the solution's
    problem: str = ""  # why it could not be classified (it does not compile, it hangs)


@dataclass
class Outcome:
    mutant: Mutant
    score: float = 0.0
    lost: dict = field(default_factory=dict)  # function -> points lost
    diagnosed: bool = False
    specific: bool = False

    @property
    def killed(self) -> bool:
        return self.score < 100

    @property
    def collateral(self) -> list:
        return sorted(function for function in self.lost if function not in self.mutant.affects)


# ---------------------------------------------------------------- generating


def generate(file: str) -> list[Mutant]:
    """Every single-operator mutant cosmic-ray's parameterless operators make of a solution file."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.plugins import get_operator, operator_names

    source = paths.solution_file(file).read_text(encoding="utf-8")
    tree = get_ast(source)
    nodes = list(ast_nodes(tree))
    offsets = [0]
    for text in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(text))
    found, seen = [], {source}
    for name in sorted(operator_names()):
        operator_class = get_operator(name)
        if operator_class.arguments():
            continue
        operator = operator_class()
        occurrence = 0
        for node in nodes:
            for index, (start, _end) in enumerate(operator.mutation_positions(node)):
                clone = copy.deepcopy(node, memo={id(node.parent): node.parent})
                new = operator.mutate(clone, index)
                begin = offsets[node.start_pos[0] - 1] + node.start_pos[1]
                end = offsets[node.end_pos[0] - 1] + node.end_pos[1]
                text = "" if new is None else new.get_code(include_prefix=False)
                mutated = source[:begin] + text + source[end:]
                occurrence += 1
                if mutated in seen:
                    continue
                seen.add(mutated)
                short = name.split("/")[-1]
                found.append(Mutant(f"{file[:-3]}-{short}-{occurrence}", file, short, start[0], mutated))
    return found


# ---------------------------------------------------------------- classifying


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def load(source: str, name: str) -> dict:
    """A graded file's functions, from its source (trusted: the solution or a mutant of it)."""
    namespace: dict = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def probe_cases(plan) -> list:
    """Every planned call case, a grading's random cases and more random cases: ``(case, tables)``."""
    rng = random.Random(f"{plan.rubric.random_seed}:mutants")
    found = [planned.case for planned in plan.for_submission("mutants").planned]
    for function in spec.METRIC_FUNCTIONS:
        generate = RECORDS[function].random_cases
        if generate is not None:
            found += generate(rng, EXTRA_RANDOM)
    found += [case for case in lab_cases.EDGE_CASES if case.function in ("confusion_matrix", "accuracy", "dcg_at_k")]
    found += _extra_simple_cases(rng)
    return found


def _extra_simple_cases(rng) -> list:
    """Random cases for the functions without a random check (confusion matrix, accuracy, DCG)."""
    made = []
    pool = [f"d{i}" for i in range(12)]
    for number in range(EXTRA_RANDOM):
        retrieved, relevant = rng.sample(pool, rng.randint(0, 8)), rng.sample(pool, rng.randint(0, 8))
        size = len(set(retrieved) | set(relevant)) + rng.randint(0, 20) or 1
        for function in ("confusion_matrix", "accuracy"):
            made.append(lab_cases.Case(f"x-{function}-{number}", function, "", (retrieved, relevant, size)))
        ranking = rng.sample(pool, rng.randint(0, 10))
        judgments = {doc: rng.choice([-1, 0, 1, 2, 3]) for doc in rng.sample(pool, rng.randint(0, 10))}
        made.append(
            lab_cases.Case(
                f"x-dcg-{number}",
                "dcg_at_k",
                "",
                (ranking, judgments),
                {"k": rng.choice([1, 2, 3, 5, 10]), "gain": rng.choice(["linear", "exp"])},
            )
        )
    return made


def answer(functions: dict, case, tables):
    function = functions.get(case.function)
    if function is None:
        return ("missing",)
    try:
        value = function(*[inputs.resolve(arg, tables) for arg in case.args], **case.kwargs)
    except _Timeout:
        raise
    except BaseException as error:  # a mutant may raise anything
        return ("raises", type(error).__name__)
    return ("value", list(value) if isinstance(value, tuple) else value)


def run_files(functions: dict, plan, folder: Path) -> dict:
    """Each write_run scenario's file as trec_eval reads it (or the error it raised)."""
    write_run = functions.get("write_run")
    found = {}
    for name, scenario in plan.scenarios.items():
        path = folder / f"{name}.run"
        path.unlink(missing_ok=True)
        titles = plan.shared_job["tables"].get("titles", {})

        def search(text, k, scenario=scenario, titles=titles):
            found = scenario.results.get(text, [])
            hits = found if scenario.overfull else found[:k]
            return [(hit[0], hit[1] if len(hit) > 2 else titles.get(hit[0], ""), hit[-1]) for hit in hits]

        queries = [GenericQuery(q, t) for q, t in scenario.queries]
        try:
            write_run(str(path), scenario.system, search, queries, k=scenario.k)
            found[name] = trec.rows(path.read_text(encoding="utf-8")) if path.exists() else ("no file",)
        except _Timeout:
            raise
        except BaseException as error:
            found[name] = ("raises", type(error).__name__)
    return found


def _same_answer(got, want) -> bool:
    try:
        return same(list(got), list(want), tolerance=default_lab().tolerance)
    except (OverflowError, ValueError, TypeError):  # e.g. an int too large to compare as a float
        return False


def _same_run(a, b) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return a == b
    return len(a) == len(b) and all(len(x) == len(y) and all(map(trec.same_column, x, y)) for x, y in zip(a, b))


def classify(mutants: list[Mutant], plan) -> None:
    """Set each mutant's ``affects`` (empty: equivalent) or its ``problem``."""
    tables = plan.shared_job["tables"]
    probes = probe_cases(plan)
    reference = {
        file: load(paths.solution_file(file).read_text(encoding="utf-8"), f"reference_{file[:-3]}")
        for file in spec.GRADED_FILES
    }
    expected = [answer(reference["metrics.py"], case, tables) for case in probes]
    with tempfile.TemporaryDirectory(prefix="lab05-mutants-") as temporary:
        folder = Path(temporary)
        expected_runs = run_files(reference["runs.py"], plan, folder)
        previous = signal.signal(signal.SIGALRM, _alarm)
        try:
            for mutant in mutants:
                signal.setitimer(signal.ITIMER_REAL, SECONDS)
                try:
                    functions = load(mutant.source, f"mutant_{mutant.file[:-3]}")
                    if mutant.file == "runs.py":
                        got = run_files(functions, plan, folder)
                        mutant.affects = (
                            ("write_run",)
                            if any(not _same_run(got[name], expected_runs[name]) for name in expected_runs)
                            else ()
                        )
                    else:
                        differ = {
                            case.function
                            for case, want in zip(probes, expected)
                            if not _same_answer(answer(functions, case, tables), want)
                        }
                        mutant.affects = tuple(sorted(differ))
                except _Timeout:
                    mutant.problem = f"hangs (over {SECONDS} s in-process)"
                    mutant.affects = tuple(spec.FUNCTIONS) if mutant.file == "metrics.py" else ("write_run",)
                except BaseException as error:  # a mutant that does not even load
                    mutant.problem = f"{type(error).__name__}: {error}"[:120]
                    mutant.affects = tuple(f for f, file in spec.FUNCTIONS.items() if file == mutant.file)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- grading


def grade(mutants: list[Mutant], jobs: int, keep: Path | None) -> list[Outcome]:
    """Grade each mutant as a submission (the mutated file plus the solution's other one)."""
    from autograder.grading.results import Diagnosis
    from autograder.local import batch

    with tempfile.TemporaryDirectory(prefix="lab05-mutants-") as temporary:
        folder = keep or Path(temporary)
        inbox = folder / "in"
        for mutant in mutants:
            target = inbox / mutant.id
            target.mkdir(parents=True, exist_ok=True)
            for file in spec.GRADED_FILES:
                text = mutant.source if file == mutant.file else paths.solution_file(file).read_text(encoding="utf-8")
                (target / file).write_text(text, encoding="utf-8")
        rubric = folder / "grading.yml"
        rubric.write_text(_fast_rubric(), encoding="utf-8")
        summary = batch.grade_batch(
            [inbox], folder / "out", jobs=jobs, force=True, progress=False, rubric_path=rubric, lab=default_lab()
        )
    by_id = {result.submission: result for result in summary.results}
    outcomes = []
    for mutant in mutants:
        result = by_id[mutant.id]
        lost: dict[str, float] = {}
        for check in result.checks:
            if check.score < check.max_score:
                lost[check.function] = lost.get(check.function, 0) + check.max_score - check.score
        shown: list[Diagnosis] = [
            d for check in result.checks if check.function in mutant.affects for d in check.diagnoses
        ]
        outcomes.append(
            Outcome(
                mutant,
                result.score,
                lost,
                bool(shown),
                any(getattr(d, "kind", "misconception") in ("misconception", "condition") for d in shown),
            )
        )
    return outcomes


def _fast_rubric() -> str:
    """grading.yml with tight limits: a mutant that loops costs seconds, not minutes."""
    import re

    text = paths.RUBRIC.read_text(encoding="utf-8")
    for key, value in {"call_seconds": 2, "submission_seconds": 22}.items():
        text = re.sub(rf"(\n  {key}: )\S+", rf"\g<1>{value}", text)
    return text


# ---------------------------------------------------------------- the table


def table(all_mutants: list[Mutant], outcomes: list[Outcome]) -> str:
    rows = []
    for file in (*spec.GRADED_FILES, "all"):
        mine = [m for m in all_mutants if file in ("all", m.file)]
        graded = [o for o in outcomes if file in ("all", o.mutant.file)]
        equivalent = sum(1 for m in mine if not m.affects)
        killed = sum(o.killed for o in graded)
        rows.append(
            (
                file,
                len(mine),
                equivalent,
                len(graded),
                killed,
                sum(bool(o.collateral) for o in graded),
                sum(o.diagnosed for o in graded),
                sum(o.specific for o in graded),
            )
        )
    head = ("file", "mutants", "equivalent", "graded", "killed", "collateral", "diagnosed", "specific")
    lines = [" ".join(f"{h:>11}" for h in head)]
    for row in rows:
        file, count, equivalent, graded, killed, collateral, diagnosed, specific = row
        shares = [f"{n} ({100 * n / graded:.0f}%)" if graded else str(n) for n in (killed, diagnosed, specific)]
        values = (file, count, equivalent, graded, shares[0], collateral, shares[1], shares[2])
        lines.append(" ".join(f"{v:>11}" for v in values))
    return "\n".join(lines)


#: the least share of its function's points a mutant must cost (less a rounding error: 3.25 of 13
#: points is a quarter)
QUARTER = 0.25 - 1e-9


def lost_shares(outcomes: list[Outcome]) -> dict[str, tuple[str, float]]:
    """Each mutant that affects one function alone: that function and the share of its points lost."""
    from autograder.grading import rubric as rubrics

    possible: dict[str, float] = {}
    for check in rubrics.load(default_lab().place.rubric, default_lab()).checks:
        possible[check.function] = possible.get(check.function, 0.0) + check.points
    return {
        outcome.mutant.id: (
            outcome.mutant.affects[0],
            outcome.lost.get(outcome.mutant.affects[0], 0.0) / possible[outcome.mutant.affects[0]],
        )
        for outcome in outcomes
        if len(outcome.mutant.affects) == 1
    }


def shares(outcomes: list[Outcome]) -> str:
    """Per function, the share of its points its mutants lose (those that affect it alone):
    min, median, and how many lose less than a quarter (the rubric's target: a bug costs real points)."""
    import statistics

    from autograder.grading import rubric as rubrics

    order = [check.function for check in rubrics.load(default_lab().place.rubric, default_lab()).checks]
    found: dict[str, list[float]] = {}
    for function, share in lost_shares(outcomes).values():
        found.setdefault(function, []).append(share)
    lines = [f"{'function':<20} {'mutants':>8} {'min':>7} {'median':>7} {'below 1/4':>10}"]
    for function in sorted(found, key=order.index):
        values = found[function]
        below = sum(value < QUARTER for value in values)
        lines.append(
            f"{function:<20} {len(values):>8} {min(values):>7.1%} {statistics.median(values):>7.1%} {below:>10}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=0, help="grade a random sample of N non-equivalent mutants")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="keep the graded batch in this folder")
    parser.add_argument("--list", action="store_true", help="print every survivor, collateral and undiagnosed mutant")
    parser.add_argument("--shares", action="store_true", help="also the share of its function's points each loses")
    args = parser.parse_args(argv)
    from autograder.grading.session import Session

    started = time.monotonic()
    plan = Session.open(default_lab()).plan
    mutants = [m for file in spec.GRADED_FILES for m in generate(file)]
    generated = time.monotonic()
    classify(mutants, plan)
    classified = time.monotonic()
    live = [m for m in mutants if m.affects]
    if args.sample:
        live = sorted(random.Random(args.seed).sample(live, min(args.sample, len(live))), key=lambda m: m.id)
    outcomes = grade(live, args.jobs, args.keep)
    print(table(mutants, outcomes))
    if args.shares:
        print("\n" + shares(outcomes))
    print(
        f"\n{len(mutants)} mutants generated in {generated - started:.1f} s, classified in "
        f"{classified - generated:.1f} s, {len(outcomes)} graded in {time.monotonic() - classified:.1f} s"
    )
    if args.list:
        share_of = lost_shares(outcomes)
        for outcome in outcomes:
            mutant = outcome.mutant
            tags = [
                tag
                for tag, on in (
                    ("SURVIVES", not outcome.killed),
                    (f"COLLATERAL {outcome.collateral}", bool(outcome.collateral)),
                    ("UNDIAGNOSED", not outcome.diagnosed),
                    (
                        f"LOSES {share_of.get(mutant.id, ('', 0.0))[1]:.1%} OF ITS FUNCTION'S POINTS",
                        mutant.id in share_of and share_of[mutant.id][1] < QUARTER,
                    ),
                )
                if on
            ]
            if tags:
                print(f"{mutant.id} (line {mutant.line}, affects {', '.join(mutant.affects)}): {'; '.join(tags)}")
                if any(tag.startswith("LOSES") for tag in tags):
                    print("    the mutated line: " + mutant.source.splitlines()[mutant.line - 1].strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
