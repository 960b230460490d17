"""``anonlab check``: the privacy models a release meets."""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import (
    CLUSTER,
    JSON,
    RELEASE_DIR,
    SENSITIVE_VALUES,
    WORKERS,
    check_group_sizes,
    emit_json,
    format_value,
    open_release_with_workers,
    print_table,
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


def _print_checks(results, title: str) -> None:
    print_table(
        title,
        ["model", "parameters", "holds", "achieved", "violating groups", "records"],
        [
            (
                r.model,
                ", ".join(f"{k}={v}" for k, v in r.parameters.items() if v is not None),
                styled("yes", "green") if r.holds else styled("no", "red"),
                format_value(r.value),
                f"{len(r.violating_groups):,}",
                f"{r.violating_records:,}",
            )
            for r in results
        ],
    )


def check(
    release_dir: Path = RELEASE_DIR,
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

    release = open_release_with_workers(release_dir, workers)
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
    _print_checks(results, f"Privacy models: {release_dir}")
