"""Known misconceptions of write_run: each variant gives the rows the wrong writer writes (Part V)."""

from __future__ import annotations

from .. import variants
from ..variants import UNCUT
from .model import m

ENTRIES = [
    m(
        "run-ranks-from-0",
        ["write_run"],
        "ranks in the run file start at 0",
        "Ranks count from 1 within each query (enumerate(results, start=1)).",
        "Part V, write_run",
        write_run=lambda scenario: [[[q, z, d, str(int(r) - 1), s, y] for q, z, d, r, s, y in variants.rows(scenario)]],
    ),
    m(
        "run-column-order",
        ["write_run"],
        "the run file's columns out of order",
        "trec_eval reads exactly six columns: query_id Q0 doc_id rank score system_name.",
        "Part V, Using ir_measures",
        write_run=lambda scenario: [
            [[q, z, d, s, r, y] for q, z, d, r, s, y in variants.rows(scenario)],
            [[q, z, r, d, s, y] for q, z, d, r, s, y in variants.rows(scenario)],
        ],
    ),
    m(
        "run-no-q0",
        ["write_run"],
        "the Q0 column left out",
        "The second column is the literal Q0 (an unused iteration field trec_eval still expects).",
        "Part V, Using ir_measures",
        write_run=lambda scenario: [[[q, d, r, s, y] for q, z, d, r, s, y in variants.rows(scenario)]],
    ),
    m(
        "run-few-decimals",
        ["write_run"],
        "scores written with too few decimals",
        "With few decimals, different scores become ties and trec_eval re-orders them by doc id: write {score:.8f}.",
        "Part V, write_runs.py",
        write_run=lambda scenario: (variants.rows(scenario, places=places) for places in range(0, 7)),
    ),
    m(
        "run-unsorted",
        ["write_run"],
        "results not written in the order the search function returned",
        "Keep the order of search_fn's results (best first); trec_eval ranks by score, so sorting by doc id "
        "scrambles the scores' order.",
        "Part V, write_runs.py",
        write_run=lambda scenario: [variants.sorted_by_doc(variants.rows(scenario))],
    ),
    m(
        "run-ignores-k",
        ["write_run"],
        "k not passed on to the search function",
        "Call search_fn(query.text, k): the search function returns at most the k it is given.",
        "Part V, write_runs.py",
        # search_fn(text) or search_fn(text, 100): what it returns written whole, or cut at k
        searches=lambda scenario: [[[text, 100] for _, text in scenario.queries]] * 2,
        write_run=lambda scenario: [
            variants.rows(scenario, k=UNCUT if scenario.overfull else 100),
            variants.rows(scenario),
        ],
    ),
    m(
        "run-not-cut",
        ["write_run"],
        "search_fn's results written without cutting them at k",
        "write_run writes at most k lines per query, the first k, even when search_fn returns more.",
        "Part V, write_runs.py",
        write_run=lambda scenario: [variants.rows(scenario, k=UNCUT if scenario.overfull else None)],
    ),
    m(
        "run-sorted-queries",
        ["write_run"],
        "the queries written sorted by id, not in the order given",
        "Write the queries in the order the iterable gives them (trec_eval does not mind the order, but the "
        "contract keeps it).",
        "the function's contract",
        searches=lambda scenario: [
            [[text, scenario.k] for _, text in order] for order in variants.query_orders(scenario)
        ],
        write_run=lambda scenario: [
            variants.rows(scenario, queries=order) for order in variants.query_orders(scenario)
        ],
    ),
    m(
        "run-significant-digits",
        ["write_run"],
        "scores written with 8 significant digits ({score:.8}), not 8 decimals ({score:.8f})",
        "{score:.8} keeps 8 digits in all (12.345678901 becomes 12.345679) and refuses an int score; "
        "{score:.8f} keeps 8 decimals.",
        "Part V, write_runs.py",
        write_run=lambda scenario: [variants.rows_or_error(scenario, score_format=".8")],
    ),
    m(
        "run-resorted-by-score",
        ["write_run"],
        "results re-sorted by score (ties by doc id) instead of kept in the order search_fn returned them",
        "search_fn's order is the ranking, best first, with its own order among equal scores; sorting again by "
        "score (ties by doc id) moves tied results, so their ranks differ. Write them in the order returned.",
        "Part V, write_runs.py",
        write_run=lambda scenario: [variants.resorted_by_score(scenario)],
    ),
]
