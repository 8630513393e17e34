"""Child interpreters the proof is tried with (``tests/sandbox/test_proof.py``, and the platforms' runs in
``test_build.py`` and ``test_prairielearn.py``): the system's, a copy the sandbox user cannot read,
and a venv without numpy."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

SYSTEM = "/usr/bin/python3"


@contextlib.contextmanager
def sealed() -> Iterator[str]:
    """/usr/bin/python3 copied into FOLDER/python/bin, its standard library and Debian's
    dist-packages linked under FOLDER/python/lib (so that its prefix is there, as a Python under
    /root has it), FOLDER root's alone (0700): root starts it, the sandbox user cannot read it."""
    folder = Path(tempfile.mkdtemp(prefix="lab05-sealed-"))
    os.chmod(folder, 0o700)
    prefix = folder / "python"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    shutil.copy2(os.path.realpath(SYSTEM), prefix / "bin" / "python3")
    code = "import sysconfig; print(sysconfig.get_paths()['stdlib'])"
    found = subprocess.run([SYSTEM, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    stdlib = Path(found.stdout.strip())
    (prefix / "lib" / stdlib.name).symlink_to(stdlib)
    if Path("/usr/lib/python3").is_dir():  # Debian's dist-packages (numpy)
        (prefix / "lib" / "python3").symlink_to("/usr/lib/python3")
    try:
        yield str(prefix / "bin" / "python3")
    finally:
        shutil.rmtree(folder)


@contextlib.contextmanager
def without_numpy() -> Iterator[str]:
    """A venv of /usr/bin/python3 without numpy, readable by everyone."""
    folder = Path(tempfile.mkdtemp(prefix="lab05-venv-"))
    os.chmod(folder, 0o755)
    try:
        subprocess.run([SYSTEM, "-m", "venv", "--without-pip", str(folder / "venv")], check=True, timeout=120)
        yield str(folder / "venv" / "bin" / "python")
    finally:
        shutil.rmtree(folder)
