"""Shared fixtures: the reference lab05 package, the Cranfield reference, handout copies, and
headless Chromium for the pages' browser tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from autograder import paths
from autograder.labkit import load

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which the tests import

from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from tests.support import cpu_times, scheduling

#: The test suite's course secret (``grading/course_secret.py``): fixed, so that a fresh clone's
#: gradings draw the same random cases on every run (a secret made at random by the first build
#: would make a test whose outcome depends on a draw pass or fail by clone). It is public, so never
#: a course's own: it lives in a temporary file, never beside the repository's rubric.
TEST_COURSE_SECRET = "664a83aecda4ef2292ce236714d5634e21b06cb92e19b2ef8bf6f3a4543bb6a2"
_SECRET_FILE = Path(tempfile.mkdtemp(prefix="lab05-test-secret-")) / "course-secret"
_SECRET_FILE.write_text(TEST_COURSE_SECRET + "\n", encoding="utf-8")
_SECRET_FILE.chmod(0o600)
os.environ["AUTOGRADER_COURSE_SECRET"] = str(_SECRET_FILE)

CRANFIELD_MISSING = (
    "Cranfield is not available to ir_datasets: these tests need it. Seed the cache with "
    "`.venv/bin/python -m autograder seed-cranfield FOLDER` (a folder holding cran.all.1400, "
    "cran.qry, cranqrel; `make test` does it from ../shared/cranfield) or set IR_DATASETS_HOME."
)


@pytest.fixture(scope="session")
def lab05():
    """The reference package: solutions' graded files with the handout's given files."""
    from autograder.lab.solution import load_lab05

    return load_lab05()


@pytest.fixture(scope="session")
def cranfield(lab05):
    """The Cranfield reference bundle (runs, rankings, ir_measures values per query)."""
    from autograder.errors import SetupError
    from autograder.lab import cranfield as reference

    try:
        return reference.bundle()
    except (lab05.data.CranfieldUnavailable, SetupError) as error:  # the engine's SetupError carries its message
        pytest.fail(f"{CRANFIELD_MISSING}\n{error}", pytrace=False)


def build_dist(out: Path) -> dict:
    """autograder.zip and handout.zip built into ``out``."""
    from autograder.handout import build as handout
    from autograder.platforms.gradescope import build

    return {
        "autograder": build.build(out / "autograder.zip", lab=default_lab()),
        "handout": handout.build(default_lab(), out / "handout.zip"),
    }


@pytest.fixture(scope="session")
def dist(tmp_path_factory, cranfield):
    """The builds, once per test run."""
    return build_dist(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def gradescope_root(dist, tmp_path_factory):
    """autograder.zip unpacked as Gradescope does, and what setup.sh does offline (the user, the
    permissions; installing is skipped: the packages are here)."""
    if os.getuid() != 0:
        pytest.fail(
            "the Gradescope simulation creates a user and drops privileges: run it as root (CI does)", pytrace=False
        )
    root = tmp_path_factory.mktemp("autograder-root")
    source = root / "source"
    source.mkdir()
    with zipfile.ZipFile(dist["autograder"]) as archive:
        archive.extractall(source)
        for info in archive.infolist():
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    environment = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_SKIP_INSTALL": "1"}
    subprocess.run(["bash", str(source / "setup.sh")], check=True, env=environment, timeout=120)
    return root


def make_handout(target: Path, graded_dir: Path | None = None) -> Path:
    """A copy of the handout in ``target``, its graded files taken from ``graded_dir`` if given,
    without the environment check (tests/test_environment.py): these copies run in the grader's
    environment, whose numpy is not the graded one; that check runs on its own in
    tests/grading/test_allowed_imports.py and in the handout's own environment in test_handout_install.py."""
    shutil.copytree(paths.HANDOUT, target, ignore=shutil.ignore_patterns("__pycache__", "*.run"))
    (target / "tests" / "test_environment.py").unlink()
    if graded_dir is not None:
        for name in spec.GRADED_FILES:
            shutil.copyfile(Path(graded_dir) / name, target / "lab05" / name)
    return target


def pytest_addoption(parser):
    """``--cpu-times N``: after the run, the N test files that took most CPU time (``tests/support/cpu_times.py``)."""
    parser.addoption(
        "--cpu-times",
        type=int,
        default=None,
        metavar="N",
        help="after the run, the N test files that took most CPU time (user and system, waited-for children "
        "included), with their wall time and tests",
    )


def pytest_configure(config):
    """``--cpu-times N`` registers its recorder (``tests/support/cpu_times.py``)."""
    count = config.getoption("cpu_times")
    if count is not None:
        config.pluginmanager.register(cpu_times.Recorder(count), "cpu-times")


def pytest_collection_modifyitems(config, items):
    """Tests that use the Cranfield reference are marked ``cranfield``, so that a machine without
    it can select them out (``-m "not cranfield"``) instead of failing them one by one. Under
    ``--dist loadgroup`` (``make test``), the slow groups go first (``tests/support/scheduling.py``)."""
    for item in items:
        if "cranfield" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cranfield)
    if getattr(config.option, "loadgroup", False):  # an xdist worker of --dist loadgroup
        groups = [scheduling.group_of(item.nodeid) for item in items]
        order = scheduling.slow_first(groups, [item.get_closest_marker("slow") is not None for item in items])
        items[:] = [items[index] for index in order]


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: a file's tests on one worker, the files ``scheduling.SPLIT`` names
    split by their parameter (``tests/support/scheduling.py``)."""
    if config.getvalue("dist") == "loadgroup":
        return scheduling.Groups(config, log)
    return None


CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1200,2000",
]
ARTIFACTS = paths.ROOT / "test-artifacts"


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, driven by selenium (its console log kept)."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.fail(
            "this test needs Debian's chromium and chromium-driver (.ci/run installs them: "
            "apt-get install chromium chromium-driver)",
            pytrace=False,
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def open_page(browser):
    """Load a page (a local file, and a fragment of it if given), keep a screenshot in
    test-artifacts/, and fail on any console error."""

    def load(path: Path, screenshot: str, fragment: str = ""):
        browser.get(path.as_uri() + fragment)
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / screenshot))
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == [], errors
        return browser

    return load
