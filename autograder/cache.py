"""An on-disk cache for derived data, keyed by the content that determines it.

Entries live in ``$AUTOGRADER_CACHE`` (default ``~/.cache/autograder``, the engine's for every lab: entries are keyed by
their inputs, the lab's among them), a folder only its
owner can read (grading caches hold reference values). An entry's name is a hash of its
inputs, so a change in any input is a miss, never a stale hit; writes are atomic.

``$AUTOGRADER_SHARED_CACHE`` names a second, read-only one that many graders share (the shards of a
class on a cluster's shared file system): a cache an instructor warmed once (``grade`` of a
submission with ``AUTOGRADER_CACHE`` pointing there), whose data entries (``cached_json``,
``cached_pickle``: Cranfield's bundle, the grading plans) are read before the private ones and
never written. The machine's own entries (the sandbox's probes and proofs) stay private. Its
folder and entries must be writable by the grader's user or root alone (a plan is a pickle).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from autograder import environment
from autograder.errors import InputError

_T = TypeVar("_T")


def cache_dir() -> Path:
    folder = Path(environment.get("CACHE") or Path.home() / ".cache" / "autograder")
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    return folder


SHARED_VARIABLE = environment.name("SHARED_CACHE")


def shared_entry(file_name: str) -> Path | None:
    """The shared, read-only cache's entry ``file_name`` (None: no shared cache, or no such entry);
    a ``ValueError`` when the folder is missing, or it or the entry may be changed by another user."""
    given = environment.get("SHARED_CACHE")
    if not given:
        return None
    folder = Path(given)
    if not folder.is_dir():
        raise InputError(f"{SHARED_VARIABLE}={given} is not a folder: give the pre-warmed cache's folder, or unset it")
    path = folder / file_name
    if not path.is_file():
        return None
    for checked in (folder, path):
        info = checked.stat()
        if info.st_uid not in (0, os.getuid()) or info.st_mode & 0o022:
            raise InputError(
                f"{checked} may be changed by another user (owner uid {info.st_uid}, "
                f"mode {oct(info.st_mode & 0o777)}): "
                f"a shared cache ({SHARED_VARIABLE}) must be writable by the grader's user or root alone "
                "(chown it, chmod go-w)"
            )
    return path


def fingerprint(parts: Iterable[object]) -> str:
    """A hash of file contents (``Path`` parts), bytes (as they are: a file's content hashes the
    same either way) and plain values (anything else, by repr)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.read_bytes() if isinstance(part, Path) else part if isinstance(part, bytes) else repr(part).encode()
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``path`` so that readers see the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def secret_key(name: str) -> bytes:
    """A random 32-byte key kept in the private cache folder as ``<name>.key`` (made on first use,
    readable by its owner only, published whole by a hard link so that two processes agree on
    it): a key only this grader's user holds, e.g. to sign what it writes."""
    path = cache_dir() / f"{name}.key"
    if not path.is_file():
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(os.urandom(32))
            os.chmod(temp, 0o600)
            os.link(temp, path)  # fails if another process made it first: theirs is kept
        except FileExistsError:
            pass
        finally:
            os.unlink(temp)
    key = path.read_bytes()
    if len(key) < 32:
        raise InputError(f"{path} is shorter than a key (32 bytes): remove it and a new one is made")
    return key


def write_json_atomic(path: Path, value: Any, mode: int = 0o600, sort_keys: bool = True) -> None:
    """``write_atomic`` of a JSON value (``json.dumps``: the C encoder)."""
    write_atomic(path, json.dumps(value, sort_keys=sort_keys, separators=(",", ":")).encode(), mode)


def cached_json(name: str, key: str, compute: Callable[[], Any]) -> Any:
    """The JSON value stored under ``name``-``key``, computing and storing it on a miss."""
    file_name = f"{name}-{key[:32]}.json"
    path = cache_dir() / file_name
    for found in (shared_entry(file_name), path):
        if found is not None and found.is_file():
            try:
                return json.loads(found.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                pass  # a damaged entry is recomputed
    value = compute()
    write_json_atomic(path, value)
    return value


def cached_pickle(name: str, key: str, compute: Callable[[], _T]) -> _T:
    """Like ``cached_json`` for Python objects (the grader's own, in its private folder)."""
    import pickle

    file_name = f"{name}-{key[:32]}.pickle"
    path = cache_dir() / file_name
    for entry in (shared_entry(file_name), path):
        if entry is not None and entry.is_file():
            try:
                with open(entry, "rb") as stored:
                    found: _T = pickle.load(stored)  # our own entry, or the shared cache's: what compute() gave
                    return found
            except Exception:  # a damaged or outdated entry is recomputed
                pass
    value = compute()
    write_atomic(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value
