"""What the red team found in the uid mode, tried against real children in the uid mode and the
jail: a later child reading what a secret call left in the kernel's shared state (the PID counter)
and printing it, and an exception class that calls itself a builtin to carry a hidden input in its
name. Each case is a small worked example: what a student could read must not hold it."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from autograder import tempdirs
from autograder.sandbox import channel, isolation, leases, runner
from autograder.sandbox.child import harness
from autograder.sandbox.outcomes import OutcomeStatus
from autograder.sandbox.settings import Call, Isolation, Limits, Mode

pytestmark = [pytest.mark.sandbox]

if os.getuid() != 0:  # pragma: no cover - CI runs the sandbox tests as root
    pytest.fail("the uid mode's tests run children as a sandbox uid: run them as root (CI does)", pytrace=False)

LIMITS = Limits(call_seconds=60, submission_seconds=120, memory_mb=1024, output_kb=8, tmp_mb=8, tmp_inodes=256)

#: The sender: a secret call moves the PID counter (the red team's repro, shortened to one step).
SENDER = r"""
import threading


def send(value=160, modulus=4096):
    for _ in range(3 * modulus):  # bounded: another process may take the wanted PID
        box = []
        thread = threading.Thread(target=lambda: box.append(threading.get_native_id()))
        thread.start()
        thread.join()
        if box[0] % modulus == value % modulus:
            return [1]
    return [0]


def listings(kept):
    # each sealed folder a path finder lists, and what its listing holds beyond ``kept``
    import json
    import os
    import sys

    seen, extra = [], {}
    for folder, finder in list(sys.path_importer_cache.items()):
        real = os.path.realpath(folder) if folder else ""
        if real in kept and isinstance(getattr(finder, "_path_cache", None), set):
            seen.append(real)
            extra[real] = sorted(set(finder._path_cache) - set(kept[real]))[:10]
    return json.dumps({"seen": sorted(seen), "extra": extra})


def forged():
    raise type("LEAKED_collection_size_10", (ValueError,), {"__module__": "builtins"})("hidden")
"""

#: The receiver: the next graded file's child prints its PID at import.
RECEIVER = 'import os\nprint("PID-LEAK", (os.getpid() % 4096) / 16)\n\n\ndef nothing():\n    return [1]\n'

#: A graded file whose import raises a class that claims to be a builtin.
FORGED_AT_IMPORT = 'raise type("LEAKED_collection_size_10", (ValueError,), {"__module__": "builtins"})("x")\n'

MODES = [Mode.UID, Mode.JAIL]


@pytest.fixture(scope="module")
def uid() -> int:
    return leases.lease(1, isolation.DEFAULT_UID)[0]


def run(
    uid: int, files: dict[str, str], calls: list[Call], mode: Mode, enclosure: Isolation | None = None
) -> runner.SandboxResult:
    """Run ``calls`` on a package of ``files`` (name: source), in ``mode`` (or ``enclosure``)."""
    with tempdirs.folder("lab05-red-team-") as temporary:
        folder = Path(temporary)
        package = folder / "lab" / "lab05"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        for name, source in files.items():
            (package / name).write_text(source)
        os.chmod(folder, 0o711)
        for path in (folder / "lab", package, *package.iterdir()):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        enclosure = enclosure or isolation.jail_isolation("/usr/bin/python3", (uid,), mode=mode)

        def payload(index: int) -> bytes:
            call = {"fn": calls[index].fn, "file": calls[index].file, "args": []}
            return index.to_bytes(4, "big") + pickle.dumps(call, protocol=4)

        return runner.run(folder / "lab", calls, payload, LIMITS, enclosure)


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
def test_is_what_a_later_file_prints_after_a_secret_call_kept_from_the_student(uid, mode):
    """Does a child started after another file's secret call (which moved the PID counter) print
    only where instructors read it?"""
    calls = [Call("send", "metrics.py", secret=True), Call("nothing", "runs.py")]
    result = run(uid, {"metrics.py": SENDER, "runs.py": RECEIVER}, calls, mode)
    assert result.outcomes[0] is not None and result.outcomes[0].status == OutcomeStatus.VALUE, result.outcomes
    assert "PID-LEAK" not in result.stdout + result.stderr, result.stdout
    assert "PID-LEAK" in result.hidden_output, result.hidden_output


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
def test_is_what_a_file_prints_before_any_secret_call_still_shown(uid, mode):
    """Does a receiver that runs before any secret call still have its output shown (the fix
    withholds only what came after)?"""
    calls = [Call("nothing", "runs.py"), Call("send", "metrics.py", secret=True)]
    result = run(uid, {"metrics.py": SENDER, "runs.py": RECEIVER}, calls, mode)
    assert "PID-LEAK" in result.stdout, result.stdout


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
def test_does_a_class_that_claims_to_be_a_builtin_stay_out_of_the_mro(uid, mode):
    """Does an exception class with ``__module__ = "builtins"`` reach the error's mro (which the
    student's messages quote)?"""
    result = run(uid, {"metrics.py": SENDER, "runs.py": ""}, [Call("forged", "metrics.py", secret=True)], mode)
    outcome = result.outcomes[0]
    assert outcome is not None and outcome.status == OutcomeStatus.ERROR, outcome
    assert outcome.error is not None and outcome.error["mro"][:2] == ["ValueError", "Exception"], outcome.error


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
def test_does_a_forged_builtin_raised_at_import_after_a_secret_call_stay_hidden(uid, mode):
    """Is the type of an import error, in a child started after a secret call, a real builtin's
    name (the scrubbed import shows only that)?"""
    files = {"metrics.py": SENDER, "runs.py": FORGED_AT_IMPORT}
    result = run(uid, files, [Call("send", "metrics.py", secret=True), Call("nothing", "runs.py")], mode)
    error = result.imports["runs.py"].error
    assert error is not None and error["type"] == "ValueError", error
    assert "LEAKED" not in repr(error), error


ERRORS = [
    ("forged-first", ["LEAKED_collection_size_10", "ValueError", "Exception", "BaseException", "object"],
     ["ValueError", "Exception", "BaseException", "object"]),
    ("real-builtins", ["KeyError", "LookupError", "Exception", "BaseException", "object"],
     ["KeyError", "LookupError", "Exception", "BaseException", "object"]),
    ("not-strings", [1, None, "OSError"], ["OSError"]),
    ("only-forged", ["Secret_abc"], []),
]  # fmt: skip


@pytest.mark.parametrize(("mro", "kept"), [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS])
def test_does_the_parent_keep_only_builtin_names_in_an_mro(mro, kept):
    """Whatever the child says an error's classes are, does the parent keep only the names of
    real built-in exceptions?"""
    error = channel._error({"type": "X", "mro": mro, "message": "", "traceback": []})
    assert error is not None and error["mro"] == kept, error


def _forged(name: str, base: type[BaseException]) -> BaseException:
    return type(name, (base,), {"__module__": "builtins"})("hidden")


class _Honest(KeyError):
    """A student's own exception class, honestly named."""


RAISED = [
    ("forged-value-error", _forged("LEAKED_collection_size_10", ValueError), ["ValueError", "Exception"]),
    ("forged-named-like-a-builtin", _forged("TypeError", ValueError), ["ValueError", "Exception"]),
    ("honest-subclass", _Honest("x"), ["KeyError", "LookupError"]),
    ("builtin", OSError("x"), ["OSError", "Exception"]),
]


@pytest.mark.parametrize(("error", "first"), [case[1:] for case in RAISED], ids=[case[0] for case in RAISED])
def test_does_the_child_name_only_classes_builtins_really_holds(error, first):
    """Does the child's description of an error list, as its mro, only classes that are the
    builtins module's own (not a class that sets its ``__module__``, nor one named like a builtin)?"""
    described = harness.describe_error(error, "/nowhere")
    assert described["mro"][:2] == first and described["mro"][-2:] == ["BaseException", "object"], described


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
def test_do_the_path_finders_list_only_allowed_entries_of_a_sealed_folder(uid, mode):
    """Does graded code that reads every path finder's cached listing find, in a sealed site
    folder, only the entries of the allowed packages (numpy), never the folder's other names?"""
    enclosure = isolation.jail_isolation("/usr/bin/python3", (uid,), mode=mode, allowed=("numpy",))
    assert enclosure.hidden_paths, "no sealed site folder to try (the child interpreter has none)"
    kept: dict[str, list[str]] = {folder: [] for folder in enclosure.hidden_paths}
    for entry in enclosure.kept_paths:
        kept[os.path.dirname(entry)].append(os.path.basename(entry))
    files = {"metrics.py": SENDER + f"\n\nKEPT = {kept!r}\n\n\ndef sealed_listings():\n    return listings(KEPT)\n"}
    result = run(uid, {**files, "runs.py": ""}, [Call("sealed_listings", "metrics.py")], mode, enclosure)
    outcome = result.outcomes[0]
    assert outcome is not None and outcome.status == OutcomeStatus.VALUE, outcome
    found = json.loads(outcome.value["value"])
    assert found["seen"], "the child's finders list no sealed folder: nothing was tried"
    assert not any(found["extra"].values()), found["extra"]
