"""Building submissions for the engine's tests: the reference solution, patched or replaced."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import yaml

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


#: The kinds of check graded on the lab's reference collection (Cranfield, per query): what
#: ``small_rubric`` leaves out.
COLLECTION_KINDS = ("cranfield", "run_cranfield")


def small_rubric(folder: Path, **limits) -> Path:
    """``test_rubric``'s grading.yml without the checks graded on the reference collection: the same
    functions, sandbox and engine, some 530 calls a submission instead of 3,230 (for the containment
    tests, whose proof is about the sandbox and the engine, not Cranfield). A check left out gives
    its points to its function's ``edge`` check (``write_run``'s: to its last check), so every
    function, and the rubric, keep their points."""
    path = test_rubric(folder, **limits)
    rubric = yaml.safe_load(path.read_text(encoding="utf-8"))
    for question in rubric["questions"].values():
        kept = [check for check in question["checks"] if check["kind"] not in COLLECTION_KINDS]
        for left_out in (check for check in question["checks"] if check["kind"] in COLLECTION_KINDS):
            own = [check for check in kept if check["function"] == left_out["function"]]
            heir = next((check for check in own if check["kind"] == "edge"), own[-1] if own else None)
            if heir is None:
                raise ValueError(
                    f"small_rubric: {left_out['function']} has only checks on the collection in {paths.RUBRIC}; "
                    "give it another check, or grade it with test_rubric"
                )
            heir["points"] += left_out["points"]
        question["checks"] = kept
    path.write_text(yaml.safe_dump(rubric, sort_keys=False, allow_unicode=True), encoding="utf-8")
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
