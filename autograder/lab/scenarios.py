"""The calls of ``write_run`` the checks are made of.

A *scenario* is one call: a system name, a replayed search function (its results per query
text), the queries in order, and k. The child replays the search function and returns the file
``write_run`` wrote; the grader checks it as trec_eval reads it (``grading.runfile_checks``).
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.lab import cases
from autograder.labkit import trec

DEFAULT_K = 100  # write_run's default k (the contract's)
_ROWS: dict[tuple, tuple] = {}  # expected rows of each scenario (with its results), built once per process


@dataclass(frozen=True)
class Scenario:
    name: str
    system: str
    results: dict  # query text -> [[doc_id, title, score] or [doc_id, score], ...], best first
    queries: tuple  # ((query_id, text), ...) in the order given to write_run
    k: int
    description: str
    overfull: bool = False  # search_fn returns more than k results: write_run must cut at k
    raises: str = ""  # the error write_run must raise for these arguments (no file is checked)
    pass_k: bool = True  # False: write_run is called without k (the contract's default, 100)
    features: tuple = ()  # what it tests (``lab.features``), for diagnoses that separate failing scenarios

    def expected_rows(self) -> list[tuple]:
        """The rows the right writer writes: (query_id, "Q0", doc_id, rank, score, system)."""
        key = (self.name, self.system, self.k, id(self.results))
        if key not in _ROWS or _ROWS[key][0] is not self.results:
            _ROWS[key] = (
                self.results,
                [
                    (query_id, "Q0", hit[0], rank, hit[-1], self.system)
                    for query_id, text in self.queries
                    for rank, hit in enumerate(self.results[text][: self.k], start=1)
                ],
            )
        return _ROWS[key][1]

    def all_features(self) -> frozenset:
        """What it tests: the features it names, and those its data have (queries whose ids are not in
        string or numeric order, a query without results, a search function returning more than k,
        k=1, k left out)."""
        ids = [query_id for query_id, _ in self.queries]
        found = set(self.features)
        if ids != sorted(ids):
            found.add("queries-unsorted-as-strings")
        if all(query_id.isdigit() for query_id in ids) and ids != sorted(ids, key=int):
            found.add("queries-unsorted-as-numbers")
        if any(not self.results.get(text) for _, text in self.queries):
            found.add("query-without-results")
        found |= {name for name, has in (("overfull-search", self.overfull), ("k-is-1", self.k == 1)) if has}
        if not self.pass_k:
            found.add("k-left-out")
        return frozenset(found)

    def expected_text(self) -> str:
        """The file the right writer writes, byte for byte."""
        return trec.text(self.expected_rows())

    @property
    def public(self) -> bool:
        """Are its cases shown with their values (the notes' example and the Cranfield runs)?"""
        return self.name == EXAMPLE or self.name.startswith("cranfield-")


EXAMPLE = cases.EXAMPLE_SCENARIO


def example_scenario() -> Scenario:
    """The public check q5: the notes' two-query example."""
    results, queries = cases.example_search_data()
    example = next(case for case, _ in cases.example_cases() if case.function == "write_run")
    return Scenario(
        name=EXAMPLE,
        system=example.args[1],
        results=results,
        queries=tuple(tuple(q) for q in queries),
        k=example.kwargs["k"],
        description=f"the notes' example (public check q5): {example.call_text()}",
    )


def small_scenarios() -> list[Scenario]:
    """Hidden write_run scenarios beyond Cranfield: cut at k, empty results, order, scores, ids."""

    def hits(prefix, scores):
        return [[f"{prefix}{i}", f"title {prefix}{i}", score] for i, score in enumerate(scores, start=1)]

    return [
        Scenario(
            name="cut-at-k",
            system="sys_k",
            results={"alpha": hits("A", [9, 8, 7, 6, 5, 4, 3, 2]), "beta": hits("B", [3, 2, 1])},
            queries=(("1", "alpha"), ("2", "beta")),
            k=3,
            description="k=3 and a search_fn that returns up to 8 results: write_run writes the first 3 of each query",
            overfull=True,
            features=("overfull-search",),
        ),
        Scenario(
            name="no-results",
            system="sys_empty",
            results={"first": hits("F", [1.0]), "middle": [], "last": hits("L", [2.0, 1.0])},
            queries=(("1", "first"), ("2", "middle"), ("3", "last")),
            k=10,
            description="a query with no results writes no line",
            features=("query-without-results",),
        ),
        Scenario(
            name="query-order",
            system="sys_order",
            results={"ten": hits("T", [0.5]), "two": hits("W", [0.25]), "one": hits("O", [1.0])},
            queries=(("10", "ten"), ("2", "two"), ("1", "one")),
            k=5,
            description="queries in the order given (10, 2, 1), not sorted",
        ),
        Scenario(
            name="scores",
            system="sys_scores",
            results={
                "q": [
                    ["s1", "t", 12345.678901234],
                    ["s2", "t", 0.123456789],
                    ["s3", "t", 0.123456789],
                    ["s4", "t", 3e-9],
                    ["s5", "t", -1.5],
                ]
            },
            queries=(("7", "q"),),
            k=10,
            description="scores with many decimals, ties, tiny and negative scores",
            features=("fine-scores",),
        ),
        Scenario(
            name="doc-ids",
            system="sys_ids",
            results={"q": [["MARCO_00012", "t", 2.0], ["d-1.2", "t", 1.0], ["Ä1", "t", 0.5]]},
            queries=(("3", "q"),),
            k=10,
            description="doc ids with letters, punctuation and non-ASCII (UTF-8)",
            features=("non-ascii-ids",),
        ),
        Scenario(
            name="k-1",
            system="sys_one",
            results={"a": hits("O", [2.0, 1.0]), "b": hits("P", [3.0])},
            queries=(("1", "a"), ("2", "b")),
            k=1,
            description="k=1: one line per query",
            features=("k-is-1",),
        ),
        Scenario(
            name="default-k",
            system="sys_default",
            results={"many": hits("M", [200.0 - i for i in range(105)])},
            queries=(("5", "many"),),
            k=DEFAULT_K,
            description="k left out (100) and a search_fn that returns 105 results",
            overfull=True,
            pass_k=False,
            features=("k-left-out", "overfull-search"),
        ),
        Scenario(
            name="empty-name",
            system="",
            results={"q": hits("E", [1.0])},
            queries=(("1", "q"),),
            k=10,
            description="an empty system name: ValueError",
            raises="ValueError",
            features=("invalid-argument",),
        ),
        Scenario(
            name="bad-k",
            system="sys_bad",
            results={"q": hits("K", [1.0])},
            queries=(("1", "q"),),
            k=0,
            description="k=0 is not a positive integer: ValueError",
            raises="ValueError",
            features=("invalid-argument",),
        ),
        Scenario(
            name="bad-name",
            system="my run",
            results={"q": hits("N", [1.0])},
            queries=(("1", "q"),),
            k=10,
            description="a system name with a space would add a column: ValueError",
            raises="ValueError",
            features=("invalid-argument",),
        ),
        Scenario(
            name="tab-in-name",
            system="my\trun",
            results={"q": hits("T", [1.0])},
            queries=(("1", "q"),),
            k=10,
            description="a system name with a tab (any whitespace) would add a column: ValueError",
            raises="ValueError",
            features=("invalid-argument",),
        ),
    ]


def cranfield_scenario(system: str, bundle: dict, k: int = 100) -> Scenario:
    """Lab 04's run of ``system``: hits as [doc_id, score] (the child adds titles from its table)."""
    texts = dict(bundle["queries"])
    results = {texts[query_id]: hits for query_id, hits in bundle["systems"][system]["results"].items()}
    return Scenario(
        name=f"cranfield-{system}",
        system=system,
        results=results,
        queries=tuple(tuple(q) for q in bundle["queries"]),
        k=k,
        description=f"Lab 04's {system} run on all 225 Cranfield queries, k={k}",
    )
