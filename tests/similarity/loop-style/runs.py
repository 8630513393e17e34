"""Lab 05: writing a system's results as a TREC run file (you implement ``write_run``).

A run file has one line per retrieved document, six columns separated by spaces::

    query_id Q0 doc_id rank score system_name

trec_eval and ``ir_measures`` split the columns on whitespace, ignore the rank column and
re-sort each query's documents by score, so the scores must be written with enough digits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def write_run(path, system_name: str, search_fn: Callable[[str, int], list], queries: Iterable, k: int = 100) -> None:
    """Write the top k results of ``search_fn`` for every query to the TREC run file ``path``.

    ``queries`` is an iterable of objects with ``.query_id`` and ``.text`` (ir_datasets'
    ``GenericQuery``). For each query, in the order given, call ``search_fn(query.text, k)``;
    it returns at most k ``(doc_id, title, score)`` tuples, best first. Write one line per
    result, in the order ``search_fn`` returned them, at most k lines per query::

        f"{query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}"

    where ``rank`` counts from 1 within the query and ``score`` has 8 decimals. The file is
    UTF-8 with ``\\n`` line ends and replaces any file at ``path``.

    Edge cases: a query with no results writes no line; if ``search_fn`` returns more than k
    results only the first k are written. ``ValueError`` if k is not a positive integer or
    ``system_name`` is empty or contains whitespace (it would add a column).

    Example (Part V: TF-IDF's top 2 for Cranfield's query 1, as search_tfidf returns them):

    >>> from types import SimpleNamespace
    >>> queries = [SimpleNamespace(query_id="1", text="what similarity laws must be obeyed ...")]
    >>> def search(text, k):
    ...     return [("13", "similarity laws for stressing heated wings .", 0.28530787686316306),
    ...             ("184", "scale models for thermo-aeroelastic research .", 0.2682569476847945)][:k]
    >>> write_run("lab04_tfidf.run", "tfidf", search, queries, k=2)
    >>> print(open("lab04_tfidf.run").read(), end="")
    1 Q0 13 1 0.28530788 tfidf
    1 Q0 184 2 0.26825695 tfidf
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError("k must be a positive integer")
    if not isinstance(system_name, str) or system_name == "":
        raise ValueError("system_name must not be empty")
    for character in system_name:
        if character.isspace():
            raise ValueError("system_name must not contain whitespace")
    out = open(path, "w", encoding="utf-8", newline="\n")
    try:
        for query in queries:
            rank = 0
            for doc_id, title, score in search_fn(query.text, k):
                rank += 1
                if rank > k:
                    break
                out.write("%s Q0 %s %d %.8f %s\n" % (query.query_id, doc_id, rank, score, system_name))
    finally:
        out.close()
