"""Privacy checks by map-reduce: group sizes and the published sensitive histogram.

``bincount(group * n_values + s)`` per block, summed (a block sends only its non-zero cells when
the groups are many). Every registered model but matching ℓ-diversity reads only these (and
the schema); the checks then run unchanged on the release with the reduced statistics in place
(:func:`release_with_statistics`). Matching ℓ-diversity (per-record incompatibilities,
group-local matchings) is not distributed.
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
from anonlab.distributed.measures.keys import unique_counts
from anonlab.distributed.measures.partitions import Partitions, release_parts
from anonlab.errors import AnonlabError
from anonlab.grouping import group_histogram
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


def _map_group_statistics(part: Partition, shared: tuple[int, int, bool]) -> dict:
    """The block's per-group sensitive counts: dense (n_groups, n_values), or, when that is
    larger than the block (``sparse``), its non-zero cells ``group * n_values + s`` with counts."""
    n_groups, n_values, sparse = shared
    if sparse:
        cell = part.group.astype(np.int64) * n_values + part.published_sensitive
        return {"cells": unique_counts(cell)}
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
    parts = release_parts(release, client, partitions, n_partitions)
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
