"""Building what leaves this repository: Gradescope's ``autograder.zip`` and the students'
``handout.zip``. Both are reproducible: the same inputs give byte-identical zips (sorted
entries, fixed dates and modes).

``autograder.zip`` unpacks into ``/autograder/source``: ``setup.sh`` (creates the unprivileged
user student code runs as, installs, locks the grader's files away from that user),
``run_autograder`` (grades ``/autograder/submission`` into ``/autograder/results/results.json``
with this same engine), ``requirements.txt``, the engine with its hidden reference,
``grading.yml``, the handout's given files, the Cranfield files from the local ir_datasets
cache and the precomputed Cranfield bundle, so grading needs no download and no retrieval.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from importlib import metadata
from pathlib import Path

from autograder import cranfield, layout

EPOCH = (1980, 1, 1, 0, 0, 0)
EXCLUDED = ("__pycache__", ".OTTER_LOG", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis")
#: What the grader needs on Gradescope (not the notebook's or the tests' packages); Python >= 3.10.
RUNTIME_REQUIREMENTS = ("ir_measures==0.4.3", "pytrec_eval-terrier>=0.5.6", "ir_datasets>=0.5.5", "numpy>=1.24",
                        "scikit-learn>=1.2", "rank_bm25==0.2.2", "PyYAML>=6")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
SOURCE="${AUTOGRADER_ROOT:-/autograder}/source"
if [ -z "${LAB05_SKIP_INSTALL:-}" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip python3-numpy
  python3 -m venv "$SOURCE/venv"
  "$SOURCE/venv/bin/pip" install --quiet -r "$SOURCE/requirements.txt"
fi
# the unprivileged user student code runs as
id -u lab05-student >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lab05-student
# the grader, its hidden reference and its data: unreadable to that user
chmod -R go-rwx "$SOURCE"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grades /autograder/submission into
# /autograder/results/results.json with the Lab 05 engine (student code in a sandbox).
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
cd "$SOURCE"
export PYTHONPATH="$SOURCE" IR_DATASETS_HOME="$SOURCE/ir_datasets" LAB05_CACHE="$SOURCE/cache"
export LAB05_BUNDLE="$SOURCE/cranfield-bundle.json"
exec "${LAB05_PYTHON:-$SOURCE/venv/bin/python}" -m autograder gradescope --root "$ROOT" \\
  --uid "$(id -u lab05-student)" --child-python "${LAB05_CHILD_PYTHON:-/usr/bin/python3}" \\
  --isolation "${LAB05_ISOLATION:-auto}"
"""


def _files(folder: Path, prefix: str) -> list[tuple[str, bytes, int]]:
    entries = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not any(part in EXCLUDED for part in path.parts) and path.suffix != ".run":
            mode = 0o755 if os.access(path, os.X_OK) and path.suffix in ("", ".sh") else 0o644
            entries.append((f"{prefix}{path.relative_to(folder).as_posix()}", path.read_bytes(), mode))
    return entries


def write_zip(target: Path, entries) -> Path:
    """A reproducible zip: entries sorted by name, dated 1980-01-01, modes as given."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=9)
    os.replace(partial, target)
    return target


def build_autograder(target: Path) -> Path:
    from autograder.solution import load_lab05

    bundle = cranfield.bundle()
    cache = load_lab05().data.cache_dir()
    entries = [("setup.sh", SETUP_SH.encode(), 0o755), ("run_autograder", RUN_AUTOGRADER.encode(), 0o755),
               ("requirements.txt", "\n".join(RUNTIME_REQUIREMENTS).encode() + b"\n", 0o644),
               ("grading.yml", layout.RUBRIC.read_bytes(), 0o644),
               ("cranfield-bundle.json", json.dumps(bundle, sort_keys=True, separators=(",", ":")).encode(), 0o644)]
    entries += _files(layout.ROOT / "autograder", "autograder/")
    given = [*layout.GIVEN_FILES, *layout.GRADED_FILES]
    entries += [(f"assignment/lab05/{name}", layout.handout_file(name).read_bytes(), 0o644) for name in given]
    entries.append(("assignment/tests/public_cases.py", (layout.HANDOUT / "tests" / "public_cases.py").read_bytes(),
                    0o644))
    for name in ("docs.txt", "queries.txt", "qrels.txt"):
        entries.append((f"ir_datasets/cranfield/{name}", (cache / name).read_bytes(), 0o644))
    entries += _planned(entries, bundle)
    return write_zip(target, entries)


def _planned(entries, bundle) -> list:
    """The grading plan and its shared job, precomputed under the key run_autograder will look
    for (Gradescope starts every submission with an empty cache)."""
    import pickle

    from autograder import cache as caches
    from autograder import plan as planning
    from autograder import reference, rubric

    shipped = dict((name, data) for name, data, _ in entries)
    code = [data for name, data in sorted(shipped.items())
            if name.startswith("autograder/") and name.count("/") == 1 and name.endswith(".py")]
    stored = reference.load()
    loaded = rubric.parse(shipped["grading.yml"].decode(), "grading.yml")
    key = caches.fingerprint([loaded.digest, stored.get("digest", ""), caches.fingerprint([shipped["cranfield-bundle.json"]]),
                              *code, shipped["assignment/tests/public_cases.py"], metadata.version("ir_measures")])
    plan = planning.build(loaded, stored, bundle)
    plan.key = key
    return [(f"cache/plan-{key[:32]}.pickle", pickle.dumps(plan, protocol=4), 0o600),
            (f"cache/job-{key[:32]}.pickle", pickle.dumps(plan.shared_job, protocol=4), 0o600)]


def build_handout(target: Path) -> Path:
    """Exactly the students' folder (``assignment/``), under ``lab05-handout/``."""
    return write_zip(target, _files(layout.HANDOUT, "lab05-handout/"))


def build(out: Path) -> dict[str, Path]:
    out = Path(out)
    return {"autograder": build_autograder(out / "autograder.zip"), "handout": build_handout(out / "handout.zip")}
