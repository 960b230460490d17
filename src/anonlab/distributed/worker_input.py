"""The input of the workers' path, read where it lies: Parquet row groups or CSV blocks (issue 21).

A file every worker can read is cut into **blocks**, each read and coded on a worker into a
DataFrame of int32 codes (column ``c<i>`` for the template's ``i``-th attribute) and ``_row``, the
record's position in the file; the blocks stay on the workers as futures
(:func:`coded_blocks`). The driver reads only metadata:

* **Parquet** (``.parquet``, ``.pq``): a block is a row group, or a contiguous slice of one
  when the file has fewer row groups than workers (:func:`block_plan`); the row counts come
  from the footer.
* **CSV** (any other suffix): blocks of about ``blocksize`` bytes cut at line ends by Dask's own
  byte reader (``dask.bytes.read_bytes``, the reader under ``dask.dataframe.read_csv``); the
  driver reads the header line. Each block is parsed on a worker with the options of anonlab's
  own CSV reader (:func:`anonlab.table.reading.csv_options`: every cell as text, the same
  missing-value markers), and the blocks' record counts (one integer per block) are gathered to
  number the records. As in ``dask.dataframe.read_csv``, a quoted field holding a line break
  must not straddle two blocks: a block that ends inside a quoted field (an odd number of quote
  characters) is an error naming it, never a silently broken record.

**Templates.** The codes are the template table's (roles, types, hierarchies, domains). For a
file read with options (the CLI's ``--qi``, ``--types``, ``--schema``, ...), the template comes
from the file's *distinct values*, counted on the workers (:func:`domain_frame`), read with those
options as a table would be, and a :class:`FileTemplate` maps each raw value of the file to the
table's code (reading may convert values, e.g. text digits to integers).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from anonlab._validation import check_int
from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from anonlab.table import Table
    from distributed import Client, Future

#: Name of the column holding a record's position in the input file.
ROW = "_row"
#: Suffixes read as Parquet; any other file is read as CSV.
PARQUET_SUFFIXES = (".parquet", ".pq")
#: Bytes per CSV block by default.
CSV_BLOCKSIZE = 64 * 2**20
#: The smallest slice a Parquet row group is cut into (:func:`block_plan`).
MIN_SLICE_ROWS = 2**17


def code_column(i: int) -> str:
    """The name of attribute ``i``'s code column in a block."""
    return f"c{i}"


@dataclass(frozen=True)
class InputFile:
    """A file the workers read: its path, ``kind`` (``"parquet"`` or ``"csv"``), and for CSV
    the separator and the block size in bytes."""

    path: str
    kind: str
    sep: str = ","
    blocksize: int = CSV_BLOCKSIZE

    @classmethod
    def of(cls, path: str | os.PathLike, sep: str | None = None, blocksize: int | None = None):
        """The input at ``path``; a CSV's separator is detected from its header line unless
        given (:func:`anonlab.release_io.detect_separator`)."""
        p = Path(path)
        if not p.is_file():
            raise AnonlabError(f"input file {str(path)!r} does not exist or is not a file")
        if p.suffix.lower() in PARQUET_SUFFIXES:
            return cls(str(p), "parquet")
        if sep is None:
            from anonlab.release_io import detect_separator

            sep = detect_separator(p)
        if blocksize is not None and (isinstance(blocksize, bool) or blocksize < 1024):
            raise AnonlabError(f"blocksize must be at least 1024 bytes, got {blocksize!r}")
        return cls(str(p), "csv", sep, CSV_BLOCKSIZE if blocksize is None else int(blocksize))

    def columns(self) -> list[str]:
        """The file's column names (the Parquet schema, or the CSV header line)."""
        if self.kind == "parquet":
            import pyarrow.parquet as pq

            try:
                return list(pq.ParquetFile(self.path).schema_arrow.names)
            except (OSError, ValueError) as exc:
                raise AnonlabError(f"cannot read {self.path!r} as Parquet: {exc}") from None
        from anonlab.table.reading import read_csv_header

        return read_csv_header(self.path, self.sep)


# ------------------------------------------------------------------------------- worker side
def read_coded_frame(
    path: str,
    row_group: int,
    row0: int,
    names: Sequence[str],
    domains: dict[str, np.ndarray],
    recode: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Runs on a worker: one Parquet row group as int32 codes (column ``c<i>`` for ``names[i]``)
    and ``_row``, each record's position in the file (``row0`` is the row group's first).

    A value's code is its position in ``domains[name]``, or with ``recode``,
    ``recode[name][position]`` (the file's raw values mapped to the table's codes:
    :class:`FileTemplate`)."""
    import pandas as pd
    import pyarrow.parquet as pq

    from anonlab.distributed.worker_cuts import encode_arrow

    # string columns as the file's dictionaries: no string decoded or hashed per record
    # (78 -> 27 ms per 250,000-record row group in a Dask worker, in a one-off profile, not a
    # kept benchmark); encode_arrow reads them
    table = pq.ParquetFile(path, read_dictionary=list(names)).read_row_group(
        row_group, columns=list(names)
    )
    where = f"{path}, row group {row_group}"
    cols: dict[str, np.ndarray] = {ROW: np.arange(row0, row0 + table.num_rows, dtype=np.int64)}
    for i, name in enumerate(names):
        code = encode_arrow(table.column(name), domains[name], name, where)
        if recode is not None:
            code = recode[name][code]
        cols[code_column(i)] = code.astype(np.int32)
    return pd.DataFrame(cols, copy=False)


def read_meta(names: Sequence[str]) -> pd.DataFrame:
    """The empty frame :func:`read_coded_frame` returns for ``names`` (the shuffle's meta)."""
    import pandas as pd

    cols: dict[str, np.ndarray] = {ROW: np.zeros(0, dtype=np.int64)}
    for i in range(len(names)):
        cols[code_column(i)] = np.zeros(0, dtype=np.int32)
    return pd.DataFrame(cols)


def parse_csv_block(data: bytes, block: int, header: list[str], sep: str) -> pd.DataFrame:
    """Runs on a worker: one CSV block (whole lines; the first block starts with the header)
    as text cells, parsed with anonlab's CSV options (missing-value markers as NaN)."""
    import io

    import pandas as pd

    from anonlab.table.reading import csv_options

    # A quoted line break across a block's edge: an odd number of quotes, or an even number
    # when the block also starts inside the field (then the parser meets EOF inside a string).
    # Whichever of a file's blocks fails first is reported, so both say the same.
    crossing = (
        f"CSV block {block} ends inside a quoted field, or starts inside one (a line break "
        "inside quotes crosses a block's edge); convert the file to Parquet, or use larger blocks"
    )
    if data.count(b'"') % 2:
        raise AnonlabError(crossing)
    options = csv_options(sep, header)
    options["dtype"] = object
    if block > 0:
        options["header"] = None
    try:
        return pd.read_csv(io.BytesIO(data), **options)
    except (ValueError, pd.errors.ParserError) as exc:
        if "EOF inside string" in str(exc):
            raise AnonlabError(crossing) from None
        raise AnonlabError(f"CSV block {block}: {str(exc).strip()}") from None


def code_text_frame(
    frame: pd.DataFrame,
    block: int,
    row0: int,
    names: Sequence[str],
    domains: dict[str, np.ndarray],
    recode: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Runs on a worker: a parsed CSV block coded as :func:`read_coded_frame` codes a row
    group (each distinct cell looked up once)."""
    import pandas as pd

    from anonlab.distributed.worker_cuts import encode

    where = f"CSV block {block}"
    cols: dict[str, np.ndarray] = {ROW: np.arange(row0, row0 + len(frame), dtype=np.int64)}
    for i, name in enumerate(names):
        local, distinct = pd.factorize(frame[name], use_na_sentinel=True)
        if (local < 0).any():
            raise AnonlabError(
                f"column {name!r} ({where}): {int((local < 0).sum()):,} missing values; fill "
                "them (or mark them as a value of their own) first"
            )
        code = encode(np.asarray(distinct, dtype=object), domains[name], name, where)[local]
        if recode is not None:
            code = recode[name][code]
        cols[code_column(i)] = code.astype(np.int32)
    return pd.DataFrame(cols, copy=False)


def _read_task(path, row_group, row0, names, coding) -> pd.DataFrame:
    """The task that reads a row group, through the worker's own import of this module (a
    test's driver may replace its ``read_coded_frame`` with one that raises); ``coding`` is
    ``(domains, recode)``."""
    import anonlab.distributed.worker_input as module

    return module.read_coded_frame(path, row_group, row0, names, *coding)


def _slice_task(frame: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """Rows ``lo:hi`` of a block read on a worker, as a frame of their own (a copy: the
    slice must not keep the whole row group alive)."""
    return frame.iloc[lo:hi].reset_index(drop=True).copy()


def _code_task(frame, block, row0, names, coding) -> pd.DataFrame:
    """The task that codes a parsed CSV block (``coding`` is ``(domains, recode)``)."""
    return code_text_frame(frame, block, row0, names, *coding)


def _distinct(frame, columns: Sequence[str]) -> list[np.ndarray]:
    """Each column's distinct non-missing cells of a parsed CSV block, sorted."""
    import pandas as pd

    return [np.sort(pd.unique(frame[c].dropna()).astype(object)) for c in columns]


# ------------------------------------------------------------------------------- driver side
def csv_frames(client: Client, source: InputFile) -> tuple[list[Future], list[int]]:
    """The CSV's blocks parsed on the workers (futures of text DataFrames) and each block's
    number of records (gathered: one integer per block)."""
    from dask.bytes import read_bytes

    header = source.columns()
    _, per_file = read_bytes(source.path, delimiter=b"\n", blocksize=source.blocksize, sample=False)
    delayed_blocks = per_file[0] if per_file else []
    data = client.compute(delayed_blocks)
    frames = [
        client.submit(parse_csv_block, d, b, header, source.sep, pure=False)
        for b, d in enumerate(data)
    ]
    rows = client.gather(client.map(len, frames, pure=False))
    return frames, [int(r) for r in rows]


def block_rows(client: Client, source: InputFile) -> list[int]:
    """Records per block: the Parquet footer's row groups (no record read)."""
    from anonlab.distributed.worker_cuts import row_group_rows

    return row_group_rows(source.path)


def block_plan(
    rows: Sequence[int], workers: int, min_slice: int | None = None
) -> list[tuple[int, int, int]]:
    """The blocks of a Parquet file as ``(row group, first row, end row)`` within the group,
    in file order, for a cluster of ``workers`` workers.

    The work of every stage before the shuffle is shared out by blocks, and a block was a row
    group: in the 16-worker run of docs/benchmarks.md the file had 10 row groups, so at most 10
    workers read the records and counted Mondrian's cuts (read from the settings, not measured
    apart). So when the file has fewer row groups than workers, each is cut into
    ``ceil(2 * workers / row groups)`` equal contiguous slices (two blocks a worker, as the
    map-reduce measures place them), none smaller than ``min_slice`` records (default
    :data:`MIN_SLICE_ROWS` as it is when called). A file with at least as many row groups as
    workers is read as before, one block per row group. Slicing gains only where cores are
    idle: on 2 cores, one row group of 2,000,000 records cut for 2 workers made the read+parts
    stage up to 0.4 s slower, the totals unchanged (docs/benchmarks.md). Nothing published
    depends on the plan: Mondrian's cuts are counted over all blocks, and Anatomy's runs are
    drawn in fixed chunks of each row group
    (``worker_release.RUN_CHUNK`` records; :func:`block_origins`)."""
    workers = check_int("workers", workers, minimum=1)
    min_slice = (
        MIN_SLICE_ROWS if min_slice is None else check_int("min_slice", min_slice, minimum=1)
    )
    rows = [int(r) for r in rows]
    pieces = 1 if len(rows) >= workers else -(-2 * workers // max(len(rows), 1))
    plan = []
    for group, n in enumerate(rows):
        k = max(1, min(pieces, n // min_slice))
        bounds = [n * i // k for i in range(k + 1)]
        plan.extend((group, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True))
    return plan


def _parquet_blocks(
    client: Client, source: InputFile, names: list[str], coding: Future
) -> tuple[list[Future], list[int], list[tuple[int, int, int]]]:
    """The Parquet file's blocks (:func:`block_plan`), read and coded on the workers: each row
    group read once; a cut one's slices made where it was read, then each carried to the
    worker it is placed on (the blocks shared evenly, consecutive blocks on one worker).
    Returns the blocks, their record counts and their origins (:func:`block_origins`)."""
    from anonlab.distributed.cluster import worker_count
    from anonlab.distributed.mapreduce import block_workers, hold, placement

    groups = block_rows(client, source)
    plan = block_plan(groups, max(worker_count(client), 1))
    starts = (np.cumsum(groups) - np.asarray(groups, dtype=np.int64)).tolist()
    workers = block_workers(client, len(plan))
    read: dict[int, Future] = {}
    blocks = []
    for i, (group, lo, hi) in enumerate(plan):
        if group not in read:
            read[group] = client.submit(
                _read_task, source.path, group, starts[group], names, coding, pure=False,
                retries=2, **placement(workers, i),
            )  # fmt: skip
        if hi - lo == groups[group]:  # the whole row group
            blocks.append(read[group])
            continue
        piece = client.submit(_slice_task, read[group], lo, hi, pure=False, retries=2)
        blocks.append(client.submit(hold, piece, pure=False, retries=2, **placement(workers, i)))
    origins = [(group, lo, groups[group]) for group, lo, _ in plan]
    return blocks, [hi - lo for _, lo, hi in plan], origins


def block_origins(rows: Sequence[int]) -> list[tuple[int, int, int]]:
    """Each block's origin ``(file block, first row in it, the file block's records)``: for
    blocks that are the file's own (CSV blocks, uncut row groups), ``(b, 0, rows[b])``. What is
    drawn per record at random (Anatomy's runs) is drawn for the whole file block and sliced,
    so it does not depend on how the blocks were cut."""
    return [(b, 0, int(n)) for b, n in enumerate(rows)]


def text_of(values: np.ndarray) -> np.ndarray:
    """A domain's values as the text a CSV cell holds for them: ``str(value)`` (numbers as
    Python writes them: ``22``, ``1.5``); text as it is. A CSV read with a :class:`Table`
    template (not a :class:`FileTemplate`) must hold exactly these cells; another spelling
    (``22.0``) is an error naming the value, never a conversion."""
    values = np.asarray(values)
    return np.array([v if isinstance(v, str) else str(v) for v in values.tolist()], dtype=object)


def coded_blocks(
    client: Client,
    source: InputFile,
    names: Sequence[str],
    raw: dict[str, np.ndarray],
    recode: dict[str, np.ndarray] | None,
) -> tuple[list[Future], list[int], list[tuple[int, int, int]]]:
    """The file's blocks, coded on the workers (futures), each block's record count and its
    origin in the file (:func:`block_origins`).
    ``raw[name]`` lists the file's values in code order, or with ``recode`` the file's raw
    values and ``recode[name]`` their codes (:class:`FileTemplate`)."""
    if source.kind == "csv" and recode is None:  # a table's values, matched as CSV text
        raw = {name: text_of(values) for name, values in raw.items()}
    [coding] = client.scatter([(raw, recode)], broadcast=True, hash=False)
    names = list(names)
    if source.kind == "parquet":  # a block is a row group, or a slice of one
        return _parquet_blocks(client, source, names, coding)
    # a block is a parsed CSV block, already on a worker
    frames, rows = csv_frames(client, source)
    inputs = [(_code_task, frame, b) for b, frame in enumerate(frames)]
    counts = np.asarray(rows, dtype=np.int64)
    starts = (np.cumsum(counts) - counts).tolist()  # each block's first record
    blocks = [
        client.submit(task, where, block, start, names, coding, pure=False, retries=2)
        for (task, where, block), start in zip(inputs, starts, strict=True)
    ]
    return blocks, rows, block_origins(rows)


def domain_frame(
    client: Client,
    source: InputFile | str,
    columns: Sequence[str] | None = None,
    *,
    on_gather: Callable[[str, Any], None] | None = None,
) -> pd.DataFrame:
    """A frame of the file's distinct values, not of its records: column ``c`` lists ``c``'s
    distinct non-missing values (sorted), padded with its first value to the longest column's
    length. Counted on the workers per block; only distinct values reach the driver.
    ``columns``: all by default.

    Reading it with the options the records would be read with (roles, types, hierarchies)
    gives the template :func:`~anonlab.distributed.worker_release.anonymize_on_workers` needs
    (:func:`template_from_file`). Types are then decided from the distinct values: where the
    single-machine reader weighs records (a column that is mostly numbers but holds some text is
    an error naming a row), this frame weighs values; declare such a column's type to be sure."""

    from anonlab.distributed.worker_cuts import parquet_domains, received

    source = source if isinstance(source, InputFile) else InputFile.of(source)
    columns = list(source.columns() if columns is None else columns)
    if source.kind == "parquet":
        domains = parquet_domains(client, source.path, columns, on_gather=on_gather)
    else:
        frames, _ = csv_frames(client, source)
        merged: list[list[np.ndarray]] = [[] for _ in columns]
        answers = client.gather(client.map(_distinct, frames, [columns] * len(frames)))
        for answer in answers:
            for j, distinct in enumerate(received("domains", answer, on_gather)):
                merged[j].append(distinct)
        domains = {
            name: np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=object)
            for name, parts in zip(columns, merged, strict=True)
        }
    empty = [name for name in columns if len(domains[name]) == 0]
    if empty:
        raise AnonlabError(f"column {empty[0]!r} of {source.path!r} has no value (all missing)")
    return padded_frame({name: domains[name] for name in columns})


def padded_frame(values: dict[str, np.ndarray]) -> pd.DataFrame:
    """One column per entry of ``values`` (each non-empty), padded with its first value to the
    longest one's length: a frame of domains, which :class:`FileTemplate` reads back (the
    distinct values first, in their order)."""
    import pandas as pd

    longest = max((len(v) for v in values.values()), default=0)
    return pd.DataFrame(
        {
            name: np.concatenate([v, np.repeat(v[:1], longest - len(v))])
            for name, v in values.items()
        }
    )


@dataclass
class FileTemplate:
    """A file's template: the table it reads as (``table``, no records) and how the file's raw
    values become its codes: ``raw[name]`` the file's distinct values (sorted), ``code[name]``
    the table's code of each (reading may convert values, e.g. text digits to integers)."""

    table: Table
    raw: dict[str, np.ndarray]
    code: dict[str, np.ndarray]

    @classmethod
    def from_domain_table(cls, frame: pd.DataFrame, table: Table) -> FileTemplate:
        """From a :func:`domain_frame` and the table read from it (same rows, same order)."""
        import pandas as pd

        raw, code = {}, {}
        for name in table.schema.names:
            values = frame[name].to_numpy()
            distinct = len(pd.unique(pd.Series(values, copy=False)))  # then the padding
            raw[name] = values[:distinct]
            code[name] = table.codes[name][:distinct].astype(np.int64)
        return cls(table.take(np.zeros(0, dtype=np.int64)), raw, code)


def template_from_file(
    client: Client,
    path: str | os.PathLike,
    *,
    sep: str | None = None,
    on_gather: Callable[[str, Any], None] | None = None,
    **from_frame: Any,
) -> FileTemplate:
    """The template (schema and domains, no records) of the Parquet or CSV file ``path``:
    :meth:`Table.from_frame <anonlab.table.Table.from_frame>` with ``from_frame``'s keywords
    (``quasi_identifiers=``, ``sensitive=``, ``hierarchies=``, ``types=``, ...) on its
    :func:`domain_frame`, without records."""
    from anonlab.table import Table

    frame = domain_frame(client, InputFile.of(path, sep), on_gather=on_gather)
    return FileTemplate.from_domain_table(frame, Table.from_frame(frame, **from_frame))
