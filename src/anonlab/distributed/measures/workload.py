"""The COUNT-query workload (Xiao and Tao's utility measure) and the utility measures by
map-reduce.

The actual answers of each batch of drawn queries (integers, summed; the draws themselves are
made on the driver from the one seeded generator, so the workload is the same), the histogram,
and the published generalized values (per group the smallest and largest code of each
quasi-identifier, reduced by min/max, plus per-group value presence for categorical attributes
without a hierarchy). Under bucketization the estimate is a sum over records, so each block
returns its partial estimate (floats: equal to the single-machine value up to rounding, checked
to 1e-12 relative).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonlab.distributed.mapreduce import (
    Partition,
    map_reduce,
)
from anonlab.distributed.measures.checks import (
    GroupStatistics,
    group_statistics_distributed,
    release_with_statistics,
)
from anonlab.distributed.measures.partitions import Partitions, release_parts, table_parts
from anonlab.grouping import group_histogram, group_min_max
from anonlab.release import Release
from anonlab.schema import Kind
from anonlab.table import Table


def _map_actual_counts(part: Partition, workload: Any) -> dict:
    from anonlab.utility.workload import actual_counts

    return {"actual": actual_counts(part.table, workload)}


def _actual_counts(parts: Partitions, workload: Any, client: Any) -> np.ndarray:
    return map_reduce(_map_actual_counts, parts, workload, {"actual": "sum"}, client)["actual"]


def generate_workload_distributed(
    table: Table,
    *args: Any,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **kwargs: Any,
) -> Any:
    """:func:`anonlab.utility.workload.generate_workload` (with its arguments: ``n_queries``,
    ``qd``, ``selectivity``, ``seed``, ``max_redrawn``) with the actual answers of each batch
    of drawn queries counted by map-reduce (integer sums: the same queries are kept and
    redrawn).

    The single-machine generator draws (one generator seeded with ``seed``, same batches); only
    the counting is distributed, so the workload (predicates, answers, ``n_redrawn``) is the
    same.
    """
    from anonlab.utility.workload import generate_workload

    parts = table_parts(table, client, partitions, n_partitions)
    return generate_workload(
        table, *args, answer=lambda batch: _actual_counts(parts, batch, client), **kwargs
    )


def _presence_attributes(release: Release) -> list[str]:
    """Quasi-identifiers whose published value is the set of values present in the group."""
    if release.levels is not None:
        return []
    return [
        q
        for q in release.quasi_identifiers
        if release.table.schema[q].kind is not Kind.NUMERIC
        and release.table.schema[q].hierarchy is None
    ]


def _map_published_ranges(part: Partition, shared: tuple[int, list[str]]) -> dict:
    """Per group and quasi-identifier the smallest and largest code (sentinels where the block
    has no member of the group), and value counts for the presence attributes."""
    n_groups, presence = shared
    present = np.bincount(part.group, minlength=n_groups) > 0
    out = {}
    for q in part.table.quasi_identifiers:
        lo, hi = group_min_max(part.group, part.table.codes[q], n_groups)
        lo = lo.astype(np.int64)
        hi = hi.astype(np.int64)
        lo[~present] = np.iinfo(np.int64).max
        hi[~present] = -1
        out[f"lo:{q}"] = lo
        out[f"hi:{q}"] = hi
    for q in presence:
        size = part.table.domain_size(q)
        out[f"presence:{q}"] = group_histogram(part.group, part.table.codes[q], n_groups, size)
    return out


def _published_release(release: Release, parts: Partitions, client: Any) -> Release:
    """A release with one or a few representative records per group that publishes exactly the
    same generalized values as ``release`` (same per-group code range, same values present).

    Its ``generalization`` is computed by :class:`~anonlab.release.Release` itself from the
    reduced per-group extremes, so labels, ranges and masks are those of the single machine.
    """
    presence = _presence_attributes(release)
    how = {f"{e}:{q}": ("min" if e == "lo" else "max") for q in release.quasi_identifiers
           for e in ("lo", "hi")}  # fmt: skip
    how.update({f"presence:{q}": "sum" for q in presence})
    out = map_reduce(_map_published_ranges, parts, (release.n_groups, presence), how, client)
    table = release.table
    n_groups = release.n_groups
    ids = np.arange(n_groups, dtype=np.int64)
    blocks_group = [ids, ids]
    blocks = {q: [out[f"lo:{q}"], out[f"hi:{q}"]] for q in release.quasi_identifiers}
    for q in presence:
        g, v = np.nonzero(out[f"presence:{q}"])
        blocks_group.append(g.astype(np.int64))
        for other in release.quasi_identifiers:
            blocks[other].append(v if other == q else out[f"lo:{other}"][g])
    group = np.concatenate(blocks_group)
    order = np.argsort(group, kind="stable")
    codes = {}
    for a in table.schema.attributes:
        if a.name in blocks:
            codes[a.name] = np.concatenate(blocks[a.name])[order]
        else:
            codes[a.name] = np.zeros(len(group), dtype=np.int32)
    compact = Table(table.schema, codes, table.values)
    return Release(compact, group[order], release.scheme, {}, levels=release.levels)


def _map_bucket_estimate(part: Partition, shared: tuple[Any, np.ndarray]) -> dict:
    from anonlab.utility.workload import qi_sums

    workload, share = shared
    return {"estimated": qi_sums(part.table, workload, part.group, share)}


def estimated_counts_distributed(
    release: Release,
    workload: Any,
    *,
    statistics: GroupStatistics | None = None,
    published: Release | None = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> np.ndarray:
    """:func:`anonlab.utility.workload.estimated_counts` by map-reduce.

    Generalization: identical (the estimate reads only the per-group histogram and published
    values). Bucketization: a sum over records, summed per block: equal up to floating-point
    rounding (about 1e-15 relative). ``statistics`` / ``published``: reuse reduced group
    statistics / the representative release of :func:`_published_release`.
    """
    from anonlab.utility.workload import check_workload_matches, estimated_counts

    parts = release_parts(release, client, partitions, n_partitions)
    check_workload_matches(release.table, workload)
    if statistics is None:
        statistics = group_statistics_distributed(release, partitions=parts)
    if release.scheme == "generalization":
        compact = _published_release(release, parts, client) if published is None else published
        return estimated_counts(release_with_statistics(compact, statistics), workload)
    # column-major: qi_sums gathers one sensitive value (a column) at a time
    share = np.asfortranarray(statistics.histogram.astype(np.float64) / statistics.sizes[:, None])
    return map_reduce(_map_bucket_estimate, parts, (workload, share), {"estimated": "sum"}, client)[
        "estimated"
    ]


def workload_error_distributed(
    release: Release,
    workload: Any = None,
    *,
    n_queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
    statistics: GroupStatistics | None = None,
    published: Release | None = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """:func:`anonlab.utility.workload.workload_error` by map-reduce.

    The workload (drawn by :func:`generate_workload_distributed` when not given), its actual
    answers and the generalization estimate are identical to the single machine's; the
    bucketization estimate equals it to about 1e-15 relative (a sum of floats per block).
    """
    from anonlab.utility.workload import check_workload_matches, workload_error_from_counts

    parts = release_parts(release, client, partitions, n_partitions)
    if workload is None:
        workload = generate_workload_distributed(
            release.table, n_queries, qd, selectivity, seed, partitions=parts
        )
        act = workload.actual
    else:
        check_workload_matches(release.table, workload)
        act = _actual_counts(parts, workload, client)
    stats = (
        group_statistics_distributed(release, partitions=parts)
        if statistics is None
        else statistics
    )
    est = estimated_counts_distributed(
        release, workload, statistics=stats, published=published, partitions=parts
    )
    return workload_error_from_counts(release, workload, act, est)


def default_measures_distributed(
    release: Release,
    queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> dict[str, Any]:
    """:func:`anonlab.utility.defaults.default_measures` (what ``anonlab utility`` reports):
    the workload error by map-reduce, and discernibility, AECS, NCP, prosecutor risk (and ARX's
    Loss for a full-domain release) by the single-machine measures on the release with the
    reduced group statistics and published values in place. Same results."""
    from anonlab.utility import measure

    parts = release_parts(release, client, partitions, n_partitions)
    stats = group_statistics_distributed(release, partitions=parts)
    proxy = release_with_statistics(release, stats)
    published = None
    if release.scheme == "generalization":
        published = _published_release(release, parts, None)
        proxy.__dict__["generalization"] = published.generalization
    res: dict[str, Any] = {
        "workload-error": workload_error_distributed(
            release,
            n_queries=queries,
            qd=qd,
            selectivity=selectivity,
            seed=seed,
            statistics=stats,
            published=published,
            partitions=parts,
        )
    }
    for name in ("discernibility", "average-class-size", "ncp", "prosecutor-risk"):
        res[name] = measure(proxy, name)
    if release.levels is not None:
        res["arx-loss"] = measure(proxy, "arx-loss")
    return res
