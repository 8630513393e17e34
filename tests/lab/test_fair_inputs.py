"""Does the grader pass only what the stubs promise, and never hang an answer on float rounding?

The random cases of every function are drawn for many seeds (as ``grading/plan.py`` draws them) and
searched for what the contract does not promise (numpy arrays), and every random
``largest_differences`` case is answered again in exact arithmetic (``fractions.Fraction`` of the
very floats passed) and compared with the expected answer the grader holds.
"""

import json
import random
from fractions import Fraction

import pytest

from autograder.grading import inputs
from autograder.lab import cases
from autograder.lab.functions import registry
from autograder.lab.functions.registry import FUNCTIONS as RECORDS

SEEDS = [f"seed-{number}" for number in range(60)]
PROMISED_TAGS = {"$tuple", "$readonly", "$measure"}


def _draw(function: str, seed: str, count: int = 41) -> list:
    generate = RECORDS[function].random_cases
    return generate(random.Random(f"fair:{seed}:{function}"), count)


def _tags(value: object) -> set:
    """Every ``$tag`` an argument's JSON holds, at any depth."""
    found: set = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found |= {key} if isinstance(key, str) and key.startswith("$") else set()
            found |= _tags(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found |= _tags(item)
    return found


def _exact_largest_differences(a: dict, b: dict, n: int = 2) -> list:
    common = set(a) & set(b)
    return sorted(common, key=lambda q: (-abs(Fraction(a[q]) - Fraction(b[q])), q))[:n]


@pytest.mark.parametrize("function", sorted(f for f, record in RECORDS.items() if record.random_cases))
def test_random_cases_pass_only_promised_types(function):
    """Do the random cases of this function, over 60 seeds, pass only lists, tuples, dicts and
    read-only mappings (no numpy array tag, which the stubs do not promise)?"""
    seen = set()
    for seed in SEEDS:
        for case in _draw(function, seed):
            seen |= _tags(json.loads(json.dumps([case.args, case.kwargs])))
    assert seen <= PROMISED_TAGS, f"{function}: random cases pass {sorted(seen - PROMISED_TAGS)}"


@pytest.mark.parametrize(
    "function, tag",
    [("average_precision", "$tuple"), ("average_precision", "$readonly"), ("evaluate", "$readonly")],
    ids=["ranking-tuple", "judgments-read-only", "run-read-only"],
)
def test_each_promised_type_is_passed_by_a_public_check(function, tag):
    """Does at least one public check (the notes' cases the handout runs) pass this promised type?"""
    used = [case.id for case, _ in cases.example_cases() if case.function == function and tag in _tags(case.args)]
    assert used, f"no public check of {function} passes {tag}"


def test_largest_differences_answers_agree_with_exact_arithmetic():
    """For every random largest_differences case of 60 seeds (2,460 cases), does the answer
    computed with Fractions from the exact inputs equal the expected answer, and do some of those
    cases hold a tie the answer depends on?"""
    checked = ties = 0
    for seed in SEEDS:
        made = _draw("largest_differences", seed)
        answers = registry.answers("largest_differences", made, inputs.resolve)
        for case, expected in zip(made, answers):
            a, b = case.args
            n = case.kwargs.get("n", 2)
            if not (isinstance(n, int) and n >= 1):
                continue  # a refused n: the expected answer is a ValueError, no order at all
            exact = _exact_largest_differences(a, b, n)
            assert list(expected) == exact, (case.id, seed, a, b, n, expected, exact)
            gaps = [abs(Fraction(a[q]) - Fraction(b[q])) for q in set(a) & set(b)]
            ties += len(gaps) != len(set(gaps))
            checked += 1
    assert checked > 2000 and ties > 500, (checked, ties)
