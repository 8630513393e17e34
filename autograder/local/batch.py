"""Grading a batch: many submissions in parallel, resumable, every one getting a result.

``grade_batch`` prepares once (rubric, reference, plan, isolation), grades the submissions
in ``jobs`` worker processes and writes, as each finishes, ``OUT/submissions/<id>/results.json``
(Gradescope), ``feedback.md``, ``feedback.html``, ``instructor.html`` and ``grade.json`` (the full
result, last: its presence marks the submission done), each atomically (``reports/output_paths.py``,
``local/classwork.py: write_result``). At the end ``finish``, the class step, computes the code
similarity of every submission of the batch (graded now or before; ``grading.yml`` can turn it
off) and has ``local/classwork.py: finish`` rewrite ``OUT/grades.csv`` (a row per student), the
class report ``OUT/index.html`` and ``OUT/class.json``; ``merge`` (``local/merge.py``) runs the
same step over the shards of a class (``local/shards.py``: a share graded, a manifest written
instead). Killing the batch loses nothing already written; running it again skips what is done
(``force`` regrades), and a submission whose files, rubric or reference changed is graded again.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

from autograder import tempdirs
from autograder.grading import intake, payloads, scoring
from autograder.grading import rubric as rubrics
from autograder.grading.course import standing
from autograder.grading.results import SubmissionResult, points
from autograder.grading.session import Session, internal_error
from autograder.local import classwork, shards
from autograder.local.classwork import write_result
from autograder.local.run_facts import RunFacts
from autograder.paths import RUBRIC
from autograder.reports import output_paths
from autograder.sandbox import isolation as isolations
from autograder.similarity import compare as similarity

_worker: dict = {}


@dataclass(frozen=True)
class BatchSummary:
    graded: int  # graded in this run
    skipped: int  # already graded with the same files, rubric and reference
    results: tuple  # every submission of the batch, in id order
    seconds: float
    out: Path
    similarity: similarity.Similarity | None = None  # None when turned off (or if it failed: see the report)
    rescored: int = 0  # scored again from their stored answers (only points, visibility or scoring changed)
    changes: tuple = ()  # (submission, why graded or rescored again, score before, score now), for the summary
    shard: shards.Shard | None = None  # a share of the class (no class-level outputs: ``merge`` makes them)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, as ``taskset`` or a container's cpuset
    sets it), not all of the machine's: the batch's default number of jobs."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this system
        return os.cpu_count() or 1


def _init_worker(session: Session, slots) -> None:
    _worker["session"] = session
    _worker["slot"] = slots.get()


def _grade_in_worker(staged: intake.Staged, seed: str | None) -> SubmissionResult:
    return _worker["session"].grade(staged, _worker["slot"], seed=seed)


def _stored(out: Path, staged: intake.Staged) -> SubmissionResult | None:
    """The grade stored for this submission's id (None: none, or unreadable)."""
    path = output_paths.submission_folder(out, staged.source.id) / "grade.json"
    if not path.is_file():
        return None
    try:
        return SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _seed(stored: SubmissionResult | None, staged: intake.Staged) -> str | None:
    """The random cases' seed of a regrade: the stored grade's, when it graded the same files
    (the same cases are drawn again); otherwise None (a fresh one)."""
    if stored is not None and stored.files == staged.digests and stored.random_seed:
        return stored.random_seed
    return None


def _derived(seed: str, staged: intake.Staged) -> str:
    """A submission's seed made from the batch's and its files (the same files, the same cases)."""
    return hashlib.sha256(f"{seed}:{sorted(staged.digests.items())}".encode()).hexdigest()[:32]


def _done(stored: SubmissionResult | None, staged: intake.Staged, session: Session) -> SubmissionResult | None:
    """The stored grade of a submission, if it was made from the same files, rubric, reference and grader."""
    same = _same_calls(stored, staged, session)
    return stored if same and stored is not None and stored.rubric_digest == session.plan.rubric.digest else None


def _same_calls(stored: SubmissionResult | None, staged: intake.Staged, session: Session) -> bool:
    """Was ``stored`` made from the same files, calls and cases, reference and grader (its points,
    visibility or scoring aside)? Then its answers stand, and only its scores may need computing."""
    plan = session.plan
    return (
        stored is not None
        and stored.final
        and stored.grader_digest == plan.key[:16]
        and stored.reference_digest == plan.reference_digest
        and stored.files == staged.digests
    )


def _rescore(previous: SubmissionResult | None, staged: intake.Staged, session: Session) -> SubmissionResult | None:
    """The stored grade scored again under the current rubric when only its points, visibility or
    scoring changed (None otherwise: the submission is graded again)."""
    if not _same_calls(previous, staged, session) or previous is None:
        return None
    return scoring.rescored(previous, session.rubric)


def why_again(stored: SubmissionResult | None, staged: intake.Staged, session: Session) -> str:
    """Why a stored submission is graded again (or rescored), in words for the batch's summary."""
    plan = session.plan
    if stored is None:
        return "new"
    if stored.files != staged.digests:
        return "its files changed"
    if not stored.final:
        return "the grader was disturbed or failed on it last time"
    if stored.reference_digest != plan.reference_digest:
        return "the hidden reference changed"
    if stored.grader_digest != plan.key[:16]:
        return "the grader, its cases or the rubric's calls changed"
    return "the rubric's points, visibility or scoring changed"


class _Progress:
    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.done, self.stream, self.started = total, 0, stream, time.monotonic()
        self.tty = stream.isatty()

    def update(self, result: SubmissionResult) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.started
        if self.tty:
            filled = int(30 * self.done / max(self.total, 1))
            self.stream.write(
                f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} "
                f"{elapsed:5.1f} s  {result.submission[:30]:<30}"
            )
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(
                f"[{self.done}/{self.total}] {result.submission}: {points(result.score)}/{points(result.max_score)}"
                f" ({result.status}) {elapsed:.1f} s\n"
            )
        self.stream.flush()


def grade_batch(
    paths,
    out,
    jobs: int | None = None,
    force: bool = False,
    isolation: str = "auto",
    rubric_path: Path = RUBRIC,
    uid: int = isolations.DEFAULT_UID,
    python: str | None = None,
    progress: bool = True,
    seed: str | None = None,
    extensions: Path | None = None,
    shard: shards.Shard | None = None,
    known: tuple = (),
) -> BatchSummary:
    """Grade every submission named by ``paths`` into ``out``; ``seed``: draw each submission's random
    cases from it and the submission's files (a batch reproduced exactly), instead of afresh;
    ``extensions``: the students' extensions file (else the one grading.yml names, if any);
    ``shard``: only its share of them, and ``OUT/shard.json`` instead of the class-level outputs;
    ``known``: folders of earlier terms' submissions the similarity compares every one with."""
    started = time.monotonic()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    out = Path(out)
    everyone = intake.discover(paths)
    sources = everyone if shard is None else shards.share(everyone, shard)
    rules = classwork.rules(rubrics.load(rubric_path), rubric_path, extensions)  # a bad file stops it here
    classwork.warn(sources, rules)
    by_id = {source.id: source for source in sources}
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)  # grade.json holds expected values: the instructor's eyes only
    jobs = max(1, jobs or usable_cpus())
    with tempdirs.folder("lab05-batch-") as folder:
        inputs = tuple(str(Path(path).resolve()) for path in paths)
        protected = (*inputs, str(out.resolve()))
        session = Session.open(rubric_path, isolation, uid, python, Path(folder), protected, jobs)
        isolations.reserve(session.isolation, jobs)
        rubric = session.rubric
        titles = {question.id: question.title for question in rubric.questions}
        finished: dict[str, SubmissionResult] = {}
        todo: list[intake.Staged] = []
        rescored: list[SubmissionResult] = []  # scored again from stored answers, no code run
        reasons: dict[str, tuple] = {}  # submission -> (why graded again, the score it had)
        seeds: dict[str, str | None] = {}
        files: dict[str, dict] = {}  # every submission's graded files, for the similarity analysis
        for source in sources:
            staged = intake.read(source)  # read and hashed once: for the resume check and for grading
            files[source.id] = staged.files
            try:
                previous = _stored(out, staged)
                stored = None if force else _done(previous, staged, session)
                seeds[source.id] = _seed(previous, staged) if seed is None else _derived(seed, staged)
                again = None if force or stored is not None else _rescore(previous, staged, session)
            except Exception:  # an unreadable old result: grade it again
                previous, stored, again = None, None, None
            if previous is not None and stored is None:
                reasons[source.id] = (
                    "asked to (--force)" if force else why_again(previous, staged, session),
                    previous.score,
                )
            if again is not None:
                rescored.append(again)
            elif stored is None:
                todo.append(staged)
            else:
                finished[source.id] = stored
        bar = _Progress(len(todo)) if progress else None

        def record(result):
            with _uninterrupted():  # a folder without grade.json would be graded again, half replaced
                _record(result)

        def _record(result):
            result = standing.stamp(classwork.identify(result, by_id[result.submission]), rules)
            try:
                write_result(out, result, titles)
            except Exception:  # a grader bug rendering this result: keep the batch and a trace of it
                source = intake.Source(id=result.submission, path=Path(), students=result.students)
                result = internal_error(
                    source,
                    None,
                    traceback.format_exc(),
                    "the grader could not write this submission's feedback; your instructor has the details",
                )
                write_result(out, result, titles)
            finished[result.submission] = result
            if bar:
                bar.update(result)

        for result in rescored:
            record(result)
        if jobs == 1 or len(todo) <= 1:
            for staged in todo:
                record(session.grade(staged, 0, seed=seeds.get(staged.source.id)))
        else:
            import concurrent.futures
            import multiprocessing

            payloads.warm(session.plan)  # the shared calls' inputs pickled once, before the workers fork
            fork = multiprocessing.get_context("fork")
            slots = fork.Queue()
            for slot in range(jobs):
                slots.put(slot)
            with concurrent.futures.ProcessPoolExecutor(
                jobs, mp_context=fork, initializer=_init_worker, initargs=(session, slots)
            ) as pool:
                futures = {
                    pool.submit(_grade_in_worker, staged, seeds.get(staged.source.id)): staged for staged in todo
                }
                try:
                    for future in concurrent.futures.as_completed(futures):
                        try:
                            result = future.result()
                        except Exception:  # the worker itself died: still a result for this submission
                            result = internal_error(
                                futures[future].source,
                                None,
                                traceback.format_exc(),
                                "grading was interrupted; grade it again",
                                "worker died",
                            )
                        record(result)
                except KeyboardInterrupt:  # Ctrl-C, or a container's entrypoint passing it on
                    _stop(pool)
                    raise
    results = tuple(finished[source.id] for source in sources)
    run = RunFacts(
        graded_at=stamp,
        submissions=len(results),
        graded_now=len(todo),
        skipped=len(sources) - len(todo),
        jobs=jobs,
        isolation=session.isolation.mode,
        rubric=f"{rubric_path} (sha256 {rubric.digest[:16]})",
        reference=f"expected.json {session.plan.reference_digest}",
        grader=f"lab05-autograder {_version()}",
    )  # finish says the submissions, time taken and similarity
    if shard is None:

        def taken() -> str:
            return f"{time.monotonic() - started:.1f} s"

        results, similar = finish(out, results, files, rubric, rules, jobs, taken, run, by_id, known)
    else:  # its share only: ``merge`` runs the class-level step over every shard
        results = classwork.update(out, results, rubric, rules, by_id)
        similar = shards.write(out, shard, everyone, results, files, session, rubric_path, seed, run, started)
    seconds = time.monotonic() - started
    finished = {result.submission: result for result in results}
    changes = tuple(
        (source.id, reasons[source.id][0], reasons[source.id][1], finished[source.id].score)
        for source in sources
        if source.id in reasons
    )
    skipped = len(sources) - len(todo) - len(rescored)
    return BatchSummary(
        graded=len(todo),
        skipped=skipped,
        results=results,
        seconds=seconds,
        out=out,
        similarity=similar,
        rescored=len(rescored),
        changes=changes,
        shard=shard,
    )


def finish(
    out: Path,
    results: tuple,
    files: dict,
    rubric,
    rules,
    jobs: int,
    taken,
    run: RunFacts,
    sources=None,
    known: tuple = (),
):
    """The class-level step of a batch, and of ``merge`` over its shards: the code similarity of
    every submission (``files``: id -> graded file -> content; a student's own submissions never
    paired; ``known``: earlier terms' folders, compared with every one), then ``classwork.finish``
    with the run's facts (``taken()``: the time taken, said when the report is written). Returns
    the results as written and the similarity (None when off or failed)."""
    similar, similar_fact = classwork.similarity_of(files, rubric.similarity, jobs, standing.owners(results), known)
    facts = replace(run, submissions=len(results), time_taken=taken(), similarity=similar_fact)
    results, _ = classwork.finish(out, results, rubric, rules, facts, similar, sources)
    return results, similar


@contextlib.contextmanager
def _uninterrupted():
    """Ctrl-C waits until the block ends (a submission's four files written), then interrupts."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    interrupted: list = []
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt


def _stop(pool) -> None:
    """End a pool at once: its queued submissions cancelled, its workers killed (what they were
    grading has no result yet, so the next run grades it; their children die with them and the
    next run sweeps their sandbox uids). Without it, leaving the pool waits for every queued
    submission to be graded, and thrown away."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    results = getattr(pool, "_result_queue", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.kill()
    # a worker killed while sending its result (hundreds of KB: several pipe buffers) would leave
    # the pool's thread reading the rest for ever, since this process holds the pipe's writing end
    # too, and Python's exit joins that thread: closed here, the read ends once the workers are
    # gone, and the thread marks the pool broken and ends
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("lab05-autograder")
    except metadata.PackageNotFoundError:
        return "(not installed)"
