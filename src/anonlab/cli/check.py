"""``anonlab check``: the privacy models a release meets."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table as RichTable

from anonlab.cli.common import (
    CLUSTER,
    JSON,
    SENSITIVE_VALUES,
    WORKERS,
    add_row,
    check_group_sizes,
    check_workers_option,
    emit_json,
    format_value,
    new_table,
    open_release,
    out,
    split_list,
    stage,
    styled,
)
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command()(check)


def run_checks(release, k=None, l=None, c=None, t=None, m=None, sensitive_values=None, only=None):
    from anonlab.models.defaults import default_checks

    return default_checks(release, k, l, c, t, m, sensitive_values, only)


def _checks_table(results, title: str) -> RichTable:
    tab = new_table(title)
    for col in ("model", "parameters", "holds", "achieved", "violating groups", "records"):
        tab.add_column(col)
    for r in results:
        params = ", ".join(f"{k}={v}" for k, v in r.parameters.items() if v is not None)
        add_row(
            tab,
            r.model,
            params,
            styled("yes", "green") if r.holds else styled("no", "red"),
            format_value(r.value),
            f"{len(r.violating_groups):,}",
            f"{r.violating_records:,}",
        )
    return tab


def check(
    release_dir: Path = typer.Argument(..., help="A release directory."),
    model: str | None = typer.Option(None, "--model", help="Only these models (comma-separated)."),
    k: int | None = typer.Option(None, "--k"),
    l: int | None = typer.Option(None, "--l"),
    c: float | None = typer.Option(
        None, "--c", help="Recursive (c,ℓ)-diversity's c (default 3), or ck-safety's c."
    ),
    t: float | None = typer.Option(
        None, "--t", help="t-closeness threshold (default: the release's, else 0.2)."
    ),
    m: int | None = typer.Option(None, "--m", help="m-confidentiality's m (default ℓ)."),
    sensitive_values: str | None = SENSITIVE_VALUES,
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Check a release against every privacy model, with each model's violating groups.

    With --cluster/--workers the group statistics are counted by map-reduce on Dask (same
    results)."""
    from anonlab.cli.common import client_from_options

    check_workers_option(workers)
    release = open_release(release_dir)
    check_group_sizes(release.table.n_rows, k=k, l=l, m=m)
    only = split_list(model)
    if only:
        from anonlab import models

        for name in only:
            if name not in models.available():
                raise AnonlabError(
                    f"unknown model {name!r} in --model; available: {models.available()}"
                )
    with client_from_options(cluster, workers) as client:
        if client is None:
            results = run_checks(release, k, l, c, t, m, split_list(sensitive_values), only)
        else:
            from anonlab.distributed.measures import default_checks_distributed

            with stage("checking on the Dask cluster", as_json):
                results = default_checks_distributed(
                    release, k, l, c, t, m, split_list(sensitive_values), only, client=client
                )
    if as_json:
        emit_json(
            {
                "release": str(release_dir),
                "algorithm": release.manifest.get("algorithm"),
                "levels": release.levels,
                "checks": [r.to_json() for r in results],
            }
        )
        return
    out.print(_checks_table(results, f"Privacy models: {release_dir}"))
