"""The Pod Security "restricted" route of docs/SCALING.md, proven as far as this machine allows
without Kubernetes: the grader run as a restricted pod runs it (deploy/kubernetes/restricted/:
not root, every capability dropped, no privilege escalation, the Localhost seccomp profile
lab05-jail.json), in rootless podman (tests/support/rootless_podman.py), grades in the namespace
jail (unprivileged user namespaces) as a batch on the host does; under a profile that refuses
namespaces as the runtimes' default profiles (RuntimeDefault) do, it finds no isolation and
refuses to grade."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from autograder import paths
from autograder.lab.solution import load_lab05
from autograder.reports import output_paths
from tests.support import rootless_podman, subs

pytestmark = [pytest.mark.container, pytest.mark.sandbox, pytest.mark.slow]

RESTRICTED = paths.ROOT / "deploy" / "kubernetes" / "restricted"
PROFILE = RESTRICTED / "lab05-jail.json"
SEED = "restricted"
#: clone's namespace flags (CLONE_NEWNS .. CLONE_NEWNET, CLONE_NEWCGROUP).
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def runtime_default_like(folder: Path) -> Path:
    """lab05-jail.json with what containerd's and Docker's default profiles refuse a container
    without CAP_SYS_ADMIN and CAP_SYS_CHROOT added back: unshare, mount, umount2, pivot_root,
    chroot, and clone with a namespace flag."""
    profile = json.loads(PROFILE.read_text(encoding="utf-8"))
    names = ["unshare", "mount", "umount2", "pivot_root", "chroot"]
    profile["syscalls"].append({"names": names, "action": "SCMP_ACT_ERRNO", "errnoRet": 1})
    for flag in NAMESPACE_FLAGS:
        masked = {"index": 0, "value": flag, "valueTwo": flag, "op": "SCMP_CMP_MASKED_EQ"}
        profile["syscalls"].append({"names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "args": [masked]})
    path = folder / "runtime-default-like.json"
    path.write_text(json.dumps(profile, indent=2), encoding="utf-8")
    path.chmod(0o644)
    return path


def cranfield_cache(work: Path) -> dict[str, str]:
    """Cranfield in an ir_datasets cache of the pod's (as a warmed cache holds it), as a mount."""
    cache = work / "ir_datasets"
    if not cache.exists():
        shutil.copytree(load_lab05().data.cache_dir(), cache / "cranfield")
        rootless_podman.make_owned(cache, rootless_podman.POD_UID)
    return {str(cache): rootless_podman.ENVIRONMENT["IR_DATASETS_HOME"]}


@pytest.fixture(scope="module")
def pod() -> Iterator[Path]:
    """An image whose /lab05 is the pod's uid's (a restricted pod cannot be root), removed after."""
    why = rootless_podman.missing()
    if why is not None:
        pytest.fail(why, pytrace=False)
    folder = rootless_podman.workspace()
    try:
        yield rootless_podman.make_image(folder, owner=rootless_podman.POD_UID)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_manifest_runs_the_grader_as_the_pod_uid_of_the_proof():
    """Does the restricted Job run the grader as the uid this proof runs it as, with the profile
    this proof installs, in the jail?"""
    job = yaml.safe_load((RESTRICTED / "grade.yaml").read_text(encoding="utf-8"))
    pod = job["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == rootless_podman.POD_UID
    assert pod["securityContext"]["seccompProfile"] == {
        "type": "Localhost",
        "localhostProfile": f"lab05/{PROFILE.name}",
    }
    arguments = pod["containers"][0]["args"]
    assert arguments[arguments.index("--isolation") + 1] == "jail"


#: id: (the seccomp profile, as a function of a folder to write it in; what the doctor finds)
PROFILES = {
    "lab05-jail": (lambda folder: PROFILE, {"ok": True, "detail": "jail"}),
    "runtime-default-like": (runtime_default_like, None),
}


@pytest.mark.parametrize("case", PROFILES.values(), ids=PROFILES.keys())
def test_the_doctor_finds_the_jail_only_under_the_localhost_profile(pod, case, cranfield):
    """As a restricted pod (uid 65532, no capabilities), does the doctor choose the jail under
    lab05-jail.json, and find no isolation at all (the jail refused, the uid mode impossible
    without root) under a profile refusing namespaces as RuntimeDefault does, where grade stops
    with exit status 2?"""
    make_profile, expected = case
    profile = make_profile(pod.parent)
    done = rootless_podman.run_as_restricted_pod(
        pod, profile, ["doctor", "--json", "--child-python", "/usr/bin/python3"], {}
    )
    assert done.stdout.strip(), done.stderr[-3000:]
    machine = json.loads(done.stdout)["machine"]
    assert machine["root"] is False
    assert not machine["uid_fallback"]["ok"]
    if expected is None:
        assert not machine["auto"]["ok"], machine["auto"]
        assert not machine["jail_namespaces"]["ok"], machine["jail_namespaces"]
        example = "/lab05/repo/examples/submissions/ada-correct"
        grade = ["grade", example, "--out", "/tmp/out", "--child-python", "/usr/bin/python3"]
        refused = rootless_podman.run_as_restricted_pod(pod, profile, grade, cranfield_cache(pod.parent))
        assert refused.returncode == 2, refused.stdout[-2000:] + refused.stderr[-2000:]
        assert "cannot enclose submissions" in refused.stderr, refused.stderr[-2000:]
    else:
        assert machine["auto"] == expected, machine


def test_a_restricted_pod_grades_in_the_jail_as_the_host_does(pod, tmp_path, cranfield):
    """As a restricted pod under lab05-jail.json, are the examples and an escaping submission graded
    in the jail, the escape finding nothing, with the grades.csv a batch on the host writes?"""
    work = pod.parent
    rootless_podman.write_class(work / "class")
    (work / "rubric").mkdir()
    rubric = subs.small_rubric(work / "rubric")
    (work / "out").mkdir()
    rootless_podman.make_owned(work / "class")
    for folder in (work / "out", work / "rubric"):  # the pod's to write
        rootless_podman.make_owned(folder, rootless_podman.POD_UID)
    mounts = {str(work / "class"): "/class:ro", str(work / "out"): "/out", str(work / "rubric"): "/rubric"}
    mounts.update(cranfield_cache(work))
    grade = ["grade", "/class", "--out", "/out", "--rubric", "/rubric/grading.yml", "--seed", SEED]
    grade += ["--jobs", "2", "--isolation", "jail", "--child-python", "/usr/bin/python3"]
    done = rootless_podman.run_as_restricted_pod(pod, PROFILE, grade, mounts)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    results = [json.loads(path.read_text()) for path in (work / "out" / output_paths.SUBMISSIONS).glob("*/grade.json")]
    assert {result["isolation"] for result in results} == {"jail"}
    escape = rootless_podman.message(work / "out", "zz-escape")
    assert "found: []" in escape, escape[-3000:]
    host = rootless_podman.grade_on_host(work / "class", tmp_path / "host", rubric, SEED)
    assert (work / "out" / output_paths.GRADES).read_bytes() == (host / output_paths.GRADES).read_bytes()
