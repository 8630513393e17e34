"""The child side of the sandbox: a standalone program (standard library only).

``autograder.sandbox.runner`` starts it as ``python -I -B harness.py`` with one extra file
descriptor, the *channel*. Its stdin is the *inbox*: messages framed by a 4-byte length, first its
configuration (JSON), then the calls it is to answer (a pickle of plain data from the trusted
parent: the call's own inputs, nothing else). The parent sends the public calls together, and a
secret call only when the previous one has been answered, so the child never holds a secret call's
inputs before that call runs, and never an expected value. It encloses itself (``jail.enter``),
applies resource limits, imports the submission's graded modules (``lab05.metrics`` and
``lab05.runs`` for Lab 05: the package and files the configuration names; the calls have not been
sent yet) and answers each call as it arrives, writing one JSON line per event to the channel:

    {"importing": "metrics.py"}                  before importing a graded file
    {"imported": "metrics.py", "error": {...}}   after (``error`` only when it failed)
    {"i": 7, "value": <encoded>, "t": 0.0001}    call 7 returned
    {"i": 7, "error": {...}, "t": 0.01}          call 7 raised
    {"done": true}                               after the inbox's end (an empty message)

Nothing here is trusted by the parent: every line is validated there, and values are
encoded as tagged JSON (``encode``) so that no object of the submission ever leaves.
"""

import builtins
import collections
import functools
import importlib
import importlib.util
import json
import os
import pickle
import resource
import sys
import time
import traceback
import types

MAX_RUN_FILE = 4 << 20  # bytes of a run file read back (Lab 04's runs are under 1 MiB)
STALE_LINE = "a line that was in the file before the call: the run file replaces it\n"
SCRATCH_FULL = ".scratch-full"  # the parent's note in a full scratch of the uid mode (``sandbox/scratch.py: FULL``)
SCRATCH: "dict[str, Any]" = {}  # the uid mode's work folder (its scratch) and limits, once configured

GenericQuery = collections.namedtuple("GenericQuery", ["query_id", "text"])

_channel = -1  # the channel's file descriptor, from the configuration
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the child's own modules, read before enclosing
import jail
import toy_measures
from values import encode

sys.path.pop(0)

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: never imported when the child runs
    from collections.abc import Iterable, Sequence
    from typing import Any


def send(message: "Any") -> None:
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"
    data = memoryview(text.encode("utf-8", "replace"))  # a lone surrogate becomes "?", not a crash
    while data:  # a pipe may take a long line in several writes
        data = data[os.write(_channel, data) :]


PACKAGE: "dict[str, Any]" = {"name": "", "files": ()}  # the configuration's (the lab's), once read


def describe_error(error: BaseException, lab_dir: str) -> "dict[str, Any]":
    """The exception's type, message and the traceback lines in the student's own files."""
    name = PACKAGE["name"]
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename.startswith(lab_dir) and os.path.basename(frame.filename) in PACKAGE["files"]
    ]
    lines = [
        f'File "{name}/{os.path.basename(f.filename)}", line {f.lineno}, in {f.name}\n    {f.line or ""}'
        for f in frames[-8:]
    ]
    if isinstance(error, SyntaxError) and str(error.filename or "").startswith(lab_dir):
        text = (error.text or "").rstrip("\n")
        lines.append(
            f'File "{name}/{os.path.basename(str(error.filename))}", line {error.lineno}\n    {text}\n'
            f"    {' ' * max((error.offset or 1) - 1, 0)}^"
        )
    try:
        message = str(error)[:500]
    except BaseException:  # a hostile __str__
        message = "(the exception's message could not be read)"
    if isinstance(error, OSError):
        message += scratch_full()
    # a class's __module__ is the student's to set: only the classes builtins really holds are named
    mro = [cls.__name__ for cls in type(error).__mro__ if getattr(builtins, cls.__name__, None) is cls]
    return {"type": type(error).__name__[:100], "mro": mro, "message": message, "traceback": lines}


def scratch_full() -> str:
    """The uid mode: why an error writing a file came (its scratch is full, as a full tmpfs
    would say ``No space left on device`` in the jail), to add to its message; else ''. Measured
    here, the moment it is raised (the parent bounds the scratch, ``sandbox/scratch.py``: it may
    not have seen the last bytes yet), or the parent's note when it found it full first."""
    if not SCRATCH:
        return ""
    folder, limits = SCRATCH["work_dir"], SCRATCH["limits"]
    used, entries, folders = 0, 0, [folder]
    while folders and entries <= limits["tmp_inodes"]:
        try:
            found = list(os.scandir(folders.pop()))
        except OSError:
            continue
        for entry in found:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            entries += entry.name != SCRATCH_FULL
            used += info.st_blocks * 512
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
    if entries >= limits["tmp_inodes"]:
        what = f"{limits['tmp_inodes']} files and folders"
    elif used >= limits["tmp_mb"] << 20:
        what = f"{limits['tmp_mb']} MiB"
    else:
        try:
            with open(os.path.join(folder, SCRATCH_FULL), encoding="utf-8") as note:
                return " (" + note.read(500).strip() + ")"
        except OSError:
            return ""
    return (  # worded as the parent's note (``sandbox/scratch.py: full_message``)
        f" (the scratch space is full: it holds at most {what}, all a submission may write; "
        "write less, and remove temporary files once they are read)"
    )


# ---------------------------------------------------------------- calls


class Replay:
    """A search function replaying stored results, recording how it was called. ``overfull``: it
    returns every result it holds, more than the k asked for (the run writer must cut at k)."""

    calls: "list[list[Any]]"  # each call's [text, k] (a repr of what is not a str, an int)

    def __init__(self, results: "dict[str, list[Any]]", titles: "dict[str, Any]", overfull: bool = False) -> None:
        self.results, self.titles, self.calls, self.overfull = results, titles, [], overfull

    def __call__(self, text: "Any", k: "Any" = 100) -> "list[tuple[Any, Any, Any]]":
        self.calls.append([text if isinstance(text, str) else repr(type(text)), k if type(k) is int else repr(k)])
        # a lenient search function: a wrong text or k finds nothing (the content checks say so), and
        # raises nothing the run writer could pass off as its own refusal of bad arguments
        hits = self.results.get(text, []) if isinstance(text, str) else []
        if type(k) is not int or k < 1:
            return []
        kept = hits if self.overfull else hits[:k]
        return [(hit[0], hit[1] if len(hit) > 2 else self.titles.get(hit[0], ""), hit[-1]) for hit in kept]


def _array(items: "Any") -> "Any":
    """``items`` as a 1-D numpy array, or a tuple where the child's environment has no numpy."""
    try:
        return importlib.import_module("numpy").array(items)
    except ImportError:
        return tuple(items)


def resolve(value: "Any", context: "dict[str, Any]") -> "Any":
    """Build a call's argument from its plain form: the tags name objects built here (the grader's
    measures, a replayed search function, the queries, the run file's path)."""
    if isinstance(value, dict) and len(value) == 1:
        ((tag, arg),) = value.items()
        if tag == "$measure":
            return toy_measures.measure(arg)
        if tag == "$search":
            context["search"] = Replay(arg["results"], arg["titles"], arg["overfull"])
            return context["search"]
        if tag == "$queries":
            return [GenericQuery(query_id, text) for query_id, text in arg]
        if tag == "$queries-once":  # any iterable, the contract says: a generator can be read only once
            return (GenericQuery(query_id, text) for query_id, text in arg)
        if tag == "$path":  # a file is there already: the writer must replace it, not add to it
            context["path"] = os.path.join(os.getcwd(), arg)
            with open(context["path"], "w", encoding="utf-8") as stale:
                stale.write(STALE_LINE)
            return context["path"]
        if tag == "$tuple":  # the contract allows any sequence
            return tuple(arg)
        if tag == "$readonly":  # and any mapping
            return types.MappingProxyType(dict(arg))
        if tag == "$array":  # and a 1-D numpy array, where the child's environment has numpy (the
            return _array(arg)  # harness itself needs nothing beyond the standard library)
        if tag == "$arrays":  # a mapping (a run) whose sequences are 1-D numpy arrays
            return {key: _array(items) for key, items in arg.items()}
    return value


#: The types ``snapshot`` keeps as they are (exactly these: a subclass could change its own value).
PLAIN = frozenset({str, int, float, bool, type(None)})


def snapshot(value: object, depth: int = 0) -> object:
    """The plain data of an argument (lists, tuples, dicts and their items), to tell whether the
    call changed it; anything else (a function, the search replay) is left out. A sequence or a
    mapping of plain items (a ranking, judgments: most of what a call is given) is taken at the C
    speed of ``map``, with the result the item by item way would give."""
    if depth > 8:
        return None
    if isinstance(value, (list, tuple)):
        if depth < 8 and PLAIN.issuperset(map(type, value)):
            return (type(value).__name__, list(value))
        return (type(value).__name__, [snapshot(item, depth + 1) for item in value])
    if isinstance(value, (dict, types.MappingProxyType)):
        if depth < 8 and PLAIN.issuperset(map(type, value.values())):
            return ("dict", sorted(zip(map(repr, value), value.values())))
        return ("dict", sorted(((repr(key), snapshot(item, depth + 1)) for key, item in value.items())))
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return None


def read_run_file(context: "dict[str, Any]") -> "dict[str, Any]":
    found = {"type": "runfile", "searches": context["search"].calls[:1000] if "search" in context else []}
    try:
        with open(context["path"], "rb") as written:
            data = written.read(MAX_RUN_FILE + 1)
    except OSError:
        found["missing"] = True
        return found
    if data == STALE_LINE.encode():  # nothing written: the line that was there is all it holds
        found["missing"] = True
        return found
    found["too_large"] = len(data) > MAX_RUN_FILE
    found["appended"] = data.startswith(STALE_LINE.encode())  # the line that was there kept: opened with "a"
    try:
        found["text"] = data[:MAX_RUN_FILE].decode("utf-8")
    except UnicodeDecodeError:
        found["not_utf8"] = True
        found["text"] = data[:MAX_RUN_FILE].decode("utf-8", errors="replace")
    return found


class Inbox:
    """The messages the parent sends on stdin: a 4-byte length, then that many bytes. Read in large
    chunks: the public calls come in one batch (each secret call alone, once the one before it is
    answered), and a read per call would cost a system call for each."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer = fd, bytearray()

    def _exactly(self, size: int) -> bytes | None:
        while len(self.buffer) < size:
            chunk = os.read(self.fd, max(size - len(self.buffer), 1 << 16))
            if not chunk:
                return None
            self.buffer += chunk
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def next(self) -> bytes | None:
        """The next message's bytes; None at the end (an empty message, or the pipe closed)."""
        head = self._exactly(4)
        size = int.from_bytes(head, "big") if head else 0
        return self._exactly(size) if size else None


def flush_output() -> None:
    """What the submission printed goes out before the answer: the parent then knows it was
    printed before the next call's inputs arrived."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a stream the submission closed or replaced
            pass


def run_calls(inbox: Inbox, modules: dict[str, types.ModuleType], lab_dir: str) -> None:
    """Answer each call the parent sends, until the inbox ends."""
    while True:
        data = inbox.next()
        if data is None:
            return
        index = int.from_bytes(data[:4], "big")
        call = pickle.loads(data[4:])  # the trusted parent's plain data
        args, kwargs, before = [], {}, None
        started = time.perf_counter()
        try:
            function = getattr(modules.get(call["file"]), call["fn"], None)
            if function is None or not callable(function):  # not written: said as the stubs say it
                raise NotImplementedError(f"{PACKAGE['name']}/{call['file']} has no function {call['fn']}")
            context: dict[str, Any] = {}
            args = [resolve(arg, context) for arg in call["args"]]
            kwargs = {key: resolve(arg, context) for key, arg in call.get("kwargs", {}).items()}
            before = snapshot((args, kwargs))
            bound = functools.partial(function, **kwargs) if call.get("partial") else None
            returned = bound(*args) if bound is not None else function(*args, **kwargs)
            value = encode(returned)
            if "path" in context:
                value = {**read_run_file(context), "returned": value}
            message = {"i": index, "value": value}
        except BaseException as error:  # SystemExit and KeyboardInterrupt too: they are the student's
            message = {"i": index, "error": describe_error(error, lab_dir)}
        try:
            if before is not None and snapshot((args, kwargs)) != before:
                message["mutated"] = True  # the call changed its caller's data
        except BaseException:  # arguments a hostile call made unreadable: changed, surely
            message["mutated"] = True
        message["t"] = time.perf_counter() - started
        flush_output()
        send(message)


# ---------------------------------------------------------------- imports


class ImportPolicy:
    """What graded code may import: the standard library, the packages the rubric allows (``allowed``;
    None: anything) and its own ``lab05``; never an evaluation library (``banned``: each attempt is
    reported, for the instructor). Anything else fails to import with the same words in every mode
    and on every platform."""

    def __init__(self, banned: "Iterable[str]", allowed: "Iterable[str] | None") -> None:
        self.banned = set(banned)
        self.allowed = None if allowed is None else {*allowed, *sys.stdlib_module_names, PACKAGE["name"]}
        self.words = ", ".join(sorted(allowed or ())) or "nothing else"

    def find_spec(
        self, fullname: str, path: "Sequence[str] | None" = None, target: "types.ModuleType | None" = None
    ) -> None:
        top = fullname.split(".")[0]
        if top in self.banned:
            send({"banned_import": fullname[:100]})
            raise ImportError(f"{fullname} may not be used in this lab's graded code")
        if self.allowed is not None and top not in self.allowed:
            if _imported_by_graded_code():  # a library's own optional imports are refused quietly
                send({"disallowed_import": fullname[:100]})
            raise ImportError(
                f"{top} may not be imported in this lab's graded code: it may import Python's standard library "
                f"and {self.words} (what the course allows)"
            )
        return None


def _imported_by_graded_code() -> bool:
    """Is the import under way written in the submission's own files (not inside a library)?"""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(("<frozen", __file__)):
        frame = frame.f_back
    return frame is not None and os.path.basename(frame.f_code.co_filename) in PACKAGE["files"]


def locate_allowed(allowed: "Iterable[str] | None") -> None:
    """Find each allowed package before the child is enclosed: the path finders then hold the
    listing of every folder on ``sys.path`` up to it. In the uid mode, Landlock lets the child read
    a site folder's allowed entries only, not list the folder itself (that would show the rest)."""
    for name in allowed or ():
        try:
            importlib.util.find_spec(name)
        except (ImportError, ValueError):
            pass


def trim_finders(sealed: "Iterable[str]", kept: "Iterable[str]") -> None:
    """After ``locate_allowed``, before the child is enclosed: cut each path finder's listing of a
    sealed site folder (``sealed``) down to the entries shown in it (``kept``: the allowed
    packages'), so graded code reading ``sys.path_importer_cache`` learns no other name (the
    listings were made outside the jail, and in the uid mode the folder itself cannot be listed)."""
    folders, shown = set(sealed), set(kept)
    for folder, finder in list(sys.path_importer_cache.items()):
        listing = getattr(finder, "_path_cache", None)
        real = os.path.realpath(folder) if folder else ""
        if real not in folders or not isinstance(listing, set):
            continue
        allowed = {entry for entry in listing if os.path.join(real, entry) in shown}
        listing.intersection_update(allowed)
        relaxed = getattr(finder, "_relaxed_path_cache", None)
        if isinstance(relaxed, set):
            relaxed.intersection_update({entry.lower() for entry in allowed})


def forget_outside(allowed: "Iterable[str] | None") -> None:
    """Forget what the interpreter's start-up loaded from beyond the standard library and the
    allowed packages (a site folder's ``.pth`` files run at start-up: Debian's setuptools shim and
    its import hook), so graded code finds none of it in ``sys.modules`` or ``sys.meta_path``."""
    if allowed is None:
        return
    kept = {*sys.stdlib_module_names, *allowed, "__main__"}
    own = os.path.dirname(os.path.abspath(__file__)) + os.sep  # this harness's modules (jail, values...)
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in kept and not str(getattr(module, "__file__", "")).startswith(own):
            del sys.modules[name]
    sys.meta_path[:] = [
        hook
        for hook in sys.meta_path
        if (hook if isinstance(hook, type) else type(hook)).__module__.partition(".")[0] in kept
    ]


def import_graded(lab_dir: str, skip_files: set[str]) -> dict[str, types.ModuleType]:
    sys.path.insert(0, lab_dir)
    modules = {}
    for filename in PACKAGE["files"]:
        if filename in skip_files:
            continue
        send({"importing": filename})
        try:
            modules[filename] = importlib.import_module(f"{PACKAGE['name']}.{filename[:-3]}")
            send({"imported": filename})
        except BaseException as error:
            send({"imported": filename, "error": describe_error(error, lab_dir)})
    return modules


def apply_limits(limits: "dict[str, Any]") -> None:
    def cap(which: int, soft: int, hard: int | None = None) -> None:
        try:
            resource.setrlimit(which, (soft, soft if hard is None else hard))
        except (ValueError, OSError):
            pass  # cannot raise a limit above its hard value; the lower one holds

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_AS, limits["memory_mb"] << 20)
    cap(resource.RLIMIT_CPU, int(limits["cpu_seconds"]), int(limits["cpu_seconds"]) + 2)
    cap(resource.RLIMIT_FSIZE, min(limits["file_mb"], limits["tmp_mb"]) << 20)  # no file beyond the scratch
    cap(resource.RLIMIT_NOFILE, 64)
    cap(resource.RLIMIT_NPROC, limits["processes"])


def die_with_parent() -> None:
    """Ask the kernel to kill this process when the grader that started it dies."""
    import ctypes
    import signal

    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG


def main() -> None:
    global _channel
    die_with_parent()
    inbox = Inbox(os.dup(0))  # the parent's messages; the submission's stdin is empty
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    config = json.loads(inbox.next() or b"{}")  # from the parent, never in argv
    _channel = config["channel"]
    PACKAGE.update(name=config["package"], files=tuple(config["graded_files"]))
    lab_dir = config["lab_dir"]
    if config["isolation"] == "uid":
        SCRATCH.update(work_dir=config["work_dir"], limits=config["limits"])
    if config["isolation"] != "none":
        locate_allowed(config.get("allowed"))
        trim_finders(config.get("jail_hide", []), config.get("jail_keep", []))
        forget_outside(config.get("allowed"))
        lab_dir = jail.enter(config, send)
        die_with_parent()  # changing user cleared it
    apply_limits(config["limits"])
    sys.meta_path.insert(0, ImportPolicy(config["banned"], config.get("allowed")))
    modules = import_graded(lab_dir, set(config.get("skip_files", [])))
    flush_output()  # what the imports printed, before the first call's inputs arrive
    send({"ready": True})
    run_calls(inbox, modules, lab_dir)
    # what the submission printed reaches the parent before "done", after which the parent may
    # end this process at any moment
    flush_output()
    send({"done": True})
    os._exit(0)  # the submission's atexit handlers and threads do not run on


if __name__ == "__main__":
    main()
