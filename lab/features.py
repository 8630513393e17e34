"""What a case's inputs have that can matter: named features of Lab 05's calls, in students' words.

Each function's record (``lab/functions/``) names the features of one of its calls with one of the
makers here (``ranking``, ``cells``, ``evaluation``, ``differences``), its arguments resolved:
rankings, judgments, runs, scores. When a function fails some cases and passes others, the
diagnosis looks for the feature that separates them ("fails exactly on the cases with
gain='exp'") and gives the feature's hint. A registry as a plain dict: id -> Feature.
"""

from __future__ import annotations

from numbers import Integral

from autograder.labkit.feature import Feature


def _f(id, phrase, hint, rules=None, **hints) -> Feature:
    return Feature(id=id, phrase=phrase, hint=hint, hints=hints, rules=rules or {})


def _finer_f(id, phrase, hint, **hints) -> Feature:
    """A feature for diagnoses only: it tells where one concept decides, and does not change how
    random cases are grouped for scoring."""
    return Feature(id=id, phrase=phrase, hint=hint, hints=hints, scored=False)


#: Depths where code may stop reading a ranking (the finer features ``relevant-below-N`` and
#: ``first-relevant-below-N`` of the measures that read the whole ranking); 10 has coarse features.
DEPTHS = (20, 50, 100, 1000)

FEATURES = {
    feature.id: feature
    for feature in [
        _f(
            "invalid-argument",
            "arguments the contract refuses",
            "arguments the contract refuses raise ValueError",
            {
                "k": "k must be a positive integer",
                "rel": "rel must be a positive integer",
                "gain": "gain must be 'linear' or 'exp'",
                "n": "n must be a positive integer",
            },
            confusion_matrix="a collection smaller than the documents retrieved or relevant raises ValueError",
            accuracy="a collection smaller than the documents retrieved or relevant, or of 0 documents, raises "
            "ValueError",
            write_run="k must be a positive integer and system_name a non-empty string without whitespace: "
            "anything else raises ValueError",
        ),
        _f("invalid-k", "k not a positive integer", "k must be a positive integer: anything else raises ValueError"),
        _f("empty-ranking", "an empty ranking", "an empty ranking retrieves nothing: the measure is 0.0"),
        _f(
            "shorter-than-k",
            "a ranking shorter than k",
            "a ranking shorter than k is read to its end",
            precision_at_k="P@k divides by k even when the ranking is shorter than k (the missing ranks are not "
            "relevant)",
        ),
        _f("cut-at-k", "a ranking longer than k", "only the top k documents count: ranking[:k]"),
        _f("k-is-1", "k=1", "with k=1 only the first document counts"),
        _f(
            "unjudged",
            "unjudged documents in the ranking",
            "a document missing from the judgments has grade 0",
        ),
        _f(
            "minus-one",
            "a grade of -1 in the judgments",
            "a grade of -1 is never relevant and gains 0 (Cranfield has one per query)",
        ),
        _f("rel-above-1", "rel >= 2", "relevant means grade >= rel: with rel=2, grade 1 is not relevant"),
        _f(
            "positive-below-rel",
            "judged documents of a positive grade below rel",
            "relevant means grade >= rel: a document of grade 1 is relevant at rel=1, not at rel=2, in the ranking "
            "and in R alike",
            reciprocal_rank="relevant means grade >= rel: a document of grade 1 is not relevant at rel=2",
            precision_at_k="relevant means grade >= rel: a document of grade 1 is not relevant at rel=2",
        ),
        _f(
            "no-relevant",
            "no relevant document (R = 0)",
            "when R = 0 the measure is 0.0",
            ndcg_at_k="when no judged document has a positive grade, IDCG = 0 and nDCG is 0.0",
        ),
        _f(
            "nothing-relevant-retrieved",
            "no relevant document in the ranking",
            "when the ranking holds no relevant document, the measure is 0.0",
            dcg_at_k="documents with grade 0 (or unjudged, or -1) gain nothing: DCG is 0.0",
        ),
        _f(
            "relevant-retrieved",
            "a relevant document retrieved",
            "a relevant document in the ranking counts (grade >= rel)",
            dcg_at_k="a document of positive grade in the top k gains its gain",
            ndcg_at_k="a document of positive grade in the top k gains its gain",
        ),
        _f(
            "relevant-not-retrieved",
            "relevant documents the ranking does not hold",
            "R counts every relevant document of the query, also those never retrieved",
            ndcg_at_k="the ideal ranking holds every judged document, also those never retrieved",
        ),
        _f(
            "graded",
            "grades above 1",
            "a document of grade 2 or more is relevant at rel=1, as one of grade 1 is",
            dcg_at_k="the gain of grade g is g (linear) or 2**g - 1 (exp)",
            ndcg_at_k="the gain of grade g is g (linear) or 2**g - 1 (exp), in DCG and in IDCG alike",
        ),
        _f("exp-gain", "gain='exp'", "gain='exp' is 2**grade - 1 (and 0 for grades below 1)"),
        _f(
            "first-relevant-later",
            "the first relevant document below rank 1",
            "ranks count from 1: the document at ranking[i] has rank i + 1",
            reciprocal_rank="RR is 1 / the rank of the first relevant document: 1/2 at rank 2, 1/3 at rank 3",
        ),
        _f(
            "first-relevant-below-10",
            "the first relevant document below rank 10",
            "the whole ranking counts, not only its top 10",
            reciprocal_rank="RR looks at the whole ranking: a first relevant document at rank 11 gives 1/11",
        ),
        _f("repeated-ids", "a doc id listed twice", "a doc id listed twice counts once"),
        _f("nothing-retrieved", "nothing retrieved", "with nothing retrieved, TP = FP = 0"),
        _f("misses", "relevant documents not retrieved", "FN counts the relevant documents not retrieved"),
        _f(
            "false-alarms",
            "retrieved documents that are not relevant",
            "FP counts the retrieved documents that are not relevant",
        ),
        _f(
            "no-true-negatives",
            "no document left out (TN = 0)",
            "TN counts the documents neither retrieved nor relevant: N - |retrieved ∪ relevant|",
        ),
        _f(
            "query-missing-from-run",
            "a query of the qrels missing from the run",
            "every query of the qrels gets a score: one missing from the run is measured on []",
        ),
        _f(
            "query-not-in-qrels",
            "a query of the run missing from the qrels",
            "queries without judgments are left out of the result",
        ),
        _f("empty-qrels", "empty qrels", "with no qrels the result is {}"),
        _f("n-left-out", "n left out", "n defaults to 2"),
        _f("tied-differences", "tied differences", "ties are broken by query id ascending, as strings"),
        _f(
            "ids-of-different-lengths",
            "query ids of different lengths",
            "query ids are compared as strings: '10' comes before '9'",
        ),
        _f(
            "queries-in-one-system-only",
            "queries scored by one system only",
            "only the queries both systems scored count",
        ),
        _f("n-above-common", "n larger than the common queries", "with fewer than n common queries, return them all"),
        _f(
            "b-above-a",
            "the second system ahead on some query",
            "the difference is absolute: |a - b|, whichever system is ahead",
        ),
        _f(
            "overfull-search",
            "a search function that returns more than k results",
            "write at most k lines per query: the first k results",
        ),
        _f("k-left-out", "k left out", "k defaults to 100"),
        _f("query-without-results", "a query without results", "a query with no results writes no line"),
        _f(
            "queries-unsorted-as-strings",
            "query ids not in string order",
            "the queries are written in the order given, whatever their ids",
        ),
        _f(
            "queries-unsorted-as-numbers",
            "query ids not in numeric order",
            "the queries are written in the order given, whatever their ids",
        ),
        _f(
            "fine-scores",
            "scores with many decimals, ties, tiny or negative values",
            "each score must equal search_fn's to 1e-8: 8 decimals",
        ),
        _f(
            "non-ascii-ids",
            "doc ids with punctuation or non-ASCII letters",
            "doc ids are written as they are, in UTF-8",
        ),
        # finer features, after the coarse ones (a condition names the first that separates): each
        # tells the cases where one concept of the notes (``concepts``) decides the answer
        _finer_f(
            "queries-one-pass",
            "queries given as a one-pass iterator",
            "queries may be any iterable: read them once (a generator gives nothing the second time), or make a "
            "list of them first",
        ),
        _finer_f("rel-left-out", "rel left out", "rel defaults to 1: every positive grade is relevant"),
        _finer_f(
            "above-rel-retrieved",
            "a retrieved document of a grade above rel",
            "relevant means grade >= rel: a document of a higher grade is relevant too",
        ),
        _finer_f(
            "minus-one-retrieved",
            "a retrieved document of grade -1",
            "a grade of -1 is never relevant and gains 0",
        ),
        _finer_f(
            "more-relevant-than-k",
            "more relevant documents than k",
            "R counts every relevant document of the query, even more than k of them",
            ndcg_at_k="the ideal ranking holds the k best judged documents, however many more there are",
        ),
        _finer_f(
            "more-relevant-than-retrieved",
            "more relevant documents than the ranking holds",
            "R counts every relevant document of the query, also more than the ranking holds",
        ),
        _finer_f(
            "relevant-below-10",
            "a relevant document retrieved below rank 10",
            "the whole ranking counts, not only its top 10",
        ),
        _finer_f(
            "gain-below-rank-1",
            "a document of positive grade retrieved below rank 1",
            "the gain at rank i is divided by log2(i + 1): 1 at rank 1, 1.585 at rank 2, 2 at rank 3",
        ),
        _finer_f(
            "graded-retrieved",
            "a retrieved document of grade 2 or more",
            "a document of grade 2 or more is relevant at rel=1, as one of grade 1 is",
            dcg_at_k="the gain of grade g is g (linear) or 2**g - 1 (exp)",
            ndcg_at_k="the gain of grade g is g (linear) or 2**g - 1 (exp), in DCG and in IDCG alike",
        ),
        *[
            _finer_f(
                f"relevant-below-{depth}",
                f"a relevant document retrieved below rank {depth}",
                f"the whole ranking counts, not only its top {depth}",
            )
            for depth in DEPTHS
        ],
        *[
            _finer_f(
                f"first-relevant-below-{depth}",
                f"the first relevant document below rank {depth}",
                f"the whole ranking counts, not only its top {depth}",
            )
            for depth in DEPTHS
        ],
        _finer_f(
            "hits", "retrieved documents that are relevant", "TP counts the retrieved documents that are relevant"
        ),
        _finer_f(
            "query-without-relevant",
            "a query of the qrels without relevant documents",
            "every query of the qrels gets a score, also one without relevant documents",
        ),
    ]
}


def _positive_int(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool) and int(value) >= 1


def _safely(features):
    """``features`` as a record's maker: a call whose arguments it cannot read has no feature."""

    def of(args: tuple, kwargs: dict) -> frozenset[str]:
        try:
            return frozenset(features(args, kwargs))
        except (TypeError, ValueError, AttributeError, IndexError):
            return frozenset()

    return of


def ranking(cutoff: bool, graded: bool = False):
    """The features of a metric of one ranking: ``cutoff``: it takes k; ``graded``: relevance is any
    positive grade (DCG, nDCG), not ``grade >= rel``."""
    return _safely(lambda args, kwargs: _ranking(cutoff, graded, args[0], args[1], kwargs))


def cells(empty_collection_invalid: bool = False):
    """The features of a confusion-matrix call; ``empty_collection_invalid``: N = 0 is refused."""
    return _safely(lambda args, kwargs: _cells(empty_collection_invalid, args[0], args[1], args[2]))


evaluation = _safely(lambda args, kwargs: _evaluate(args[0], args[1]))
differences = _safely(lambda args, kwargs: _differences(args[0], args[1], kwargs))


def _ranking(needs_k, graded, ranking, judgments, kwargs):
    k, rel, gain = kwargs.get("k"), kwargs.get("rel", 1), kwargs.get("gain", "linear")
    refused = _refused(needs_k, k, rel, gain)
    if refused:
        yield from refused
        return
    top = list(ranking[:k]) if needs_k else list(ranking)
    grades = list(judgments.values())
    threshold = 1 if graded else rel
    relevant = {doc for doc, grade in judgments.items() if grade >= threshold}
    yield from _extent(needs_k, k, ranking)
    yield from _judged(graded, rel, top, judgments, grades)
    yield from _retrieved(relevant, ranking, top)
    if any(grade >= 2 for grade in grades):
        yield "graded"
    if gain == "exp":
        yield "exp-gain"
    yield from _first_relevant(ranking, judgments, rel)
    yield from _finer(needs_k, graded, k, rel, ranking, top, judgments, relevant, kwargs)


def _finer(needs_k, graded, k, rel, ranking, top, judgments, relevant, kwargs):
    """The finer features of a ranking call: where one concept decides (``concepts``)."""
    grade_of = [judgments.get(doc, 0) for doc in top]
    if not graded and "rel" not in kwargs:
        yield "rel-left-out"
    if not graded and any(grade > rel for grade in grade_of):
        yield "above-rel-retrieved"
    if -1 in grade_of:
        yield "minus-one-retrieved"
    if needs_k and len(relevant) > k:
        yield "more-relevant-than-k"
    if len(relevant) > len(ranking):
        yield "more-relevant-than-retrieved"
    if any(doc in relevant for doc in ranking[10:]):
        yield "relevant-below-10"
    if not needs_k:  # a measure of the whole ranking: where code may stop reading it
        ranks = [rank for rank, doc in enumerate(ranking, 1) if doc in relevant]
        for depth in DEPTHS:
            if ranks and ranks[-1] > depth:
                yield f"relevant-below-{depth}"
            if ranks and ranks[0] > depth:
                yield f"first-relevant-below-{depth}"
    if graded and any(grade >= 1 for grade in grade_of[1:]):
        yield "gain-below-rank-1"
    if any(grade >= 2 for grade in grade_of):
        yield "graded-retrieved"


def _refused(needs_k, k, rel, gain) -> list[str]:
    """The features of a ranking call whose arguments the contract refuses (none when it takes them)."""
    if (needs_k and not _positive_int(k)) or not _positive_int(rel) or gain not in ("linear", "exp"):
        # invalid-k told apart from the other refused arguments: a check of k alone
        return ["invalid-argument", "invalid-k"] if needs_k and not _positive_int(k) else ["invalid-argument"]
    return []


def _extent(needs_k, k, ranking):
    """The features of the ranking's length, against k."""
    if not ranking:
        yield "empty-ranking"
    if needs_k and len(ranking) < k:
        yield "shorter-than-k"
    if needs_k and len(ranking) > k:
        yield "cut-at-k"
    if k == 1:
        yield "k-is-1"


def _judged(graded, rel, top, judgments, grades):
    """The features of the judgments: unjudged documents in the top, the grades and rel."""
    if any(doc not in judgments for doc in top):
        yield "unjudged"
    if -1 in grades:
        yield "minus-one"
    if rel >= 2:
        yield "rel-above-1"
    if not graded and any(0 < grade < rel for grade in grades):
        yield "positive-below-rel"


def _retrieved(relevant, ranking, top):
    """The features of the relevant documents: whether there are any, and which are retrieved."""
    if not relevant:
        yield "no-relevant"
    if relevant - set(ranking):
        yield "relevant-not-retrieved"
    if not relevant & set(top):
        yield "nothing-relevant-retrieved"
    else:
        yield "relevant-retrieved"


def _first_relevant(ranking, judgments, rel):
    """The features of the rank of the first relevant document (grade >= rel)."""
    first = next((rank for rank, doc in enumerate(ranking, 1) if judgments.get(doc, 0) >= rel), None)
    if first is not None and first > 1:
        yield "first-relevant-later"
    if first is not None and first > 10:
        yield "first-relevant-below-10"


def _cells(empty_invalid, retrieved, relevant, size):
    union = set(retrieved) | set(relevant)
    if not isinstance(size, Integral) or int(size) < len(union) or (empty_invalid and size == 0):
        yield "invalid-argument"
        return
    if len(set(retrieved)) < len(retrieved) or len(set(relevant)) < len(relevant):
        yield "repeated-ids"
    if not retrieved:
        yield "nothing-retrieved"
    if set(relevant) - set(retrieved):
        yield "misses"
    if set(retrieved) - set(relevant):
        yield "false-alarms"
    if size == len(union):
        yield "no-true-negatives"
    if set(retrieved) & set(relevant):
        yield "hits"


def _evaluate(run, qrels):
    if not qrels:
        yield "empty-qrels"
    if set(qrels) - set(run):
        yield "query-missing-from-run"
    if set(run) - set(qrels):
        yield "query-not-in-qrels"
    if any(not any(grade >= 1 for grade in judgments.values()) for judgments in qrels.values()):
        yield "query-without-relevant"


#: largest_differences' default n (the stub's signature)
DIFFERENCES_DEFAULT_N = 2


def _differences(a, b, kwargs):
    n = kwargs.get("n", DIFFERENCES_DEFAULT_N)
    if not _positive_int(n):
        yield "invalid-argument"
        return
    common = set(a) & set(b)
    if "n" not in kwargs:
        yield "n-left-out"
    gaps = [abs(a[q] - b[q]) for q in common]
    if len(set(gaps)) < len(gaps):
        yield "tied-differences"
    if len({len(q) for q in common}) > 1:
        yield "ids-of-different-lengths"
    if set(a) != set(b):
        yield "queries-in-one-system-only"
    if n > len(common):
        yield "n-above-common"
    if any(b[q] > a[q] for q in common):
        yield "b-above-a"
