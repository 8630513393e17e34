"""Grading one submission: read its files, run its calls in a sandbox, judge, score.

``grade`` never raises for anything a submission does: every failure becomes part of the
``SubmissionResult``. Only the grader's own bugs escape, and ``batch`` records those too.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from autograder import inspection, plan as planning, sandbox, scoring, submission
from autograder.results import CheckResult, SubmissionResult


@dataclass(frozen=True)
class Context:
    """What every submission of a batch is graded with."""
    plan: planning.Plan
    isolation: sandbox.Isolation
    shared_job: Path            # the plan's shared job, written once per batch
    limits: sandbox.Limits


def limits_of(rubric) -> sandbox.Limits:
    from autograder.rubric import FUNCTIONS

    limits = rubric.limits
    return sandbox.Limits(limits.call_seconds, limits.submission_seconds, limits.memory_mb, limits.output_kb,
                          functions=len(FUNCTIONS))


def write_shared_job(plan: planning.Plan, folder: Path) -> Path:
    """The plan's shared job as a file children read: in the private cache, written once per
    cached plan (``folder`` holds it for a plan built afresh)."""
    from autograder import cache

    import pickle

    path = cache.cache_dir() / f"job-{plan.key[:32]}.pickle" if plan.key else Path(folder) / "shared-job.pickle"
    if not path.is_file():
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_bytes(pickle.dumps(plan.shared_job, protocol=4))  # protocol 4: any Python 3 child reads it
        os.chmod(partial, 0o600)
        os.replace(partial, path)
    return path


def _ungraded(plan, reason: str) -> tuple[CheckResult, ...]:
    return tuple(CheckResult(spec.name, spec.question, spec.function, spec.kind, spec.points, 0.0, spec.visibility,
                             (), reason) for spec in plan.rubric.checks)


def _problems(result: sandbox.SandboxResult) -> list[str]:
    problems = []
    for name in ("metrics.py", "runs.py"):
        outcome = result.imports.get(name)
        if outcome is None or outcome.status == "ok":
            continue
        if outcome.status == "error":
            error = outcome.error or {}
            where = "\n".join(error.get("traceback", []))
            problems.append(f"lab05/{name} could not be imported: {error.get('type')}: {error.get('message')}"
                            + (f"\n{where}" if where else "") + "\nNone of its functions could be graded.")
        else:
            problems.append(f"lab05/{name} could not be imported: it {outcome.detail}. None of its functions "
                            "could be graded.")
    return problems


def _flags(result: sandbox.SandboxResult, calls: list, static: dict, dynamic: dict) -> list[str]:
    flags = [f"library: lab05/{name} imports {', '.join(found)}" for name, found in static.items() if found]
    flags += [f"library: lab05/{name} imports a module named at run time ({count}x): check by hand"
              for name, count in dynamic.items() if count]
    for module, during in sorted(set(result.banned_imports)):
        flags.append(f"library: tried to import {module} while running {during or 'the submission'}")
    trouble: dict[tuple, int] = {}
    for call, outcome in zip(calls, result.outcomes):
        if outcome.status in ("timeout", "crash"):
            trouble[(call["fn"], outcome.status)] = trouble.get((call["fn"], outcome.status), 0) + 1
    flags += [f"{status}: {function} ({count} call{'s' if count > 1 else ''})"
              for (function, status), count in sorted(trouble.items())]
    flags += [f"{outcome.status}: importing lab05/{name} ({outcome.detail})"
              for name, outcome in sorted(result.imports.items()) if outcome.status in ("timeout", "crash")]
    flags += [f"limit: {note}" for note in result.notes]
    if "more bytes not kept" in result.stdout + result.stderr:
        flags.append("output: printed more than the output limit")
    return flags


def _zeroed(static: dict, result: sandbox.SandboxResult, calls: list) -> dict[str, str]:
    metric_functions = {call["fn"] for call in calls if call["file"] == "metrics.py"} | {"metrics.py"}
    used = set(static.get("metrics.py", []))
    used |= {module.split(".")[0] for module, during in result.banned_imports if during in metric_functions}
    if not used:
        return {}
    return {"metrics.py": f"no credit: lab05/metrics.py uses {', '.join(sorted(used))}; this lab's metrics must "
                          "be your own code, not an evaluation library's"}


def _diagnosed(plan, planned, outcomes, checks, tables) -> tuple[CheckResult, ...]:
    """The checks with the known misconceptions that explain their lost points."""
    failing = {check.function for check in checks if check.score < check.max_score and not check.note}
    if not failing:
        return checks
    from autograder import diagnosis  # only for submissions that lost points

    found = diagnosis.diagnose(plan, planned, outcomes, failing,
                               {name: run.table for name, run in tables.items() if run.table is not None})
    return tuple(replace(check, diagnoses=tuple(found.get(check.name, ())))
                 if check.score < check.max_score and check.name in found else check for check in checks)


def grade(source: submission.Source, context: Context, slot: int = 0) -> SubmissionResult:
    """Grade one submission; the result holds its score, cases, problems and flags."""
    started = time.monotonic()
    plan = context.plan
    staged = submission.read(source)
    common = dict(submission=source.id, students=source.students, rubric_digest=plan.rubric.digest,
                  reference_digest=plan.reference_digest, grader_digest=plan.key[:16],
                  isolation=context.isolation.mode,
                  files={name: hashlib.sha256(data).hexdigest() for name, data in staged.files.items()})
    if not staged.files:
        return SubmissionResult(status="error", checks=_ungraded(plan, "not graded: " + "; ".join(staged.problems)),
                                problems=tuple(staged.problems), flags=tuple(f"files: {n}" for n in staged.notes),
                                execution_time=time.monotonic() - started, **common)
    job, random_cases = plan.for_submission(planning.seed_material(staged.files))
    calls = plan.calls() + job["calls"]
    with tempfile.TemporaryDirectory(prefix="lab05-submission-") as folder:
        folder = Path(folder)
        os.chmod(folder, 0o711)
        lab = submission.write_package(staged, folder / "lab")
        job_path = folder / "job.json"
        job_path.write_text(json.dumps(job, separators=(",", ":")), encoding="utf-8")
        result = sandbox.run(lab, [context.shared_job, job_path],
                             [{"fn": call["fn"], "file": call["file"]} for call in calls],
                             context.limits, context.isolation, slot)
    scanned = {name: inspection.imports(data) for name, data in staged.files.items()}
    static = {name: libraries for name, (libraries, _) in scanned.items()}
    planned = plan.shared_cases + random_cases
    tables = scoring.run_tables(plan, result.outcomes)
    checks = scoring.score_checks(plan, planned, result.outcomes, _zeroed(static, result, calls), tables)
    checks = _diagnosed(plan, planned, result.outcomes, checks, tables)
    return SubmissionResult(
        status="graded", checks=checks, problems=tuple(staged.problems + _problems(result)),
        flags=tuple([f"files: {n}" for n in staged.notes] + _flags(
            result, calls, static, {name: dynamic for name, (_, dynamic) in scanned.items()})),
        output=(result.stdout + ("\n" + result.stderr if result.stderr.strip() else "")).strip(),
        instructor_log=f"isolation {context.isolation.mode}, {result.restarts} restart(s), "
                       f"child time {result.elapsed:.2f} s",
        execution_time=round(time.monotonic() - started, 3), **common)
