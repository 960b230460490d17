"""A whole release made on a Dask cluster from a file, the records never on the driver (issue 21).

Items 1-5 of the plan in docs/distributed.md ("Plan: 10⁹ records on 100 nodes"), end to end:

1. **Read** (workers). Each block of the input (a Parquet row group, or a CSV block cut by
   Dask's byte reader) is read on a worker and coded with the template table's domains
   (:mod:`anonlab.distributed.worker_input`): a DataFrame of int32 codes, one column per
   attribute, and the record's position in the file (``_row``).
2. **Parts** (driver decides, workers apply). Mondrian, Mondrian+ and Mondrian++: the driver's
   cuts grown level by level from histograms reduced on the workers
   (:func:`anonlab.distributed.worker_cuts.mondrian_cuts_on_workers`), so each part is a node of
   the single-machine recursion tree. Anatomy: each record draws a random run (seeded per
   block, QI-blind as algorithm-safe publishing asks, Jin et al. §2.8); the runs' sensitive
   histograms are reduced and runs that are not ℓ-eligible merge with their neighbours
   (:func:`anonlab.distributed.partitioning.merge_plan`). Hilb, Hilb+ and Hilb++: runs of the
   Hilbert order, cut at cells of exact key-prefix counts reduced from the workers
   (:func:`_hilbert_runs`), merged as Anatomy's. The driver receives histograms and counts,
   never a record.
3. **Shuffle** (workers). One P2P shuffle of Dask (``distributed.shuffle``) routes every record
   to the output partition of its part: one partition per part, so each part lands whole on one
   worker. No record passes through the driver or the scheduler.
4. **Anonymize** (workers). On each part, sorted by ``_row`` (the input order), the
   single-machine algorithm with the part's seed ``SeedSequence(seed).spawn(P)[p]``, as the
   driver-held backend (:mod:`anonlab.distributed.anonymize`). For the Mondrian family the groups
   are therefore the single-machine groups (tested).
5. **Write** (workers). The driver gathers each part's number of groups (P integers), orders the
   parts by a keyed permutation and sends each part its offset; the worker writes its part of
   the published files (``published/generalized/part-NNNNN.parquet``, or ``qit/`` and ``st/``
   for Anatomy; CSV on request) and of the publisher's records
   (``publisher/records/part-NNNNN.parquet``: input row, published group id and the records'
   codes, which the measures over the written parts read), and returns the
   files' SHA-256 and sizes. The driver writes the template, the key and the sealed manifest
   (:mod:`anonlab.distributed.written_release`) and moves the finished folder into place
   (nothing is left half written: the workers write into a temporary folder beside ``out``,
   which must be on a file system every worker and the driver share).

Unlinkable export (the choices where no paper speaks; one machine's export is
:mod:`anonlab.export_order`):

* Each part's rows are written in a keyed random order and its groups numbered by a keyed random
  permutation of ``offset .. offset + G_p - 1``; the key of part ``p`` is
  HMAC(export key, fingerprint of the part's groups, its published sensitive values, how the
  release was made, and ``p``). The parts' files are numbered, and their id ranges laid out, in
  a keyed random order of the parts.
* What this still shows a reader: which groups (and rows) share a part: the file a row is in,
  and its group id's range. For the Mondrian family a part is a node of the cut tree, i.e. a
  box of quasi-identifier values that the generalized values of its groups already show (for
  Hilb a range of the Hilbert order, shown the same way); for Anatomy a part is a random set of
  records drawn with the algorithm's seed (which, as on one machine, decides who shares a group
  and stays in the publisher's copy).
* The export key and the seed are in ``publisher/`` only.

What the driver receives (``on_gather`` sees every object): the sensitive value counts, per
level of cuts one reduced histogram, the parts' sizes (P integers), Hilb's key-prefix counts,
the run histograms (runs x values), each part's number of groups and manifest, and each written
file's checksum. Nothing with one entry per record. (Making the template,
:func:`~anonlab.distributed.worker_input.template_from_file`, receives each block's distinct
values.)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anonlab import export_order
from anonlab._validation import check_choice, check_int, check_seed
from anonlab.distributed.worker_cuts import received, tree_sum
from anonlab.distributed.worker_input import ROW, FileTemplate, InputFile, code_column, read_meta
from anonlab.errors import AnonlabError
from anonlab.release_io.folder import file_sha256

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from anonlab.release import Release
    from anonlab.table import Table
    from distributed import Client

#: The algorithms this path runs.
ALGORITHMS = ("anatomy", "hilb", "hilb+", "hilb++", "mondrian", "mondrian+", "mondrian++")
#: The Hilb family: parts are runs of the Hilbert order.
HILB = ("hilb", "hilb+", "hilb++")
#: Bits of the Hilbert keys added per round of prefix counts (:func:`_hilbert_runs`).
HILBERT_BUCKET_BITS = 16
#: Records per part by default (as the driver-held backend).
DEFAULT_MAX_PARTITION_ROWS = 250_000
#: Task retries on an exception.
RETRIES = 2
#: Name of the column holding a record's part.
PART = "_part"


# ------------------------------------------------------------------------------- worker side
def _cut_view(frame: pd.DataFrame, qi: Sequence[int], sensitive: int):
    """(qi codes column-major int32, sensitive codes int64), as ``read_block`` gives them."""
    q = np.empty((len(frame), len(qi)), dtype=np.int32, order="F")
    for a, i in enumerate(qi):
        q[:, a] = frame[code_column(i)].to_numpy()
    return q, frame[code_column(sensitive)].to_numpy().astype(np.int64)


#: Anatomy's runs are drawn in chunks of this many records of a file block, each chunk from a
#: stream of its own: a slice of a block draws only the chunks it overlaps.
RUN_CHUNK = 1 << 16


def _random_runs(
    frame: pd.DataFrame, seed: int, origin: tuple[int, int, int], n_runs: int, chunk: int
) -> np.ndarray:
    """Anatomy's run of each record of one block: uniform over ``0 .. n_runs-1``, independent
    of the quasi-identifiers. The file block the block was cut from (``origin = (file block,
    first row, its records)``, :func:`~anonlab.distributed.worker_input.block_origins`) is drawn
    in chunks of ``chunk`` records (:data:`RUN_CHUNK`, as the driver reads it), chunk ``c``
    from ``SeedSequence(seed,
    spawn_key=(file block, c))``; a block takes the chunks it overlaps and keeps its rows. So
    the runs do not depend on how the file block was cut for the cluster at hand, and a slice
    draws about its own size, not the whole row group's."""
    block, lo, size = origin
    hi = lo + len(frame)
    first, last = lo // chunk, -(-hi // chunk)
    draws = [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(block, c))).integers(
            0, n_runs, size=min(chunk, size - c * chunk), dtype=np.int64
        )
        for c in range(first, last)  # a loop over chunks of records, not records
    ]
    runs = np.concatenate(draws) if draws else np.zeros(0, dtype=np.int64)
    return runs[lo - first * chunk : hi - first * chunk].astype(np.int32)


def _hilbert_keys(frame: pd.DataFrame, qi: Sequence[int], bits: int) -> np.ndarray:
    """Each record's Hilbert key on Hilb's grid (:func:`anonlab.anonymize.hilb_plus.
    hilbert_keys`), uint64."""
    from anonlab.anonymize.hilbert import hilbert_index

    coords = np.empty((len(frame), len(qi)), dtype=np.int32)
    for a, i in enumerate(qi):
        coords[:, a] = frame[code_column(i)].to_numpy()
    return hilbert_index(coords, bits)


def _prefix_counts(keys: np.ndarray, shift: int, heavy: np.ndarray | None, heavy_shift: int):
    """(distinct ``key >> shift``, their counts) over the records whose ``key >> heavy_shift``
    is in ``heavy`` (sorted; None: every record)."""
    if heavy is not None:
        parent = keys >> np.uint64(heavy_shift)
        at = np.minimum(np.searchsorted(heavy, parent), max(len(heavy) - 1, 0))
        keys = keys[(heavy[at] == parent)] if len(heavy) else keys[:0]
    return np.unique(keys >> np.uint64(shift), return_counts=True)


def _cell_runs(keys: np.ndarray, cell_low: np.ndarray, run_of_cell: np.ndarray) -> np.ndarray:
    cell = np.searchsorted(cell_low, keys, side="right") - 1
    return run_of_cell[cell].astype(np.int32)


def runs_of_buckets(counts: np.ndarray, max_rows: int) -> np.ndarray:
    """Cut consecutive cells into runs of at most ``max_rows`` records: each run takes cells
    while its count stays within the limit (a cell larger than the limit is a run alone).
    Returns the run of each cell (empty cells join the current run)."""
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.zeros(len(counts), dtype=np.int32)  # 1 where a new run begins
    filled = 0
    for b in np.flatnonzero(counts).tolist():  # a loop over cells, not records
        c = int(counts[b])
        if filled and filled + c > max_rows:
            starts[b] = 1
            filled = 0
        filled += c
    return np.cumsum(starts, dtype=np.int64).astype(np.int32)


def _run_histogram(frame: pd.DataFrame, run: np.ndarray, sensitive: int, n_values: int, n_runs):
    codes = frame[code_column(sensitive)].to_numpy().astype(np.int64)
    key = run.astype(np.int64) * n_values + codes
    return np.bincount(key, minlength=n_runs * n_values)


def _value_counts(frame: pd.DataFrame, sensitive: int, n_values: int) -> np.ndarray:
    return np.bincount(frame[code_column(sensitive)].to_numpy(), minlength=n_values)


def _part_sizes(part: np.ndarray, n_parts: int) -> np.ndarray:
    return np.bincount(part, minlength=n_parts).astype(np.int64)


def shuffle_dtypes(domain_sizes: Sequence[int]) -> dict[str, np.dtype]:
    """The code columns' types for the shuffle: the smallest unsigned integer type that holds
    each attribute's codes (``uint8`` below 256 values), so that fewer bytes go through the
    shuffle's buffers; :func:`_anonymize_part` widens them back to the blocks' ``int32``."""
    return {
        code_column(i): np.dtype(np.min_scalar_type(max(int(size) - 1, 0)))
        for i, size in enumerate(domain_sizes)
    }


def _with_part(
    frame: pd.DataFrame,
    part: np.ndarray,
    part_of_run: np.ndarray | None,
    dtypes: dict[str, np.dtype] | None = None,
):
    """The block with its records' part (``_part``) and the shuffle's target (``_partitions``,
    the part itself: one output partition per part), its code columns narrowed to ``dtypes``
    (:func:`shuffle_dtypes`)."""
    part = part if part_of_run is None else part_of_run[part]
    part = np.asarray(part, dtype=np.int64)
    if dtypes:
        frame = frame.astype(dtypes)
    return frame.assign(**{PART: part.astype(np.int32), "_partitions": part})


@dataclass
class _PartResult:
    """One anonymized part, kept on its worker until it is written."""

    part: int
    release: Release
    row: np.ndarray
    seconds: float


def _anonymize_part(
    frame: pd.DataFrame,
    part: int,
    template: Table,
    algorithm: str,
    params: dict,
    seed: int,
    expected_rows: int,
) -> _PartResult:
    """On a worker: the records of part ``part`` (one output partition of the shuffle), in
    input order, anonymized by the single-machine algorithm."""
    from anonlab.anonymize import anonymize
    from anonlab.table import Table

    t0 = time.perf_counter()
    arrived = frame[PART].to_numpy()
    if len(frame) != expected_rows or (len(arrived) and not arrived.min() == arrived.max() == part):
        raise AnonlabError(
            f"part {part} arrived with {len(frame)} records of parts "
            f"{np.unique(arrived)[:5].tolist()}; {expected_rows} records of part {part} were "
            "sent (the shuffle lost or misrouted records)"
        )
    frame = frame.sort_values(ROW, kind="stable")
    names = template.schema.names
    # the shuffle carried narrow codes (shuffle_dtypes): the blocks' int32 again
    codes = {
        name: frame[code_column(i)].to_numpy().astype(np.int32) for i, name in enumerate(names)
    }
    row = frame[ROW].to_numpy().astype(np.int64)
    table = Table(template.schema, codes, template.values, row, template.dropped, template.types)
    release = anonymize(table, algorithm, seed=seed, **params)
    return _PartResult(part, release, row, time.perf_counter() - t0)


_RECOMPUTED = ("schema", "rows", "groups", "dropped", "perturbed_records", "scheme")


def _part_summary(result: _PartResult) -> tuple[int, dict, float]:
    manifest = {k: v for k, v in result.release.manifest.items() if k not in _RECOMPUTED}
    return int(result.release.n_groups), manifest, result.seconds


def _part_key(export_key: bytes, result: _PartResult, how: dict) -> bytes:
    release = result.release
    fingerprint = export_order.release_fingerprint(release.group, release.published_sensitive, how)
    part = int(result.part).to_bytes(8, "little")
    return export_order.release_key(export_key, fingerprint + part)


#: The column prefix of an attribute's codes in ``publisher/records`` (after ``row`` and
#: ``group``): prefixed so that no attribute name can collide with those two.
CODE_COLUMN = "code:"
#: The column of the published sensitive codes, present where the algorithm perturbs them.
PUBLISHED_SENSITIVE_COLUMN = "published:sensitive"


def _records_frame(result: _PartResult, published_id: np.ndarray):
    """The publisher's records of one part, in input order (the part was sorted by row before
    the algorithm), not the export's: input row, published group id, and each attribute's
    codes in the template's domains (the smallest integer type that holds the domain), so
    that the measures that compare the release with its records (workload, attacks) run over
    the written parts (:mod:`anonlab.distributed.written_measures`)."""
    import pyarrow as pa

    release = result.release
    table = release.table
    columns = {"row": pa.array(result.row), "group": pa.array(published_id[release.group])}
    for name in table.schema.names:
        columns[CODE_COLUMN + name] = pa.array(_narrow_codes(table.codes[name], table, name))
    if release.published_sensitive is not None:
        s = table.require_sensitive()
        columns[PUBLISHED_SENSITIVE_COLUMN] = pa.array(
            _narrow_codes(release.published_sensitive, table, s)
        )
    return pa.table(columns)


def _narrow_codes(codes: np.ndarray, table: Table, name: str) -> np.ndarray:
    size = table.domain_size(name)
    dtype = np.int8 if size <= 127 else np.int16 if size <= 32_767 else np.int32
    return np.asarray(codes).astype(dtype, copy=False)


def _write_part(
    result: _PartResult,
    root: str,
    file_index: int,
    offset: int,
    export_key: bytes,
    how: dict,
    published_format: str,
) -> dict[str, dict]:
    """On a worker: write part ``result.part`` as file ``file_index`` of every published folder
    and of ``publisher/records``, its groups numbered from ``offset``; returns each file's
    relative path with its SHA-256 and size."""
    import pyarrow.parquet as pq

    from anonlab.release_io.export import published_file_names, write_published

    release = result.release
    key = _part_key(export_key, result, how)
    order = export_order.keyed_permutation(key, b"row order", len(release.group))
    local = np.empty(release.n_groups, dtype=np.int64)
    local[export_order.keyed_permutation(key, b"group ids", release.n_groups)] = np.arange(
        release.n_groups
    )
    published_id = local + offset
    stem = f"part-{file_index:05d}"
    names = [
        f"published/{Path(n).stem}/{stem}.{published_format}"
        for n in published_file_names(release.scheme, published_format)
    ]
    base = Path(root)
    write_published(release, base, published_format, plan=(order, published_id), file_names=names)
    records = f"publisher/records/{stem}.parquet"
    (base / records).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(_records_frame(result, published_id), base / records, compression="zstd")
    files = {}
    for rel in [*names, records]:
        files[rel] = {"sha256": file_sha256(base / rel), "bytes": (base / rel).stat().st_size}
    files[records]["rows"] = len(release.group)  # where its block starts, for the measures
    return files


# ------------------------------------------------------------------------------- driver side
@dataclass
class WorkerRelease:
    """What :func:`anonymize_on_workers` returns: where the release was written and its summary
    (no records). ``part_rows`` and ``part_groups`` are in part order (the cut tree's leaves, or
    Anatomy's merged runs); ``timings`` are wall-clock seconds of the stages."""

    path: Path
    algorithm: str
    part_rows: list[int]
    part_groups: list[int]
    manifest: dict
    files: dict[str, dict]
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return int(sum(self.part_rows))

    @property
    def n_groups(self) -> int:
        return int(sum(self.part_groups))

    @property
    def n_parts(self) -> int:
        return len(self.part_rows)


def _merge_counts(*answers) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys, summed counts) of several (keys, counts) pairs: a reduce task's step."""
    values = np.concatenate([a[0] for a in answers])
    counts = np.concatenate([a[1] for a in answers]).astype(np.int64)
    distinct, inverse = np.unique(values, return_inverse=True)
    summed = np.zeros(len(distinct), dtype=np.int64)
    np.add.at(summed, inverse, counts)  # exact: no float weights
    return distinct, summed


def _hilbert_runs(client, blocks, template, qi, max_rows, on_gather):
    """(run of each record, as futures per block; number of runs): runs of the Hilbert order
    of at most ``max_rows`` records where the keys allow, cut at the boundaries of key cells.

    The cells come from exact counts of key prefixes reduced from the workers, refined where a
    cell holds more than ``max_rows`` records: first the keys' top :data:`HILBERT_BUCKET_BITS`
    bits, then, inside each heavy prefix only, the next as many, down to whole keys. Consecutive
    cells are then taken into runs (:func:`runs_of_buckets`); a single key held by more than
    ``max_rows`` records is a run alone. The driver receives counts of key prefixes (the sizes
    of boxes of the quasi-identifier grid), never a record."""
    from anonlab.anonymize.hilb_plus import hilbert_keys

    _, bits = hilbert_keys(template)  # the grid of the table's domains (validates the width)
    total = len(qi) * bits
    keys = client.map(_hilbert_keys, blocks, [qi] * len(blocks), [bits] * len(blocks), pure=False)
    cell_low: list[np.ndarray] = []
    cell_count: list[np.ndarray] = []
    heavy, heavy_shift, depth = None, total, 0
    while True:
        depth = min(total, depth + HILBERT_BUCKET_BITS)
        shift = total - depth
        maps = client.map(
            _prefix_counts, keys, [shift] * len(keys), [heavy] * len(keys),
            [heavy_shift] * len(keys), pure=False,
        )  # fmt: skip
        reduced = tree_sum(client, maps, combine=_merge_counts).result()  # merged on workers
        prefixes, counts = received("hilbert key counts", reduced, on_gather)
        split = (counts > max_rows) & (shift > 0)
        light = ~split
        cell_low.append(prefixes[light] << np.uint64(shift))
        cell_count.append(counts[light])
        if not split.any():
            break
        heavy, heavy_shift = prefixes[split], shift
    low = np.concatenate(cell_low)
    count = np.concatenate(cell_count)
    order = np.argsort(low, kind="stable")
    low, count = low[order], count[order]
    run_of_cell = runs_of_buckets(count, max_rows)
    runs = client.map(_cell_runs, keys, [low] * len(keys), [run_of_cell] * len(keys), pure=False)
    return runs, int(run_of_cell.max()) + 1 if len(run_of_cell) else 1


def _run_parts(
    client, blocks, origins, n, template, qi, s_index, constrained, algorithm, l, seed, max_rows,
    on_gather,
):  # fmt: skip
    """Anatomy's and the Hilb family's parts: runs (random, or of the Hilbert order) merged
    until ℓ-eligible. Returns (run of each record per block, part of each run, part sizes,
    Partitioning without per-record parts)."""
    from anonlab.distributed.partitioning import Partitioning, merge_plan

    n_values = len(constrained)
    if algorithm == "anatomy":
        n_runs = max(1, -(-n // max_rows))
        runs = client.map(
            _random_runs, blocks, [seed] * len(blocks), origins, [n_runs] * len(blocks),
            [RUN_CHUNK] * len(blocks), pure=False,
        )  # fmt: skip
        method = "random-runs"
    else:
        runs, n_runs = _hilbert_runs(client, blocks, template, qi, max_rows, on_gather)
        method = "hilbert-runs"
    maps = client.map(
        _run_histogram, blocks, runs, [s_index] * len(blocks), [n_values] * len(blocks),
        [n_runs] * len(blocks), pure=False,
    )  # fmt: skip
    hist = received("run histograms", tree_sum(client, maps).result(), on_gather)
    hist = hist.reshape(n_runs, n_values)
    part_of_run, members = merge_plan(hist, constrained, l)
    sizes = np.array([int(hist[m].sum()) for m in members], dtype=np.int64)
    partitioning = Partitioning(
        part=np.zeros(0, dtype=np.int32),
        n_parts=len(members),
        method=method,
        merges=[m for m in members if len(m) > 1],
        runs=n_runs,
    )
    return runs, part_of_run, sizes, partitioning


def _mondrian_parts(
    client, path, blocks, rows, template, qi, s_index, domains, params, algorithm, k, l,
    max_rows, on_gather,
):  # fmt: skip
    """The Mondrian family's parts: the driver's cuts from the workers' level histograms
    (:func:`~anonlab.distributed.worker_cuts.mondrian_cuts_on_workers`). Returns (part of each
    record per block, None, part sizes, Partitioning without per-record parts)."""
    from anonlab.distributed.partitioning import Partitioning
    from anonlab.distributed.worker_cuts import mondrian_cuts_on_workers

    cuts = mondrian_cuts_on_workers(
        client,
        path,
        template.quasi_identifiers,
        template.sensitive,
        params.get("sensitive_values"),
        k=k,
        l=l,
        look_ahead=algorithm != "mondrian",
        max_partition_rows=max_rows,
        domains=domains,
        on_gather=on_gather,
        # not kept here: once the cell codes are made, the views' int32 copies are freed
        blocks=client.map(
            _cut_view, blocks, [qi] * len(blocks), [s_index] * len(blocks), pure=False
        ),
        block_rows=rows,
    )
    maps = client.map(_part_sizes, cuts.part_futures, [cuts.n_parts] * len(blocks), pure=False)
    sizes = received("part sizes", tree_sum(client, maps).result(), on_gather)
    partitioning = Partitioning(
        part=np.zeros(0, dtype=np.int32),
        n_parts=cuts.n_parts,
        method="mondrian-cuts",
        cuts=cuts.cuts,
        refused_splits=cuts.refused_splits,
        oversized=cuts.oversized,
    )
    return cuts.part_futures, None, sizes, partitioning


def _part_layout(
    export_key: bytes, how: dict, sizes: np.ndarray, part_groups: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """(file index of each part, first published group id of each part): the parts' files and
    id ranges in a keyed random order (the key derived from the export key and the parts'
    sizes and group counts)."""
    n_parts = len(part_groups)
    layout_key = export_order.release_key(
        export_key, json.dumps([how, sizes.tolist(), part_groups], default=str).encode("utf-8")
    )
    file_index = np.empty(n_parts, dtype=np.int64)
    file_index[export_order.keyed_permutation(layout_key, b"part files", n_parts)] = np.arange(
        n_parts
    )
    by_file = np.argsort(file_index)
    offsets = np.zeros(n_parts, dtype=np.int64)
    offsets[by_file] = np.concatenate([[0], np.cumsum(np.array(part_groups)[by_file])[:-1]])
    return file_index, offsets


#: The algorithms' parameters the workers' path takes (and ``seed``): the model its parts are
#: cut for. Others are refused: ``t``/``distance`` (each part would measure t-closeness against
#: its own distribution, not the table's), ``scheme`` (the published files are each algorithm's
#: default form) and ``as_one_value`` (values merged before the parts are cut).
PARAMETERS = ("k", "l", "sensitive_values", "variant")


def check_parameters(algorithm: str, params: dict) -> dict:
    """``params`` without None values, after refusing one the algorithm does not take, or
    one the workers' path does not (:data:`PARAMETERS`); the error names it."""
    from anonlab.anonymize import parameters

    params = {k: v for k, v in params.items() if v is not None}
    accepted = [p for p in parameters(algorithm) if p != "seed"]
    for name in params:
        if name not in accepted:
            raise AnonlabError(
                f"{algorithm} has no parameter {name!r}; its parameters are {accepted}"
            )
        if name not in PARAMETERS:
            raise AnonlabError(
                f"parameter {name!r} is not available on the workers' path (it takes "
                f"{[p for p in accepted if p in PARAMETERS]}); run anonymize_distributed or "
                "the single-machine anonymize for it"
            )
    return params


def _params_for(algorithm: str, params: dict) -> tuple[int, int]:
    """(k, l) of the cuts, validating the model as the driver-held backend does."""
    if algorithm == "mondrian":
        if "k" not in params and "l" not in params:
            raise AnonlabError("Mondrian needs a privacy model: give k (k-anonymity) and/or l")
        return (
            check_int("k", params.get("k", 1), minimum=1),
            check_int("l", params.get("l", 1), minimum=1),
        )
    if "l" not in params:
        raise AnonlabError(f"{algorithm} needs l (ℓ-diversity), e.g. l=4")
    return 1, check_int("l", params["l"], minimum=1)


def anonymize_on_workers(
    client: Client,
    path: str,
    template: Table | FileTemplate,
    algorithm: str,
    out: str | Path,
    *,
    seed: int = 0,
    max_partition_rows: int = DEFAULT_MAX_PARTITION_ROWS,
    published_format: str = "parquet",
    export_key: bytes | None = None,
    force: bool = False,
    on_gather: Callable[[str, Any], None] | None = None,
    sep: str | None = None,
    blocksize: int | None = None,
    **params: Any,
) -> WorkerRelease:
    """Anonymize the records of the Parquet or CSV file ``path`` on the cluster's workers and
    write the release to ``out``, part by part, from the workers (see the module docstring).

    Parameters
    ----------
    client : distributed.Client
    path : str
        A file every worker can read (:class:`~anonlab.distributed.worker_input.InputFile`):
        Parquet, each row group a block, or CSV, cut in blocks of ``blocksize`` bytes.
    template : Table or FileTemplate
        The table's schema and domains, with any number of records (``table.take([])`` has none):
        roles, hierarchies, types and each column's values in code order; or a
        :class:`~anonlab.distributed.worker_input.FileTemplate`
        (:func:`~anonlab.distributed.worker_input.template_from_file`), which also says how the
        file's raw values map to them. Every attribute of its schema is read from ``path``; a
        value not in its domain, or a missing value, is an error naming the column, the value
        and the block.
    algorithm : {"anatomy", "hilb", "hilb+", "hilb++", "mondrian", "mondrian+", "mondrian++"}
    out : path
        The release folder, written atomically; on a file system the workers share.
    seed : int
        Seeds Anatomy's runs and every part's algorithm (``SeedSequence(seed).spawn(P)[p]``).
    max_partition_rows : int
        Largest part (Mondrian: cut while larger and an allowable cut exists; Anatomy:
        ``ceil(n / max_partition_rows)`` random runs).
    published_format : {"parquet", "csv"}
    export_key : bytes, optional
        The 32-byte export key (:mod:`anonlab.export_order`); a fresh one by default. Written to
        ``publisher/export-key``.
    force : bool
        Replace an existing release folder at ``out``.
    on_gather : callable, optional
        ``on_gather(kind, value)`` for every object the driver receives.
    sep, blocksize : CSV only
        The separator (detected from the header line by default) and bytes per block.
    **params
        The algorithm's parameters (``k``, ``l``, ``sensitive_values``, ...).
    """
    import dask.dataframe as dd

    try:  # the expression layer of dask.dataframe (dask 2025.1 and later)
        from dask.dataframe.dask_expr._collection import new_collection
        from dask.dataframe.dask_expr._shuffle import Shuffle
    except ImportError:  # pragma: no cover - an older dask
        import dask

        raise AnonlabError(
            f"the workers' path needs dask 2025.1 or later (dask {dask.__version__} is "
            "installed): pip install -U 'anonlab[distributed]'"
        ) from None

    import distributed
    from anonlab.anonymize import publication_scheme
    from anonlab.anonymize.eligibility import require_l_eligible_counts
    from anonlab.atomic_output import atomic_directory, owner_only
    from anonlab.distributed.anonymize import combine_manifests, partition_seeds
    from anonlab.distributed.cluster import worker_count
    from anonlab.distributed.worker_input import coded_blocks
    from anonlab.distributed.written_release import PATH_MARK, write_manifest
    from anonlab.release import require_no_value_sets
    from anonlab.release_io.export import PUBLISHED_FORMATS

    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    published_format = check_choice("published_format", published_format, PUBLISHED_FORMATS)
    seed = check_seed(seed)
    max_rows = check_int("max_partition_rows", max_partition_rows, minimum=1)
    params = check_parameters(algorithm, params)
    if export_key is None:
        export_key = export_order.new_export_key()
    elif len(export_key) != export_order.KEY_BYTES:
        raise AnonlabError(
            f"an export key has {export_order.KEY_BYTES} bytes, got {len(export_key)}"
        )
    recode = None
    if isinstance(template, FileTemplate):  # the file's raw values -> the table's codes
        raw, recode = template.raw, template.code
        template = template.table
    template = template.take(np.zeros(0, dtype=np.int64))  # its schema and domains travel
    sens = template.require_sensitive()
    if len(template.sensitive_attributes) != 1:
        raise AnonlabError(
            f"the workers' path takes one sensitive attribute, the template has "
            f"{list(template.sensitive_attributes)}"
        )
    names = list(template.schema.names)
    qi = [names.index(q) for q in template.quasi_identifiers]
    s_index = names.index(sens)
    if algorithm != "anatomy" and not qi:
        raise AnonlabError(f"{algorithm} needs at least one quasi-identifier to cut on")
    k, l = _params_for(algorithm, params)
    scheme = publication_scheme(algorithm)  # each algorithm's default (no --scheme here)
    require_no_value_sets(template, scheme, None)  # before the work, not when writing
    constrained = template.value_mask(sens, params.get("sensitive_values"))
    n_values = len(constrained)
    domains = {name: np.asarray(template.values[name]) for name in names}
    if recode is None:
        raw = domains
    source = InputFile.of(path, sep, blocksize)
    columns = source.columns()
    missing = [n for n in names if n not in columns]
    if missing:
        raise AnonlabError(f"{str(path)!r} has no column {missing[0]!r}; it has {columns}")

    with atomic_directory(out, force=force) as tmp:
        # 1. read the blocks on the workers
        t0 = time.perf_counter()
        blocks, rows, origins = coded_blocks(client, source, names, raw, recode)
        n = sum(rows)
        if n < max(k, l, 1):
            raise AnonlabError(f"{str(path)!r} has {n} records, fewer than k = {k} / ℓ = {l}")
        counts = received(
            "value counts",
            tree_sum(
                client,
                client.map(
                    _value_counts,
                    blocks,
                    [s_index] * len(blocks),
                    [n_values] * len(blocks),
                    pure=False,
                ),  # fmt: skip
            ).result(),
            on_gather,
        )
        if l > 1:
            require_l_eligible_counts(counts, l, constrained, domains[sens], sens)
        # 2. the parts
        if algorithm.startswith("mondrian"):
            part_futures, part_of_run, sizes, partitioning = _mondrian_parts(
                client, path, blocks, rows, template, qi, s_index, domains, params,
                algorithm, k, l, max_rows, on_gather,
            )  # fmt: skip
        else:
            part_futures, part_of_run, sizes, partitioning = _run_parts(
                client, blocks, origins, n, template, qi, s_index, constrained, algorithm, l, seed,
                max_rows, on_gather,
            )  # fmt: skip
        n_parts = partitioning.n_parts
        timings["parts"] = time.perf_counter() - t0
        # 3. the shuffle: one output partition per part
        t0 = time.perf_counter()
        dtypes = shuffle_dtypes([len(domains[name]) for name in names])
        tagged = client.map(
            _with_part,
            blocks,
            part_futures,
            [part_of_run] * len(blocks),
            [dtypes] * len(blocks),
            pure=False,
        )
        del blocks, part_futures
        meta = _with_part(read_meta(names), np.zeros(0, dtype=np.int32), None, dtypes)
        frame = dd.from_delayed(tagged, meta=meta, verify_meta=False)
        # Dask's own P2P shuffle, routed by the ``_partitions`` column as it is (the part):
        # the public DataFrame.shuffle would hash it, putting several parts on one output
        # partition and leaving others empty; Shuffle is the expression that public method
        # lowers to, after it has computed that column itself (dask.dataframe.dask_expr).
        shuffled = new_collection(Shuffle(frame.expr, "_partitions", n_parts, True, "p2p"))
        part_frames = client.compute(shuffled.to_delayed())
        del tagged, frame, shuffled
        distributed.wait(part_frames)
        timings["shuffle"] = time.perf_counter() - t0
        # 4. anonymize each part where it landed
        t0 = time.perf_counter()
        seeds = partition_seeds(seed, n_parts)
        results = client.map(
            _anonymize_part,
            part_frames,
            range(n_parts),
            [template] * n_parts,
            [algorithm] * n_parts,
            [params] * n_parts,
            seeds,
            sizes.tolist(),
            pure=False,
            retries=RETRIES,
        )
        del part_frames
        summaries = received(
            "part summaries", client.gather(client.map(_part_summary, results)), on_gather
        )
        timings["anonymize"] = time.perf_counter() - t0
        # 5. offsets in a keyed order of the parts, then each worker writes its part
        t0 = time.perf_counter()
        part_groups = [int(s[0]) for s in summaries]
        manifest = combine_manifests(algorithm, [s[1] for s in summaries], partitioning, seed)
        how = {k: manifest.get(k) for k in ("algorithm", "parameters", "seed")}
        file_index, offsets = _part_layout(export_key, how, sizes, part_groups)
        written = client.gather(
            client.map(
                _write_part,
                results,
                [str(tmp)] * n_parts,
                file_index.tolist(),
                offsets.tolist(),
                [export_key] * n_parts,
                [how] * n_parts,
                [published_format] * n_parts,
                pure=False,
                retries=RETRIES,
            )
        )
        del results
        files: dict[str, dict] = {}
        for answer in written:
            files.update(received("files", answer, on_gather))
        manifest["scheme"] = scheme
        manifest["rows"] = n
        manifest["groups"] = int(sum(part_groups))
        manifest["distributed"] = {
            "path": PATH_MARK,
            "dask_version": distributed.__version__,
            "workers": worker_count(client),
            "partitions": n_parts,
            "max_partition_rows": max_rows,
            **partitioning.to_json(),
            "partition_rows": sizes.tolist(),
            "partition_groups": part_groups,
            "partition_seeds": seeds,
            "seed_derivation": "numpy SeedSequence(seed).spawn(partitions)[p]"
            ".generate_state(1, uint32)[0]",
            "input": {"path": str(path), "format": source.kind, "blocks": len(rows), "rows": n},
        }
        manifest["published_format"] = published_format
        manifest["files"] = files
        manifest = write_manifest(Path(tmp), manifest, template, export_key)
        owner_only(Path(tmp) / "publisher")
        timings["write"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - t_start
    return WorkerRelease(
        path=Path(out),
        algorithm=algorithm,
        part_rows=sizes.tolist(),
        part_groups=part_groups,
        manifest=manifest,
        files=files,
        timings=timings,
    )
