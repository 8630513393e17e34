"""The right answers of the random cases no library computes, one function per graded function
(each record's ``expected``).

``function(made, resolve) -> list``: ``made`` the cases, ``resolve`` builds what a case names (e.g.
the grader's measures); confusion_matrix, accuracy, dcg_at_k, evaluate and largest_differences.

Answer code, so hidden like the misconception catalogue (``platforms/common/shipment.py:
ANSWER_CODE``): it ships in Gradescope's private autograder.zip and PrairieLearn's private
``tests/hidden/code/``, never in the public image nor the handout. Trusted code, run by the parent.
"""

from __future__ import annotations

import math

from autograder.labkit.case import plain, raises

from .features import DIFFERENCES_DEFAULT_N


def _cells(retrieved, relevant, size) -> list:
    retrieved, relevant = set(retrieved), set(relevant)
    tp = len(retrieved & relevant)
    return [tp, len(retrieved) - tp, len(relevant) - tp, size - len(retrieved | relevant)]


def confusion_matrix(made, resolve) -> list:
    """The right cells, or ValueError for a collection smaller than the union."""
    return [
        raises("ValueError") if size < len(set(retrieved) | set(relevant)) else _cells(retrieved, relevant, size)
        for retrieved, relevant, size in (case.args for case in made)
    ]


def accuracy(made, resolve) -> list:
    """(TP + TN) / N, or ValueError for a collection smaller than the union or empty."""
    found = []
    for retrieved, relevant, size in (case.args for case in made):
        if size < len(set(retrieved) | set(relevant)) or size == 0:
            found.append(raises("ValueError"))
            continue
        tp, _, _, tn = _cells(retrieved, relevant, size)
        found.append((tp + tn) / size)
    return found


def _gain(grade: int, gain: str) -> float:
    grade = max(grade, 0)
    return (2**grade - 1) if gain == "exp" else grade


def dcg_at_k(made, resolve) -> list:
    """DCG@k as the notes define it: gain (the grade, or 2**grade - 1; negative grades 0) over log2(rank + 1)."""
    found = []
    for case in made:
        ranking, judgments = list(plain(case.args[0])), plain(case.args[1])
        gain = case.kwargs.get("gain", "linear")
        found.append(
            sum(
                _gain(judgments.get(doc, 0), gain) / math.log2(rank + 1)
                for rank, doc in enumerate(ranking[: case.kwargs["k"]], start=1)
            )
        )
    return found


def evaluate(made, resolve) -> list:
    """The right answers, with the grader's measures (``resolve`` builds them from their names)."""
    return [
        {query: resolve(measure)(resolve(run).get(query, []), judgments) for query, judgments in qrels.items()}
        for run, qrels, measure in (case.args for case in made)
    ]


def largest_differences(made, resolve) -> list:
    """The common queries by absolute difference, largest first, ties by id."""
    return [
        sorted(set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), q))[: case.kwargs.get("n", DIFFERENCES_DEFAULT_N)]
        for case in made
        for a, b in [case.args]
    ]
