"""Lab 04's two retrieval systems over Cranfield (given code: you do not change it).

``search_tfidf(text, k)`` and ``search_bm25(text, k)`` return the top ``k`` documents for a
query as ``(doc_id, title, score)`` tuples, best first; documents with equal scores keep
collection order. Each document is indexed as ``title + " " + text`` (Cranfield's text starts
with the title, so the title counts twice, as in Lab 04).

- TF-IDF: scikit-learn's ``TfidfVectorizer()`` with its defaults, fitted on the documents;
  the score is the dot product of the L2-normalised vectors (their cosine).
- BM25: ``rank_bm25.BM25Okapi`` with its defaults (k1=1.5, b=0.75, epsilon=0.25) over
  ``text.lower().split()`` tokens. ``text.lower().split()`` keeps punctuation attached
  ("thickness," is not "thickness"); ``search_bm25(text, k, tokenize=word_tokenize)`` uses
  the word tokenizer ``\\b\\w+\\b`` instead (Part V of the notes).

The indexes are built on first use (about a second) and kept for the session.
"""

from __future__ import annotations

import functools
import re

from lab05.data import load_docs

_WORD = re.compile(r"\b\w+\b")


def whitespace_tokenize(text: str) -> list[str]:
    """Lab 04's tokenizer: lower case, split on whitespace."""
    return text.lower().split()


def word_tokenize(text: str) -> list[str]:
    """Lower case, then every run of word characters (``\\b\\w+\\b``): drops punctuation."""
    return _WORD.findall(text.lower())


@functools.lru_cache(maxsize=1)
def _documents():
    docs = load_docs()
    return docs, [f"{doc.title} {doc.text}" for doc in docs]


@functools.lru_cache(maxsize=1)
def _tfidf_index():
    from sklearn.feature_extraction.text import TfidfVectorizer

    _, texts = _documents()
    vectorizer = TfidfVectorizer()
    return vectorizer, vectorizer.fit_transform(texts)


@functools.cache
def _bm25_index(tokenize):
    from rank_bm25 import BM25Okapi

    _, texts = _documents()
    return BM25Okapi([tokenize(text) for text in texts])


def _top_k(scores, k: int):
    import numpy as np

    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    docs, _ = _documents()
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")[:k]
    return [(docs[i].doc_id, docs[i].title, float(scores[i])) for i in order]


def search_tfidf(text: str, k: int = 100) -> list[tuple[str, str, float]]:
    """Top ``k`` documents for ``text`` by TF-IDF cosine: ``[(doc_id, title, score), ...]``."""
    vectorizer, matrix = _tfidf_index()
    scores = (matrix @ vectorizer.transform([text]).T).toarray().ravel()
    return _top_k(scores, k)


def search_bm25(text: str, k: int = 100, tokenize=whitespace_tokenize) -> list[tuple[str, str, float]]:
    """Top ``k`` documents for ``text`` by BM25: ``[(doc_id, title, score), ...]``."""
    return _top_k(_bm25_index(tokenize).get_scores(tokenize(text)), k)
