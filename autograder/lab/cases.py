"""The cases the checks are made of: the notes' examples, hidden edge cases, random cases.

A ``Case`` is one call of a student function with JSON-able inputs. Its expected value
comes from elsewhere: the notes (examples), the reference solution (edge cases, stored in
``autograder/reference/``) or ``ir_measures`` computed live (random cases). Inputs may name
grader-side objects the child builds: ``{"$measure": name}`` (the grader's own measures for
``evaluate``), ``{"$search": scenario}``, ``{"$queries": scenario}``, ``{"$path": name}``.
"""

from __future__ import annotations

import functools
import importlib.util
import random
import sys
from dataclasses import dataclass, field

from autograder import paths

K0 = "k=0 is not a positive integer: ValueError"


@dataclass(frozen=True)
class Case:
    id: str
    function: str
    description: str  # what is tested, shown also for hidden cases
    args: tuple
    kwargs: dict = field(default_factory=dict)
    public: bool = False  # call, expected and actual may be shown to the student
    hint: str = ""  # what a wrong value usually means (the public cases' hints)

    def label(self) -> str:
        """What was tested, with the parameters that matter (k, rel, gain, n) when the description
        does not already say them: a hidden case's feedback names them."""
        shown = [
            f"{key}={value!r}"
            for key, value in self.kwargs.items()
            if key in ("k", "rel", "gain", "n")
            and f"{key}=" not in self.description
            and f"@{value}" not in self.description
        ]
        return f"{self.description} ({', '.join(shown)})" if shown else self.description

    def call_text(self, limit: int = 240) -> str:
        shown = [_show(arg) for arg in self.args] + [f"{key}={_show(v)}" for key, v in self.kwargs.items()]
        text = f"{self.function}({', '.join(shown)})"
        return text if len(text) <= limit else text[: limit - 3] + "..."


def _show(value) -> str:
    if isinstance(value, dict) and len(value) == 1:
        ((tag, arg),) = value.items()
        if tag.startswith("$"):
            return {"$measure": str(arg), "$search": "search_fn", "$queries": "queries", "$path": repr(arg)}.get(
                tag, repr(value)
            )
    return repr(value)


RAISES = "raises"


def raises(error: str = "ValueError") -> dict:
    """The expected outcome of a call that must raise ``error``."""
    return {RAISES: error}


# ------------------------------------------------------------------ the notes' examples


@functools.lru_cache(maxsize=1)
def public_cases():
    """The handout's table of public cases, ``assignment/tests/public_cases.py`` (trusted code)."""
    name = "lab05_public_cases"
    spec = importlib.util.spec_from_file_location(name, paths.PUBLIC_CASES)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot load the public cases {paths.PUBLIC_CASES}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def example_cases(public=None) -> list[tuple[Case, object]]:
    """The public cases as ``(Case, the notes' value)`` pairs."""
    public = public or public_cases()
    converted = []
    for case in public.CASES:
        args = [_example_arg(arg, public) for arg in case.args]
        if case.function == "write_run":
            args[0] = {"$path": "demo.run"}
        converted.append(
            (
                Case(
                    f"notes-{case.id}",
                    case.function,
                    case.shown,
                    tuple(args),
                    dict(case.kwargs),
                    public=True,
                    hint=case.hint,
                ),
                case.expected,
            )
        )
    return converted


def _example_arg(value, module):
    if value is module.ranking_length:
        return {"$measure": "ranking_length"}
    if value is module.search_two:
        return {"$search": EXAMPLE_SCENARIO}
    if value is module.QUERIES:
        return {"$queries": EXAMPLE_SCENARIO}
    return value


EXAMPLE_SCENARIO = "notes-two-queries"


def example_search_data(public=None) -> tuple[dict, list]:
    """The results and queries of the public write_run example, for the child's replay."""
    public = public or public_cases()
    queries = [[query.query_id, query.text] for query in public.QUERIES]
    results = {text: [list(hit) for hit in public.search_two(text, 1000)] for _, text in queries}
    return results, queries


# ------------------------------------------------------------------ hidden edge cases


def _c(function, case_id, description, *args, **kwargs) -> Case:
    return Case(f"edge-{function}-{case_id}", function, description, args, kwargs)


RNR = ["a", "b", "c", "d", "e"]
GRADED = {"a": 3, "b": 0, "c": 2, "d": 1, "x": 4, "n": -1}

EDGE_CASES = [
    _c(
        "confusion_matrix",
        "all-hits",
        "every retrieved doc relevant, every relevant retrieved",
        ["a", "b"],
        ["b", "a"],
        10,
    ),
    _c("confusion_matrix", "repeated", "a doc id listed twice in retrieved counts once", ["a", "a", "b"], ["a"], 5),
    _c("confusion_matrix", "no-tn", "collection_size equal to |retrieved ∪ relevant| (TN = 0)", ["a", "b"], ["c"], 3),
    _c("confusion_matrix", "nothing", "nothing retrieved, nothing relevant", [], [], 7),
    _c(
        "confusion_matrix", "mixed", "hits, misses and false alarms together", ["a", "b", "c"], ["b", "c", "d", "e"], 20
    ),
    _c("confusion_matrix", "too-small", "collection_size smaller than the union: ValueError", ["a", "b"], ["c"], 2),
    _c("accuracy", "perfect", "retrieving exactly the relevant docs", ["a", "b"], ["a", "b"], 10),
    _c("accuracy", "all-wrong", "retrieving exactly the non-relevant docs", ["c"], ["a", "b"], 3),
    _c("accuracy", "half-right", "one hit, one miss, one false alarm among 10 documents", ["a", "c"], ["a", "b"], 10),
    _c("accuracy", "empty-system", "retrieving nothing", [], ["a", "b", "c"], 50),
    _c("accuracy", "too-small", "collection_size smaller than the union: ValueError", ["a"], ["b"], 1),
    _c("accuracy", "empty-collection", "a collection of 0 documents: ValueError", [], [], 0),
    _c("precision_at_k", "short", "ranking shorter than k (divide by k)", ["a", "b"], {"a": 1}, k=5),
    _c("precision_at_k", "empty", "empty ranking", [], {"a": 1}, k=3),
    _c("precision_at_k", "none-relevant", "no relevant document (grades 0 and -1)", ["a", "b"], {"a": 0, "b": -1}, k=2),
    _c("precision_at_k", "unjudged", "unjudged docs are not relevant", ["p", "q", "a"], {"a": 2}, k=3),
    _c("precision_at_k", "minus-one", "grade -1 is not relevant", ["a", "b"], {"a": -1, "b": 1}, k=2),
    _c("precision_at_k", "rel-2", "threshold rel=2", ["a", "b", "c"], {"a": 1, "b": 2, "c": 3}, k=3, rel=2),
    _c("precision_at_k", "k-1", "k=1", RNR, GRADED, k=1),
    _c("precision_at_k", "k-cuts", "k smaller than the ranking", RNR, GRADED, k=3),
    _c("precision_at_k", "k-0", K0, RNR, GRADED, k=0),
    _c("precision_at_k", "rel-0", "rel=0 is not a positive integer: ValueError", RNR, GRADED, k=2, rel=0),
    _c("precision_at_k", "k-float", "k=2.5 is not a positive integer: ValueError", RNR, GRADED, k=2.5),
    _c("recall_at_k", "r-zero", "no relevant document (R = 0)", ["a"], {"a": 0, "b": -1}, k=1),
    _c("recall_at_k", "no-judgments", "empty judgments", ["a"], {}, k=1),
    _c(
        "recall_at_k",
        "missed",
        "relevant docs never retrieved still count in R",
        ["a", "b"],
        {"a": 1, "z": 1, "y": 2},
        k=2,
    ),
    _c("recall_at_k", "rel-3", "threshold rel=3", RNR, GRADED, k=5, rel=3),
    _c("recall_at_k", "minus-one", "grade -1 is not in R", ["a"], {"a": 1, "b": -1}, k=1),
    _c("recall_at_k", "short", "ranking shorter than k", ["c"], GRADED, k=10),
    _c("recall_at_k", "k-cuts", "relevant docs below rank k do not count", RNR, GRADED, k=2),
    _c("recall_at_k", "k-0", K0, RNR, GRADED, k=0),
    _c("reciprocal_rank", "none", "no relevant doc retrieved", ["b", "p"], GRADED),
    _c("reciprocal_rank", "empty", "empty ranking", [], GRADED),
    _c("reciprocal_rank", "rank-4", "first relevant doc at rank 4", ["b", "p", "q", "d"], GRADED),
    _c("reciprocal_rank", "rel-2", "threshold rel=2 skips a grade-1 doc", ["d", "c"], GRADED, rel=2),
    _c("reciprocal_rank", "rel-3", "threshold rel=3 skips grades 1 and 2", ["d", "c", "a"], GRADED, rel=3),
    _c("reciprocal_rank", "minus-one", "grade -1 is not relevant", ["n", "a"], GRADED),
    _c("reciprocal_rank", "rel-0", "rel=0 is not a positive integer: ValueError", RNR, GRADED, rel=0),
    _c("average_precision", "r-zero", "no relevant document (R = 0)", ["a", "b"], {"a": 0, "b": -1}),
    _c("average_precision", "none-retrieved", "relevant docs exist but none is retrieved", ["p", "q"], {"a": 1}),
    _c(
        "average_precision",
        "missed",
        "relevant docs never retrieved still count in R",
        ["a", "p", "b"],
        {"a": 1, "b": 1, "z": 1, "y": 1},
    ),
    _c("average_precision", "rel-2", "threshold rel=2", RNR, GRADED, rel=2),
    _c("average_precision", "minus-one", "grade -1 is not relevant", ["n", "a"], {"n": -1, "a": 1}),
    _c("average_precision", "perfect", "all relevant docs at the top", ["x", "a", "c", "d", "b"], GRADED),
    _c("average_precision", "empty", "empty ranking", [], GRADED),
    _c("average_precision", "rel-neg", "rel=-1 is not a positive integer: ValueError", RNR, GRADED, rel=-1),
    _c("dcg_at_k", "linear-default", "the default gain is linear (the grade itself)", RNR, GRADED, k=5),
    _c("dcg_at_k", "exp", "gain='exp' is 2**grade - 1", RNR, GRADED, k=5, gain="exp"),
    _c("dcg_at_k", "rank-2", "a single relevant doc at rank 2 is divided by log2(3)", ["b", "c"], GRADED, k=2),
    _c("dcg_at_k", "k-cuts", "docs below rank k do not count", RNR, GRADED, k=2),
    _c("dcg_at_k", "short", "ranking shorter than k", ["a"], GRADED, k=10, gain="exp"),
    _c("dcg_at_k", "unjudged", "unjudged docs gain 0", ["p", "a"], GRADED, k=2),
    _c("dcg_at_k", "minus-one-linear", "grade -1 gains 0 (linear)", ["n", "a"], GRADED, k=2),
    _c("dcg_at_k", "minus-one-exp", "grade -1 gains 0 (exp)", ["n", "a"], GRADED, k=2, gain="exp"),
    _c("dcg_at_k", "empty", "empty ranking", [], GRADED, k=3),
    _c("dcg_at_k", "bad-gain", "an unknown gain: ValueError", RNR, GRADED, k=3, gain="log"),
    _c("dcg_at_k", "k-0", K0, RNR, GRADED, k=0),
    _c("ndcg_at_k", "unretrieved-in-ideal", "the ideal ranking holds judged docs never retrieved", RNR, GRADED, k=5),
    _c("ndcg_at_k", "ideal-cut", "the ideal ranking is cut at k", ["c", "a"], GRADED, k=2, gain="exp"),
    _c("ndcg_at_k", "idcg-zero", "no positive grade (IDCG = 0)", ["a", "b"], {"a": 0, "b": -1}, k=2),
    _c("ndcg_at_k", "minus-one", "grade -1 gains 0 in DCG and IDCG", ["n", "a"], {"n": -1, "a": 1, "b": 2}, k=3),
    _c("ndcg_at_k", "perfect", "an ideal ranking scores 1", ["x", "a", "c", "d"], GRADED, k=4, gain="exp"),
    _c("ndcg_at_k", "exp", "gain='exp' is 2**grade - 1", RNR, GRADED, k=3, gain="exp"),
    _c("ndcg_at_k", "rank-2", "a single relevant doc at rank 2", ["b", "x"], {"x": 2}, k=2),
    _c("ndcg_at_k", "empty", "empty ranking with judged docs", [], GRADED, k=5),
    _c("ndcg_at_k", "bad-gain", "an unknown gain: ValueError", RNR, GRADED, k=3, gain="linear2"),
    _c(
        "evaluate",
        "missing-query",
        "a query of the qrels missing from the run gets []",
        {"1": ["a"]},
        {"1": {"a": 1}, "2": {"b": 1}},
        {"$measure": "ranking_length"},
    ),
    _c(
        "evaluate",
        "extra-query",
        "a query of the run missing from the qrels is ignored",
        {"1": ["a", "b"], "9": ["c"]},
        {"1": {"a": 1}},
        {"$measure": "judged_in_ranking"},
    ),
    _c("evaluate", "empty-qrels", "empty qrels", {"1": ["a"]}, {}, {"$measure": "ranking_length"}),
    _c(
        "evaluate",
        "order",
        "the ranking reaches the measure in its order",
        {"1": ["b", "a"], "2": ["a", "b"]},
        {"1": {"a": 1, "b": 3}, "2": {"a": 2}},
        {"$measure": "grade_of_first"},
    ),
    _c(
        "evaluate",
        "judgments",
        "each query gets its own judgments",
        {"1": [], "2": []},
        {"1": {"a": 1}, "2": {"a": 1, "b": 0, "c": 2}},
        {"$measure": "judgments_count"},
    ),
    _c(
        "largest_differences",
        "tie-string-order",
        "ties broken by query id as strings ('10' before '9')",
        {"9": 0.5, "10": 0.0, "3": 0.9},
        {"9": 0.0, "10": 0.5, "3": 0.9},
        n=2,
    ),
    _c(
        "largest_differences",
        "one-side",
        "queries present in only one system are ignored",
        {"1": 1.0, "2": 0.5},
        {"2": 0.0, "3": 1.0},
        n=2,
    ),
    _c(
        "largest_differences",
        "n-large",
        "n larger than the common queries",
        {"1": 0.2, "2": 0.4},
        {"1": 0.3, "2": 0.1},
        n=5,
    ),
    _c(
        "largest_differences",
        "absolute",
        "the difference is absolute: b - a counts as much as a - b",
        {"1": 0.1, "2": 0.9},
        {"1": 0.8, "2": 0.5},
        n=1,
    ),
    _c("largest_differences", "no-common", "no common query", {"1": 1.0}, {"2": 1.0}, n=2),
    _c("largest_differences", "n-0", "n=0 is not a positive integer: ValueError", {"1": 1.0}, {"1": 0.0}, n=0),
    _c(
        "largest_differences",
        "default-n",
        "n left out: the 2 largest differences",
        {"1": 0.1, "2": 0.9, "3": 0.5},
        {"1": 0.8, "2": 0.5, "3": 0.5},
    ),
]


# ------------------------------------------------------------------ random cases

POOL = [f"d{i:02d}" for i in range(20)]


def _random_judgments(rng: random.Random) -> dict:
    judged = rng.sample(POOL, rng.randint(0, 12))
    return {doc: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for doc in judged}


def _random_ranking(rng: random.Random) -> list:
    return rng.sample(POOL, rng.choice([0, 1, 3, 5, 8, 12, 20]))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def random_cases(function: str, rng: random.Random, count: int) -> list[Case]:
    """``count`` random cases of ``function``: inputs only (expected values come from
    ``ir_measures``, or the grader's own computation for ``evaluate`` and ``largest_differences``).
    They are public: nothing in them is secret (random inputs, values anyone computes with
    ``ir_measures`` or the contract), so feedback shows the whole call and both values."""
    made = []
    for number in range(count):
        case_id = f"random-{function}-{number:03d}"
        if function == "evaluate":
            query_ids = [str(q) for q in rng.sample(range(1, 30), rng.randint(1, 6))]
            qrels = {q: _random_judgments(rng) for q in query_ids}
            run = {q: _random_ranking(rng) for q in query_ids + [str(rng.randint(30, 40))] if rng.random() < 0.75}
            measure = rng.choice(["ranking_length", "judged_in_ranking", "grade_of_first", "judgments_count"])
            made.append(
                Case(
                    case_id,
                    function,
                    f"random run of {len(run)} and qrels of {len(qrels)} queries, measure {measure}",
                    (run, qrels, {"$measure": measure}),
                    public=True,
                )
            )
        elif function == "largest_differences":
            ids = [str(q) for q in range(1, 25)]
            a = {q: rng.choice([0.0, 0.1, 0.25, 0.5, 1.0]) for q in rng.sample(ids, rng.randint(0, 12))}
            b = {q: rng.choice([0.0, 0.1, 0.25, 0.5, 1.0]) for q in rng.sample(ids, rng.randint(0, 12))}
            n = rng.randint(1, 5)
            made.append(
                Case(
                    case_id,
                    function,
                    f"random scores of {len(a)} and {len(b)} queries, n={n}",
                    (a, b),
                    {"n": n},
                    public=True,
                )
            )
        else:
            ranking, judgments = _random_ranking(rng), _random_judgments(rng)
            kwargs: dict[str, object] = {}
            if function in ("precision_at_k", "recall_at_k", "ndcg_at_k"):
                kwargs["k"] = rng.choice([1, 2, 3, 5, 10, 20])
            if function == "ndcg_at_k":
                kwargs["gain"] = rng.choice(["linear", "exp"])
            elif rng.random() < 0.5:
                kwargs["rel"] = rng.choice([2, 3])
            shown = ", ".join(f"{key}={value}" for key, value in kwargs.items())
            made.append(
                Case(
                    case_id,
                    function,
                    f"random ranking of {_count(len(ranking), 'doc')}, "
                    f"{_count(len(judgments), 'judgment')}{', ' + shown if shown else ''} (vs ir_measures)",
                    (ranking, judgments),
                    kwargs,
                    public=True,
                )
            )
    return made
