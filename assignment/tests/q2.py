# otter test file for grader.check("q2") in lab05.ipynb: the cases of public_cases.py for q2.
OK_FORMAT = False

import os
import sys

sys.path.insert(0, os.path.abspath("tests"))
from otter_checks import test_cases  # noqa: E402

name = "q2"
globals().update(test_cases(name))
