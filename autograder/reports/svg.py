"""Small self-contained SVG charts for the HTML pages (no plotting library, no network), each with
its data as a table for those who cannot see it (``histogram_table``, ``points_table``).

Colours come from the page's stylesheet (classes ``chart``, ``frame``, ``axis``, ``bar``, ``dot``),
so a chart follows the light and dark schemes. This module computes every coordinate; the macros
of ``templates/charts.svg.j2`` lay them out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from autograder.reports import html

#: Tick steps that divide 1, so that 0 and 1 are always ticks, finest first.
STEPS = (0.1, 0.2, 0.25, 0.5, 1.0)
#: The most intervals between ticks on an axis (more would crowd their labels).
MAX_INTERVALS = 5
#: The dots' radius; the frame keeps this much and a pixel free inside its edges.
RADIUS = 3.5


class Bar(NamedTuple):
    """A histogram's bar, its count's label above it (when it is not 0) and its tooltip."""

    x: str
    y: str
    width: str
    height: str
    title: str
    number: int  # the count
    label_x: str
    label_y: str


class Label(NamedTuple):
    """A text at (x, y): a tick's value."""

    x: str
    y: str
    text: str


class Dot(NamedTuple):
    """A point of a scatter and its tooltip."""

    cx: str
    cy: str
    title: str


class Scatter(NamedTuple):
    """Everything a scatter shows, placed."""

    width: int
    height: int
    x_label: str
    y_label: str
    left: int
    upper: int
    size_w: int
    size_h: int
    radius: float
    diagonal: tuple[str, str, str, str]  # x1, y1, x2, y2
    dots: list[Dot]
    ticks: list[tuple[Label, Label]]  # each tick on the left axis and on the bottom one
    x_title: tuple[str, int]
    y_title: str


def _macros() -> Any:
    return html.environment().get_template("charts.svg.j2").module


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
    bars = []
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * bar
        bars.append(
            Bar(
                x=f"{x + 1:.1f}",
                y=f"{height - bottom - h:.1f}",
                width=f"{bar - 2:.1f}",
                height=f"{h:.1f}",
                title=f"{_edge(low, high, bins, i)}-{_edge(low, high, bins, i + 1)}: {count}",
                number=count,
                label_x=f"{x + bar / 2:.1f}",
                label_y=f"{height - bottom - h - 3:.1f}",
            )
        )
    ticks = [
        Label(f"{left + i * bar:.1f}", str(height - 12), _edge(low, high, bins, i))
        for i in range(0, bins + 1, max(1, bins // 5))
    ]
    return str(_macros().histogram(width, height, described, bars, ticks, left, left + plot_w, height - bottom))


def histogram_table(values: Iterable[float], low: float, high: float, bins: int = 10, label: str = "values") -> str:
    """The histogram's counts as a table, folded: a range per row (the last one closed)."""
    counts = _bins(values, low, high, bins)
    rows = [
        (
            f"{_edge(low, high, bins, i)} to {'' if i == bins - 1 else 'under '}{_edge(low, high, bins, i + 1)}",
            count,
        )
        for i, count in enumerate(counts)
    ]
    return str(_macros().histogram_table(label, rows))


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

    placed = Scatter(
        width=width,
        height=height,
        x_label=x_label,
        y_label=y_label,
        left=left,
        upper=upper,
        size_w=size_w,
        size_h=size_h,
        radius=RADIUS,
        diagonal=(f"{px(bottom):.1f}", f"{py(bottom):.1f}", f"{px(top):.1f}", f"{py(top):.1f}"),
        dots=[
            Dot(f"{px(x):.1f}", f"{py(y):.1f}", f"{label}: {y_label} {y:.4f}, {x_label} {x:.4f}")
            for x, y, label in points
        ],
        ticks=[
            (
                Label(str(left - 6), f"{py(tick) + 4:.1f}", f"{tick:g}".replace("-", "\u2212")),
                Label(f"{px(tick):.1f}", str(upper + size_h + 16), f"{tick:g}".replace("-", "\u2212")),
            )
            for tick in marks
        ],
        x_title=(f"{left + size_w / 2:.1f}", height - 6),
        y_title=f"{upper + size_h / 2:.1f}",
    )
    return str(_macros().scatter(placed))


def points_table(points: Sequence[tuple[float, float, str]], x_label: str, y_label: str, label: str = "point") -> str:
    """The scatter's points as a table, folded: one row per point, in the order given."""
    rows = [(name, f"{x:.4f}", f"{y:.4f}") for x, y, name in points]
    return str(_macros().points_table(label, x_label, y_label, rows))
