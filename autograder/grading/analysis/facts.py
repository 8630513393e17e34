"""The analysis's claims checked against the reference collection's data: the qrels, each
system's run (as ``ir_measures`` reads it back) and each measure's per-query values, all from
the lab's Cranfield bundle (public data; nothing hidden is involved).

A claim holds when every fact in it does: the query is one of the collection's; each value is
the measure's value to the notes' precision (4 decimals, truncated or rounded: within
``VALUE_TOLERANCE``); ``better`` names the system with the higher value (``tie`` when they are
equal); each document is in the collection and in at least one of the runs for the query (a
document neither system retrieves cannot explain their difference), with its grade (0 when not
judged) and its rank in each run (``null`` when that run does not retrieve it). A refused claim's
problems say what the claim says and what the data says. A claim naming the student's own run
for a system (``runs``) is checked against that run instead (``own_runs.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from . import own_runs
from .claims import TIE, Analysis, Claim, Names

#: The notes print 4 decimals, truncated: a value cut or rounded to 4 decimals is within this.
VALUE_TOLERANCE = 1e-4
#: Two systems' values closer than this are a tie (the same ranks of the same documents).
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Facts:
    """What the claims are checked against, from a reference bundle."""

    qrels: Mapping[str, Mapping[str, int]]  # query -> doc -> grade
    rankings: Mapping[str, Mapping[str, Sequence[str]]]  # system -> query -> doc ids, best first
    values: Mapping[str, Mapping[str, Mapping[str, float]]]  # system -> measure -> query -> value
    documents: frozenset[str]  # every doc id of the collection
    own: Mapping[str, str] = field(default_factory=dict)  # system -> the student's run file its facts come from

    @classmethod
    def from_bundle(cls, bundle: Mapping[str, Any]) -> Facts:
        """The facts of a lab's reference bundle (``cranfield.bundle()``)."""
        systems = bundle.get("systems", {})
        return cls(
            qrels=bundle.get("qrels", {}),
            rankings={name: system["rankings"] for name, system in systems.items()},
            values={name: system["values"] for name, system in systems.items()},
            documents=frozenset(bundle.get("titles", {})),
        )

    def names(self) -> Names:
        """The systems and measures a claim may name."""
        systems = tuple(self.values)
        measures = tuple(self.values[systems[0]]) if systems else ()
        return Names(systems=systems, measures=measures)

    def rank(self, system: str, query: str, doc: str) -> int | None:
        """``doc``'s rank in ``system``'s run for ``query`` (1 is first), ``None`` if not retrieved."""
        ranking = list(self.rankings[system].get(query, ()))
        return ranking.index(doc) + 1 if doc in ranking else None

    def better(self, measure: str, query: str) -> str:
        """The system with the higher value of ``measure`` on ``query``, or ``tie``."""
        values = {system: self.values[system][measure][query] for system in self.values}
        best = max(values.values())
        winners = [system for system, value in values.items() if best - value <= TIE_TOLERANCE]
        return winners[0] if len(winners) == 1 else TIE

    def run_name(self, system: str) -> str:
        """How feedback names ``system``'s run: Lab 04's, or the student's own file."""
        return f"your run {self.own[system]} ({system})" if system in self.own else f"{system}'s run"

    def with_own_runs(self, claim: Claim, runs: own_runs.RunSource, read: dict[str, own_runs.OwnRun]) -> Facts:
        """These facts with each system ``claim.runs`` names taken from the student's run file (its
        ranking of the claim's query, the claim's measure on it); ``read`` keeps the runs parsed so far."""
        rankings, values, own = dict(self.rankings), dict(self.values), dict(self.own)
        query = claim.query
        for system, name in claim.runs.items():
            if name not in read:
                read[name] = runs.run(name)
            run = read[name]
            rankings[system] = {query: run.ranking(query)}
            evaluated = runs.measure(claim.measure, {query: self.qrels[query]}, {query: run.scores.get(query, {})})
            values[system] = {claim.measure: {query: evaluated[query]}}
            own[system] = name
        return replace(self, rankings=rankings, values=values, own=own)


@dataclass(frozen=True)
class Verdict:
    """One claim checked: where it is, what it is about and what the data contradicts."""

    number: int  # the claim's place in the file, from 1
    line: int
    query: str
    measure: str
    problems: tuple[str, ...]  # empty when the claim holds

    @property
    def holds(self) -> bool:
        return not self.problems

    def title(self) -> str:
        return f"claim {self.number} (line {self.line}: query {self.query}, {self.measure})"


def check(analysis: Analysis, facts: Facts, runs: own_runs.RunSource | None = None) -> list[Verdict]:
    """Every claim of ``analysis`` checked against ``facts``, in the file's order; a claim naming
    the student's own runs against those (read from ``runs``; refused, saying why, without it)."""
    read: dict[str, own_runs.OwnRun] = {}
    return [
        Verdict(
            number=number,
            line=line,
            query=claim.query,
            measure=claim.measure,
            problems=tuple(_problems_with_runs(claim, facts, runs, read)),
        )
        for number, (claim, line) in enumerate(zip(analysis.claims, analysis.lines), start=1)
    ]


def _problems_with_runs(
    claim: Claim, facts: Facts, runs: own_runs.RunSource | None, read: dict[str, own_runs.OwnRun]
) -> list[str]:
    if not claim.runs or claim.query not in facts.qrels:
        return problems(claim, facts)
    if runs is None:
        return [
            f"the claim names your own run ({', '.join(claim.runs.values())}), which cannot be read here: "
            "remove the claim's runs: to check it against Lab 04's reference runs"
        ]
    try:
        return problems(claim, facts.with_own_runs(claim, runs, read))
    except own_runs.RunError as error:
        return [str(error)]


def _number(value: float) -> str:
    return f"{value:.4f}"


def problems(claim: Claim, facts: Facts) -> list[str]:
    """What the data says against ``claim`` (nothing when it holds)."""
    query, measure = claim.query, claim.measure
    if query not in facts.qrels:
        return [
            f"there is no query {query!r} in the collection's qrels: use a query id of the rankings, "
            f"as the notebook prints it (e.g. {next(iter(facts.qrels), '')!r})"
        ]
    found = []
    for system, claimed in claim.values.items():
        actual = facts.values[system][measure][query]
        if abs(claimed - actual) > VALUE_TOLERANCE + 1e-12:
            mine = f" in your run {facts.own[system]}" if system in facts.own else ""
            found.append(
                f"{system}'s {measure} on query {query}{mine} is {_number(actual)}; the claim says {claimed} "
                "(give it to 4 decimals, as the notebook prints it)"
            )
    actual_better = facts.better(measure, query)
    if claim.better != actual_better:
        said = "the systems tie" if actual_better == TIE else f"{actual_better} is better"
        found.append(f"on query {query} {said} in {measure}; the claim says better: {claim.better}")
    judgments = facts.qrels[query]
    for document in claim.documents:
        doc = document.doc
        if doc not in facts.documents:
            found.append(f"there is no document {doc!r} in the collection: copy the doc id from the rankings")
            continue
        ranks = {system: facts.rank(system, query, doc) for system in claim.values}
        if all(rank is None for rank in ranks.values()):
            found.append(
                f"document {doc} is in neither run for query {query}: a document no system retrieves cannot "
                "explain their difference; name documents of the rankings"
            )
            continue
        grade = judgments.get(doc, 0)
        if document.grade != grade:
            judged = f"grade {grade}" if doc in judgments else "grade 0 (it is not judged)"
            found.append(f"document {doc} has {judged} for query {query}; the claim says {document.grade}")
        for system, claimed_rank in document.ranks.items():
            if claimed_rank != ranks[system]:
                where = "is not retrieved" if ranks[system] is None else f"is at rank {ranks[system]}"
                said = "null (not retrieved)" if claimed_rank is None else f"rank {claimed_rank}"
                found.append(
                    f"document {doc} {where} in {facts.run_name(system)} for query {query}; the claim says {said}"
                )
    return found
