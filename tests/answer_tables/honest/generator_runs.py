"""Lab 05 run writer: a generator of lines, printed to the file."""

from itertools import islice


def run_lines(system_name, search_fn, queries, k):
    for query in queries:
        results = islice(search_fn(query.text, k), k)
        for rank, (doc_id, _title, score) in enumerate(results, start=1):
            yield "{} Q0 {} {} {:.8f} {}".format(query.query_id, doc_id, rank, score, system_name)


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError("write_run: k must be a positive integer")
    if not isinstance(system_name, str) or not system_name or any(c.isspace() for c in system_name):
        raise ValueError("write_run: system_name must be a non-empty word")
    with open(path, mode="w", encoding="utf-8", newline="\n") as out:
        for line in run_lines(system_name, search_fn, queries, k):
            print(line, file=out)
