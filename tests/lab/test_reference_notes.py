"""Is the reference right on every number of Parts II-IV of the notes?

Each row is a worked example: the solutions' value must equal ``ir_measures`` (where it has
the measure) to 1e-9 and, rounded as the notes print it, the notes' number.
"""

import pytest

from autograder.lab import measures

TOY = ["D1", "D2", "D3", "D4", "D5"]
TOY_J = {"D1": 1, "D3": 1, "D5": 1}
TEN = [f"D{i}" for i in range(1, 11)]
A_J = {"D1": 1, "D2": 1, "D3": 1}
B_J = {"D8": 1, "D9": 1, "D10": 1}
NDCG = ["A", "B", "C", "D"]
NDCG_J = {"A": 3, "B": 0, "C": 2, "D": 1}
WORST = ["B", "D", "C", "A"]
IDEAL = ["A", "C", "D", "B"]
TEN_3 = {f"G{i:02d}": 3 for i in range(1, 11)}

# id, function, ranking, judgments, kwargs, ir_measures measure (or None), the notes' number
ROWS = [
    *[
        (f"toy-P@{k}", "precision_at_k", TOY, TOY_J, {"k": k}, f"P@{k}", printed)
        for k, printed in zip(range(1, 6), ["1.00", "0.50", "0.67", "0.50", "0.60"])
    ],
    *[
        (f"toy-R@{k}", "recall_at_k", TOY, TOY_J, {"k": k}, f"R@{k}", printed)
        for k, printed in zip(range(1, 6), ["0.33", "0.33", "0.67", "0.67", "1.00"])
    ],
    ("toy-R@5-two-more-relevant", "recall_at_k", TOY, {**TOY_J, "X1": 1, "X2": 1}, {"k": 5}, "R@5", "0.6"),
    ("A-P@10", "precision_at_k", TEN, A_J, {"k": 10}, "P@10", "0.3"),
    ("B-P@10", "precision_at_k", TEN, B_J, {"k": 10}, "P@10", "0.3"),
    ("toy-AP", "average_precision", TOY, TOY_J, {}, "AP", "0.756"),
    ("A-AP", "average_precision", TEN, A_J, {}, "AP", "1.0"),
    ("B-AP", "average_precision", TEN, B_J, {}, "AP", "0.216"),
    ("A-RR", "reciprocal_rank", TEN, A_J, {}, "RR", "1"),
    ("B-RR", "reciprocal_rank", TEN, B_J, {}, "RR", "0.125"),
    ("worked-DCG@4-exp", "dcg_at_k", NDCG, NDCG_J, {"k": 4, "gain": "exp"}, None, "8.931"),
    ("worked-IDCG@4-exp", "dcg_at_k", IDEAL, NDCG_J, {"k": 4, "gain": "exp"}, None, "9.393"),
    ("worst-DCG@4-exp", "dcg_at_k", WORST, NDCG_J, {"k": 4, "gain": "exp"}, None, "5.146"),
    ("ten-grade-3-DCG@10-exp", "dcg_at_k", sorted(TEN_3), TEN_3, {"k": 10, "gain": "exp"}, None, "31.8"),
    ("worked-nDCG@4-exp", "ndcg_at_k", NDCG, NDCG_J, {"k": 4, "gain": "exp"}, measures.exp_ndcg(4), "0.951"),
    ("worst-nDCG@4-exp", "ndcg_at_k", WORST, NDCG_J, {"k": 4, "gain": "exp"}, measures.exp_ndcg(4), "0.548"),
    ("worked-nDCG@4-linear", "ndcg_at_k", NDCG, NDCG_J, {"k": 4}, "nDCG@4", "0.930"),
    ("ideal-nDCG@4-exp", "ndcg_at_k", IDEAL, NDCG_J, {"k": 4, "gain": "exp"}, measures.exp_ndcg(4), "1"),
]


def _ir_measures_value(measure, ranking, judgments):
    run = {"q": {doc_id: float(len(ranking) - i) for i, doc_id in enumerate(ranking)}}
    return measures.ir_measures_values(measure, {"q": judgments}, run)["q"]


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_worked_example(lab05, row):
    """Does the reference give the notes' number, and ir_measures' value where it has one?"""
    _, function, ranking, judgments, kwargs, measure, printed = row
    value = getattr(lab05.metrics, function)(ranking, judgments, **kwargs)
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    assert round(value, decimals) == float(printed), f"{function}: {value} is not the notes' {printed}"
    if measure is not None:
        assert value == pytest.approx(_ir_measures_value(measure, ranking, judgments), abs=1e-9)


def test_accuracy_example(lab05):
    """Does a system returning nothing for 7 relevant of 1,400 documents score 1393/1400 = 99.5%?"""
    relevant = [f"R{i}" for i in range(7)]
    assert lab05.metrics.confusion_matrix([], relevant, 1400) == (0, 0, 7, 1393)
    assert lab05.metrics.accuracy([], relevant, 1400) == 1393 / 1400
    assert f"{lab05.metrics.accuracy([], relevant, 1400):.1%}" == "99.5%"


def test_linear_and_exp_gains_differ_as_the_notes_say(lab05):
    """Do the two gains give 0.951 and 0.930 on [3, 0, 2, 1], as Part IV's tip says?"""
    exp = lab05.metrics.ndcg_at_k(NDCG, NDCG_J, 4, gain="exp")
    linear = lab05.metrics.ndcg_at_k(NDCG, NDCG_J, 4)
    assert (round(exp, 3), round(linear, 3)) == (0.951, 0.930)


def test_discounts_are_the_notes(lab05):
    """Is rank i discounted by log2(i + 1): 1, 1.585, 2, 2.322 ... 3.46 at rank 10?"""
    for rank, printed in [(1, 1.0), (2, 1.585), (3, 2.0), (4, 2.322), (10, 3.46)]:
        ranking = [f"N{i}" for i in range(1, rank)] + ["G"]
        gain_over_discount = lab05.metrics.dcg_at_k(ranking, {"G": 1}, k=rank)
        assert round(1 / gain_over_discount, len(str(printed).split(".")[1])) == printed


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.precision_at_k(TOY, TOY_J, 0), "k must be a positive integer"),
        (lambda m: m.recall_at_k(TOY, TOY_J, 2.5), "k must be a positive integer"),
        (lambda m: m.precision_at_k(TOY, TOY_J, 3, rel=0), "rel must be a positive integer"),
        (lambda m: m.average_precision(TOY, TOY_J, rel=-1), "rel must be a positive integer"),
        (lambda m: m.reciprocal_rank(TOY, TOY_J, rel=True), "rel must be a positive integer"),
        (lambda m: m.dcg_at_k(TOY, TOY_J, 3, gain="log"), "gain must be one of"),
        (lambda m: m.ndcg_at_k(TOY, TOY_J, 3, gain=None), "gain must be one of"),
        (lambda m: m.confusion_matrix(["a", "b"], ["c"], 2), "smaller than the 3 distinct"),
        (lambda m: m.accuracy([], [], 0), "must be positive"),
        (lambda m: m.largest_differences({}, {}, n=0), "n must be a positive integer"),
    ],
    ids=[
        "k-zero",
        "k-float",
        "rel-zero",
        "rel-negative",
        "rel-bool",
        "gain-unknown",
        "gain-none",
        "collection-too-small",
        "accuracy-empty-collection",
        "n-zero",
    ],
)
def test_bad_input_is_a_clear_value_error(lab05, call, message):
    """Does invalid input raise ValueError naming the function and the problem?"""
    with pytest.raises(ValueError, match=message) as raised:
        call(lab05.metrics)
    assert str(raised.value).split(":")[0] in {
        "precision_at_k",
        "recall_at_k",
        "average_precision",
        "reciprocal_rank",
        "dcg_at_k",
        "ndcg_at_k",
        "confusion_matrix",
        "accuracy",
        "largest_differences",
    }


def test_solution_doctests_pass(lab05, tmp_path, monkeypatch):
    """Do the docstring examples (the notes' examples) hold for the reference?"""
    import doctest

    monkeypatch.chdir(tmp_path)  # write_run's example writes lab04_tfidf.run

    for module in (lab05.metrics, lab05.runs):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__
