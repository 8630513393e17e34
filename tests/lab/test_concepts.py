"""The notes' concepts (``autograder/lab/concepts.py``) and the diagnoses that name them
(``grading/diagnosis/conditions.py``), on small worked examples: the table is consistent with the lab,
a condition names a concept only when one concept alone decides its cases, and the finer features that
tell concepts apart do not change how random cases are scored."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.grading import scoring
from autograder.grading.diagnosis import conditions
from autograder.grading.plan import PlannedCase
from autograder.grading.results import DiagnosisKind
from autograder.lab import concepts, features, spec
from autograder.lab.functions.registry import FUNCTIONS
from autograder.lab.misconceptions import catalogue
from autograder.labkit.case import Case
from autograder.labkit.kinds import TUNING, CheckKind
from autograder.labkit.load import default as default_lab
from autograder.labkit.load import load
from tests.labkit.test_lab_value import LAB06

CONCEPTS = list(concepts.CONCEPTS.values())


@pytest.mark.parametrize("concept", CONCEPTS, ids=[concept.id for concept in CONCEPTS])
def test_a_concept_names_what_the_lab_has(concept):
    """Does each concept name functions, features and misconceptions the lab has, and a part of the notes
    (or the contract)?"""
    assert set(concept.functions) <= set(spec.FUNCTIONS), concept.functions
    assert set(concept.features) <= set(features.FEATURES), concept.features
    assert set(concept.misconceptions) <= set(catalogue.LIBRARY), concept.misconceptions
    assert concept.part.startswith("Part ") or concept.part == concepts.CONTRACT, concept.part
    assert concept.name and concept.statement and concept.features


@pytest.mark.parametrize("concept", CONCEPTS, ids=[concept.id for concept in CONCEPTS])
def test_a_concept_names_only_parameters_its_functions_take(concept):
    """Does a concept's statement name only tuning parameters (k, rel, gain, n) that every function it
    governs takes (what the notes say of AP must not speak of k)?"""
    said = f"{concept.name} {concept.statement}"
    named = {name for name in TUNING if re.search(rf"(?<![\w.]){name}(?![\w(])", said)}
    foreign = {f: sorted(named - set(FUNCTIONS[f].takes)) for f in concept.functions if named - set(FUNCTIONS[f].takes)}
    assert foreign == {}


def test_every_function_and_misconception_has_a_concept():
    """Is every graded function governed by a concept, and every catalogued misconception listed under one?"""
    assert [f for f in spec.FUNCTIONS if not concepts.for_function(f)] == []
    listed = {item for concept in CONCEPTS for item in concept.misconceptions}
    assert sorted(set(catalogue.LIBRARY) - listed) == []


OF = [
    # (id, function, how, feature ids, the concept named or None)
    ("ap-missed-relevant", "average_precision", "one", ("relevant-not-retrieved",), "ap-over-r"),
    ("recall-missed-relevant", "recall_at_k", "one", ("relevant-not-retrieved",), "recall-over-all-relevant"),
    ("ndcg-missed-relevant", "ndcg_at_k", "one", ("relevant-not-retrieved",), "ideal-from-judgments"),
    ("rr-first-later", "reciprocal_rank", "one", ("first-relevant-later",), "rank-of-first-relevant"),
    ("dcg-refused-is-k-or-gain", "dcg_at_k", "one", ("invalid-argument",), None),
    ("dcg-relevant-retrieved-gain-or-discount", "dcg_at_k", "one", ("relevant-retrieved",), None),
    ("without-says-nothing", "precision_at_k", "without", ("cut-at-k",), None),
    (
        "both-enabling",
        "recall_at_k",
        "both",
        ("relevant-retrieved", "more-relevant-than-k"),
        "recall-over-all-relevant",
    ),
    ("both-two-concepts", "precision_at_k", "both", ("rel-left-out", "minus-one-retrieved"), None),
    ("either-one-concept", "precision_at_k", "either", ("rel-above-1", "above-rel-retrieved"), "relevance-threshold"),
]


@pytest.mark.parametrize("function, how, ids, wanted", [row[1:] for row in OF], ids=[row[0] for row in OF])
def test_a_condition_names_the_one_concept_that_decides_its_cases(function, how, ids, wanted):
    """Does a separating condition name the concept whose features hold it, and none when two concepts
    could decide its cases (or when it is about the passing cases)?"""
    found = conditions.concept_of(default_lab(), function, how, ids)
    assert (found.id if found else None) == wanted


def _cases(*rows):
    """(features, failed, label) per case, from ``("feature feature", failed)`` rows."""
    return [(frozenset(text.split()), failed, f"case {number}") for number, (text, failed) in enumerate(rows)]


DIAGNOSES = [
    # (id, function, cases, directions, the diagnosis id, its kind, its notes, said, not said)
    (
        "ap-denominator",
        "average_precision",
        _cases(("relevant-not-retrieved relevant-retrieved", True), ("relevant-retrieved", False), ("", False)),
        ("low", None, None),
        "condition-one-relevant-not-retrieved",
        DiagnosisKind.CONCEPT,
        "Part III, Average Precision and MAP",
        ("AP divides by R", "Every wrong answer is too low."),
        ("Part II, Recall",),
    ),
    (
        "recall-denominator-mixed-directions",
        "recall_at_k",
        _cases(("relevant-not-retrieved", True), ("relevant-not-retrieved", True), ("cut-at-k", False)),
        ("low", "high", None),
        "condition-one-relevant-not-retrieved",
        DiagnosisKind.CONCEPT,
        "Part II, Recall",
        ("R counts all relevant documents",),
        ("too high", "too low"),
    ),
    (
        "threshold-three-ways",
        "precision_at_k",
        _cases(
            ("rel-above-1 cut-at-k", True),
            ("positive-below-rel", True),
            ("above-rel-retrieved", True),
            ("cut-at-k", False),
            ("unjudged", False),
        ),
        ("high", "high", "high", None, None),
        "condition-concept-relevance-threshold",
        DiagnosisKind.CONCEPT,
        "Part V, Live evaluation on Cranfield",
        ("relevant means grade >= rel", "Every wrong answer is too high."),
        (),
    ),
    (
        "no-concept-for-a-passing-feature",
        "precision_at_k",
        _cases(("unjudged", True), ("cut-at-k", False), ("k-is-1 unjudged", True), ("", True)),
        (None, None, None, None),
        "condition-without-cut-at-k",
        DiagnosisKind.CONDITION,
        "Part II",
        ("fails on every case but those with",),
        ("notes' concept",),
    ),
]


@pytest.mark.parametrize(
    "function, cases, directions, wanted, kind, notes, said, not_said",
    [row[1:] for row in DIAGNOSES],
    ids=[row[0] for row in DIAGNOSES],
)
def test_a_diagnosis_of_a_concept(function, cases, directions, wanted, kind, notes, said, not_said):
    """Is the diagnosis of a function's cases the condition that separates them, named after the notes'
    concept (its part of the notes, not another function's) only when one concept decides them, with the
    direction of the wrong answers only when they all err the same way?"""
    found = conditions.diagnosis(default_lab(), function, cases, directions)
    assert found is not None
    text = f"{found.title}. {found.explanation}"
    assert (found.id, found.kind, found.notes) == (wanted, kind, notes), text
    assert [phrase for phrase in said if phrase not in text] == [], text
    assert [phrase for phrase in not_said if phrase in text] == [], text


UNSEEN = [
    # (id, function, cases as (features, failed), failures not among them, a condition said?)
    ("few-and-nothing-else", "recall_at_k", [("", True), ("", False), ("", False), ("", False)], 0, True),
    ("few-and-changed-arguments", "recall_at_k", [("", True), ("", False), ("", False), ("", False)], 1, False),
    ("concept-and-nothing-else", "precision_at_k", [("shorter-than-k", True), ("", False), ("", False)], 0, True),
    ("concept-and-a-crash", "precision_at_k", [("shorter-than-k", True), ("", False), ("", False)], 2, False),
]


@pytest.mark.parametrize("function, cases, unseen, said", [row[1:] for row in UNSEEN], ids=[row[0] for row in UNSEEN])
def test_a_condition_is_said_only_when_its_cases_hold_every_failure(function, cases, unseen, said):
    """A condition says every other case passes: is it left unsaid while the function fails
    somewhere its judged cases do not show (it changed its arguments, a call crashed)?"""
    table = [
        (frozenset([feature] if feature else []), failed, f"case {n}") for n, (feature, failed) in enumerate(cases)
    ]
    found = conditions.diagnosis(default_lab(), function, table, unseen=unseen)
    assert (found is not None) == said, found


def test_a_lab_without_concepts_keeps_its_conditions():
    """Does a lab that states no concepts (Lab 06) still get the plain separating condition?"""
    lab = load(LAB06)
    assert lab.concepts.CONCEPTS == {}
    feature = next(iter(lab.features.FEATURES))
    function = next(iter(lab.records))
    found = conditions.diagnosis(lab, function, _cases((feature, True), ("", False), ("", False)))
    assert found is not None and found.kind == DiagnosisKind.CONDITION and found.id == f"condition-one-{feature}"


FINER = [
    # (id, function, arguments, keyword arguments, finer features it has, finer features it lacks)
    (
        "grade-above-rel",
        "precision_at_k",
        (["a", "b"], {"a": 3}),
        {"k": 2},
        {"above-rel-retrieved", "rel-left-out"},
        set(),
    ),
    (
        "rel-given",
        "precision_at_k",
        (["a"], {"a": 1}),
        {"k": 1, "rel": 1},
        set(),
        {"rel-left-out", "above-rel-retrieved"},
    ),
    ("minus-one-in-top", "precision_at_k", (["a", "b"], {"b": -1}), {"k": 2}, {"minus-one-retrieved"}, set()),
    ("minus-one-below-k", "precision_at_k", (["a", "b"], {"b": -1}), {"k": 1}, set(), {"minus-one-retrieved"}),
    ("r-above-k", "recall_at_k", (["a"], {"a": 1, "b": 1, "c": 1}), {"k": 2}, {"more-relevant-than-k"}, set()),
    ("r-above-length", "average_precision", (["a"], {"a": 1, "b": 1}), {}, {"more-relevant-than-retrieved"}, set()),
    (
        "rank-11",
        "average_precision",
        ([f"d{i}" for i in range(12)], {"d0": 1, "d11": 1}),
        {},
        {"relevant-below-10"},
        set(),
    ),
    ("gain-at-rank-2", "dcg_at_k", (["a", "b"], {"b": 1}), {"k": 2}, {"gain-below-rank-1"}, set()),
    ("gain-at-rank-1", "dcg_at_k", (["a", "b"], {"a": 3}), {"k": 2}, {"graded-retrieved"}, {"gain-below-rank-1"}),
    ("hits", "confusion_matrix", (["a", "b"], ["b"], 5), {}, {"hits"}, set()),
    ("no-hits", "confusion_matrix", (["a"], ["b"], 5), {}, set(), {"hits"}),
    (
        "no-relevant-query",
        "evaluate",
        ({"1": ["a"]}, {"1": {"a": 0}, "2": {"b": 1}}, None),
        {},
        {"query-without-relevant"},
        set(),
    ),
]


@pytest.mark.parametrize("function, args, kwargs, having, lacking", [r[1:] for r in FINER], ids=[r[0] for r in FINER])
def test_finer_features(function, args, kwargs, having, lacking):
    """Does a call have the finer features its inputs have (where one concept decides), and not the others?"""
    found = set(FUNCTIONS[function].features(args, kwargs))
    assert having <= found and not lacking & found, found


def test_finer_features_do_not_change_the_scoring_groups():
    """Are the finer features left out of a random case's scoring groups, while the coarse ones stay?"""
    lab = default_lab()
    finer = {feature.id for feature in lab.features.FEATURES.values() if not feature.scored}
    assert {"above-rel-retrieved", "more-relevant-than-k", "hits"} <= finer
    case = Case("random-x", "precision_at_k", "", (["a", "b"], {"a": 3}), {"k": 2}, public=True)
    planned = PlannedCase(
        check="random",
        kind=CheckKind.RANDOM,
        case=case,
        expected=0.5,
        call=0,
        features=frozenset({"cut-at-k", "above-rel-retrieved"}),
    )
    assert scoring.groups_of(planned, lab) == (scoring.ALL, "cut-at-k")


# ---------------------------------------------------------------- property: only true explanations

FUNCTIONS_WITH_CONCEPTS = sorted({function for concept in CONCEPTS for function in concept.functions})
some_features = st.frozensets(st.sampled_from(sorted(features.FEATURES)), max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    function=st.sampled_from(FUNCTIONS_WITH_CONCEPTS),
    cases=st.lists(st.tuples(some_features, st.booleans()), min_size=2, max_size=12),
    direction=st.sampled_from(["high", "low", None]),
)
def test_a_diagnosis_holds_of_every_case(function, cases, direction):
    """Whatever the cases' features and verdicts, is a diagnosis given only when its condition holds of
    every failing case and of no passing case, and a concept named only when it governs the function and
    holds the condition's features (or, for a concept separation, when one of its features is what exactly
    the failing cases have)?"""
    table = [(found, failed, f"case {number}") for number, (found, failed) in enumerate(cases)]
    found = conditions.diagnosis(default_lab(), function, table, [direction if failed else None for _, failed in cases])
    if found is None or found.id.startswith("condition-only-"):
        return
    how, rest = found.id.split("-", 2)[1:]
    if how == "concept":
        concept = concepts.CONCEPTS[rest]
        holds = [bool(set(case) & set(concept.features)) for case, _ in cases]
    else:
        ids = [
            f
            for f in features.FEATURES
            if rest == f or (rest.startswith(f + "-") and rest[len(f) + 1 :] in features.FEATURES)
        ]
        first = next(f for f in ids)
        second = rest[len(first) + 1 :] or None
        test = {
            "one": lambda case: first in case,
            "without": lambda case: first not in case,
            "both": lambda case: first in case and second in case,
            "either": lambda case: first in case or second in case,
        }[how]
        holds = [test(case) for case, _ in cases]
        concept = conditions.concept_of(default_lab(), function, how, (first,) + ((second,) if second else ()))
    assert holds == [failed for _, failed in cases]
    if found.kind == DiagnosisKind.CONCEPT:
        assert concept is not None and function in concept.functions and concept.statement in found.explanation
    if direction and "Every wrong answer" in found.explanation:
        assert f"too {direction}" in found.explanation
