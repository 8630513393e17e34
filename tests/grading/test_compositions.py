"""A change inside a measure's definition, named by fitting its parts (``grading/diagnosis/compositions.py``,
the parts table ``lab/misconceptions/parts.py``): worked examples of the search and its words, the table
consistent with the reference, and the one-bug variants of ``tests/fixtures/concept_bugs/parts.py`` and
``parts_general.py`` graded in this process, each told the part it changes and never a false explanation."""

from __future__ import annotations

import importlib.util

import pytest

from autograder import paths
from autograder.grading.diagnosis import compositions
from autograder.grading.results import DiagnosisKind
from autograder.lab import spec
from autograder.lab.misconceptions.parts import MEASURES
from tests.fixtures.concept_bugs.parts import PART_BUGS
from tests.fixtures.concept_bugs.parts_general import GENERAL_BUGS
from tests.support import subs, truth
from tools.concept_bugs import function_of

# ---------------------------------------------------------------- the search, on a toy measure


def _toy_build(choice):
    """A toy "measure" of one number x: x * scale + shift, scale and shift two parts."""
    scale = {"notes": 1, "double": 2, "triple": 3}[choice["scale"]]
    shift = {"notes": 0, "one": 1, "two": 2}[choice["shift"]]
    return lambda x: x * scale + shift


TOY = {
    "measure": "T",
    "notes": "Part 0, Toys",
    "parts": {
        "scale": {"words": "the scale", "notes": "1", "choices": {"notes": "1", "double": "2", "triple": "3"}},
        "shift": {"words": "the shift", "notes": "0", "choices": {"notes": "0", "one": "+1", "two": "+2"}},
    },
    "build": _toy_build,
}


def _explains_toy(answers: dict):
    """An ``explains`` for the toy: a candidate explains the cases when it gives every answer in ``answers``
    (x -> the student's answer) and differs from the notes on one."""

    def explains(candidate, function, cases):
        variant = candidate.variants[function]
        if any(variant(x) != answer for x, answer in answers.items()):
            return None
        return ({"check"}, 0) if any(variant(x) != x for x in answers) else None

    return explains


SEARCHES = [
    # (id, the student's answers x -> answer, the fitting compositions' changes, the diagnosis id or None)
    ("one-part-doubled", {1: 2, 2: 4}, [(("scale", "double"),)], "parts-toy:scale=double"),
    ("one-part-shifted", {1: 3, 2: 4}, [(("shift", "two"),)], "parts-toy:shift=two"),
    ("two-parts", {1: 3, 2: 5}, [(("scale", "double"), ("shift", "one"))], "parts-toy:scale=double,shift=one"),
    # on x = 1 alone, "double" and "+1" both answer 2: they share no part, so nothing is said
    ("ambiguous-parts", {1: 2}, [(("scale", "double"),), (("shift", "one"),)], None),
    ("nothing-fits", {1: 5, 2: 1}, [], None),
    ("right-answers", {1: 1, 2: 2}, [], None),
]


@pytest.mark.parametrize("answers, changes, said", [row[1:] for row in SEARCHES], ids=[row[0] for row in SEARCHES])
def test_the_search_names_only_what_every_fitting_composition_changes(answers, changes, said):
    """Does the search find the compositions with the fewest parts changed that give every answer, and is a
    diagnosis said only for the parts they all change?"""
    fit = compositions.search("toy", TOY, [], _explains_toy(answers))
    assert [candidate.changed for candidate in fit.fitting] == changes
    shown = compositions.diagnosis("toy", TOY, fit.fitting)
    assert (shown.id if shown else None) == said


def test_the_search_is_small_and_lazy():
    """Does the search try the notes' composition, then every single change, and pairs only when no single
    change fits (the toy: 1 + 4 singles + 4 pairs)?"""
    assert compositions.search("toy", TOY, [], _explains_toy({1: 2, 2: 4})).tried == 1 + 4
    assert compositions.search("toy", TOY, [], _explains_toy({1: 3, 2: 5})).tried == 1 + 4 + 4
    assert len(list(compositions.candidates("toy", TOY))) == 4 + 4


def test_the_words_name_the_part_the_choice_and_the_notes():
    """Does a diagnosis say which part differs, what it is in the answers and what the notes say instead?"""
    fit = compositions.search("toy", TOY, [], _explains_toy({1: 2, 2: 4}))
    shown = compositions.diagnosis("toy", TOY, fit.fitting)
    assert shown is not None and shown.kind == DiagnosisKind.MISCONCEPTION
    assert "the scale: 2" in shown.title and "the scale: 1" in shown.explanation
    assert shown.notes == "Part 0, Toys"


def test_two_fits_changing_one_part_differently_name_the_part_only():
    """When two compositions fit that change the same part to different choices, is the part said without a
    choice?"""
    fitting = [compositions.composed("toy", TOY, (("scale", pick),)) for pick in ("double", "triple")]
    shown = compositions.diagnosis("toy", TOY, fitting)
    assert shown is not None and shown.id == "parts-toy:scale=*" and "the scale: not the notes' (1)" in shown.title


# ---------------------------------------------------------------- the lab's table


def _reference():
    spec_ = importlib.util.spec_from_file_location("reference_metrics", paths.solution_file("metrics.py"))
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)
    return module


EXAMPLES = [
    # (id, ranking, judgments, k, rel, gain): small worked inputs every part's choice is tried on
    ("toy", ["D1", "D2", "D3", "D4", "D5"], {"D1": 1, "D3": 1, "D5": 1}, 3, 1, "linear"),
    ("graded", ["A", "B", "C", "D"], {"A": 3, "B": 0, "C": 2, "D": 1}, 4, 1, "exp"),
    ("rel-2", ["A", "B", "C", "D"], {"B": 2, "C": 3, "D": 1, "E": 2}, 2, 2, "linear"),
    ("unjudged-first", ["X", "A", "Y", "B", "C"], {"A": 1, "B": 2, "C": -1, "Z": 1}, 3, 1, "exp"),
    ("short", ["A"], {"A": 1, "B": 1, "C": 2}, 5, 1, "linear"),
    ("empty", [], {"A": 2}, 2, 1, "exp"),
    ("reversed-ids", ["C", "B", "A", "X"], {"A": 2, "B": 1, "C": 1}, 2, 1, "linear"),
    ("minus-one-first", ["A", "B", "C"], {"A": -1, "B": 1, "C": 2}, 3, 2, "linear"),
    ("deep", [f"D{i}" for i in range(1, 13)], {"D11": 1, "D12": 2}, 12, 1, "exp"),
]


def _call(function, variant, example):
    _, ranking, judgments, k, rel, gain = example
    tuning = {"gain": gain} if "dcg" in function else {"rel": rel}
    try:
        return (
            variant(ranking, judgments, k, **tuning)
            if function.endswith("_at_k")
            else variant(ranking, judgments, **tuning)
        )
    except ZeroDivisionError:
        return "ZeroDivisionError"


@pytest.mark.parametrize("function", list(MEASURES))
def test_the_notes_composition_is_the_reference(function):
    """Does every measure composed of its notes' parts answer as the reference on the worked examples?"""
    reference = getattr(_reference(), function)
    notes = compositions.composed(function, MEASURES[function], ()).variants[function]
    for example in EXAMPLES:
        assert _call(function, notes, example) == pytest.approx(_call(function, reference, example)), example[0]


#: (function, part): the change of another part it shows with (the ideal's own discount differs from the
#: ranking's only once the ranking's is not the notes')
QUALIFIES = {("ndcg_at_k", "ideal_discount"): (("discount", "log2-i-plus-2"),)}


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
    """Is every alternative of every part another measure than the notes' on some worked example (an
    alternative that never differs could never be named), a part that qualifies another (``QUALIFIES``)
    once that other part has changed?"""
    measure = MEASURES[function]
    other = QUALIFIES.get((function, part), ())
    notes = compositions.composed(function, measure, other).variants[function]
    changed = compositions.composed(function, measure, other + ((part, choice),)).variants[function]
    assert any(_call(function, notes, example) != _call(function, changed, example) for example in EXAMPLES)


# ---------------------------------------------------------------- the one-bug variants, graded


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("part-bugs"))


@pytest.mark.parametrize("bug", PART_BUGS + GENERAL_BUGS, ids=[bug["id"] for bug in PART_BUGS + GENERAL_BUGS])
def test_a_change_inside_a_definition_is_told_its_part(graded, bug):
    """Does a one-bug variant that changes one part of a measure's definition lose points, get a named
    diagnosis (a catalogue entry, or the part it changes) and no diagnosis a judged case contradicts?"""
    function = function_of(bug["source"])
    functions = truth.load(subs.with_function(spec.FUNCTIONS[function], bug["source"]), f"part_{function}")
    checks, contradicted = graded.grade(graded.answers(functions, {function}))
    mine = [check for check in checks if check.function == function]
    assert not all(check.full for check in mine), "the bug passes every check"
    assert contradicted == []
    named = [d for check in mine for d in check.diagnoses if d.kind == DiagnosisKind.MISCONCEPTION]
    assert named, [d.id for check in mine for d in check.diagnoses]
    parts = [d for d in named if d.id.startswith(compositions.PREFIX)]
    assert all(f"{bug['part']}=" in d.id for d in parts), [d.id for d in parts]
    if "said" in bug:  # exactly these parts, none a fit needed only to stand beside another
        assert {d.id for d in parts} == {f"{compositions.PREFIX}{function}:{bug['said']}"}
