"""Write the answers corpus's lookup and mixed files: ``lab05/metrics.py`` files that look their
answers up instead of computing them, as a student who pasted values could write them.

Usage: ``.venv/bin/python tools/lookup_corpus.py`` (needs Cranfield in ir_datasets' cache). It
writes ``tests/fixtures/answers_corpus/lookup/<name>.py`` and ``labels.json`` (what each file
looks up, how it keys and stores its table, what it computes), the same bytes at every run.

The tables hold the reference's answers (``solutions/``) on the notes' examples (the public
checks' inputs, ``assignment/tests/public_cases.py``) and, for some files, on every Cranfield
query of Lab 04's two runs (the measures of the notes' table): what a student could compute at
home and paste. The functions a file computes are taken from one of the corpus's honest bases.
"""

from __future__ import annotations

import ast
import base64
import functools
import hashlib
import json
import lzma
import marshal
import pickle
import random
import struct
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autograder.labkit import load  # noqa: E402

load.activate()  # Lab 05 (this repository's lab/) as autograder.lab, which this script imports

from autograder.lab import cases, measures  # noqa: E402
from autograder.lab.functions.registry import FUNCTIONS  # noqa: E402
from autograder.lab.solution import reference_metrics  # noqa: E402
from autograder.labkit.case import valid_tuning  # noqa: E402
from autograder.sandbox.child import harness  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "answers_corpus"
OUT = CORPUS / "lookup"

PARAMETERS = {
    "confusion_matrix": ["retrieved", "relevant", "collection_size"],
    "accuracy": ["retrieved", "relevant", "collection_size"],
    "precision_at_k": ["ranking", "judgments", "k", "rel=1"],
    "recall_at_k": ["ranking", "judgments", "k", "rel=1"],
    "reciprocal_rank": ["ranking", "judgments", "rel=1"],
    "average_precision": ["ranking", "judgments", "rel=1"],
    "dcg_at_k": ["ranking", "judgments", "k", 'gain="linear"'],
    "ndcg_at_k": ["ranking", "judgments", "k", 'gain="linear"'],
    "evaluate": ["run", "qrels", "measure"],
    "largest_differences": ["scores_a", "scores_b", "n=2"],
}
PUBLIC = tuple(PARAMETERS)
DEFAULTS = {"confusion_matrix": "(0, 0, 0, 0)", "evaluate": "{}", "largest_differences": "[]"}
PER_QUERY = ("precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k")
CRANFIELD_LABELS = {
    "P@10": "P@10",
    "R@100": "R@100",
    "RR": "RR",
    "AP": "AP",
    "nDCG@10": "nDCG@10",
    "exp": "nDCG@10 exp",
}


def keyed_arguments(function: str, args: tuple, kwargs: dict) -> list:
    """A call's arguments in signature order, defaults filled (what a file's key is made of)."""
    names = [parameter.split("=")[0] for parameter in PARAMETERS[function]]
    defaults = {p.split("=")[0]: ast.literal_eval(p.split("=")[1]) for p in PARAMETERS[function] if "=" in p}
    values = dict(zip(names, args))
    values.update(kwargs)
    ordered = [values.get(name, defaults.get(name)) for name in names]
    return ordered[:2] if function == "evaluate" else ordered  # evaluate is keyed by its run and qrels


# ------------------------------------------------------------------ how a file keys its answers

PLAIN = """
def _plain(value):
    if isinstance(value, Mapping):
        return sorted((str(key), _plain(item)) for key, item in value.items())
    if isinstance(value, (str, int, float)):
        return value
    return [_plain(item) for item in value]
"""

KEYS = {
    "none": ("", "return None  # unused: the functions test their arguments themselves"),
    "repr": ("", "return repr((name, [_plain(a) for a in args]))"),
    "str": ("", 'return name + "|" + "|".join(str(_plain(a)) for a in args)'),
    "json": ("import json", "return json.dumps([name, [_plain(a) for a in args]])"),
    "sha1": (
        "import hashlib\nimport json",
        "return hashlib.sha1(json.dumps([name, [_plain(a) for a in args]]).encode()).hexdigest()",
    ),
    "md5": ("import hashlib", "return hashlib.md5(repr((name, [_plain(a) for a in args])).encode()).hexdigest()[:16]"),
    "crc32": ("import zlib", "return str(zlib.crc32(repr((name, [_plain(a) for a in args])).encode()))"),
    "tuple": ("", "return (name, *(_frozen(_plain(a)) for a in args))"),
    "grade_profile": (
        "",
        "if name not in PER_QUERY:\n"
        "    return repr((name, [_plain(a) for a in args]))\n"
        "ranking, judgments, *rest = args\n"
        "along = tuple(judgments.get(doc, 0) for doc in ranking)\n"
        "return (name, along, tuple(sorted(judgments.values())), *rest)",
    ),
    "query_id": (
        "import hashlib",
        "if name not in PER_QUERY:\n"
        "    return repr((name, [_plain(a) for a in args]))\n"
        "ranking, judgments, *rest = args\n"
        "qid = QUERY_IDS.get(hashlib.md5(repr(_plain(judgments)).encode()).hexdigest()[:12], '?')\n"
        "top = ','.join(str(doc) for doc in list(ranking)[:3])\n"
        "return f\"{name}:{qid}:{top}:{':'.join(map(str, rest))}\"",
    ),
}

FROZEN = """
def _frozen(value):
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    return value
"""


def key_code(keying: str) -> tuple[list[str], str]:
    imports, body = KEYS[keying]
    code = PLAIN
    if keying == "tuple":
        code += "\n" + FROZEN
    code += "\n\ndef _key(name, *args):\n" + "\n".join("    " + line for line in body.splitlines()) + "\n"
    return [line for line in imports.splitlines() if line], code


def key_function(keying: str, query_ids: dict[str, str]):
    """The key function a file of ``keying`` defines, run here to build its table."""
    imports, code = key_code(keying)
    namespace: dict = {"Mapping": Mapping, "QUERY_IDS": query_ids, "PER_QUERY": PER_QUERY}
    exec("\n".join(imports) + "\n" + code, namespace)
    return namespace["_key"]


def judgments_hash(judgments) -> str:
    namespace: dict = {"Mapping": Mapping}
    exec(PLAIN, namespace)
    return hashlib.md5(repr(namespace["_plain"](judgments)).encode()).hexdigest()[:12]


# ------------------------------------------------------------------ the answers


def notes_calls() -> list[tuple[str, str, list, object]]:
    """``(query name, function, keyed arguments, reference answer)`` of every notes example."""
    reference = reference_metrics()
    found = []
    for case, _ in cases.example_cases():
        if case.function not in PUBLIC:
            continue
        args = [harness.resolve(arg, {}) for arg in case.args]
        answer = reference[case.function](*args, **case.kwargs)
        found.append((case.id, case.function, keyed_arguments(case.function, tuple(args), case.kwargs), answer))
    return found


#: Random cases per function a student harvests from feedback (random cases are public: feedback shows
#: the call and the right value), drawn by the grader's generators with a seed of their own.
HARVESTED = 20


def harvested_cases() -> list[tuple[str, str, tuple, dict, object]]:
    """``(case id, function, args, kwargs, reference answer)`` of the random cases a student could copy
    from the feedback of earlier submissions: those without numpy arrays whose tuning the contract
    accepts (a call that must raise has no value to copy)."""
    reference = reference_metrics()
    found = []
    for function in PUBLIC:
        drawn = FUNCTIONS[function].random_cases(random.Random(f"harvested-{function}"), HARVESTED)
        for case in drawn:
            if not valid_tuning(case.kwargs) or any(_numpy_tagged(arg) for arg in case.args):
                continue
            args = tuple(harness.resolve(arg, {}) for arg in case.args)
            try:
                answer = reference[function](*args, **case.kwargs)
            except ValueError:  # e.g. a collection too small for its documents
                continue
            found.append((case.id, function, args, dict(case.kwargs), answer))
    return found


def _numpy_tagged(value) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("$array", "$arrays")


def feedback_calls() -> list[tuple[str, str, list, object]]:
    """The harvested cases as rows of a table: ``(case id, function, keyed arguments, answer)``."""
    return [
        (case_id, function, keyed_arguments(function, args, kwargs), answer)
        for case_id, function, args, kwargs, answer in harvested_cases()
    ]


def cranfield_calls(labels: tuple[str, ...], systems: tuple[str, ...]) -> list[tuple[str, str, list, object]]:
    """The same for every Cranfield query of ``systems``' runs and the measures ``labels``."""
    return [row for system in systems for label in labels for row in _cranfield_rows(system, label)]


@functools.cache
def _cranfield_rows(system: str, label: str) -> tuple[tuple[str, str, list, object], ...]:
    from autograder.lab import cranfield

    bundle = cranfield.bundle()
    reference = reference_metrics()
    rankings = bundle["systems"][system]["rankings"]
    spec = measures.CRANFIELD[CRANFIELD_LABELS[label]]
    found = []
    for query_id, judgments in bundle["qrels"].items():
        ranking = rankings.get(query_id, [])
        kwargs = dict(spec.kwargs)
        answer = reference[spec.function](ranking, judgments, **kwargs)
        found.append((query_id, spec.function, keyed_arguments(spec.function, (ranking, judgments), kwargs), answer))
    return tuple(found)


def plain_answer(value):
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, dict):
        return {str(key): plain_answer(item) for key, item in value.items()}
    return value


# ------------------------------------------------------------------ how a file stores its answers


def _literal(value) -> str:
    return repr(value)


def _blob_lines(text: str, width: int = 100) -> str:
    return "\n".join(f"    {text[i : i + width]!r}" for i in range(0, len(text), width))


def storage_code(storage: str, table: dict, functions: list[str], key_of) -> tuple[list[str], str]:
    """Imports and code defining ``_answer(name, key)``: the stored answer or ``MISSING``."""
    plain = {key: plain_answer(value) for key, value in table.items()}
    if storage == "dict":
        rows = "\n".join(f"    {_literal(key)}: {_literal(value)}," for key, value in plain.items())
        return [], f"ANSWERS = {{\n{rows}\n}}\n\n\ndef _answer(name, key):\n    return ANSWERS.get(key, MISSING)\n"
    if storage == "split":
        parts, names = [], []
        for function in functions:
            mine = {key: value for (name, key), value in _by_function(plain, key_of).items() if name == function}
            if not mine:
                continue
            rows = "\n".join(f"    {_literal(key)}: {_literal(value)}," for key, value in mine.items())
            parts.append(f"{function.upper()} = {{\n{rows}\n}}")
            names.append(f'    "{function}": {function.upper()},')
        tables = "\n\n".join(parts)
        return [], (
            f"{tables}\n\nTABLES = {{\n" + "\n".join(names) + "\n}\n\n\n"
            "def _answer(name, key):\n    return TABLES.get(name, {}).get(key, MISSING)\n"
        )
    text = json.dumps(plain, sort_keys=True, separators=(",", ":")) if storage in ("json_string", "b64_zlib") else ""
    if storage == "json_string":
        return ["import json"], f"ANSWERS = json.loads(\n{_blob_lines(text)}\n)\n\n\n" + _GET
    if storage == "b64_zlib":
        blob = base64.b64encode(zlib.compress(text.encode(), 9)).decode()
        return ["import base64", "import json", "import zlib"], (
            f"_BLOB = (\n{_blob_lines(blob)}\n)\nANSWERS = json.loads(zlib.decompress(base64.b64decode(_BLOB)))\n\n\n"
            + _GET
        )
    if storage == "pickle":
        blob = base64.b85encode(pickle.dumps(plain, protocol=4)).decode()
        return ["import base64", "import pickle"], (
            f"_DATA = (\n{_blob_lines(blob)}\n)\nANSWERS = pickle.loads(base64.b85decode(_DATA))\n\n\n" + _GET
        )
    if storage == "sqlite":
        rows = "\n".join(f"    ({_literal(key)}, {_literal(json.dumps(value))})," for key, value in plain.items())
        return ["import json", "import sqlite3"], (
            f"_ROWS = [\n{rows}\n]\n"
            '_DB = sqlite3.connect(":memory:")\n'
            '_DB.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, value TEXT)")\n'
            '_DB.executemany("INSERT INTO answers VALUES (?, ?)", _ROWS)\n\n\n'
            "def _answer(name, key):\n"
            '    row = _DB.execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()\n'
            "    return MISSING if row is None else json.loads(row[0])\n"
        )
    if storage == "lists":
        keys = "\n".join(f"    {_literal(key)}," for key in plain)
        values = "\n".join(f"    {_literal(value)}," for value in plain.values())
        return [], (
            f"KEYS = [\n{keys}\n]\nVALUES = [\n{values}\n]\n\n\n"
            "def _answer(name, key):\n    if key in KEYS:\n        return VALUES[KEYS.index(key)]\n    return MISSING\n"
        )
    if storage == "csv":
        lines = "\n".join(f"{key};{json.dumps(value)}" for key, value in plain.items())
        return ["import csv", "import io", "import json"], (
            f'_CSV = """\\\n{lines}\n"""\n'
            'ANSWERS = {row[0]: json.loads(row[1]) for row in csv.reader(io.StringIO(_CSV), delimiter=";")}\n\n\n'
            + _GET
        )
    if storage == "docstring":
        lines = "\n".join(f"{key}\t{json.dumps(value)}" for key, value in plain.items())
        return ["import json"], (
            f'NOTES = """Values I computed for the checks (key, value).\n\n{lines}\n"""\n'
            "ANSWERS = {}\n"
            "for _line in NOTES.splitlines()[2:]:\n"
            '    _k, _v = _line.split("\\t")\n'
            "    ANSWERS[_k] = json.loads(_v)\n\n\n" + _GET
        )
    if storage == "ifelif":
        branches = []
        for index, (key, value) in enumerate(plain.items()):
            word = "if" if index == 0 else "elif"
            branches.append(f"    {word} key == {_literal(key)}:\n        return {_literal(value)}")
        return [], "def _answer(name, key):\n" + "\n".join(branches) + "\n    return MISSING\n"
    if storage == "bisect":
        pairs = sorted(plain.items())
        keys = "\n".join(f"    {_literal(key)}," for key, _ in pairs)
        values = "\n".join(f"    {_literal(value)}," for _, value in pairs)
        return ["from bisect import bisect_left"], (
            f"SORTED_KEYS = [\n{keys}\n]\nSORTED_VALUES = [\n{values}\n]\n\n\n"
            "def _answer(name, key):\n"
            "    i = bisect_left(SORTED_KEYS, key)\n"
            "    if i < len(SORTED_KEYS) and SORTED_KEYS[i] == key:\n"
            "        return SORTED_VALUES[i]\n"
            "    return MISSING\n"
        )
    if storage == "marshal":
        blob = base64.b64encode(marshal.dumps(plain)).decode()
        return ["import base64", "import marshal"], (
            f"_M = (\n{_blob_lines(blob)}\n)\nANSWERS = marshal.loads(base64.b64decode(_M))\n\n\n" + _GET
        )
    if storage == "pairs":
        rows = "\n".join(f"    ({_literal(key)}, {_literal(value)})," for key, value in plain.items())
        return [], (
            f"PAIRS = [\n{rows}\n]\n\n\n"
            "def _answer(name, key):\n    for known, value in PAIRS:\n        if known == key:\n"
            "            return value\n    return MISSING\n"
        )
    if storage == "lines":
        lines = "\n".join(f"{key} => {json.dumps(value)}" for key, value in plain.items())
        return ["import json"], (
            f'_TABLE = """\n{lines}\n"""\n'
            "ANSWERS = {}\n"
            "for _row in _TABLE.strip().splitlines():\n"
            '    _key_text, _, _value = _row.partition(" => ")\n'
            "    ANSWERS[_key_text] = json.loads(_value)\n\n\n" + _GET
        )
    if storage == "hex":
        blob = json.dumps(plain, sort_keys=True).encode().hex()
        return ["import json"], (
            f"_HEX = (\n{_blob_lines(blob)}\n)\nANSWERS = json.loads(bytes.fromhex(_HEX).decode())\n\n\n" + _GET
        )
    if storage == "lzma":
        blob = base64.b85encode(lzma.compress(json.dumps(plain, sort_keys=True).encode(), preset=9)).decode()
        return ["import base64", "import json", "import lzma"], (
            f"_L = (\n{_blob_lines(blob)}\n)\nANSWERS = json.loads(lzma.decompress(base64.b85decode(_L)))\n\n\n" + _GET
        )
    if storage == "struct":
        keys = "\n".join(f"    {_literal(key)}," for key in plain)
        packed = base64.b64encode(struct.pack(f"<{len(plain)}d", *(float(v) for v in plain.values()))).decode()
        return ["import base64", "import struct"], (
            f"KEYS = [\n{keys}\n]\n_PACKED = (\n{_blob_lines(packed)}\n)\n"
            'VALUES = dict(zip(KEYS, struct.unpack(f"<{len(KEYS)}d", base64.b64decode(_PACKED))))\n\n\n'
            "def _answer(name, key):\n    return VALUES.get(key, MISSING)\n"
        )
    if storage == "chunks":
        items = list(plain.items())
        parts = []
        for start in range(0, len(items), 8):
            rows = "\n".join(f"    {_literal(key)}: {_literal(value)}," for key, value in items[start : start + 8])
            parts.append(f"_PART_{start // 8} = {{\n{rows}\n}}")
        names = ", ".join(f"_PART_{i}" for i in range(len(parts)))
        return [], (
            "\n".join(parts) + f"\nTABLES = [{names}]\n\n\n"
            "def _answer(name, key):\n    for part in TABLES:\n        if key in part:\n"
            "            return part[key]\n    return MISSING\n"
        )
    raise ValueError(f"unknown storage {storage!r}")


_GET = "def _answer(name, key):\n    return ANSWERS.get(key, MISSING)\n"


def _by_function(plain: dict, key_of) -> dict:
    return {(key_of[key], key): value for key, value in plain.items()}


# ------------------------------------------------------------------ a file


def lookup_function(function: str, fallback: bool) -> str:
    parameters = PARAMETERS[function]
    names = [parameter.split("=")[0] for parameter in parameters]
    keyed = names[:2] if function == "evaluate" else names
    call = ", ".join(names)
    answer_of = "tuple(answer)" if function == "confusion_matrix" else "answer"
    missing = f"return _computed_{function}({call})" if fallback else f"return {DEFAULTS.get(function, '0.0')}"
    return (
        f"def {function}({', '.join(parameters)}):\n"
        f'    answer = _answer("{function}", _key("{function}", {", ".join(keyed)}))\n'
        "    if answer is not MISSING:\n"
        f"        return {answer_of}\n"
        f"    {missing}\n"
    )


def honest_functions(base: str, looks_up: list[str], fallback: bool) -> str:
    """The base's code: looked-up functions renamed ``_computed_<name>`` (their fallback) or left out."""
    source = (CORPUS / "honest" / f"{base}.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in sorted(tree.body, key=lambda n: n.lineno, reverse=True):
        if isinstance(node, ast.FunctionDef) and node.name in looks_up:
            if fallback:
                lines[node.lineno - 1] = lines[node.lineno - 1].replace(
                    f"def {node.name}(", f"def _computed_{node.name}("
                )
            else:
                start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
                del lines[start : node.end_lineno]
    return "\n".join(lines) + "\n"


def _condition(name: str, value) -> str:
    if isinstance(value, Mapping):
        return f"dict({name}) == {dict(value)!r}"
    if isinstance(value, (list, tuple)):
        return f"list({name}) == {list(value)!r}"
    return f"{name} == {value!r}"


def chained_function(function: str, rows: list, fallback: bool) -> str:
    """A looked-up function as an if chain on its arguments themselves (no key, no table)."""
    parameters = PARAMETERS[function]
    names = [parameter.split("=")[0] for parameter in parameters]
    seen: set[str] = set()
    branches = []
    for _query, called, args, answer in rows:
        if called != function:
            continue
        test = " and ".join(_condition(name, value) for name, value in zip(names, args))
        if test in seen:
            continue
        seen.add(test)
        branches.append(f"    if {test}:\n        return {plain_answer(answer)!r}")
    call = ", ".join(names)
    missing = f"return _computed_{function}({call})" if fallback else f"return {DEFAULTS.get(function, '0.0')}"
    return f"def {function}({', '.join(parameters)}):\n" + "\n".join(branches) + f"\n    {missing}\n"


def make_file(spec: dict, notes: list, cranfield_rows: list) -> tuple[str, dict]:
    """The text of one lookup or mixed file and its label."""
    query_ids = {
        judgments_hash(args[1]): query for query, function, args, _ in notes + cranfield_rows if function in PER_QUERY
    }
    key = key_function(spec["keys"], query_ids)
    table: dict = {}
    key_of: dict = {}
    for _query, function, args, answer in notes + cranfield_rows:
        if function not in spec["looks_up"] or spec["storage"] == "inputs_ifelif":
            continue
        made = key(function, *args)
        if made in table and plain_answer(table[made]) != plain_answer(answer):
            raise ValueError(f"{spec['name']}: two calls share the key {made!r} with different answers")
        table[made], key_of[made] = answer, function
    chained = spec["storage"] == "inputs_ifelif"
    imports, code = ([], "") if chained else storage_code(spec["storage"], table, list(spec["looks_up"]), key_of)
    key_imports, keys = key_code(spec["keys"])
    honest = honest_functions(spec["base"], spec["looks_up"], spec["fallback"])
    tree = ast.parse(honest)
    header_end = max((n.end_lineno or 0) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
    honest_lines = honest.splitlines()
    imported = {alias.asname or alias.name for n in tree.body if isinstance(n, ast.ImportFrom) for alias in n.names}
    mapping = [] if "Mapping" in imported else ["from collections.abc import Mapping"]
    extra = sorted(set(imports + key_imports + mapping))
    head = "\n".join(honest_lines[:header_end] + [line for line in extra if line not in honest_lines])
    ids = ""
    if spec["keys"] == "query_id":
        rows = "\n".join(f"    {digest!r}: {query!r}," for digest, query in sorted(query_ids.items()))
        ids = f"# which query is it? (md5 of its judgments)\nQUERY_IDS = {{\n{rows}\n}}\nPER_QUERY = {PER_QUERY!r}\n\n"
    elif spec["keys"] == "grade_profile":
        ids = f"# the answer depends only on the grades, in ranking order and in all\nPER_QUERY = {PER_QUERY!r}\n\n"
    body = "\n".join(honest_lines[header_end:]).strip("\n")
    if chained:  # the answers written in the functions, tests on their arguments
        head = "\n".join(honest_lines[:header_end])
        lookups = "\n\n".join(chained_function(f, notes + cranfield_rows, spec["fallback"]) for f in spec["looks_up"])
        text = f"{head}\n\n\n{body}\n\n\n{lookups}".rstrip("\n") + "\n"
    else:
        lookups = "\n\n".join(lookup_function(function, spec["fallback"]) for function in spec["looks_up"])
        text = f"{head}\n\nMISSING = object()\n\n{ids}{code}\n{keys}\n\n{body}\n\n\n{lookups}".rstrip("\n") + "\n"
    text = text.replace("\n\n\n\n", "\n\n\n")
    ast.parse(text)  # a file that does not parse would measure nothing
    computes = [function for function in PUBLIC if function not in spec["looks_up"]]
    return text, {
        "kind": spec["kind"],
        "looks_up": list(spec["looks_up"]),
        "computes": computes,
        "fallback": {function: f"_computed_{function}" for function in spec["looks_up"]} if spec["fallback"] else {},
        "keys": spec["keys"],
        "storage": spec["storage"],
        "tables": [
            "notes",
            *(["feedback"] if spec.get("feedback") else []),
            *(["cranfield"] if cranfield_rows else []),
        ],
        "cranfield": {
            "measures": [CRANFIELD_LABELS[label] for label in spec.get("cranfield", ())],
            "systems": list(spec.get("systems", ())),
        },
        "base": spec["base"],
        "entries": text.count("\n    if ") if chained else len(table),
    }


#: Keys that hold no Cranfield data (a digest, a query id): only these key Cranfield's tables (a key
#: made of the arguments' text would write Cranfield's judgments into the file).
DIGEST_KEYS = ("sha1", "md5", "crc32", "query_id", "grade_profile")


def specs() -> list[dict]:
    """The corpus's lookup and mixed files: every storage with several keys and bases."""
    metrics = ["precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k"]
    everything = list(PUBLIC)
    ranked = [
        ("dict", "repr", metrics, False, (), (), "loops"),
        ("dict", "tuple", metrics, True, (), (), "comprehensions"),
        ("dict", "query_id", metrics, False, ("P@10", "R@100", "RR", "AP", "nDCG@10", "exp"), ("tfidf",), "classes"),
        ("split", "md5", metrics, False, ("AP", "RR"), ("tfidf", "bm25"), "match_enum"),
        ("split", "str", everything, False, (), (), "loops"),
        ("json_string", "json", metrics, False, (), (), "comprehensions"),
        ("json_string", "sha1", metrics, True, ("P@10", "AP"), ("tfidf",), "numpy_arrays"),
        (
            "b64_zlib",
            "sha1",
            metrics,
            False,
            ("P@10", "R@100", "RR", "AP", "nDCG@10", "exp"),
            ("tfidf", "bm25"),
            "loops",
        ),
        ("b64_zlib", "repr", everything, True, (), (), "classes"),
        ("pickle", "tuple", metrics, False, (), (), "fractions_exact"),
        ("pickle", "md5", everything, False, ("AP", "nDCG@10"), ("bm25",), "match_enum"),
        ("sqlite", "crc32", metrics, False, ("P@10", "RR"), ("tfidf",), "loops"),
        ("sqlite", "md5", metrics, True, (), (), "comprehensions"),
        ("lists", "crc32", metrics, False, ("AP",), ("tfidf",), "numpy_arrays"),
        ("lists", "json", everything, False, (), (), "loops"),
        ("csv", "md5", metrics, False, ("nDCG@10", "exp"), ("tfidf", "bm25"), "classes"),
        ("csv", "query_id", metrics, True, ("P@10",), ("bm25",), "match_enum"),
        ("docstring", "sha1", metrics, False, (), (), "comprehensions"),
        ("docstring", "query_id", metrics, False, ("AP", "P@10"), ("tfidf",), "loops"),
        ("ifelif", "repr", metrics, False, (), (), "classes"),
        ("ifelif", "str", everything, False, (), (), "fractions_exact"),
        ("bisect", "sha1", metrics, False, ("RR",), ("tfidf", "bm25"), "comprehensions"),
        ("bisect", "crc32", metrics, True, (), (), "loops"),
        ("marshal", "sha1", metrics + ["confusion_matrix", "accuracy"], False, ("P@10", "AP"), ("bm25",), "decimals"),
        ("marshal", "tuple", everything, True, (), (), "sqlite_counts"),
        ("pairs", "repr", metrics, False, (), (), "dataclass_typed"),
        ("pairs", "grade_profile", metrics, False, ("AP", "nDCG@10"), ("tfidf",), "heapq_counter"),
        ("lines", "md5", metrics, False, ("R@100", "RR"), ("tfidf", "bm25"), "statistics_fsum"),
        ("lines", "str", everything, True, (), (), "functional_reduce"),
        ("hex", "json", metrics, False, (), (), "while_index"),
        ("hex", "crc32", metrics, True, ("P@10", "nDCG@10"), ("bm25",), "recursion"),
        (
            "lzma",
            "sha1",
            everything,
            False,
            ("P@10", "R@100", "RR", "AP", "nDCG@10", "exp"),
            ("bm25",),
            "early_returns",
        ),
        ("lzma", "repr", metrics, True, (), (), "lru_helpers"),
        ("struct", "md5", metrics, False, ("AP", "P@10", "RR"), ("tfidf", "bm25"), "closures"),
        ("struct", "grade_profile", metrics, True, ("nDCG@10", "exp"), ("tfidf",), "beginner_verbose"),
        ("dict", "grade_profile", metrics, False, ("P@10", "AP"), ("tfidf",), "one_liners"),
        ("sqlite", "query_id", metrics, False, ("AP", "RR"), ("bm25",), "try_except"),
        ("json_string", "md5", metrics + ["largest_differences"], False, ("nDCG@10",), ("tfidf",), "protocol_typing"),
        ("split", "sha1", metrics, True, ("P@10", "AP"), ("tfidf", "bm25"), "numpy_vector"),
        ("b64_zlib", "query_id", metrics, True, ("P@10", "R@100", "RR", "AP", "nDCG@10"), ("tfidf",), "dict_dispatch"),
        ("pickle", "grade_profile", metrics, False, ("RR", "AP"), ("bm25",), "sets_sorted_keys"),
        ("csv", "crc32", metrics + ["confusion_matrix", "accuracy"], False, (), (), "memo_class"),
        (
            "ifelif",
            "tuple",
            ["precision_at_k", "average_precision", "ndcg_at_k", "reciprocal_rank"],
            False,
            (),
            (),
            "itertools_compress",
        ),
        ("bisect", "md5", metrics, False, ("AP",), ("bm25",), "generators"),
        ("docstring", "crc32", everything, True, (), (), "accumulate_bisect"),
        ("inputs_ifelif", "none", metrics, False, (), (), "loops"),
        ("inputs_ifelif", "none", everything, True, (), (), "dataclass_typed"),
        ("chunks", "sha1", metrics, False, ("P@10", "AP", "nDCG@10"), ("tfidf",), "while_index"),
        ("chunks", "repr", metrics + ["confusion_matrix", "accuracy"], True, (), (), "closures"),
    ]
    # the notes' examples as a table, every metric computed for anything else (borderline)
    mixed = [
        ("dict", "repr", metrics, "loops"),
        ("dict", "str", metrics + ["confusion_matrix", "accuracy"], "classes"),
        ("json_string", "json", everything, "match_enum"),
        ("ifelif", "repr", ["precision_at_k", "average_precision", "ndcg_at_k"], "comprehensions"),
        ("lists", "tuple", metrics, "fractions_exact"),
        ("sqlite", "md5", metrics, "numpy_arrays"),
    ]
    made = [
        {
            "name": f"mixed_{number:02d}_{storage}_{keys}",
            "kind": "mixed",
            "storage": storage,
            "keys": keys,
            "looks_up": looks_up,
            "fallback": True,
            "cranfield": (),
            "systems": (),
            "base": base,
        }
        for number, (storage, keys, looks_up, base) in enumerate(mixed, start=1)
    ]
    for number, (storage, keys, looks_up, fallback, measured, systems, base) in enumerate(ranked, start=1):
        if measured and keys not in DIGEST_KEYS:
            raise ValueError(f"lookup {number}: Cranfield's tables are keyed by a digest or a query id, not {keys}")
        made.append(
            {
                "name": f"lookup_{number:02d}_{storage}_{keys}",
                "kind": "lookup",
                "storage": storage,
                "keys": keys,
                "looks_up": looks_up,
                "fallback": fallback,
                "cranfield": measured,
                "systems": systems,
                "base": base,
            }
        )
    # the notes' examples and the random cases of earlier feedback (as if their seed never changed)
    harvested = [
        ("dict", "repr", everything, False, "statistics_fsum"),
        ("b64_zlib", "sha1", metrics + ["largest_differences"], False, "heapq_counter"),
        ("sqlite", "json", everything, True, "recursion"),
        ("inputs_ifelif", "none", metrics, False, "try_except"),
    ]
    for number, (storage, keys, looks_up, fallback, base) in enumerate(harvested, start=len(ranked) + 1):
        made.append(
            {
                "name": f"lookup_{number:02d}_{storage}_{keys}_feedback",
                "kind": "lookup",
                "storage": storage,
                "keys": keys,
                "looks_up": looks_up,
                "fallback": fallback,
                "cranfield": (),
                "systems": (),
                "base": base,
                "feedback": True,
            }
        )
    return made


def corpus() -> dict[str, str]:
    """Every file the tool writes, ``{file name: text}``: the lookup and mixed files, ``labels.json``."""
    notes = notes_calls()
    texts, labels = {}, {}
    harvested = feedback_calls()
    for spec in specs():
        rows = cranfield_calls(spec["cranfield"], spec["systems"]) if spec["cranfield"] else []
        tabled = notes + harvested if spec.get("feedback") else notes
        texts[f"{spec['name']}.py"], labels[spec["name"]] = make_file(spec, tabled, rows)
    texts["labels.json"] = json.dumps(labels, indent=1, sort_keys=True) + "\n"
    return texts


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    texts = corpus()
    for stale in OUT.iterdir():
        if stale.name not in texts:
            stale.unlink()
    for name, text in texts.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(texts) - 1} files and their labels to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
