"""``status OUT``: the state of each shard of a class graded in OUT's sub-folders (done, running,
failed, missing) and the commands that resubmit the failed and missing ones, from folders made
here (a manifest, a run record of this host, of a Slurm task, of another host) and a fake
``squeue``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.local import shard_status, shards

HOST = "node-7"


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def _manifest(index: int, count: int) -> dict[str, object]:
    return {"format": shards.FORMAT, "shard": index, "of": count, "submissions": ["a", "b"], "seconds": 12.5}


def _running(index: int, count: int, host: str = HOST, pid: int = 1, **scheduler: str) -> dict[str, object]:
    return {
        "format": shards.FORMAT,
        "shard": index,
        "of": count,
        "host": host,
        "pid": pid,
        "started": "2026-12-06 18:00:00 UTC",
        "scheduler": scheduler,
    }


def _make(out: Path, folders: dict[str, dict[str, dict[str, object]]], graded: int = 0) -> None:
    """``folders``: folder name -> file name (shard.json, shard-run.json) -> its content."""
    for name, files in folders.items():
        folder = out / name
        folder.mkdir(parents=True)
        for file, content in files.items():
            (folder / file).write_text(json.dumps(content))
        for number in range(graded):
            (folder / "submissions" / f"s{number}").mkdir(parents=True)
            (folder / "submissions" / f"s{number}" / "grade.json").write_text("{}")


#: Slurm task -> what the fake squeue says of it
QUEUE = {"40_1": "RUNNING", "40_2": "", "41": "PENDING"}

#: id: (the folders, the number of shards given, each shard's state)
CASES = {
    "every shard done": (
        {f"shard-{task}": {shards.MANIFEST: _manifest(task + 1, 3)} for task in range(3)},
        None,
        ["done", "done", "done"],
    ),
    "a manifest beside its run record: done": (
        {"shard-0": {shards.MANIFEST: _manifest(1, 1), shards.RUNNING: _running(1, 1, pid=-1)}},
        None,
        ["done"],
    ),
    "one missing, the count from the others": (
        {"shard-0": {shards.MANIFEST: _manifest(1, 3)}, "shard-2": {shards.MANIFEST: _manifest(3, 3)}},
        None,
        ["done", "missing", "done"],
    ),
    "the count given: shards past the folders missing": (
        {"shard-0": {shards.MANIFEST: _manifest(1, 4)}},
        4,
        ["done", "missing", "missing", "missing"],
    ),
    "a Slurm task squeue lists: running": (
        {"shard-1": {shards.RUNNING: _running(2, 2, SLURM_ARRAY_JOB_ID="40", SLURM_ARRAY_TASK_ID="1")}},
        2,
        ["missing", "running"],
    ),
    "a Slurm task squeue no longer lists: failed": (
        {"shard-2": {shards.RUNNING: _running(3, 3, SLURM_ARRAY_JOB_ID="40", SLURM_ARRAY_TASK_ID="2")}},
        3,
        ["missing", "missing", "failed"],
    ),
    "a Slurm job (not an array) pending: running": (
        {"shard-0": {shards.RUNNING: _running(1, 1, SLURM_JOB_ID="41")}},
        None,
        ["running"],
    ),
    "this host's process alive: running": (
        {"shard-0": {shards.RUNNING: _running(1, 1, pid=-2)}},
        None,
        ["running"],
    ),
    "this host's process ended: failed": (
        {"shard-0": {shards.RUNNING: _running(1, 1, pid=-1)}},
        None,
        ["failed"],
    ),
    "another host, no scheduler to ask: running, saying so": (
        {"shard-0": {shards.RUNNING: _running(1, 1, host="elsewhere")}},
        None,
        ["running"],
    ),
    "a folder of another count ignored when the count is given": (
        {"old-0": {shards.MANIFEST: _manifest(1, 8)}, "shard-0": {shards.MANIFEST: _manifest(1, 2)}},
        2,
        ["done", "missing"],
    ),
}


def _pids(folders: dict[str, dict[str, dict[str, object]]]) -> dict[str, dict[str, dict[str, object]]]:
    """The placeholders -1 (an ended process) and -2 (this one) made real pids."""
    real = {-1: _dead_pid(), -2: os.getpid()}
    return {
        name: {
            file: {**content, "pid": real.get(content.get("pid"), content.get("pid"))}
            for file, content in files.items()
        }
        for name, files in folders.items()
    }


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_each_shard_is_given_its_state(case, tmp_path):
    """Is each shard said done (its manifest), running (squeue lists its task, or its process is
    alive on this host), failed (its task or process ended without a manifest) or missing?"""
    folders, count, expected = case
    _make(tmp_path, _pids(folders))
    states = shard_status.survey(tmp_path, count, queue=QUEUE.get, host=HOST)
    assert [state.state for state in states] == expected
    assert [state.index for state in states] == list(range(1, len(expected) + 1))


def test_what_tells_the_state_is_said():
    """Does a failed Slurm task's line name the task, the host and how far it got?"""
    out = Path("/nonexistent")
    record = _running(3, 3, SLURM_ARRAY_JOB_ID="40", SLURM_ARRAY_TASK_ID="2")
    state, detail = shard_status._running(record, out, HOST, QUEUE.get)
    assert state == "failed"
    assert detail == (
        "Slurm job 40_2 ended without finishing the shard; started 2026-12-06 18:00:00 UTC on node-7; "
        "0 submission(s) graded so far"
    )


def test_the_failed_and_missing_shards_are_resubmitted_by_task(tmp_path):
    """Shards 1 done, 2 failed (3 submissions graded), 3 running, 4 missing of 4: does status name
    tasks 1 and 3 (the shards less one) to resubmit, with the merge after them, and exit 1?"""
    _make(tmp_path, {"shard-0": {shards.MANIFEST: _manifest(1, 4)}})
    _make(tmp_path, {"shard-1": {shards.RUNNING: _running(2, 4, SLURM_ARRAY_JOB_ID="40", SLURM_ARRAY_TASK_ID="2")}}, 3)
    _make(tmp_path, {"shard-2": {shards.RUNNING: _running(3, 4, SLURM_ARRAY_JOB_ID="40", SLURM_ARRAY_TASK_ID="1")}})
    states = shard_status.survey(tmp_path, 4, queue=QUEUE.get, host=HOST)
    text = shard_status.report(states, tmp_path)
    assert text.splitlines()[0] == f"4 shards in {tmp_path}: 1 done, 1 running, 1 failed, 1 missing"
    assert "3 submission(s) graded so far" in text
    assert shard_status.resubmit(states, tmp_path)[0] == (
        "retry=$(sbatch --parsable --array=1,3 grade.sbatch) && sbatch --dependency=afterany:$retry merge.sbatch"
    )
    assert f"--shard 2/4 --out {tmp_path / 'shard-1'}" in shard_status.resubmit(states, tmp_path)[1]


def test_nothing_to_resubmit_when_every_shard_is_done(tmp_path, capsys):
    """Every shard done: no command to resubmit, a word to merge, and exit status 0 from the CLI?"""
    _make(tmp_path, {f"shard-{task}": {shards.MANIFEST: _manifest(task + 1, 2)} for task in range(2)})
    states = shard_status.survey(tmp_path, queue=QUEUE.get, host=HOST)
    assert shard_status.resubmit(states, tmp_path) == []
    assert cli.main(["status", str(tmp_path)]) == 0
    assert "every shard is done: merge them" in capsys.readouterr().out


#: id: (the folders, the count given, what the message says)
UNCLEAR = {
    "no shard and no count": ({}, None, "the shards' number is not clear (none found): give it as --shards N"),
    "shards of two counts": (
        {"a": {shards.MANIFEST: _manifest(1, 2)}, "b": {shards.MANIFEST: _manifest(1, 3)}},
        None,
        "the shards' number is not clear (2 (",
    ),
}


@pytest.mark.parametrize("case", UNCLEAR.values(), ids=UNCLEAR.keys())
def test_an_unclear_number_of_shards_is_asked_for(case, tmp_path):
    """With no shard found, or shards of two counts, and no --shards: is the count asked for?"""
    folders, count, message = case
    _make(tmp_path, folders)
    with pytest.raises(ValueError, match=re.escape(message)):
        shard_status.survey(tmp_path, count, queue=QUEUE.get, host=HOST)


def test_a_folder_that_does_not_exist_is_named(tmp_path):
    """Is a missing OUT refused with exit status 2, naming it?"""
    with pytest.raises(ValueError, match=re.escape(f"status {tmp_path / 'no'}: no such folder")):
        shard_status.survey(tmp_path / "no")
    assert cli.main(["status", str(tmp_path / "no")]) == 2


def test_a_shard_started_again_is_not_done_until_it_finishes(tmp_path):
    """A finished shard's folder graded again (a retry): is its old manifest removed as it starts,
    its run record naming this process and the Slurm task, so that status says running, not done?"""
    _make(tmp_path, {"shard-3": {shards.MANIFEST: _manifest(4, 8)}})
    environ = {"SLURM_ARRAY_JOB_ID": "40", "SLURM_ARRAY_TASK_ID": "3", "PATH": "/bin"}
    shards.start(tmp_path / "shard-3", shards.Shard(4, 8), environ)
    assert not (tmp_path / "shard-3" / shards.MANIFEST).exists()
    record = json.loads((tmp_path / "shard-3" / shards.RUNNING).read_text())
    assert (record["shard"], record["of"], record["pid"]) == (4, 8, os.getpid())
    assert record["scheduler"] == {"SLURM_ARRAY_JOB_ID": "40", "SLURM_ARRAY_TASK_ID": "3"}
    states = shard_status.survey(tmp_path, queue={"40_3": "RUNNING"}.get)
    assert [state.state for state in states][3] == "running"


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_shard_terminated_as_it_grades_writes_no_shard_and_is_failed(tmp_path):
    """`grade --shard 1/1` of the examples sent SIGTERM, with its process group (as a scheduler
    cancels a task), once its run record appears: does it end without a shard.json, and does
    status say it failed and resubmit it?"""
    import signal
    import time

    from autograder import paths

    out = tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "grade", str(paths.ROOT / "examples" / "submissions")]
    command += ["--shard", "1/1", "--out", str(out / "shard-0"), "--jobs", "1"]
    grader = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 300
        while not (out / "shard-0" / shards.RUNNING).is_file():
            assert grader.poll() is None and time.monotonic() < end, "the grader ended before its run record"
            time.sleep(0.05)
        os.killpg(grader.pid, signal.SIGTERM)
        assert grader.wait(timeout=300) == -signal.SIGTERM
    finally:
        if grader.poll() is None:
            os.killpg(grader.pid, signal.SIGKILL)
            grader.wait()
    assert not (out / "shard-0" / shards.MANIFEST).exists()
    states = shard_status.survey(out, queue=QUEUE.get)
    assert [(state.state, state.detail.split(";")[0]) for state in states] == [
        ("failed", f"process {grader.pid} ended without finishing the shard")
    ]
    assert shard_status.resubmit(states, out)[0].startswith("retry=$(sbatch --parsable --array=0 grade.sbatch)")
