"""Cranfield through ir_datasets, and TREC run files (given code: you do not change it).

Everything here loads Cranfield with ``ir_datasets.load("cranfield")``. Offline, ir_datasets
reads its cache, ``$IR_DATASETS_HOME/cranfield/{docs,queries,qrels}.txt`` (the home defaults
to ``~/.ir_datasets``), which are exactly the collection files ``cran.all.1400``, ``cran.qry``
and ``cranqrel``. If you have those three files in a folder (the handout's ``cranfield/``
folder, when your instructor included one), seed the cache once with::

    python -m lab05.data seed FOLDER

Types used throughout the lab:

- *judgments*: ``{doc_id: grade}`` for one query (a doc missing from it has grade 0);
- *qrels*: ``{query_id: judgments}``;
- *ranking*: a list of doc ids, best first;
- *run*: ``{query_id: ranking}``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

#: The collection files and the names ir_datasets' cache gives them.
CRANFIELD_FILES = {"cran.all.1400": "docs.txt", "cran.qry": "queries.txt", "cranqrel": "qrels.txt"}


class CranfieldUnavailable(RuntimeError):
    """Cranfield is neither in ir_datasets' cache nor downloadable."""


def cache_dir() -> Path:
    """The folder where ir_datasets keeps (or would keep) Cranfield."""
    home = os.environ.get("IR_DATASETS_HOME") or os.path.join(os.path.expanduser("~"), ".ir_datasets")
    return Path(home) / "cranfield"


def is_cached() -> bool:
    """True when the three Cranfield files are in ir_datasets' cache (no download needed)."""
    folder = cache_dir()
    return all((folder / name).is_file() and (folder / name).stat().st_size > 0 for name in CRANFIELD_FILES.values())


def seed_cache(folder) -> Path:
    """Copy ``cran.all.1400``, ``cran.qry`` and ``cranqrel`` from ``folder`` into the cache.

    Files already cached with the same content are left alone, so seeding twice is harmless.
    Returns the cache folder. Raises ``FileNotFoundError`` naming the missing files.
    """
    source = Path(folder)
    missing = [name for name in CRANFIELD_FILES if not (source / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"cannot seed the Cranfield cache from {source}: missing {', '.join(missing)}; "
            f"the folder must hold {', '.join(CRANFIELD_FILES)}"
        )
    target = cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    for name, cached_name in CRANFIELD_FILES.items():
        src, dst = source / name, target / cached_name
        if dst.is_file() and dst.read_bytes() == src.read_bytes():
            continue
        partial = dst.with_suffix(".partial")
        shutil.copyfile(src, partial)
        os.replace(partial, dst)
    return target


def load_cranfield():
    """The ir_datasets dataset object for Cranfield.

    Raises ``CranfieldUnavailable`` with the fix when Cranfield is neither cached nor
    downloadable (for example offline with an empty cache).
    """
    import ir_datasets

    dataset = ir_datasets.load("cranfield")
    if not is_cached():
        try:  # ir_datasets downloads lazily; ask for the qrels now to fail early and clearly
            next(iter(dataset.qrels_iter()))
        except Exception as error:  # any download failure: network, proxy, checksum...
            detail = f"{type(error).__name__}: {error}"
            raise CranfieldUnavailable(
                f"Cranfield is not in ir_datasets' cache ({cache_dir()}) and could not be "
                f"downloaded ({detail[:120]}{'...' if len(detail) > 120 else ''}). Fix: in the "
                "handout's folder run `python -m lab05.data seed cranfield` if it has a cranfield/ "
                f"folder; otherwise get the files {', '.join(CRANFIELD_FILES)} (from your course page) "
                "into a folder and run `python -m lab05.data seed FOLDER`, or set IR_DATASETS_HOME to a "
                "cache that holds them."
            ) from None
    return dataset


def load_docs():
    """All 1,400 documents (``doc_id``, ``title``, ``text``, ``author``, ``bib``), in collection order."""
    return list(load_cranfield().docs_iter())


def load_queries():
    """All 225 queries (``query_id``, ``text``), query ids ``"1"`` to ``"225"``."""
    return list(load_cranfield().queries_iter())


def load_qrels() -> dict[str, dict[str, int]]:
    """The judgments as qrels: ``{query_id: {doc_id: grade}}`` (grades -1 to 4)."""
    qrels: dict[str, dict[str, int]] = {}
    for qrel in load_cranfield().qrels_iter():
        qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    return qrels


def read_run(path) -> dict[str, list[str]]:
    """A TREC run file as a run ``{query_id: [doc_id, ...]}``, ordered as trec_eval orders.

    The rank column is ignored: documents are sorted by score descending, ties by doc id in
    descending string order, exactly what ``ir_measures`` and trec_eval evaluate. A doc id
    listed twice for a query keeps its last score.
    """
    import ir_measures

    scores: dict[str, dict[str, float]] = {}
    for scored in ir_measures.read_trec_run(str(path)):
        scores.setdefault(scored.query_id, {})[scored.doc_id] = scored.score
    return {
        query_id: [doc for doc, _ in sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)]
        for query_id, docs in scores.items()
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lab05.data", description="Seed or check ir_datasets' Cranfield cache."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    seed = commands.add_parser("seed", help="copy cran.all.1400, cran.qry, cranqrel into the cache")
    seed.add_argument("folder")
    commands.add_parser("check", help="say whether Cranfield is cached")
    args = parser.parse_args(argv)
    if args.command == "seed":
        try:
            print(f"Cranfield cached in {seed_cache(args.folder)}")
        except FileNotFoundError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        return 0
    cached = is_cached()
    print(f"Cranfield {'is' if cached else 'is not'} cached in {cache_dir()}")
    return 0 if cached else 1


if __name__ == "__main__":
    sys.exit(main())
