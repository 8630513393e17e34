"""No lab's name is a default of the engine: "lab05" appears in ``autograder/`` only on the lines
listed here, each a comment or docstring giving Lab 05 as an example, or a name an older setup
made that the engine still accepts, or a name left for a later change (each says why)."""

from __future__ import annotations

import pytest

from autograder import paths

NAME = "lab05"

#: (file under autograder/, the line stripped) -> why it may name Lab 05.
ALLOWED = {
    ("paths.py", '(Lab 05: ``lab05``; the lab\'s spec says the same, and a test checks it)."""'): "example",
    ("sandbox/leases.py", 'SANDBOX_USERS = (SANDBOX_USER, "lab05-student")'): "an older setup's account",
    ("sandbox/leases.py", 'OLD_FOLDER = Path("/run/lab05-sandbox-uids")'): "an older grader's leases, taken there too",
    (
        "sandbox/child/jail.py",
        "only the allowed packages: ``jail_hide``, ``jail_keep``), the submission's ``lab05`` package at",
    ): "example",
    (
        "sandbox/child/jail.py",
        '"""Enclose this process as ``config["isolation"]`` says; returns where ``lab05`` now is."""',
    ): "example",
    (
        "sandbox/child/harness.py",
        "applies resource limits, imports the submission's graded modules (``lab05.metrics`` and",
    ): "example",
    (
        "sandbox/child/harness.py",
        "``lab05.runs`` for Lab 05: the package and files the configuration names; the calls have not been",
    ): "example",
    (
        "sandbox/child/harness.py",
        "None: anything) and its own ``lab05``; never an evaluation library (``banned``: each attempt is",
    ): "example",
    (
        "labkit/lab.py",
        "text. Its package's name (Lab 05: the package ``lab05`` gives ``lab05``), the one place it is",
    ): "example",
    (
        "handout/stubs.py",
        "In the lab's ``solutions/PACKAGE/*.py`` (Lab 05: ``solutions/lab05/``) every line between",
    ): "example",
    ("handout/build.py", "(Lab 05: ``lab05-handout/``)."): "example",
    (
        "handout/build.py",
        "students who cannot download it: ``python -m lab05.data seed cranfield`` in the handout fills",
    ): "example",
    (
        "grading/intake.py",
        "``lab05/`` (or one folder deeper). Only those two files are read, never followed through a",
    ): "example",
    (
        "platforms/prairielearn/build.py",
        '"""The image\'s name when ``--image`` gives none (Lab 05: ``lab05-autograder:latest``); replace it',
    ): "example",
    (
        "platforms/prairielearn/build.py",
        '"""The question\'s id in the course: the folder it is copied to (Lab 05: ``questions/lab05/``)."""',
    ): "example",
    ("platforms/prairielearn/build.py", '``questions/lab05-analysis/``)."""'): "example",
    ("platforms/prairielearn/build.py", 'metrics.py and runs.py", the ones in ``lab05/``)."""'): "example",
    (
        "platforms/prairielearn/templates/Dockerfile",
        "# questions built before the grader's home was /grader name /lab05/entrypoint in their info.json:",
    ): "an older build's entrypoint",
    ("platforms/prairielearn/templates/Dockerfile", "RUN ln -s /grader /lab05"): "an older build's entrypoint",
    **{
        (script, line): "an older setup's account and child environment"
        for script in ("platforms/gradescope/templates/run_autograder", "platforms/prairielearn/templates/entrypoint")
        for line in (
            "# that a setup.sh of a version before made (the account lab05-student, /opt/lab05-child) keeps them.",
            'id -u "$SANDBOX_USER" >/dev/null 2>&1 || SANDBOX_USER=lab05-student',
            '[ -e "$CHILD_DEFAULT" ] || [ ! -e /opt/lab05-child/bin/python ] '
            "|| CHILD_DEFAULT=/opt/lab05-child/bin/python",
        )
    },
    # Left for a later change, each kept because changing it changes what users already have:
    (
        "reports/gradescope_json.py",
        'ATTEMPT = "lab05_attempt"  # the key of the marker in results.json\'s extra_data',
    ): ("left: results.json's key; Lab 05's results.json must stay byte-identical (derive it from Lab.slug)"),
    ("local/batch.py", 'grader=f"lab05-autograder {_version()}",'): "the distribution's name (pyproject.toml)",
    ("local/batch.py", 'return metadata.version("lab05-autograder")'): "the distribution's name (pyproject.toml)",
    ("local/shards.py", 'FORMAT = "lab05-shard/1"'): "left: the shard format; renaming it refuses shards in flight",
    ("local/shards.py", 'digest = hashlib.sha256(f"lab05-shard:{submission}".encode()).digest()'): (
        "left: which shard grades a submission; renaming it moves submissions between shards in flight"
    ),
    ("local/shards.py", 'return hashlib.sha256(b"lab05-shard-key:" + given.encode()).digest()'): (
        "left: the shards' signing key; renaming it refuses shards signed before"
    ),
    **{
        ("local/templates/entrypoint", line): "left: the local container's paths, set by the repository's Dockerfile"
        for line in (
            "# environment /opt/lab05-child (requirements/child.txt). Before it, Cranfield is seeded from /cranfield "
            "when that folder is mounted;",
            'REPO="$(setting REPO /lab05/repo)"',
            'PYTHON="$(setting PYTHON /lab05/venv/bin/python)"',
            'CHILD="$(setting CHILD_PYTHON /opt/lab05-child/bin/python)"',
        )
    },
}


def _unexplained(files: dict[str, str], allowed: dict[tuple[str, str], str]) -> list[str]:
    """The lines of ``files`` (path -> text) naming Lab 05 that ``allowed`` does not list, as "path:line: text"."""
    return [
        f"{path}:{number}: {line.strip()}"
        for path, text in sorted(files.items())
        for number, line in enumerate(text.splitlines(), start=1)
        if NAME in line and (path, line.strip()) not in allowed
    ]


def _engine_files() -> dict[str, str]:
    """Every text file of the engine (``autograder/``), by its path under it; the lab's own content
    (an old ``autograder/lab/`` left behind) and compiled files aside."""
    found = {}
    for path in sorted(paths.PACKAGE.rglob("*")):
        relative = path.relative_to(paths.PACKAGE)
        if not path.is_file() or "__pycache__" in relative.parts or relative.parts[0] == "lab":
            continue
        try:
            found[relative.as_posix()] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return found


PLANTED = {
    "a-default-in-code": ({"sandbox/x.py": 'NAME = "lab05"\n'}, ['sandbox/x.py:1: NAME = "lab05"']),
    "a-folder-in-a-script": ({"s.sh": "#!/bin/sh\nHOME=/lab05\n"}, ["s.sh:2: HOME=/lab05"]),
    "an-allowed-line": (
        {"paths.py": '    (Lab 05: ``lab05``; the lab\'s spec says the same, and a test checks it)."""\n'},
        [],
    ),
    "the-allowed-text-elsewhere": (
        {"cli.py": '(Lab 05: ``lab05``; the lab\'s spec says the same, and a test checks it)."""\n'},
        ['cli.py:1: (Lab 05: ``lab05``; the lab\'s spec says the same, and a test checks it)."""'],
    ),
    "another-lab": ({"x.py": 'NAME = "lab06"\n'}, []),
}


@pytest.mark.parametrize("files, found", PLANTED.values(), ids=PLANTED.keys())
def test_a_planted_lab_name_is_found(files: dict[str, str], found: list[str]) -> None:
    """Does the scan find "lab05" planted in code or a script, and pass only the listed lines, in
    their own file?"""
    assert _unexplained(files, ALLOWED) == found


def test_the_engine_names_lab05_only_on_the_listed_lines() -> None:
    """Does "lab05" appear in the engine (``autograder/``: code, scripts, templates) only on the lines
    ALLOWED lists, and is every listed line still there (a stale entry would hide a new one)?"""
    files = _engine_files()
    assert len(files) > 100
    assert _unexplained(files, ALLOWED) == []
    stale = [key for key in ALLOWED if key[1] not in {line.strip() for line in files.get(key[0], "").splitlines()}]
    assert stale == []
