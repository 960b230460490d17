"""The foreground-knowledge attack (Wong et al., TKDD 2011) by map-reduce.

Everything Algorithm 1 derives from the quasi-identifiers (Apriori's counts, each attribute
set's signatures and their supports, each record's signature) depends on a record only through
its *row*, its values on the searched attributes; the single machine computes it once per
distinct row (:class:`~anonlab.attacks.foreground.signatures.RowIndex`), and the one pass over
the records is the sort that finds the rows. That pass runs on the workers: each block sorts
its rows' mixed-radix keys and sends its distinct keys with their counts and each record's
local row (in the smallest unsigned type, one or two bytes a record); the driver merges the
keys (a few thousand per block on census data) and maps each block's local rows to global ones,
which gives the same ``RowIndex`` as the single machine (rows in the same lexicographic order,
same counts, same record rows). The group statistics (group sizes, each group's published
count of the target) are map-reduced as for the privacy checks (:mod:`.checks`).

The rest is the single machine's code on these inputs, on the driver: Apriori over the distinct
rows (a signature counts with its row's multiplicity), the signatures of each attribute set, the
fixed point of Eqs. (4)-(6) solved per (attribute set, target) on the release's groups (the
driver holds the release), side by side on threads as on one machine, and ``p*`` folded in
enumeration order. So the result equals the single machine's, bit for bit, convergence reports
included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab._validation import check_int
from anonlab.distributed.mapreduce import Partition, map_blocks
from anonlab.distributed.measures.checks import (
    group_statistics_distributed,
    release_with_statistics,
)
from anonlab.distributed.measures.keys import (
    decode_keys,
    key_chunks,
    narrow,
    row_keys,
    unique_rows,
)
from anonlab.distributed.measures.partitions import Partitions, release_parts
from anonlab.release import Release


def _map_distinct_rows(part: Partition, chunks: list[tuple[str, ...]]) -> dict:
    """The block's distinct rows on the searched attributes: their keys (one int64 per run of
    attributes, lexicographic), counts, and each record's row among them (narrowed)."""
    keys, inverse, counts = unique_rows(row_keys(part.table, chunks))
    return {"keys": keys, "counts": counts, "row": narrow(inverse)}


def row_index(release: Release, parts: Partitions, attributes: tuple[str, ...]) -> Any:
    """:meth:`RowIndex.of(release, attributes) <anonlab.attacks.foreground.signatures.RowIndex.of>`
    with the records' pass (the sort of their rows) map-reduced over ``parts``: same rows, in
    the same order, same counts, same record rows."""
    from anonlab.attacks.foreground.signatures import RowIndex, compact_index

    table = release.table
    if not attributes or not table.n_rows:
        return RowIndex.of(release, attributes)  # no pass over the records
    chunks = key_chunks(table, attributes)
    blocks = map_blocks(_map_distinct_rows, parts, chunks)
    keys, inverse, _ = unique_rows(np.concatenate([b["keys"] for b in blocks]))
    block_counts = np.concatenate([b["counts"] for b in blocks])
    count = np.bincount(inverse, weights=block_counts, minlength=len(keys))
    bounds = np.cumsum([0] + [len(b["keys"]) for b in blocks])
    record_row = np.concatenate(
        [inverse[bounds[i] : bounds[i + 1]][b["row"]] for i, b in enumerate(blocks)]
    )
    rows = np.concatenate(
        [
            decode_keys(keys[:, j], [table.domain_size(a) for a in chunk])
            for j, chunk in enumerate(chunks)
        ],
        axis=1,
    )
    radices = tuple(int(table.domain_size(a)) for a in attributes)
    return RowIndex(
        attributes,
        rows,
        np.rint(count).astype(np.int64),
        compact_index(record_row, len(keys)),
        radices,
    )


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
    """:func:`anonlab.attacks.foreground.frequent_attribute_sets` with the pass over the
    records (the distinct rows and their counts, :func:`row_index`) map-reduced; Apriori then
    runs over the distinct rows, as on one machine. Same sets, same order."""
    from anonlab.attacks.foreground.algorithm import frequent_sets_of_rows
    from anonlab.attacks.foreground.inputs import require_groups, search_attributes

    require_groups(release)
    parts = release_parts(release, client, partitions, n_partitions)
    attrs, top = search_attributes(release, attributes, max_attributes)
    J = check_int("min_support", min_support, minimum=1)
    return frequent_sets_of_rows(row_index(release, parts, attrs), J, top)


def _statistics_proxy(release: Release, parts: Partitions) -> Release:
    """The release with its group sizes and published histogram map-reduced (:mod:`.checks`)."""
    return release_with_statistics(release, group_statistics_distributed(release, partitions=parts))


def mine_global_distribution_distributed(
    release: Release,
    attributes: Sequence[str] | str,
    sensitive_values: Any,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **options: Any,
) -> tuple[Any, Any]:
    """:func:`anonlab.attacks.foreground.mine_global_distribution` from map-reduced counts.

    ``options`` are the single machine's (``epsilon``, ``sigma``, ``min_support``,
    ``small_signature``, ``tol``, ``max_iter``, ``newton``, ``accelerate``), with its defaults.
    The maps count each group's published target count (the group statistics) and find the
    distinct rows of the attribute set with each record's row (:func:`row_index`); the driver
    solves Eqs. (4)-(6) with the single-machine solver. The result (``probability``,
    ``support``, ``sufficient``, ``signatures``, ``record_signature``, the convergence report)
    equals the single machine's.
    """
    from anonlab.attacks.foreground.global_distribution import (
        mine_from_layout,
        mine_global_distribution,
        one_target,
    )
    from anonlab.attacks.foreground.inputs import count_target, keyword_options, mining_options
    from anonlab.attacks.foreground.kernel import GroupLayout

    attrs, target = one_target(release, attributes, sensitive_values)
    mining = mining_options(**keyword_options(mine_global_distribution, options))
    parts = release_parts(release, client, partitions, n_partitions)
    proxy = _statistics_proxy(release, parts)
    n_x, base = count_target(proxy, target[1])
    layout = GroupLayout(release.group, release.n_groups, n_x)
    signatures = row_index(release, parts, attrs).signatures(attrs)
    dist, report, _ = mine_from_layout(proxy, attrs, target, layout, signatures, mining, base)
    return dist, report


def foreground_attack_distributed(
    release: Release,
    sensitive_values: Any = None,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **options: Any,
) -> Any:
    """:func:`anonlab.attacks.foreground.foreground_attack` (Algorithm 1) by map-reduce.

    ``options`` are the single machine's (``epsilon``, ``sigma``, ``min_support``,
    ``max_attributes``, ``attributes``, ``small_signature``, ``include_empty``, ``tol``,
    ``max_iter``, ``newton``, ``accelerate``, ``threads``), with its defaults. Maps: the group
    statistics, and the distinct rows of the searched attributes with each record's row
    (:func:`row_index`). Apriori over the distinct rows, the signatures and the mining (on
    ``threads`` threads, default: the CPUs this process may use) run on the driver with the
    single-machine code. The :class:`~anonlab.attacks.foreground.ForegroundResult` equals the
    single machine's.
    """
    from anonlab.attacks.foreground.algorithm import (
        attack_on_rows,
        foreground_attack,
        frequent_sets_of_rows,
    )
    from anonlab.attacks.foreground.inputs import (
        keyword_options,
        mining_options,
        require_groups,
        resolve_targets,
        search_attributes,
    )

    o = keyword_options(foreground_attack, options)
    search = {name: o.pop(name) for name in ("attributes", "max_attributes", "include_empty")}
    threads = o.pop("threads")
    require_groups(release)
    mining = mining_options(**o)
    if threads is not None:
        threads = check_int("threads", threads, minimum=1)
    targets = resolve_targets(release, sensitive_values)
    attrs, top = search_attributes(release, search["attributes"], search["max_attributes"])
    parts = release_parts(release, client, partitions, n_partitions)
    proxy = _statistics_proxy(release, parts)
    index = row_index(release, parts, attrs)
    sets = frequent_sets_of_rows(index, mining.J, top)
    if search["include_empty"]:
        sets = [(), *sets]
    return attack_on_rows(release, proxy, index, sets, targets, mining, threads)
