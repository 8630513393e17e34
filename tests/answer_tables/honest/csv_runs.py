"""Lab 05 run writer with the csv module (space-separated, six columns)."""

import csv


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if not system_name or system_name != "".join(system_name.split()):
        raise ValueError(f"system_name must be one word, got {system_name!r}")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter=" ", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
        for query in queries:
            for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k), start=1):
                if rank > k:
                    break
                writer.writerow([query.query_id, "Q0", doc_id, rank, f"{score:.8f}", system_name])
