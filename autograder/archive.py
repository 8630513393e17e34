"""Reproducible zips: the same entries give byte-identical files (sorted entries, fixed dates
and modes), written atomically."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from collections.abc import Iterable
from pathlib import Path

from autograder.cache import write_atomic

EPOCH = (1980, 1, 1, 0, 0, 0)
EXCLUDED = ("__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis")


def files_under(folder: Path, prefix: str, skip_suffixes: tuple[str, ...] = (".run",)) -> list[tuple[str, bytes, int]]:
    """``(name in the zip, bytes, mode)`` for every file below ``folder`` but caches and outputs."""
    entries = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not any(part in EXCLUDED for part in path.parts) and path.suffix not in skip_suffixes:
            mode = 0o755 if os.access(path, os.X_OK) and path.suffix in ("", ".sh") else 0o644
            entries.append((f"{prefix}{path.relative_to(folder).as_posix()}", path.read_bytes(), mode))
    return entries


def write_zip(target: Path, entries: Iterable[tuple[str, bytes, int]], mode: int = 0o644) -> Path:
    """A reproducible zip: entries sorted by name, dated 1980-01-01, modes as given; the zip itself
    written with ``mode`` (0o600 for a zip that holds answers: owner-only, like a batch's out/)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data, entry_mode in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.external_attr = (stat.S_IFREG | entry_mode) << 16
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=9)
    write_atomic(Path(target), buffer.getvalue(), mode=mode)
    return Path(target)
