"""``anonlab utility``: information loss, the COUNT-query workload and re-identification risk of a
release."""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import (
    ATTACKED,
    CLUSTER,
    JSON,
    RELEASE_DIR,
    SEED,
    WORKERS,
    emit_json,
    open_release_with_workers,
    print_measures,
    say,
    stage,
)


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command()(utility)


def run_utility(release, queries: int, qd: int, selectivity: float, seed: int) -> dict:
    from anonlab.utility.defaults import default_measures

    return default_measures(release, queries, qd, selectivity, seed)


def run_risk(release, population=None, sampling_fraction: float | None = None) -> dict:
    """The re-identification measures (anonlab.utility.reidentification): the three attacker
    models and sample uniques, population uniques, and k-map when a population is given."""
    from anonlab.utility import measure

    res = {
        "reidentification-risk": measure(release, "reidentification-risk", population=population),
        "population-uniqueness": measure(
            release, "population-uniqueness", sampling_fraction=sampling_fraction
        ),
    }
    if population is not None:
        res["k-map"] = measure(release, "k-map", population=population)
    return res


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
        ("per group 1/|group|: highest risk", "highest"),
        ("per group 1/|group|: average risk", "average"),
        ("per group: share of records with risk > 0.2", "records_at_risk"),
    ],
    "reidentification-risk": [
        ("sample uniques (share of records)", "sample_uniques.fraction"),
        ("prosecutor: highest risk (classes)", "prosecutor.highest"),
        ("prosecutor: average risk (classes)", "prosecutor.average"),
        ("journalist: highest risk", "journalist.highest"),
        ("journalist: average risk", "journalist.average"),
        ("marketer: expected share re-identified", "marketer.expected_share"),
    ],
    "population-uniqueness": [("population uniques (share, Dankar's rule)", "fraction")],
    "k-map": [("k-map: smallest matching population class", "k_map")],
}


def _lookup(j: dict, key: str) -> object:
    """A value of a measure's JSON by a dotted key (``"prosecutor.highest"``)."""
    for part in key.split("."):
        j = j.get(part) if isinstance(j, dict) else None
    return j


def _headlines(res: dict) -> list[tuple[str, object]]:
    rows = []
    for name, r in res.items():
        j = r.to_json()
        rows.extend(
            (label, _lookup(j, key)) for label, key in HEADLINES.get(name, [(name, "value")])
        )
    return rows


def _print_utility(results: dict[str, dict], title: str) -> None:
    """Measures as rows, one column per release (named by its path)."""
    columns = {name: dict(_headlines(res)) for name, res in results.items()}
    labels = list(next(iter(columns.values())))
    print_measures(
        title,
        list(columns),
        [(label, *(col.get(label) for col in columns.values())) for label in labels],
    )


def _say_workload(res: dict, qd: int, selectivity: float, seed: int) -> None:
    if "workload-error" in res:
        w = res["workload-error"].to_json()
        say(
            f"workload: {w['n_queries']:,} COUNT queries, qd = {qd}, selectivity = "
            f"{selectivity}, seed = {seed} ({w['n_redrawn']:,} redrawn with an empty answer)"
        )
    else:
        say("no COUNT-query workload: its queries need a sensitive attribute (plain k-anonymity)")


#: Why a release the workers wrote takes no population table (said where it is refused).
NO_POPULATION_FROM_PARTS = (
    "a population table is matched against the published classes' records, which stay on the "
    "workers: measure a release made on one machine for journalist/marketer risk against a "
    "population and k-map"
)


def _utility_written(release_dir, sensitive, queries, qd, selectivity, seed, population,
                     sampling_fraction, cluster, workers, as_json) -> None:  # fmt: skip
    """A release the workers wrote: the workload, information loss and re-identification
    measures by map-reduce over its part files (:mod:`anonlab.distributed.written_measures`),
    on the cluster."""
    from anonlab.cli.common import client_from_options, require_cluster_for_written
    from anonlab.distributed.written_measures import (
        open_written_parts,
        record_groups,
        risk_of_written_release,
        utility_of_written_release,
    )
    from anonlab.errors import AnonlabError
    from anonlab.resources import check_queries

    require_cluster_for_written(release_dir, cluster, workers, "measured")
    if population is not None:
        raise AnonlabError(f"--population: {NO_POPULATION_FROM_PARTS}")
    with client_from_options(cluster, workers) as client:
        with stage("reading the written parts on the Dask cluster", as_json):
            parts = open_written_parts(client, release_dir)
        own = parts.release.table.sensitive
        if sensitive is not None and sensitive != own:
            raise AnonlabError(
                f"--sensitive {sensitive!r}: the release's sensitive attribute is {own!r}"
            )
        check_queries(parts.release, queries)
        with stage(f"{queries:,} queries", as_json):
            res = utility_of_written_release(client, parts, queries, qd, selectivity, seed)
        with stage("re-identification: the published classes", as_json):
            risk, _ = risk_of_written_release(
                client, record_groups(client, parts), sampling_fraction
            )
        res.update(risk)
    _report(release_dir, res, qd, selectivity, seed, as_json, "Utility and risk (from its "
            "written parts)")  # fmt: skip


def _report(release_dir, res: dict, qd, selectivity, seed, as_json: bool, title: str) -> None:
    """Print (or emit as JSON) what ``anonlab utility`` measured."""
    if as_json:
        emit_json({"release": str(release_dir), **{k: v.to_json() for k, v in res.items()}})
        return
    _print_utility({str(release_dir): res}, title)
    _say_workload(res, qd, selectivity, seed)
    risk = res["reidentification-risk"]
    say(risk.statement)
    if not risk.journalist.population:
        say(f"journalist and marketer: {risk.journalist.note}")
    pu = res["population-uniqueness"]
    say(
        f"population uniques: {pu.model.source}, N = {pu.model.population_size:,}; "
        f"{pu.estimate.note}"
    )


def utility(
    release_dir: Path = RELEASE_DIR,
    sensitive: str | None = ATTACKED,
    queries: int = typer.Option(10_000, "--queries", help="Number of COUNT queries."),
    qd: int = typer.Option(3, "--qd", help="Quasi-identifiers per query."),
    selectivity: float = typer.Option(0.05, "--selectivity", help="Expected selectivity s."),
    seed: int = SEED,
    population: Path | None = typer.Option(
        None,
        "--population",
        help="A population table (CSV or Parquet) with the release's quasi-identifier columns "
        "that contains every released person: journalist and marketer risk against it, and "
        "k-map. Without it the release is its own population (ARX's fallback).",
    ),
    sampling_fraction: float | None = typer.Option(
        None,
        "--sampling-fraction",
        help="n / N, the share of the population the release holds, for the population-uniques "
        "estimators (default 0.01, ARX's).",
    ),
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Measure utility and risk: query workload error, information loss, re-identification risk.

    Re-identification: prosecutor, journalist and marketer risk and sample uniques of the
    published classes (exact quasi-identifiers for a bucketized release, which shows who is in
    the data), population uniques estimated by Dankar et al.'s rule (Pitman, Zayatz, SNB), and
    k-map with --population.

    With --cluster/--workers the workload's answers and the group statistics are computed by
    map-reduce on Dask (same results; bucketization estimates to ~1e-15 relative); the
    re-identification measures are computed here. A release written by a cluster's workers
    (anonymize --on-workers) is measured on a cluster from its part files (without
    --population)."""
    from anonlab.cli.common import client_from_options
    from anonlab.distributed.written_release import is_written
    from anonlab.resources import check_queries

    if is_written(release_dir):
        _utility_written(release_dir, sensitive, queries, qd, selectivity, seed, population,
                         sampling_fraction, cluster, workers, as_json)  # fmt: skip
        return
    release = open_release_with_workers(release_dir, workers, sensitive)
    frame = None
    if population is not None:
        from anonlab.table import read_frame

        frame = read_frame(population)
    check_queries(release, queries)  # the workload's memory, before it is drawn
    with client_from_options(cluster, workers) as client, stage(f"{queries:,} queries", as_json):
        if client is None:
            res = run_utility(release, queries, qd, selectivity, seed)
        else:
            from anonlab.distributed.measures import default_measures_distributed

            res = default_measures_distributed(
                release, queries, qd, selectivity, seed, client=client
            )
        res.update(run_risk(release, frame, sampling_fraction))
    _report(release_dir, res, qd, selectivity, seed, as_json, "Utility and risk")
