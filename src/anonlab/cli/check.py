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
                f"{getattr(r, 'n_violating_groups', len(r.violating_groups)):,}",
                f"{r.violating_records:,}",
            )
            for r in results
        ],
    )


def _models_asked(model: str | None) -> list[str] | None:
    """The models of ``--model`` (None: all), each checked to exist."""
    only = split_list(model)
    if only:
        from anonlab import models

        for name in only:
            if name not in models.available():
                raise AnonlabError(
                    f"unknown model {name!r} in --model; available: {models.available()}"
                )
    return only


def _check_written(release_dir, model, k, l, c, t, m, sensitive_values, cluster, workers,
                   as_json) -> None:  # fmt: skip
    """A release the workers wrote (``anonlab anonymize --on-workers``): checked from its part
    files by map-reduce on the cluster (:mod:`anonlab.distributed.written_checks`)."""
    from anonlab.cli.common import client_from_options, require_cluster_for_written
    from anonlab.distributed.written_checks import check_written_release

    require_cluster_for_written(release_dir, cluster, workers, "checked")
    only = _models_asked(model)
    with client_from_options(cluster, workers) as client:
        with stage("checking the written parts on the Dask cluster", as_json):
            results = check_written_release(
                client, release_dir, k=k, l=l, c=c, t=t, m=m,
                sensitive_values=split_list(sensitive_values), only=only,
            )  # fmt: skip
    if as_json:
        emit_json({"release": str(release_dir), "checks": [r.to_json() for r in results]})
        return
    _print_checks(results, f"Privacy models: {release_dir} (from its written parts)")


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
    results). A release written by a cluster's workers (anonymize --on-workers) is checked on a
    cluster from its part files (sealed, each file verified where it is read)."""
    from anonlab.cli.common import client_from_options
    from anonlab.distributed.written_release import is_written

    if is_written(release_dir):
        _check_written(release_dir, model, k, l, c, t, m, sensitive_values, cluster, workers,
                       as_json)  # fmt: skip
        return
    release = open_release_with_workers(release_dir, workers)
    check_group_sizes(release.table.n_rows, k=k, l=l, m=m)
    only = _models_asked(model)
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
