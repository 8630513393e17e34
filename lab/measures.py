"""What each measure is, apart from how it is computed.

A ``MeasureSpec`` ties a measure of the notes to the student function that computes it for
one query and to the ``ir_measures`` measure that computes it independently. The reference
generator, the randomised checks and the Cranfield checks all read these specs; only
``ir_measures_values`` talks to ``ir_measures`` (see docs/CONVENTIONS.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from autograder.labkit.case import plain

EXP_GAINS = MappingProxyType({1: 1, 2: 3, 3: 7, 4: 15})


@dataclass(frozen=True)
class MeasureSpec:
    label: str  # as the notes and reports print it
    function: str  # the lab05.metrics function computing it for one query
    kwargs: Mapping = field(default_factory=dict)  # its keyword arguments (k, rel, gain)
    ir_measure: str = ""  # the ir_measures measure, parsed by ir_measures.parse_measure

    def call_text(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.kwargs.items())
        return f"{self.function}(ranking, judgments{', ' + args if args else ''})"


def spec(label, function, ir_measure, **kwargs) -> MeasureSpec:
    return MeasureSpec(label, function, MappingProxyType(dict(kwargs)), ir_measure)


def exp_ndcg(k: int) -> str:
    """``nDCG@k`` with gain 2^grade - 1, at full precision (pytrec_eval, not gdeval)."""
    gains = ", ".join(f"{grade}: {gain}" for grade, gain in EXP_GAINS.items())
    return f"nDCG(gains={{{gains}}})@{k}"


#: The measures of the notes' Cranfield table (Part V), in its order, plus the exp nDCG row.
CRANFIELD = {
    "P@10": spec("P@10", "precision_at_k", "P(rel=1)@10", k=10),
    "R@100": spec("R@100", "recall_at_k", "R(rel=1)@100", k=100),
    "RR": spec("RR", "reciprocal_rank", "RR(rel=1)"),
    "AP": spec("AP", "average_precision", "AP(rel=1)"),
    "nDCG@10": spec("nDCG@10", "ndcg_at_k", "nDCG@10", k=10),
    "nDCG@10 exp": spec("nDCG@10 exp", "ndcg_at_k", exp_ndcg(10), k=10, gain="exp"),
}


def answers_by_ir_measures(ir_measure, cases) -> list:
    """The answers of random (ranking, judgments) cases from ``ir_measures``: each case's measure is
    ``ir_measure(k=, rel=, gain=)`` (a function's record says it); cases of one measure are computed
    together, each as a query of its own."""
    groups: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        kwargs = case.kwargs
        measure = ir_measure(k=kwargs.get("k"), rel=kwargs.get("rel", 1), gain=kwargs.get("gain", "linear"))
        groups.setdefault(measure, []).append(index)
    values: list = [None] * len(cases)
    for measure, indexes in groups.items():
        args = {i: [plain(arg) for arg in cases[i].args] for i in indexes}
        qrels = {cases[i].id: args[i][1] for i in indexes}
        run = {
            cases[i].id: {doc: float(len(args[i][0]) - rank) for rank, doc in enumerate(args[i][0])}
            for i in indexes
            if args[i][0]
        }
        per_query = ir_measures_values(measure, qrels, run)
        for i in indexes:
            values[i] = per_query[cases[i].id]
    return values


def ir_measures_values(measure: str, qrels, run) -> dict[str, float]:
    """Per-query values of one ``ir_measures`` measure: ``{query_id: value}`` for every query
    of ``qrels`` (a query the run lacks scores 0, as in the aggregate).

    ``run`` maps query id -> ``{doc_id: score}``. One measure per call: ir_measures 0.4.3
    mixes up ``nDCG@k`` and ``nDCG(gains=...)@k`` computed in the same call.
    """
    import ir_measures

    parsed = ir_measures.parse_measure(measure)
    values = dict.fromkeys(qrels, 0.0)
    for metric in ir_measures.iter_calc([parsed], qrels, run):
        if metric.query_id in values:
            values[metric.query_id] = float(metric.value)
    return values
