"""``anonlab audit``: every check, attack and measure on a release, as HTML and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from anonlab.cli.common import (
    JSON,
    emit_json,
    err,
    open_release,
    out,
    split_list,
    truth_from_data,
)
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``audit`` to the top-level app."""
    app.command("audit")(audit_command)


def audit_command(
    release_dir: Path = typer.Argument(..., help="A release directory."),
    data: Path | None = typer.Option(
        None, "--data", help="The original table, checked against the release's publisher copy."
    ),
    report: Path | None = typer.Option(
        None, "--report", help="HTML report to write (default: RELEASE/audit.html)."
    ),
    summary: Path | None = typer.Option(
        None, "--summary", help="JSON summary to write (default: RELEASE/audit.json)."
    ),
    stages: str | None = typer.Option(
        None, "--stages", help="Comma-separated subset of the stages (default: all)."
    ),
    targets: int = typer.Option(1000, "--targets", help="deFinetti: random targets."),
    chains: int = typer.Option(4, "--chains", help="deFinetti: chains."),
    sweeps: int = typer.Option(100, "--sweeps", help="deFinetti: sweeps per chain."),
    k_max: int = typer.Option(6, "--k-max", help="Worst case: largest k."),
    queries: int = typer.Option(10_000, "--queries", help="COUNT queries in the workload."),
    min_exp: float = typer.Option(0.9, "--min-exp", help="Negative rules: minExp in (0, 1)."),
    foreground_attributes: int = typer.Option(
        1, "--foreground-attributes", help="Foreground: largest attribute set (0: all)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed for every random choice of the audit."),
    as_json: bool = JSON,
) -> None:
    """Audit a release: privacy models, every attack beside its baseline, risk, utility.

    Writes a self-contained HTML report and a JSON summary (atomically) and prints the verdicts.
    """
    from anonlab.release_io import atomic_write_text
    from anonlab.report import STAGES, audit, write_html

    release = open_release(release_dir)
    if data is not None:
        truth_from_data(release, data)  # the release must be this table's
    if not 0 < min_exp < 1:
        raise AnonlabError(f"--min-exp must be in (0, 1), got {min_exp}")
    chosen = split_list(stages)
    if chosen is not None:
        unknown = [s for s in chosen if s not in STAGES]
        if unknown:
            raise AnonlabError(f"--stages: unknown {unknown}; choose from {', '.join(STAGES)}")
    report = report or release_dir / "audit.html"
    summary = summary or release_dir / "audit.json"
    for path, name in ((report, "--report"), (summary, "--summary")):
        if not path.parent.is_dir():
            raise AnonlabError(f"{name} {str(path)!r}: folder {str(path.parent)!r} does not exist")
    n_stages = len(chosen or STAGES)
    bar = None
    if not as_json and err.is_terminal:
        bar = Progress(
            TextColumn("audit"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} {task.description}"),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        )
        bar.start()
        task = bar.add_task("", total=n_stages)
        done = [0]

        def step(name: str) -> None:
            bar.update(task, completed=done[0], description=name)
            done[0] += 1

    try:
        result = audit(
            release,
            stages=chosen,
            targets=targets,
            chains=chains,
            sweeps=sweeps,
            k_max=k_max,
            queries=queries,
            min_expectation=min_exp,
            foreground_attributes=foreground_attributes or None,
            seed=seed,
            progress=None if bar is None else step,
        )
    finally:
        if bar is not None:
            bar.stop()
    write_html(result, report, title=f"anonlab audit of {release_dir}")
    payload = result.to_json()
    atomic_write_text(summary, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    if as_json:
        emit_json({"report": str(report), "summary": str(summary), **payload})
        return
    tab = RichTable(title=f"Audit of {release_dir}")
    for col in ("stage", "verdict", "at risk", "what was found"):
        tab.add_column(col, justify="right" if col == "at risk" else "left")
    colors = {"pass": "green", "at risk": "red", "fail": "red"}
    for f in result.findings:
        risk = "" if f.at_risk is None else f"{f.at_risk:,} / {f.considered:,}"
        color = colors.get(f.verdict, "white")
        tab.add_row(f.title, f"[{color}]{f.verdict}[/]", risk, f.headline)
    out.print(tab)
    for f in result.findings:
        if f.strongest:
            out.print(f"[bold]{f.title}[/]: {f.strongest}", highlight=False)
    out.print(f"report: {report}\nsummary: {summary}", highlight=False)
