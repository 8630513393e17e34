"""The students' ``handout.zip``: exactly the ``assignment/`` folder, under ``lab05-handout/``."""

from __future__ import annotations

from pathlib import Path

from autograder import archive, paths


def build(target: Path) -> Path:
    return archive.write_zip(target, archive.files_under(paths.HANDOUT, "lab05-handout/"))
