"""handout.zip with Cranfield (`build --with-cranfield`): the handout plus the three collection
files, from which a student fills ir_datasets' cache offline with `python -m lab05.data seed cranfield`."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from autograder.handout import build as handout
from autograder.labkit.load import default as default_lab

pytestmark = [pytest.mark.cranfield]

CRANFIELD_NAMES = ["cran.all.1400", "cran.qry", "cranqrel"]


@pytest.mark.parametrize(
    ("cranfield", "added"),
    [(False, []), (True, [f"lab05-handout/cranfield/{name}" for name in CRANFIELD_NAMES])],
    ids=["default", "with-cranfield"],
)
def test_cranfield_is_added_only_when_asked(lab05, tmp_path, cranfield, added):
    """Does the handout hold Cranfield's three files (the cache's bytes) exactly when built with it?"""
    plain = zipfile.ZipFile(handout.build(default_lab(), tmp_path / "plain.zip")).namelist()
    with zipfile.ZipFile(handout.build(default_lab(), tmp_path / "handout.zip", cranfield=cranfield)) as archive:
        assert sorted(archive.namelist()) == sorted(plain + added)
        for name in added:
            cached = lab05.data.cache_dir() / lab05.data.CRANFIELD_FILES[name.rsplit("/", 1)[1]]
            assert archive.read(name) == cached.read_bytes(), name
    assert not any(name.startswith("lab05-handout/cranfield/") for name in plain)


def test_student_seeds_cranfield_from_the_handout(cranfield, tmp_path):
    """Offline, does `python -m lab05.data seed cranfield` in the unpacked handout make Cranfield load?"""
    with zipfile.ZipFile(handout.build(default_lab(), tmp_path / "handout.zip", cranfield=True)) as archive:
        archive.extractall(tmp_path)
    folder, home = tmp_path / "lab05-handout", tmp_path / "home"
    offline = {"https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"}
    environment = {**os.environ, "IR_DATASETS_HOME": str(home), **offline}
    environment.pop("PYTHONPATH", None)

    def run(*args):
        return subprocess.run(
            [sys.executable, *args], cwd=folder, capture_output=True, text=True, env=environment, timeout=300
        )

    seeded = run("-m", "lab05.data", "seed", "cranfield")
    assert seeded.returncode == 0, seeded.stderr
    loaded = run("-c", "from lab05 import data; print(len(data.load_queries()), len(data.load_qrels()))")
    assert loaded.stdout.split() == ["225", "225"], loaded.stderr


def test_with_cranfield_needs_the_gradescope_target(tmp_path):
    """Does `build --target prairielearn --with-cranfield` exit 2 saying which target builds the handout?"""
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "build", "--target", "prairielearn", "--with-cranfield"]
        + ["--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2
    assert "--with-cranfield adds Cranfield to handout.zip, which only the gradescope target builds" in result.stderr
    assert "Traceback" not in result.stderr and not any(tmp_path.iterdir())
