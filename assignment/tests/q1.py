# otter test file for grader.check("q1") in lab05.ipynb: the cases of public_cases.py for q1.
OK_FORMAT = False

import os
import sys

sys.path.insert(0, os.path.abspath("tests"))
from public_cases import otter_tests  # noqa: E402

name = "q1"
globals().update(otter_tests(name))
