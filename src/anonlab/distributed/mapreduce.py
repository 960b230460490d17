"""Map-reduce over row partitions of a table or a release, with or without Dask.

The measures of :mod:`anonlab.distributed.measures` (privacy checks, the COUNT-query workload,
the foreground attack's mining, rule mining, the deFinetti statistics) read the data only through
integer count arrays that are *additive over rows*: a per-group histogram of the whole table is
the sum of the per-group histograms of its row blocks when every block keys its counts by the
*global* group id. So each measure is

1. **split**: :func:`split_table` / :func:`split_release` cut the rows into contiguous blocks
   (:class:`Partition`: a :class:`~anonlab.table.Table` of the block's rows, their global group
   ids and published sensitive codes, the block's first row);
2. **map**: a pure function ``map_function(partition, shared) -> dict of arrays`` runs on every
   block (on a Dask worker, or in this process), ``shared`` being what every block needs
   (a workload, the sufficient signatures of the previous level, ...);
3. **reduce**: :func:`reduce_results` combines the blocks' dicts key by key: ``sum`` for counts
   (integers, so the sum is exact), ``min`` / ``max`` for per-group extremes, ``concat`` for
   per-record outputs (blocks are contiguous and in order, so concatenation restores row order),
   ``merge`` for sparse ``(keys, counts)`` pairs;
4. **finish**: the single-machine code turns the reduced counts into the result.

Without a client (``client=None``) the same functions run in a loop in this process: that is how
the tests check, with hypothesis on random tables and without Dask, that the reduced counts equal
the single-machine ones. With a ``distributed.Client``, :func:`scatter_partitions` sends the blocks
to the workers once (:class:`ScatteredPartitions`, reusable by several measures) and
:func:`map_reduce` maps over them with ``client.map`` and reduces on the driver.

Choices (no paper covers this): blocks are contiguous row ranges of (almost) equal size
(``numpy.array_split``), not hash partitions, so concatenated per-record outputs are in input
order without a sort; the default number of blocks is twice the number of workers (so a slow
worker does not hold up the job); ``shared`` is scattered once per map with ``broadcast=True``.

A worker that dies mid-job does not fail it: blocks (and per-block items) are placed on the
cluster as the results of tasks that carry them (:func:`_place`), not with ``client.scatter``,
so the scheduler recomputes a block lost with its worker; map tasks are submitted with
``retries=2``; broadcast data survives on every other worker. The cost is that the scheduler
keeps each block in its task graph (the driver holds the table anyway in this prototype).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_int
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

__all__ = [
    "Partition",
    "PerBlock",
    "ScatteredPartitions",
    "map_blocks",
    "map_reduce",
    "merge_keyed_counts",
    "reduce_results",
    "scatter_partitions",
    "split_release",
    "split_table",
]

#: How each key of a map function's output is combined (see :func:`reduce_results`).
REDUCTIONS = ("sum", "min", "max", "concat", "merge")


@dataclass(frozen=True, eq=False)
class Partition:
    """One contiguous block of rows.

    Attributes
    ----------
    table : Table
        The block's rows (same schema and domains as the whole table, so codes agree).
    group : ndarray of shape (n_block_rows,), or None
        The rows' *global* group ids (0..n_groups-1), when a release is split.
    published_sensitive : ndarray of shape (n_block_rows,), or None
        The rows' sensitive codes as published (perturbed where the algorithm perturbs).
    n_groups : int
        Groups of the whole release (0 when a bare table is split).
    start : int
        Index of the block's first row in the whole table.
    index : int
        Position of the block (0-based).
    """

    table: Table
    group: np.ndarray | None
    published_sensitive: np.ndarray | None
    n_groups: int
    start: int
    index: int

    @property
    def n_rows(self) -> int:
        return self.table.n_rows


def _bounds(n_rows: int, n_partitions: int) -> list[tuple[int, int]]:
    n_partitions = check_int("n_partitions", n_partitions, minimum=1)
    cuts = np.linspace(0, n_rows, min(n_partitions, max(n_rows, 1)) + 1).round().astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def split_table(
    table: Table,
    n_partitions: int,
    group: np.ndarray | None = None,
    published_sensitive: np.ndarray | None = None,
    n_groups: int = 0,
) -> list[Partition]:
    """Cut ``table`` (and optional per-row group ids / published codes) into contiguous blocks.

    At most ``n_rows`` blocks are made (none is empty unless the table is). Raises naming
    ``group`` when it does not hold one id per row.
    """
    if not isinstance(table, Table):
        raise AnonlabError(f"parameter 'table' must be an anonlab Table, got {type(table)}")
    if group is not None and np.shape(group) != (table.n_rows,):
        raise AnonlabError(
            f"parameter 'group' must hold one group id per row ({table.n_rows}), "
            f"got shape {np.shape(group)}"
        )
    parts = []
    for i, (a, b) in enumerate(_bounds(table.n_rows, n_partitions)):
        rows = np.arange(a, b)
        parts.append(
            Partition(
                table=table.take(rows),
                group=None if group is None else np.ascontiguousarray(group[a:b]),
                published_sensitive=(
                    None
                    if published_sensitive is None
                    else np.ascontiguousarray(published_sensitive[a:b])
                ),
                n_groups=int(n_groups),
                start=a,
                index=i,
            )
        )
    return parts


def split_release(release: Release, n_partitions: int) -> list[Partition]:
    """Blocks of a release's rows with their global group ids and published sensitive codes."""
    if not isinstance(release, Release):
        raise AnonlabError(f"parameter 'release' must be an anonlab Release, got {type(release)}")
    if release.group is None:
        raise AnonlabError("the release has no per-record groups (a candidate from a search)")
    return split_table(
        release.table,
        n_partitions,
        release.group,
        np.asarray(release.sensitive_codes),
        release.n_groups,
    )


@dataclass(eq=False)
class ScatteredPartitions:
    """Blocks already sent to a Dask cluster (futures), reusable by several measures.

    ``n_rows`` and ``n_groups`` describe the whole table; ``starts`` the blocks' first rows.
    """

    client: Any
    futures: list
    n_rows: int
    n_groups: int
    starts: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.futures)


def default_partitions(client: Any) -> int:
    """Twice the number of workers of ``client`` (1 block per call without a client: 1)."""
    if client is None:
        return 1
    try:
        workers = client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:  # older distributed: every worker is listed
        workers = client.scheduler_info()["workers"]
    return max(1, 2 * len(workers))


def _hold(value: Any) -> Any:
    return value


def _place(client: Any, values: Sequence[Any], name: str) -> list:
    """Put ``values`` on the cluster as results of tasks that carry them: unlike scattered
    data, the scheduler can recompute one lost with its worker."""
    import dask

    token = uuid.uuid4().hex  # fresh keys: no race with another job
    # Dask warns about task graphs over 10 MB; carrying the data in the task is the design.
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": 2**62}):
        return [
            client.submit(_hold, v, key=f"anonlab-{name}-{i}-{token}", pure=False)
            for i, v in enumerate(values)
        ]


def scatter_partitions(client: Any, partitions: Sequence[Partition]) -> ScatteredPartitions:
    """Send blocks to the workers once; the futures stay on the cluster (recomputable if a
    worker dies, see :func:`_place`)."""
    partitions = list(partitions)
    if not partitions:
        raise AnonlabError("nothing to scatter: no partition given")
    futures = _place(client, partitions, "block")
    return ScatteredPartitions(
        client=client,
        futures=list(futures),
        n_rows=int(sum(p.n_rows for p in partitions)),
        n_groups=int(partitions[0].n_groups),
        starts=tuple(p.start for p in partitions),
    )


@dataclass(frozen=True, eq=False)
class PerBlock:
    """``shared`` for :func:`map_blocks` that differs by block: ``items[i]`` goes to block
    ``i`` only (scattered to its worker, not broadcast)."""

    items: tuple


def map_blocks(
    function: Callable[[Partition, Any], Any],
    partitions: Sequence[Partition] | ScatteredPartitions,
    shared: Any,
    client: Any = None,
) -> list:
    """Run ``function(partition, shared)`` on every block; the outputs, in block order.

    ``shared`` is passed to every call (scattered once with ``broadcast=True`` under Dask), or,
    as a :class:`PerBlock`, one item per block. ``client=None`` with plain partitions: run here.
    """
    n_blocks = len(partitions)
    if isinstance(shared, PerBlock) and len(shared.items) != n_blocks:
        raise AnonlabError(f"PerBlock has {len(shared.items)} items for {n_blocks} blocks")
    if isinstance(partitions, ScatteredPartitions):
        client = partitions.client
        # A worker killed at the wrong moment can make the scheduler forget a map task
        # ("cancelled ... already forgotten") instead of rescheduling it; seen once in four full
        # test runs. The whole map is then submitted again, once, with fresh keys.
        # Likewise a broadcast scatter can reach the scheduler before it has removed a worker
        # just killed: it fails with a KeyError naming the worker (seen once in a full run);
        # it is scattered again, once, after the scheduler has had a moment.
        for attempt in range(2):
            try:
                if isinstance(shared, PerBlock):
                    shared_args = _place(client, list(shared.items), "item")
                    to_cancel = list(shared_args)
                else:
                    shared_future = client.scatter([shared], broadcast=True, hash=False)[0]
                    shared_args = [shared_future] * n_blocks
                    to_cancel = [shared_future]
            except KeyError:
                if attempt == 0:
                    time.sleep(0.5)
                    continue
                raise
            name = getattr(function, "__name__", "map").strip("_")
            futures = client.map(
                function, partitions.futures, shared_args, pure=False, retries=2,
                key=[f"anonlab-map-{name}-{i}-{uuid.uuid4().hex}" for i in range(n_blocks)],
            )  # fmt: skip
            try:
                outputs = client.gather(futures)
            except Exception as exc:  # distributed's FutureCancelledError, by name
                client.cancel(list(futures) + to_cancel)
                if attempt == 0 and "Cancelled" in type(exc).__name__:
                    continue
                raise
            client.cancel(to_cancel)
            return list(outputs)
    if client is not None:
        return map_blocks(function, scatter_partitions(client, partitions), shared)
    if isinstance(shared, PerBlock):
        return [function(p, item) for p, item in zip(partitions, shared.items, strict=True)]
    return [function(p, shared) for p in partitions]


def map_reduce(
    function: Callable[[Partition, Any], Mapping[str, Any]],
    partitions: Sequence[Partition] | ScatteredPartitions,
    shared: Any,
    how: Mapping[str, str],
    client: Any = None,
) -> dict[str, Any]:
    """Run ``function(partition, shared)`` on every block and combine the outputs by ``how``.

    Parameters
    ----------
    function : callable
        A module-level (importable, picklable) pure function returning a dict of arrays.
    partitions : list of Partition, or ScatteredPartitions
        The blocks, in row order (a :class:`ScatteredPartitions` brings its client).
    shared : object
        Passed to every call (see :func:`map_blocks`).
    how : mapping of str to {"sum", "min", "max", "concat", "merge"}
        How each output key is combined (:func:`reduce_results`).
    client : distributed.Client, optional
        None (and plain partitions): run in this process.
    """
    return reduce_results(map_blocks(function, partitions, shared, client), how)


def reduce_results(outputs: Sequence[Mapping[str, Any]], how: Mapping[str, str]) -> dict:
    """Combine the blocks' outputs key by key.

    ``sum``: elementwise sum (integer counts: exact); ``min`` / ``max``: elementwise extremes;
    ``concat``: concatenation in block order (per-record outputs); ``merge``: sparse
    ``(keys, values)`` pairs summed by key (:func:`merge_keyed_counts`); each output must give a
    tuple ``(keys, values)`` with ``keys`` of shape (m,) or (m, d) and ``values`` of shape (m,...).
    """
    if not outputs:
        raise AnonlabError("nothing to reduce: no partition output")
    out: dict[str, Any] = {}
    for key, rule in how.items():
        if rule not in REDUCTIONS:
            raise AnonlabError(f"reduction for {key!r} must be one of {REDUCTIONS}, got {rule!r}")
        items = [o[key] for o in outputs]
        if rule == "sum":
            total = np.array(items[0], copy=True)
            for x in items[1:]:
                total += x
            out[key] = total
        elif rule == "min":
            out[key] = np.minimum.reduce(items) if len(items) > 1 else np.asarray(items[0])
        elif rule == "max":
            out[key] = np.maximum.reduce(items) if len(items) > 1 else np.asarray(items[0])
        elif rule == "concat":
            out[key] = np.concatenate(items)
        else:
            out[key] = merge_keyed_counts(items)
    return out


def merge_keyed_counts(
    items: Sequence[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Sum sparse count tables ``(keys, values)`` by key; keys come back sorted ascending.

    ``keys`` are int64 of shape (m,); ``values`` int64 of shape (m,) or (m, v). Integer sums,
    so the result does not depend on the order of the blocks.
    """
    keys = np.concatenate([np.asarray(k, dtype=np.int64) for k, _ in items])
    values = np.concatenate([np.asarray(v) for _, v in items])
    if len(keys) == 0:
        return keys, values
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.add.reduceat(values[order], starts, axis=0)
