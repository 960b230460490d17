"""Privacy checks by map-reduce: group sizes and the published sensitive histogram.

``bincount(group * n_values + s)`` per block, summed on the workers (a block sends only its
non-zero cells when the groups are many); the root of the reduction narrows the counts to the
smallest unsigned integer type, so the driver receives about one byte per cell. Every
registered model but matching ℓ-diversity reads only these (and the schema); the checks then run
unchanged on the release with the reduced statistics in place (:func:`release_with_statistics`).
Matching ℓ-diversity (per-record incompatibilities, group-local matchings) is not distributed.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab.distributed.mapreduce import (
    Partition,
    map_reduce,
)
from anonlab.distributed.measures.keys import narrow, unique_counts
from anonlab.distributed.measures.partitions import Partitions, release_parts
from anonlab.errors import AnonlabError
from anonlab.release import Release


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


#: Group statistics are counted densely, one ``(n_groups, n_values)`` bincount per block, up to
#: this many cells (or twice a block's rows, if more); beyond, each block counts its non-zero
#: cells (sorted keys).
DENSE_CELLS = 1 << 23


def _map_group_statistics(part: Partition, shared: tuple[int, int, bool]) -> dict:
    """The block's per-group sensitive counts: dense (n_groups, n_values) in the smallest
    unsigned type, or, when that is larger than the block (``sparse``), its non-zero cells
    ``group * n_values + s`` with counts."""
    n_groups, n_values, sparse = shared
    cell = part.group.astype(np.int64)  # group * n_values + s, in place (see .compact)
    cell *= n_values
    cell += part.published_sensitive
    if sparse:
        return {"cells": unique_counts(cell, n_groups * n_values)}
    histogram = np.bincount(cell, minlength=n_groups * n_values).reshape(n_groups, n_values)
    return {"histogram": narrow(histogram)}  # summed without widening (reduce_results)


def _narrow_statistics(out: dict) -> dict:
    """The reduced statistics as the driver receives them: counts (and cell keys) narrowed."""
    if "histogram" in out:
        return {"histogram": narrow(out["histogram"])}
    keys, counts = out["cells"]
    return {"cells": (narrow(keys), narrow(counts))}


def group_statistics_distributed(
    release: Release,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> GroupStatistics:
    """Group sizes and the published sensitive histogram by map-reduce (exact integer sums).

    Blocks count a dense histogram, or, when ``n_groups * n_values`` exceeds both
    ``DENSE_CELLS`` and twice the rows of a block (many small groups), their non-zero cells
    only; the workers sum them and narrow the result (:func:`~.keys.narrow`) before it travels
    to the driver. Sizes are the histogram's row sums.
    """
    parts = release_parts(release, client, partitions, n_partitions)
    n_groups, n_values = release.n_groups, release.table.domain_size(release.sensitive)
    cells = n_groups * n_values
    sparse = cells > max(DENSE_CELLS, 2 * release.table.n_rows / max(len(parts), 1))
    how = {"cells": "merge"} if sparse else {"histogram": "sum"}
    out = map_reduce(
        _map_group_statistics, parts, (n_groups, n_values, sparse), how, client,
        finish=_narrow_statistics,
    )  # fmt: skip
    if sparse:
        keys, counts = out["cells"]
        histogram = np.zeros(cells, dtype=np.int64)
        histogram[keys] = counts
    else:
        histogram = out["histogram"].astype(np.int64)
    histogram = histogram.reshape(n_groups, n_values)
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
        array = np.asarray(value, dtype=np.int64).view()  # read-only view, no copy
        array.flags.writeable = False
        proxy.__dict__[name] = array
    return proxy


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
    *args: Any,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **kwargs: Any,
) -> list:
    """:func:`anonlab.models.defaults.default_checks` (what ``anonlab check`` runs, with its
    arguments) with one map-reduce for the group statistics shared by every model."""
    from anonlab.models.defaults import default_checks

    stats = group_statistics_distributed(
        release, client=client, partitions=partitions, n_partitions=n_partitions
    )
    return default_checks(release_with_statistics(release, stats), *args, **kwargs)
