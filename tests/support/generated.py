"""A generated class for grading at scale (``tests/local/test_shards_class.py``, ``bench/shards_batch.py``):
submissions in Gradescope's export layout, their students and times in submission_metadata.yml,
a grading.yml without the Cranfield checks, and a Moodle roster of the class."""

from __future__ import annotations

import datetime
import re
import shutil
from pathlib import Path

import yaml

from autograder import paths

CLASS_SIZE = 300
RING = 12  # near copies of one submission: pairs the whole class's similarity lists, a shard's would not
RING_SOURCE = Path(__file__).parents[1] / "fixtures" / "similarity" / "loop-style"  # written apart from the examples
AGAIN = 10  # the last ten submissions are second attempts, an hour later, of the ten before them
EXTENDED = CLASS_SIZE - AGAIN - 5  # a student with a second attempt and an extension that covers it
START = datetime.datetime(2026, 11, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))  # one a minute from it


def light_rubric(folder: Path) -> Path:
    """grading.yml without the Cranfield checks (nine tenths of the calls: the class-level step is
    what is measured), allowing one graded attempt a day, due before the second attempts (10% an
    hour late) but for the student of EXTENDED, whose extension (extensions.csv beside it) covers theirs."""
    data = yaml.safe_load(paths.RUBRIC.read_text())
    for question in data["questions"].values():
        question["checks"] = [check for check in question["checks"] if check["kind"] in ("examples", "edge", "random")]
    data["total"] = sum(check["points"] for question in data["questions"].values() for check in question["checks"])
    data["attempts"] = {"per_period": 1, "period_hours": 24}
    due = START + datetime.timedelta(minutes=300)
    data["deadline"] = {"due": due.isoformat(), "penalty": 10, "per": "hour", "extensions": "extensions.csv"}
    extended = (due + datetime.timedelta(hours=2)).isoformat()
    (folder / "extensions.csv").write_text(f"email,due\ns{EXTENDED}@example.edu,{extended}\n")
    path = folder / "grading.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def generated_class(folder: Path, size: int = CLASS_SIZE) -> Path:
    """``size`` submissions (at least RING + AGAIN), each in its own folder named by Gradescope's
    export, with their students and times in submission_metadata.yml: copies of the examples, a
    ring of RING near copies of another one, and the last AGAIN submissions second attempts, an
    hour later, by the students of the AGAIN before them."""
    if size < RING + 2 * AGAIN:
        raise ValueError(f"a generated class needs at least {RING + 2 * AGAIN} submissions, not {size}")
    variants = sorted((paths.ROOT / "examples" / "submissions").iterdir())
    entries = []
    for number in range(size):
        name = f"submission_{number:06d}"
        if number < RING:
            shutil.copytree(RING_SOURCE, folder / name)
            path = folder / name / "metrics.py"
            path.write_text(path.read_text() + f"\n\n# copy {number}\n_SEEN_{number} = {number}\n")
        else:
            shutil.copytree(variants[number % len(variants)], folder / name)
        student = number if number < size - AGAIN else number - AGAIN
        when = START + datetime.timedelta(minutes=number if number < size - AGAIN else number - AGAIN + 60)
        entries.append(
            f"{name}:\n  :submitters:\n  - :name: Student {student}\n    :email: s{student}@example.edu\n"
            f"    :sid: S{student:04d}\n  :created_at: {when:%Y-%m-%d %H:%M:%S}.0 -08:00\n"
        )
    (folder / "submission_metadata.yml").write_text("".join(entries))
    return folder


def students(size: int = CLASS_SIZE) -> int:
    """How many students a generated class of ``size`` has."""
    return size - AGAIN


def roster(folder: Path, size: int = CLASS_SIZE) -> Path:
    """A Moodle gradebook export of the class, every student in it."""
    rows = ["First name,Last name,ID number,Email address,Assignment: Lab 05 (Real),Course total (Real)"]
    rows += [f"Student,{number},S{number:04d},s{number}@example.edu,-,-" for number in range(students(size))]
    path = folder / "moodle.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


TIMING = ("graded at (UTC)", "time taken")


def without_timing(report: str, facts: tuple[str, ...] = ()) -> str:
    """The class report less its timing facts (when, how long, and the similarity's seconds) and
    the run's ``facts`` of these labels."""
    for key in (*TIMING, *facts):
        report = re.sub(rf"<tr><td>{re.escape(key)}</td><td>[^<]*</td></tr>", "", report)
    return re.sub(r"compared in detail, [0-9.]+ s", "compared in detail, N s", report)


def run_fact(report: str, label: str) -> str:
    """The value the class report's "Grading run" table gives ``label``; ``ValueError`` if it has none."""
    found = re.search(rf"<tr><td>{re.escape(label)}</td><td>([^<]*)</td></tr>", report)
    if found is None:
        raise ValueError(
            f"run_fact: the class report has no run fact {label!r}: is the label spelled as the report does?"
        )
    return found.group(1)
