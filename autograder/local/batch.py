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
(``force`` regrades), and a submission whose files, rubric or reference changed is graded again
(``local/resume.py`` sorts what is kept, rescored or graded).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypedDict

from autograder import tempdirs
from autograder.grading import counterexamples, intake, payloads
from autograder.grading import rubric as rubrics
from autograder.grading.course import overrides, standing
from autograder.grading.course import times as submission_times
from autograder.grading.results import SubmissionResult, points
from autograder.grading.session import Session, internal_error
from autograder.labkit.lab import Lab
from autograder.local import classwork, resume, shards
from autograder.local.classwork import write_result
from autograder.local.resume import why_again as why_again  # its name in the batch, as before
from autograder.local.run_facts import RunFacts
from autograder.sandbox import isolation as isolations
from autograder.sandbox.child_process import discard_spares
from autograder.similarity import compare as similarity

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.queues import Queue


class _Worker(TypedDict, total=False):
    """What a worker process grades with: its session and its sandbox slot (set as it starts)."""

    session: Session
    slot: int


_worker: _Worker = {}

#: A submission graded or rescored again: (submission, why, score before, score now).
Change = tuple[str, str, float, float]


@dataclass(frozen=True)
class BatchSummary:
    graded: int  # graded in this run
    skipped: int  # already graded with the same files, rubric and reference
    results: tuple[SubmissionResult, ...]  # every submission of the batch, in id order
    seconds: float
    out: Path
    similarity: similarity.Similarity | None = None  # None when turned off (or if it failed: see the report)
    rescored: int = 0  # scored again from their stored answers (only points, visibility or scoring changed)
    changes: tuple[Change, ...] = ()  # the submissions graded or rescored again, for the summary
    shard: shards.Shard | None = None  # a share of the class (no class-level outputs: ``merge`` makes them)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, as ``taskset`` or a container's cpuset
    sets it), not all of the machine's: the batch's default number of jobs."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this system
        return os.cpu_count() or 1


def _init_worker(session: Session, slots: Queue[int]) -> None:
    _worker["session"] = session
    _worker["slot"] = slots.get()


def _grade_in_worker(staged: intake.Staged, seed: str | None) -> SubmissionResult:
    return _worker["session"].grade(staged, _worker["slot"], seed=seed)


class _Progress:
    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
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
    paths: Sequence[str | Path],
    out: str | Path,
    jobs: int | None = None,
    force: bool = False,
    isolation: str = "auto",
    rubric_path: Path | None = None,
    uid: int = isolations.DEFAULT_UID,
    python: str | None = None,
    progress: bool = True,
    seed: str | None = None,
    extensions: Path | None = None,
    shard: shards.Shard | None = None,
    known: tuple[str | Path, ...] = (),
    times: str | None = None,
    *,
    lab: Lab,
) -> BatchSummary:
    """Grade every submission named by ``paths`` into ``out``; ``seed``: draw each submission's random
    cases from it and the submission's files (a batch reproduced exactly), instead of afresh;
    ``extensions``: the students' extensions file (else the one grading.yml names, if any);
    ``shard``: only its share of them, and ``OUT/shard.json`` instead of the class-level outputs;
    ``known``: folders of earlier terms' submissions the similarity compares every one with;
    ``times``: where submission times come from (``grading/course/times.py``: metadata, files or a
    CSV file), a bad one a ValueError naming what is allowed; ``lab``: the lab graded."""
    started = time.monotonic()
    rubric_path = rubric_path or lab.place.rubric
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    out = Path(out)
    rules = classwork.rules(rubrics.load(rubric_path, lab), rubric_path, extensions)  # a bad file stops it here
    overrides.not_beside(paths, out)
    tz = rules.deadline.tz() if rules.deadline is not None else None
    everyone = submission_times.apply(intake.discover(paths, lab), submission_times.parse(times), tz, lab)
    sources = everyone if shard is None else shards.share(everyone, shard)
    classwork.warn(sources, rules)
    by_id = {source.id: source for source in sources}
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)  # grade.json holds expected values: the instructor's eyes only
    if shard is not None:
        shards.start(out, shard)
    jobs = max(1, jobs or usable_cpus())
    with tempdirs.folder("batch-") as folder:
        inputs = tuple(str(Path(path).resolve()) for path in paths)
        protected = (*inputs, str(out.resolve()))
        session = Session.open(
            lab,
            rubric_path,
            isolation,
            uid,
            python,
            Path(folder),
            protected,
            jobs,
            create_secret=True,
        )
        if session.secret_note:
            print(session.secret_note, file=sys.stderr)
        isolations.reserve(session.isolation, jobs)
        rubric = session.rubric
        titles = {question.id: question.title for question in rubric.questions}
        found = resume.sort(sources, out, session, force, seed)
        bar = _Progress(len(found.todo)) if progress else None
        record = _Recorder(out=out, titles=titles, rules=rules, by_id=by_id, finished=found.finished, bar=bar, lab=lab)
        for result in found.rescored:
            record(result)
        _grade(session, found.todo, found.seeds, jobs, record)
    results = tuple(found.finished[source.id] for source in sources)
    run = RunFacts(
        graded_at=stamp,
        submissions=len(results),
        graded_now=len(found.todo),
        skipped=len(sources) - len(found.todo),
        jobs=jobs,
        isolation=session.isolation.mode,
        rubric=f"{rubric_path} (sha256 {rubric.digest[:16]})",
        reference=f"expected.json {session.plan.reference_digest}",
        grader=f"lab05-autograder {_version()}",
    )  # finish says the submissions, time taken and similarity
    if shard is None:

        def taken() -> str:
            return f"{time.monotonic() - started:.1f} s"

        results, similar = finish(
            out, results, found.files, rubric, rules, jobs, taken, run, by_id, known, lab=session.plan.lab
        )
    else:  # its share only: ``merge`` runs the class-level step over every shard
        results = classwork.update(out, results, rubric, rules, session.plan.lab, by_id)
        shards.write(out, shard, everyone, results, found.files, session, rubric_path, seed, run, started)
        similar = None  # a shard has no similarity
    seconds = time.monotonic() - started
    return BatchSummary(
        graded=len(found.todo),
        skipped=len(sources) - len(found.todo) - len(found.rescored),
        results=results,
        seconds=seconds,
        out=out,
        similarity=similar,
        rescored=len(found.rescored),
        changes=_changes(sources, found.reasons, results),
        shard=shard,
    )


def _changes(
    sources: Iterable[intake.Source], reasons: Mapping[str, tuple[str, float]], results: Iterable[SubmissionResult]
) -> tuple[Change, ...]:
    """(submission, why graded or rescored again, score before, score now) of every submission
    graded or rescored again, in the class's order, for the batch's summary."""
    finished = {result.submission: result for result in results}
    return tuple(
        (source.id, reasons[source.id][0], reasons[source.id][1], finished[source.id].score)
        for source in sources
        if source.id in reasons
    )


@dataclass(frozen=True)
class _Recorder:
    """Writes each result as it comes (stamped with its student's standing) and counts it done."""

    out: Path
    titles: dict[str, str]  # question id -> its title
    rules: standing.Rules
    by_id: dict[str, intake.Source]
    finished: dict[str, SubmissionResult]  # submission -> its result, filled as they are written
    bar: _Progress | None
    lab: Lab  # the lab graded, which the pages name

    def __call__(self, result: SubmissionResult) -> None:
        with _uninterrupted():  # a folder without grade.json would be graded again, half replaced
            self._record(result)

    def _record(self, result: SubmissionResult) -> None:
        result = standing.stamp(classwork.identify(result, self.by_id[result.submission]), self.rules)
        try:
            write_result(self.out, result, self.titles, self.lab)
        except Exception:  # a grader bug rendering this result: keep the batch and a trace of it
            source = intake.Source(id=result.submission, path=Path(), students=result.students)
            result = internal_error(
                source,
                None,
                traceback.format_exc(),
                "the grader could not write this submission's feedback; your instructor has the details",
            )
            write_result(self.out, result, self.titles, self.lab)
        self.finished[result.submission] = result
        if self.bar:
            self.bar.update(result)


def _grade(
    session: Session, todo: list[intake.Staged], seeds: Mapping[str, str | None], jobs: int, record: _Recorder
) -> None:
    """Grade the submissions ``todo``, recording each as it finishes: here, one after the other,
    when there is one job or one submission; else in ``jobs`` worker processes."""
    if jobs == 1 or len(todo) <= 1:
        for staged in todo:
            record(session.grade(staged, 0, seed=seeds.get(staged.source.id)))
    else:
        _grade_in_pool(session, todo, seeds, jobs, record)


def _grade_in_pool(
    session: Session, todo: list[intake.Staged], seeds: Mapping[str, str | None], jobs: int, record: _Recorder
) -> None:
    """Grade ``todo`` in ``jobs`` forked workers, each with its sandbox slot; a worker that dies
    still gives its submission a result; Ctrl-C ends the pool at once (``_stop``) and is raised."""
    import concurrent.futures
    import multiprocessing

    payloads.warm(session.plan)  # the shared calls' inputs pickled once, before the workers fork
    # one grading's random cases drawn and valued once, before the workers fork: what valuing them
    # imports (ir_measures, numpy: a second or two) every worker inherits, instead of each paying it
    session.plan.for_submission("warm-up", kept=False)
    counterexamples.warm(session.plan)  # the probes' candidates every submission shares, valued once
    discard_spares()  # each worker starts its own spare child interpreters
    fork = multiprocessing.get_context("fork")
    slots: Queue[int] = fork.Queue()
    for slot in range(jobs):
        slots.put(slot)
    with concurrent.futures.ProcessPoolExecutor(
        jobs, mp_context=fork, initializer=_init_worker, initargs=(session, slots)
    ) as pool:
        futures = {pool.submit(_grade_in_worker, staged, seeds.get(staged.source.id)): staged for staged in todo}
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


def finish(
    out: Path,
    results: tuple[SubmissionResult, ...],
    files: Mapping[str, Mapping[str, bytes]],
    rubric: rubrics.Rubric,
    rules: standing.Rules,
    jobs: int,
    taken: Callable[[], str],
    run: RunFacts,
    sources: Mapping[str, intake.Source] | None = None,
    known: tuple[str | Path, ...] = (),
    *,
    lab: Lab,
) -> tuple[tuple[SubmissionResult, ...], similarity.Similarity | None]:
    """The class-level step of a batch, and of ``merge`` over its shards: the code similarity of
    every submission (``files``: id -> graded file -> content; a student's own submissions never
    paired; ``known``: earlier terms' folders, compared with every one), then ``classwork.finish``
    with the run's facts (``taken()``: the time taken, said when the report is written; ``lab``: the
    lab graded). Returns
    the results as written and the similarity (None when off or failed)."""
    owners = standing.owners(results)
    similar, similar_fact = classwork.similarity_of(files, rubric.similarity, jobs, owners, known, lab=lab)
    facts = replace(run, submissions=len(results), time_taken=taken(), similarity=similar_fact)
    results, found = classwork.finish(out, results, rubric, rules, facts, lab, similar, sources)
    if similar is not None:  # as the report lists it: without the superseded submissions
        similar = similarity.without(similar, [result.submission for result in found.superseded])
    return results, similar


@contextlib.contextmanager
def _uninterrupted() -> Iterator[None]:
    """Ctrl-C waits until the block ends (a submission's four files written), then interrupts."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    interrupted: list[bool] = []
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt


def _stop(pool: ProcessPoolExecutor) -> None:
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
