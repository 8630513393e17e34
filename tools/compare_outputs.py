"""Compare two graded batches' student-facing outputs byte for byte.

    python tools/compare_outputs.py BEFORE AFTER

For every submission of BEFORE (``BEFORE/submissions/<id>/``, as ``grade --out`` writes them):
``feedback.md`` and ``results.json`` (its ``execution_time``, a measurement, set to 0 in both), and
the batch's ``grades.csv``. Grade both sides with the same ``--seed`` and the same
``--child-python`` (another numpy can answer differently). Prints one line per file and
exits 1 when any differs (a refactoring that must not change behaviour shows 0 differences).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _normalised(path: Path) -> bytes:
    data = path.read_bytes()
    if path.name == "results.json":
        document = json.loads(data)
        document["execution_time"] = 0
        return json.dumps(document, sort_keys=True).encode()
    return data


def main(before: Path, after: Path) -> int:
    if not (before / "submissions").is_dir():
        print(f"{before} holds no submissions/ folder: give the --out folder of a grade run", file=sys.stderr)
        return 2
    names = ["grades.csv"] + sorted(
        f"submissions/{folder.name}/{name}"
        for folder in (before / "submissions").iterdir()
        if folder.is_dir()
        for name in ("feedback.md", "results.json")
    )
    differ = 0
    for name in names:
        old, new = before / name, after / name
        same = new.is_file() and _normalised(old) == _normalised(new)
        differ += not same
        print(f"{'same   ' if same else 'DIFFERS'} {name}")
    print(f"{len(names) - differ} of {len(names)} files identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
