"""What a hidden case can tell its student, over every kind of hidden check: the real grading code
(``scoring.call_case`` for the metrics' hidden edge cases, ``runfile_checks`` for the run writer's
hidden scenarios) is fed many different failing answers (wrong values of every type, errors of
many classes with varied messages, timeouts, crashes, files that did not import, run files with
varied faults, search functions called in varied ways), each case's student view is rendered as
results.json, feedback.md and feedback.html render a check (``markdown.check_text``), and the
distinct texts each hidden case can show are counted. They must be at most the fixed vocabulary
(``vocabulary.HIDDEN_STATES`` and passed), whose size gives docs/CHECKS.md's bits per hidden case.
(There are no hidden random cases: random cases are public, their inputs drawn afresh.)
"""

from __future__ import annotations

import math
import random
import re
from collections import defaultdict

import pytest

from autograder import paths
from autograder.grading import plan as planning
from autograder.grading import reference, rubric, runfile_checks, scoring
from autograder.grading.results import HIDDEN_STATES, CaseResult, CheckResult, Status, SubmissionResult
from autograder.lab.spec import CheckKind
from autograder.labkit import trec
from autograder.labkit.load import default as default_lab
from autograder.reports import markdown
from autograder.sandbox.channel import Outcome
from autograder.sandbox.child.values import encode

pytestmark = [pytest.mark.cranfield]

#: Exception classes a submission may raise (its own classes too), and what they derive from.
ERRORS = [
    ("ValueError", ["ValueError", "Exception"]),
    ("TypeError", ["TypeError", "Exception"]),
    ("KeyError", ["KeyError", "LookupError", "Exception"]),
    ("NotImplementedError", ["NotImplementedError", "RuntimeError", "Exception"]),
    ("ZeroDivisionError", ["ZeroDivisionError", "ArithmeticError", "Exception"]),
    ("OSError", ["OSError", "Exception"]),
    ("LeakQ7Error", ["ValueError", "Exception"]),
    ("Leak3", ["Exception"]),
    ("StopIteration", ["StopIteration", "Exception"]),
    ("UnicodeError", ["UnicodeError", "ValueError", "Exception"]),
]


@pytest.fixture(scope="module")
def planned(cranfield):
    built = planning.build(
        default_lab(), rubric.load(default_lab().place.rubric, default_lab()), reference.load(default_lab()), cranfield
    )
    return built, built.for_submission("hidden-vocabulary")


def _outcomes(rng: random.Random) -> list[tuple[Outcome, frozenset]]:
    """Many ways a call can go wrong (and one it goes right: the planned value is added by the caller)."""
    found: list[tuple[Outcome, frozenset]] = []
    values = [None, True, 0, 1, -7, 0.5, 1e300, math.nan, "0.25", "leak 17", [], [1, 2, 3], (0, 0, 0, 0), {"a": 1}]
    values += [rng.random() * 10 ** rng.randint(-5, 5) for _ in range(20)]
    values += [[rng.randint(0, 99) for _ in range(rng.randint(0, 6))] for _ in range(10)]
    values += [{str(rng.randint(0, 9)): rng.random() for _ in range(rng.randint(1, 4))} for _ in range(10)]
    found += [(Outcome("value", value=encode(value)), frozenset()) for value in values]
    for name, mro in ERRORS:
        for message in ("", "k must be positive", f"leak {rng.random()}", "x" * rng.randint(1, 400)):
            error = {"type": name, "mro": mro, "message": message, "traceback": [f"line {rng.randint(1, 999)}: {name}"]}
            found.append((Outcome("error", error=error), frozenset()))
    for detail in ("over 2 s", f"exit status {rng.randint(1, 255)}", f"killed by signal {rng.randint(1, 31)}", ""):
        found += [(Outcome("timeout", detail=detail), frozenset()), (Outcome("crash", detail=detail), frozenset())]
    found.append((Outcome("not-run", detail="crashes"), frozenset()))
    found.append((Outcome("not-run", detail="import failed"), frozenset({"metrics.py", "runs.py"})))
    return found


def _shown(case: CaseResult, check: str, kind: CheckKind, function: str) -> str:
    """The text a student reads of one case: its check rendered (results.json's test output; feedback.md
    and feedback.html render the same view) from the student view, its label taken out."""
    passed = case.passed
    result = SubmissionResult(
        submission="s",
        status=Status.GRADED,
        checks=(CheckResult(check, "q1", function, kind, 1.0, 1.0 if passed else 0.0, "visible", (case,)),),
    )
    seen = result.student_view().checks[0]
    return markdown.check_text(seen, lab=default_lab()).replace(case.description, "<label>")


def _edge_texts(built, submission) -> dict[str, set[str]]:
    """Every text each hidden edge case showed, over every answer of ``_outcomes`` and the right one."""
    rng = random.Random(29)
    outcomes = _outcomes(rng)
    texts: dict[str, set[str]] = defaultdict(set)
    for planned_case in submission.planned:
        if planned_case.case.public:
            continue
        right = Outcome("value", value=encode(planned_case.expected))
        for outcome, unimported in [*outcomes, (right, frozenset())]:
            case = scoring.call_case(built.lab, planned_case, outcome, unimported)
            texts[planned_case.case.id].add(
                _shown(case, planned_case.check, planned_case.kind, planned_case.case.function)
            )
    return texts


def _faulty_files(scenario, rng: random.Random) -> list[tuple[str | None, list]]:
    """Run files (their text, or None: no file) and search_fn's calls, with varied faults."""
    rows = trec.rows(scenario.expected_text())
    right_calls = [[text, scenario.k] for _, text in scenario.queries]
    made: list[list[list[str]]] = [rows]
    for _ in range(40):
        changed = [[*row, *["s"] * (6 - len(row))] for row in rows] or [["1", "Q0", "d", "1", "1.0", "s"]]
        line = rng.randrange(len(changed))
        fault = rng.choice(["columns", "q0", "rank", "score", "system", "dup", "extra", "drop", "swap", "garbage"])
        if fault == "columns":
            changed[line] = changed[line][: rng.randint(1, 5)] + ["x"] * rng.randint(0, 4)
        elif fault == "q0":
            changed[line][1] = rng.choice(["Q1", "0", "q0"])
        elif fault == "rank":
            changed[line][3] = str(rng.randint(0, 200))
        elif fault == "score":
            changed[line][4] = rng.choice(["nan?", f"{rng.random():.3f}", "9e9"])
        elif fault == "system":
            changed[line][5] = f"leak{rng.randint(0, 99)}"
        elif fault == "dup":
            changed.insert(line, list(changed[line]))
        elif fault == "extra":
            changed += [list(changed[-1]) for _ in range(rng.randint(1, 150))]
        elif fault == "drop":
            del changed[line : line + rng.randint(1, 3)]
        elif fault == "swap" and len(changed) > 1:
            changed[0], changed[-1] = changed[-1], changed[0]
        else:
            changed[line] = [f"garbage{rng.randint(0, 9)}"] * rng.randint(1, 9)
        made.append(changed)
    calls = [right_calls, right_calls[::-1], right_calls * 2, right_calls[:-1], [["leak", rng.randint(1, 9)]] * 5, []]
    return [("".join(" ".join(row) + "\n" for row in table), rng.choice(calls)) for table in made] + [
        (None, right_calls)
    ]


def _written(text: str | None, calls: list, **more: bool) -> Outcome:
    """What the child sends back when the writer returned: the file's text (None: no file) and the calls."""
    found = {"type": "runfile", "searches": calls, **more}
    return Outcome("value", value={**found, **({"text": text} if text is not None else {"missing": True})})


def _scenario_texts(built, submission) -> dict[str, set[str]]:
    """Every text each case of a hidden write_run scenario showed, over varied files and calls,
    errors, timeouts and crashes."""
    rng = random.Random(7)
    texts: dict[str, set[str]] = defaultdict(set)
    names = {
        check.kind: check for check in built.rubric.checks if check.function == runfile_checks.writer_of(built.lab)
    }
    hidden = [name for name, scenario in built.scenarios.items() if not scenario.public]
    assert hidden, "no hidden write_run scenario: nothing to count"
    for name in hidden:
        scenario = built.scenarios[name]
        answers = [(_written(text, calls), frozenset()) for text, calls in _faulty_files(scenario, rng)]
        answers += [(outcome, unimported) for outcome, unimported in _outcomes(rng) if outcome.status != "value"]
        answers += [(Outcome("value", value={"type": "runfile", "searches": [], "too_large": True}), frozenset())]
        answers += [(_written("\ufffd 1 Q0", [], not_utf8=True), frozenset())]
        for outcome, unimported in answers:
            run = runfile_checks.read(
                outcome,
                built.canonical[name],
                imported="runs.py" not in unimported,
                writer=runfile_checks.writer_of(built.lab),
            )
            found: dict[str, list[CaseResult]] = {spec.name: [] for spec in names.values()}
            runfile_checks._scenario_cases(built, name, run, {kind: spec.name for kind, spec in names.items()}, found)
            for check_name, cases in found.items():
                kind = next(kind for kind, spec in names.items() if spec.name == check_name)
                for case in cases:
                    texts[case.id].add(_shown(case, check_name, kind, runfile_checks.writer_of(built.lab)))
    return texts


def _readme_states() -> tuple[int, float]:
    """The docs' figures (docs/CHECKS.md, moved there from the README): how many states a hidden case
    shows, and the bits that makes."""
    text = " ".join(paths.ROOT.joinpath("docs", "CHECKS.md").read_text(encoding="utf-8").split())
    found = re.search(r"one of (\d+) fixed states .*?at most ([\d.]+) bits per hidden case", text)
    assert found, "docs/CHECKS.md no longer says how many states a hidden case shows and the bits it makes"
    return int(found.group(1)), float(found.group(2))


@pytest.mark.parametrize("kind", ["metric edge cases", "write_run hidden scenarios"])
def test_a_hidden_case_shows_at_most_the_vocabulary(planned, kind):
    """Over many different failing answers, does each hidden case of this kind show its student at
    most as many distinct texts as the fixed vocabulary holds (its states and "passed")?"""
    built, submission = planned
    texts = _edge_texts(built, submission) if kind == "metric edge cases" else _scenario_texts(built, submission)
    assert texts, f"no hidden case of {kind}"
    widest = max(texts, key=lambda case_id: len(texts[case_id]))
    print(f"{kind}: {len(texts)} hidden cases; at most {len(texts[widest])} distinct texts ({widest})")
    assert len(texts[widest]) <= len(HIDDEN_STATES) + 1, sorted(texts[widest])[:40]


def test_no_random_case_is_hidden(planned):
    """Are the random cases all public (their inputs drawn afresh, their answers anyone computes), so
    that the edge cases and the write_run scenarios are every kind of hidden check counted above?"""
    built, submission = planned
    kinds = {(str(case.kind), case.case.public) for case in submission.planned}
    assert ("random", True) in kinds and ("random", False) not in kinds
    assert {kind for kind, public in kinds if not public} == {"edge"}
    assert any(not scenario.public for scenario in built.scenarios.values())


def test_the_readme_says_the_vocabularys_bits(planned):
    """Does docs/CHECKS.md give the vocabulary's size (its states and "passed") and log2 of it as the
    bits a hidden case can tell per grading?"""
    states, bits = _readme_states()
    assert states == len(HIDDEN_STATES) + 1
    assert bits == round(math.log2(states), 1)
