"""The calls of ``write_run`` the checks are made of.

A *scenario* is one call: a system name, a replayed search function (its results per query
text), the queries in order, and k. The child replays the search function and returns the file
``write_run`` wrote; the grader checks it as trec_eval reads it (``grading.runfile_checks``). The
hidden scenarios' inputs are data kept with the hidden reference (``Place.scenarios``), never in
this code, which PrairieLearn's public image holds.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from autograder.labkit import place, trec

from . import cases

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
    once: bool = False  # the queries are passed as a one-pass iterator (the contract allows any iterable)

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
        k=1, k left out, the queries as a one-pass iterator)."""
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
        if self.once:
            found.add("queries-one-pass")
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


#: What each entry of ``Place.scenarios`` may hold, and its type (the others are required).
_FIELDS = {"name": str, "system": str, "description": str, "queries": list, "k": int, "results": dict}
_OPTIONAL = {"overfull": bool, "raises": str, "pass_k": bool, "features": list}


def small_scenarios(path: str | None = None) -> list[Scenario]:
    """The hidden write_run scenarios beyond Cranfield (cut at k, empty results, order, scores, ids,
    refused arguments): ``Place.scenarios``, a JSON list of scenarios (``_FIELDS``, ``_OPTIONAL``),
    kept with the hidden reference and never shipped where students can read (the PrairieLearn
    image, the handout)."""
    return list(_read_scenarios(str(path or place.of(__name__).scenarios)))


@functools.lru_cache(maxsize=4)
def _read_scenarios(path: str) -> tuple[Scenario, ...]:
    source = Path(path)
    try:
        entries = json.loads(source.read_text(encoding="utf-8"))
    except OSError as error:
        raise FileNotFoundError(
            f"the hidden write_run scenarios {source} cannot be read ({error.strerror}): they travel with the hidden "
            "reference (lab/data/ in the lab's folder, $AUTOGRADER_HIDDEN where a platform puts them)"
        ) from None
    except ValueError as error:
        raise ValueError(f"{source} is not valid JSON ({error}): restore it from the repository") from None
    made: list[Scenario] = []
    for number, entry in enumerate(entries if isinstance(entries, list) else [None]):
        if not _is_scenario(entry, {scenario.name for scenario in made}):
            raise ValueError(
                f"{source}: scenario {number + 1} ({str(entry)[:80]}) needs a unique name, a system, a description, "
                "queries (a list of [query_id, text]), k (an integer) and results (text -> list of hits), and "
                "only overfull, raises, pass_k and features besides"
            )
        made.append(
            Scenario(
                name=entry["name"],
                system=entry["system"],
                results=entry["results"],
                queries=tuple(tuple(query) for query in entry["queries"]),
                k=entry["k"],
                description=entry["description"],
                overfull=entry.get("overfull", False),
                raises=entry.get("raises", ""),
                pass_k=entry.get("pass_k", True),
                features=tuple(entry.get("features", ())),
            )
        )
    return tuple(made)


def _is_scenario(entry, taken: set) -> bool:
    kinds = {**_FIELDS, **_OPTIONAL}
    return (
        isinstance(entry, dict)
        and all(key in entry for key in _FIELDS)
        and all(key in kinds and isinstance(value, kinds[key]) for key, value in entry.items())
        and all(isinstance(query, list) and len(query) == 2 for query in entry["queries"])
        and all(text in entry["results"] for _, text in entry["queries"])
        and entry["name"] not in taken
    )


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
        description=f"Lab 04's {system} run on all 225 Cranfield queries as a one-pass iterator, k={k}",
        once=True,  # the public check of the contract's "any iterable": a writer must read the queries once
    )
