"""Grade rounds of independently written submissions and print what the grader made of each bug.

A round is a folder of submissions (``<id>/lab05/metrics.py``, ``runs.py``) with a
``MANIFEST.json``: ``{id: {"honest": bool, "function": name or null, "bug": "what is wrong"}}``,
written by people who never read this project's tests or misconception catalogue. For each
submission it prints the score, the points its buggy function lost (as a share of that
function's points), and the diagnoses its feedback shows for that function, by kind; then per
round: honest submissions at 100, bugs detected, median and minimum share lost, and how many bugs
got a named misconception, any diagnosis, or none. Whether a diagnosis is *true* is judged by a
person against the manifest: ``--judged FILE`` reads those verdicts (``{id: "true" | "false" |
"none"}``) and counts them.

    .venv/bin/python tools/fresh_rounds.py ROUND_FOLDER... [--out DIR] [--judged FILE] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.labkit.load import default as default_lab  # noqa: E402
from autograder.local import batch  # noqa: E402


def _function_share(result, function: str) -> tuple[float, float]:
    score = sum(check.score for check in result.checks if check.function == function)
    possible = sum(check.max_score for check in result.checks if check.function == function)
    return score, possible


def _diagnoses(result, function: str) -> list[tuple[str, str]]:
    found = {}
    for check in result.checks:
        if check.function == function:
            for item in check.diagnoses:
                found.setdefault(item.id, (str(item.kind), item.title))
    return list(found.values())


def grade_round(folder: Path, out: Path, seed: str) -> list[dict]:
    manifest = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    ids = sorted(name for name in manifest if (folder / name).is_dir())
    summary = batch.grade_batch(
        [folder / name for name in ids], out, progress=False, seed=seed, force=True, lab=default_lab()
    )
    by_id = {result.submission: result for result in summary.results}
    rows = []
    for name in ids:
        entry, result = manifest[name], by_id[name]
        function = entry.get("function")
        row = {
            "id": name,
            "honest": bool(entry.get("honest")),
            "function": function,
            "bug": entry.get("bug"),
            "score": result.score,
        }
        if function:
            score, possible = _function_share(result, function)
            row.update(lost=possible - score, possible=possible, diagnoses=_diagnoses(result, function))
        rows.append(row)
    return rows


def report(rows: list[dict], judged: dict) -> list[str]:
    lines = []
    honest = [row for row in rows if row["honest"]]
    bugs = [row for row in rows if not row["honest"]]
    for row in rows:
        if row["honest"]:
            lines.append(f"{row['id']:<16} honest            {row['score']:>7.2f}")
            continue
        share = row["lost"] / row["possible"] if row["possible"] else 0.0
        kinds = ",".join(kind for kind, _ in row["diagnoses"]) or "-"
        verdict = judged.get(row["id"], "")
        lines.append(
            f"{row['id']:<16} {row['function']:<20} {row['score']:>7.2f} lost {share:6.1%}  {kinds:<28} {verdict}"
        )
        for kind, title in row["diagnoses"]:
            lines.append(f"{'':<38}{kind}: {title}")
    detected = [row for row in bugs if row["lost"] > 1e-9]
    shares = [row["lost"] / row["possible"] for row in bugs if row["possible"]]
    named = [row for row in bugs if any(kind == "misconception" for kind, _ in row["diagnoses"])]
    any_diagnosis = [row for row in bugs if row["diagnoses"]]
    lines += [
        "",
        f"honest at 100: {sum(row['score'] == 100 for row in honest)}/{len(honest)}",
        f"bugs detected (their function lost points): {len(detected)}/{len(bugs)}",
        f"share of its function's points a bug costs: median {statistics.median(shares):.1%}, "
        f"min {min(shares):.1%}, below 25%: {sum(share < 0.25 for share in shares)}"
        if shares
        else "no bugs",
        f"a named misconception: {len(named)}/{len(bugs)}; any diagnosis: {len(any_diagnosis)}/{len(bugs)}",
    ]
    if judged:
        verdicts = [judged.get(row["id"], "unjudged") for row in bugs]
        lines.append(
            "judged diagnoses: "
            + ", ".join(f"{name} {verdicts.count(name)}" for name in ("true", "false", "none", "unjudged"))
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="where the batches go (default: a temporary folder)")
    parser.add_argument("--judged", type=Path, default=None, help="a person's verdicts on the diagnoses")
    parser.add_argument("--json", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--seed", default="fresh-rounds", help="the random cases' seed (the same for every run)")
    args = parser.parse_args(argv)
    judged = json.loads(args.judged.read_text()) if args.judged else {}
    out = args.out or Path(tempfile.mkdtemp(prefix="fresh-rounds-"))
    everything = []
    for folder in args.rounds:
        rows = grade_round(folder, out / folder.name, args.seed)
        everything += rows
        print(f"== {folder}")
        print("\n".join(report(rows, judged)))
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
