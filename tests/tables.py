"""The table attack: a metrics.py with no metric code, only answers looked up by a hash of each
call's arguments, built from everything a student can have (``tests/test_table_attack.py``).

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

import leaks

from autograder.grading import inputs
from autograder.grading import plan as planning
from autograder.lab.spec import CheckKind
from autograder.labkit.case import RAISES

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
