"""A single-node Slurm cluster on this machine, for the tests that submit the documented scripts
(``tests/platforms/test_slurm.py``): Debian's slurm-wlm and munge (``make test`` installs them),
run as root with everything private to a temporary folder: a munge key made for it, munged on its
own socket, slurm.conf with ports found free, slurmctld's state and slurmd's spool. ``cluster``
yields the environment that points Slurm's commands at it and stops every daemon it started
(jobs cancelled first), even when the test fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: What the cluster needs from the system (Debian's slurm-wlm and munge).
PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
MISSING = (
    "this test needs Debian's slurm-wlm and munge, and root (make test installs them: apt-get install slurm-wlm munge)"
)
#: Generous: every wait is on a state, never a fixed sleep; this bounds a wait that would never end.
DEADLINE = 600.0


def missing() -> str | None:
    """Why a cluster cannot be started here (None: it can)."""
    absent = [program for program in PROGRAMS if shutil.which(program) is None]
    if absent or os.geteuid() != 0:
        return f"{MISSING}; missing: {', '.join(absent) or 'root'}"
    return None


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _config(folder: Path, host: str, ports: list[int]) -> str:
    cpus = max(2, os.cpu_count() or 1)  # grade.sbatch asks 2 CPUs a task
    return "\n".join(
        [
            "ClusterName=lab05test",
            f"SlurmctldHost={host}",
            f"SlurmctldPort={ports[0]}",
            f"SlurmdPort={ports[1]}",
            "SlurmUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={folder / 'munge' / 'socket'}",
            f"StateSaveLocation={folder / 'state'}",
            f"SlurmdSpoolDir={folder / 'spool'}",
            f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
            f"SlurmdPidFile={folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={folder / 'slurmctld.log'}",
            f"SlurmdLogFile={folder / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",  # no cgroup plugin: a test machine may not delegate cgroups
            "TaskPlugin=task/none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "ReturnToService=2",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "JobCompType=jobcomp/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "KillWait=10",
            "MinJobAge=3600",  # ended jobs stay listed (squeue --states=all) for the test's checks
            f"NodeName={host} CPUs={cpus} RealMemory=16000 State=UNKNOWN",
            f"PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def wait_for(what: str, check, deadline: float = DEADLINE, every: float = 0.5):
    """Poll ``check`` until it returns something true (returned); an AssertionError naming
    ``what`` after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"waited {deadline:.0f} s for {what}")
        time.sleep(every)


def _stop(pid_file: Path) -> None:
    """Stop the daemon whose pid ``pid_file`` holds (this cluster's own), and wait for it."""
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)


@contextlib.contextmanager
def cluster() -> Iterator[dict[str, str]]:
    """A running single-node cluster: the environment for its commands (``SLURM_CONF``)."""
    folder = Path(tempfile.mkdtemp(prefix="lab05-slurm-"))
    folder.chmod(0o755)  # munged wants its socket's folders searchable by all
    for name in ("state", "spool", "munge"):
        (folder / name).mkdir(mode=0o755)
    host = socket.gethostname()
    conf = folder / "slurm.conf"
    conf.write_text(_config(folder, host, _free_ports(2)))
    environ = {**os.environ, "SLURM_CONF": str(conf)}
    key, munge = folder / "munge.key", folder / "munge"
    try:
        subprocess.run(["mungekey", "--create", "--keyfile", str(key)], check=True, capture_output=True)
        key.chmod(0o400)
        subprocess.run(
            [
                "munged",
                f"--key-file={key}",
                f"--socket={munge / 'socket'}",
                f"--pid-file={munge / 'pid'}",
                f"--log-file={munge / 'log'}",
                f"--seed-file={munge / 'seed'}",
            ],
            check=True,
            capture_output=True,
        )
        subprocess.run(["slurmctld", "-f", str(conf)], check=True, env=environ, capture_output=True)
        subprocess.run(["slurmd", "-f", str(conf)], check=True, env=environ, capture_output=True)
        wait_for(
            "the node to be idle",
            lambda: (
                "idle"
                in subprocess.run(["sinfo", "-h", "-o", "%T"], env=environ, capture_output=True, text=True).stdout
            ),
            deadline=120,
        )
        yield environ
    finally:
        subprocess.run(["scancel", "--full", "--user", "root"], env=environ, capture_output=True, check=False)
        for pid_file in (folder / "slurmd.pid", folder / "slurmctld.pid", munge / "pid"):
            _stop(pid_file)
        shutil.rmtree(folder, ignore_errors=True)


def job_states(environ: dict[str, str], job: str) -> dict[str, str]:
    """Every task of ``job``, ended ones too (``12_3`` or ``12`` -> RUNNING, COMPLETED, CANCELLED...)."""
    done = subprocess.run(
        ["squeue", "--noheader", "--array", "--states=all", "--jobs", job, "--format", "%i %T"],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    return dict(line.split() for line in done.stdout.splitlines() if len(line.split()) == 2)


def submit(environ: dict[str, str], *arguments: str, cwd: Path | None = None) -> str:
    """``sbatch --parsable ARGUMENTS``: the job id."""
    done = subprocess.run(
        ["sbatch", "--parsable", *arguments], env=environ, capture_output=True, text=True, check=True, cwd=cwd
    )
    return done.stdout.strip().split(";")[0]
