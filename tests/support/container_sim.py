"""Docker's defaults for one command, simulated on this machine (no image, no daemon): the
command runs as root under a seccomp filter refusing what Docker's default profile refuses to a
container without CAP_SYS_ADMIN (new namespaces, mount, keyrings, bpf, clone3 answered ENOSYS
so that glibc falls back to clone), with Docker's default capabilities only.

    python tests/support/container_sim.py COMMAND...

``grade`` runs the repository's container entrypoint that way (the image's layout: the checkout
for /lab05/repo, this interpreter for /lab05/venv) and reads back what it wrote.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pyseccomp as seccomp

from autograder import paths
from autograder.grading.results import SubmissionResult
from autograder.reports import output_paths

ENTRYPOINT = paths.PACKAGE / "local" / "templates" / "entrypoint"

#: Docker's default capabilities (moby's oci/caps/defaults.go); every other one is dropped.
DOCKER_CAPABILITIES = [
    "chown",
    "dac_override",
    "fsetid",
    "fowner",
    "mknod",
    "net_raw",
    "setgid",
    "setuid",
    "setfcap",
    "setpcap",
    "net_bind_service",
    "sys_chroot",
    "kill",
    "audit_write",
]
#: Refused with EPERM by the default profile unless the container has CAP_SYS_ADMIN.
REFUSED = ("unshare", "setns", "mount", "umount2", "pivot_root", "keyctl", "add_key", "request_key", "bpf")
#: clone's namespace flags (CLONE_NEWNS .. CLONE_NEWNET, CLONE_NEWCGROUP), refused the same way.
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def install() -> None:
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.CTL_NNP, 0)  # Docker does not set no_new_privs
    for name in REFUSED:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()


def main(command: list) -> None:
    if os.getuid() != 0 or not command:
        sys.exit("usage (as root): python tests/support/container_sim.py COMMAND...")
    install()
    capabilities = ",".join(["-all", *(f"+{name}" for name in DOCKER_CAPABILITIES)])
    os.execvp("setpriv", ["setpriv", f"--bounding-set={capabilities}", f"--inh-caps={capabilities}", "--", *command])


def settings() -> dict:
    """The image's layout, mapped onto this checkout: its repository, its interpreters, no /cranfield."""
    return {
        "AUTOGRADER_REPO": str(paths.ROOT),
        "AUTOGRADER_PYTHON": sys.executable,
        "AUTOGRADER_CHILD_PYTHON": "/usr/bin/python3",
        "AUTOGRADER_CRANFIELD": "/nonexistent-cranfield",
    }


def run(arguments: list, **environment) -> subprocess.CompletedProcess:
    """The container entrypoint with ``arguments``, as Docker would run it (``environment``
    overrides the image's settings)."""
    command = [sys.executable, __file__, str(ENTRYPOINT), *arguments]
    every = {**os.environ, **settings(), **environment}
    return subprocess.run(command, env=every, capture_output=True, text=True, timeout=900, cwd="/")


def grade(inputs: Path, out: Path, rubric: Path, jobs: int = 2, **environment) -> dict:
    """``grade INPUTS --out OUT`` in the simulated container: every submission's stored result, by id."""
    done = run(["grade", str(inputs), "--out", str(out), "--rubric", str(rubric), "--jobs", str(jobs)], **environment)
    if done.returncode != 0:
        raise AssertionError(f"the container's grade exited with {done.returncode}: {done.stderr[-3000:]}")
    found = {}
    for path in sorted((out / output_paths.SUBMISSIONS).glob("*/grade.json")):
        result = SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
        found[result.submission] = result
    return found


if __name__ == "__main__":
    main(sys.argv[1:])
