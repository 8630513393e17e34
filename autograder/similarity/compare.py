"""Code similarity across a batch: which submissions share unusually much code, and where.

For the instructor's class report only: nothing here reaches a student's feedback, results.json
or grades.csv. Similar code is a reason to look, not a finding: honest students write alike the
short loops a metrics lab asks for, so the result ranks pairs and shows the evidence.

The method is MOSS's (``fingerprints``: preparing, tokenizing, hashing; ``kgrams``; ``candidates``):

1. Each distinct graded file of the batch is read (prepared and tokenized) once, in this
   process or in forked workers, and fingerprinted once; the handout's code (the stubs and the
   given files) is boilerplate, so its docstrings and signatures count for nothing.
2. Fingerprints found in more than ``common_limit(n)`` of the n submissions' distinct files, as
   read (files that read the same, such as a ring of copies, count once), are common code (the
   idioms everyone writes) and count for nothing either, as in MOSS. Whole files found in more
   than one submission are listed as identical groups.
3. Candidates: an inverted index fingerprint -> submissions counts what each pair shares; only
   pairs sharing enough are compared in detail, per graded file: the share of each side's code
   found in the other and the matched regions, as lines.

Names and literals are normalised and fingerprints are sets, so renaming variables or
reordering functions hides nothing. Known sources (the solution, earlier terms' submissions) are
compared with every submission, common code counted as evidence there; two submissions of the same
student (``owners``) are never a pair.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

# re-exported, explicitly (``X as X``): the batch names them through this module
from autograder.grading.rubric import SimilaritySettings as SimilaritySettings
from autograder.labkit.lab import Lab
from autograder.similarity import fingerprints, kgrams
from autograder.similarity.candidates import CANDIDATE_FACTOR, FileKey, common_limit, search
from autograder.similarity.kgrams import Int64s

#: A pair is reported only if each side has at least this many normalised characters matched.
MIN_MATCHED = 100
_TOKENIZE_IN_PARALLEL = 60  # distinct files from which forked workers tokenize (a fork costs ~0.1 s)
#: A graded file longer than this (characters) is not compared (solutions are 5,000 to 15,000).
FILE_CHARS = 64_000
#: Seconds reading one file (preparing and tokenizing it) may take; a slower file is left out.
FILE_SECONDS = 2.0
#: Seconds reading all the batch's files may take; the files not read by then are left out.
BATCH_SECONDS = 60.0
#: Characters of distinct files read in one batch, at most (the analysis keeps ~10 bytes of
#: each, and hashes them 8 bytes a character at a time).
BATCH_CHARS = 20_000_000
#: Known sources' ids in pairs start with this (``known:solutions``, ``known:<label>/<id>``).
KNOWN = "known:"
#: By (submission, file name): the files read, tokenized; their fingerprints (sorted).
_Read = dict[FileKey, fingerprints.Tokens]
_Found = dict[FileKey, Int64s]
#: The comparisons made, by the ids of their (grams, grams, tokens, tokens): identical copies compared once.
_Memo = dict[tuple[int, int, int, int], fingerprints.Match | None]


@dataclass(frozen=True)
class FileMatch:
    """Where one graded file of two submissions matches: regions as (first, last) lines, 1-based."""

    file: str
    lines_a: tuple[tuple[int, int], ...]
    lines_b: tuple[tuple[int, int], ...]
    links: tuple[tuple[int, int], ...]  # (i, j): region j of b shares the most fingerprints with region i of a


@dataclass(frozen=True)
class Pair:
    """Two submissions that share much code: ``a`` < ``b``; each share is the part of that
    submission's code (the handout's and common code set aside) found in the other."""

    a: str
    b: str
    share_a: float
    share_b: float
    files: tuple[FileMatch, ...]

    @property
    def score(self) -> float:
        return max(self.share_a, self.share_b)


@dataclass(frozen=True)
class Skipped:
    """A graded file the analysis left out, and why (the class report lists them)."""

    submission: str
    file: str
    reason: str


@dataclass(frozen=True)
class Similarity:
    """The analysis of one batch."""

    settings: SimilaritySettings
    submissions: int  # how many were compared
    common: int  # a fingerprint in more submissions than this was common code
    candidates: int  # pairs compared in detail
    pairs: tuple[Pair, ...]  # score >= threshold, highest first
    sources: Mapping[str, Mapping[str, tuple[str, ...]]]  # the lines of the files of the submissions in pairs
    seconds: Mapping[str, float] = field(default_factory=dict)  # per step: prepare ... details
    skipped: tuple[Skipped, ...] = ()  # files left out, by submission and file
    identical: tuple[tuple[str, ...], ...] = ()  # submissions whose graded files are the same, byte for byte

    def pairs_of(self, submission: str) -> list[tuple[int, Pair]]:
        """(number, pair) of the pairs ``submission`` is in; numbers count from 1 in ``pairs``' order."""
        return [(number, pair) for number, pair in enumerate(self.pairs, 1) if submission in (pair.a, pair.b)]


def without(found: Similarity, left_out: Collection[str]) -> Similarity:
    """``found`` less every pair with a submission of ``left_out`` (the superseded ones: out of every
    table of the class report, ``standing.Standing.superseded``), and those submissions left out of
    the groups of identical ones (a group left with one member dropped)."""
    out = set(left_out)
    pairs = tuple(pair for pair in found.pairs if pair.a not in out and pair.b not in out)
    groups = (tuple(name for name in group if name not in out) for group in found.identical)
    kept = {name for pair in pairs for name in (pair.a, pair.b)}
    sources = {name: files for name, files in found.sources.items() if name in kept}
    return replace(found, pairs=pairs, identical=tuple(group for group in groups if len(group) > 1), sources=sources)


# ------------------------------------------------------------------ the batch


def _read(job: tuple[str, fingerprints.Handout, float]) -> fingerprints.Tokens | str:
    """One file prepared and tokenized, or why it was not (it ran out of time)."""
    text, stubs, batch_deadline = job
    started = time.monotonic()
    deadline = min(started + FILE_SECONDS, batch_deadline)
    try:
        return fingerprints.tokenize(fingerprints.prepare(text, stubs, deadline), deadline)
    except kgrams.TooSlow:
        if deadline == batch_deadline:
            return f"not read: the batch's {BATCH_SECONDS:g} s for reading files ran out"
        return f"not read: reading it took more than {FILE_SECONDS:g} s"


def _read_all(texts: list[str], stubs: fingerprints.Handout, jobs: int) -> list[fingerprints.Tokens | str]:
    """``_read`` over every file, in forked workers when there are enough to pay for the fork."""
    jobs_in = [(text, stubs, time.monotonic() + BATCH_SECONDS) for text in texts]
    if jobs <= 1 or len(texts) < _TOKENIZE_IN_PARALLEL:
        return [_read(job) for job in jobs_in]
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(_read, jobs_in, chunksize=max(1, len(texts) // (4 * jobs))))


@functools.lru_cache(maxsize=4)
def _given(handout: tuple[tuple[str, str], ...], graded: tuple[str, ...]) -> tuple[fingerprints.Handout, Int64s]:
    """The handout as ``prepare`` reads it (``graded``: its stubs' names), and its grams
    (boilerplate): read once per process."""
    stubs = fingerprints.handout(
        [text for name, text in handout if name in graded],
        [text for name, text in handout if name not in graded],
    )
    return stubs, fingerprints.boilerplate([text for _, text in handout], stubs)


def _text(content: bytes | str) -> tuple[str, str]:
    """(the file's text, "") or ("", why it is not compared)."""
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError:
            return "", "not compared: not UTF-8 text"
    text = str(content)
    if "\x00" in text:
        return "", "not compared: not text (it holds NUL characters)"
    if len(text) > FILE_CHARS:
        return "", f"not compared: {len(text):,} characters, more than the {FILE_CHARS:,} the analysis reads"
    return text, ""


def _within_budget(distinct: dict[str, str]) -> tuple[list[str], set[str]]:
    """The digests read (shortest first, up to ``BATCH_CHARS`` characters in all), and those left out."""
    kept, left, total = [], set(), 0
    for digest in sorted(distinct, key=lambda d: (len(distinct[d]), d)):
        total += len(distinct[digest])
        if total <= BATCH_CHARS:
            kept.append(digest)
        else:
            left.add(digest)
    return sorted(kept), left


def _pair(
    a: str, b: str, prints: Mapping[FileKey, kgrams.Grams], tokens: _Read, memo: _Memo, graded: tuple[str, ...]
) -> Pair | None:
    """``a`` and ``b`` compared file by file (``graded``, in order); ``prints`` and ``tokens`` keyed by
    (submission, file), one object per distinct file; ``memo``: the comparisons made, by those
    objects (copies once)."""
    matched_a = matched_b = size_a = size_b = 0.0
    files = []
    for name in graded:
        made_a, made_b = prints.get((a, name)), prints.get((b, name))
        size_a += float(made_a.coverage) if made_a is not None else 0.0
        size_b += float(made_b.coverage) if made_b is not None else 0.0
        if made_a is None or made_b is None:
            continue
        key = (id(made_a), id(made_b), id(tokens[a, name]), id(tokens[b, name]))
        if key not in memo:
            memo[key] = fingerprints.compare(made_a, made_b, tokens[a, name], tokens[b, name])
        match = memo[key]
        if match is not None:
            matched_a, matched_b = matched_a + match.matched_a, matched_b + match.matched_b
            files.append(FileMatch(name, match.lines_a, match.lines_b, match.links))
    if min(matched_a, matched_b) < MIN_MATCHED or not size_a or not size_b:
        return None
    return Pair(a=a, b=b, share_a=matched_a / size_a, share_b=matched_b / size_b, files=tuple(files))


def analyse(
    submissions: Mapping[str, Mapping[str, bytes | str]],
    settings: SimilaritySettings = SimilaritySettings(),
    handout: Mapping[str, str] | None = None,
    jobs: int = 1,
    exhaustive: bool = False,
    owners: Mapping[str, str] | None = None,
    known: Mapping[str, Mapping[str, bytes | str]] | None = None,
    *,
    lab: Lab,
) -> Similarity:
    """The pairs of ``submissions`` (id -> graded file name -> content) that share much code.

    ``handout`` is the code every submission is given, by file name (default: the stubs and the
    given files);
    ``jobs`` processes tokenize; ``exhaustive`` compares every pair in detail (to check the
    candidate search; slow for a large batch); ``owners``: submission -> who made it (see
    ``same_student``: two of the same owner are never a pair); ``known``: sources by label (the
    solution, earlier terms' submissions), each compared with every submission, as ``known:<label>``;
    ``lab``: whose graded files are compared and whose handout is ignored."""
    graded = lab.graded_files
    seconds: dict[str, float] = {}
    started = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal started
        seconds[step], started = time.perf_counter() - started, time.perf_counter()

    everything = {**submissions, **{KNOWN + label: files for label, files in (known or {}).items()}}
    ids = sorted(submissions)
    texts, skipped = _texts(everything, graded)
    digests = {key: hashlib.sha256(text.encode()).hexdigest() for key, text in texts.items()}
    distinct = {digest: texts[key] for key, digest in digests.items()}  # each is read and fingerprinted once
    order, too_many = _within_budget(distinct)
    handout = fingerprints.handout_files(lab) if handout is None else handout
    stubs, boilerplate = _given(tuple(sorted(handout.items())), graded)
    lap("prepare")
    by_digest, reasons = _tokenized(distinct, order, too_many, stubs, jobs)
    skipped.update({key: reasons[digest] for key, digest in digests.items() if digest in reasons})
    digests = {key: digest for key, digest in digests.items() if digest in by_digest}
    tokens = {key: by_digest[digest] for key, digest in digests.items()}
    lap("tokenize")
    found = _hashed(digests, by_digest, boilerplate)
    lap("fingerprint")
    common, candidates = _candidate_pairs(ids, found, tokens, settings.threshold, exhaustive, owners)
    lap("candidates")
    pairs = _detailed(ids, candidates, digests, tokens, boilerplate, common, graded)
    known_ids = sorted(set(everything) - set(submissions))
    pairs += _against_known(ids, known_ids, found, tokens, boilerplate, settings, graded)
    pairs = sorted((p for p in pairs if p.score >= settings.threshold), key=lambda p: (-p.score, p.a, p.b))
    sources = _sources(pairs, texts, graded)
    lap("details")
    left_out = tuple(Skipped(sid, name, reason) for (sid, name), reason in sorted(skipped.items()))
    return Similarity(
        settings=settings,
        submissions=len(ids),
        common=common_limit(len(ids)),
        candidates=len(candidates),
        pairs=tuple(pairs),
        sources=sources,
        seconds=seconds,
        skipped=left_out,
        identical=_identical(ids, digests, owners, graded),
    )


def _texts(
    everything: Mapping[str, Mapping[str, bytes | str]], graded: tuple[str, ...]
) -> tuple[dict[FileKey, str], dict[FileKey, str]]:
    """The graded files' texts by (submission, file), blank files left out, and why others are not compared."""
    skipped: dict[FileKey, str] = {}
    texts: dict[FileKey, str] = {}
    for sid in sorted(everything):
        for name, content in everything[sid].items():
            if name not in graded:
                continue
            text, reason = _text(content)
            if reason:
                skipped[sid, name] = reason
            elif text.strip():
                texts[sid, name] = text
    return texts, skipped


def _tokenized(
    distinct: dict[str, str], order: list[str], too_many: set[str], stubs: fingerprints.Handout, jobs: int
) -> tuple[dict[str, fingerprints.Tokens], dict[str, str]]:
    """The tokens of the distinct files read (``order``), by digest, and why the others were not read."""
    read = dict(zip(order, _read_all([distinct[digest] for digest in order], stubs, jobs)))
    reasons = {digest: result for digest, result in read.items() if isinstance(result, str)}
    reasons.update(dict.fromkeys(too_many, f"not read: the batch's files hold more than {BATCH_CHARS:,} characters"))
    # ``order`` and ``too_many`` are disjoint: a file read is left out exactly when ``_read`` said why
    return {digest: tokens for digest, tokens in read.items() if not isinstance(tokens, str)}, reasons


def _hashed(digests: dict[FileKey, str], by_digest: dict[str, fingerprints.Tokens], boilerplate: Int64s) -> _Found:
    """The hashes of the files read, by (submission, file): each distinct file hashed once."""
    once = {digest: fingerprints.hashes(by_digest[digest], boilerplate) for digest in sorted(by_digest)}
    return {key: once[digest] for key, digest in digests.items()}


def _candidate_pairs(
    ids: list[str], found: _Found, tokens: _Read, threshold: float, exhaustive: bool, owners: Mapping[str, str] | None
) -> tuple[dict[str, Int64s], list[tuple[int, int]]]:
    """The common fingerprints per file, and the pairs (of numbers in ``ids``) compared in detail:
    the candidates (every pair if ``exhaustive``), never two of the same student."""
    forms = {key: hashlib.sha256(tokens[key].filtered.encode()).hexdigest() for key in found}
    common, candidates = search(ids, found, threshold, forms)
    if exhaustive:
        candidates = list(itertools.combinations(range(len(ids)), 2))
    return common, [(i, j) for i, j in candidates if not same_student(ids[i], ids[j], owners)]


def _detailed(
    ids: list[str],
    candidates: list[tuple[int, int]],
    digests: dict[FileKey, str],
    tokens: _Read,
    boilerplate: Int64s,
    common: dict[str, Int64s],
    graded: tuple[str, ...],
) -> list[Pair]:
    """The candidates compared file by file, the handout's and common code ignored; each distinct
    file fingerprinted once and identical copies compared once."""
    import numpy as np

    ignored = {name: np.union1d(boilerplate, common.get(name, boilerplate)) for name in graded}
    involved = {(ids[n], name) for pair in candidates for n in pair for name in graded} & set(digests)
    made: dict[tuple[str, str], kgrams.Grams] = {}  # by (digest, file): identical copies fingerprinted once
    for key in sorted(involved):
        if (digests[key], key[1]) not in made:
            made[digests[key], key[1]] = fingerprints.fingerprint(tokens[key], ignored[key[1]])
    prints = {key: made[digests[key], key[1]] for key in involved}
    memo: _Memo = {}
    return [pair for i, j in candidates if (pair := _pair(ids[i], ids[j], prints, tokens, memo, graded)) is not None]


def _sources(
    pairs: list[Pair], texts: dict[FileKey, str], graded: tuple[str, ...]
) -> dict[str, dict[str, tuple[str, ...]]]:
    """The lines of the graded files of the submissions in ``pairs``."""
    listed = sorted({sid for pair in pairs for sid in (pair.a, pair.b)})
    return {
        sid: {name: fingerprints.split_lines(texts[sid, name]) for name in graded if (sid, name) in texts}
        for sid in listed
    }


def same_student(a: str, b: str, owners: Mapping[str, str] | None) -> bool:
    """Whether submissions ``a`` and ``b`` are the same student's (the one rule for it: the
    identity ``owners`` gives each, as the batch knows it)."""
    return owners is not None and a in owners and owners.get(a) == owners.get(b)


def _identical(
    ids: list[str], digests: dict[FileKey, str], owners: Mapping[str, str] | None, graded: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    """Groups of two or more students' submissions whose graded files are all the same."""
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}  # ((file name, digest), ...) -> submissions
    for sid in ids:
        files = tuple((name, digests[sid, name]) for name in graded if (sid, name) in digests)
        if files:
            groups.setdefault(files, []).append(sid)
    return tuple(
        sorted(
            tuple(group)
            for group in groups.values()
            if any(not same_student(group[0], other, owners) for other in group[1:])
        )
    )


def _against_known(
    ids: list[str],
    known: list[str],
    found: _Found,
    tokens: _Read,
    boilerplate: Int64s,
    settings: SimilaritySettings,
    graded: tuple[str, ...],
) -> list[Pair]:
    """Every submission against every known source, common code counted (a leaked solution is
    what many submissions share); only pairs sharing enough are compared in detail."""
    import numpy as np

    plain: dict[FileKey, kgrams.Grams] = {}
    pairs = []
    floor = CANDIDATE_FACTOR * settings.threshold
    for source in known:
        for sid in ids:
            keys = [(who, name) for who in (sid, source) for name in graded if (who, name) in found]
            shared = sum(
                len(np.intersect1d(found[sid, name], found[source, name], assume_unique=True))
                for name in graded
                if (sid, name) in found and (source, name) in found
            )
            own = sum(len(found[sid, name]) for name in graded if (sid, name) in found)
            if not own or shared < floor * own:
                continue
            for key in keys:
                if key not in plain:
                    plain[key] = fingerprints.fingerprint(tokens[key], boilerplate)
            pair = _pair(sid, source, plain, tokens, {}, graded)
            if pair is not None:
                pairs.append(pair)
    return pairs
