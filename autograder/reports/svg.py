"""Small self-contained SVG charts for the HTML pages (no plotting library, no network)."""

from __future__ import annotations

from html import escape


def histogram(
    values, low: float, high: float, bins: int = 10, width: int = 520, height: int = 200, label: str = ""
) -> str:
    """Counts of ``values`` in ``bins`` equal bins from ``low`` to ``high`` (the last bin closed)."""
    counts = [0] * bins
    for value in values:
        index = int((value - low) / (high - low) * bins) if high > low else 0
        counts[min(max(index, 0), bins - 1)] += 1
    top = max(counts) or 1
    left, bottom, plot_w, plot_h = 40, 30, width - 50, height - 45
    bar = plot_w / bins
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(label or "histogram")}">'
    ]
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * bar
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{height - bottom - h:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" '
            f'fill="#4a78b5"><title>{low + i * (high - low) / bins:g}-{low + (i + 1) * (high - low) / bins:g}: '
            f"{count}</title></rect>"
        )
        if count:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{height - bottom - h - 3:.1f}" font-size="11" '
                f'text-anchor="middle">{count}</text>'
            )
    for i in range(0, bins + 1, max(1, bins // 5)):
        x = left + i * bar
        parts.append(
            f'<text x="{x:.1f}" y="{height - 12}" font-size="11" text-anchor="middle">'
            f"{low + i * (high - low) / bins:g}</text>"
        )
    parts.append(
        f'<line x1="{left}" y1="{height - bottom}" x2="{left + plot_w}" y2="{height - bottom}" stroke="#333"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


def scatter(
    points,
    width: int = 320,
    height: int = 320,
    x_label: str = "reference",
    y_label: str = "yours",
    limit: float | None = None,
) -> str:
    """``points`` as (x, y, label) with the diagonal y = x: where two measurements disagree."""
    values = [v for x, y, _ in points for v in (x, y)] or [1.0]
    top = limit if limit is not None else max(1.0, max(values))
    bottom = min(0.0, min(values))
    left, pad = 45, 20
    size_w, size_h = width - left - pad, height - 2 * pad - 15

    def px(v):
        return left + (v - bottom) / (top - bottom) * size_w

    def py(v):
        return pad + size_h - (v - bottom) / (top - bottom) * size_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(y_label)} against {escape(x_label)}">',
        f'<rect x="{left}" y="{pad}" width="{size_w}" height="{size_h}" fill="#fafafa" stroke="#999"/>',
        f'<line x1="{px(bottom):.1f}" y1="{py(bottom):.1f}" x2="{px(top):.1f}" y2="{py(top):.1f}" '
        f'stroke="#aaa" stroke-dasharray="4 3"/>',
    ]
    for x, y, label in points:
        parts.append(
            f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="#c0392b" fill-opacity="0.7">'
            f"<title>{escape(str(label))}: {y_label} {y:.4f}, {x_label} {x:.4f}</title></circle>"
        )
    parts.append(
        f'<text x="{left + size_w / 2:.1f}" y="{height - 8}" font-size="12" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    parts.append(
        f'<text x="12" y="{pad + size_h / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 12 {pad + size_h / 2:.1f})">{escape(y_label)}</text>'
    )
    for tick in (bottom, (bottom + top) / 2, top):
        parts.append(f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" font-size="10" text-anchor="end">{tick:g}</text>')
        parts.append(
            f'<text x="{px(tick):.1f}" y="{pad + size_h + 14}" font-size="10" text-anchor="middle">{tick:g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
