"""``anonlab reproduce``: run every paper's experiments and write the claims summary.

The work is :func:`anonlab.experiments.reproduce.reproduce`; this module only parses the
arguments, reports progress on stderr and prints the counts: paper claims per paper and
reading (pass, miss, reported), the sanity checks in their own column, never counted as passes.
"""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import JSON, add_row, emit_json, err, new_table, out, say


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``reproduce`` to the top-level app."""
    app.command("reproduce")(reproduce)


def reproduce(
    papers: list[str] | None = typer.Argument(
        None, help="Papers to reproduce: martin, kifer, wong, li, jin, or all (default)."
    ),
    quick: bool = typer.Option(
        False, "--quick", help="Reduced versions (fewer seeds, grid points, queries): minutes."
    ),
    out_dir: Path = typer.Option(
        Path("reproduction"), "--out", help="Folder to write (summary, claims.json, figures)."
    ),
    summary: Path | None = typer.Option(
        None,
        "--summary",
        help="Also write the Markdown summary here (e.g. docs/reproduction.md), links adjusted.",
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace --out and the --summary file if they exist."
    ),
    as_json: bool = JSON,
) -> None:
    """Run the papers' experiments; write, per reported number, paper vs ours vs tolerance."""
    from anonlab.atomic_output import require_file_free
    from anonlab.experiments.reproduce import reproduce as run
    from anonlab.experiments.reproduce import resolve_papers

    keys = resolve_papers(papers)  # unknown names fail before any work
    require_file_free(summary, "--summary", force)  # an existing file only with --force
    command = "anonlab reproduce " + " ".join(papers or ["all"])
    command += (" --quick" if quick else "") + f" --out {out_dir}"
    if summary is not None:
        command += f" --summary {summary}"

    def progress(message: str) -> None:
        if not as_json:
            say(message, console=err)

    results = run(
        keys,
        out_dir,
        quick=quick,
        force=force,
        summary=summary,
        command=command,
        progress=progress,
    )
    failed = [r.key for r in results if r.error is not None]
    if as_json:
        emit_json(
            {
                "out": str(out_dir),
                "summary": None if summary is None else str(summary),
                "quick": quick,
                "papers": {
                    r.key: {
                        **r.counts(),
                        "by_reading": {rd: n for rd, n in r.count_rows() if rd},
                        "seconds": round(r.seconds, 2),
                        "error": r.error,
                    }
                    for r in results
                },
            }
        )
    else:
        tab = new_table(f"Reproduction{' (--quick)' if quick else ''}: {out_dir}")
        for col in ("paper", "reading", "pass", "miss", "reported", "sanity", "seconds"):
            tab.add_column(col, justify="left" if col in ("paper", "reading") else "right")
        for r in results:
            for reading, n in r.count_rows():  # one row per reading: alternatives, never added
                sanity = f"{n['sanity'] - n['sanity_failed']}/{n['sanity']}"
                add_row(
                    tab,
                    r.key,
                    reading or "-",
                    str(n["pass"]),
                    str(n["miss"]),
                    str(n["reported"]),
                    sanity,
                    f"{r.seconds:.1f}",
                )
        out.print(tab)
        say("sanity: checks that hold by construction (held/all); not counted as passes")
        say(f"summary: {out_dir / 'reproduction.md'}")
    if failed:  # the summary was written and says why; the exit code tells scripts
        say(f"error: the experiments of {failed} failed to run; see the summary", console=err)
        raise SystemExit(1)
