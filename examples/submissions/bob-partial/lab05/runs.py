"""Lab 05 run writer (Bob)."""


def write_run(path, system_name, search_fn, queries, k=100):
    if not isinstance(k, int) or k < 1 or not system_name or any(c.isspace() for c in system_name):
        raise ValueError("k must be a positive integer and system_name one word")
    with open(path, "w", encoding="utf-8") as out:
        for query in queries:
            for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k)[:k], start=1):
                out.write(f"{query.query_id}\tQ0\t{doc_id}\t{rank}\t{score:.10f}\t{system_name}\n")
