"""docs/SCALING.md's Slurm recipe on a real single-node cluster (tests/support/slurm_cluster.py):
the scripts the docs include (deploy/slurm/grade.sbatch, merge.sbatch) submitted unchanged on a
generated class, one task cancelled while it grades, the merge after the array refusing and
saying what to resubmit, the retry that status prints run as printed, and the merged grades.csv
against one batch of the same class, byte for byte."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys

import pytest

from autograder import paths
from autograder.labkit.load import default as default_lab
from autograder.local import batch, shards
from autograder.reports import output_paths
from tests.support import slurm_cluster
from tests.support.generated import RING, generated_class, light_rubric, students

pytestmark = [pytest.mark.slurm, pytest.mark.sandbox, pytest.mark.slow]

SCRIPTS = paths.ROOT / "deploy" / "slurm"
SHARDS = 4
SIZE = RING + 20  # the smallest generated class: a ring of near copies, ten second attempts
VICTIM = 2  # the task cancelled while it grades: shard 3 of 4
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL"}


@pytest.fixture(scope="module")
def slurm():
    """A running cluster, stopped (its jobs cancelled, its daemons ended) when the module is done."""
    why = slurm_cluster.missing()
    if why is not None:
        pytest.fail(why, pytrace=False)
    with slurm_cluster.cluster() as environ:
        yield environ


def _ended(environ: dict[str, str], job: str) -> dict[str, str] | None:
    """Every task of ``job`` once all of them have ended (None before)."""
    states = slurm_cluster.job_states(environ, job)
    return states if states and set(states.values()) <= ENDED else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_documented_scripts_survive_a_cancelled_task(slurm, tmp_path, cranfield):
    """A class of 32 graded by grade.sbatch as 4 shards from a warmed shared cache, task 2 cancelled
    while it grades: does the cancelled task leave no shard and no process, the merge (afterany)
    refuse and print the retry, the retry grade shard 3 alone, the merge after it write the
    grades.csv of one batch of the class, byte for byte, and no task compute a plan?"""
    course = tmp_path / "course"
    people = generated_class(course / "class", SIZE)
    rubric = light_rubric(course)
    (course / "logs").mkdir()
    environ = {
        **slurm,
        "COURSE": str(course),
        "SHARDS": str(SHARDS),
        "GRADER": sys.executable,
        "SEED": "slurm",
        "RUBRIC": str(rubric),
        "AUTOGRADER_SHARD_KEY": secrets.token_hex(32),
        "SBATCH_OUTPUT": str(course / "logs" / "%x-%A_%a.out"),
    }
    # the shared cache warmed once, as the docs say, with the shards' rubric; each task's own cache empty
    warm = {**environ, "AUTOGRADER_CACHE": str(course / "cache")}
    command = [sys.executable, "-m", "autograder", "grade", str(people / "submission_000000"), "--rubric", str(rubric)]
    subprocess.run([*command, "--out", str(tmp_path / "warm")], env=warm, check=True, capture_output=True)
    environ["AUTOGRADER_CACHE"] = str(course / "private-cache")
    out = course / "out"
    # as the docs submit them, the array given as many tasks as SHARDS
    array = slurm_cluster.submit(environ, f"--array=0-{SHARDS - 1}", str(SCRIPTS / "grade.sbatch"))
    merge = slurm_cluster.submit(environ, f"--dependency=afterany:{array}", str(SCRIPTS / "merge.sbatch"))
    running = out / f"shard-{VICTIM}" / shards.RUNNING
    slurm_cluster.wait_for(f"task {VICTIM} to start grading", running.is_file, every=0.1)
    subprocess.run(["scancel", f"{array}_{VICTIM}"], env=environ, check=True)

    single = tmp_path / "single"  # one batch of the class, meanwhile
    summary = batch.grade_batch(
        [people], single, jobs=2, progress=False, seed="slurm", rubric_path=rubric, lab=default_lab()
    )
    assert len(summary.results) == SIZE

    states = slurm_cluster.wait_for("the array and the merge to end", lambda: _ended(environ, f"{array},{merge}"))
    assert states[f"{array}_{VICTIM}"] == "CANCELLED" and states[merge] == "FAILED", states
    assert [states[f"{array}_{task}"] for task in range(SHARDS) if task != VICTIM] == ["COMPLETED"] * (SHARDS - 1)
    assert not (out / f"shard-{VICTIM}" / shards.MANIFEST).exists()  # the cancelled task wrote no shard
    assert not _alive(json.loads(running.read_text())["pid"])  # and left no grader behind
    assert not (out / "merged" / output_paths.GRADES).exists()
    log = "".join(path.read_text() for path in (course / "logs").glob(f"lab05-merge-{merge}*"))
    assert f"{out / f'shard-{VICTIM}'} is not a finished shard (no shard.json)" in log, log
    assert f"shard {VICTIM + 1}/{SHARDS} (task {VICTIM}) failed" in log, log
    retry = next(line.strip() for line in log.splitlines() if line.strip().startswith("retry=$(sbatch"))
    assert f"--array={VICTIM} grade.sbatch" in retry

    # the retry as status printed it, from the scripts' folder
    submitted = subprocess.run(
        ["bash", "-c", retry], env=environ, cwd=SCRIPTS, capture_output=True, text=True, check=True
    ).stdout
    again = re.findall(r"Submitted batch job (\d+)", submitted)
    assert len(again) == 1, submitted  # the merge; the retried array's id went to $retry
    states = slurm_cluster.wait_for("the retried task and the merge", lambda: _ended(environ, again[0]))
    assert states == {again[0]: "COMPLETED"}, states
    merged = out / "merged"
    assert (merged / output_paths.GRADES).read_bytes() == (single / output_paths.GRADES).read_bytes()
    computed = [path.name for path in (course / "private-cache").iterdir() if path.name.startswith(("plan", "cranf"))]
    assert computed == []  # every task read Cranfield's bundle and the plan from the shared cache
    assert len((merged / output_paths.GRADES).read_text().splitlines()) == students(SIZE) + 1
    manifest = json.loads((out / f"shard-{VICTIM}" / shards.MANIFEST).read_text())
    assert (manifest["shard"], manifest["of"]) == (VICTIM + 1, SHARDS)
    assert set(manifest["submissions"]) == {s for s in manifest["class"] if shards.owner(s, SHARDS) == VICTIM + 1}
    status = subprocess.run(
        [sys.executable, "-m", "autograder", "status", str(out)], env=environ, capture_output=True, text=True
    )
    assert status.returncode == 0 and f"{SHARDS} done" in status.stdout, status.stdout
