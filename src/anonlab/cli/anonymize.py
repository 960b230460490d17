"""``anonlab anonymize``: a table in, a release folder out (any registered anonymizer)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from anonlab.anonymize import registry
from anonlab.cli.common import (
    DATA_OPTIONS,
    EXPORT_KEY_FILE,
    JSON,
    PUBLISHED_FORMAT,
    RESAMPLE,
    SEED,
    SENSITIVE_VALUES,
    DataOptions,
    check_group_sizes,
    check_workers_option,
    column_summary,
    emit_json,
    note,
    parse_levels,
    resample_manifest,
    say,
    schema_manifest,
    schema_sensitive_values,
    stage,
    takes_data_options,
)
from anonlab.errors import AnonlabError
from anonlab.export_order import read_export_key


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command()(anonymize)


@takes_data_options()
def anonymize(
    out_dir: Path = typer.Option(..., "--out", help="Release directory to write."),
    algorithm: str = typer.Option(
        ...,
        "--algorithm",
        help=f"{registry.listing()}.",
    ),
    data: DataOptions = DATA_OPTIONS,
    sensitive_values: str | None = SENSITIVE_VALUES,
    as_one_value: bool = typer.Option(
        False,
        "--as-one-value",
        help=f"{registry.by('as_one_value')}: protect --sensitive-values as one value.",
    ),
    k: int | None = typer.Option(None, "--k", help="k-anonymity: minimum group size."),
    l: int | None = typer.Option(None, "--l", help="ℓ-diversity (frequency form)."),
    m: int | None = typer.Option(None, "--m", help="m-confidentiality (MASK)."),
    model: str | None = typer.Option(
        None,
        "--model",
        help=f"{registry.by('model')}: the privacy model (see `anonlab check`), or several "
        "that must all hold, comma-separated (k-anonymity,distinct-l-diversity).",
    ),
    c: float | None = typer.Option(None, "--c", help=f"{registry.by('c')}: recursive (c,ℓ)'s c."),
    t: float | None = typer.Option(None, "--t", help=f"{registry.by('t')}: t-closeness's t."),
    distance: str | None = typer.Option(
        None,
        "--distance",
        help=f"{registry.by('distance')}: t-closeness distance (equal, ordered, hierarchical).",
    ),
    metric: str | None = typer.Option(
        None,
        "--metric",
        help=f"{registry.by('metric')}: arx-loss, height, precision, discernibility, aecs.",
    ),
    suppression: float | None = typer.Option(
        None,
        "--suppression",
        help=f"{registry.by('suppression')}: largest share of records to suppress (e.g. 0.02).",
    ),
    max_checks: int | None = typer.Option(
        None,
        "--max-checks",
        help=f"{registry.by('max_checks')}: most lattice nodes checked (default 10000).",
    ),
    max_seconds: float | None = typer.Option(
        None,
        "--max-seconds",
        help=f"{registry.by('max_seconds')}: stop the search after this many seconds.",
    ),
    scheme: str | None = typer.Option(
        None,
        "--scheme",
        help=f"generalization or bucketization ({registry.by('scheme')}).",
    ),
    levels: str | None = typer.Option(
        None,
        "--levels",
        help=f"{registry.by('levels')}: one hierarchy level per QI, e.g. age=3,sex=1.",
    ),
    min_exp: float | None = typer.Option(
        None,
        "--min-exp",
        help=f"{registry.by('min_expectation')}: minExp in (0, 1) for mining the negative rules.",
    ),
    max_conditions: int | None = typer.Option(
        None,
        "--max-conditions",
        help=f"{registry.by('max_conditions')}: most conditions per mined rule (default 1).",
    ),
    rules: Path | None = typer.Option(
        None,
        "--rules",
        help=f"{registry.by('rules')}: a negative-rule file (from `anonlab rules mine`).",
    ),
    suppress: bool = typer.Option(
        False,
        "--suppress",
        help=f"{registry.by('suppress')}: withhold records no bucket can protect (counted).",
    ),
    fill: str | None = typer.Option(
        None,
        "--fill",
        help=f"{registry.by('fill')}: 'paper' (default; the printed fill order, which the ASAP "
        "checker shows leaks) or 'random' (ties and fill order at random; docs/asap.md).",
    ),
    resample: int | None = RESAMPLE,
    seed: int = SEED,
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        help="Run on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.1:8786); "
        f"{', '.join(registry.distributed())}. Extra anonlab[distributed].",
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        help="Run on a local Dask cluster of N worker processes (see --cluster).",
    ),
    on_workers: bool = typer.Option(
        False,
        "--on-workers",
        help="With --cluster/--workers and --data FILE (Parquet or CSV): the workers read the "
        "records, anonymize them and write the release part by part; this machine never holds them "
        "(anatomy, hilb, hilb+, hilb++, mondrian, mondrian+, mondrian++; docs/distributed.md).",
    ),
    memory_check: bool = typer.Option(
        True,
        "--memory-check/--no-memory-check",
        help="Refuse up front a job whose estimated memory exceeds what is available "
        "(anonlab.resources; skipped with --cluster/--workers).",
    ),
    export_key_file: Path | None = EXPORT_KEY_FILE,
    published_format: str = PUBLISHED_FORMAT,
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists."),
    as_json: bool = JSON,
) -> None:
    """Anonymize a table and write the release directory (publisher copy + export)."""
    from anonlab.anonymize import anonymize as run
    from anonlab.anonymize import publication_scheme
    from anonlab.cli.common import client_from_options
    from anonlab.release import require_no_value_sets
    from anonlab.release_io import published_file_names, require_output_free, save_release

    require_output_free(out_dir, force)  # fail before any work
    published_file_names("generalization", published_format)  # a known format, before the work
    key = None if export_key_file is None else read_export_key(export_key_file)
    check_workers_option(workers)
    params = dict(
        k=k,
        l=l,
        m=m,
        model=model,
        c=c,
        t=t,
        distance=distance,
        metric=metric,
        suppression=suppression,
        max_checks=max_checks,
        max_seconds=max_seconds,
        scheme=scheme,
        sensitive_values=schema_sensitive_values(sensitive_values, data.schema),
        as_one_value=True if as_one_value else None,
        levels=parse_levels(levels),
        min_expectation=min_exp,
        max_conditions=max_conditions,
        rules=None if rules is None else str(rules),
        suppress=True if suppress else None,
        fill=fill,
    )
    if on_workers:
        from anonlab.cli import anonymize_on_workers as workers_path

        workers_path.check_on_workers_options(data, algorithm, cluster, workers, resample, params)
        with client_from_options(cluster, workers) as client:
            workers_path.run(
                client, data, algorithm, out_dir, seed=seed, published_format=published_format,
                export_key=key, force=force, as_json=as_json, params=params,
            )  # fmt: skip
        return
    if cluster is not None or workers is not None:
        from anonlab.distributed.anonymize import available as distributed_algorithms

        if algorithm not in distributed_algorithms():
            raise AnonlabError(
                f"--algorithm {algorithm!r} has no Dask backend; with --cluster/--workers use "
                f"one of {distributed_algorithms()}"
            )
    local = cluster is None and workers is None
    table = data.load(
        resample=resample,
        seed=seed,
        algorithm=algorithm,
        memory_check=memory_check and local,
        as_json=as_json,
        publishes=True,
    )
    check_group_sizes(table.n_rows, k=k, l=l, m=m)  # before any array is sized from them
    if not table.sensitive_attributes and not as_json:
        note(
            "no sensitive attribute: plain k-anonymity (the release publishes generalized "
            "quasi-identifiers only; --sensitive COL names one)"
        )
    # no group's members' exact values published as a set unless chosen (before the work)
    require_no_value_sets(table, publication_scheme(algorithm, scheme) or "", None)
    if local:  # out-of-memory risk checked before the work
        from anonlab.resources import check_memory

        check_memory(
            table.n_rows, len(table.schema.attributes), algorithm, override=not memory_check
        )
    with client_from_options(cluster, workers) as client:
        t0 = time.perf_counter()
        with stage(f"{algorithm} on {table.n_rows:,} records", as_json):
            if client is None:
                release = run(table, algorithm, seed=seed, **params)
            else:
                from anonlab.distributed import anonymize_distributed

                release = anonymize_distributed(table, algorithm, client, seed=seed, **params)
        elapsed = time.perf_counter() - t0
    if resample is not None:
        release.manifest["resample"] = resample_manifest(resample, seed, data.dataset, data.data)
    if data.schema is not None:  # the schema's roles, types and builder specs (never the data)
        release.manifest["schema_file"] = schema_manifest(data.schema)
    save_release(release, out_dir, force=force, export_key=key, published_format=published_format)
    summary = {
        "out": str(out_dir),
        "algorithm": algorithm,
        "scheme": release.scheme,
        "rows": release.table.n_rows,
        "groups": release.n_groups,
        "seconds": round(elapsed, 4),
        "dropped": release.table.dropped,
        "columns": column_summary(table),
        "suppressed_records": release.manifest.get("suppressed_records", 0),
        "published_files": [
            str(out_dir / "published" / f)
            for f in published_file_names(release.scheme, published_format)
        ],
    }
    if as_json:
        emit_json(summary)
        return
    say(
        f"{algorithm}: {release.table.n_rows:,} records in {release.n_groups:,} groups "
        f"({release.scheme}) in {elapsed:.3f} s -> {out_dir}"
    )
    dropped_rows = release.table.dropped.get("rows_with_missing")
    if dropped_rows:
        say(f"dropped {dropped_rows:,} rows with missing values (recorded in the manifest)")
    search = release.manifest.get("lattice") or {}
    if search.get("note"):  # a heuristic search says it is not proven optimal, with its gap
        say(search["note"])
    suppressed = release.manifest.get("suppressed_records")
    if suppressed:
        say(f"suppressed {suppressed:,} records (withheld; recorded in the manifest)")
    say(f"publish: {', '.join(summary['published_files'])}")
