"""Lab 05 run writer with numpy: the scores of a query in one array, formatted with savetxt."""

import numpy as np


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if not system_name or any(c.isspace() for c in str(system_name)):
        raise ValueError(f"system_name must not be empty or contain whitespace: {system_name!r}")
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for query in queries:
            results = list(search_fn(query.text, k))[:k]
            if not results:
                continue
            scores = np.array([score for _doc, _title, score in results], dtype=np.float64)
            ranks = np.arange(1, len(results) + 1)
            for (doc_id, _title, _score), rank, score in zip(results, ranks, scores):
                out.write(f"{query.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\n")
