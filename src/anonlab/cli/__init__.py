"""The ``anonlab`` command line: a thin layer over the public API.

One flag vocabulary across commands: ``--dataset NAME | --data FILE`` for the original table,
``--qi a,b,c``, ``--sensitive COL``, ``--sensitive-values v1,v2``, ``--algorithm``, ``--k``,
``--l``, ``--seed``, ``--out DIR``, ``--force``, ``--json``. Bad input prints one line naming the
parameter, column or value and exits with code 2, with no traceback and no partial output.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import typer
from rich.table import Table as RichTable
from rich.text import Text

from anonlab import __version__
from anonlab.anonymize import registry
from anonlab.cli.common import (
    CLUSTER,
    DATA,
    DATASET,
    DROP_MISSING,
    EXPORT_KEY_FILE,
    HIERARCHIES,
    HIERARCHY_SET,
    IDENTIFIERS,
    INSENSITIVE,
    JSON,
    QI,
    RESAMPLE,
    SCHEMA,
    SEED,
    SENSITIVE,
    SENSITIVE_VALUES,
    TYPES,
    UNASSIGNED,
    VALUE_SETS,
    WORKERS,
    add_column,
    add_row,
    app,
    attack_app,
    check_group_sizes,
    check_workers_option,
    column_summary,
    drop_notes,
    emit_json,
    flush_notes,
    load_table,
    new_table,
    open_release,
    out,
    parse_levels,
    resample_manifest,
    say,
    schema_manifest,
    schema_sensitive_values,
    split_list,
    stage,
    styled,
)
from anonlab.errors import AnonlabError
from anonlab.export_order import read_export_key


def main() -> None:
    """Entry point: run the app, turning anonlab's input errors into exit code 2. What loading
    decided about the columns (:func:`anonlab.cli.common.note`) is printed after a command's
    output when it succeeds, never when it fails."""
    drop_notes()
    try:
        _add_attack_commands()
        app(standalone_mode=False)
        flush_notes()
    except AnonlabError as exc:
        drop_notes()  # plain text: never read as console markup
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)
    except MemoryError as exc:  # a size no up-front check foresaw: still no traceback
        sys.stderr.write(
            f"error: out of memory ({exc or 'MemoryError'}); the command stopped (outputs are "
            "written atomically, so none is half-written). Use smaller sizes (--resample, "
            "--queries, --targets, --chains, --k...), or run on Dask (--workers N or --cluster "
            "ADDRESS)\n"
        )
        sys.exit(2)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code)
    except Exception as exc:  # usage errors of the click that typer bundles, abort, bad files
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(2)
        if type(exc).__name__ == "Abort":
            sys.stderr.write("aborted\n")
            sys.exit(1)
        if isinstance(exc, OSError):
            sys.stderr.write(f"error: {exc}\n")
            sys.exit(2)
        raise


# Commands that live in their own modules (one per topic). Each module defines
# ``register(app, attack_app)``; add one line per module here.
_COMMAND_MODULES: tuple[str, ...] = (
    "definetti",
    "rules",
    "rules_attack",
    "algorithm",
    "audit",
    "compare",
    "reproduce",
    "hierarchy",
    "init",
    "attack",
)


def _register_command_modules() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        importlib.import_module(f"anonlab.cli.{name}").register(app, attack_app)
    _add_attack_commands()


def _add_attack_commands() -> None:
    """``attack NAME`` for every registered attack without a hand-written command; run again
    when the command line starts, for attacks registered after import."""
    from anonlab.cli.attack import add_attack_commands

    add_attack_commands(attack_app)


# ---------------------------------------------------------------------- commands
@app.command()
def version() -> None:
    """Print anonlab's version."""
    out.print(__version__)


@app.command()
def datasets(as_json: bool = JSON) -> None:
    """List the bundled datasets with their size, provenance and license."""
    from anonlab import datasets as ds

    infos = [ds.info(n) for n in ds.names()]
    if as_json:
        emit_json(
            [
                {
                    "name": i.name,
                    "rows": i.rows,
                    "description": i.description,
                    "source": i.source,
                    "license": i.license,
                    "citation": i.citation,
                    "default_qi": list(i.default_qi),
                    "default_sensitive": i.default_sensitive,
                    "hierarchy_sets": list(i.hierarchy_sets),
                }
                for i in infos
            ]
        )
        return
    t = new_table("Bundled datasets (shipped in the package; nothing is downloaded)")
    for col in ("name", "rows", "default QI / sensitive", "hierarchy sets", "license"):
        t.add_column(col)
    for i in infos:
        add_row(
            t,
            i.name,
            f"{i.rows:,}",
            f"{', '.join(i.default_qi)} / {i.default_sensitive}",
            ", ".join(i.hierarchy_sets),
            i.license,
        )
    out.print(t)
    for i in infos:
        say(styled(i.name, "bold"), f": {i.citation}")


@app.command()
def anonymize(
    out_dir: Path = typer.Option(..., "--out", help="Release directory to write."),
    algorithm: str = typer.Option(
        ...,
        "--algorithm",
        help=f"{registry.listing()}.",
    ),
    dataset: str | None = DATASET,
    data: Path | None = DATA,
    qi: str | None = QI,
    sensitive: str | None = SENSITIVE,
    insensitive: str | None = INSENSITIVE,
    identifiers: str | None = IDENTIFIERS,
    unassigned: str = UNASSIGNED,
    types: str | None = TYPES,
    schema: Path | None = SCHEMA,
    value_sets: str | None = VALUE_SETS,
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
        None, "--model", help=f"{registry.by('model')}: the privacy model (see `anonlab check`)."
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
    hierarchies: Path | None = HIERARCHIES,
    hierarchy_set: str | None = HIERARCHY_SET,
    drop_missing: bool = DROP_MISSING,
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
    memory_check: bool = typer.Option(
        True,
        "--memory-check/--no-memory-check",
        help="Refuse up front a job whose estimated memory exceeds what is available "
        "(anonlab.resources; skipped with --cluster/--workers).",
    ),
    export_key_file: Path | None = EXPORT_KEY_FILE,
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists."),
    as_json: bool = JSON,
) -> None:
    """Anonymize a table and write the release directory (publisher copy + export)."""
    from anonlab.anonymize import anonymize as run
    from anonlab.anonymize import publication_scheme
    from anonlab.cli.common import client_from_options
    from anonlab.release import require_no_value_sets
    from anonlab.release_io import require_output_free, save_release

    require_output_free(out_dir, force)  # fail before any work
    key = None if export_key_file is None else read_export_key(export_key_file)
    check_workers_option(workers)
    if cluster is not None or workers is not None:
        from anonlab.distributed.anonymize import available as distributed_algorithms

        if algorithm not in distributed_algorithms():
            raise AnonlabError(
                f"--algorithm {algorithm!r} has no Dask backend; with --cluster/--workers use "
                f"one of {distributed_algorithms()}"
            )
    local = cluster is None and workers is None
    table = load_table(
        dataset,
        data,
        qi,
        sensitive,
        hierarchies,
        hierarchy_set,
        drop_missing,
        resample,
        seed,
        algorithm=algorithm,
        memory_check=memory_check and local,
        insensitive=insensitive,
        identifiers=identifiers,
        unassigned=unassigned,
        types=types,
        as_json=as_json,
        publishes=True,
        schema=schema,
        value_sets=value_sets,
    )
    check_group_sizes(table.n_rows, k=k, l=l, m=m)  # before any array is sized from them
    # no group's members' exact values published as a set unless chosen (before the work)
    require_no_value_sets(table, publication_scheme(algorithm, scheme) or "", None)
    if local:  # out-of-memory risk checked before the work
        from anonlab.resources import check_memory

        check_memory(
            table.n_rows, len(table.schema.attributes), algorithm, override=not memory_check
        )
    if table.sensitive is None:
        raise AnonlabError("--sensitive is required to anonymize")
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
        scheme=scheme,
        sensitive_values=schema_sensitive_values(sensitive_values, schema),
        as_one_value=True if as_one_value else None,
        levels=parse_levels(levels),
        min_expectation=min_exp,
        max_conditions=max_conditions,
        rules=None if rules is None else str(rules),
        suppress=True if suppress else None,
        fill=fill,
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
        release.manifest["resample"] = resample_manifest(resample, seed, dataset, data)
    if schema is not None:  # the schema's roles, types and builder specs (never the data)
        release.manifest["schema_file"] = schema_manifest(schema)
    save_release(release, out_dir, force=force, export_key=key)
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
            for f in (
                ["generalized.csv"] if release.scheme == "generalization" else ["qit.csv", "st.csv"]
            )
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
    suppressed = release.manifest.get("suppressed_records")
    if suppressed:
        say(f"suppressed {suppressed:,} records (withheld; recorded in the manifest)")
    say(f"publish: {', '.join(summary['published_files'])}")


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
            _fmt(r.value),
            f"{len(r.violating_groups):,}",
            f"{r.violating_records:,}",
        )
    return tab


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


@app.command()
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


def run_utility(release, queries: int, qd: int, selectivity: float, seed: int) -> dict:
    from anonlab.utility.defaults import default_measures

    return default_measures(release, queries, qd, selectivity, seed)


#: The numbers each measure is summarised by in tables (the JSON has everything).
HEADLINES = {
    "workload-error": [
        ("mean relative error", "mean_relative_error"),
        ("median relative error", "median_relative_error"),
    ],
    "discernibility": [("discernibility Σ|G|²", "value")],
    "average-class-size": [("average class size", "value")],
    "ncp": [("normalized certainty penalty", "value")],
    "arx-loss": [("ARX Loss", "value")],
    "prosecutor-risk": [
        ("highest re-identification risk", "highest"),
        ("average re-identification risk", "average"),
        ("share of records with risk > 0.2", "records_at_risk"),
    ],
}


def _headlines(res: dict) -> list[tuple[str, object]]:
    rows = []
    for name, r in res.items():
        j = r.to_json()
        rows.extend((label, j.get(key)) for label, key in HEADLINES.get(name, [(name, "value")]))
    return rows


def _utility_table(results: dict[str, dict], title: str) -> RichTable:
    """Measures as rows, one column per release."""
    tab = new_table(title)
    tab.add_column("measure")
    columns = {name: dict(_headlines(res)) for name, res in results.items()}
    for name in columns:
        add_column(tab, name, justify="right")  # release paths
    labels = list(next(iter(columns.values())))
    for label in labels:
        add_row(tab, label, *(_fmt(col.get(label)) for col in columns.values()))
    return tab


@app.command()
def utility(
    release_dir: Path = typer.Argument(..., help="A release directory."),
    queries: int = typer.Option(10_000, "--queries", help="Number of COUNT queries."),
    qd: int = typer.Option(3, "--qd", help="Quasi-identifiers per query."),
    selectivity: float = typer.Option(0.05, "--selectivity", help="Expected selectivity s."),
    seed: int = SEED,
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Measure utility and risk: query workload error, information loss, re-identification risk.

    With --cluster/--workers the workload's answers and the group statistics are computed by
    map-reduce on Dask (same results; bucketization estimates to ~1e-15 relative)."""
    from anonlab.cli.common import client_from_options
    from anonlab.resources import check_queries

    check_workers_option(workers)
    release = open_release(release_dir)
    check_queries(release, queries)  # the workload's memory, before it is drawn
    with client_from_options(cluster, workers) as client, stage(f"{queries:,} queries", as_json):
        if client is None:
            res = run_utility(release, queries, qd, selectivity, seed)
        else:
            from anonlab.distributed.measures import default_measures_distributed

            res = default_measures_distributed(
                release, queries, qd, selectivity, seed, client=client
            )
    if as_json:
        emit_json({"release": str(release_dir), **{k: v.to_json() for k, v in res.items()}})
        return
    out.print(_utility_table({str(release_dir): res}, "Utility and risk"))
    w = res["workload-error"].to_json()
    say(
        f"workload: {w['n_queries']:,} COUNT queries, qd = {qd}, selectivity = {selectivity}, "
        f"seed = {seed} ({w['n_redrawn']:,} redrawn with an empty answer)"
    )


@app.command("import")
def import_release(
    out_dir: Path = typer.Option(..., "--out", help="Release directory to write."),
    generalized: Path | None = typer.Option(
        None, "--generalized", help="A generalized CSV (e.g. ARX output)."
    ),
    qit: Path | None = typer.Option(
        None, "--qit", help="Anatomy's QI table (with a group column)."
    ),
    st: Path | None = typer.Option(
        None, "--st", help="Anatomy's sensitive table (group, value, count)."
    ),
    group_column: str | None = typer.Option(
        None, "--group-column", help="Group id column, if any."
    ),
    sep: str | None = typer.Option(
        None,
        "--sep",
        help="Field separator of the imported CSV files (';', ',', 'tab', ...); default: "
        "detected from each file's header line (ARX writes ';').",
    ),
    withhold_suppressed: bool = typer.Option(
        False,
        "--withhold-suppressed",
        help="--generalized: rows whose every quasi-identifier is '*' (ARX's suppressed "
        "records) are withheld from the release and counted as suppressed, as ARX counts them.",
    ),
    dataset: str | None = DATASET,
    data: Path | None = DATA,
    qi: str | None = QI,
    sensitive: str | None = SENSITIVE,
    insensitive: str | None = INSENSITIVE,
    identifiers: str | None = IDENTIFIERS,
    unassigned: str = UNASSIGNED,
    types: str | None = TYPES,
    schema: Path | None = SCHEMA,
    value_sets: str | None = VALUE_SETS,
    hierarchies: Path | None = HIERARCHIES,
    hierarchy_set: str | None = HIERARCHY_SET,
    export_key_file: Path | None = EXPORT_KEY_FILE,
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists."),
    as_json: bool = JSON,
) -> None:
    """Import a release made elsewhere (generalized CSV or QIT/ST pair) against its original.

    ARX's output imports as ARX writes it: ';'-separated (detected, or --sep) and labelled
    through the hierarchies given (--hierarchies, --hierarchy-set).
    """
    from anonlab.release_io import (
        import_bucketized,
        import_generalized,
        require_output_free,
        save_release,
    )

    if sep is not None:
        sep = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";"}.get(sep.lower(), sep)
        if len(sep) != 1:
            raise AnonlabError(
                f"--sep must be one character (e.g. ';' or ','; 'tab' for a tab), got {sep!r}"
            )
    if withhold_suppressed and generalized is None:
        raise AnonlabError("--withhold-suppressed applies to --generalized files only")
    require_output_free(out_dir, force)  # fail before any work
    key = None if export_key_file is None else read_export_key(export_key_file)
    table = load_table(
        dataset,
        data,
        qi,
        sensitive,
        hierarchies,
        hierarchy_set,
        insensitive=insensitive,
        identifiers=identifiers,
        unassigned=unassigned,
        types=types,
        as_json=as_json,
        publishes=True,
        schema=schema,
        value_sets=value_sets,
    )
    if generalized is not None and qit is None and st is None:
        release = import_generalized(
            generalized,
            table,
            group_column=group_column,
            sep=sep,
            withhold_suppressed=withhold_suppressed,
        )
    elif generalized is None and qit is not None and st is not None:
        release = import_bucketized(qit, st, table, group_column=group_column or "group", sep=sep)
    else:
        raise AnonlabError("give either --generalized FILE or both --qit FILE and --st FILE")
    if schema is not None:  # the schema's roles, types and builder specs (never the data)
        release.manifest["schema_file"] = schema_manifest(schema)
    save_release(release, out_dir, force=force, export_key=key)
    summary = {
        "out": str(out_dir),
        "scheme": release.scheme,
        "rows": release.table.n_rows,
        "groups": release.n_groups,
        "columns": column_summary(table),
    }
    suppressed = release.manifest.get("suppressed_records")
    if suppressed is not None:
        summary["suppressed_records"] = suppressed
    if release.levels is not None:
        summary["levels"] = dict(release.levels)
    if as_json:
        emit_json(summary)
    else:
        say(
            f"imported {release.table.n_rows:,} records in {release.n_groups:,} groups "
            f"({release.scheme})"
            + (f", {suppressed:,} suppressed records withheld" if suppressed is not None else "")
            + f" -> {out_dir}"
        )


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


@attack_app.command("worst-case")
def attack_worst_case(
    release_dir: Path = typer.Argument(..., help="A release directory."),
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
    release = open_release(release_dir)
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
    tab = new_table(f"Maximum disclosure under k {language} ({release_dir})")
    tab.add_column("k", justify="right")
    tab.add_column("max disclosure", justify="right")
    # Past the k where the curve reaches 1 it stays there: one row for the rest of the range.
    last = next((i for i, p in enumerate(points) if p["max_disclosure"] >= 1.0), len(points))
    for p in points[: last + 1]:
        add_row(tab, str(p["k"]), f"{p['max_disclosure']:.4f}")
    if last + 1 < len(points):
        add_row(tab, f"{points[last + 1]['k']}..{hi}", "1.0000")
    out.print(tab)
    say(f"Witness at k = {hi}: {worst.explain()}")


@attack_app.command("foreground")
def attack_foreground(
    release_dir: Path = typer.Argument(..., help="A release directory."),
    sensitive_values: str | None = typer.Option(
        None,
        "--sensitive-values",
        help="The sensitive value set, one target (default: the release's, else each value).",
    ),
    r: float = typer.Option(2.0, "--r", help="A record is problematic when p* > 1/r (r >= 2)."),
    epsilon: float = typer.Option(0.01, "--epsilon", help="Hoeffding ε, in (0, 1)."),
    sigma: float = typer.Option(0.9, "--sigma", help="Hoeffding σ, in (0, 1)."),
    small_signature: str = typer.Option(
        "uniform-half", "--small-signature", help="uniform-half, base-rate or pooled."
    ),
    records: Path | None = typer.Option(
        None, "--records", help="Write per-record results (CSV) to this file."
    ),
    force: bool = typer.Option(False, "--force", help="Replace the --records file if it exists."),
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Foreground knowledge (Wong et al.): global distributions mined from the release itself.

    With --cluster/--workers the signature counts are map-reduced on Dask and the mining runs
    here on them (same results)."""
    from anonlab._validation import check_float
    from anonlab.attacks import foreground_attack as single_machine_attack
    from anonlab.cli.common import client_from_options

    def foreground_attack(release, values, **options):
        if cluster is None and workers is None:
            return single_machine_attack(release, values, **options)
        from anonlab.distributed.measures import foreground_attack_distributed

        with client_from_options(cluster, workers) as client:
            return foreground_attack_distributed(release, values, client=client, **options)

    from anonlab.atomic_output import require_file_free

    require_file_free(records, "--records", force)  # before any work
    check_workers_option(workers)
    release = open_release(release_dir)
    if check_float("r", r) < 2:
        raise AnonlabError(f"parameter 'r' must be >= 2 (problematic means p* > 1/r), got {r}")
    for name, value in (("epsilon", epsilon), ("sigma", sigma)):
        if not 0 < check_float(name, value) < 1:
            raise AnonlabError(f"parameter {name!r} must be in (0, 1), got {value}")
    values = split_list(sensitive_values) or release.manifest.get("parameters", {}).get(
        "sensitive_values"
    )
    with stage("mining global distributions", as_json):
        result = foreground_attack(
            release, values, epsilon=epsilon, sigma=sigma, small_signature=small_signature
        )
    score = result.score(release, r)
    worst = int(np.argmax(result.p_star))
    attrs = result.attribute_sets[int(result.best_attributes[worst])]
    target = result.targets[int(result.best_target[worst])]
    signature = ", ".join(f"{a} = {release.table.column(a)[worst]}" for a in attrs) or "anyone"
    strongest = (
        f"a person with {signature} in group {int(release.group[worst])} has "
        f"{release.sensitive} in {{{', '.join(target)}}} with probability "
        f"{result.p_star[worst]:.3f} (random worlds: {result.baseline[worst]:.3f})"
    )
    summary = {
        "release": str(release_dir),
        "attack": "foreground",
        "targets": [list(t) for t in result.targets],
        "attribute_sets": [list(a) for a in result.attribute_sets],
        "min_support": result.min_support,
        "small_signature": result.small_signature,
        "r": r,
        "problematic_records": int(result.problematic(r).sum()),
        **score,
        "average_delta": result.average_delta(release)["mean"],
        "strongest_inference": strongest,
    }
    if records is not None:
        from anonlab.formula_guard import guard_frame
        from anonlab.release_io import atomic_write_text

        frame = pd.DataFrame(
            {
                "record": np.arange(release.table.n_rows),
                "group": release.group,
                "p_star": result.p_star,
                "baseline": result.baseline,
                "attributes": [
                    "|".join(result.attribute_sets[i]) for i in result.best_attributes.tolist()
                ],
                "problematic": result.problematic(r),
            }
        )
        atomic_write_text(records, guard_frame(frame).to_csv(index=False))
    if as_json:
        emit_json(summary)
        return
    tab = new_table(f"Foreground-knowledge attack ({release_dir})")
    tab.add_column("measure")
    tab.add_column("value", justify="right")
    for key in (
        "problematic_records",
        "sensitive_tuples",
        "recall",
        "false_positive",
        "average_breach",
        "average_baseline",
        "average_delta",
    ):
        add_row(tab, key.replace("_", " "), _fmt(summary[key]))
    out.print(tab)
    say(f"Strongest inference: {strongest}.")
    say(
        f"{len(result.attribute_sets)} attribute sets with signatures of at least "
        f"{result.min_support:,} records (ε = {epsilon}, σ = {sigma}); small signatures: "
        f"{result.small_signature}; problematic means p* > 1/{r:g}."
    )


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


@app.command()
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


if __name__ == "__main__":  # pragma: no cover
    main()


_register_command_modules()
