"""The compare page's privacy–utility frontier: one point per release, each a link to its
audit report, with its figures in a tooltip (the SVG ``<title>`` a browser shows on hover).

Drawn as inline SVG with :class:`anonlab.report.svg_chart.Chart` (escaped text, no script):
x is the share of records at risk under the strongest attack, y the mean relative error of the
COUNT-query workload (``compare.json``'s axes); Pareto-optimal points are filled, releases
that meet the thresholds are green, failed runs are not drawn (they are rows of the table).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from anonlab.report.svg_chart import Chart, nice_ticks


def frontier_svg(rows: Sequence[dict[str, Any]], link: Callable[[dict[str, Any]], str]) -> str:
    """The frontier of ``compare.json``'s ``rows``; ``link(row)`` is the URL of a row's audit."""
    points = [
        r for r in rows
        if r.get("status") == "ok" and r.get("at_risk_share") is not None
        and r.get("query_error") is not None
    ]  # fmt: skip
    if not points:
        return ""
    xs = [float(r["at_risk_share"]) for r in points]
    ys = [float(r["query_error"]) for r in points]
    # headroom above the highest point: the legend's box takes the top-right corner
    chart = Chart((0.0, max(max(xs) * 1.1, 0.01)), (0.0, max(max(ys) * 1.3, 0.01)))
    chart.axes(
        "share of records at risk (strongest attack)",
        "query error",
        x_ticks=nice_ticks(0.0, chart.x1),
        title="Privacy–utility frontier: click a point to open its audit",
    )
    for row, x, y in zip(points, xs, ys, strict=True):
        colour = "#27ae60" if row.get("meets_thresholds") else "#c0392b"
        fill = colour if row.get("pareto") else "white"
        tip = (
            f"{row.get('name')}: {x:.1%} at risk ({row.get('strongest_attack') or '—'}), "
            f"query error {y:.4f}, {row.get('groups', 0):,} groups"
            + (", meets the thresholds" if row.get("meets_thresholds") else "")
        )
        chart.parts.append(
            f'<a href="{html.escape(link(row), quote=True)}" class="point">'
            f'<circle cx="{chart.x(x):.2f}" cy="{chart.y(y):.2f}" r="6" fill="{fill}" '
            f'stroke="{colour}" stroke-width="2"><title>{html.escape(tip)}</title></circle>'
            f'<text x="{chart.x(x) + 8:.2f}" y="{chart.y(y) - 6:.2f}" font-size="10">'
            f"{html.escape(str(row.get('name')))}</text></a>"
        )
    chart.add_legend("meets the thresholds", "#27ae60")
    chart.add_legend("does not", "#c0392b")
    return chart.svg()
