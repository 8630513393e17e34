"""Known mistakes about the arguments: values the contract refuses with ValueError that the code
accepts, or refuses otherwise (every part of the notes; the functions' contracts). Their variants
answer the calls that must raise too (``arguments=True``), and are right on every other call. A
function is listed only where a case can show the mistake (a case with k = 0, a k of 2.5, ...)."""

from __future__ import annotations

from .. import arguments as checked
from .model import m

ZERO = ({"accept_zero": True}, {"check": False})  # k < 0 tested instead of k < 1; no test at all
TYPE_ERROR = {"type_error": True}

ENTRIES = [
    m(
        "k-zero-accepted",
        ["precision_at_k", "recall_at_k", "dcg_at_k"],
        "k = 0 accepted (only a negative k refused, or none)",
        "k must be a positive integer: k = 0 raises ValueError too (test k < 1, not k < 0).",
        "the function's contract",
        arguments=True,
        precision_at_k=tuple(lambda r, j, k, rel=1, c=c: checked.precision(r, j, k, rel, k_check=c) for c in ZERO),
        recall_at_k=tuple(lambda r, j, k, rel=1, c=c: checked.recall(r, j, k, rel, k_check=c) for c in ZERO),
        dcg_at_k=tuple(lambda r, j, k, gain="linear", c=c: checked.dcg(r, j, k, gain, k_check=c) for c in ZERO),
    ),
    m(
        "non-integer-type-error",
        ["precision_at_k"],
        "a k or rel that is not an integer refused with TypeError, not ValueError",
        "The contract refuses every k and rel that is not a positive integer (2.5, '3', True) with ValueError.",
        "the function's contract",
        arguments=True,
        precision_at_k=lambda r, j, k, rel=1: checked.precision(r, j, k, rel, TYPE_ERROR, TYPE_ERROR),
    ),
    m(
        "unknown-gain-linear",
        ["dcg_at_k", "ndcg_at_k"],
        "an unknown gain taken as 'linear'",
        "gain is 'linear' or 'exp'; any other value raises ValueError (a misspelt gain would otherwise go unnoticed).",
        "the function's contract",
        arguments=True,
        dcg_at_k=lambda r, j, k, gain="linear": checked.dcg(r, j, k, gain, unknown_gain="linear"),
        ndcg_at_k=lambda r, j, k, gain="linear": checked.ndcg(r, j, k, gain, unknown_gain="linear"),
    ),
    m(
        "empty-collection-accepted",
        ["accuracy"],
        "a collection of 0 documents not refused: (TP + TN) / 0 raises ZeroDivisionError",
        "With collection_size = 0 accuracy is undefined: the contract asks for a ValueError, raised before dividing.",
        "the function's contract",
        arguments=True,
        accuracy=lambda ret, rel, n: checked.accuracy(ret, rel, n, check_empty=False),
    ),
    m(
        "collection-size-unchecked",
        ["confusion_matrix", "accuracy"],
        "a collection smaller than the documents retrieved or relevant not refused (TN comes out negative)",
        "collection_size counts every document, so it is at least |retrieved ∪ relevant|: a smaller one raises "
        "ValueError.",
        "the function's contract",
        arguments=True,
        confusion_matrix=lambda ret, rel, n: checked.cells(ret, rel, n, check_union=False),
        accuracy=lambda ret, rel, n: checked.accuracy(ret, rel, n, check_union=False),
    ),
]
