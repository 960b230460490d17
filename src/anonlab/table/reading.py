"""Reading files: a CSV or Parquet file into a DataFrame, and the checks every reader makes.

:func:`read_frame` reads a whole file (every CSV cell as text); the chunked readers
(:meth:`Table.from_csv <anonlab.table.Table.from_csv>`, :meth:`Table.from_parquet
<anonlab.table.Table.from_parquet>`) use the same header reading, column-name and field-count
checks and pandas options (:func:`csv_options`), so both give the same errors.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.formula_guard import unguard_frame, unguard_names
from anonlab.table.roles import MISSING_MARKERS


def check_input_path(path: str | os.PathLike) -> Path:
    """``path`` as a Path, or an error naming it if it does not exist or is a directory."""
    path = Path(path)
    if not path.exists():
        raise AnonlabError(f"file {str(path)!r} does not exist")
    if path.is_dir():
        raise AnonlabError(f"{str(path)!r} is a directory; give a CSV or Parquet file")
    return path


def read_frame(path: str | os.PathLike, sep: str = ",") -> pd.DataFrame:
    """Read CSV or Parquet (by extension) into a DataFrame, with a clear error on failure.

    Holds the whole file in pandas (about 350 bytes per row of census-kdd-workers as CSV);
    :meth:`Table.from_csv` and :meth:`Table.from_parquet` read in chunks instead.

    A CSV's cells are read as **text** (pandas' ``str`` dtype; missing-value markers as NaN):
    pandas' own guess would turn ``01656`` into 1656 and ``1e400`` into ``inf`` before anyone
    could see it. :meth:`Table.from_frame` decides each column's type on that text (integer,
    decimal or text; see its ``types`` parameter). A Parquet file's columns keep their stored
    types.

    Checks made on every file (and by the chunked readers, with the same messages):

    * duplicate column names are refused, naming the column (pandas would rename the second
      ``a`` to ``a.1`` in a CSV);
    * a CSV row with **more** fields than the header is refused, naming its line (pandas would
      drop the extras, or silently turn the first columns into an index);
    * a CSV row with **fewer** fields than the header is read with its absent trailing fields as
      missing values, exactly like empty fields (``a,b`` under header ``a,b,c`` reads as
      ``a,b,``): loading a table then refuses them with the rows named, unless missing rows are
      dropped (``drop_missing=True``, ``--drop-missing``), where they are counted;
    * CSV cells and column names are read through
      :func:`anonlab.formula_guard.unguard_frame`, so the formula guard anonlab puts on the
      CSVs it writes is removed (``'=x`` reads as ``=x``; ``'abc`` and ``'-5`` are unchanged).
    """
    path = check_input_path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(path)
            index = {
                c
                for c in (schema.pandas_metadata or {}).get("index_columns", [])
                if isinstance(c, str)
            }
            names = [str(c) for c in schema.names if c not in index]
            check_unique_columns(names, repr(str(path)))
            return pd.read_parquet(path)
        except (OSError, ValueError, pa.ArrowException) as exc:
            if isinstance(exc, AnonlabError):
                raise
            raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    header = read_csv_header(path, sep)
    check_field_counts(path, sep, len(header))
    try:
        frame = pd.read_csv(path, **csv_options(sep, header))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    return unguard_frame(frame, columns=False)  # the names were unguarded with the header


def csv_options(sep: str, header: list[str]) -> dict:
    """pandas.read_csv options shared by :func:`read_frame` and :meth:`Table.from_csv`: the
    header's names given explicitly (checked unique, guard removed, never mangled), no index
    column guessed from a long first row."""
    return {
        "sep": sep,
        "header": 0,
        "names": header,
        "index_col": False,
        "skipinitialspace": True,
        "keep_default_na": False,
        "na_values": list(MISSING_MARKERS),
        "dtype": str,  # the file's text: types are decided by Table, never by pandas' guess
    }


def read_csv_header(path: str | os.PathLike, sep: str = ",") -> list[str]:
    """The column names of a CSV file as written (not renamed by pandas), with the formula guard
    removed; an empty name is called ``Unnamed: i`` (its position), as pandas does.

    Raises
    ------
    AnonlabError
        If ``sep`` is not one character, the file cannot be read, or two columns share a name.
    """
    path = Path(path)
    if not isinstance(sep, str) or len(sep) != 1:
        raise AnonlabError(f"sep must be a single character, got {sep!r}")
    try:
        first = pd.read_csv(
            path,
            sep=sep,
            header=None,
            nrows=1,
            dtype=str,
            na_filter=False,
            skipinitialspace=True,
            index_col=False,
        )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    raw = first.iloc[0].tolist() if len(first) else []
    names = [str(n) if str(n) != "" else f"Unnamed: {i}" for i, n in enumerate(raw)]
    names = unguard_names(names)
    check_unique_columns(names, repr(str(path)))
    return names


def check_unique_columns(columns: Sequence[str], where: str) -> None:
    """Refuse two columns with one name (pandas would silently rename or mix them)."""
    if len(set(columns)) == len(columns):
        return
    seen: set[str] = set()
    for i, name in enumerate(columns):
        if name in seen:
            raise AnonlabError(
                f"{where}: column name {name!r} appears more than once (again as column "
                f"{i + 1}); every column needs its own name"
            )
        seen.add(name)


def check_field_counts(path: str | os.PathLike, sep: str, n_columns: int) -> None:
    """Refuse a CSV whose rows have more fields than its header has columns, naming the line.

    One pass of pyarrow's CSV parser over the file (about 0.2 s per million rows of 8 columns,
    measured on a 40 MB file; one column is converted, as text, and dropped batch by batch), in
    :func:`read_frame` and :meth:`Table.from_csv` alike: pandas cannot do it in the chunked
    reader, whose ``usecols`` makes it drop extra fields silently. pyarrow knows no
    ``skipinitialspace``, so a row it flags is checked again with Python's :mod:`csv` module,
    which parses as pandas does; the error names the first row that module confirms, with its
    line number in the file (counting the header as line 1).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if n_columns == 0:
        return
    flagged: list[int] = []

    def handler(row) -> str:
        if row.actual_columns > row.expected_columns and not flagged:
            flagged.append(1)
        return "skip"

    names = [f"c{i}" for i in range(n_columns)]
    # pyarrow builds the row's text before calling the handler; on bytes that are not UTF-8
    # that fails inside pyarrow and Python would print it as "Exception ignored ... Traceback"
    # on stderr. Such a row is flagged for the exact scan instead, silently.
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _: flagged.append(1)
    try:
        # read_csv, not the streaming open_csv: a streaming reader's read-ahead thread still
        # alive at interpreter exit aborted the process ("terminate called without an active
        # exception", exit 134) on about 1 error exit in 15.
        pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(skip_rows=1, column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(
                delimiter=sep, newlines_in_values=True, invalid_row_handler=handler
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=["c0"], column_types={"c0": pa.string()}, check_utf8=False
            ),
        )
    except (pa.ArrowException, ValueError, OSError):
        flagged.append(1)  # let the exact scan decide (or pandas report what is wrong)
    finally:
        sys.unraisablehook = hook
    if flagged:
        _first_long_row(Path(path), sep, n_columns)


def _first_long_row(path: Path, sep: str, n_columns: int) -> None:
    """The exact check (Python's csv module, a loop over rows: run only on files pyarrow
    flagged). Raises for the first row with more than ``n_columns`` fields."""
    import csv
    import sys

    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # pandas has no limit on a field's size
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as f:
            reader = csv.reader(f, delimiter=sep, skipinitialspace=True, strict=False)
            header = True
            start = 1
            for row in reader:
                if header and row:
                    header = False
                elif len(row) > n_columns:
                    preview = sep.join(row)
                    preview = preview if len(preview) <= 60 else preview[:57] + "..."
                    raise AnonlabError(
                        f"{str(path)!r}, line {start}: the row has {len(row)} fields but the "
                        f"header has {n_columns} columns ({preview!r}); a row may not have "
                        f"more fields than the header (quote values that contain {sep!r})"
                    )
                start = reader.line_num + 1
    except (OSError, csv.Error):
        return  # pandas reports what it cannot read
    finally:
        csv.field_size_limit(limit)
