"""``python -m autograder``: a thin command line over the library; each subcommand parses its
arguments and calls one function, whose signature holds the defaults. Exit status 2 with
``error: MESSAGE`` for a ``UsageError`` (a mistake the message says how to fix), 1 with the
traceback and a request to report it for anything else (a bug)."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from autograder.errors import InputError, MissingError, UsageError
from autograder.reports import untrusted

#: The line after a bug's traceback (any exception but a ``UsageError``): the exit status is then 1.
BUG = (
    "bug: the autograder failed (the traceback above); this is not a mistake of yours: please report it to "
    "the autograder's maintainers with the command you ran and that traceback"
)

if TYPE_CHECKING:
    from autograder.labkit.lab import Lab


def _table(args: argparse.Namespace) -> int:
    cranfield = args.lab.cranfield
    reference = cranfield.bundle()
    print(
        "Lab 04's runs written by the reference write_run, evaluated by ir_measures "
        "(truncated to 4 decimals, as the notes print):\n"
    )
    print(cranfield.table(reference))
    problems = cranfield.disagreements(reference)
    print(
        "\n"
        + (
            "every number of the notes' table reproduces"
            if not problems
            else "DIFFERS from the notes:\n  " + "\n  ".join(problems)
        )
    )
    return 1 if problems else 0


def _analysis(args: argparse.Namespace) -> int:
    from autograder.grading.analysis import claims, facts, own_runs

    known = facts.Facts.from_bundle(args.lab.cranfield.bundle())
    if not known.values:
        raise InputError(f"{args.lab.title} has no reference collection: there are no claims to check")
    runs = own_runs.in_folder(args.file.parent, args.lab)  # the run files a claim names, beside the file
    verdicts = facts.check(claims.read(args.file, known.names()), known, runs)
    for verdict in verdicts:
        print(f"{verdict.title()}: {'holds' if verdict.holds else 'refused'}")
        for problem in verdict.problems:
            print(f"  - {problem}")
    held = sum(verdict.holds for verdict in verdicts)
    print(f"{held} of {len(verdicts)} claims hold against the data")
    return 0 if held == len(verdicts) else 1


def _analysis_sheet(args: argparse.Namespace) -> int:
    from autograder.grading import intake, rubric
    from autograder.grading.analysis import facts
    from autograder.local import analysis_sheet

    loaded = rubric.load(args.rubric or args.lab.place.rubric, args.lab)
    if loaded.analysis is None:
        raise InputError(
            f"{Path(args.rubric or args.lab.place.rubric).name} has no analysis: section, so the analysis has no "
            "points: add one (docs/ANALYSIS.md)"
        )
    known = facts.Facts.from_bundle(args.lab.cranfield.bundle())
    if not known.values:
        raise InputError(f"{args.lab.title} has no reference collection: there are no claims to check")
    sources = intake.discover(args.paths, args.lab)
    path = analysis_sheet.write(args.out, sources, known, loaded.analysis, args.lab)
    print(
        f"grading sheet: {path} ({len(sources)} submissions, their claims checked); fill in prose_points (0 to "
        f"{loaded.analysis.prose_points:g}), comment and grader, then run the same grade command again: grades.csv "
        "gets the analysis's columns (the code's points never change)"
    )
    return 0


def _changes(args: argparse.Namespace) -> int:
    from autograder.lms import batch_results
    from autograder.reports import changes

    before, after = batch_results.read(args.before), batch_results.read(args.after)
    found = changes.compare(before.results, after.results)
    compared = len({result.submission for result in (*before.results, *after.results)})
    print(changes.render(found, compared), end="")
    return 0


def _seed(args: argparse.Namespace) -> int:
    try:
        cached = args.lab.solution.load().data.seed_cache(args.folder)
    except FileNotFoundError as error:  # the handout's data.py names the missing files (it imports no engine)
        raise MissingError(str(error)) from None
    print(f"Cranfield cached in {cached}")
    return 0


def _stubs(args: argparse.Namespace) -> int:
    from autograder.handout import stubs

    changed = stubs.write_stubs(args.lab)
    print(f"regenerated {', '.join(changed)}" if changed else "the stubs are up to date")
    return 0


def _requirements(args: argparse.Namespace) -> int:
    from autograder.handout import requirements

    before = requirements.TARGET.read_text(encoding="utf-8") if requirements.TARGET.is_file() else ""
    target = requirements.write()
    changed = target.read_text(encoding="utf-8") != before
    print(f"{'wrote' if changed else 'up to date:'} {target}")
    return 0


def _grade(args: argparse.Namespace) -> int:
    from autograder.grading.results import Status, points
    from autograder.local import batch, shards

    shard = shards.parse(args.shard) if args.shard else None
    summary = batch.grade_batch(
        args.paths,
        args.out,
        jobs=args.jobs,
        force=args.force,
        isolation=args.isolation,
        rubric_path=args.rubric or args.lab.place.rubric,
        uid=args.uid,
        python=args.child_python,
        seed=args.seed,
        extensions=args.extensions,
        shard=shard,
        known=tuple(args.known),
        times=args.times,
        lab=args.lab,
    )
    scores = [result.score for result in summary.results]
    errors = sum(result.status != Status.GRADED for result in summary.results)
    print(
        f"graded {summary.graded}, rescored {summary.rescored} from stored answers, "
        f"skipped {summary.skipped} already graded, of {len(summary.results)} "
        f"submissions in {summary.seconds:.1f} s; mean score {sum(scores) / max(len(scores), 1):.1f}; "
        f"{errors} could not be graded"
    )
    for submission, why, before, now in summary.changes[:20]:
        change = "" if before == now else f": {points(before)} -> {points(now)}"
        print(f"  {submission}: again because {why}{change} (the previous grade kept as grade.previous.json)")
    if len(summary.changes) > 20:
        print(f"  ... and {len(summary.changes) - 20} more")
    if shard is not None:
        print(
            f"shard {shard}: {summary.out}/{shards.MANIFEST}; once every shard is done: python -m autograder merge "
            f"OUT SHARD_OUT... (the {shard.count} shards' --out folders) for grades.csv and the class report"
        )
        return 0
    similar = len(summary.similarity.pairs) if summary.similarity is not None else 0
    if similar:
        print(f"similar code: {similar} pair{'s' if similar > 1 else ''} of submissions worth a look (class report)")
    print(
        f"class report: {summary.out}/index.html; grades: {summary.out}/grades.csv; per submission: "
        f"{summary.out}/submissions/<submission>/feedback.html, feedback.md, results.json"
    )
    return 0


def _merge(args: argparse.Namespace) -> int:
    from autograder.local import merge

    summary = merge.merge(
        args.out,
        args.shards,
        rubric_path=args.rubric,
        jobs=args.jobs,
        extensions=args.extensions,
        known=args.known,
        lab=args.lab,
    )
    similar = len(summary.similarity.pairs) if summary.similarity is not None else 0
    print(
        f"merged {summary.shards} shards: {len(summary.results)} submissions in {summary.seconds:.1f} s; "
        f"{similar} similar pair(s); class report: {summary.out}/index.html; grades: {summary.out}/grades.csv"
    )
    return 0


def _status(args: argparse.Namespace) -> int:
    from autograder.local import shard_status

    states = shard_status.survey(args.out, args.shards)
    print(shard_status.report(states, args.out))
    return 0 if all(state.state == "done" for state in states) else 1


def _gradescope(args: argparse.Namespace) -> int:
    from autograder.platforms.gradescope import entry

    document = entry.run(args.root, isolation=args.isolation, uid=args.uid, python=args.child_python, lab=args.lab)
    print(f"score {document['score']}; results in {args.root}/results/results.json")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    import json

    from autograder.platforms.common import doctor

    findings = doctor.examine(args.lab, args.child_python, args.uid, isolation=args.isolation)
    print(json.dumps(findings.to_dict(), indent=2) if args.json else "\n".join(findings.lines()))
    return 0 if findings.can_grade else 1


def _build(args: argparse.Namespace) -> int:
    if args.with_cranfield and args.target != "gradescope":
        raise InputError("--with-cranfield adds Cranfield to handout.zip, which only the gradescope target builds")
    if args.target == "prairielearn":
        from autograder.grading import rubric as rubrics
        from autograder.handout import build as handout
        from autograder.platforms.common import handout_readme, setting_support
        from autograder.platforms.prairielearn import build as prairielearn

        image = args.image or prairielearn.default_image(args.lab)
        folders = prairielearn.build(args.out, args.lab, image=image, rubric_path=args.rubric)
        for name, folder in folders.items():
            size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
            print(f"{name}: {folder}/ ({size / 1024:.0f} KiB)")
        readme = handout_readme.expected(args.lab, "prairielearn", args.rubric)
        zipped = handout.build(args.lab, args.out / "handout.zip", readme=readme)
        print(f"handout: {zipped} ({zipped.stat().st_size / 1024:.0f} KiB)")
        loaded = rubrics.load(args.rubric or args.lab.place.rubric, args.lab)
        print("\n".join(setting_support.grid(setting_support.unset(loaded))))
        for note in prairielearn.notes(loaded):
            print(f"note: {note}")
        question, analysis = prairielearn.question_id(args.lab), prairielearn.analysis_id(args.lab)
        print(
            f"next: docker build --platform linux/amd64 -t {image} {folders['image']} && docker push "
            f"{image}; copy {folders['question']} into your course's questions/{question}/ and "
            f"{folders['assessment']}/infoAssessment.json into an assessment's folder, then Sync (the Docker "
            "images too)"
        )
        if "analysis" in folders:
            print(
                f"next: copy {folders['analysis']} into your course's questions/{analysis}/ (the "
                f"written analysis, graded by people: the sample assessment gives it manualPoints) and set its "
                f"manual grading rubric from {folders['analysis']}/rubric.md"
            )
        return 0
    from autograder.grading import rubric as rubrics
    from autograder.handout import build as handout
    from autograder.platforms.common import handout_readme
    from autograder.platforms.gradescope import build

    readme = handout_readme.expected(args.lab, "gradescope", args.rubric)
    built = {
        "autograder": build.build(args.out / "autograder.zip", args.lab, args.rubric),
        "handout": handout.build(args.lab, args.out / "handout.zip", cranfield=args.with_cranfield, readme=readme),
    }
    print("\n".join([f"{n}: {path} ({path.stat().st_size / 1024:.0f} KiB)" for n, path in built.items()]))
    from autograder.platforms.common import setting_support

    rubric = rubrics.load(args.rubric or args.lab.place.rubric, args.lab)
    missing = setting_support.unset(rubric)
    print("\n".join(setting_support.grid(missing)))
    print("\n".join(f"note: {note}" for note in build.notes(missing)))
    print("\n".join(f"checklist: {step}" for step in build.checklist(rubric)))
    return 0


def _export(args: argparse.Namespace) -> int:
    from autograder.lms import export

    analysis = None
    if args.part == "analysis":
        from autograder.grading import rubric

        analysis = rubric.load(args.lab.place.rubric, args.lab).analysis
        if analysis is None:
            raise InputError(
                f"--part analysis: {args.lab.place.rubric.name} has no analysis: section, so the analysis has no "
                "points: add one (docs/ANALYSIS.md)"
            )
    result = export.export(args.lms, args.roster, args.dir, args.out, column=args.column, analysis=analysis)
    for message in result.messages:  # they quote students' names: one line each, shown as text
        print(untrusted.terminal(message), file=sys.stderr)
    print(f"wrote {args.out}: {result.summary}")
    return 0


def _prairielearn(args: argparse.Namespace) -> int:
    from autograder.platforms.prairielearn import entry

    document = entry.run(
        args.root,
        isolation=args.isolation,
        uid=args.uid,
        python=args.child_python,
        rubric_path=args.rubric or args.lab.place.rubric,
        lab=args.lab,
    )
    print(f"score {document.get('score')}; results in {args.root}/results/results.json")
    return 0


def _try(args: argparse.Namespace) -> int:
    from autograder.platforms.common import trial

    done = trial.run(
        args.built,
        args.submission,
        root=args.root,
        python=args.child_python,
        isolation=args.isolation,
        metadata=args.metadata,
    )
    print(done.summary())
    return 0 if done.status == 0 and done.document else done.status or 1


def _lab(folder: Path | None) -> Lab:
    """The lab graded: ``folder``'s (``--lab``), else the environment's (this repository's lab unless
    $AUTOGRADER_LAB names another)."""
    from autograder.labkit import load

    return load.load(folder) if folder is not None else load.default()


def _handout_readme(args: argparse.Namespace) -> int:
    from autograder.platforms.common import handout_readme

    path = args.lab.place.handout / "README.md"
    before = path.read_text(encoding="utf-8")
    written = handout_readme.write(args.lab)
    print(f"{'wrote' if written.read_text(encoding='utf-8') != before else 'up to date:'} {written}")
    return 0


def _reference(args: argparse.Namespace) -> int:
    from autograder.grading import reference

    print(f"wrote {reference.write(args.lab)}")
    return 0


_KNOWN = (
    "a folder (or archive, or Gradescope export) of an earlier term's submissions: the similarity compares "
    "every submission with each of them too (listed as known:<folder>/<submission>); repeat for several"
)
_EXTENSIONS = (
    "a CSV of students' extensions (columns email or sid, and due: the new due date); default: the file "
    "grading.yml's deadline.extensions names, if any"
)

_ISOLATION = (
    "how submissions are enclosed (default auto: a namespace jail, else another user when root; none only for "
    "trusted code)"
)
_UID = "where to start looking for free sandbox uids to lease when the grader is root"
_CHILD_PYTHON = "the interpreter submissions run in (default: the children's environment)"


def _writable(path: Path) -> Path:
    """``path`` if what it is written into can be made here: no folder above it is a file, and the
    nearest folder that exists (``path`` itself, when a folder) is writable (argparse's usage error
    otherwise, exit 2)."""
    for folder in path.parents:
        if folder.exists() and not folder.is_dir():
            raise argparse.ArgumentTypeError(f"{folder} is a file, not a folder: name a path under a folder")
    existing = next(folder for folder in (path, *path.parents) if folder.is_dir())
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{existing} is not writable by this user: choose a folder you may write")
    return path


def _folder(text: str) -> Path:
    """An output folder (made when missing): it must not be a file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder: name a folder (made if missing)")
    return _writable(path)


def _file(text: str) -> Path:
    """An output file (its folders made when missing): it must not be a folder."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder: name the file to write")
    return _writable(path)


def build_parser() -> argparse.ArgumentParser:
    from autograder.grading.course import times
    from autograder.lms import registry as lms_registry
    from autograder.sandbox import isolation

    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    parser.add_argument(
        "--lab",
        type=Path,
        default=None,
        metavar="FOLDER",
        help="the lab's folder: lab/, grading.yml, assignment/, solutions/ (default: this repository's lab, or "
        "$AUTOGRADER_LAB's)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    table = commands.add_parser(
        "table",
        help="write both Cranfield runs with the reference and print the evaluation table next to the notes' numbers",
    )
    table.set_defaults(run=_table)

    analysis = commands.add_parser(
        "analysis",
        help="check the claims of a student's analysis.yml against the data (the qrels and Lab 04's reference runs, "
        "or the student's own run files beside it that a claim names); exit 1 when a claim is refused",
    )
    analysis.add_argument("file", type=Path, help="the analysis.yml to check")
    analysis.set_defaults(run=_analysis)

    sheet = commands.add_parser(
        "analysis-sheet",
        help="write OUT/analysis.csv, the written analysis's grading sheet: a row per submission, its claims checked "
        "against the data, its prose for a TA to grade (made again, it keeps what the TA wrote)",
    )
    sheet.add_argument("paths", nargs="+", metavar="PATH", help="the submissions, as given to grade")
    sheet.add_argument("--out", type=_folder, required=True, help="the graded batch's folder (grade --out)")
    sheet.add_argument("--rubric", type=Path, default=None, help="default: the lab's grading.yml")
    sheet.set_defaults(run=_analysis_sheet)

    changed = commands.add_parser(
        "changes",
        help="what changed between two gradings of a class (two graded batches' folders), per submission, and why: "
        "code, rubric, reference, override, lateness, seed or grader",
    )
    changed.add_argument("before", type=Path, help="the earlier grading's --out folder")
    changed.add_argument("after", type=Path, help="the later grading's --out folder")
    changed.set_defaults(run=_changes)

    seed = commands.add_parser(
        "seed-cranfield",
        help="copy cran.all.1400, cran.qry and cranqrel from FOLDER into ir_datasets' cache (for offline machines)",
    )
    seed.add_argument("folder", help="a folder holding cran.all.1400, cran.qry and cranqrel")
    seed.set_defaults(run=_seed)

    stubs = commands.add_parser("stubs", help="regenerate the handout's stubs from solutions/")
    stubs.set_defaults(run=_stubs)

    course = commands.add_parser(
        "handout-readme",
        help="rewrite the course section of the handout's README.md from grading.yml (deadline, attempts, where "
        "to submit on Gradescope, what graded code may import and the versions graded); build renders it for "
        "its platform",
    )
    course.set_defaults(run=_handout_readme)

    pins = commands.add_parser(
        "requirements",
        help="write the handout's requirements.txt: requirements/lab.txt and handout.txt pinned to the versions "
        "installed here, and for the Pythons those do not support to what pip resolves there",
    )
    pins.set_defaults(run=_requirements)

    grade = commands.add_parser(
        "grade", help="grade submissions (folders or zips, or folders of them, e.g. a Gradescope export) into OUT"
    )
    grade.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a submission (a folder or a zip), or a folder of them (a Gradescope export too); several may be given",
    )
    grade.add_argument("--out", required=True, type=_folder, help="where results, feedback and grades.csv go")
    grade.add_argument("--jobs", type=int, default=None, help="submissions graded at once (default: usable CPUs)")
    grade.add_argument("--force", action="store_true", help="grade again what is already graded")
    grade.add_argument(
        "--isolation",
        default="auto",
        choices=isolation.MODES,
        help="how submissions are enclosed (default auto: a namespace jail, else another user "
        "when root; none only for trusted code)",
    )
    grade.add_argument("--rubric", type=Path, default=None, help="default: the lab's grading.yml")
    grade.add_argument(
        "--uid",
        type=int,
        default=isolation.DEFAULT_UID,
        help="where to start looking for free sandbox uids to lease when the grader is root",
    )
    grade.add_argument("--child-python", default=None, help="the interpreter submissions run in")
    grade.add_argument(
        "--seed",
        default=None,
        help="draw every submission's random cases from this seed and its files (an instructor's deliberate "
        "redraw, recorded in grade.json; by default they are drawn from the course secret beside the rubric "
        "and the files, so the same files always get the same cases)",
    )
    grade.add_argument(
        "--extensions",
        type=Path,
        default=None,
        help=_EXTENSIONS,
    )
    grade.add_argument("--known", type=Path, action="append", default=[], metavar="FOLDER", help=_KNOWN)
    grade.add_argument("--times", metavar="SOURCE", help=f"where submission times come from: {times.ALLOWED}")
    grade.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="grade only shard I of N (a stable share of the class, by submission id) into OUT, for `merge`; "
        "auto/N or auto: I from JOB_COMPLETION_INDEX (Kubernetes) or SLURM_ARRAY_TASK_ID (Slurm)",
    )
    grade.set_defaults(run=_grade)

    merging = commands.add_parser(
        "merge",
        help="make one batch in OUT (grades.csv, the class report, the similarity over the whole class) of the "
        "output folders of every shard of a class (grade --shard I/N)",
    )
    merging.add_argument("out", type=_folder, metavar="OUT", help="where the merged batch goes (made if missing)")
    merging.add_argument(
        "shards", type=Path, nargs="+", metavar="SHARD_OUT", help="the --out folder of each shard (grade --shard I/N)"
    )
    merging.add_argument(
        "--rubric",
        type=Path,
        default=None,
        help="the grading.yml whose class-level sections (similarity, students, deadline, attempts) to use "
        "(default: the shards'; it must grade as theirs did)",
    )
    merging.add_argument("--extensions", type=Path, default=None, help=_EXTENSIONS)
    merging.add_argument("--known", type=Path, action="append", default=[], metavar="FOLDER", help=_KNOWN)
    merging.add_argument("--jobs", type=int, default=None, help="processes for the similarity (default: usable CPUs)")
    merging.set_defaults(run=_merge)

    status = commands.add_parser(
        "status",
        help="which shards of a class graded in OUT's sub-folders (grade --shard I/N --out OUT/shard-<I-1>) are "
        "done, running, failed or missing, and the command that resubmits the failed and missing ones; exit 1 "
        "until every shard is done",
    )
    status.add_argument(
        "out", type=Path, metavar="OUT", help="the folder holding the shards' folders (shard-0, shard-1, ...)"
    )
    status.add_argument(
        "--shards", type=int, default=None, metavar="N", help="the number of shards (default: what the folders say)"
    )
    status.set_defaults(run=_status)

    doctor = commands.add_parser(
        "doctor",
        help="what this machine allows (root, namespaces, seccomp, the uid fallback, cgroup memory and CPU, "
        "Python), which isolation auto chooses and whether a known honest probe scores full in it; exit 1 when "
        "grading cannot run here",
    )
    doctor.add_argument("--child-python", default=None, help="the interpreter submissions run in")
    doctor.add_argument("--uid", type=int, default=isolation.DEFAULT_UID, help="the first sandbox uid")
    doctor.add_argument("--json", action="store_true", help="the findings as JSON")
    doctor.add_argument(
        "--isolation",
        default="auto",
        choices=isolation.MODES,
        help="the isolation the proof runs in (as grading would)",
    )
    doctor.set_defaults(run=_doctor)

    build = commands.add_parser(
        "build",
        help="write Gradescope's autograder.zip and the students' handout.zip (default), or PrairieLearn's "
        "question folder and grader image (--target prairielearn)",
    )
    build.add_argument("--out", type=_folder, default=Path("dist"), help="where the built files go (default: dist)")
    build.add_argument(
        "--rubric",
        type=Path,
        default=None,
        help="the rubric shipped (default: the lab's grading.yml); the course secret is read, or made, beside it",
    )
    build.add_argument(
        "--target",
        choices=("gradescope", "prairielearn"),
        default="gradescope",
        help="the platform built for (default: gradescope)",
    )
    build.add_argument(
        "--image",
        default=None,
        help=(
            "prairielearn: the grader image's public name, as you will push it (e.g. youruser/PACKAGE-autograder:2026, "
            "PACKAGE the lab's package; default PACKAGE-autograder:latest)"
        ),
    )
    build.add_argument(
        "--with-cranfield",
        action="store_true",
        help="add Cranfield's three files (from ir_datasets' cache) to handout.zip, in its cranfield/ folder, for "
        "students who cannot download it",
    )
    build.set_defaults(run=_build)

    inside = commands.add_parser(
        "gradescope", help="(run_autograder) grade ROOT/submission into ROOT/results/results.json"
    )
    inside.add_argument(
        "--root",
        type=Path,
        default=Path("/autograder"),
        help="Gradescope's folder, holding source/, submission/ and results/ (default: /autograder)",
    )
    inside.add_argument("--isolation", default="auto", choices=isolation.MODES, help=_ISOLATION)
    inside.add_argument("--uid", type=int, default=isolation.DEFAULT_UID, help=_UID)
    inside.add_argument("--child-python", default=None, help=_CHILD_PYTHON)
    inside.set_defaults(run=_gradescope)

    lms = commands.add_parser(
        "export",
        help="turn a graded batch DIR into an LMS gradebook import, keyed by the LMS's own gradebook export",
    )
    lms.add_argument("dir", type=Path, metavar="DIR", help="the --out folder of a finished `grade`")
    # checked against the registry when the command runs (lms/export.py: build), so that the
    # other commands (run_autograder's among them) do not import the LMS formats
    lms.add_argument("--lms", required=True, help=lms_registry.names())
    lms.add_argument("--roster", required=True, type=Path, help="the gradebook exported from that LMS")
    lms.add_argument("--out", required=True, type=_file, help="the import file to write")
    lms.add_argument(
        "--column",
        default=None,
        help='the gradebook column to fill, e.g. "Lab 05 (12345)" (a part of its name is enough; '
        "default: the roster's only grade column)",
    )
    lms.add_argument(
        "--part",
        choices=("code", "analysis"),
        default="code",
        help="what fills the column: the code's grade (default), or the written analysis's points from DIR's "
        "grading sheet (analysis.csv, python -m autograder analysis-sheet)",
    )
    lms.set_defaults(run=_export)

    pl = commands.add_parser(
        "prairielearn", help="(the grader image's entrypoint) grade ROOT/student into ROOT/results/results.json"
    )
    pl.add_argument(
        "--root",
        type=Path,
        default=Path("/grade"),
        help="PrairieLearn's folder, holding student/, tests/ and results/ (default: /grade)",
    )
    pl.add_argument("--rubric", type=Path, default=None, help="default: the lab's grading.yml")
    pl.add_argument("--isolation", default="auto", choices=isolation.MODES, help=_ISOLATION)
    pl.add_argument("--uid", type=int, default=isolation.DEFAULT_UID, help=_UID)
    pl.add_argument("--child-python", default=None, help=_CHILD_PYTHON)
    pl.set_defaults(run=_prairielearn)

    attempt = commands.add_parser(
        "try",
        help="run a built autograder.zip, or a built PrairieLearn question, on SUBMISSION as the platform would "
        "(its own run_autograder or entrypoint, in a temporary root laid out as /autograder or /grade; as root) "
        "and print the score and where the results are",
    )
    attempt.add_argument(
        "built",
        type=Path,
        metavar="BUILT",
        help="autograder.zip, or the folder `build --target prairielearn` wrote (question/, image/)",
    )
    attempt.add_argument(
        "submission",
        type=Path,
        metavar="SUBMISSION",
        help="what a student uploads: a folder of the graded files (or of the lab's package folder), or a zip",
    )
    attempt.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the platform's root to lay out (new or empty; default: a new temporary folder, kept)",
    )
    attempt.add_argument("--isolation", default="auto", choices=isolation.MODES, help=_ISOLATION)
    attempt.add_argument("--child-python", default=None, help=_CHILD_PYTHON)
    attempt.add_argument(
        "--metadata",
        type=Path,
        default=None,
        help="gradescope: the submission_metadata.json the run reads (its created_at is the submission's time, "
        "checked against the deadline; previous_submissions count attempts); default: none, graded as on time",
    )
    attempt.set_defaults(run=_try)

    regenerate = commands.add_parser(
        "reference", help="regenerate the lab's lab/data/expected.json from solutions/ and ir_measures"
    )
    regenerate.set_defaults(run=_reference)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv``: its status; 2 for a ``UsageError`` (its message), 1 for a bug (its
    traceback and ``BUG``), 130 when interrupted. What it prints goes through
    ``untrusted.TerminalText`` (a name's control characters shown as escapes, never sent to the
    terminal)."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (cast(TextIO, untrusted.TerminalText(stream)) for stream in streams)
    try:
        return _main(argv)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = streams


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.lab = _lab(args.lab)
        code: int = args.run(args)  # the subcommand's function
        return code
    except UsageError as error:  # what a user can fix: the message says what and how
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted: what was written is kept (a batch's finished submissions); the same command "
            "continues where this one stopped",
            file=sys.stderr,
        )
        return 130
    except BrokenPipeError:  # the reader stopped reading (``... | head``): not a bug, nothing to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that Python's flush at exit does not fail again
        return 141  # 128 + SIGPIPE, what a shell reports for a command cut off by its pipe
    except Exception:  # anything else is a bug of the grader: its traceback, for the report
        traceback.print_exc(file=sys.stderr)
        print(BUG, file=sys.stderr)
        return 1
