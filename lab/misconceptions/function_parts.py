"""The functions other than the ranked measures as compositions of named parts (issue 32, item 3), in the
form of ``parts.py`` (read its docstring): confusion_matrix (how ids are counted, the order of the four
cells), accuracy (how ids are counted, which cells the formula reads), evaluate (the judgments handed to
the measure, a value reused for the same ranking) and largest_differences (the difference, its order, the
ties, how many ids, which queries). The engine fits them as it fits the ranked measures."""

from __future__ import annotations

import itertools

from .parts import NOTES, _parts

CELLS = ("tp", "fp", "fn", "tn")

# ---------------------------------------------------------------- the four cells


def _distinct(retrieved, relevant, n):
    got, want = set(retrieved), set(relevant)
    tp = len(got & want)
    return [tp, len(got) - tp, len(want) - tp, n - len(got | want)]


def _listed(retrieved, relevant, n):
    got, want = set(retrieved), set(relevant)
    tp = len(got & want)
    fp, fn = len(retrieved) - tp, len(relevant) - tp
    return [tp, fp, fn, n - tp - fp - fn]


def _one_side(retrieved_listed):
    def cells(retrieved, relevant, n):
        tp, fp, fn, tn = _distinct(retrieved, relevant, n)
        return [tp, len(retrieved) - tp, fn, tn] if retrieved_listed else [tp, fp, len(relevant) - tp, tn]

    return cells


COUNTINGS = {
    NOTES: ("every doc id once, however often it is listed (sets)", _distinct),
    "listed": ("every listed id counted, a repeated one too (len(retrieved), len(relevant))", _listed),
}

CELL_COUNTINGS = COUNTINGS | {
    "retrieved-listed": ("FP from len(retrieved): a repeated retrieved id counted twice", _one_side(True)),
    "relevant-listed": ("FN from len(relevant): a repeated relevant id counted twice", _one_side(False)),
}


def _order_words(order):
    moved = [CELLS[i] for i, j in enumerate(order) if i != j]
    where = f"{' and '.join(moved)} swapped" if len(moved) == 2 else f"{', '.join(moved)} moved"
    return f"the cells returned as ({', '.join(CELLS[i] for i in order)}): {where}"


ORDERS = {NOTES: ("(tp, fp, fn, tn)", None)} | {
    "-".join(CELLS[i] for i in order): (_order_words(order), order)
    for order in itertools.permutations(range(4))
    if order != (0, 1, 2, 3)
}


def _confusion_matrix(choice):
    count = CELL_COUNTINGS[choice["counting"]][1]
    order = ORDERS[choice["order"]][1] or (0, 1, 2, 3)

    def variant(retrieved, relevant, collection_size):
        cells = count(retrieved, relevant, collection_size)
        return tuple(cells[i] for i in order)

    return variant


def _share(top, bottom):
    return top / bottom if bottom else 0.0


FORMULAS = {
    NOTES: ("(TP + TN) / N", lambda tp, fp, fn, tn, n: _share(tp + tn, n)),
    "f1": ("F1, 2TP / (2TP + FP + FN)", lambda tp, fp, fn, tn, n: _share(2 * tp, 2 * tp + fp + fn)),
    "balanced": (
        "balanced accuracy, the mean of TP / (TP + FN) and TN / (TN + FP)",
        lambda tp, fp, fn, tn, n: (_share(tp, tp + fn) + _share(tn, tn + fp)) / 2,
    ),
    "precision": ("precision, TP / (TP + FP)", lambda tp, fp, fn, tn, n: _share(tp, tp + fp)),
    "recall": ("recall, TP / (TP + FN)", lambda tp, fp, fn, tn, n: _share(tp, tp + fn)),
    "specificity": ("specificity, TN / (TN + FP)", lambda tp, fp, fn, tn, n: _share(tn, tn + fp)),
    "error": ("the error rate, (FP + FN) / N", lambda tp, fp, fn, tn, n: _share(fp + fn, n)),
    "tp-fp": (
        "(TP + FP) / N: the cells unpacked in another order, FP read as TN",
        lambda tp, fp, fn, tn, n: _share(tp + fp, n),
    ),
    "tp-fn": (
        "(TP + FN) / N: the cells unpacked in another order, FN read as TN",
        lambda tp, fp, fn, tn, n: _share(tp + fn, n),
    ),
    "fp-tn": (
        "(FP + TN) / N: the cells unpacked in another order, FP read as TP",
        lambda tp, fp, fn, tn, n: _share(fp + tn, n),
    ),
    "fn-tn": (
        "(FN + TN) / N: the cells unpacked in another order, FN read as TP",
        lambda tp, fp, fn, tn, n: _share(fn + tn, n),
    ),
}


def _accuracy(choice):
    count = COUNTINGS[choice["counting"]][1]
    formula = FORMULAS[choice["formula"]][1]

    def variant(retrieved, relevant, collection_size):
        tp, fp, fn, tn = count(retrieved, relevant, collection_size)
        return formula(tp, fp, fn, tn, collection_size)

    return variant


# ---------------------------------------------------------------- evaluate

JUDGMENTS = {
    NOTES: ("the query's judgments as given", lambda j: j),
    "positive": ("only the judgments of positive grade kept", lambda j: {d: g for d, g in j.items() if g > 0}),
    "non-negative": ("the judgments of grade -1 dropped", lambda j: {d: g for d, g in j.items() if g >= 0}),
    "sorted-ids": ("sorted(judgments): a list of the judged doc ids, their grades lost", lambda j: sorted(j)),
}

MEASURED = {
    NOTES: ("every query measured on its own ranking and judgments", False),
    "by-ranking": (
        "a value kept by ranking: a query whose ranking was measured before gets that query's value",
        True,
    ),
}


def _evaluate(choice):
    handed = JUDGMENTS[choice["judgments"]][1]
    cached = MEASURED[choice["measured"]][1]

    def variant(run, qrels, measure):
        values: dict = {}
        seen: dict = {}
        for query_id, judgments in qrels.items():
            ranking = run.get(query_id, [])
            key = tuple(ranking)
            if cached and key in seen:
                values[query_id] = seen[key]
                continue
            values[query_id] = seen[key] = measure(ranking, handed(judgments))
        return values

    return variant


# ---------------------------------------------------------------- largest_differences

DIFFERENCES = {
    NOTES: ("|a - b|, the absolute difference", lambda a, b: abs(a - b)),
    "a-minus-b": ("a - b, signed (b above a counted as small)", lambda a, b: a - b),
    "b-minus-a": ("b - a, signed (a above b counted as small)", lambda a, b: b - a),
}

DIRECTIONS = {
    NOTES: ("the largest difference first", None),
    "smallest": ("the smallest difference first", None),
}

TIES = {
    NOTES: ("query ids ascending, in string order ('10' before '9')", lambda q: q),
    "descending": ("query ids descending", None),
    "first-seen": ("as the queries come in scores_a (a stable sort)", None),
    "as-numbers": ("query ids ascending as numbers ('9' before '10')", lambda q: (len(q), q)),
}

SIZES = {
    NOTES: ("n", lambda n: n),
    "n-plus-one": ("n + 1", lambda n: n + 1),
    "n-minus-one": ("n - 1", lambda n: n - 1),
}

KEPT = {
    NOTES: ("every query in both, a difference of 0 too", False),
    "differing": ("only the queries whose scores differ (a difference of 0 dropped)", True),
}


def _largest_differences(choice):
    difference = DIFFERENCES[choice["difference"]][1]
    smallest = choice["direction"] == "smallest"
    ties, size = choice["ties"], SIZES[choice["size"]][1]
    differing = KEPT[choice["kept"]][1]

    def variant(scores_a, scores_b, n=2):
        common = [q for q in scores_a if q in scores_b]
        if differing:
            common = [q for q in common if scores_a[q] != scores_b[q]]
        if ties == "descending":
            common.sort(reverse=True)
        elif ties != "first-seen":
            common.sort(key=TIES[ties][1])
        common.sort(key=lambda q: difference(scores_a[q], scores_b[q]), reverse=not smallest)
        return common[: max(size(n), 0)]

    return variant


MEASURES = {
    "confusion_matrix": {
        "measure": "the confusion matrix",
        "notes": "Part II, Accuracy, Precision and Recall",
        "parts": _parts(counting=("how doc ids are counted", CELL_COUNTINGS), order=("the order of the cells", ORDERS)),
        "build": _confusion_matrix,
    },
    "accuracy": {
        "measure": "accuracy",
        "notes": "Part II, Accuracy, and why it is not enough",
        "parts": _parts(counting=("how doc ids are counted", COUNTINGS), formula=("the formula", FORMULAS)),
        "build": _accuracy,
    },
    "evaluate": {
        "measure": "evaluate",
        "notes": "Part V, Using ir_measures",
        "parts": _parts(
            judgments=("the judgments handed to the measure", JUDGMENTS),
            measured=("what is measured", MEASURED),
        ),
        "build": _evaluate,
    },
    "largest_differences": {
        "measure": "the largest differences",
        "notes": "Part VI, Per-query analysis",
        "parts": _parts(
            difference=("the difference sorted on", DIFFERENCES),
            direction=("the order", DIRECTIONS),
            ties=("equal differences", TIES),
            size=("how many ids", SIZES),
            kept=("the queries compared", KEPT),
        ),
        "build": _largest_differences,
    },
}
