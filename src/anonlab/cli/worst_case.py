"""``anonlab attack worst-case``: maximum disclosure against k pieces of background knowledge
(Martin et al., ICDE 2007)."""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import (
    ATTACKED,
    JSON,
    RELEASE_DIR,
    emit_json,
    open_release,
    print_table,
    say,
)
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    attack_app.command("worst-case")(attack_worst_case)


def _parse_k_range(value: str) -> tuple[int, int]:
    """``"0..12"`` -> (0, 12); ``"3"`` -> (3, 3)."""
    low, sep, high = value.partition("..")
    try:
        lo, hi = (int(low), int(high)) if sep else (int(low), int(low))
    except ValueError:
        raise AnonlabError(f"--k {value!r} is not K or K1..K2 (e.g. 0..12)") from None
    if lo < 0 or hi < lo:
        raise AnonlabError(f"--k {value!r}: need 0 <= K1 <= K2")
    return lo, hi


def attack_worst_case(
    release_dir: Path = RELEASE_DIR,
    sensitive: str | None = ATTACKED,
    k: str = typer.Option("0..12", "--k", help="Implications known: K or K1..K2."),
    language: str = typer.Option(
        "implications", "--language", help="implications (basic) or negations (negated atoms)."
    ),
    exact: bool = typer.Option(False, "--exact", help="Exact fractions (small releases)."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Also draw both languages' curves to this PNG file."
    ),
    force: bool = typer.Option(False, "--force", help="Replace the --plot file if it exists."),
    as_json: bool = JSON,
) -> None:
    """Worst-case background knowledge (Martin et al., ICDE 2007): maximum disclosure against k."""
    from anonlab.atomic_output import require_file_free
    from anonlab.attacks import disclosure_curve, maximum_disclosure
    from anonlab.resources import check_fits, k_range_bytes

    lo, hi = _parse_k_range(k)
    check_fits("--k", hi, lambda h: k_range_bytes(lo, h), minimum=lo, what=" (largest k)")
    require_file_free(plot, "--plot", force)  # before any work
    release = open_release(release_dir, sensitive)
    curve = disclosure_curve(release, hi, language=language, exact=exact)
    worst = maximum_disclosure(release, hi, language=language, exact=exact)
    points = [{"k": i, "max_disclosure": float(curve[i])} for i in range(lo, hi + 1)]
    if plot is not None:
        _plot_disclosure(release, lo, hi, plot)
    if as_json:
        emit_json(
            {
                "release": str(release_dir),
                "attack": "worst-case",
                "language": language,
                "curve": points,
                "witness": worst.to_json(),
            }
        )
        return
    # Past the k where the curve reaches 1 it stays there: one row for the rest of the range.
    last = next((i for i, p in enumerate(points) if p["max_disclosure"] >= 1.0), len(points))
    rows = [(str(p["k"]), f"{p['max_disclosure']:.4f}") for p in points[: last + 1]]
    if last + 1 < len(points):
        rows.append((f"{points[last + 1]['k']}..{hi}", "1.0000"))
    print_table(
        f"Maximum disclosure under k {language} ({release_dir})",
        ["k", "max disclosure"],
        rows,
        right=(0, 1),
    )
    say(f"Witness at k = {hi}: {worst.explain()}")


def _plot_disclosure(release, lo: int, hi: int, path: Path) -> None:
    """Maximum disclosure against k for both languages, as a PNG (written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from anonlab.attacks import disclosure_curve
    from anonlab.release_io import atomic_write_bytes

    ks = list(range(lo, hi + 1))
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for language, marker in (("implications", "o"), ("negations", "s")):
        curve = disclosure_curve(release, hi, language=language)
        ax.plot(ks, [float(curve[k]) for k in ks], marker=marker, label=language)
    ax.set_xlabel("k (pieces of background knowledge)")
    ax.set_ylabel("maximum disclosure")
    ax.set_ylim(0, 1.05)
    ax.legend()
    ax.set_title("Worst-case background knowledge (Martin et al. 2007)", fontsize=9)
    fig.tight_layout()
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
