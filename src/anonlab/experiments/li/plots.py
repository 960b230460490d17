"""Li & Li (ICDE 2008), Figures 3-8 as PNGs (matplotlib, Agg), written atomically."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.experiments.li.setting import SHARE_COLUMNS


def plot_figure3(data: dict[str, Any], path: str | Path) -> Path:
    """Figure 3 as a PNG: rule counts (paper vs ours) and the shares N0 … N≥5."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f, paper = data["frame"], data["paper"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    x = np.arange(len(f))
    ax1.bar(x - 0.2, f["rules"], 0.4, label="ours")
    merged = f[["min_exp"]].merge(paper, on="min_exp", how="left")
    ax1.bar(x + 0.2, merged["rules"], 0.4, label="paper")
    ax1.set_xticks(x, [f"{v:g}" for v in f["min_exp"]])
    ax1.set_xlabel("minExp")
    ax1.set_ylabel("number of rules |R|")
    ax1.legend()
    for i, c in enumerate(SHARE_COLUMNS):
        color = f"C{i}"
        ax2.plot(f["min_exp"], f[c], "-o", color=color, ms=3, label=f"{c} ours")
        ax2.plot(merged["min_exp"], merged[c], ":", color=color)
    ax2.set_xlabel("minExp")
    ax2.set_ylabel("% of records (dotted: paper)")
    ax2.legend(fontsize=7, ncol=2)
    s = data["settings"]
    fig.suptitle(
        f"Figure 3: {s['rows']:,} records, ≤ {s['max_conditions']} condition(s) per rule",
        fontsize=9,
    )
    fig.tight_layout()
    return _save_png(fig, path)


def _plot_by_panel(
    frame: pd.DataFrame,
    draw: Callable[[Any, pd.DataFrame], Sequence[float]],
    path: str | Path,
    *,
    ylabel: str,
    title: str,
    legend_size: int,
) -> Path:
    """One axis per panel of ``frame`` (column ``panel``, in first-seen order), as the paper
    draws Figures 4-8: ``draw(ax, rows)`` draws the panel's bars at positions 0, 1, ... and
    returns the x values they stand for, which label the ticks; the x axis is named after the
    panel (``ℓ`` for ``"l"``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(dict.fromkeys(frame["panel"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.5), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        xs = draw(ax, frame[frame["panel"] == panel])
        ax.set_xticks(np.arange(len(xs)), [f"{x:g}" for x in xs])
        ax.set_xlabel("ℓ" if panel == "l" else panel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=legend_size)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return _save_png(fig, path)


def plot_panels(
    data: dict[str, Any], metric: str, path: str | Path, *, ylabel: str, title: str
) -> Path:
    """A bar chart per panel (Anatomy vs Injector), as the paper draws Figures 4-8."""

    def draw(ax, sub: pd.DataFrame) -> list[float]:
        xs = list(dict.fromkeys(sub["x"]))
        pos = np.arange(len(xs))
        for i, method in enumerate(("Anatomy", "Injector")):
            m = sub[sub["method"] == method].set_index("x").reindex(xs)
            ax.bar(pos + (i - 0.5) * 0.4, m[metric], 0.4, label=method)
        return xs

    return _plot_by_panel(data["frame"], draw, path, ylabel=ylabel, title=title, legend_size=8)


def plot_figure5(data: dict[str, Any], path: str | Path) -> Path:
    """Figure 5: stacked Injector time (mining + bucketization) beside Anatomy's."""

    def draw(ax, sub: pd.DataFrame) -> list[float]:
        pos = np.arange(len(sub))
        ax.bar(pos - 0.2, sub["anatomy_s"], 0.4, label="Anatomy")
        ax.bar(pos + 0.2, sub["injector_mining_s"], 0.4, label="Injector: rule mining")
        ax.bar(
            pos + 0.2,
            sub["injector_bucketization_s"],
            0.4,
            bottom=sub["injector_mining_s"],
            label="Injector: bucketization",
        )
        return list(sub["x"])

    return _plot_by_panel(
        data["frame"], draw, path, ylabel="seconds", title="Figure 5: efficiency", legend_size=7
    )


def _save_png(fig: Any, path: str | Path) -> Path:
    """Write the matplotlib figure ``fig`` to ``path`` as a PNG (120 dpi) in one atomic write,
    close it, and return the path."""
    import io

    import matplotlib.pyplot as plt

    from anonlab.release_io import atomic_write_bytes

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    path = Path(path)
    atomic_write_bytes(path, buffer.getvalue())
    return path
