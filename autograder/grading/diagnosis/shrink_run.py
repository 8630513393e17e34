"""The smallest scenario on which the run writer's file is still wrong (in the parent, public inputs only).

A scenario is one call of the run writer (``labkit/scenario.py``): the queries, k, the system name
and what the replayed search function returns for each query. From a public scenario whose file
is wrong (the notes' example, a Cranfield run), ``SCENARIOS`` makes smaller ones, each still an
input the contract allows: runs of queries dropped (halves first, down to single queries, as
delta debugging does), k lowered (to 1, halved, by one; search_fn still returns at most k), runs of
each query's results dropped, the titles emptied, and, last,
the query ids, the documents' ids and the query texts renamed to the shortest names that keep their
order. ``shrink.steps`` drives it with its rules: a smaller scenario is kept when the file is still
wrong *the same way* (``Reference.failure``: its lines, their layout, search_fn's calls, no file,
or the same exception).

The right file is the grader's: the scenario's own ``expected_text`` (the reference writer's rows,
``trec.text``), computed here, never in a child. The student's file is what the child returns,
read as the run writer's checks read it (``runfile_checks.read``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from autograder.grading import judge, runfile_checks, runfile_problems
from autograder.grading.diagnosis import shrink
from autograder.labkit.case import RAISES
from autograder.sandbox.channel import Outcome, OutcomeStatus

if TYPE_CHECKING:  # a scenario as the engine reads it, whatever lab made it
    from autograder.labkit.scenario import Scenario

NAME = "smallest"  # the shrunk scenarios' name (and the run file's)
SHOWN_LINES = 3  # lines of each file a counterexample shows, from the first that differs
#: How a file is wrong, as ``Reference.failure`` says it (besides "raised X").
LINES, LAYOUT, APPENDED, SEARCH_CALLS, NO_FILE = "wrong lines", "layout", "appended", "search_fn's calls", "no file"
NOT_REFUSED = "not refused"  # arguments the contract refuses, and the writer did not raise
REFUSAL = "ValueError"  # what the contract's writer raises for a k or a system name it refuses
#: Arguments the contract refuses (a probe of the run writer: the call must raise ``REFUSAL``).
REFUSED_ARGUMENTS: tuple[dict[str, Any], ...] = ({"k": 0}, {"k": -1}, {"k": 1.5}, {"system": ""}, {"system": "a b"})
#: The run writer's probes: the refused arguments, then the smallest k the contract takes.
WRITER_PROBES = (*REFUSED_ARGUMENTS, {"k": 1})


def size(scenario: Scenario) -> int:
    """How big a scenario is: its queries and the results search_fn holds for them (it returns the
    first k of a query's)."""
    return sum(1 + len(scenario.results.get(text, [])) for _, text in scenario.queries)


def start_of(scenario: Scenario, titles: dict[str, Any]) -> Scenario:
    """A public scenario as a search starts from it: only its queries' results, each a
    ``[doc_id, title, score]`` (a Cranfield hit's title from ``titles``)."""
    results = {
        text: [[hit[0], hit[1] if len(hit) > 2 else titles.get(hit[0], ""), hit[-1]] for hit in scenario.results[text]]
        for _, text in scenario.queries
    }
    return replace(scenario, results=results, name=NAME, overfull=False)


class Reference:
    """The right files of one run writer's scenarios, and how a file the writer left is wrong."""

    def __init__(self, writer: str):
        self.writer = writer
        self.known: dict[str, Any] = {}

    def expected(self, scenario: Scenario) -> Any:
        """The right file's lines, each with its line end (the grader's reference writer), or
        ``{RAISES: REFUSAL}`` for arguments the contract refuses."""
        key = _key(scenario)
        if key not in self.known:
            if not well_formed(scenario):
                raise ValueError(f"not a scenario the contract describes: {_key(scenario)[:200]}")
            self.known[key] = {RAISES: REFUSAL} if not valid(scenario) else lines(scenario.expected_text())
        return self.known[key]

    def failure(
        self, scenario: Scenario, outcome: Outcome | None, run: runfile_checks.RunFile | None = None
    ) -> str | None:
        """How the file the writer left on ``scenario`` is wrong (``LINES``, ``LAYOUT``, ``APPENDED``,
        ``SEARCH_CALLS``, ``NO_FILE``, or "raised X"), or None when it is right, or when the call
        neither returned nor raised (a crash or a timeout shows no mistake to shrink). ``run``: the
        file as read already against this right file (``runfile_checks.read_scenario``), not read again."""
        if outcome is None or not judge.answered(outcome):
            return None
        expected = self.expected(scenario)
        if judge.wants_error(expected) and outcome.status == OutcomeStatus.ERROR:
            return (
                None
                if expected[RAISES] in (outcome.error or {}).get("mro", ())
                else f"raised {(outcome.error or {}).get('type', '?')}"
            )
        if judge.wants_error(expected):
            return NOT_REFUSED
        if outcome.status == OutcomeStatus.ERROR:
            return f"raised {(outcome.error or {}).get('type', '?')}"
        if run is None:
            value = dict(outcome.value) if isinstance(outcome.value, dict) else outcome.value
            canonical = "".join(expected)
            run = runfile_checks.read(replace(outcome, value=value), canonical, None, True, self.writer)
        if run.problem is not None:
            return NO_FILE
        if not run.canonical:
            if not (run.same if run.same is not None else runfile_checks.equivalent(run.table or [], scenario)):
                return LINES
            if run.layout:
                return LAYOUT
            if run.appended:
                return APPENDED
        if any(runfile_problems.in_search(scenario, run.searches).values()):
            return SEARCH_CALLS
        return None


def valid(scenario: Scenario) -> bool:
    """Are its arguments ones the contract takes (k a positive integer, a system name without
    whitespace), not ones it refuses?"""
    return (
        type(scenario.k) is int and scenario.k >= 1 and bool(scenario.system) and not re.search(r"\s", scenario.system)
    )


def well_formed(scenario: Scenario) -> bool:
    """Is every query's result a ``(doc_id, title, score)`` (search_fn returns the first k)?"""
    return all(len(hit) == 3 for _, text in scenario.queries for hit in scenario.results.get(text, []))


def probes(start: Scenario) -> list[Scenario]:
    """``start`` with the arguments of ``WRITER_PROBES`` (those the contract refuses, then k=1): the run
    writer's probes."""
    return [replace(start, name=f"probe-{n}", **changed) for n, changed in enumerate(WRITER_PROBES, 1)]


def lines(text: str) -> list[str]:
    """A file's lines, each with its line end ("\\r\\n" kept; the last without one when it has none)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def written(outcome: Outcome) -> list[str] | None:
    """The lines of the file the child returned (None when there is none)."""
    value = outcome.value if isinstance(outcome.value, dict) else {}
    text = value.get("text")
    return lines(text) if isinstance(text, str) and not value.get("missing") else None


def shown(expected: list[str], actual: list[str] | None) -> tuple[list[str], list[str] | None]:
    """Both files' lines as a counterexample shows them: all of them when both are short, else
    ``SHOWN_LINES`` of each from the first line that differs."""
    if actual is None or (len(expected) <= SHOWN_LINES and len(actual) <= SHOWN_LINES):
        return expected[:SHOWN_LINES], actual
    first = next((n for n, (e, a) in enumerate(zip(expected, actual)) if e != a), min(len(expected), len(actual)))
    first = max(0, min(first, max(len(expected), len(actual)) - SHOWN_LINES))
    return expected[first : first + SHOWN_LINES], actual[first : first + SHOWN_LINES]


def call_text(scenario: Scenario, writer: str) -> str:
    """The call, and what its arguments hold, as a counterexample shows it."""
    queries = "iter(queries)" if scenario.once else "queries"
    k = f", k={scenario.k}" if scenario.pass_k else ""
    given = ", ".join(f"GenericQuery({query_id!r}, {text!r})" for query_id, text in scenario.queries)
    shown_lines = [
        f"{writer}(path, {scenario.system!r}, search_fn, {queries}{k})",
        f"# queries: [{given}]",
    ]
    for _, text in scenario.queries:
        held = scenario.results.get(text, [])
        hits = ", ".join(repr(tuple(hit)) for hit in held)
        first = f"the first {scenario.k} of " if len(held) > scenario.k else ""
        shown_lines.append(f"# search_fn({text!r}, k) returns {first}[{hits}]")
    return "\n".join(shown_lines)


def _key(scenario: Scenario) -> str:
    return json.dumps(
        [scenario.system, scenario.k, scenario.pass_k, scenario.once, scenario.queries, _held(scenario)],
        sort_keys=True,
        default=repr,
    )


def _held(scenario: Scenario) -> dict[str, Any]:
    """search_fn's results for the scenario's queries (the others are never asked)."""
    return {text: scenario.results.get(text, []) for _, text in scenario.queries}


def _clean(scenario: Scenario) -> Scenario:
    return replace(scenario, description="the smallest failing scenario found")


# ---------------------------------------------------------------- the candidates, smallest first


def _candidates(scenario: Scenario) -> Iterator[Scenario]:
    """Every smaller scenario one step from ``scenario``, in a fixed order: queries dropped, k
    lowered, results dropped, titles emptied, ids and texts renamed."""
    queries = list(scenario.queries)
    for kept in _dropped(queries):
        yield _with(scenario, queries=tuple(kept))
    lowered = (1, scenario.k // 2, scenario.k - 1) if type(scenario.k) is int else ()
    for lower in dict.fromkeys(v for v in lowered if 1 <= v < scenario.k):
        yield _with(scenario, k=lower)
    held = _held(scenario)
    for text, hits in held.items():
        for kept in _dropped(hits):
            yield _with(scenario, results={**held, text: kept})
    if any(hit[1] for hits in _held(scenario).values() for hit in hits):
        yield _with(
            scenario, results={text: [[h[0], "", h[-1]] for h in hits] for text, hits in _held(scenario).items()}
        )
    renamed = _renamed(scenario)
    if renamed is not None:
        yield renamed


def _dropped(items: list[Any]) -> Iterator[list[Any]]:
    """``items`` with runs of them dropped: all, then halves, quarters, down to single items."""
    chunk = len(items)
    while chunk >= 1:
        for begin in range(0, len(items), chunk):
            yield items[:begin] + items[begin + chunk :]
        chunk //= 2


def _with(scenario: Scenario, **changed: Any) -> Scenario:
    """``scenario`` changed, holding the results of its queries only."""
    made = replace(scenario, **changed)
    return replace(made, results=_held(made))


def _names(ids: list[str]) -> dict[str, str]:
    """The shortest names that keep ``ids``' order ("1", "2"... where every id is a number and
    there are at most 9, else "a", "b"...); empty when there are more than 26."""
    ordered = sorted(set(ids))
    if len(ordered) > 26:
        return {}
    numeric = all(name.isdigit() for name in ordered) and len(ordered) <= 9
    return {old: str(n + 1) if numeric else chr(ord("a") + n) for n, old in enumerate(ordered)}


def _renamed(scenario: Scenario) -> Scenario | None:
    """The query ids, the documents' ids and the query texts renamed (``_names``), or None when that
    changes nothing or there are too many of one."""
    held = _held(scenario)
    queries, docs = _names([q for q, _ in scenario.queries]), _names([h[0] for hits in held.values() for h in hits])
    texts = _names([text for _, text in scenario.queries])
    if not queries or not texts or (held and any(held.values()) and not docs):
        return None
    renamed = replace(
        scenario,
        queries=tuple((queries[q], texts[text]) for q, text in scenario.queries),
        results={texts[text]: [[docs[h[0]], *h[1:]] for h in hits] for text, hits in held.items()},
    )
    return None if _key(renamed) == _key(scenario) else renamed


#: The run writer's scenarios, for ``shrink.steps``.
SCENARIOS = shrink.Space(candidates=_candidates, key=_key, clean=_clean)
