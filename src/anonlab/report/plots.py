"""The audit's plots as inline SVG text (matplotlib, Agg; text drawn as paths, so the report
needs no font and no data value reaches the page as markup)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np


def figure(width: float = 6.0, height: float = 3.2, ncols: int = 1):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "path"
    plt.rcParams["svg.hashsalt"] = "anonlab"  # fixed element ids: the same audit, the same page
    return plt, *plt.subplots(1, ncols, figsize=(width, height))


def _svg(plt, fig) -> str:
    buffer = io.StringIO()
    fig.tight_layout()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def posterior_plot(ours: np.ndarray, baseline: np.ndarray, bound: float, label: str) -> str:
    """Histogram of the attack's probability of each target's true value vs random worlds."""
    plt, fig, ax = figure()
    bins = np.linspace(0, 1, 21)
    ax.hist(baseline, bins=bins, alpha=0.6, label="random worlds", color="#999999")
    ax.hist(ours, bins=bins, alpha=0.6, label="attack", color="#c0392b")
    ax.axvline(bound, color="black", ls="--", lw=1, label=f"promise {bound:.2f}")
    ax.set_xlabel(label)
    ax.set_ylabel("targets")
    ax.legend()
    return _svg(plt, fig)


def bar_plot(data: dict[str, float], label: str) -> str | None:
    """Horizontal bars (at most the 12 largest); None when no bar has a positive length (an
    empty chart would say nothing the headline does not)."""
    items = [kv for kv in sorted(data.items(), key=lambda kv: -kv[1])[:12] if kv[1] > 0]
    if not items:
        return None
    plt, fig, ax = figure(height=max(2.0, 0.35 * len(items) + 1))
    if items:
        names, values = zip(*items, strict=True)
        ax.barh(range(len(items)), values, color="#c0392b")
        ax.set_yticks(range(len(items)), names)
        ax.invert_yaxis()
    ax.set_xlabel(label)
    return _svg(plt, fig)


def curve_plot(curves: dict[str, Any], label: str) -> str:
    """Maximum disclosure against k, one line per language of background knowledge; curves
    that coincide are drawn once, labelled with every name ("implications = negations")."""
    plt, fig, ax = figure()
    drawn: list[tuple[list[str], np.ndarray]] = []
    for name, values in curves.items():
        values = np.asarray(values, dtype=np.float64)
        for names, other in drawn:
            if other.shape == values.shape and np.allclose(other, values, rtol=0, atol=1e-12):
                names.append(name)
                break
        else:
            drawn.append(([name], values))
    for names, values in drawn:
        ax.plot(np.arange(len(values)), values, marker="o", label=" = ".join(names))
    ax.set_xlabel("k (pieces of background knowledge)")
    ax.set_ylabel("maximum disclosure")
    ax.set_ylim(0, 1.05)
    ax.set_title(label)
    ax.legend()
    return _svg(plt, fig)


def error_plot(errors: np.ndarray, label: str) -> str:
    """Histogram of per-query relative errors (clipped at the 99th percentile)."""
    errors = np.asarray(errors, dtype=np.float64)
    errors = errors[np.isfinite(errors)]
    plt, fig, ax = figure()
    if errors.size:
        top = float(np.quantile(errors, 0.99)) or 1.0
        ax.hist(np.minimum(errors, top), bins=40, color="#2c7fb8")
    ax.set_xlabel(label)
    ax.set_ylabel("queries")
    return _svg(plt, fig)


def possible_plot(matching: np.ndarray, baseline: np.ndarray, label: str) -> str:
    """Records by number of possible values: with the rules vs without (side-by-side bars)."""
    matching = np.asarray(matching)
    baseline = np.asarray(baseline)
    x = np.arange(len(matching))
    plt, fig, ax = figure()
    ax.bar(x - 0.2, baseline, width=0.4, label="without rules", color="#999999")
    ax.bar(x + 0.2, matching, width=0.4, label="with the rules (matching)", color="#c0392b")
    ax.set_xlabel(label)
    ax.set_ylabel("records")
    ax.legend()
    return _svg(plt, fig)


def distribution_plots(columns: dict[str, dict[str, Any]]) -> str:
    """Per column, records per original value beside records per released value
    (:mod:`anonlab.report.distributions`) as an HTML table with proportional bars: escaped text
    and inline styles only, no script (matplotlib took about 0.15 s a column, most of the report's
    drawing time on Adult)."""
    import html

    out = []
    for name, d in columns.items():
        sides = [list(d["original"].items()), list(d["released"].items())]
        top = max([c for side in sides for _, c in side] or [1])
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
