"""The command line: thin subcommands over the library."""

import subprocess
import sys
from pathlib import Path

import pytest


def _autograder(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], capture_output=True, text=True, timeout=600, **kwargs
    )


def test_table_prints_the_notes_numbers(cranfield):
    """Does `python -m autograder table` print both systems next to the notes' numbers?"""
    result = _autograder("table")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[3][:7] == ["TF-IDF", "ours", "0.2284", "0.7006", "0.5100", "0.2737", "0.3170"]
    assert rows[5][:7] == ["BM25", "ours", "0.1991", "0.6512", "0.5044", "0.2405", "0.2822"]
    assert "every number of the notes' table reproduces" in result.stdout


def test_seed_from_a_missing_folder_is_a_clear_error(tmp_path):
    """Does seeding from a folder without Cranfield's files exit 2 naming what is missing?"""
    result = _autograder("seed-cranfield", str(tmp_path))
    assert result.returncode == 2
    assert "missing cran.all.1400, cran.qry, cranqrel" in result.stderr
    assert "Traceback" not in result.stderr


def test_build_prairielearn_with_a_bad_image_name_is_a_clear_error(tmp_path):
    """Does `build --target prairielearn --image 'my image'` exit 2 naming the option and an example?"""
    result = _autograder("build", "--target", "prairielearn", "--out", str(tmp_path), "--image", "my image")
    assert result.returncode == 2
    assert "--image 'my image'" in result.stderr and "youruser/lab05-autograder" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "question").exists()


def slow_class(folder: Path, count: int = 6) -> Path:
    """``count`` submissions whose accuracy never returns (each takes a few seconds to grade)."""
    from tests.support import subs

    source = "def accuracy(retrieved, relevant, collection_size):\n    while True:\n        pass\n"
    for index in range(count):
        subs.write(folder / f"slow-{index}", {"metrics.py": subs.with_function("metrics.py", source)})
    return folder


def interrupt(command: list, out: Path, signal_group: bool, **popen) -> tuple:
    """Start ``command``; once its first submission is written, send SIGINT (to its whole process
    group, as a terminal's Ctrl-C does, or to it alone, as ``docker kill --signal INT`` does);
    ``(exit status, seconds it took to stop, its stderr)``."""
    import os
    import signal
    import time

    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, start_new_session=True, **popen)
    deadline = time.monotonic() + 300
    while not list(out.glob("submissions/*/grade.json")) and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.1)
    sent = time.monotonic()
    if signal_group:
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise AssertionError("the batch did not stop within 60 s of SIGINT") from None
    return process.returncode, time.monotonic() - sent, stderr


def assert_kept_whole(out: Path, count: int) -> int:
    """Is every submission written so far whole (its five files, a grade.json that parses), and
    not all of them done? Returns how many are."""
    import json

    done = sorted(out.glob("submissions/*/grade.json"))
    for path in done:
        json.loads(path.read_text(encoding="utf-8"))
        assert {p.name for p in path.parent.iterdir()} == {
            "grade.json",
            "results.json",
            "feedback.md",
            "feedback.html",
            "instructor.html",
        }
    assert 1 <= len(done) < count
    return len(done)


@pytest.mark.sandbox
@pytest.mark.slow
def test_ctrl_c_stops_a_batch_at_once_and_keeps_what_is_done(tmp_path, cranfield):
    """Does Ctrl-C stop a `--jobs 2` batch within seconds (not after grading every queued
    submission), say so without a traceback, keep each finished submission whole, and does the
    same command then grade only the rest?"""
    from tests.support import subs

    inputs, out = slow_class(tmp_path / "in"), tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "grade", str(inputs), "--out", str(out), "--jobs", "2"]
    command += ["--rubric", str(subs.test_rubric(tmp_path))]
    status, seconds, stderr = interrupt(command, out, signal_group=True)
    assert status == 130 and seconds < 10, (status, seconds, stderr[-2000:])
    assert "interrupted: what was written is kept" in stderr and "Traceback" not in stderr
    done = assert_kept_whole(out, 6)
    again = _autograder(*command[3:])
    assert (
        again.returncode == 0
        and f"graded {6 - done}, rescored 0 from stored answers, skipped {done} already graded" in again.stdout
    ), again.stderr[-2000:]


STALLED_WORKER = """
import concurrent.futures, multiprocessing, multiprocessing.connection as connection, os, time
from autograder.local import batch

def work(index):
    if index == 0:  # sends part of its large result, then is killed mid-send
        send = connection.Connection._send
        def stalled(self, buffer, write=os.write):
            send(self, bytes(buffer)[:100000])
            time.sleep(3600)
        connection.Connection._send = stalled
    return b"x" * 500000

if __name__ == "__main__":
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(work, index) for index in range(5)]
        time.sleep(1.5)
        batch._stop(pool)
    print("stopped", flush=True)
"""


def test_a_pool_stopped_while_a_worker_sends_its_result_lets_the_grader_exit(tmp_path):
    """When Ctrl-C stops a batch while a worker is half-way through sending a large result, does
    the grader still exit (not wait for ever on the rest of that result)?"""
    script = tmp_path / "stalled.py"
    script.write_text(STALLED_WORKER)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "stopped" in done.stdout, done.stderr[-2000:]


def test_ctrl_c_while_a_submission_is_written_waits_for_its_last_file():
    """Does a Ctrl-C that arrives while a submission's files are written let the writing finish
    (a folder without grade.json would be half replaced), then interrupt?"""
    import os
    import signal

    from autograder.local import batch

    written = []
    with pytest.raises(KeyboardInterrupt), batch._uninterrupted():
        os.kill(os.getpid(), signal.SIGINT)
        written.append("grade.json")
    assert written == ["grade.json"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _subcommand_arguments():
    """Every argument of every subcommand, as ``(subcommand, argument)`` pairs, the --help lines."""
    import argparse

    from autograder import cli

    commands = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [
        (name, action)
        for name, parser in commands.choices.items()
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
    ]


def test_the_walk_finds_the_platforms_options():
    """Does the walk over the parser reach the platforms' entry points' options (so the test below
    cannot pass by finding nothing)?"""
    found = {(name, tuple(action.option_strings)) for name, action in _subcommand_arguments()}
    for name, option in [
        ("gradescope", "--root"),
        ("gradescope", "--child-python"),
        ("prairielearn", "--isolation"),
        ("grade", "--out"),
        ("build", "--target"),
    ]:
        assert (name, (option,)) in found, (name, option)


@pytest.mark.parametrize(
    "name, action",
    _subcommand_arguments(),
    ids=[
        f"{name}-{action.option_strings[-1] if action.option_strings else action.dest}"
        for name, action in _subcommand_arguments()
    ],
)
def test_every_option_is_described_in_help(name, action):
    """Does `python -m autograder NAME --help` describe this argument (a sentence, not nothing)?"""
    import argparse

    shown = action.option_strings or [action.dest]
    assert action.help and action.help != argparse.SUPPRESS, (
        f"`{name} --help` describes nothing for {'/'.join(shown)}: give it a help= in autograder/cli.py"
    )
    assert len(action.help.split()) >= 3, f"`{name} --help`: {'/'.join(shown)} has only {action.help!r}"
