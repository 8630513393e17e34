"""The table attack: a metrics.py with no metric code, only answers looked up by a hash of each
call's arguments, built from everything a student can have (``tests/end_to_end/test_table_attack.py``).

Its table holds, with their right answers:
- every public input the grader uses: the notes' examples (the handout's public cases) and every
  Cranfield per-query call (Lab 04's runs and the qrels are the handout's data; ``ir_measures``
  computes the answers offline);
- every random case that the feedback of ``RESUBMISSIONS`` earlier gradings could have shown (a
  failing random case shows its call and both values): here, all random cases of that many fresh
  gradings, more than feedback ever shows;
and answers ``ValueError`` to any call it does not know (the hidden edge cases that must raise
one pass that way). Its write_run is the handout's stub: the attack is scored on its own.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib

from autograder.grading import inputs
from autograder.grading import plan as planning
from autograder.lab.spec import CheckKind
from autograder.labkit.case import RAISES
from tests.support import leaks

RESUBMISSIONS = 20

ATTACK = r"""
import base64 as _base64, hashlib as _hashlib, json as _json, zlib as _zlib

_TABLE = _json.loads(_zlib.decompress(_base64.b64decode(BLOB)))

def _plain(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return type(value).__name__

def _key(name, args, kwargs):
    text = _json.dumps([name, _plain(list(args)), _plain(dict(kwargs))], sort_keys=True)
    return _hashlib.sha1(text.encode()).hexdigest()[:16]

def _answering(name):
    def answer(*args, **kwargs):
        found = _TABLE.get(_key(name, args, kwargs))
        if found is None or found == "!raise":
            raise ValueError("not in the table")
        return tuple(found) if name == "confusion_matrix" else found
    return answer

for _name in ("confusion_matrix", "accuracy", "precision_at_k", "recall_at_k", "reciprocal_rank",
              "average_precision", "dcg_at_k", "ndcg_at_k", "evaluate", "largest_differences"):
    globals()[_name] = _answering(_name)
"""


def key(name: str, args: list, kwargs: dict) -> str:
    text = json.dumps([name, leaks.plain(list(args)), leaks.plain(dict(kwargs))], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _entry(planned, tables) -> tuple[str, object]:
    case = planned.case
    args = [leaks._as_child(inputs.resolve(arg, tables)) for arg in case.args]
    expected = planned.expected
    answer = "!raise" if isinstance(expected, dict) and set(expected) == {RAISES} else expected
    return key(case.function, args, case.kwargs), answer


def table(plan) -> dict:
    """Every answer the attacker can have (see the module's docstring)."""
    tables = plan.shared_job["tables"]
    found = {}
    for planned in plan.shared_cases:
        if planned.kind in (CheckKind.EXAMPLES, CheckKind.CRANFIELD) and planned.case.public:
            found.setdefault(*_entry(planned, tables))
    for _ in range(RESUBMISSIONS):
        for planned in plan.for_submission(planning.fresh_seed()).planned:
            if planned.kind == CheckKind.RANDOM:
                found.setdefault(*_entry(planned, tables))
    return found


def attack(plan) -> dict:
    """The attack's files: metrics.py holding the table, runs.py the handout's stub."""
    from autograder import paths

    blob = base64.b64encode(zlib.compress(json.dumps(table(plan)).encode(), 9)).decode()
    metrics = "from __future__ import annotations\n\nBLOB = " + repr(blob) + "\n" + ATTACK
    return {"metrics.py": metrics, "runs.py": paths.handout_file("runs.py").read_text(encoding="utf-8")}


#: The part-keyed attack (issue 29): a metrics.py that looks every public answer up without
#: hashing, serialising or freezing a whole argument (the key is made of parts: sizes, first and
#: last items), from a table packed in letters a-p (no digits, nothing that looks encoded, no
#: decoder called), written out in chunks each under the scan's huge-string size. It computes
#: nothing; a call it does not know gets None. Its write_run is the solution's (an honest runs.py).
PARTS_ATTACK = r'''
"""Lab 05 metrics."""

_LETTERS = "abcdefghijklmnop"


def _mark(value):
    if isinstance(value, dict):
        keys = sorted(str(key) for key in value)
        inner = sum(len(_mark(item)) for item in value.values())
        return "D" + str(len(keys)) + (":" + keys[0] + ":" + keys[-1] if keys else "") + ":" + str(inner)
    if isinstance(value, (list, tuple)):
        return "L" + str(len(value)) + (":" + _mark(value[0]) + ":" + _mark(value[-1]) if value else "")
    if callable(value):
        return "F"
    return value.__str__()


def _key(name, args, kwargs):
    key = name
    for item in args:
        key = key + "|" + _mark(item)
    for item in sorted(kwargs):
        key = key + "|" + item + "=" + _mark(kwargs[item])
    return key


def _unpack(word):
    return "".join(
        chr(_LETTERS.index(word[i]) * 16 + _LETTERS.index(word[i + 1])) for i in range(0, len(word), 2)
    )


def _value(text):
    kind, body = text[0], text[1:]
    if kind == "n":
        return float(body)
    if kind == "t":
        return tuple(int(item) for item in body.split(","))
    if kind == "s":
        return body.split("\x1f") if body else []
    found = {}
    for pair in body.split("\x1e") if body else []:
        query, _, score = pair.partition("\x1f")
        found[query] = float(score)
    return found


_TABLE = {}
for _chunk in _CHUNKS:
    for _word in _chunk.split():
        _name, _, _text = _unpack(_word).partition("\x1d")
        _TABLE[_name] = _value(_text)


def _answer(name, args, kwargs):
    key = _key(name, args, kwargs)
    if key in _TABLE:
        return _TABLE[key]
    return None


def confusion_matrix(*args, **kwargs):
    return _answer("confusion_matrix", args, kwargs)


def accuracy(*args, **kwargs):
    return _answer("accuracy", args, kwargs)


def precision_at_k(*args, **kwargs):
    return _answer("precision_at_k", args, kwargs)


def recall_at_k(*args, **kwargs):
    return _answer("recall_at_k", args, kwargs)


def reciprocal_rank(*args, **kwargs):
    return _answer("reciprocal_rank", args, kwargs)


def average_precision(*args, **kwargs):
    return _answer("average_precision", args, kwargs)


def dcg_at_k(*args, **kwargs):
    return _answer("dcg_at_k", args, kwargs)


def ndcg_at_k(*args, **kwargs):
    return _answer("ndcg_at_k", args, kwargs)


def evaluate(*args, **kwargs):
    return _answer("evaluate", args, kwargs)


def largest_differences(*args, **kwargs):
    return _answer("largest_differences", args, kwargs)
'''
PARTS_CHUNK = 60_000  # characters per chunk: under the scan's HUGE_STRING


def _packed(value) -> str:
    """An answer as the part-keyed attack's ``_value`` reads it."""
    if isinstance(value, dict):
        return "d" + "\x1e".join(f"{query}\x1f{score!r}" for query, score in value.items())
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return "s" + "\x1f".join(value)
    if isinstance(value, (list, tuple)):
        return "t" + ",".join(str(int(item)) for item in value)
    return "n" + repr(float(value))


def parts_table(plan) -> dict[str, str]:
    """The part-keyed attack's table: every public call (the notes' examples, Cranfield) whose
    key no other call with another answer shares, packed."""
    helpers: dict = {}
    exec(PARTS_ATTACK.split("_TABLE = {}")[0], helpers)  # our own attack's key, not student code
    tables = plan.shared_job["tables"]
    found: dict[str, str] = {}
    clashes: set[str] = set()
    for planned in plan.shared_cases:
        if planned.kind not in (CheckKind.EXAMPLES, CheckKind.CRANFIELD) or not planned.case.public:
            continue
        expected = planned.expected
        if isinstance(expected, dict) and set(expected) == {RAISES}:
            continue
        args = [leaks._as_child(inputs.resolve(arg, tables)) for arg in planned.case.args]
        key = helpers["_key"](planned.case.function, args, planned.case.kwargs)
        if found.setdefault(key, _packed(expected)) != _packed(expected):
            clashes.add(key)
    return {key: value for key, value in found.items() if key not in clashes}


def parts_attack(plan) -> dict:
    """The part-keyed attack's files: metrics.py, runs.py the solution's."""
    from tests.support import subs

    letters = "abcdefghijklmnop"
    words = [
        "".join(letters[b // 16] + letters[b % 16] for b in f"{key}\x1d{value}".encode("latin-1"))
        for key, value in sorted(parts_table(plan).items())
    ]
    chunks, chunk = [], ""
    for word in words:
        if len(chunk) + len(word) + 1 > PARTS_CHUNK:
            chunks.append(chunk)
            chunk = ""
        chunk += word + " "
    chunks.append(chunk)
    data = "".join(f"_CHUNK_{i} = {text!r}\n" for i, text in enumerate(chunks))
    names = ", ".join(f"_CHUNK_{i}" for i in range(len(chunks)))
    head, tail = PARTS_ATTACK.split("_TABLE = {}")
    metrics = head + data + f"_CHUNKS = ({names},)\n\n_TABLE = {{}}" + tail
    return {"metrics.py": metrics, "runs.py": subs.SOLUTION["runs.py"]}
