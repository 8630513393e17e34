"""Every graded function's record, in the handout's order: a registry as a plain dict."""

from __future__ import annotations

from autograder.labkit.case import raises, valid_tuning
from autograder.labkit.record import GradedFunction

from .. import measures
from . import (
    accuracy,
    average_precision,
    confusion_matrix,
    dcg_at_k,
    evaluate,
    largest_differences,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    write_run,
)

FUNCTIONS: dict[str, GradedFunction] = {
    module.RECORD.name: module.RECORD
    for module in (
        confusion_matrix,
        accuracy,
        precision_at_k,
        recall_at_k,
        reciprocal_rank,
        average_precision,
        dcg_at_k,
        ndcg_at_k,
        evaluate,
        largest_differences,
        write_run,
    )
}


def answers(function: str, made: list, resolve) -> list:
    """The right answers of ``function``'s random cases ``made``, computed now: ValueError where a
    tuning parameter is one the contract refuses, else its record's own computation, or
    ``ir_measures``'s (``resolve`` builds what a case names, e.g. a measure)."""
    record = FUNCTIONS[function]
    valid = [case for case in made if valid_tuning(case.kwargs)]
    if record.expected is not None:
        computed = record.expected(valid, resolve)
    elif record.ir_measure is not None:
        computed = measures.answers_by_ir_measures(record.ir_measure, valid)
    else:
        raise ValueError(f"{function}'s record says neither how to compute its answers nor its ir_measures measure")
    answer = dict(zip((case.id for case in valid), computed))
    return [answer[case.id] if case.id in answer else raises("ValueError") for case in made]


def run_writer() -> str | None:
    """The function whose checks read the run file it writes (None: the lab has none)."""
    return next((name for name, record in FUNCTIONS.items() if record.writes_run_file), None)
