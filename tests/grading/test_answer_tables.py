"""Answers without computation are flagged (``grading/integrity/answer_tables.py``): no honest graded file,
in any style, gets a flag; every table attack does, with evidence an instructor can judge in
seconds; the flag reaches grades.csv and the class report, never the student, and changes no score."""

from __future__ import annotations

import ast
import base64
import csv
import functools
import importlib.util
import json
import math
import random
import sys
import types
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from autograder import paths
from autograder.grading.integrity import answer_code, answer_tables
from autograder.grading.integrity.answer_tables import (
    CODE_NODES,
    COMPARISONS,
    CONSTANTS,
    LITERAL_CONSTANTS,
    PRECISE_NUMBERS,
    TABLE_DATA,
)
from autograder.grading.results import CheckResult, Flag, FlagKind, Status, SubmissionResult
from autograder.lab.spec import CheckKind
from autograder.labkit.load import default as default_lab
from autograder.reports import feedback_html, gradescope_json, markdown, prairielearn_json
from tests.lab import test_value_variants
from tests.support import answers_corpus, buggy, subs

CORPUS = Path(__file__).parents[1] / "fixtures" / "answer_tables"
HONEST = sorted((CORPUS / "honest").glob("*.py"))
ATTACK_FILES = sorted((CORPUS / "attacks").glob("*.py"))

#: The rules each attack of the corpus trips (all of them, no more: a rule that stops firing fails).
ATTACKS = {
    "big_int_metrics.py": {"decoded", "encoded", "keyed", "returned"},
    "call_order_metrics.py": {"keyed", "returned"},
    "class_oracle_metrics.py": {"keyed", "numbers", "returned"},
    "compressed_runs.py": {"decoded", "encoded"},
    "crc_keys_metrics.py": {"keyed", "numbers", "returned"},
    "decorator_lzma_metrics.py": {"decoded", "encoded", "keyed", "returned"},
    "docstring_table_metrics.py": {"keyed", "numbers", "returned"},
    "exec_compressed_metrics.py": {"decoded", "encoded"},
    "fake_memo_metrics.py": {"keyed"},
    "feature_chain_metrics.py": {"compared"},
    "feature_keys_metrics.py": {"constants", "literals", "numbers", "returned"},
    "fnv_hash_metrics.py": {"keyed", "numbers", "returned"},
    "frames_metrics.py": {"read"},
    "hex_marshal_metrics.py": {"decoded", "encoded", "keyed", "returned"},
    "if_chain_metrics.py": {"compared", "searched"},
    "linear_search_metrics.py": {"keyed", "returned", "searched"},
    "match_table_metrics.py": {"searched"},
    "md5_update_metrics.py": {"keyed", "returned"},
    "numpy_file_metrics.py": {"keyed", "read", "returned"},
    "part_keys_metrics.py": {"returned"},
    "pickle_blob_metrics.py": {"decoded", "encoded", "keyed", "returned"},
    "raw_search_metrics.py": {"returned", "searched"},
    "replay_runs.py": {"numbers"},
    "repr_keys_metrics.py": {"keyed", "returned"},
    "resources_metrics.py": {"decoded", "read", "returned"},
    "sha1_dict_metrics.py": {"keyed", "numbers", "returned"},
    "shelve_metrics.py": {"keyed", "read", "returned"},
    "sidecar_json_metrics.py": {"keyed", "read", "returned"},
    "split_literals_metrics.py": {"keyed", "numbers", "returned"},
    "sqlite_metrics.py": {"read", "returned"},
    "string_split_metrics.py": {"keyed", "numbers", "returned"},
}


def _repository_honest() -> dict[str, bytes]:
    """Every honest graded file the repository holds or its tests build: the solution, the
    examples but eve (she reads the grader's expected values), the similarity pair, the stubs,
    the buggy submissions (honest mistakes) and the answers of other types."""
    found = {f"solution-{name}": subs.SOLUTION[name].encode() for name in subs.SOLUTION}
    for path in sorted((paths.ROOT / "examples" / "submissions").glob("*/lab05/*.py")):
        if not path.parts[-3].startswith("eve"):
            found[f"example-{path.parts[-3]}-{path.name}"] = path.read_bytes()
    for path in sorted((Path(__file__).parents[1] / "fixtures" / "similarity").glob("*/*.py")):
        found[f"similarity-{path.parts[-2]}-{path.name}"] = path.read_bytes()
    for name in subs.SOLUTION:
        found[f"stub-{name}"] = paths.handout_file(name).read_bytes()
    for bug in buggy.BUGS:
        found[f"buggy-{bug.id}"] = subs.with_function(bug.file, bug.source).encode()
    for case_id, function, signature, returned, *imports in test_value_variants.VARIANTS:
        source = test_value_variants.wrap(function, signature, returned, *imports)
        found[f"variant-{case_id}"] = subs.with_function("metrics.py", source).encode()
    return found


REPOSITORY = _repository_honest()


@functools.cache
def _blind_honest() -> list[tuple[str, str]]:
    """The blind corpus's honest files (``tests/support/answers_corpus.py`` makes them: made once)."""
    return answers_corpus.honest()


def _rules(source: str | bytes) -> set[str]:
    return {
        finding.rule
        for finding in answer_tables.scan(
            source.encode() if isinstance(source, str) else source, functions=default_lab().functions
        )
    }


@pytest.mark.parametrize("name", sorted(REPOSITORY))
def test_honest_file_of_the_repository_has_no_evidence(name):
    """Does every honest graded file of the repository (solution, examples, stubs, buggy and
    value variants) go unflagged?"""
    assert answer_tables.scan(REPOSITORY[name], functions=default_lab().functions) == []


@pytest.mark.parametrize("path", HONEST, ids=[path.stem for path in HONEST])
def test_honest_file_in_any_style_has_no_evidence(path):
    """Does an honest file written in this style go unflagged?"""
    assert answer_tables.scan(path.read_bytes(), functions=default_lab().functions) == []


def test_every_mutant_of_the_solution_has_no_evidence():
    """Do the reference's single-operator mutants (tools/mutants.py: honest code with one slip)
    all go unflagged?"""
    from tools import mutants

    generated = [mutant for name in ("metrics.py", "runs.py") for mutant in mutants.generate(name)]
    flagged = [
        mutant.id
        for mutant in generated
        if answer_tables.scan(mutant.source.encode(), functions=default_lab().functions)
    ]
    assert len(generated) > 100 and flagged == []


def test_thresholds_are_twice_what_honest_files_reach():
    """Does every counted threshold stay at least twice the most any honest file reaches, so that
    an honest style a little heavier than ours still goes unflagged?"""
    sources = [*REPOSITORY.values(), *(path.read_bytes() for path in HONEST)]
    counts = [answer_tables.read(source, functions=default_lab().functions)[1] for source in sources]
    reached = {
        "literal_constants": (max(c.literal_constants for c in counts), LITERAL_CONSTANTS),
        "constants": (max(c.constants for c in counts), CONSTANTS),
        "numbers": (max(c.numbers for c in counts), PRECISE_NUMBERS),
        "compared": (max(c.compared for c in counts), COMPARISONS),
        "nodes": (max(c.nodes for c in counts), CODE_NODES),
    }
    assert all(0 < most <= threshold / 2 for most, threshold in reached.values()), reached


#: A file whose f1_score (a function of Lab 06, not of Lab 05) returns an entry of a table as it is.
LOOKED_UP = """ANSWERS = {("a", "b"): 0.5, ("c", "d"): 0.25}


def f1_score(predicted, actual):
    return ANSWERS[(predicted, actual)]
"""

#: id -> (the functions the lab grades, whether ``returned`` is found)
GRADED_BY = {
    "lab06's functions": (("f1_score", "majority_label"), True),
    "lab05's functions": (("precision_at_k", "dcg_at_k"), False),
}


@pytest.mark.parametrize("case_id", GRADED_BY)
def test_returned_is_found_in_the_functions_of_the_lab_given(case_id):
    """Is a table entry returned as it is evidence in a function the given lab grades, and not in a
    function it does not (the grader never calls it)?"""
    functions, found = GRADED_BY[case_id]
    rules = {rule for _, rule, _ in answer_code.read(ast.parse(LOOKED_UP), 0, functions).found}
    assert ("returned" in rules) == found and "keyed" in rules


def test_no_honest_function_returns_a_table_entry_as_it_is():
    """Does no function of any honest file we have (the repository's, ours, the blind corpus's)
    return an entry of a table as it is, whatever little data the table holds, so that
    ``returned`` stands on the principle and not on its threshold?"""
    sources = [*REPOSITORY.values(), *(path.read_bytes() for path in HONEST)]
    sources += [source.encode() for _, source in _blind_honest()]
    found = []
    for source in sources:
        try:
            tree, _ = answer_tables._imported(ast.parse(source))
        except SyntaxError:  # a buggy submission that does not parse: never read
            continue
        found += [
            text
            for _, rule, text in answer_code.read(tree, 0, functions=default_lab().functions).found
            if rule == "returned"
        ]
    assert len(sources) > 300 and found == []


def test_the_honest_corpus_is_large_and_varied():
    """Are there at least 15 honest files of our own, metrics and run writers both, and at least
    10 attacks, each with the rules it must trip?"""
    assert len(HONEST) >= 15
    assert len([p for p in HONEST if p.stem.endswith("_metrics")]) >= 10
    assert len([p for p in HONEST if p.stem.endswith("_runs")]) >= 5
    assert sorted(ATTACKS) == [path.name for path in ATTACK_FILES] and len(ATTACKS) >= 10


def _load(path: Path):
    """An honest corpus file as a module (our own code: it runs in the test's process)."""
    spec = importlib.util.spec_from_file_location(f"honest_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _same(got, want) -> bool:
    if isinstance(want, dict):
        return set(got) == set(want) and all(_same(got[key], want[key]) for key in want)
    if isinstance(want, (list, tuple)):
        return list(got) == list(want)
    return math.isclose(float(got), float(want), rel_tol=1e-9, abs_tol=1e-12)


def _calls(rng: random.Random, reference):
    documents = [f"D{i}" for i in range(rng.randint(0, 14))]
    ranking = rng.sample(documents, rng.randint(0, len(documents)))
    judged = rng.sample(documents, rng.randint(0, len(documents)))
    judgments = {doc: rng.choice([-1, 0, 1, 2, 3, 4]) for doc in judged}
    k, rel, gain = rng.randint(1, 12), rng.randint(1, 3), rng.choice(["linear", "exp"])
    scores = [{q: rng.choice([0.1, 0.5, 0.9]) for q in rng.sample(["1", "2", "3", "10", "9"], 4)} for _ in "ab"]
    return [
        ("precision_at_k", (ranking, judgments, k, rel)),
        ("recall_at_k", (ranking, judgments, k, rel)),
        ("reciprocal_rank", (ranking, judgments, rel)),
        ("average_precision", (ranking, judgments, rel)),
        ("dcg_at_k", (ranking, judgments, k, gain)),
        ("ndcg_at_k", (ranking, judgments, k, gain)),
        ("confusion_matrix", (ranking, judged, 30)),
        ("accuracy", (ranking, judged, 30)),
        ("evaluate", ({"1": ranking, "3": ranking[:2]}, {"1": judgments, "2": judgments}, partial(reference, k=3))),
        ("largest_differences", (*scores, rng.randint(1, 5))),
    ]


INVALID = [
    ("precision_at_k", (["a"], {}, 0)),
    ("precision_at_k", (["a"], {}, True)),
    ("recall_at_k", (["a"], {}, 2, 0)),
    ("reciprocal_rank", (["a"], {}, -1)),
    ("average_precision", (["a"], {}, 0)),
    ("dcg_at_k", (["a"], {}, 3, "cubic")),
    ("ndcg_at_k", (["a"], {}, 3, "cubic")),
    ("confusion_matrix", (["a", "b"], ["c"], 2)),
    ("accuracy", ([], [], 0)),
    ("largest_differences", ({}, {}, 0)),
]
HONEST_METRICS = [path for path in HONEST if path.stem.endswith("_metrics")]
HONEST_RUNS = [path for path in HONEST if path.stem.endswith("_runs")]


@pytest.mark.parametrize("path", HONEST_METRICS, ids=[path.stem for path in HONEST_METRICS])
def test_honest_metrics_file_agrees_with_the_reference(path, lab05):
    """Is the honest file honest: the reference's answers on 200 random calls per function, and a
    ValueError where the API wants one?"""
    module, rng = _load(path), random.Random(path.stem)
    for _ in range(200):
        for function, arguments in _calls(rng, lab05.metrics.precision_at_k):
            want, got = getattr(lab05.metrics, function)(*arguments), getattr(module, function)(*arguments)
            assert _same(got, want), f"{path.name}: {function}{arguments} = {got!r}, the reference says {want!r}"
    for function, arguments in INVALID:
        with pytest.raises(ValueError):
            getattr(module, function)(*arguments)


def _search(text, k):
    return [(f"d{i}", "a title", 1 / (i + 1) + len(text)) for i in range(len(text) % 7 + 3)]


@pytest.mark.parametrize("path", HONEST_RUNS, ids=[path.stem for path in HONEST_RUNS])
def test_honest_run_writer_agrees_with_the_reference(path, lab05, tmp_path):
    """Does the honest run writer write the reference's bytes, and refuse a bad k or system name?"""
    module = _load(path)
    queries = [types.SimpleNamespace(query_id=str(i), text="q" * i) for i in range(1, 9)]
    lab05.runs.write_run(tmp_path / "want", "sys", _search, queries, k=5)
    module.write_run(tmp_path / "got", "sys", _search, queries, k=5)
    assert (tmp_path / "got").read_bytes() == (tmp_path / "want").read_bytes()
    for name, k in (("two words", 5), ("", 5), ("sys", 0)):
        with pytest.raises(ValueError):
            module.write_run(tmp_path / "bad", name, _search, queries, k=k)


#: The blind corpus (``tests/support/answers_corpus.py``, written without reading the scan): the share of
#: its lookup files and of its mixed files (the notes' examples as a table, the rest computed)
#: the scan must flag at least. Measured on it: all of them.
LOOKUP_FLAGGED = 1.0
MIXED_FLAGGED = 1.0


def _flagged(files: list[tuple[str, str]]) -> dict[str, str]:
    """The files with evidence, each with the evidence as the instructor reads it."""
    return {
        name: answer_tables.evidence(found)
        for name, source in files
        if (found := answer_tables.scan(source.encode(), functions=default_lab().functions))
    }


def test_no_honest_file_of_the_blind_corpus_is_flagged():
    """Does none of the blind corpus's honest files (bases in many styles, each with students'
    habits: discount tables, debug counters, self-tests, doctests, introspection, sqlite3...) get
    the flag? A failure names each file flagged and the evidence found in it."""
    honest = _blind_honest()
    assert len(honest) >= 200
    assert _flagged(honest) == {}


@pytest.mark.parametrize(
    "kind, files, floor",
    [("lookup", answers_corpus.lookup(), LOOKUP_FLAGGED), ("mixed", answers_corpus.mixed(), MIXED_FLAGGED)],
    ids=["lookup", "mixed"],
)
def test_the_blind_corpus_lookup_files_are_flagged(kind, files, floor):
    """Does the scan flag at least the measured share of the blind corpus's files that look their
    answers up (however their tables are stored and keyed)? A failure names the files missed."""
    flagged = _flagged(files)
    missed = sorted(name for name, _ in files if name not in flagged)
    assert len(files) >= 5 and len(flagged) >= floor * len(files), f"{kind} files not flagged: {missed}"


@pytest.mark.parametrize("path", ATTACK_FILES, ids=[path.stem for path in ATTACK_FILES])
def test_table_attack_is_flagged_by_its_rules(path):
    """Does the scan find this way of answering from a table, by exactly the rules expected?"""
    assert _rules(path.read_bytes()) == ATTACKS[path.name]


@dataclass(frozen=True)
class Worked:
    id: str
    source: str
    rules: frozenset  # the rules that must fire; empty: no evidence


def worked(id, source, *rules):
    return Worked(id, source, frozenset(rules))


def _dict_of(constants: int) -> str:
    return "T = {" + ", ".join(f"'k{i}': {i}" for i in range(constants // 2)) + "}\n"


def _table_of(constants: int) -> str:
    """A module table ``T`` holding ``constants`` constants (keys and values, then one more key)."""
    return (
        "T = {"
        + ", ".join(f"'k{i}': {i}" for i in range(constants // 2))
        + (", 'last': None" * (constants % 2))
        + "}\n"
    )


WORKED = [
    # the counted rules at their thresholds
    worked("literals-at-threshold", _dict_of(LITERAL_CONSTANTS), "literals"),
    worked("literals-below", _dict_of(LITERAL_CONSTANTS - 2)),
    worked(
        "literals-split-in-small-ones",
        "".join(f"T{i} = ('k{i}', {i})\n" for i in range(LITERAL_CONSTANTS // 2)),
        "literals",
    ),
    worked("constants-at-threshold", "".join(f"add('k{i}')\n" for i in range(CONSTANTS)), "constants"),
    worked("constants-below", "".join(f"add('k{i}')\n" for i in range(CONSTANTS - 1))),
    worked("numbers-at-threshold", "".join(f"x = {(i + 1) / 997!r}\n" for i in range(PRECISE_NUMBERS)), "numbers"),
    worked("numbers-below", "".join(f"x = {(i + 1) / 997!r}\n" for i in range(PRECISE_NUMBERS - 1))),
    worked(
        "numbers-in-a-string",
        "S = '''" + " ".join(f"{(i + 1) / 997}" for i in range(PRECISE_NUMBERS)) + "'''\n",
        "numbers",
    ),
    worked("round-numbers-are-not-answers", "".join(f"x = {v}\n" for v in [0.5, 1e-6, 100, 1400, 0.25] * 40)),
    worked(
        "compared-at-threshold",
        "def f(k):\n" + "".join(f"    if k == {i + 2}:\n        return {i}\n" for i in range(COMPARISONS)),
        "compared",
    ),
    worked(
        "compared-below",
        "def f(k):\n" + "".join(f"    if k == {i + 2}:\n        return 1\n" for i in range(COMPARISONS - 1)),
    ),
    # encoded strings
    worked("base64-string", f"B = {base64.b64encode(bytes(range(240))).decode()!r}\n", "encoded"),
    worked("hex-string", "H = '" + "0f1e2d3c4b5a6978" * 20 + "'\n", "encoded"),
    worked("bytes", "B = " + repr(bytes(range(256))) + "\n", "encoded"),
    worked("big-integer", "N = " + "9" * 60 + "\n", "encoded"),
    worked(
        "prose-is-not-encoded", "'''" + "The ranking is good when the relevant documents come first. " * 40 + "'''\n"
    ),
    # keys made of the arguments
    worked(
        "hashlib-of-the-arguments",
        "import hashlib\nT = {}\ndef f(ranking, k):\n    return T[hashlib.sha1(repr(ranking).encode()).hexdigest()]\n",
        "keyed",
    ),
    worked("repr-of-two-arguments", "T = {}\ndef f(ranking, k):\n    return T[repr((ranking, k))]\n", "keyed"),
    worked("f-string-of-two-arguments", "T = {}\ndef f(ranking, k):\n    return T.get(f'{ranking}/{k}')\n", "keyed"),
    worked("tuple-of-the-arguments", "T = {}\ndef f(ranking, k):\n    return T[(tuple(ranking), k)]\n", "keyed"),
    worked(
        "in-a-literal",
        "def f(ranking, k):\n    return (tuple(ranking), k) in {(('a',), 1): 1, (('b',), 2): 0}\n",
        "keyed",
    ),
    worked("a-key-maker", "T = {}\ndef key(*a):\n    return repr(a)\ndef f(r, j):\n    return T[key(r, j)]\n", "keyed"),
    worked(
        "count-of-the-calls", "A = [0.3]\nN = 0\ndef f(r, k):\n    global N\n    N += 1\n    return A[N]\n", "keyed"
    ),
    worked(
        "a-class-table",
        "class O:\n    t = {}\n    def __call__(self, *args):\n        return self.t[str(args)]\n",
        "keyed",
    ),
    worked(
        "hash-compared-with-a-constant",
        "def f(r, k):\n    return 0.5 if hash((tuple(r), k)) == 123 else 0.1\n",
        "keyed",
    ),
    worked(
        "searched-in-a-loop",
        "T = [(('a',), 0.5)]\ndef f(r):\n    for rr, v in T:\n        if r == rr:\n            return v\n",
        "searched",
    ),
    worked("compared-with-a-literal-list", "def f(r):\n    if r == ['a', 'b']:\n        return 0.5\n", "searched"),
    worked(
        "matched-against-a-record",
        "def f(r, k):\n    match (r, k):\n        case (('a', 'b'), 3):\n            return 0.5\n",
        "searched",
    ),
    # decoding and reading
    worked("exec-of-a-string", "exec('x = 1')\n", "decoded"),
    worked("pickle-at-import", "import pickle\nT = pickle.loads(b'')\n", "decoded"),
    worked("json-of-a-literal", "import json\nT = json.loads('{}')\n", "decoded"),
    worked("codecs-in-a-function", "import codecs\ndef f(r):\n    return codecs.decode(S, 'rot13')\n", "decoded"),
    worked("open-for-reading", "T = open('answers.txt').read()\n", "read"),
    worked("path-read-text", "from pathlib import Path\nT = Path(__file__).with_name('a.json').read_text()\n", "read"),
    worked("numpy-load", "import numpy as np\nT = np.load('a.npy')\n", "read"),
    worked("network", "import urllib.request\nT = urllib.request.urlopen('http://x').read()\n", "read"),
    worked("caller-frames", "import sys\ndef f(r):\n    return sys._getframe(1).f_locals\n", "read"),
    worked("nested-too-deeply", "def f(a):\n    return " + "+".join(["a"] * 700) + "\n", "unread"),
    # honest code that looks alike
    worked("option-lookup", "G = {'linear': 1}\ndef f(r, gain):\n    return G[str(gain).lower()]\n"),
    worked(
        "table-of-ranks",
        "L = [1.0] * 1000\ndef f(ranking, k):\n    return sum(L[i] for i, d in enumerate(ranking[:k]))\n",
    ),
    worked(
        "memo-by-repr",
        "C = {}\ndef f(r, k):\n    key = repr((r, k))\n    if key not in C:\n"
        "        C[key] = len(r) / k\n    return C[key]\n",
    ),
    worked(
        "memo-by-hashlib",
        "import hashlib\nC = {}\ndef f(r, k):\n    h = hashlib.md5(repr((r, k)).encode()).hexdigest()\n"
        "    return C.setdefault(h, len(r) / k)\n",
    ),
    worked(
        "memo-that-starts-full",
        "C = {'x': 0.5}\ndef f(r, k):\n    key = repr((r, k))\n    C.setdefault(key, 0.0)\n    return C[key]\n",
        "keyed",
    ),
    worked(
        "memo-filled-at-import",
        "C = {}\nC['x'] = 0.5\ndef f(r, k):\n    key = repr((r, k))\n    C.setdefault(key, 0.0)\n    return C[key]\n",
        "keyed",
    ),
    worked(
        "memo-in-an-instance",
        "class M:\n    def __init__(self):\n        self.cache = {}\n    def __call__(self, r, k):\n"
        "        key = (tuple(r), k)\n        if key not in self.cache:\n            self.cache[key] = len(r) / k\n"
        "        return self.cache[key]\n",
    ),
    worked("lru-cache", "import functools\n@functools.lru_cache\ndef f(r, k):\n    return len(r) / k\n"),
    worked("hash-in-__hash__", "class C:\n    def __hash__(self):\n        return hash((self.a, self.b))\n"),
    worked("error-message", "def f(r, k):\n    if k < 1:\n        raise ValueError(f'k={k!r}, ranking={r!r}')\n"),
    worked("write-then-read-back", "def w(path, s):\n    open(path, 'w').write(s)\n    return open(path).read()\n"),
    worked("re-compile", "import re\nP = re.compile('[a-z]+')\n"),
    worked("gain-membership", "def f(gain):\n    if gain not in ('linear', 'exp'):\n        raise ValueError(gain)\n"),
    # an entry of a table of data returned as it is, however the key is made (issue 29)
    worked(
        "keyed-by-parts",
        _table_of(TABLE_DATA) + "def precision_at_k(ranking, judgments, k, rel=1):\n"
        "    return T[ranking[0] + ':' + str(len(judgments))]\n",
        "returned",
    ),
    worked(
        "below-the-data-of-a-table",
        _table_of(TABLE_DATA - 1) + "def precision_at_k(ranking, judgments, k, rel=1):\n"
        "    return T[ranking[0] + ':' + str(len(judgments))]\n",
    ),
    worked(
        "looked-up-with-a-computed-fallback",
        _table_of(TABLE_DATA) + "def recall_at_k(ranking, judgments, k, rel=1):\n"
        "    found = T.get(ranking[0])\n    if found is not None:\n        return float(found)\n"
        "    return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / max(len(judgments), 1)\n",
        "returned",
    ),
    worked(
        "found-by-iterating-the-table",
        _table_of(TABLE_DATA) + "def average_precision(ranking, judgments, rel=1):\n"
        "    for first, value in T.items():\n        if first == ranking[0]:\n            return value\n",
        "returned",
    ),
    worked(
        "through-a-helper-and-a-closure",
        _table_of(TABLE_DATA) + "def _find(name, args):\n    return T.get(name + str(len(args[0])))\n"
        "def _answering(name):\n    def answer(*args):\n        return _find(name, args)\n    return answer\n"
        "precision_at_k = _answering('p')\n",
        "returned",
    ),
    worked(
        "a-string-unpacked-at-import",
        "S = " + repr("ab:cd " * (TABLE_DATA * 3)) + "\nT = {}\nfor w in S.split():\n"
        "    T[w.split(':')[0]] = w.split(':')[1]\ndef ndcg_at_k(ranking, judgments, k, gain='linear'):\n"
        "    return T[ranking[0]]\n",
        "returned",
    ),
    worked(
        "an-in-memory-database-filled-at-import",
        "import sqlite3\nDB = sqlite3.connect(':memory:')\nDB.executescript('CREATE TABLE t (k, v); "
        + "INSERT INTO t VALUES (1, 2); " * TABLE_DATA
        + "')\ndef precision_at_k(ranking, judgments, k, rel=1):\n"
        "    return DB.execute('SELECT v FROM t WHERE k = ?', (ranking[0],)).fetchone()[0]\n",
        "returned",
    ),
    worked(
        "a-table-of-tables",
        _table_of(TABLE_DATA).replace("T = ", "U = ") + "T = {'p': U}\n"
        "def precision_at_k(ranking, judgments, k, rel=1):\n    return T.get('p', {}).get(ranking[0], 0.0)\n",
        "returned",
    ),
    worked(
        "a-table-written-in-the-function",
        "def precision_at_k(ranking, judgments, k, rel=1):\n    answers = {"
        + ", ".join(f"('d{i}', 3): {i}" for i in range(TABLE_DATA // 3 + 1))
        + "}\n    return answers.get((ranking[0], k), 0.0)\n",
        "returned",
    ),
    worked(
        "stored-functions-called-with-nothing-of-the-arguments",
        "T = {" + ", ".join(f"'k{i}': lambda: {i}" for i in range(TABLE_DATA)) + "}\n"
        "def precision_at_k(ranking, judgments, k, rel=1):\n    return T[ranking[0]]()\n",
        "returned",
    ),
    worked(
        "lines-of-a-string-searched",
        "S = " + repr("\n".join(f"d{i} {i}" for i in range(4 * TABLE_DATA))) + "\n"
        "def precision_at_k(ranking, judgments, k, rel=1):\n    for line in S.splitlines():\n"
        "        key, value = line.split()\n        if key == ranking[0]:\n            return float(value)\n",
        "returned",
    ),
    worked(
        "a-table-handed-in-as-a-default",
        _table_of(TABLE_DATA) + "def precision_at_k(ranking, judgments, k, rel=1, _t=T):\n    return _t[ranking[0]]\n",
        "returned",
    ),
    worked(
        "a-table-loaded-into-a-default",
        "S = "
        + repr("ab:cd " * (4 * TABLE_DATA))
        + "\ndef _load():\n    return dict(w.split(':') for w in S.split())\n"
        "def precision_at_k(ranking, judgments, k, rel=1, *, _t=_load()):\n    return _t.get(ranking[0])\n",
        "returned",
    ),
    worked(
        "attributes-of-a-class-named-by-the-arguments",
        "class _A:\n"
        + "".join(f"    d{i} = {i}\n" for i in range(TABLE_DATA))
        + "def precision_at_k(ranking, judgments, k, rel=1):\n    return getattr(_A, ranking[0], 0.0)\n",
        "returned",
    ),
    worked(
        "the-module-s-names-named-by-the-arguments",
        "".join(f"p_d{i} = {i}\n" for i in range(TABLE_DATA))
        + "def precision_at_k(ranking, judgments, k, rel=1):\n    return globals()['p_' + ranking[0]]\n",
        "returned",
    ),
    # honest code that looks alike: computed tables, arithmetic over the arguments, helpers
    worked(
        "a-function-called-by-its-name",
        "".join(f"X{i} = {i}\n" for i in range(TABLE_DATA)) + "def _p(r, j, k):\n    return len(r) / k\n"
        "def precision_at_k(ranking, judgments, k, rel=1):\n    return globals()['_p'](ranking, judgments, k)\n",
    ),
    worked(
        "a-memo-in-a-mutable-default",
        "def precision_at_k(ranking, judgments, k, rel=1, _cache={}):\n    key = (tuple(ranking), k, rel)\n"
        "    if key not in _cache:\n"
        "        _cache[key] = sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / k\n"
        "    return _cache[key]\n",
    ),
    worked(
        "a-gain-table-written-in-the-function",
        "def dcg_at_k(ranking, judgments, k, gain='linear'):\n    exp = {"
        + ", ".join(f"{g}: {2**g - 1}" for g in range(TABLE_DATA))
        + "}\n    return sum(exp.get(judgments.get(d, 0), 0) / (i + 1) for i, d in enumerate(ranking[:k]))\n",
    ),
    worked(
        "numpy-dot-with-a-written-out-table",
        "import numpy as np\nD = np.array([" + "0.125, " * (2 * TABLE_DATA) + "])\n"
        "def dcg_at_k(ranking, judgments, k, gain='linear'):\n"
        "    gains = np.array([judgments.get(d, 0) for d in ranking[:k]], dtype=float)\n"
        "    return float(np.dot(gains, D[: len(gains)]))\n",
    ),
    worked(
        "a-database-evaluate-fills-and-reads",
        "import sqlite3\nDB = sqlite3.connect(':memory:')\nDB.execute('CREATE TABLE s (q TEXT, v REAL)')\n"
        "def evaluate(run, qrels, measure):\n    DB.execute('DELETE FROM s')\n    for q, j in qrels.items():\n"
        "        DB.execute('INSERT INTO s VALUES (?, ?)', (q, measure(run.get(q, []), j)))\n"
        "    return {q: DB.execute('SELECT v FROM s WHERE q = ?', (q,)).fetchone()[0] for q in qrels}\n",
    ),
    worked(
        "a-computed-table-returned",
        "INVERSE = [0.0] + [1 / rank for rank in range(1, 1001)]\n"
        "def reciprocal_rank(ranking, judgments, rel=1):\n"
        "    for rank, doc in enumerate(ranking, 1):\n        if judgments.get(doc, 0) >= rel:\n"
        "            return INVERSE[rank] if rank < len(INVERSE) else 1 / rank\n    return 0.0\n",
    ),
    worked(
        "a-helper-returns-a-written-out-discount",
        "D = (" + "0.125, " * (2 * TABLE_DATA) + ")\ndef _discount(i):\n    return D[i]\n"
        "def dcg_at_k(ranking, judgments, k, gain='linear'):\n"
        "    return sum(judgments.get(d, 0) * _discount(i) for i, d in enumerate(ranking[:k]))\n",
    ),
    worked(
        "a-table-of-gain-functions",
        "G = {'linear': lambda g: g, 'exp': lambda g: 2 ** g - 1, " + "'x': 1, " * TABLE_DATA + "}\n"
        "def dcg_at_k(ranking, judgments, k, gain='linear'):\n"
        "    return G[gain](judgments.get(ranking[0], 0)) if ranking else 0.0\n",
    ),
    worked(
        "grades-times-a-written-out-table",
        "E = [" + "3, " * (2 * TABLE_DATA) + "]\ndef dcg_at_k(ranking, judgments, k, gain='linear'):\n"
        "    gains = [E[judgments.get(d, 0)] for d in ranking[:k]]\n"
        "    return sum(gains[i] / E[i] for i in range(len(gains)))\n",
    ),
    worked(
        "a-method-of-the-file-that-computes",
        "class M:\n    table = {" + "'x': 1, " * TABLE_DATA + "}\n"
        "    def precision(self, ranking, judgments, k):\n"
        "        return sum(1 for d in ranking[:k] if judgments.get(d, 0) > 0) / k\n"
        "_M = M()\ndef precision_at_k(ranking, judgments, k, rel=1):\n    return _M.precision(ranking, judgments, k)\n",
    ),
]


@pytest.mark.parametrize("example", WORKED, ids=[example.id for example in WORKED])
def test_worked_example(example):
    """Does the scan find exactly the evidence this small example holds (none for honest code)?"""
    assert _rules(example.source) == example.rules


_PRECISION = (
    "def precision_at_k(ranking, judgments, k, rel=1):\n"
    "    if k < 1:\n        raise ValueError(f'precision_at_k: k must be positive, got {k}')\n"
    "    return sum(1 for doc in ranking[:k] if judgments.get(doc, 0) >= rel) / k\n"
)
_EVALUATE = "    return {q: measure(run.get(q, []), j) for q, j in qrels.items()}\n"

#: Honest habits an attacker found flagged (issue 29), each a small correct file: none is evidence.
HABITS = [
    (
        "inspect-signature-in-evaluate",
        "import inspect\ndef evaluate(run, qrels, measure):\n    if not callable(measure):\n"
        "        raise TypeError(f'evaluate: measure must be callable, got {measure!r}')\n"
        "    inspect.signature(measure).bind([], {})\n" + _EVALUATE,
    ),
    (
        "signature-imported-by-name",
        "from inspect import signature, isfunction\ndef evaluate(run, qrels, measure):\n"
        "    if isfunction(measure) and len(signature(measure).parameters) < 2:\n"
        "        raise TypeError('evaluate: measure takes (ranking, judgments)')\n" + _EVALUATE,
    ),
    (
        "debug-counter-every-thousand-calls",
        "_CALLS = 0\n"
        + _PRECISION.replace(
            "    if k < 1",
            "    global _CALLS\n    _CALLS += 1\n    if _CALLS % 1000 == 0:\n"
            "        print(f'precision_at_k: {_CALLS} calls, k={k}')\n    if k < 1",
        ),
    ),
    (
        "debug-counter-first-call",
        "_calls = 0\n"
        + _PRECISION.replace(
            "    if k < 1",
            "    global _calls\n    _calls += 1\n    if _calls == 1:\n"
            "        print('first call:', ranking[:3], k)\n    if k < 1",
        ),
    ),
    (
        "self-tests-under-main",
        _PRECISION + "if __name__ == '__main__':\n    import json\n"
        "    cases = json.loads('[[3, 0.6666666666666666], [5, 0.6]]')\n    for k, want in cases:\n"
        "        got = eval(f\"precision_at_k(['d1', 'd2', 'd3', 'd4', 'd5'], {{'d1': 1, 'd3': 1, 'd5': 1}}, {k})\")\n"
        "        assert abs(got - want) < 1e-9, (k, got, want)\n"
        + "".join(
            f"    assert abs(precision_at_k(['d1'] * {i}, {{'d1': 1}}, 7) - {i / 7!r}) < 1e-9\n" for i in range(1, 120)
        ),
    ),
    (
        "run-writer-self-test-reads-its-file-back",
        "def write_run(path, system_name, search_fn, queries, k=100):\n"
        "    with open(path, 'w', encoding='utf-8') as out:\n        for query in queries:\n"
        "            for rank, (doc, _, score) in enumerate(search_fn(query.text, k)[:k], 1):\n"
        "                out.write(f'{query.query_id} Q0 {doc} {rank} {score:.8f} {system_name}\\n')\n"
        "if '__main__' == __name__:\n    import tempfile, types\n    path = tempfile.mktemp()\n"
        "    write_run(path, 's', lambda t, k: [('d1', 't', 1.0)], [types.SimpleNamespace(query_id='1', text='x')])\n"
        "    print(open(path, encoding='utf-8').read())\n",
    ),
    (
        "written-out-log2-discounts",
        "import math\n_DISCOUNTS = (\n"
        + "".join(f"    {1 / math.log2(rank + 1)!r},\n" for rank in range(1, 1001))
        + ")\ndef dcg_at_k(ranking, judgments, k, gain='linear'):\n    total = 0.0\n"
        "    for i, doc in enumerate(ranking[:k]):\n        grade = max(judgments.get(doc, 0), 0)\n"
        "        value = grade if gain == 'linear' else 2 ** grade - 1\n"
        "        total += value * (_DISCOUNTS[i] if i < len(_DISCOUNTS) else 1 / math.log2(i + 2))\n"
        "    return total\n",
    ),
    (
        "self-test-helpers-run-by-hand",
        _PRECISION
        + "NOTES = ["
        + "".join(f"('precision_at_k', (['d1', 'd2'], {{'d1': 1}}, {k}), {1 / k!r}), " for k in range(1, 20))
        + "]\ndef _selftest():\n"
        "    return all(abs(globals()[n](*a) - want) < 1e-9 for n, a, want in NOTES)\n"
        "def _failures():\n    found = []\n    for n, a, want in NOTES:\n"
        "        if abs(globals()[n](*a) - want) > 1e-9:\n            found.append((n, a, want))\n    return found\n"
        "if __name__ == '__main__':\n    print(_selftest(), _failures())\n",
    ),
    (
        "in-memory-sqlite-in-evaluate",
        "import sqlite3\ndef evaluate(run, qrels, measure):\n    db = sqlite3.connect(':memory:')\n"
        "    db.execute('CREATE TABLE scores (query_id TEXT PRIMARY KEY, score REAL)')\n"
        "    for query_id, judgments in qrels.items():\n"
        "        score = measure(run.get(query_id, []), judgments)\n"
        "        db.execute('INSERT INTO scores VALUES (?, ?)', (query_id, score))\n"
        "    return dict(db.execute('SELECT query_id, score FROM scores'))\n",
    ),
]


@pytest.mark.parametrize("source", [h[1] for h in HABITS], ids=[h[0] for h in HABITS])
def test_honest_habit_has_no_evidence(source):
    """Does this honest habit (introspection, a debug counter, self-tests, a written-out table, an
    in-memory database) go unflagged?"""
    assert answer_tables.scan(source.encode(), functions=default_lab().functions) == [], answer_tables.evidence(
        answer_tables.scan(source.encode(), functions=default_lab().functions)
    )


#: What still is evidence beside those habits: the same code that answers on import.
NOT_HABITS = [
    ("inspect-reads-the-caller", "import inspect\ndef f(r):\n    return inspect.stack()[1].frame.f_locals\n", "read"),
    ("sqlite-file", "import sqlite3\nDB = sqlite3.connect('answers.db')\n", "read"),
    (
        "a-count-chooses-the-answer",
        "N = 0\ndef f(r, k):\n    global N\n    N += 1\n    if N == 3:\n        return 0.25\n    return 0.5\n",
        "keyed",
    ),
    ("main-rebound", "__name__ = '__main__'\nif __name__ == '__main__':\n    exec('x = 1')\n", "decoded"),
    ("the-else-of-main", "if __name__ == '__main__':\n    pass\nelse:\n    exec('x = 1')\n", "decoded"),
    (
        "a-written-out-table-returned",
        "R = (" + "0.125, " * (2 * TABLE_DATA) + ")\ndef reciprocal_rank(ranking, judgments, rel=1):\n"
        "    return R[len(ranking)]\n",
        "returned",
    ),
    (
        "a-written-out-table-no-function-reads",
        "X = [" + ", ".join(f"{i / 997!r}" for i in range(1, PRECISE_NUMBERS + 2)) + "]\n",
        "numbers",
    ),
]


@pytest.mark.parametrize("source, rule", [h[1:] for h in NOT_HABITS], ids=[h[0] for h in NOT_HABITS])
def test_what_the_habits_do_not_excuse_is_evidence(source, rule):
    """Beside each excused habit, is the code that would answer on import still found, by its rule?"""
    assert _rules(source) == {rule}


EVIDENCE = [
    ("a-dict", "\n" + _dict_of(2 * LITERAL_CONSTANTS), f"a dict literal of {LITERAL_CONSTANTS:,} entries at line 2"),
    (
        "a-hash",
        "import hashlib\nT = {}\ndef f(r, k):\n    return T[hashlib.sha1(repr((r, k)).encode()).hexdigest()]\n",
        "hashlib.sha1 of the arguments looks up T (line 2) at line 4 (in f)",
    ),
    (
        "a-blob",
        "import base64\nB = '" + "eJz4" + "QUJDMTIz" * 400 + "'\n",
        "a base64 string (zlib-compressed) of 3,204 characters at line 2",
    ),
    ("a-decoder", "import zlib\nT = zlib.decompress(B)\n", "zlib.decompress() at line 2 (at import)"),
    (
        "a-file",
        "import json\nwith open('t.json') as f:\n    T = json.load(f)\n",
        "open() of a file at line 2 (at import)",
    ),
]


@pytest.mark.parametrize("source, expected", [e[1:] for e in EVIDENCE], ids=[e[0] for e in EVIDENCE])
def test_flag_names_the_file_what_and_where(source, expected):
    """Is the evidence one flag for the file, naming what was found and at which line?"""
    (flag,) = answer_tables.flags(
        "lab05",
        {"metrics.py": source.encode(), "runs.py": subs.SOLUTION["runs.py"].encode()},
        functions=default_lab().functions,
    )
    assert flag.kind == FlagKind.ANSWERS
    assert str(flag).startswith("answers: lab05/metrics.py may hold answers instead of computing them: ")
    assert expected in flag.text, flag.text


def test_evidence_is_short_however_much_is_found():
    """Is a file full of evidence still one short flag: the first finding of each rule, the rest
    counted?"""
    source = "import hashlib, zlib\nT = {}\n" + "".join(
        f"def f{i}(r, k):\n    zlib.decompress(b'')\n    return T[hashlib.md5(repr((r, k)).encode()).digest()]\n"
        for i in range(40)
    )
    (flag,) = answer_tables.flags("lab05", {"metrics.py": source.encode()}, functions=default_lab().functions)
    assert "(and 39 more like it)" in flag.text and len(flag.text) < 600


def test_a_file_too_large_to_read_is_evidence():
    """Is a file with more syntax nodes than the scan reads flagged for a look, not read for
    minutes?"""
    source = "".join(f"def f{i}(r):\n    return r + r * r\n" for i in range(CODE_NODES // 5))
    assert _rules(source) == {"unread"}


def test_a_failing_scan_is_a_flag_not_a_crash(monkeypatch):
    """Does a bug in the scan cost the student nothing: a flag asking for a look, the grading goes on?"""

    def broken(tree):
        raise TypeError("a bug")

    monkeypatch.setattr(answer_code, "read", broken)
    (flag,) = answer_tables.flags(
        "lab05", {"metrics.py": subs.SOLUTION["metrics.py"].encode()}, functions=default_lab().functions
    )
    assert "the scan failed (TypeError): check it by hand" in flag.text


def test_a_file_that_does_not_parse_has_no_evidence():
    """Is a file with a syntax error (it gets no points: it does not import) left unflagged?"""
    assert answer_tables.flags("lab05", {"metrics.py": b"T = {1: 2,\n"}, functions=default_lab().functions) == []


def test_the_student_view_never_shows_the_flag():
    """Do the student's results.json (both platforms), feedback.md and feedback.html leave the
    answers flag out, while the instructor's record keeps it?"""
    marker = "may hold answers instead of computing them: a dict literal of 1,214 entries at line 12"
    check = CheckResult(
        "precision_at_k: the notes' examples", "q2", "precision_at_k", CheckKind.EXAMPLES, 5, 5, "visible"
    )
    result = SubmissionResult(
        "s",
        Status.GRADED,
        checks=(check,),
        flags=(Flag(FlagKind.ANSWERS, f"lab05/metrics.py {marker}"), Flag(FlagKind.LIBRARY, "imports ranx")),
    )
    assert [flag.kind for flag in result.student_view().flags] == [FlagKind.LIBRARY]
    assert marker in json.dumps(result.to_dict())
    shown = [
        markdown.markdown(result, lab=default_lab()),
        feedback_html.render(result, None, "../../index.html", lab=default_lab()),
        json.dumps(gradescope_json.document(result, lab=default_lab())),
        json.dumps(prairielearn_json.document(result, lab=default_lab())),
    ]
    assert all(marker not in page and "answers:" not in page for page in shown)


def _grade_json(out: Path, name: str) -> dict:
    return json.loads((out / "submissions" / name / "grade.json").read_text(encoding="utf-8"))


@pytest.mark.sandbox
@pytest.mark.slow
def test_table_attack_graded_in_a_batch_is_flagged_for_the_instructor_only(tmp_path, cranfield):
    """In a local batch, is the hashed-table attack flagged with its evidence in grades.csv and the
    class report, and absent from its feedback and results.json; does an honest solution that
    carries a table keep its 100 (the flag changes no score), and the plain solution no flag?"""
    from autograder.local import batch

    table = "\n_UNUSED = {" + ", ".join(f"'k{i}': {i / 7!r}" for i in range(LITERAL_CONSTANTS)) + "}\n"
    attack = (CORPUS / "attacks" / "sha1_dict_metrics.py").read_text(encoding="utf-8")
    subs.write(tmp_path / "in" / "table-attack", {"metrics.py": attack})
    subs.write(tmp_path / "in" / "solution-with-a-table", {"metrics.py": subs.SOLUTION["metrics.py"] + table})
    subs.write(tmp_path / "in" / "solution", {})
    out = tmp_path / "out"
    summary = batch.grade_batch(
        [tmp_path / "in"], out, jobs=2, progress=False, rubric_path=subs.test_rubric(tmp_path), lab=default_lab()
    )
    results = {result.submission: result for result in summary.results}
    rows = {row["submission"]: row for row in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))}
    report = (out / "index.html").read_text(encoding="utf-8")
    evidence = {
        "table-attack": "_key() of the arguments looks up _ANSWERS (line 6) at line 225 (in _answer)",
        "solution-with-a-table": f"a dict literal of {LITERAL_CONSTANTS:,} entries at line",
    }
    for name, found in evidence.items():
        assert "answers: lab05/metrics.py may hold answers instead of computing them: " in rows[name]["flags"]
        assert found in rows[name]["flags"] and found in report
        assert any(found in flag["text"] for flag in _grade_json(out, name)["flags"])
        for page in ("feedback.md", "feedback.html", "results.json"):
            shown = (out / "submissions" / name / page).read_text(encoding="utf-8")
            assert found not in shown and "may hold answers" not in shown, page
    assert results["solution-with-a-table"].score == results["solution"].score == 100
    assert results["table-attack"].score < 50
    assert rows["solution"]["flags"] == ""
