"""Lab 05 run writer that reads its file back to check it: every line has six columns and the
count matches what was written (I lost points on a broken run file in Lab 04)."""

import os


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if not system_name or any(c.isspace() for c in system_name):
        raise ValueError(f"system_name must be a single word, got {system_name!r}")
    written = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for query in queries:
            for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k)[:k], 1):
                out.write("%s Q0 %s %d %.8f %s\n" % (query.query_id, doc_id, rank, score, system_name))
                written += 1
    with open(path, encoding="utf-8") as back:
        lines = back.read().splitlines()
    if len(lines) != written or any(len(line.split()) != 6 for line in lines):
        raise RuntimeError(f"{os.path.basename(path)}: the run file does not read back as written")
