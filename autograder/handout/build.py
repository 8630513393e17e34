"""The students' ``handout.zip``: exactly the lab's ``assignment/`` folder, under ``PACKAGE-handout/``
(Lab 05: ``lab05-handout/``).

Its ``README.md`` may be given rendered for the platform built for (its course section:
``platforms/common/handout_readme.py``).

With ``cranfield=True`` it also holds Cranfield's three files (``cran.all.1400``, ``cran.qry``,
``cranqrel``) under ``PACKAGE-handout/cranfield/``, copied from the local ir_datasets cache, for
students who cannot download it: ``python -m lab05.data seed cranfield`` in the handout fills
their cache. The files are data from elsewhere: they go into the zip, never into the repository.
"""

from __future__ import annotations

from pathlib import Path

from autograder import archive
from autograder.errors import SetupError
from autograder.labkit.lab import Lab

#: The handout's folder that holds Cranfield when the build adds it.
CRANFIELD_FOLDER = "cranfield"
#: The students' README, at the handout's top.
README = "README.md"


def prefix(lab: Lab) -> str:
    """The folder the zip's files lie in: ``PACKAGE-handout/``."""
    return f"{lab.package}-handout/"


def build(lab: Lab, target: Path, cranfield: bool = False, readme: str | None = None) -> Path:
    """handout.zip at ``target``; ``readme``: the text its ``README.md`` holds instead of the
    handout's own (the course section rendered for the platform built for)."""
    entries = archive.files_under(lab.place.handout, prefix(lab))
    if readme is not None:
        name = prefix(lab) + README
        entries = [(path, readme.encode() if path == name else data, mode) for path, data, mode in entries]
    if cranfield:
        entries += cranfield_entries(lab)
    return archive.write_zip(target, entries)


def cranfield_entries(lab: Lab) -> list[tuple[str, bytes, int]]:
    """Cranfield's files under their collection names, from ir_datasets' cache (downloaded first
    when it is empty; ``SetupError`` says what to do when that fails)."""
    data = lab.solution.load().data
    if not data.is_cached():
        try:
            data.load_cranfield()
        except data.CranfieldUnavailable as error:  # the handout's class; its message has the fix
            raise SetupError(str(error)) from None
    folder = data.cache_dir()
    return [
        (f"{prefix(lab)}{CRANFIELD_FOLDER}/{name}", (folder / cached).read_bytes(), 0o644)
        for name, cached in sorted(data.CRANFIELD_FILES.items())
    ]
