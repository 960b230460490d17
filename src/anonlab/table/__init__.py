"""The microdata table T: one integer-coded numpy array per attribute, plus each domain.

Everything downstream (anonymizers, checks, attacks, utility) works on the integer codes; pandas
is used only here, to read and write. Codes follow each attribute's natural order: numeric values
ascending, categorical values in their hierarchy's leaf order (depth-first, so every subtree is a
contiguous run of codes) or, without a hierarchy, sorted by label.

Dtypes (issue 10; measured in docs/benchmarks.md, "Scale"): codes are **int32** in every table
and every compute path. Numba kernels and numpy arithmetic on codes (``code - lo``,
``group * n_values + code``, ``l * count``) assume int32 (or wider) and would overflow silently
in uint8/int16; narrowing them would save 3 bytes per record per attribute (240 MB at 10M
records of 8 attributes), which the 4 GB goal does not need. The smallest dtype is used where
it is free: :meth:`Table.from_csv` / :meth:`Table.from_parquet` keep each chunk's provisional
codes in uint8/uint16/uint32 (whichever holds the domain seen so far) until the table is
assembled, which lowers the reading peak at 10M by about 185 MB (measured; 240 MB computed).
Row ids are int64 (a file may exceed 2**31 rows); group ids of a release are int32
(:func:`anonlab.grouping.dense_group_ids`).

Reading a file: :meth:`Table.from_csv` and :meth:`Table.from_parquet` read ``chunk_rows`` rows
at a time (only the kept columns) and give exactly the table of
``Table.from_frame(read_frame(path))``, at about 77 bytes per record above the interpreter
instead of about 350 for CSV and 400 for Parquet (census-kdd-workers, 10M records, 8 columns),
and 2-5 times faster (measured before issue 17; see below).

Types (issue 17, item 1): a CSV is read as text and each column's type (integer, decimal, text,
categorical: :class:`~anonlab.schema.ColumnType`) is decided on its distinct values by
:func:`column_types._decide`, the same way for the whole file and for the chunks, or declared
(``types=``). Nothing is coerced silently: leading zeros keep a column text, a stray word in a
numeric column or an infinite number is an error naming the column, row and value, and every
decision is kept in :attr:`Table.types`. Reading every cell as text need not cost much:
:meth:`Table.from_csv` takes each chunk's cells as the parser's Python strings, factorizes them
once, and removes the formula guard, strips blanks, finds missing markers and decides types on
the distinct cells only (:class:`chunked.TextChunk`). On this 2-core machine (possibly shared)
census-kdd-workers at 1M rows x 8 columns read in 0.73-0.94 s, against 0.60-0.73 s before typed
reading and 1.32-1.36 s when every cell went through pandas' pyarrow-backed ``str`` dtype
(docs/benchmarks.md, "Reading a CSV"; the 10M-row figures above predate typed reading).

The package, one concept per module (docs/contributing.md):

* :mod:`anonlab.table.core`: :class:`Table`, its constructors and the tables derived from one;
* :mod:`anonlab.table.reading`: reading a CSV or Parquet file whole (:func:`read_frame`), and
  the header, column-name and field-count checks every reader makes;
* :mod:`anonlab.table.column_types`: how a column's cells are read (types and their errors,
  encoding in value order, automatic date hierarchies, value sets);
* :mod:`anonlab.table.roles`: roles and missing values (the checks and their messages);
* :mod:`anonlab.table.chunked`: reading a file chunk by chunk.

The names other modules use are exported here; the helpers the modules share are public in
their own module and not exported.
"""

from __future__ import annotations

from anonlab.table.column_types import Declared
from anonlab.table.core import CHUNK_ROWS, Table
from anonlab.table.reading import (
    check_field_counts,
    check_input_path,
    check_unique_columns,
    read_csv_header,
    read_frame,
)
from anonlab.table.roles import (
    GROUP_ID_COLUMN,
    MISSING_MARKERS,
    PUBLISHED_SENSITIVE_COLUMN,
    RESERVED_COLUMNS,
    ROLE_OPTIONS,
    ROW_ID_COLUMN,
    UNASSIGNED_CHOICES,
    unassigned_message,
)

__all__ = [
    "CHUNK_ROWS",
    "GROUP_ID_COLUMN",
    "MISSING_MARKERS",
    "PUBLISHED_SENSITIVE_COLUMN",
    "RESERVED_COLUMNS",
    "ROLE_OPTIONS",
    "ROW_ID_COLUMN",
    "UNASSIGNED_CHOICES",
    "Declared",
    "Table",
    "check_field_counts",
    "check_input_path",
    "check_unique_columns",
    "read_csv_header",
    "read_frame",
    "unassigned_message",
]
