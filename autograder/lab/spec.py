"""The lab's vocabulary, once: the student API (functions and the files they live in), the kinds
of check and what each means, where the notes explain each function, the evaluation libraries a
submission may not use, and the tolerances answers are judged with.

Everything else reads these names from here; nothing else spells them out.
"""

from __future__ import annotations

from autograder.strenum import StrEnum

#: The files a submission is made of, and the handout's given files that complete the package.
GRADED_FILES = ("metrics.py", "runs.py")
GIVEN_FILES = ("__init__.py", "data.py", "retrieval.py")

METRIC_FUNCTIONS = (
    "confusion_matrix",
    "accuracy",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
    "average_precision",
    "dcg_at_k",
    "ndcg_at_k",
    "evaluate",
    "largest_differences",
)
#: The API: function -> the graded file it lives in, in the handout's order.
FUNCTIONS = {**dict.fromkeys(METRIC_FUNCTIONS, "metrics.py"), "write_run": "runs.py"}

#: What each function returns, in the contract's words (messages say what was expected).
RETURNS = {
    "confusion_matrix": "a tuple (tp, fp, fn, tn) of 4 integers",
    "accuracy": "a number between 0 and 1",
    "precision_at_k": "a number between 0 and 1",
    "recall_at_k": "a number between 0 and 1",
    "reciprocal_rank": "a number between 0 and 1",
    "average_precision": "a number between 0 and 1",
    "dcg_at_k": "a number (0 or more)",
    "ndcg_at_k": "a number between 0 and 1",
    "evaluate": "a dict {query_id: score} over every query of the qrels",
    "largest_differences": "a list of query ids",
    "write_run": "nothing (it writes the run file)",
}

#: Where the notes explain each function (the stubs and the feedback point there).
NOTES_PART = {
    "confusion_matrix": "Part II",
    "accuracy": "Part II",
    "precision_at_k": "Part II",
    "recall_at_k": "Part II",
    "reciprocal_rank": "Part III",
    "average_precision": "Part III",
    "dcg_at_k": "Part IV",
    "ndcg_at_k": "Part IV",
    "evaluate": "Part V",
    "largest_differences": "Part VI",
    "write_run": "Part V",
}


class Family(StrEnum):
    """How a check's cases are made: one judged call each, or properties of a written run file."""

    CALLS = "calls"
    RUN_FILE = "run file"


class CheckKind(StrEnum):
    """A kind of check. ``label`` names it in results (``<function>: <label>``); ``family`` says
    how its cases are made; ``aggregated`` kinds have many cases and are reported per check."""

    EXAMPLES = "examples"
    EDGE = "edge"
    RANDOM = "random"
    CRANFIELD = "cranfield"
    RUN_FORMAT = "run_format"
    RUN_CONTENT = "run_content"
    RUN_CRANFIELD = "run_cranfield"

    @property
    def label(self) -> str:
        return _KINDS[self][0]

    @property
    def family(self) -> Family:
        return _KINDS[self][1]

    @property
    def aggregated(self) -> bool:
        return _KINDS[self][2]


_KINDS: dict[CheckKind, tuple[str, Family, bool]] = {
    CheckKind.EXAMPLES: ("the notes' examples", Family.CALLS, False),
    CheckKind.EDGE: ("hidden edge cases", Family.CALLS, False),
    CheckKind.RANDOM: ("random cases", Family.CALLS, True),
    CheckKind.CRANFIELD: ("all Cranfield queries", Family.CALLS, True),
    CheckKind.RUN_FORMAT: ("TREC format", Family.RUN_FILE, False),
    CheckKind.RUN_CONTENT: ("content", Family.RUN_FILE, False),
    CheckKind.RUN_CRANFIELD: ("Cranfield runs vs the notes' table", Family.RUN_FILE, False),
}


_PER_QUERY = ("precision_at_k", "recall_at_k", "reciprocal_rank", "average_precision", "ndcg_at_k")
K = CheckKind
#: The kinds of check each function can have.
KINDS_FOR: dict[str, tuple[CheckKind, ...]] = {
    **dict.fromkeys(METRIC_FUNCTIONS, (K.EXAMPLES, K.EDGE)),
    **dict.fromkeys(_PER_QUERY, (K.EXAMPLES, K.EDGE, K.RANDOM, K.CRANFIELD)),
    "evaluate": (K.EXAMPLES, K.EDGE, K.RANDOM),
    "largest_differences": (K.EXAMPLES, K.EDGE, K.RANDOM),
    "write_run": (K.EXAMPLES, K.RUN_FORMAT, K.RUN_CONTENT, K.RUN_CRANFIELD),
}

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
#: A run file's scores must equal the search function's to this (8 decimals, the contract).
SCORE_TOLERANCE = 1e-8
