"""Wong et al. (TKDD 2011), Figures 1-3 as PNGs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def plot_figures(figs: pd.DataFrame, out: str | Path) -> list[Path]:
    """Figures 1-3 as PNGs (one per r): problematic share, Δ, attack time, utility error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    panels = [
        ("problematic_sensitive", "problematic share of sensitive records"),
        ("average_delta", "average Δ"),
        ("attack_seconds", "attack time (s)"),
        ("utility_error", "COUNT-query relative error"),
    ]
    for r, f in figs.groupby("r"):
        fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.4))
        for ax, (col, label) in zip(axes, panels, strict=True):
            for alg, g in f.groupby("algorithm"):
                g = g.sort_values("d")
                refused = g[col].isna().all()  # e.g. Injector at ℓ = 10 without suppression
                ax.plot(g.d, g[col], marker="o", label=f"{alg} (no release)" if refused else alg)
            ax.set_xlabel("QI size")
            ax.set_ylabel(label)
        axes[0].legend()
        fig.suptitle(f"Foreground-knowledge attack on Adult, r = {r}")
        fig.tight_layout()
        path = out / f"wong_figure_r{r}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
