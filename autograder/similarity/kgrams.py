"""k-gram fingerprints of code, the method of MOSS (Schleimer, Wilkerson and Aiken, 2003), for
``fingerprints``: normalising, hashing every k-gram, and where two files share k-grams.

1. ``normalise``: pygments' Python lexer reads the code; names become ``V``, function names
   ``F``, class names ``O``, string contents ``S``; whitespace and comments go; every other token
   (keywords, operators, numbers, builtins) stays as written. Each character of the result
   keeps where its token starts in the code.
2. ``hashes``: a polynomial hash of every k-gram (characters as code points, wrapping at 2**64):
   the same in every process, so files may be normalised and hashed in any worker.
3. ``Grams``/``compare``: the share of each file's normalised code found in the other (the
   characters covered by shared k-grams over those covered by the file's own k-grams) and the
   shared stretches, as ``[start, end)`` positions of the code given to ``normalise``.

Only the standard library, numpy and pygments: nothing here plots or writes a report.
``deadline`` (a ``time.monotonic()`` value) bounds ``normalise``: past it, ``TooSlow``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # numpy is imported where it is used
    import numpy as np
    from numpy.typing import NDArray

#: The multiplier of the polynomial hash (odd, so that no character's weight vanishes).
BASE = 1_000_003
#: How many tokens ``normalise`` reads between two looks at the clock.
_CLOCK_EVERY = 2048
#: Hashes of k-grams, or positions in code (numpy arrays).
Int64s: TypeAlias = "NDArray[np.int64]"
Int32s: TypeAlias = "NDArray[np.int32]"


class TooSlow(Exception):
    """``normalise`` passed its deadline."""


# pygments ships no types: its lexer and token types are ``Any``
_lexer: list[Any] = []  # the PythonLexer, made once
# pygments token type -> "V", "F", "O", "P", "" (left out), '"', "S" or None (kept as written)
_kinds: dict[Any, str | None] = {}


def _lex() -> Any:  # pygments' PythonLexer (untyped)
    if not _lexer:
        from pygments.lexers.python import PythonLexer

        _lexer.append(PythonLexer())
    return _lexer[0]


def _kind(ttype: Any) -> str | None:
    """What a token of type ``ttype`` becomes (None: its text, as written)."""
    if ttype not in _kinds:
        from pygments import token

        if ttype in (token.Name, token.Name.Variable, token.Name.Attribute):
            _kinds[ttype] = "V"
        elif ttype in token.Name.Function:
            _kinds[ttype] = "F"
        elif ttype in token.Name.Class:
            _kinds[ttype] = "O"
        elif ttype in (token.Comment.Preproc, token.Comment.Hashbang):
            _kinds[ttype] = "P"
        elif ttype in token.Text or ttype in token.Comment:
            _kinds[ttype] = ""
        elif ttype in token.Literal.String:
            _kinds[ttype] = "S"
        else:
            _kinds[ttype] = None
    return _kinds[ttype]


def normalise(code: str, deadline: float | None = None) -> tuple[str, Int32s]:
    """(the normalised code, for each of its characters the position in ``code`` of the token it
    comes from, as an int32 array)."""
    import numpy as np

    pieces: list[str] = []
    origins: list[int] = []
    for count, (start, ttype, value) in enumerate(_lex().get_tokens_unprocessed(code)):
        if deadline is not None and count % _CLOCK_EVERY == 0 and time.monotonic() > deadline:
            raise TooSlow
        kind = _kind(ttype)
        if kind == "S" and value in ("'", '"'):
            kind = '"'
        written = value if kind is None else kind
        if written:
            pieces.append(written)
            origins.extend([start] * len(written))
    return "".join(pieces), np.array(origins, dtype=np.int32)


def hashes(text: str, k: int) -> Int64s:
    """The hash of every k-gram of ``text``, in order (int64; empty when ``text`` is shorter than k)."""
    import numpy as np

    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(points) - k + 1
    if count <= 0:
        return np.empty(0, dtype=np.int64)
    found = np.zeros(count, dtype=np.uint64)
    base = np.uint64(BASE)
    for offset in range(k):  # wraps at 2**64, as intended
        found = found * base + points[offset : offset + count]
    return found.view(np.int64)


@dataclass(frozen=True)
class Grams:
    """A file's k-grams less the ignored ones: their hashes and where each starts."""

    k: int
    hashes: Int64s  # in the file's order
    starts: Int64s  # the position of each in the normalised code
    coverage: int  # normalised characters inside at least one of them

    @property
    def distinct(self) -> Int64s:
        import numpy as np

        return np.unique(self.hashes)


def grams(text: str, k: int, ignored: Int64s | None = None) -> Grams:
    """``text``'s k-grams, less those whose hash is in ``ignored`` (a sorted int64 array)."""
    import numpy as np

    found = hashes(text, k)
    starts = np.arange(len(found), dtype=np.int64)
    if ignored is not None and len(ignored):
        kept = ~np.isin(found, ignored)
        found, starts = found[kept], starts[kept]
    return Grams(k, found, starts, _covered(starts, k))


def _covered(starts: Int64s, k: int) -> int:
    """How many positions ``[s, s + k)`` over ``starts`` (sorted) cover."""
    import numpy as np

    if len(starts) == 0:
        return 0
    ends = starts + k
    gaps = np.maximum(0, starts[1:] - ends[:-1])
    return int(ends[-1] - starts[0] - gaps.sum())


def slices(starts: Int64s, k: int) -> tuple[Int64s, Int64s]:
    """The stretches ``[start, end)`` that k-grams starting at ``starts`` cover, merged where
    they touch or overlap."""
    import numpy as np

    if len(starts) == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    ordered = np.sort(starts)
    breaks = np.flatnonzero(ordered[1:] - ordered[:-1] > k - 1)
    return np.r_[ordered[0], ordered[breaks + 1]], np.r_[ordered[breaks] + k, ordered[-1] + k]


@dataclass(frozen=True)
class Overlap:
    """What two files' k-grams share: the matched normalised characters of each side, their
    shares (of each side's coverage) and the stretches, in normalised positions."""

    matched_a: int
    matched_b: int
    share_a: float
    share_b: float
    slices_a: tuple[Int64s, Int64s]
    slices_b: tuple[Int64s, Int64s]
    shared: Int64s  # the shared hashes


def compare(a: Grams, b: Grams) -> Overlap | None:
    """Where ``a`` and ``b`` share k-grams (of the same k), or None if they share none."""
    import numpy as np

    if a.k != b.k:
        raise ValueError(f"k-grams of different lengths ({a.k} and {b.k}) cannot be compared")
    shared = np.intersect1d(a.hashes, b.hashes)
    if len(shared) == 0:
        return None
    slices_a = slices(a.starts[np.isin(a.hashes, shared)], a.k)
    slices_b = slices(b.starts[np.isin(b.hashes, shared)], b.k)
    matched_a, matched_b = int((slices_a[1] - slices_a[0]).sum()), int((slices_b[1] - slices_b[0]).sum())
    return Overlap(
        matched_a=matched_a,
        matched_b=matched_b,
        share_a=matched_a / a.coverage if a.coverage else 0.0,
        share_b=matched_b / b.coverage if b.coverage else 0.0,
        slices_a=slices_a,
        slices_b=slices_b,
        shared=shared,
    )
