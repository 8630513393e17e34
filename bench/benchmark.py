"""Performance figures of the grader, measured side by side in one run on this machine.

    .venv/bin/python bench/benchmark.py [--submissions 300] [--repetitions 10] [--quick | --smoke]
                                        [--json FILE] [--container | --worst | --similarity]

Prints, section by section (``--json FILE`` also writes every figure, by section, as JSON):
1. single: one full submission graded by `python -m autograder grade` (all checks, all of
   Cranfield): wall time cold (empty cache) and warm, median and p95 over the repetitions;
2. batch: N synthetic submissions (correct, buggy, slow, crashing, hostile) at --jobs 1 and
   --jobs 2: wall time, submissions per minute, peak memory of the process tree, and the time
   the grader spent per submission;
3. otter: the same correct submission graded by `otter run` with an otter suite doing the
   equivalent checks (public checks plus all of Cranfield), and, in the same repetitions, by a
   warm `grade` alone and inside a --jobs 2 batch of correct submissions: the two ratios
   (targets: 10x and 20x). Says so, and gives no ratio, where `otter run` is unavailable;
   sections 1 and 3 each print the top items of a cProfile of one warm grade, by cumulative
   time, so that a regression shows where it came from;
4. overhead: the sandbox's own cost: a submission whose functions return at once, graded
   with the sandbox (auto) and with --isolation none, per submission inside a batch and as a
   whole command, sandboxed and bare batches in turn: the sandbox's share, the median of each
   run's paired ratio (target: under 30% more than none; ``--overhead`` runs this section alone);
5. retrieval: the given retrieval (Lab 04): index build and 225 queries, TF-IDF and BM25;
6. similarity: the class report's code similarity over N synthetic submissions, step by step,
   with one and two processes (``--similarity`` runs this section alone).
--quick: 30 submissions, 3 repetitions. --smoke: every section once, on the fewest submissions
that run its code (a batch of 2, batches of 1 in sections 3 and 4, 12 for the similarity):
`make test` runs it (tests/project/test_benchmark.py) so that the script cannot rot; it checks
that every section produced figures, never what they are.
With --container (as root): only run_autograder in a simulated Gradescope root (bench/container.py).
With --worst: only what the worst submissions cost the grader (bench/worst_case.py).
With --shards N [--full-rubric]: only a class of --submissions graded as one batch and as N shards
merged, step by step, and whether the merge equals the batch (bench/shards_batch.py).
With --hostile-files [--checkout DIR]: only what the alias bomb in submission_metadata.yml costs the
grader, beside a clean metadata file (bench/hostile_metadata.py; DIR: another checkout's grader).
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import similarity_batch
from measure import PYTHON, child_times, environment, execution_times, grade_command, grades, median, p95, run
from otter_suite import Otter

from autograder.labkit import load

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab.spec import FUNCTIONS
from tests.support import buggy, subs

#: How many submissions make the batch that a submission is timed inside (section 3), and the
#: batch of instant submissions (section 4), by mode.
SMALL_BATCH = {"full": 10, "quick": 6, "smoke": 1}


# ---------------------------------------------------------------- 1. one submission


def one_submission(work: Path, repetitions: int) -> dict:
    submission = subs.write(work / "one" / "correct", {})
    grade = grade_command(submission, work / "one-out")
    cold = []
    for number in range(repetitions):
        cache = work / f"cold-cache-{number}"
        cold.append(run(grade, environment(cache))[0])
        shutil.rmtree(cache)
    warm_cache = work / "warm-cache"
    run(grade, environment(warm_cache))
    warm = [run(grade, environment(warm_cache))[0] for _ in range(repetitions)]
    return {"cold": cold, "warm": warm, "profile": warm_profile(work, grade, warm_cache)}


#: What only starts the run (the interpreter, runpy, the command line): never a top item.
WRAPPERS = ("runpy", "<frozen", "<string>", "{built-in method builtins.exec}", "autograder/cli.py", "__main__.py")
PROFILE_TOP = 8


def warm_profile(work: Path, grade: list[str], cache: Path, top: int = PROFILE_TOP) -> list[list]:
    """The top ``top`` items of a cProfile of one warm ``grade`` (the grading process; its children
    appear as the time spent waiting for them), by cumulative time: ``[function, cumulative s, own
    s, calls]`` each. A function that is all but one call of another (95% of its time or more) stands
    for it: the profile names where the time goes, not each wrapper around it."""
    stats_file = work / "warm.prof"
    run([grade[0], "-m", "cProfile", "-o", str(stats_file), *grade[1:]], environment(cache))
    stats = pstats.Stats(str(stats_file)).stats  # type: ignore[attr-defined]
    wrappers = set()
    for _, (_, _, _, cumulative, callers) in stats.items():
        wrappers.update(caller for caller in callers if cumulative >= 0.95 * stats[caller][3])
    rows = []
    for function, (_, calls, own, cumulative, _) in stats.items():
        file, line, name = function
        where = f"{file}:{line}({name})" if line else name
        if function in wrappers or any(wrapper in where for wrapper in WRAPPERS):
            continue
        rows.append([where.replace(str(ROOT) + "/", "").replace(sys.prefix + "/", ""), cumulative, own, calls])
    rows.sort(key=lambda row: (-row[1], row[0]))
    return rows[:top]


def print_profile(rows: list[list], where: str) -> None:
    print(f"   where a warm grade's time goes ({where}; cProfile, top {len(rows)} by cumulative time):")
    for function, cumulative, own, calls in rows:
        print(f"     {cumulative:6.2f} s cumulative {own:6.2f} s own {calls:7d} calls  {function}")


# ---------------------------------------------------------------- 2. a batch

HOSTILE = {
    "infinite-loop": ("metrics.py", "def reciprocal_rank(ranking, judgments, rel=1):\n    while True:\n        pass\n"),
    "crash": ("metrics.py", "import os as _os\ndef largest_differences(a, b, n=2):\n    _os._exit(1)\n"),
    "memory-bomb": ("metrics.py", "def recall_at_k(ranking, judgments, k, rel=1):\n    x = bytearray(8 << 30)\n"),
    "output-flood": (
        "metrics.py",
        "import sys as _sys\n_ref = precision_at_k\n"
        "def precision_at_k(ranking, judgments, k, rel=1):\n"
        "    _sys.stdout.write('x' * 100000)\n    return _ref(ranking, judgments, k, rel)\n",
    ),
}
SLOW = (
    "metrics.py",
    "import time as _time\n_ref = average_precision\n"
    "def average_precision(ranking, judgments, rel=1):\n"
    "    _time.sleep(0.002)\n    return _ref(ranking, judgments, rel)\n",
)
SYNTAX = ("metrics.py", subs.SOLUTION["metrics.py"].replace("def accuracy(", "def accuracy((", 1))


def make_mix(folder: Path, count: int, seed: int = 5) -> dict:
    """``count`` submissions: 70% correct (three styles), 20% buggy, 4% slow, 3% crashing
    (syntax error, os._exit), 3% hostile (infinite loop, memory bomb, output flood)."""
    rng = random.Random(seed)
    kinds = {}
    variants = [{}] + [{file: subs.with_function(file, source)} for file, source in buggy.VARIANTS.values()]
    for number in range(count):
        draw = rng.random()
        name = f"s{number:04d}"
        if draw < 0.70:
            kind, files = "correct", rng.choice(variants)
        elif draw < 0.90:
            bug = rng.choice(buggy.BUGS)
            kind, files = "buggy", {bug.file: subs.with_function(bug.file, bug.source)}
        elif draw < 0.94:
            kind, files = "slow", {SLOW[0]: subs.with_function(*SLOW)}
        elif draw < 0.97:
            kind = "crashing"
            files = (
                dict([SYNTAX]) if rng.random() < 0.5 else {HOSTILE["crash"][0]: subs.with_function(*HOSTILE["crash"])}
            )
        else:
            kind = "hostile"
            file, source = HOSTILE[rng.choice(["infinite-loop", "memory-bomb", "output-flood"])]
            files = {file: subs.with_function(file, source)}
        subs.write(folder / name, files)
        kinds[name] = kind
    return kinds


def batch(work: Path, count: int, jobs: int, cache: Path) -> dict:
    folder = work / f"mix-{count}"
    if not folder.exists():
        (work / "kinds.json").write_text(json.dumps(make_mix(folder, count)))
    kinds = json.loads((work / "kinds.json").read_text())
    out = work / f"mix-out-{jobs}"
    seconds, peak, _ = run(grade_command(folder, out, jobs), environment(cache), memory=True)
    times: dict[str, list] = {}
    for grade in grades(out):
        times.setdefault(kinds[grade["submission"]], []).append(grade["execution_time"])
    every = [value for values in times.values() for value in values]
    return {
        "seconds": seconds,
        "per_minute": len(every) / seconds * 60,
        "peak_mib": peak / 2**20,
        "count": len(every),
        "per_submission": median(every),
        "kinds": {kind: [len(values), median(values)] for kind, values in sorted(times.items())},
    }


# ---------------------------------------------------------------- 3. otter, alone and in a batch


def correct_batch(folder: Path, count: int) -> Path:
    """``count`` correct submissions (the reference and the correct variants, in turn)."""
    variants = [{}] + [{file: subs.with_function(file, source)} for file, source in buggy.VARIANTS.values()]
    for number in range(count):
        subs.write(folder / f"c{number:03d}", variants[number % len(variants)])
    return folder


def otter_versus_ours(work: Path, repetitions: int, cache: Path, size: int) -> dict:
    """In each repetition, one after the other: `otter run`, a warm `grade` of the same
    submission, and a --jobs 2 batch of ``size`` correct submissions (its median per submission)."""
    otter = Otter(work, cache, subs.SOLUTION)
    single = grade_command(work / "one" / "correct", work / "ours-out")
    folder = correct_batch(work / "correct-batch", size)
    in_batch = grade_command(folder, work / "correct-batch-out", jobs=2)
    run(single, environment(cache))  # warm
    figures: dict = {"otter": [], "single": [], "in_batch": [], "batch_wall_per_submission": []}
    for _ in range(repetitions):
        if not otter.unavailable:
            figures["otter"].append(otter.time())
        figures["single"].append(run(single, environment(cache))[0])
        seconds = run(in_batch, environment(cache))[0]
        figures["in_batch"].append(median(execution_times(work / "correct-batch-out")))
        figures["batch_wall_per_submission"].append(seconds / size)
    figures["unavailable"], figures["otter_score"], figures["batch_size"] = otter.unavailable, otter.score, size
    figures["profile"] = warm_profile(work, single, cache)
    if not otter.unavailable:
        figures["ratio_single"] = median(figures["otter"]) / median(figures["single"])
        figures["ratio_in_batch"] = median(figures["otter"]) / median(figures["in_batch"])
    return figures


# ---------------------------------------------------------------- 4. the sandbox's overhead

_DEFAULTS = {
    "confusion_matrix": "(0, 0, 0, 0)",
    "evaluate": "{}",
    "largest_differences": "[]",
}
INSTANT = {
    "metrics.py": "".join(
        f"def {name}(*args, **kwargs):\n    return {_DEFAULTS.get(name, '0.0')}\n\n\n"
        for name, file in FUNCTIONS.items()
        if file == "metrics.py"
    ),
    "runs.py": "def write_run(path, system_name, search_fn, queries, k=100):\n    open(path, 'w').close()\n",
}


def sandbox_overhead(work: Path, repetitions: int, cache: Path, size: int) -> dict:
    """Submissions whose functions return at once, graded with the sandbox (auto) and with
    --isolation none, in turn: the median seconds per submission inside a --jobs 1 batch of
    ``size`` (all of the grader's work: the children, judging, diagnosing, writing), of its
    children alone (starting them, the calls, the channel), and of the whole command for one."""
    folder = work / "instant"
    for number in range(size):
        subs.write(folder / f"i{number:03d}", INSTANT)
    figures: dict = {}
    for mode in ("auto", "none"):  # once, untimed: the cache and the sandbox's self-test warm for both
        run(grade_command(folder / "i000", work / f"instant-warm-{mode}", isolation=mode), environment(cache))
    for _ in range(repetitions):
        for mode in ("auto", "none"):
            out = work / f"instant-out-{mode}"
            run(grade_command(folder, out, isolation=mode), environment(cache))
            figures.setdefault(f"{mode}_per_submission", []).append(median(execution_times(out)))
            figures.setdefault(f"{mode}_children", []).append(median(child_times(out)))
            one = grade_command(folder / "i000", work / f"instant-one-{mode}", isolation=mode)
            figures.setdefault(f"{mode}_command", []).append(run(one, environment(cache))[0])
    for measured in ("per_submission", "children", "command"):
        # each run's sandboxed figure over the bare one run just after it: a paired ratio, so that a
        # shared machine's load, which changes from minute to minute, counts on both sides alike
        paired = [a / b - 1 for a, b in zip(figures[f"auto_{measured}"], figures[f"none_{measured}"]) if b > 0]
        figures[f"overhead_{measured}"] = median(paired)
        figures[f"overhead_{measured}_range"] = [min(paired), max(paired)]
    return figures


# ---------------------------------------------------------------- 5. retrieval

RETRIEVAL = """
import json, sys, time
sys.path.insert(0, {handout!r})
started = time.perf_counter()
from lab05 import data, retrieval
queries = data.load_queries()
figures = {{"load": time.perf_counter() - started}}
for name, index, search in [("tfidf", retrieval._tfidf_index, retrieval.search_tfidf),
                            ("bm25", lambda: retrieval._bm25_index(retrieval.whitespace_tokenize),
                             retrieval.search_bm25)]:
    started = time.perf_counter()
    index()
    figures[name + " index"] = time.perf_counter() - started
    started = time.perf_counter()
    for query in queries:
        search(query.text, 100)
    figures[name + " 225 queries"] = time.perf_counter() - started
print(json.dumps(figures))
"""


def retrieval_figures() -> dict:
    from autograder import paths

    _, _, done = run([PYTHON, "-c", RETRIEVAL.format(handout=str(paths.HANDOUT))])
    return json.loads(done.stdout)


# ---------------------------------------------------------------- printing


def print_single(single: dict, repetitions: int) -> None:
    print(f"1. One full submission, `python -m autograder grade` wall time ({repetitions} runs each):")
    for name in ("cold", "warm"):
        print(f"   {name:5} median {median(single[name]):6.2f} s   p95 {p95(single[name]):6.2f} s")
    print_profile(single["profile"], "the warm grade above")


def print_batch(rows: dict, count: int) -> None:
    print(f"\n2. Batch of {count} synthetic submissions (70% correct, 20% buggy, 4% slow, 3% crashing, 3% hostile):")
    for jobs, row in rows.items():
        print(
            f"   --jobs {jobs}: {row['seconds']:6.1f} s, {row['per_minute']:6.1f} submissions/min, peak memory of "
            f"the process tree {row['peak_mib']:6.0f} MiB; the grader's time per submission: median "
            f"{row['per_submission']:.2f} s"
        )
    kinds = rows["2"]["kinds"]
    each = ", ".join(f"{kind} {count} x {seconds:.2f} s" for kind, (count, seconds) in kinds.items())
    print(f"   per kind at --jobs 2 (count x median seconds): {each}")


def print_otter(versus: dict, repetitions: int) -> None:
    print(f"\n3. The same correct submission, public checks plus all of Cranfield ({repetitions} runs each, in turn):")
    if versus["unavailable"]:
        print(f"   otter run: UNAVAILABLE, no ratio to otter: {versus['unavailable']}")
    else:
        print(
            f"   otter run:                     median {median(versus['otter']):6.2f} s   "
            f"p95 {p95(versus['otter']):6.2f} s   (otter's score {versus['otter_score']})"
        )
    print(
        f"   autograder grade, warm, alone: median {median(versus['single']):6.2f} s   "
        f"p95 {p95(versus['single']):6.2f} s   (the whole command; every check: also hidden, random and "
        "run-file checks, in a sandbox)"
    )
    print(
        f"   one submission in a --jobs 2 batch of {versus['batch_size']}: median {median(versus['in_batch']):6.2f} s"
        f" (the grader's time for it; the batch's wall time / {versus['batch_size']}: "
        f"{median(versus['batch_wall_per_submission']):.2f} s)"
    )
    if not versus["unavailable"]:
        print(
            f"   ratios: alone {versus['ratio_single']:.1f}x faster than otter (target 10x); in a batch "
            f"{versus['ratio_in_batch']:.1f}x (target 20x)"
        )
    print_profile(versus["profile"], "the warm grade alone, after these runs")


def print_overhead(overhead: dict, repetitions: int) -> None:
    print(f"\n4. The sandbox's own cost: functions that return at once ({repetitions} runs each, in turn):")
    rows = (
        ("per_submission", "per submission, --jobs 1 batch"),
        ("children", "its children alone"),
        ("command", "the whole command, one"),
    )
    for measured, label in rows:
        sandboxed, bare = median(overhead[f"auto_{measured}"]), median(overhead[f"none_{measured}"])
        low, high = overhead[f"overhead_{measured}_range"]
        print(
            f"   {label:32} sandbox {sandboxed:5.2f} s, --isolation none {bare:5.2f} s: the sandbox adds "
            f"{overhead[f'overhead_{measured}']:.0%} (median of the runs' paired ratios, from "
            f"{low:.0%} to {high:.0%}; target < 30%)"
        )


def print_retrieval(figures: dict) -> None:
    print("\n5. The given retrieval (Lab 04), in a fresh interpreter:")
    print(f"   loading Cranfield {figures['load']:.2f} s")
    for name in ("tfidf", "bm25"):
        index, queries = figures[name + " index"], figures[name + " 225 queries"]
        print(f"   {name:6} index {index:5.2f} s, 225 queries {queries:5.2f} s")


def bytecode() -> None:
    """The grader's bytecode written first, as `make demo` and `make test` do: where
    PYTHONDONTWRITEBYTECODE is set, every run would otherwise compile its modules afresh."""
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "autograder")], check=True)
    where = "set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "not set"
    print(f"the grader's bytecode: compiled first (make's bytecode step; PYTHONDONTWRITEBYTECODE is {where} here)\n")


def measure_all(work: Path, args, mode: str) -> dict:
    figures: dict = {}
    single = figures["single"] = one_submission(work, args.repetitions)
    print_single(single, args.repetitions)
    cache = work / "warm-cache"
    rows = figures["batch"] = {str(jobs): batch(work, args.submissions, jobs, cache) for jobs in (1, 2)}
    print_batch(rows, args.submissions)
    versus = figures["otter"] = otter_versus_ours(work, args.repetitions, cache, SMALL_BATCH[mode])
    print_otter(versus, args.repetitions)
    overhead = figures["overhead"] = sandbox_overhead(work, args.repetitions, cache, SMALL_BATCH[mode])
    print_overhead(overhead, args.repetitions)
    figures["retrieval"] = retrieval_figures()
    print_retrieval(figures["retrieval"])
    figures["similarity"] = similarity_batch.report(work, args.similarity_submissions, args.repetitions)
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="3 repetitions and 30 submissions")
    parser.add_argument("--smoke", action="store_true", help="every section once, on a handful of submissions")
    parser.add_argument("--json", type=Path, help="also write every figure, by section, to this file")
    parser.add_argument("--container", action="store_true", help="only run_autograder's time and memory (as root)")
    parser.add_argument("--worst", action="store_true", help="only what the worst submissions cost the grader")
    parser.add_argument("--similarity", action="store_true", help="only section 6, the class report's code similarity")
    parser.add_argument("--overhead", action="store_true", help="only section 4, the sandbox's own cost")
    parser.add_argument("--shards", type=int, default=0, help="only a class graded as one batch and as N shards merged")
    parser.add_argument("--full-rubric", action="store_true", help="with --shards: every check, Cranfield's included")
    parser.add_argument(
        "--hostile-files", action="store_true", help="only what a hostile submission_metadata.yml costs the grader"
    )
    parser.add_argument("--checkout", type=Path, default=None, help="with --hostile-files: the grader of this checkout")
    args = parser.parse_args(argv)
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    if mode != "full":
        args.submissions, args.repetitions = {"smoke": (2, 1), "quick": (30, 3)}[mode]
    args.similarity_submissions = 12 if args.smoke else args.submissions
    work = Path(tempfile.mkdtemp(prefix="lab05-bench-"))
    try:
        if args.container:
            import container

            container.container_report(work, args.repetitions)
            return 0
        if args.hostile_files:
            import hostile_metadata as hostile

            hostile.report(work, checkout=(args.checkout or hostile.ROOT).resolve())
            return 0
        if args.shards:
            import shards_batch

            figures = shards_batch.report(work, max(args.submissions, 32), args.shards, full=args.full_rubric)
            if args.json:
                args.json.write_text(json.dumps({"shards": figures}, indent=1, sort_keys=True))
            return 0
        if args.overhead:
            overhead = sandbox_overhead(work, args.repetitions, work / "cache", SMALL_BATCH[mode])
            print_overhead(overhead, args.repetitions)
            if args.json:
                args.json.write_text(json.dumps({"overhead": overhead}, indent=1, sort_keys=True))
            return 0
        if args.worst:
            import worst_case

            worst_case.report(work, min(args.repetitions, 3))
            return 0
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; work in {work}")
        bytecode()
        if args.similarity:
            repetitions = 5 if mode == "full" else args.repetitions
            figures = {"similarity": similarity_batch.report(work, args.similarity_submissions, repetitions)}
        else:
            figures = measure_all(work, args, mode)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1, sort_keys=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
