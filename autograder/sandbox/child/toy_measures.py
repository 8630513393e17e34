"""The grader's own measures, handed to a student function that takes a measure (standard library only).

Such a function is checked with simple measures of the grader's, never with reference metric code
(inside the child a submission could borrow it). The parent computes the expected values with
the same functions, so the two sides cannot disagree.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: never imported when the child runs
    from collections.abc import Callable
    from typing import Any


# Positional-only, as the contract calls a measure (``measure(run[query_id], qrels[query_id])``): a
# measure may name its parameters as it likes, so a call by keyword is a TypeError here too.
def ranking_length(ranking: "Any", judgments: "Any", /) -> "Any":
    return len(ranking)


def judged_in_ranking(ranking: "Any", judgments: "Any", /) -> "Any":
    return sum(1 for d in ranking if d in judgments)


def grade_of_first(ranking: "Any", judgments: "Any", /) -> "Any":
    return judgments.get(ranking[0], 0) if len(ranking) else -2


def judgments_count(ranking: "Any", judgments: "Any", /) -> "Any":
    return len(judgments)


MEASURES = {
    "ranking_length": ranking_length,
    "judged_in_ranking": judged_in_ranking,
    "grade_of_first": grade_of_first,
    "judgments_count": judgments_count,
}
#: What each measure is, in words a student's feedback can show beside a call that uses it.
DESCRIPTIONS = {
    "ranking_length": "the number of documents in the ranking",
    "judged_in_ranking": "the number of the ranking's documents that are judged",
    "grade_of_first": "the grade of the ranking's first document (0 if unjudged; -2 for an empty ranking)",
    "judgments_count": "the number of judged documents",
}


def measure(name: str) -> "Callable[[Any, Any], Any]":
    """The measure called ``name``."""
    return MEASURES[name]
