"""PrairieLearn's question folder and the grader image's build context, reproducible (the same
inputs give byte-identical files).

``OUT/question/`` goes into the course's ``questions/``: ``info.json`` (external grading with
the image, its entrypoint and a timeout from ``limits.overall_seconds``; a uuid derived from the
rubric's title, so rebuilding after a change of points keeps the question's identity),
``question.html`` (the upload of the two graded files and the grader's results),
``tests/grading.yml`` (the rubric: the entrypoint grades with it) and ``tests/hidden/`` (the
hidden reference: edge cases, expected values, the hidden run writer scenarios, the Cranfield
bundle, the precomputed plan, ``grading.shipment.hidden_entries``; and in ``code/`` the lab's answer
code, ``shipment.code_entries``, which the entrypoint copies into the engine). PrairieLearn copies
the question's ``tests/`` into the grading container as ``/grade/tests`` and never shows it to
students. ``OUT/image/`` is the Docker build context: the ``Dockerfile``, the ``entrypoint`` and the engine alone
(``grading.shipment.engine_entries``) under ``source/``: the image is pulled from a public
registry, so nothing in it is secret. ``OUT/assessment/`` holds a sample ``infoAssessment.json``
(``assessment``): a homework whose one question is this one, worth the rubric's total; without an
assessment students never see a question. ``grading.yml``'s attempt limit per period becomes the
question's ``gradeRateMinutes`` there (PrairieLearn sets it per question, zone or assessment in
``infoAssessment.json``, not in the question's ``info.json`` nor in ``allowAccess`` rules); PrairieLearn
has no cap on a question's graded submissions in all that the build could set (``notes``).
With ``grading.yml``'s ``analysis:``, ``OUT/analysis/`` is the written analysis's question (the upload
of ``analysis.yml`` and ``analysis.md``): the same image checks its claims against the data (the
``analysis.json`` of its tests folder marks the question for the entrypoint: ``analysis_entry``),
worth the claims' points as ``autoPoints``, and people grade its prose, worth ``manualPoints``, with
a starter ``rubric.md``; it is apart from the code's question.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import string
import uuid
from pathlib import Path
from typing import Any

from autograder import cache
from autograder.errors import InputError
from autograder.grading import rubric as rubrics
from autograder.grading.course import attempts
from autograder.labkit.lab import Lab
from autograder.platforms.common import setting_support, shipment

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The image's home of the grader (the Dockerfile's; images built before named it after Lab 05, and
#: the Dockerfile links that name to this one for questions built then).
HOME = "/grader"
ENTRYPOINT = f"{HOME}/entrypoint"  # where the Dockerfile puts it
MAX_TIMEOUT = 600  # PrairieLearn's largest timeout (seconds)
#: The namespace of the questions' uuids (a fixed, random one: never change it).
UUID_NAMESPACE = uuid.UUID("5b0f3c5e-6a77-4f0e-9d7a-2c9e1a4b8d10")
#: Where the question keeps the hidden reference (the entrypoint's $AUTOGRADER_HIDDEN is /grade/ + this).
HIDDEN = "tests/hidden/"
#: The hidden reference's modes on the instructor's disk: owner-only, like a batch's out/ (files
#: 0600, folders 0700): it holds the answers.
PRIVATE_FILE, PRIVATE_FOLDER = 0o600, 0o700
#: What marks a folder this build wrote (it may be replaced; anything else is refused).
MARKERS = {"question": "info.json", "image": "Dockerfile", "assessment": "infoAssessment.json", "analysis": "info.json"}


def default_image(lab: Lab) -> str:
    """The image's name when ``--image`` gives none (Lab 05: ``lab05-autograder:latest``); replace it
    with the image you push."""
    return f"{lab.slug}-autograder:latest"


def question_id(lab: Lab) -> str:
    """The question's id in the course: the folder it is copied to (Lab 05: ``questions/lab05/``)."""
    return lab.slug


def analysis_id(lab: Lab) -> str:
    """The written analysis's question (``grading.yml``'s ``analysis:``), graded by people (Lab 05:
    ``questions/lab05-analysis/``)."""
    return f"{lab.slug}-analysis"


def _uuid(lab: Lab, kind: str, title: str) -> str:
    """A uuid of ``lab``'s question or assessment of this ``kind`` ("": the code's question), derived
    from the rubric's title: the same for every build, so rebuilding keeps its identity (Lab 05's are
    those of the builds before its short name came from the lab)."""
    return str(uuid.uuid5(UUID_NAMESPACE, f"{lab.slug}-autograder/prairielearn/{kind}{title}"))


def question_uuid(lab: Lab, title: str) -> str:
    return _uuid(lab, "", title)


def info(rubric: rubrics.Rubric, image: str, lab: Lab) -> dict[str, Any]:  # JSON: info.json
    """``info.json``: ``lab``'s question, graded externally by ``image``."""
    return {
        "uuid": question_uuid(lab, rubric.title),
        "title": rubric.title,
        "topic": "Evaluating IR systems",
        "tags": [lab.slug, "code", "autograder"],
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": ENTRYPOINT,
            "timeout": int(min(rubric.limits.overall_seconds, MAX_TIMEOUT)),
            "enableNetworking": False,
        },
    }


def assessment(rubric: rubrics.Rubric, lab: Lab) -> dict[str, Any]:  # JSON
    """A sample ``infoAssessment.json``: a Homework whose one zone holds the question, worth the
    rubric's total (PrairieLearn scales the grader's score in [0, 1] by it; on a Homework the best
    submission counts). Its uuid is derived from the rubric's title, like the question's. It sets
    no dates: students see it once its Access page releases it. With ``attempts.per_period`` in the
    rubric, the question waits ``gradeRateMinutes`` between gradings (``attempts.grade_rate_minutes``:
    the period shared evenly, so 3 in 24 hours is one every 480 minutes)."""
    question: dict[str, Any] = {"id": question_id(lab), "autoPoints": rubric.total, "maxAutoPoints": rubric.total}
    rate = attempts.grade_rate_minutes(rubric.attempts)
    if rate:
        question["gradeRateMinutes"] = rate
    questions = [question]
    if rubric.analysis is not None:  # its own question: a missing or broken analysis never changes the code's points
        points = rubric.analysis  # the claims checked by the grader (autoPoints), the prose by people
        questions.append(
            {
                "id": analysis_id(lab),
                "autoPoints": points.claims_max,
                "maxAutoPoints": points.claims_max,
                "manualPoints": points.prose_points,
            }
        )
    return {
        "uuid": _uuid(lab, "assessment/", rubric.title),
        "type": "Homework",
        "title": rubric.title,
        "set": "Homework",
        "number": "5",
        "zones": [
            {
                "title": rubric.title,
                "questions": questions,
            }
        ],
    }


def notes(rubric: rubrics.Rubric) -> list[str]:
    """What of the rubric the build cannot carry over to PrairieLearn, in words for the instructor: the
    attempt limits as set, then every setting PrairieLearn cannot apply in full (``setting_support``)."""
    said = []
    limits = rubric.attempts
    if limits.per_period and limits.per_period > 1:
        said.append(
            f"attempts: PrairieLearn allows one grading every gradeRateMinutes, so {limits.per_period} in "
            f"{limits.period_hours:g} hours became one every {attempts.grade_rate_minutes(limits)} minutes "
            "(the same number in a period, never in a burst)"
        )
    if limits.total:
        said.append(
            f"attempts: PrairieLearn has no cap on a question's graded submissions in all: the total of "
            f"{limits.total} is not applied there (its Access page's end date is the nearest PrairieLearn setting)"
        )
    return said + setting_support.notes("prairielearn", setting_support.unset(rubric))


def analysis_info(
    rubric: rubrics.Rubric, image: str, lab: Lab
) -> dict[str, Any]:  # JSON: the analysis question's info.json
    """The written analysis's question: the upload of analysis.yml and analysis.md; its claims checked
    against the data by ``image`` (``analysis_entry``: no student code runs), its prose graded by people."""
    return {
        "uuid": _uuid(lab, "analysis/", rubric.title),
        "title": f"{rubric.title}: the written analysis",
        "topic": "Evaluating IR systems",
        "tags": [lab.slug, "analysis", "manual"],
        "type": "v3",
        "singleVariant": True,
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": ENTRYPOINT,
            "timeout": 60,
            "enableNetworking": False,
        },
    }


def analysis_data(
    rubric: rubrics.Rubric, lab: Lab
) -> dict[str, Any]:  # JSON: the analysis question's tests/analysis.json
    """What ``analysis_entry`` checks claims with: the analysis's points and the facts (Cranfield's
    qrels, Lab 04's runs as ranked, the measures' per-query values, the doc ids: public data)."""
    points = rubric.analysis
    bundle = lab.cranfield.bundle()
    systems = bundle.get("systems", {})
    return {
        "points": {} if points is None else dataclasses.asdict(points),
        "facts": {
            "qrels": bundle.get("qrels", {}),
            "titles": dict.fromkeys(bundle.get("titles", {}), ""),
            "systems": {
                name: {"rankings": system["rankings"], "values": system["values"]} for name, system in systems.items()
            },
        },
    }


def starter_rubric(rubric: rubrics.Rubric) -> str:
    """The analysis question's starter rubric (``rubric.md``), for PrairieLearn's manual grading page."""
    points = rubric.analysis
    if points is None:
        return ""
    lines = [
        f"# Starter rubric: {rubric.title}, the written analysis ({points.total:g} points)",
        "",
        "The grader checks the claims against the data (the question's autoPoints: each counted claim that",
        "holds, every fact of it); set the prose's items on its manual grading page (manualPoints), reading",
        "analysis.md beside the claims' results.",
        "",
    ]
    lines += [
        f"- (checked by the grader) Claim {number} holds against the data: {points.claim_points:g} points"
        for number in range(1, points.claims + 1)
    ]
    lines += [
        f"- The prose explains each difference from the rankings: up to {points.prose_points:g} points, e.g.",
        "  - names the relevant documents one system finds and the other misses",
        "  - connects them to the query's and the documents' words (punctuation, rare terms, length)",
        "  - connects the ranking behaviour to the measure's difference",
        "",
    ]
    return "\n".join(lines)


NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _uploaded(lab: Lab) -> dict[str, str]:
    """What ``question.html`` says of ``lab``'s graded files and its package (Lab 05: "two graded files,
    metrics.py and runs.py", the ones in ``lab05/``)."""
    named = [f"<code>{name}</code>" for name in lab.graded_files]
    if len(named) == 1:
        return {"files": f"graded file, {named[0]}", "which": "one", "package": lab.package}
    listed = ", ".join(named[:-1]) + " and " + named[-1]
    count = NUMBERS.get(len(named), str(len(named)))
    return {"files": f"{count} graded files, {listed}", "which": "ones", "package": lab.package}


def _template(name: str, **values: str) -> bytes:
    return string.Template((TEMPLATES / name).read_text(encoding="utf-8")).substitute(values).encode()


def entries(
    lab: Lab, image: str | None = None, rubric_path: Path | None = None
) -> dict[str, list[tuple[str, bytes, int]]]:
    """The files of each folder for ``lab``, ``{"question": [...], "image": [...], "assessment": [...]}``,
    for the rubric at ``rubric_path`` (by default the lab's grading.yml) and ``image`` (by default
    ``default_image(lab)``)."""
    image = default_image(lab) if image is None else image
    rubric_path = Path(rubric_path) if rubric_path is not None else lab.place.rubric
    loaded = rubrics.load(rubric_path, lab)
    if not image or any(c.isspace() for c in image):
        raise InputError(f"--image {image!r}: give an image name such as youruser/{lab.slug}-autograder:2026")
    question = [
        ("info.json", (json.dumps(info(loaded, image, lab), indent=2) + "\n").encode(), 0o644),
        ("question.html", _template("question.html", title=loaded.title, **_uploaded(lab)), 0o644),
        ("tests/grading.yml", rubric_path.read_bytes(), 0o644),
    ]
    hidden = shipment.hidden_entries(lab, rubric_path)
    question += [(f"{HIDDEN}{name}", data, PRIVATE_FILE) for name, data, _ in hidden]
    question += [(f"{HIDDEN}{shipment.CODE}{name}", data, PRIVATE_FILE) for name, data, _ in shipment.code_entries(lab)]
    built = [
        ("Dockerfile", (TEMPLATES / "Dockerfile").read_bytes(), 0o644),
        ("entrypoint", (TEMPLATES / "entrypoint").read_bytes(), 0o755),
    ]
    built += [(f"source/{name}", data, mode) for name, data, mode in shipment.engine_entries(lab)]
    sample = [("infoAssessment.json", (json.dumps(assessment(loaded, lab), indent=2) + "\n").encode(), 0o644)]
    parts = {"question": question, "image": built, "assessment": sample}
    if loaded.analysis is not None:
        parts["analysis"] = [
            ("info.json", (json.dumps(analysis_info(loaded, image, lab), indent=2) + "\n").encode(), 0o644),
            ("question.html", _template("analysis.html", title=loaded.title), 0o644),
            ("rubric.md", starter_rubric(loaded).encode(), 0o644),
            (
                "tests/analysis.json",
                json.dumps(analysis_data(loaded, lab), sort_keys=True, separators=(",", ":")).encode(),
                0o644,
            ),
        ]
    return parts


def _replace_folder(target: Path, files: list[tuple[str, bytes, int]], marker: str) -> Path:
    if target.exists() and any(target.iterdir()) and not (target / marker).is_file():
        raise InputError(f"{target} exists and is not a folder this build wrote (no {marker}): choose another --out")
    shutil.rmtree(target, ignore_errors=True)
    for name, data, mode in sorted(files):
        cache.write_atomic(target / name, data, mode=mode)
    return target


def build(out: Path, lab: Lab, image: str | None = None, rubric_path: Path | None = None) -> dict[str, Path]:
    """Write ``OUT/question/``, ``OUT/image/``, ``OUT/assessment/`` and, with ``grading.yml``'s
    ``analysis:``, ``OUT/analysis/`` (the written analysis's manually graded question; each replaced
    whole) for ``lab`` and the rubric at ``rubric_path`` (by default the lab's grading.yml); returns
    the folders."""
    built = entries(lab, image, rubric_path)
    folders = {part: _replace_folder(Path(out) / part, files, MARKERS[part]) for part, files in built.items()}
    hidden = folders["question"] / HIDDEN
    for folder in [hidden, *(path for path in hidden.rglob("*") if path.is_dir())]:
        folder.chmod(PRIVATE_FOLDER)
    return folders
