"""The answers corpus: honest ``lab05/metrics.py`` files and files that look their answers up.

A corpus for measuring a detector of "answers without computation", written without reading it:

- ``honest()``: every honest file as ``(name, source)``. Hand-written bases
  (``tests/fixtures/answers_corpus/honest/<base>.py``, one style each: loops, numpy, exact
  fractions, sqlite3, classes...) are combined, deterministically, with habits students have (the
  stub's docstrings and their worked examples, a cached or written-out table of log2 discounts, a
  debug call counter, logging, self-tests under ``if __name__ == "__main__":``, asserts at import,
  introspection of ``evaluate``'s measure, an in-memory sqlite3 database...). A file's name is its
  base and its habits joined by ``+``; ``habits(name)`` lists them.
- ``lookup()``: files that look most answers up (``tests/fixtures/answers_corpus/lookup/``), and
  ``mixed()``: files that hold only the notes' examples as a table and compute the rest (borderline).
  ``labels()`` says of each what it looks up, how it keys its table, which functions compute
  honestly and which compute only for inputs not in the table (``lookup/labels.json``, written by
  ``tools/lookup_corpus.py``).

Every honest file is correct on the whole contract (``tests/lab/test_answers_corpus.py`` proves it
against the reference); every lookup file returns its stored answers for its table's inputs.
"""

from __future__ import annotations

import ast
import functools
import json
import random
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

from autograder import paths

CORPUS = Path(__file__).parents[1] / "fixtures" / "answers_corpus"
BASES = CORPUS / "honest"
LOOKUP = CORPUS / "lookup"
LABELS = LOOKUP / "labels.json"
STUB = paths.HANDOUT / "lab05" / "metrics.py"

PUBLIC = (
    "confusion_matrix",
    "accuracy",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
    "average_precision",
    "dcg_at_k",
    "ndcg_at_k",
    "evaluate",
    "largest_differences",
)

#: Variants made of each base besides the base itself.
VARIANTS_PER_BASE = 7

#: Bases whose numbers print otherwise than the stub's doctests (Fraction, Decimal, numpy scalars):
#: their students would not run the doctests.
NOT_DOCTESTED = {"fractions_exact", "decimals", "numpy_arrays", "numpy_vector", "numpy_returns", "namedtuple_results"}


# ------------------------------------------------------------------ reading the corpus


def bases() -> list[tuple[str, str]]:
    """The hand-written honest bases, ``(name, source)``, in name order."""
    return [(path.stem, path.read_text(encoding="utf-8")) for path in sorted(BASES.glob("*.py"))]


def honest() -> list[tuple[str, str]]:
    """Every honest file, ``(name, source)``: each base, then its variants with habits."""
    return [(name, source) for name, source, _ in _honest_files()]


def habits(name: str) -> tuple[str, ...]:
    """The habits of the honest file ``name`` (its base's own style not included)."""
    return tuple(name.split("+")[1:])


def labels() -> dict[str, dict]:
    """What each lookup or mixed file is: ``kind`` (lookup or mixed), ``looks_up`` (the functions
    answered from a table), ``computes`` (the functions computed honestly), ``fallback`` (the looked
    up functions that compute for an input not in the table, and the helper they compute with),
    ``keys`` (how the table is keyed), ``storage`` (how it is stored), ``tables`` (the inputs it
    holds: ``notes``, the notes' examples; ``cranfield``, Cranfield's queries), ``cranfield`` (the
    measures, as ``measures.CRANFIELD`` names them, and the runs of its Cranfield tables), ``base``
    (the honest base its computed functions come from) and ``entries`` (its table's size)."""
    loaded: dict[str, dict] = json.loads(LABELS.read_text(encoding="utf-8"))
    return loaded


def lookup() -> list[tuple[str, str]]:
    """The files that look most of their answers up, ``(name, source)``."""
    return _labelled("lookup")


def mixed() -> list[tuple[str, str]]:
    """The borderline files: the notes' examples as a table, honest code for everything else."""
    return _labelled("mixed")


def _labelled(kind: str) -> list[tuple[str, str]]:
    return [
        (name, (LOOKUP / f"{name}.py").read_text(encoding="utf-8"))
        for name, label in sorted(labels().items())
        if label["kind"] == kind
    ]


# ------------------------------------------------------------------ editing a source by its syntax tree


def _top_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _has_docstring(node: ast.FunctionDef | ast.Module) -> bool:
    first = node.body[0] if node.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def _body_start(node: ast.FunctionDef) -> tuple[int, int]:
    """The 1-based line and the column of the function's first statement after its docstring."""
    statement = node.body[1] if _has_docstring(node) and len(node.body) > 1 else node.body[0]
    return statement.lineno, statement.col_offset


def _after_imports(tree: ast.Module) -> int:
    """The 0-based line index after the module's last top-level import (or its docstring)."""
    last = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            last = node.end_lineno or node.lineno
        elif last or not (_has_docstring(tree) and node is tree.body[0]):
            break
        else:
            last = node.end_lineno or node.lineno
    return last


def _insert(lines: list[str], edits: list[tuple[int, list[str]]]) -> list[str]:
    """``lines`` with each edit's lines inserted before 0-based index ``at``, bottom first."""
    for at, new in sorted(edits, key=lambda edit: edit[0], reverse=True):
        lines[at:at] = new
    return lines


def _at_function_starts(source: str, make: Callable[[str, ast.FunctionDef], list[str]]) -> str:
    """Insert ``make(name, node)``'s lines at the start of every public function's body."""
    tree = ast.parse(source)
    lines = source.splitlines()
    edits = []
    for name, node in _top_functions(tree).items():
        if name in PUBLIC:
            line, column = _body_start(node)
            edits.append((line - 1, [" " * column + text if text else "" for text in make(name, node)]))
    return "\n".join(_insert(lines, edits)) + "\n"


def _add_imports(source: str, imports: list[str]) -> str:
    """``source`` with the import lines it lacks added after its last import."""
    missing = [line for line in imports if line not in source.splitlines()]
    if not missing:
        return source
    lines = source.splitlines()
    return "\n".join(_insert(lines, [(_after_imports(ast.parse(source)), missing)])) + "\n"


def _add_after_imports(source: str, block: list[str]) -> str:
    lines = source.splitlines()
    return "\n".join(_insert(lines, [(_after_imports(ast.parse(source)), ["", "", *block])])) + "\n"


def _replace_function(source: str, name: str, new: str) -> str:
    """``source`` with top-level function ``name`` (and its decorators) replaced by ``new``, the
    original docstring kept."""
    tree = ast.parse(source)
    node = _top_functions(tree)[name]
    lines = source.splitlines()
    start = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list]) - 1
    new_lines = new.strip("\n").splitlines()
    if _has_docstring(node):
        doc = lines[node.body[0].lineno - 1 : node.body[0].end_lineno]
        header = next(i for i, line in enumerate(new_lines) if line.rstrip().endswith(":")) + 1
        new_lines[header:header] = doc
    lines[start : node.end_lineno] = new_lines
    return "\n".join(lines) + "\n"


def _append(source: str, block: str) -> str:
    return source.rstrip("\n") + "\n\n\n" + block.strip("\n") + "\n"


# ------------------------------------------------------------------ habits: docstrings and comments


def _stub_docstrings() -> tuple[list[str], dict[str, list[str]]]:
    """The stub's module docstring and each function's docstring, as source lines."""
    source = STUB.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    module = lines[tree.body[0].lineno - 1 : tree.body[0].end_lineno]
    functions = {
        name: textwrap.dedent("\n".join(lines[node.body[0].lineno - 1 : node.body[0].end_lineno])).splitlines()
        for name, node in _top_functions(tree).items()
        if _has_docstring(node)
    }
    return module, functions


def _set_docstrings(source: str, docstrings: dict[str, list[str]], module: list[str] | None) -> str:
    """``source`` with the docstrings of the functions named in ``docstrings`` (dedented lines) set,
    and the module's docstring set to ``module`` (None: left as it is)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    edits: list[tuple[int, int, list[str]]] = []  # (start, end) 0-based, replaced by lines
    for name, node in _top_functions(tree).items():
        if name not in docstrings:
            continue
        _, column = _body_start(node)
        doc = [" " * column + text if text.strip() else "" for text in docstrings[name]]
        if _has_docstring(node):
            edits.append((node.body[0].lineno - 1, node.body[0].end_lineno or 0, doc))
        else:
            header = _header_end(lines, node)
            edits.append((header, header, doc))
    if module is not None:
        if _has_docstring(tree):
            edits.append((tree.body[0].lineno - 1, tree.body[0].end_lineno or 0, module))
        else:
            edits.append((0, 0, [*module, ""]))
    for start, end, new in sorted(edits, key=lambda edit: edit[0], reverse=True):
        lines[start:end] = new
    return "\n".join(lines) + "\n"


def _header_end(lines: list[str], node: ast.FunctionDef) -> int:
    """The 0-based index of the line after the function's ``def ...:`` (before any comment)."""
    for index in range(node.lineno - 1, node.body[0].lineno - 1):
        text = lines[index].strip()
        if text.endswith(":") and not text.startswith("#"):
            return index + 1
    return node.body[0].lineno - 1


def stub_docstrings(source: str) -> str | None:
    """The stub's docstrings kept (with the notes' worked examples), as most students leave them."""
    module, functions = _stub_docstrings()
    return _set_docstrings(source, functions, module)


SHORT_DOCSTRINGS = {
    "confusion_matrix": '"""Return (tp, fp, fn, tn) for one query."""',
    "accuracy": '"""(TP + TN) / N -- useless for IR, see Part II."""',
    "precision_at_k": '"""P@k: relevant docs in the top k, divided by k (not by the ranking length!)."""',
    "recall_at_k": '"""R@k: relevant docs in the top k over all R relevant docs of the query."""',
    "reciprocal_rank": '"""1 / rank of the first relevant doc, 0 if there is none."""',
    "average_precision": '"""AP: mean of P@i at the relevant ranks, divided by R (not by the hits)."""',
    "dcg_at_k": '"""DCG@k with linear (grade) or exp (2^grade - 1) gain and log2(i + 1) discount."""',
    "ndcg_at_k": '"""nDCG@k = DCG@k / IDCG@k, the ideal ranking built from all judged docs."""',
    "evaluate": '"""Score every query of the qrels with measure (missing run -> empty ranking)."""',
    "largest_differences": '"""Query ids with the biggest |a - b|, ties by id as strings."""',
}


def short_docstrings(source: str) -> str | None:
    """One-line docstrings of the student's own."""
    return _set_docstrings(source, {name: [doc] for name, doc in SHORT_DOCSTRINGS.items()}, None)


WORKED_EXAMPLES = {
    "confusion_matrix": """\
\"\"\"(TP, FP, FN, TN) for one query.

A system that returns nothing, for a query with 7 relevant docs among 1400 (Part II):

>>> confusion_matrix([], ["R1", "R2", "R3", "R4", "R5", "R6", "R7"], 1400)
(0, 0, 7, 1393)
>>> confusion_matrix(["D1", "D2", "D3", "D4", "D5"], ["D1", "D3", "D5"], 30)
(3, 2, 0, 25)
\"\"\"""",
    "accuracy": """\
\"\"\"(TP + TN) / N.

>>> round(accuracy([], ["R1", "R2", "R3", "R4", "R5", "R6", "R7"], 1400), 4)
0.995
\"\"\"""",
    "precision_at_k": """\
\"\"\"Relevant docs among the top k, divided by k.

>>> toy = ["D1", "D2", "D3", "D4", "D5"]  # R N R N R
>>> [precision_at_k(toy, {"D1": 1, "D3": 1, "D5": 1}, k) for k in (1, 2, 3, 4, 5)]
[1.0, 0.5, 0.6666666666666666, 0.5, 0.6]
>>> precision_at_k(toy, {"D1": 1, "D3": 1, "D5": 1}, 10)
0.3
\"\"\"""",
    "recall_at_k": """\
\"\"\"Relevant docs among the top k, divided by R.

>>> toy = ["D1", "D2", "D3", "D4", "D5"]
>>> [round(recall_at_k(toy, {"D1": 1, "D3": 1, "D5": 1}, k), 3) for k in (1, 3, 5)]
[0.333, 0.667, 1.0]
>>> recall_at_k(toy, {"D1": 1, "D3": 1, "D5": 1, "D6": 1, "D7": 1}, 5)
0.6
\"\"\"""",
    "reciprocal_rank": """\
\"\"\"1 / rank of the first relevant doc.

>>> ten = [f"D{i}" for i in range(1, 11)]
>>> reciprocal_rank(ten, {"D1": 1, "D2": 1, "D3": 1})  # ranking A
1.0
>>> reciprocal_rank(ten, {"D8": 1, "D9": 1, "D10": 1})  # ranking B
0.125
\"\"\"""",
    "average_precision": """\
\"\"\"Sum of P@i at the relevant ranks, over R.

>>> round(average_precision(["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}), 3)
0.756
>>> round(average_precision([f"D{i}" for i in range(1, 11)], {"D8": 1, "D9": 1, "D10": 1}), 3)
0.216
\"\"\"""",
    "dcg_at_k": """\
\"\"\"DCG@k = sum of gain / log2(rank + 1).

>>> grades = {"A": 3, "B": 0, "C": 2, "D": 1}
>>> round(dcg_at_k(["A", "B", "C", "D"], grades, 4, gain="exp"), 3)
8.931
>>> round(dcg_at_k(["A", "C", "D", "B"], grades, 4, gain="exp"), 3)
9.393
>>> round(dcg_at_k(["A", "B", "C", "D"], grades, 4), 3)
4.431
\"\"\"""",
    "ndcg_at_k": """\
\"\"\"DCG@k / IDCG@k.

>>> grades = {"A": 3, "B": 0, "C": 2, "D": 1}
>>> round(ndcg_at_k(["A", "B", "C", "D"], grades, 4, gain="exp"), 3)
0.951
>>> round(ndcg_at_k(["B", "D", "C", "A"], grades, 4, gain="exp"), 3)
0.548
>>> round(ndcg_at_k(["A", "B", "C", "D"], grades, 4), 2)
0.93
\"\"\"""",
    "evaluate": """\
\"\"\"{query_id: measure(ranking, judgments)} for every query of the qrels.

>>> evaluate({"1": ["D1"]}, {"1": {"D1": 1}, "2": {"D7": 2}}, reciprocal_rank)
{'1': 1.0, '2': 0.0}
\"\"\"""",
    "largest_differences": """\
\"\"\"The n query ids with the largest |a - b|.

>>> largest_differences({"1": 0.9, "2": 0.5, "3": 0.1}, {"1": 0.1, "2": 0.5, "3": 0.4})
['1', '3']
\"\"\"""",
}


def worked_examples(source: str) -> str | None:
    """Docstrings of the student's own, with doctest examples of the notes' values."""
    return _set_docstrings(source, {name: doc.splitlines() for name, doc in WORKED_EXAMPLES.items()}, None)


NOTES_COMMENTS = {
    "confusion_matrix": ["# Part II: returning nothing for 7 relevant of 1400 docs -> (0, 0, 7, 1393)"],
    "accuracy": ["# Part II: 1393 / 1400 = 0.995 for a system that returns nothing"],
    "precision_at_k": ["# toy ranking R N R N R: P@1 = 1, P@2 = 0.5, P@3 = 0.667, P@5 = 0.6, P@10 = 0.3"],
    "recall_at_k": ["# toy ranking R N R N R, R = 3: R@1 = 0.333, R@3 = 0.667, R@5 = 1.0"],
    "reciprocal_rank": ["# ranking A: RR = 1, ranking B (first relevant at rank 8): RR = 0.125"],
    "average_precision": ["# toy: (1 + 2/3 + 3/5) / 3 = 0.756; ranking B: (1/8 + 2/9 + 3/10) / 3 = 0.216"],
    "dcg_at_k": ["# grades [3, 0, 2, 1], exp gain: 7 + 0 + 3/2 + 1/log2(5) = 8.931 (linear: 4.431)"],
    "ndcg_at_k": ["# 8.931 / 9.393 = 0.951 (exp); the worst order [0, 1, 2, 3] gives 0.548"],
    "evaluate": ["# a query missing from the run still gets a score (of an empty ranking)"],
    "largest_differences": ["# Part VI: a = {1: .9, 2: .5, 3: .1}, b = {1: .1, 2: .5, 3: .4} -> ['1', '3']"],
}


def notes_comments(source: str) -> str | None:
    """Comments quoting the notes' example values at the top of each function."""
    return _at_function_starts(source, lambda name, node: NOTES_COMMENTS[name])


# ------------------------------------------------------------------ habits: discounts


_LOG2_CALL = re.compile(r"math\.log2\((\w+) \+ 1\)")
_DIVIDED_BY_LOG2 = re.compile(r"/ math\.log2\((\w+) \+ 1\)")


def _all_log2(source: str, pattern: re.Pattern[str]) -> bool:
    found = len(pattern.findall(source))
    return found > 0 and found == source.count("math.log2(")


def log2_table(source: str) -> str | None:
    """A written-out table of log2(i) for the first ranks, computed beyond it."""
    if not _all_log2(source, _LOG2_CALL):
        return None
    size = 21
    entries = ", ".join(f"{i}: {__import__('math').log2(i)!r}" for i in range(2, size + 2))
    block = [
        f"# log2(i) for the ranks 1..{size} (i = rank + 1), written out once; larger ranks are computed",
        f"LOG2 = {{{entries}}}",
        "",
        "",
        "def _log2(x):",
        "    return LOG2[x] if x in LOG2 else math.log2(x)",
    ]
    source = _add_imports(source, ["import math"])
    return _add_after_imports(_LOG2_CALL.sub(r"_log2(\1 + 1)", source), block)


def discount_table(source: str) -> str | None:
    """A written-out table of the discounts 1 / log2(rank + 1), with a fallback past its end."""
    if not _all_log2(source, _DIVIDED_BY_LOG2):
        return None
    size = 10
    values = ", ".join(repr(1 / __import__("math").log2(rank + 1)) for rank in range(1, size + 1))
    block = [
        f"# 1 / log2(rank + 1) for ranks 1..{size} (P@10 and nDCG@10 never need more)",
        f"DISCOUNTS = [{values}]",
        "",
        "",
        "def discount(rank):",
        "    if rank <= len(DISCOUNTS):",
        "        return DISCOUNTS[rank - 1]",
        "    return 1 / math.log2(rank + 1)",
    ]
    source = _add_imports(source, ["import math"])
    return _add_after_imports(_DIVIDED_BY_LOG2.sub(r"* discount(\1)", source), block)


def cached_discount(source: str) -> str | None:
    """The discount in a function cached with ``functools.lru_cache``."""
    if not _all_log2(source, _DIVIDED_BY_LOG2):
        return None
    block = [
        "@lru_cache(maxsize=None)",
        "def _discount(rank: int) -> float:",
        "    # the same ranks come back for every query: compute each log once",
        "    return 1.0 / math.log2(rank + 1)",
    ]
    source = _add_imports(source, ["import math", "from functools import lru_cache"])
    return _add_after_imports(_DIVIDED_BY_LOG2.sub(r"* _discount(\1)", source), block)


def memo_discount(source: str) -> str | None:
    """The log2 of each rank remembered in a module-level dict."""
    if not _all_log2(source, _LOG2_CALL):
        return None
    block = [
        "_log_memo = {}",
        "",
        "",
        "def memo_log2(x):",
        "    if x not in _log_memo:",
        "        _log_memo[x] = math.log2(x)",
        "    return _log_memo[x]",
    ]
    source = _add_imports(source, ["import math"])
    return _add_after_imports(_LOG2_CALL.sub(r"memo_log2(\1 + 1)", source), block)


# ------------------------------------------------------------------ habits: tracing


def call_counter(source: str) -> str | None:
    """A debug counter of the calls of each function."""
    source = _add_imports(source, ["from collections import Counter"])
    source = _add_after_imports(source, ["CALLS = Counter()  # debugging: how often each function is called"])
    return _at_function_starts(source, lambda name, node: [f'CALLS["{name}"] += 1'])


_SCALARS = ("k", "rel", "gain", "n", "collection_size")


def debug_logging(source: str) -> str | None:
    """``logging`` at debug level at the start of each function."""

    def line(name: str, node: ast.FunctionDef) -> list[str]:
        shown = [arg.arg for arg in node.args.args if arg.arg in _SCALARS]
        if not shown:
            return [f'log.debug("{name} called")']
        return [f'log.debug("{name}: ' + " ".join(f"{arg}=%r" for arg in shown) + '", ' + ", ".join(shown) + ")"]

    source = _add_imports(source, ["import logging"])
    source = _add_after_imports(source, ["log = logging.getLogger(__name__)"])
    return _at_function_starts(source, line)


def debug_prints(source: str) -> str | None:
    """Prints behind a ``DEBUG`` flag left off."""

    def line(name: str, node: ast.FunctionDef) -> list[str]:
        shown = [arg.arg for arg in node.args.args if arg.arg in _SCALARS]
        values = ", ".join(f"{arg}={{{arg}!r}}" for arg in shown)
        return ["if DEBUG:", f'    print(f"[debug] {name}({values})")']

    source = _add_after_imports(source, ["DEBUG = False  # set to True to trace the calls"])
    return _at_function_starts(source, line)


# ------------------------------------------------------------------ habits: evaluate and sqlite3


def introspection(source: str) -> str | None:
    """``evaluate`` checks its measure: callable, and how many arguments it needs."""
    tree = ast.parse(source)
    node = _top_functions(tree).get("evaluate")
    if node is None or [arg.arg for arg in node.args.args] != ["run", "qrels", "measure"]:
        return None
    check = [
        "if not callable(measure):",
        '    raise TypeError(f"evaluate: measure must be a function of (ranking, judgments), got {measure!r}")',
        'name = getattr(measure, "__name__", None) or getattr(getattr(measure, "func", None), "__name__", "measure")',
        "try:",
        "    needed = [",
        "        p",
        "        for p in inspect.signature(measure).parameters.values()",
        "        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)",
        "    ]",
        "except (TypeError, ValueError):  # some callables have no signature",
        "    needed = []",
        "if len(needed) > 2:",
        '    raise TypeError(f"evaluate: {name} needs {len(needed)} arguments, it gets (ranking, judgments)")',
    ]
    lines = source.splitlines()
    line, column = _body_start(node)
    lines = _insert(lines, [(line - 1, [" " * column + text for text in check])])
    return _add_imports("\n".join(lines) + "\n", ["import inspect"])


SQLITE_EVALUATE = """
def evaluate(run, qrels, measure):
    # one row per query of the qrels, in their order; the run is looked up per query
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE scores (position INTEGER PRIMARY KEY, query_id TEXT, score REAL)")
    for position, (query_id, judgments) in enumerate(qrels.items()):
        ranking = run[query_id] if query_id in run else []
        db.execute("INSERT INTO scores VALUES (?, ?, ?)", (position, query_id, float(measure(ranking, judgments))))
    rows = db.execute("SELECT query_id, score FROM scores ORDER BY position").fetchall()
    db.close()
    return {query_id: score for query_id, score in rows}
"""


def sqlite_evaluate(source: str) -> str | None:
    """``evaluate`` keeps its scores in an in-memory sqlite3 table."""
    if "evaluate" not in _top_functions(ast.parse(source)) or "sqlite3" in source:
        return None
    return _add_imports(_replace_function(source, "evaluate", SQLITE_EVALUATE), ["import sqlite3"])


SQLITE_CONFUSION = """
def confusion_matrix(retrieved, relevant, collection_size):
    # count the cells with SQL: two tables of distinct doc ids
    if isinstance(collection_size, bool) or not isinstance(collection_size, int):
        raise ValueError(f"confusion_matrix: collection_size must be an int, got {collection_size!r}")
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE retrieved (doc TEXT PRIMARY KEY)")
    db.execute("CREATE TABLE relevant (doc TEXT PRIMARY KEY)")
    db.executemany("INSERT OR IGNORE INTO retrieved VALUES (?)", [(str(d),) for d in retrieved])
    db.executemany("INSERT OR IGNORE INTO relevant VALUES (?)", [(str(d),) for d in relevant])
    (tp,) = db.execute("SELECT COUNT(*) FROM retrieved JOIN relevant USING (doc)").fetchone()
    (n_retrieved,) = db.execute("SELECT COUNT(*) FROM retrieved").fetchone()
    (n_relevant,) = db.execute("SELECT COUNT(*) FROM relevant").fetchone()
    db.close()
    union = n_retrieved + n_relevant - tp
    if collection_size < union:
        raise ValueError(f"confusion_matrix: collection_size={collection_size} < {union} retrieved or relevant docs")
    return tp, n_retrieved - tp, n_relevant - tp, collection_size - union
"""


def sqlite_confusion(source: str) -> str | None:
    """``confusion_matrix`` counts its cells with SQL in an in-memory sqlite3 database."""
    if "confusion_matrix" not in _top_functions(ast.parse(source)) or "sqlite3" in source or "cells.tp" in source:
        return None  # (the base's accuracy reads its own named cells)
    return _add_imports(_replace_function(source, "confusion_matrix", SQLITE_CONFUSION), ["import sqlite3"])


# ------------------------------------------------------------------ habits: self-tests

_CHECKS = [
    "toy = ['D1', 'D2', 'D3', 'D4', 'D5']  # R N R N R",
    "toy_qrels = {'D1': 1, 'D3': 1, 'D5': 1}",
    "ten = [f'D{i}' for i in range(1, 11)]",
    "worked = {'A': 3, 'B': 0, 'C': 2, 'D': 1}",
    "assert tuple(confusion_matrix([], [f'R{i}' for i in range(1, 8)], 1400)) == (0, 0, 7, 1393)",
    "assert abs(float(accuracy([], [f'R{i}' for i in range(1, 8)], 1400)) - 0.995) < 1e-9",
    "assert abs(float(precision_at_k(toy, toy_qrels, k=3)) - 2 / 3) < 1e-9",
    "assert abs(float(precision_at_k(toy, toy_qrels, k=10)) - 0.3) < 1e-9",
    "assert abs(float(recall_at_k(toy, toy_qrels, k=3)) - 2 / 3) < 1e-9",
    "assert float(reciprocal_rank(ten, {'D8': 1, 'D9': 1, 'D10': 1})) == 0.125",
    "assert abs(float(average_precision(toy, toy_qrels)) - 0.756) < 1e-3",
    "assert abs(float(average_precision(ten, {'D8': 1, 'D9': 1, 'D10': 1})) - 0.216) < 1e-3",
    "assert abs(float(dcg_at_k(['A', 'B', 'C', 'D'], worked, k=4, gain='exp')) - 8.931) < 1e-3",
    "assert abs(float(ndcg_at_k(['A', 'B', 'C', 'D'], worked, k=4, gain='exp')) - 0.951) < 1e-3",
    "assert abs(float(ndcg_at_k(['B', 'D', 'C', 'A'], worked, k=4, gain='exp')) - 0.548) < 1e-3",
    "assert dict(evaluate({'1': ['D1']}, {'1': {'D1': 1}, '2': {'D7': 2}}, reciprocal_rank)) == {'1': 1.0, '2': 0.0}",
    "assert list(largest_differences({'1': 0.9, '2': 0.5, '3': 0.1}, {'1': 0.1, '2': 0.5, '3': 0.4})) == ['1', '3']",
]


def main_asserts(source: str) -> str | None:
    """The notes' examples checked under ``if __name__ == "__main__":``."""
    body = "\n".join("    " + line for line in _CHECKS)
    return _append(source, f'if __name__ == "__main__":\n{body}\n    print("all notes examples OK")')


def selftest_function(source: str) -> str | None:
    """A ``_selftest()`` of the notes' examples, run when the file is run."""
    body = "\n".join("    " + line for line in _CHECKS)
    return _append(
        source,
        f'def _selftest():\n    """The notes\' worked examples."""\n{body}\n\n\n'
        'if __name__ == "__main__":\n    _selftest()\n    print("self-test passed")',
    )


def import_asserts(source: str) -> str | None:
    """Asserts on the notes' examples at module level: they run at every import."""
    checks = [line.replace("'", '"') for line in _CHECKS]
    return _append(source, "# sanity checks on the notes' examples (run at import)\n" + "\n".join(checks))


def doctest_main(source: str) -> str | None:
    """The stub's docstring examples run with ``doctest`` when the file is run."""
    if ">>> " not in source:
        return None
    return _append(
        source,
        'if __name__ == "__main__":\n    import doctest\n\n    print(doctest.testmod(optionflags=doctest.ELLIPSIS))',
    )


_EXP_GAIN = re.compile(r"2 ?\*\* ?(\w+) - 1")


def gain_table(source: str) -> str | None:
    """The exponential gains of Cranfield's grades written out, computed beyond them."""
    if not _EXP_GAIN.search(source):
        return None
    block = ["# 2**grade - 1 for the grades Cranfield uses (1 to 4)", "EXP_GAIN = {1: 1, 2: 3, 3: 7, 4: 15}"]
    return _add_after_imports(_EXP_GAIN.sub(r"EXP_GAIN.get(\1, 2**\1 - 1)", source), block)


TABLE_SELFTEST = """
# the notes' worked examples: (function, positional arguments, keyword arguments, value in the notes)
TOY = ["D1", "D2", "D3", "D4", "D5"]  # R N R N R
TOY_QRELS = {"D1": 1, "D3": 1, "D5": 1}
TEN = [f"D{i}" for i in range(1, 11)]
GRADES = {"A": 3, "B": 0, "C": 2, "D": 1}
NOTES_EXAMPLES = [
    ("confusion_matrix", ([], ["R1", "R2", "R3", "R4", "R5", "R6", "R7"], 1400), {}, (0, 0, 7, 1393)),
    ("accuracy", ([], ["R1", "R2", "R3", "R4", "R5", "R6", "R7"], 1400), {}, 0.995),
    ("precision_at_k", (TOY, TOY_QRELS), {"k": 1}, 1.0),
    ("precision_at_k", (TOY, TOY_QRELS), {"k": 2}, 0.5),
    ("precision_at_k", (TOY, TOY_QRELS), {"k": 3}, 0.667),
    ("precision_at_k", (TOY, TOY_QRELS), {"k": 5}, 0.6),
    ("precision_at_k", (TOY, TOY_QRELS), {"k": 10}, 0.3),
    ("recall_at_k", (TOY, TOY_QRELS), {"k": 1}, 0.333),
    ("recall_at_k", (TOY, TOY_QRELS), {"k": 3}, 0.667),
    ("recall_at_k", (TOY, TOY_QRELS), {"k": 5}, 1.0),
    ("reciprocal_rank", (TEN, {"D1": 1, "D2": 1, "D3": 1}), {}, 1.0),
    ("reciprocal_rank", (TEN, {"D8": 1, "D9": 1, "D10": 1}), {}, 0.125),
    ("average_precision", (TOY, TOY_QRELS), {}, 0.756),
    ("average_precision", (TEN, {"D8": 1, "D9": 1, "D10": 1}), {}, 0.216),
    ("dcg_at_k", (["A", "B", "C", "D"], GRADES), {"k": 4, "gain": "exp"}, 8.931),
    ("dcg_at_k", (["A", "C", "D", "B"], GRADES), {"k": 4, "gain": "exp"}, 9.393),
    ("ndcg_at_k", (["A", "B", "C", "D"], GRADES), {"k": 4, "gain": "exp"}, 0.951),
    ("ndcg_at_k", (["B", "D", "C", "A"], GRADES), {"k": 4, "gain": "exp"}, 0.548),
    ("largest_differences", ({"1": 0.9, "2": 0.5, "3": 0.1}, {"1": 0.1, "2": 0.5, "3": 0.4}), {"n": 2}, ["1", "3"]),
]


def check_notes_examples():
    failures = 0
    for name, args, kwargs, expected in NOTES_EXAMPLES:
        got = globals()[name](*args, **kwargs)
        if isinstance(expected, (tuple, list)):
            ok = list(got) == list(expected)
        else:
            ok = abs(float(got) - expected) < 1e-3
        failures += not ok
        print("ok  " if ok else "FAIL", name, kwargs, got, "notes:", expected)
    print(f"{len(NOTES_EXAMPLES) - failures} of {len(NOTES_EXAMPLES)} notes examples OK")


if __name__ == "__main__":
    check_notes_examples()
"""


def table_selftest(source: str) -> str | None:
    """A table of the notes' examples and their values, checked when the file is run."""
    return _append(source, TABLE_SELFTEST)


CRANFIELD_TABLE = """
# Part V's table, as the notes print it (truncated to 4 decimals), to compare my numbers with
NOTES_TABLE = {
    "search_tfidf": {"P@10": 0.2284, "R@100": 0.7006, "RR": 0.5100, "AP": 0.2737, "nDCG@10": 0.3170},
    "search_bm25": {"P@10": 0.1991, "R@100": 0.6512, "RR": 0.5044, "AP": 0.2405, "nDCG@10": 0.2822},
}

if __name__ == "__main__":
    from functools import partial

    from lab05 import data, retrieval

    queries, qrels = data.load_queries(), data.load_qrels()
    measures = {
        "P@10": partial(precision_at_k, k=10),
        "R@100": partial(recall_at_k, k=100),
        "RR": reciprocal_rank,
        "AP": average_precision,
        "nDCG@10": partial(ndcg_at_k, k=10),
    }
    for system in (retrieval.search_tfidf, retrieval.search_bm25):
        run = {q.query_id: [doc_id for doc_id, _title, _score in system(q.text, 100)] for q in queries}
        for label, measure in measures.items():
            scores = evaluate(run, qrels, measure)
            mean = sum(scores.values()) / len(scores)
            notes = NOTES_TABLE[system.__name__][label]
            print(f"{system.__name__:13} {label:8} mine {float(mean):.4f}  notes {notes:.4f}")
"""


def cranfield_table(source: str) -> str | None:
    """Part V's table of the notes as a constant, compared with the file's own numbers when it runs."""
    return _append(source, CRANFIELD_TABLE)


CRANFIELD_MAIN = """
if __name__ == "__main__":
    # Part V: the table of the notes on Cranfield (needs the handout's data.py and retrieval.py)
    from functools import partial
    from statistics import mean

    from lab05 import data, retrieval

    queries, qrels = data.load_queries(), data.load_qrels()
    for system in (retrieval.search_tfidf, retrieval.search_bm25):
        run = {q.query_id: [hit[0] for hit in system(q.text, 100)] for q in queries}
        row = {
            "P@10": mean(evaluate(run, qrels, partial(precision_at_k, k=10)).values()),
            "R@100": mean(evaluate(run, qrels, partial(recall_at_k, k=100)).values()),
            "RR": mean(evaluate(run, qrels, reciprocal_rank).values()),
            "AP": mean(evaluate(run, qrels, average_precision).values()),
            "nDCG@10": mean(evaluate(run, qrels, partial(ndcg_at_k, k=10)).values()),
        }
        print(system.__name__, {name: round(float(value), 4) for name, value in row.items()})
"""


def cranfield_main(source: str) -> str | None:
    """Part V's table computed on Cranfield when the file is run (never at import)."""
    return _append(source, CRANFIELD_MAIN)


# ------------------------------------------------------------------ habits: exports


def all_exports(source: str) -> str | None:
    """An ``__all__`` listing the API."""
    names = ", ".join(f'"{name}"' for name in PUBLIC)
    return _add_after_imports(source, [f"__all__ = [{names}]"])


# ------------------------------------------------------------------ combining

#: One habit (or none) from each slot; a habit that does not apply to a base is left out.
SLOTS: tuple[tuple[Callable[[str], str | None] | None, ...], ...] = (
    (stub_docstrings, stub_docstrings, stub_docstrings, worked_examples, short_docstrings, notes_comments, None),
    (log2_table, discount_table, cached_discount, memo_discount, gain_table, None, None),
    (call_counter, debug_logging, debug_prints, None, None),
    (introspection, sqlite_evaluate, None, None),
    (sqlite_confusion, sqlite_confusion, all_exports, None, None),
    (main_asserts, selftest_function, import_asserts, doctest_main, cranfield_main, table_selftest, cranfield_table),
)


def _variant(base: str, source: str, chosen: list[Callable[[str], str | None]]) -> tuple[str, str] | None:
    used = []
    if doctest_main in chosen and not {stub_docstrings, worked_examples} & set(chosen):  # doctests need examples
        chosen = [stub_docstrings, *(habit for habit in chosen if habit not in (short_docstrings, notes_comments))]
    for habit in chosen:
        if habit in (doctest_main, worked_examples) and base in NOT_DOCTESTED:
            continue
        changed = habit(source)
        if changed is not None:
            source, used = changed, [*used, habit.__name__]
    if not used:
        return None
    return "+".join([base, *used]), source


@functools.lru_cache(maxsize=1)
def _honest_files() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Made once per process (0.3 s): the bases and their variants."""
    files = []
    seen: set[str] = set()
    for base, source in bases():
        files.append((base, source, ()))
        seen.add(source)
        rng = random.Random(f"answers-corpus-{base}")
        made = 0
        for _attempt in range(100):
            if made == VARIANTS_PER_BASE:
                break
            chosen = [habit for habit in (rng.choice(slot) for slot in SLOTS) if habit is not None]
            variant = _variant(base, source, chosen)
            if variant is None or variant[1] in seen:
                continue
            seen.add(variant[1])
            files.append((variant[0], variant[1], habits(variant[0])))
            made += 1
    return tuple(files)
