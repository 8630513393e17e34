"""Lab 05 run writer that never leaves half a file: it writes a temporary file next to the
target and renames it over the target."""

import io
import os
import tempfile


def _format(query_id, doc_id, rank, score, system_name):
    return "%s Q0 %s %d %.8f %s\n" % (query_id, doc_id, rank, score, system_name)


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError("k must be a positive integer")
    if not system_name or len(system_name.split()) != 1 or system_name.strip() != system_name:
        raise ValueError("system_name must be one word")
    buffer = io.StringIO()
    for query in queries:
        for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k)[:k], 1):
            buffer.write(_format(query.query_id, doc_id, rank, score, system_name))
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".run.tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(buffer.getvalue())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
