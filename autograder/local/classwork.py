"""The class-level step of a batch (and of anything that combines graded submissions, such as a
merge of shards): from every submission's result to the class's files.

``finish`` takes the results (graded now, or read back from their ``grade.json``) and the class's
rules (``rules``: the policy, the deadline and the extensions), and

1. brings each result up to date (``update``): its students and submission time from its source
   (when the sources are known: a batch re-reads Gradescope's metadata every run), its lateness
   under the rules (``standing.stamp``) and, over the whole class, its flag when it is over the
   attempt limits (``attempts.with_flags``); a result that changed is written again
   (``write_result``: its feedback tells its student how late it was), without replacing
   ``grade.previous.json`` (a shard of a class brings its share up to date without the attempt
   flags, which need every submission of a student: its merge's class step adds them);
2. decides the standing (``grading/course/standing.py``): one row per student, the submission that
   counts, the superseded ones;
3. writes ``OUT/grades.csv`` (a row per student), ``OUT/index.html`` (the class report) and, last,
   ``OUT/class.json``: the batch's submissions, the policy and how many had no trusted time
   (``grading/course/times.py``), which the LMS exports read to apply the same standing.

Nothing here grades; everything is deterministic in the results and the rules.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from autograder import cache
from autograder.errors import InputError
from autograder.grading import intake
from autograder.grading.course import attempts, extensions, overrides, standing, times
from autograder.grading.results import SubmissionResult
from autograder.grading.rubric import Rubric
from autograder.labkit.lab import Lab
from autograder.local.run_facts import RunFacts
from autograder.reports import (
    analysis_grades,
    class_report,
    feedback_html,
    grades_csv,
    gradescope_json,
    instructor_html,
    markdown,
    output_paths,
    untrusted,
)
from autograder.similarity import compare as similarity
from autograder.similarity.compare import Similarity
from autograder.similarity.compare import without as compare_without


def rules(rubric: Rubric, rubric_path: Path, extensions_path: Path | None = None) -> standing.Rules:
    """The class's rules from the rubric, with the extensions file given (``--extensions``) or named by
    the rubric (``deadline.extensions``, relative to the rubric's folder); ``ValueError`` for a bad
    file, or extensions without a due date."""
    deadline = rubric.deadline
    if extensions_path is None and deadline is not None and deadline.extensions:
        extensions_path = Path(rubric_path).parent / deadline.extensions
    found = None
    if extensions_path is not None:
        if deadline is None:
            raise InputError(
                f"extensions file {extensions_path}: {Path(rubric_path).name} sets no due date, so there is nothing "
                "to extend: add a deadline: section with due: (see the README), or leave out --extensions"
            )
        found = extensions.read(Path(extensions_path), deadline)
    return standing.Rules(rubric.policy, deadline, found, rubric.group_extension)


def warn(sources: Collection[intake.Source], rules: standing.Rules) -> None:
    """Say on stderr what the instructor should know of the sources before they are graded: their
    notes (kept as their flags too), and submission times taken from files when a deadline reads them."""
    for note in (note for source in sources for note in source.notes):  # may quote a name: one line, as text
        print(f"warning: {untrusted.terminal(note)}", file=sys.stderr)
    by_files = sum(source.submitted_from == intake.FILE_TIME for source in sources)
    if rules.deadline is not None and by_files:
        print(
            f"warning: {by_files} submission time(s) taken from the files' modification times (--times files): "
            "copying or unzipping may have changed them",
            file=sys.stderr,
        )
    if rules.deadline is not None and times.untimed(sources):
        print(f"warning: {untimed_words(times.untimed(sources))}", file=sys.stderr)


def untimed_words(count: int) -> str:
    """What a batch says of its submissions without a trusted time."""
    return (
        f"{count} submission(s) had no trusted time (no created_at in Gradescope's submission_metadata.yml): "
        "counted on time; name a source with grade --times FILE.csv (submission,time) or --times files"
    )


def identify(result: SubmissionResult, source: intake.Source) -> SubmissionResult:
    """``result`` with its students and submission time as its source names them now."""
    same = (result.students, result.submitted, result.submitted_from) == (
        source.students,
        source.submitted,
        source.submitted_from,
    )
    if same:
        return result
    return replace(result, students=source.students, submitted=source.submitted, submitted_from=source.submitted_from)


def write_result(
    out: Path, result: SubmissionResult, titles: Mapping[str, str], lab: Lab, keep_previous: bool = True
) -> None:
    """The submission's files (``layout``) on ``lab``; a grade it replaces is kept beside it
    (``grade.previous.json``) unless ``keep_previous`` is false (the same grade, told again)."""
    folder = output_paths.submission_folder(out, result.submission)
    folder.mkdir(parents=True, exist_ok=True)
    if keep_previous and (folder / "grade.json").is_file():
        os.replace(folder / "grade.json", folder / output_paths.PREVIOUS)
    cache.write_json_atomic(folder / "results.json", gradescope_json.document(result, lab), mode=0o644)
    cache.write_atomic(folder / "feedback.md", markdown.markdown(result, titles, lab=lab).encode(), 0o644)
    html = feedback_html.render(result, titles, lab=lab)  # given to students: no link to the class report they lack
    cache.write_atomic(folder / "feedback.html", html.encode(), 0o644)
    instructor = instructor_html.render(result, titles, output_paths.report_link(), lab=lab)
    cache.write_atomic(folder / output_paths.INSTRUCTOR, instructor.encode(), 0o600)
    cache.write_json_atomic(folder / "grade.json", result.to_dict(), sort_keys=False)


#: What to do about people sharing an SID or an email (the class report and the batch's stderr).
SHARED_ADVICE = (
    ": kept apart, a row each, joined to nobody by it; correct the SID or email where the submissions' "
    "metadata comes from (the roster, Gradescope), then run the class step again"
)


def warn_shared(results: Iterable[SubmissionResult], stream: TextIO = sys.stderr) -> None:
    """Say on ``stream`` each SID or email two people share (``standing.shared_identities``)."""
    for line in standing.shared_identities(results):
        print(f"warning: {line}{SHARED_ADVICE}", file=stream)


def facts(rules: standing.Rules, found: standing.Standing, results: Collection[SubmissionResult]) -> dict[str, str]:
    """What the report's facts say of the class step."""
    said = {
        "students": f"{len(found.rows)} ({standing.POLICIES[rules.policy]} counts: grading.yml students.policy)",
        "submissions counted": f"{len(found.counted)}; superseded (out of the statistics): {len(found.superseded)}",
        "deadline": rules.deadline.words() if rules.deadline else "none (grading.yml has no deadline: nothing is late)",
    }
    if rules.deadline is not None:
        by_files = sum(result.submitted_from == intake.FILE_TIME for result in results)
        parts = [untimed_words(times.untimed(results))] if times.untimed(results) else []
        if by_files:
            parts.append(
                f"{by_files} from the files' modification times (--times files): copying or unzipping may have "
                "changed them"
            )
        said["submission times"] = "; ".join(parts) or "each from a trusted source (Gradescope or --times)"
    shared = standing.shared_identities(results)
    if shared:
        said["shared identities"] = "; ".join(shared) + SHARED_ADVICE
    if rules.extensions is not None:
        unused = standing.unused_extensions(rules, results)
        said["extensions"] = (
            f"{len(rules.extensions.lines or {})} from {rules.extensions.source}; in a group, "
            f"{standing.GROUP_EXTENSIONS[rules.group_extension]} (grading.yml students.group_extension: "
            f"{rules.group_extension})" + (f"; naming no student of the batch: {', '.join(unused)}" if unused else "")
        )
    return said


def update(
    out: Path,
    results: Sequence[SubmissionResult],
    rubric: Rubric,
    rules: standing.Rules,
    lab: Lab,
    sources: Mapping[str, intake.Source] | None = None,
    limits: attempts.AttemptLimits | None = None,
) -> tuple[SubmissionResult, ...]:
    """Step 1: the results of ``lab`` up to date (their students, lateness, the overrides of
    ``OUT/overrides.csv`` applied afresh: ``grading/course/overrides.py``), those that changed written
    again; ``limits``: the attempt limits to flag by (given only for a whole class)."""
    titles = {question.id: question.title for question in rubric.questions}
    sources = sources or {}
    fresh = [
        standing.stamp(identify(result, sources[result.submission]) if result.submission in sources else result, rules)
        for result in results
    ]
    adjusting = Path(out) / overrides.FILE
    fresh = overrides.apply(fresh, overrides.read(adjusting) if adjusting.is_file() else (), str(adjusting))
    if limits is not None:
        fresh = list(attempts.with_flags(tuple(fresh), limits, rubric.timezone))
    for result, now in zip(results, fresh):
        if (
            now != result
            or not (output_paths.submission_folder(out, result.submission) / output_paths.INSTRUCTOR).is_file()
        ):
            write_result(out, now, titles, lab, keep_previous=False)
    return tuple(fresh)


def finish(
    out: Path,
    results: Sequence[SubmissionResult],
    rubric: Rubric,
    rules: standing.Rules,
    run_facts: RunFacts,
    lab: Lab,
    similarity: Similarity | None = None,
    sources: Mapping[str, intake.Source] | None = None,
) -> tuple[tuple[SubmissionResult, ...], standing.Standing]:
    """The class step (the module's steps 1 to 3) of ``lab``; returns the results as written and the standing."""
    out = Path(out)
    current = update(out, results, rubric, rules, lab, sources, rubric.attempts)
    found = standing.build(current, rules.policy)
    if similarity is not None:  # superseded submissions are out of every table, similar code's too
        similarity = compare_without(similarity, [result.submission for result in found.superseded])
    warn_shared(current)
    sheet = analysis_grades.merged(
        out,
        [result.submission for result in current],
        rubric.analysis,
        {result.submission: result.students for result in current},
    )
    analysis = {name: (entry.claims_points, entry.prose_points) for name, entry in (sheet or {}).items()}
    table = grades_csv.render(found, rubric, analysis if sheet is not None else None)
    cache.write_atomic(out / output_paths.GRADES, table.encode(), 0o644)
    said = {**run_facts.shown(), **facts(rules, found, current)}
    report = class_report.render(
        found, rubric, said, similarity, lab=lab, analysis=analysis if sheet is not None else None
    )
    cache.write_atomic(out / output_paths.REPORT, report.encode(), 0o644)
    record = {
        "policy": rules.policy,
        "deadline": rules.deadline.words() if rules.deadline else "",
        "submissions": sorted(result.submission for result in current),
        "no_trusted_time": times.untimed(current),  # submissions counted on time for want of a trusted time
    }
    cache.write_atomic(out / output_paths.CLASS, json.dumps(record, indent=1).encode(), 0o644)
    return tuple(current), found


def known_solution(lab: Lab) -> dict[str, dict[str, str]]:
    """``lab``'s solution (``solutions/``), a known source every batch is compared with."""
    files = {name: lab.place.solution_file(name) for name in lab.graded_files}
    return {"solutions": {name: path.read_text(encoding="utf-8") for name, path in files.items() if path.is_file()}}


def known_sources(folders: Iterable[str | Path], lab: Lab) -> dict[str, dict[str, bytes]]:
    """The submissions of ``lab`` in ``folders`` (earlier terms' batches, folders or archives as ``grade``
    reads them), each a known source labelled ``<folder>/<submission>``."""
    found: dict[str, dict[str, bytes]] = {}
    for folder in folders:
        for source in intake.discover([folder], lab):
            found[f"{Path(folder).name}/{source.id}"] = intake.read(source, lab).files
    return found


def similarity_of(
    files: Mapping[str, Mapping[str, bytes]],
    settings: similarity.SimilaritySettings,
    jobs: int,
    owned: Mapping[str, str] | None = None,
    known: tuple[str | Path, ...] = (),
    *,
    lab: Lab,
) -> tuple[Similarity | None, str]:
    """The batch's code similarity (or None) and the report's line about it, every submission also
    compared with the solution (``solutions/``) and the submissions of the ``known`` folders (earlier
    terms); ``lab``: the lab graded; a failure
    costs the section only, never the batch."""
    if not settings.enabled:
        return None, "off (grading.yml: similarity.enabled)"
    if len(files) < 2:
        return None, "not run: a batch of one submission has nothing to compare"
    try:
        sources: dict[str, Mapping[str, bytes | str]] = {**known_solution(lab), **known_sources(known, lab)}
        found = similarity.analyse(files, settings, jobs=jobs, owners=owned, known=sources, lab=lab)
    except Exception as error:  # a grader bug: the grades stand, the report says so
        return None, f"failed: {type(error).__name__}: {error}"[:300]
    pairs = f"{len(found.pairs)} pair" + ("" if len(found.pairs) == 1 else "s")
    left_out = f"; {len(found.skipped)} file(s) left out, listed under Similar code" if found.skipped else ""
    return found, (
        f"{pairs} at or above {settings.threshold:g} among {found.submissions} submissions "
        f"({found.candidates} compared in detail, {sum(found.seconds.values()):.1f} s{left_out})"
    )
