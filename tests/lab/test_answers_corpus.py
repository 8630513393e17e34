"""Is the answers corpus what it says it is? Every honest file computes every function correctly
on the whole contract; every lookup file answers from its table and does not compute what it
looks up (``tests/support/answers_corpus.py``)."""

from __future__ import annotations

import contextlib
import doctest
import functools
import importlib.util
import io
import math
import random
import re
import sys
import types
from collections import Counter
from numbers import Number

import numpy as np
import pytest

from autograder import paths
from autograder.lab import cases, measures
from autograder.lab.functions.registry import FUNCTIONS
from autograder.lab.solution import reference_metrics
from autograder.sandbox.child import harness
from tests.support import answers_corpus as corpus

RANDOM_CASES = 30  # per function, drawn as the grader draws its random cases: a base meets them all
VARIANT_CASES = 10  # the first of them, for a base's variants (every stratum of the generators twice)
TOLERANCE = 1e-6  # the grader's
MIN_HONEST, MIN_LOOKUP = 200, 40


@pytest.fixture(autouse=True, scope="module")
def _recursion_limit_as_found():
    """Some corpus files raise the recursion limit when loaded (deep recursion is their style); the
    limit they set holds while this module's tests run them and is put back after, so that no later
    test in this process (e.g. the answer scan's nested-too-deeply example) depends on the order."""
    found = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(found)


def load(name: str, source: str, module_name: str = "") -> types.ModuleType:
    """A corpus file imported in this process (our own fixture, never student code)."""
    module = types.ModuleType(module_name or f"answers_corpus_{abs(hash(name))}")
    saved = sys.modules.get(module.__name__)
    sys.modules[module.__name__] = module  # as an import does: dataclasses look their module up
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        if saved is None:
            del sys.modules[module.__name__]
        else:
            sys.modules[module.__name__] = saved
    return module


@functools.lru_cache(maxsize=1)
def calls() -> tuple[tuple[str, str, tuple, dict], ...]:
    """Every call the corpus is checked on, ``(case id, function, args, kwargs)`` in their plain
    form: the notes' examples, the hidden edge cases and random cases of every function."""
    made = [
        (case.id, case.function, case.args, case.kwargs)
        for case, _ in cases.example_cases()
        if case.function in corpus.PUBLIC
    ]
    made += [(case.id, case.function, case.args, case.kwargs) for case in cases.edge_cases()]
    for function in corpus.PUBLIC:
        drawn = FUNCTIONS[function].random_cases(random.Random(f"answers-corpus-{function}"), RANDOM_CASES)
        made += [(case.id, case.function, case.args, case.kwargs) for case in drawn]
    return tuple(made)


def outcome(function, args: tuple, kwargs: dict):
    """What a call gives: ``("value", value)`` or ``("raises", exception class)``."""
    resolved = [harness.resolve(arg, {}) for arg in args]
    named = {key: harness.resolve(value, {}) for key, value in kwargs.items()}
    try:
        return "value", function(*resolved, **named)
    except Exception as error:  # the reference's ValueError, or a corpus file's mistake
        return "raises", type(error)


@functools.lru_cache(maxsize=1)
def expected() -> dict[str, tuple[str, object]]:
    """The reference's outcome of every call, by case id (``solutions/``, which the project proves
    equal to ir_measures and the notes)."""
    reference = reference_metrics()
    return {case_id: outcome(reference[function], args, kwargs) for case_id, function, args, kwargs in calls()}


def same(actual, wanted) -> bool:
    """Equal as the grader judges: numbers within 1e-6, sequences and mappings item by item."""
    if isinstance(wanted, str):
        return isinstance(actual, str) and actual == wanted
    if isinstance(wanted, dict):
        return (
            isinstance(actual, dict) and set(actual) == set(wanted) and all(same(actual[q], wanted[q]) for q in wanted)
        )
    if isinstance(wanted, (list, tuple)):
        if not isinstance(actual, (list, tuple, np.ndarray)) or len(actual) != len(wanted):
            return False
        return all(same(a, w) for a, w in zip(list(actual), wanted))
    if isinstance(actual, (bool, str)) or not isinstance(actual, (Number, np.number)):
        return False
    return math.isclose(float(actual), float(wanted), rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def agrees(module: types.ModuleType, function: str, args: tuple, kwargs: dict, case_id: str) -> str | None:
    """None when ``module``'s function does what the reference does on the call, else what differs."""
    kind, value = outcome(getattr(module, function), args, kwargs)
    wanted_kind, wanted = expected()[case_id]
    if wanted_kind == "raises":
        if kind == "raises" and issubclass(value, wanted):
            return None
        return f"{function}{args, kwargs} gave {kind} {value!r}, expected it to raise {wanted.__name__}"
    if kind == "value" and same(value, wanted):
        return None
    return f"{function}{args, kwargs} gave {kind} {value!r}, expected {wanted!r}"


def problems(module: types.ModuleType, functions: tuple[str, ...] = corpus.PUBLIC, random_cases: int = RANDOM_CASES):
    """What differs from the reference over the calls of ``functions`` (the first ``random_cases``
    random cases of each)."""
    return [
        problem
        for case_id, function, args, kwargs in calls()
        if function in functions and _drawn_number(case_id) < random_cases
        for problem in [agrees(module, function, args, kwargs, case_id)]
        if problem
    ]


def _drawn_number(case_id: str) -> int:
    """A random case's number (``random-<function>-007``), 0 for the notes' and the edge cases."""
    return int(case_id.rsplit("-", 1)[1]) if case_id.startswith("random-") else 0


HONEST = corpus.honest()


# ------------------------------------------------------------------ the honest files


@pytest.mark.parametrize(("name", "source"), HONEST, ids=[name for name, _ in HONEST])
def test_honest_file_is_correct_on_the_whole_contract(name, source):
    """Does every function of the honest file give the reference's value (or raise its ValueError)
    on the notes' examples, the hidden edge cases and random cases drawn as the grader draws them
    (300 for a base, 100 for a variant of it)?"""
    found = problems(load(name, source), random_cases=VARIANT_CASES if corpus.habits(name) else RANDOM_CASES)
    assert not found, f"{name}: {len(found)} of {len(calls())} calls differ from the reference, e.g.\n" + "\n".join(
        found[:5]
    )


def test_the_corpus_holds_enough_honest_files_in_every_habit():
    """Are there at least 200 distinct honest files, every habit in at least 5 of them and every base
    in at least 5?"""
    names = [name for name, _ in HONEST]
    sources = [source for _, source in HONEST]
    habits = Counter(habit for name in names for habit in corpus.habits(name))
    per_base = Counter(name.split("+")[0] for name in names)
    assert len(set(names)) == len(names) >= MIN_HONEST, f"{len(names)} honest files ({len(set(names))} names)"
    assert len(set(sources)) == len(sources), "two honest files are the same text"
    assert min(per_base.values()) >= 5, f"bases with fewer than 5 files: {per_base}"
    assert min(habits.values()) >= 5, f"habits in fewer than 5 files: {habits}"


#: Slips a student makes, each applied to the loops base: the check must catch every one of them.
WRONG = [
    ("precision-over-retrieved", "return hits / k", "return hits / max(1, len(ranking[:k]))"),
    ("recall-r-zero-raises", "    if total == 0:\n        return 0.0\n    hits = 0", "    hits = 0"),
    ("ap-over-hits", "return score / total", "return score / max(hits, 1)"),
    ("k-zero-accepted", "value < 1:", "value < 0:"),
    ("idcg-from-ranking", "ideal_order = sorted(judgments,", "ideal_order = sorted(ranking,"),
    ("exp-gain-linear", "return 2**grade - 1", "return grade"),
    ("evaluate-skips-missing", "            ranking = []\n", "            continue\n"),
    ("ties-by-number", "rows.sort()", "rows.sort(key=lambda row: (row[0], int(row[1])))"),
    (
        "accuracy-zero-divides",
        '        raise ValueError("accuracy: collection_size is 0',
        '        return 0.0\n        ("',
    ),
]


@pytest.mark.parametrize(("old", "new"), [row[1:] for row in WRONG], ids=[row[0] for row in WRONG])
def test_the_check_catches_a_wrong_file(old, new):
    """Does the correctness check find a file with one usual mistake (so a passing file is right)?"""
    source = dict(corpus.bases())["loops"]
    assert old in source, f"the slip's text {old!r} is not in the loops base"
    assert problems(load("wrong", source.replace(old, new, 1)))


SELF_TESTED = [
    (name, source)
    for name, source in HONEST
    if {"main_asserts", "selftest_function", "import_asserts", "table_selftest"} & set(corpus.habits(name))
]


@pytest.mark.parametrize(("name", "source"), SELF_TESTED, ids=[name for name, _ in SELF_TESTED])
def test_honest_file_passes_its_own_self_test(name, source):
    """Does a file's self-test of the notes' examples pass when the file is run as a script (so
    the habit is one a student could keep)?"""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        load(name, source, module_name="__main__")
    shown = printed.getvalue()
    assert "FAIL" not in shown, f"{name}: its self-test printed\n{shown}"
    assert "OK" in shown or "passed" in shown or "import_asserts" in name, f"{name}: its self-test printed {shown!r}"


DOCTESTED = [
    (name, source) for name, source in HONEST if {"doctest_main", "worked_examples"} & set(corpus.habits(name))
]


@pytest.mark.parametrize(("name", "source"), DOCTESTED, ids=[name for name, _ in DOCTESTED])
def test_honest_file_passes_its_doctests(name, source):
    """Do the worked examples of a file's docstrings (the stub's, or its own with the notes' values)
    pass on its code, when its student runs them with doctest?"""
    module = load(name, source)
    with contextlib.redirect_stdout(io.StringIO()):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, f"{name}: {result}"


# ------------------------------------------------------------------ the lookup and mixed files

LABELS = corpus.labels()
LOOKUP = corpus.lookup()
MIXED = corpus.mixed()
TABLED = LOOKUP + MIXED


def notes_calls(functions) -> list[tuple[str, str, tuple, dict]]:
    return [call for call in calls() if call[0].startswith("notes-") and call[1] in functions]


def random_calls(function: str) -> list[tuple[str, str, tuple, dict]]:
    return [call for call in calls() if call[0].startswith("random-") and call[1] == function]


class Computed(Exception):
    """Raised by a lookup file's fallback once the test has replaced it: the call computed."""


def refuse(*args, **kwargs):
    raise Computed


def test_the_corpus_holds_enough_lookup_files_labelled_consistently():
    """Are there at least 40 lookup files, every one labelled with functions it looks up and the
    others it computes (together the whole API), and every storage and key in at least two?"""
    assert len(LOOKUP) >= MIN_LOOKUP, f"{len(LOOKUP)} lookup files"
    assert {name for name, _ in TABLED} == set(LABELS), "a file without a label, or a label without a file"
    for name, label in LABELS.items():
        assert label["looks_up"], f"{name} looks nothing up"
        assert sorted(label["looks_up"] + label["computes"]) == sorted(corpus.PUBLIC), name
        assert set(label["fallback"]) <= set(label["looks_up"]), name
    for field in ("storage", "keys"):
        counts = Counter(label[field] for label in LABELS.values())
        assert min(counts.values()) >= 2, f"{field}: {counts}"


@pytest.mark.parametrize(("name", "source"), TABLED, ids=[name for name, _ in TABLED])
def test_lookup_file_answers_the_notes_from_its_table(name, source):
    """Does a lookup file return the stored answer for every notes example it looks up, even with
    its computing fallback replaced by one that refuses (so the answer came from the table)?"""
    label = LABELS[name]
    module = load(name, source)
    for helper in label["fallback"].values():
        setattr(module, helper, refuse)
    found = [
        problem
        for case_id, function, args, kwargs in notes_calls(label["looks_up"])
        for problem in [agrees(module, function, args, kwargs, case_id)]
        if problem
    ]
    assert not found, f"{name}: " + "\n".join(found[:5])


@pytest.mark.parametrize(("name", "source"), TABLED, ids=[name for name, _ in TABLED])
def test_lookup_file_does_not_compute_what_it_looks_up(name, source):
    """Beyond its table, does a looked-up function answer wrongly (no fallback) or only through its
    fallback (replaced, it raises), while the functions labelled as computed are correct?"""
    label = LABELS[name]
    module = load(name, source)
    assert not problems(module, tuple(label["computes"])), f"{name}: a function labelled as computed is wrong"
    for function in label["looks_up"]:
        drawn = random_calls(function)
        if function in label["fallback"]:
            assert not problems(module, (function,)), f"{name}: {function}'s fallback computes wrongly"
            alone = load(name, source)  # the others' fallbacks left as they are: ndcg_at_k's calls dcg_at_k
            setattr(alone, label["fallback"][function], refuse)
            refused = [call for call in drawn if outcome(getattr(alone, function), call[2], call[3])[1] is Computed]
            assert len(refused) == len(drawn), f"{name}: {function} answered {len(drawn) - len(refused)} random calls"
        else:
            wrong = [call for call in drawn if agrees(module, function, call[2], call[3], call[0])]
            assert len(wrong) >= len(drawn) // 4, (
                f"{name}: {function} is right on {len(drawn) - len(wrong)} random calls"
            )


FEEDBACK_TABLED = [(name, source) for name, source in TABLED if "feedback" in LABELS[name]["tables"]]


@pytest.mark.parametrize(("name", "source"), FEEDBACK_TABLED, ids=[name for name, _ in FEEDBACK_TABLED])
def test_lookup_file_answers_harvested_feedback_from_its_table(name, source):
    """Does a file whose table holds random cases copied from feedback give their right values for
    every one it looks up, its fallback refusing (so the answers came from the table)?"""
    label = LABELS[name]
    module = load(name, source)
    for helper in label["fallback"].values():
        setattr(module, helper, refuse)
    harvested = [case for case in lookup_tool().harvested_cases() if case[1] in label["looks_up"]]
    wrong = [
        f"{case_id}: {kind} {value!r}, expected {answer!r}"
        for case_id, function, args, kwargs, answer in harvested
        for kind, value in [outcome(getattr(module, function), args, kwargs)]
        if kind != "value" or not same(value, answer)
    ]
    assert harvested and not wrong, f"{name}: {len(wrong)} of {len(harvested)} differ, e.g. " + "; ".join(wrong[:3])


# ------------------------------------------------------------------ the Cranfield tables

CRANFIELD_TABLED = [(name, source) for name, source in TABLED if "cranfield" in LABELS[name]["tables"]]


@functools.lru_cache(maxsize=1)
def lookup_tool() -> types.ModuleType:
    """``tools/lookup_corpus.py``, the writer of the lookup files (trusted project code)."""
    path = paths.ROOT / "tools" / "lookup_corpus.py"
    spec = importlib.util.spec_from_file_location("lookup_corpus_tool", path)
    assert spec is not None and spec.loader is not None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.cranfield
def test_the_lookup_files_are_what_the_tool_writes(cranfield):
    """Are the stored lookup files and their labels exactly what ``tools/lookup_corpus.py`` writes
    today (its tables the reference's answers; run it again after changing a base or the tool)?"""
    written = lookup_tool().corpus()
    stored = {path.name: path.read_text(encoding="utf-8") for path in corpus.LOOKUP.iterdir()}
    assert sorted(stored) == sorted(written), "run tools/lookup_corpus.py: files are missing or left over"
    differing = [name for name in written if stored[name] != written[name]]
    assert differing == [], f"run tools/lookup_corpus.py: {differing} differ from what it writes"


@pytest.mark.cranfield
@pytest.mark.parametrize(("name", "source"), CRANFIELD_TABLED, ids=[name for name, _ in CRANFIELD_TABLED])
def test_lookup_file_answers_cranfield_from_its_table(name, source, cranfield):
    """Does a file with Cranfield tables give the reference's value for every query of the runs and
    measures its label names, its fallback refusing (so the answers came from the table)?"""
    label = LABELS[name]
    module = load(name, source)
    for helper in label["fallback"].values():
        setattr(module, helper, refuse)
    reference = reference_metrics()
    wrong = []
    for system in label["cranfield"]["systems"]:
        rankings = cranfield["systems"][system]["rankings"]
        for measure in label["cranfield"]["measures"]:
            spec = measures.CRANFIELD[measure]
            for query_id, judgments in cranfield["qrels"].items():
                ranking = rankings.get(query_id, [])
                wanted = reference[spec.function](ranking, judgments, **spec.kwargs)
                kind, value = outcome(getattr(module, spec.function), (ranking, judgments), dict(spec.kwargs))
                if kind != "value" or not same(value, wanted):
                    wrong.append(f"{system} {measure} query {query_id}: {kind} {value!r}, expected {wanted!r}")
    assert not wrong, f"{name}: {len(wrong)} Cranfield answers differ, e.g. " + "; ".join(wrong[:3])


CRANFIELD_RUN = [
    next((name, source) for name, source in HONEST if habit in corpus.habits(name))
    for habit in ("cranfield_main", "cranfield_table")
]


@pytest.mark.slow
@pytest.mark.cranfield
@pytest.mark.parametrize(("name", "source"), CRANFIELD_RUN, ids=[name for name, _ in CRANFIELD_RUN])
def test_honest_file_computes_the_notes_table_when_run(name, source, lab05, cranfield):
    """Run as a script, does a file's Part V block compute every row of the notes' table on
    Cranfield (its code valid, as a student would have run it)?"""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        load(name, source, module_name="__main__")
    shown = printed.getvalue()
    for system, row in lab05_notes_table().items():
        line = next((line for line in shown.splitlines() if system in line and "P@10" in line), "")
        for label, value in row.items():
            found = [
                float(number)
                for text in shown.splitlines()
                if system in text
                for number in re.findall(rf"(?<![\w@]){re.escape(label)}\W+(?:mine )?([0-9.]+)", text)
            ]
            # the notes truncate to 4 decimals, the file rounds: at most 1e-4 apart
            assert found and abs(found[0] - float(value)) <= 1e-4 + 1e-9, (
                f"{name}: {system} {label}: printed {found}, the notes {value} ({line!r})"
            )


def lab05_notes_table() -> dict[str, dict[str, str]]:
    """The notes' Part V table of the two runs, as printed (4 decimals), by the searches' names."""
    from autograder.lab import cranfield

    return {f"search_{system}": cranfield.NOTES_TABLE[system] for system in cranfield.SYSTEMS}
