# otter test file for grader.check("q4") in lab05.ipynb: the cases of public_cases.py for q4.
OK_FORMAT = False

import os
import sys

from otter.test_files import test_case

sys.path.insert(0, os.path.abspath("tests"))
from public_cases import cases_for, problem  # noqa: E402

name = "q4"


def _check(case):
    def check():
        message = problem(case, reload=True)
        if message:
            raise AssertionError(message)

    return check


for _case in cases_for(name):
    globals()["test_" + _case.id] = test_case(name=_case.id, points=1)(_check(_case))
