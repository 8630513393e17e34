"""Lab 05 run writer: the whole run built in memory and written at once with pathlib."""

from pathlib import Path


def _line(query_id, doc_id, rank, score, system_name):
    return f"{query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}"


def write_run(path, system_name, search_fn, queries, k=100):
    if type(k) is not int or k <= 0:
        raise ValueError("k must be a positive integer")
    if not system_name or any(character.isspace() for character in system_name):
        raise ValueError("system_name must be non-empty and contain no whitespace")
    lines = [
        _line(query.query_id, doc_id, rank, score, system_name)
        for query in queries
        for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k)[:k], start=1)
    ]
    Path(path).write_bytes(("".join(line + "\n" for line in lines)).encode("utf-8"))
