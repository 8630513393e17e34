"""Lab 05 metrics, object oriented: a Query holds one ranking with its judgments and knows its
measures; the module's functions are thin wrappers (the API is functions)."""

from __future__ import annotations

import math
from dataclasses import dataclass


class Gain:
    """A gain function by name."""

    def __init__(self, name):
        if name not in ("linear", "exp"):
            raise ValueError(f"gain must be 'linear' or 'exp', got {name!r}")
        self.name = name

    def __call__(self, grade):
        if grade <= 0:
            return 0
        return grade if self.name == "linear" else 2**grade - 1


@dataclass(frozen=True)
class Cutoff:
    value: int

    def __post_init__(self):
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < 1:
            raise ValueError(f"cutoff must be a positive integer, got {self.value!r}")

    def __hash__(self):
        return hash(("cutoff", self.value))


class Query:
    def __init__(self, ranking, judgments, rel=1):
        Cutoff(rel)
        self.ranking = list(ranking)
        self.judgments = dict(judgments)
        self.rel = rel

    def grade(self, doc):
        return self.judgments.get(doc, 0)

    def relevant(self, doc):
        return self.grade(doc) >= self.rel

    @property
    def total_relevant(self):
        return sum(1 for grade in self.judgments.values() if grade >= self.rel)

    def hits_in_top(self, k):
        return sum(1 for doc in self.ranking[: Cutoff(k).value] if self.relevant(doc))

    def precision(self, k):
        return self.hits_in_top(k) / k

    def recall(self, k):
        return self.hits_in_top(k) / self.total_relevant if self.total_relevant else 0.0

    def reciprocal_rank(self):
        for position, doc in enumerate(self.ranking, start=1):
            if self.relevant(doc):
                return 1 / position
        return 0.0

    def average_precision(self):
        if not self.total_relevant:
            return 0.0
        found, total = 0, 0.0
        for position, doc in enumerate(self.ranking, start=1):
            if self.relevant(doc):
                found += 1
                total += found / position
        return total / self.total_relevant

    @staticmethod
    def dcg(grades, gain):
        return sum(gain(grade) / math.log2(position + 1) for position, grade in enumerate(grades, start=1))

    def dcg_at(self, k, gain):
        return self.dcg([self.grade(doc) for doc in self.ranking[: Cutoff(k).value]], Gain(gain))

    def ndcg_at(self, k, gain):
        ideal = self.dcg(sorted(self.judgments.values(), reverse=True)[: Cutoff(k).value], Gain(gain))
        return self.dcg_at(k, gain) / ideal if ideal else 0.0


class Confusion:
    def __init__(self, retrieved, relevant, collection_size):
        self.retrieved, self.relevant = set(retrieved), set(relevant)
        self.size = collection_size
        if self.size < len(self.retrieved | self.relevant):
            raise ValueError("collection_size is smaller than the retrieved and relevant documents")

    def cells(self):
        tp = len(self.retrieved & self.relevant)
        fp = len(self.retrieved - self.relevant)
        fn = len(self.relevant - self.retrieved)
        return tp, fp, fn, self.size - tp - fp - fn


def confusion_matrix(retrieved, relevant, collection_size):
    return Confusion(retrieved, relevant, collection_size).cells()


def accuracy(retrieved, relevant, collection_size):
    tp, _fp, _fn, tn = Confusion(retrieved, relevant, collection_size).cells()
    if not collection_size:
        raise ValueError("accuracy of an empty collection")
    return (tp + tn) / collection_size


def precision_at_k(ranking, judgments, k, rel=1):
    return Query(ranking, judgments, rel).precision(k)


def recall_at_k(ranking, judgments, k, rel=1):
    return Query(ranking, judgments, rel).recall(k)


def reciprocal_rank(ranking, judgments, rel=1):
    return Query(ranking, judgments, rel).reciprocal_rank()


def average_precision(ranking, judgments, rel=1):
    return Query(ranking, judgments, rel).average_precision()


def dcg_at_k(ranking, judgments, k, gain="linear"):
    return Query(ranking, judgments).dcg_at(k, gain)


def ndcg_at_k(ranking, judgments, k, gain="linear"):
    return Query(ranking, judgments).ndcg_at(k, gain)


def evaluate(run, qrels, measure):
    scores = {}
    for query_id in qrels:
        scores[query_id] = measure(run.get(query_id, []), qrels[query_id])
    return scores


def largest_differences(scores_a, scores_b, n=2):
    Cutoff(n)
    shared = [q for q in scores_a if q in scores_b]
    shared.sort(key=lambda q: (-abs(scores_a[q] - scores_b[q]), q))
    return shared[:n]
