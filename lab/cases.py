"""The cases the checks are made of: the notes' examples, hidden edge cases, random cases.

A ``Case`` is one call of a student function with JSON-able inputs. Its expected value
comes from elsewhere: the notes (examples), the reference solution (edge cases, whose inputs are
in ``Place.edge_cases`` and values in ``Place.reference``, the hidden reference) or
``ir_measures`` computed live (random cases). Inputs may name
grader-side objects the child builds: ``{"$measure": name}`` (the grader's own measures for
``evaluate``), ``{"$search": scenario}``, ``{"$queries": scenario}``, ``{"$path": name}``, and the
contract's other types: ``{"$tuple": items}``, ``{"$readonly": mapping}`` (never numpy arrays: the
stubs promise lists or tuples, and ``if not ranking:`` is honest code for them).
"""

from __future__ import annotations

import functools
import importlib.util
import random
import sys
import types
from pathlib import Path

from autograder.labkit import place

# re-exported (``X as X``): the lab's cases are made of these
from autograder.labkit.case import RAISES as RAISES
from autograder.labkit.case import Case as Case
from autograder.labkit.case import raises as raises

# ------------------------------------------------------------------ the notes' examples


@functools.lru_cache(maxsize=1)
def public_cases():
    """The handout's table of public cases, ``assignment/tests/public_cases.py`` (trusted code)."""
    name = "lab05_public_cases"
    spec = importlib.util.spec_from_file_location(name, place.of(__name__).public_cases)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot load the public cases {place.of(__name__).public_cases}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def example_cases(public=None) -> list[tuple[Case, object]]:
    """The public cases as ``(Case, the notes' value)`` pairs."""
    public = public or public_cases()
    converted = []
    for case in public.CASES:
        args = [_example_arg(arg, public) for arg in case.args]
        if case.function == "write_run":
            args[0] = {"$path": "demo.run"}
        converted.append(
            (
                Case(
                    id=f"notes-{case.id}",
                    function=case.function,
                    description=case.shown,
                    args=tuple(args),
                    kwargs=dict(case.kwargs),
                    public=True,
                    hint=case.hint,
                ),
                case.expected,
            )
        )
    return converted


def _example_arg(value, module):
    if value is module.ranking_length:
        return {"$measure": "ranking_length"}
    if value is module.search_two:
        return {"$search": EXAMPLE_SCENARIO}
    if value is module.QUERIES:
        return {"$queries": EXAMPLE_SCENARIO}
    if isinstance(value, (tuple, types.MappingProxyType)):  # the contract's other types, built by the child
        return {"$tuple": list(value)} if isinstance(value, tuple) else {"$readonly": dict(value)}
    return value


EXAMPLE_SCENARIO = "notes-two-queries"


def example_search_data(public=None) -> tuple[dict, list]:
    """The results and queries of the public write_run example, for the child's replay."""
    public = public or public_cases()
    queries = [[query.query_id, query.text] for query in public.QUERIES]
    results = {text: [list(hit) for hit in public.search_two(text, 1000)] for _, text in queries}
    return results, queries


# ------------------------------------------------------------------ hidden edge cases


@functools.lru_cache(maxsize=4)
def edge_cases(path: str | None = None) -> tuple[Case, ...]:
    """The hidden edge cases: ``Place.edge_cases`` (JSON, one case a line: ``id``, ``function``,
    ``description``, ``args``, optional ``kwargs``), kept with the hidden reference and never
    shipped where students can read (the PrairieLearn image, the handout). ``EDGE_CASES`` is
    this tuple as a list."""
    import json

    source = Path(path or place.of(__name__).edge_cases)
    try:
        entries = json.loads(source.read_text(encoding="utf-8"))
    except OSError as error:
        raise FileNotFoundError(
            f"the hidden edge cases {source} cannot be read ({error.strerror}): they travel with the hidden reference "
            "(lab/data/ in the lab's folder, $AUTOGRADER_HIDDEN where a platform puts them)"
        ) from None
    except ValueError as error:
        raise ValueError(f"{source} is not valid JSON ({error}): restore it from the repository") from None
    made: list[Case] = []
    for number, entry in enumerate(entries if isinstance(entries, list) else [None]):
        if not _is_case(entry, {case.id for case in made}):
            raise ValueError(
                f"{source}: case {number + 1} ({str(entry)[:80]}) needs a unique id, a function, a "
                "description, args (a list) and, if any, kwargs (a mapping)"
            )
        made.append(
            Case(
                id=entry["id"],
                function=entry["function"],
                description=entry["description"],
                args=tuple(entry["args"]),
                kwargs=entry.get("kwargs", {}),
            )
        )
    return tuple(made)


def _is_case(entry, taken: set) -> bool:
    kinds = {"id": str, "function": str, "description": str, "args": list, "kwargs": dict}
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(key, {}), kind) for key, kind in kinds.items())
        and "args" in entry
        and entry.get("id") not in taken
    )


def __getattr__(name: str):
    if name == "EDGE_CASES":  # read when first used: the file may come from a platform's hidden folder
        return list(edge_cases())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------ random cases
#
# Each generator makes ``count`` cases of one function: inputs only (each function's record says
# how their answers are computed: by ir_measures, or the grader's own computation). They are
# public: nothing in them is secret (random inputs, values anyone computes with ir_measures or
# the contract), so feedback shows the whole call and both values.

POOL = [f"d{i:02d}" for i in range(40)]
SIZES = [0, 1, 3, 5, 8, 12, 20, 25, 35]  # rankings shorter and longer than the usual cut-offs


# The random ranking cases cycle through strata of ranking sizes, so that each grading's cases
# reach every concept whatever its seed: relevant documents only below rank 10 (DEEP), a ranking
# shorter than k with more relevant documents than it holds (SHORT), no relevant document at all
# (NONE: the measure's zero guard), graded judgments at rel >= 2 with more documents of positive
# grade than k (GRADED: thresholds, gains and the ideal ranking's cut), then any size.
# Every second DEEP case is a long ranking (LONG documents) whose relevant documents all lie
# below rank 100, where a measure must still look; half the NONE cases judge every ranked document.
STRATA: tuple = ((12, 20, 25, 35), (1, 3, 5, 8), (), (5, 8, 12, 20), ())
DEEP, SHORT, NONE, GRADED = 0, 1, 2, 3
LONG = 150
LONG_POOL = [f"d{i:03d}" for i in range(LONG)]


def _random_judgments(rng: random.Random, pool: list = POOL[:20]) -> dict:
    judged = rng.sample(pool, rng.randint(0, min(12, len(pool))))
    return {doc: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for doc in judged}


def _judgments_of(rng: random.Random, ranking: list) -> dict:
    """Judgments of some of ``ranking``'s documents (every grade, from -1 to 4, so that thresholds
    and gains matter) and of a few it does not hold."""
    judged = [doc for doc in ranking if rng.random() < 0.6]
    unretrieved = rng.randint(0, 3) + (rng.randint(1, 8) if len(ranking) < 10 else 0)  # short: more than it holds
    judged += rng.sample([doc for doc in POOL if doc not in ranking], unretrieved)
    return {doc: rng.choice([-1, 0, 1, 1, 2, 3, 4]) for doc in judged}


def _random_ranking(rng: random.Random) -> list:
    return rng.sample(POOL, rng.choice(SIZES))


def _deep(rng: random.Random, ranking: list) -> dict:
    """Judgments whose relevant documents all lie deep in ``ranking`` (below rank 10; below rank 100
    in a ranking longer than 100), some of the query's relevant documents not retrieved at all:
    where cut-offs and first ranks matter."""
    top = 100 if len(ranking) > 100 else 10
    judgments = {
        doc: rng.choice([-1, 0, 0]) for doc in ranking[: min(top, len(ranking))] if top == 10 or rng.random() < 0.5
    }
    deep = ranking[top:]
    for doc in rng.sample(deep, min(len(deep), rng.randint(1, 4))):
        judgments[doc] = rng.choice([1, 2, 3, 4])
    for doc in rng.sample([d for d in POOL if d not in ranking], rng.randint(0, 2)):
        judgments[doc] = rng.choice([1, 2, 3])
    return judgments


def _graded(rng: random.Random, ranking: list, top: int, rel: int) -> dict:
    """Judgments of every grade where thresholds, gains and cut-offs matter: the top ``top`` documents
    hold one of a positive grade below ``rel`` (relevant at rel=1, not at ``rel``), and the query
    has more documents of positive grade than ``top``, some never retrieved (so the ideal ranking
    cut at k leaves some out)."""
    judgments = {doc: rng.choice([-1, 0, 1, 2, 3, 4]) for doc in ranking if rng.random() < 0.7}
    judgments[rng.choice(ranking[:top])] = rng.randint(1, rel - 1)
    positive = sum(grade >= 1 for grade in judgments.values())
    unretrieved = max(1, top + 1 - positive) + rng.randint(0, 2)
    for doc in rng.sample([d for d in POOL if d not in ranking], unretrieved):
        judgments[doc] = rng.choice([1, 2, 3, 4])
    return judgments


def _as_given(rng: random.Random, ranking: list, judgments: dict) -> tuple:
    """The arguments as the contract allows them: now and then a tuple and a read-only mapping."""
    if rng.random() < 0.15:
        return {"$tuple": ranking}, {"$readonly": judgments}
    return ranking, judgments


def _broken(rng: random.Random, kwargs: dict, cutoff: bool, gain: bool) -> None:
    """Now and then one tuning parameter the contract refuses (the call must raise ValueError)."""
    if rng.random() >= 0.08:
        return
    choices: list[tuple[str, object]] = [("k", 0), ("k", -2), ("k", 2.5)] if cutoff else []
    choices += [("gain", "log")] if gain else [("rel", 0)]
    key, value = rng.choice(choices)
    kwargs[key] = value


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def ranking_cases(function: str, cutoff: bool = False, gain: bool = False):
    """Random (ranking, judgments) cases of a metric of one query; ``cutoff``: it takes k; ``gain``:
    it takes gain (and then no rel; otherwise half of them, and every GRADED one, get rel=2 or 3)."""

    def made(rng: random.Random, count: int) -> list[Case]:
        found = []
        for number in range(count):
            stratum = number % len(STRATA)  # every concept reached in every grading, whatever the seed
            ranking = rng.sample(POOL, rng.choice(STRATA[stratum] or SIZES))
            if stratum == DEEP and number // len(STRATA) % 2 == 1:
                ranking = rng.sample(LONG_POOL, LONG)
            draw = rng.random()
            kwargs: dict[str, object] = {}
            cutoffs = {SHORT: [10, 20, 30], GRADED: [1, 2, 3, 5, 10]}.get(stratum, [1, 2, 3, 5, 10, 20, 30])
            top = rng.choice(cutoffs if cutoff else [1, 2, 3])  # k, or the top a GRADED case fills without one
            if cutoff:
                kwargs["k"] = top
            rel = 2
            if gain:
                kwargs["gain"] = rng.choice(["linear", "exp"])
            elif stratum == GRADED or rng.random() < 0.5:
                rel = kwargs["rel"] = rng.choice([2, 3])
            if stratum == GRADED:  # a threshold above 1 and a cut-off below the query's relevant documents
                judgments = _graded(rng, ranking, top, rel)
            elif stratum == NONE:
                judged = ranking if number // len(STRATA) % 2 else rng.sample(POOL, rng.randint(0, 6))
                judgments = {doc: rng.choice([-1, 0]) for doc in judged}
            elif stratum == DEEP or (len(ranking) > 10 and draw < 0.3):
                judgments = _deep(rng, ranking)
            elif stratum == SHORT or draw < 0.7:
                judgments = _judgments_of(rng, ranking)
            else:
                judgments = _random_judgments(rng)
            _broken(rng, kwargs, cutoff, gain)
            # a mapping's order says nothing: judgments listed in another order than the ranking's
            judgments = dict(rng.sample(list(judgments.items()), len(judgments)))
            shown = ", ".join(f"{key}={value}" for key, value in kwargs.items())
            found.append(
                Case(
                    id=f"random-{function}-{number:03d}",
                    function=function,
                    description=f"random ranking of {_count(len(ranking), 'doc')}, "
                    f"{_count(len(judgments), 'judgment')}{', ' + shown if shown else ''} (vs ir_measures)",
                    args=_as_given(rng, ranking, judgments),
                    kwargs=kwargs,
                    public=True,
                )
            )
        return found

    return made


def cell_cases(function: str, empty_invalid: bool = False):
    """Random (retrieved, relevant, collection_size) cases: ids now and then repeated (in retrieved, and in
    relevant every eighth case), a collection
    from exactly the union to 40 more (every eighth a collection of one document), and now and then
    too small (or empty, ``empty_invalid``: the call must raise ValueError)."""

    def made(rng: random.Random, count: int) -> list[Case]:
        found = []
        pool = POOL[:15]
        for number in range(count):
            retrieved = rng.sample(pool, rng.randint(0, 8))
            relevant = rng.sample(pool, rng.randint(0, 8))
            if retrieved and rng.random() < 0.15:
                retrieved.append(rng.choice(retrieved))  # a doc id listed twice counts once
            if relevant and number % 8 == 3:  # relevant too (no draw: the other cases stay as they were)
                relevant.append(relevant[-1])
            if number % 8 == 5:  # a collection of one document, the smallest the contract allows
                one = [rng.choice(LONG_POOL)]  # from 150 ids: the same tiny input seldom recurs
                retrieved, relevant = rng.choice([(one, []), ([], one), (one, list(one))])
            union = len(set(retrieved) | set(relevant))
            size = union + rng.choice([0, 1, rng.randint(2, 9), rng.randint(10, 40)]) if number % 8 != 5 else 1
            draw = rng.random()
            if draw < 0.06 and union:
                size = union - 1
            elif draw < 0.1 and empty_invalid:
                retrieved, relevant, size = [], [], 0
            found.append(
                Case(
                    id=f"random-{function}-{number:03d}",
                    function=function,
                    description=f"random: {len(retrieved)} retrieved, {len(relevant)} relevant, {size} documents",
                    args=(retrieved, relevant, size),
                    public=True,
                )
            )
        return found

    return made


def run_cases(function: str, measures: tuple):
    """Random (run, qrels, measure) cases: a run and qrels of a few queries each, and one of the
    grader's own ``measures`` (named, built where the call runs)."""

    def made(rng: random.Random, count: int) -> list[Case]:
        found = []
        for number in range(count):
            query_ids = [str(q) for q in rng.sample(range(1, 30), rng.randint(1, 6))]
            qrels = {q: _random_judgments(rng) for q in query_ids}
            run = {q: _random_ranking(rng) for q in query_ids + [str(rng.randint(30, 40))] if rng.random() < 0.75}
            measure = rng.choice(list(measures))
            readonly = number % 3 == 2  # the contract's mappings include read-only ones (MappingProxyType)
            found.append(
                Case(
                    id=f"random-{function}-{number:03d}",
                    function=function,
                    description=f"random run of {len(run)} and qrels of {len(qrels)} queries"
                    f"{', the run read-only' if readonly else ''}, measure {measure}",
                    args=({"$readonly": run} if readonly else run, qrels, {"$measure": measure}),
                    public=True,
                )
            )
        return found

    return made


def score_cases(function: str):
    """Random (scores_a, scores_b, n=) cases: two systems' scores on some of 24 queries (ids "1" to
    "24", so string order matters), mostly sharing some of them (one case in nine none), a few
    queries scored by one system only, tied scores often (every third case ties its largest
    difference between a one-digit and a two-digit id, and every third leaves n to its default); now
    and then an n the contract refuses. Scores are multiples of 1/1024: differences are exact floats,
    so a tie is a tie in exact arithmetic too."""

    def score(rng: random.Random) -> float:
        return rng.choice([0.0, 0.125, 0.25, 0.5, 1.0]) if rng.random() < 0.6 else rng.randint(0, 1024) / 1024

    def made(rng: random.Random, count: int) -> list[Case]:
        found = []
        ids = [str(q) for q in range(1, 25)]
        for number in range(count):
            common = rng.sample(ids, rng.choice([0, 1, 2, 3, 4, 6, 8, 10, 12]))
            only = rng.sample([q for q in ids if q not in common], rng.randint(0, 6))
            split = rng.randint(0, len(only))
            a = {q: score(rng) for q in rng.sample(common + only[:split], len(common) + split)}
            b = {q: score(rng) for q in rng.sample(common + only[split:], len(common) + len(only) - split)}
            n: object = rng.randint(1, 5) if rng.random() >= 0.08 else rng.choice([0, -1, 2.5])
            if number % 3 == 0:  # the largest difference tied between ids whose string and number orders differ
                top = max([abs(a[q] - b[q]) for q in set(a) & set(b)] + [0.0])
                gap = top or rng.choice([0.25, 0.5, 1.0])  # scores stay in [0, 1]
                base = rng.choice([0.0, 1.0 - gap])
                for q in (str(rng.randint(2, 9)), str(rng.randint(10, 24))):
                    a[q], b[q] = base, base + gap
            kwargs = {"n": n} if number % 3 != 1 else {}  # every third case leaves n to its default
            shown = f"n={n}" if kwargs else "n left out"
            found.append(
                Case(
                    id=f"random-{function}-{number:03d}",
                    function=function,
                    description=f"random scores of {len(a)} and {len(b)} queries, {shown}",
                    args=(a, b),
                    kwargs=kwargs,
                    public=True,
                )
            )
        return found

    return made
