"""A generated class of 300 graded as 4 shards merged (``grade --shard I/N`` and ``merge``) and as
one batch (the rest of sharding is ``test_shards.py``): a file of its own, so that ``make test``
runs it, its longest single test, beside the other shard tests on the other worker."""

from __future__ import annotations

import csv
import shutil

import pytest

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

#: The run's facts that say how many submissions a run graded itself: the shards grade all 300,
#: the single batch none (it keeps the shards' grades), so they are compared apart.
GRADED_BY_RUN = ("graded in this run", "skipped (already graded)")


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
    (``test_shards_of_the_examples_merge_into_the_single_batch``), so each of the 300 is graded once."""
    people = generated_class(tmp_path / "class")
    rubric = light_rubric(tmp_path)
    folders = graded_in_shards([people], tmp_path, 4, "300", rubric)
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
        [str(CLASS_SIZE), "0"],
        ["0", str(CLASS_SIZE)],
    ]
    ids = [result.submission for result in summary.results]
    assert len(ids) == CLASS_SIZE and [result.submission for result in merged.results] == ids
    members = {f"submission_{number:06d}" for number in range(RING)}
    ring = {pair for pair in merged.similarity.pairs if {pair.a, pair.b} <= members}
    assert len(ring) == RING * (RING - 1) // 2
    spans = {frozenset(shards.owner(submission, 4) for submission in (pair.a, pair.b)) for pair in ring}
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
