"""Row partitions of a release or table for the map-reduce measures (issue 10, §2).

Every measure of :mod:`anonlab.distributed.measures` takes ``partitions`` (made once by
:func:`partition_release` or :func:`partition_table`, reusable, scattered to a Dask client's
workers when given) or makes them; :func:`release_parts` and :func:`table_parts` check that
given partitions belong to the release or table.
"""

from __future__ import annotations

from typing import Any

from anonlab.distributed.mapreduce import (
    Partition,
    ScatteredPartitions,
    default_partitions,
    scatter_partitions,
    split_release,
    split_table,
)
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

Partitions = list[Partition] | ScatteredPartitions


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


def release_parts(
    release: Release, client: Any, partitions: Partitions | None, n_partitions: int | None
) -> Partitions:
    """The partitions a measure of ``release`` runs on: ``partitions`` when given (checked to
    come from :func:`partition_release` of this release: same rows, same groups, group ids
    present; scattered to ``client`` when it is given and they are not yet), else new ones."""
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


def table_parts(
    table: Table, client: Any, partitions: Partitions | None, n_partitions: int | None
) -> Partitions:
    """The partitions a measure of ``table`` runs on: ``partitions`` when given (checked to hold
    the table's number of rows; scattered to ``client`` when given), else new ones from
    :func:`partition_table`."""
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
