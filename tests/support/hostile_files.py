"""Hostile files an instructor is handed with a class folder (tried by ``test_metadata.py``,
measured by ``bench/benchmark.py --hostile-files``): built here, never committed as blobs."""

from __future__ import annotations

from pathlib import Path

from tests.support import subs

ANCHORS = "abcdefghij"


def alias_bomb(levels: int = 6, width: int = 9) -> str:
    """Gradescope's ``submission_metadata.yml`` as an attacker writes it: ``levels`` lists of
    ``width`` aliases of the list before, whose last one is every field of a submitter that two
    entries repeat. With the defaults it is 371 bytes, and each field expands to 9**6 = 531,441
    strings (3.7 MB as text): the file that made a 52 MB grades.csv and 1.3 GB of grader memory."""
    lines = [f"a: &a [{','.join(['lol'] * width)}]"]
    for level in range(1, levels):
        name, below = ANCHORS[level], ANCHORS[level - 1]
        lines.append(f"{name}: &{name} [{','.join([f'*{below}'] * width)}]")
    top = ANCHORS[levels - 1]
    lines += ["submission_1:", "  :submitters:", "  - &s", f"    :name: *{top}", f"    :email: *{top}"]
    lines += [f"    :sid: *{top}", "  - *s", "  - *s", "  - *s"]
    lines += ["submission_2:", "  :submitters: [*s, *s, *s, *s, *s, *s]"]
    return "\n".join(lines)


def export(folder: Path, metadata: str | bytes, files: dict | None = None) -> Path:
    """A Gradescope export folder: ``submission_1`` (the solutions), ``submission_2`` (the
    solutions with ``files`` overriding them) and ``metadata`` as its ``submission_metadata.yml``."""
    subs.write(folder / "submission_1", {})
    subs.write(folder / "submission_2", files or {})
    data = metadata if isinstance(metadata, bytes) else metadata.encode("utf-8")
    (folder / "submission_metadata.yml").write_bytes(data)
    return folder
