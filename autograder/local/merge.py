"""``merge OUT SHARD_OUT...``: the shards of a class (``grade --shard I/N``) made one batch in OUT.

The shards must be all of one class and one grading, or nothing is written: every shard's
``shard.json`` present and signed with the shard key (``shards.sign``: an edited manifest, or one
of another key, is refused), every file of its submissions' folders the one it lists (none changed,
missing or added: an edited grade.json or results.json is refused), the same number of shards,
each index once, the same class, the same rubric, reference and grader (their digests, and the
rubric's text, which the class-level step reads: ``--rubric`` chooses another with the same
digest), the same seed, and every submission in the shard its id hashes to, graded with those
digests. Then each submission's files are copied into ``OUT/submissions/``, each checked again as
it is read (what is merged is what was signed; nothing done to a shard's folder later reaches
OUT), and ``batch.finish``, the batch's own class-level step, computes the code similarity over
the whole class (from the graded files the shards kept) and has ``classwork.finish`` flag the
attempts over the limits and write grades.csv (a row per student, under the rubric's policy,
deadline and the extensions), the class report and class.json: the same outputs a single batch
of the class writes, the timing facts aside.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TypedDict, cast

from autograder import cache
from autograder.errors import InputError
from autograder.grading import rubric as rubrics
from autograder.grading.results import SubmissionResult
from autograder.labkit.lab import Lab
from autograder.local import batch, classwork, resume, shards
from autograder.local.run_facts import RunFacts
from autograder.reports import output_paths
from autograder.similarity.compare import Similarity

#: A manifest's fields every merged shard must agree on.
Agreed = Literal["of", "class", "rubric_digest", "reference_digest", "grader_digest", "seed"]

#: What a merged shard must agree on, and how a message names it.
AGREED: dict[Agreed, str] = {
    "of": "the number of shards",
    "class": "the class (the submissions found)",
    "rubric_digest": "the rubric's digest (what grading reads of grading.yml)",
    "reference_digest": "the hidden reference's digest",
    "grader_digest": "the grader's digest (its code and the plan's data)",
    "seed": "the random cases' seed (grade --seed)",
}

#: A manifest's fields and their types (anything else: the shard is graded again).
FIELDS: dict[str, type | tuple[type, ...]] = {
    "shard": int,
    "of": int,
    "class": list,
    "submissions": list,
    "rubric_digest": str,
    "reference_digest": str,
    "grader_digest": str,
    "rubric": str,
    "rubric_path": str,
    "seed": str,
    "seconds": (int, float),
    "run": dict,
    "files": dict,
    shards.SIGNATURE: str,
}

#: A shard's manifest as ``_manifest`` checked it (``FIELDS``, and every id a submission id), its
#: run's facts read and the shard's folder added (the key ``class`` makes it the functional form).
Manifest = TypedDict(
    "Manifest",
    {
        "format": str,
        "shard": int,
        "of": int,
        "class": list[str],
        "submissions": list[str],
        "rubric_digest": str,
        "reference_digest": str,
        "grader_digest": str,
        "rubric": str,
        "rubric_path": str,
        "seed": str,
        "seconds": float,
        "run": RunFacts,
        "files": dict[str, dict[str, str]],
        "signature": str,
        "folder": Path,
    },
)


@dataclass(frozen=True)
class MergeSummary:
    results: tuple[SubmissionResult, ...]  # every submission of the class, in id order
    shards: int
    seconds: float
    out: Path
    similarity: Similarity | None = None


def _manifest(folder: Path, secret: bytes) -> Manifest:
    path = folder / shards.MANIFEST
    if not path.is_file():
        finished = (folder / output_paths.GRADES).is_file()
        raise InputError(
            f"{folder} is not a finished shard (no {shards.MANIFEST}): "
            + (
                "it is a whole batch, graded without --shard"
                if finished
                else "grade it with `grade PATH... --shard I/N --out DIR` (again, if it stopped: it continues)"
            )
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"{path} cannot be read ({str(error)[:100]}): grade the shard again") from None
    if not isinstance(manifest, dict) or manifest.get("format") != shards.FORMAT:
        raise InputError(f"{path} is not a shard's manifest of this grader ({shards.FORMAT}): grade the shard again")
    for key, kind in FIELDS.items():
        if isinstance(manifest.get(key), bool) or not isinstance(manifest.get(key), kind):
            raise InputError(
                f"{path}: {key} is missing or not a {getattr(kind, '__name__', 'number')}: grade the shard again"
            )
    for submission in manifest["class"] + manifest["submissions"]:
        if not isinstance(submission, str) or not re.fullmatch(r"[A-Za-z0-9@_-][A-Za-z0-9._@-]*", submission):
            raise InputError(f"{path}: {str(submission)[:60]!r} is not a submission id: grade the shard again")
    as_written = dict(manifest)
    manifest["run"] = RunFacts.from_shown(manifest["run"], str(path))
    _signed(as_written, path, secret)
    listed = manifest["files"]
    if set(listed) != set(manifest["submissions"]) or not all(
        isinstance(files, dict) and all(isinstance(digest, str) for digest in files.values())
        for files in listed.values()
    ):
        raise InputError(f"{path}: its files are not listed per submission: grade the shard again")
    manifest["folder"] = folder
    return cast(Manifest, manifest)  # checked above


def _signed(manifest: dict[str, object], path: Path, secret: bytes) -> None:
    """Refuse a manifest whose signature does not match its fields under ``secret``."""
    if not shards.signed(manifest, secret):
        raise InputError(
            f"{path} is not the manifest its shard wrote (its signature does not match: edited, or signed with "
            f"another key): grade shard {manifest['shard']}/{manifest['of']} again into an empty folder; shards "
            f"graded on other machines need the same {shards.KEY_VARIABLE} there and here"
        )


def _name(manifest: Manifest) -> str:
    return f"shard {manifest['shard']}/{manifest['of']} ({manifest['folder']})"


def _differs(key: Agreed, first: Manifest, other: Manifest) -> str:
    if key != "class":
        return f"{first[key]!r} in {_name(first)}, {other[key]!r} here"
    mine, theirs = set(other["class"]), set(first["class"])
    extra, missing = sorted(mine - theirs), sorted(theirs - mine)
    parts = [f"{len(mine)} submissions, {len(theirs)} in {_name(first)}"]
    if extra:
        parts.append(f"only here: {', '.join(extra[:5])}")
    if missing:
        parts.append(f"only there: {', '.join(missing[:5])}")
    return "; ".join(parts) + ": grade every shard from the same class folder"


def _usual(key: Agreed, manifests: list[Manifest]) -> Manifest:
    """The first shard holding the value of ``key`` most shards hold (the first's, on a tie): the
    others are the ones named as differing."""
    counts: dict[str, int] = {}
    for manifest in manifests:
        value = json.dumps(manifest[key], sort_keys=True)
        counts[value] = counts.get(value, 0) + 1
    best = max(counts.values())
    return next(manifest for manifest in manifests if counts[json.dumps(manifest[key], sort_keys=True)] == best)


def check(manifests: list[Manifest]) -> None:
    """Refuse shards that are not all of one class and one grading (``ValueError`` naming the
    shard and what differs)."""
    if not manifests:
        raise InputError("merge needs the output folders of the shards (SHARD_OUT...)")
    first = manifests[0]
    for key, what in AGREED.items():
        usual = _usual(key, manifests)
        others = [manifest for manifest in manifests if manifest[key] != usual[key]]
        if others:
            raise InputError(
                f"{' and '.join(_name(other) for other in others)} differ{'s' if len(others) == 1 else ''} in {what}: "
                + "; ".join(_differs(key, usual, other) for other in others)
                + " (every shard of a class must be graded alike: grade "
                + ("that shard" if len(others) == 1 else "those shards")
                + " again into an empty folder)"
            )
    seen: dict[int, Manifest] = {}
    for manifest in manifests:
        index = manifest["shard"]
        if index in seen:
            raise InputError(
                f"shard {index}/{first['of']} is given twice: {seen[index]['folder']} and {manifest['folder']}"
            )
        seen[index] = manifest
    missing = [str(index) for index in range(1, first["of"] + 1) if index not in seen]
    if missing:
        raise InputError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {first['of']} missing: give every "
            "shard's output folder (a shard that did not finish: run it again)"
        )
    where: dict[str, Manifest] = {}
    for manifest in manifests:
        for submission in manifest["submissions"]:
            owner = shards.owner(submission, first["of"])
            if submission in where:
                raise InputError(f"{submission} is in {_name(where[submission])} and in {_name(manifest)}")
            if owner != manifest["shard"]:
                raise InputError(f"{_name(manifest)} holds {submission}, which belongs to shard {owner}/{first['of']}")
            where[submission] = manifest
    ungraded = sorted(set(first["class"]) - set(where))
    if ungraded:
        raise InputError(
            f"{len(ungraded)} submission(s) of the class are in no shard ({', '.join(ungraded[:5])}): run "
            f"shard {shards.owner(ungraded[0], first['of'])}/{first['of']} again"
        )


def _unchanged(manifest: Manifest, submission: str) -> None:
    """Refuse a submission's folder whose files are not the ones the signed manifest lists (one
    changed, missing or added), naming the shard and the file."""
    listed, found = manifest["files"][submission], shards.listing(manifest["folder"], submission)
    folder = output_paths.submission_folder(manifest["folder"], submission)
    problems = [f"{name} was changed" for name in sorted(set(listed) & set(found)) if listed[name] != found[name]]
    problems += [f"{name} is missing" for name in sorted(set(listed) - set(found))]
    problems += [f"{name} was added" for name in sorted(set(found) - set(listed))]
    if problems:
        raise InputError(
            f"{_name(manifest)}: in {folder}, {'; '.join(problems[:5])}"
            + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
            + f" since the shard wrote {shards.MANIFEST}: grade shard {manifest['shard']}/{manifest['of']} again "
            "into an empty folder (or with --force), and merge that"
        )


def _verified(manifest: Manifest, submission: str, name: str) -> bytes:
    """The content of a submission's file ``name`` (its path in the submission's folder), read
    once and checked against the signed manifest's digest: what merge uses is what was signed,
    whatever changes in the shard's folder meanwhile."""
    path = output_paths.submission_folder(manifest["folder"], submission) / name
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(
            f"{_name(manifest)}: {path} cannot be read ({str(error)[:100]}): run the shard again"
        ) from None
    if hashlib.sha256(data).hexdigest() != manifest["files"][submission].get(name):
        raise InputError(
            f"{_name(manifest)}: {path} was changed since the shard wrote {shards.MANIFEST}: grade shard "
            f"{manifest['shard']}/{manifest['of']} again into an empty folder (or with --force), and merge that"
        )
    return data


def _read(manifest: Manifest) -> tuple[list[SubmissionResult], dict[str, dict[str, bytes]]]:
    """The shard's results and graded files, each submission's files checked against the signed
    manifest and each result against its digests."""
    results: list[SubmissionResult] = []
    files: dict[str, dict[str, bytes]] = {}
    for submission in manifest["submissions"]:
        _unchanged(manifest, submission)
        path = output_paths.submission_folder(manifest["folder"], submission) / "grade.json"
        data = _verified(manifest, submission, "grade.json")
        try:
            result = SubmissionResult.from_dict(json.loads(data.decode("utf-8")))
        except (ValueError, TypeError, KeyError) as error:
            raise InputError(
                f"{_name(manifest)}: {path} cannot be read ({str(error)[:100]}): run the shard again"
            ) from None
        stamps: dict[Agreed, str] = {"rubric_digest": result.rubric_digest, "reference_digest": result.reference_digest}
        stamps["grader_digest"] = result.grader_digest
        for key, value in stamps.items():
            if value != manifest[key]:
                raise InputError(f"{_name(manifest)}: {submission} was graded with another {AGREED[key]}")
        drawn = result.random_seed  # "": no cases were drawn (no graded files)
        if manifest["seed"] and drawn and drawn != resume.seed_of(manifest["seed"], result.files):
            raise InputError(
                f"{_name(manifest)}: {submission}'s random cases were not drawn from the shard's --seed "
                f"{manifest['seed']!r} (a grade kept from an earlier run with another seed): grade shard "
                f"{manifest['shard']}/{manifest['of']} again with --force, and merge that"
            )
        graded = sorted(name for name in manifest["files"][submission] if name.startswith(f"{shards.GRADED}/"))
        files[submission] = {
            name.split("/", 1)[1]: _verified(manifest, submission, name) for name in graded if name.count("/") == 1
        }
        results.append(result)
    return results, files


def _copy(manifest: Manifest, out: Path) -> None:
    """Each submission's files (but its graded copies) written into ``out``, each checked against
    the signed manifest as it is read: copies, never links, so that nothing done to the shard's
    folder later reaches the merged batch."""
    for submission in manifest["submissions"]:
        target = output_paths.submission_folder(out, submission)
        for name in sorted(manifest["files"][submission]):
            if "/" not in name:
                cache.write_atomic(target / name, _verified(manifest, submission, name), 0o600)


def _rubric(manifests: list[Manifest], rubric_path: Path | None, lab: Lab) -> rubrics.Rubric:
    first = manifests[0]
    if rubric_path is not None:
        rubric = rubrics.load(rubric_path, lab)
        if rubric.digest != first["rubric_digest"]:
            raise InputError(
                f"{rubric_path} grades otherwise than the shards' rubric (another digest): the class-level "
                "step may read another similarity or attempts section, never other checks or points"
            )
        return rubric
    for manifest in manifests[1:]:
        if manifest["rubric"] != first["rubric"]:
            raise InputError(
                f"{_name(manifest)}'s grading.yml differs from {_name(first)}'s in what only the class-level step "
                "reads (e.g. similarity): give the one to use with --rubric FILE"
            )
    return rubrics.parse(first["rubric"], first["rubric_path"], lab=lab)


def _run(manifests: list[Manifest]) -> RunFacts:
    """The merged report's facts: when the last shard was graded, what all of them graded."""
    runs: list[RunFacts] = [manifest["run"] for manifest in manifests]
    jobs = sorted({str(run.jobs) for run in runs}, key=lambda text: (len(text), text))
    return replace(
        runs[0],
        graded_at=max(run.graded_at for run in runs),
        graded_now=sum(run.graded_now for run in runs),
        skipped=sum(run.skipped for run in runs),
        jobs=runs[0].jobs if len(jobs) == 1 else f"{jobs[0]} to {jobs[-1]} (by shard)",
        isolation=", ".join(sorted({run.isolation for run in runs})),
    )


def merge(
    out: str | Path,
    folders: Iterable[str | Path],
    rubric_path: Path | None = None,
    jobs: int | None = None,
    extensions: Path | None = None,
    known: Iterable[str | Path] = (),
    *,
    lab: Lab,
) -> MergeSummary:
    """Merge the shards of ``lab`` in ``folders`` into ``out`` (nothing written if they do not fit together);
    ``extensions``: the students' extensions file (else the one the rubric names, if any);
    ``known``: folders of earlier terms' submissions the similarity compares every one with."""
    started = time.monotonic()
    out = Path(out)
    shard_folders = [Path(folder) for folder in folders]
    if any(out.resolve() == folder.resolve() for folder in shard_folders):
        raise InputError(f"{out} is one of the shards: merge into another folder")
    secret = shards.key()
    manifests = [_manifest(folder, secret) for folder in shard_folders]
    check(manifests)
    rubric = _rubric(manifests, rubric_path, lab)
    rules = classwork.rules(rubric, rubric_path or Path(manifests[0]["rubric_path"]), extensions)
    results: list[SubmissionResult] = []
    files: dict[str, dict[str, bytes]] = {}
    for manifest in manifests:
        found, graded = _read(manifest)
        results += found
        files.update(graded)
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)  # grade.json holds expected values: the instructor's eyes only
    for manifest in manifests:
        _copy(manifest, out)
    results.sort(key=lambda result: result.submission)
    slowest = max(manifest["seconds"] for manifest in manifests)

    def taken() -> str:
        return f"{slowest:.1f} s (the longest of {len(manifests)} shards), merged in {time.monotonic() - started:.1f} s"

    run = _run(manifests)
    jobs = jobs or batch.usable_cpus()
    written, similar = batch.finish(
        out, tuple(results), files, rubric, rules, jobs, taken, run, known=tuple(known), lab=lab
    )
    return MergeSummary(
        results=written, shards=len(manifests), seconds=time.monotonic() - started, out=out, similarity=similar
    )
