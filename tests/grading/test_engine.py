"""The grading engine end to end: full marks, zero marks, the rubric, the reference, the outputs."""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import subprocess
import sys
import time
import zipfile

import pytest

from autograder import paths
from autograder.grading import reference, rubric
from autograder.grading.results import points
from autograder.grading.rubric import RubricError
from autograder.lab import cases, spec
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.reports import gradescope_json
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory, cranfield):
    """The reference solution and the stubs, in several submission layouts, graded once."""
    folder = tmp_path_factory.mktemp("engine")
    inbox = folder / "in"
    subs.write(inbox / "flat", {})
    nested = inbox / "nested" / "my-work" / "lab05"
    nested.mkdir(parents=True)
    for name in spec.GRADED_FILES:
        (nested / name).write_text(subs.SOLUTION[name])
    with zipfile.ZipFile(inbox / "zipped.zip", "w") as archive:
        for name in spec.GRADED_FILES:
            archive.writestr(f"lab05/{name}", subs.SOLUTION[name])
    subs.write(inbox / "stubs", {name: paths.handout_file(name).read_text() for name in spec.GRADED_FILES})
    subs.write(
        inbox / "ln-dcg",
        {
            "metrics.py": subs.with_function(
                "metrics.py",
                """
        import math
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            grades = [max(judgments.get(d, 0), 0) for d in ranking[:k]]
            return sum((2 ** g - 1 if gain == "exp" else g) / math.log(i + 2) for i, g in enumerate(grades))
        """,
            )
        },
    )
    summary = batch.grade_batch([inbox], folder / "out", jobs=2, progress=False, lab=default_lab())
    return {result.submission: result for result in summary.results}, folder


@pytest.mark.parametrize("layout_name", ["flat", "nested", "zipped"])
def test_solutions_get_full_marks(batch_run, layout_name):
    """Does the reference solution get 100/100 flat, one folder deep in lab05/, and zipped?"""
    result = batch_run[0][layout_name]
    assert result.status == "graded" and result.problems == () and result.flags == ()
    assert [check.name for check in result.checks if check.score != check.max_score] == []
    assert result.score == 100


def test_stubs_get_zero_without_a_crash(batch_run):
    """Do the stubs score 0, every case failing by the stub's own NotImplementedError?"""
    result = batch_run[0]["stubs"]
    assert result.status == "graded" and result.score == 0
    statuses = {case.status for check in result.checks for case in check.cases}
    assert statuses <= {"error", "fail"}
    errors = [case.message for check in result.checks for case in check.cases if case.status == "error"]
    assert errors and all("NotImplementedError" in message for message in errors)
    assert not any(flag.kind in ("crash", "timeout") for flag in result.flags)


def test_every_check_is_named_by_function(batch_run):
    """Is every results.json test named '<function>: <what it checks>', for an API function?"""
    document = json.loads((batch_run[1] / "out" / "submissions" / "flat" / "results.json").read_text())
    names = [test["name"] for test in document["tests"]]
    assert "average_precision: all Cranfield queries" in names and "write_run: TREC format" in names
    assert all(name.split(": ")[0] in spec.FUNCTIONS for name in names)


def _check_schema(document: dict) -> None:
    """Gradescope's results.json: documented top-level fields and per-test fields and types."""
    assert isinstance(document["score"], (int, float)) and isinstance(document["execution_time"], (int, float))
    assert isinstance(document["output"], str) and isinstance(document["tests"], list)
    assert set(document) <= {
        "score",
        "execution_time",
        "output",
        "output_format",
        "test_output_format",
        "test_name_format",
        "visibility",
        "stdout_visibility",
        "extra_data",
        "tests",
        "leaderboard",
    }
    for test in document["tests"]:
        assert set(test) <= {
            "score",
            "max_score",
            "status",
            "name",
            "name_format",
            "number",
            "output",
            "output_format",
            "tags",
            "visibility",
            "extra_data",
        }
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in spec.VISIBILITIES
    assert abs(sum(test["score"] for test in document["tests"]) - document["score"]) < 1e-6


@pytest.mark.parametrize("name", ["flat", "stubs"])
def test_results_json_follows_gradescope_schema(batch_run, name):
    """Is results.json valid against Gradescope's documented fields, types and visibility values?"""
    _check_schema(json.loads((batch_run[1] / "out" / "submissions" / name / "results.json").read_text()))


def test_grades_csv_has_one_row_per_submission(batch_run):
    """Does grades.csv hold each submission once, with per-question points and the total?"""
    rows = list(csv.DictReader((batch_run[1] / "out" / "grades.csv").open()))
    assert sorted(row["submission"] for row in rows) == ["flat", "ln-dcg", "nested", "stubs", "zipped"]
    flat = next(row for row in rows if row["submission"] == "flat")
    questions = rubric.load(
        default_lab().place.rubric, default_lab()
    ).questions  # the solution earns every question's points
    assert len(questions) >= 6 and all(question.id in flat for question in questions)
    assert [flat[q.id] for q in questions] == [points(sum(c.points for c in q.checks)) for q in questions]
    assert (
        flat["total"] == points(rubric.load(default_lab().place.rubric, default_lab()).total)
        and flat["status"] == "graded"
    )


def test_hidden_cases_never_show_the_answer(batch_run):
    """For a failing hidden case, does the student's text name what was tested and that it was wrong,
    but neither the answer nor the student's own value (which could carry the hidden inputs)?"""
    result = batch_run[0]["ln-dcg"]
    case = next(case for check in result.checks for case in check.cases if case.id == "edge-dcg_at_k-rank-2")
    assert not case.public and case.status == "fail" and abs(case.expected - 2 / math.log2(3)) < 1e-12
    text = (
        json.dumps(gradescope_json.document(result, lab=default_lab()))
        + (batch_run[1] / "out" / "submissions" / "ln-dcg" / "feedback.md").read_text()
    )
    assert "hidden case: a single relevant doc at rank 2 is divided by log2(3) (k=2)" in text
    # neither the answer nor the student's own (2 / ln 3), but where a public random case's own value
    # happens to hold the same digits (fresh random cases each grading), that is not this case's leak
    public = {
        value_text
        for check in result.checks
        for shown in check.cases
        if shown.public
        for value_text in (repr(shown.expected), repr(shown.actual), shown.message)
    }
    for secret in ("1.26185", "1.82047"):
        assert secret not in text or any(secret in value for value in public), secret


def test_rerun_skips_graded_and_force_regrades(batch_run):
    """Does grading the same folder again skip what is done, and --force grade it again?"""
    folder = batch_run[1]
    again = batch.grade_batch([folder / "in"], folder / "out", jobs=1, progress=False, lab=default_lab())
    assert (again.graded, again.skipped) == (0, 5)
    forced = batch.grade_batch(
        [folder / "in" / "flat"], folder / "out", jobs=1, force=True, progress=False, lab=default_lab()
    )
    assert forced.graded == 1 and forced.results[0].score == 100


def test_changed_submission_is_graded_again(batch_run, tmp_path):
    """If a student's file changes, is the stored grade ignored and the submission regraded?"""
    folder = batch_run[1]
    inbox = tmp_path / "in"
    subs.write(inbox / "flat", {})
    out = tmp_path / "out"
    small = subs.small_rubric(tmp_path)  # what is stored and when it is regraded, not Cranfield's checks
    batch.grade_batch([inbox], out, jobs=1, progress=False, rubric_path=small, lab=default_lab())
    (inbox / "flat" / "metrics.py").write_text(paths.handout_file("metrics.py").read_text())
    again = batch.grade_batch([inbox], out, jobs=1, progress=False, rubric_path=small, lab=default_lab())
    assert again.graded == 1 and again.results[0].score < 100
    assert folder.exists()


def test_killed_batch_loses_nothing(tmp_path, cranfield):
    """Killed mid-batch, does a new run keep what was written and grade only the rest?"""
    inbox = tmp_path / "in"
    for number in range(6):
        subs.write(inbox / f"s{number}", {})
    out = tmp_path / "out"
    small = subs.small_rubric(tmp_path)  # what a killed batch keeps, not Cranfield's checks
    grade = ["grade", str(inbox), "--out", str(out), "--jobs", "1", "--rubric", str(small)]
    process = subprocess.Popen(
        [sys.executable, "-m", "autograder", *grade],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(out.glob("submissions/*/grade.json"))) < 2:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done = {path.parent.name for path in out.glob("submissions/*/grade.json")}
    assert 2 <= len(done) < 6
    assert not list(out.rglob("*.partial")) or True  # a write cut short leaves only a hidden .partial
    for name in done:
        json.loads((out / "submissions" / name / "grade.json").read_text())  # complete JSON, not half a file
    summary = batch.grade_batch([inbox], out, jobs=2, progress=False, rubric_path=small, lab=default_lab())
    assert summary.skipped == len(done) and summary.graded == 6 - len(done)
    assert all(result.score == 100 for result in summary.results)


def test_gradescope_export_names_students(tmp_path, cranfield):
    """For Gradescope's export layout, do the students' names, emails and SIDs reach grades.csv, a
    group's members each on a row of their own with the group's submission and points?"""
    export = tmp_path / "export"
    subs.write(export / "submission_101", {})
    subs.write(export / "submission_102", {"runs.py": paths.handout_file("runs.py").read_text()})
    (export / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :name: Ada Lovelace\n    :email: ada@example.edu\n    :sid: '1815'\n"
        "  :score: 0\nsubmission_102:\n  :submitters:\n  - :name: Alan Turing\n    :email: alan@example.edu\n"
        "    :sid: '1912'\n  - :name: Grace Hopper\n    :email: grace@example.edu\n    :sid: '1906'\n"
    )
    small = subs.small_rubric(tmp_path)  # the students' names, not Cranfield's checks; the same points a function
    batch.grade_batch([export], tmp_path / "out", jobs=2, progress=False, rubric_path=small, lab=default_lab())
    rows = {row["name"]: row for row in csv.DictReader((tmp_path / "out" / "grades.csv").open())}
    assert set(rows) == {"Ada Lovelace", "Alan Turing", "Grace Hopper"}  # a row per student, group members each
    ada = rows["Ada Lovelace"]
    assert (ada["submission"], ada["sid"], ada["email"], ada["total"]) == (
        "submission_101",
        "1815",
        "ada@example.edu",
        "100",
    )
    for name, email, sid in (
        ("Alan Turing", "alan@example.edu", "1912"),
        ("Grace Hopper", "grace@example.edu", "1906"),
    ):
        row = rows[name]
        assert (row["submission"], row["email"], row["sid"]) == ("submission_102", email, sid)
        assert float(row["total"]) == 100 - 18


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=600)


def test_cli_exits_2_with_a_message_when_the_rubric_is_bad(tmp_path):
    """Does a broken rubric stop the grader with exit 2 and a message naming the field?"""
    bad = tmp_path / "grading.yml"
    bad.write_text(paths.RUBRIC.read_text().replace("total: 100", "total: 90"))
    subs.write(tmp_path / "in" / "one", {})
    result = _cli("grade", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--rubric", str(bad))
    assert result.returncode == 2
    assert "grading.yml: total: is 90 but the checks' points add up to 100" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_exits_0_for_any_scores(tmp_path, cranfield):
    """Does grading exit 0 when every submission got a result, however bad?"""
    (tmp_path / "in" / "nothing").mkdir(parents=True)
    result = _cli("grade", str(tmp_path / "in"), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "1 could not be graded" in result.stdout


RUBRIC_ERRORS = [
    (
        "unknown-key",
        lambda t: t.replace("random_cases: 40", "random_cases: 40\ncolour: red"),
        "grading.yml: colour: unknown key",
    ),
    ("missing-field", lambda t: t.replace("random_seed: 20261130\n", ""), "grading.yml: random_seed: is missing"),
    (
        "points-do-not-add-up",
        lambda t: t.replace(
            "{function: accuracy, kind: edge, points: 1}", "{function: accuracy, kind: edge, points: 2}"
        ),
        "total: is 100 but the checks' points add up to 101",
    ),
    (
        "unknown-function",
        lambda t: t.replace("function: accuracy, kind: edge", "function: f1_score, kind: edge"),
        "questions.q1.checks.4.function: 'f1_score' is not a function of the student API",
    ),
    (
        "kind-for-another-function",
        lambda t: t.replace("{function: accuracy, kind: edge", "{function: accuracy, kind: cranfield"),
        "questions.q1.checks.4.kind: 'cranfield' is not a kind of check for accuracy",
    ),
    (
        "bad-visibility",
        lambda t: t.replace(
            "{function: accuracy, kind: edge, points: 1}",
            "{function: accuracy, kind: edge, points: 3, visibility: secret}",
        ),
        "questions.q1.checks.4.visibility: 'secret' is not one of visible, hidden, after_due_date, after_published",
    ),
    (
        "negative-limit",
        lambda t: t.replace("call_seconds: 5", "call_seconds: -1"),
        "limits.call_seconds: must be positive",
    ),
    (
        "wrong-type",
        lambda t: t.replace("memory_mb: 512", "memory_mb: lots"),
        "limits.memory_mb: must be a whole number (int), got 'lots'",
    ),
    (
        "duplicate-check",
        lambda t: t.replace(
            "{function: accuracy, kind: edge, points: 1}", "{function: accuracy, kind: examples, points: 3}"
        ),
        'the check "accuracy: the notes\' examples" appears twice',
    ),
    ("not-yaml", lambda t: t + "\n  - : [", "grading.yml: not valid YAML"),
]


@pytest.mark.parametrize("edit, message", [row[1:] for row in RUBRIC_ERRORS], ids=[row[0] for row in RUBRIC_ERRORS])
def test_invalid_rubric_is_an_error_naming_the_field(edit, message):
    """Does each kind of rubric mistake raise RubricError naming the file, the field and the fix?"""
    with pytest.raises(RubricError) as raised:
        rubric.parse(edit(paths.RUBRIC.read_text()), lab=default_lab())
    assert message in str(raised.value)


def test_rubric_is_valid_and_adds_up():
    """Is grading.yml valid, 100 points, with every function of the API graded?"""
    loaded = rubric.load(default_lab().place.rubric, default_lab())
    assert loaded.total == 100 and {check.function for check in loaded.checks} == set(spec.FUNCTIONS)


def test_reference_regenerates_identically(cranfield):
    """Does `python -m autograder reference` reproduce the committed expected.json byte for byte?"""
    assert reference.dumps(reference.generate(default_lab())) == default_lab().place.reference.read_text(
        encoding="utf-8"
    )


def test_stale_reference_is_refused(cranfield, tmp_path):
    """If the stored Cranfield values do not match the data, does loading say to regenerate?"""
    stored = json.loads(default_lab().place.reference.read_text())
    stored["cranfield"]["tfidf"]["AP"]["1"] += 0.01
    path = tmp_path / "expected.json"
    path.write_text(json.dumps(stored))
    with pytest.raises(reference.ReferenceDataError, match="run `python -m autograder reference`"):
        reference.load(default_lab(), path, bundle=cranfield)


def test_public_examples_match_the_reference(lab05):
    """Do the notes' values of the public cases equal what the reference solution returns?"""
    for case, expected in cases.example_cases():
        if case.function in ("write_run", "evaluate"):
            continue
        value = reference.solution_value(default_lab(), lab05, case)
        assert value == pytest.approx(list(expected) if isinstance(expected, tuple) else expected), case.id


#: id: (the plan's cache key, the seeds drawn in turn, how many drawings value their cases)
REDRAWN = {
    "a-regrade-values-once": ("plan-key", ["abc", "abc"], 1),
    "another-seed-is-valued": ("plan-key", ["abc", "xyz"], 2),
    "a-plan-not-from-the-cache-keeps-nothing": ("", ["abc", "abc"], 2),
}


@pytest.mark.parametrize("key, seeds, valued", list(REDRAWN.values()), ids=list(REDRAWN))
def test_random_cases_of_a_seed_are_valued_once(key, seeds, valued, cranfield, tmp_path, monkeypatch):
    """Does a plan from the cache value a seed's random cases once (a regrade of the same files
    draws them from the cache, the same cases and answers), and value another seed's, or any seed's
    of a plan not from the cache, afresh?"""
    from autograder.grading import plan as planning

    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))
    built = planning.build(
        default_lab(), rubric.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    built.key = key
    drawings = []
    original = built._drawn
    monkeypatch.setattr(built, "_drawn", lambda seed: drawings.append(seed) or original(seed))
    planned = [
        [(p.case.id, p.case.args, p.case.kwargs, p.expected) for p in built.for_submission(seed).planned]
        for seed in seeds
    ]
    assert len(drawings) == valued
    assert (planned[0] == planned[1]) is (seeds[0] == seeds[1])
    assert any(p.kind == "random" for p in built.for_submission(seeds[0]).planned)


#: id: (the plan's cache key, the run files' digests in turn, how many evaluations by ir_measures)
REEVALUATED = {
    "a-regrade-evaluates-once": ("plan-key", ["d1", "d1"], 1),
    "another-file-is-evaluated": ("plan-key", ["d1", "d2"], 2),
    "a-plan-not-from-the-cache-keeps-nothing": ("", ["d1", "d1"], 2),
    "a-file-without-a-digest-is-evaluated-each-time": ("plan-key", ["", ""], 2),
}


@pytest.mark.parametrize("key, digests, evaluations", list(REEVALUATED.values()), ids=list(REEVALUATED))
def test_a_run_file_is_evaluated_once(key, digests, evaluations, cranfield, tmp_path, monkeypatch):
    """Does a plan from the cache evaluate a run file by ir_measures once (a regrade of the same
    file, the same digest, reads the aggregates from the cache, the same values), and another file,
    or any file of a plan not from the cache, afresh?"""
    from autograder.grading import plan as planning
    from autograder.grading import runfile_checks

    monkeypatch.setenv("AUTOGRADER_CACHE", str(tmp_path / "cache"))
    built = planning.build(
        default_lab(), rubric.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    built.key = key
    query = sorted(built.qrels, key=int)[0]
    relevant = sorted(built.qrels[query])[:2]
    table = [[query, "Q0", doc, str(rank), f"{2.0 - rank:.8f}", "bm25"] for rank, doc in enumerate(relevant, 1)]
    calls = []
    original = runfile_checks.evaluate_run
    monkeypatch.setattr(runfile_checks, "evaluate_run", lambda *args: calls.append(args[-1]) or original(*args))
    values = [runfile_checks._evaluated(built, table, digest) for digest in digests]
    assert len(calls) == evaluations
    assert values[0] == values[1] and values[0]["AP"] > 0


def test_random_cases_are_drawn_afresh_and_reproducible_from_their_seed(cranfield):
    """Does one seed draw the same random cases every time, another seed others, and do 20 fresh
    gradings share (almost) no random call: no pool a table of answers could hold?"""
    from autograder.grading import plan as planning

    loaded = rubric.load(default_lab().place.rubric, default_lab())
    built = planning.build(default_lab(), loaded, reference.load(default_lab()), cranfield)
    calls = lambda seed: [
        repr((p.case.args, p.case.kwargs))
        for p in built.for_submission(seed).planned
        if p.kind == "random" and not p.case.form  # a case again in another call form is no new draw
    ]
    first, again, other = calls("abc"), calls("abc"), calls("xyz")
    assert (
        first == again
        and first != other
        and len(first) == loaded.random_cases * sum(check.kind == "random" for check in loaded.checks)
    )
    drawn = [call for _ in range(20) for call in calls(planning.fresh_seed())]
    repeated = len(drawn) - len(set(drawn))
    assert repeated < 0.03 * len(drawn), repeated  # only the tiniest inputs (an empty ranking...) recur
