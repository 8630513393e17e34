"""What the grader image's ``entrypoint`` calls for the written analysis's question (marked by the
``analysis.json`` in its tests folder): the claims of ``ROOT/student/analysis.yml`` checked against the
data into ``ROOT/results/results.json``, PrairieLearn's format. The score in [0, 1] scales the
question's ``autoPoints`` (the counted claims' points); people grade the prose as its
``manualPoints``. No student code runs: the file is read as data (``grading/analysis/claims.py``).

That ``analysis.json`` is written by the build (``build.analysis_data``): grading.yml's
``analysis:`` points and the facts the claims are checked against (Cranfield's qrels, Lab 04's runs
as ranked, the measures' per-query values: public data, nothing hidden).
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autograder import cache
from autograder.grading.analysis import claims, facts
from autograder.grading.analysis.points import AnalysisPoints

DATA = "analysis.json"  # in the question's tests/: the points and the facts
FILE = "analysis.yml"


def document(root: Path) -> dict[str, Any]:
    """The results of ``ROOT/student/analysis.yml`` (a missing or malformed file scores 0, saying why)."""
    data = json.loads((Path(root) / "tests" / DATA).read_text(encoding="utf-8"))
    points = AnalysisPoints(**data["points"])
    known = facts.Facts.from_bundle(data["facts"])
    path = Path(root) / "student" / FILE
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise claims.AnalysisError(f"{FILE} is not a regular file: upload the file itself")
        verdicts = facts.check(claims.read(path, known.names()), known)
    except FileNotFoundError:
        return _zero(f"No {FILE} was submitted: upload it with analysis.md.")
    except claims.AnalysisError as error:
        return _zero(f"{error}. Correct it and submit again; your claims were not checked.")
    counted = verdicts[: points.claims]
    tests = [
        {
            "name": verdict.title(),
            "points": points.claim_points if verdict.holds else 0.0,
            "max_points": points.claim_points,
            "message": "holds against the data" if verdict.holds else "\n".join(verdict.problems),
        }
        for verdict in counted
    ]
    earned = points.claims_score(verdicts)
    beyond = len(verdicts) - points.claims
    message = f"Claims: {earned:g} / {points.claims_max:g} points; the prose is graded by people."
    if beyond > 0:
        message += f" Claims after the first {points.claims} count for nothing ({beyond} more)."
    return {
        "gradable": True,
        "score": round(earned / points.claims_max, 6) if points.claims_max else 0.0,
        "message": message,
        "tests": tests,
    }


def _zero(message: str) -> dict[str, Any]:
    return {"gradable": True, "score": 0.0, "message": message, "tests": []}


def run(root: Path = Path("/grade")) -> dict[str, Any]:
    """Write ``ROOT/results/results.json`` for the analysis question; return it."""
    result = document(root)
    target = Path(root) / "results" / "results.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    cache.write_atomic(target, (json.dumps(result, indent=1) + "\n").encode(), 0o644)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m autograder.platforms.prairielearn.analysis_entry --root ROOT``: what the entrypoint runs
    (not ``python -m autograder``, which loads the lab, whose answer code the public image lacks)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--root", type=Path, default=Path("/grade"))
    result = run(parser.parse_args(argv).root)
    print(f"score {result['score']}; {result['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
