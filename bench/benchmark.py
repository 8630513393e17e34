"""Performance figures of the grader, measured side by side in one run on this machine.

    .venv/bin/python bench/benchmark.py [--submissions 300] [--repetitions 10] [--quick] [--similarity]

Prints:
1. one full submission graded by `python -m autograder grade` (all checks, all of Cranfield):
   wall time cold (empty reference cache) and warm, median and p95 over the repetitions, and
   the time spent per submission inside a batch (the command's start-up amortised);
2. batch throughput: N synthetic submissions (correct, buggy, slow, crashing, hostile) at
   --jobs 1 and --jobs 2: wall time, submissions per minute, peak memory of the process tree;
3. the same correct submission graded by `otter run` with an otter test suite doing the
   equivalent checks (the public checks plus all of Cranfield), beside ours, as a ratio;
4. the given retrieval: index build and 225 queries, TF-IDF and BM25;
5. the class report's code similarity over N synthetic submissions, step by step, with one and
   two processes (``--similarity`` runs this section alone, 5 repetitions by default).
With --container (as root) it prints only: run_autograder in a simulated Gradescope root on the
solutions, jailed and as the unprivileged user: wall time and peak memory (the grader's own,
its largest child's, and the whole process tree's), the figures grading.yml's memory_mb rests on.
With --worst: only what the worst submissions cost the grader (bench/worst_case.py).
With --hostile-files [--checkout DIR]: only what the alias bomb in submission_metadata.yml costs the
grader, beside a clean metadata file (bench/hostile_metadata.py; DIR: another checkout's grader).
CI does not run this; it takes about ten minutes with the defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import buggy
import similarity_batch
import subs

from autograder import paths

PYTHON = sys.executable


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


class TreeMemory:
    """Peak resident memory of a process and all its descendants, sampled every 20 ms; also the
    largest peak (VmHWM) of any one descendant."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.stop = pid, 0, threading.Event()
        self.largest_descendant = 0
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _tree(self):
        children: dict[int, list[int]] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
                    children.setdefault(int(fields[1]), []).append(int(entry.name))
                except (OSError, IndexError, ValueError):
                    pass
        found, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo += children.get(pid, [])
        return found

    def _sample(self):
        while not self.stop.is_set():
            total = 0
            for pid in self._tree():
                try:
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1]) * 1024
                        elif line.startswith("VmHWM:") and pid != self.pid:
                            self.largest_descendant = max(self.largest_descendant, int(line.split()[1]) * 1024)
                except OSError:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.02)

    def finish(self) -> int:
        self.stop.set()
        self.thread.join()
        return self.peak


def run(command, env=None, cwd=None, memory=False) -> tuple[float, int, subprocess.CompletedProcess]:
    """Wall time (and, if asked, peak memory of the process tree, sampled) of one command."""
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeMemory(process.pid) if memory else None
    out, err = process.communicate()
    peak = sampler.finish() if sampler else 0
    seconds = time.monotonic() - started
    done = subprocess.CompletedProcess(command, process.returncode, out, err)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{err[-2000:]}")
    return seconds, peak, done


def environment(cache: Path) -> dict:
    return {**os.environ, "LAB05_CACHE": str(cache)}


# ---------------------------------------------------------------- 1. one submission


def one_submission(work: Path, repetitions: int) -> dict:
    submission = subs.write(work / "one" / "correct", {})
    grade = [
        PYTHON,
        "-m",
        "autograder",
        "grade",
        str(submission),
        "--out",
        str(work / "one-out"),
        "--force",
        "--jobs",
        "1",
    ]
    cold = []
    for number in range(repetitions):
        cache = work / f"cold-cache-{number}"
        cold.append(run(grade, environment(cache))[0])
        shutil.rmtree(cache)
    warm_cache = work / "warm-cache"
    run(grade, environment(warm_cache))
    warm = [run(grade, environment(warm_cache))[0] for _ in range(repetitions)]
    return {"cold": cold, "warm": warm, "cache": warm_cache}


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


def kinds_summary(folder: Path, grades) -> dict:
    """Per kind of submission: how many, and their median grading time."""
    kinds = json.loads((folder.parent / "kinds.json").read_text())
    times: dict[str, list] = {}
    for grade in grades:
        times.setdefault(kinds[grade["submission"]], []).append(grade["execution_time"])
    return {kind: (len(values), statistics.median(values)) for kind, values in sorted(times.items())}


def batch(work: Path, count: int, jobs: int, cache: Path) -> dict:
    folder = work / f"mix-{count}"
    if not folder.exists():
        (work / "kinds.json").write_text(json.dumps(make_mix(folder, count)))
    out = work / f"mix-out-{jobs}"
    seconds, peak, _ = run(
        [PYTHON, "-m", "autograder", "grade", str(folder), "--out", str(out), "--force", "--jobs", str(jobs)],
        environment(cache),
        memory=True,
    )
    grades = [json.loads(path.read_text()) for path in out.glob("*/grade.json")]
    return {
        "seconds": seconds,
        "peak": peak,
        "count": len(grades),
        "per_submission": statistics.median(g["execution_time"] for g in grades),
        "kinds": kinds_summary(folder, grades),
    }


# ---------------------------------------------------------------- 3. otter

OTTER_PUBLIC = """
OK_FORMAT = False
from otter.test_files import test_case
import math, sys
sys.path.insert(0, {handout_tests!r})
from public_cases import CASES
name = "public"

def _close(a, e):
    if isinstance(e, (list, tuple)):
        return len(a) == len(e) and all(_close(x, y) for x, y in zip(a, e))
    if isinstance(e, dict):
        return set(a) == set(e) and all(_close(a[k], e[k]) for k in e)
    return abs(float(a) - float(e)) <= 1e-6

@test_case(points=35)
def test_public(env):
    import os, tempfile
    for case in CASES:
        function = env[case.function]
        if case.function == "write_run":
            path = os.path.join(tempfile.mkdtemp(), "demo.run")
            function(path, *case.args[1:], **case.kwargs)
            rows = [line.split() for line in open(path)]
            assert [r[2] for r in rows] == [e[2] for e in case.expected], case.id
        else:
            assert _close(function(*case.args, **case.kwargs), case.expected), case.id
"""

OTTER_CRANFIELD = """
OK_FORMAT = False
from otter.test_files import test_case
import json
name = "cranfield"
BUNDLE = json.load(open({bundle!r}))
SPECS = {specs!r}

@test_case(points=30)
def test_per_query(env):
    wrong = 0
    for system in ("tfidf", "bm25"):
        rankings = BUNDLE["systems"][system]["rankings"]
        for label, (function, kwargs) in SPECS.items():
            expected = BUNDLE["systems"][system]["values"][label]
            for query_id, judgments in BUNDLE["qrels"].items():
                value = env[function](rankings.get(query_id, []), judgments, **kwargs)
                wrong += abs(value - expected[query_id]) > 1e-6
    assert wrong == 0, wrong

@test_case(points=35)
def test_runs(env):
    import os, tempfile, collections
    import ir_measures
    Query = collections.namedtuple("GenericQuery", ["query_id", "text"])
    queries = [Query(q, t) for q, t in BUNDLE["queries"]]
    texts = dict(BUNDLE["queries"])
    for system in ("tfidf", "bm25"):
        hits = {{texts[q]: [(d, BUNDLE["titles"].get(d, ""), s) for d, s in h]
                for q, h in BUNDLE["systems"][system]["results"].items()}}
        path = os.path.join(tempfile.mkdtemp(), system + ".run")
        env["write_run"](path, system, lambda text, k: hits[text][:k], queries, k=100)
        run = list(ir_measures.read_trec_run(path))
        names = ("P(rel=1)@10", "R(rel=1)@100", "RR(rel=1)", "AP(rel=1)", "nDCG@10")
        measures = [ir_measures.parse_measure(m) for m in names]
        scores = ir_measures.calc_aggregate(measures, BUNDLE["qrels"], run)
        for measure, label in zip(measures, ("P@10", "R@100", "RR", "AP", "nDCG@10")):
            assert abs(scores[measure] - BUNDLE["systems"][system]["aggregates"][label]) < 1e-6, (system, label)
"""


def otter_zip(work: Path, bundle_path: Path) -> Path:
    from autograder.lab import measures

    specs = {label: (spec.function, dict(spec.kwargs)) for label, spec in measures.CRANFIELD.items()}
    path = work / "otter-autograder.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("otter_config.json", json.dumps({"lang": "python", "zips": False, "pdf": False}))
        archive.writestr("tests/public.py", OTTER_PUBLIC.format(handout_tests=str(paths.HANDOUT / "tests")))
        archive.writestr("tests/cranfield.py", OTTER_CRANFIELD.format(bundle=str(bundle_path), specs=specs))
    return path


def otter_versus_ours(work: Path, repetitions: int, cache: Path) -> dict:
    from autograder.lab import cranfield

    bundle_path = work / "bundle.json"
    os.environ["LAB05_CACHE"] = str(cache)
    bundle_path.write_text(json.dumps(cranfield.bundle()))
    script = work / "otter" / "submission.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(
        subs.SOLUTION["metrics.py"].replace("from __future__ import annotations\n", "")
        + "\n"
        + subs.SOLUTION["runs.py"].replace("from __future__ import annotations\n", "")
    )
    archive = otter_zip(work, bundle_path)
    (work / "otter-out").mkdir(exist_ok=True)
    otter = [
        str(Path(PYTHON).parent / "otter"),
        "run",
        "-a",
        str(archive),
        "-o",
        str(work / "otter-out"),
        "--no-logo",
        str(script),
    ]
    run(otter, environment(cache))
    otter_times = [run(otter, environment(cache))[0] for _ in range(repetitions)]
    result = json.loads((work / "otter-out" / "results.json").read_text())
    ours_submission = work / "one" / "correct"
    ours = [
        PYTHON,
        "-m",
        "autograder",
        "grade",
        str(ours_submission),
        "--out",
        str(work / "ours-out"),
        "--force",
        "--jobs",
        "1",
    ]
    ours_times = [run(ours, environment(cache))[0] for _ in range(repetitions)]
    score = sum(test.get("score", 0) for test in result["tests"])
    return {"otter": otter_times, "ours": ours_times, "otter_score": f"{score:g}/100"}


# ---------------------------------------------------------------- 4. retrieval

RETRIEVAL = textwrap.dedent("""
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
""")


def retrieval_figures() -> dict:
    _, _, done = run([PYTHON, "-c", RETRIEVAL.format(handout=str(paths.HANDOUT))])
    return json.loads(done.stdout)


# ---------------------------------------------------------------- report


# ---------------------------------------------------------------- run_autograder's memory


PEAK = re.compile(r"peak memory of the grader: (\d+) MiB")


def container_figures(work: Path, repetitions: int) -> dict:
    """run_autograder on the solutions in a simulated /autograder (autograder.zip unpacked and
    setup.sh run, installing skipped): seconds and peaks, per isolation."""
    from conftest import build_dist

    root = work / "autograder-root"
    source = root / "source"
    source.mkdir(parents=True)
    with zipfile.ZipFile(build_dist(work / "dist")["autograder"]) as archive:
        archive.extractall(source)
        for info in archive.infolist():
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    subprocess.run(
        ["bash", str(source / "setup.sh")],
        check=True,
        timeout=120,
        env={**os.environ, "AUTOGRADER_ROOT": str(root), "LAB05_SKIP_INSTALL": "1"},
    )
    (root / "submission").mkdir()
    for name, text in subs.SOLUTION.items():
        (root / "submission" / name).write_text(text)
    figures = {}
    for isolation in ("auto", "uid"):
        env = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "IR_DATASETS"))}
        env.update(
            AUTOGRADER_ROOT=str(root),
            LAB05_PYTHON=PYTHON,
            LAB05_CHILD_PYTHON="/usr/bin/python3",
            LAB05_ISOLATION=isolation,
        )
        rows = []
        for _ in range(repetitions):
            started = time.monotonic()
            process = subprocess.Popen(
                ["bash", str(source / "run_autograder")], env=env, cwd="/", stdout=subprocess.PIPE, text=True
            )
            sampler = TreeMemory(process.pid)
            out, _ = process.communicate()
            tree = sampler.finish()
            grader = int(PEAK.search(out).group(1))  # the grader's own VmHWM, printed on its stdout
            rows.append((time.monotonic() - started, grader, sampler.largest_descendant >> 20, tree >> 20))
        figures[isolation] = rows
    return figures


def container_report(work: Path, repetitions: int) -> None:
    figures = container_figures(work, repetitions)
    print(f"run_autograder on the solutions in a simulated Gradescope root ({repetitions} runs each):")
    for isolation, rows in figures.items():
        seconds, grader, child, tree = zip(*rows)
        print(
            f"   --isolation {isolation:4}: median {statistics.median(seconds):5.2f} s; peak memory: grader "
            f"{max(grader)} MiB, largest child {max(child)} MiB, whole tree {max(tree)} MiB (sampled)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="3 repetitions and 30 submissions (a smoke run)")
    parser.add_argument("--container", action="store_true", help="only run_autograder's time and memory (as root)")
    parser.add_argument("--worst", action="store_true", help="only what the worst submissions cost the grader")
    parser.add_argument("--similarity", action="store_true", help="only section 5, the class report's code similarity")
    parser.add_argument(
        "--hostile-files", action="store_true", help="only what a hostile submission_metadata.yml costs the grader"
    )
    parser.add_argument("--checkout", type=Path, default=None, help="with --hostile-files: the grader of this checkout")
    args = parser.parse_args()
    if args.quick:
        args.submissions, args.repetitions = 30, 3
    work = Path(tempfile.mkdtemp(prefix="lab05-bench-"))
    try:
        if args.container:
            container_report(work, args.repetitions)
            return 0
        if args.hostile_files:
            import hostile_metadata as hostile

            hostile.report(work, checkout=(args.checkout or hostile.ROOT).resolve())
            return 0
        if args.worst:
            import worst_case

            worst_case.report(work, min(args.repetitions, 3))
            return 0
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; work in {work}\n")
        if args.similarity:
            similarity_batch.report(work, args.submissions, 5 if args.repetitions == 10 else args.repetitions)
            return 0
        single = one_submission(work, args.repetitions)
        print(f"1. One full submission, `python -m autograder grade` wall time ({args.repetitions} runs each):")
        for name in ("cold", "warm"):
            values = single[name]
            print(f"   {name:5} median {statistics.median(values):6.2f} s   p95 {p95(values):6.2f} s")
        rows = {}
        for jobs in (1, 2):
            rows[jobs] = batch(work, args.submissions, jobs, single["cache"])
        print(f"   inside a batch (start-up amortised): median {rows[2]['per_submission']:.2f} s per submission")
        print(
            f"\n2. Batch of {args.submissions} synthetic submissions "
            "(70% correct, 20% buggy, 4% slow, 3% crashing, 3% hostile):"
        )
        for jobs, row in rows.items():
            print(
                f"   --jobs {jobs}: {row['seconds']:6.1f} s, {row['count'] / row['seconds'] * 60:6.1f} submissions/min,"
                f" peak memory of the process tree {row['peak'] / 2**20:6.0f} MiB"
            )
        print(
            "   per kind (count, median seconds each, --jobs 2): "
            + ", ".join(f"{kind} {count} x {median:.2f} s" for kind, (count, median) in rows[2]["kinds"].items())
        )
        versus = otter_versus_ours(work, args.repetitions, single["cache"])
        otter, ours = statistics.median(versus["otter"]), statistics.median(versus["ours"])
        print(f"\n3. The same correct submission, public checks plus all of Cranfield ({args.repetitions} runs each):")
        print(
            f"   otter run:        median {otter:6.2f} s   p95 {p95(versus['otter']):6.2f} s   "
            f"(otter's score {versus['otter_score']})"
        )
        print(
            f"   autograder grade: median {ours:6.2f} s   p95 {p95(versus['ours']):6.2f} s   "
            f"(every check: also hidden, random and run-file checks, in a sandbox)"
        )
        print(f"   ratio: ours is {otter / ours:.1f}x faster")
        figures = retrieval_figures()
        print("\n4. The given retrieval (Lab 04), in a fresh interpreter:")
        print(f"   loading Cranfield {figures['load']:.2f} s")
        for name in ("tfidf", "bm25"):
            print(
                f"   {name:6} index {figures[name + ' index']:5.2f} s, "
                f"225 queries {figures[name + ' 225 queries']:5.2f} s"
            )
        similarity_batch.report(work, args.submissions, args.repetitions)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
