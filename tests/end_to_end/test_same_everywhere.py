"""One grade wherever it is computed: the same submissions graded by a local batch (its own child
environment in the jail; Debian's Python in the uid mode), by Gradescope's run_autograder and by
PrairieLearn's entrypoint get the same score and the same words, for honest code, for code using
numpy (allowed) and for code importing pandas (not allowed: grading.yml's allowed_imports); a
local batch and run_autograder write the same results.json bytes, timing aside."""

from __future__ import annotations

import json
import re

import pytest

from autograder import paths
from autograder.grading import rubric as rubrics
from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from autograder.local import batch
from autograder.platforms.gradescope import entry
from tests.platforms.test_build import run_autograder
from tests.platforms.test_prairielearn import built, image_home, run_entrypoint, world  # noqa: F401 (fixtures)
from tests.support import subs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

NUMPY = subs.with_function(
    "metrics.py",
    """
    import numpy as np

    def dcg_at_k(ranking, judgments, k, gain="linear"):
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        if gain not in ("linear", "exp"):
            raise ValueError(f"unknown gain {gain!r}")
        grades = np.array([max(judgments.get(doc, 0), 0) for doc in list(ranking)[:k]], dtype=float)
        gains = grades if gain == "linear" else 2.0**grades - 1
        return float(np.sum(gains / np.log2(np.arange(2, len(grades) + 2)))) if len(grades) else 0.0
    """,
)
PANDAS = subs.SOLUTION["metrics.py"].replace(
    "from __future__ import annotations\n", "from __future__ import annotations\nimport pandas\n", 1
)
SUBMISSIONS = {"honest": {}, "numpy": {"metrics.py": NUMPY}, "pandas": {"metrics.py": PANDAS}}
SCORES = {"honest": 100, "numpy": 100, "pandas": 18}  # pandas: runs.py's write_run only
REFUSED = "pandas may not be imported in this lab's graded code: it may import Python's standard library and numpy"


def _files(name: str) -> dict:
    return {**subs.SOLUTION, **SUBMISSIONS[name]}


@pytest.fixture(scope="module")
def local(tmp_path_factory, cranfield):
    """The three graded by a local batch in the jail (the default child environment) and in the uid
    mode (Debian's /usr/bin/python3, as the platforms' tests run it): {mode: {name: (score, text)}}."""
    found = {}
    for mode, options in {
        "jail": {"isolation": "jail"},
        "uid": {"isolation": "uid", "python": "/usr/bin/python3"},
    }.items():
        folder = tmp_path_factory.mktemp(f"same-{mode}")
        for name in SUBMISSIONS:
            subs.write(folder / "in" / name, SUBMISSIONS[name])
        summary = batch.grade_batch(
            [folder / "in"], folder / "out", jobs=2, progress=False, lab=default_lab(), **options
        )
        found[mode] = {
            result.submission: (
                result.score,
                (folder / "out" / "submissions" / result.submission / "results.json").read_text(),
            )
            for result in summary.results
        }
    return found


def test_the_rubric_allows_numpy_only():
    """Does grading.yml declare what graded code may import, numpy alone?"""
    assert rubrics.load(default_lab().place.rubric, default_lab()).allowed_imports == ("numpy",)


@pytest.mark.parametrize("mode", ["jail", "uid"])
def test_a_local_batch_grades_as_declared(local, mode):
    """In a local batch, does each get its score, the pandas import refused with the same words?"""
    graded = local[mode]
    assert {name: score for name, (score, _) in graded.items()} == SCORES
    assert REFUSED in graded["pandas"][1]


#: Graded here on both platforms. The honest code is the solutions, which test_build.py
#: (``test_solutions_get_full_marks_on_gradescope``: 100) and test_prairielearn.py
#: (``TestEntrypoint.test_solutions_score_1``: 1) grade in the auto mode: not graded twice.
ON_THE_PLATFORMS = ("numpy", "pandas")


def test_the_honest_code_is_what_the_platforms_own_tests_grade():
    """Is the honest submission exactly the solutions that test_build.py and test_prairielearn.py
    grade in the auto mode (run_autograder must give them 100, the entrypoint 1), and 100 its score
    in a local batch, so that those tests prove its row of ``test_gradescope_and_prairielearn_grade_alike``?"""
    from tests.platforms import test_build as build_tests
    from tests.platforms import test_prairielearn as prairielearn_tests

    solutions = {name: subs.SOLUTION[name] for name in spec.GRADED_FILES}
    assert _files("honest") == solutions == prairielearn_tests.GRADED
    assert SCORES["honest"] == 100 and {*ON_THE_PLATFORMS, "honest"} == set(SUBMISSIONS)
    for test in (build_tests.test_solutions_get_full_marks_on_gradescope, prairielearn_tests.TestEntrypoint):
        modes = [mark.args[1] for mark in test.pytestmark if mark.name == "parametrize"]
        assert modes == [["auto", "uid"]], (test.__name__, modes)


@pytest.mark.parametrize("name", ON_THE_PLATFORMS)
def test_gradescope_and_prairielearn_grade_alike(name, local, gradescope_root, request, tmp_path):
    """Through Gradescope's run_autograder and PrairieLearn's entrypoint, does each get the score and
    the words it gets in a local batch (the honest code: ``ON_THE_PLATFORMS``' comment)?"""
    gradescope = run_autograder(gradescope_root, _files(name), "auto")
    home, question = request.getfixturevalue("image_home"), request.getfixturevalue("built")["question"]
    prairielearn = run_entrypoint(home, tmp_path / "grade", question, _files(name), "auto")
    assert gradescope["score"] == SCORES[name] == local["jail"][name][0], gradescope["output"][:3000]
    assert round(100 * prairielearn["score"], 2) == SCORES[name]
    if name == "pandas":
        assert REFUSED in json.dumps(gradescope) and REFUSED in json.dumps(prairielearn)


SEED_LOGGED = re.compile(r"random seed (\S+),")


def _without_time(document: dict) -> dict:
    return {key: value for key, value in document.items() if key != "execution_time"}


def test_the_same_buggy_files_get_the_same_cases_on_both_platforms(gradescope_root, request, tmp_path):
    """A buggy submission that fails random cases, graded twice through run_autograder and once
    through the PrairieLearn entrypoint: are Gradescope's two results.json the same (timing aside),
    do all three gradings log the same random seed (drawn from the shipped course secret), and
    does PrairieLearn give the same score (it keeps 6 decimals of the fraction)?"""
    files = {
        path.name: path.read_bytes()
        for path in sorted((paths.ROOT / "examples" / "submissions" / "carol-buggy").rglob("*.py"))
    }
    logs: list = []
    first = run_autograder(gradescope_root, files, "auto", output=logs)
    second = run_autograder(gradescope_root, files, "auto", output=logs)
    home, question = request.getfixturevalue("image_home"), request.getfixturevalue("built")["question"]
    prairielearn = run_entrypoint(home, tmp_path / "grade", question, files, "auto", output=logs)
    seeds = [match for text in logs for match in SEED_LOGGED.findall(str(text))]
    assert 0 < first["score"] < 100, first["score"]  # it loses points: the random cases are at stake
    assert _without_time(first) == _without_time(second)
    assert len(seeds) == 3 and len(set(seeds)) == 1 and seeds[0] != "(none)", seeds
    assert abs(100 * prairielearn["score"] - first["score"]) < 1e-3, (prairielearn["score"], first["score"])


#: The fields that say how long grading took: the only ones two gradings of the same files may differ in.
TIMING = ("execution_time",)


def _bytes_without_timing(text: str) -> bytes:
    document = json.loads(text)
    return json.dumps({key: value for key, value in document.items() if key not in TIMING}, indent=1).encode()


@pytest.mark.parametrize("example", ["carol-buggy", "dan-broken"])
def test_a_local_batch_and_run_autograder_write_the_same_bytes(example, tmp_path, cranfield):
    """The same files, course secret and rubric, graded by a local batch and through run_autograder's
    Python entry (both in the uid mode with Debian's Python): is results.json, the feedback included,
    the same byte for byte, timing aside?"""
    files = {
        path.name: path.read_bytes()
        for path in sorted((paths.ROOT / "examples" / "submissions" / example).rglob("*.py"))
    }
    local_in = tmp_path / "local" / "submission"  # the id Gradescope's run gives it
    local_in.mkdir(parents=True)
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    for name, data in files.items():
        (local_in / name).write_bytes(data)
        (root / "submission" / name).write_bytes(data)
    options = {"isolation": "uid", "python": "/usr/bin/python3"}
    batch.grade_batch([tmp_path / "local"], tmp_path / "out", jobs=1, progress=False, lab=default_lab(), **options)
    entry.run(root, log=lambda line: None, **options)
    local_text = (tmp_path / "out" / "submissions" / "submission" / "results.json").read_text(encoding="utf-8")
    gradescope_text = (root / "results" / "results.json").read_text(encoding="utf-8")
    local_document, gradescope_document = json.loads(local_text), json.loads(gradescope_text)
    assert 0 <= local_document["score"] < 100  # it loses points: the random cases are at stake
    assert _bytes_without_timing(local_text) == _bytes_without_timing(gradescope_text), [
        key
        for key in set(local_document) | set(gradescope_document)
        if local_document.get(key) != gradescope_document.get(key)
    ]
