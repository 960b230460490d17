"""The audit's plots as inline SVG text, drawn by :mod:`anonlab.report.svg_chart` (escaped text,
no plotting library: matplotlib's import and drawing were a fifth of the audit command's time);
:func:`figure` still gives matplotlib to the compare page's frontier plot."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonlab.report.svg_chart import COLORS, Chart, histogram_counts


def figure(width: float = 6.0, height: float = 3.2, ncols: int = 1):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "path"
    plt.rcParams["svg.hashsalt"] = "anonlab"  # fixed element ids: the same audit, the same page
    return plt, *plt.subplots(1, ncols, figsize=(width, height))


def posterior_plot(ours: np.ndarray, baseline: np.ndarray, bound: float, label: str) -> str:
    """Histogram of the attack's probability of each target's true value vs random worlds."""
    edges = np.linspace(0, 1, 21)
    theirs = histogram_counts(baseline, edges)
    mine = histogram_counts(ours, edges)
    chart = Chart((0.0, 1.0), (0.0, max([*theirs, *mine, 1]) * 1.08))
    for counts, colour in ((theirs, "#999999"), (mine, "#c0392b")):
        for lo, hi, count in zip(edges[:-1], edges[1:], counts, strict=True):
            if count:
                chart.rect(lo, hi, 0, count, colour, opacity=0.6)
    chart.vline(bound)
    chart.axes(label, "targets")
    chart.add_legend("random worlds", "#999999")
    chart.add_legend("attack", "#c0392b")
    if math.isfinite(bound):
        chart.add_legend(f"promise {bound:.2f}", "black", "line")
    return chart.svg()


def bar_plot(data: dict[str, float], label: str) -> str | None:
    """Horizontal bars (at most the 12 largest); None when no bar has a positive length (an
    empty chart would say nothing the headline does not)."""
    finite = [kv for kv in data.items() if math.isfinite(kv[1]) and kv[1] > 0]
    items = sorted(finite, key=lambda kv: -kv[1])[:12]
    if not items:
        return None
    longest = max(len(str(name)) for name, _ in items)
    left = min(240, 16 + 6 * longest)  # room for the names
    height = max(160, 26 * len(items) + 90)
    top = max(value for _, value in items)
    n = len(items)
    chart = Chart((0.0, top * 1.05), (0.0, float(n)), height=height, left=left)
    for i, (name, value) in enumerate(items):  # the largest at the top
        row = n - 1 - i
        chart.rect(0.0, value, row + 0.15, row + 0.85, "#c0392b")
        chart.text(left - 6, chart.y(row + 0.5) + 3.5, str(name), anchor="end", size=10)
    chart.axes(label, "", y_ticks=[])
    return chart.svg()


def curve_plot(curves: dict[str, Any], label: str) -> str:
    """Maximum disclosure against k, one line per language of background knowledge; curves
    that coincide are drawn once, labelled with every name ("implications = negations")."""
    drawn: list[tuple[list[str], np.ndarray]] = []
    for name, values in curves.items():
        values = np.atleast_1d(np.asarray(values, dtype=np.float64))
        for names, other in drawn:
            if other.shape == values.shape and np.allclose(other, values, rtol=0, atol=1e-12):
                names.append(name)
                break
        else:
            drawn.append(([name], values))
    longest = max([len(v) for _, v in drawn] or [1])
    chart = Chart((0.0, max(longest - 1, 1)), (0.0, 1.05))
    for i, (names, values) in enumerate(drawn):
        colour = COLORS[i % len(COLORS)]
        chart.polyline(np.arange(len(values)).tolist(), values.tolist(), colour)
        chart.add_legend(" = ".join(names), colour, "line")
    chart.legend_corner = "lower right"  # the curves rise towards 1
    ticks = list(range(longest)) if longest <= 12 else None
    chart.axes("k (pieces of background knowledge)", "maximum disclosure", x_ticks=ticks,
               y_ticks=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0], title=label)  # fmt: skip
    return chart.svg()


def error_plot(errors: np.ndarray, label: str) -> str:
    """Histogram of per-query relative errors (clipped at the 99th percentile)."""
    errors = np.asarray(errors, dtype=np.float64)
    errors = np.maximum(errors[np.isfinite(errors)], 0.0)  # a relative error is >= 0
    top = float(np.quantile(errors, 0.99)) if errors.size else 1.0
    top = top or 1.0
    edges = np.linspace(0.0, top, 41)
    counts = histogram_counts(np.minimum(errors, top), edges) if errors.size else [0] * 40
    chart = Chart((0.0, top), (0.0, max([*counts, 1]) * 1.08))
    for lo, hi, count in zip(edges[:-1], edges[1:], counts, strict=True):
        if count:
            chart.rect(lo, hi, 0, count, "#2c7fb8")
    chart.axes(label, "queries")
    return chart.svg()


def possible_plot(matching: np.ndarray, baseline: np.ndarray, label: str) -> str:
    """Records by number of possible values: with the rules vs without (side-by-side bars)."""
    matching = np.asarray(matching, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    if matching.shape != baseline.shape:
        raise ValueError(
            f"possible_plot: {matching.shape} counts with rules, {baseline.shape} without"
        )
    n = len(matching)
    top = max([v for v in [*baseline.tolist(), *matching.tolist()] if math.isfinite(v)] + [1])
    chart = Chart((-0.6, n - 0.4), (0.0, top * 1.08))
    for i in range(n):
        chart.rect(i - 0.4, i, 0, float(baseline[i]), "#999999")
        chart.rect(i, i + 0.4, 0, float(matching[i]), "#c0392b")
    ticks = list(range(n)) if n <= 20 else None
    chart.axes(label, "records", x_ticks=ticks)
    chart.add_legend("without rules", "#999999")
    chart.add_legend("with the rules (matching)", "#c0392b")
    return chart.svg()


def distribution_plots(columns: dict[str, dict[str, Any]]) -> str:
    """Per column, records per original value beside records per released value
    (:mod:`anonlab.report.distributions`) as an HTML table with proportional bars: escaped text
    and inline styles only, no script (matplotlib took about 0.15 s a column, most of the report's
    drawing time on Adult)."""
    import html

    out = []
    for name, d in columns.items():
        sides = [list(d["original"].items()), list(d["released"].items())]
        top = max([c for side in sides for _, c in side] or [1]) or 1
        rows = []
        for i in range(max(len(sides[0]), len(sides[1]))):
            cells = []
            for side in sides:
                if i < len(side):
                    label, count = side[i]
                    width = 100.0 * count / top
                    cells.append(
                        f"<td>{html.escape(str(label))}</td><td class='num'>{count:,}</td>"
                        f"<td style='width:25%'><div style='background:#2c7fb8;height:0.8em;"
                        f"width:{width:.1f}%'></div></td>"
                    )
                else:
                    cells.append("<td></td><td></td><td></td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        out.append(
            f"<table class='distribution'><caption>{html.escape(str(name))}: original (left), "
            f"released (right: {html.escape(str(d['how']))})</caption>"
            "<tr><th>value</th><th>records</th><th></th><th>value</th><th>records</th><th></th>"
            "</tr>" + "".join(rows) + "</table>"
        )
    return "".join(out)


def render(plot: dict[str, Any] | None) -> str | None:
    """The SVG for a finding's plot description, or None."""
    if not plot:
        return None
    kind = plot["kind"]
    if kind == "posterior":
        return posterior_plot(plot["ours"], plot["baseline"], plot["bound"], plot["label"])
    if kind == "bars":
        return bar_plot(plot["data"], plot["label"])
    if kind == "curve":
        return curve_plot(plot["curves"], plot["label"])
    if kind == "possible":
        return possible_plot(plot["matching"], plot["baseline"], plot["label"])
    if kind == "errors":
        return error_plot(plot["errors"], plot["label"])
    if kind == "distributions":
        return distribution_plots(plot["columns"])
    raise ValueError(f"unknown plot kind {kind!r}")
