"""A class graded on more than one machine: ``grade --shard I/N`` and ``merge``.

The share of each submission (a hash of its id: stable when the class grows), ``--shard``'s forms
(Kubernetes' and Slurm's indices), merge's refusals (shards of other gradings, classes, counts;
missing, repeated and overlapping shards), and shard + merge against a single batch of the
examples (a generated class of 300: ``test_shards_class.py``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.lms import export
from autograder.local import batch, merge, shards
from autograder.local.run_facts import RunFacts
from autograder.reports import output_paths
from tests.support import classes, subs
from tests.support.generated import without_timing

# ---------------------------------------------------------------- which shard grades what

#: id: (--shard, environment, the shard)
FORMS = {
    "second of four": ("2/4", {}, shards.Shard(2, 4)),
    "one shard": ("1/1", {}, shards.Shard(1, 1)),
    "kubernetes first": ("auto/4", {"JOB_COMPLETION_INDEX": "0"}, shards.Shard(1, 4)),
    "kubernetes last": ("auto/4", {"JOB_COMPLETION_INDEX": "3"}, shards.Shard(4, 4)),
    "slurm, a whole array": (
        "auto",
        {
            "SLURM_ARRAY_TASK_ID": "3",
            "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_MAX": "3",
            "SLURM_ARRAY_TASK_COUNT": "4",
        },
        shards.Shard(4, 4),
    ),
    "slurm from 0": (
        "auto",
        {
            "SLURM_ARRAY_TASK_ID": "0",
            "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_MAX": "3",
            "SLURM_ARRAY_TASK_COUNT": "4",
        },
        shards.Shard(1, 4),
    ),
    "slurm, 64 shards on 8 workers (--array=0-63%8)": (
        "auto",
        {
            "SLURM_ARRAY_TASK_ID": "41",
            "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_MAX": "63",
            "SLURM_ARRAY_TASK_COUNT": "64",
        },
        shards.Shard(42, 64),
    ),
    "slurm, count given": ("auto/8", {"SLURM_ARRAY_TASK_ID": "7"}, shards.Shard(8, 8)),
    "slurm, task 3 retried alone (--array=3)": (
        "auto/8",
        {
            "SLURM_ARRAY_TASK_ID": "3",
            "SLURM_ARRAY_TASK_MIN": "3",
            "SLURM_ARRAY_TASK_MAX": "3",
            "SLURM_ARRAY_TASK_COUNT": "1",
        },
        shards.Shard(4, 8),
    ),
    "slurm, tasks 2 and 5 retried (--array=2,5)": (
        "auto/8",
        {
            "SLURM_ARRAY_TASK_ID": "5",
            "SLURM_ARRAY_TASK_MIN": "2",
            "SLURM_ARRAY_TASK_MAX": "5",
            "SLURM_ARRAY_TASK_COUNT": "2",
        },
        shards.Shard(6, 8),
    ),
    "kubernetes, index 3 retried": ("auto/8", {"JOB_COMPLETION_INDEX": "3"}, shards.Shard(4, 8)),
}


@pytest.mark.parametrize("case", FORMS.values(), ids=FORMS.keys())
def test_shard_forms(case):
    """Is each form of --shard (I/N, and auto from a Kubernetes Indexed Job's or a Slurm array's
    variables) read as the right shard of the right count?"""
    text, environ, expected = case
    assert shards.parse(text, environ) == expected


#: id: (--shard, environment, what the message says)
WRONG_FORMS = {
    "no count": ("2", {}, "give it as I/N"),
    "shard 0": ("0/4", {}, "1 to N of N"),
    "past the last": ("5/4", {}, "1 to N of N"),
    "no shards": ("1/0", {}, "1 to N of N"),
    "not a number": ("two/4", {}, "'two' is not a whole number"),
    "auto without a scheduler": ("auto/4", {}, "neither JOB_COMPLETION_INDEX"),
    "kubernetes without a count": ("auto", {"JOB_COMPLETION_INDEX": "1"}, "give --shard auto/N"),
    "kubernetes index past the count": ("auto/2", {"JOB_COMPLETION_INDEX": "2"}, "1 to N of N"),
    "slurm without a count": ("auto", {"SLURM_ARRAY_TASK_ID": "2"}, "give the number of shards, --shard auto/N"),
    "slurm, a task retried alone without a count": (
        "auto",
        {
            "SLURM_ARRAY_TASK_ID": "3",
            "SLURM_ARRAY_TASK_MIN": "3",
            "SLURM_ARRAY_TASK_MAX": "3",
            "SLURM_ARRAY_TASK_COUNT": "1",
        },
        "SLURM_ARRAY_TASK_MIN=3, SLURM_ARRAY_TASK_MAX=3, SLURM_ARRAY_TASK_COUNT=1), e.g. a task retried alone",
    ),
    "slurm, an array from 1": (
        "auto",
        {
            "SLURM_ARRAY_TASK_ID": "4",
            "SLURM_ARRAY_TASK_MIN": "1",
            "SLURM_ARRAY_TASK_MAX": "4",
            "SLURM_ARRAY_TASK_COUNT": "4",
        },
        "not every shard from task 0",
    ),
    "slurm, a stepped array": (
        "auto",
        {
            "SLURM_ARRAY_TASK_ID": "10",
            "SLURM_ARRAY_TASK_MIN": "0",
            "SLURM_ARRAY_TASK_MAX": "10",
            "SLURM_ARRAY_TASK_COUNT": "3",
            "SLURM_ARRAY_TASK_STEP": "5",
        },
        "not every shard from task 0",
    ),
    "slurm, a task id past the count": (
        "auto/8",
        {"SLURM_ARRAY_TASK_ID": "8"},
        "SLURM_ARRAY_TASK_ID 8 is not a shard of 8",
    ),
}


@pytest.mark.parametrize("case", WRONG_FORMS.values(), ids=WRONG_FORMS.keys())
def test_wrong_shard_forms_say_what_to_give(case):
    """Is a --shard that names no shard refused with a message saying what to give?"""
    text, environ, message = case
    with pytest.raises(ValueError, match=re.escape(message)):
        shards.parse(text, environ)


IDS = [f"submission_{number:06d}" for number in range(300)]


def test_a_submission_keeps_its_shard_when_the_class_grows():
    """Adding 50 submissions to a class of 300: does every submission stay in its shard (a share by
    position in the class, e.g. every fourth, would move most of them)?"""
    before = {submission: shards.owner(submission, 4) for submission in IDS}
    grown = sorted(IDS + [f"late_{number}" for number in range(50)])
    assert {submission: shards.owner(submission, 4) for submission in grown if submission in before} == before


@pytest.mark.parametrize("count", [2, 3, 4, 8])
def test_shares_cover_the_class_once_and_are_balanced(count):
    """Does every submission of a class of 300 fall in exactly one of the shares, each share within
    40% of an even split (a hash of the id)?"""
    sources = [type("Source", (), {"id": submission})() for submission in IDS]
    shares = [shards.share(sources, shards.Shard(index, count)) for index in range(1, count + 1)]
    assert sorted(source.id for share in shares for source in share) == IDS
    assert all(abs(len(share) - 300 / count) <= 0.4 * 300 / count for share in shares), [len(s) for s in shares]


# ---------------------------------------------------------------- merge's refusals


#: A shard's run facts, as ``grade --shard`` keeps them.
RUN = replace(classes.RUN, graded_now=12, skipped=1, jobs=2, isolation="jail")


def _manifests(count: int, changes: dict | None = None, ids=IDS[:40]) -> list[dict]:
    """The manifests of a class's shards, as ``grade --shard`` writes them; ``changes``: shard ->
    the fields it has otherwise."""
    made = []
    for index in range(1, count + 1):
        manifest = {
            "format": shards.FORMAT,
            "shard": index,
            "of": count,
            "class": list(ids),
            "submissions": [submission for submission in ids if shards.owner(submission, count) == index],
            "rubric_digest": "r" * 64,
            "reference_digest": "e" * 16,
            "grader_digest": "g" * 16,
            "rubric": "title: x\n",
            "rubric_path": "grading.yml",
            "seed": "",
            "seconds": 1.0,
            "run": RUN.shown(),
            "files": {},
            "signature": "",
            "folder": Path(f"out/shard{index}"),
        }
        manifest.update((changes or {}).get(index, {}))
        made.append(manifest)
    return made


def _moved(count: int) -> tuple[str, int]:
    """A submission of shard 1 and another shard."""
    return next(s for s in IDS[:40] if shards.owner(s, count) == 1), 2


#: id: (the manifests, what the message says)
REFUSED = {
    "another rubric": (
        _manifests(3, {2: {"rubric_digest": "x" * 64}}),
        "shard 2/3 (out/shard2) differs in the rubric's digest",
    ),
    "another reference": (
        _manifests(2, {2: {"reference_digest": "x" * 16}}),
        "shard 2/2 (out/shard2) differs in the hidden reference",
    ),
    "another grader": (
        _manifests(2, {2: {"grader_digest": "x" * 16}}),
        "shard 2/2 (out/shard2) differs in the grader's digest",
    ),
    "another count": (_manifests(2, {2: {"of": 3}}), "shard 2/3 (out/shard2) differs in the number of shards"),
    "another seed": (
        _manifests(2, {2: {"seed": "other"}}),
        "shard 2/2 (out/shard2) differs in the random cases' seed (grade --seed): '' in shard 1/2 (out/shard1), "
        "'other' here",
    ),
    "the first shard of four with another seed": (
        _manifests(4, {1: {"seed": "other"}}),
        "shard 1/4 (out/shard1) differs in the random cases' seed (grade --seed): '' in shard 2/4 (out/shard2), "
        "'other' here",
    ),
    "two shards of four with other seeds": (
        _manifests(4, {2: {"seed": "b"}, 4: {"seed": "d"}}),
        "shard 2/4 (out/shard2) and shard 4/4 (out/shard4) differ in the random cases' seed (grade --seed): '' in "
        "shard 1/4 (out/shard1), 'b' here; '' in shard 1/4 (out/shard1), 'd' here (every shard of a class must be "
        "graded alike: grade those shards again into an empty folder)",
    ),
    "another class": (
        _manifests(2, {2: {"class": IDS[:41]}}),
        "differs in the class (the submissions found): 41 submissions, 40 in shard 1/2 (out/shard1); only here: "
        "submission_000040",
    ),
    "a shard twice": (_manifests(2)[:1] + _manifests(2)[:1], "shard 1/2 is given twice"),
    "a shard missing": (_manifests(3)[:2], "shard 3 of 3 missing"),
    "two shards missing": (_manifests(4)[:2], "shards 3, 4 of 4 missing"),
    "a submission in two shards": (
        _manifests(2, {2: {"submissions": [*_manifests(2)[1]["submissions"], _moved(2)[0]]}}),
        f"{_moved(2)[0]} is in shard 1/2 (out/shard1) and in shard 2/2 (out/shard2)",
    ),
    "a submission in another's shard": (
        _manifests(2, {1: {"submissions": []}, 2: {"submissions": IDS[:40]}}),
        f"shard 2/2 (out/shard2) holds {_moved(2)[0]}, which belongs to shard 1/2",
    ),
    "a submission in no shard": (
        _manifests(2, {1: {"submissions": _manifests(2)[0]["submissions"][1:]}}),
        f"1 submission(s) of the class are in no shard ({_manifests(2)[0]['submissions'][0]}): run shard 1/2 again",
    ),
}


@pytest.mark.parametrize("case", REFUSED.values(), ids=REFUSED.keys())
def test_merge_refuses_shards_that_do_not_fit(case):
    """Are shards of another grading, class or count, missing, repeated or overlapping shards
    refused, the message naming the shard and what differs?"""
    manifests, message = case
    with pytest.raises(ValueError, match=re.escape(message)):
        merge.check(manifests)


def test_merge_accepts_the_shards_of_one_class():
    """Do the shards of one class and grading pass the check (so that the refusals above are about
    what they change)?"""
    for count in (1, 2, 3, 4):
        merge.check(_manifests(count))


#: id: (what is in the shard's folder, what the message says)
NOT_SHARDS = {
    "empty folder": ({}, "is not a finished shard (no shard.json): grade it with"),
    "a whole batch": ({"grades.csv": "submission\n"}, "it is a whole batch, graded without --shard"),
    "not JSON": ({"shard.json": "{"}, "cannot be read"),
    "another format": ({"shard.json": json.dumps({"format": "other"})}, "is not a shard's manifest of this grader"),
    "a field missing": (
        {"shard.json": json.dumps({k: v for k, v in _manifests(1)[0].items() if k not in ("folder", "of")})},
        "of is missing or not a int",
    ),
    "run facts missing a count": (
        {
            "shard.json": json.dumps(
                {**_manifests(1)[0], "folder": "", "run": {**RUN.shown(), "graded in this run": None}}
            )
        },
        "the run's 'graded in this run' is missing or not a int: grade the shard again",
    ),
    "run facts not a mapping": (
        {"shard.json": json.dumps({**_manifests(1)[0], "folder": "", "run": ["jobs", 2]})},
        "run is missing or not a dict",
    ),
    "not signed": (
        {"shard.json": json.dumps({**_manifests(1)[0], "folder": ""})},
        "shard.json is not the manifest its shard wrote (its signature does not match: edited, or signed with "
        "another key): grade shard 1/1 again into an empty folder",
    ),
    "a path as an id": (
        {"shard.json": json.dumps({**_manifests(1)[0], "folder": "", "submissions": ["../../etc"]})},
        "'../../etc' is not a submission id",
    ),
}


@pytest.mark.parametrize("case", NOT_SHARDS.values(), ids=NOT_SHARDS.keys())
def test_merge_refuses_what_is_not_a_finished_shard(case, tmp_path):
    """Is a folder that is not a finished shard's output refused, saying what it is and what to do,
    before anything is written?"""
    files, message = case
    folder = tmp_path / "shard"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        merge.merge(tmp_path / "merged", [folder], lab=default_lab())
    assert not (tmp_path / "merged").exists()


def test_merged_run_facts_say_what_every_shard_did():
    """Do the merged shards' facts give the last shard's time, the counts of all of them, the range
    of their jobs and every isolation mode, in the report's order?"""
    others = [
        replace(RUN, graded_at="2026-12-02 11:30:00", graded_now=5, skipped=0, jobs=4, isolation="uid"),
        replace(RUN, graded_at="2026-12-02 09:00:00", graded_now=7, skipped=2, jobs=10),
    ]
    manifests = [{"run": run} for run in (RUN, *others)]
    assert merge._run(manifests).shown() == {
        "graded at (UTC)": "2026-12-02 11:30:00",
        "submissions": 0,
        "graded in this run": 24,
        "skipped (already graded)": 3,
        "time taken": "",
        "jobs": "2 to 10 (by shard)",
        "isolation": "jail, uid",
        "similarity": "",
        "rubric": "grading.yml",
        "reference": "expected.json",
        "grader": "lab05-autograder test",
    }
    assert merge._run([{"run": RUN}, {"run": replace(RUN, isolation="jail")}]).jobs == 2  # one value: itself


def test_a_shards_run_facts_read_back_as_written():
    """Does a shard's manifest give back the facts the shard wrote (through JSON), defaults included?"""
    assert RunFacts.from_shown(json.loads(json.dumps(RUN.shown())), "shard.json") == RUN
    later = replace(RUN, time_taken="3.0 s", similarity="none", jobs="2 to 4 (by shard)")
    assert RunFacts.from_shown(json.loads(json.dumps(later.shown())), "shard.json") == later


def test_merge_refuses_to_write_into_a_shard(tmp_path):
    """Is OUT refused when it is one of the shards' folders?"""
    with pytest.raises(ValueError, match="is one of the shards"):
        merge.merge(tmp_path, [tmp_path], lab=default_lab())


# ---------------------------------------------------------------- shard + merge == one batch


def assert_same_batch(single: Path, merged: Path, ids: list[str], facts: tuple[str, ...] = ()) -> None:
    """grades.csv byte for byte, the class report but its timing (and the run's ``facts`` of these
    labels), and every submission's files (grade.json but its time and sandbox uid)."""
    assert (merged / output_paths.GRADES).read_bytes() == (single / output_paths.GRADES).read_bytes()
    report = (merged / output_paths.REPORT).read_text()
    assert without_timing(report, facts) == without_timing((single / output_paths.REPORT).read_text(), facts)
    assert report != without_timing(report)  # the masks above removed something: they are not vacuous
    for submission in ids:
        one, other = (
            output_paths.submission_folder(single, submission),
            output_paths.submission_folder(merged, submission),
        )
        assert sorted(path.name for path in other.iterdir()) == sorted(path.name for path in one.iterdir())
        for name in ("results.json", "feedback.md", "feedback.html"):
            assert (other / name).read_bytes() == (one / name).read_bytes(), (submission, name)
        grades = [json.loads((folder / "grade.json").read_text()) for folder in (one, other)]
        for grade in grades:
            grade.pop("execution_time"), grade.pop("instructor_log")
        assert grades[0] == grades[1], submission


def graded_in_shards(paths_, out: Path, count: int, seed: str | None, rubric: Path = paths.RUBRIC) -> list[Path]:
    folders = []
    for index in range(1, count + 1):
        folder = out / f"shard{index}"
        summary = batch.grade_batch(
            paths_,
            folder,
            jobs=2,
            progress=False,
            seed=seed,
            shard=shards.Shard(index, count),
            rubric_path=rubric,
            lab=default_lab(),
        )
        assert summary.shard == shards.Shard(index, count)
        assert not (folder / output_paths.GRADES).exists() and (folder / shards.MANIFEST).is_file()
        folders.append(folder)
    return folders


@pytest.mark.sandbox
@pytest.mark.slow
def test_shards_of_the_examples_merge_into_the_single_batch(tmp_path, cranfield):
    """Graded as 3 shards (one of them empty) and merged: are grades.csv, the class report (its
    similarity section included) and every submission's files those of the examples graded as one
    batch with the same seed, and is an LMS import of both the same?"""
    examples = [paths.ROOT / "examples" / "submissions"]
    single = tmp_path / "single"
    summary = batch.grade_batch(examples, single, jobs=2, progress=False, seed="shards", lab=default_lab())
    folders = graded_in_shards(examples, tmp_path, 3, "shards")
    merged = merge.merge(tmp_path / "merged", folders, lab=default_lab())
    ids = [result.submission for result in summary.results]
    assert [result.submission for result in merged.results] == ids and len(ids) == 5
    assert merged.similarity is not None and merged.similarity.pairs  # the section has pairs to compare
    assert_same_batch(single, tmp_path / "merged", ids)
    roster = Path(__file__).parents[1] / "fixtures" / "lms" / "moodle.csv"
    imports = [export.build("moodle", roster, folder, "Lab 05").text for folder in (single, tmp_path / "merged")]
    assert imports[0] == imports[1]


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_shard_graded_with_another_rubric_is_refused(tmp_path, cranfield):
    """Shard 3/3 of the examples (empty) graded with other points: does merge refuse it, naming the
    shard and the rubric, and write nothing?"""
    examples = [paths.ROOT / "examples" / "submissions"]
    (tmp_path / "small").mkdir()
    rubric = subs.small_rubric(tmp_path / "small")  # the rubrics' digests, not Cranfield's checks
    other = _retitled(rubric, tmp_path / "grading.yml")
    folders = graded_in_shards(examples, tmp_path, 3, "shards", rubric)
    shutil.rmtree(folders[2])
    batch.grade_batch(
        examples,
        folders[2],
        jobs=1,
        progress=False,
        seed="x",
        shard=shards.Shard(3, 3),
        rubric_path=other,
        lab=default_lab(),
    )
    with pytest.raises(ValueError, match=re.escape(f"shard 3/3 ({folders[2]}) differs in the rubric's digest")):
        merge.merge(tmp_path / "merged", folders, lab=default_lab())
    assert not (tmp_path / "merged").exists()


# ---------------------------------------------------------------- shards edited after grading

#: The examples' shards (ada-correct, dan-broken, eve-cheating in shard 1 of 3; shard 3 is empty).
TAMPERED = "ada-correct"


def _retitled(rubric: Path, to: Path) -> Path:
    """``rubric`` with another title (so another digest), written to ``to``."""
    text = rubric.read_text(encoding="utf-8")
    retitled = text.replace("title: 'Lab 05", "title: 'Lab 05 (again)", 1)
    assert retitled != text, f"no title: 'Lab 05 in {rubric} to change"
    to.write_text(retitled, encoding="utf-8")
    return to


def _edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _regraded(otherwise: str):
    """Shard 3/3 (empty) graded again with another ``seed``, ``rubric`` (a title changed) or
    ``class`` (a sixth submission in the folder)."""

    def tamper(folders: list[Path], tmp: Path, monkeypatch) -> None:
        shutil.rmtree(folders[2])
        (tmp / "small").mkdir()
        examples, rubric = paths.ROOT / "examples" / "submissions", subs.small_rubric(tmp / "small")
        if otherwise == "rubric":
            rubric = _retitled(rubric, tmp / "grading.yml")
        if otherwise == "class":
            examples = tmp / "another-class"
            shutil.copytree(paths.ROOT / "examples" / "submissions", examples)
            shutil.copytree(examples / "bob-partial", examples / "zed-late")
        seed = "another seed" if otherwise == "seed" else "tamper"
        batch.grade_batch(
            [examples],
            folders[2],
            jobs=1,
            progress=False,
            seed=seed,
            shard=shards.Shard(3, 3),
            rubric_path=rubric,
            lab=default_lab(),
        )

    return tamper


def _in(folder: int, name: str, change=None, text: str | None = None, remove: bool = False):
    """Shard ``folder``'s file ``name`` of the tampered submission: a JSON field changed, a text
    written (a file added or replaced) or the file removed."""

    def tamper(folders: list[Path], tmp: Path, monkeypatch) -> None:
        path = output_paths.submission_folder(folders[folder - 1], TAMPERED) / name
        if remove:
            path.unlink()
        elif text is not None:
            path.write_text(text)
        else:
            _edit_json(path, change)

    return tamper


def _manifest_edit(change, relist: bool = False):
    """Shard 1's shard.json edited (``relist``: grade.json edited too, and its digest listed anew)."""

    def tamper(folders: list[Path], tmp: Path, monkeypatch) -> None:
        if relist:
            _in(1, "grade.json", lambda grade: grade.update(score=100.0))(folders, tmp, monkeypatch)
        _edit_json(folders[0] / shards.MANIFEST, change)
        if relist:
            _edit_json(
                folders[0] / shards.MANIFEST,
                lambda manifest: manifest["files"].update({TAMPERED: shards.listing(folders[0], TAMPERED)}),
            )

    return tamper


def _kept_from_another_seed(folders: list[Path], tmp: Path, monkeypatch) -> None:
    """Shard 1 as a grader that kept a grade drawn from another seed would have written it: the
    grade's seed changed, its files listed anew and the manifest signed again with the key."""
    _in(1, "grade.json", lambda grade: grade.update(random_seed="0" * 32))(folders, tmp, monkeypatch)
    path = folders[0] / shards.MANIFEST
    manifest = json.loads(path.read_text())
    manifest["files"][TAMPERED] = shards.listing(folders[0], TAMPERED)
    manifest[shards.SIGNATURE] = shards.sign(manifest, shards.key())
    path.write_text(json.dumps(manifest))


def _another_key(folders: list[Path], tmp: Path, monkeypatch) -> None:
    monkeypatch.setenv(shards.KEY_VARIABLE, "another course's secret")


def _one_student(grade: dict) -> None:
    grade["students"] = [{"name": "Mallory", "email": "mallory@example.edu", "sid": "666"}]


#: id: (how the shards are tampered with, what merge's message says)
TAMPERINGS = {
    "score edited in grade.json": (
        _in(1, "grade.json", lambda grade: grade.update(score=100.0)),
        f"shard 1/3 ({{0}}): in {{0}}/submissions/{TAMPERED}, grade.json was changed since the shard wrote "
        "shard.json: grade shard 1/3 again",
    ),
    "identity edited in grade.json": (
        _in(1, "grade.json", _one_student),
        f"in {{0}}/submissions/{TAMPERED}, grade.json was changed",
    ),
    "results.json edited": (
        _in(1, "results.json", lambda results: results.update(score=100.0)),
        f"in {{0}}/submissions/{TAMPERED}, results.json was changed",
    ),
    "a graded file edited": (
        _in(1, "graded/metrics.py", text="ANSWERS = {}\n"),
        f"in {{0}}/submissions/{TAMPERED}, graded/metrics.py was changed",
    ),
    "a file added": (_in(1, "notes.md", text="Score: 100\n"), "notes.md was added"),
    "a file removed": (_in(1, "feedback.html", remove=True), "feedback.html is missing"),
    "manifest edited": (
        _manifest_edit(lambda manifest: manifest.update(seed="tamper2")),
        "{0}/shard.json is not the manifest its shard wrote (its signature does not match",
    ),
    "manifest and grade.json edited together": (
        _manifest_edit(lambda manifest: None, relist=True),
        "{0}/shard.json is not the manifest its shard wrote",
    ),
    "merged with another key": (_another_key, "{0}/shard.json is not the manifest its shard wrote"),
    "a shard from another seed": (_regraded("seed"), "differs in the random cases' seed"),
    "a shard of another rubric": (_regraded("rubric"), "differs in the rubric's digest"),
    "a grade kept from another seed, signed": (
        _kept_from_another_seed,
        f"shard 1/3 ({{0}}): {TAMPERED}'s random cases were not drawn from the shard's --seed 'tamper'",
    ),
    "a shard of another batch": (
        _regraded("class"),
        "differs in the class (the submissions found): 6 submissions, 5 in shard 1/3",
    ),
}


@pytest.fixture(scope="module")
def examples_in_shards(tmp_path_factory, cranfield):
    """The examples graded as 3 shards with the seed "tamper" (shard 3 empty), once for the module, on
    the small rubric (``subs.small_rubric``: what a shard records and merge checks is the claim, not
    Cranfield's checks), which is ``grading.yml`` beside the shards' folders."""
    examples, folder = [paths.ROOT / "examples" / "submissions"], tmp_path_factory.mktemp("shards")
    return graded_in_shards(examples, folder, 3, "tamper", subs.small_rubric(folder))


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("case", TAMPERINGS.values(), ids=TAMPERINGS.keys())
def test_merge_refuses_a_tampered_shard(case, examples_in_shards, tmp_path, monkeypatch):
    """Each change made to a shard's folder after it was graded (a score, an identity, a file
    added or removed, its manifest, another seed, rubric or class): does merge refuse it, naming
    the shard and the file, with exit status 2 and nothing written?"""
    from autograder import cli

    tamper, message = case
    monkeypatch.delenv(shards.KEY_VARIABLE, raising=False)
    folders = [tmp_path / folder.name for folder in examples_in_shards]
    for original, folder in zip(examples_in_shards, folders):
        shutil.copytree(original, folder)
    tamper(folders, tmp_path, monkeypatch)
    with pytest.raises(ValueError, match=re.escape(message.format(folders[0]))):
        merge.merge(tmp_path / "merged", folders, lab=default_lab())
    assert not (tmp_path / "merged").exists()
    assert cli.main(["merge", str(tmp_path / "merged"), *map(str, folders)]) == 2
    assert not (tmp_path / "merged").exists()


@pytest.mark.sandbox
@pytest.mark.slow
def test_graded_shards_record_where_they_ran_and_status_says_done(examples_in_shards):
    """Does each shard graded keep its run record (its shard, this process) and does status over
    their folder say every one done (the manifest written last wins over the run record)?"""
    from autograder.local import shard_status

    for index, folder in enumerate(examples_in_shards, 1):
        record = json.loads((folder / shards.RUNNING).read_text())
        assert (record["shard"], record["of"], record["pid"]) == (index, 3, os.getpid())
    states = shard_status.survey(examples_in_shards[0].parent, queue=lambda job: None)
    assert [state.state for state in states] == ["done", "done", "done"]


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_shard_graded_again_with_another_seed_draws_every_case_anew(examples_in_shards, tmp_path, monkeypatch):
    """Shard 1 graded again in its folder with another --seed (its files unchanged): is every
    submission graded again, saying why, its grade drawn from the new seed (none kept from the
    old one, which merge would otherwise take for the new)?"""
    from autograder.local import resume

    monkeypatch.delenv(shards.KEY_VARIABLE, raising=False)
    folder = tmp_path / "shard1"
    shutil.copytree(examples_in_shards[0], folder)
    examples = [paths.ROOT / "examples" / "submissions"]
    summary = batch.grade_batch(
        examples,
        folder,
        jobs=2,
        progress=False,
        seed="another",
        shard=shards.Shard(1, 3),
        rubric_path=examples_in_shards[0].parent / "grading.yml",  # the shards' own
        lab=default_lab(),
    )
    assert summary.graded == len(summary.results) == 3 and summary.skipped == 0
    assert {why for _, why, _, _ in summary.changes} == {"its random cases were drawn from another --seed"}
    for result in summary.results:
        grade = json.loads((output_paths.submission_folder(folder, result.submission) / "grade.json").read_text())
        assert grade["random_seed"] == resume.seed_of("another", result.files) != resume.seed_of("tamper", result.files)


@pytest.mark.sandbox
@pytest.mark.slow
def test_untouched_copies_of_the_shards_merge(examples_in_shards, tmp_path, monkeypatch):
    """The same shards copied and not changed (so that the refusals above are about the changes):
    do they merge, every submission in, is the merged batch a copy (a shard's file edited after
    the merge changes nothing in it), and is a shard checked with another key refused?"""
    monkeypatch.delenv(shards.KEY_VARIABLE, raising=False)
    folders = [tmp_path / folder.name for folder in examples_in_shards]
    for original, folder in zip(examples_in_shards, folders):
        shutil.copytree(original, folder)
    merged = merge.merge(tmp_path / "merged", folders, lab=default_lab())
    assert [result.submission for result in merged.results] == sorted(
        path.name for path in paths.ROOT.glob("examples/submissions/*")
    )
    merged_file = output_paths.submission_folder(tmp_path / "merged", TAMPERED) / "results.json"
    before = merged_file.read_bytes()
    (output_paths.submission_folder(folders[0], TAMPERED) / "results.json").write_text('{"score": 100}')
    assert merged_file.read_bytes() == before and merged_file.stat().st_nlink == 1
    monkeypatch.setenv(shards.KEY_VARIABLE, "the course's secret, shared")
    with pytest.raises(ValueError, match="signature does not match"):
        merge.merge(
            tmp_path / "again", folders, lab=default_lab()
        )  # signed with the cache's key, checked with the course's


@pytest.mark.sandbox
@pytest.mark.slow
def test_without_a_seed_shards_and_a_second_grading_match_the_first(tmp_path, cranfield, monkeypatch):
    """With no --seed (random cases drawn from the course secret and the files): are the examples
    graded twice, and graded as 2 shards merged, the same files as one batch, byte for byte, each
    recording the same seed and never the secret?"""
    monkeypatch.delenv("AUTOGRADER_COURSE_SECRET")  # the secret made beside this rubric, not the suite's
    examples = [paths.ROOT / "examples" / "submissions"]
    rubric = subs.small_rubric(tmp_path)  # the seeds and the files, not Cranfield's checks
    first = batch.grade_batch(
        examples, tmp_path / "first", jobs=2, progress=False, rubric_path=rubric, lab=default_lab()
    )
    secret = (tmp_path / "course-secret").read_text(encoding="utf-8").strip()
    batch.grade_batch(examples, tmp_path / "second", jobs=2, progress=False, rubric_path=rubric, lab=default_lab())
    folders = graded_in_shards(examples, tmp_path, 2, None, rubric)
    merge.merge(tmp_path / "merged", folders, lab=default_lab())
    ids = [result.submission for result in first.results]
    assert len(ids) == 5 and all(result.random_seed for result in first.results if result.checks)
    assert_same_batch(tmp_path / "first", tmp_path / "second", ids)
    assert_same_batch(tmp_path / "first", tmp_path / "merged", ids)
    written = [path for path in (tmp_path / "first").rglob("*") if path.is_file()]
    assert written and not [path for path in written if secret in path.read_text(errors="replace")]
