"""docs/SCALING.md's Kubernetes recipe, checked without a cluster: the manifests the docs include
(deploy/kubernetes/) against Kubernetes' own schemas (kubernetes-validate, strict), Pod Security's
rules (every pod "baseline"; "restricted" but for root and the capabilities the uid mode needs),
and against each other: the shards the grading Job writes are the ones the merge names, every
claim they mount is declared ReadWriteMany, retries are per index and never for exit status 2,
every Job has a deadline and a clean-up time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from autograder import paths

MANIFESTS = paths.ROOT / "deploy" / "kubernetes"
KUBERNETES = "1.31.0"  # backoffLimitPerIndex and FailIndex are stable from 1.33, beta (on by default) from 1.29
FILES = sorted(MANIFESTS.glob("*.yaml"))

#: Pod Security's "baseline" capabilities (the only ones a container may add) and volume types
#: "restricted" allows.
BASELINE_CAPABILITIES = {
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
}
RESTRICTED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}
#: The rules of "restricted" the grading pods break, on purpose (docs/SCALING.md says why).
ROOT_FOR_ISOLATION = {"runAsNonRoot", "capabilities beyond NET_BIND_SERVICE"}


def documents(path: Path) -> list[dict]:
    return [document for document in yaml.safe_load_all(path.read_text(encoding="utf-8")) if document]


def everything() -> dict[str, dict]:
    """Every manifest, as kind/name."""
    return {f"{doc['kind']}/{doc['metadata']['name']}": doc for path in FILES for doc in documents(path)}


def pods() -> dict[str, dict]:
    """The pod template of every Job, by its name."""
    return {
        name: document["spec"]["template"]["spec"]
        for name, document in everything().items()
        if document["kind"] == "Job"
    }


def test_the_recipe_has_its_manifests():
    """Are the namespace, the claims and the three Jobs (warm, grade, merge) there?"""
    assert sorted(everything()) == [
        "Job/lab05-grade",
        "Job/lab05-merge",
        "Job/lab05-warm",
        "Namespace/lab05",
        "PersistentVolumeClaim/cranfield",
        "PersistentVolumeClaim/lab05-cache",
        "PersistentVolumeClaim/lab05-class",
        "PersistentVolumeClaim/lab05-out",
    ]


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_each_manifest_passes_kubernetes_schema(path):
    """Does every document of the file validate against Kubernetes' schema, strictly (no field
    the API would drop)?"""
    for document in documents(path):
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def test_the_schema_check_can_fail():
    """Is a misspelt field of a Job refused (the check above is not vacuous)?"""
    job = everything()["Job/lab05-grade"]
    wrong = {**job, "spec": {**job["spec"], "backoffLimitPerIndexx": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(wrong, KUBERNETES, strict=True)


def restricted_violations(pod: dict) -> set[str]:
    """The rules of Pod Security "restricted" a pod template breaks (as named in ROOT_FOR_ISOLATION
    and below), and "baseline" ones, prefixed "baseline:"."""
    broken = set()
    context = pod.get("securityContext", {})
    if pod.get("hostNetwork") or pod.get("hostPID") or pod.get("hostIPC"):
        broken.add("baseline: host namespaces")
    for volume in pod.get("volumes", []):
        kind = next(key for key in volume if key != "name")
        if kind == "hostPath":
            broken.add("baseline: hostPath")
        elif kind not in RESTRICTED_VOLUMES:
            broken.add(f"volume {kind}")
    for container in pod["containers"]:
        security = container.get("securityContext", {})
        if security.get("privileged"):
            broken.add("baseline: privileged")
        seccomp = security.get("seccompProfile", context.get("seccompProfile", {})).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            broken.add("seccompProfile")
        if security.get("allowPrivilegeEscalation") is not False:
            broken.add("allowPrivilegeEscalation")
        if not security.get("runAsNonRoot", context.get("runAsNonRoot", False)):
            broken.add("runAsNonRoot")
        capabilities = security.get("capabilities", {})
        if "ALL" not in capabilities.get("drop", []):
            broken.add("capabilities not dropped")
        added = set(capabilities.get("add", []))
        if added - BASELINE_CAPABILITIES:
            broken.add("baseline: capabilities")
        if added - {"NET_BIND_SERVICE"}:
            broken.add("capabilities beyond NET_BIND_SERVICE")
        if any("hostPort" in port for port in container.get("ports", [])):
            broken.add("baseline: hostPort")
    return broken


@pytest.mark.parametrize("name", sorted(pods()))
def test_each_pod_is_baseline_and_restricted_but_for_the_isolation(name):
    """Does each Job's pod meet Pod Security "baseline" whole, and "restricted" but for running as
    root with the few capabilities the uid mode needs (seccomp RuntimeDefault, no privilege
    escalation, every other capability dropped, no hostPath)?"""
    assert restricted_violations(pods()[name]) <= ROOT_FOR_ISOLATION


#: id: (a change to the grading pod, the rule it breaks)
BROKEN = {
    "a hostPath": (
        lambda pod: pod["volumes"].append({"name": "x", "hostPath": {"path": "/run"}}),
        "baseline: hostPath",
    ),
    "no seccomp": (lambda pod: pod.pop("securityContext"), "seccompProfile"),
    "SYS_ADMIN": (
        lambda pod: pod["containers"][0]["securityContext"]["capabilities"]["add"].append("SYS_ADMIN"),
        "baseline: capabilities",
    ),
    "escalation allowed": (
        lambda pod: pod["containers"][0]["securityContext"].pop("allowPrivilegeEscalation"),
        "allowPrivilegeEscalation",
    ),
}


@pytest.mark.parametrize("case", BROKEN.values(), ids=BROKEN.keys())
def test_the_pod_security_check_can_fail(case):
    """Is each change that breaks a rule found (so that the check above is not vacuous)?"""
    change, rule = case
    pod = yaml.safe_load(yaml.safe_dump(pods()["Job/lab05-grade"]))
    change(pod)
    assert rule in restricted_violations(pod)


def test_the_namespace_enforces_baseline_and_warns_of_restricted():
    """Does the namespace enforce "baseline" and warn and audit "restricted"?"""
    labels = everything()["Namespace/lab05"]["metadata"]["labels"]
    assert {key.rsplit("/", 1)[1]: value for key, value in labels.items()} == {
        "enforce": "baseline",
        "warn": "restricted",
        "audit": "restricted",
    }


def test_the_merge_names_the_shards_the_grading_job_writes():
    """Does the grading Job's --shard auto/N match its completions, and does the merge name
    exactly its N folders, /out/shard-0 to /out/shard-(N-1)?"""
    job = everything()["Job/lab05-grade"]
    count = job["spec"]["completions"]
    grader = job["spec"]["template"]["spec"]["containers"][0]
    arguments = grader["args"]
    assert arguments[arguments.index("--shard") + 1] == f"auto/{count}"
    out = arguments[arguments.index("--out") + 1]
    index = re.fullmatch(r"/out/shard-\$\((\w+)\)", out)
    assert index is not None
    variable = next(env for env in grader["env"] if env["name"] == index.group(1))
    assert variable["valueFrom"]["fieldRef"]["fieldPath"] == (
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    )
    merge = everything()["Job/lab05-merge"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert merge == ["merge", "/out/merged", *[f"/out/shard-{task}" for task in range(count)]]


def test_retries_are_per_index_and_never_for_exit_status_2():
    """Are the grading Job's retries per index, with a pod failing with exit status 2 failing
    its index at once and an evicted pod retried without counting; does a merge that refuses
    (exit 2) fail at once?"""
    grade, merge = everything()["Job/lab05-grade"]["spec"], everything()["Job/lab05-merge"]["spec"]
    assert grade["completionMode"] == "Indexed" and grade["backoffLimitPerIndex"] >= 1
    assert grade["completions"] > grade["parallelism"]  # more shards than pods at once
    rules = grade["podFailurePolicy"]["rules"]
    assert {"action": "FailIndex", "onExitCodes": {"containerName": "grader", "operator": "In", "values": [2]}} in rules
    assert {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]} in rules
    assert merge["podFailurePolicy"]["rules"][0]["action"] == "FailJob"
    assert merge["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"] == [2]


@pytest.mark.parametrize("name", sorted(pods()))
def test_every_job_has_a_deadline_and_a_clean_up_time(name):
    """Does every Job end by a deadline and get removed some time after it ends?"""
    spec = everything()[name]["spec"]
    assert spec["activeDeadlineSeconds"] > 0 and spec["ttlSecondsAfterFinished"] > 0


def test_every_claim_mounted_is_declared_read_write_many():
    """Is every claim a Job mounts declared, ReadWriteMany (shared by pods on many nodes), and
    are the class, the shared cache and Cranfield mounted read-only by the shards?"""
    manifests = everything()
    for pod in pods().values():
        for volume in pod["volumes"]:
            claim = manifests[f"PersistentVolumeClaim/{volume['persistentVolumeClaim']['claimName']}"]
            assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    grading = pods()["Job/lab05-grade"]
    mounts = {mount["mountPath"]: mount.get("readOnly", False) for mount in grading["containers"][0]["volumeMounts"]}
    assert mounts == {"/class": True, "/out": False, "/shared-cache": True, "/cranfield": True}
    env = {variable["name"]: variable.get("value") for variable in grading["containers"][0]["env"]}
    assert env["AUTOGRADER_SHARED_CACHE"] == "/shared-cache"


RESTRICTED = MANIFESTS / "restricted"
RESTRICTED_FILES = sorted(RESTRICTED.glob("*.yaml"))


def restricted_manifests() -> dict[str, dict]:
    """The restricted route's manifests (deploy/kubernetes/restricted/), as kind/name."""
    return {f"{doc['kind']}/{doc['metadata']['name']}": doc for path in RESTRICTED_FILES for doc in documents(path)}


def restricted_pods() -> dict[str, dict]:
    """The restricted route's pod templates, by Job name."""
    manifests = restricted_manifests()
    return {name: doc["spec"]["template"]["spec"] for name, doc in manifests.items() if doc["kind"] == "Job"}


def test_the_restricted_route_has_its_manifests():
    """Does the restricted route have its namespace (enforcing "restricted") and the three Jobs?"""
    manifests = restricted_manifests()
    assert sorted(manifests) == ["Job/lab05-grade", "Job/lab05-merge", "Job/lab05-warm", "Namespace/lab05"]
    labels = manifests["Namespace/lab05"]["metadata"]["labels"]
    assert {key.rsplit("/", 1)[1]: value for key, value in labels.items()} == {
        "enforce": "restricted",
        "warn": "restricted",
        "audit": "restricted",
    }


@pytest.mark.parametrize("path", RESTRICTED_FILES, ids=[path.name for path in RESTRICTED_FILES])
def test_each_restricted_manifest_passes_kubernetes_schema(path):
    """Does every document of the restricted route validate against Kubernetes' schema, strictly?"""
    for document in documents(path):
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def _with_init_containers(pod: dict) -> list[dict]:
    """A pod template as many, one per container (init containers too), for restricted_violations."""
    return [{**pod, "containers": [container]} for container in [*pod["containers"], *pod.get("initContainers", [])]]


@pytest.mark.parametrize("name", sorted(restricted_pods()))
def test_each_restricted_pod_meets_restricted_whole(name):
    """Does each pod of the restricted route, init containers included, meet every rule of Pod
    Security "restricted" (non-root, no capability, no escalation, a Localhost seccomp profile,
    the allowed volume types), as a uid other than 0?"""
    pod = restricted_pods()[name]
    for one in _with_init_containers(pod):
        assert restricted_violations(one) == set()
    assert pod["securityContext"]["runAsUser"] > 0 and pod["securityContext"]["runAsGroup"] > 0


def test_the_restricted_check_finds_a_pod_of_the_root_route():
    """Is the root route's grading pod found to break "restricted" by the same check (not vacuous)?"""
    assert restricted_violations(pods()["Job/lab05-grade"]) == ROOT_FOR_ISOLATION


def test_the_restricted_route_names_the_profile_the_repository_holds():
    """Does every restricted pod name, as its Localhost seccomp profile, lab05/<a profile of
    deploy/kubernetes/restricted/>, one that refuses clone3 (so that clone's flags are seen) and
    does not refuse the calls the jail makes (unshare, mount, umount2, chroot)?"""
    for pod in restricted_pods().values():
        profile = pod["securityContext"]["seccompProfile"]
        assert profile["type"] == "Localhost"
        folder, name = profile["localhostProfile"].split("/")
        assert folder == "lab05"
        rules = json.loads((RESTRICTED / name).read_text(encoding="utf-8"))["syscalls"]
        refused = {call for rule in rules if rule["action"] == "SCMP_ACT_ERRNO" for call in rule["names"]}
        assert "clone3" in refused
        assert not refused & {"unshare", "mount", "umount2", "chroot", "clone"}


def test_the_restricted_grading_job_is_the_root_routes_but_for_security():
    """Does the restricted grading Job shard, retry and mount as grade.yaml does (the same
    completions, parallelism, retries, deadlines, --shard and --out), in the jail?"""
    root, restricted = everything()["Job/lab05-grade"]["spec"], restricted_manifests()["Job/lab05-grade"]["spec"]
    for key in ("completionMode", "completions", "parallelism", "backoffLimitPerIndex", "maxFailedIndexes"):
        assert restricted[key] == root[key], key
    assert restricted["podFailurePolicy"] == root["podFailurePolicy"]
    root_arguments = root["template"]["spec"]["containers"][0]["args"]
    arguments = restricted["template"]["spec"]["containers"][0]["args"]
    for option in ("--shard", "--out", "--seed", "--jobs"):
        assert arguments[arguments.index(option) + 1] == root_arguments[root_arguments.index(option) + 1], option
    assert arguments[arguments.index("--isolation") + 1] == "jail"
