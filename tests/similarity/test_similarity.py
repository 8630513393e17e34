"""Code similarity in the class report: copies are flagged with their source whatever they are
disguised with; honest solutions, however alike their short loops, and the stubs are not; the
rubric's section; the report's section in Chromium; and nothing of it reaches a student."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading import rubric
from autograder.grading.results import Status, Student, SubmissionResult
from autograder.grading.rubric import RubricError
from autograder.lab import spec
from autograder.labkit import load
from autograder.labkit.load import default as default_lab
from autograder.reports import class_report
from autograder.similarity import compare as similarity
from autograder.similarity import fingerprints
from autograder.similarity.compare import SimilaritySettings
from tests.support import subs

HERE = Path(__file__).parents[1] / "fixtures" / "similarity"
DEFAULT = SimilaritySettings()
ALL_PAIRS = SimilaritySettings(threshold=0.01)  # every pair that shares anything, to read its score


def _files(folder: Path) -> dict[str, str]:
    return {name: (folder / name).read_text(encoding="utf-8") for name in spec.GRADED_FILES}


LOOPS = _files(HERE / "loop-style")
ARRAYS = _files(HERE / "array-style")
SOLUTION = _files(paths.SOLUTIONS / "lab05")
ADA = _files(paths.ROOT / "examples" / "submissions" / "ada-correct" / "lab05")
STUBS = _files(paths.HANDOUT / "lab05")

# What a student hiding a copy of loop-style might change: its own names (the API's stay)...
RENAMES = {
    "_check_positive": "_ensure_positive",
    "_number_relevant": "_relevant_count",
    "retrieved_docs": "got",
    "relevant_docs": "wanted",
    "seen": "union_size",
    "hits": "found",
    "total_relevant": "n_relevant",
    "total": "running",
    "result": "acc",
    "grade": "g",
    "value": "amount",
    "best_first": "ideal_docs",
    "actual": "mine",
    "rows": "pairs",
    "scores": "out",
    "count": "c",
    "character": "ch",
    "rank": "position",
    "doc": "d",
    "i": "j",
}


def _renamed(source: str) -> str:
    for old, new in RENAMES.items():
        source = re.sub(rf"\b{old}\b", new, source)
    return source


def _reordered(source: str) -> str:
    """The module's functions in the opposite order."""
    head, *functions = re.split(r"(?m)^(?=def )", source)
    return head + "".join(function.rstrip("\n") + "\n\n\n" for function in reversed(functions))


def _restyled(source: str) -> str:
    """No docstrings, other messages, comments and blank lines, other literals."""
    source = re.sub(r'\n    """.*?"""\n', "\n", source, flags=re.S)
    source = re.sub(r"raise ValueError\(.*\)\n", 'raise ValueError("invalid argument")  # checked first\n', source)
    source = source.replace("\n\n\n", "\n\n# ----\n\n").replace("0.0", "0.")
    return source.replace("        if judgments.get(", "        # relevant?\n        if judgments.get(")


def _hex_literals(source: str) -> str:
    """Every integer written in hexadecimal: the same numbers, other literals."""
    return re.sub(r"(?<![\w.])(\d+)(?![\w.])", lambda match: hex(int(match.group(1))), source)


def _defined(submission: Path) -> set[str]:
    """The functions a submission's graded files define."""
    texts = [path.read_text(encoding="utf-8") for path in submission.rglob("*.py")]
    return {node.name for text in texts for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}


def _copy(*disguises) -> dict[str, str]:
    copied = dict(LOOPS)
    for disguise in disguises:
        copied = {name: disguise(text) for name, text in copied.items()}
    return copied


def _pairs(batch: dict, settings: SimilaritySettings = DEFAULT) -> dict[tuple[str, str], similarity.Pair]:
    return {(pair.a, pair.b): pair for pair in similarity.analyse(batch, settings, lab=default_lab()).pairs}


LAB06 = paths.ROOT / "tests" / "fixtures" / "lab06"

#: id -> (the lab the analysis is told of, the files its pair of copies is matched on)
LABS = {
    "lab05": (load.default, ("metrics.py",)),
    "lab06": (lambda: load.load(LAB06), ("classify.py",)),
}


@pytest.mark.parametrize("lab_id", LABS)
def test_the_analysis_compares_the_graded_files_of_the_lab_it_is_given(lab_id):
    """Does ``analyse(..., lab=)`` compare that lab's graded files alone, whichever lab the
    environment chose (two copies of Lab 05's and of Lab 06's graded files)?"""
    loader, matched = LABS[lab_id]
    classify = (LAB06 / "solutions" / "lab06" / "classify.py").read_text(encoding="utf-8")
    batch = {sid: {"metrics.py": LOOPS["metrics.py"], "classify.py": classify} for sid in ("a", "b")}
    found = similarity.analyse(batch, ALL_PAIRS, lab=loader())
    assert [tuple(match.file for match in pair.files) for pair in found.pairs] == [matched]


def _line(files: dict, name: str, pattern: str) -> int:
    """The 1-based line of the first line of ``files[name]`` matching ``pattern``."""
    return next(n for n, line in enumerate(files[name].splitlines(), 1) if re.search(pattern, line))


# ---------------------------------------------------------------- copies, honest work, the stubs

DISGUISES = [
    ("renamed", (_renamed,)),
    ("reordered", (_reordered,)),
    ("renamed-and-reordered", (_renamed, _reordered)),
    ("restyled", (_restyled,)),
    ("other-literals", (_hex_literals,)),
    ("everything", (_renamed, _reordered, _restyled, _hex_literals)),
]


@pytest.mark.parametrize("disguises", [row[1] for row in DISGUISES], ids=[row[0] for row in DISGUISES])
def test_a_disguised_copy_is_flagged_with_its_source(disguises):
    """Is a copy of loop-style flagged with loop-style, and only with it, almost wholly matched,
    whatever names, order, comments, docstrings, messages and number literals it changed?"""
    found = _pairs({"copy": _copy(*disguises), "loop-style": LOOPS, "array-style": ARRAYS})
    assert list(found) == [("copy", "loop-style")]
    pair = found["copy", "loop-style"]
    assert pair.share_a >= 0.9 and pair.share_b >= 0.9 and pair.score == max(pair.share_a, pair.share_b)


def test_the_evidence_links_each_copied_function_to_its_original():
    """In the renamed and reordered copy, does the matched region holding a function's body lead
    to the region holding the same function's body in the original?"""
    copy = _copy(_renamed, _reordered)
    match = {m.file: m for m in _pairs({"copy": copy, "loop-style": LOOPS})["copy", "loop-style"].files}["metrics.py"]

    def region(regions, line):
        return next(index for index, (first, last) in enumerate(regions) if first <= line <= last)

    links = {j: i for i, j in match.links}
    checked = 0
    for pattern_original, pattern_copy in [
        (r"tp = tp \+ 1", r"tp = tp \+ 1"),
        (r"while i < k and i < len\(ranking\)", r"while j < k and j < len\(ranking\)"),
        (r"scores\[query_id\] = measure", r"out\[query_id\] = measure"),
        (r"rows\.sort\(\)", r"pairs\.sort\(\)"),
        (r"best_first\.sort", r"ideal_docs\.sort"),
        (r"value = 2\*\*grade - 1", r"amount = 2\*\*g - 1"),
    ]:
        in_copy = region(match.lines_a, _line(copy, "metrics.py", pattern_copy))
        in_original = region(match.lines_b, _line(LOOPS, "metrics.py", pattern_original))
        assert links[in_original] == in_copy, (pattern_original, match.links)
        checked += 1
    assert checked == 6


HONEST = [
    ("loops-vs-arrays", "loop-style", LOOPS, "array-style", ARRAYS),
    ("loops-vs-reference", "loop-style", LOOPS, "reference", SOLUTION),
    ("arrays-vs-reference", "array-style", ARRAYS, "reference", SOLUTION),
    ("loops-vs-ada", "loop-style", LOOPS, "ada", ADA),
    ("arrays-vs-ada", "array-style", ARRAYS, "ada", ADA),
    ("reference-vs-ada", "reference", SOLUTION, "ada", ADA),
]


@pytest.mark.parametrize("a, files_a, b, files_b", [row[1:] for row in HONEST], ids=[row[0] for row in HONEST])
def test_independent_correct_solutions_are_not_flagged(a, files_a, b, files_b):
    """Are two correct solutions written independently (loops, numpy arrays, the reference,
    Ada's) not flagged, with a score well below the threshold, although their short loops and
    checks are alike?"""
    assert _pairs({a: files_a, b: files_b}) == {}
    shared = _pairs({a: files_a, b: files_b}, ALL_PAIRS)
    score = shared[min(a, b), max(a, b)].score if shared else 0.0
    assert score < 0.6 * DEFAULT.threshold


def test_the_stubs_alone_share_nothing():
    """Do two untouched copies of the handout's stubs, and the stubs beside a solution, share no
    code at all (the handout's code is boilerplate, not evidence)?"""
    batch = {"stubs-1": STUBS, "stubs-2": dict(STUBS), "loop-style": LOOPS}
    assert _pairs(batch, ALL_PAIRS) == {}


def test_code_copied_from_the_handout_is_not_evidence():
    """Do two submissions that paste the given retrieval code into runs.py still share nothing?"""
    given = (paths.HANDOUT / "lab05" / "retrieval.py").read_text(encoding="utf-8")
    batch = {
        "a": {"metrics.py": LOOPS["metrics.py"], "runs.py": LOOPS["runs.py"] + "\n\n" + given},
        "b": {"metrics.py": ARRAYS["metrics.py"], "runs.py": ARRAYS["runs.py"] + "\n\n" + given},
    }
    assert _pairs(batch, SimilaritySettings(threshold=0.2)) == {}


def test_code_most_of_the_class_shares_is_common_not_evidence():
    """When more submissions than the common limit hold the same code (here array-style's), does
    it stop counting (as MOSS's -m), while a pair sharing the rest is still found?"""
    crowd = similarity.common_limit(13) + 2
    batch = {f"s{n:02d}": {"metrics.py": ARRAYS["metrics.py"] + _random_code(n)} for n in range(crowd)}
    batch["copy"] = {"metrics.py": _renamed(batch["s00"]["metrics.py"])}
    assert list(_pairs(batch)) == [("copy", "s00")]


def _random_code(seed: int, functions: int = 3) -> str:
    """A few functions of arithmetic nobody else writes."""
    rng = random.Random(seed)
    names = ["alpha", "beta", "gamma", "delta"]

    def expression(depth: int = 0) -> str:
        roll = rng.random()
        if depth > 1 or roll < 0.3:
            return rng.choice(names + ["1", "2.5"])
        if roll < 0.5:
            return f"{rng.choice(['abs', 'len', 'min', 'max', 'sum', 'sorted'])}({expression(depth + 1)})"
        if roll < 0.6:
            return f"{rng.choice(names)}[{expression(depth + 1)}]"
        return f"({expression(depth + 1)} {rng.choice(['+', '-', '*', '/', '//', '%'])} {expression(depth + 1)})"

    lines = []
    for number in range(functions):
        lines.append(f"\n\ndef f{seed}_{number}(alpha, beta):")
        for _ in range(6):
            roll = rng.random()
            if roll < 0.6:
                lines.append(f"    {rng.choice(names)} = {expression()}")
            elif roll < 0.8:
                lines += [f"    for gamma in {expression()}:", f"        delta = {expression()}"]
            else:
                lines += [f"    if {expression()} < {expression()}:", f"        return {expression()}"]
        lines.append(f"    return {expression()}")
    exported = ", ".join(f'"f{seed}_{number}"' for number in range(functions))
    return "\n".join(lines) + f"\n\n__all__ = [{exported}]\n"  # used: never left out as dead code


# ---------------------------------------------------------------- robustness and determinism

AWKWARD = [
    ("crlf-line-ends", lambda text: text.replace("\n", "\r\n")),
    ("leading-blank-lines-and-bom", lambda text: "\ufeff\n\n\n" + text),
    ("tabs", lambda text: text.replace("    ", "\t")),
    ("syntax-error", lambda text: text.replace("def accuracy(", "def accuracy((", 1)),
]


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("change", [row[1] for row in AWKWARD], ids=[row[0] for row in AWKWARD])
def test_awkward_files_are_compared_and_their_lines_kept(change):
    """Is a copy with CRLF line ends, a BOM and leading blank lines, tabs, or a syntax error still
    flagged, its regions on the lines of its own file?"""
    copy = {name: change(text) for name, text in _copy(_renamed).items()}
    pair = _pairs({"copy": copy, "loop-style": LOOPS})["copy", "loop-style"]
    # a file that does not parse is read as written, its original rewritten by ``canonical``
    # (a file that does not parse is read as written, while its original is rewritten by
    # ``canonical``: still flagged, with less of it matched)
    assert pair.score >= (0.9 if _parses(copy["metrics.py"]) else DEFAULT.threshold)
    lines = fingerprints.split_lines(copy["metrics.py"].replace("\r\n", "\n"))
    marked = [lines[n - 1] for first, last in pair.files[0].lines_a for n in range(first, last + 1)]
    expected = (
        "tp = tp + 1" if _parses(copy["metrics.py"]) else "fp = len("
    )  # (the loop is a sum in the original's form)
    assert any(expected in line for line in marked) and all('"""' not in line for line in marked)


def test_files_that_are_not_code_do_not_break_the_analysis():
    """Do empty files, binary garbage, a missing file and a huge line leave the batch's analysis
    standing (and flag nothing among themselves)?"""
    batch = {
        "empty": {"metrics.py": b"", "runs.py": b"   \n"},
        "garbage": {"metrics.py": bytes(range(256)) * 20},
        "runs-only": {"runs.py": LOOPS["runs.py"].encode()},
        "one-line": {"metrics.py": ("x = [" + "1, " * 20000 + "]\n").encode()},
        "unclosed": {"metrics.py": b'def f(:\n    """never closed\n    return 1\n'},
    }
    assert similarity.analyse(batch, lab=default_lab()).pairs == ()


def test_the_candidate_search_misses_nothing_the_full_comparison_finds():
    """On a batch of copies, partial copies and honest work, does comparing only the inverted
    index's candidates find exactly the pairs that comparing every pair finds?"""
    batch = {f"s{n:02d}": {"metrics.py": _random_code(n)} for n in range(14)}
    batch.update({"loop-style": LOOPS, "array-style": ARRAYS, "reference": SOLUTION, "ada": ADA})
    batch["copy"] = _copy(_renamed, _reordered)
    half = _reordered(LOOPS["metrics.py"]).split("\ndef ")
    batch["half-copy"] = {"metrics.py": "\ndef ".join(half[: len(half) // 2]) + "\n" + _random_code(99)}
    fast = similarity.analyse(batch, SimilaritySettings(threshold=0.3), lab=default_lab())
    full = similarity.analyse(batch, SimilaritySettings(threshold=0.3), exhaustive=True, lab=default_lab())
    assert fast.candidates < full.candidates
    assert [(p.a, p.b, round(p.score, 6)) for p in fast.pairs] == [(p.a, p.b, round(p.score, 6)) for p in full.pairs]
    assert {(p.a, p.b) for p in fast.pairs} >= {("copy", "loop-style"), ("half-copy", "loop-style")}


def test_tokenizing_in_forked_workers_gives_the_same_result(monkeypatch):
    """With the files read by forked workers, are the pairs, shares and regions the same as in
    one process?"""
    batch = {f"s{n:02d}": {"metrics.py": _random_code(n)} for n in range(6)}
    batch.update({"copy": _copy(_renamed, _reordered), "loop-style": LOOPS, "reference": SOLUTION, "ada": ADA})
    alone = similarity.analyse(batch, ALL_PAIRS, jobs=1, lab=default_lab())
    monkeypatch.setattr(similarity, "_TOKENIZE_IN_PARALLEL", 2)
    forked = similarity.analyse(batch, ALL_PAIRS, jobs=2, lab=default_lab())
    assert forked.pairs == alone.pairs and len(alone.pairs) >= 2


_SCRIPT = """
import json, sys
from autograder.similarity import compare as similarity
from autograder.labkit.load import default as default_lab
batch = json.load(sys.stdin)
result = similarity.analyse(batch, similarity.SimilaritySettings(threshold=0.01), lab=default_lab())
print(json.dumps([[p.a, p.b, round(p.share_a, 9), round(p.share_b, 9), [list(map(list, f.lines_a)) for f in p.files]]
                  for p in result.pairs]))
"""


def test_the_result_does_not_depend_on_the_process_hash_seed():
    """Run in two processes with different hash seeds (the hashes must not be Python's seeded
    hash()), is the result the same?"""
    batch = {"copy": _copy(_renamed, _reordered), "loop-style": LOOPS, "array-style": ARRAYS, "reference": SOLUTION}
    outputs = [
        subprocess.run(
            [sys.executable, "-c", _SCRIPT],
            input=json.dumps(batch),
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    ]
    assert outputs[0] == outputs[1] and len(json.loads(outputs[0])) >= 3


def test_the_honest_fixtures_are_correct_solutions(lab05):
    """Are loop-style and array-style correct (they must be honest work): do they agree with the
    reference on random inputs, ValueErrors included?"""
    rng = random.Random(14)
    modules = []
    for folder in ("loop-style", "array-style"):
        spec_ = importlib.util.spec_from_file_location(f"similarity_{folder}", HERE / folder / "metrics.py")
        module = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(module)
        modules.append(module)

    def call(function, *args, **kwargs):
        try:
            return function(*args, **kwargs)
        except ValueError:
            return "ValueError"

    checked = 0
    for _ in range(400):
        docs = [f"D{i}" for i in range(rng.randint(0, 10))]
        ranking = rng.sample(docs, rng.randint(0, len(docs)))
        judgments = {d: rng.choice([-1, 0, 1, 2, 3]) for d in rng.sample(docs, rng.randint(0, len(docs)))}
        k, rel, gain = rng.choice([1, 3, 10, 0, -2, True]), rng.choice([1, 2, 0]), rng.choice(["linear", "exp", "log"])
        size = rng.randint(0, 14)
        scores = [{q: rng.choice([0.1, 0.5, 0.9]) for q in rng.sample(["1", "2", "10", "9"], rng.randint(0, 4))}]
        scores.append({q: rng.choice([0.1, 0.5, 0.9]) for q in rng.sample(["1", "2", "10", "9"], rng.randint(0, 4))})
        calls = [
            ("confusion_matrix", (ranking, list(judgments), size), {}),
            ("accuracy", (ranking, list(judgments), size), {}),
            ("precision_at_k", (ranking, judgments, k), {"rel": rel}),
            ("recall_at_k", (ranking, judgments, k), {"rel": rel}),
            ("reciprocal_rank", (ranking, judgments), {"rel": rel}),
            ("average_precision", (ranking, judgments), {"rel": rel}),
            ("dcg_at_k", (ranking, judgments, k), {"gain": gain}),
            ("ndcg_at_k", (ranking, judgments, k), {"gain": gain}),
            ("largest_differences", tuple(scores), {"n": rng.choice([1, 2, 0])}),
            ("evaluate", ({"1": ranking}, {"1": judgments, "2": judgments}, lab05.metrics.average_precision), {}),
        ]
        for name, args, kwargs in calls:
            expected = call(getattr(lab05.metrics, name), *args, **kwargs)
            for module in modules:
                actual = call(getattr(module, name), *args, **kwargs)
                assert actual == pytest.approx(expected) if expected != "ValueError" else actual == expected, (
                    module.__name__,
                    name,
                    args,
                    kwargs,
                )
                checked += 1
    assert checked == 400 * 10 * 2


# ---------------------------------------------------------------- the rubric's section

SIMILARITY_ERRORS = [
    ("threshold-zero", "  threshold: 0\n", "similarity.threshold: must be a number above 0 and at most 1"),
    ("threshold-above-one", "  threshold: 1.5\n", "similarity.threshold: must be a number above 0 and at most 1"),
    ("threshold-text", "  threshold: high\n", "similarity.threshold: must be a number above 0 and at most 1"),
    ("threshold-bool", "  threshold: true\n", "similarity.threshold: must be a number above 0 and at most 1"),
    ("enabled-text", "  enabled: maybe\n", "similarity.enabled: must be true or false, got 'maybe'"),
    ("unknown-key", "  treshold: 0.5\n", "similarity.treshold: unknown key; the keys here are: enabled, threshold"),
]


def _with_similarity(section: str) -> str:
    text = paths.RUBRIC.read_text(encoding="utf-8")
    return re.sub(r"\nsimilarity:\n(  .*\n)*", "\nsimilarity:\n" + section, text)


@pytest.mark.parametrize("section, message", [r[1:] for r in SIMILARITY_ERRORS], ids=[r[0] for r in SIMILARITY_ERRORS])
def test_a_bad_similarity_section_is_an_error_naming_the_field(section, message):
    """Does each mistake in grading.yml's similarity section raise RubricError naming the field and the fix?"""
    with pytest.raises(RubricError) as raised:
        rubric.parse(_with_similarity(section), lab=default_lab())
    assert f"grading.yml: {message}" in str(raised.value)


def test_the_similarity_section_is_optional_and_can_turn_the_analysis_off():
    """Without the section, are the defaults used; can it turn the analysis off or set the threshold?"""
    without = re.sub(r"\nsimilarity:\n(  .*\n)*", "\n", paths.RUBRIC.read_text(encoding="utf-8"))
    assert "similarity:\n" not in without
    assert rubric.parse(without, lab=default_lab()).similarity == SimilaritySettings()
    assert rubric.parse(_with_similarity("  enabled: false\n"), lab=default_lab()).similarity == SimilaritySettings(
        enabled=False
    )
    assert rubric.parse(_with_similarity("  threshold: 0.8\n"), lab=default_lab()).similarity.threshold == 0.8


def test_changing_the_similarity_section_regrades_nothing():
    """Is the rubric's digest (which decides whether a stored grade stands) the same whatever the
    similarity section says, and different when a point changes?"""
    digest = rubric.load(default_lab().place.rubric, default_lab()).digest
    assert rubric.parse(_with_similarity("  enabled: false\n  threshold: 0.9\n"), lab=default_lab()).digest == digest
    changed = paths.RUBRIC.read_text(encoding="utf-8").replace("kind: edge, points: 3}", "kind: edge, points: 4}", 1)
    changed = changed.replace("total: 100", "total: 101")
    assert rubric.parse(changed, lab=default_lab()).digest != digest


# ---------------------------------------------------------------- the report

HOSTILE_NAME = 'x</pre><script>document.title="pwned"</script>'


def _report(tmp_path: Path, settings: SimilaritySettings = DEFAULT) -> tuple[Path, similarity.Similarity]:
    copy = _copy(_renamed, _reordered)
    copy["metrics.py"] = copy["metrics.py"].replace('"accuracy of an empty collection"', repr(HOSTILE_NAME))
    assert HOSTILE_NAME in copy["metrics.py"]
    batch = {"copy": copy, "loop-style": LOOPS, "array-style": ARRAYS}
    found = similarity.analyse(batch, settings, lab=default_lab())
    results = [
        SubmissionResult(sid, Status.GRADED, students=(Student(name=f"Student {sid}"),)) for sid in sorted(batch)
    ]
    loaded = rubric.load(default_lab().place.rubric, default_lab())
    html = class_report.render(results, loaded, {"similarity": "test"}, found, lab=default_lab())
    path = tmp_path / "index.html"
    path.write_text(html, encoding="utf-8")
    return path, found


def test_the_report_lists_the_pairs_and_escapes_student_code(tmp_path):
    """Does index.html hold the section with the flagged pair, both names and shares, a view of
    each graded file, the submissions' links to it, and the student's code escaped?"""
    path, found = _report(tmp_path)
    html = path.read_text(encoding="utf-8")
    pair = found.pairs[0]
    assert '<h2 id="similarity">Similar code</h2>' in html and "share much code; worth a look" in html
    assert f"{pair.share_a:.0%}" in html and "Student copy" in html and "Student loop-style" in html
    assert html.count('id="pair-1-view"') == 1 and html.count('href="#pair-1-view"') == 3  # the table and two rows
    assert "<script>document.title" not in html and "&lt;script&gt;document.title" in html


def test_the_report_says_when_the_analysis_is_off(tmp_path):
    """With similarity turned off in the rubric, does the section say so (and no pair appear)?"""
    loaded = rubric.parse(_with_similarity("  enabled: false\n"), lab=default_lab())
    html = class_report.render([SubmissionResult("a", Status.GRADED)], loaded, {}, None, lab=default_lab())
    assert "turned off (grading.yml: <code>similarity.enabled</code>)" in html and "pair-1" not in html


@pytest.mark.browser
@pytest.mark.slow
def test_the_similarity_section_in_a_real_browser(tmp_path, open_page):
    """In headless Chromium, does the section show the pair, its side-by-side view folded until a
    submission's row leads to it (the link unfolds it), with marked lines on both sides, and is there
    no console error?"""
    from selenium.webdriver.common.by import By

    path, found = _report(tmp_path)
    browser = open_page(path, "similarity-report.png", "#similarity")
    assert browser.title == "Lab 05 class report"
    rows = browser.find_elements(By.CSS_SELECTOR, "#similarity-pairs tbody tr")
    assert len(rows) == len(found.pairs) == 1
    assert "copy" in rows[0].text and "loop-style" in rows[0].text and f"{found.pairs[0].score:.0%}" in rows[0].text
    view = browser.find_element(By.ID, "pair-1-view")
    assert not view.is_displayed()  # folded in the section's <details> until asked
    similar = "td[last()-1]"  # the students table's "similar code" column (superseded submissions last)
    link = browser.find_element(By.XPATH, f"//table[@id='students']//tr[td/a[text()='loop-style']]/{similar}/a")
    link.click()
    assert browser.current_url.endswith("#pair-1-view") and view.is_displayed()
    sides = view.find_elements(By.CSS_SELECTOR, ".side")
    assert len(sides) == len(found.pairs[0].files) >= 1
    columns = sides[0].find_elements(By.CSS_SELECTOR, "pre.code")
    assert len(columns) == 2 and all(column.find_elements(By.TAG_NAME, "mark") for column in columns)
    left, right = columns[0].location, columns[1].location
    assert left["y"] == right["y"] and left["x"] < right["x"]  # side by side
    assert HOSTILE_NAME in columns[0].text  # shown as text, not run
    row = browser.find_element(By.XPATH, "//table[@id='students']//tr[td/a[text()='array-style']]")
    assert row.find_elements(By.XPATH, f"./{similar}/a") == []
    assert browser.execute_script("return document.title") == "Lab 05 class report"


# ---------------------------------------------------------------- the batch


@pytest.fixture(scope="module")
def graded(tmp_path_factory, cranfield):
    """A batch of three (a disguised copy of loop-style, loop-style, array-style) graded twice:
    the second run skips all three."""
    from autograder.local import batch

    folder = tmp_path_factory.mktemp("similarity")
    for name, files in {"copy": _copy(_renamed, _reordered), "loop-style": LOOPS, "array-style": ARRAYS}.items():
        subs.write(folder / "in" / name, files)
    first = batch.grade_batch([folder / "in"], folder / "out", jobs=2, progress=False, lab=default_lab())
    again = batch.grade_batch([folder / "in"], folder / "out", jobs=2, progress=False, lab=default_lab())
    return folder, first, again


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_batch_reports_the_copy_also_when_nothing_was_graded_again(graded):
    """Does the batch's report list the copy with its source, the first time and when every
    submission was skipped as already graded?"""
    folder, first, again = graded
    assert again.graded == 0 and again.skipped == 3
    for summary in (first, again):
        assert [(pair.a, pair.b) for pair in summary.similarity.pairs] == [("copy", "loop-style")]
    html = (folder / "out" / "index.html").read_text(encoding="utf-8")
    assert "1 pair at or above 0.5 among 3 submissions" in html and 'id="pair-1-view"' in html


@pytest.mark.sandbox
@pytest.mark.slow
def test_nothing_about_similarity_reaches_students_or_grades(graded):
    """Do results.json, the feedback pages, grade.json and grades.csv say nothing about similarity
    (no other submission's name, no share, no pair)?"""
    folder, first, _ = graded
    out = folder / "out"
    for result in first.results:
        others = [r.submission for r in first.results if r.submission != result.submission]
        for name in ("results.json", "feedback.md", "feedback.html", "grade.json"):
            text = (out / "submissions" / result.submission / name).read_text(encoding="utf-8").lower()
            assert "similar" not in text and "pair-" not in text, (result.submission, name)
            assert not any(other in text for other in others), (result.submission, name)
    grades = (out / "grades.csv").read_text(encoding="utf-8").lower()
    assert "similar" not in grades and "share" not in grades
    for result in first.results:  # honest work: full marks but for the functions its files lack
        functions = {check.function for check in result.checks}
        lost = {check.function for check in result.checks if not check.full}
        assert result.status == Status.GRADED and len(result.checks) == len(
            rubric.load(default_lab().place.rubric, default_lab()).checks
        )
        assert lost == functions - _defined(folder / "in" / result.submission), result.submission


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_batch_with_similarity_turned_off_runs_no_analysis(graded, tmp_path):
    """With similarity.enabled false, is there no analysis and does the report say it is off?"""
    from autograder.local import batch

    folder, _, _ = graded
    rubric_path = tmp_path / "grading.yml"
    rubric_path.write_text(_with_similarity("  enabled: false\n"), encoding="utf-8")
    summary = batch.grade_batch(
        [folder / "in"], tmp_path / "out", jobs=2, progress=False, rubric_path=rubric_path, lab=default_lab()
    )
    assert summary.similarity is None
    assert "The similarity analysis is turned off" in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
