"""The students' ``handout.zip``: exactly the ``assignment/`` folder, under ``lab05-handout/``.

With ``cranfield=True`` it also holds Cranfield's three files (``cran.all.1400``, ``cran.qry``,
``cranqrel``) under ``lab05-handout/cranfield/``, copied from the local ir_datasets cache, for
students who cannot download it: ``python -m lab05.data seed cranfield`` in the handout fills
their cache. The files are data from elsewhere: they go into the zip, never into the repository.
"""

from __future__ import annotations

from pathlib import Path

from autograder import archive, paths
from autograder.errors import SetupError
from autograder.lab.solution import load_lab05

PREFIX = "lab05-handout/"
#: The handout's folder that holds Cranfield when the build adds it.
CRANFIELD_FOLDER = "cranfield"


def build(target: Path, cranfield: bool = False) -> Path:
    entries = archive.files_under(paths.HANDOUT, PREFIX)
    if cranfield:
        entries += cranfield_entries()
    return archive.write_zip(target, entries)


def cranfield_entries() -> list[tuple[str, bytes, int]]:
    """Cranfield's files under their collection names, from ir_datasets' cache (downloaded first
    when it is empty; ``SetupError`` says what to do when that fails)."""
    data = load_lab05().data
    if not data.is_cached():
        try:
            data.load_cranfield()
        except data.CranfieldUnavailable as error:  # the handout's class; its message has the fix
            raise SetupError(str(error)) from None
    folder = data.cache_dir()
    return [
        (f"{PREFIX}{CRANFIELD_FOLDER}/{name}", (folder / cached).read_bytes(), 0o644)
        for name, cached in sorted(data.CRANFIELD_FILES.items())
    ]
