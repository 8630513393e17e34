"""The local container route (the repository's Dockerfile, docs/CONTAINER.md), tested as far as a
machine without Docker allows: the Dockerfile's content against the repository, and its
entrypoint run as Docker would run it (tests/support/container_sim.py: Docker's default seccomp profile
and capabilities), where namespaces are refused and ``auto`` must grade in the uid mode. The
whole hostile suite also runs that way (test_hostile_submissions.py, mode "container")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import paths
from autograder.lab.solution import load_lab05
from autograder.labkit.load import default as default_lab
from autograder.platforms.common import shipment
from tests.support import container_sim, subs

DOCKERFILE = paths.ROOT / "Dockerfile"
DOCKERIGNORE = paths.ROOT / ".dockerignore"
OWNER = 4321


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined), as (KEYWORD, arguments)."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def test_dockerfile_copies_what_the_repository_has():
    """Does every COPY of the Dockerfile name a path of this repository, and is the ENTRYPOINT
    the container entrypoint, installed where any user may start it?"""
    copies = [arguments.split() for keyword, arguments in instructions() if keyword == "COPY"]
    assert copies, "the Dockerfile copies nothing"
    for *sources, target in copies:
        for source in sources:
            assert (paths.ROOT / source).exists(), f"COPY {source}: not in the repository"
        assert target.startswith("/lab05/repo/")
    entrypoint = json.loads(next(arguments for keyword, arguments in instructions() if keyword == "ENTRYPOINT"))
    installed = f"install -m 755 /lab05/repo/{container_sim.ENTRYPOINT.relative_to(paths.ROOT)} {entrypoint[0]}"
    assert any(installed in arguments for keyword, arguments in instructions() if keyword == "RUN"), installed
    assert not entrypoint[0].startswith("/lab05/")  # /lab05 is root's alone: a --user must still start it
    assert os.access(container_sim.ENTRYPOINT, os.X_OK)


def test_dockerfile_installs_what_grading_needs():
    """Does the image install libseccomp with apt, the children's environment from
    requirements/child.txt (as the platforms' setup.sh does), the grader's packages from the same
    requirement files the platforms' graders install, and the batch's?"""
    runs = " ".join(arguments for keyword, arguments in instructions() if keyword == "RUN")
    for package in ("libseccomp2", "python3-venv"):
        assert re.search(rf"apt-get install[^&]*\b{package}\b", runs), package
    assert "python3 -m venv /opt/lab05-child" in runs
    assert "/opt/lab05-child/bin/pip install --quiet --no-cache-dir -r /lab05/repo/requirements/child.txt" in runs
    for name in (*shipment.REQUIREMENT_FILES, "batch.txt"):  # a local batch: the class report's similarity too
        assert f"-r /lab05/repo/requirements/{name}" in runs
    assert "chmod -R go-rwx /lab05" in runs  # the grader's files: not for the sandbox uid


def test_dockerignore_leaves_out_environments_not_the_grader():
    """Does the build context leave out the history, environments and outputs, and keep the
    grader, its reference and its rubric?"""
    patterns = {line.strip() for line in DOCKERIGNORE.read_text().splitlines() if line.strip()[:1] not in ("", "#")}
    assert {".git", ".venv", "out", "test-artifacts"} <= patterns
    kept = {"autograder", "solutions", "grading.yml", "assignment", "requirements"}
    assert not kept & patterns


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory):
    """A grader cache of its own, so a self-test passed outside is found inside."""
    return {"AUTOGRADER_CACHE": str(tmp_path_factory.mktemp("lab05-cache"))}


def doctor(environment: dict) -> dict:
    """The doctor's findings on this machine, as the grader itself sees it."""
    command = [sys.executable, "-m", "autograder", "doctor", "--json", "--child-python", "/usr/bin/python3"]
    done = subprocess.run(command, env={**os.environ, **environment}, capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout)


@pytest.mark.sandbox
def test_a_jail_that_passed_outside_is_not_trusted_inside(private_cache):
    """After the jail's self-test passed on this machine (and was remembered), does the doctor in
    the container still find the jail refused and choose the uid mode?"""
    outside = doctor(private_cache)
    assert outside["machine"]["auto"] == {"ok": True, "detail": "jail"}, outside["machine"]["auto"]
    done = container_sim.run(["doctor", "--json"], **private_cache)
    inside = json.loads(done.stdout)
    assert inside["machine"]["auto"] == {"ok": True, "detail": "uid"}, done.stderr[-2000:]
    assert not inside["machine"]["jail_namespaces"]["ok"]
    assert "seccomp filter" in inside["machine"]["jail_namespaces"]["detail"]


@pytest.mark.sandbox
@pytest.mark.slow
def test_container_grades_a_class_and_hands_the_output_back(tmp_path, cranfield, private_cache):
    """Does the container grade a class in the uid mode (a correct submission 100, a classmate
    reader nothing it did not compute), give every folder and file it wrote to the owner of the
    folder the output went into, and skip it all when run again?"""
    from tests.support import attacks

    subs.write(tmp_path / "in" / "correct", {})
    attacks.classmates_and_checkout(tmp_path / "in" / "reader")
    host = tmp_path / "host"
    host.mkdir()
    os.chown(host, OWNER, OWNER)
    out = host / "course" / "graded"  # two folders the container creates
    results = container_sim.grade(tmp_path / "in", out, subs.test_rubric(tmp_path), **private_cache)
    assert {result.isolation for result in results.values()} == {"uid"}
    assert results["correct"].score == 100
    assert results["reader"].score < 100
    owners = {(path.stat().st_uid, path.stat().st_gid) for path in [host / "course", *(host / "course").rglob("*")]}
    assert owners == {(OWNER, OWNER)}
    again = container_sim.run(
        ["grade", str(tmp_path / "in"), "--out", str(out), "--rubric", str(tmp_path / "grading.yml")], **private_cache
    )
    assert "graded 0, rescored 0 from stored answers, skipped 2 already graded" in again.stdout, again.stderr[-2000:]


@pytest.mark.sandbox
def test_cranfield_is_seeded_from_the_mounted_folder(tmp_path, cranfield, private_cache):
    """With Cranfield mounted at the container's /cranfield and an empty ir_datasets cache, does
    the container seed the cache before it runs the grader?"""
    mounted = tmp_path / "cranfield"
    mounted.mkdir()
    data = load_lab05().data
    for name, cached in data.CRANFIELD_FILES.items():
        shutil.copyfile(data.cache_dir() / cached, mounted / name)
    home = tmp_path / "ir_datasets"
    done = container_sim.run(["doctor"], AUTOGRADER_CRANFIELD=str(mounted), IR_DATASETS_HOME=str(home), **private_cache)
    assert f"Cranfield cached in {home / 'cranfield'}" in done.stderr, done.stderr[-2000:]
    for name, cached in data.CRANFIELD_FILES.items():
        assert (home / "cranfield" / cached).read_bytes() == (mounted / name).read_bytes()


def test_the_entrypoint_refuses_a_missing_cranfield_folder_clearly(tmp_path):
    """With a /cranfield that lacks the files, does the container stop before grading with a
    message naming what is missing?"""
    (tmp_path / "cranfield").mkdir()
    done = container_sim.run(["doctor"], AUTOGRADER_CRANFIELD=str(tmp_path / "cranfield"))
    assert done.returncode == 2
    assert "missing cran.all.1400, cran.qry, cranqrel" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_dockerfile_is_documented():
    """Does docs/CONTAINER.md give the build and run commands the Dockerfile's header gives, and
    does the README point to it?"""
    guide = (paths.ROOT / "docs" / "CONTAINER.md").read_text(encoding="utf-8")
    assert "docker build -t lab05-grader ." in guide
    assert "lab05-grader grade /class --out /out" in guide
    assert "docs/CONTAINER.md" in (paths.ROOT / "README.md").read_text(encoding="utf-8")


def test_the_container_refuses_a_user_other_than_root_clearly(tmp_path):
    """Run with `--user 1000`, does the entrypoint stop with a message saying to leave it out
    (not a permission error from deep inside)?"""
    with tempfile.TemporaryDirectory() as folder:  # installed as the image does: any user may start it
        os.chmod(folder, 0o755)  # (the checkout's own folders need not be reachable by that user)
        entrypoint = Path(folder) / container_sim.ENTRYPOINT.name
        shutil.copyfile(container_sim.ENTRYPOINT, entrypoint)
        os.chmod(entrypoint, 0o755)
        command = ["setpriv", f"--reuid={OWNER}", f"--regid={OWNER}", "--clear-groups", str(entrypoint)]
        done = subprocess.run([*command, "doctor"], capture_output=True, text=True, timeout=60, cwd=folder)
    assert done.returncode == 2
    assert "run it without --user" in done.stderr and "Traceback" not in done.stderr


def test_without_cranfield_the_container_says_how_to_grade_offline(tmp_path, private_cache):
    """With no /cranfield and an empty ir_datasets cache, does the container say it will download
    Cranfield and how to mount it instead?"""
    done = container_sim.run(["doctor"], IR_DATASETS_HOME=str(tmp_path / "empty"), **private_cache)
    assert "no Cranfield at /nonexistent-cranfield and none cached" in done.stderr
    assert "-v FOLDER:/nonexistent-cranfield:ro" in done.stderr


@pytest.mark.sandbox
@pytest.mark.slow
def test_an_interrupt_sent_to_the_container_stops_the_batch(tmp_path, cranfield, private_cache):
    """Does SIGINT sent to the container's entrypoint alone (`docker kill --signal INT`, Ctrl-C on
    `docker run`) stop a `--jobs 2` batch within seconds, keeping each finished submission whole
    and handing it to the folder's owner?"""
    from tests.local.test_cli import assert_kept_whole, interrupt, slow_class

    inputs, out = slow_class(tmp_path / "in"), tmp_path / "out"
    out.mkdir()
    os.chown(out, OWNER, OWNER)
    arguments = ["grade", str(inputs), "--out", str(out), "--jobs", "2", "--rubric", str(subs.test_rubric(tmp_path))]
    command = [sys.executable, str(Path(container_sim.__file__)), str(container_sim.ENTRYPOINT), *arguments]
    environment = {**os.environ, **container_sim.settings(), **private_cache}
    status, seconds, stderr = interrupt(command, out, signal_group=False, env=environment, cwd="/")
    assert status == 130 and seconds < 10, (status, seconds, stderr[-2000:])
    assert "interrupted: what was written is kept" in stderr
    assert_kept_whole(out, 6)
    assert {path.stat().st_uid for path in out.rglob("*")} == {OWNER}


@pytest.mark.sandbox
def test_container_merges_shards_and_hands_the_output_back(tmp_path, cranfield, private_cache, monkeypatch):
    """Does `merge` in the container (its options before OUT) write the merged batch and give
    every folder and file it wrote to the owner of the folder OUT went into?"""
    from autograder.local import batch, shards

    # the container has a cache of its own: the shard is signed with the course's secret, given to both
    monkeypatch.setenv(shards.KEY_VARIABLE, "the course's shard secret")
    (tmp_path / "class").mkdir()
    shard = tmp_path / "shard"
    batch.grade_batch([tmp_path / "class"], shard, jobs=1, progress=False, shard=shards.Shard(1, 1), lab=default_lab())
    host = tmp_path / "host"
    host.mkdir()
    os.chown(host, OWNER, OWNER)
    out = host / "course" / "merged"
    done = container_sim.run(["merge", "--jobs", "1", str(out), str(shard)], **private_cache)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "grades.csv").is_file() and (out / "index.html").is_file()
    owners = {(path.stat().st_uid, path.stat().st_gid) for path in [host / "course", *(host / "course").rglob("*")]}
    assert owners == {(OWNER, OWNER)}
