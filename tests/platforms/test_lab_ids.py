"""A second lab built for Gradescope and PrairieLearn names its own ids (the question's, the image's,
the tags and uuids) and nothing of Lab 05: every built file but the engine's own code (scanned by
``tests/project/test_lab_names.py``) is free of "lab05" but for the lines kept for older setups."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import reference
from autograder.labkit.lab import Lab
from autograder.labkit.load import default as default_lab
from autograder.labkit.load import load
from autograder.platforms.gradescope import build as gradescope
from autograder.platforms.prairielearn import build as prairielearn
from tests.project.test_lab_names import ALLOWED, _unexplained

pytestmark = [pytest.mark.slow]

SECOND_LAB = paths.ROOT / "tests" / "fixtures" / "lab06"

#: A built file -> the template it is (so the lines kept for older setups are allowed in it alone).
TEMPLATES = {
    "run_autograder": "platforms/gradescope/templates/run_autograder",
    "image/entrypoint": "platforms/prairielearn/templates/entrypoint",
    "image/Dockerfile": "platforms/prairielearn/templates/Dockerfile",
}


@pytest.fixture(scope="module")
def lab06(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """Lab 06 copied, its hidden reference written (a build ships it)."""
    folder = tmp_path_factory.mktemp("lab06") / "lab06"
    shutil.copytree(SECOND_LAB, folder)
    lab = load(folder)
    reference.write(lab)
    return lab


def _built(out: Path, lab: Lab) -> dict[str, str]:
    """``lab``'s Gradescope zip and PrairieLearn folders, file by file (text files only), but the engine's code."""
    files: dict[str, bytes] = {}
    with zipfile.ZipFile(gradescope.build(out / "autograder.zip", lab)) as built:
        files.update({name: built.read(name) for name in built.namelist() if not name.endswith("/")})
    for part, folder in prairielearn.build(out / "prairielearn", lab).items():
        files.update(
            {
                f"{part}/{path.relative_to(folder).as_posix()}": path.read_bytes()
                for path in folder.rglob("*")
                if path.is_file()
            }
        )
    texts = {}
    for name, data in files.items():
        if name.startswith(("autograder/", "image/source/autograder/")):
            continue  # the engine's own code, the same for every lab
        try:
            texts[TEMPLATES.get(name, name)] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def test_lab06_built_names_no_lab05(tmp_path: Path, lab06: Lab) -> None:
    """Does Lab 06, built for Gradescope and PrairieLearn, name "lab05" nowhere in what it ships but
    on the lines kept for setups made before (the scripts' old account, the image's old home)?"""
    texts = _built(tmp_path, lab06)
    assert len(texts) > 10 and "run_autograder" in str(list(TEMPLATES)) and "question/info.json" in texts
    assert _unexplained(texts, ALLOWED) == []


def test_lab06_s_question_names_its_own_ids(tmp_path: Path, lab06: Lab) -> None:
    """Does Lab 06's PrairieLearn question carry Lab 06's id, tags, default image and uuids, none of
    Lab 05's?"""
    lab05 = default_lab()
    folders = prairielearn.build(tmp_path, lab06)
    info = json.loads((folders["question"] / "info.json").read_text(encoding="utf-8"))
    assessment = json.loads((folders["assessment"] / "infoAssessment.json").read_text(encoding="utf-8"))
    assert info["tags"][0] == prairielearn.question_id(lab06) == "lab06"
    assert info["externalGradingOptions"]["image"] == prairielearn.default_image(lab06) == "lab06-autograder:latest"
    assert assessment["zones"][0]["questions"][0]["id"] == "lab06"
    assert (
        info["uuid"]
        == prairielearn.question_uuid(lab06, info["title"])
        != prairielearn.question_uuid(lab05, info["title"])
    )
    assert "<code>lab06/</code>" in (folders["question"] / "question.html").read_text(encoding="utf-8")
