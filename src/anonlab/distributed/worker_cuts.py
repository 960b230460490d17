"""Mondrian's driver cuts on a Dask cluster, the records read and kept by the workers (issue 21).

Items 1-2 of the plan in docs/distributed.md ("Plan: 10⁹ records on 100 nodes"), end to end on
one Parquet file: the records are never gathered on the driver while Mondrian's (or
Mondrian+'s) cuts are made.

* :func:`parquet_domains`: one task per row group returns each column's sorted distinct values;
  the driver merges them (union, sorted). Only distinct values reach the driver.
* :func:`read_block` (on a worker): one row group, encoded to integer codes with the broadcast
  domains. The blocks stay on the workers as futures, one per row group.
* :func:`mondrian_cuts_on_workers`: the level loop of
  :func:`anonlab.distributed.histogram_cuts.grow_cut_tree` (the same loop and the same
  decision code as the in-memory
  :func:`~anonlab.distributed.histogram_cuts.histogram_mondrian_cuts`),
  with each level's map (:func:`~anonlab.distributed.histogram_cuts.level_histograms` per
  block, ``client.map``), a tree reduce done by tasks (sums of up to ``split_every``
  histograms), and the apply (:func:`~anonlab.distributed.histogram_cuts.apply_cuts` per block)
  all on the workers. The driver gathers one reduced histogram per level and sends back the
  small cut table; at the end the leaves are numbered on the workers too.

Codes. A column's code is its value's position in its domain. The domains
:func:`parquet_domains` returns are sorted, so codes follow the values' sort order (for a
numeric column, e.g. census's ``age``, that is exactly how :class:`anonlab.table.Table` codes
it). A domain may also be given in any other order — e.g. a Table's ``values[name]``, whose
order for an ordered categorical comes from its hierarchy — and then the codes are the Table's
codes. Either way ``width = len(domain) - 1``, as ``mondrian_cuts`` takes it, and the result
equals ``mondrian_cuts`` on the same codes (tested).

What the driver receives (``on_gather`` sees every object): the row groups' distinct values,
then per level one ``(n_open, Σ domains × n_values)`` histogram, sent and summed as its non-zero
cells (:class:`SparseHistogram`; dense it is 57 KB per open partition for census-kdd-workers' 7
QIs and 46 sensitive values) — and nothing with one entry per record,
unless ``gather_parts=True`` asks for the part arrays at the end.

Choices:

* Row counts come from the Parquet footer (the driver reads the metadata, not the records).
* A value outside its broadcast domain, or a null, is an error naming the column, the value and
  the row group (raised on the worker, re-raised by the driver).
* Tasks are submitted with ``pure=False``: a block or part array is never shared by key with
  another call's.
* The driver never calls :func:`read_block`; the tasks call it through a module-level
  trampoline that looks it up in the worker's own import of this module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from anonlab.distributed.histogram_cuts import (
    apply_cuts,
    grow_cut_tree,
    histogram_width,
    level_histograms,
)
from anonlab.distributed.partitioning import Partitioning
from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client, Future

#: Histograms summed per reduce task (the tree's fan-in).
SPLIT_EVERY = 8


# ------------------------------------------------------------------------------- worker side
def encode(values: np.ndarray, domain: np.ndarray, column: str, where: str = "") -> np.ndarray:
    """Each value's position in ``domain`` (int64); a value not in it is an AnonlabError naming
    ``column`` and the value. ``domain`` holds distinct values in code order (sorted or not)."""
    domain = np.asarray(domain)
    values = np.asarray(values)
    at = f" ({where})" if where else ""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(domain) == 0:
        raise AnonlabError(f"column {column!r}{at}: value {values[0]!r} is not in its domain []")
    try:
        sorter = np.argsort(domain, kind="stable")
        pos = np.searchsorted(domain, values, sorter=sorter)
    except TypeError:  # values of another type than the domain's (e.g. None, str vs int)
        pos = None
    if pos is not None:
        code = sorter[np.minimum(pos, len(domain) - 1)]
        ok = domain[code] == values
        if np.all(ok):
            return code.astype(np.int64)
        bad = values[np.flatnonzero(~ok)[0]]
        bad = bad.item() if isinstance(bad, np.generic) else bad
    else:
        domain_set = set(domain.tolist())
        bad = next(v for v in values.tolist() if v not in domain_set)
    shown = domain[:10].tolist()
    raise AnonlabError(
        f"column {column!r}{at}: value {bad!r} is not in its domain "
        f"{shown}{' ...' if len(domain) > 10 else ''}"
    )


def encode_arrow(column, domain: np.ndarray, name: str, where: str = "") -> np.ndarray:
    """:func:`encode` of an Arrow column (chunked or not): each distinct value is looked up once
    (the column is dictionary-encoded in Arrow first, then its dictionary encoded), so the cost
    per record is one integer gather. Nulls are an error naming the column."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        at = f" ({where})" if where else ""
        raise AnonlabError(
            f"column {name!r}{at}: {column.null_count:,} missing values; fill them (or mark them "
            "as a value of their own) first"
        )
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    dictionary = column.dictionary.to_numpy(zero_copy_only=False)
    code = encode(dictionary, domain, name, where)
    indices = column.indices.to_numpy(zero_copy_only=False)
    return code[indices]


def read_block(
    path: str,
    row_group: int,
    qi_names: Sequence[str],
    sensitive_name: str,
    domains: Mapping[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Runs on a worker: one Parquet row group as codes.

    Returns ``(qi, sensitive)``: the quasi-identifier codes, shape ``(m, d)`` int32,
    column-major (what :func:`level_histograms` and :func:`apply_cuts` read column by column),
    and the sensitive codes, shape ``(m,)`` int64. ``domains[name]`` is the column's distinct
    values in code order (:func:`parquet_domains`' sorted arrays, as the driver broadcasts
    them); a value not in its domain raises an AnonlabError naming the column and the value.
    """
    import pyarrow.parquet as pq

    names = list(qi_names)
    table = pq.ParquetFile(path).read_row_group(row_group, columns=[*names, sensitive_name])
    where = f"{path}, row group {row_group}"
    m = table.num_rows
    qi = np.empty((m, len(names)), dtype=np.int32, order="F")
    for a, name in enumerate(names):
        qi[:, a] = encode_arrow(table.column(name), domains[name], name, where)
    sensitive = encode_arrow(table.column(sensitive_name), domains[sensitive_name],
                             sensitive_name, where)  # fmt: skip
    return qi, sensitive


def _read_block_task(*args: Any) -> tuple[np.ndarray, np.ndarray]:
    """The task that reads a block: calls this module's ``read_block`` in the worker's import
    of the module (so a driver that never reads records can replace its own, e.g. a test)."""
    import anonlab.distributed.worker_cuts as module

    return module.read_block(*args)


def row_group_distinct(path: str, row_group: int, columns: Sequence[str]) -> list[np.ndarray]:
    """Runs on a worker: each column's sorted distinct non-null values in one row group."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.ParquetFile(path).read_row_group(row_group, columns=list(columns))
    out = []
    for name in columns:
        distinct = pc.unique(table.column(name).combine_chunks()).drop_null()
        out.append(np.sort(distinct.to_numpy(zero_copy_only=False)))
    return out


@dataclass(frozen=True)
class SparseHistogram:
    """A level's histogram as it travels between tasks and to the driver: its non-zero cells
    (flat ``index`` into ``shape``, ``count``), or, where at least half the cells are non-zero
    (the top levels), the dense cells (``index`` None, ``count`` flat). At deep levels most
    cells are zero (1.6% were non-zero at 1,024 open partitions of census-kdd-workers), where the
    dense form is Σ domains × values integers per open partition (58 MB per block there)."""

    shape: tuple[int, int]
    index: np.ndarray | None
    count: np.ndarray

    @classmethod
    def of(cls, dense: np.ndarray) -> SparseHistogram:
        flat = np.ascontiguousarray(dense, dtype=np.int64).reshape(-1)
        index = np.flatnonzero(flat)
        if 2 * len(index) >= len(flat):  # 16 bytes per sparse cell, 8 per dense cell
            return cls(tuple(dense.shape), None, flat)
        return cls(tuple(dense.shape), index, flat[index])

    @property
    def nbytes(self) -> int:
        return int(self.count.nbytes + (0 if self.index is None else self.index.nbytes))

    def dense(self) -> np.ndarray:
        if self.index is None:
            return self.count.reshape(self.shape)
        out = np.zeros(self.shape[0] * self.shape[1], dtype=np.int64)
        out[self.index] = self.count
        return out.reshape(self.shape)


def sum_sparse(*parts: SparseHistogram) -> SparseHistogram:
    """The sum of histograms of one shape (exact: int64 counts added cell by cell), in the
    form :meth:`SparseHistogram.of` picks for the result."""
    size = parts[0].shape[0] * parts[0].shape[1]
    if any(p.index is None for p in parts) or 2 * sum(len(p.count) for p in parts) >= size:
        out = np.zeros(size, dtype=np.int64)
        for p in parts:
            if p.index is None:
                out += p.count
            else:
                out[p.index] += p.count  # an index appears once per part
        return SparseHistogram.of(out.reshape(parts[0].shape))
    index = np.concatenate([p.index for p in parts])
    count = np.concatenate([p.count for p in parts])
    order = np.argsort(index, kind="stable")
    index, count = index[order], count[order]
    if len(index) == 0:
        return SparseHistogram(parts[0].shape, index, count)
    new = np.ones(len(index), dtype=bool)
    np.not_equal(index[1:], index[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    return SparseHistogram(parts[0].shape, index[starts], np.add.reduceat(count, starts))


def _block_histograms(block, part, open_row, domains, n_values) -> SparseHistogram:
    qi, sensitive = block
    return SparseHistogram.of(level_histograms(qi, sensitive, part, open_row, domains, n_values))


def _block_apply(block, part, table) -> np.ndarray:
    return apply_cuts(block[0], part, table)


def _block_zeros(block) -> np.ndarray:
    return np.zeros(len(block[1]), dtype=np.int64)


def sum_arrays(*arrays: np.ndarray) -> np.ndarray:
    out = np.array(arrays[0], dtype=np.int64, copy=True)
    for a in arrays[1:]:
        out += a
    return out


def _number_leaves(part: np.ndarray, leaf_number: np.ndarray) -> np.ndarray:
    return leaf_number[part].astype(np.int32)


# ------------------------------------------------------------------------------- driver side
def received(kind: str, value, on_gather: Callable[[str, Any], None] | None):
    if on_gather is not None:
        on_gather(kind, value)
    return value


def row_group_rows(path: str) -> list[int]:
    """The number of records of each row group, from the Parquet footer (no record read)."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    return [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]


def parquet_domains(
    client: Client,
    path: str,
    columns: Sequence[str],
    *,
    on_gather: Callable[[str, Any], None] | None = None,
) -> dict[str, np.ndarray]:
    """Each column's sorted distinct values, by map-reduce over the row groups.

    One task per row group returns its columns' sorted distinct values (nulls left out); the
    driver merges them (union, sorted). Only distinct values reach the driver; ``on_gather``
    (``on_gather("domains", value)``) sees each row group's answer.
    """
    columns = list(columns)
    n_groups = len(row_group_rows(path))
    futures = client.map(
        row_group_distinct,
        [path] * n_groups,
        range(n_groups),
        [columns] * n_groups,
        pure=False,
    )
    merged: list[list[np.ndarray]] = [[] for _ in columns]
    for future in futures:
        answer = received("domains", future.result(), on_gather)
        for j, distinct in enumerate(answer):
            merged[j].append(distinct)
    out = {}
    for name, parts in zip(columns, merged, strict=True):
        out[name] = np.unique(np.concatenate(parts)) if parts else np.zeros(0)
    return out


@dataclass
class WorkerCuts:
    """What :func:`mondrian_cuts_on_workers` returns: :class:`Partitioning`'s summary, the part
    arrays as futures on the workers (one per row group), and the domains used.

    ``part`` is the concatenated part array (int32, row-group order) only when
    ``gather_parts=True`` was asked; None otherwise.
    """

    n_parts: int
    cuts: int
    refused_splits: int
    oversized: int
    part_futures: list[Future]
    domains: dict[str, np.ndarray]
    n_rows: int
    part: np.ndarray | None = None

    def partitioning(self) -> Partitioning:
        """The :class:`Partitioning` (needs ``gather_parts=True``)."""
        if self.part is None:
            raise AnonlabError("the part arrays were not gathered (gather_parts=True)")
        return Partitioning(
            part=self.part,
            n_parts=self.n_parts,
            method="mondrian-cuts",
            cuts=self.cuts,
            refused_splits=self.refused_splits,
            oversized=self.oversized,
        )


def tree_sum(
    client: Client,
    futures: list,
    split_every: int = SPLIT_EVERY,
    combine: Callable[..., Any] = sum_arrays,
) -> Future:
    """One future: the sum of ``futures``' arrays (``combine``: how up to ``split_every`` of
    them add up; dense int64 arrays by default), reduced by tasks in a tree of that fan-in."""
    while len(futures) > 1:
        futures = [
            client.submit(combine, *futures[i : i + split_every], pure=False)
            for i in range(0, len(futures), split_every)
        ]
    return futures[0]


def mondrian_cuts_on_workers(
    client: Client,
    path: str,
    qi_names: Sequence[str],
    sensitive_name: str,
    constrained_values: Sequence[object] | None,
    *,
    k: int,
    l: int,
    look_ahead: bool,
    max_partition_rows: int,
    domains: Mapping[str, np.ndarray] | None = None,
    gather_parts: bool = False,
    on_gather: Callable[[str, Any], None] | None = None,
    split_every: int = SPLIT_EVERY,
    blocks: Sequence[Future] | None = None,
    block_rows: Sequence[int] | None = None,
) -> WorkerCuts:
    """Mondrian's (``look_ahead=False``) or Mondrian+'s (``True``) driver cuts of the records of
    the Parquet file ``path``, the records read and kept by the workers.

    Parameters
    ----------
    client : distributed.Client
    path : str
        A Parquet file every worker can read; each row group is a block.
    qi_names, sensitive_name : the columns.
    constrained_values : sequence or None
        The protected sensitive values (None: every value), as ``sensitive_values``.
    k, l, look_ahead, max_partition_rows
        As :func:`~anonlab.distributed.partitioning.mondrian_cuts`.
    domains : mapping, optional
        Each column's distinct values in code order; by default :func:`parquet_domains`'
        (sorted). Broadcast to the tasks that read the blocks.
    gather_parts : bool
        Also gather the part arrays (one entry per record) at the end, e.g. to compare with
        ``mondrian_cuts``; the cuts never need them.
    on_gather : callable, optional
        ``on_gather(kind, value)`` for every object the driver receives: ``"domains"`` (a row
        group's distinct values), ``"histogram"`` (a level's reduced histogram) and, only with
        ``gather_parts``, ``"parts"``.
    split_every : int
        The reduce tree's fan-in.
    blocks : sequence of futures, optional
        The row groups already read on the workers, one future per row group of ``path`` in
        order, each holding ``(qi, sensitive)`` as :func:`read_block` returns them (coded with
        ``domains``, which must then be given); by default the row groups are read here.
    block_rows : sequence of int, optional
        With ``blocks``: each block's number of records (blocks that are not ``path``'s row
        groups, e.g. a CSV's); by default the Parquet footer's row counts.

    Returns
    -------
    WorkerCuts
        ``n_parts``, ``cuts``, ``refused_splits``, ``oversized`` equal to ``mondrian_cuts``' on
        the same codes (``width = len(domain) - 1``), and each row group's part array (leaf
        numbers as ``mondrian_cuts`` numbers them) as a future.
    """
    qi_names = list(qi_names)
    if split_every < 2:
        raise AnonlabError(f"split_every must be at least 2, not {split_every}")
    if domains is None:
        if blocks is not None:
            raise AnonlabError("blocks coded elsewhere need the domains they were coded with")
        domains = parquet_domains(client, path, [*qi_names, sensitive_name], on_gather=on_gather)
    domains = {name: np.asarray(domains[name]) for name in [*qi_names, sensitive_name]}
    sens_domain = domains[sensitive_name]
    n_values = len(sens_domain)
    if constrained_values is None:
        constrained = np.ones(n_values, dtype=bool)
    else:
        constrained = np.zeros(n_values, dtype=bool)
        for value in constrained_values:
            hit = np.flatnonzero(sens_domain == np.asarray(value, dtype=sens_domain.dtype))
            if len(hit) == 0:
                raise AnonlabError(
                    f"value {value!r} does not occur in column {sensitive_name!r}; its values "
                    f"are {sens_domain[:20].tolist()}{' ...' if n_values > 20 else ''}"
                )
            constrained[hit] = True
    qi_domains = [len(domains[q]) for q in qi_names]
    width = np.array(qi_domains, dtype=np.int64) - 1
    rows = row_group_rows(path) if block_rows is None else [int(r) for r in block_rows]
    n_groups = len(rows)
    # sent once to each worker, under a key of its own: scattered by content (the default),
    # a second call with the same domains reuses the first call's key, whose release when the
    # first call's future is dropped then cancels the second call's reads (lost dependencies)
    if blocks is None:
        [domains_future] = client.scatter([domains], broadcast=True, hash=False)
        blocks = [
            client.submit(
                _read_block_task, path, g, qi_names, sensitive_name, domains_future, pure=False
            )
            for g in range(n_groups)
        ]
    elif len(blocks) != n_groups:
        raise AnonlabError(f"{len(blocks)} blocks given for {n_groups} blocks of {path}")
    blocks = list(blocks)
    parts = client.map(_block_zeros, blocks, pure=False)

    def level_histogram(open_row: np.ndarray) -> np.ndarray:
        n_open = int(open_row.max()) + 1
        if not blocks:
            return np.zeros((n_open, histogram_width(qi_domains, n_values)), dtype=np.int64)
        maps = client.map(
            _block_histograms,
            blocks,
            parts,
            [open_row] * len(blocks),
            [qi_domains] * len(blocks),
            [n_values] * len(blocks),
            pure=False,
        )
        reduced = tree_sum(client, maps, split_every, combine=sum_sparse)
        return received("histogram", reduced.result(), on_gather).dense()

    def apply_table(table: np.ndarray) -> None:
        parts[:] = client.map(_block_apply, blocks, parts, [table] * len(blocks), pure=False)

    tree = grow_cut_tree(
        sum(rows),
        level_histogram,
        apply_table,
        constrained,
        width,
        qi_domains,
        k=k,
        l=l,
        look_ahead=look_ahead,
        max_partition_rows=max_partition_rows,
    )
    leaf_number, count = tree.leaf_numbers()
    part_futures = client.map(_number_leaves, parts, [leaf_number] * len(parts), pure=False)
    part = None
    if gather_parts:
        gathered = received("parts", client.gather(part_futures), on_gather)
        part = np.concatenate(gathered) if gathered else np.zeros(0, dtype=np.int32)
    return WorkerCuts(
        n_parts=count,
        cuts=tree.cuts,
        refused_splits=tree.refused_splits,
        oversized=tree.oversized,
        part_futures=part_futures,
        domains=domains,
        n_rows=sum(rows),
        part=part,
    )
