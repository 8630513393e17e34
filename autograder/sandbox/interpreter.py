"""The child interpreter, probed: what it reads, and which entries of its site folders a child sees.

Every site-packages or dist-packages folder the interpreter could name is hidden whole, but for
the entries of the allowed packages (``sealed``); ``unsealed`` says what the uid mode cannot hide
where the kernel has no Landlock. The probe runs with the child interpreter itself (its
``importlib.metadata`` knows which distribution provides an allowed module, its files and its
requirements), imports no package, and is remembered in the private cache until the interpreter
or one of its folders changes.
"""

from __future__ import annotations

import json
import os
import site
import stat
import subprocess
import sysconfig
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autograder import cache
from autograder.errors import UsageError


class ProbeError(UsageError, RuntimeError):
    """The child interpreter cannot be run; the message says why and what to do."""


_PROBE = """
import glob, importlib.metadata as metadata, importlib.util, json, os, re, site, sys, sysconfig
banned, allowed = json.loads(sys.argv[1]), json.loads(sys.argv[2])


def where(name):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    return [] if spec is None else list(spec.submodule_search_locations or [spec.origin])


found = [path for name in banned for path in where(name)]
stdlib = sysconfig.get_path("stdlib")
sites = [*site.getsitepackages([sys.prefix, sys.base_prefix]), site.getusersitepackages()]
sites += [sysconfig.get_path(key) for key in ("purelib", "platlib")]
sites += [p for p in sys.path if p and not p.endswith(".zip") and os.path.realpath(p) != os.path.realpath(stdlib)
          and not os.path.realpath(p).startswith(os.path.realpath(stdlib) + os.sep + "lib-dynload")]
for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages", "/usr/share/python-wheels",
                sys.base_prefix + "/lib/python3*/*-packages", stdlib + "/ensurepip/_bundled"):
    sites += glob.glob(pattern)
forms = {}  # each site folder as named and as its real path -> its real path
for p in sites:
    if p and os.path.isdir(p):
        forms[os.path.abspath(p)] = forms[os.path.realpath(p)] = os.path.realpath(p)
sites = sorted(set(forms.values()))
kept = set()
if allowed is not None:
    providers = metadata.packages_distributions()
    wanted, seen = [], set()
    for name in allowed:
        kept.update(where(name))
        wanted += providers.get(name, [])
    while wanted:
        name = wanted.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        kept.add(str(getattr(dist, "_path", "")))
        kept.update(str(dist.locate_file(file)) for file in dist.files or ())
        for requirement in dist.requires or ():
            if "extra" not in requirement.partition(";")[2]:
                wanted.append(re.split(r"[^A-Za-z0-9._-]", requirement.strip(), maxsplit=1)[0])
entries = set()  # the site folders' entries holding them (an entry may be a link to elsewhere)
for path in filter(None, kept):
    for named in {os.path.abspath(path), os.path.realpath(path)}:
        for form, folder in forms.items():
            if named.startswith(form + os.sep):
                entries.add(os.path.join(folder, named[len(form) + 1 :].split(os.sep)[0]))
print(json.dumps({"prefix": sys.prefix, "base_prefix": sys.base_prefix, "path": sys.path, "stdlib": stdlib,
                  "executable": sys.executable, "banned": found, "sites": sites, "kept": sorted(entries)}))
"""


def _stamps(paths: Iterable[str]) -> list[list[object]]:
    """When each path last changed (a package installed or removed changes its folder)."""
    found: list[list[object]] = []
    for path in paths:
        try:
            found.append([path, os.stat(path).st_mtime_ns])
        except OSError:
            found.append([path, None])
    return found


def probe(python: str, banned: tuple[str, ...], allowed: tuple[str, ...] | None = None) -> dict[str, Any]:
    """What the child interpreter reads, where the banned libraries are, its site folders (every
    site-packages or dist-packages folder it could name) and the entries of them that hold the
    ``allowed`` packages; remembered in the private cache until the interpreter or one of its
    library folders changes. Keyed by the interpreter as named and as its real path: two virtual
    environments over one Python share the real path, not their site folders."""
    key = cache.fingerprint([os.path.abspath(python), os.path.realpath(python), banned, allowed])[:32]
    stored = cache.cache_dir() / f"probe-{key}.json"
    try:
        facts: dict[str, Any] = json.loads(stored.read_text())
        if facts["stamps"] == _stamps([python, *facts["path"], *facts["sites"]]):
            return facts
    except (OSError, ValueError, KeyError):
        pass
    command = [python, "-I", "-c", _PROBE, json.dumps(banned), json.dumps(allowed)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise ProbeError(
            f"cannot run the child interpreter {python} ({error.strerror}): make the children's environment "
            "(make setup; on a platform, its setup.sh) or name one with --child-python"
        ) from None
    if result.returncode != 0:
        raise ProbeError(f"cannot run the child interpreter {python}: {result.stderr.strip()[-300:]}")
    facts = dict(json.loads(result.stdout))
    facts["stamps"] = _stamps([python, *facts["path"], *facts["sites"]])
    cache.write_json_atomic(stored, facts)
    return facts


def _grader_sites() -> list[str]:
    """This grader's own site folders (its virtual environment's, its user's): a child never
    imports from them, wherever the child's interpreter is."""
    found = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()]
    return [*found, site.getusersitepackages()]


def _inside(path: str, folders: Iterable[str]) -> bool:
    """Is ``path`` one of ``folders`` or below one of them?"""
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def sealed(facts: dict[str, Any], read: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a child sees of the site folders (``facts``: the child interpreter's probe with the
    rubric's allowed imports), as (hidden, kept): every site folder within ``read`` is hidden
    whole, and ``kept`` names its entries shown again (the allowed packages, their metadata, what
    they need at run time, their requirements'). A folder holding Python's standard library or
    the interpreter is never sealed."""
    within = [os.path.realpath(path) for path in read]
    needed = [os.path.realpath(facts["stdlib"]), os.path.dirname(os.path.realpath(facts["executable"]))]
    hidden = sorted(
        folder
        for folder in {os.path.realpath(path) for path in [*facts["sites"], *_grader_sites()] if path}
        if os.path.isdir(folder) and _inside(folder, within) and not any(_inside(need, [folder]) for need in needed)
    )
    kept = sorted(entry for entry in facts["kept"] if os.path.dirname(entry) in hidden and os.path.lexists(entry))
    return tuple(hidden), tuple(kept)


def _others_may_read(path: str) -> bool:
    """May a user who owns nothing here and is in no group of it (a sandbox uid) read ``path``: every
    folder above it searchable by others, and it readable (a folder: and searchable) by others?"""
    try:
        parts = [os.stat(folder).st_mode for folder in Path(path).parents]
        mode = os.stat(path).st_mode
    except OSError:
        return False
    wanted = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return all(part & stat.S_IXOTH for part in parts) and mode & wanted == wanted


def unsealed_modules(facts: dict[str, Any], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of the child interpreter's site folders (``facts``: its probe with the
    ``allowed`` imports) beyond the allowed ones that any user may read: where the kernel has no Landlock,
    the uid mode cannot take them out of a child's world, and graded code that removes the import
    hook could import them."""
    hidden, kept = sealed(facts, ["/"])
    found: set[str] = set()
    for folder in hidden:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            module = name.split(".")[0]
            if path in kept or not module.isidentifier() or name.endswith((".dist-info", ".egg-info", ".pth")):
                continue
            if module not in (*allowed, "__pycache__") and _others_may_read(path):
                found.add(module)
    return tuple(sorted(found))


def unsealed(python: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``unsealed_modules`` of the child interpreter ``python`` (for ``doctor``, where the kernel
    has no Landlock)."""
    return unsealed_modules(probe(python, (), allowed), allowed)
