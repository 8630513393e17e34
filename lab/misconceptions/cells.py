"""Known misconceptions of the confusion matrix and accuracy (Part II)."""

from __future__ import annotations

from .. import variants
from .model import m

ENTRIES = [
    m(
        "tn-wrong",
        ["confusion_matrix", "accuracy"],
        "TN computed as N - TP - FP (forgetting the misses)",
        "TN counts the documents neither retrieved nor relevant: N - |retrieved ∪ relevant|.",
        "Part II",
        confusion_matrix=lambda ret, rel, n: variants.cells(ret, rel, n, lambda tp, fp, fn: n - tp - fp),
        accuracy=lambda ret, rel, n: (lambda c: (c[0] + c[3]) / n)(
            variants.cells(ret, rel, n, lambda tp, fp, fn: n - tp - fp)
        ),
    ),
    m(
        "accuracy-is-precision",
        ["accuracy"],
        "accuracy computed as precision",
        "Accuracy is (TP + TN) / N, the share of all documents classified correctly.",
        "Part II, Accuracy",
        accuracy=lambda ret, rel, n: (lambda c: c[0] / (c[0] + c[1]) if c[0] + c[1] else 0.0)(
            variants.cells(ret, rel, n)
        ),
    ),
    m(
        "fp-fn-swapped",
        ["confusion_matrix"],
        "FP and FN swapped",
        "FP counts the retrieved documents that are not relevant (noise), FN the relevant documents not "
        "retrieved (misses): (tp, fp, fn, tn).",
        "Part II",
        confusion_matrix=lambda ret, rel, n: (lambda c: [c[0], c[2], c[1], c[3]])(variants.cells(ret, rel, n)),
    ),
    m(
        "accuracy-over-union",
        ["accuracy"],
        "accuracy divided by the documents retrieved or relevant instead of by N",
        "Accuracy counts every document of the collection: (TP + TN) / N.",
        "Part II, Accuracy",
        accuracy=lambda ret, rel, n: (lambda c: (c[0] + c[3]) / len(set(ret) | set(rel)))(variants.cells(ret, rel, n)),
    ),
    m(
        "duplicates-counted",
        ["confusion_matrix", "accuracy"],
        "a doc id listed twice counted twice (the lists counted where sets are due)",
        "retrieved and relevant are collections of documents: a doc id listed twice is one document. Count "
        "with sets: TP = |retrieved ∩ relevant|, FP = |retrieved − relevant|, FN = |relevant − retrieved|.",
        "Part II",
        confusion_matrix=(
            lambda ret, rel, n: variants.cells_counted(ret, rel, n, loop_retrieved=True),
            lambda ret, rel, n: variants.cells_counted(ret, rel, n, lengths=True),
        ),
        # FP and FN from the lists' lengths and TN = N - TP - FP - FN; TP from the sets or over the retrieved list
        accuracy=tuple(
            lambda ret, rel, n, loop=loop: variants.accuracy_of(variants.cells_from_lists(ret, rel, n, loop), n)
            for loop in (True, False)
        ),
    ),
    m(
        "tn-overlap-twice",
        ["confusion_matrix", "accuracy"],
        "TN computed as N - |retrieved| - |relevant| (the documents both retrieved and relevant taken off twice)",
        "TN counts the documents neither retrieved nor relevant: N - |retrieved ∪ relevant|, and a document both "
        "retrieved and relevant is in the union once.",
        "Part II",
        confusion_matrix=lambda ret, rel, n: variants.cells(
            ret, rel, n, lambda tp, fp, fn: n - len(set(ret)) - len(set(rel))
        ),
        accuracy=lambda ret, rel, n: variants.accuracy_of(
            variants.cells(ret, rel, n, lambda tp, fp, fn: n - len(set(ret)) - len(set(rel))), n
        ),
    ),
    m(
        "accuracy-integer-division",
        ["accuracy"],
        "accuracy computed with integer division (TP + TN) // N",
        "// rounds down to a whole number: 0 unless every document is classified correctly. Accuracy is the "
        "share (TP + TN) / N.",
        "Part II, Accuracy",
        accuracy=lambda ret, rel, n: (lambda c: (c[0] + c[3]) // n)(variants.cells(ret, rel, n)),
    ),
]
