"""How well the code similarity separates disguised copies from honest pairs.

    .venv/bin/python tools/separation.py SUBMISSION... [--samples N] [--seed S] [--json FILE]

Every SUBMISSION (a folder with ``metrics.py`` and ``runs.py``, flat or in ``lab05/``) must be
correct work written independently of the others. The tool scores

- every honest pair (two different SUBMISSIONs), and
- copies of each SUBMISSION disguised with k of ``evasions.EVASIONS`` (every single one for
  k = 1, then ``--samples`` random choices of k for each larger k, and all of them), each scored
  against its original,

each pair alone in a batch of two (no other submission to discount common code with: the worst
case for an honest pair), and prints per k the lowest copy score beside the highest honest pair
score, and the margin from ``grading.yml``'s threshold on each side.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import evasions

from autograder.labkit import load

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab.spec import GRADED_FILES  # noqa: E402
from autograder.labkit.load import default as default_lab  # noqa: E402
from autograder.similarity import compare as similarity  # noqa: E402

EVERY_PAIR = similarity.SimilaritySettings(threshold=0.0001)


def read(folder: Path) -> dict[str, str]:
    """A submission's graded files (flat, or in ``lab05/``)."""
    inner = folder / "lab05" if (folder / "lab05").is_dir() else folder
    files = {name: (inner / name).read_text(encoding="utf-8") for name in GRADED_FILES if (inner / name).is_file()}
    if not files:
        raise ValueError(f"{folder}: no {' or '.join(GRADED_FILES)} in it (nor in its lab05/ folder)")
    return files


def score(a: dict[str, str], b: dict[str, str]) -> float:
    """The pair's score alone in a batch of two (0.0 when it shares nothing)."""
    found = similarity.analyse({"a": a, "b": b}, EVERY_PAIR, lab=default_lab())
    return found.pairs[0].score if found.pairs else 0.0


def disguised(files: dict[str, str], chosen, keep: frozenset[str], seed: int) -> dict[str, str]:
    return {
        name: evasions.disguise(text, chosen, keep, random.Random(f"{seed}-{name}")) for name, text in files.items()
    }


def choices(samples: int, seed: int) -> dict[int, list[tuple[str, ...]]]:
    """Per strength k, the sets of k evasions tried."""
    names = tuple(evasions.EVASIONS)
    rng = random.Random(seed)
    out = {1: [(name,) for name in names], len(names): [names]}
    for k in range(2, len(names)):
        every = list(itertools.combinations(names, k))
        out[k] = every if len(every) <= samples else rng.sample(every, samples)
    return out


def measure(sources: dict[str, dict[str, str]], samples: int = 6, seed: int = 1) -> dict:
    """The figures: honest pair scores, and per k the copies' scores (with what disguised them)."""
    keep = evasions.handout_names()
    honest = {f"{a} / {b}": score(sources[a], sources[b]) for a, b in itertools.combinations(sorted(sources), 2)}
    copies: dict[int, list] = {}
    for k, sets in sorted(choices(samples, seed).items()):
        for number, chosen in enumerate(sets):
            for name in sorted(sources):
                copy = disguised(sources[name], chosen, keep, seed + number)
                copies.setdefault(k, []).append((score(copy, sources[name]), name, "+".join(chosen)))
    return {"honest": honest, "copies": copies}


def report(figures: dict, threshold: float) -> None:
    honest = figures["honest"]
    top = max(honest.values(), default=0.0)
    worst = max(honest, key=honest.get) if honest else "-"
    print(
        f"honest pairs: {len(honest)}; highest score {top:.3f} ({worst}); "
        f"median {statistics.median(honest.values()):.3f}"
    )
    print(f"threshold {threshold:.2f}: honest margin {threshold - top:+.3f}")
    print(f"{'k':>3} {'copies':>7} {'lowest':>7} {'median':>7} {'margin':>7}  lowest copy")
    for k, rows in sorted(figures["copies"].items()):
        low = min(rows)
        print(
            f"{k:>3} {len(rows):>7} {low[0]:7.3f} {statistics.median(r[0] for r in rows):7.3f} "
            f"{low[0] - threshold:+7.3f}  {low[1]} with {low[2]}"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", nargs="+", type=Path)
    parser.add_argument("--samples", type=int, default=6, help="random sets of k evasions per k (default 6)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write every score to this file")
    args = parser.parse_args(argv)
    sources = {folder.name: read(folder) for folder in args.submissions}
    if len(sources) < 2:
        parser.error("give at least two independently written submissions")
    figures = measure(sources, args.samples, args.seed)
    report(figures, similarity.SimilaritySettings().threshold)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
