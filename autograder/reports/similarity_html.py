"""The class report's "Similar code" section: the pairs of submissions that share much code,
highest first, each with the share of each side found in the other and its evidence, the
matched regions side by side.

It ranks and shows; it does not accuse: short functions written to one contract look alike.
Student code is escaped; the page stays self-contained. The layout is
``templates/similarity.html.j2``; this module computes what it shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from autograder.reports import html, output_paths

if TYPE_CHECKING:  # for types only: this module loads neither the similarity analysis nor the rubric
    from collections.abc import Mapping

    from autograder.grading.results import SubmissionResult
    from autograder.grading.rubric import SimilaritySettings
    from autograder.similarity.compare import Pair, Similarity

    _Regions = tuple[tuple[int, int], ...]  # (first, last) lines, 1-based (``compare.FileMatch``)
    _Results = Mapping[str, SubmissionResult]  # the batch's results by submission id

#: Unmatched lines shown around a matched region; longer unmatched stretches are folded.
CONTEXT = 2
#: Pairs shown side by side (all pairs are listed in the table).
MAX_VIEWS = 50
#: Lines of one file shown in a side-by-side view.
MAX_LINES = 600


class Who(NamedTuple):
    """A submission as the section names it: its id, its page ("" when not graded in this batch),
    its students' names."""

    submission: str
    href: str
    names: str


class CodeLine(NamedTuple):
    """A line of a side of a view (``number`` as shown, right-aligned), or a fold (``fold``: what
    it says)."""

    number: str = ""
    text: str = ""
    matched: bool = False
    region: str = ""  # the label of the matched region it starts, if any
    fold: str = ""


class FileView(NamedTuple):
    """A file both submissions of a pair have, side by side."""

    file: str
    regions: int
    name_a: str
    lines_a: list[CodeLine]
    name_b: str
    lines_b: list[CodeLine]


class View(NamedTuple):
    """A pair side by side."""

    number: int
    anchor: str
    a: Who
    b: Who
    share_a: str
    share_b: str
    files: list[FileView]


class PairRow(NamedTuple):
    """A pair's row of the table."""

    number: int
    anchor: str
    score_value: str
    score: str
    a: Who
    share_a: str
    b: Who
    share_b: str


def _macros() -> Any:
    return html.environment().get_template("similarity.html.j2").module


def _who(submission: str, results: _Results) -> Who:
    result = results.get(submission)
    names = ", ".join(student.name for student in result.students if student.name) if result else ""
    return Who(submission, output_paths.link(submission) if result else "", names)


def anchor(number: int) -> str:
    """The fragment a pair is reached by: its side-by-side view, or its row if it has none."""
    return f"pair-{number}-view" if number <= MAX_VIEWS else f"pair-{number}"


def _labels(regions: _Regions, links: tuple[tuple[int, int], ...], side: int) -> dict[int, str]:
    """First line of each region -> its label: a's regions are numbered, b's name the a regions they match."""
    if side == 0:
        return {first: str(index + 1) for index, (first, _) in enumerate(regions)}
    labels: dict[int, str] = {}
    for index, (first, _) in enumerate(regions):
        matched = sorted({i + 1 for i, j in links if j == index})
        if matched:
            labels[first] = ", ".join(map(str, matched))
    return labels


def _code(lines: tuple[str, ...], regions: _Regions, labels: dict[int, str]) -> list[CodeLine]:
    """One side of a view: the file's lines with the matched ones marked, unmatched stretches folded."""
    matched = {line for first, last in regions for line in range(first, last + 1)}
    shown = {
        line for first, last in regions for line in range(max(1, first - CONTEXT), min(len(lines), last + CONTEXT) + 1)
    }
    out, skipped, count = [], 0, 0
    for number, text in enumerate(lines, 1):
        if number not in shown:
            skipped += 1
            continue
        if skipped:
            out.append(CodeLine(fold=f"⋯ {skipped} unmatched lines ⋯"))
            skipped = 0
        count += 1
        if count > MAX_LINES:
            out.append(CodeLine(fold=f"⋯ cut after {MAX_LINES} lines ⋯"))
            break
        out.append(CodeLine(f"{number:4d}", text, number in matched, labels.get(number, "")))
    if skipped:
        out.append(CodeLine(fold=f"⋯ {skipped} unmatched lines ⋯"))
    return out


def _view(number: int, pair: Pair, similarity: Similarity, results: _Results) -> View:
    files = []
    for match in pair.files:
        lines_a = similarity.sources.get(pair.a, {}).get(match.file, ())
        lines_b = similarity.sources.get(pair.b, {}).get(match.file, ())
        files.append(
            FileView(
                file=match.file,
                regions=len(match.lines_a),
                name_a=f"{pair.a}/{match.file}",
                lines_a=_code(lines_a, match.lines_a, _labels(match.lines_a, match.links, 0)),
                name_b=f"{pair.b}/{match.file}",
                lines_b=_code(lines_b, match.lines_b, _labels(match.lines_b, match.links, 1)),
            )
        )
    return View(
        number=number,
        anchor=anchor(number),
        a=_who(pair.a, results),
        b=_who(pair.b, results),
        share_a=f"{pair.share_a:.0%}",
        share_b=f"{pair.share_b:.0%}",
        files=files,
    )


def section(similarity: Similarity | None, settings: SimilaritySettings, results: _Results) -> str:
    """The section's body. ``similarity`` is the analysis (None if it did not run), ``settings``
    the rubric's, ``results`` the batch's results by submission id (for names and links)."""
    pairs = list(enumerate(similarity.pairs, 1)) if similarity is not None else []
    return str(
        _macros().section(
            enabled=settings.enabled,
            found=similarity,
            threshold=f"{similarity.settings.threshold:.0%}" if similarity is not None else "",
            skipped=[(_who(item.submission, results), item.file, item.reason) for item in similarity.skipped]
            if similarity is not None
            else [],
            identical=[[_who(submission, results) for submission in group] for group in similarity.identical]
            if similarity is not None
            else [],
            pairs=[
                PairRow(
                    number=number,
                    anchor=anchor(number),
                    score_value=f"{pair.score:.4f}",
                    score=f"{pair.score:.0%}",
                    a=_who(pair.a, results),
                    share_a=f"{pair.share_a:.0%}",
                    b=_who(pair.b, results),
                    share_b=f"{pair.share_b:.0%}",
                )
                for number, pair in pairs
            ],
            views=[_view(number, pair, similarity, results) for number, pair in pairs[:MAX_VIEWS]]
            if similarity is not None
            else [],
            more=len(pairs) - MAX_VIEWS,
            max_views=MAX_VIEWS,
        )
    )


def cell(similarity: Similarity | None, submission: str) -> tuple[str, float]:
    """A submission's links to the pairs it is in (for its row) and its highest score."""
    if similarity is None:
        return "", 0.0
    found = similarity.pairs_of(submission)
    links = [
        (anchor(number), pair.b if pair.a == submission else pair.a, f"{pair.score:.0%}") for number, pair in found
    ]
    return str(_macros().cell(links)), max((pair.score for _, pair in found), default=0.0)
