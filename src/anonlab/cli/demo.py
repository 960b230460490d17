"""``anonlab demo``: Adult anonymized three ways, each audited, the reports side by side."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import typer
from rich.text import Text

from anonlab.cli.common import (
    JSON,
    SEED,
    add_row,
    check_group_sizes,
    emit_json,
    new_table,
    out,
    say,
    stage,
    styled,
)


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command()(demo)


def demo(
    l: int = typer.Option(4, "--l", help="ℓ for every algorithm."),
    out_dir: Path = typer.Option(
        Path("anonlab-demo"), "--out", help="Folder for the releases and their audit reports."
    ),
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists."),
    queries: int = typer.Option(10_000, "--queries", help="COUNT queries in the workload."),
    targets: int = typer.Option(1000, "--targets", help="deFinetti: random targets."),
    sweeps: int = typer.Option(100, "--sweeps", help="deFinetti: sweeps per chain."),
    seed: int = SEED,
    as_json: bool = JSON,
) -> None:
    """Adult: Anatomy, Mondrian and Injector at ℓ = 4, each audited (checks, every attack,
    risk, utility); the releases and HTML reports are written to --out."""
    from anonlab.anonymize import anatomy, injector, mondrian
    from anonlab.release_io import (
        atomic_directory,
        atomic_write_text,
        require_output_free,
        save_release,
    )
    from anonlab.report import audit, write_html
    from anonlab.report.html import render_index
    from anonlab.resources import check_audit_sizes
    from anonlab.table import Table

    require_output_free(out_dir, force)
    qi = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country"]
    sensitive = "occupation"
    with stage("loading Adult", as_json):
        table = Table.from_dataset("adult", quasi_identifiers=qi, sensitive=sensitive)
    check_group_sizes(table.n_rows, l=l)
    # the audit's defaults for what demo does not expose: 4 chains, k up to 6
    check_audit_sizes(table, targets=targets, chains=4, sweeps=sweeps, k_max=6, queries=queries)
    makers: dict[str, Callable] = {
        "anatomy": lambda: anatomy(table, l=l, seed=seed),
        "mondrian": lambda: mondrian(table, l=l, seed=seed),
        "injector": lambda: injector(table, l=l, suppress=True, seed=seed),
    }
    report: dict = {
        "dataset": "adult",
        "rows": table.n_rows,
        "quasi_identifiers": qi,
        "sensitive": sensitive,
        "l": l,
        "seed": seed,
        "out": str(out_dir),
        "releases": {},
    }
    audits = {}
    with atomic_directory(out_dir, force=force) as tmp:
        for name, make in makers.items():
            with stage(f"{name} (ℓ = {l})", as_json):
                t0 = time.perf_counter()
                release = make()
                secs = time.perf_counter() - t0
            save_release(release, tmp / name)
            with stage(f"auditing {name}", as_json):
                t1 = time.perf_counter()
                # `anonlab audit --foreground-attributes 0` runs the paper's full search
                result = audit(
                    release,
                    targets=targets,
                    sweeps=sweeps,
                    queries=queries,
                    foreground_attributes=1,
                    seed=seed,
                )
                audit_secs = time.perf_counter() - t1
            write_html(result, tmp / name / "audit.html", title=f"anonlab demo: {name} on Adult")
            atomic_write_text(tmp / name / "audit.json", json.dumps(result.to_json(), indent=2))
            audits[name] = result
            report["releases"][name] = {
                "scheme": release.scheme,
                "groups": release.n_groups,
                "seconds": round(secs, 4),
                "audit_seconds": round(audit_secs, 2),
                "suppressed_records": release.manifest.get("suppressed_records", 0),
                "report": str(out_dir / name / "audit.html"),
                "findings": [f.to_json() for f in result.findings],
            }
        atomic_write_text(tmp / "index.html", render_index(audits, title="anonlab demo: Adult"))
    if as_json:
        emit_json(report)
        return
    say(
        styled("Adult", "bold"),
        f", {table.n_rows:,} records. Quasi-identifiers: {', '.join(qi)}. "
        f"Sensitive: {sensitive}. ℓ = {l}, seed {seed}.",
    )
    tab = new_table("Records at risk beyond each release's promise (of those examined)")
    tab.add_column("check or attack")
    for name in audits:
        tab.add_column(name, justify="right")
    first = next(iter(audits.values()))
    for i, f0 in enumerate(first.findings):
        cells: list[str | Text] = []
        for result in audits.values():
            f = result.findings[i]
            if f.verdict == "skipped":
                cells.append("–")
            elif f.at_risk is None:
                cells.append(f.headline.split(":")[-1].strip()[:28])
            else:
                color = "green" if f.verdict == "pass" else "red"
                cells.append(Text.assemble(styled(f"{f.at_risk:,}", color), f" / {f.considered:,}"))
        add_row(tab, f0.title, *cells)
    out.print(tab)
    for name, rel in report["releases"].items():
        extra = (
            f", {rel['suppressed_records']:,} records suppressed"
            if rel["suppressed_records"]
            else ""
        )
        say(
            f"{name}: {rel['groups']:,} groups in {rel['seconds']:.2f} s{extra}; audit "
            f"{rel['audit_seconds']:.1f} s; report {rel['report']}"
        )
    say(f"Open {out_dir / 'index.html'} for the reports side by side.")
