"""write_run(path, system_name, search_fn, queries, k=100): a TREC run file (Part V).

Its checks read the file it writes (``lab/scenarios.py`` says what each call gives it and what
each tests), not what it returns.
"""

from autograder.labkit.kinds import CheckKind as K
from autograder.labkit.record import GradedFunction

RECORD = GradedFunction(
    name="write_run",
    file="runs.py",
    returns="nothing (it writes the run file)",
    notes_part="Part V",
    kinds=(K.EXAMPLES, K.RUN_FORMAT, K.RUN_CONTENT, K.RUN_CRANFIELD),
    takes=("k",),
    writes_run_file=True,
)
