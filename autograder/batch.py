"""Grading a batch: many submissions in parallel, resumable, every one getting a result.

``grade_batch`` prepares once (rubric, reference, plan, isolation), grades the submissions
in ``jobs`` worker processes and writes, as each finishes, ``OUT/<id>/results.json``
(Gradescope), ``feedback.md`` and ``feedback.html`` and ``grade.json`` (the full result, last: its presence
marks the submission done), each atomically. ``OUT/grades.csv`` and the class report
``OUT/index.html`` are rewritten at the end. Killing
the batch loses nothing already written; running it again skips what is done (``force``
regrades), and a submission whose files, rubric or reference changed is graded again.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from autograder import cache, cranfield, feedback, feedback_page, gradescope, layout, reference, report
from autograder import rubric as rubrics
from autograder import grade as grading
from autograder import isolation as isolations
from autograder import plan as planning
from autograder import submission
from autograder.results import SubmissionResult, points

_worker: dict = {}


@dataclass(frozen=True)
class BatchSummary:
    graded: int              # graded in this run
    skipped: int             # already graded with the same files, rubric and reference
    results: tuple           # every submission of the batch, in id order
    seconds: float
    out: Path


def prepare(rubric_path: Path = layout.RUBRIC, isolation: str = "auto", uid: int = isolations.DEFAULT_UID,
            python: str | None = None, folder: Path | None = None):
    """Everything grading needs, checked: ``(context, rubric)``; errors name the fix."""
    rubric = rubrics.load(rubric_path)
    bundle_key, load_bundle = cranfield.lazy_bundle()
    plan = planning.cached(rubric, reference.load(), bundle_key, load_bundle)
    chosen = isolations.choose(isolation, python, uid)
    shared = grading.write_shared_job(plan, folder or Path(tempfile.mkdtemp(prefix="lab05-batch-")))
    return grading.Context(plan, chosen, shared, grading.limits_of(rubric)), rubric


def _init_worker(context, slots) -> None:
    _worker["context"] = context
    _worker["slot"] = slots.get()


def grade_safely(source: submission.Source, context=None, slot=None) -> SubmissionResult:
    context = context or _worker["context"]
    slot = _worker.get("slot", 0) if slot is None else slot
    try:
        return grading.grade(source, context, slot)
    except Exception:  # a grader bug: recorded for the instructor, the batch goes on
        return SubmissionResult(
            submission=source.id, status="error", students=source.students,
            problems=("the grader failed on this submission; your instructor has the details",),
            flags=("grader: internal error",), instructor_log=traceback.format_exc(),
            rubric_digest=context.plan.rubric.digest, reference_digest=context.plan.reference_digest)


def write_result(out: Path, result: SubmissionResult, titles: dict) -> None:
    folder = out / result.submission
    folder.mkdir(parents=True, exist_ok=True)
    cache.write_json_atomic(folder / "results.json", gradescope.results_json(result), mode=0o644)
    cache.write_atomic(folder / "feedback.md", feedback.markdown(result, titles).encode(), 0o644)
    cache.write_atomic(folder / "feedback.html", feedback_page.render(result, titles).encode(), 0o644)
    cache.write_json_atomic(folder / "grade.json", result.to_dict(), sort_keys=False)


def _done(out: Path, source: submission.Source, context) -> SubmissionResult | None:
    path = out / source.id / "grade.json"
    if not path.is_file():
        return None
    try:
        stored = SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    staged = submission.read(source)
    files = {name: hashlib.sha256(data).hexdigest() for name, data in staged.files.items()}
    same = (stored.rubric_digest == context.plan.rubric.digest and stored.grader_digest == context.plan.key[:16]
            and stored.reference_digest == context.plan.reference_digest and stored.files == files)
    return stored if same else None


def grades_csv(results, rubric) -> str:
    """One row per submission: identity, points per question, total, status, flags."""
    questions = [question.id for question in rubric.questions]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "name", "email", "sid", *questions, "total", "max", "status", "flags"])
    for result in results:
        scores = result.question_scores()
        writer.writerow([
            result.submission, "; ".join(s.name for s in result.students), "; ".join(s.email for s in result.students),
            "; ".join(s.sid for s in result.students), *[points(scores.get(q, 0.0)) for q in questions],
            f"{points(result.score)}", f"{points(rubric.total)}", result.status, " | ".join(result.flags)])
    return out.getvalue()


class _Progress:
    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.done, self.stream, self.started = total, 0, stream, time.monotonic()
        self.tty = stream.isatty()

    def update(self, result: SubmissionResult) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.started
        if self.tty:
            filled = int(30 * self.done / max(self.total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} "
                              f"{elapsed:5.1f} s  {result.submission[:30]:<30}")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {result.submission}: {points(result.score)}/{points(result.max_score)}"
                              f" ({result.status}) {elapsed:.1f} s\n")
        self.stream.flush()


def grade_batch(paths, out, jobs: int | None = None, force: bool = False, isolation: str = "auto",
                rubric_path: Path = layout.RUBRIC, uid: int = isolations.DEFAULT_UID, python: str | None = None,
                progress: bool = True) -> BatchSummary:
    """Grade every submission named by ``paths`` into ``out``."""
    started = time.monotonic()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    out = Path(out)
    sources = submission.discover(paths)
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)  # grade.json holds expected values: the instructor's eyes only
    jobs = max(1, jobs or os.cpu_count() or 1)
    with tempfile.TemporaryDirectory(prefix="lab05-batch-") as folder:
        context, rubric = prepare(rubric_path, isolation, uid, python, Path(folder))
        isolations.check_uids(context.isolation, jobs)
        titles = {question.id: question.title for question in rubric.questions}
        finished = {}
        todo = []
        for source in sources:
            try:
                stored = None if force else _done(out, source, context)
            except Exception:  # an unreadable old result or submission: grade it again
                stored = None
            if stored is None:
                todo.append(source)
            else:
                finished[source.id] = stored
        bar = _Progress(len(todo)) if progress else None

        def record(result):
            try:
                write_result(out, result, titles)
            except Exception:  # a grader bug rendering this result: keep the batch and a trace of it
                result = SubmissionResult(
                    submission=result.submission, status="error", students=result.students,
                    problems=("the grader could not write this submission's feedback; your instructor has the "
                              "details",), flags=("grader: internal error",), instructor_log=traceback.format_exc(),
                    rubric_digest=context.plan.rubric.digest)
                write_result(out, result, titles)
            finished[result.submission] = result
            if bar:
                bar.update(result)

        if jobs == 1 or len(todo) <= 1:
            for source in todo:
                record(grade_safely(source, context, 0))
        else:
            import concurrent.futures
            import multiprocessing

            fork = multiprocessing.get_context("fork")
            slots = fork.Queue()
            for slot in range(jobs):
                slots.put(slot)
            with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=fork, initializer=_init_worker,
                                                        initargs=(context, slots)) as pool:
                futures = {pool.submit(grade_safely, source): source for source in todo}
                for future in concurrent.futures.as_completed(futures):
                    try:
                        result = future.result()
                    except Exception:  # the worker itself died: still a result for this submission
                        source = futures[future]
                        result = SubmissionResult(submission=source.id, status="error", students=source.students,
                                                  problems=("grading was interrupted; grade it again",),
                                                  flags=("grader: worker died",), instructor_log=traceback.format_exc())
                    record(result)
    results = tuple(finished[source.id] for source in sources)
    seconds = time.monotonic() - started
    cache.write_atomic(out / "grades.csv", grades_csv(results, rubric).encode(), 0o644)
    facts = {"graded at (UTC)": stamp, "submissions": len(results), "graded in this run": len(todo),
             "skipped (already graded)": len(sources) - len(todo), "time taken": f"{seconds:.1f} s",
             "jobs": jobs, "isolation": context.isolation.mode, "rubric": f"{rubric_path} (sha256 {rubric.digest[:16]})",
             "reference": f"expected.json {context.plan.reference_digest}", "grader": f"lab05-autograder {_version()}"}
    cache.write_atomic(out / "index.html", report.render(results, rubric, facts).encode(), 0o644)
    return BatchSummary(len(todo), len(sources) - len(todo), results, seconds, out)


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("lab05-autograder")
    except metadata.PackageNotFoundError:
        return "(not installed)"
