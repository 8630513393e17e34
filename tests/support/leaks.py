"""Submissions that try to carry hidden inputs out through everything a student sees, and what
counts as a hidden input (``tests/end_to_end/test_leaks.py`` grades them and searches the students' files).

Every leaker is the reference solution with each graded function wrapped: the wrapper encodes
the call's arguments (as ``plain`` makes them JSON) and pushes them out through one channel, then
answers (or not) as the channel needs. A leaked argument is ``LEAK`` and the hex of its JSON, so
a student-visible file can be searched for every marker, each decoded, and the decoded text
compared with the hidden inputs; numbers derived from an input (``number``) are searched as
numbers. A leaker cannot tell a hidden call from a public one, except by a guess from its inputs
(``looks_hidden``: single-letter document ids, as the hand-written edge cases use): it leaks
everything, and only what came from a hidden call must never be found.
"""

from __future__ import annotations

import hashlib
import json
import re

from tests.support import subs

#: Shared by every leaker and by the test: the same encodings on both sides.
PRELUDE = r'''
import hashlib as _hashlib, json as _json, os as _os, sys as _sys, threading as _threading, time as _time

def plain(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return type(value).__name__

def marker(value):
    return "LEAK" + _json.dumps(plain(value), sort_keys=True).encode().hex() + "END"

def number(value):
    return int(_hashlib.sha256(_json.dumps(plain(value), sort_keys=True).encode()).hexdigest()[:10], 16)

def looks_hidden(args):
    text = _json.dumps(plain(list(args)))
    return bool(__import__("re").search(r'"[a-z]"', text))

def arguments(function, args, kwargs):
    """The call's arguments, a search function replaced by what it returns for each query."""
    found = list(args) + [kwargs[key] for key in sorted(kwargs)]
    if function == "write_run":
        queries = list(args[3]) if len(args) > 3 else []
        search = args[2] if len(args) > 2 else None
        found = [args[1] if len(args) > 1 else "", [list(q) for q in queries]]
        if callable(search):
            found += [list(map(list, search(q.text, 1000))) for q in queries]
    return found

def wrap(channel):
    for name, function in list(globals().items()):
        if callable(function) and name in FUNCTIONS:
            globals()[name] = channel(name, function)

FUNCTIONS = ("confusion_matrix", "accuracy", "precision_at_k", "recall_at_k", "reciprocal_rank",
             "average_precision", "dcg_at_k", "ndcg_at_k", "evaluate", "largest_differences", "write_run")
'''

CHANNELS = {
    # what it prints: stdout and stderr, at once
    "prints": r"""
def channel(name, function):
    def leaking(*args, **kwargs):
        for value in arguments(name, args, kwargs):
            print(marker(value))
            print(marker(value), file=_sys.stderr)
        return function(*args, **kwargs)
    return leaking
""",
    # what it returns: a string, or the marker inside the answer's shape
    "returns": r"""
def channel(name, function):
    def leaking(*args, **kwargs):
        return [marker(value) for value in arguments(name, args, kwargs)]
    return leaking
""",
    # what it raises: the message, and an exception class named after the input
    "raises": r"""
def channel(name, function):
    def leaking(*args, **kwargs):
        found = arguments(name, args, kwargs)
        if len(found) % 2:
            raise ValueError(" ".join(marker(value) for value in found))
        raise type(marker(found[0])[:200], (ValueError,), {})("raised")
    return leaking
""",
    # what it keeps: every input remembered, printed at every later call and by a thread, written
    # to its scratch; a crash on a hidden-looking call restarts it, and the fresh import prints
    # the scratch and fails with it
    "remembers": r"""
SEEN = []
_NOTE = _os.path.join(_os.getcwd(), "seen.txt")
if _os.path.exists(_NOTE):
    _text = open(_NOTE).read()
    print(_text)
    raise ImportError(_text[:400])

def _tell():
    while True:
        print(" ".join(SEEN[-5:]), flush=True)
        _time.sleep(0.01)

_threading.Thread(target=_tell, daemon=True).start()

def channel(name, function):
    def leaking(*args, **kwargs):
        print(" ".join(SEEN[-20:]))
        SEEN.extend(marker(value) for value in arguments(name, args, kwargs))
        with open(_NOTE, "a") as note:
            note.write(" ".join(SEEN[-20:]) + "\n")
        if looks_hidden(args) and name == "dcg_at_k":
            _os._exit(3)
        return function(*args, **kwargs)
    return leaking
""",
    # what it shares: every input kept where a later child (of this submission or another) could
    # find it, System V shared memory and the folders every user may write to, and printed by every
    # fresh import from all of them (the allow-list refuses the segment, the sweep removes the files)
    "shares": r"""
import ctypes as _ctypes
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = _ctypes.c_void_p
_PLACES = ["/dev/shm/lab05-shares", "/tmp/lab05-shares", "/var/tmp/lab05-shares"]

def _segment():
    shmid = _libc.shmget(0x1AB06, 1 << 16, 0o1000 | 0o666)
    address = _libc.shmat(shmid, None, 0) if shmid >= 0 else None
    return None if address in (None, _ctypes.c_void_p(-1).value) else address

def _told():
    found = []
    address = _segment()
    if address is not None:
        found.append(_ctypes.string_at(address).decode("utf-8", "replace"))
    for place in _PLACES:
        try:
            found.append(open(place).read())
        except OSError:
            pass
    return " ".join(found)

print(_told()[-20000:])

def _keep(text):
    address = _segment()
    if address is not None:
        kept = (_ctypes.string_at(address) + text.encode())[-((1 << 16) - 1):]
        _ctypes.memmove(address, kept + b"\0", len(kept) + 1)
    for place in _PLACES:
        try:
            with open(place, "a") as out:
                out.write(text)
        except OSError:
            pass

def channel(name, function):
    def leaking(*args, **kwargs):
        _keep(" ".join(marker(value) for value in arguments(name, args, kwargs)) + " ")
        return function(*args, **kwargs)
    return leaking
""",
    # how it ends: an exit status, or a signal, chosen by the input
    "ends": r"""
def channel(name, function):
    def leaking(*args, **kwargs):
        if looks_hidden(args):
            _sys.stdout.flush()
            if name == "reciprocal_rank":
                _os._exit(20 + number(args) % 200)
            if name == "average_precision":
                _os.kill(_os.getpid(), [6, 8, 11][number(args) % 3])
        return function(*args, **kwargs)
    return leaking
""",
    # what it answers: a number made from the input (and the same number on every call, which an
    # answer shape would quote)
    "numbers": r"""
FIRST = []

def channel(name, function):
    def leaking(*args, **kwargs):
        if looks_hidden(args):
            FIRST.append(number(args))
            return float(FIRST[0]) if name == "precision_at_k" else float(number(args))
        return function(*args, **kwargs)
    return leaking
""",
    # how long it takes: a second more when a bit of the input is set
    "timing": r"""
def channel(name, function):
    def leaking(*args, **kwargs):
        if looks_hidden(args) and name in ("recall_at_k", "accuracy") and number(args) % 2:
            _time.sleep(0.4)
        return function(*args, **kwargs)
    return leaking
""",
}

SUFFIX = "\nwrap(channel)\n"


def leaker(channel: str) -> dict:
    """The files of the leaker of ``channel``: the solution with every function wrapped."""
    code = PRELUDE + CHANNELS[channel] + SUFFIX
    return {name: subs.SOLUTION[name] + "\n" + code for name in subs.SOLUTION}


def write_all(folder) -> dict:
    """Every leaker as a submission folder under ``folder``: {channel: path}."""
    return {channel: subs.write(folder / f"leak-{channel}", leaker(channel)) for channel in CHANNELS}


# ---------------------------------------------------------------- the search, on the test's side

_namespace: dict = {}
exec(PRELUDE, _namespace)
plain, number = _namespace["plain"], _namespace["number"]

MIN_TOKEN = 10  # shorter JSON ("[]", "{}", '"a"') is no evidence of anything


def _tokens(value) -> set[str]:
    text = json.dumps(plain(value), sort_keys=True)
    found = {text} if len(text) >= MIN_TOKEN else set()
    if isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, (list, tuple, dict)):
                found |= _tokens(item)
    return found


def secrets_of(submission_plan, plan) -> tuple[set[str], set[int]]:
    """The hidden inputs of a grading: the JSON of every argument of every secret call (nested
    lists too; a write_run scenario's name, queries and results), and the numbers ``number`` makes
    of each secret call's arguments."""
    from autograder.grading import payloads

    tokens: set[str] = set()
    numbers: set[int] = set()
    for call in submission_plan.calls:
        if not call.get("secret"):
            continue
        args = [payloads.materialise(arg, plan.shared_job) for arg in call["args"]]
        if call["fn"] == "write_run":
            search = args[2]["$search"]
            queries = args[3]["$queries"]
            tokens |= {json.dumps(args[1])} if len(args[1]) >= 4 else set()
            tokens |= _tokens(queries)
            for _, text in queries:
                tokens |= _tokens(search["results"][text])
                tokens |= {json.dumps(hit[0]) for hit in search["results"][text] if len(hit[0]) >= 4}
            continue
        values = args + [call["kwargs"][key] for key in sorted(call["kwargs"])]
        for value in values:
            tokens |= _tokens(value)
        numbers.add(number([_as_child(arg) for arg in args]))
    return tokens, numbers


def _as_child(value):
    """An argument as ``plain`` sees it in the child (the grader's measures are functions there)."""
    return "function" if isinstance(value, dict) and set(value) == {"$measure"} else value


def public_tokens(submission_plan, plan) -> set[str]:
    """The same tokens of the public calls: a hidden input that equals a public one is no secret."""
    from autograder.grading import payloads

    found: set[str] = set()
    for call in submission_plan.calls:
        if call.get("secret") or call["fn"] == "write_run":
            continue
        for value in [payloads.materialise(arg, plan.shared_job) for arg in call["args"]]:
            found |= _tokens(value)
    return found


MARKER = re.compile(r"LEAK([0-9a-f]+)END")


def decoded(text: str) -> list[str]:
    """Every marker in ``text``, decoded."""
    found = []
    for match in MARKER.finditer(text):
        try:
            found.append(bytes.fromhex(match.group(1)).decode())
        except ValueError:
            pass
    return found


def hidden_found(text: str, tokens: set[str], numbers: set[int]) -> list[str]:
    """What of the hidden inputs ``text`` (a student-visible file) holds: in a marker, as it is, or
    as a number made from it."""
    found = []
    for payload in decoded(text) + [text]:
        found += [token for token in tokens if token in payload]
    for value in numbers:
        if re.search(rf"(?<![0-9]){value}(?![0-9])", text) or f"{float(value):g}" in text:
            found.append(str(value))
    return sorted(set(found))


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]
