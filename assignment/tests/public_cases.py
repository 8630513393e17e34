"""The notes' worked examples as public checks: one table for pytest and for the notebook.

``test_public.py`` runs every case with pytest; ``checks.py`` runs the cases of one question for
``grader.check("qN")`` in ``lab05.ipynb``. Each case names the
function, its input, the value the notes give and, when your value differs, a hint.
"""

from __future__ import annotations

import importlib
import math
import os
import tempfile
from dataclasses import dataclass, field
from types import MappingProxyType, SimpleNamespace

TOLERANCE = 1e-6

TOY = ["D1", "D2", "D3", "D4", "D5"]  # R N R N R (Part II)
TOY_JUDGMENTS = {"D1": 1, "D3": 1, "D5": 1}
TOY_PLUS_TWO = {"D1": 1, "D3": 1, "D5": 1, "D6": 1, "D7": 1}  # 2 relevant never retrieved
TEN = [f"D{i}" for i in range(1, 11)]  # rankings A and B (Part III)
A_JUDGMENTS = {"D1": 1, "D2": 1, "D3": 1}  # A = R R R N N N N N N N
B_JUDGMENTS = {"D8": 1, "D9": 1, "D10": 1}  # B = N N N N N N N R R R
NDCG_RANKING = ["A", "B", "C", "D"]  # grades [3, 0, 2, 1] (Part IV)
NDCG_JUDGMENTS = {"A": 3, "B": 0, "C": 2, "D": 1}
NDCG_WORST = ["B", "D", "C", "A"]  # the same documents, grades [0, 1, 2, 3]
SEVEN_RELEVANT = [f"R{i}" for i in range(1, 8)]  # a Cranfield-like query (Part II)
TEN_GRADE_3 = {f"G{i}": 3 for i in range(1, 11)}


def _log2(i: int) -> float:
    return math.log2(i)


@dataclass(frozen=True)
class Case:
    id: str
    question: str
    function: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    expected: object = None
    shown: str = ""  # the expected value as the notes write it
    hint: str = ""  # what a wrong value usually means

    def call(self) -> str:
        parts = [_show(arg) for arg in self.args] + [f"{key}={_show(value)}" for key, value in self.kwargs.items()]
        return f"{self.function}({', '.join(parts)})"


def _show(value) -> str:
    return value.__name__ if callable(value) else repr(value)


def ranking_length(ranking, judgments):
    """A measure for evaluate's example: how many documents the ranking holds."""
    return len(ranking)


def search_two(text, k):
    """A tiny search function for write_run: two results for "query one", none otherwise."""
    hits = {"query one": [("D7", "Title 7", 2.5), ("D3", "Title 3", 1.123456789), ("D9", "Title 9", 0.5)]}
    return hits.get(text, [])[:k]


QUERIES = [SimpleNamespace(query_id="1", text="query one"), SimpleNamespace(query_id="2", text="query two")]

P_HINT = "P@k divides the relevant documents in the top k by k (Part II)"
R_HINT = "Recall@k divides the relevant documents in the top k by R, all relevant documents of the query (Part II)"
AP_HINT = (
    "AP adds P@i at every rank i holding a relevant document and divides by R, all relevant "
    "documents of the query, retrieved or not (Part III)"
)
DCG_HINT = (
    "DCG@k adds gain(grade) / log2(i + 1) over the ranks i = 1..k: gain='exp' is 2**grade - 1, "
    "and rank 1 is divided by 1, rank 2 by 1.585 (Part IV)"
)
NDCG_HINT = (
    "IDCG@k is the DCG@k of all judged documents sorted by grade, highest first, cut at k; "
    "gain='exp' is 2**grade - 1 and gain='linear' the grade itself (Part IV)"
)

CASES = [
    Case(
        "accuracy-cells",
        "q1",
        "confusion_matrix",
        ([], SEVEN_RELEVANT, 1400),
        expected=(0, 0, 7, 1393),
        shown="(TP, FP, FN, TN) = (0, 0, 7, 1393)",
        hint="returning nothing leaves the 7 relevant documents as false negatives and the "
        "other 1,393 as true negatives (Part II)",
    ),
    Case(
        "toy-cells",
        "q1",
        "confusion_matrix",
        (TOY, ["D1", "D3", "D5"], 30),
        expected=(3, 2, 0, 25),
        shown="(3, 2, 0, 25)",
        hint="TN counts the documents neither retrieved nor relevant",
    ),
    Case(
        "accuracy-empty-system",
        "q1",
        "accuracy",
        ([], SEVEN_RELEVANT, 1400),
        expected=1393 / 1400,
        shown="1393 / 1400 = 99.5%",
        hint="accuracy is (TP + TN) / N (Part II)",
    ),
    *[
        Case(
            f"toy-p@{k}",
            "q2",
            "precision_at_k",
            (TOY, TOY_JUDGMENTS),
            {"k": k},
            expected=value,
            shown=shown,
            hint=P_HINT,
        )
        for k, value, shown in [(1, 1.0, "1/1"), (2, 0.5, "1/2"), (3, 2 / 3, "2/3"), (4, 0.5, "2/4"), (5, 0.6, "3/5")]
    ],
    Case(
        "toy-p@10-short-ranking",
        "q2",
        "precision_at_k",
        (TOY, TOY_JUDGMENTS),
        {"k": 10},
        expected=0.3,
        shown="3/10",
        hint="P@10 divides by k = 10 even when the ranking has only 5 documents",
    ),
    Case(
        "ranking-a-p@10", "q2", "precision_at_k", (TEN, A_JUDGMENTS), {"k": 10}, expected=0.3, shown="0.3", hint=P_HINT
    ),
    Case(
        "ranking-b-p@10", "q2", "precision_at_k", (TEN, B_JUDGMENTS), {"k": 10}, expected=0.3, shown="0.3", hint=P_HINT
    ),
    *[
        Case(
            f"toy-recall@{k}",
            "q2",
            "recall_at_k",
            (TOY, TOY_JUDGMENTS),
            {"k": k},
            expected=value,
            shown=shown,
            hint=R_HINT,
        )
        for k, value, shown in [
            (1, 1 / 3, "1/3"),
            (2, 1 / 3, "1/3"),
            (3, 2 / 3, "2/3"),
            (4, 2 / 3, "2/3"),
            (5, 1.0, "3/3"),
        ]
    ],
    Case(
        "toy-recall@5-two-missed",
        "q2",
        "recall_at_k",
        (TOY, TOY_PLUS_TWO),
        {"k": 5},
        expected=0.6,
        shown="3/5",
        hint="relevant documents the ranking never reaches still count in R",
    ),
    Case(
        "toy-rr",
        "q3",
        "reciprocal_rank",
        (TOY, TOY_JUDGMENTS),
        expected=1.0,
        shown="1/1",
        hint="RR is 1 / the rank of the first relevant document, the top document being rank 1 (Part III)",
    ),
    Case("ranking-a-rr", "q3", "reciprocal_rank", (TEN, A_JUDGMENTS), expected=1.0, shown="1"),
    Case(
        "ranking-b-rr",
        "q3",
        "reciprocal_rank",
        (TEN, B_JUDGMENTS),
        expected=0.125,
        shown="1/8",
        hint="RR is 1 / the rank of the first relevant document: B's is at rank 8 (Part III)",
    ),
    Case(
        "toy-ap",
        "q3",
        "average_precision",
        (TOY, TOY_JUDGMENTS),
        expected=(1 + 2 / 3 + 3 / 5) / 3,
        shown="(1 + 2/3 + 3/5) / 3 = 0.756",
        hint=AP_HINT,
    ),
    Case("ranking-a-ap", "q3", "average_precision", (TEN, A_JUDGMENTS), expected=1.0, shown="1.0", hint=AP_HINT),
    Case(
        "ranking-b-ap",
        "q3",
        "average_precision",
        (TEN, B_JUDGMENTS),
        expected=(1 / 8 + 2 / 9 + 3 / 10) / 3,
        shown="(1/8 + 2/9 + 3/10) / 3 = 0.216",
        hint=AP_HINT,
    ),
    Case(
        "toy-ap-two-missed",
        "q3",
        "average_precision",
        (TOY, TOY_PLUS_TWO),
        expected=(1 + 2 / 3 + 3 / 5) / 5,
        shown="(1 + 2/3 + 3/5) / 5",
        hint=AP_HINT,
    ),
    Case(
        "worked-dcg-exp",
        "q4",
        "dcg_at_k",
        (NDCG_RANKING, NDCG_JUDGMENTS),
        {"k": 4, "gain": "exp"},
        expected=7 + 3 / 2 + 1 / _log2(5),
        shown="7 + 0 + 3/2 + 1/2.322 = 8.931",
        hint=DCG_HINT,
    ),
    Case(
        "ideal-dcg-exp",
        "q4",
        "dcg_at_k",
        (["A", "C", "D", "B"], NDCG_JUDGMENTS),
        {"k": 4, "gain": "exp"},
        expected=7 + 3 / _log2(3) + 1 / 2,
        shown="IDCG@4 = 7 + 3/1.585 + 1/2 + 0 = 9.393",
        hint=DCG_HINT,
    ),
    Case(
        "worst-dcg-exp",
        "q4",
        "dcg_at_k",
        (NDCG_WORST, NDCG_JUDGMENTS),
        {"k": 4, "gain": "exp"},
        expected=1 / _log2(3) + 3 / 2 + 7 / _log2(5),
        shown="0 + 1/1.585 + 3/2 + 7/2.322 = 5.146",
        hint=DCG_HINT,
    ),
    Case(
        "ten-grade-3-dcg-exp",
        "q4",
        "dcg_at_k",
        (sorted(TEN_GRADE_3), TEN_GRADE_3),
        {"k": 10, "gain": "exp"},
        expected=sum(7 / _log2(i + 1) for i in range(1, 11)),
        shown="31.8",
        hint=DCG_HINT,
    ),
    Case(
        "worked-dcg-linear",
        "q4",
        "dcg_at_k",
        (NDCG_RANKING, NDCG_JUDGMENTS),
        {"k": 4},
        expected=3 + 2 / 2 + 1 / _log2(5),
        shown="3 + 0 + 2/2 + 1/2.322 = 4.431",
        hint="DCG@k adds gain(grade) / log2(i + 1) over the ranks i = 1..k: gain='linear' (the default) is the "
        "grade itself (Part IV)",
    ),
    Case(
        "worked-ndcg-exp",
        "q4",
        "ndcg_at_k",
        (NDCG_RANKING, NDCG_JUDGMENTS),
        {"k": 4, "gain": "exp"},
        expected=(7 + 3 / 2 + 1 / _log2(5)) / (7 + 3 / _log2(3) + 1 / 2),
        shown="8.931 / 9.393 = 0.951",
        hint=NDCG_HINT,
    ),
    Case(
        "worst-ndcg-exp",
        "q4",
        "ndcg_at_k",
        (NDCG_WORST, NDCG_JUDGMENTS),
        {"k": 4, "gain": "exp"},
        expected=(1 / _log2(3) + 3 / 2 + 7 / _log2(5)) / (7 + 3 / _log2(3) + 1 / 2),
        shown="5.146 / 9.393 = 0.548",
        hint=NDCG_HINT,
    ),
    Case(
        "worked-ndcg-linear",
        "q4",
        "ndcg_at_k",
        (NDCG_RANKING, NDCG_JUDGMENTS),
        {"k": 4},
        expected=(3 + 2 / 2 + 1 / _log2(5)) / (3 + 2 / _log2(3) + 1 / 2),
        shown="0.930 (ir_measures' nDCG@4)",
        hint=NDCG_HINT,
    ),
    Case(
        "two-queries-run",
        "q5",
        "write_run",
        ("demo.run", "demo", search_two, QUERIES),
        {"k": 2},
        expected=[("1", "Q0", "D7", 1, 2.5, "demo"), ("1", "Q0", "D3", 2, 1.123456789, "demo")],
        shown="two lines for query 1 (k=2 cuts the third result), none for query 2",
        hint="one line per result: f'{query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}', rank from 1",
    ),
    Case(
        "query-missing-from-run",
        "q5",
        "evaluate",
        ({"1": ["D1", "D2"], "3": ["D5"]}, {"1": {"D1": 1}, "2": {"D4": 1}}, ranking_length),
        expected={"1": 2, "2": 0},
        shown="{'1': 2, '2': 0} (query 2 is measured on an empty ranking)",
        hint="every query of the qrels gets a score (a query missing from the run is measured on []); "
        "queries not in the qrels are ignored (Part V)",
    ),
    Case(
        "toy-ap-tuple-read-only",
        "q3",
        "average_precision",
        (tuple(TOY), MappingProxyType(TOY_JUDGMENTS)),
        expected=(1 + 2 / 3 + 3 / 5) / 3,
        shown="(1/1 + 2/3 + 3/5) / 3 = 0.7556 (a tuple ranking, read-only judgments)",
        hint="a ranking may be any sequence (a list or a tuple) and judgments any mapping (a dict or "
        "a read-only types.MappingProxyType): index them, never change them",
    ),
    Case(
        "read-only-run",
        "q5",
        "evaluate",
        (MappingProxyType({"1": ["D1", "D2"], "3": ["D5"]}), {"1": {"D1": 1}, "2": {"D4": 1}}, ranking_length),
        expected={"1": 2, "2": 0},
        shown="{'1': 2, '2': 0} (a read-only run)",
        hint="a run may be any mapping (a dict or a read-only types.MappingProxyType): read "
        "run.get(query_id, []) rather than changing the run",
    ),
    Case(
        "part-vi-example",
        "q6",
        "largest_differences",
        ({"1": 0.9, "2": 0.5, "3": 0.1}, {"1": 0.1, "2": 0.5, "3": 0.4}),
        {"n": 2},
        expected=["1", "3"],
        shown="['1', '3']",
        hint="sort by |a - b| descending, ties by query id ascending",
    ),
]


def load_function(name: str, reload: bool = False):
    """The student's function ``name`` from ``lab05.metrics`` or ``lab05.runs``."""
    module = importlib.import_module("lab05.runs" if name == "write_run" else "lab05.metrics")
    if reload:
        module = importlib.reload(module)
    return getattr(module, name)


def _close(actual, expected) -> bool:
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(actual) == set(expected)
            and all(_close(actual[key], expected[key]) for key in expected)
        )
    if isinstance(expected, (tuple, list)):
        return (
            isinstance(actual, (tuple, list))
            and len(actual) == len(expected)
            and all(_close(a, e) for a, e in zip(actual, expected))
        )
    if isinstance(expected, str):
        return actual == expected
    try:
        return math.isclose(float(actual), float(expected), rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    except (TypeError, ValueError):
        return False


def _run_lines(case: Case, function) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "demo.run")
        function(path, *case.args[1:], **case.kwargs)
        with open(path, encoding="utf-8") as written:
            return [" ".join(line.split()) for line in written if line.strip()]


def problem(case: Case, reload: bool = False) -> str | None:
    """None when the student's function gives the notes' value, else a message saying why not."""
    try:
        function = load_function(case.function, reload)
        actual = _run_lines(case, function) if case.function == "write_run" else function(*case.args, **case.kwargs)
    except NotImplementedError:
        return (
            f"{case.function} is not implemented yet: write it in lab05/"
            f"{'runs' if case.function == 'write_run' else 'metrics'}.py"
        )
    except Exception as error:  # the student's code raised: show what and where to look
        return f"{case.call()} raised {type(error).__name__}: {error}"
    if case.function == "write_run":
        if len(actual) == len(case.expected) and all(_same_run_line(a, e) for a, e in zip(actual, case.expected)):
            return None
    elif _close(actual, case.expected):
        return None
    return f"{case.call()} returned {actual!r}, expected {case.expected!r} ({case.shown})" + (
        f". Hint: {case.hint}" if case.hint else ""
    )


def _same_run_line(line: str, expected: tuple) -> bool:
    """Columns as trec_eval reads them; the score within 1e-8 of the search score."""
    columns = line.split()
    if len(columns) != 6:
        return False
    query_id, q0, doc_id, rank, score, system = expected
    try:
        return (
            columns[:3] == [query_id, q0, doc_id]
            and int(columns[3]) == rank
            and abs(float(columns[4]) - score) <= 1e-8
            and columns[5] == system
        )
    except ValueError:
        return False


def cases_for(question: str) -> list[Case]:
    return [case for case in CASES if case.question == question]
