"""Small self-contained SVG charts for the HTML pages (no plotting library, no network), each with
its data as a table for those who cannot see it (``histogram_table``, ``points_table``).

Colours come from the page's stylesheet (classes ``chart``, ``frame``, ``axis``, ``bar``, ``dot``),
so a chart follows the light and dark schemes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from autograder.reports.untrusted import html as escape

#: Tick steps that divide 1, so that 0 and 1 are always ticks, finest first.
STEPS = (0.1, 0.2, 0.25, 0.5, 1.0)
#: The most intervals between ticks on an axis (more would crowd their labels).
MAX_INTERVALS = 5
#: The dots' radius; the frame keeps this much and a pixel free inside its edges.
RADIUS = 3.5


def _bins(values: Iterable[float], low: float, high: float, bins: int) -> list[int]:
    counts = [0] * bins
    for value in values:
        index = int((value - low) / (high - low) * bins) if high > low else 0
        counts[min(max(index, 0), bins - 1)] += 1
    return counts


def _edge(low: float, high: float, bins: int, i: int) -> str:
    return f"{low + i * (high - low) / bins:g}"


def histogram(
    values: Iterable[float],
    low: float,
    high: float,
    bins: int = 10,
    width: int = 520,
    height: int = 200,
    label: str = "",
) -> str:
    """Counts of ``values`` in ``bins`` equal bins from ``low`` to ``high`` (the last bin closed)."""
    counts = _bins(values, low, high, bins)
    top = max(counts) or 1
    left, bottom, plot_w, plot_h = 40, 30, width - 50, height - 45
    bar = plot_w / bins
    described = f"{label or 'histogram'}: {sum(counts)} values in {bins} bins from {low:g} to {high:g}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(described)}; the counts are in the table below">'
    ]
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * bar
        parts.append(
            f'<rect class="bar" x="{x + 1:.1f}" y="{height - bottom - h:.1f}" width="{bar - 2:.1f}" height="{h:.1f}">'
            f"<title>{_edge(low, high, bins, i)}-{_edge(low, high, bins, i + 1)}: {count}</title></rect>"
        )
        if count:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{height - bottom - h - 3:.1f}" font-size="11" '
                f'text-anchor="middle">{count}</text>'
            )
    for i in range(0, bins + 1, max(1, bins // 5)):
        parts.append(
            f'<text x="{left + i * bar:.1f}" y="{height - 12}" font-size="11" text-anchor="middle">'
            f"{_edge(low, high, bins, i)}</text>"
        )
    parts.append(f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{left + plot_w}" y2="{height - bottom}"/>')
    parts.append("</svg>")
    return "".join(parts)


def histogram_table(values: Iterable[float], low: float, high: float, bins: int = 10, label: str = "values") -> str:
    """The histogram's counts as a table, folded: a range per row (the last one closed)."""
    counts = _bins(values, low, high, bins)
    rows = "".join(
        f"<tr><td>{_edge(low, high, bins, i)} to {'' if i == bins - 1 else 'under '}{_edge(low, high, bins, i + 1)}"
        f'</td><td class="num">{count}</td></tr>'
        for i, count in enumerate(counts)
    )
    return (
        f"<details><summary>The {escape(label)} as a table</summary><table><thead><tr><th>range</th>"
        f'<th class="num">count</th></tr></thead><tbody>{rows}</tbody></table></details>'
    )


def ticks(low: float, high: float) -> list[float]:
    """Round tick values covering [low, high] and always 0 and 1: the finest step of ``STEPS``
    that needs at most ``MAX_INTERVALS`` intervals (beyond that, 1, 2 or 5 times a power of ten)."""
    low, high = min(low, 0.0), max(high, 1.0)
    steps = list(STEPS)
    magnitude = 10 ** math.floor(math.log10(high - low))
    steps += [factor * magnitude for factor in (1, 2, 5, 10)]
    for step in steps:
        first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
        if last - first <= MAX_INTERVALS:
            return [round(i * step, 10) for i in range(first, last + 1)]
    raise AssertionError("unreachable: ten times the magnitude always fits")


def scatter(
    points: Sequence[tuple[float, float, str]],
    width: int = 320,
    height: int = 320,
    x_label: str = "reference",
    y_label: str = "yours",
) -> str:
    """``points`` as (x, y, label) with the diagonal y = x: where two measurements disagree. Both
    axes share round ticks from ``ticks`` (0 and 1 among them); every dot lies inside the frame."""
    values = [v for x, y, _ in points for v in (x, y)] or [0.0, 1.0]
    marks = ticks(min(values), max(values))
    bottom, top = marks[0], marks[-1]
    left, right, upper, lower = 58, 12, 12, 44  # room for the tick labels and the axis titles
    size_w, size_h = width - left - right, height - upper - lower
    inset = RADIUS + 1

    def px(v: float) -> float:
        return left + inset + (v - bottom) / (top - bottom) * (size_w - 2 * inset)

    def py(v: float) -> float:
        return upper + size_h - inset - (v - bottom) / (top - bottom) * (size_h - 2 * inset)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(y_label)} against {escape(x_label)} for {len(points)} '
        'queries; the values are in the table below">',
        f'<rect class="frame" x="{left}" y="{upper}" width="{size_w}" height="{size_h}"/>',
        f'<line class="axis" x1="{px(bottom):.1f}" y1="{py(bottom):.1f}" x2="{px(top):.1f}" y2="{py(top):.1f}" '
        'stroke-dasharray="4 3"/>',
    ]
    for x, y, label in points:
        parts.append(
            f'<circle class="dot" cx="{px(x):.1f}" cy="{py(y):.1f}" r="{RADIUS}" fill-opacity="0.7">'
            f"<title>{escape(str(label))}: {escape(y_label)} {y:.4f}, {escape(x_label)} {x:.4f}</title></circle>"
        )
    for tick in marks:
        text = f"{tick:g}".replace("-", "\u2212")
        parts.append(f'<text x="{left - 6}" y="{py(tick) + 4:.1f}" font-size="11" text-anchor="end">{text}</text>')
        parts.append(
            f'<text x="{px(tick):.1f}" y="{upper + size_h + 16}" font-size="11" text-anchor="middle">{text}</text>'
        )
    parts.append(
        f'<text x="{left + size_w / 2:.1f}" y="{height - 6}" font-size="12" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    parts.append(
        f'<text x="14" y="{upper + size_h / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {upper + size_h / 2:.1f})">{escape(y_label)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def points_table(points: Sequence[tuple[float, float, str]], x_label: str, y_label: str, label: str = "point") -> str:
    """The scatter's points as a table, folded: one row per point, in the order given."""
    rows = "".join(
        f'<tr><td>{escape(str(name))}</td><td class="num">{x:.4f}</td><td class="num">{y:.4f}</td></tr>'
        for x, y, name in points
    )
    return (
        f"<details><summary>The {len(points)} values as a table</summary><table><thead><tr>"
        f'<th>{escape(label)}</th><th class="num">{escape(x_label)}</th><th class="num">{escape(y_label)}</th>'
        f"</tr></thead><tbody>{rows}</tbody></table></details>"
    )
