"""Lab 05 run writer: every line built first, then written at once."""

from pathlib import Path


def write_run(path, system_name, search_fn, queries, k=100):
    if type(k) is not int or k <= 0:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if not system_name or system_name.split() != [system_name]:
        raise ValueError(f"the system name must be one word, got {system_name!r}")
    lines = [
        f"{query.query_id} Q0 {doc} {position} {score:.8f} {system_name}\n"
        for query in queries
        for position, (doc, _title, score) in enumerate(list(search_fn(query.text, k))[:k], start=1)
    ]
    Path(path).write_text("".join(lines), encoding="utf-8")
