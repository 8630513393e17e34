"""The functions other than the ranked measures as compositions of parts (``lab/misconceptions/function_parts.py``):
the notes' composition is the reference on worked examples, every alternative is another function somewhere,
and the words name what differs (which cells are swapped, which side of R@k reads relevance otherwise)."""

from __future__ import annotations

import functools
import importlib.util

import pytest

from autograder import paths
from autograder.grading.diagnosis import compositions
from autograder.lab.misconceptions.catalogue import PARTS
from autograder.lab.misconceptions.function_parts import MEASURES


def _reference():
    spec_ = importlib.util.spec_from_file_location("reference_metrics_parts", paths.solution_file("metrics.py"))
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)
    return module


def _judged(ranking, judgments):
    """A measure of the grader's kind for evaluate's examples: the judged documents' grades summed, over
    the ranking's length (it reads the judgments handed to it, grades of 0 and -1 too)."""
    return sum(judgments.get(doc, 0) + 2 for doc in ranking if doc in judgments) / (len(ranking) or 1)


EXAMPLES = {
    # function -> [(id, args)]: small worked inputs every part's choice is tried on
    "confusion_matrix": [
        ("four-distinct-cells", (["a", "b", "c", "x", "y"], ["b", "c", "d"], 20)),
        ("repeated", (["a", "a", "b"], ["a", "c", "c"], 8)),
        ("nothing", ([], [], 7)),
    ],
    "accuracy": [
        ("mixed", (["a", "b", "c"], ["b", "c", "d", "e"], 20)),
        ("repeated", (["a", "a", "b"], ["a", "c", "c"], 8)),
        ("no-true-negative", (["a", "b"], ["c"], 3)),
        ("half", (["a", "c"], ["a", "b"], 10)),
    ],
    "evaluate": [
        (
            "graded",
            (
                {"1": ["a", "b"], "2": ["c"], "3": ["a", "b"]},
                {"1": {"a": 2, "b": 0}, "2": {"c": -1, "d": 1}, "3": {"b": 1, "a": 3}},
                _judged,
            ),
        ),
    ],
    "largest_differences": [
        ("ties", ({"1": 0.9, "2": 0.5, "3": 0.1, "10": 0.5}, {"1": 0.1, "2": 0.5, "3": 0.9, "10": 0.5}, 4)),
        ("signed", ({"9": 0.2, "10": 0.1, "4": 0.5}, {"9": 0.9, "10": 0.6, "4": 0.6}, 3)),
        ("ordered", ({"b": 0.0, "a": 0.0, "c": 0.3}, {"b": 0.2, "a": 0.2, "c": 0.3}, 1)),
    ],
}


def _answer(function, variant, args):
    try:
        return list(variant(*args)) if function in ("confusion_matrix", "largest_differences") else variant(*args)
    except (AttributeError, TypeError) as error:  # judgments handed as a list: the measure cannot read them
        return type(error).__name__


@pytest.mark.parametrize("function", list(MEASURES))
def test_the_notes_composition_is_the_reference(function):
    """Does every function composed of its notes' parts answer as the reference on the worked examples?"""
    reference = functools.partial(getattr(_reference(), function))
    notes = compositions.composed(function, MEASURES[function], ()).variants[function]
    for example, args in EXAMPLES[function]:
        assert _answer(function, notes, args) == pytest.approx(_answer(function, reference, args)), example


@pytest.mark.parametrize(
    "function, part, choice",
    [
        (function, part, choice)
        for function, measure in MEASURES.items()
        for part, table in measure["parts"].items()
        for choice in table["choices"]
        if choice != "notes"
    ],
)
def test_every_alternative_changes_some_answer(function, part, choice):
    """Is every alternative of every part another function than the notes' on some worked example (an
    alternative that never differs could never be named)?"""
    measure = MEASURES[function]
    notes = compositions.composed(function, measure, ()).variants[function]
    changed = compositions.composed(function, measure, ((part, choice),)).variants[function]
    assert any(_answer(function, notes, args) != _answer(function, changed, args) for _, args in EXAMPLES[function])


WORDS = [
    # (id, function, the parts changed, words the diagnosis's title must hold)
    ("cells-swapped", "confusion_matrix", (("order", "tp-tn-fn-fp"),), "(tp, tn, fn, fp): fp and tn swapped"),
    ("cells-moved", "confusion_matrix", (("order", "fn-tp-fp-tn"),), "(fn, tp, fp, tn): tp, fp, fn moved"),
    ("ids-listed", "accuracy", (("counting", "listed"),), "every listed id counted, a repeated one too"),
    ("accuracy-f1", "accuracy", (("formula", "f1"),), "the formula: F1, 2TP / (2TP + FP + FN)"),
    ("one-more-id", "largest_differences", (("size", "n-plus-one"),), "how many ids: n + 1"),
    ("cached", "evaluate", (("measured", "by-ranking"),), "a value kept by ranking"),
    (
        "numerator-side",
        "recall_at_k",
        (("counted_relevant", "positive"),),
        "what counts as relevant in the numerator (the top k): grade > 0, rel ignored",
    ),
    (
        "r-side",
        "recall_at_k",
        (("total_relevant", "above"),),
        "what counts as relevant in R (the denominator): grade > rel",
    ),
]


@pytest.mark.parametrize("function, changed, words", [row[1:] for row in WORDS], ids=[row[0] for row in WORDS])
def test_the_words_say_what_differs(function, changed, words):
    """Does the diagnosis of one change say which part differs and how (the cells moved, the side of R@k)?"""
    measure = PARTS[function]
    shown = compositions.diagnosis(function, measure, [compositions.composed(function, measure, changed)])
    assert shown is not None and words in shown.title, shown.title if shown else None


def test_the_catalogue_hands_every_function_of_a_parts_table_to_the_engine():
    """Are the ranked measures and the other functions both in the catalogue's PARTS, none twice?"""
    assert set(MEASURES) <= set(PARTS) and {"recall_at_k", "ndcg_at_k", "accuracy", "evaluate"} <= set(PARTS)
