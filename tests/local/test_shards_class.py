"""A generated class of 300 graded as 4 shards merged (``grade --shard I/N`` and ``merge``) and as
one batch (the rest of sharding is ``test_shards.py``): a file of its own, so that ``make test``
runs it, its longest single test, beside the other shard tests on the other worker."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.lms import export
from autograder.local import batch, merge, shards
from autograder.reports import output_paths
from tests.local.test_shards import assert_same_batch, graded_in_shards
from tests.support.generated import (
    AGAIN,
    CLASS_SIZE,
    EXTENDED,
    RING,
    generated_class,
    light_rubric,
    roster,
    run_fact,
    students,
)

#: The run's facts that say how many submissions a run graded itself: the shards grade the class's
#: distinct submissions and keep the rest, the single batch keeps all, so they are compared apart.
GRADED_BY_RUN = ("graded in this run", "skipped (already graded)")

#: What a grade.json says of its graded code, whoever submitted it and when: a submission's random
#: cases are drawn from the batch's seed and its files alone (``resume.seed_of``), not its id.
ANSWERS = (
    "status",
    "checks",
    "problems",
    "flags",
    "output",
    "hidden_output",
    "random_seed",
    "rubric_digest",
    "reference_digest",
    "grader_digest",
    "isolation",
    "files",
)

SHARDS = 4
EXAMPLES = paths.ROOT / "examples" / "submissions"  # what the class's other submissions are copies of


def twins(folder: Path) -> dict[str, str]:
    """Each submission of the class in ``folder`` -> the first of the class with the same files
    (itself when none comes before it)."""
    first: dict[str, str] = {}
    twin = {}
    for submission in sorted(path for path in folder.iterdir() if path.is_dir()):
        files = sorted(path for path in submission.rglob("*") if path.is_file())
        content = hashlib.sha256()
        for path in files:
            data = path.read_bytes()
            content.update(f"{path.relative_to(submission).as_posix()}\0{len(data)}\0".encode() + data)
        twin[submission.name] = first.setdefault(content.hexdigest(), submission.name)
    return twin


def kept_twins(twin: dict[str, str], alone: dict[str, str], graded: Path, out: Path) -> None:
    """Into each shard's folder (``OUT/shardI``, as ``graded_in_shards`` grades them), the grade of
    every submission of its share whose files an earlier one has: the grade (in ``graded``) of
    ``alone[first]``, the one graded alone with those files, under its id, as a batch graded again
    finds it; the shard keeps it only if its files, rubric, seed, reference and grader are those it
    grades with (``resume``), else grades it."""
    for submission, first in twin.items():
        if first == submission:
            continue
        grade = json.loads((output_paths.submission_folder(graded, alone[first]) / "grade.json").read_text())
        folder = output_paths.submission_folder(out / f"shard{shards.owner(submission, SHARDS)}", submission)
        folder.mkdir(parents=True)
        (folder / "grade.json").write_text(json.dumps({**grade, "submission": submission}))


def answers(out: Path, submission: str) -> dict[str, object]:
    grade = json.loads((output_paths.submission_folder(out, submission) / "grade.json").read_text())
    return {key: grade[key] for key in ANSWERS}


@pytest.mark.sandbox
@pytest.mark.slow
def test_shards_of_a_class_of_300_merge_into_the_single_batch(tmp_path, cranfield):
    """A class of 300 graded as 4 shards and merged, and as one batch keeping the shards' grades
    (what a batch graded again does with a grade of the same files, rubric and seed): does the merge's
    class step give the batch's grades.csv (the second attempts flagged over the limit, the late
    ones late), class report (the similarity over the whole class: the ring of near copies spans
    the shards), submissions' files and Moodle import, every student graded?

    The class step is the claim at class size; that a submission graded in a shard gets the grade
    the single batch gives it is proven on the examples
    (``test_shards_of_the_examples_merge_into_the_single_batch``). So only the class's distinct
    submissions (the ring's 12 and one copy of each example) are graded for real: once alone, under
    the id of the last with the same files, and once in their shards under the first's, which give
    the same answers (a grade is the files' and the seed's, not the id's); each other one is given
    its twin's grade under its own id, which its shard keeps only because it was made from the same
    files, rubric, seed, reference and grader (its students, time, lateness and attempts are the
    class step's, as for every kept grade)."""
    people = generated_class(tmp_path / "class")
    rubric = light_rubric(tmp_path)
    twin = twins(people)
    distinct = sorted(set(twin.values()))
    assert len(distinct) == RING + len(list(EXAMPLES.iterdir()))  # the ring's, and one of each example
    last = {first: submission for submission, first in twin.items()}  # the last with the same files
    batch.grade_batch(  # each distinct submission's files graded alone, under another id where it has twins
        [people / submission for submission in last.values()],
        tmp_path / "alone",
        jobs=2,
        progress=False,
        seed="300",
        rubric_path=rubric,
        lab=default_lab(),
    )
    kept_twins(twin, last, tmp_path / "alone", tmp_path)
    folders = graded_in_shards([people], tmp_path, SHARDS, "300", rubric)
    for submission in distinct:  # graded again in its shard: the answers its twins were given
        shard = tmp_path / f"shard{shards.owner(submission, SHARDS)}"
        assert answers(shard, submission) == answers(tmp_path / "alone", last[submission]), submission
    assert sum(last[first] != first for first in distinct) == len(list(EXAMPLES.iterdir()))  # ids apart
    merged = merge.merge(tmp_path / "merged", folders, lab=default_lab())
    single = tmp_path / "single"
    for folder in folders:  # each shard's grades, less the graded files a shard keeps for the merge
        shutil.copytree(folder / output_paths.SUBMISSIONS, single / output_paths.SUBMISSIONS, dirs_exist_ok=True)
    for submission in (single / output_paths.SUBMISSIONS).iterdir():
        shutil.rmtree(submission / shards.GRADED)
    summary = batch.grade_batch(
        [people], single, jobs=2, progress=False, seed="300", rubric_path=rubric, lab=default_lab()
    )
    assert (summary.graded, summary.skipped) == (0, CLASS_SIZE)  # every grade kept: no code ran again
    reports = [(folder / output_paths.REPORT).read_text() for folder in (tmp_path / "merged", single)]
    assert [[run_fact(report, label) for label in GRADED_BY_RUN] for report in reports] == [
        [str(len(distinct)), str(CLASS_SIZE - len(distinct))],
        ["0", str(CLASS_SIZE)],
    ]
    ids = [result.submission for result in summary.results]
    assert len(ids) == CLASS_SIZE and [result.submission for result in merged.results] == ids
    members = {f"submission_{number:06d}" for number in range(RING)}
    ring = {pair for pair in merged.similarity.pairs if {pair.a, pair.b} <= members}
    assert len(ring) == RING * (RING - 1) // 2
    spans = {frozenset(shards.owner(submission, SHARDS) for submission in (pair.a, pair.b)) for pair in ring}
    assert any(len(span) == 2 for span in spans)  # pairs across shards: no shard alone could list them
    assert_same_batch(single, tmp_path / "merged", ids, GRADED_BY_RUN)
    rows = list(csv.DictReader((tmp_path / "merged" / output_paths.GRADES).open()))
    flagged = [row["submission"] for row in rows if "attempts: over the attempt limit" in row["flags"]]
    assert flagged == ids[students() :]
    late = sorted(row["email"] for row in rows if row["late"].startswith("late by"))
    again = {f"s{number}@example.edu" for number in range(students() - AGAIN, students())}
    assert len(rows) == students() and late == sorted(again - {f"s{EXTENDED}@example.edu"})
    imports = [export.build("moodle", roster(tmp_path), folder, "Lab 05") for folder in (single, tmp_path / "merged")]
    assert imports[0].text == imports[1].text
    assert f"{students()} of {students()} roster students graded" in imports[1].summary
