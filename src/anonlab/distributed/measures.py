"""Privacy checks, the COUNT-query workload, foreground mining, rule mining and the deFinetti
statistics as map-reduce over row partitions (issue 10, §2), identical to the single-machine path.

Each measure is split where its data pass is: a *map* over contiguous row blocks
(:mod:`anonlab.distributed.mapreduce`) computes the same integer count arrays the single-machine
code computes, keyed by *global* ids (group id, signature key, itemset cell) so that the blocks'
arrays add up exactly; the driver then hands the reduced counts to the existing single-machine
finishing code. What is distributed, per measure:

* **privacy checks** (:func:`check_distributed`, :func:`default_checks_distributed`): group sizes
  and the published per-group sensitive histogram (``bincount(group * n_values + s)`` per block,
  summed; a block sends only its non-zero cells when the groups are many). Every registered
  model but matching ℓ-diversity reads only these (and the schema); the checks then run
  unchanged on the release with the reduced statistics in place.
* **COUNT-query workload** (:func:`workload_error_distributed`): the actual answers of each batch
  of drawn queries (integers, summed; the draws themselves are made on the driver from the one
  seeded generator, so the workload is the same), the histogram, and the published generalized
  values (per group the smallest and largest code of each quasi-identifier, reduced by min/max,
  plus per-group value presence for categorical attributes without a hierarchy). Under
  bucketization the estimate is a sum over records, so each block returns its partial estimate
  (floats: equal to the single-machine value up to rounding, checked to 1e-12 relative).
* **foreground attack** (:func:`mine_global_distribution_distributed`,
  :func:`foreground_attack_distributed`): the counts of (group, signature) pairs of each attribute
  set, and, level by level, the signature counts over the records whose every sub-signature is
  sufficient (Algorithm 1's Apriori step). The fixed point of Eqs. (4)-(6) depends on the data
  only through these counts: the driver solves it on one representative record per counted
  member (same group sizes, same signatures per group, same order inside each group, hence the
  same floating-point operations) and a second map spreads the solved probabilities back to the
  records (``p*``, the maximising set and target, the baseline), each block receiving those of
  its own (group, signature) pairs only.
* **rule mining** (:func:`frequent_itemsets_distributed`, :func:`mine_rules_distributed`): per
  level of Apriori, each block counts the cells of every candidate signature, with the sensitive
  value, over its records that lie in a frequent cell of every sub-signature (the frequent cells
  of the previous levels are broadcast); the driver keeps the frequent cells and runs the
  negative-rule or association-rule finishing of :mod:`anonlab.mining`.
* **deFinetti statistics** (:func:`definetti_statistics_distributed`): the count cells
  ``n_{x,s}`` of the sampler (Kifer, §3.5: the collapsed posterior is
  ``Π Γ(n_{x,s} + prior)``) for an assignment of sensitive values (default: the published
  ones), the ST (per-group histogram) and the collapsed log posterior. The Gibbs sweeps
  themselves are sequential in the groups and are not distributed.

Choices where the issue is silent: the driver keeps the release (it has loaded it); only the row
passes run on the workers. Signature and cell keys are mixed-radix int64 codes; an attribute set
whose key space (times the number of groups) exceeds 2^62 raises an error naming the attributes.
Matching ℓ-diversity (per-record incompatibilities, group-local matchings) is not distributed.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_float, check_int
from anonlab.distributed.mapreduce import (
    Partition,
    PerBlock,
    ScatteredPartitions,
    default_partitions,
    map_blocks,
    map_reduce,
    merge_keyed_counts,
    scatter_partitions,
    split_release,
    split_table,
)
from anonlab.errors import AnonlabError
from anonlab.grouping import group_histogram, group_min_max
from anonlab.release import Release
from anonlab.schema import Kind
from anonlab.table import Table

__all__ = [
    "DeFinettiStatistics",
    "GroupStatistics",
    "check_distributed",
    "default_checks_distributed",
    "default_measures_distributed",
    "estimated_counts_distributed",
    "definetti_statistics",
    "definetti_statistics_distributed",
    "foreground_attack_distributed",
    "frequent_attribute_sets_distributed",
    "frequent_itemsets_distributed",
    "generate_workload_distributed",
    "group_statistics_distributed",
    "mine_global_distribution_distributed",
    "mine_rules_distributed",
    "partition_release",
    "partition_table",
    "release_with_statistics",
    "workload_error_distributed",
]

#: Largest key space of a mixed-radix int64 key (signature, cell or (group, signature) pair).
_KEY_LIMIT = 1 << 62

Partitions = list[Partition] | ScatteredPartitions


# =============================================================================== partitions
def partition_release(
    release: Release, client: Any = None, n_partitions: int | None = None
) -> Partitions:
    """A release's rows in blocks, scattered to ``client``'s workers when given (reusable by
    every measure of this module; default: twice the number of workers)."""
    n = default_partitions(client) if n_partitions is None else n_partitions
    parts = split_release(release, n)
    return scatter_partitions(client, parts) if client is not None else parts


def partition_table(
    table: Table, client: Any = None, n_partitions: int | None = None
) -> Partitions:
    """A table's rows in blocks (rule mining needs no release), scattered when ``client``."""
    n = default_partitions(client) if n_partitions is None else n_partitions
    parts = split_table(table, n)
    return scatter_partitions(client, parts) if client is not None else parts


def _n_rows(parts: Partitions) -> int:
    if isinstance(parts, ScatteredPartitions):
        return parts.n_rows
    return int(sum(p.n_rows for p in parts))


def _n_groups(parts: Partitions) -> int:
    return parts.n_groups if isinstance(parts, ScatteredPartitions) else parts[0].n_groups


def _release_parts(release, client, partitions, n_partitions) -> Partitions:
    if not isinstance(release, Release):
        raise AnonlabError(f"parameter 'release' must be an anonlab Release, got {type(release)}")
    if partitions is None:
        return partition_release(release, client, n_partitions)
    if not isinstance(partitions, ScatteredPartitions | list) or not len(partitions):
        raise AnonlabError("parameter 'partitions' must come from partition_release(release, ...)")
    if _n_rows(partitions) != release.table.n_rows or _n_groups(partitions) != release.n_groups:
        raise AnonlabError(
            f"parameter 'partitions' holds {_n_rows(partitions):,} rows in "
            f"{_n_groups(partitions):,} groups, the release {release.table.n_rows:,} rows in "
            f"{release.n_groups:,} groups; make them with partition_release(release, ...)"
        )
    if isinstance(partitions, list) and partitions[0].group is None:
        raise AnonlabError("parameter 'partitions' has no group ids; use partition_release")
    if isinstance(partitions, list) and client is not None:
        return scatter_partitions(client, partitions)
    return partitions


def _table_parts(table, client, partitions, n_partitions) -> Partitions:
    if not isinstance(table, Table):
        raise AnonlabError(f"parameter 'table' must be an anonlab Table, got {type(table)}")
    if partitions is None:
        return partition_table(table, client, n_partitions)
    if _n_rows(partitions) != table.n_rows:
        raise AnonlabError(
            f"parameter 'partitions' holds {_n_rows(partitions):,} rows, the table "
            f"{table.n_rows:,}; make them with partition_table(table, ...)"
        )
    if isinstance(partitions, list) and client is not None:
        return scatter_partitions(client, partitions)
    return partitions


# =============================================================================== group statistics
@dataclass(frozen=True, eq=False)
class GroupStatistics:
    """Per-group counts of a release, summed over blocks.

    Attributes
    ----------
    sizes : ndarray of shape (n_groups,), dtype=int64
    histogram : ndarray of shape (n_groups, n_sensitive_values), dtype=int64
        Published sensitive counts (``Release.sensitive_histogram``).
    """

    sizes: np.ndarray
    histogram: np.ndarray


def _map_group_statistics(part: Partition, shared: tuple[int, int, bool]) -> dict:
    """The block's per-group sensitive counts: dense (n_groups, n_values), or, when that is
    larger than the block (``sparse``), its non-zero cells ``group * n_values + s`` with counts."""
    n_groups, n_values, sparse = shared
    if sparse:
        cell = part.group.astype(np.int64) * n_values + part.published_sensitive
        return {"cells": _unique_counts(cell)}
    return {"histogram": group_histogram(part.group, part.published_sensitive, n_groups, n_values)}


def group_statistics_distributed(
    release: Release,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> GroupStatistics:
    """Group sizes and the published sensitive histogram by map-reduce (exact integer sums).

    Blocks send a dense histogram, or, when ``n_groups * n_values`` exceeds twice the rows of a
    block (many small groups), their non-zero cells only; sizes are the histogram's row sums.
    """
    parts = _release_parts(release, client, partitions, n_partitions)
    n_groups, n_values = release.n_groups, release.table.domain_size(release.sensitive)
    sparse = n_groups * n_values > 2 * release.table.n_rows / max(len(parts), 1)
    if sparse:
        keys, counts = map_reduce(
            _map_group_statistics, parts, (n_groups, n_values, True), {"cells": "merge"}, client
        )["cells"]
        histogram = np.zeros(n_groups * n_values, dtype=np.int64)
        histogram[keys] = counts
        histogram = histogram.reshape(n_groups, n_values)
    else:
        histogram = map_reduce(
            _map_group_statistics, parts, (n_groups, n_values, False), {"histogram": "sum"}, client
        )["histogram"]
    return GroupStatistics(histogram.sum(axis=1), histogram)


def release_with_statistics(release: Release, statistics: GroupStatistics) -> Release:
    """A shallow copy of ``release`` whose ``group_sizes`` and ``sensitive_histogram`` are the
    given (reduced) ones, so that the single-machine checks and estimates read them instead of
    recounting the rows."""
    proxy = copy.copy(release)
    for name, value in (
        ("group_sizes", statistics.sizes),
        ("sensitive_histogram", statistics.histogram),
    ):
        array = np.array(value, dtype=np.int64)
        array.flags.writeable = False
        proxy.__dict__[name] = array
    return proxy


# =============================================================================== privacy checks
def check_distributed(
    release: Release,
    model: str,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **parameters: Any,
) -> Any:
    """:func:`anonlab.models.check` with the group statistics counted by map-reduce.

    Returns the same :class:`~anonlab.models.CheckResult` (same verdict, per-group values,
    violating groups, details). Matching ℓ-diversity is not distributed (it needs per-record
    incompatibilities and group-local matchings): it raises, naming
    :func:`anonlab.models.check` as the way to run it.
    """
    from anonlab import models

    spec = models.get(model)
    if spec.name == "matching-l-diversity":
        raise AnonlabError(
            "model 'matching-l-diversity' is not distributed (per-record matchings); run "
            "anonlab.models.check(release, 'matching-l-diversity', ...) on one machine"
        )
    stats = group_statistics_distributed(
        release, client=client, partitions=partitions, n_partitions=n_partitions
    )
    return models.check(release_with_statistics(release, stats), spec.name, **parameters)


def default_checks_distributed(
    release: Release,
    k: int | None = None,
    l: int | None = None,
    c: float | None = None,
    t: float | None = None,
    m: int | None = None,
    sensitive_values: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> list:
    """:func:`anonlab.models.defaults.default_checks` (what ``anonlab check`` runs) with one
    map-reduce for the group statistics shared by every model."""
    from anonlab.models.defaults import default_checks

    stats = group_statistics_distributed(
        release, client=client, partitions=partitions, n_partitions=n_partitions
    )
    proxy = release_with_statistics(release, stats)
    return default_checks(proxy, k, l, c, t, m, sensitive_values, only)


# =============================================================================== workload
def _map_actual_counts(part: Partition, workload: Any) -> dict:
    from anonlab.utility.workload import actual_counts

    return {"actual": actual_counts(part.table, workload)}


def _actual_counts(parts: Partitions, workload: Any, client: Any) -> np.ndarray:
    return map_reduce(_map_actual_counts, parts, workload, {"actual": "sum"}, client)["actual"]


def generate_workload_distributed(
    table: Table,
    n_queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
    *,
    max_redrawn: int | None = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """:func:`anonlab.utility.workload.generate_workload` with the actual answers of each batch
    of drawn queries counted by map-reduce (integer sums: the same queries are kept and redrawn).

    The single-machine generator draws (one generator seeded with ``seed``, same batches); only
    the counting is distributed, so the workload (predicates, answers, ``n_redrawn``) is the
    same.
    """
    from anonlab.utility.workload import generate_workload

    parts = _table_parts(table, client, partitions, n_partitions)
    return generate_workload(
        table,
        n_queries,
        qd,
        selectivity,
        seed,
        max_redrawn=max_redrawn,
        answer=lambda batch: _actual_counts(parts, batch, client),
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
    from anonlab.utility.workload import _qi_sums

    workload, share = shared
    return {"estimated": _qi_sums(part.table, workload, part.group, share)}


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
    from anonlab.utility.workload import _check_matches, estimated_counts

    parts = _release_parts(release, client, partitions, n_partitions)
    _check_matches(release.table, workload)
    if statistics is None:
        statistics = group_statistics_distributed(release, partitions=parts)
    if release.scheme == "generalization":
        compact = _published_release(release, parts, client) if published is None else published
        return estimated_counts(release_with_statistics(compact, statistics), workload)
    # column-major: _qi_sums gathers one sensitive value (a column) at a time
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
    from anonlab.utility.workload import _check_matches, workload_error_from_counts

    parts = _release_parts(release, client, partitions, n_partitions)
    if workload is None:
        workload = generate_workload_distributed(
            release.table, n_queries, qd, selectivity, seed, partitions=parts
        )
        act = workload.actual
    else:
        _check_matches(release.table, workload)
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

    parts = _release_parts(release, client, partitions, n_partitions)
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


# =============================================================================== keys
def _key_space(table: Table, attributes: Sequence[str], factor: int = 1, what: str = "") -> int:
    """Product of the domain sizes (times ``factor``); raises when an int64 key would overflow."""
    space = math.prod(int(table.domain_size(a)) for a in attributes)
    if space * max(int(factor), 1) >= _KEY_LIMIT:
        raise AnonlabError(
            f"attribute set {list(attributes)} has too many value combinations "
            f"({space:,}{f' x {factor:,} groups' if factor > 1 else ''}) for a 62-bit key"
            f"{what}; use fewer attributes (parameter 'attributes' or 'max_attributes')"
        )
    return space


def _radix_keys(table: Table, attributes: Sequence[str]) -> np.ndarray:
    """Mixed-radix int64 key of each record's codes on ``attributes`` (lexicographic order)."""
    key = np.zeros(table.n_rows, dtype=np.int64)
    for a in attributes:
        key = key * int(table.domain_size(a)) + table.codes[a]
    return key


def _decode_keys(keys: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """Inverse of :func:`_radix_keys`: (m, len(radices)) int64 codes."""
    out = np.empty((len(keys), len(radices)), dtype=np.int64)
    rest = np.asarray(keys, dtype=np.int64).copy()
    for j in range(len(radices) - 1, -1, -1):
        rest, out[:, j] = np.divmod(rest, int(radices[j]))
    return out


def _unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    unique, counts = np.unique(keys, return_counts=True)
    return unique, counts.astype(np.int64)


# =============================================================================== foreground
def _map_attribute_set_counts(part: Partition, shared: dict) -> dict:
    """Apriori step of Algorithm 1 on one block: for each candidate set, the counts of its
    signatures over the block's records whose every sub-signature is sufficient."""
    table = part.table
    n_total, sufficient, candidates = shared["n"], shared["sufficient"], shared["candidates"]
    memo: dict[tuple[str, ...], np.ndarray] = {}

    def ok(attrs: tuple[str, ...]) -> np.ndarray:
        if attrs not in memo:
            if not attrs:
                memo[attrs] = np.full(table.n_rows, n_total >= shared["J"])
            else:
                keys = _radix_keys(table, attrs)
                memo[attrs] = eligible(attrs) & np.isin(keys, sufficient[attrs])
        return memo[attrs]

    def eligible(attrs: tuple[str, ...]) -> np.ndarray:
        mask = np.ones(table.n_rows, dtype=bool)
        for d in attrs:
            mask &= ok(tuple(x for x in attrs if x != d))
        return mask

    out = {}
    for i, c in enumerate(candidates):
        rows = eligible(c)
        out[f"set{i}"] = _unique_counts(_radix_keys(table, c)[rows])
    return out


def frequent_attribute_sets_distributed(
    release: Release,
    min_support: int,
    *,
    attributes: Sequence[str] | None = None,
    max_attributes: int | None = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> list[tuple[str, ...]]:
    """:func:`anonlab.attacks.foreground.frequent_attribute_sets` by map-reduce: one map per
    level, counting signatures keyed by their mixed-radix code (exact integer sums)."""
    from anonlab.attacks.foreground import _require_groups

    _require_groups(release)
    parts = _release_parts(release, client, partitions, n_partitions)
    return _frequent_sets(release, parts, client, min_support, attributes, max_attributes)[0]


def _frequent_sets(release, parts, client, min_support, attributes, max_attributes):
    from anonlab.attacks.foreground import _check_attributes

    attrs = _check_attributes(
        release, release.quasi_identifiers if attributes is None else attributes
    )
    J = check_int("min_support", min_support, minimum=1)
    top = (
        len(attrs)
        if max_attributes is None
        else check_int("max_attributes", max_attributes, minimum=0)
    )
    table = release.table
    sufficient: dict[tuple[str, ...], np.ndarray] = {}
    out: list[tuple[str, ...]] = []
    level: list[tuple[str, ...]] = [()]
    for size in range(1, min(top, len(attrs)) + 1):
        survivors = set(level)
        cands = [
            c
            for c in itertools.combinations(attrs, size)
            if all(tuple(x for x in c if x != d) in survivors for d in c)
        ]
        for c in cands:
            _key_space(table, c, what=" (foreground attack)")
        level = []
        if not cands:
            break
        shared = {"n": table.n_rows, "J": J, "sufficient": sufficient, "candidates": cands}
        how = {f"set{i}": "merge" for i in range(len(cands))}
        counted = map_reduce(_map_attribute_set_counts, parts, shared, how, client)
        for i, c in enumerate(cands):
            keys, counts = counted[f"set{i}"]
            enough = keys[counts >= J]
            if len(enough):
                sufficient[c] = enough
                level.append(c)
                out.append(c)
        if not level:
            break
    return out, sufficient


def _map_signature_pairs(part: Partition, shared: list[tuple[tuple[str, ...], int]]) -> dict:
    """For each attribute set: the block's (group, signature) pairs, keyed
    ``group * key_space + signature key``, with their counts."""
    group = part.group.astype(np.int64)
    return {
        f"set{i}": _unique_counts(group * space + _radix_keys(part.table, attrs))
        for i, (attrs, space) in enumerate(shared)
    }


def _map_foreground_records(part: Partition, shared: dict) -> dict:
    """Spread the solved per-(group, signature) probabilities to the block's records."""
    group = part.group.astype(np.int64)
    n = part.n_rows
    p_star = np.full(n, -np.inf)
    best_a = np.full(n, -1, dtype=np.int64)
    best_x = np.full(n, -1, dtype=np.int64)
    baseline = np.zeros(n)
    for rate in shared["rates"]:
        baseline = np.maximum(baseline, rate[group])
    out: dict[str, np.ndarray] = {}
    for ai, (attrs, space) in enumerate(shared["sets"]):
        sig_key = _radix_keys(part.table, attrs)
        out[f"sig{ai}"] = np.searchsorted(shared["signature_keys"][ai], sig_key)
        if all(p_pair is None for p_pair in shared["p_pair"][ai]):
            continue
        # this block's pairs only (sorted): each record's pair among them
        pair = np.searchsorted(shared["pair_keys"][ai], group * space + sig_key)
        for xi, p_pair in enumerate(shared["p_pair"][ai]):
            p = p_pair[pair]
            better = p > p_star
            p_star[better] = p[better]
            best_a[better] = ai
            best_x[better] = xi
    out.update(p_star=p_star, best_a=best_a, best_x=best_x, baseline=baseline)
    return out


@dataclass(frozen=True, eq=False)
class _PairTable:
    """The reduced (group, signature) counts of one attribute set, and the representative
    records the solver runs on (one per counted member, by group then signature).
    ``block_pairs[i]``: the sorted pair keys block ``i`` holds (where its records' ``p`` is
    sent back)."""

    attributes: tuple[str, ...]
    space: int
    pair_keys: np.ndarray
    signature_keys: np.ndarray
    codes: np.ndarray
    record_group: np.ndarray
    record_signature: np.ndarray
    pair_start: np.ndarray
    block_pairs: tuple[np.ndarray, ...]

    def signatures(self) -> Any:
        """The representative records' signatures, for the single-machine solver."""
        from anonlab.attacks.foreground import _Signatures

        return _Signatures.per_record(self.codes, self.record_signature)


def _pair_tables(release, parts, client, sets) -> list[_PairTable]:
    table = release.table
    spaces = [_key_space(table, a, release.n_groups, " (foreground attack)") for a in sets]
    shared = list(zip(sets, spaces, strict=True))
    blocks = map_blocks(_map_signature_pairs, parts, shared, client)
    out = []
    for i, (attrs, space) in enumerate(shared):
        keys, counts = merge_keyed_counts([b[f"set{i}"] for b in blocks])
        pair_group, pair_sig = np.divmod(keys, space)
        signature_keys, pair_index = np.unique(pair_sig, return_inverse=True)
        codes = _decode_keys(signature_keys, [table.domain_size(a) for a in attrs])
        out.append(
            _PairTable(
                attributes=tuple(attrs),
                space=space,
                pair_keys=keys,
                signature_keys=signature_keys,
                codes=codes,
                record_group=np.repeat(pair_group, counts),
                record_signature=np.repeat(pair_index.reshape(-1), counts),
                pair_start=np.cumsum(counts) - counts,
                block_pairs=tuple(b[f"set{i}"][0] for b in blocks),
            )
        )
    return out


def _with_record_signature(dist: Any, record_signature: np.ndarray) -> Any:
    """``dist`` with each record's signature given directly (every record its own row)."""
    m = len(dist.probability)
    rows = np.arange(m, dtype=dist.row_signature.dtype)
    return dataclasses.replace(dist, row_signature=rows, record_row=record_signature)


def _spread(parts, client, tables, p_pair, rates, how) -> dict:
    """Send each block the probabilities of its own pairs and map them to its records."""
    items = []
    for b in range(len(parts)):
        mine = [t.block_pairs[b] for t in tables]
        where = [np.searchsorted(t.pair_keys, k) for t, k in zip(tables, mine, strict=True)]
        items.append(
            {
                "sets": [(t.attributes, t.space) for t in tables],
                "pair_keys": mine,
                "signature_keys": [t.signature_keys for t in tables],
                "p_pair": [
                    [None if p is None else p[w] for p in per_target]
                    for per_target, w in zip(p_pair, where, strict=True)
                ],
                "rates": rates,
            }
        )
    return map_reduce(_map_foreground_records, parts, PerBlock(tuple(items)), how, client)


def mine_global_distribution_distributed(
    release: Release,
    attributes: Sequence[str] | str,
    sensitive_values: Any,
    *,
    epsilon: float = 0.01,
    sigma: float = 0.9,
    min_support: int | None = None,
    small_signature: str = "uniform-half",
    tol: float = 1e-10,
    max_iter: int = 10_000,
    newton: bool = True,
    accelerate: bool | str = True,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> tuple[Any, Any]:
    """:func:`anonlab.attacks.foreground.mine_global_distribution` from map-reduced counts.

    The map counts each (group, signature) pair of the attribute set and each group's count of
    the target (the published histogram); the driver solves Eqs. (4)-(6) with the single-machine
    solver on one representative record per counted member; a second map gives each record its
    signature index. The result (``probability``, ``support``, ``sufficient``, ``signatures``,
    ``record_signature``, the convergence report) equals the single machine's.
    """
    from anonlab.attacks.foreground import (
        _check_attributes,
        _count_x,
        _Layout,
        _mine,
        _options,
        _require_groups,
        _targets,
    )

    _require_groups(release)
    attrs = _check_attributes(release, attributes)
    targets = _targets(release, sensitive_values)
    if len(targets) != 1:
        raise AnonlabError(
            f"mine_global_distribution takes one target x (a value or a value set), got "
            f"{len(targets)}"
        )
    J, small_signature, tol, max_iter = _options(
        epsilon, sigma, min_support, small_signature, tol, max_iter
    )
    parts = _release_parts(release, client, partitions, n_partitions)
    proxy = release_with_statistics(
        release, group_statistics_distributed(release, partitions=parts)
    )
    n_x = _count_x(proxy, targets[0][1])
    pairs = _pair_tables(release, parts, client, [attrs])[0]
    layout = _Layout(pairs.record_group, release.n_groups, n_x)
    base = float(n_x.sum()) / max(release.table.n_rows, 1)
    dist, report, _ = _mine(
        proxy, attrs, targets[0], layout, pairs.signatures(), J,
        small_signature, tol, max_iter, newton, base, accelerate,
    )  # fmt: skip
    spread = _spread(parts, client, [pairs], [[None]], [], {"sig0": "concat"})
    return _with_record_signature(dist, spread["sig0"]), report


def foreground_attack_distributed(
    release: Release,
    sensitive_values: Any = None,
    *,
    epsilon: float = 0.01,
    sigma: float = 0.9,
    min_support: int | None = None,
    max_attributes: int | None = None,
    attributes: Sequence[str] | None = None,
    small_signature: str = "uniform-half",
    include_empty: bool = True,
    tol: float = 1e-10,
    max_iter: int = 10_000,
    newton: bool = True,
    accelerate: bool | str = True,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """:func:`anonlab.attacks.foreground.foreground_attack` (Algorithm 1) by map-reduce.

    Maps: the group statistics; one per Apriori level (signature counts over the eligible
    records); one for the (group, signature) pair counts of every attribute set found; one to
    spread the solved probabilities to the records (``p*``, the maximising set and target in the
    single machine's enumeration order, the baseline, each set's record signatures). The
    mining runs on the driver with the single-machine solver. The
    :class:`~anonlab.attacks.foreground.ForegroundResult` equals the single machine's.
    """
    from anonlab.attacks.foreground import (
        ForegroundResult,
        _count_x,
        _Layout,
        _mine,
        _options,
        _require_groups,
        _targets,
    )

    _require_groups(release)
    J, small_signature, tol, max_iter = _options(
        epsilon, sigma, min_support, small_signature, tol, max_iter
    )
    targets = _targets(release, sensitive_values)
    parts = _release_parts(release, client, partitions, n_partitions)
    proxy = release_with_statistics(
        release, group_statistics_distributed(release, partitions=parts)
    )
    sets, _ = _frequent_sets(release, parts, client, J, attributes, max_attributes)
    if include_empty:
        sets = [(), *sets]
    n = release.table.n_rows
    sizes = np.asarray(proxy.group_sizes, dtype=np.float64)
    prepared, rates = [], []
    for target in targets:
        n_x = _count_x(proxy, target[1])
        rates.append(n_x / np.maximum(sizes, 1))
        prepared.append((target, n_x, float(n_x.sum()) / max(n, 1)))
    tables = _pair_tables(release, parts, client, sets) if sets else []
    dists, reports, p_pair = [], [], []
    for pairs in tables:
        per_target = []
        for target, n_x, base in prepared:
            layout = _Layout(pairs.record_group, release.n_groups, n_x)
            dist, rep, posterior = _mine(
                proxy, pairs.attributes, target, layout, pairs.signatures(),
                J, small_signature, tol, max_iter, newton, base, accelerate,
            )  # fmt: skip
            dists.append(dist)
            reports.append(rep)
            per_target.append(posterior.full()[pairs.pair_start])
        p_pair.append(per_target)
    how = {k: "concat" for k in ("p_star", "best_a", "best_x", "baseline")}
    how.update({f"sig{ai}": "concat" for ai in range(len(tables))})
    spread = _spread(parts, client, tables, p_pair, rates, how)
    n_targets = len(targets)
    dists = [_with_record_signature(d, spread[f"sig{i // n_targets}"]) for i, d in enumerate(dists)]
    p_star = spread["p_star"]
    if not sets:
        p_star = spread["baseline"].copy()
    return ForegroundResult(
        p_star=p_star,
        baseline=spread["baseline"],
        best_attributes=spread["best_a"],
        best_target=spread["best_x"],
        attribute_sets=tuple(sets),
        targets=tuple(t[0] for t in targets),
        distributions=tuple(dists),
        reports=tuple(reports),
        min_support=J,
        small_signature=small_signature,
    )


# =============================================================================== rule mining
def _cell_keys(table: Table, sig: tuple, node_maps: dict, radices: dict) -> np.ndarray:
    """Mixed-radix cell of each record for a signature of (attribute index, level) pairs."""
    cell = np.zeros(table.n_rows, dtype=np.int64)
    names = table.quasi_identifiers
    for key in sig:
        cell = cell * radices[key] + node_maps[key][table.codes[names[key[0]]]]
    return cell


def _map_itemset_counts(part: Partition, shared: dict) -> dict:
    """One Apriori level of :func:`anonlab.mining.itemsets.frequent_itemsets` on one block:
    for each candidate signature, ``cell * n_values + s`` counts over the block's records that
    lie in a frequent cell of every sub-signature."""
    table = part.table
    sens = table.require_sensitive()
    s = table.codes[sens].astype(np.int64)
    node_maps, radices, n_values = shared["node_maps"], shared["radices"], shared["n_values"]
    frequent = shared["frequent"]
    cells: dict[tuple, np.ndarray] = {}

    def cell_of(sig: tuple) -> np.ndarray:
        if sig not in cells:
            cells[sig] = _cell_keys(table, sig, node_maps, radices)
        return cells[sig]

    out = {}
    for i, sig in enumerate(shared["candidates"]):
        rows = np.ones(table.n_rows, dtype=bool)
        if len(sig) > 1:
            for drop in range(len(sig)):
                sub = sig[:drop] + sig[drop + 1 :]
                rows &= np.isin(cell_of(sub), frequent[sub])
        out[f"sig{i}"] = _unique_counts(cell_of(sig)[rows] * n_values + s[rows])
    return out


def frequent_itemsets_distributed(
    table: Table,
    min_count: int,
    max_conditions: int,
    *,
    catalog: Any = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """:func:`anonlab.mining.itemsets.frequent_itemsets` (exact counts) by map-reduce: one map
    per Apriori level; the frequent item cells of the previous levels are broadcast so each
    block counts only its records that can lie in a frequent itemset (the same prune)."""
    from anonlab.mining.itemsets import FrequentItemsets, ItemCatalog, _node_of_code

    sens = table.require_sensitive()
    parts = _table_parts(table, client, partitions, n_partitions)
    catalog = ItemCatalog.from_table(table) if catalog is None else catalog
    min_count = max(1, int(min_count))
    n_values = table.domain_size(sens)
    n_qi = len(catalog.attributes)
    max_k = min(int(max_conditions), n_qi)
    node_maps = {
        (j, lv): _node_of_code(table, name, lv).astype(np.int64)
        for j, name in enumerate(catalog.attributes)
        for lv in catalog.levels[j]
    }
    radices = {key: len(catalog.item_of_node[key]) for key in node_maps}
    out_items, out_count, out_value = [], [], []
    frequent: dict[tuple, np.ndarray] = {}
    current = [((j, lv),) for j in range(n_qi) for lv in catalog.levels[j]]
    for k in range(1, max_k + 1):
        if k > 1:  # a candidate needs a frequent cell in every sub-signature
            current = [
                sig for sig in current if all(sig[:d] + sig[d + 1 :] in frequent for d in range(k))
            ]
        for sig in current:
            if math.prod(radices[key] for key in sig) * n_values >= _KEY_LIMIT:
                raise AnonlabError(
                    f"itemset signature {sig} has too many cells for a 62-bit key; lower "
                    "'max_conditions'"
                )
        if not current:
            break
        shared = {
            "node_maps": node_maps,
            "radices": radices,
            "n_values": n_values,
            "frequent": frequent,
            "candidates": current,
        }
        how = {f"sig{i}": "merge" for i in range(len(current))}
        counted = map_reduce(_map_itemset_counts, parts, shared, how, client)
        next_frequent: dict[tuple, np.ndarray] = {}
        for i, sig in enumerate(current):
            keys, counts = counted[f"sig{i}"]
            cell, value = np.divmod(keys, n_values)
            cells, inverse = np.unique(cell, return_inverse=True)
            inverse = inverse.reshape(-1)
            by_value = np.zeros((len(cells), n_values), dtype=np.int64)
            by_value[inverse, value] = counts
            count = by_value.sum(axis=1)
            keep = np.flatnonzero(count >= min_count)
            if len(keep) == 0:
                continue
            # decode cell -> node per component, then node -> item (as _count_signature)
            items = np.empty((len(keep), len(sig)), dtype=np.int64)
            rest = cells[keep].copy()
            for c in range(len(sig) - 1, -1, -1):
                rest, node = np.divmod(rest, radices[sig[c]])
                items[:, c] = catalog.item_of_node[sig[c]][node]
            ok = (items >= 0).all(axis=1)
            keep, items = keep[ok], items[ok]
            if len(keep) == 0:
                continue
            full = np.full((len(keep), n_qi), -1, dtype=np.int32)
            for c, (j, _) in enumerate(sig):
                full[:, j] = items[:, c]
            out_items.append(full)
            out_count.append(count[keep].astype(np.int64))
            out_value.append(by_value[keep])
            next_frequent[sig] = cells[keep]
        frequent.update(next_frequent)
        if k == max_k or not next_frequent:
            break
        current = [
            sig + ((j2, lv2),)
            for sig in next_frequent
            for j2 in range(sig[-1][0] + 1, n_qi)
            for lv2 in catalog.levels[j2]
        ]
    if out_items:
        items = np.concatenate(out_items)
        count = np.concatenate(out_count)
        by_value = np.concatenate(out_value).astype(np.int64)
    else:
        items = np.empty((0, n_qi), dtype=np.int32)
        count = np.empty(0, dtype=np.int64)
        by_value = np.empty((0, n_values), dtype=np.int64)
    return FrequentItemsets(catalog, items, count, by_value, min_count, max_k)


def mine_rules_distributed(
    table: Table,
    kind: str = "negative",
    *,
    min_expectation: float = 0.9,
    min_support: float = 0.01,
    min_conviction: float = 1.2,
    max_conditions: int | None = None,
    prune_redundant: bool = True,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """Negative rules (:func:`anonlab.mining.mine_negative_rules`, ``kind="negative"``,
    default ``max_conditions=1``) or association rules
    (:func:`anonlab.mining.mine_association_rules`, ``kind="association"``, default
    ``max_conditions=3``): the single machine's miner with the itemset counts map-reduced
    (its ``itemsets`` hook). Returns the same rule set.
    """
    from anonlab._validation import check_choice
    from anonlab.mining import mine_association_rules, mine_negative_rules

    kind = check_choice("kind", kind, ("negative", "association"))
    if table.sensitive is None:
        raise AnonlabError(
            "the table has no sensitive attribute; name one (--sensitive COL) to mine rules"
        )
    parts = _table_parts(table, client, partitions, n_partitions)

    def count(min_count: int, max_cond: int) -> Any:
        return frequent_itemsets_distributed(table, min_count, max_cond, partitions=parts)

    # the single machine's miners, with only the itemset counting map-reduced
    if kind == "negative":
        return mine_negative_rules(
            table,
            min_expectation,
            1 if max_conditions is None else max_conditions,
            prune_redundant=prune_redundant,
            itemsets=count,
        )
    return mine_association_rules(
        table,
        min_support,
        min_conviction,
        3 if max_conditions is None else max_conditions,
        itemsets=count,
    )


# =============================================================================== deFinetti
@dataclass(frozen=True, eq=False)
class DeFinettiStatistics:
    """The count statistics of the deFinetti sampler (Kifer, SIGMOD 2009, §3.5 and §5.1).

    The collapsed posterior of an assignment ``π`` of every group's sensitive multiset to its
    members is ``∝ Π_{feature, x, s} Γ(n^π_{x,s} + prior)``; ``counts`` holds ``n^π_{x,s}``.

    Attributes
    ----------
    model : {"naive-bayes", "joint"}
    attributes : tuple of str
    counts : ndarray of shape (n_cells, n_values), dtype=int64
        Records with feature cell ``x`` assigned value ``s`` (Naive Bayes: one block of cells
        per attribute, ``feat_ptr``; joint: one cell per distinct quasi-identifier vector).
    feat_ptr : ndarray of shape (n_features + 1,), dtype=int64
    cell_keys : ndarray or None
        Joint model: the mixed-radix key of each cell's QI vector, ascending (cell order).
    group_sizes, sensitive_histogram : ndarray
        The QIT's group sizes and the ST (published per-group counts).
    prior : float
    log_posterior : float
        ``Σ log Γ(n_{x,s} + prior)`` (the sampler's trace value for this assignment).
    """

    model: str
    attributes: tuple[str, ...]
    counts: np.ndarray
    feat_ptr: np.ndarray
    cell_keys: np.ndarray | None
    group_sizes: np.ndarray
    sensitive_histogram: np.ndarray
    prior: float
    log_posterior: float


def _definetti_inputs(release, model, attributes, assignment, prior):
    from anonlab._validation import check_choice
    from anonlab.attacks.definetti import MODELS, _attributes, _require_attackable

    _require_attackable(release)
    model = check_choice("model", model, MODELS)
    attributes = _attributes(release, attributes)
    prior = check_float("prior", prior)
    if not prior > 0:
        raise AnonlabError(f"parameter 'prior' must be > 0, got {prior}")
    if assignment is not None:
        assignment = np.asarray(assignment)
        n_values = release.table.domain_size(release.sensitive)
        if (
            assignment.shape != (release.table.n_rows,)
            or not np.issubdtype(assignment.dtype, np.integer)
            or (len(assignment) and (assignment.min() < 0 or assignment.max() >= n_values))
        ):
            raise AnonlabError(
                f"parameter 'assignment' must hold one sensitive code in 0..{n_values - 1} per "
                f"record ({release.table.n_rows}), got shape {assignment.shape}"
            )
        assignment = assignment.astype(np.int64)
    return model, attributes, assignment, prior


def definetti_statistics(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    assignment: np.ndarray | None = None,
    prior: float = 1.0,
) -> DeFinettiStatistics:
    """The deFinetti sampler's count statistics on one machine, with the sampler's own feature
    cells (:func:`anonlab.attacks.definetti._features`) — the reference the distributed version
    is tested against. ``assignment``: a sensitive code per record (default: the published
    values, i.e. the true permutation of every group's multiset)."""
    from anonlab.attacks.definetti import _features, _log_posterior

    model, attributes, assignment, prior = _definetti_inputs(
        release, model, attributes, assignment, prior
    )
    assign = (
        np.asarray(release.sensitive_codes, dtype=np.int64) if assignment is None else assignment
    )
    cells, n_cells, feat_ptr = _features(release, attributes, model)
    n_values = release.table.domain_size(release.sensitive)
    counts = np.zeros(n_cells * n_values, dtype=np.int64)
    for f in range(cells.shape[1]):
        counts += np.bincount(cells[:, f] * n_values + assign, minlength=n_cells * n_values)
    counts = counts.reshape(n_cells, n_values)
    keys = None
    if model == "joint":
        keys = np.unique(_radix_keys(release.table, attributes))
    return DeFinettiStatistics(
        model, attributes, counts, feat_ptr, keys,
        np.asarray(release.group_sizes, dtype=np.int64),
        np.asarray(release.sensitive_histogram, dtype=np.int64),
        prior, float(_log_posterior(counts, prior)),
    )  # fmt: skip


def _map_distinct_keys(part: Partition, attributes: tuple[str, ...]) -> dict:
    keys = np.unique(_radix_keys(part.table, attributes))
    return {"keys": (keys, np.ones(len(keys), dtype=np.int64))}


def _map_definetti_counts(part: Partition, shared: dict) -> dict:
    table = part.table
    attributes, n_values = shared["attributes"], shared["n_values"]
    assignment = shared["assignment"]
    assign = (
        part.published_sensitive.astype(np.int64)
        if assignment is None
        else assignment[part.start : part.start + part.n_rows]
    )
    n_cells = shared["n_cells"]
    counts = np.zeros(n_cells * n_values, dtype=np.int64)
    if shared["cell_keys"] is not None:  # joint: the rank of the QI vector among all vectors
        columns = [np.searchsorted(shared["cell_keys"], _radix_keys(table, attributes))]
    else:
        ptr = shared["feat_ptr"]
        columns = [table.codes[a].astype(np.int64) + ptr[i] for i, a in enumerate(attributes)]
    for cell in columns:
        counts += np.bincount(cell * n_values + assign, minlength=n_cells * n_values)
    return {
        "counts": counts,
        "sizes": np.bincount(part.group, minlength=part.n_groups).astype(np.int64),
        "histogram": group_histogram(part.group, part.published_sensitive, part.n_groups, n_values),
    }


def definetti_statistics_distributed(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    assignment: np.ndarray | None = None,
    prior: float = 1.0,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> DeFinettiStatistics:
    """:func:`definetti_statistics` by map-reduce (one map; two for the joint model, whose cells
    are the distinct QI vectors of the whole table). Identical counts and log posterior."""
    from anonlab.attacks.definetti import _log_posterior

    model, attributes, assignment, prior = _definetti_inputs(
        release, model, attributes, assignment, prior
    )
    parts = _release_parts(release, client, partitions, n_partitions)
    table = release.table
    n_values = table.domain_size(release.sensitive)
    sizes = [table.domain_size(a) for a in attributes]
    feat_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    keys = None
    if model == "joint":
        _key_space(table, attributes, what=" (deFinetti joint model)")
        keys = map_reduce(_map_distinct_keys, parts, attributes, {"keys": "merge"}, client)["keys"][
            0
        ]
        n_cells = len(keys)
        feat_ptr = np.array([0, n_cells], dtype=np.int64)
    else:
        n_cells = int(feat_ptr[-1])
    shared = {
        "attributes": attributes,
        "n_values": n_values,
        "assignment": assignment,
        "n_cells": n_cells,
        "cell_keys": keys,
        "feat_ptr": feat_ptr,
    }
    how = {"counts": "sum", "sizes": "sum", "histogram": "sum"}
    out = map_reduce(_map_definetti_counts, parts, shared, how, client)
    counts = out["counts"].reshape(n_cells, n_values)
    return DeFinettiStatistics(
        model, attributes, counts, feat_ptr, keys, out["sizes"], out["histogram"], prior,
        float(_log_posterior(counts, prior)),
    )  # fmt: skip
