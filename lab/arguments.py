"""The contract's checks of the arguments, and the usual ways students get them wrong: the building
blocks of the catalogue's mistakes about arguments (``misconceptions/arguments.py``). Past their
checks the measures here are the right ones. Plain functions of plain values, run by the parent on
trusted inputs only."""

from __future__ import annotations

from numbers import Integral

from . import variants

GAINS = ("linear", "exp")


def positive(value, accept_zero: bool = False, type_error: bool = False, check: bool = True):
    """``value`` if it is a positive integer, else ValueError; the usual slips: ``accept_zero`` (the
    test is ``value < 0``), ``type_error`` (a non-integer raises TypeError), no ``check`` at all."""
    if not check:
        return value
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise (TypeError if type_error else ValueError)(f"not an integer: {value!r}")
    if value < 0 or (value == 0 and not accept_zero):
        raise ValueError(f"not a positive integer: {value!r}")
    return value


def gain_name(gain, unknown: str | None = None) -> str:
    """``gain`` if the contract knows it, else ValueError (or the slip: ``unknown`` taken instead)."""
    if gain in GAINS:
        return gain
    if unknown is not None:
        return unknown
    raise ValueError(f"unknown gain {gain!r}")


def precision(ranking, judgments, k, rel=1, k_check=None, rel_check=None):
    k, rel = positive(k, **(k_check or {})), positive(rel, **(rel_check or {}))
    return sum(variants.hit_flags(ranking[:k], judgments, lambda g: g >= rel)) / k


def recall(ranking, judgments, k, rel=1, k_check=None, rel_check=None):
    k, rel = positive(k, **(k_check or {})), positive(rel, **(rel_check or {}))
    total = variants.count_at_least(judgments, rel)
    return sum(variants.hit_flags(ranking[:k], judgments, lambda g: g >= rel)) / total if total else 0.0


def dcg(ranking, judgments, k, gain="linear", k_check=None, unknown_gain=None):
    return variants.dcg_value(ranking, judgments, positive(k, **(k_check or {})), gain_name(gain, unknown_gain))


def ndcg(ranking, judgments, k, gain="linear", k_check=None, unknown_gain=None):
    return variants.ndcg_value(ranking, judgments, positive(k, **(k_check or {})), gain_name(gain, unknown_gain))


def cells(retrieved, relevant, n, check_union: bool = True, check_empty: bool = False):
    """The confusion matrix, ``n`` checked against the documents retrieved or relevant (and, for
    accuracy, against 0: ``check_empty``)."""
    union = set(retrieved) | set(relevant)
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise ValueError(f"not an integer: {n!r}")
    if check_union and n < len(union):
        raise ValueError("collection_size is smaller than the documents retrieved or relevant")
    if check_empty and n == 0:
        raise ValueError("collection_size is 0")
    return variants.cells(retrieved, relevant, n)


def accuracy(retrieved, relevant, n, check_union: bool = True, check_empty: bool = True):
    tp, _, _, tn = cells(retrieved, relevant, n, check_union, check_empty)
    return (tp + tn) / n
