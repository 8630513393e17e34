"""The lab's vocabulary, once: the student API (functions and the files they live in), the kinds
of check and what each means, where the notes explain each function, the evaluation libraries a
submission may not use, and the tolerances answers are judged with. Each function's own facts
come from its record (``lab/functions/``).

Everything else reads these names from here; nothing else spells them out.
"""

from __future__ import annotations

# re-exported (``X as X``): the engine reads the lab's vocabulary through here
from autograder.labkit.kinds import CheckKind as CheckKind
from autograder.labkit.kinds import Family as Family
from autograder.labkit.trec import SCORE_TOLERANCE as SCORE_TOLERANCE  # a run file's scores: 8 decimals

from .functions import registry

#: The package students fill in (the handout's folder), the files a submission is made of, and the
#: handout's given files that complete the package.
PACKAGE = "lab05"
LAB_NAME = "Lab 05"  # what pages call the lab
GRADED_FILES = ("metrics.py", "runs.py")
GIVEN_FILES = ("__init__.py", "data.py", "retrieval.py")

#: The API: function -> the graded file it lives in, in the handout's order (``lab/functions/``
#: holds each function's record; these views of them are what most of the grader reads).
FUNCTIONS = {name: record.file for name, record in registry.FUNCTIONS.items()}
METRIC_FUNCTIONS = tuple(name for name, file in FUNCTIONS.items() if file == "metrics.py")

#: What each function returns, in the contract's words (messages say what was expected).
RETURNS = {name: record.returns for name, record in registry.FUNCTIONS.items()}

#: Where the notes explain each function (the stubs and the feedback point there).
NOTES_PART = {name: record.notes_part for name, record in registry.FUNCTIONS.items()}

#: The kinds of check each function can have.
KINDS_FOR: dict[str, tuple[CheckKind, ...]] = {name: record.kinds for name, record in registry.FUNCTIONS.items()}


def notes_part(function: str) -> str:
    return NOTES_PART.get(function, "the notes")


#: Who may see a check's result (Gradescope's values, used by every platform).
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")

#: Evaluation libraries metric code may not use: their top-level modules.
EVALUATION_LIBRARIES = (
    "ir_measures",
    "pytrec_eval",
    "pytrec_eval_ext",
    "ranx",
    "trectools",
    "sklearn",
    "torchmetrics",
    "pyterrier",
    "trec_eval",
    "rank_eval",
    "ir_datasets",
)
#: The graded file whose functions lose their credit when it uses one of them.
LIBRARY_RULE_FILE = "metrics.py"

#: Answers pass within this, absolute or relative (honest float32 passes, 2 decimals do not).
TOLERANCE = 1e-6
