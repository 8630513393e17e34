"""The pages' SVG charts: round ticks that always hold 0 and 1, dots inside the frame, and the data
of every chart as a table (the browser test, tests/reports/test_accessibility.py, measures the labels)."""

from __future__ import annotations

import re

import pytest

from autograder.reports import svg

TICKS = [
    pytest.param(0.0, 1.0, [0, 0.2, 0.4, 0.6, 0.8, 1], id="nDCG-range"),
    pytest.param(0.05, 0.3, [0, 0.2, 0.4, 0.6, 0.8, 1], id="inside-0-1-widens-to-it"),
    pytest.param(-0.63093, 1.0, [-1, -0.5, 0, 0.5, 1], id="negative-grades"),
    pytest.param(-0.1, 1.0, [-0.25, 0, 0.25, 0.5, 0.75, 1], id="a-little-below-0"),
    pytest.param(0.0, 2.5, [0, 0.5, 1, 1.5, 2, 2.5], id="above-1"),
    pytest.param(-2.0, 3.0, [-2, -1, 0, 1, 2, 3], id="wide"),
    pytest.param(0.0, 37.0, [0, 10, 20, 30, 40], id="far-beyond-1-powers-of-ten"),
]


@pytest.mark.parametrize(("low", "high", "expected"), TICKS)
def test_ticks_are_round_and_cover_the_data(low, high, expected):
    """Are the ticks round values covering the data, with 0 and 1 among them (up to 6 intervals'
    worth of range), never more than 5 intervals?"""
    found = svg.ticks(low, high)
    assert found == pytest.approx(expected)
    assert found[0] <= low and found[-1] >= high and len(found) - 1 <= svg.MAX_INTERVALS


POINTS = [
    pytest.param([(0.0, 1.0, "q1"), (1.0, 0.0, "q2")], id="corners"),
    pytest.param([(-0.63093, 1.0, "q1"), (0.2, -0.5, "q2"), (0.5, 0.5, "q3")], id="negative"),
    pytest.param([(0.3, 0.3, "q1")], id="one-point"),
]


@pytest.mark.parametrize("points", POINTS)
def test_every_dot_lies_inside_the_frame(points):
    """Is every dot of the scatter, its radius included, inside the plot's frame, even at the
    extremes of the data; and does its table list each point?"""
    chart = svg.scatter(points, x_label="ir_measures", y_label="your value")
    x, y, width, height = map(
        float, re.search(r'class="frame" x="(\S+)" y="(\S+)" width="(\S+)" height="(\S+)"', chart).groups()
    )
    dots = [(float(cx), float(cy)) for cx, cy in re.findall(r'<circle class="dot" cx="(\S+)" cy="(\S+)"', chart)]
    assert len(dots) == len(points)
    for cx, cy in dots:
        assert x + svg.RADIUS <= cx <= x + width - svg.RADIUS and y + svg.RADIUS <= cy <= y + height - svg.RADIUS
    table = svg.points_table(points, "ir_measures", "your value", label="query")
    assert table.count("<tr>") == len(points) + 1 and all(name in table for _, _, name in points)


def test_the_histogram_s_table_counts_what_it_draws():
    """Does the histogram's table give each bin's count, the top score in the last (closed) bin?"""
    scores = [0, 18, 18, 74, 85, 100]
    table = svg.histogram_table(scores, 0, 100, bins=10, label="scores")
    counts = [int(c) for c in re.findall(r'<td class="num">(\d+)</td>', table)]
    assert counts == [1, 2, 0, 0, 0, 0, 0, 1, 1, 1]
    assert "90 to 100<" in table and "0 to under 10<" in table
