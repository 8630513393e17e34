"""The candidates of a batch's similarity analysis: the fingerprints common to many submissions
(ignored, as in MOSS), and the pairs of submissions that share enough of the others to be compared
in detail (an inverted index fingerprint -> submissions, per graded file).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping

from autograder.similarity.kgrams import Int64s

#: A pair is compared in detail when the fingerprints it shares reach this share of the
#: threshold, counted on the smaller submission (a loose pre-filter: shares count characters).
CANDIDATE_FACTOR = 0.5
#: A graded file of a submission: (submission id, file name).
FileKey = tuple[str, str]


def common_limit(submissions: int) -> int:
    """Code found in more submissions than this is common code, ignored (MOSS's ``-m``)."""
    return max(10, submissions // 10)


def _files(found: Mapping[FileKey, Int64s]) -> list[str]:
    """The graded files ``found`` holds, by name (each file is searched on its own)."""
    return sorted({name for _, name in found})


def common_prints(ids: list[str], found: Mapping[FileKey, Int64s], forms: Mapping[FileKey, str]) -> dict[str, Int64s]:
    """Per graded file, the fingerprints found in more than ``common_limit`` distinct forms
    (``forms``: (submission, file) -> the digest of its code as read)."""
    import numpy as np

    common: dict[str, Int64s] = {}
    for name in _files(found):
        distinct = {forms[sid, name]: found[sid, name] for sid in ids if (sid, name) in found}
        if distinct:
            values, counts = np.unique(np.concatenate(list(distinct.values())), return_counts=True)
            common[name] = values[counts > common_limit(len(ids))]
    return common


def search(
    ids: list[str], found: Mapping[FileKey, Int64s], threshold: float, forms: Mapping[FileKey, str]
) -> tuple[dict[str, Int64s], list[tuple[int, int]]]:
    """The inverted index fingerprint -> submissions, per graded file (numpy: sorted runs of
    equal hashes): the common fingerprints per file, and the pairs sharing enough of the others."""
    import numpy as np

    common = common_prints(ids, found, forms)
    sizes = np.zeros(len(ids), dtype=np.int64)
    shared: Counter[tuple[int, int]] = Counter()
    for name in _files(found):
        held = [(number, found[sid, name]) for number, sid in enumerate(ids) if (sid, name) in found]
        if not held:
            continue
        values = np.concatenate([array for _, array in held])
        owners = np.concatenate([np.full(len(array), number, dtype=np.int64) for number, array in held])
        kept = ~np.isin(values, common[name])
        values, owners = values[kept], owners[kept]
        order = np.argsort(values, kind="stable")
        values, owners = values[order], owners[order]
        starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if len(values) else np.empty(0, dtype=np.int64)
        counts = np.diff(np.r_[starts, len(values)])
        sizes += np.bincount(owners, minlength=len(ids))
        two = starts[counts == 2]  # most shared fingerprints are shared by two: counted at once
        codes, times = np.unique(owners[two] * len(ids) + owners[two + 1], return_counts=True)
        shared.update({(int(code) // len(ids), int(code) % len(ids)): int(n) for code, n in zip(codes, times)})
        for start, count in zip(starts[counts > 2], counts[counts > 2]):
            shared.update(itertools.combinations(owners[start : start + count].tolist(), 2))
    floor = CANDIDATE_FACTOR * threshold
    pairs = sorted(pair for pair, count in shared.items() if count >= floor * min(sizes[pair[0]], sizes[pair[1]]))
    return common, pairs
