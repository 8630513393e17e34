"""What a child sees of the site folders (``sandbox/interpreter.py: probe, sealed, unsealed``,
``sandbox/isolation.py: _without``): every
site-packages or dist-packages folder within its world is hidden, and only the entries of the
packages grading.yml's ``allowed_imports`` names (their metadata, what they need at run time, their
requirements') are shown again, in the jail (covered) and in the uid mode (Landlock's read list).
The attack itself, graded in every mode, is ``outside-imports`` in test_hostile_submissions.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import paths
from autograder.sandbox import interpreter, isolation
from autograder.sandbox.child import confine

CHILD = paths.PACKAGE / "sandbox" / "child"

SITE = "lib/python3/dist-packages"
#: One site folder's entries: what the allowed numpy brings (and ``kept`` by the probe), and the rest.
ENTRIES = {
    "numpy": True,
    "numpy.libs": True,
    "numpy-1.26.4.dist-info": True,
    "scipy": False,
    "yaml": False,
    "six.py": False,
    "_cffi_backend.cpython-311-x86_64-linux-gnu.so": False,
    "distutils-precedence.pth": False,
    "__pycache__": False,
}


def _world(root: Path, entries: dict[str, bool] = ENTRIES) -> dict:
    """A small system under ``root``: an interpreter's folder, its standard library and a site folder
    holding ``entries``; returns the probe's facts about it (numpy's entries kept)."""
    for folder in ("bin", "lib/python3.11", SITE, "other"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "bin" / "python3").write_text("")
    for name in entries:
        path = root / SITE / name
        if name.endswith((".py", ".so", ".pth")):
            path.write_text("")
        else:
            path.mkdir()
    return {
        "stdlib": str(root / "lib/python3.11"),
        "executable": str(root / "bin" / "python3"),
        "sites": [str(root / SITE)],
        "kept": [str(root / SITE / name) for name, kept in entries.items() if kept],
    }


def test_a_site_folder_shows_only_the_allowed_entries(tmp_path):
    """Is the site folder hidden whole and are exactly numpy's three entries shown again?"""
    root = tmp_path.resolve()
    hidden, kept = interpreter.sealed(_world(root), [str(root)])
    assert hidden == (str(root / SITE),)
    assert kept == tuple(sorted(str(root / SITE / name) for name, shown in ENTRIES.items() if shown))


@pytest.mark.parametrize("entry, readable", sorted(ENTRIES.items()), ids=sorted(ENTRIES))
def test_the_uid_mode_reads_only_the_allowed_entries(tmp_path, entry, readable):
    """In the uid mode's read list (Landlock's), is each entry of the site folder readable exactly
    when it belongs to the allowed package, and the folder's siblings still readable?"""
    root = tmp_path.resolve()
    hidden, kept = interpreter.sealed(_world(root), [str(root)])
    read = isolation._without((str(root),), hidden, kept)
    assert (str(root / SITE / entry) in read) == readable, read
    assert str(root / SITE) not in read and str(root / "other") in read and str(root / "bin") in read


@pytest.mark.parametrize(
    "read, sealed",
    [
        (["{root}"], True),
        (["{root}/lib"], True),
        (["{root}/other"], False),
        (["{root}/bin"], False),
    ],
    ids=["below-what-it-reads", "below-a-folder-it-reads", "outside-its-world", "beside-the-interpreter"],
)
def test_only_site_folders_in_the_childs_world_are_sealed(tmp_path, read, sealed):
    """Is a site folder sealed when the child could read it (it lies below a read path), and left
    alone when it is not in the child's world anyway?"""
    root = tmp_path.resolve()
    hidden, kept = interpreter.sealed(_world(root), [path.format(root=root) for path in read])
    assert (hidden == (str(root / SITE),)) == sealed, hidden
    assert bool(kept) == sealed


@pytest.mark.parametrize(
    "site", ["", "lib/python3.11", "bin"], ids=["the-root", "the-standard-library", "the-interpreters-folder"]
)
def test_a_folder_python_needs_is_never_sealed(tmp_path, site):
    """A "site folder" that holds the standard library or the interpreter (a path entry of a
    strange .pth file): is it left readable rather than hiding Python from itself?"""
    root = tmp_path.resolve()
    facts = _world(root)
    facts["sites"].append(str(root / site))
    hidden, _ = interpreter.sealed(facts, [str(root)])
    assert hidden == (str(root / SITE),)


def test_nothing_allowed_hides_the_whole_folder(tmp_path):
    """With no package allowed, does the uid mode's read list hold nothing of the site folder?"""
    root = tmp_path.resolve()
    hidden, kept = interpreter.sealed(_world(root, dict.fromkeys(ENTRIES, False)), [str(root)])
    read = isolation._without((str(root),), hidden, kept)
    assert kept == () and [path for path in read if path.startswith(str(root / SITE))] == []


def _dist(site: Path, name: str, files: list[str], requires: tuple[str, ...] = ()) -> None:
    """A package ``name`` installed in ``site`` as pip installs it: its files and a dist-info."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    for file in files:
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_text("")
    lines = [f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0"] + [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "top_level.txt").write_text(files[0].split("/")[0].removesuffix(".py") + "\n")
    record = [*files, f"{info.name}/METADATA", f"{info.name}/top_level.txt", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{file},,\n" for file in record))


#: The entries of a site folder holding alpha (allowed) and what it requires, and whether each is kept.
PROBED = {
    "alpha": True,  # the allowed package
    "alpha-1.0.dist-info": True,  # its metadata
    "alpha.libs": True,  # a library its files list (as numpy.libs: OpenBLAS), here a link to elsewhere
    "beta.py": True,  # alpha requires beta
    "beta-1.0.dist-info": True,
    "gamma": False,  # alpha requires gamma only with an extra
    "gamma-1.0.dist-info": False,
    "delta": False,  # unrelated
    "delta-1.0.dist-info": False,
}


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    """The probe's facts, run with this interpreter on a site folder holding PROBED."""
    site = tmp_path_factory.mktemp("site").resolve()
    _dist(site, "alpha", ["alpha/__init__.py", "alpha.libs/libblas.so"], ("beta>=1", 'gamma; extra == "fast"'))
    elsewhere = tmp_path_factory.mktemp("elsewhere").resolve()  # alpha.libs: a link out of the site folder
    (site / "alpha.libs").rename(elsewhere / "alpha.libs")
    (site / "alpha.libs").symlink_to(elsewhere / "alpha.libs")
    _dist(site, "beta", ["beta.py"])
    _dist(site, "gamma", ["gamma/__init__.py"])
    _dist(site, "delta", ["delta/__init__.py"])
    code = f"import sys; sys.path.insert(0, {str(site)!r})\n" + interpreter._PROBE
    run = subprocess.run(
        [sys.executable, "-I", "-c", code, "[]", json.dumps(["alpha"])], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return site, json.loads(run.stdout)


@pytest.mark.parametrize("entry, kept", sorted(PROBED.items()), ids=sorted(PROBED))
def test_the_probe_keeps_the_allowed_package_and_its_requirements(probed, entry, kept):
    """Does the probe (run by the child's interpreter) keep the allowed package's files, metadata and
    libraries and those of its requirements, but not an extra's nor an unrelated package?"""
    site, facts = probed
    assert str(site) in facts["sites"]
    assert (str(site / entry) in facts["kept"]) == kept, facts["kept"]


@pytest.mark.parametrize(
    "python, expected",
    [
        (str(paths.CHILD_VENV / "bin" / "python"), {"numpy", "numpy.libs", "numpy-1.26.4.dist-info"}),
        ("/usr/bin/python3", {"numpy", "numpy-*.egg-info"}),
    ],
    ids=["child-environment", "debian-python"],
)
def test_the_child_interpreters_keep_numpy_only(python, expected):
    """On this machine's child interpreters (the pinned environment, Debian's python3 as the uid-mode
    tests use it), is what the probe keeps of the site folders numpy's entries and nothing else?"""
    facts = interpreter.probe(python, (), ("numpy",))
    names = {os.path.basename(entry) for entry in facts["kept"]}
    assert {
        "numpy-*.egg-info" if name.startswith("numpy-") and name.endswith(".egg-info") else name for name in names
    } == (expected), facts["kept"]


@pytest.fixture
def open_folder():
    """A folder any user may search (pytest's own temporary folders are root's only)."""
    folder = Path(tempfile.mkdtemp(prefix="lab05-sealed-")).resolve()
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.parametrize(
    "folder_mode, entry, entry_mode, readable",
    [
        (0o755, "module.py", 0o644, True),
        (0o755, "module.py", 0o600, False),
        (0o750, "module.py", 0o644, False),
        (0o755, "package", 0o755, True),
        (0o755, "package", 0o744, False),
    ],
    ids=["readable-module", "private-module", "folder-closed-to-others", "open-package", "package-not-searchable"],
)
def test_others_may_read_follows_the_permission_bits(open_folder, folder_mode, entry, entry_mode, readable):
    """Does the check say a sandbox uid (neither owner nor group) may read an entry exactly when
    its folder is searchable by others and the entry readable (a folder: and searchable) by them?"""
    folder = open_folder / "site"
    folder.mkdir()
    path = folder / entry
    path.mkdir() if entry == "package" else path.write_text("")
    path.chmod(entry_mode)
    folder.chmod(folder_mode)
    assert interpreter._others_may_read(str(path)) == readable


@pytest.mark.parametrize(
    "private, expected",
    [
        ((), ["_cffi_backend", "scipy", "six", "yaml"]),
        (("yaml", "six.py"), ["_cffi_backend", "scipy"]),
    ],
    ids=["all-readable", "some-private"],
)
def test_without_landlock_the_doctor_names_what_others_may_read(open_folder, monkeypatch, private, expected):
    """Where the uid mode cannot hide files (no Landlock), are the modules it names exactly the site
    folder's readable ones beyond the allowed numpy (no metadata, .pth file or cache)?"""
    monkeypatch.setattr(interpreter, "_grader_sites", lambda: [])  # this grader's own folders are not the example's
    facts = _world(open_folder)
    for name in private:
        (open_folder / SITE / name).chmod(0o700)
    for folder in (open_folder / "lib", open_folder / "lib" / "python3"):
        folder.chmod(0o755)
    assert list(interpreter.unsealed_modules(facts, ("numpy",))) == expected


@pytest.mark.parametrize(
    "readable, words",
    [
        ((), None),
        (("scipy", "yaml"), "cannot hide 2 other modules any user may read (scipy, yaml)"),
        (
            tuple(f"m{n:02d}" for n in range(14)),
            "(m00, m01, m02, m03, m04, m05, m06, m07, m08, m09, m10, m11 and 2 more)",
        ),
    ],
    ids=["nothing-readable", "two-readable", "many-readable"],
)
def test_without_landlock_the_doctor_says_what_could_be_imported(monkeypatch, readable, words):
    """On a kernel without Landlock, does the doctor's "child packages" line keep its verdict and
    add the modules graded code could import by removing the hook (at most 12 named), or stay as
    it was when there are none?"""
    from autograder.platforms.common import doctor
    from autograder.sandbox.machine import Finding

    monkeypatch.setattr(interpreter, "unsealed", lambda python, allowed: readable)
    before = Finding(True, "numpy 1.26.4 (as pinned)")
    after = doctor._unsealed(before, "/usr/bin/python3", ("numpy",))
    assert after.ok == before.ok
    if words is None:
        assert after == before
    else:
        assert after.detail.startswith(before.detail) and words in after.detail, after.detail
        assert "removes the import hook" in after.detail


CONFINED = r"""
import importlib, importlib.util, json, sys
sys.path.insert(0, sys.argv[1])  # the child's own modules
import confine
setup = json.loads(sys.argv[2])
sys.path.append(setup["site"])
importlib.util.find_spec("alpha")  # as the harness's locate_allowed does, before enclosing
confine.no_new_privs()
confine.landlock(setup["read"], [])
sys.path.append(setup["site"])  # again, as an attacker would, and the finders' listings forgotten too
found = {}
for name in ("alpha", "beta", "gamma"):
    try:
        found[name] = importlib.import_module(name).VALUE
    except Exception as error:
        found[name] = type(error).__name__
importlib.invalidate_caches()
try:
    found["beta-after-invalidating"] = importlib.import_module("beta").VALUE
except Exception as error:
    found["beta-after-invalidating"] = type(error).__name__
print(json.dumps(found))
"""


@pytest.mark.sandbox
@pytest.mark.skipif(confine.landlock_abi() < 1, reason="this kernel has no Landlock")
@pytest.mark.parametrize(
    "module, expected",
    [
        ("alpha", 1),
        ("beta", "PermissionError"),  # listed before the child was enclosed, unreadable after
        ("gamma", "PermissionError"),
        ("beta-after-invalidating", "ModuleNotFoundError"),  # the folder itself cannot be listed
    ],
    ids=["allowed-package", "other-package", "other-module", "other-package-after-invalidating-caches"],
)
def test_landlocks_read_list_lets_only_the_allowed_package_import(open_folder, module, expected):
    """Confined by the uid mode's read list for a site folder holding alpha (allowed), beta and
    gamma.py, does only alpha import: the others found (the listing made before enclosing) but
    unreadable, or not found once the finders' caches are invalidated?"""
    site = open_folder / "site-packages"
    for name, path in (("alpha", "alpha/__init__.py"), ("beta", "beta/__init__.py"), ("gamma", "gamma.py")):
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(f"VALUE = {1 if name == 'alpha' else 2}\n")
    python = [sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/bin", str(CHILD)]
    hidden, kept = (str(site),), (str(site / "alpha"),)
    read = isolation._without(
        isolation._minimal(os.path.realpath(p) for p in [*python, str(open_folder)]), hidden, kept
    )
    setup = {"site": str(site), "read": list(read)}
    run = subprocess.run(
        [sys.executable, "-I", "-c", CONFINED, str(CHILD), json.dumps(setup)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[module] == expected, run.stdout
