"""Lab 05 metrics with types: NamedTuple cells, an Enum of gains, Protocols for measures."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol

Ranking = Sequence[str]
Judgments = Mapping[str, int]


class Cells(NamedTuple):
    tp: int
    fp: int
    fn: int
    tn: int


class Gain(enum.Enum):
    LINEAR = "linear"
    EXP = "exp"

    def of(self, grade: int) -> float:
        if grade <= 0:
            return 0
        return grade if self is Gain.LINEAR else 2**grade - 1


class Measure(Protocol):
    def __call__(self, ranking: Ranking, judgments: Judgments) -> float: ...


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def _gain(gain: str) -> Gain:
    try:
        return Gain(gain)
    except ValueError:
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}") from None


def confusion_matrix(retrieved: Sequence[str], relevant: Sequence[str], collection_size: int) -> Cells:
    got: set[str] = set(retrieved)
    wanted: set[str] = set(relevant)
    if collection_size < len(got | wanted):
        raise ValueError("collection_size is smaller than |retrieved ∪ relevant|")
    return Cells(len(got & wanted), len(got - wanted), len(wanted - got), collection_size - len(got | wanted))


def accuracy(retrieved: Sequence[str], relevant: Sequence[str], collection_size: int) -> float:
    cells = confusion_matrix(retrieved, relevant, collection_size)
    if collection_size == 0:
        raise ValueError("collection_size must be positive")
    return (cells.tp + cells.tn) / collection_size


def _relevant(judgments: Judgments, doc: str, rel: int) -> bool:
    return judgments.get(doc, 0) >= rel


def precision_at_k(ranking: Ranking, judgments: Judgments, k: int, rel: int = 1) -> float:
    k, rel = _positive("k", k), _positive("rel", rel)
    return sum(_relevant(judgments, doc, rel) for doc in ranking[:k]) / k


def recall_at_k(ranking: Ranking, judgments: Judgments, k: int, rel: int = 1) -> float:
    k, rel = _positive("k", k), _positive("rel", rel)
    total: int = sum(grade >= rel for grade in judgments.values())
    return sum(_relevant(judgments, doc, rel) for doc in ranking[:k]) / total if total else 0.0


def reciprocal_rank(ranking: Ranking, judgments: Judgments, rel: int = 1) -> float:
    rel = _positive("rel", rel)
    rank: int
    for rank, doc in enumerate(ranking, start=1):
        if _relevant(judgments, doc, rel):
            return 1.0 / rank
    return 0.0


def average_precision(ranking: Ranking, judgments: Judgments, rel: int = 1) -> float:
    rel = _positive("rel", rel)
    total: int = sum(grade >= rel for grade in judgments.values())
    if not total:
        return 0.0
    found: int = 0
    summed: float = 0.0
    for rank, doc in enumerate(ranking, start=1):
        if _relevant(judgments, doc, rel):
            found += 1
            summed += found / rank
    return summed / total


def _dcg(grades: Sequence[int], gain: Gain) -> float:
    return math.fsum(gain.of(grade) / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1))


def dcg_at_k(ranking: Ranking, judgments: Judgments, k: int, gain: str = "linear") -> float:
    k = _positive("k", k)
    return _dcg([judgments.get(doc, 0) for doc in ranking[:k]], _gain(gain))


def ndcg_at_k(ranking: Ranking, judgments: Judgments, k: int, gain: str = "linear") -> float:
    k = _positive("k", k)
    chosen = _gain(gain)
    ideal = _dcg(sorted(judgments.values(), reverse=True)[:k], chosen)
    return _dcg([judgments.get(doc, 0) for doc in ranking[:k]], chosen) / ideal if ideal else 0.0


def evaluate(run: Mapping[str, Ranking], qrels: Mapping[str, Judgments], measure: Measure) -> dict[str, float]:
    return {query_id: measure(run.get(query_id, []), judgments) for query_id, judgments in qrels.items()}


def largest_differences(scores_a: Mapping[str, float], scores_b: Mapping[str, float], n: int = 2) -> list[str]:
    n = _positive("n", n)
    common: list[str] = sorted(set(scores_a).intersection(scores_b))
    return sorted(common, key=lambda query_id: -abs(scores_a[query_id] - scores_b[query_id]))[:n]
