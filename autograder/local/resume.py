"""What a batch finds already graded (``local/batch.py``): each submission's stored ``grade.json``
kept when it was made from the same files, rubric, reference and grader; scored again from its
stored answers when only the rubric's points, visibility or scoring changed; otherwise graded
again, with the reason said in the batch's summary. A submission's random cases are drawn from
the stored grade's seed when its files are the same, or from the batch's ``--seed`` and its files;
with ``--seed``, a stored grade drawn from another seed is graded again (a batch, or a shard, is
all of one seed: ``merge`` refuses a shard that is not).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading import intake, scoring
from autograder.grading.results import SubmissionResult
from autograder.grading.session import Session
from autograder.reports import output_paths


@dataclass
class Sorted:
    """The batch's submissions sorted by what they need, each list in the class's order."""

    finished: dict[str, SubmissionResult] = field(default_factory=dict)  # kept as stored
    todo: list[intake.Staged] = field(default_factory=list)  # to grade
    rescored: list[SubmissionResult] = field(default_factory=list)  # scored again from stored answers, no code run
    # submission -> (why graded again, the score it had)
    reasons: dict[str, tuple[str, float]] = field(default_factory=dict)
    seeds: dict[str, str | None] = field(default_factory=dict)
    # every submission's graded files (id -> graded file -> content), for the similarity
    files: dict[str, dict[str, bytes]] = field(default_factory=dict)


def sort(sources: Iterable[intake.Source], out: Path, session: Session, force: bool, seed: str | None) -> Sorted:
    """Read every submission once (for the resume check and for grading) and sort it: kept,
    rescored or to grade (``force``: every one graded again; ``seed``: the batch's seed)."""
    found = Sorted()
    for source in sources:
        staged = intake.read(source, session.plan.lab)  # read and hashed once: for the resume check and for grading
        found.files[source.id] = staged.files
        previous, stored, again = _looked_up(out, staged, session, force, seed, found.seeds)
        if previous is not None and stored is None:
            found.reasons[source.id] = (
                "asked to (--force)" if force else why_again(previous, staged, session, seed),
                previous.score,
            )
        if again is not None:
            found.rescored.append(again)
        elif stored is None:
            found.todo.append(staged)
        else:
            found.finished[source.id] = stored
    return found


def _looked_up(
    out: Path, staged: intake.Staged, session: Session, force: bool, seed: str | None, seeds: dict[str, str | None]
) -> tuple[SubmissionResult | None, SubmissionResult | None, SubmissionResult | None]:
    """A submission's stored grade, the same grade when it stands, and the grade rescored from its
    answers (each None when not); its seed put in ``seeds``. An unreadable old result: all None."""
    try:
        previous = _stored(out, staged)
        stored = None if force else _done(previous, staged, session, seed)
        seeds[staged.source.id] = _seed(previous, staged) if seed is None else _derived(seed, staged)
        again = None if force or stored is not None else _rescore(previous, staged, session, seed)
    except Exception:  # an unreadable old result: grade it again
        return None, None, None
    return previous, stored, again


def _stored(out: Path, staged: intake.Staged) -> SubmissionResult | None:
    """The grade stored for this submission's id (None: none, or unreadable)."""
    path = output_paths.submission_folder(out, staged.source.id) / "grade.json"
    if not path.is_file():
        return None
    try:
        return SubmissionResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _seed(stored: SubmissionResult | None, staged: intake.Staged) -> str | None:
    """The random cases' seed of a regrade: the stored grade's, when it graded the same files
    (the same cases are drawn again); otherwise None (a fresh one)."""
    if stored is not None and stored.files == staged.digests and stored.random_seed:
        return stored.random_seed
    return None


def _derived(seed: str, staged: intake.Staged) -> str:
    """A submission's seed made from the batch's and its files (the same files, the same cases)."""
    return seed_of(seed, staged.digests)


def seed_of(seed: str, digests: Mapping[str, str]) -> str:
    """The random cases' seed of the files with these ``digests`` (name -> sha256) in a batch graded
    with ``--seed seed``: what their grade.json must record (``merge`` checks it)."""
    return hashlib.sha256(f"{seed}:{sorted(digests.items())}".encode()).hexdigest()[:32]


def _done(
    stored: SubmissionResult | None, staged: intake.Staged, session: Session, seed: str | None = None
) -> SubmissionResult | None:
    """The stored grade of a submission, if it was made from the same files, rubric, reference and
    grader (and, given the batch's ``seed``, drawn from it)."""
    same = _same_calls(stored, staged, session, seed)
    return stored if same and stored is not None and stored.rubric_digest == session.plan.rubric.digest else None


def _same_calls(
    stored: SubmissionResult | None, staged: intake.Staged, session: Session, seed: str | None = None
) -> bool:
    """Was ``stored`` made from the same files, calls and cases (given the batch's ``seed``: drawn
    from it), reference and grader (its points, visibility or scoring aside)? Then its answers
    stand, and only its scores may need computing."""
    plan = session.plan
    return (
        stored is not None
        and stored.final
        and stored.grader_digest == plan.key[:16]
        and stored.reference_digest == plan.reference_digest
        and stored.files == staged.digests
        and (seed is None or stored.random_seed in ("", _derived(seed, staged)))  # "": no cases drawn
    )


def _rescore(
    previous: SubmissionResult | None, staged: intake.Staged, session: Session, seed: str | None = None
) -> SubmissionResult | None:
    """The stored grade scored again under the current rubric when only its points, visibility or
    scoring changed (None otherwise: the submission is graded again)."""
    if not _same_calls(previous, staged, session, seed) or previous is None:
        return None
    return scoring.rescored(previous, session.rubric)


def why_again(stored: SubmissionResult | None, staged: intake.Staged, session: Session, seed: str | None = None) -> str:
    """Why a stored submission is graded again (or rescored), in words for the batch's summary
    (``seed``: the batch's --seed, if given)."""
    plan = session.plan
    if stored is None:
        return "new"
    if stored.files != staged.digests:
        return "its files changed"
    if not stored.final:
        return "the grader was disturbed or failed on it last time"
    if stored.reference_digest != plan.reference_digest:
        return "the hidden reference changed"
    if stored.grader_digest != plan.key[:16]:
        return "the grader, its cases or the rubric's calls changed"
    if seed is not None and stored.random_seed not in ("", _derived(seed, staged)):
        return "its random cases were drawn from another --seed"
    return "the rubric's points, visibility or scoring changed"
