"""The run writer's queries as a one-pass iterator (the contract: ``queries`` is any iterable): Lab 04's
Cranfield runs, a public check, pass them as a generator, so a writer that reads them twice loses points
there and an honest one keeps every point."""

from __future__ import annotations

import pytest

from autograder.lab import spec
from autograder.sandbox.child import harness
from tests.support import subs, truth


def test_the_child_builds_a_one_pass_iterator_of_queries():
    """Does the ``$queries-once`` tag give the queries once, in order, and nothing on a second pass?"""
    queries = harness.resolve({"$queries-once": [["1", "alpha"], ["2", "beta"]]}, {})
    assert [(query.query_id, query.text) for query in queries] == [("1", "alpha"), ("2", "beta")]
    assert list(queries) == []


def _writer(body: str) -> str:
    return f"""
        def write_run(path, system_name, search_fn, queries, k=100):
            if isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise ValueError(f"k must be a positive integer, got {{k!r}}")
            if not system_name or any(c.isspace() for c in system_name):
                raise ValueError("system_name must be a non-empty word")
{body}
        """


_WRITE = '                    out.write(f"{query.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\\n")'

WRITERS = [
    # (id, the writer's body, does it read the queries once?)
    (
        "loop",
        '            with open(path, "w", encoding="utf-8") as out:\n'
        "                for query in queries:\n"
        "                    for rank, (doc_id, _t, score) in enumerate(list(search_fn(query.text, k))[:k], 1):\n"
        f"    {_WRITE}",
        True,
    ),
    (
        "list-first",
        "            queries = list(queries)\n"
        '            with open(path, "w", encoding="utf-8") as out:\n'
        "                for query in queries:\n"
        "                    for rank, (doc_id, _t, score) in enumerate(list(search_fn(query.text, k))[:k], 1):\n"
        f"    {_WRITE}",
        True,
    ),
    (
        "lines-joined",
        "            lines = [f'{q.query_id} Q0 {d} {r} {s:.8f} {system_name}\\n' for q in queries\n"
        "                     for r, (d, _t, s) in enumerate(list(search_fn(q.text, k))[:k], 1)]\n"
        '            with open(path, "w", encoding="utf-8") as out:\n'
        '                out.write("".join(lines))',
        True,
    ),
    (
        "counts-queries-first",
        "            total = len(list(queries))\n"
        '            with open(path, "w", encoding="utf-8") as out:\n'
        "                for query in queries:\n"
        "                    for rank, (doc_id, _t, score) in enumerate(list(search_fn(query.text, k))[:k], 1):\n"
        f"    {_WRITE}",
        False,
    ),
    (
        "searches-then-writes",
        "            found = {q.query_id: list(search_fn(q.text, k))[:k] for q in queries}\n"
        '            with open(path, "w", encoding="utf-8") as out:\n'
        "                for query in queries:\n"
        "                    for rank, (doc_id, _t, score) in enumerate(found[query.query_id], 1):\n"
        f"    {_WRITE}",
        False,
    ),
    (
        "indexes-queries",
        '            with open(path, "w", encoding="utf-8") as out:\n'
        "                for i in range(len(queries)):\n"
        "                    query = queries[i]\n"
        "                    for rank, (doc_id, _t, score) in enumerate(list(search_fn(query.text, k))[:k], 1):\n"
        f"    {_WRITE}",
        False,
    ),
]


@pytest.fixture(scope="module")
def graded(cranfield, tmp_path_factory):
    return truth.Grader(cranfield, tmp_path_factory.mktemp("one-pass"))


@pytest.mark.cranfield
@pytest.mark.parametrize("body, once", [row[1:] for row in WRITERS], ids=[row[0] for row in WRITERS])
def test_a_writer_that_reads_the_queries_twice_loses_the_cranfield_runs(graded, body, once):
    """Does a writer that reads the queries once keep every point, and one that reads them twice (or indexes
    them) lose points on Lab 04's runs, which pass the queries as a one-pass iterator?"""
    functions = truth.load(subs.with_function(spec.FUNCTIONS["write_run"], _writer(body)), "queries_runs")
    checks, contradicted = graded.grade(graded.answers(functions, {"write_run"}))
    lost = {check.name for check in checks if check.function == "write_run" and not check.full}
    assert contradicted == []
    if once:
        assert lost == set()
    else:
        assert "write_run: Cranfield runs vs the notes' table" in lost, lost


@pytest.mark.cranfield
def test_the_solution_reads_the_queries_once(graded):
    """Does the reference writer keep every point with the queries as a one-pass iterator?"""
    checks, _ = graded.grade(graded.right)
    assert [check.name for check in checks if check.function == "write_run" and not check.full] == []
