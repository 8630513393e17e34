"""Building submissions for the engine's tests: the reference solution, patched or replaced."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from autograder import paths
from autograder.lab import spec

SOLUTION = {name: paths.solution_file(name).read_text(encoding="utf-8") for name in spec.GRADED_FILES}

#: grading.yml with tight limits, so hostile submissions cost seconds, not minutes.
TEST_LIMITS = {"call_seconds": 2, "submission_seconds": 22, "memory_mb": 1024, "output_kb": 16}


def test_rubric(folder: Path, **limits) -> Path:
    text = paths.RUBRIC.read_text(encoding="utf-8")
    for key, value in {**TEST_LIMITS, **limits}.items():
        text = re.sub(rf"(\n  {key}: )\S+", rf"\g<1>{value}", text)
    path = Path(folder) / "grading.yml"
    path.write_text(text, encoding="utf-8")
    return path


def with_function(file: str, source: str) -> str:
    """The solution's file with one function replaced: the new definition is appended, so it
    wins (as when a student rewrites one function); the rest stays the reference."""
    return SOLUTION[file] + "\n\n" + textwrap.dedent(source).strip() + "\n"


def write(folder: Path, files: dict) -> Path:
    """A submission folder: the solution's files, overridden by ``files`` (name -> str or bytes;
    None leaves a file out)."""
    folder.mkdir(parents=True)
    for name in spec.GRADED_FILES:
        content = files.get(name, SOLUTION[name])
        if content is None:
            continue
        path = folder / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def function_scores(result) -> dict:
    """{function: (score, max)} over all its checks."""
    scores: dict[str, list] = {}
    for check in result.checks:
        entry = scores.setdefault(check.function, [0.0, 0.0])
        entry[0] += check.score
        entry[1] += check.max_score
    return {function: (round(a, 4), b) for function, (a, b) in scores.items()}
