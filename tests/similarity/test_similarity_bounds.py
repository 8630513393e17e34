"""The class report's code similarity on hostile files: bounded per file and per batch (size,
text, time), what it leaves out named in the report, run only where there is something to
compare, and without the plotting library its first version imported."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import rubric
from autograder.grading.results import Status, SubmissionResult
from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from autograder.local import classwork
from autograder.platforms.common import shipment
from autograder.reports import class_report
from autograder.similarity import compare as similarity
from autograder.similarity.compare import SimilaritySettings

HERE = Path(__file__).parents[1] / "fixtures" / "similarity"
LOOPS = {name: (HERE / "loop-style" / name).read_text(encoding="utf-8") for name in spec.GRADED_FILES}
COPY = {name: text.replace("total", "running").replace("hits", "found") for name, text in LOOPS.items()}
PARENTHESES = "x = " + "(" * (1 << 20)  # issue 17: one such file added 32 s to a batch


def _binary(seed: int) -> bytes:
    return random.Random(seed).randbytes(1 << 20)  # issue 17: two such files, 52 s and 400 MiB


def _class(**extra) -> dict:
    """The honest copy pair, and whatever files ``extra`` adds (submission -> {file: content})."""
    return {"copy": COPY, "loop-style": LOOPS, **extra}


def _left_out(found: similarity.Similarity) -> dict:
    return {(item.submission, item.file): item.reason for item in found.skipped}


HOSTILE = [
    (
        "a 1 MiB file of nested parentheses",
        {"parentheses": {"metrics.py": PARENTHESES}},
        {("parentheses", "metrics.py"): "1,048,580 characters, more than the 64,000 the analysis reads"},
    ),
    (
        "two 1 MiB binary files",
        {"binary-a": {"metrics.py": _binary(1)}, "binary-b": {"runs.py": _binary(2)}},
        {("binary-a", "metrics.py"): "not UTF-8 text", ("binary-b", "runs.py"): "not UTF-8 text"},
    ),
    (
        "a file of NUL characters",
        {"nul": {"metrics.py": "\0" * 1000}},
        {("nul", "metrics.py"): "not text (it holds NUL characters)"},
    ),
]


@pytest.mark.parametrize("extra, reasons", [row[1:] for row in HOSTILE], ids=[row[0] for row in HOSTILE])
def test_hostile_files_are_left_out_and_named_and_the_copy_still_found(extra, reasons):
    """Is a file too long to read, or not text, left out of the analysis (unread) with the reason,
    while the rest of the batch is compared as before?"""
    found = similarity.analyse(_class(**extra), lab=default_lab())
    left_out = _left_out(found)
    assert set(left_out) == set(reasons)
    for key, reason in reasons.items():
        assert reason in left_out[key]
    assert [(pair.a, pair.b) for pair in found.pairs] == [("copy", "loop-style")]


def test_a_file_slower_to_read_than_its_time_is_left_out(monkeypatch):
    """With no time for each file, is every file left out as too slow, and nothing compared?"""
    monkeypatch.setattr(similarity, "FILE_SECONDS", -1.0)
    found = similarity.analyse(_class(), lab=default_lab())
    assert set(_left_out(found)) == {(sid, name) for sid in ("copy", "loop-style") for name in spec.GRADED_FILES}
    assert all("reading it took more than -1 s" in reason for reason in _left_out(found).values())
    assert found.pairs == ()


def test_the_batch_stops_reading_when_its_time_runs_out(monkeypatch):
    """With no time for the batch, is every file left out for that reason?"""
    monkeypatch.setattr(similarity, "BATCH_SECONDS", -1.0)
    found = similarity.analyse(_class(), lab=default_lab())
    assert len(found.skipped) == 4 and all(
        "the batch's -1 s for reading files ran out" in s.reason for s in found.skipped
    )


@pytest.mark.parametrize("step", ["prepare", "tokenize"])
def test_reading_one_file_stops_at_its_deadline(step):
    """Do both steps of reading a file look at the clock while they work, and stop past the
    deadline (a long file of one-character tokens takes seconds to tokenize)?"""
    from autograder.similarity import fingerprints, kgrams

    code = "a + " * 30000
    passed = time.monotonic() - 1
    with pytest.raises(kgrams.TooSlow):
        if step == "prepare":
            fingerprints.prepare(code, deadline=passed)
        else:
            fingerprints.tokenize(fingerprints.prepare(code), deadline=passed)


def test_the_batch_reads_at_most_its_budget_of_characters_shortest_first(monkeypatch):
    """Past the batch's budget of characters, is the longest file left out, with the reason?"""
    sizes = sorted((len(text), sid, name) for sid, files in _class().items() for name, text in files.items())
    budget = sum(size for size, _, _ in sizes[:-1]) + 10  # all but the longest
    monkeypatch.setattr(similarity, "BATCH_CHARS", budget)
    found = similarity.analyse(_class(), lab=default_lab())
    reason = f"not read: the batch's files hold more than {budget:,} characters"
    assert _left_out(found) == {sizes[-1][1:]: reason}


def test_the_class_report_names_what_was_left_out(tmp_path):
    """Does the report's similarity section list each file left out, with its reason, escaped?"""
    name = "<b>evil</b>"
    found = similarity.analyse(
        _class(**{name: {"metrics.py": PARENTHESES}, "bin": {"runs.py": _binary(3)}}), lab=default_lab()
    )
    results = [SubmissionResult(sid, Status.GRADED) for sid in ("bin", "copy", "loop-style", name)]
    html = class_report.render(
        results,
        rubric.load(default_lab().place.rubric, default_lab()),
        {"similarity": "test"},
        found,
        lab=default_lab(),
    )
    assert "Left out of the comparison: 2 files" in html
    assert "&lt;b&gt;evil&lt;/b&gt;" in html and "<b>evil</b>" not in html
    assert "metrics.py: not compared: 1,048,580 characters" in html and "runs.py: not compared: not UTF-8 text" in html


def test_a_batch_of_one_runs_no_analysis():
    """With one submission there is nothing to compare: is the analysis not run, and said so?"""
    found, fact = classwork.similarity_of({"alone": LOOPS}, SimilaritySettings(), jobs=1, lab=default_lab())
    assert found is None and fact == "not run: a batch of one submission has nothing to compare"
    found, fact = classwork.similarity_of(
        {"copy": COPY, "loop-style": LOOPS}, SimilaritySettings(), jobs=1, lab=default_lab()
    )
    assert found is not None and "1 pair at or above 0.5 among 2 submissions" in fact


_IMPORTS = """
import json, sys
{setup}
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in {libraries!r} or name in {modules!r})))
"""
LIBRARIES = ("matplotlib", "copydetect", "pygments", "numpy")
ANALYSIS = ("autograder.similarity.compare", "autograder.similarity.fingerprints", "autograder.similarity.kgrams")
PLATFORMS = ("autograder.platforms.gradescope.entry", "autograder.platforms.prairielearn.entry")
RUNS = [
    (
        "the analysis of a batch",
        "from autograder.labkit import load\nfrom autograder.similarity import compare\n"
        "compare.analyse({'a': {'metrics.py': 'x = 1\\n' * 50}, 'b': {'metrics.py': 'y = 2\\n' * 50}}, "
        "lab=load.default())",
        {"matplotlib", "copydetect"},
        set(ANALYSIS),
    ),
    (
        "the platforms' entry points",
        "import autograder.platforms.gradescope.entry, autograder.platforms.prairielearn.entry, "
        "autograder.platforms.common.oneshot",
        set(LIBRARIES) | set(ANALYSIS),
        set(PLATFORMS),
    ),
]


@pytest.mark.parametrize("setup, banned, seen", [row[1:] for row in RUNS], ids=[row[0] for row in RUNS])
def test_no_plotting_library_and_no_similarity_where_it_is_not_used(setup, banned, seen):
    """Does the analysis import no plotting library (nor copydetect, whose detector imports one),
    and do the platforms' graders (one submission per run) import neither the analysis nor its
    libraries?"""
    code = _IMPORTS.format(setup=setup, libraries=LIBRARIES, modules=ANALYSIS + PLATFORMS)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=paths.ROOT)
    imported = {name.split(".")[0] if name.split(".")[0] in LIBRARIES else name for name in json.loads(done.stdout)}
    assert imported & banned == set()
    assert seen <= imported, "the modules run were not seen: the check would pass vacuously"


def test_the_platforms_graders_do_not_install_the_analysis():
    """Do the requirements autograder.zip and the PrairieLearn image install name none of the
    analysis' libraries?"""
    shipped = shipment.requirements().decode().lower()
    assert "pygments" not in shipped and "copydetect" not in shipped and "batch.txt" not in shipment.REQUIREMENT_FILES


def test_an_earlier_terms_submissions_are_known_sources(tmp_path):
    """Given a folder of an earlier term's submissions (``grade --known``), is a copy of one of them
    paired with it as ``known:<folder>/<submission>``, while an honest submission is paired with
    none of them, and is the folder read as ``grade`` reads a class?"""
    earlier = tmp_path / "term-2025"
    for name, text in LOOPS.items():
        (earlier / "alice" / spec.PACKAGE / name).parent.mkdir(parents=True, exist_ok=True)
        (earlier / "alice" / spec.PACKAGE / name).write_text(text, encoding="utf-8")
    arrays = {name: (HERE / "array-style" / name).read_text(encoding="utf-8") for name in spec.GRADED_FILES}
    found, _ = classwork.similarity_of(
        {"copy": COPY, "honest": arrays}, SimilaritySettings(), 1, known=(earlier,), lab=default_lab()
    )
    pairs = {(pair.a, pair.b) for pair in found.pairs}
    assert ("copy", "known:term-2025/alice") in pairs
    assert not any("honest" in pair and "known:term-2025/alice" in pair for pair in pairs)
    without, _ = classwork.similarity_of({"copy": COPY, "honest": arrays}, SimilaritySettings(), 1, lab=default_lab())
    assert not any("known:term-2025/alice" in pair for pair in {(p.a, p.b) for p in without.pairs})


def test_grade_and_merge_take_earlier_terms_folders():
    """Do ``grade`` and ``merge`` take ``--known FOLDER`` (repeated) for the similarity's known
    sources, and none by default?"""
    from autograder import cli

    parser = cli.build_parser()
    graded = parser.parse_args(["grade", "in", "--out", "o", "--known", "t1", "--known", "t2"])
    merged = parser.parse_args(["merge", "o", "s1", "s2", "--known", "t1"])
    assert graded.known == [Path("t1"), Path("t2")] and merged.known == [Path("t1")]
    assert parser.parse_args(["grade", "in", "--out", "o"]).known == []
