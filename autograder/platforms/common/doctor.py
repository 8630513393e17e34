"""What this machine allows and what grading Lab 05 needs here: the findings of ``python -m
autograder doctor``, which Gradescope's and PrairieLearn's entry points also print (to the
output only instructors see) before grading.

The sandbox's facts come from ``sandbox.machine``; this adds what the lab and the rubric know:
the evaluation libraries hidden from children, Cranfield, whether the rubric's memory per child
fits the cgroup's memory, and the proof grading runs first (``sandbox/proof.py``: a known honest
probe graded in the isolation grading would use, ``auto`` unless told, with the rubric's allowed
imports). Nothing is printed here: ``lines`` and ``to_dict`` render.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from autograder import environment, paths
from autograder.grading import rubric as rubrics
from autograder.labkit.lab import Lab
from autograder.sandbox import interpreter, machine, proof
from autograder.sandbox import isolation as isolations
from autograder.sandbox.machine import Finding, Machine, MiB
from autograder.sandbox.settings import Limits


@dataclass(frozen=True)
class Findings:
    machine: Machine
    cranfield: Finding  # the reference data grading needs is here (no download)
    memory_fit: Finding  # limits.memory_mb plus the grader's room fits the cgroup's memory
    child_packages: Finding  # the child has the rubric's allowed packages at the pinned versions
    proof: Finding  # a known honest probe scores full in ``isolation`` (``sandbox/proof.py``)
    isolation: str = "auto"  # the isolation the proof ran in (what grading uses)

    @property
    def can_grade(self) -> bool:
        """Would grading run here: the proof passed (in an isolation that could be had)?"""
        return self.proof.ok

    def to_dict(self) -> dict[str, Any]:  # JSON: what ``doctor --json`` prints
        return asdict(self)

    def lines(self) -> list[str]:
        """The findings as text, one fact a line (what ``doctor`` prints)."""
        m, found = self.machine, self.machine.resources

        def yes(finding: Finding) -> str:
            return ("yes: " if finding.ok else "no: ") + finding.detail

        seccomp = m.seccomp
        memory = (
            f"cgroup limit {found.memory_bytes // MiB} MiB" if found.memory_bytes is not None else "no cgroup limit"
        )
        swap = f", memory+swap {found.swap_bytes // MiB} MiB" if found.swap_bytes is not None else ""
        cpus = f"cgroup quota {found.cpus:g} CPU" if found.cpus is not None else "no cgroup quota"
        rows = [
            ("user", m.user),
            ("kernel", m.kernel),
            ("user namespaces", yes(m.user_namespaces)),
            ("jail namespaces", yes(m.jail_namespaces)),
            (
                "seccomp",
                ("in the kernel" if seccomp.kernel else "not in the kernel")
                + f"; this process: {'filtered' if seccomp.mode == 2 else 'not filtered'} (mode {seccomp.mode})"
                + f"; libseccomp: {seccomp.libseccomp or 'not installed'}",
            ),
            (
                "seccomp filter",
                ("available" if seccomp.filter.ok else "not available")
                + f" ({seccomp.filter.detail}); every child "
                + (
                    "installs one: no sockets, no io_uring, no ptrace, no namespaces"
                    if seccomp.uid_mode_filter
                    else "cannot: install libseccomp2 and the grader's requirements (the uid mode refuses to grade)"
                ),
            ),
            (
                "Landlock",
                f"ABI {seccomp.landlock}: the uid mode's children read only Python and their own submission"
                if seccomp.landlock
                else "not in this kernel: the uid mode relies on file permissions (the self-test proves them)",
            ),
            ("uid fallback", yes(m.uid_fallback)),
            ("memory", f"{memory}{swap}; RAM {found.ram_bytes // MiB} MiB"),
            ("CPU", f"{cpus}; {found.cores} cores"),
            ("memory fit", yes(self.memory_fit)),
            ("cgroup", found.cgroup),
            ("grader Python", m.python),
            ("child Python", m.child_python),
            ("child packages", yes(self.child_packages)),
            ("Cranfield", yes(self.cranfield)),
            ("proof", yes(self.proof)),
        ]
        width = max(len(label) for label, _ in rows) + 2
        verdict = "isolation auto " + ("chooses: " if m.auto.ok else "cannot grade here: ") + m.auto.detail
        if m.auto.ok and not self.proof.ok:
            verdict = f"isolation {self.isolation} cannot grade here: the proof failed (above)"
        return [f"{label:<{width}}{value}" for label, value in rows] + [verdict]


def memory_fit(memory_bytes: int | None, limits: Limits) -> Finding:
    """Does one child's allowance (``limits.memory_mb``) plus the grader's room fit ``memory_bytes``?"""
    needed = limits.memory_mb + Limits.GRADER_ROOM_MB
    if memory_bytes is None:
        return Finding(True, f"no cgroup memory limit; grading needs about {needed} MiB")
    have = memory_bytes // MiB
    if needed <= have:
        return Finding(
            True, f"limits.memory_mb {limits.memory_mb} + {Limits.GRADER_ROOM_MB} MiB for the grader <= {have} MiB"
        )
    return Finding(
        False,
        f"limits.memory_mb {limits.memory_mb} + {Limits.GRADER_ROOM_MB} MiB for the grader > the {have} MiB this "
        f"cgroup has: a submission that uses its whole allowance can get the grader killed; lower limits.memory_mb "
        f"in grading.yml to {max(have - Limits.GRADER_ROOM_MB, 64)} or give the container more memory",
    )


def pins(path: Path = paths.CHILD_REQUIREMENTS) -> dict[str, str]:
    """``requirements/child.txt``'s pins: {package: version}."""
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            found[name.strip().lower()] = version.strip()
    return found


def child_packages(installed: dict[str, str | None], allowed: tuple[str, ...], pinned: dict[str, str]) -> Finding:
    """Do the child's allowed packages agree with the pins (the same major version at least, so a
    submission using them is graded alike here and on the platforms)?"""
    if not installed:
        return Finding(False, "the child interpreter could not say what it has installed")
    said, ok = [], True
    for name in allowed:
        have, want = installed.get(name), pinned.get(name.lower())
        if have is None:
            said.append(f"{name} MISSING (submissions using it fail here)")
            ok = False
        elif want and have != want:
            same_major = have.split(".")[0] == want.split(".")[0]
            ok = ok and same_major
            said.append(
                f"{name} {have}, not the pinned {want}"
                + (" (the same major version)" if same_major else ": grades may differ from the platforms'")
            )
        else:
            said.append(f"{name} {have}" + (" (as pinned)" if want else ""))
    words = ", ".join(said) or "none allowed"
    return Finding(ok, f"{words}; anything else but the standard library fails to import (grading.yml)")


def proof_finding(lab: Lab, python: str, uid: int, allowed: tuple[str, ...], isolation: str = "auto") -> Finding:
    """The proof grading runs before anyone is graded, in the isolation ``isolation`` gives for
    ``python``: passed (how long it took, or remembered), or what failed and what to do."""
    try:
        chosen = isolations.choose(isolation, python, uid, lab.evaluation_libraries, allowed=allowed)
    except isolations.IsolationError as error:
        return Finding(False, f"not run: no isolation to run it in ({error})")
    try:
        done = proof.prove(chosen)
    except (isolations.IsolationError, proof.ProofError) as error:  # what failed and what to do
        return Finding(False, str(error))
    when = "remembered from an earlier run" if done.remembered else f"{done.seconds:.2f} s"
    return Finding(
        True,
        f"a known honest probe scored full in the {chosen.mode} mode with {python} ({when}): the standard "
        f"library, {', '.join(allowed) or 'no package'} allowed, calls, a run file",
    )


def _unsealed(packages: Finding, python: str, allowed: tuple[str, ...]) -> Finding:
    """``packages``, saying which modules beyond ``allowed`` graded code that removes the import hook
    could import in the uid mode on a kernel without Landlock (the jail never shows them)."""
    try:
        found = interpreter.unsealed(python, allowed)
    except interpreter.ProbeError as error:
        return Finding(False, f"{packages.detail}; cannot tell what else children could read ({error})")
    if not found:
        return packages
    shown = ", ".join(found[:12]) + (f" and {len(found) - 12} more" if len(found) > 12 else "")
    return Finding(
        packages.ok,
        f"{packages.detail}; but without Landlock the uid mode cannot hide {len(found)} other modules any user "
        f"may read ({shown}): graded code that removes the import hook could import them (the jail, or a kernel "
        "with Landlock, hides them)",
    )


def _cranfield(lab: Lab) -> Finding:
    shipped = environment.get("BUNDLE")
    if shipped:
        there = Path(shipped).is_file()
        state = "there" if there else "MISSING"
        return Finding(there, f"the precomputed reference {shipped} ($AUTOGRADER_BUNDLE) is {state}")
    return Finding(*lab.cranfield.cache_status())


def examine(
    lab: Lab,
    python: str | None = None,
    uid: int = isolations.DEFAULT_UID,
    rubric_path: Path | None = None,
    isolation: str = "auto",
) -> Findings:
    """Probe this machine, for ``lab``, for the child interpreter ``python`` and the sandbox uid ``uid``; the
    proof runs in ``isolation`` (what grading will use), and in the uid mode too when the uid
    fallback otherwise works (a fallback that would grade wrong is not one)."""
    found = machine.probe(python, uid, lab.evaluation_libraries)
    try:
        loaded = rubrics.load(rubric_path or lab.place.rubric, lab)
        limits, allowed = loaded.limits, loaded.allowed_imports
    except rubrics.RubricError:
        limits, allowed = Limits(), ("numpy",)
    child = python or isolations.default_child_python()
    try:
        packages = child_packages(machine.child_packages(child, allowed), allowed, pins())
    except OSError as error:
        packages = Finding(False, f"cannot tell ({error})")
    if not found.seccomp.landlock:  # the uid mode cannot take the other packages out of a child's world
        packages = _unsealed(packages, child, allowed)
    try:
        cranfield = _cranfield(lab)
    except Exception as error:  # reported, never raised: the doctor must finish
        cranfield = Finding(False, f"cannot tell ({type(error).__name__}: {error})")
    proved = proof_finding(lab, child, uid, allowed, isolation)
    if found.uid_fallback.ok:
        fallback = proof_finding(lab, child, uid, allowed, "uid")
        if not fallback.ok:
            found = replace(found, uid_fallback=Finding(False, f"{found.uid_fallback.detail}; but {fallback.detail}"))
    return Findings(
        machine=found,
        cranfield=cranfield,
        memory_fit=memory_fit(found.resources.memory_bytes, limits),
        child_packages=packages,
        proof=proved,
        isolation=isolation,
    )
