"""Mondrian's driver cuts on a Dask cluster, the records read and kept by the workers (issue 21).

Items 1-2 of the plan in docs/distributed.md ("Plan: 10⁹ records on 100 nodes"), end to end on
one Parquet file: the records are never gathered on the driver while Mondrian's (or
Mondrian+'s) cuts are made.

* :func:`parquet_domains`: one task per row group returns each column's sorted distinct values;
  the driver merges them (union, sorted). Only distinct values reach the driver.
* :func:`read_block` (on a worker): one row group, encoded to integer codes with the broadcast
  domains, then kept as a :class:`BlockState` (its :func:`cell_codes`), one future per row
  group, on the worker that read it.
* :func:`mondrian_cuts_on_workers`: the level loop of
  :func:`anonlab.distributed.histogram_cuts.grow_cut_tree` (the same loop and the same
  decision code as the in-memory
  :func:`~anonlab.distributed.histogram_cuts.histogram_mondrian_cuts`). Each level is one task
  per block that applies the previous level's cuts and computes the new open partitions'
  histograms (:func:`apply_cell_cuts`, :func:`cell_histograms`: what
  :func:`~anonlab.distributed.histogram_cuts.apply_cuts` and
  :func:`~anonlab.distributed.histogram_cuts.level_histograms` compute, from the block's
  cells), then a tree reduce done by tasks (sums of up to ``split_every`` histograms; the first
  sums on the worker that holds the blocks they sum, :func:`worker_groups`). The driver
  gathers one reduced histogram per level and sends back the small cut table with the next
  level's map; at the end the last cuts are applied and the leaves numbered on the workers too.

Why a level has this shape (a one-off profile on benchmarks/bench_worker_cuts.py's data; the
before/after timings are in docs/benchmarks.md): the time was neither the driver's decisions
nor the bytes moved, but the workers' per-record work: fresh temporaries in a Dask worker
(:func:`scratch`), a separate apply task per block and level, and strings decoded and hashed
again when reading (so :func:`read_block` takes the Parquet file's own dictionaries). What is
left per level is the tasks' round trips.

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
* A level's state is a new :class:`BlockState` future per block (never changed in place), so a
  task that is run again, or moved to another worker, computes the same thing.
* The driver never calls :func:`read_block`; the tasks call it through a module-level
  trampoline that looks it up in the worker's own import of this module.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from anonlab.distributed.histogram_cuts import grow_cut_tree, histogram_width
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
    per record is one integer gather. Nulls are an error naming the column.

    A column that is already dictionary-encoded (e.g. a Parquet string column read with
    ``read_dictionary``, as :func:`read_block` does: the file's own dictionary, no string
    decoded or hashed per record) is encoded chunk by chunk (chunks may carry different
    dictionaries), and only the dictionary entries some record uses must be in ``domain``."""
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    null_count = sum(chunk.null_count for chunk in chunks)
    if null_count:
        at = f" ({where})" if where else ""
        raise AnonlabError(
            f"column {name!r}{at}: {null_count:,} missing values; fill them (or mark them "
            "as a value of their own) first"
        )
    if not chunks:
        return np.zeros(0, dtype=np.int64)
    if len(chunks) > 1 and not pa.types.is_dictionary(column.type):
        chunks = [column.combine_chunks()]  # one dictionary for the whole column
    codes = [_encode_dictionary(chunk, domain, name, where) for chunk in chunks]
    return codes[0] if len(codes) == 1 else np.concatenate(codes)


def _encode_dictionary(array, domain: np.ndarray, name: str, where: str) -> np.ndarray:
    """:func:`encode_arrow` of one Arrow array without nulls."""
    import pyarrow as pa

    if not pa.types.is_dictionary(array.type):
        array = array.dictionary_encode()
    dictionary = array.dictionary.to_numpy(zero_copy_only=False)
    indices = array.indices.to_numpy(zero_copy_only=False)
    try:
        code = encode(dictionary, domain, name, where)
    except AnonlabError:
        used = np.zeros(len(dictionary), dtype=bool)
        used[indices] = True
        if used.all():
            raise
        code = np.zeros(len(dictionary), dtype=np.int64)  # unused entries: never gathered
        code[used] = encode(dictionary[used], domain, name, where)  # raises for a used one
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
    columns = [*names, sensitive_name]
    # string columns as the file's dictionaries: no string is decoded or hashed per record
    table = pq.ParquetFile(path, read_dictionary=columns).read_row_group(row_group, columns=columns)
    where = f"{path}, row group {row_group}"
    m = table.num_rows
    qi = np.empty((m, len(names)), dtype=np.int32, order="F")
    for a, name in enumerate(names):
        qi[:, a] = encode_arrow(table.column(name), domains[name], name, where)
    sensitive = encode_arrow(table.column(sensitive_name), domains[sensitive_name],
                             sensitive_name, where)  # fmt: skip
    return qi, sensitive


def _read_state_task(
    path, row_group, qi_names, sensitive_name, domains, qi_domains, n_values
) -> BlockState:
    """The task that reads a block and keeps its :func:`cell_codes`: calls this module's
    ``read_block`` in the worker's import of the module (so a driver that never reads records
    can replace its own, e.g. a test)."""
    import anonlab.distributed.worker_cuts as module

    qi, sensitive = module.read_block(path, row_group, qi_names, sensitive_name, domains)
    return BlockState(module.cell_codes(qi, sensitive, qi_domains, n_values), None)


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


_SCRATCH = threading.local()


def scratch(slot: str, n: int, dtype=np.int64) -> np.ndarray:
    """A work array of ``n`` elements, this thread's ``slot``, kept from one call to the next.

    Why: Dask's worker processes run with ``MALLOC_TRIM_THRESHOLD_`` set (its
    ``distributed.nanny.pre-spawn-environ``), which leaves glibc's mmap threshold at 128 KiB:
    every larger temporary array is fresh memory, page-faulted in on first touch and unmapped
    when freed. That, not the arithmetic, made most of a level's time on a worker (the map of
    :func:`~anonlab.distributed.histogram_cuts.level_histograms` on 250,000 records: 10 ms in a
    plain process, 30-55 ms with that setting, in a one-off profile, not a kept benchmark). The
    per-record work arrays of :func:`cell_histograms` and :func:`apply_cell_cuts` are therefore
    taken from here: a few bytes per record of the largest block, per worker thread, held
    between tasks. Their
    contents never outlive the call that fills them."""
    arrays = _SCRATCH.__dict__.setdefault("arrays", {})
    key = (slot, np.dtype(dtype).str)
    array = arrays.get(key)
    if array is None or len(array) < n:
        array = arrays[key] = np.empty(n, dtype=dtype)
    return array[:n]


def cell_codes(
    qi: np.ndarray, sensitive: np.ndarray, domains: Sequence[int], n_values: int
) -> np.ndarray:
    """A block's records as one integer per (record, quasi-identifier): ``code·n_values +
    sensitive code``, shape ``(m, d)``, column-major, in the narrowest of int16 / int32 / int64
    that holds ``max(domains)·n_values``.

    Computed once per block (the codes never change while the cuts are made), so that each
    level's work per record and attribute is one multiply-add and a ``bincount``: the joint
    histogram's key is ``row·domain_a·n_values + cell`` (:func:`cell_histograms`), and a cut's
    test ``code <= threshold`` is ``cell < (threshold + 1)·n_values`` (:func:`apply_cell_cuts`).
    For census-kdd-workers (domains up to 75, 46 sensitive values) a cell fits int16: 2 bytes
    per record and attribute, half the block's int32 codes."""
    domains = [int(x) for x in domains]
    m, d = np.shape(qi)
    top = max(domains, default=1) * int(n_values)
    dtype = next(t for t in (np.int16, np.int32, np.int64) if top <= np.iinfo(t).max)
    cell = np.empty((m, d), dtype=dtype, order="F")
    sens = np.asarray(sensitive).astype(dtype)
    # int32 codes times n_values overflow int32 where the cells need int64: multiply in int64
    wide = np.int64 if dtype is np.int64 else None
    for a in range(d):  # a loop over attributes, not records; every value fits ``dtype``
        np.multiply(qi[:, a], n_values, out=cell[:, a], dtype=wide, casting="unsafe")
        cell[:, a] += sens
    return cell


def _nonzero_histogram(pieces: list[tuple[int, int, np.ndarray]], n_open: int, width: int):
    """:class:`SparseHistogram` of shape ``(n_open, width)`` from per-attribute counts:
    ``pieces`` holds ``(column offset, span, counts)`` with ``counts`` the ``(n_open, span)``
    block of columns ``offset .. offset+span`` flattened. The same object as
    ``SparseHistogram.of`` of the dense array (same form, index sorted), without building the
    dense array when most cells are zero (at deep levels it is n_open × Σ domains × n_values
    integers, most of them zero)."""
    nonzero = sum(int(np.count_nonzero(c)) for _, _, c in pieces)
    if 2 * nonzero >= n_open * width:
        dense = np.empty((n_open, width), dtype=np.int64)
        for offset, span, counts in pieces:
            dense[:, offset : offset + span] = counts.reshape(n_open, span)
        return SparseHistogram((n_open, width), None, dense.reshape(-1))
    index, count = [], []
    for offset, span, counts in pieces:
        at = np.flatnonzero(counts)
        row, column = np.divmod(at, span)
        index.append(row * width + offset + column)
        count.append(counts[at])
    index = np.concatenate(index) if index else np.zeros(0, dtype=np.int64)
    count = np.concatenate(count).astype(np.int64) if count else np.zeros(0, dtype=np.int64)
    order = np.argsort(index, kind="stable")
    return SparseHistogram((n_open, width), index[order], count[order])


def cell_histograms(
    cell: np.ndarray,
    part: np.ndarray | None,
    open_row: np.ndarray,
    domains: Sequence[int],
    n_values: int,
) -> SparseHistogram:
    """:func:`~anonlab.distributed.histogram_cuts.level_histograms` of one block from its
    :func:`cell_codes`, as a :class:`SparseHistogram` (equal to ``SparseHistogram.of`` of it).

    ``part`` is each record's partition id (int64; None: every record in partition 0). The work
    per attribute is one multiply-add into a :func:`scratch` buffer and one ``bincount``
    (``level_histograms`` made four new arrays per attribute and copied the open records'
    codes first). Records of partitions that are not open are counted in a spare row that is
    dropped, or, when they are most of the block, left out first. The histogram is built as
    its non-zero cells from the per-attribute counts (:func:`_nonzero_histogram`)."""
    domains = [int(x) for x in domains]
    open_row = np.asarray(open_row, dtype=np.int64)
    n_open = int(open_row.max()) + 1 if open_row.size else 0
    width = sum(domains) * int(n_values)
    m = cell.shape[0]
    if n_open == 0 or m == 0:
        return SparseHistogram.of(np.zeros((n_open, width), dtype=np.int64))
    take = None  # the records counted, when not all of them
    row = None  # each counted record's row (None: all in row 0)
    rows = 1
    if part is None:  # every record in partition 0
        if open_row[0] < 0:
            return SparseHistogram.of(np.zeros((n_open, width), dtype=np.int64))
    else:  # (ids are node ids, in range: "clip" only spares the buffered "raise" mode's copy)
        row = np.take(open_row, part, out=scratch("row", m), mode="clip")
        closed = np.less(row, 0, out=scratch("closed", m, bool))
        n_closed = int(np.count_nonzero(closed))
        rows = n_open
        if 2 * n_closed > m:  # mostly closed: count only the open ones
            take = np.flatnonzero(~closed)
            row = row.take(take)
        elif n_closed:  # a few closed: a spare row n_open, dropped below
            row[closed] = n_open
            rows = n_open + 1
        if rows == 1:
            row = None  # every counted record is in row 0
    n = m if take is None else len(take)
    key = scratch("key", n)
    pieces, offset = [], 0
    for a, dom in enumerate(domains):  # a loop over attributes, not records
        span = dom * int(n_values)
        column = cell[:, a]
        if take is not None:
            column = np.take(column, take, out=scratch("column", n, cell.dtype), mode="clip")
        if row is None:
            np.copyto(key, column)  # bincount would copy it to intp itself
        else:
            np.multiply(row, span, out=key)
            key += column
        counts = np.bincount(key, minlength=rows * span)
        pieces.append((offset, span, counts[: n_open * span]))
        offset += span
    return _nonzero_histogram(pieces, n_open, width)


def apply_cell_cuts(
    cell: np.ndarray, part: np.ndarray | None, table: np.ndarray, n_values: int
) -> np.ndarray:
    """:func:`~anonlab.distributed.histogram_cuts.apply_cuts` from :func:`cell_codes`: each
    record's partition id (int64) after the cuts of ``table`` (rows ``(attribute, threshold,
    left, right)`` per partition id, ``attribute = -1``: not cut). ``part`` None: every record
    in partition 0.

    A record goes right when ``code > threshold``, i.e. ``cell >= (threshold + 1)·n_values``.
    Per attribute that some cut uses (a few per level), one gather of the partitions' limits
    and one comparison, in buffers reused across attributes (fresh temporaries are what costs
    on a Dask worker, see :func:`scratch`); then ``left`` plus ``right - left`` where
    the record goes right."""
    table = np.asarray(table, dtype=np.int64)
    m = cell.shape[0]
    node = np.arange(len(table), dtype=np.int64)
    is_cut = table[:, 0] >= 0
    left = np.where(is_cut, table[:, 2], node)
    step = np.where(is_cut, table[:, 3], node) - left
    if part is None:  # one partition, 0: scalars
        if not is_cut[0]:
            return np.zeros(m, dtype=np.int64)
        goes_right = cell[:, table[0, 0]] >= (table[0, 1] + 1) * n_values
        return np.where(goes_right, table[0, 3], table[0, 2])
    new = left.take(part)
    if m == 0 or not is_cut.any():
        return new
    never = np.iinfo(np.int64).max  # a limit no cell reaches
    goes_right = scratch("right", m, bool)
    goes_right[:] = False
    limit_of_part = scratch("row", m)
    above = scratch("closed", m, bool)
    for a in np.unique(table[is_cut, 0]):  # a loop over the attributes cut on, not records
        limit = np.where(is_cut & (table[:, 0] == a), (table[:, 1] + 1) * n_values, never)
        np.take(limit, part, out=limit_of_part, mode="clip")
        np.greater_equal(cell[:, a], limit_of_part, out=above)
        goes_right |= above
    np.take(step, part, out=limit_of_part, mode="clip")
    np.add(new, limit_of_part, out=new, where=goes_right)
    return new


@dataclass(frozen=True)
class BlockState:
    """What a worker keeps of one block while the cuts are made: its :func:`cell_codes`, each
    record's current partition id (None: all in the root) and the last level's histogram.

    One object per block and level, so that a level is one task per block (apply the previous
    level's cuts, then count the new open partitions) whose input and output stay on the
    worker; the reduce tasks read only ``hist``, on the worker that holds the states they sum
    (:func:`mondrian_cuts_on_workers` groups them by worker)."""

    cell: np.ndarray
    part: np.ndarray | None
    hist: SparseHistogram | None = None


def _block_state(block, domains, n_values) -> BlockState:
    qi, sensitive = block
    return BlockState(cell_codes(qi, sensitive, domains, n_values), None)


def _block_level(state: BlockState, table, open_row, domains, n_values) -> BlockState:
    """One level on one block: the previous level's cuts (``table``; None: none yet), then the
    joint histograms of the partitions now open (``open_row``)."""
    part = state.part
    if table is not None:
        part = apply_cell_cuts(state.cell, part, table, n_values)
    hist = cell_histograms(state.cell, part, open_row, domains, n_values)
    return BlockState(state.cell, part, hist)


def _sum_state_histograms(*states: BlockState) -> SparseHistogram:
    return sum_sparse(*(state.hist for state in states))


def _block_leaves(state: BlockState, table, leaf_number: np.ndarray, n_values) -> np.ndarray:
    """The block's part array: the last level's cuts, then leaf numbers (int32)."""
    part = state.part
    if table is not None:
        part = apply_cell_cuts(state.cell, part, table, n_values)
    leaf_number = np.asarray(leaf_number, dtype=np.int32)
    if part is None:
        return np.full(state.cell.shape[0], leaf_number[0], dtype=np.int32)
    return leaf_number.take(part)


def sum_arrays(*arrays: np.ndarray) -> np.ndarray:
    out = np.array(arrays[0], dtype=np.int64, copy=True)
    for a in arrays[1:]:
        out += a
    return out


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


def worker_groups(client: Client, futures: list) -> list[list[int]]:
    """The positions of ``futures`` grouped by the worker that holds each (waits for them
    first), so that a task summing one group's results runs where they are. A future with no
    holder (e.g. failed) makes a group of its own; its task then raises its error."""
    from distributed import wait

    wait(futures)
    holders = client.who_has(futures)
    groups: dict[str, list[int]] = {}
    alone = []
    for i, future in enumerate(futures):
        where = sorted(holders.get(future.key) or [])
        if where:
            groups.setdefault(where[0], []).append(i)
        else:
            alone.append([i])
    return [groups[w] for w in sorted(groups)] + alone


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
        states = [
            client.submit(
                _read_state_task, path, g, qi_names, sensitive_name, domains_future, qi_domains,
                n_values, pure=False,
            )
            for g in range(n_groups)
        ]  # fmt: skip
    elif len(blocks) != n_groups:
        raise AnonlabError(f"{len(blocks)} blocks given for {n_groups} blocks of {path}")
    else:
        states = client.map(
            _block_state, list(blocks), [qi_domains] * n_groups, [n_values] * n_groups, pure=False
        )
        # the states hold the cell codes: the blocks given are no longer needed here (a caller
        # that drops its own references frees them once the states exist)
        blocks = None
    pending: list[np.ndarray | None] = [None]  # the last cut table, applied by the next map

    def level_histogram(open_row: np.ndarray) -> np.ndarray:
        n_open = int(open_row.max()) + 1
        if not states:
            return np.zeros((n_open, histogram_width(qi_domains, n_values)), dtype=np.int64)
        groups = worker_groups(client, states)  # where this level's tasks will run
        states[:] = client.map(
            _block_level,
            states,
            [pending[0]] * n_groups,
            [open_row] * n_groups,
            [qi_domains] * n_groups,
            [n_values] * n_groups,
            pure=False,
        )
        pending[0] = None
        local = [  # first sums on the worker holding the states: no state travels
            client.submit(_sum_state_histograms, *(states[i] for i in group[j : j + split_every]),
                          pure=False)
            for group in groups
            for j in range(0, len(group), split_every)
        ]  # fmt: skip
        reduced = tree_sum(client, local, split_every, combine=sum_sparse)
        return received("histogram", reduced.result(), on_gather).dense()

    def apply_table(table: np.ndarray) -> None:
        pending[0] = table

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
    part_futures = client.map(
        _block_leaves,
        states,
        [pending[0]] * n_groups,
        [leaf_number] * n_groups,
        [n_values] * n_groups,
        pure=False,
    )
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
