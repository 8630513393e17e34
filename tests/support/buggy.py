"""Realistic buggy submissions (the misconceptions students really have) and correct variants.

Each bug rewrites one function of the reference the way a student gets it wrong; ``loses``
names the functions whose checks must lose points (a bug in ``dcg_at_k`` also reaches
``ndcg_at_k`` when nDCG calls it). Correct variants must get full marks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bug:
    id: str
    file: str
    source: str  # the student's version of the function(s)
    loses: frozenset  # functions that must lose points; all others keep full marks
    misconception: str = ""  # the misconception library's id for it (issue 4), when it has one


def bug(id, file, source, *loses, misconception=""):
    return Bug(id, file, source, frozenset(loses), misconception)


#: Bugs that are slips of Python rather than misconceptions of the notes: they must lose points, and
#: no catalogue entry names them (the reason, each).
#: (`run.get(q) or []` in evaluate was one while numpy arrays were passed as rankings; the contract
#: now promises lists and tuples only, so it is honest code: ``tests/lab/test_fair_inputs.py``.)
UNNAMED: dict[str, str] = {}

BUGS = [
    bug(
        "p-over-ranking-length",
        "metrics.py",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            top = ranking[:k]
            if not top:
                return 0.0
            return sum(1 for d in top if judgments.get(d, 0) >= rel) / len(top)
        """,
        "precision_at_k",
        misconception="precision-over-ranking-length",
    ),
    bug(
        "p-minus-one-relevant",
        "metrics.py",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) != 0) / k
        """,
        "precision_at_k",
        misconception="minus-one-relevant",
    ),
    bug(
        "p-ignores-rel",
        "metrics.py",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= 1) / k
        """,
        "precision_at_k",
        misconception="rel-ignored",
    ),
    bug(
        "p-skips-rank-1",
        "metrics.py",
        """
        def precision_at_k(ranking, judgments, k, rel=1):
            return sum(1 for d in ranking[1:k + 1] if judgments.get(d, 0) >= rel) / k
        """,
        "precision_at_k",
        misconception="off-by-one-cutoff",
    ),
    bug(
        "recall-over-retrieved-relevant",
        "metrics.py",
        """
        def recall_at_k(ranking, judgments, k, rel=1):
            found = sum(1 for d in ranking if judgments.get(d, 0) >= rel)
            if found == 0:
                return 0.0
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / found
        """,
        "recall_at_k",
        misconception="recall-over-retrieved-relevant",
    ),
    bug(
        "recall-over-k",
        "metrics.py",
        """
        def recall_at_k(ranking, judgments, k, rel=1):
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / k
        """,
        "recall_at_k",
        misconception="recall-over-k",
    ),
    bug(
        "recall-no-zero-guard",
        "metrics.py",
        """
        def recall_at_k(ranking, judgments, k, rel=1):
            total = sum(1 for g in judgments.values() if g >= rel)
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) >= rel) / total
        """,
        "recall_at_k",
        misconception="no-zero-guard",
    ),
    bug(
        "recall-minus-one-in-r",
        "metrics.py",
        """
        def recall_at_k(ranking, judgments, k, rel=1):
            total = sum(1 for g in judgments.values() if g != 0)
            if total == 0:
                return 0.0
            return sum(1 for d in ranking[:k] if judgments.get(d, 0) != 0) / total
        """,
        "recall_at_k",
        misconception="minus-one-relevant",
    ),
    bug(
        "rr-zero-based-rank",
        "metrics.py",
        """
        def reciprocal_rank(ranking, judgments, rel=1):
            for i, d in enumerate(ranking):
                if judgments.get(d, 0) >= rel:
                    return 1 / (i + 1) if i == 0 else 1 / i
            return 0.0
        """,
        "reciprocal_rank",
        misconception="rr-zero-based-rank",
    ),
    bug(
        "rr-last-relevant",
        "metrics.py",
        """
        def reciprocal_rank(ranking, judgments, rel=1):
            value = 0.0
            for i, d in enumerate(ranking, start=1):
                if judgments.get(d, 0) >= rel:
                    value = 1 / i
            return value
        """,
        "reciprocal_rank",
        misconception="rr-last-relevant",
    ),
    bug(
        "rr-ignores-rel",
        "metrics.py",
        """
        def reciprocal_rank(ranking, judgments, rel=1):
            for i, d in enumerate(ranking, start=1):
                if judgments.get(d, 0) > 0:
                    return 1 / i
            return 0.0
        """,
        "reciprocal_rank",
        misconception="rel-ignored",
    ),
    bug(
        "ap-over-relevant-retrieved",
        "metrics.py",
        """
        def average_precision(ranking, judgments, rel=1):
            found, total = 0, 0.0
            for i, d in enumerate(ranking, start=1):
                if judgments.get(d, 0) >= rel:
                    found += 1
                    total += found / i
            return total / found if found else 0.0
        """,
        "average_precision",
        misconception="ap-over-relevant-retrieved",
    ),
    bug(
        "ap-over-ranking-length",
        "metrics.py",
        """
        def average_precision(ranking, judgments, rel=1):
            found, total = 0, 0.0
            for i, d in enumerate(ranking, start=1):
                if judgments.get(d, 0) >= rel:
                    found += 1
                    total += found / i
            return total / len(ranking) if ranking else 0.0
        """,
        "average_precision",
        misconception="ap-over-ranking-length",
    ),
    bug(
        "ap-every-rank",
        "metrics.py",
        """
        def average_precision(ranking, judgments, rel=1):
            total_relevant = sum(1 for g in judgments.values() if g >= rel)
            if total_relevant == 0:
                return 0.0
            found, total = 0, 0.0
            for i, d in enumerate(ranking, start=1):
                if judgments.get(d, 0) >= rel:
                    found += 1
                total += found / i
            return total / total_relevant
        """,
        "average_precision",
        misconception="ap-every-rank",
    ),
    bug(
        "ap-minus-one-relevant",
        "metrics.py",
        """
        def average_precision(ranking, judgments, rel=1):
            total_relevant = sum(1 for g in judgments.values() if g != 0)
            if total_relevant == 0:
                return 0.0
            found, total = 0, 0.0
            for i, d in enumerate(ranking, start=1):
                if judgments.get(d, 0) != 0:
                    found += 1
                    total += found / i
            return total / total_relevant
        """,
        "average_precision",
        misconception="minus-one-relevant",
    ),
    bug(
        "dcg-no-discount-at-rank-2",
        "metrics.py",
        """
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            import math
            total = 0.0
            for i, d in enumerate(ranking[:k], start=1):
                g = max(judgments.get(d, 0), 0)
                g = 2 ** g - 1 if gain == "exp" else g
                total += g if i == 1 else g / math.log2(i)
            return total
        """,
        "dcg_at_k",
        "ndcg_at_k",
        misconception="dcg-log2-i",
    ),
    bug(
        "dcg-natural-log",
        "metrics.py",
        """
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            import math
            total = 0.0
            for i, d in enumerate(ranking[:k], start=1):
                g = max(judgments.get(d, 0), 0)
                g = 2 ** g - 1 if gain == "exp" else g
                total += g / math.log(i + 1)
            return total
        """,
        "dcg_at_k",
        misconception="dcg-natural-log",
    ),
    bug(
        "dcg-gain-ignored",
        "metrics.py",
        """
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            import math
            return sum(max(judgments.get(d, 0), 0) / math.log2(i + 1) for i, d in enumerate(ranking[:k], start=1))
        """,
        "dcg_at_k",
        "ndcg_at_k",
        misconception="gain-ignored",
    ),
    bug(
        "dcg-negative-gain",
        "metrics.py",
        """
        def dcg_at_k(ranking, judgments, k, gain="linear"):
            import math
            total = 0.0
            for i, d in enumerate(ranking[:k], start=1):
                g = judgments.get(d, 0)
                total += (2 ** g - 1 if gain == "exp" else g) / math.log2(i + 1)
            return total
        """,
        "dcg_at_k",
        "ndcg_at_k",
        misconception="minus-one-negative-gain",
    ),
    bug(
        "ndcg-idcg-from-retrieved",
        "metrics.py",
        """
        def ndcg_at_k(ranking, judgments, k, gain="linear"):
            ideal = sorted(ranking, key=lambda d: -judgments.get(d, 0))
            best = dcg_at_k(ideal, judgments, k, gain)
            return dcg_at_k(ranking, judgments, k, gain) / best if best > 0 else 0.0
        """,
        "ndcg_at_k",
        misconception="idcg-from-retrieved",
    ),
    bug(
        "ndcg-ideal-not-cut",
        "metrics.py",
        """
        def ndcg_at_k(ranking, judgments, k, gain="linear"):
            ideal = sorted(judgments, key=lambda d: -judgments[d])
            best = dcg_at_k(ideal, judgments, len(ideal) or 1, gain)
            return dcg_at_k(ranking, judgments, k, gain) / best if best > 0 else 0.0
        """,
        "ndcg_at_k",
        misconception="idcg-not-cut",
    ),
    bug(
        "ndcg-no-zero-guard",
        "metrics.py",
        """
        def ndcg_at_k(ranking, judgments, k, gain="linear"):
            ideal = sorted(judgments, key=lambda d: -judgments[d])
            return dcg_at_k(ranking, judgments, k, gain) / dcg_at_k(ideal, judgments, k, gain)
        """,
        "ndcg_at_k",
        misconception="no-zero-guard",
    ),
    bug(
        "ndcg-ideal-linear-gain",
        "metrics.py",
        """
        def ndcg_at_k(ranking, judgments, k, gain="linear"):
            ideal = sorted(judgments, key=lambda d: -judgments[d])
            best = dcg_at_k(ideal, judgments, k)
            return dcg_at_k(ranking, judgments, k, gain) / best if best > 0 else 0.0
        """,
        "ndcg_at_k",
        misconception="gain-ignored",
    ),
    bug(
        "evaluate-skips-missing",
        "metrics.py",
        """
        def evaluate(run, qrels, measure):
            return {q: measure(run[q], qrels[q]) for q in qrels if q in run}
        """,
        "evaluate",
        misconception="evaluate-skips-missing",
    ),
    bug(
        "evaluate-over-run",
        "metrics.py",
        """
        def evaluate(run, qrels, measure):
            return {q: measure(ranking, qrels.get(q, {})) for q, ranking in run.items()}
        """,
        "evaluate",
        misconception="evaluate-over-run",
    ),
    bug(
        "differences-signed",
        "metrics.py",
        """
        def largest_differences(scores_a, scores_b, n=2):
            common = set(scores_a) & set(scores_b)
            return sorted(common, key=lambda q: (-(scores_a[q] - scores_b[q]), q))[:n]
        """,
        "largest_differences",
        misconception="differences-signed",
    ),
    bug(
        "differences-numeric-ties",
        "metrics.py",
        """
        def largest_differences(scores_a, scores_b, n=2):
            common = set(scores_a) & set(scores_b)
            return sorted(common, key=lambda q: (-abs(scores_a[q] - scores_b[q]), int(q)))[:n]
        """,
        "largest_differences",
        misconception="differences-numeric-ties",
    ),
    bug(
        "confusion-tn-forgets-fn",
        "metrics.py",
        """
        def confusion_matrix(retrieved, relevant, collection_size):
            retrieved, relevant = set(retrieved), set(relevant)
            tp = len(retrieved & relevant)
            fp, fn = len(retrieved - relevant), len(relevant - retrieved)
            if collection_size < len(retrieved | relevant):
                raise ValueError("collection too small")
            return tp, fp, fn, collection_size - tp - fp
        """,
        "confusion_matrix",
        "accuracy",
        misconception="tn-wrong",
    ),
    bug(
        "accuracy-is-precision",
        "metrics.py",
        """
        def accuracy(retrieved, relevant, collection_size):
            tp, fp, fn, tn = confusion_matrix(retrieved, relevant, collection_size)
            return tp / (tp + fp) if tp + fp else 0.0
        """,
        "accuracy",
        misconception="accuracy-is-precision",
    ),
    bug(
        "run-ranks-from-0",
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for q in queries:
                    for rank, (doc_id, title, score) in enumerate(search_fn(q.text, k)):
                        out.write(f"{q.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\\n")
        """,
        "write_run",
        misconception="run-ranks-from-0",
    ),
    bug(
        "run-rank-score-swapped",
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for q in queries:
                    for rank, (doc_id, title, score) in enumerate(search_fn(q.text, k), start=1):
                        out.write(f"{q.query_id} Q0 {doc_id} {score:.8f} {rank} {system_name}\\n")
        """,
        "write_run",
        misconception="run-column-order",
    ),
    bug(
        "run-4-decimals",
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for q in queries:
                    for rank, (doc_id, title, score) in enumerate(search_fn(q.text, k), start=1):
                        out.write(f"{q.query_id} Q0 {doc_id} {rank} {score:.4f} {system_name}\\n")
        """,
        "write_run",
        misconception="run-few-decimals",
    ),
    bug(
        "run-sorted-by-doc-id",
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for q in queries:
                    hits = sorted(search_fn(q.text, k))
                    for rank, (doc_id, title, score) in enumerate(hits, start=1):
                        out.write(f"{q.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\\n")
        """,
        "write_run",
        misconception="run-unsorted",
    ),
    bug(
        "run-ignores-k",
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for q in queries:
                    for rank, (doc_id, title, score) in enumerate(search_fn(q.text, 100), start=1):
                        out.write(f"{q.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\\n")
        """,
        "write_run",
        misconception="run-ignores-k",
    ),
    bug(
        "run-no-q0",
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            with open(path, "w") as out:
                for q in queries:
                    for rank, (doc_id, title, score) in enumerate(search_fn(q.text, k), start=1):
                        out.write(f"{q.query_id} {doc_id} {rank} {score:.8f} {system_name}\\n")
        """,
        "write_run",
        misconception="run-no-q0",
    ),
]

#: Correct in a different way from the reference: numpy, other structure, more decimals.
VARIANTS = {
    "numpy-metrics": (
        "metrics.py",
        """
        import numpy as np

        def _rel(ranking, judgments, rel):
            return np.array([judgments.get(d, 0) >= rel for d in ranking], dtype=float)

        def precision_at_k(ranking, judgments, k, rel=1):
            if not isinstance(k, int) or k < 1 or not isinstance(rel, int) or rel < 1:
                raise ValueError("bad k or rel")
            return _rel(ranking[:k], judgments, rel).sum() / k

        def recall_at_k(ranking, judgments, k, rel=1):
            if not isinstance(k, int) or k < 1 or not isinstance(rel, int) or rel < 1:
                raise ValueError("bad k or rel")
            total = np.sum(np.array(list(judgments.values())) >= rel) if judgments else 0
            return _rel(ranking[:k], judgments, rel).sum() / total if total else 0.0

        def average_precision(ranking, judgments, rel=1):
            if not isinstance(rel, int) or rel < 1:
                raise ValueError("bad rel")
            total = np.sum(np.array(list(judgments.values())) >= rel) if judgments else 0
            hits = _rel(ranking, judgments, rel)
            if total == 0 or hits.size == 0:
                return np.float64(0.0)
            precision = np.cumsum(hits) / np.arange(1, hits.size + 1)
            return np.sum(precision * hits) / total

        def dcg_at_k(ranking, judgments, k, gain="linear"):
            if gain not in ("linear", "exp") or not isinstance(k, int) or k < 1:
                raise ValueError("bad gain or k")
            grades = np.maximum(np.array([judgments.get(d, 0) for d in ranking[:k]], dtype=float), 0)
            gains = 2 ** grades - 1 if gain == "exp" else grades
            return float(np.sum(gains / np.log2(np.arange(2, grades.size + 2))))

        def ndcg_at_k(ranking, judgments, k, gain="linear"):
            ideal = sorted(judgments, key=lambda d: -judgments[d])
            best = dcg_at_k(ideal, judgments, k, gain)
            return np.float32(dcg_at_k(ranking, judgments, k, gain) / best) if best > 0 else 0
        """,
    ),
    "other-structure": (
        "metrics.py",
        """
        from fractions import Fraction

        def _relevant(judgments, rel):
            if isinstance(rel, bool) or not isinstance(rel, int) or rel < 1:
                raise ValueError("rel must be a positive integer")
            return {d for d, g in judgments.items() if g >= rel}

        def precision_at_k(ranking, judgments, k, rel=1):
            if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
                raise ValueError("k must be a positive integer")
            relevant = _relevant(judgments, rel)
            return Fraction(len([d for d in ranking[:k] if d in relevant]), k)

        def reciprocal_rank(ranking, judgments, rel=1):
            relevant = _relevant(judgments, rel)
            ranks = [i for i, d in enumerate(ranking, 1) if d in relevant]
            return 1 / ranks[0] if ranks else 0

        def largest_differences(scores_a, scores_b, n=2):
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError("n must be a positive integer")
            diffs = [(abs(scores_a[q] - scores_b[q]), q) for q in scores_a if q in scores_b]
            diffs.sort(key=lambda pair: pair[1])
            diffs.sort(key=lambda pair: pair[0], reverse=True)
            return [q for _, q in diffs[:n]]
        """,
    ),
    "full-precision-run": (
        "runs.py",
        """
        def write_run(path, system_name, search_fn, queries, k=100):
            if not isinstance(k, int) or k < 1 or not system_name or any(c.isspace() for c in system_name):
                raise ValueError("bad k or system_name")
            lines = []
            for q in queries:
                for rank, (doc_id, _, score) in enumerate(list(search_fn(q.text, k))[:k], 1):
                    lines.append("\\t".join([q.query_id, "Q0", doc_id, str(rank), repr(score), system_name]))
            with open(path, "w", encoding="utf-8") as out:
                out.write("\\n".join(lines) + ("\\n" if lines else ""))
        """,
    ),
}
