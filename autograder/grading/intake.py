"""Finding submissions and reading their two graded files, without trusting them.

A submission is a folder or a ``.zip`` holding ``metrics.py`` and ``runs.py``, flat or in
``lab05/`` (or one folder deeper). Only those two files are read, never followed through a
symbolic link, never extracted to disk by the zip's own paths, and at most ``MAX_FILE``
bytes each; everything else in a submission is ignored.

A batch is a list of PATHs: each is one submission, or a folder of submissions (one per
sub-folder or zip), e.g. Gradescope's "export submissions" download, whose
``submission_metadata.yml`` names each submission's students.
"""

from __future__ import annotations

import datetime
import difflib
import functools
import hashlib
import os
import re
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.errors import MissingError
from autograder.grading.course import deadlines, metadata
from autograder.grading.results import Student
from autograder.labkit.lab import Lab

MAX_FILE = 1 << 20  # bytes of one graded file
MAX_MEMBERS = 10000  # entries of a zip that are looked at
MAX_DIRECTORY = MAX_MEMBERS * 1024  # bytes of a zip's directory that are read (1 KiB an entry)
MAX_DEPTH = 3  # folders below the submission's root that are searched
RECEIVED_SHOWN = 12  # names of received files a missing file's message lists
METADATA_TIME = "Gradescope's metadata (created_at)"
FILE_TIME = "the files' modification time"


@dataclass(frozen=True)
class Source:
    """One submission to grade: where it is and who made it."""

    id: str
    path: Path
    students: tuple[Student, ...] = ()
    notes: tuple[str, ...] = ()  # for the instructor: e.g. why its metadata entry was not used
    submitted: str = ""  # when it was submitted, ISO 8601 ("" unknown)
    submitted_from: str = ""  # where that time comes from: METADATA_TIME, FILE_TIME or times.CSV_TIME


@dataclass
class Staged:
    """A submission's graded files, read once: ``files`` maps file name -> bytes."""

    source: Source
    files: dict[str, bytes] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # for the student
    notes: list[str] = field(default_factory=list)  # for the instructor
    received: list[str] = field(default_factory=list)  # every file's path in the submission (for a misnamed file)

    @functools.cached_property
    def digests(self) -> dict[str, str]:
        """Graded file -> sha256 of its content (what a stored grade is matched with)."""
        return {name: hashlib.sha256(data).hexdigest() for name, data in self.files.items()}


def _safe_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]+", "_", text).strip("._") or "submission"


def _wanted(lab: Lab) -> str:
    """What a submission of ``lab`` holds, in words."""
    return " and ".join(f"{lab.package}/{name}" for name in lab.graded_files)


def _candidates(names: list[str], lab: Lab) -> dict[str, str]:
    """For each graded file of ``lab``, the best of the given paths holding it (in the package's
    folder first, shallowest)."""
    chosen = {}
    for graded in lab.graded_files:
        found = [name for name in names if name.rsplit("/", 1)[-1] == graded and name.count("/") <= MAX_DEPTH]
        if found:
            chosen[graded] = min(
                found, key=lambda name: (f"{lab.package}/" + graded not in "/" + name, name.count("/"), name)
            )
    return chosen


def _check_text(name: str, data: bytes, staged: Staged) -> None:
    if len(data) > MAX_FILE:
        staged.problems.append(f"{name} is larger than {MAX_FILE >> 10} KiB: it was not graded")
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        staged.problems.append(f"{name} is not UTF-8 text (byte {error.start}): save it as UTF-8")
    staged.files[name] = data


def _graded_names(root: Path, graded: tuple[str, ...], received: list[str] | None = None) -> list[str]:
    """The paths (relative to ``root``) of the files named as ``graded`` files, at most ``MAX_DEPTH`` down;
    every file's path is added to ``received`` (for a misnamed file's message) when it is given."""
    names = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        depth = len(Path(folder).relative_to(root).parts)
        if depth >= MAX_DEPTH:
            dirs[:] = []
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__MACOSX"]
        seen = [str((Path(folder) / f).relative_to(root)) for f in files if not f.startswith(".")]
        if received is not None:
            received += seen[: MAX_MEMBERS - len(received)]
        names += [name for name in seen if name.rsplit("/", 1)[-1] in graded]
    return names


def file_time(path: Path, lab: Lab) -> str:
    """When a submission was last changed, by its files' modification times (a zip's own; in a
    folder its graded files' newest, ``lab``'s), as ISO 8601 in UTC; ""
    when they cannot be read."""
    try:
        if path.is_dir():
            chosen = _candidates(_graded_names(path, lab.graded_files), lab).values()
            stamp = max((os.lstat(path / name).st_mtime for name in chosen), default=os.lstat(path).st_mtime)
        else:
            stamp = os.lstat(path).st_mtime
    except OSError:
        return ""
    moment = datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc)
    return moment.isoformat(timespec="seconds")


def _read_folder(root: Path, staged: Staged, lab: Lab) -> None:
    names = _graded_names(root, lab.graded_files, staged.received)
    for graded, name in _candidates(names, lab).items():
        path = root / name
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
            staged.problems.append(f"{name} is a symbolic link or not a regular file: submit the file itself")
            continue
        if info.st_size > MAX_FILE:
            staged.problems.append(f"{graded} is larger than {MAX_FILE >> 10} KiB: it was not graded")
            continue
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(path, flags)
        with os.fdopen(descriptor, "rb") as handle:
            _check_text(graded, handle.read(MAX_FILE + 1), staged)


def zip_directory(path: Path) -> tuple[int, int] | None:
    """``(entries, bytes)`` of a zip's directory as its end record says, read from the end alone
    (before Python's zipfile reads the whole directory, whatever its size); None when there is
    no such record. Tools without ZIP64 write the count modulo 65,536: it may understate."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - (1 << 16) - 22))
        tail = handle.read()
    end = tail.rfind(b"PK\x05\x06")
    if end < 0 or end + 22 > len(tail):
        return None
    count = int.from_bytes(tail[end + 10 : end + 12], "little")
    length = int.from_bytes(tail[end + 12 : end + 16], "little")
    locator = tail.rfind(b"PK\x06\x07", 0, end)  # ZIP64: the figures are in the ZIP64 end record
    if (count == 0xFFFF or length == 0xFFFFFFFF) and locator >= 0:
        record = tail.rfind(b"PK\x06\x06", 0, locator)
        if record >= 0 and record + 48 <= len(tail):
            count = int.from_bytes(tail[record + 32 : record + 40], "little")
            length = int.from_bytes(tail[record + 40 : record + 48], "little")
    return count, length


def _too_many(what: str, lab: Lab) -> str:
    return (
        f"{what}, so it was not searched for your files: zip only {_wanted(lab)} (not a "
        "virtual environment or the whole project), or submit the two files themselves"
    )


def _read_zip(path: Path, staged: Staged, lab: Lab) -> None:
    try:
        directory = zip_directory(path)
    except OSError as error:
        staged.problems.append(f"{path.name} cannot be read ({error.strerror}): zip the two files again")
        return
    if directory is not None and directory[0] > MAX_MEMBERS:
        staged.problems.append(
            _too_many(f"{path.name} holds {directory[0]} entries, more than the {MAX_MEMBERS} the grader reads", lab)
        )
        return
    if directory is not None and directory[1] > MAX_DIRECTORY:  # a count that understates, or huge names
        staged.problems.append(
            _too_many(
                f"{path.name}'s list of entries takes {directory[1] / (1 << 20):.0f} MiB: more entries than the "
                f"{MAX_MEMBERS} the grader reads",
                lab,
            )
        )
        return
    try:
        archive = zipfile.ZipFile(path)
    except Exception as error:  # not a zip, truncated, unreadable
        staged.problems.append(f"{path.name} is not a readable zip file ({error}): zip the two files again")
        return
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:  # the end record's count understated them
            staged.problems.append(
                _too_many(
                    f"{path.name} holds {len(members)} entries, more than the {MAX_MEMBERS} the grader reads", lab
                )
            )
            return
        usable = {}
        for member in members:
            name = member.filename.replace("\\", "/")
            if name.startswith("/") or ".." in name.split("/") or re.match(r"^[A-Za-z]:", name):
                staged.notes.append(f"ignored the zip entry {name[:100]!r} (absolute or ../ path)")
                continue
            if name.startswith("__MACOSX/") or member.is_dir():
                continue
            usable[name] = member
        staged.received += list(usable)
        for graded, name in _candidates(list(usable), lab).items():
            member = usable[name]
            if stat.S_ISLNK(member.external_attr >> 16):
                staged.problems.append(f"{name} is a symbolic link in the zip: submit the file itself")
                continue
            if member.file_size > MAX_FILE:
                staged.problems.append(f"{graded} is larger than {MAX_FILE >> 10} KiB: it was not graded")
                continue
            try:
                with archive.open(member) as handle:
                    _check_text(graded, handle.read(MAX_FILE + 1), staged)
            except Exception as error:  # any decompression failure (zlib, lzma, bz2, encryption...)
                staged.problems.append(
                    f"{name} could not be read from the zip ({type(error).__name__}: {str(error)[:100]})"
                )


def read(source: Source, lab: Lab) -> Staged:
    """The graded files of a submission of ``lab``, with the problems found reading them."""
    staged = Staged(source=source, notes=list(source.notes))
    path = source.path
    try:
        info = os.lstat(path)
    except OSError as error:
        staged.problems.append(f"the submission {path} cannot be read: {error.strerror}")
        return staged
    try:
        if stat.S_ISLNK(info.st_mode):
            staged.problems.append(f"the submission {path.name} is a symbolic link: submit the files themselves")
        elif stat.S_ISDIR(info.st_mode):
            _read_folder(path, staged, lab)
            zips = sorted(p for p in path.iterdir() if p.suffix.lower() == ".zip" and not p.is_symlink())
            if not staged.files and zips:  # e.g. Gradescope: the student uploaded one zip
                _read_zip(zips[0], staged, lab)
        else:
            _read_zip(path, staged, lab)
    except OSError as error:  # unreadable folders or files: this submission's problem, not the batch's
        staged.problems.append(f"the submission {path.name} could not be read: {error.strerror or error}")
    missing = [name for name in lab.graded_files if name not in staged.files]
    if missing and not staged.problems:
        staged.problems.append(
            f"no {' or '.join(missing)} found in the submission: submit {_wanted(lab)} "
            f"(flat or in a {lab.package}/ folder, as files or in one zip){_received_words(staged.received, missing)}"
        )
    elif missing:
        staged.problems.append(f"{', '.join(missing)} could not be graded (see above)")
    unchanged = handout_unchanged(staged.files, lab)
    if unchanged and len(unchanged) == len(lab.graded_files):
        staged.problems.append(
            f"{' and '.join(unchanged)} are the handout's own files, unchanged: nothing you wrote reached the "
            f"grader. Did you upload the handout instead of your work? Save your functions in {_wanted(lab)} "
            "and upload those files."
        )
        staged.notes.append(f"the handout's files, unchanged: {', '.join(unchanged)}")
    return staged


def read_other(source: Source, name: str, lab: Lab) -> Staged:
    """Another file of a submission than the graded ones (``name``, e.g. the written analysis
    ``analysis.yml``), found and read by the same rules: never through a symbolic link, never
    extracted, at most ``MAX_FILE`` bytes, UTF-8; ``files`` holds it when it was read."""
    return read(source, replace(lab, graded_files=(name,)))


def _plain(data: bytes) -> bytes:
    """A file's text as an editor may save it unchanged: line ends and trailing blanks aside."""
    return b"\n".join(line.rstrip() for line in data.replace(b"\r\n", b"\n").split(b"\n")).strip()


def handout_unchanged(files: dict[str, bytes], lab: Lab) -> list[str]:
    """The graded files that are the handout's stubs as given (line ends and trailing blanks aside;
    ``lab``'s handout)."""
    handout = lab.place
    found = []
    for name, data in sorted(files.items()):
        try:
            given = handout.handout_file(name).read_bytes()
        except OSError:
            continue
        if _plain(data) == _plain(given):
            found.append(name)
    return found


def _near(wanted: str, names: list[str]) -> str | None:
    """The received file name that looks like ``wanted`` (other case, a copy's suffix, an extra
    extension, a typo), or None."""

    def base(name: str) -> str:
        stem = name.rsplit("/", 1)[-1].lower()
        stem = re.sub(r"\.(txt|bak|orig|ipynb)$", "", stem)
        return re.sub(r"(\s*\(\d+\)|[ _-]+(copy|copie|kopie|\d+))(?=\.py$|$)", "", stem)

    bases = {name: base(name) for name in names}
    exact = [name for name, stem in bases.items() if stem == wanted]
    if exact:
        return min(exact, key=len)
    close = difflib.get_close_matches(wanted, list(bases.values()), n=1, cutoff=0.8)
    return next((name for name, stem in bases.items() if close and stem == close[0]), None)


def _received_words(received: list[str], missing: list[str]) -> str:
    """What the submission held instead, and the near match of each missing file, in words."""
    if not received:
        return ". The submission holds no file at all."
    shown = sorted(received, key=lambda name: (name.count("/"), name))[:RECEIVED_SHOWN]
    more = f" and {len(received) - len(shown)} more" if len(received) > len(shown) else ""
    words = f". Received: {', '.join(shown)}{more}."
    for name in missing:
        near = _near(name, received)
        if near is not None:
            words += f" {near} looks like {name}: rename it to {name} (names are case-sensitive) and submit again."
    return words


def write_package(staged: Staged, target: Path, lab: Lab) -> Path:
    """The student package of ``lab`` a child imports: the handout's
    given files plus the graded ones (a graded file that could not be read is left out, so its
    functions are missing)."""
    package = target / lab.package
    package.mkdir(parents=True)
    for name in lab.given_files:
        (package / name).write_bytes(lab.place.handout_file(name).read_bytes())
    for name, data in staged.files.items():
        (package / name).write_bytes(data)
    for path in (target, package, *package.iterdir()):  # the grader's alone: the sandbox's uid is let in later
        os.chmod(path, 0o700 if path.is_dir() else 0o600)
    return target


# ------------------------------------------------------------------ batches


def _is_submission(path: Path, lab: Lab) -> bool:
    """One submission (a zip, or a folder with the graded files or without any sub-submission),
    rather than a folder of submissions."""
    if path.suffix.lower() == ".zip" or not path.is_dir():
        return True
    if any((path / sub / name).is_file() for sub in ("", lab.package) for name in lab.graded_files):
        return True
    if (path / metadata.FILE_NAME).is_file():
        return False
    return not any(
        (child.is_dir() and not child.name.startswith(".")) or child.suffix.lower() == ".zip"
        for child in path.iterdir()
    )


def discover(paths: Iterable[str | Path], lab: Lab) -> list[Source]:
    """The submissions of ``lab`` named by ``paths`` (each a submission
    or a folder of them), sorted by id.
    ``metadata.MetadataError`` (a ValueError) when a folder's metadata file cannot be read at all;
    a malformed entry leaves its submission without names, with a note saying why."""
    sources = {}
    for path in map(Path, paths):
        if not path.exists():
            raise MissingError(f"no such submission or folder: {path}")
        found = metadata.Metadata({}, {})
        if _is_submission(path, lab):
            items = [path]
        else:
            items = sorted(
                p
                for p in path.iterdir()
                if not p.name.startswith(".") and p.name != "__MACOSX" and (p.is_dir() or p.suffix.lower() == ".zip")
            )
            if (path / metadata.FILE_NAME).is_file():
                found = metadata.read(path / metadata.FILE_NAME, {item.name for item in items})
        for item in items:
            base = _safe_id(item.stem if item.suffix.lower() == ".zip" else item.name)
            identifier, number = base, 2
            while identifier in sources:
                identifier, number = f"{base}-{number}", number + 1
            warning = found.warnings.get(item.name)
            notes = (f"{warning}: graded without its students' names",) if warning else ()
            when, origin, note = _submitted(item, found.submitted.get(item.name, ""))
            students = found.students.get(item.name, ())
            sources[identifier] = Source(
                id=identifier, path=item, students=students, notes=notes + note, submitted=when, submitted_from=origin
            )
    return [sources[key] for key in sorted(sources)]


def _submitted(path: Path, created: str) -> tuple[str, str, tuple[str, ...]]:
    """When a submission was made: Gradescope's ``created_at`` when its metadata has one that reads
    as a time, else unknown (with a note when ``created_at`` was unreadable). The files' times are
    never read here: only ``--times files`` trusts them (``grading/course/times.py``)."""
    if created:
        try:
            return deadlines.iso(deadlines.parse(created, None, "created_at")), METADATA_TIME, ()
        except ValueError as error:
            note = f"{metadata.FILE_NAME}: {path.name}: {error}: no trusted time, so it is counted on time"
            return "", "", (note,)
    return "", "", ()
