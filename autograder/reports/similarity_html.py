"""The class report's "Similar code" section: the pairs of submissions that share much code,
highest first, each with the share of each side found in the other and its evidence, the
matched regions side by side.

It ranks and shows; it does not accuse: short functions written to one contract look alike.
Student code is escaped; the page stays self-contained.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograder.reports.html import esc, feedback_link, sortable, wide

if TYPE_CHECKING:  # for types only: this module loads neither the similarity analysis nor the rubric
    from collections.abc import Mapping

    from autograder.grading.results import SubmissionResult
    from autograder.grading.rubric import SimilaritySettings
    from autograder.similarity.compare import Pair, Similarity, Skipped

    _Regions = tuple[tuple[int, int], ...]  # (first, last) lines, 1-based (``compare.FileMatch``)
    _Results = Mapping[str, SubmissionResult]  # the batch's results by submission id

#: Unmatched lines shown around a matched region; longer unmatched stretches are folded.
CONTEXT = 2
#: Pairs shown side by side (all pairs are listed in the table).
MAX_VIEWS = 50
#: Lines of one file shown in a side-by-side view.
MAX_LINES = 600


def _who(submission: str, results: _Results) -> str:
    result = results.get(submission)
    names = ", ".join(student.name for student in result.students if student.name) if result else ""
    link = feedback_link(submission) if result else esc(submission)
    return link + (f' <span class="muted">({esc(names)})</span>' if names else "")


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


def _code(lines: tuple[str, ...], regions: _Regions, labels: dict[int, str], label: str) -> str:
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
            out.append(f'<span class="fold">⋯ {skipped} unmatched lines ⋯</span>')
            skipped = 0
        count += 1
        if count > MAX_LINES:
            out.append(f'<span class="fold">⋯ cut after {MAX_LINES} lines ⋯</span>')
            break
        label = f'<span class="region">[{labels[number]}]</span>' if number in labels else ""
        row = f'<span class="ln">{number:4d}</span> {esc(text)}'
        out.append(f"<mark>{row}</mark>{label}" if number in matched else row)
    if skipped:
        out.append(f'<span class="fold">⋯ {skipped} unmatched lines ⋯</span>')
    return f'<pre class="code" role="region" aria-label="{esc(label)}" tabindex="0">' + "\n".join(out) + "</pre>"


def _view(number: int, pair: Pair, similarity: Similarity, results: _Results) -> str:
    parts = [
        f'<div class="pair" id="{anchor(number)}"><h3>{number}. {_who(pair.a, results)} and {_who(pair.b, results)}'
        f"</h3><p>{pair.share_a:.0%} of {esc(pair.a)}'s code is found in {esc(pair.b)}'s, and {pair.share_b:.0%}"
        f" of {esc(pair.b)}'s in {esc(pair.a)}'s. Marked lines match; [n] names the matched regions of "
        f"{esc(pair.a)} (numbered on the left, named on the right where they are found).</p>"
    ]
    for match in pair.files:
        lines_a = similarity.sources.get(pair.a, {}).get(match.file, ())
        lines_b = similarity.sources.get(pair.b, {}).get(match.file, ())
        name_a, name_b = f"{pair.a}/{match.file}", f"{pair.b}/{match.file}"
        parts.append(
            f"<h4>{esc(match.file)}: {len(match.lines_a)} matched regions</h4>"
            f'<div class="side"><div><div class="muted">{esc(name_a)}</div>'
            f"{_code(lines_a, match.lines_a, _labels(match.lines_a, match.links, 0), name_a)}</div>"
            f'<div><div class="muted">{esc(name_b)}</div>'
            f"{_code(lines_b, match.lines_b, _labels(match.lines_b, match.links, 1), name_b)}</div></div>"
        )
    parts.append('<p><a href="#similarity">back to the list</a></p></div>')
    return "".join(parts)


def _skipped(skipped: tuple[Skipped, ...], results: _Results) -> str:
    """The files the analysis left out (too long, not text, too slow to read), and why."""
    if not skipped:
        return ""
    items = "".join(
        f"<li>{_who(item.submission, results)}: {esc(item.file)}: {esc(item.reason)}</li>" for item in skipped
    )
    files = f"{len(skipped)} file" + ("" if len(skipped) == 1 else "s")
    return (
        f'<div class="skipped"><p><strong>Left out of the comparison: {files}</strong> (they cannot be '
        f"shown similar or not; look at them yourself):</p><ul>{items}</ul></div>"
    )


def _identical(groups: tuple[tuple[str, ...], ...], results: _Results) -> str:
    """Groups of different students' submissions whose graded files are the same, byte for byte."""
    if not groups:
        return ""
    items = "".join(
        f"<li>{len(group)} submissions: " + ", ".join(_who(submission, results) for submission in group) + "</li>"
        for group in groups
    )
    count = f"{len(groups)} group" + ("" if len(groups) == 1 else "s")
    return (
        f'<div class="identical"><p><strong>Identical submissions: {count}</strong> (every graded file the '
        f"same, byte for byte, from different students; each pair of a group is also listed below):</p>"
        f"<ul>{items}</ul></div>"
    )


def section(similarity: Similarity | None, settings: SimilaritySettings, results: _Results) -> str:
    """The section's body. ``similarity`` is the analysis (None if it did not run), ``settings``
    the rubric's, ``results`` the batch's results by submission id (for names and links)."""
    if not settings.enabled:
        return "<p>The similarity analysis is turned off (grading.yml: <code>similarity.enabled</code>).</p>"
    if similarity is None:
        return '<p>The similarity analysis did not run: see "similarity" under Grading run.</p>'
    intro = (
        "<p>Pairs of submissions that share much code; worth a look. Similar code is not proof of "
        "copying: functions written to the same contract often look alike, so read the evidence. "
        "Each file is first read in a canonical form (docstrings, comments, no-op and dead code out; "
        "<code>x += y</code> as <code>x = x + y</code>; loops building a list or a sum as comprehensions; "
        "functions in one order); names and literals are normalised, so renamed variables and reordered "
        "functions still match. Set aside: the handout's code (stubs, docstrings, given files) and code "
        f"found in more than {similarity.common} distinct files (identical copies count once, so a ring "
        "of copies is never common code). Every submission is also compared with the solution "
        "(<code>known:solutions</code>); two submissions of the same student are never a pair. A pair is "
        f"listed when the larger of its two shares reaches {similarity.settings.threshold:.0%} "
        "(grading.yml: <code>similarity.threshold</code>).</p>"
    )
    intro += _skipped(similarity.skipped, results) + _identical(similarity.identical, results)
    if not similarity.pairs:
        return intro + f"<p>No pair of the {similarity.submissions} submissions reaches the threshold.</p>"
    rows = []
    for number, pair in enumerate(similarity.pairs, 1):
        evidence = f'<a href="#{anchor(number)}">side by side</a>' if number <= MAX_VIEWS else ""
        rows.append(
            f'<tr id="pair-{number}"><td class="num">{number}</td>'
            f'<td class="num" data-value="{pair.score:.4f}">{pair.score:.0%}</td>'
            f'<td>{_who(pair.a, results)}</td><td class="num">{pair.share_a:.0%}</td>'
            f'<td>{_who(pair.b, results)}</td><td class="num">{pair.share_b:.0%}</td><td>{evidence}</td></tr>'
        )
    table = wide(
        '<table class="sortable" id="similarity-pairs"><thead><tr><th class="num">#</th>'
        f'{sortable("score", numeric=True)}<th>submission</th><th class="num">its code found in the other</th>'
        '<th>submission</th><th class="num">its code found in the other</th><th>evidence</th></tr></thead>'
        "<tbody>" + "".join(rows) + "</tbody></table>",
        "Similar pairs",
    )
    more = len(similarity.pairs) - MAX_VIEWS
    note = f"<p class='muted'>Side-by-side views of the first {MAX_VIEWS} pairs only ({more} more).</p>"
    views = [_view(n, pair, similarity, results) for n, pair in enumerate(similarity.pairs[:MAX_VIEWS], 1)]
    return intro + table + (note if more > 0 else "") + "".join(views)


def cell(similarity: Similarity | None, submission: str) -> tuple[str, float]:
    """A submission's links to the pairs it is in (for its row) and its highest score."""
    if similarity is None:
        return "", 0.0
    found = similarity.pairs_of(submission)
    links = [
        f'<a href="#{anchor(number)}">{esc(pair.b if pair.a == submission else pair.a)} {pair.score:.0%}</a>'
        for number, pair in found
    ]
    return ", ".join(links), max((pair.score for _, pair in found), default=0.0)
