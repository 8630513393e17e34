"""The Cranfield reference: Lab 04's runs written by the reference ``write_run``, read back
with ``ir_measures`` and evaluated per query, and the notes' table to hold them against.

``bundle()`` returns everything the Cranfield checks need, computed once and cached on disk
(``autograder.cache``) under a key made of the Cranfield files, the given code, the solutions
and the library versions, so any change there recomputes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder import cache, environment, paths, tempdirs
from autograder.errors import SetupError
from autograder.labkit import place

from . import measures, spec
from .solution import load_lab05

K = 100
SYSTEMS = ("tfidf", "bm25")

#: The notes' table (Part V), as printed: truncated to 4 decimals.
NOTES_TABLE = {
    "tfidf": {"P@10": "0.2284", "R@100": "0.7006", "RR": "0.5100", "AP": "0.2737", "nDCG@10": "0.3170"},
    "bm25": {"P@10": "0.1991", "R@100": "0.6512", "RR": "0.5044", "AP": "0.2405", "nDCG@10": "0.2822"},
    "bm25-word": {"P@10": "0.219", "AP": "0.262"},
}

#: The table's rows: the two runs of Part V and Part V's word-tokenizer BM25.
SYSTEM_TITLES = {"tfidf": "TF-IDF", "bm25": "BM25", "bm25-word": r"BM25, \b\w+\b tokens"}


def truncate(value: float, decimals: int) -> str:
    """``value`` cut (not rounded) to ``decimals`` places, as the notes print: 0.70066 -> 0.7006."""
    text = f"{value:.{decimals + 6}f}"
    return text[: text.index(".") + decimals + 1]


def requirement_names(path: Path) -> list[str]:
    """The distributions a requirements file names (its pins are the one place they are set)."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(re.split(r"[\s\[<>=!~;]", line, maxsplit=1)[0])
    return names


def _versions() -> list[str]:
    from importlib import metadata

    found = []
    for name in requirement_names(paths.REQUIREMENTS / "lab.txt"):
        try:
            found.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}==absent")
    return found


def shipped_files() -> list[tuple[str, bytes]]:
    """The collection's files a platform's grader needs (the given code reads them offline):
    ``(path under ir_datasets' home, bytes)``."""
    cache_dir = load_lab05().data.cache_dir()
    return [(f"cranfield/{name}", (cache_dir / name).read_bytes()) for name in ("docs.txt", "queries.txt", "qrels.txt")]


def cache_status() -> tuple[bool, str]:
    """Is the collection in ir_datasets' cache (grading needs no download), and where."""
    data = load_lab05().data
    if data.is_cached():
        return True, f"cached in {data.cache_dir()}"
    return False, f"not cached in {data.cache_dir()}: grading downloads it (or run seed-cranfield)"


def bundle_key() -> str:
    """The content key of the bundle; makes sure Cranfield is available first."""
    lab05 = load_lab05()
    if not lab05.data.is_cached():
        try:
            lab05.data.load_cranfield()  # downloads it
        except lab05.data.CranfieldUnavailable as error:  # the handout's class; its message has the fix
            raise SetupError(str(error)) from None
    folder = lab05.data.cache_dir()
    files = [folder / name for name in sorted(lab05.data.CRANFIELD_FILES.values())]
    code = [place.of(__name__).handout_file(name) for name in ("data.py", "retrieval.py")]
    code += [place.of(__name__).solution_file(name) for name in spec.GRADED_FILES]
    code += [Path(__file__), Path(measures.__file__)]
    return cache.fingerprint([*files, *code, *_versions(), K])


def bundle() -> dict:
    """The Cranfield reference, from the on-disk cache or computed (a few seconds). Where
    ``$AUTOGRADER_BUNDLE`` names a file (shipped with the hidden reference: autograder.zip's
    ``source/hidden/``, PrairieLearn's ``/grade/tests/hidden/``), that file."""
    return lazy_bundle()[1]()


def lazy_bundle() -> tuple[str, Callable[[], dict[str, Any]]]:
    """``(key, load)``: the bundle's content key now, the bundle itself only when ``load()``
    is called (a cached plan needs the key alone)."""
    shipped = environment.get("BUNDLE")
    if shipped:
        try:
            data = Path(shipped).read_bytes()
        except OSError as error:
            raise SetupError(
                f"cannot read the Cranfield bundle {shipped} ($AUTOGRADER_BUNDLE): {error.strerror}; "
                "it ships with the hidden reference: build again with `python -m autograder build` (autograder.zip's "
                "source/hidden/, PrairieLearn's question tests/hidden/)"
            ) from None
        return cache.fingerprint([data]), lambda: json.loads(data)
    key = bundle_key()
    return key, lambda: cache.cached_json("cranfield", key, compute_bundle)


def _replay(by_text: dict):
    """A search function returning stored results."""
    return lambda text, k: by_text[text][:k]


def compute_bundle() -> dict:
    """Compute the bundle: queries, qrels, titles, and per system the search results, the run
    as ``ir_measures`` reads it back, and per-query values of every Cranfield measure."""
    lab05 = load_lab05()
    queries = lab05.data.load_queries()
    qrels = lab05.data.load_qrels()
    docs = lab05.data.load_docs()
    searches = {"tfidf": lab05.retrieval.search_tfidf, "bm25": lab05.retrieval.search_bm25}
    systems = {}
    with tempdirs.folder("lab05-reference-") as folder:
        for name, search in searches.items():
            results = {query.query_id: search(query.text, K) for query in queries}
            by_text = {query.text: results[query.query_id] for query in queries}
            path = Path(folder) / f"lab04_{name}.run"
            lab05.runs.write_run(path, name.replace("-", "_"), _replay(by_text), queries, k=K)
            systems[name] = _evaluate_run_file(path, qrels, lab05.data.read_run)
            systems[name]["results"] = {
                qid: [[doc_id, score] for doc_id, _title, score in hits] for qid, hits in results.items()
            }
    return {
        "queries": [[query.query_id, query.text] for query in queries],
        "qrels": qrels,
        "titles": {doc.doc_id: doc.title for doc in docs},
        "systems": systems,
    }


def word_bm25() -> dict:
    """Part V's BM25 over ``\\b\\w+\\b`` tokens, evaluated like the two runs (for the table only)."""

    def compute():
        lab05 = load_lab05()
        queries, qrels = lab05.data.load_queries(), lab05.data.load_qrels()
        hits = {
            query.text: lab05.retrieval.search_bm25(query.text, K, tokenize=lab05.retrieval.word_tokenize)
            for query in queries
        }
        with tempdirs.folder("lab05-reference-") as folder:
            path = Path(folder) / "lab04_bm25_word.run"
            lab05.runs.write_run(path, "bm25_word", lambda text, k: hits[text][:k], queries, k=K)
            evaluated = _evaluate_run_file(path, qrels, lab05.data.read_run)
        return {"aggregates": evaluated["aggregates"]}

    return cache.cached_json("cranfield-word", bundle_key(), compute)


def _evaluate_run_file(path: Path, qrels, read_run) -> dict:
    import ir_measures

    scores: dict[str, dict[str, float]] = {}
    for scored in ir_measures.read_trec_run(str(path)):
        scores.setdefault(scored.query_id, {})[scored.doc_id] = scored.score
    values = {
        label: measures.ir_measures_values(spec.ir_measure, qrels, scores) for label, spec in measures.CRANFIELD.items()
    }
    return {
        "rankings": read_run(path),
        "values": values,
        "aggregates": {label: sum(per_query.values()) / len(per_query) for label, per_query in values.items()},
    }


def aggregates(reference: dict) -> dict:
    """Every row of the table: the bundle's two runs and the word-tokenizer BM25."""
    return {
        **{name: reference["systems"][name]["aggregates"] for name in SYSTEMS},
        "bm25-word": word_bm25()["aggregates"],
    }


def table(reference: dict) -> str:
    """The evaluation table of the bundle's runs next to the notes' numbers, as text."""
    labels = list(measures.CRANFIELD)
    rows = aggregates(reference)
    lines = [f"{'system':<22}{'':<7}" + "".join(f"{label:>13}" for label in labels)]
    for name, title in SYSTEM_TITLES.items():
        aggregates_of = rows[name]
        notes = NOTES_TABLE[name]
        lines.append(
            f"{title:<22}{'ours':<7}" + "".join(f"{truncate(aggregates_of[label], 4):>13}" for label in labels)
        )
        lines.append(f"{'':<22}{'notes':<7}" + "".join(f"{notes.get(label, '-'):>13}" for label in labels))
    return "\n".join(lines)


def disagreements(reference: dict) -> list[str]:
    """Every number of the notes' table the reference does not reproduce (empty when all do)."""
    problems = []
    rows = aggregates(reference)
    for name, notes in NOTES_TABLE.items():
        for label, printed in notes.items():
            decimals = len(printed.split(".")[1])
            ours = truncate(rows[name][label], decimals)
            if ours != printed:
                problems.append(f"{SYSTEM_TITLES[name]} {label}: ours {ours}, notes {printed}")
    return problems
