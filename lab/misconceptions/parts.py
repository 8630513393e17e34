"""The ranked measures as compositions of named parts (issue 32, item 3): each part with the notes' value
and a few plausible alternatives, so that the engine (``grading/diagnosis/compositions.py``) can name a
small change inside a definition that no catalogue entry names ("AP with P@i at every rank", "RR's rank
counted among the judged documents only").

``MEASURES``: function -> {"notes": where the notes define it, "measure": its name in words, "parts":
{part: {"words": the part in words, "notes": the notes' choice in words, "choices": {choice: words}}},
"build": choice -> the variant}. A choice maps every part to a key of its "choices" (the notes' value is
``"notes"``); ``build`` makes the measure with those parts, a plain function of the case's arguments. The
variants need not check their arguments: the engine fits them on the calls of valid arguments only.
"""

from __future__ import annotations

import math

NOTES = "notes"


def _grade(judgments, doc):
    return judgments.get(doc, 0)


def _over(numerator, denominator):
    return numerator / denominator if denominator else 0.0


# ---------------------------------------------------------------- the ranking read

CUT_READS = {
    NOTES: ("the top k, ranking[:k]", lambda r, j, k: list(r[:k])),
    "all": ("the whole ranking, not cut at k", lambda r, j, k: list(r)),
    "k-minus-one": ("the top k - 1 (ranking[:k - 1])", lambda r, j, k: list(r[: k - 1])),
    "judged": (
        "the judged documents only, unjudged ones skipped (the next ones move up), then cut at k",
        lambda r, j, k: [d for d in r if d in j][:k],
    ),
    "judged-in-top-k": (
        "the judged documents of the top k only (unjudged ones dropped)",
        lambda r, j, k: [d for d in r[:k] if d in j],
    ),
    "doc-id": ("the ranking re-sorted by doc id, then cut at k", lambda r, j, k: sorted(r)[:k]),
    "reversed": ("the ranking reversed (worst first), then cut at k", lambda r, j, k: list(reversed(r))[:k]),
    "gained": (
        "the documents of positive grade only, the others skipped (the next ones move up), then cut at k",
        lambda r, j, k: [d for d in r if _grade(j, d) > 0][:k],
    ),
    "gained-in-top-k": (
        "the documents of positive grade in the top k only (ranks counted among them)",
        lambda r, j, k: [d for d in r[:k] if _grade(j, d) > 0],
    ),
}

WHOLE_READS = {
    NOTES: ("the whole ranking", lambda r, j, k: list(r)),
    "top-10": ("the top 10 only", lambda r, j, k: list(r[:10])),
    "judged": (
        "the judged documents only, unjudged ones skipped (ranks counted among the judged documents)",
        lambda r, j, k: [d for d in r if d in j],
    ),
    "doc-id": ("the ranking re-sorted by doc id", lambda r, j, k: sorted(r)),
    "reversed": ("the ranking reversed (worst first)", lambda r, j, k: list(reversed(r))),
}

# AP's reads: the whole ranking's, and the ranking cut at R (R-precision's cut), R passed as the cut-off
AP_READS = {
    **WHOLE_READS,
    "top-R": ("the top R only (the ranking cut at R, as R-precision reads it)", lambda r, j, k: list(r[:k])),
}

# ---------------------------------------------------------------- what relevant means


def _best(judgments):
    return max(judgments.values(), default=0)


RELEVANT = {
    NOTES: ("grade >= rel", lambda d, j, rel: _grade(j, d) >= rel),
    "above": ("grade > rel (a grade equal to rel left out)", lambda d, j, rel: _grade(j, d) > rel),
    "equal": ("grade == rel (grades above rel left out)", lambda d, j, rel: _grade(j, d) == rel),
    "judged": ("any judged document, whatever its grade", lambda d, j, rel: d in j),
    "positive": ("grade > 0, rel ignored", lambda d, j, rel: _grade(j, d) > 0),
    "nonzero": ("grade != 0 (a grade of -1 counted relevant)", lambda d, j, rel: _grade(j, d) != 0),
    "best": (
        "the query's best grade only",
        lambda d, j, rel: _grade(j, d) >= rel and _grade(j, d) == _best(j),
    ),
}

COUNTED = {
    NOTES: ("relevant documents counted (1 each)", lambda d, j: 1),
    "grades": ("the grades of the relevant documents summed", lambda d, j: _grade(j, d)),
}


def _relevant_total(j, rel, relevant):
    return sum(1 for d in j if relevant(d, j, rel))


# ---------------------------------------------------------------- P@k and R@k


def _denominators(notes):
    """The denominators of P@k and R@k (``notes``: the key of the notes' one, "k" or "R")."""
    table = {
        "k": ("k", lambda r, j, k, rel, read, hits, relevant: k),
        "length": ("len(ranking), the whole ranking's length", lambda r, j, k, rel, read, hits, relevant: len(r)),
        "read": ("min(k, len(ranking)), the documents read", lambda r, j, k, rel, read, hits, relevant: len(read)),
        "R": (
            "R, the relevant documents of the judgments",
            lambda r, j, k, rel, read, hits, relevant: _relevant_total(j, rel, relevant),
        ),
        "hits": ("the relevant documents found", lambda r, j, k, rel, read, hits, relevant: hits),
        "R-retrieved": (
            "the relevant documents the whole ranking holds (not those never retrieved)",
            lambda r, j, k, rel, read, hits, relevant: sum(1 for d in r if relevant(d, j, rel)),
        ),
        "judged": ("the number of judged documents", lambda r, j, k, rel, read, hits, relevant: len(j)),
        "min-k-R": (
            "min(k, R)",
            lambda r, j, k, rel, read, hits, relevant: min(k, _relevant_total(j, rel, relevant)),
        ),
        "k-plus-one": ("k + 1", lambda r, j, k, rel, read, hits, relevant: k + 1),
    }
    words, function = table.pop(notes)
    return {NOTES: (words, function), **table}


# R@k's numerator and its R may read relevance differently: each side's notes' choice is the "relevant"
# part's (grade >= rel unless that part changes both sides); another choice changes that side only
SIDES = {NOTES: ("grade >= rel, the same test in the numerator and in R", None)} | {
    key: value for key, value in RELEVANT.items() if key != NOTES
}


def _side(choice, part):
    return RELEVANT[choice["relevant"]][1] if choice.get(part, NOTES) == NOTES else SIDES[choice[part]][1]


def _cut_measure(choice, recall):
    read = CUT_READS[choice["read"]][1]
    relevant, total_relevant = _side(choice, "counted_relevant"), _side(choice, "total_relevant")
    counted = COUNTED[choice["counted"]][1]
    denominator = (_denominators("R") if recall else _denominators("k"))[choice["denominator"]][1]

    def variant(r, j, k, rel=1):
        documents = read(r, j, k)
        hits = sum(counted(d, j) for d in documents if relevant(d, j, rel))
        return _over(hits, denominator(r, j, k, rel, documents, hits, total_relevant))

    return variant


def _parts(**parts):
    return {
        name: {"words": words, "notes": choices[NOTES][0], "choices": {key: text for key, (text, _) in choices.items()}}
        for name, (words, choices) in parts.items()
    }


# ---------------------------------------------------------------- RR

RANKS = {
    NOTES: ("the rank of the first relevant document, counted from 1", None),
    "last": ("the rank of the last relevant document", None),
    "first-best": ("the rank of the first document of the best grade retrieved", None),
    "zero-based": ("the index of the first relevant document, counted from 0", None),
    "plus-one": ("the rank of the first relevant document plus one", None),
    "first-judged": ("the rank of the first judged document: 1 / rank when it is relevant, else 0", None),
}


def _reciprocal_rank(choice):
    read = WHOLE_READS[choice["read"]][1]
    relevant = RELEVANT[choice["relevant"]][1]
    rank_rule = choice["rank"]

    def variant(r, j, rel=1):
        documents = read(r, j, None)
        if rank_rule == "first-judged":
            first = next(((i, d) for i, d in enumerate(documents, start=1) if d in j), None)
            return 1.0 / first[0] if first is not None and relevant(first[1], j, rel) else 0.0
        ranks = [i for i, d in enumerate(documents, start=1) if relevant(d, j, rel)]
        if not ranks:
            return 0.0
        if rank_rule == "last":
            return 1.0 / ranks[-1]
        if rank_rule == "first-best":
            best = max(_grade(j, documents[i - 1]) for i in ranks)
            return 1.0 / next(i for i in ranks if _grade(j, documents[i - 1]) == best)
        if rank_rule == "zero-based":
            return 1.0 / (ranks[0] - 1)  # raises ZeroDivisionError at rank 1, as 1 / index does
        if rank_rule == "plus-one":
            return 1.0 / (ranks[0] + 1)
        return 1.0 / ranks[0]

    return variant


# ---------------------------------------------------------------- AP

PRECISIONS = {
    NOTES: ("P@i averaged at the ranks of relevant documents only", None),
    "every-rank": ("P@i summed at every rank, relevant or not", None),
    "before": ("the precision before rank i, (hits - 1) / i, at the relevant ranks", None),
    "zero-based": ("hits / (i - 1), the rank counted from 0, at the relevant ranks", None),
    "plus-one": ("hits / (i + 1), at the relevant ranks", None),
    "recall": ("R@i, hits / R, at the relevant ranks", None),
    "interpolated": ("the interpolated precision, the highest P@j at any rank j >= i, at the relevant ranks", None),
}

AP_DENOMINATORS = {
    NOTES: ("R, every relevant document of the judgments, retrieved or not", None),
    "hits": ("the relevant documents retrieved", None),
    "length": ("len(ranking)", None),
    "min-R-N": ("min(R, len(ranking))", None),
    "judged": ("the number of judged documents", None),
    "R-plus-one": ("R + 1", None),
    "none": ("none: the sum of the precisions never divided", None),
}


def _average_precision(choice):
    read = AP_READS[choice["read"]][1]
    relevant = RELEVANT[choice["relevant"]][1]
    precision_rule, denominator_rule = choice["precision"], choice["denominator"]

    def variant(r, j, rel=1):
        total = _relevant_total(j, rel, relevant)
        if total == 0 and denominator_rule in (NOTES, "R-plus-one"):
            return 0.0
        documents = read(r, j, total)  # the cut-off of a read cut at R
        if precision_rule == "interpolated":
            summed, found = _interpolated(documents, j, rel, relevant)
            return _over(summed, _ap_denominator(denominator_rule, r, j, total, found))
        found, summed = 0, 0.0
        for i, d in enumerate(documents, start=1):
            hit = relevant(d, j, rel)
            found += hit
            if precision_rule == "every-rank":
                summed += found / i
            elif not hit:
                continue
            elif precision_rule == "before":
                summed += (found - 1) / i
            elif precision_rule == "zero-based":
                summed += found / (i - 1)  # raises ZeroDivisionError at rank 1, as hits / index does
            elif precision_rule == "plus-one":
                summed += found / (i + 1)
            elif precision_rule == "recall":
                summed += _over(found, total)
            else:
                summed += found / i
        return _over(summed, _ap_denominator(denominator_rule, r, j, total, found))

    return variant


def _interpolated(documents, j, rel, relevant):
    """The interpolated precisions (the highest P@j at any rank j >= i) summed at the relevant ranks i, and
    the relevant documents read."""
    flags = [relevant(d, j, rel) for d in documents]
    precisions, found = [], 0
    for i, flag in enumerate(flags, start=1):
        found += flag
        precisions.append(found / i)
    best, summed = 0.0, 0.0
    for precision, flag in zip(reversed(precisions), reversed(flags)):
        best = max(best, precision)
        summed += best if flag else 0.0
    return summed, found


def _ap_denominator(rule, r, j, total, found):
    return {
        NOTES: total,
        "hits": found,
        "length": len(r),
        "min-R-N": min(total, len(r)),
        "judged": len(j),
        "R-plus-one": total + 1,
        "none": 1,
    }[rule]


# ---------------------------------------------------------------- DCG and nDCG

GAINS = {
    NOTES: (
        "the grade (linear), 2^grade - 1 (exp), negative grades gaining 0",
        lambda g, gain: max(g, 0) if gain == "linear" else (2**g - 1 if g > 0 else 0),
    ),
    "exp-2g": ("2^grade for gain='exp' (the - 1 left out)", lambda g, gain: max(g, 0) if gain == "linear" else 2**g),
    "linear-always": ("the grade whatever gain says (gain='exp' ignored)", lambda g, gain: max(g, 0)),
    "exp-always": ("2^grade - 1 whatever gain says (gain='linear' ignored)", lambda g, gain: 2**g - 1 if g > 0 else 0),
    "plus-one": (
        "grade + 1 (linear), 2^grade (exp)",
        lambda g, gain: max(g, 0) + 1 if gain == "linear" else 2 ** max(g, 0),
    ),
    "binary": ("1 for any positive grade, 0 otherwise", lambda g, gain: 1 if g > 0 else 0),
    "unclamped": (
        "the grade as judged, -1 included (linear -1, exp 2^-1 - 1)",
        lambda g, gain: g if gain == "linear" else 2**g - 1,
    ),
    "squared": (
        "grade^2 (linear), (2^grade - 1)^2 (exp)",
        lambda g, gain: max(g, 0) ** 2 if gain == "linear" else (2**g - 1 if g > 0 else 0) ** 2,
    ),
}

DISCOUNTS = {
    NOTES: ("log2(i + 1) at rank i (rank 1 divided by 1)", lambda i, k: math.log2(i + 1)),
    "log2-i": ("log2(i), rank 1 left undiscounted", lambda i, k: math.log2(i) if i > 1 else 1.0),
    "log2-i-plus-2": ("log2(i + 2), the rank counted from 2", lambda i, k: math.log2(i + 2)),
    "log2-k": ("log2(k + 1) at every rank", lambda i, k: math.log2(k + 1)),
    "ln": ("ln(i + 1), the natural logarithm", lambda i, k: math.log(i + 1)),
    "log10": ("log10(i + 1)", lambda i, k: math.log10(i + 1)),
    "none": ("none: the gains summed undiscounted", lambda i, k: 1.0),
    "rank": ("i itself (1 / i)", lambda i, k: float(i)),
    "log2-index": ("log2(i) at every rank (ZeroDivisionError at rank 1)", lambda i, k: math.log2(i)),
}


def _dcg_of(grades, k, gain, gain_rule, discount):
    return sum(gain_rule(g, gain) / discount(i, k) for i, g in enumerate(grades, start=1))


def _grades(j, documents):
    return [_grade(j, d) for d in documents]


def _dcg(choice):
    read = CUT_READS[choice["read"]][1]
    gain_rule, discount = GAINS[choice["gain"]][1], DISCOUNTS[choice["discount"]][1]

    def variant(r, j, k, gain="linear"):
        return _dcg_of(_grades(j, read(r, j, k)), k, gain, gain_rule, discount)

    return variant


def _sorted(grades, reverse=True):
    return sorted(grades, reverse=reverse)


IDEALS = {
    NOTES: (
        "all judged documents sorted by grade, highest first, cut at k",
        lambda r, j, k: _sorted(j.values())[:k],
    ),
    "unsorted": ("the judged documents in the judgments' order, unsorted", lambda r, j, k: list(j.values())[:k]),
    "ascending": ("the judged documents sorted lowest grade first", lambda r, j, k: _sorted(j.values(), False)[:k]),
    "ranking-length": (
        "the judgments sorted, cut at the ranking's length (min(k, len(ranking)))",
        lambda r, j, k: _sorted(j.values())[: min(k, len(r))],
    ),
    "retrieved": ("the retrieved documents only, sorted by grade", lambda r, j, k: _sorted(_grades(j, r))[:k]),
    "top-k-sorted": ("the top k of the ranking sorted by grade", lambda r, j, k: _sorted(_grades(j, r[:k]))),
    "uncut": ("all judged documents sorted, not cut at k", lambda r, j, k: _sorted(j.values())),
    "best-repeated": (
        "the best grade repeated at every one of the k ranks",
        lambda r, j, k: [max(j.values(), default=0)] * k,
    ),
    "top-10": ("all judged documents sorted, cut at 10 whatever k", lambda r, j, k: _sorted(j.values())[:10]),
    "undiscounted": (
        "all judged documents sorted, cut at k, their gains summed undiscounted",
        lambda r, j, k: _sorted(j.values())[:k],
    ),
}

# the ideal's discount qualifies the ranking's: with the notes' discount both are the same; a student may
# discount the ranking by a slip while the ideal comes from a correct DCG (the two shown apart)
IDEAL_DISCOUNTS = {
    NOTES: ("the ranking's own discount", None),
    "notes-always": ("log2(i + 1), the notes' discount, whatever the ranking's", None),
}

RATIOS = {
    NOTES: ("DCG@k / IDCG@k", None),
    "inverted": ("IDCG@k / DCG@k, the ratio inverted", None),
}


def _ndcg(choice):
    read = CUT_READS[choice["read"]][1]
    gain_rule, discount = GAINS[choice["gain"]][1], DISCOUNTS[choice["discount"]][1]
    ideal_rule = IDEALS[choice["ideal"]][1]
    ideal_discount = DISCOUNTS["none"][1] if choice["ideal"] == "undiscounted" else discount
    if choice["ideal_discount"] == "notes-always":
        ideal_discount = DISCOUNTS[NOTES][1]
    inverted = choice["ratio"] == "inverted"

    def variant(r, j, k, gain="linear"):
        ideal = _dcg_of(ideal_rule(r, j, k), k, gain, gain_rule, ideal_discount)
        if ideal == 0:
            return 0.0
        dcg = _dcg_of(_grades(j, read(r, j, k)), k, gain, gain_rule, discount)
        return _over(ideal, dcg) if inverted else dcg / ideal

    return variant


_READ_CUT = ("the documents read", CUT_READS)
# unjudged documents (and those of grade 0 or less) are never relevant at rel >= 1: dropping them from the
# top k changes neither P@k nor R@k
_READ_COUNTED = (
    "the documents read",
    {key: value for key, value in CUT_READS.items() if key not in ("judged-in-top-k", "gained-in-top-k")},
)
_READ_WHOLE = ("the documents read", WHOLE_READS)
_RELEVANT = ("what counts as relevant", RELEVANT)
_COUNTED = ("what the numerator adds up", COUNTED)
_GAIN = ("the gain", GAINS)
_DISCOUNT = ("the discount", DISCOUNTS)

MEASURES = {
    "precision_at_k": {
        "measure": "P@k",
        "notes": "Part II, Precision",
        "parts": _parts(
            read=_READ_COUNTED,
            relevant=_RELEVANT,
            counted=_COUNTED,
            denominator=("the denominator", _denominators("k")),
        ),
        "build": lambda choice: _cut_measure(choice, recall=False),
    },
    "recall_at_k": {
        "measure": "R@k",
        "notes": "Part II, Recall",
        "parts": _parts(
            read=_READ_COUNTED,
            relevant=_RELEVANT,
            counted=_COUNTED,
            denominator=("the denominator", _denominators("R")),
            counted_relevant=("what counts as relevant in the numerator (the top k)", SIDES),
            total_relevant=("what counts as relevant in R (the denominator)", SIDES),
        ),
        "build": lambda choice: _cut_measure(choice, recall=True),
    },
    "reciprocal_rank": {
        "measure": "RR",
        "notes": "Part III, Reciprocal Rank and MRR",
        "parts": _parts(read=_READ_WHOLE, relevant=_RELEVANT, rank=("the rank read", RANKS)),
        "build": _reciprocal_rank,
    },
    "average_precision": {
        "measure": "AP",
        "notes": "Part III, Average Precision and MAP",
        "parts": _parts(
            read=("the documents read", AP_READS),
            relevant=_RELEVANT,
            precision=("what is averaged", PRECISIONS),
            denominator=("the denominator", AP_DENOMINATORS),
        ),
        "build": _average_precision,
    },
    "dcg_at_k": {
        "measure": "DCG@k",
        "notes": "Part IV, Three ideas in one formula",
        "parts": _parts(read=_READ_CUT, gain=_GAIN, discount=_DISCOUNT),
        "build": _dcg,
    },
    "ndcg_at_k": {
        "measure": "nDCG@k",
        "notes": "Part IV, Graded relevance: DCG and nDCG",
        "parts": _parts(
            read=("the documents of the ranking read", CUT_READS),
            gain=_GAIN,
            discount=_DISCOUNT,
            ideal=("the ideal ranking (IDCG@k)", IDEALS),
            ideal_discount=("the ideal ranking's discount", IDEAL_DISCOUNTS),
            ratio=("the ratio", RATIOS),
        ),
        "build": _ndcg,
    },
}
