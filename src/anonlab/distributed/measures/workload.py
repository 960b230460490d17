"""The COUNT-query workload (Xiao and Tao's utility measure) and the utility measures by
map-reduce.

The blocks are first compacted on the workers to their distinct quasi-identifier rows with
per-row sensitive counts (and, under bucketization, summed group shares), then merged there, in
a tree of tasks, into the table's distinct rows (:mod:`.compact`), which stay on a worker. Each
batch of drawn queries is answered on them by one task per worker, each with whole sets of
queries that use the same quasi-identifiers (integers; the draws themselves are made on the
driver from the one seeded generator, so the workload is the same); so is the bucketization
estimate, a sum over records, here over the distinct rows with their summed shares (floats:
equal to the single-machine value up to rounding, checked to 1e-12 relative). Only the answers
travel to the driver. The generalization estimate reads the
histogram and the published generalized values (per group the smallest and largest code of each
quasi-identifier, reduced by min/max, plus per-group value presence for categorical attributes
without a hierarchy) on the driver, and is identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonlab.distributed.mapreduce import (
    Partition,
    Remote,
    derive_partitions,
    map_reduce,
    map_remote,
    reduce_partitions,
    worker_count,
)
from anonlab.distributed.measures.checks import (
    GroupStatistics,
    group_statistics_distributed,
    release_with_statistics,
)
from anonlab.distributed.measures.compact import CompactBlock, compact_block, merge_compact
from anonlab.distributed.measures.keys import narrow
from anonlab.distributed.measures.partitions import Partitions, release_parts, table_parts
from anonlab.errors import AnonlabError
from anonlab.grouping import group_histogram, group_min_max
from anonlab.release import Release
from anonlab.schema import Kind
from anonlab.table import Table


def _compact(parts: Partitions, table: Table, shares_from: Any = None) -> Remote:
    """The blocks compacted on the workers (:func:`.compact.compact_block`) and merged there
    into the table's distinct quasi-identifier rows (:func:`.compact.merge_compact`), left
    there."""
    n_values = table.domain_size(table.require_sensitive())
    blocks = derive_partitions(compact_block, parts, (n_values, shares_from))
    return reduce_partitions(merge_compact, blocks)


#: Queries per task at least: a smaller batch is answered by one task.
MIN_QUERIES_PER_TASK = 256


def _query_chunks(workload: Any, n_tasks: int) -> list[tuple[np.ndarray, Any]]:
    """``workload`` cut into up to ``n_tasks`` parts, as ``(query rows, workload of those
    queries)``: whole sets of queries that use the same quasi-identifiers (what
    :func:`~anonlab.utility.workload.qi_sums` evaluates together), dealt largest first to the
    part with the fewest queries, so that each task does its sets' work once and each query
    is evaluated as it would be with the others (same arithmetic)."""
    from anonlab.utility.workload import Workload

    n = len(workload)
    n_tasks = max(1, min(n_tasks, n // MIN_QUERIES_PER_TASK))
    if n_tasks == 1:
        return [(np.arange(n), workload)]
    _, pattern = np.unique(workload.uses, axis=0, return_inverse=True)
    pattern = pattern.reshape(-1)
    sizes = np.bincount(pattern)
    task_of = np.empty(len(sizes), dtype=np.int64)
    load = np.zeros(n_tasks, dtype=np.int64)
    for p in np.argsort(-sizes, kind="stable"):
        task_of[p] = int(np.argmin(load))
        load[task_of[p]] += sizes[p]
    out = []
    for t in range(n_tasks):
        rows = np.flatnonzero(task_of[pattern] == t)
        if len(rows):
            part = Workload(
                workload.quasi_identifiers,
                workload.sensitive,
                workload.domain_sizes,
                workload.uses[rows],
                {k: v[rows] for k, v in workload.masks.items()},
                {k: v[rows] for k, v in workload.intervals.items()},
            )
            out.append((rows, part))
    return out


def _answers(function: Any, compact: Remote, workload: Any) -> np.ndarray:
    """``function(compact, queries)`` for the workload's queries, cut among the workers."""
    chunks = _query_chunks(workload, worker_count(compact.client))
    outputs = map_remote(function, compact, [part for _, part in chunks])
    if len(chunks) == 1:
        return outputs[0]
    answers = np.empty(len(workload), dtype=outputs[0].dtype)
    for (rows, _), values in zip(chunks, outputs, strict=True):
        answers[rows] = values
    return answers


def _actual_for(compact: CompactBlock, workload: Any) -> np.ndarray:
    """Each query's actual answer: the records' counts, weighted per distinct row (integers,
    held exactly in float64, so ``rint`` gives the single machine's counts)."""
    from anonlab.utility.workload import qi_sums

    rows = np.arange(compact.table.n_rows)
    weights = np.asfortranarray(compact.counts, dtype=np.float64)
    return np.rint(qi_sums(compact.table, workload, rows, weights)).astype(np.int64)


def _estimate_for(compact: CompactBlock, workload: Any) -> np.ndarray:
    """Each query's bucketization estimate: the distinct rows weighted by their records'
    summed group shares."""
    from anonlab.utility.workload import qi_sums

    rows = np.arange(compact.table.n_rows)
    return qi_sums(compact.table, workload, rows, compact.shares)


def _generate(table: Table, compact: Remote, args: tuple, kwargs: dict) -> Any:
    from anonlab.utility.workload import generate_workload

    return generate_workload(
        table, *args, answer=lambda batch: _answers(_actual_for, compact, batch), **kwargs
    )


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
    the counting is distributed (over the table's distinct quasi-identifier rows, compacted and
    merged once on the workers), so the workload (predicates, answers, ``n_redrawn``) is the
    same.
    """
    parts = table_parts(table, client, partitions, n_partitions)
    return _generate(table, _compact(parts, table), args, kwargs)


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


def published_generalization(
    release: Release,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> dict:
    """``release.generalization`` (each group's published generalized values) from the
    per-group extremes and value presence reduced over the blocks (:func:`_published_release`):
    identical, without a pass over the records on the driver."""
    if release.scheme != "generalization":
        raise AnonlabError(f"a {release.scheme} release publishes no generalized values")
    parts = release_parts(release, client, partitions, n_partitions)
    return _published_release(release, parts, None).generalization


def _shares_from(statistics: GroupStatistics) -> tuple[np.ndarray, np.ndarray]:
    """What a block needs for its records' group shares, narrowed for the trip."""
    return narrow(statistics.histogram), statistics.sizes


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
    values). Bucketization: a sum over records, summed per distinct quasi-identifier row and
    then per query: equal up to floating-point rounding (about 1e-15 relative).
    ``statistics`` / ``published``: reuse reduced group statistics / the representative
    release of :func:`_published_release`.
    """
    from anonlab.utility.workload import check_workload_matches, estimated_counts

    parts = release_parts(release, client, partitions, n_partitions)
    check_workload_matches(release.table, workload)
    if statistics is None:
        statistics = group_statistics_distributed(release, partitions=parts)
    if release.scheme == "generalization":
        compact = _published_release(release, parts, client) if published is None else published
        return estimated_counts(release_with_statistics(compact, statistics), workload)
    compact = _compact(parts, release.table, _shares_from(statistics))
    return _answers(_estimate_for, compact, workload)


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
    bucketization estimate equals it to about 1e-15 relative (floats summed in another order).
    The blocks are compacted and merged once (:mod:`.compact`) for the answers and the
    estimate.
    """
    from anonlab.utility.workload import (
        check_workload_matches,
        estimated_counts,
        workload_error_from_counts,
    )

    parts = release_parts(release, client, partitions, n_partitions)
    if workload is not None:
        check_workload_matches(release.table, workload)
    stats = (
        group_statistics_distributed(release, partitions=parts)
        if statistics is None
        else statistics
    )
    bucket = release.scheme != "generalization"
    compact = _compact(parts, release.table, _shares_from(stats) if bucket else None)
    if workload is None:
        workload = _generate(release.table, compact, (n_queries, qd, selectivity, seed), {})
        act = workload.actual
    else:
        act = _answers(_actual_for, compact, workload)
    if bucket:
        est = _answers(_estimate_for, compact, workload)
    else:
        rep = _published_release(release, parts, None) if published is None else published
        est = estimated_counts(release_with_statistics(rep, stats), workload)
    return workload_error_from_counts(release, workload, act, est)


def default_measures_distributed(
    release: Release,
    queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
    *,
    statistics: GroupStatistics | None = None,
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
    stats = (
        group_statistics_distributed(release, partitions=parts)
        if statistics is None
        else statistics
    )  # ``statistics``: reduced group statistics already counted (as workload_error_distributed)
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
