"""Known misconceptions of evaluate and largest_differences (Parts V and VI)."""

from __future__ import annotations

from .. import variants
from .model import m

ENTRIES = [
    m(
        "evaluate-skips-missing",
        ["evaluate"],
        "queries missing from the run left out",
        "Every query of the qrels gets a score; a query the system did not answer is measured on an empty "
        "ranking, and scores 0, which pulls the mean down as ir_measures does.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {q: measure(run[q], j) for q, j in qrels.items() if q in run},
    ),
    m(
        "evaluate-over-run",
        ["evaluate"],
        "scores given to the run's queries instead of the qrels' queries",
        "Iterate over the qrels: queries without judgments cannot be evaluated, and queries missing from the "
        "run still count.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {q: measure(ranking, qrels.get(q, {})) for q, ranking in run.items()},
    ),
    m(
        "evaluate-arguments-swapped",
        ["evaluate"],
        "measure called as measure(judgments, ranking), its two arguments swapped",
        "The contract calls measure(run[query_id], qrels[query_id]): the ranking first, then that query's judgments.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {q: measure(j, run.get(q, [])) for q, j in qrels.items()},
    ),
    m(
        "evaluate-whole-qrels",
        ["evaluate"],
        "measure handed the whole qrels instead of the query's own judgments",
        "Each query is measured on its own judgments, qrels[query_id], not on the judgments of every query.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {q: measure(run.get(q, []), qrels) for q in qrels},
    ),
    m(
        "differences-signed",
        ["largest_differences"],
        "the signed difference instead of the absolute one",
        "A query where system B is much better differs as much as one where A is: sort by |a - b|.",
        "Part VI, Per-query analysis",
        largest_differences=lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-(a[q] - b[q]), q))[:n],
    ),
    m(
        "differences-numeric-ties",
        ["largest_differences"],
        "ties ordered by query id as numbers",
        "Ties are broken by query id in string order ('10' before '9').",
        "the function's contract",
        largest_differences=lambda a, b, n=2: sorted(
            set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), variants.numeric_id(q))
        )[:n],
    ),
    m(
        "evaluate-run-lookup",
        ["evaluate"],
        "run[query_id] read for every query of the qrels (a KeyError for a query the run lacks)",
        "A query of the qrels may be missing from the run: measure it on an empty ranking, run.get(q, []).",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {q: measure(run[q], j) for q, j in qrels.items()},
    ),
    m(
        "differences-ascending",
        ["largest_differences"],
        "the smallest differences instead of the largest",
        "Sort by the absolute difference in descending order: the first ids are where the systems differ most.",
        "Part VI, Per-query analysis",
        largest_differences=lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (abs(a[q] - b[q]), q))[:n],
    ),
    m(
        "differences-ties-descending",
        ["largest_differences"],
        "ties ordered by query id descending",
        "Ties are broken by query id ascending (string order): sort by (-difference, query id).",
        "the function's contract",
        largest_differences=lambda a, b, n=2: sorted(
            set(a) & set(b), key=lambda q: (abs(a[q] - b[q]), q), reverse=True
        )[:n],
    ),
    m(
        "differences-not-cut",
        ["largest_differences"],
        "every common query returned, not the first n",
        "Return only the first n query ids of the sorted list: [:n].",
        "the function's contract",
        largest_differences=lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), q)),
    ),
    m(
        "evaluate-union",
        ["evaluate"],
        "scores given to the queries of the run and of the qrels together",
        "Only the qrels' queries are scored: a query of the run without judgments cannot be evaluated and is "
        "left out; a query of the qrels missing from the run is measured on an empty ranking.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {
            q: measure(run.get(q, []), qrels.get(q, {})) for q in list(qrels) + [q for q in run if q not in qrels]
        },
    ),
    m(
        "differences-missing-as-zero",
        ["largest_differences"],
        "a query scored by one system only compared as if the other scored it 0",
        "Only the queries both systems scored are compared: a missing score is not a score of 0.",
        "the function's contract",
        largest_differences=lambda a, b, n=2: sorted(
            set(a) | set(b), key=lambda q: (-abs(a.get(q, 0) - b.get(q, 0)), q)
        )[:n],
    ),
    m(
        "differences-ties-in-input-order",
        ["largest_differences"],
        "tied differences left in the order of the input, not ordered by query id",
        "Ties are broken by query id ascending (string order): sort by (-difference, query id).",
        "the function's contract",
        largest_differences=(
            lambda a, b, n=2: sorted([q for q in a if q in b], key=lambda q: -abs(a[q] - b[q]))[:n],
            lambda a, b, n=2: sorted([q for q in b if q in a], key=lambda q: -abs(a[q] - b[q]))[:n],
        ),
    ),
    m(
        "evaluate-missing-as-zero",
        ["evaluate"],
        "a query missing from the run given 0.0 instead of the measure of an empty ranking",
        "evaluate knows nothing of the measure it is given: a query the run lacks is measured on an empty "
        "ranking, measure([], judgments). Most measures of the notes give 0.0 there, but not every measure does.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: {q: measure(run[q], j) if q in run else 0.0 for q, j in qrels.items()},
    ),
    m(
        "evaluate-previous-ranking",
        ["evaluate"],
        "a query missing from the run measured on the previous query's ranking",
        "Each query is measured on its own ranking: a query the run lacks gets an empty one, run.get(q, []), "
        "never the ranking left over from the query before it.",
        "Part V, Using ir_measures",
        evaluate=lambda run, qrels, measure: variants.previous_ranking_scores(run, qrels, measure),
    ),
    m(
        "differences-relative",
        ["largest_differences"],
        "differences relative to the larger score instead of absolute",
        "The difference between two systems on a query is |a - b| itself, not divided by either score.",
        "Part VI, Per-query analysis",
        largest_differences=lambda a, b, n=2: sorted(
            set(a) & set(b), key=lambda q: (-variants.relative_gap(a[q], b[q]), q)
        )[:n],
    ),
    m(
        "differences-ties-by-score",
        ["largest_differences"],
        "tied differences ordered by a system's score, not by query id",
        "Ties are broken by query id ascending (string order) alone: sort by (-difference, query id).",
        "the function's contract",
        largest_differences=(
            lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), -a[q], q))[:n],
            lambda a, b, n=2: sorted(set(a) & set(b), key=lambda q: (-abs(a[q] - b[q]), -b[q], q))[:n],
        ),
    ),
]
