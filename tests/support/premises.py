"""An independent checker of the diagnoses' premises, for the property test: each diagnosis the engine
shows is re-checked here against every judged case of its function, with this module's own reading
of the answers and its own comparisons (never the engine's predicates). Each check returns what
contradicts a diagnosis, or None; the shapes' premises are in ``premise_shapes``."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import replace

from autograder.grading import inputs
from autograder.grading.diagnosis import compositions
from autograder.grading.results import DiagnosisKind
from autograder.lab import variants
from autograder.lab.functions.registry import FUNCTIONS as RECORDS
from autograder.labkit.case import RAISES
from autograder.labkit.kinds import TUNING

UNREADABLE = object()


def decode(encoded):
    """A value from the child's tagged JSON (NaN as NaN; anything else unreadable)."""
    if not isinstance(encoded, dict):
        return UNREADABLE
    kind = encoded.get("type")
    if kind in ("int", "float"):
        value = encoded.get("value")
        return float(value) if isinstance(value, str) else value
    if kind in ("list", "tuple"):
        return [decode(item) for item in encoded.get("items", [])]
    if kind == "dict":
        return {decode(key): decode(value) for key, value in encoded.get("items", [])}
    if kind in ("str", "bool"):
        return encoded.get("value")
    return None if kind == "None" else UNREADABLE


def equal(a, b, tolerance: float = 1e-6) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= tolerance * max(1.0, abs(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y, tolerance) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[key], b[key], tolerance) for key in a)
    return a == b


class Seen:
    """One judged case, read here: the answer (or the exception's classes) and whether it failed."""

    def __init__(self, planned, outcome):
        self.case, self.expected, self.check = planned.case, planned.expected, planned.check
        self.wants_error = isinstance(self.expected, dict) and set(self.expected) == {RAISES}
        self.raised = list((outcome.error or {}).get("mro", [])) if outcome.status == "error" else None
        self.answer = decode(outcome.value) if outcome.status == "value" else UNREADABLE
        if self.wants_error:
            self.failed = not (self.raised and self.expected[RAISES] in self.raised)
        else:
            self.failed = self.raised is not None or not equal(self.answer, self.expected)

    @property
    def number(self):
        ok = isinstance(self.answer, (int, float)) and not isinstance(self.answer, bool)
        return self.answer if ok else None

    @property
    def numeric(self) -> bool:
        return isinstance(self.expected, (int, float)) and not isinstance(self.expected, bool)


def seen(planned_cases, outcomes, function) -> list[Seen]:
    return [
        Seen(planned, outcomes[planned.call])
        for planned in planned_cases
        if planned.case.function == function and outcomes[planned.call].status in ("value", "error")
    ]


# ---------------------------------------------------------------- misconceptions


def _variant_answer(form, case, tables):
    try:
        value = form(*[inputs.resolve(arg, tables) for arg in case.args], **case.kwargs)
    except Exception as error:
        return ("raises", type(error).__name__)
    return ("value", list(value) if isinstance(value, tuple) else value)


def _is(seen_case, answer) -> bool:
    if answer[0] == "raises":
        return seen_case.raised is not None and answer[1] in seen_case.raised
    return seen_case.raised is None and equal(seen_case.answer, answer[1], 1e-6)


def misconception(item, function, cases, tables):
    forms = item.variants[function]
    forms = forms if isinstance(forms, tuple) else (forms,)
    wrong_somewhere = False
    for case in cases:
        if case.wants_error and not item.arguments:
            continue
        answers = [_variant_answer(form, case.case, tables) for form in forms]
        if case.raised is not None and not case.wants_error and all(answer[0] == "value" for answer in answers):
            continue  # another failure than the mistake's: the diagnosis speaks of the answers given
        if not any(_is(case, answer) for answer in answers):
            return f"{case.case.id}: answer {case.answer!r} / {case.raised} is none of the variant's {answers!r}"
        right = [
            answer
            for answer in answers
            if (
                answer == ("raises", case.expected[RAISES])
                if case.wants_error
                else answer[0] == "value" and equal(answer[1], case.expected)
            )
        ]
        wrong_somewhere = wrong_somewhere or not right
    return None if wrong_somewhere else "the variant is right on every case"


def composition(diagnosis, measure, function, cases, tables):
    """A change inside a measure's definition (``parts-<function>:<part>=<choice or *>,...``): some
    composition with those parts changed (``*``: to any choice), and at most one more, reproduces every
    judged answer, as a misconception's variant must; and the notes' composition does not."""
    said = dict(item.split("=") for item in diagnosis.id.split(":", 1)[1].split(","))
    names = list(measure["parts"])
    if misconception(compositions.composed(function, measure, ()), function, cases, tables) is None:
        return "the notes' own composition reproduces every answer"
    others = [None] + [name for name in names if name not in said]
    for extra in others:
        chosen = [name for name in names if name in said or name == extra]
        options = [
            [said[name]]
            if said.get(name, "*") != "*"
            else [c for c in measure["parts"][name]["choices"] if c != "notes"]
            for name in chosen
        ]
        for picks in itertools.product(*options):
            candidate = compositions.composed(function, measure, tuple(zip(chosen, picks)))
            if misconception(candidate, function, cases, tables) is None:
                return None
    return f"no composition with {said} changed reproduces every judged answer"


def _rows_equal(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if len(x) != len(y):
            return False
        for p, q in zip(x, y):
            if p != q:
                try:
                    if abs(float(p) - float(q)) > 1e-8:
                        return False
                except ValueError:
                    return False
    return True


def run_misconception(item, scenarios, files):
    """The file of every scenario is one the variant writes, of the results cut at k (or, where the
    search function returns more than k, of all of them), search_fn called as the variant calls it;
    and somewhere the variant, cut at k, is wrong."""
    wrong_somewhere = False
    for name, scenario in scenarios.items():
        run = files.get(name)
        if run is None or (scenario.raises and not item.arguments):
            continue
        if run.table is None and not run.canonical and not run.raised:
            continue  # the call was not judged (or left no file: then no candidate matches below)
        right_rows = [] if scenario.raises else variants.rows(scenario)
        got = right_rows if run.canonical else run.table
        candidates = list(item.variants["write_run"](scenario))
        everything = list(item.variants["write_run"](replace(scenario, k=10**9))) if scenario.overfull else []
        default_calls = [[text, scenario.k] for _, text in scenario.queries]
        calls = item.searches(scenario) if item.searches else [default_calls] * len(candidates)
        fits = [
            candidate
            for candidate, called in [*zip(candidates, calls), *zip(everything, calls)]
            if (isinstance(candidate, tuple) and got is None and candidate[1] in run.raised)
            or (
                isinstance(candidate, list)
                and got is not None
                and _rows_equal(got, candidate)
                and run.searches == called
            )
        ]
        if not fits:
            return f"{name}: the file (or its search calls) is none of the variant's"
        wrong_somewhere = wrong_somewhere or all(
            called != default_calls
            or isinstance(candidate, tuple) != bool(scenario.raises)
            or (isinstance(candidate, list) and not _rows_equal(candidate, right_rows))
            for candidate, called in zip(candidates, calls)
        )
    return None if wrong_somewhere else "the variant writes the right file everywhere"


# ---------------------------------------------------------------- conditions


def condition(diagnosis, cases, features_of):
    """``features_of(case)``: the features of a case's inputs, recomputed here."""
    failing = {id(case) for case in cases if case.failed}
    kind = diagnosis.id.split("-")[1]
    if kind == "only":
        labels = set(re.findall(r"'((?:[^']|'(?!(?:; |$)))*)'(?:; |$)", diagnosis.title.split(": ", 1)[1]))
        got = {case.case.label() for case in cases if case.failed}
        passing = {case.case.label() for case in cases if not case.failed}
        return None if got == labels and not labels & passing else f"failing {sorted(got)} vs listed {sorted(labels)}"
    if kind == "concept":
        from autograder.lab import concepts

        concept = concepts.CONCEPTS[diagnosis.id.split("-", 2)[2]]
        ids = list(concept.features)
    else:
        ids = _feature_ids(diagnosis.id.split("-", 2)[2])
        concept = None
    holds = {
        "concept": lambda found: any(feature in found for feature in ids),
        "one": lambda found: ids[0] in found,
        "without": lambda found: ids[0] not in found,
        "both": lambda found: ids[0] in found and ids[1] in found,
        "either": lambda found: ids[0] in found or ids[1] in found,
    }[kind]
    having = {id(case) for case in cases if holds(features_of(case))}
    if having != failing:
        return f"{len(failing)} failing, {len(having)} with the condition, differently"
    return _direction(diagnosis, cases) or _concept_named(diagnosis, ids, concept)


def _direction(diagnosis, cases) -> str | None:
    """ "Every wrong answer is too high" (or low): every failing case's answer is a number on that side."""
    for word, wrong in (("high", lambda c: c.number > c.expected), ("low", lambda c: c.number < c.expected)):
        if f"Every wrong answer is too {word}." in diagnosis.explanation:
            failing = [case for case in cases if case.failed]
            if not all(case.numeric and case.number is not None and wrong(case) for case in failing):
                return f"says every wrong answer is too {word}; some failing case's is not"
    return None


def _concept_named(diagnosis, ids, concept) -> str | None:
    """A diagnosis of the notes' concepts names a concept that governs its function and holds its features."""
    from autograder.lab import concepts

    if diagnosis.kind != DiagnosisKind.CONCEPT:
        return None
    concept = concept or next((c for c in concepts.CONCEPTS.values() if f"({c.name})" in diagnosis.explanation), None)
    telling = set(ids) - set(concepts.ENABLING) if diagnosis.id.startswith("condition-both-") else set(ids)
    if (
        concept is None
        or diagnosis.function not in concept.functions
        or not (telling or set(ids)) <= set(concept.features)
    ):
        return f"names no concept governing {diagnosis.function} with the features {ids}"
    return None if concept.statement in diagnosis.explanation else "does not quote the concept's statement"


def _feature_ids(joined: str) -> list[str]:
    """The feature ids joined by '-' in a condition's id (ids themselves hold '-')."""
    from autograder.lab import features

    for split in range(1, joined.count("-") + 2):
        head = "-".join(joined.split("-")[:split])
        tail = joined[len(head) + 1 :]
        if head in features.FEATURES and (not tail or tail in features.FEATURES):
            return [head] + ([tail] if tail else [])
    raise AssertionError(f"no features in {joined!r}")


def names_only_own_parameters(diagnosis) -> str | None:
    """A condition names only the tuning parameters its function takes."""
    takes = RECORDS[diagnosis.function].takes
    text = f"{diagnosis.title} {diagnosis.explanation}"
    foreign = [name for name in TUNING if name not in takes and re.search(rf"(?<![\w.]){name}(?![\w(])", text)]
    return f"names {foreign}, not parameters of {diagnosis.function}" if foreign else None
