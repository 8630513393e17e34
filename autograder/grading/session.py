"""One grading session: everything a batch or a platform's entry point grades with, prepared and
checked once (rubric, reference, plan, isolation, the shared job), then ``grade`` per submission.

The local batch and every platform use this same session, so a submission is graded the same
way everywhere. ``grade`` never raises: the grader's own bugs become a result that says so.
"""

from __future__ import annotations

import contextlib
import gc
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.grading import course_secret, grader, intake, reference
from autograder.grading import rubric as rubrics
from autograder.grading.plan import Plan, cached
from autograder.grading.results import Flag, FlagKind, SubmissionResult
from autograder.labkit.lab import Lab
from autograder.sandbox import isolation as isolations
from autograder.sandbox import proof
from autograder.sandbox.settings import Isolation


def _lab_files(lab: Lab) -> tuple[str, ...]:
    """What a child must never read of ``lab`` beyond the grader's own files (``isolation.protected_paths``):
    its hidden reference, solutions, rubric and package, wherever its folder lies."""
    own = isolations.protected_paths()
    found = (lab.place.hidden, lab.place.solutions, lab.place.rubric, lab.place.package)
    return tuple(str(path) for path in found if path.exists() and not any(path.is_relative_to(p) for p in own))


INTERNAL_ERROR = (
    "the grader failed on this submission (not because of your code); the details are in the grader's log, "
    "which your instructor sees"
)


@dataclass(frozen=True)
class Session:
    plan: Plan
    isolation: Isolation
    secret: str = ""  # the course secret ("": none, each grading draws afresh)
    secret_note: str = ""  # what the instructor should know about the course secret

    @property
    def rubric(self) -> rubrics.Rubric:
        return self.plan.rubric

    @classmethod
    def open(
        cls,
        lab: Lab,
        rubric_path: Path | None = None,
        isolation: str = "auto",
        uid: int = isolations.DEFAULT_UID,
        python: str | None = None,
        folder: Path | None = None,
        protected: tuple[str, ...] = (),
        jobs: int = 1,
        create_secret: bool = False,
    ) -> Session:
        """Everything grading ``lab`` needs (``rubric_path``: its rubric unless another is given), checked;
        errors name the fix (``RubricError``,
        ``ReferenceDataError``, ``IsolationError``, ``CranfieldUnavailable``; ``proof.ProofError`` when
        a known honest probe does not score full in the chosen isolation). ``protected``:
        folders no child may read beyond the grader's own (a batch's class and output folders);
        ``jobs``: the workers that grade at once (each runs its children as a sandbox uid of its own);
        ``create_secret``: make the course secret beside the rubric if there is none (a local batch)."""
        rubric_path = rubric_path or lab.place.rubric
        loaded = rubrics.load(rubric_path, lab)
        secret, note = course_secret.load(rubric_path, create_secret)
        bundle_key, load_bundle = lab.cranfield.lazy_bundle()

        def check(stored: dict[str, Any], bundle: dict[str, Any]) -> None:
            reference.check(lab, stored, bundle)

        with _kept_for_good():
            plan = cached(lab, loaded, reference.load(lab), bundle_key, load_bundle, check)
        chosen = isolations.choose(
            isolation, python, uid, lab.evaluation_libraries, protected + _lab_files(lab), jobs, loaded.allowed_imports
        )
        proof.prove(chosen)  # a known honest probe scores full here, or nothing is graded (``ProofError``)
        return cls(plan, chosen, secret, note)

    def grade(
        self,
        submission: intake.Source | intake.Staged,
        slot: int = 0,
        deadline: float | None = None,
        seed: str | None = None,
    ) -> SubmissionResult:
        """Grade one submission (read now, unless already read); never raises. ``deadline``
        (a ``time.monotonic()`` value): a platform's overall limit, after which no call starts;
        ``seed``: its random cases' seed (by default drawn from the course secret and its files,
        ``seed_for``; fresh without a course secret)."""
        source = submission.source if isinstance(submission, intake.Staged) else submission
        try:
            staged = submission if isinstance(submission, intake.Staged) else intake.read(submission, self.plan.lab)
            if seed is None and self.secret:
                seed = course_secret.seed_for(self.secret, self.rubric.cases_digest, staged.digests, self.plan.lab.slug)
            return grader.grade(staged, self.plan, self.isolation, self.rubric.limits, slot, deadline, seed)
        except Exception:  # a grader bug: recorded for the instructor, the batch goes on
            return internal_error(source, self.plan, traceback.format_exc())


@contextlib.contextmanager
def _kept_for_good() -> Iterator[None]:
    """The plan is some 100,000 objects made at once that live as long as the process: Python's
    cyclic collector would walk them all at every full collection (0.1 to 0.4 s of a warm run),
    while they load and then whenever grading allocates. Loaded with it paused, then frozen
    (``gc.freeze``: out of its reach, and not copied by forked workers touching their headers)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def internal_error(
    source: intake.Source, plan: Plan | None, log: str, problem: str = INTERNAL_ERROR, flag: str = "internal error"
) -> SubmissionResult:
    """The result of a submission the grader itself failed on."""
    return SubmissionResult.failed(
        source.id,
        (problem,),
        (Flag(FlagKind.GRADER, flag),),
        students=source.students,
        instructor_log=log,
        rubric_digest=plan.rubric.digest if plan else "",
        reference_digest=plan.reference_digest if plan else "",
    )
