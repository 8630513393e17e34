"""``python -m autograder try``: a built grader run on one submission as its platform runs it, so an
instructor can trust the build before students see it.

Gradescope's ``autograder.zip`` is unpacked into ``ROOT/source``, its ``setup.sh`` run, then its
``run_autograder`` on ``ROOT/submission``: a root laid out as Gradescope's ``/autograder``, results in
``ROOT/results/results.json``. PrairieLearn's build (the folder ``build --target prairielearn``
wrote) is laid out as its grader image (the Dockerfile's ``COPY`` lines into ``ROOT/image``, then
``setup.sh``) and as the grading container's ``/grade`` (``ROOT/grade``: the upload in ``student/``,
the question's ``tests/``, ``results/``), and its entrypoint run. As on the platforms, setup.sh runs
as root (it creates the user student code runs as); what it would install is this machine's: the
grader's interpreter running this command and the children's environment (``make setup``).

The account setup.sh creates (``isolation.SANDBOX_USER``) stays afterwards, as on the platforms,
where it lives in the image: a later ``try`` or a platform's own run reuses it, and removing it
while another grading runs as it would break that grading. When this ``try`` created it, the
summary says so and how to remove it (``Trial.made_user``).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from autograder import environment
from autograder.errors import InputError, MissingError, SetupError
from autograder.sandbox import isolation as isolations

#: What marks a PrairieLearn build's folder (``build --target prairielearn``): its question and image.
PRAIRIELEARN_PARTS = ("question/info.json", "image/Dockerfile", "image/entrypoint")
#: The file the platform's script's output (what instructors see) is kept in, in the root.
OUTPUT = "output.txt"


@dataclass(frozen=True)
class Trial:
    platform: str  # "Gradescope" or "PrairieLearn"
    root: Path  # the temporary root laid out as the platform's
    results: Path  # the results.json the platform would read
    output: Path  # what the platform's script printed (what instructors see)
    status: int  # the script's exit status
    document: dict[str, Any]  # results.json, {} when it was not written
    made_user: bool = False  # this trial's setup.sh created the sandbox account (it stays)

    def summary(self) -> str:
        """One line: the score as the platform shows it (or why there is none) and where the files are."""
        tests = self.document.get("tests", [])
        if "score" not in self.document:
            said = f"no score (the script exited {self.status}; why: {self.output})"
        elif self.platform == "Gradescope":
            total = sum(test.get("max_score", 0) for test in tests)
            said = f"score {self.document['score']:g} of {total:g}"
        else:
            total = sum(test.get("max_points", 0) for test in tests)
            said = f"score {self.document['score']:g} (of 1; {self.document['score'] * total:g} of {total:g} points)"
        line = f"{self.platform}: {said}; results in {self.results}; the platform's output in {self.output}"
        if self.made_user:
            user = isolations.SANDBOX_USER
            line += (
                f"\nnote: setup.sh created the account {user} (student code runs as it) and it stays, as in the "
                f"platform's image: a later try reuses it; remove it when no grading runs, with: userdel {user}"
            )
        return line


def run(
    built: Path,
    submission: Path,
    root: Path | None = None,
    python: str | None = None,
    isolation: str = "auto",
    metadata: Path | None = None,
) -> Trial:
    """Run ``built`` (autograder.zip, or a PrairieLearn build's folder) on ``submission`` (a folder of
    the files a student uploads, or one file such as a zip) in ``root`` (default: a new temporary
    folder, kept afterwards), the children in ``python`` (default: the children's environment);
    ``metadata``: Gradescope's ``submission_metadata.json`` for the run (its ``created_at`` is the
    submission's time), copied into the root (default: none, so nothing is late)."""
    built, submission = Path(built), Path(submission)
    if not submission.exists():
        raise MissingError(f"try: the submission {submission} does not exist: name a folder of graded files or a zip")
    if os.getuid() != 0:
        raise SetupError(
            "try: the platform's setup.sh runs as root (it creates the user student code runs as, as on "
            "Gradescope and PrairieLearn): run this command as root, e.g. with sudo"
        )
    if metadata is not None and not Path(metadata).is_file():
        raise MissingError(f"try: --metadata {metadata} is not a file: name a submission_metadata.json")
    existed = _has_user(isolations.SANDBOX_USER)
    if built.is_file() and zipfile.is_zipfile(built):
        done = _gradescope(built, submission, _root(root), _environment(python, isolation), metadata)
        return replace(done, made_user=not existed and _has_user(isolations.SANDBOX_USER))
    if built.is_dir() and all((built / part).is_file() for part in PRAIRIELEARN_PARTS):
        if metadata is not None:
            raise InputError("try: --metadata is Gradescope's submission_metadata.json; PrairieLearn's run reads none")
        done = _prairielearn(built, submission, _root(root), _environment(python, isolation))
        return replace(done, made_user=not existed and _has_user(isolations.SANDBOX_USER))
    raise InputError(
        f"try: {built} is neither an autograder.zip nor a PrairieLearn build (a folder holding "
        f"{', '.join(PRAIRIELEARN_PARTS)}): name what `python -m autograder build` wrote"
    )


def _has_user(name: str) -> bool:
    """Is there an account ``name`` on this machine?"""
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _root(root: Path | None) -> Path:
    """A fresh root every user may pass through, as / is on the platforms (the sandbox user must
    reach its own copy of the submission below it)."""
    if root is None:
        root = Path(tempfile.mkdtemp(prefix="autograder-try-"))
    elif root.exists() and any(root.iterdir()):
        raise InputError(f"try: --root {root} is not empty: name a new or empty folder (nothing in it is replaced)")
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    return root


def _environment(python: str | None, isolation: str) -> dict[str, str]:
    """This process's environment without the grader's variables (the scripts set their own), with
    the interpreters setup.sh would have installed and the isolation asked for."""
    prefixes = (environment.PREFIX, environment.OLD_PREFIX, "IR_DATASETS")
    variables = {key: value for key, value in os.environ.items() if not key.startswith(prefixes)}
    variables[environment.name("PYTHON")] = sys.executable
    variables[environment.name("CHILD_PYTHON")] = python or isolations.default_child_python()
    variables[environment.name("ISOLATION")] = isolation
    return variables


def _place(submission: Path, target: Path) -> None:
    """The upload: a folder's files (and folders), or the one file, into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    if submission.is_dir():
        shutil.copytree(submission, target, dirs_exist_ok=True)
    else:
        shutil.copy2(submission, target / submission.name)


def _script(command: list[str], variables: dict[str, str], output: Path) -> int:
    """Run a platform's script from /, its output (stdout and stderr) into ``output``; its status."""
    with output.open("wb") as sink:
        done = subprocess.run(command, env=variables, stdout=sink, stderr=subprocess.STDOUT, cwd="/", check=False)
    return done.returncode


def _setup(source: Path, variables: dict[str, str], output: Path) -> None:
    """setup.sh, installing nothing (this machine's interpreters stand in for what it installs)."""
    setup = {**variables, environment.name("SOURCE"): str(source), environment.name("SKIP_INSTALL"): "1"}
    if _script(["bash", str(source / "setup.sh")], setup, output) != 0:
        raise SetupError(f"try: setup.sh failed (its output: {output}): is this the build's own setup.sh?")


def _results(path: Path) -> dict[str, Any]:
    try:
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document


def _gradescope(
    built: Path, submission: Path, root: Path, variables: dict[str, str], metadata: Path | None = None
) -> Trial:
    """Gradescope's /autograder: source/ (the zip, modes kept), submission/, results/, and
    submission_metadata.json when ``metadata`` is given."""
    source = root / "source"
    with zipfile.ZipFile(built) as archive:
        archive.extractall(source)
        for info in archive.infolist():
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    _place(submission, root / "submission")
    (root / "results").mkdir()
    if metadata is not None:
        shutil.copyfile(metadata, root / "submission_metadata.json")
    variables = {**variables, environment.name("ROOT"): str(root)}
    _setup(source, variables, root / "setup-output.txt")
    output = root / OUTPUT
    status = _script(["bash", str(source / "run_autograder")], variables, output)
    results = root / "results" / "results.json"
    return Trial(
        platform="Gradescope", root=root, results=results, output=output, status=status, document=_results(results)
    )


def _prairielearn(built: Path, submission: Path, root: Path, variables: dict[str, str]) -> Trial:
    """PrairieLearn's grader image (its Dockerfile's COPY lines, then setup.sh) and its /grade:
    student/ (the upload), tests/ (the question's, as PrairieLearn copies them), data/, results/."""
    image = root / "image"
    for line in (built / "image" / "Dockerfile").read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and len(words) == 3:
            origin, target = built / "image" / words[1], image / words[2].lstrip("/")
            if origin.is_dir():
                shutil.copytree(origin, target)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, target)
    entrypoint = next(image.rglob("entrypoint"))
    home = entrypoint.parent
    _setup(home / "source", variables, root / "setup-output.txt")
    grade = root / "grade"
    _place(submission, grade / "student")
    shutil.copytree(built / "question" / "tests", grade / "tests")
    (grade / "data").mkdir()
    (grade / "data" / "data.json").write_text(json.dumps({"params": {}, "submitted_answers": {}}), encoding="utf-8")
    os.chmod(grade, 0o755)
    variables = {**variables, environment.name("GRADE_ROOT"): str(grade), environment.name("HOME"): str(home)}
    output = root / OUTPUT
    status = _script(["bash", str(entrypoint)], variables, output)
    results = grade / "results" / "results.json"
    return Trial(
        platform="PrairieLearn", root=root, results=results, output=output, status=status, document=_results(results)
    )
