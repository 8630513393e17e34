"""``python -m autograder doctor``: what this machine allows, found by probing, printed as text or
JSON; the small rules it applies (cgroup values, the memory fit, why namespaces are refused)."""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import pytest

from autograder.labkit.load import default as default_lab
from autograder.platforms.common import doctor
from autograder.sandbox import machine
from autograder.sandbox.settings import Limits

MiB = 1 << 20


def _doctor(*args):
    return subprocess.run(
        [sys.executable, "-m", "autograder", "doctor", "--child-python", "/usr/bin/python3", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.sandbox
def test_doctor_prints_every_finding_and_the_choice():
    """Does `doctor` print one line per fact (namespaces, seccomp and its filter, the uid fallback,
    memory, CPU, both Pythons, Cranfield) and which isolation auto chooses, exiting 0 here?"""
    result = _doctor()
    assert result.returncode == 0, result.stderr
    labels = [line.split("  ")[0] for line in result.stdout.splitlines()]
    for label in (
        "user",
        "user namespaces",
        "jail namespaces",
        "seccomp",
        "seccomp filter",
        "uid fallback",
        "memory",
        "CPU",
        "memory fit",
        "grader Python",
        "child Python",
        "Cranfield",
    ):
        assert label in labels, label
    assert result.stdout.splitlines()[-1].startswith("isolation auto chooses: ")
    assert f"child Python     {sys.version_info.major}." in result.stdout


@pytest.mark.sandbox
def test_doctor_json_has_the_same_findings():
    """Does `doctor --json` give the findings as data, with the seccomp filter's place kept?"""
    result = _doctor("--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert isinstance(found["machine"]["user_namespaces"]["ok"], bool)
    assert set(found["machine"]["seccomp"]) >= {"kernel", "mode", "filter", "libseccomp", "uid_mode_filter"}
    assert found["machine"]["auto"]["ok"] is True
    assert found["machine"]["resources"]["cores"] >= 1
    assert found["cranfield"]["ok"] is True


@pytest.mark.parametrize(
    "text, expected",
    [("max", None), ("9223372036854771712", None), ("805306368", 805306368), ("-1", None), (None, None)],
    ids=["v2-max", "v1-unlimited", "768-MiB", "v1-minus-one", "missing"],
)
def test_cgroup_memory_values(text, expected):
    """Is a cgroup memory file read as a limit in bytes, and "max" or v1's huge number as none?"""
    assert machine._bytes(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [("max 100000", None), ("50000 100000", 0.5), ("200000 100000", 2.0), ("", None)],
    ids=["max", "half", "two", "empty"],
)
def test_cgroup_v2_cpu_quota(text, expected):
    """Is cgroup v2's cpu.max read as CPUs (quota / period), "max" as none?"""
    assert machine._v2_cpus(text) == expected


@pytest.mark.parametrize(
    "memory, memory_mb, fits",
    [(None, 512, True), (768 * MiB, 512, True), (768 * MiB, 1024, False), (2048 * MiB, 1024, True)],
    ids=["no-limit", "gradescope-default", "gradescope-with-1024", "prairielearn-default"],
)
def test_memory_fit(memory, memory_mb, fits):
    """Does one child's allowance plus the grader's room fit the cgroup's memory?"""
    finding = doctor.memory_fit(memory, Limits(memory_mb=memory_mb))
    assert finding.ok is fits
    if not fits:
        assert f"lower limits.memory_mb in grading.yml to {768 - Limits.GRADER_ROOM_MB}" in finding.detail


@pytest.mark.parametrize(
    "code, words",
    [(0, "a child can unshare"), (errno.EPERM, "EPERM (Operation not permitted)"), (errno.ENOSPC, "ENOSPC")],
    ids=["allowed", "refused", "no-namespaces-left"],
)
def test_namespace_finding_names_the_kernels_answer(code, words):
    """Does a refused unshare say which error the kernel gave?"""
    finding = machine._namespace_finding(code, "a user namespace", root=True)
    assert finding.ok is (code == 0) and words in finding.detail


@pytest.fixture(scope="module")
def shipped_source(tmp_path_factory, cranfield):
    """The grader as autograder.zip ships it (its ``source/``: the engine, the answer code, the
    rubric, ``requirements-child.txt`` and no ``requirements/`` folder), without the hidden part."""
    from autograder import paths
    from autograder.platforms.common import shipment

    source = tmp_path_factory.mktemp("zip-layout") / "source"
    for name, data, _ in shipment.engine_entries(default_lab()) + shipment.code_entries(default_lab()):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(data)
    (source / "grading.yml").write_bytes(paths.RUBRIC.read_bytes())
    return source


@pytest.mark.sandbox
@pytest.mark.cranfield
@pytest.mark.parametrize(
    "isolation, package",
    [("auto", "numpy"), ("uid", "numpy")],
    ids=["auto", "uid"],
)
def test_doctor_in_the_zips_layout_reads_the_shipped_pins(shipped_source, isolation, package):
    """Run from autograder.zip's layout (where the pins are requirements-child.txt, not
    requirements/child.txt), does `doctor` compare the child's packages with those pins instead of
    saying "cannot tell"?"""
    import os

    assert not (shipped_source / "requirements").exists()
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("LAB05", "AUTOGRADER"))}
    environment.update({"PYTHONPATH": str(shipped_source), "IR_DATASETS_HOME": str(shipped_source / "ir_datasets")})
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "doctor", "--child-python", "/usr/bin/python3", "--json"]
        + ["--isolation", isolation],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=shipped_source,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["child_packages"]
    pinned = doctor.pins(shipped_source / "requirements-child.txt")[package]
    assert found["ok"] is True, found
    assert "cannot tell" not in found["detail"] and f"{package} " in found["detail"], found
    assert f"pinned {pinned}" in found["detail"] or "(as pinned)" in found["detail"], found
