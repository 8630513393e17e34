"""The shared, read-only, pre-warmed cache the shards of a class read (``cache.py``:
``$AUTOGRADER_SHARED_CACHE``): its data entries read before the private cache's and never written,
refused when another user could change it, and a class graded with it computing no Cranfield
bundle and no plan of its own."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys

import pytest

from autograder import cache, paths

KEY = "k" * 40


@pytest.fixture
def caches(tmp_path, monkeypatch):
    """(the private cache, the shared one), both empty, set in the environment."""
    private, shared = tmp_path / "private", tmp_path / "shared"
    shared.mkdir(mode=0o755)
    monkeypatch.setenv("AUTOGRADER_CACHE", str(private))
    monkeypatch.setenv(cache.SHARED_VARIABLE, str(shared))
    return private, shared


def _never():
    raise AssertionError("computed although the shared cache holds the entry")


#: id: (how the entry is stored in the shared cache, how it is read back)
KINDS = {
    "json (Cranfield's bundle)": (
        lambda folder: (folder / f"bundle-{KEY[:32]}.json").write_text(json.dumps({"from": "shared"})),
        lambda compute: cache.cached_json("bundle", KEY, compute),
    ),
    "pickle (a plan)": (
        lambda folder: (folder / f"plan-{KEY[:32]}.pickle").write_bytes(pickle.dumps({"from": "shared"})),
        lambda compute: cache.cached_pickle("plan", KEY, compute),
    ),
}


@pytest.mark.parametrize("case", KINDS.values(), ids=KINDS.keys())
def test_a_shared_entry_is_read_first_and_nothing_is_written(case, caches):
    """An entry in the shared cache: is it returned without computing, and nothing written to
    either cache?"""
    store, read = case
    private, shared = caches
    store(shared)
    before = sorted(path.name for path in shared.iterdir())
    assert read(_never) == {"from": "shared"}
    assert sorted(path.name for path in shared.iterdir()) == before
    assert not any(path.name.startswith(("bundle", "plan")) for path in private.iterdir())


@pytest.mark.parametrize("case", KINDS.values(), ids=KINDS.keys())
def test_a_miss_is_computed_and_kept_privately(case, caches):
    """An entry the shared cache lacks: computed, stored in the private cache, the shared one
    left as it was?"""
    _, read = case
    private, shared = caches
    assert read(lambda: {"from": "computed"}) == {"from": "computed"}
    assert list(shared.iterdir()) == []
    assert len([path for path in private.iterdir() if path.name.startswith(("bundle", "plan"))]) == 1


#: id: (what is done to the shared cache, what the message says)
UNSAFE = {
    "a folder others may write": (lambda folder, entry: folder.chmod(0o777), "may be changed by another user"),
    "an entry of another user": (lambda folder, entry: os.chown(entry, 12345, 0), "(owner uid 12345, mode 0o644)"),
    "an entry its group may write": (lambda folder, entry: entry.chmod(0o664), "mode 0o664"),
}


@pytest.mark.parametrize("case", UNSAFE.values(), ids=UNSAFE.keys())
def test_a_shared_cache_another_user_could_change_is_refused(case, caches):
    """A shared cache (or entry) another user could write (a pickle runs code as it loads): is it
    refused, naming it and what to do, rather than read?"""
    change, message = case
    _, shared = caches
    entry = shared / f"plan-{KEY[:32]}.pickle"
    entry.write_bytes(pickle.dumps("shared"))
    entry.chmod(0o644)
    change(shared, entry)
    with pytest.raises(ValueError, match=re.escape(message)):
        cache.cached_pickle("plan", KEY, _never)
    with pytest.raises(ValueError, match="chmod go-w"):
        cache.cached_pickle("plan", KEY, _never)


def test_a_shared_cache_that_is_not_a_folder_is_named(caches, monkeypatch, tmp_path):
    """Is a shared cache that does not exist refused, naming the variable and the path?"""
    monkeypatch.setenv(cache.SHARED_VARIABLE, str(tmp_path / "none"))
    with pytest.raises(ValueError, match=re.escape(f"{cache.SHARED_VARIABLE}={tmp_path / 'none'} is not a folder")):
        cache.cached_json("bundle", KEY, _never)


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_shard_graded_with_a_warmed_shared_cache_computes_no_bundle_or_plan(tmp_path, cranfield):
    """A cache warmed by grading one submission, then shared read-only: does a shard graded with an
    empty private cache and that shared one compute neither Cranfield's bundle nor a plan (its
    private cache holds none), and leave the shared cache as it was?"""
    warm, private = tmp_path / "warm", tmp_path / "private"
    examples = paths.ROOT / "examples" / "submissions"
    environ = {**os.environ, "AUTOGRADER_CACHE": str(warm), "IR_DATASETS_HOME": os.environ.get("IR_DATASETS_HOME", "")}
    environ = {name: value for name, value in environ.items() if value}
    command = [sys.executable, "-m", "autograder", "grade"]
    subprocess.run([*command, str(examples / "ada-correct"), "--out", str(tmp_path / "one")], env=environ, check=True)
    data = sorted(path.name for path in warm.iterdir() if path.name.startswith(("cranfield", "plan")))
    assert any(name.startswith("plan") for name in data) and any(name.startswith("cranfield") for name in data)
    environ.update({"AUTOGRADER_CACHE": str(private), cache.SHARED_VARIABLE: str(warm)})
    before = {path.name: path.stat().st_mtime_ns for path in warm.iterdir()}
    done = subprocess.run(
        [*command, str(examples), "--shard", "1/2", "--out", str(tmp_path / "shard-0"), "--jobs", "1"],
        env=environ,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert [path.name for path in private.iterdir() if path.name.startswith(("cranfield", "plan"))] == []
    assert {path.name: path.stat().st_mtime_ns for path in warm.iterdir()} == before
