"""A generated class of 300 graded as one batch and as 4 shards merged (``grade --shard I/N`` and
``merge``; the rest of sharding is ``test_shards.py``): a file of its own, so that ``make test``
runs it, its longest single test, beside the other shard tests on the other worker."""

from __future__ import annotations

import csv

import pytest

from autograder.labkit.load import default as default_lab
from autograder.lms import export
from autograder.local import batch, merge, shards
from autograder.reports import output_paths
from tests.local.test_shards import assert_same_batch, graded_in_shards
from tests.support.generated import AGAIN, CLASS_SIZE, EXTENDED, RING, generated_class, light_rubric, roster, students


@pytest.mark.sandbox
@pytest.mark.slow
def test_shards_of_a_class_of_300_merge_into_the_single_batch(tmp_path, cranfield):
    """A class of 300 graded as one batch, and as 4 shards merged: the same grades.csv (the second
    attempts flagged over the limit), class report (the similarity over the whole class: the ring of
    near copies spans the shards), submissions' files and Moodle import, every student graded?"""
    people = generated_class(tmp_path / "class")
    rubric = light_rubric(tmp_path)
    single = tmp_path / "single"
    summary = batch.grade_batch(
        [people], single, jobs=2, progress=False, seed="300", rubric_path=rubric, lab=default_lab()
    )
    folders = graded_in_shards([people], tmp_path, 4, "300", rubric)
    merged = merge.merge(tmp_path / "merged", folders, lab=default_lab())
    ids = [result.submission for result in summary.results]
    assert len(ids) == CLASS_SIZE and [result.submission for result in merged.results] == ids
    members = {f"submission_{number:06d}" for number in range(RING)}
    ring = {pair for pair in merged.similarity.pairs if {pair.a, pair.b} <= members}
    assert len(ring) == RING * (RING - 1) // 2
    spans = {frozenset(shards.owner(submission, 4) for submission in (pair.a, pair.b)) for pair in ring}
    assert any(len(span) == 2 for span in spans)  # pairs across shards: no shard alone could list them
    assert_same_batch(single, tmp_path / "merged", ids)
    rows = list(csv.DictReader((tmp_path / "merged" / output_paths.GRADES).open()))
    flagged = [row["submission"] for row in rows if "attempts: over the attempt limit" in row["flags"]]
    assert flagged == ids[students() :]
    late = sorted(row["email"] for row in rows if row["late"].startswith("late by"))
    again = {f"s{number}@example.edu" for number in range(students() - AGAIN, students())}
    assert len(rows) == students() and late == sorted(again - {f"s{EXTENDED}@example.edu"})
    imports = [export.build("moodle", roster(tmp_path), folder, "Lab 05") for folder in (single, tmp_path / "merged")]
    assert imports[0].text == imports[1].text
    assert f"{students()} of {students()} roster students graded" in imports[1].summary
