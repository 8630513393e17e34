"""Lab 05 run writer as a small class: a RunFile opened as a context manager, one add() per
result."""


class RunFile:
    COLUMNS = ("query_id", "Q0", "doc_id", "rank", "score", "system")

    def __init__(self, path, system_name):
        if not isinstance(system_name, str) or not system_name or len(system_name.split()) != 1:
            raise ValueError(f"system_name must be one word, got {system_name!r}")
        if system_name.strip() != system_name:
            raise ValueError(f"system_name must not contain whitespace, got {system_name!r}")
        self.path = path
        self.system_name = system_name
        self.handle = None
        self.count = 0

    def __enter__(self):
        self.handle = open(self.path, "w", encoding="utf-8", newline="\n")
        return self

    def __exit__(self, *exc):
        self.handle.close()
        return False

    def add(self, query_id, doc_id, rank, score):
        self.handle.write(f"{query_id} Q0 {doc_id} {rank} {score:.8f} {self.system_name}\n")
        self.count += 1


def write_run(path, system_name, search_fn, queries, k=100):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    with RunFile(path, system_name) as run:
        for query in queries:
            for rank, (doc_id, _title, score) in enumerate(search_fn(query.text, k)[:k], start=1):
                run.add(query.query_id, doc_id, rank, score)
