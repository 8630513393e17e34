"""Section 5 of the benchmark: what the class report's code similarity adds to a batch.

A synthetic class: each submission is the handout's stubs with every body written at random
(statements over the function's parameters, about as many tokens as real solutions), half of
them keeping the stubs' docstrings. Planted among them: full copies (names changed, functions
in the opposite order) and half copies (half of the functions taken from the source). Each
repetition runs ``similarity.analyse`` in a fresh interpreter (so the import and the
per-process hash seed are new), with one and with two tokenizing processes.
"""

from __future__ import annotations

import ast
import json
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

from autograder import paths
from autograder.labkit import load

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab.spec import GRADED_FILES

WORDS = [
    *("total", "count", "hits", "found", "score", "value", "result", "rows", "best", "ideal", "seen", "grade"),
    *("gain", "rank", "acc", "tmp", "items", "docs", "relevant", "retrieved", "wanted", "got", "n", "r", "limit"),
    *("top", "prec", "rec", "out", "data", "step", "pos", "index", "weight", "cutoff", "denom", "numer", "partial"),
    *("running", "bucket", "cells", "level", "ordered", "pairs", "size", "flag", "share"),
]
CALLS = ("len", "sum", "min", "max", "abs", "sorted", "list", "set", "float", "int", "round")
STEPS = ("prepare", "tokenize", "fingerprint", "candidates", "details")


def _expression(rng: random.Random, names: list[str], depth: int = 0) -> str:
    roll = rng.random()
    if depth > 2 or roll < 0.3:
        return rng.choice([*names, str(rng.randint(0, 9)), f"{rng.random():.2f}"])
    if roll < 0.45:
        return f"{rng.choice(CALLS)}({_expression(rng, names, depth + 1)})"
    if roll < 0.55:
        return f"{rng.choice(names)}.get({_expression(rng, names, depth + 1)}, 0)"
    if roll < 0.62:
        return f"{rng.choice(names)}[{_expression(rng, names, depth + 1)}]"
    if roll < 0.7:
        return f"[{_expression(rng, names, depth + 1)} for {rng.choice(WORDS)} in {rng.choice(names)}]"
    operator = rng.choice(("+", "-", "*", "/", "//", "%"))
    return f"({_expression(rng, names, depth + 1)} {operator} {_expression(rng, names, depth + 1)})"


def _block(rng: random.Random, names: list[str], indent: int, depth: int = 0) -> list[str]:
    lines, pad = [], "    " * indent
    for step in range(rng.randint(2, 4) if depth == 0 else rng.randint(1, 2)):
        roll = rng.random() if step else rng.random() * 0.9  # a block never starts with a comment
        if roll < 0.5 or depth > 0:
            name = rng.choice(WORDS)
            lines.append(f"{pad}{name} = {_expression(rng, names)}")
            names = [*names, name]
        elif roll < 0.7:
            loop = rng.choice(WORDS)
            lines.append(f"{pad}for {loop} in {_expression(rng, names)}:")
            lines += _block(rng, [*names, loop], indent + 1, depth + 1)
        elif roll < 0.9:
            comparison = rng.choice(("<", "<=", ">", ">=", "==", "!="))
            lines.append(f"{pad}if {_expression(rng, names)} {comparison} {_expression(rng, names)}:")
            lines += _block(rng, names, indent + 1, depth + 1)
        else:
            lines.append(f"{pad}# {rng.choice(WORDS)} {rng.choice(WORDS)}")
    return lines


_RAISE = re.compile(r"    raise NotImplementedError\(\n.*\n.*\n    \)\n")


def _submission(rng: random.Random) -> dict[str, str]:
    files = {}
    for name in GRADED_FILES:
        stub = paths.handout_file(name).read_text(encoding="utf-8")
        signatures = [node for node in ast.parse(stub).body if isinstance(node, ast.FunctionDef)]
        bodies = []
        for node in signatures:
            parameters = [argument.arg for argument in node.args.args]
            lines = _block(rng, parameters, 1) + (_block(rng, parameters, 1) if rng.random() < 0.5 else [])
            bodies.append("\n".join([*lines, f"    return {_expression(rng, parameters)}"]) + "\n")
        text = _RAISE.sub(lambda _, bodies=bodies: bodies.pop(0), stub)
        files[name] = re.sub(r'\n    """.*?"""\n', "\n", text, flags=re.S) if rng.random() < 0.5 else text
    return files


def _functions(text: str) -> tuple[str, list[str]]:
    head, *functions = re.split(r"(?m)^(?=def )", text)
    return head, [function.rstrip("\n") + "\n\n\n" for function in functions]


def _disguised(files: dict[str, str], rng: random.Random) -> dict[str, str]:
    """A full copy: every name changed, the functions in the opposite order."""
    renamed = {word: f"{word}_{rng.choice('xyz')}" for word in WORDS}
    pattern = re.compile(r"\b(" + "|".join(WORDS) + r")\b")
    copied = {}
    for name, text in files.items():
        head, functions = _functions(pattern.sub(lambda match: renamed[match.group(1)], text))
        copied[name] = head + "".join(reversed(functions))
    return copied


def make_class(count: int, seed: int = 14) -> tuple[dict, list, list]:
    """``count`` submissions; every 50th (from the 8th) is a full copy of the one before it and
    every 50th (from the 14th) a half copy: (submissions, full copies, half copies) as id pairs."""
    rng = random.Random(seed)
    batch: dict[str, dict[str, str]] = {}
    full, half = [], []
    for number in range(count):
        sid, previous = f"s{number:04d}", f"s{number - 1:04d}"
        files = _submission(rng)
        if number % 50 == 7:
            files = _disguised(batch[previous], rng)
            full.append((previous, sid))
        elif number % 50 == 13:
            head, own = _functions(files["metrics.py"])
            _, theirs = _functions(batch[previous]["metrics.py"])
            files["metrics.py"] = head + "".join(theirs[: len(theirs) // 2] + own[len(own) // 2 :])
            half.append((previous, sid))
        batch[sid] = files
    return batch, full, half


_RUN = """
import json, os, sys, time
started = time.perf_counter()
from autograder.similarity import compare as similarity
from autograder.labkit import load
imported = time.perf_counter() - started
batch = json.load(open(sys.argv[1]))
before = os.times()
result = similarity.analyse(batch, jobs=int(sys.argv[2]), exhaustive=sys.argv[3] == "all", lab=load.default())
after = os.times()
cpu = sum(after[:4]) - sum(before[:4])  # user and system, of this process and its workers
print(json.dumps({"import": imported, **result.seconds, "cpu": cpu, "compared": result.candidates,
                  "pairs": [[pair.a, pair.b, pair.score] for pair in result.pairs]}))
"""


def _run(path: Path, jobs: int, exhaustive: bool = False) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(path), str(jobs), "all" if exhaustive else "index"],
        capture_output=True,
        text=True,
        check=True,
        cwd=paths.ROOT,
    )
    figures = json.loads(done.stdout)
    figures["seconds"] = {step: figures.pop(step) for step in STEPS}
    figures["seconds_total"] = sum(figures["seconds"].values())
    return figures


def report(work: Path, count: int, repetitions: int) -> dict:
    """Prints the section; returns its figures."""
    batch, full, half = make_class(count)
    path = work / "similarity-class.json"
    path.write_text(json.dumps(batch))
    runs = {jobs: [_run(path, jobs) for _ in range(repetitions)] for jobs in (1, 2)}
    tokens = statistics.median(len(_code_tokens(files["metrics.py"])) for files in list(batch.values())[:40])
    print(
        f"\n6. Code similarity in the class report: {count} synthetic submissions (median {tokens:.0f} tokens "
        f"in metrics.py; {len(full)} full and {len(half)} half copies planted), median of {repetitions} runs"
        " in fresh interpreters, seconds:"
    )
    print(f"   {'step':32} {'1 process':>10} {'2 processes':>12}")
    figures: dict = {}
    rows = [("import (the analysis' modules)", "import")] + [(step, step) for step in STEPS]
    for label, key in rows:
        values = [
            statistics.median(run[key] if key == "import" else run["seconds"][key] for run in runs[jobs])
            for jobs in (1, 2)
        ]
        figures[key] = values
        print(f"   {label:32} {values[0]:10.2f} {values[1]:12.2f}")
    for label, key in (("total (the analysis)", "seconds_total"), ("CPU seconds (with the workers')", "cpu")):
        values = figures[key] = [statistics.median(run[key] for run in runs[jobs]) for jobs in (1, 2)]
        print(f"   {label:32} {values[0]:10.2f} {values[1]:12.2f}")
    added = figures["added"] = [
        statistics.median(run["seconds_total"] + run["import"] for run in runs[jobs]) for jobs in (1, 2)
    ]
    print(f"   {'added to the batch (with import)':32} {added[0]:10.2f} {added[1]:12.2f}")
    found = {(a, b): score for a, b, score in runs[1][0]["pairs"]}
    print(
        f"   flagged (score >= 0.5): {len(found)} pairs from {runs[1][0]['compared']} candidates; full copies "
        f"found {sum(pair in found for pair in full)}/{len(full)}; half copies found "
        f"{sum(pair in found for pair in half)}/{len(half)}; others {len(set(found) - set(full) - set(half))}"
    )
    subset = dict(list(batch.items())[: min(count, 60)])
    path.write_text(json.dumps(subset))
    fast, every = _run(path, 1), _run(path, 1, exhaustive=True)
    same = [pair[:2] for pair in fast["pairs"]] == [pair[:2] for pair in every["pairs"]]
    figures.update(found=[len(found), sum(pair in found for pair in full), sum(pair in found for pair in half)])
    figures["candidate_search_same"] = same
    print(
        f"   candidate search vs comparing every pair, first {len(subset)} submissions: "
        f"{'the same' if same else 'DIFFERENT'} pairs ({len(fast['pairs'])}), "
        f"{fast['compared']} vs {every['compared']} compared in detail, "
        f"{fast['seconds_total']:.2f} s vs {every['seconds_total']:.2f} s"
    )
    figures["hostile"] = hostile(work, dict(list(batch.items())[:10]), repetitions)
    return figures


_HOSTILE = """
import json, random, sys, time
from autograder.similarity import compare as similarity
from autograder.labkit import load
honest = json.load(open(sys.argv[1]))
kind = sys.argv[2]
if kind == "parentheses":
    extra = {"hostile": {"metrics.py": "x = " + "(" * (1 << 20)}}
elif kind == "binary":
    extra = {f"hostile-{n}": {"metrics.py": random.Random(n).randbytes(1 << 20)} for n in (1, 2)}
elif kind == "longest":
    extra = {f"hostile-{n}": {"metrics.py": "x = " + "(" * (63_000 + n)} for n in (1, 2)}
else:
    extra = {}
started = time.perf_counter()
found = similarity.analyse({**honest, **extra}, lab=load.default())
seconds = time.perf_counter() - started
# VmHWM: this process since its exec (ru_maxrss would count what the benchmark held when it forked)
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(json.dumps({"seconds": seconds, "peak_mib": int(status.split()[0]) / 1024,
                  "left_out": len(getattr(found, "skipped", ()))}))
"""
HOSTILE = {
    "parentheses": "a 1 MiB file of nested parentheses",
    "binary": "two 1 MiB binary files",
    "longest": "two 63,000-character files of parentheses (the longest read)",
}


def hostile(work: Path, batch: dict, repetitions: int = 1) -> dict:
    """What hostile files (issue 17) add to the analysis of ``batch``: seconds and peak memory of
    a fresh interpreter analysing the batch with them, beside the batch alone (medians)."""
    path = work / "similarity-honest.json"
    path.write_text(json.dumps(batch))
    figures = {}
    for kind in ("none", *HOSTILE):
        done = subprocess.run(
            [sys.executable, "-c", _HOSTILE, str(path), kind],
            capture_output=True,
            text=True,
            check=True,
            cwd=paths.ROOT,
        )
        figures[kind] = json.loads(done.stdout)
    base = figures["none"]
    print(
        f"   hostile files added to the analysis of {len(batch)} submissions ({base['seconds']:.2f} s, "
        f"peak {base['peak_mib']:.0f} MiB alone):"
    )
    for kind, label in HOSTILE.items():
        row = figures[kind]
        print(
            f"     {label:60} {row['seconds'] - base['seconds']:+6.2f} s {row['peak_mib'] - base['peak_mib']:+6.0f} MiB"
            f"   ({row['left_out']} file(s) left out, named in the report)"
        )
    return figures


def _code_tokens(text: str) -> list:
    from pygments import lexers

    return list(lexers.get_lexer_by_name("python").get_tokens(text))
