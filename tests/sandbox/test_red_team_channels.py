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
from autograder.sandbox.outcomes import Outcome, OutcomeStatus, SandboxResult
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


def nothing():
    return [1]


def forged():
    raise type("LEAKED_collection_size_10", (ValueError,), {"__module__": "builtins"})("hidden")
"""

#: The receiver: the next graded file's child prints its PID at import.
RECEIVER = 'import os\nprint("PID-LEAK", (os.getpid() % 4096) / 16)\n\n\ndef nothing():\n    return [1]\n'

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


#: Calls (function, file, secret), each case in the plan's order (every public call first) but the
#: last, whose public call after a secret one runs after it (it is not shown).
ORDERS = [
    ("public-of-both-then-secret", [("nothing", "metrics.py", False), ("nothing", "runs.py", False),
                                    ("send", "metrics.py", True), ("nothing", "runs.py", True)]),
    ("runs-public-only", [("send", "metrics.py", True), ("nothing", "runs.py", False)]),
]  # fmt: skip


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
@pytest.mark.parametrize("order", [case[1] for case in ORDERS], ids=[case[0] for case in ORDERS])
def test_do_every_files_public_calls_run_before_any_secret_call(uid, order, mode):
    """Does each graded file's import and public calls run (and print for the student) before the
    submission's first secret call, whatever file that call is in, while what a runs.py child
    started after a secret call prints (its PID, which the secret call could choose) is the
    instructor's only?"""
    calls = [Call(function, file, secret=secret) for function, file, secret in order]
    result = run(uid, {"metrics.py": SENDER, "runs.py": RECEIVER}, calls, mode)
    assert all(outcome is not None and outcome.status == OutcomeStatus.VALUE for outcome in result.outcomes)
    first_secret = next(index for index, (_, _, secret) in enumerate(order) if secret)
    assert result.stdout.count("PID-LEAK") == 1, result.stdout  # runs.py's public import
    later = any(file == "runs.py" for _, file, _ in order[first_secret:])
    assert result.hidden_output.count("PID-LEAK") == int(later), result.hidden_output


@pytest.mark.parametrize("mode", MODES, ids=[mode.value for mode in MODES])
def test_does_a_later_files_import_error_keep_its_message_when_an_earlier_file_has_secret_calls(uid, mode):
    """Does the student still read why runs.py did not import (its message), though metrics.py's
    secret calls come first in the plan (its import runs before them)?"""
    files = {"metrics.py": SENDER, "runs.py": "import no_such_module_for_lab05\n"}
    result = run(uid, files, [Call("send", "metrics.py", secret=True), Call("nothing", "runs.py", secret=True)], mode)
    error = result.imports["runs.py"].error
    assert error is not None and "no_such_module_for_lab05" in error["message"], result.imports["runs.py"]
    assert not result.imports["runs.py"].secret


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


SCRUBBED = [
    ("forged-first", ["LEAKED_collection_size_10", "ValueError", "Exception", "BaseException", "object"], "ValueError"),
    ("forged-only", ["LEAKED_collection_size_10", "BaseException", "object"], "an exception"),
    ("real", ["ModuleNotFoundError", "ImportError", "Exception", "BaseException", "object"], "ModuleNotFoundError"),
]


@pytest.mark.parametrize(("mro", "shown"), [case[1:] for case in SCRUBBED], ids=[case[0] for case in SCRUBBED])
def test_does_an_import_failing_after_a_secret_call_name_only_a_builtin(mro, shown):
    """An import that fails in a child started after a secret call keeps only its type: is that a
    real built-in's name, whatever the child said its classes were?"""
    error = channel._error({"type": mro[0], "mro": mro, "message": "LEAKED", "traceback": ["LEAKED"]})
    result = SandboxResult(outcomes=[], imports={"runs.py": Outcome(OutcomeStatus.ERROR, error=error)})
    runner._scrub_import(result, "runs.py")
    kept = result.imports["runs.py"].error
    assert kept is not None and kept["type"] == shown and "LEAKED" not in repr(kept), kept
