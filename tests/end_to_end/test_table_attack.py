"""A grade that cannot be bought: a metrics.py holding no metric code, only a table of answers
built from every public source and the feedback of 20 earlier gradings (``tests/support/tables.py``),
scores at most ``LIMIT`` on its own, in every isolation mode and through both platforms' entry
points, while the solutions keep their 100 beside it."""

from __future__ import annotations

import pytest

from autograder.grading import plan as planning
from autograder.grading import reference
from autograder.grading import rubric as rubrics
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from tests.end_to_end.test_hostile_submissions import MODES
from tests.platforms.test_build import run_autograder
from tests.platforms.test_prairielearn import built, image_home, run_entrypoint, world  # noqa: F401 (fixtures)
from tests.support import subs, tables

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

LIMIT = 35  # points of 100 (issue 17); the rubric's defaults give it about 20


@pytest.fixture(scope="module")
def attack(cranfield):
    plan = planning.build(
        default_lab(), rubrics.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    return tables.attack(plan)


def test_the_table_answers_every_public_call(attack, cranfield):
    """Is the table complete for what is public (so the attack is as strong as a student can make
    it): every notes example and Cranfield call of a grading finds its answer?"""
    plan = planning.build(
        default_lab(), rubrics.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    table = tables.table(plan)
    public = [p for p in plan.shared_cases if p.case.public]
    missing = [p.case.id for p in public if tables._entry(p, plan.shared_job["tables"])[0] not in table]
    assert public and missing == []


@pytest.mark.parametrize("mode", list(MODES))
def test_a_table_of_answers_scores_little_in_a_local_batch(mode, attack, tmp_path, cranfield):
    """In each isolation mode, does the table attack score at most LIMIT (and at least what the public
    checks give, i.e. the table did answer them), flagged for the instructor, beside a correct
    submission that keeps 100 unflagged?"""
    subs.write(tmp_path / "in" / "table", attack)
    subs.write(tmp_path / "in" / "correct", {})
    rubric = subs.test_rubric(tmp_path)
    if mode == "container":
        from tests.support import container_sim

        results = container_sim.grade(tmp_path / "in", tmp_path / "out", rubric, 2)
    else:
        summary = batch.grade_batch(
            [tmp_path / "in"],
            tmp_path / "out",
            jobs=2,
            progress=False,
            rubric_path=rubric,
            lab=default_lab(),
            **MODES[mode],
        )
        results = {result.submission: result for result in summary.results}
    assert 10 <= results["table"].score <= LIMIT, results["table"].score
    assert any(flag.kind == "answers" for flag in results["table"].flags), results["table"].flags
    assert results["correct"].score == 100 and not any(flag.kind == "answers" for flag in results["correct"].flags)


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_a_table_of_answers_scores_little_on_a_platform(platform, attack, request, gradescope_root, tmp_path):
    """Through Gradescope's run_autograder and PrairieLearn's entrypoint, does the table attack score
    at most LIMIT?"""
    if platform == "gradescope":
        document = run_autograder(gradescope_root, attack, "uid")
        score = document["score"]
    else:
        home, question = request.getfixturevalue("image_home"), request.getfixturevalue("built")["question"]
        score = 100 * run_entrypoint(home, tmp_path / "grade", question, attack, "uid")["score"]
    assert 10 <= score <= LIMIT, score


def test_a_table_keyed_by_parts_of_the_arguments_is_flagged(cranfield, tmp_path):
    """Is a metrics.py that looks every public answer up by a key made of parts of the arguments
    (sizes, first and last items: nothing hashed, nothing whole serialised), from a table packed
    in letters, flagged for the instructor with the function and the table it returns an entry
    of, while it scores at most LIMIT beside an honest runs.py (issue 29: it scored 31 unflagged)?"""
    plan = planning.build(
        default_lab(), rubrics.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    subs.write(tmp_path / "in" / "parts", tables.parts_attack(plan))
    summary = batch.grade_batch(
        [tmp_path / "in"],
        tmp_path / "out",
        jobs=1,
        progress=False,
        rubric_path=subs.test_rubric(tmp_path),
        lab=default_lab(),
    )
    (result,) = summary.results
    flags = [flag.text for flag in result.flags if flag.kind == "answers"]
    assert flags and "confusion_matrix returns an entry of _TABLE (line " in flags[0], result.flags
    assert 10 <= result.score <= LIMIT, result.score
