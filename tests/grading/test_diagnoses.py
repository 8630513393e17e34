"""The false explanations of issue 20, one per row: each buggy function (written as the students
wrote it) is graded in this process (``tests/support/inprocess.py``), and the diagnoses shown must be the
true ones, not the false ones the engine used to show; every diagnosis shown is also re-checked
against every case by ``tests/support/premises.py``."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from autograder.grading.results import Diagnosis
from autograder.lab import spec
from autograder.labkit.load import default as default_lab
from tests.support import premises, subs, truth

pytestmark = pytest.mark.cranfield


@dataclass(frozen=True)
class Row:
    id: str
    source: str  # the student's version of one function
    shown: tuple = ()  # diagnosis ids (or id prefixes ending in "-") that must be shown
    not_shown: tuple = ()  # ... that must not be
    not_said: tuple = ()  # phrases no diagnosis may say


ROWS = [
    Row(
        "rr-top-10: every wrong answer is 0",
        """
        def reciprocal_rank(ranking, judgments, rel=1):
            check(rel)
            for rank, doc in enumerate(ranking[:10], start=1):
                if judgments.get(doc, 0) >= rel:
                    return 1 / rank
            return 0.0
        """,
        shown=("rr-top-10", "condition-one-first-relevant-below-10"),
        not_shown=("shape-rounded", "shape-whole-numbers", "shape-factor"),
    ),
    Row(
        "accuracy with //: every wrong answer is 0",
        """
        def accuracy(retrieved, relevant, collection_size):
            tp, fp, fn, tn = confusion_matrix(retrieved, relevant, collection_size)
            if collection_size == 0:
                raise ValueError("empty collection")
            return (tp + tn) // collection_size
        """,
        shown=("accuracy-integer-division",),
        not_shown=("shape-factor", "shape-rounded"),
    ),
    Row(
        "write_run that does not cut at k",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            if not isinstance(k, int) or isinstance(k, bool) or k < 1:
                raise ValueError("k must be a positive integer")
            if not system_name or any(c.isspace() for c in system_name):
                raise ValueError("bad system name")
            with open(path, "w", encoding="utf-8") as out:
                for query in queries:
                    for rank, hit in enumerate(search_fn(query.text, k), start=1):
                        out.write(f"{query.query_id} Q0 {hit[0]} {rank} {hit[2]:.8f} {system_name}\\n")
        """,
        shown=("run-not-cut", "condition-one-overfull-search"),
        not_shown=("run-few-decimals", "run-ignores-k"),
    ),
    Row(
        "recall adding up grades: values above 1",
        """
        def recall_at_k(ranking, judgments, k, rel=1):
            if not isinstance(k, int) or isinstance(k, bool) or k < 1 or not isinstance(rel, int) or rel < 1:
                raise ValueError("bad k or rel")
            total = sum(1 for g in judgments.values() if g >= rel)
            found = sum(judgments.get(d, 0) for d in ranking[:k] if judgments.get(d, 0) >= rel)
            return found / total if total else 0.0
        """,
        shown=("grades-summed",),
        not_said=("check the denominator",),
    ),
    Row(
        "reciprocal rank returning the rank",
        """
        def reciprocal_rank(ranking, judgments, rel=1):
            check(rel)
            for rank, doc in enumerate(ranking, start=1):
                if judgments.get(doc, 0) >= rel:
                    return float(rank)
            return 0.0
        """,
        shown=("shape-reciprocal",),
        not_said=("ranks count from 1",),
    ),
    Row(
        "precision_at_k refusing k=0 with TypeError: its parameters only",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            if not isinstance(k, int) or k < 1:
                raise TypeError("k must be a positive integer")
            if not isinstance(rel, int) or rel < 1:
                raise ValueError("rel must be a positive integer")
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / k
        """,
        shown=("condition-one-invalid-k",),
        not_said=(" n ", "gain"),
    ),
    Row(
        "largest_differences counting a missing score as 0",
        """
        def largest_differences(scores_a, scores_b, n=2):
            if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                raise ValueError("n must be a positive integer")
            queries = set(scores_a) | set(scores_b)
            gaps = {q: abs(scores_a.get(q, 0) - scores_b.get(q, 0)) for q in queries}
            return sorted(queries, key=lambda q: (-gaps[q], q))[:n]
        """,
        shown=("differences-missing-as-zero",),
    ),
    Row(
        "write_run writing the queries sorted by id",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            if not isinstance(k, int) or isinstance(k, bool) or k < 1:
                raise ValueError("k must be a positive integer")
            if not system_name or any(c.isspace() for c in system_name):
                raise ValueError("bad system name")
            with open(path, "w", encoding="utf-8") as out:
                for query in sorted(queries, key=lambda query: query.query_id):
                    for rank, hit in enumerate(search_fn(query.text, k)[:k], start=1):
                        out.write(f"{query.query_id} Q0 {hit[0]} {rank} {hit[2]:.8f} {system_name}\\n")
        """,
        shown=("run-sorted-queries", "condition-one-queries-unsorted-as-strings"),
    ),
    Row(
        "average precision whose R ignores rel",
        """
        def average_precision(ranking, judgments, rel=1):
            check(rel)
            total = sum(1 for g in judgments.values() if g >= 1)
            found, value = 0, 0.0
            for rank, doc in enumerate(ranking, start=1):
                if judgments.get(doc, 0) >= rel:
                    found += 1
                    value += found / rank
            return value / total if total else 0.0
        """,
        # the condition: rel >= 2 (or a grade below it) with a relevant document retrieved, as the grading's cases tell
        shown=("r-ignores-rel", "condition-both-"),
        not_shown=("shape-",),
    ),
    Row(
        "average precision returning inside its loop",
        """
        def average_precision(ranking, judgments, rel=1):
            check(rel)
            total = sum(1 for g in judgments.values() if g >= rel)
            if total == 0:
                return 0.0
            found, value = 0, 0.0
            for rank, doc in enumerate(ranking, start=1):
                if judgments.get(doc, 0) >= rel:
                    found += 1
                    value += found / rank
                    return value / total
            return 0.0
        """,
        shown=("ap-stops-at-first-relevant",),
    ),
    Row(
        "reciprocal rank over the first 100 ranks",
        """
        def reciprocal_rank(ranking, judgments, rel=1):
            check(rel)
            for rank in range(1, min(len(ranking), 100) + 1):
                if judgments.get(ranking[rank - 1], 0) >= rel:
                    return 1 / rank
            return 0.0
        """,
        shown=("rr-top-100",),
        not_shown=("rr-top-10",),
    ),
    Row(
        "evaluate giving a missing query 0.0",
        """
        def evaluate(run, qrels, measure):
            return {q: measure(run[q], judgments) if q in run else 0.0 for q, judgments in qrels.items()}
        """,
        shown=("evaluate-missing-as-zero",),
        not_shown=("evaluate-skips-missing", "evaluate-run-lookup"),
    ),
    Row(
        "precision_at_k as np.mean over the top k",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            import numpy as np

            check(k)
            check(rel)
            return float(np.mean([judgments.get(d, 0) >= rel for d in ranking[:k]]))
        """,
        shown=("precision-over-ranking-length",),
    ),
    Row(
        "precision_at_k counting the whole ranking",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            check(k)
            check(rel)
            return sum(1 for d in ranking if judgments.get(d, 0) >= rel) / k
        """,
        shown=("cutoff-ignored",),
    ),
    Row(
        "dcg_at_k summing the whole ranking",
        """
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            check(k)
            if gain not in ("linear", "exp"):
                raise ValueError(f"unknown gain {gain!r}")
            total = 0.0
            for i, d in enumerate(ranking, start=1):
                g = max(judgments.get(d, 0), 0)
                total += (2**g - 1 if gain == "exp" else g) / math.log2(i + 1)
            return total
        """,
        shown=("cutoff-ignored",),
    ),
    Row(
        "ndcg_at_k with the ideal ranking sorted lowest grade first",
        """
        def ndcg_at_k(ranking, judgments, k, gain="linear"):
            check(k)
            best = dcg_at_k(sorted(judgments, key=lambda d: judgments[d]), judgments, k, gain)
            return dcg_at_k(ranking, judgments, k, gain) / best if best > 0 else 0.0
        """,
        shown=("ideal-sorted-ascending",),
        not_said=("check the denominator",),
    ),
    Row(
        "dcg_at_k with a 0-based rank in the discount",
        """
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            check(k)
            if gain not in ("linear", "exp"):
                raise ValueError(f"unknown gain {gain!r}")
            total = 0.0
            for i, d in enumerate(ranking[:k]):
                g = max(judgments.get(d, 0), 0)
                total += (2**g - 1 if gain == "exp" else g) / math.log2(i + 1)
            return total
        """,
        shown=("discount-rank-from-0",),
    ),
    Row(
        "accuracy counting the lists, not the sets",
        """
        def accuracy(retrieved, relevant, collection_size):
            if collection_size == 0 or collection_size < len(set(retrieved) | set(relevant)):
                raise ValueError("collection too small")
            tp = len(set(retrieved) & set(relevant))
            fp, fn = len(retrieved) - tp, len(relevant) - tp
            tn = collection_size - tp - fp - fn
            return (tp + tn) / collection_size
        """,
        shown=("duplicates-counted",),
    ),
]


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("diagnoses"))


CHECK = """
def check(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"not a positive integer: {value!r}")
"""


def _shown(graded, row) -> tuple[dict, list]:
    """The diagnoses shown for the row's function, and what contradicts any of them."""
    source = CHECK + textwrap.dedent(row.source).strip()
    name = textwrap.dedent(row.source).strip().split("(")[0].removeprefix("def ")
    functions = truth.load(subs.with_function(spec.FUNCTIONS[name], source), f"row_{name}")
    checks, contradicted = graded.grade(graded.answers(functions, {name}))
    return {d.id: d for check in checks if check.function == name for d in check.diagnoses}, contradicted


def _has(ids, wanted: str) -> bool:
    return any(shown == wanted or (wanted.endswith("-") and shown.startswith(wanted)) for shown in ids)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")  # np.mean of []
@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_only_true_explanations(graded, row):
    """Are the true diagnoses shown, the false ones of issue 20 not, and none contradicted by a case?"""
    diagnoses, contradicted = _shown(graded, row)
    assert [wanted for wanted in row.shown if not _has(diagnoses, wanted)] == [], sorted(diagnoses)
    assert [unwanted for unwanted in row.not_shown if _has(diagnoses, unwanted)] == []
    said = " ".join(f"{d.title}. {d.explanation}" for d in diagnoses.values())
    assert [phrase for phrase in row.not_said if phrase in said] == [], said
    assert contradicted == []


def test_a_gain_bug_is_not_hinted_at_the_discount(graded):
    """Does a public case that an exp-gain bug fails say what its gain is, not only how ranks are discounted?"""
    source = """
    def dcg_at_k(ranking, judgments, k, gain="linear"):
        check(k)
        if gain not in ("linear", "exp"):
            raise ValueError(f"unknown gain {gain!r}")
        return sum(max(judgments.get(d, 0), 0) / math.log2(i + 1) for i, d in enumerate(ranking[:k], start=1))
    """
    functions = truth.load(subs.with_function("metrics.py", CHECK + textwrap.dedent(source)), "row_gain")
    checks, contradicted = graded.grade(graded.answers(functions, {"dcg_at_k"}))
    hints = [case.hint for check in checks for case in check.cases if case.public and not case.passed and case.hint]
    assert hints and all("gain='exp'" in hint for hint in hints), hints
    assert contradicted == []


def test_conditions_name_only_the_functions_parameters(graded):
    """For every function and every feature its cases have, do the feature's phrase and hint name
    only the tuning parameters the function takes (no 'n' or 'gain' for precision_at_k)?"""
    from autograder.grading.diagnosis import conditions
    from autograder.lab import features

    seen: dict[str, set] = {}
    for planned in graded.submission.planned:
        seen.setdefault(planned.case.function, set()).update(planned.features)
    for scenario in graded.plan.scenarios.values():
        seen.setdefault(truth.WRITER, set()).update(scenario.all_features())
    wrong = {}
    for function, found in sorted(seen.items()):
        for feature in sorted(found):
            said = Diagnosis(
                "c", function, features.FEATURES[feature].phrase, conditions.hint(default_lab(), function, feature), ""
            )
            problem = premises.names_only_own_parameters(said)
            if problem:
                wrong[f"{function}/{feature}"] = problem
    assert wrong == {}
    assert "invalid-argument" in seen["precision_at_k"]  # the feature of issue 20's case is among them


FEATURES = [
    # (what, the call's arguments, features it must have, features it must not have)
    (
        "grade 1 judged, rel=2",
        (["a", "b"], {"a": 1, "b": 2}),
        {"rel": 2},
        {"positive-below-rel", "relevant-retrieved"},
        set(),
    ),
    (
        "no grade between 0 and rel",
        (["a"], {"a": 2, "b": 0}),
        {"rel": 2},
        {"relevant-retrieved"},
        {"positive-below-rel"},
    ),
    (
        "nothing relevant in the ranking",
        (["b"], {"a": 1, "b": 0}),
        {},
        {"nothing-relevant-retrieved"},
        {"relevant-retrieved"},
    ),
    ("first relevant at rank 11", ([f"d{i}" for i in range(11)], {"d10": 1}), {}, {"first-relevant-below-10"}, set()),
    (
        "first relevant at rank 10",
        ([f"d{i}" for i in range(10)], {"d9": 1}),
        {},
        {"first-relevant-later"},
        {"first-relevant-below-10"},
    ),
]


@pytest.mark.parametrize("what, args, kwargs, having, lacking", FEATURES, ids=[row[0] for row in FEATURES])
def test_ranking_features(what, args, kwargs, having, lacking):
    """Does a reciprocal rank call have the features its inputs have, and not the others?"""
    from autograder.lab.functions.registry import FUNCTIONS

    found = set(FUNCTIONS["reciprocal_rank"].features(args, kwargs))
    assert having <= found and not lacking & found, found


REFUSED = [
    ("k=0", {"k": 0}, True),
    ("k=2.5", {"k": 2.5}, True),
    ("k=0 and rel=2", {"k": 0, "rel": 2}, True),
    ("rel=0", {"k": 2, "rel": 0}, False),
]


@pytest.mark.parametrize("what, kwargs, bad_k", REFUSED, ids=[row[0] for row in REFUSED])
def test_a_refused_k_is_told_from_other_refused_arguments(what, kwargs, bad_k):
    """Does a precision_at_k call with a k the contract refuses have a feature of its own, which a
    call refusing only rel lacks (so a check of k alone is a condition)?"""
    from autograder.lab.functions.registry import FUNCTIONS

    found = set(FUNCTIONS["precision_at_k"].features((["a", "b"], {"a": 1}), kwargs))
    assert "invalid-argument" in found and ("invalid-k" in found) == bad_k, found


SCENARIO_ORDERS = [("10, 2, 1", ("10", "2", "1"), True, True), ("1, 2, 10", ("1", "2", "10"), True, False)]


@pytest.mark.parametrize("what, ids, strings, numbers", SCENARIO_ORDERS, ids=[row[0] for row in SCENARIO_ORDERS])
def test_scenario_query_orders(what, ids, strings, numbers):
    """Are query ids out of string order, and out of numeric order, told apart?"""
    from autograder.lab.scenarios import Scenario

    scenario = Scenario("s", "sys", {q: [["d", 1.0]] for q in ids}, tuple((q, q) for q in ids), 5, "")
    found = scenario.all_features()
    assert ("queries-unsorted-as-strings" in found, "queries-unsorted-as-numbers" in found) == (strings, numbers)
