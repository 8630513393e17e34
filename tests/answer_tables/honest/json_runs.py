"""Lab 05 run writer that also keeps a small JSON summary next to the run (how many lines per
query), handy to compare systems later."""

import json
import os


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {json.dumps(k, default=repr)}")
    if not isinstance(system_name, str) or not system_name or len(system_name.split()) != 1 or system_name.strip() != system_name:
        raise ValueError(f"system_name must be one word, got {json.dumps(system_name, default=repr)}")
    summary = {"system": system_name, "k": k, "lines": {}}
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for query in queries:
            results = list(search_fn(query.text, k))[:k]
            for rank, (doc_id, _title, score) in enumerate(results, start=1):
                out.write(f"{query.query_id} Q0 {doc_id} {rank} {score:.8f} {system_name}\n")
            summary["lines"][str(query.query_id)] = len(results)
    summary_path = os.fspath(path) + ".summary.json"
    try:
        with open(summary_path, "w", encoding="utf-8") as side:
            json.dump(summary, side, indent=2, sort_keys=True)
    except OSError:
        pass
