"""Public checks: the notes' worked examples. Run them with ``pytest`` in the handout folder.

Each test calls one of your functions on an example of the notes and compares with the
notes' value (to 1e-6); a failure names the function, the input, both values and a hint.
"""

import pytest
from public_cases import CASES, problem


@pytest.mark.parametrize("case", CASES, ids=[f"{case.function}[{case.id}]" for case in CASES])
def test_notes_example(case):
    """Does the function give the notes' value on this worked example?"""
    message = problem(case)
    if message:
        pytest.fail(message, pytrace=False)
