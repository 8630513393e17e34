"""One exception tree: what a user can cause is a ``UsageError``, which the command line turns into
``error: MESSAGE`` and exit 2; anything else is a bug, shown with its traceback, a request to report
it and exit 1 (``autograder/errors.py``, ``autograder/cli.py: _main``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from autograder import cli, errors
from autograder.grading import course_secret, judge, reference, rubric
from autograder.grading.course import metadata
from autograder.platforms.gradescope import attempts
from autograder.sandbox import interpreter, isolation, leases, proof, seccomp


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``(exit status, stderr)`` of ``python -m autograder ARGV``, run in this process."""
    try:
        code = cli.main(argv)
    except SystemExit as stopped:  # argparse refuses an argument this way
        code = int(stopped.code or 0)
    return code, capsys.readouterr().err


def _not_yaml(folder: Path) -> Path:
    (folder / "grading.yml").write_text("questions: [\n", encoding="utf-8")
    return folder / "grading.yml"


def _a_file(folder: Path) -> Path:
    (folder / "a-file").write_text("not a folder\n", encoding="utf-8")
    return folder / "a-file"


# (id, the command given a scratch folder, what stderr must say)
MISTAKES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    (
        "grade-a-missing-submission",
        lambda tmp: ["grade", str(tmp / "absent"), "--out", str(tmp / "out")],
        "no such submission or folder: {tmp}/absent",
    ),
    (
        "grade-a-shard-past-the-count",
        lambda tmp: ["grade", str(tmp), "--out", str(tmp / "out"), "--shard", "5/2"],
        "--shard 5/2: the shard must be 1 to N of N shards",
    ),
    (
        "grade-an-unknown-times-source",
        lambda tmp: ["grade", str(tmp), "--out", str(tmp / "out"), "--times", "sundial"],
        "--times 'sundial' is not a source of submission times",
    ),
    (
        "grade-with-a-missing-rubric",
        lambda tmp: ["grade", str(tmp), "--out", str(tmp / "out"), "--rubric", str(tmp / "absent.yml")],
        "cannot read the rubric {tmp}/absent.yml",
    ),
    (
        "grade-with-a-rubric-that-is-not-yaml",
        lambda tmp: ["grade", str(tmp), "--out", str(tmp / "out"), "--rubric", str(_not_yaml(tmp))],
        "grading.yml: not valid YAML",
    ),
    (
        "grade-into-a-file",
        lambda tmp: ["grade", str(tmp), "--out", str(_a_file(tmp) / "out")],
        "argument --out: {tmp}/a-file is a file, not a folder",
    ),
    (
        "merge-a-folder-that-is-no-shard",
        lambda tmp: ["merge", str(tmp / "out"), str(tmp / "absent")],
        "{tmp}/absent is not a finished shard (no shard.json)",
    ),
    (
        "export-an-unknown-lms",
        lambda tmp: ["export", str(tmp), "--lms", "slate", "--roster", str(tmp / "r.csv"), "--out", str(tmp / "x")],
        "unknown LMS 'slate': choose one of",
    ),
    (
        "export-a-folder-that-was-never-graded",
        lambda tmp: ["export", str(tmp / "absent"), "--lms", "canvas", "--roster", "r.csv", "--out", str(tmp / "x")],
        "no graded batch at {tmp}/absent",
    ),
    (
        "export-into-a-folder",
        lambda tmp: ["export", str(tmp), "--lms", "canvas", "--roster", str(tmp / "r.csv"), "--out", str(tmp)],
        "argument --out: {tmp} is a folder: name the file to write",
    ),
    (
        "seed-cranfield-from-an-empty-folder",
        lambda tmp: ["seed-cranfield", str(tmp)],
        "missing cran.all.1400, cran.qry, cranqrel",
    ),
    (
        "build-cranfield-into-prairielearn",
        lambda tmp: ["build", "--target", "prairielearn", "--with-cranfield", "--out", str(tmp / "dist")],
        "--with-cranfield adds Cranfield to handout.zip",
    ),
]


@pytest.mark.parametrize("command, said", [(make, said) for _, make, said in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_a_users_mistake_is_a_message_and_exit_2(command, said, tmp_path, capsys):
    """Does a mistake a user can fix exit 2 with one message naming what is wrong, and no traceback?"""
    code, stderr = _main(command(tmp_path), capsys)
    assert code == 2, stderr
    assert said.format(tmp=tmp_path) in stderr
    assert "Traceback" not in stderr and cli.BUG not in stderr
    assert stderr.startswith("error: ") or stderr.startswith("usage: "), stderr


def test_an_output_folder_this_user_cannot_write_is_refused_before_the_command(tmp_path, monkeypatch, capsys):
    """Is an --out under a folder this user may not write a usage error naming that folder (exit 2),
    never a traceback once grading has begun?"""
    monkeypatch.setattr("autograder.cli.os.access", lambda path, mode: Path(path) != tmp_path)
    code, stderr = _main(["grade", str(tmp_path / "absent"), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert f"argument --out: {tmp_path} is not writable by this user" in stderr
    assert "Traceback" not in stderr


# (id, the function a bug is injected into, the exception it raises, the command that reaches it)
BUGS: list[tuple[str, str, BaseException, list[str]]] = [
    ("a-value-error-in-parsing-a-shard", "autograder.local.shards.parse", ValueError("bad index"), ["grade", "x"]),
    ("a-key-error-in-an-export", "autograder.lms.export.export", KeyError("column"), ["export", "x"]),
    ("a-runtime-error-in-the-stubs", "autograder.handout.stubs.write_stubs", RuntimeError("stale"), ["stubs"]),
    ("a-file-not-found-in-the-stubs", "autograder.handout.stubs.write_stubs", FileNotFoundError("gone"), ["stubs"]),
]


def _arguments(command: list[str], tmp: Path) -> list[str]:
    """Complete ``command`` with what its parser requires."""
    if command[0] == "grade":
        return ["grade", str(tmp), "--out", str(tmp / "out"), "--shard", "1/2"]
    if command[0] == "export":
        return ["export", str(tmp), "--lms", "canvas", "--roster", str(tmp / "r.csv"), "--out", str(tmp / "x.csv")]
    return command


@pytest.mark.parametrize("target, raised, command", [b[1:] for b in BUGS], ids=[b[0] for b in BUGS])
def test_a_bug_shows_its_traceback_and_asks_to_report_it(target, raised, command, tmp_path, monkeypatch, capsys):
    """Does an exception that is no UsageError (a grader bug, even a ValueError) show its traceback and
    the request to report it, exit 1, and never pass for a user's mistake (no "error:")?"""

    def broken(*args, **kwargs):
        raise raised

    monkeypatch.setattr(target, broken)
    code, stderr = _main(_arguments(command, tmp_path), capsys)
    assert code == 1, stderr
    assert stderr.startswith("Traceback (most recent call last):"), stderr
    assert f"{type(raised).__name__}: {raised}" in stderr
    assert stderr.rstrip().endswith(cli.BUG)
    assert "error: " not in stderr


# (id, a class a user can cause, the built-in its callers catch it as)
USER_CAUSED = [
    ("RubricError", rubric.RubricError, ValueError),
    ("Unacceptable", judge.Unacceptable, ValueError),
    ("MetadataError", metadata.MetadataError, ValueError),
    ("MetadataProblem", attempts.MetadataProblem, ValueError),
    ("ReferenceDataError", reference.ReferenceDataError, RuntimeError),
    ("IsolationError", isolation.IsolationError, RuntimeError),
    ("ProofError", proof.ProofError, RuntimeError),
    ("LeaseError", leases.LeaseError, RuntimeError),
    ("ProbeError", interpreter.ProbeError, RuntimeError),
    ("FilterUnavailable", seccomp.FilterUnavailable, RuntimeError),
    ("MissingSecret", course_secret.MissingSecret, RuntimeError),
    ("InputError", errors.InputError, ValueError),
    ("MissingError", errors.MissingError, FileNotFoundError),
    ("SetupError", errors.SetupError, RuntimeError),
]


@pytest.mark.parametrize("cls, builtin", [u[1:] for u in USER_CAUSED], ids=[u[0] for u in USER_CAUSED])
def test_each_user_caused_class_is_one_level_below_the_base(cls, builtin):
    """Is each class a user can cause a direct subclass of UsageError (no deeper), still the built-in
    exception its callers catch?"""
    assert cls.__bases__ == (errors.UsageError, builtin)
    assert issubclass(cls, builtin)


def test_a_platform_run_that_crashes_gives_no_score(tmp_path, monkeypatch, capsys):
    """Does a bug in a Gradescope run (before grading) exit 1 with its traceback and leave no
    results.json, so that the platform shows a failed run rather than a score?"""

    def broken(*args, **kwargs):
        raise KeyError("created_at")

    monkeypatch.setattr("autograder.platforms.gradescope.attempts.gate", broken)
    code, stderr = _main(["gradescope", "--root", str(tmp_path)], capsys)
    assert code == 1 and "KeyError: 'created_at'" in stderr and cli.BUG in stderr
    assert not (tmp_path / "results" / "results.json").exists()


def test_a_refused_proof_on_a_platform_exits_2_with_no_score(tmp_path, monkeypatch, capsys):
    """Does a machine whose sandbox cannot prove that it grades (a ProofError, a UsageError) still
    write a results.json without a score and exit 2 with its message, as run_autograder expects?"""

    def refuse(*args, **kwargs):
        raise proof.ProofError("the probe's numpy import failed")

    def unexamined(*args, **kwargs):
        raise OSError("not examined in this test")

    monkeypatch.setattr("autograder.platforms.common.oneshot.doctor.examine", unexamined)
    monkeypatch.setattr("autograder.platforms.common.oneshot.Session.open", refuse)
    code, stderr = _main(["gradescope", "--root", str(tmp_path)], capsys)
    assert code == 2, stderr
    assert stderr == "error: the probe's numpy import failed\n"
    written = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert "score" not in written and "broken" in written["output"]


def test_cranfield_unavailable_is_a_message_naming_the_fix(lab05, monkeypatch, capsys):
    """Is Cranfield neither cached nor downloadable (the handout's CranfieldUnavailable, which imports
    no engine) a SetupError through the CLI: exit 2 with the handout's message, no traceback?"""

    def unavailable():
        raise lab05.data.CranfieldUnavailable("Cranfield is not in ir_datasets' cache: run seed-cranfield FOLDER")

    monkeypatch.delenv("AUTOGRADER_BUNDLE", raising=False)
    monkeypatch.delenv("LAB05_BUNDLE", raising=False)
    monkeypatch.setattr(lab05.data, "is_cached", lambda: False)
    monkeypatch.setattr(lab05.data, "load_cranfield", unavailable)
    code, stderr = _main(["table"], capsys)
    assert code == 2, stderr
    assert stderr == "error: Cranfield is not in ir_datasets' cache: run seed-cranfield FOLDER\n"


def test_a_reader_that_stops_reading_is_no_bug():
    """When the reader of the output goes away (``... | head``), does the command stop quietly with
    the shell's code for a broken pipe (141), neither a traceback nor "error:"?"""
    script = (
        "import sys\n"
        "import autograder.handout.stubs as stubs\n"
        "from autograder import cli\n"
        "def cut(*args, **kwargs):\n"
        "    raise BrokenPipeError(32, 'Broken pipe')\n"
        "stubs.write_stubs = cut\n"
        "sys.exit(cli._main(['stubs']))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 141, result.stderr
    assert result.stderr == ""
