"""The container route run rootless for real, for ``tests/platforms/test_rootless_podman.py``:
Debian's podman (and runc) started by an unprivileged account with its own ``/etc/subuid`` range
(``make test`` installs both: tools/install-system-packages), on an image made from this host's
own files, since the suite may reach no registry of images:

- a root filesystem folder whose ``/usr`` and ``/etc`` are the host's, bound read-only (Debian 12:
  ``/bin``, ``/lib``, ``/sbin`` link into ``/usr``), so student code runs in the host's
  ``/usr/bin/python3`` (with Debian's numpy), as the container_sim tests do;
- ``/lab05`` as the repository's Dockerfile lays it out: the checkout (what ``.dockerignore``
  lets through) in ``/lab05/repo``, the grader's packages in ``/lab05/venv`` (installed by uv from
  its cache, with Debian's Python 3.11, kept between runs: ``grader_venv``), an empty cache in
  ``/lab05/cache``, all of it the container root's alone (``chmod -R go-rwx``, as the Dockerfile
  does);
- ``podman run --rootfs`` of it as the account, the entrypoint the Dockerfile installs as the
  command, the Dockerfile's ENV as ``-e``, no network.

Rootless, the container's root is the account and its other uids are the account's 65,536
subordinate uids, so the entrypoint must place the sandbox uids inside that map
(``autograder/sandbox/uid_map.py``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder import paths
from autograder.reports import output_paths
from tests.support import subs

#: The unprivileged account podman runs as (tools/install-system-packages makes it).
ACCOUNT = "lab05-podman"
#: What the route needs from the system (Debian's podman, runc, uidmap).
PROGRAMS = ("podman", "runc", "newuidmap", "newgidmap", "runuser")
MISSING = (
    "this test needs Debian's podman, runc and uidmap, root, and the account "
    f"{ACCOUNT} with a range of 65536 uids and gids in /etc/subuid and /etc/subgid "
    "(make test makes them: tools/install-system-packages)"
)
#: The Dockerfile's ENV and the image's layout, as the entrypoint reads them.
ENVIRONMENT = {
    "AUTOGRADER_CACHE": "/lab05/cache",
    "IR_DATASETS_HOME": "/lab05/cache/ir_datasets",
    "PYTHONDONTWRITEBYTECODE": "1",
    "AUTOGRADER_CHILD_PYTHON": "/usr/bin/python3",  # the host's, with Debian's numpy (no /opt/lab05-child)
}
#: The Dockerfile's requirement files of the grader's environment, /lab05/venv.
REQUIREMENTS = ("lab.txt", "grader.txt", "batch.txt")
ENTRYPOINT = "/lab05/repo/autograder/local/templates/entrypoint"
#: Bounds a run that would never end; every test waits on the command, never on a clock.
DEADLINE = 900


def _subordinate(path: str) -> int:
    """How many subordinate ids ``path`` (/etc/subuid or /etc/subgid) gives the account."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return 0
    return sum(int(line.split(":")[2]) for line in lines if line.split(":")[0] == ACCOUNT and line.count(":") == 2)


def missing() -> str | None:
    """Why the route cannot be run here (None: it can)."""
    absent = [program for program in PROGRAMS if shutil.which(program) is None]
    if os.geteuid() != 0:
        absent.append("root")
    try:
        pwd.getpwnam(ACCOUNT)
    except KeyError:
        absent.append(f"the account {ACCOUNT}")
    for path in ("/etc/subuid", "/etc/subgid"):
        if _subordinate(path) < 65536:
            absent.append(f"65536 ids of {ACCOUNT} in {path}")
    return f"{MISSING}; missing: {', '.join(absent)}" if absent else None


def _ignored() -> list[str]:
    """.dockerignore's patterns (what the Dockerfile's ``COPY . /lab05/repo/`` leaves out)."""
    lines = (paths.ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    return [line.strip().rstrip("/") for line in lines if line.strip()[:1] not in ("", "#")]


def _copy_checkout(target: Path) -> None:
    """The checkout copied to ``target`` as Docker reads .dockerignore: a pattern from the root,
    ``**/`` matching in every folder."""
    ignored = _ignored()

    def leave_out(folder: str, names: list[str]) -> set[str]:
        relative = Path(folder).relative_to(paths.ROOT)
        return {
            name
            for name in names
            for pattern in ignored
            if fnmatch.fnmatch((relative / name).as_posix(), pattern)
            or (pattern.startswith("**/") and fnmatch.fnmatch(name, pattern[3:]))
        }

    shutil.copytree(paths.ROOT, target, ignore=leave_out, symlinks=True)


def _chown(top: Path, uid: int, gid: int) -> None:
    for folder, folders, files in os.walk(top):
        for name in [folder, *(os.path.join(folder, entry) for entry in folders + files)]:
            os.lchown(name, uid, gid)


def host_id(container_id: int, table: str = "/etc/subuid") -> int:
    """The host's uid (with ``table`` /etc/subgid: gid) of the container's ``container_id``: the
    account's for its root, else the account's subordinate ids from 1 (the map rootless podman makes)."""
    if container_id == 0:
        account = pwd.getpwnam(ACCOUNT)
        return account.pw_uid if table == "/etc/subuid" else account.pw_gid
    for line in Path(table).read_text(encoding="utf-8").splitlines():
        name, start, count = line.split(":")
        if name == ACCOUNT and container_id <= int(count):
            return int(start) + container_id - 1
    raise ValueError(f"host_id: the container's id {container_id} is not mapped by {ACCOUNT}'s range in {table}")


def _give(top: Path, owner: int) -> None:
    """``top`` and all in it to the container's uid and gid ``owner``."""
    _chown(top, host_id(owner), host_id(owner, "/etc/subgid"))


def grader_venv(owner: int = 0) -> Path:
    """The grader's packages (the Dockerfile's requirement files) for Debian's Python 3.11, installed
    by uv from its cache (make setup filled it) into a folder of the account's, the container uid
    ``owner``'s alone, kept for the next run under a name of the files' digest: 5,600 files, whose
    removal on this machine's disk took 21 s, for 1.4 s to install."""
    account = pwd.getpwnam(ACCOUNT)
    files = [paths.ROOT / "requirements" / name for name in REQUIREMENTS]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in files)).hexdigest()[:16]
    venv = Path(account.pw_dir) / f"grader-venv-{digest}-{owner}"
    if venv.is_dir():
        return venv
    building = Path(tempfile.mkdtemp(prefix="grader-venv-", dir=account.pw_dir))
    uv = str(Path(sys.executable).parent / "uv")
    subprocess.run(
        [uv, "venv", "--quiet", "--allow-existing", "--python", "/usr/bin/python3", str(building)], check=True
    )
    install = [uv, "pip", "install", "--quiet", "--offline", "--link-mode", "copy", "--python", str(building)]
    for path in files:
        install += ["-r", str(path)]
    subprocess.run(install, check=True, capture_output=True)
    _give(building, owner)
    subprocess.run(["chmod", "-R", "go-rwx", str(building)], check=True)  # as the Dockerfile's /lab05
    try:
        building.rename(venv)  # whole or not at all
    except OSError:  # another run made it first
        shutil.rmtree(building, ignore_errors=True)
    return venv


def make_image(folder: Path, owner: int = 0) -> Path:
    """The root filesystem (``folder / "rootfs"``) of an image laid out as the Dockerfile's, made
    from this host's files (``/lab05/venv`` is bound from ``grader_venv``), its ``/lab05`` the
    container uid ``owner``'s alone; ``folder`` must be one the account can reach."""
    account = pwd.getpwnam(ACCOUNT)
    rootfs = folder / "rootfs"
    for name in ("usr", "etc", "proc", "sys", "dev", "run", "tmp", "var/tmp", "lab05/venv", "lab05/cache"):
        (rootfs / name).mkdir(parents=True)
    for name in ("bin", "lib", "lib64", "sbin"):
        (rootfs / name).symlink_to(f"usr/{name}")
    for name in ("class", "out", "rubric"):  # no /cranfield: the entrypoint would seed from it
        (rootfs / name).mkdir()
    _copy_checkout(rootfs / "lab05" / "repo")
    _chown(folder, account.pw_uid, account.pw_gid)
    for path in (rootfs / "tmp", rootfs / "var" / "tmp"):
        path.chmod(0o1777)
    _give(rootfs / "lab05", owner)
    subprocess.run(["chmod", "-R", "go-rwx", str(rootfs / "lab05")], check=True)
    return rootfs


def make_owned(folder: Path, owner: int = 0) -> None:
    """Give ``folder`` and all in it to the container's uid ``owner`` (0: its root, the account)."""
    _give(folder, owner)


def workspace() -> Path:
    """A folder of the account's, for one test's image, class and output (its home is the only
    place rootless podman may bind from; pytest's tmp_path is root's alone)."""
    account = pwd.getpwnam(ACCOUNT)
    os.makedirs(account.pw_dir, exist_ok=True)
    os.chown(account.pw_dir, account.pw_uid, account.pw_gid)
    folder = Path(tempfile.mkdtemp(prefix="rootless-", dir=account.pw_dir))
    os.chown(folder, account.pw_uid, account.pw_gid)
    return folder


def podman(arguments: list[str], timeout: float = DEADLINE) -> subprocess.CompletedProcess[str]:
    """``podman ARGUMENTS`` as the account (runc: crun refuses a host of mixed cgroup v1 and v2)."""
    account = pwd.getpwnam(ACCOUNT)
    command = ["runuser", "-u", ACCOUNT, "--", "env", f"HOME={account.pw_dir}", "podman", "--runtime", "runc"]
    return subprocess.run([*command, *arguments], capture_output=True, text=True, timeout=timeout, cwd="/")


def cgroups_options(rootfs: Path) -> list[str]:
    """``--cgroups=split`` (the container stays in the caller's cgroup: a Slurm job's) where podman
    supports it rootless here; else nothing: rootless podman on cgroup v1 refuses it ("could not
    find cgroup mount in /proc/self/cgroup") and creates no cgroup of its own anyway."""
    done = podman(["run", "--rm", "--network", "none", "--cgroups=split", *_binds(), "--rootfs", str(rootfs), "true"])
    return ["--cgroups=split"] if done.returncode == 0 else []


def _binds(owner: int = 0) -> list[str]:
    return ["-v", "/usr:/usr:ro", "-v", "/etc:/etc:ro", "-v", f"{grader_venv(owner)}:/lab05/venv:ro"]


def run(
    rootfs: Path, arguments: list[str], mounts: dict[str, str], cgroups: list[str], **environment: str
) -> subprocess.CompletedProcess[str]:
    """The image's entrypoint with ``arguments`` in a rootless container, ``mounts`` (host folder
    -> container path, ``:ro`` allowed) bound into it, ``environment`` added to the image's."""
    options = ["run", "--rm", "--network", "none", *cgroups, "--hostname", "lab05-rootless", *_binds()]
    for source, target in mounts.items():
        options += ["-v", f"{source}:{target}"]
    for name, value in {**ENVIRONMENT, **environment}.items():
        options += ["-e", f"{name}={value}"]
    return podman([*options, "--rootfs", str(rootfs), ENTRYPOINT, *arguments])


#: The uid a Pod Security "restricted" pod runs the grader as (deploy/kubernetes/restricted/grade.yaml).
POD_UID = 65532


def run_as_restricted_pod(
    rootfs: Path, profile: Path, arguments: list[str], mounts: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``python -m autograder ARGUMENTS`` as a "restricted" pod runs it: as POD_UID (not root),
    every capability dropped, no privilege escalation, under the seccomp profile ``profile`` (a
    file of the host); ``rootfs`` made with ``make_image(folder, POD_UID)``."""
    options = ["run", "--rm", "--network", "none", "--passwd=false", "--user", f"{POD_UID}:{POD_UID}"]
    options += ["--cap-drop", "all", "--security-opt", "no-new-privileges", "--security-opt", f"seccomp={profile}"]
    options += ["--hostname", "lab05-restricted", "--workdir", "/lab05/repo", *_binds(POD_UID)]
    for source, target in mounts.items():
        options += ["-v", f"{source}:{target}"]
    environment = {**ENVIRONMENT, "PYTHONPATH": "/lab05/repo", "HOME": "/tmp"}
    for name, value in environment.items():
        options += ["-e", f"{name}={value}"]
    return podman([*options, "--rootfs", str(rootfs), "/lab05/venv/bin/python", "-m", "autograder", *arguments])


#: What a submission tries to read inside the container (the image's layout, docs/CONTAINER.md).
TARGETS = (
    "/lab05/repo/grading.yml",
    "/lab05/repo/solutions",
    "/lab05/repo/lab/data/expected.json",
    "/lab05/venv/pyvenv.cfg",
    "/lab05/cache",
    "/class",
    "/class/ada-correct/lab05/metrics.py",
    "/out",
    "/rubric/grading.yml",
    "/cranfield/cranqrel",
)
ESCAPE = f"""
import os as _os, socket as _socket
def confusion_matrix(retrieved, relevant, collection_size):
    found = []
    for path in {TARGETS!r}:
        try:
            found.append((path, (_os.listdir(path) if _os.path.isdir(path) else open(path, "rb").read(40))[:3]))
        except OSError:
            pass
    for pid in {{_os.getppid(), 1}}:  # the grader's command line names the class folder
        try:
            if b"/class" in open("/proc/%d/cmdline" % pid, "rb").read():
                found.append(("cmdline", pid))
        except OSError:
            pass
    try:
        _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM).close()
        found.append(("socket", "opened"))
    except OSError:
        pass
    try:
        _os.setuid(0)
        found.append(("setuid", 0))
    except OSError:
        pass
    raise RuntimeError("uid %d found: %r" % (_os.getuid(), found))
"""


def write_class(folder: Path) -> None:
    """The examples and ``zz-escape``, a submission that tries to escape (ESCAPE)."""
    for example in sorted((paths.ROOT / "examples" / "submissions").iterdir()):
        shutil.copytree(example, folder / example.name)
    subs.write(folder / "zz-escape", {"metrics.py": subs.with_function("metrics.py", ESCAPE)})


def message(out: Path, submission: str) -> str:
    """The feedback.md of ``submission`` in the output folder ``out``."""
    return (out / output_paths.SUBMISSIONS / submission / "feedback.md").read_text(encoding="utf-8")


def grade_on_host(inputs: Path, out: Path, rubric: Path, seed: str) -> Path:
    """``inputs`` graded by a batch on this host (its isolation: the jail, as root), student code
    in /usr/bin/python3 as in the containers; returns ``out``."""
    command = [sys.executable, "-m", "autograder", "grade", str(inputs), "--out", str(out), "--rubric", str(rubric)]
    command += ["--seed", seed, "--jobs", "2", "--child-python", "/usr/bin/python3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=DEADLINE)
    if done.returncode != 0:
        raise AssertionError(f"the host's batch exited with {done.returncode}: {done.stderr[-3000:]}")
    return out
