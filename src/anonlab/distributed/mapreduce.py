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
   (the number of groups, the frequent cells of the previous level, ...);
3. **reduce**: :func:`reduce_results` combines the blocks' dicts key by key: ``sum`` for counts
   (integers, so the sum is exact), ``min`` / ``max`` for per-group extremes, ``concat`` for
   per-record outputs (blocks are contiguous and in order, so concatenation restores row order),
   ``merge`` for sparse ``(keys, counts)`` pairs;
4. **finish**: the single-machine code turns the reduced counts into the result.

Without a client (``client=None``) the same functions run in a loop in this process: that is how the
tests check, with hypothesis on random tables and without Dask, that the reduced counts equal the
single-machine ones. With a ``distributed.Client``, :func:`scatter_partitions` sends the blocks to
the workers once, consecutive blocks to one worker (:class:`ScatteredPartitions`, reusable by
several measures), and every map is asked to run on the worker its block is on. :func:`map_reduce`
**reduces on the workers**: reduce tasks combine first each worker's outputs where they are, then up
to ``REDUCE_FAN_IN`` results each, in a tree; an optional ``finish`` runs in the root (e.g.
narrowing counts to the smallest integer type), and the driver gathers that one result;
:func:`map_blocks` gathers every block's output instead (per-record outputs). Two more steps keep
data on the workers: :func:`derive_partitions` maps blocks to new blocks left where they are (a
block's distinct rows with their counts), and :func:`reduce_partitions` combines blocks in a tree
into one value left on a worker (:class:`Remote`), which :func:`map_remote` then reads from one task
per piece of work (a share of the queries, of the candidates), cut by the caller into
:func:`worker_count` pieces; only the tasks' small outputs travel to the driver.

Choices (no paper covers this): blocks are contiguous row ranges of (almost) equal size
(``numpy.array_split``), not hash partitions, so concatenated per-record outputs are in input
order without a sort; the default number of blocks is twice the number of workers (so a slow
worker does not hold up the job); ``shared`` is scattered once per map with ``broadcast=True``
(placed as a task's result when derived blocks depend on it, so that it can be recomputed).
Reduce tasks take consecutive blocks, so ``concat`` keeps row order and float sums are added in
one fixed order for a given number of blocks. Placement requests are loose: a task whose worker
is gone runs elsewhere.

A worker that dies mid-job does not fail it: blocks (and per-block items) are placed on the
cluster as the results of tasks that carry them (:func:`place`), not with ``client.scatter``,
so the scheduler recomputes a block lost with its worker; map, derive and reduce tasks are
submitted with ``retries=2``, and what a derived block or a :class:`Remote` was made from is
held with it, so that it too can be recomputed; broadcast data survives on every other worker.
The cost is that the scheduler keeps each block in its task graph (the driver holds the table
anyway in this prototype).
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
    "REDUCE_FAN_IN",
    "Partition",
    "PerBlock",
    "Remote",
    "ScatteredPartitions",
    "derive_partitions",
    "map_blocks",
    "map_reduce",
    "map_remote",
    "merge_keyed_counts",
    "place",
    "reduce_partitions",
    "reduce_results",
    "scatter_partitions",
    "split_release",
    "split_table",
    "worker_count",
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
    ``held``: futures the blocks depend on (the blocks a :func:`derive_partitions` made them
    from, its shared data), kept so that a block lost with its worker can be recomputed.
    ``workers``: the worker each block was placed on (consecutive blocks on one worker), where
    its maps are asked to run (loosely: elsewhere if that worker is gone).
    """

    client: Any
    futures: list
    n_rows: int
    n_groups: int
    starts: tuple[int, ...]
    held: tuple = ()
    workers: tuple = ()

    def __len__(self) -> int:
        return len(self.futures)


def default_partitions(client: Any) -> int:
    """Twice the number of workers of ``client`` (1 block per call without a client: 1)."""
    if client is None:
        return 1
    return max(1, 2 * len(_worker_addresses(client)))


def _worker_addresses(client: Any) -> list[str]:
    try:
        workers = client.scheduler_info(n_workers=-1)["workers"]
    except TypeError:  # older distributed: every worker is listed
        workers = client.scheduler_info()["workers"]
    return sorted(workers)


def hold(value: Any) -> Any:
    """The task that keeps ``value`` (an argument, or another task's result) on the worker it
    is placed on: submitted with :func:`placement`, it carries the value there."""
    return value


def placement(addresses: Sequence[str], i: int) -> dict:
    """``client.submit`` options asking for the ``i``-th of ``addresses`` (round robin), loosely
    (another worker takes the task when that one is gone); none without addresses."""
    if not addresses:
        return {}
    return {"workers": [addresses[i % len(addresses)]], "allow_other_workers": True}


def place(client: Any, values: Sequence[Any], name: str, addresses: Sequence[str] = ()) -> list:
    """Put ``values`` on the cluster as results of tasks that carry them: unlike scattered
    data, the scheduler can recompute one lost with its worker. Returns their futures.

    ``addresses``: value ``i`` goes to worker ``addresses[i % len(addresses)]`` (one address
    per value, or fewer to go round robin; see :func:`placement`), so that blocks are shared
    evenly and each map runs where its block is (left to itself, the scheduler may put most
    blocks on one worker, and maps then wait or move their blocks).
    """
    import dask

    token = uuid.uuid4().hex  # fresh keys: no race with another job
    # Dask warns about task graphs over 10 MB; carrying the data in the task is the design.
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": 2**62}):
        return [
            client.submit(
                hold, v, key=f"anonlab-{name}-{i}-{token}", pure=False, **placement(addresses, i)
            )
            for i, v in enumerate(values)
        ]


def _map_tasks(client: Any, function: Callable, partitions: Any, args: Sequence[Any]) -> list:
    """``function(block, args[i])`` for every block ``i``, each asked to run where its block
    was placed; retried twice (a worker may die)."""
    name = _task_name(function)
    token = uuid.uuid4().hex
    return [
        client.submit(
            function,
            block,
            arg,
            pure=False,
            retries=2,
            key=f"anonlab-map-{name}-{i}-{token}",
            **placement(partitions.workers[i : i + 1], 0),
        )
        for i, (block, arg) in enumerate(zip(partitions.futures, args, strict=True))
    ]


def block_workers(client: Any, n: int) -> tuple[str, ...]:
    """The worker each of ``n`` blocks goes to: consecutive blocks on one worker, so that each
    worker's outputs are reduced there first (empty without workers)."""
    addresses = _worker_addresses(client)
    return tuple(addresses[i * len(addresses) // n] for i in range(n)) if addresses else ()


def scatter_partitions(client: Any, partitions: Sequence[Partition]) -> ScatteredPartitions:
    """Send blocks to the workers once; the futures stay on the cluster (recomputable if a
    worker dies, see :func:`place`)."""
    partitions = list(partitions)
    if not partitions:
        raise AnonlabError("nothing to scatter: no partition given")
    workers = block_workers(client, len(partitions))
    futures = place(client, partitions, "block", workers)
    return ScatteredPartitions(
        client=client,
        futures=list(futures),
        n_rows=int(sum(p.n_rows for p in partitions)),
        n_groups=int(partitions[0].n_groups),
        starts=tuple(p.start for p in partitions),
        workers=workers,
    )


@dataclass(frozen=True, eq=False)
class PerBlock:
    """``shared`` for :func:`map_blocks` that differs by block: ``items[i]`` goes to block
    ``i`` only (scattered to its worker, not broadcast)."""

    items: tuple


#: Outputs combined by one reduce task on the workers (the fan-in of the reduction tree).
REDUCE_FAN_IN = 8


def _task_name(function: Callable) -> str:
    return getattr(function, "__name__", "map").strip("_")


def _reduce_task(outputs: list, how: Mapping[str, str], finish: Callable | None) -> Any:
    """One node of the reduction tree (run on a worker): :func:`reduce_results`, then
    ``finish`` at the root."""
    out = reduce_results(outputs, how)
    return out if finish is None else finish(out)


def _first_runs(workers: Sequence[str], n: int) -> list[tuple[int, int, str | None]]:
    """The first level of a reduction tree: runs of consecutive blocks placed on one worker
    (at most ``REDUCE_FAN_IN`` each), as ``(start, stop, worker)``; reduced where they are,
    so that only one partial result per worker travels to the next level."""
    if len(workers) != n:
        return [(a, min(a + REDUCE_FAN_IN, n), None) for a in range(0, n, REDUCE_FAN_IN)]
    runs, a = [], 0
    for b in range(1, n + 1):
        if b == n or workers[b] != workers[a] or b - a == REDUCE_FAN_IN:
            runs.append((a, b, workers[a]))
            a = b
    return runs


def _reduce_tree(
    client: Any,
    futures: list,
    workers: Sequence[str],
    name: str,
    submit: Callable[[list, bool, str, dict], Any],
) -> list:
    """Reduce the blocks' ``futures`` in a tree of tasks, ``submit(group, root, key,
    options)`` making each (``root``: the last one); the first level over the runs of
    :func:`_first_runs`, each asked to run on its worker, the next ones over
    ``REDUCE_FAN_IN`` consecutive results. Returns every future it made, the root last (the
    caller holds them all: a task the client no longer wants breaks the scheduler's cancel of
    the tree, and the root can be recomputed only from held inputs)."""
    token = uuid.uuid4().hex
    groups = _first_runs(workers, len(futures))
    level, depth, made = list(futures), 0, []
    while True:
        root = len(groups) == 1
        level = [
            submit(
                level[a:b],
                root,
                f"anonlab-reduce-{name}-{depth}-{i}-{token}",
                placement([w], 0) if w else {},
            )
            for i, (a, b, w) in enumerate(groups)
        ]
        made.extend(level)
        if root:
            return made
        depth += 1
        groups = [
            (a, min(a + REDUCE_FAN_IN, len(level)), None)
            for a in range(0, len(level), REDUCE_FAN_IN)
        ]


def _reduce_outputs(
    client: Any,
    futures: list,
    workers: Sequence[str],
    how: Mapping[str, str],
    finish: Callable | None,
    name: str,
) -> Any:
    """The futures of a tree of :func:`_reduce_task` over the map outputs ``futures``, the
    root last."""

    def submit(group: list, root: bool, key: str, options: dict) -> Any:
        return client.submit(
            _reduce_task, group, how, finish if root else None, pure=False, retries=2, key=key,
            **options,
        )  # fmt: skip

    return _reduce_tree(client, futures, workers, name, submit)


def _root_last(made: list) -> tuple[list, list]:
    return [made[-1]], made[:-1]


def _gather_once_more(client: Any, submit: Callable[[], tuple[list, list, list]]) -> list:
    """``submit()`` tasks (it returns the futures to gather, every future it made, and those to
    cancel once gathered, e.g. scattered data), gather them, and return the gathered values.

    A worker killed at the wrong moment can make the scheduler forget a task ("cancelled ...
    already forgotten") instead of rescheduling it; seen once in four full test runs. The whole
    job is then submitted again, once, with fresh keys. Likewise a broadcast scatter can reach
    the scheduler before it has removed a worker just killed: it fails with a KeyError naming
    the worker (seen once in a full run); it is scattered again, once, after the scheduler has
    had a moment.
    """
    for attempt in range(2):
        try:
            final, made, done = submit()
        except KeyError:
            if attempt == 0:
                time.sleep(0.5)
                continue
            raise
        try:
            outputs = client.gather(final)
        except Exception as exc:  # distributed's FutureCancelledError, by name
            client.cancel(list(final) + list(made))
            if attempt == 0 and "Cancelled" in type(exc).__name__:
                continue
            raise
        for future in done:  # not cancel: that would walk the finished tasks that read it
            future.release()
        return list(outputs)
    raise AssertionError("unreachable")  # pragma: no cover


def _on_cluster(
    partitions: ScatteredPartitions,
    function: Callable,
    shared: Any,
    collect: Callable[[Any, list], tuple[list, list]],
) -> list:
    """Map ``function`` over the scattered blocks, ``collect(client, map_futures)`` the futures
    to gather (the map futures themselves, or the root of a reduction tree) with any others it
    made, and gather them (submitted once more if the scheduler forgot a task, see
    :func:`_gather_once_more`)."""
    client = partitions.client
    n_blocks = len(partitions)

    def submit() -> tuple[list, list, list]:
        if isinstance(shared, PerBlock):
            shared_args = place(client, list(shared.items), "item")
            to_cancel = list(shared_args)
        else:
            shared_future = client.scatter([shared], broadcast=True, hash=False)[0]
            shared_args = [shared_future] * n_blocks
            to_cancel = [shared_future]
        futures = _map_tasks(client, function, partitions, shared_args)
        final, extra = collect(client, list(futures))
        return final, [*futures, *extra, *to_cancel], to_cancel

    return _gather_once_more(client, submit)


def map_blocks(
    function: Callable[[Partition, Any], Any],
    partitions: Sequence[Partition] | ScatteredPartitions,
    shared: Any,
    client: Any = None,
) -> list:
    """Run ``function(partition, shared)`` on every block; the outputs, in block order.

    ``shared`` is passed to every call (scattered once with ``broadcast=True`` under Dask), or,
    as a :class:`PerBlock`, one item per block. ``client=None`` with plain partitions: run here.
    Every block's output travels to the driver: use :func:`map_reduce` when only their
    combination is needed.
    """
    n_blocks = len(partitions)
    if isinstance(shared, PerBlock) and len(shared.items) != n_blocks:
        raise AnonlabError(f"PerBlock has {len(shared.items)} items for {n_blocks} blocks")
    if isinstance(partitions, ScatteredPartitions):
        return _on_cluster(partitions, function, shared, lambda client, futures: (futures, []))
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
    *,
    finish: Callable[[dict], Any] | None = None,
) -> Any:
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
    finish : callable, optional
        Applied to the combined dict (on the worker that holds it, under Dask); its result is
        returned instead. Module-level, like ``function``.

    Under Dask the outputs are combined on the workers by a tree of reduce tasks (each over
    ``REDUCE_FAN_IN`` consecutive outputs) and only the root's result travels to the driver.
    """
    if isinstance(partitions, ScatteredPartitions):
        name = _task_name(function)
        return _on_cluster(
            partitions, function, shared,
            lambda client, futures: _root_last(
                _reduce_outputs(client, futures, partitions.workers, how, finish, name)
            ),
        )[0]  # fmt: skip
    if client is not None:
        return map_reduce(
            function, scatter_partitions(client, partitions), shared, how, finish=finish
        )
    if isinstance(shared, PerBlock):
        outputs = [function(p, item) for p, item in zip(partitions, shared.items, strict=True)]
    else:
        outputs = [function(p, shared) for p in partitions]
    return _reduce_task(outputs, how, finish)


def derive_partitions(
    function: Callable[[Any, Any], Any],
    partitions: Sequence[Any] | ScatteredPartitions,
    shared: Any,
    client: Any = None,
) -> list | ScatteredPartitions:
    """New blocks ``function(block, shared)``, one per block, left where the blocks are.

    Under Dask nothing travels to the driver: the result is a :class:`ScatteredPartitions` of
    the new blocks' futures (same ``n_rows``, ``n_groups`` and ``starts``), which
    :func:`map_blocks` and :func:`map_reduce` take like the original blocks; it holds the
    original blocks and ``shared`` (placed as a task's result, see :func:`place`), so that a
    derived block lost with its worker is recomputed. Without a client: a list, made here.
    """
    if isinstance(partitions, ScatteredPartitions):
        client = partitions.client
        held = place(client, [shared], "shared")
        futures = _map_tasks(client, function, partitions, held * len(partitions))
        return ScatteredPartitions(
            client=client,
            futures=list(futures),
            n_rows=partitions.n_rows,
            n_groups=partitions.n_groups,
            starts=partitions.starts,
            held=(*held, *partitions.futures, *partitions.held),
            workers=partitions.workers,
        )
    if client is not None:
        return derive_partitions(function, scatter_partitions(client, partitions), shared)
    return [function(p, shared) for p in partitions]


@dataclass(eq=False)
class Remote:
    """One value made from the blocks by the workers and left there: ``value`` is its future
    (``client`` set, ``held`` the futures it was made from, kept so that it can be recomputed
    if lost with its worker), or, without Dask (``client=None``), the value itself."""

    client: Any
    value: Any
    held: tuple = ()


def worker_count(client: Any) -> int:
    """The workers of ``client`` (1 without one): how many tasks :func:`map_remote` work is
    cut into."""
    return max(1, default_partitions(client) // 2)


def reduce_partitions(
    combine: Callable[[list], Any], partitions: Sequence[Any] | ScatteredPartitions
) -> Remote:
    """``combine(list of blocks) -> block`` over the blocks, in a tree of tasks on the workers
    (first each worker's blocks, then ``REDUCE_FAN_IN`` results at a time), the root left
    there (a :class:`Remote`); without Dask, ``combine`` of all the blocks here. ``combine``
    must accept its own output among its inputs."""
    if not isinstance(partitions, ScatteredPartitions):
        return Remote(None, combine(list(partitions)))
    client = partitions.client

    def submit(group: list, _: bool, key: str, options: dict) -> Any:
        return client.submit(combine, group, pure=False, retries=2, key=key, **options)

    made = _reduce_tree(
        client, list(partitions.futures), partitions.workers, _task_name(combine), submit
    )
    return Remote(client, made[-1], held=(*made[:-1], *partitions.futures, *partitions.held))


def map_remote(function: Callable[[Any, Any], Any], remote: Remote, items: Sequence[Any]) -> list:
    """``function(value, item)`` for each item, one task each on the workers, round robin
    (the remote value is copied to each worker that needs it), the outputs gathered in order;
    without Dask, run here. Cut the work into :func:`worker_count` items for the workers to
    share it."""
    if remote.client is None:
        return [function(remote.value, item) for item in items]
    client = remote.client
    name = _task_name(function)
    # one task per worker: left to itself the scheduler runs them all where the value is
    addresses = _worker_addresses(client) if len(items) > 1 else []

    def submit() -> tuple[list, list, list]:
        import dask

        token = uuid.uuid4().hex
        # an item (a batch of queries, the frequent cells) travels in its task, by design
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": 2**62}):
            futures = [
                client.submit(
                    function,
                    remote.value,
                    item,
                    pure=False,
                    retries=2,
                    key=f"anonlab-map-{name}-{i}-{token}",
                    **placement(addresses, i),
                )
                for i, item in enumerate(items)
            ]
        return futures, futures, []

    return _gather_once_more(client, submit)


def reduce_results(outputs: Sequence[Mapping[str, Any]], how: Mapping[str, str]) -> dict:
    """Combine the blocks' outputs key by key.

    ``sum``: elementwise sum (integer counts: exact; unsigned counts, as narrowed for the trip,
    are added in the smallest unsigned type that holds their total); ``min`` / ``max``:
    elementwise extremes;
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
            out[key] = _sum(items)
        elif rule == "min":
            out[key] = np.minimum.reduce(items) if len(items) > 1 else np.asarray(items[0])
        elif rule == "max":
            out[key] = np.maximum.reduce(items) if len(items) > 1 else np.asarray(items[0])
        elif rule == "concat":
            out[key] = np.concatenate(items)
        else:
            out[key] = merge_keyed_counts(items)
    return out


def _sum(items: Sequence[Any]) -> np.ndarray:
    arrays = [np.asarray(x) for x in items]
    if all(a.dtype.kind == "u" for a in arrays):  # narrowed counts: no overflow, no widening
        bound = sum(int(a.max()) if a.size else 0 for a in arrays)
        dtype = next(
            (t for t in (np.uint8, np.uint16, np.uint32) if bound <= np.iinfo(t).max), np.int64
        )
        total = arrays[0].astype(dtype)
    else:
        total = np.array(arrays[0], copy=True)
    for x in arrays[1:]:
        total += x
    return total


def merge_keyed_counts(
    items: Sequence[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Sum sparse count tables ``(keys, values)`` by key; keys come back sorted ascending.

    ``keys`` are int64 of shape (m,), or (m, d) (compound keys, sorted lexicographically, the
    first column primary); ``values`` int64 of shape (m,) or (m, v). Integer sums, so the
    result does not depend on the order of the blocks. Equal keys are added in block order
    (stable sorts), so float values are summed in one fixed order too.
    """
    keys = np.concatenate([np.asarray(k, dtype=np.int64) for k, _ in items])
    values = np.concatenate([np.asarray(v) for _, v in items])
    if len(keys) == 0:
        return keys, values
    if keys.ndim == 2:
        order = np.lexsort(keys.T[::-1])
        keys = keys[order]
        new = np.any(keys[1:] != keys[:-1], axis=1)
    else:
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        new = keys[1:] != keys[:-1]
    starts = np.flatnonzero(np.r_[True, new])
    return keys[starts], np.add.reduceat(values[order], starts, axis=0)
