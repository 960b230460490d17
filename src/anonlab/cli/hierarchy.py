"""``anonlab hierarchy``: build a column's hierarchy with a builder, show ARX hierarchy files.

``anonlab hierarchy build --data FILE --column COL --builder NAME [--param k=v ...]`` reads the
column's distinct values as text (leading zeros kept, missing cells skipped and counted), builds
the hierarchy with :func:`anonlab.hierarchy_builders.build_hierarchy`, prints its levels (nodes
per level, an example label) and its first rows, and with ``--out FILE.csv`` writes it in ARX
format (atomically; an existing file only with ``--force``). ``anonlab hierarchy show FILE.csv``
prints the same summary of an ARX hierarchy file.

``--param`` values are read as JSON where they parse (``width=5``, ``pad=true``,
``bands=[[0,18,65,130],[0,65,130]]``), else as a comma-separated list (``levels=month,year``),
else as text (``age_at=2024-01-01``, ``keep=3``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import typer

from anonlab.cli.common import (
    DATA,
    FORCE_OUT_FILE,
    JSON,
    add_column,
    add_row,
    command_group,
    emit_json,
    new_table,
    out,
    say,
)
from anonlab.errors import AnonlabError

hierarchy_app = command_group(
    "Generalization hierarchies: build one from a column with a builder, show a file."
)

ROWS = typer.Option(5, "--rows", help="Rows of the hierarchy shown (>= 0).")


def parse_params(items: list[str] | None) -> dict[str, object]:
    """``--param k=v`` items as a dict: JSON values where they parse, ``a,b`` as a list, else
    text."""
    params: dict[str, object] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key:
            raise AnonlabError(f"--param {item!r} is not NAME=VALUE (e.g. width=5)")
        if key in params:
            raise AnonlabError(f"--param {key!r} is given twice; give each parameter once")
        if key == "builder":
            raise AnonlabError("the builder is chosen with --builder, not --param builder=...")
        try:
            value: object = json.loads(raw)
        except ValueError:
            value = [v.strip() for v in raw.split(",")] if "," in raw else raw
        params[key] = value
    return params


def read_column_values(data: Path, column: str) -> tuple[list[str], int]:
    """The distinct values of ``column`` as text (as a CSV holds them; Parquet values written
    as text: dates ISO) and the number of missing cells skipped."""
    from anonlab.formula_guard import unguard_text
    from anonlab.table import (
        MISSING_MARKERS,
        check_field_counts,
        check_input_path,
        read_csv_header,
    )

    data = check_input_path(data)
    parquet = data.suffix.lower() in (".parquet", ".pq")
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            names = [str(c) for c in pq.read_schema(data).names]
            if column not in names:
                raise AnonlabError(_no_column(column, data, names))
            series = pd.read_parquet(data, columns=[column])[column]
        except (OSError, pa.ArrowException) as exc:
            raise AnonlabError(f"cannot read {str(data)!r}: {exc}") from None
        missing = int(series.isna().sum())
        series = series.dropna()
        if pd.api.types.is_datetime64_any_dtype(series):
            midnight = (series.dt.normalize() == series).all()
            series = series.dt.strftime("%Y-%m-%d" if midnight else "%Y-%m-%dT%H:%M:%S")
        uniq = pd.unique(series)
        return [str(v) for v in uniq], missing
    names = read_csv_header(data)
    if column not in names:
        raise AnonlabError(_no_column(column, data, names))
    check_field_counts(data, ",", len(names))  # a long row would shift its fields: refused
    try:
        series = pd.read_csv(
            data,
            header=0,
            names=names,
            usecols=[names.index(column)],
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skipinitialspace=True,
            index_col=False,
        ).iloc[:, 0]
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(data)!r}: {exc}") from None
    uniq = pd.unique(series.str.strip())
    counts = series.str.strip().isin(MISSING_MARKERS)
    values = [unguard_text(v) for v in uniq if v not in MISSING_MARKERS]
    return values, int(counts.sum())


def _no_column(column: str, data: Path, names: list[str]) -> str:
    return f"--column {column!r} is not a column of {str(data)!r}; its columns are {names}"


def summary(hierarchy, rows: int) -> dict[str, object]:
    """Leaves, height, nodes and an example label per level, and the first ``rows`` rows."""
    levels = []
    for j in range(hierarchy.height + 1):
        labels = hierarchy.labels(j)
        levels.append({"level": j, "nodes": len(labels), "example": str(labels[0])})
    return {
        "name": hierarchy.name,
        "leaves": len(hierarchy),
        "height": hierarchy.height,
        "levels": levels,
        "rows": hierarchy.rows()[:rows],
    }


def _print(info: dict, title: str) -> None:
    say(title)
    levels = new_table("Levels")
    levels.add_column("level", justify="right")
    levels.add_column("nodes", justify="right")
    add_column(levels, "example")
    for lv in info["levels"]:
        name = f"{lv['level']} (leaves)" if lv["level"] == 0 else str(lv["level"])
        add_row(levels, name, f"{lv['nodes']:,}", lv["example"])
    out.print(levels)
    if info["rows"]:
        tab = new_table(f"First {len(info['rows'])} of {info['leaves']:,} rows")
        tab.add_column("leaf")
        for j in range(1, info["height"] + 1):
            tab.add_column(f"level {j}")
        for row in info["rows"]:
            add_row(tab, *row)
        out.print(tab)


@hierarchy_app.command("build")
def build(
    data: Path | None = DATA,
    column: str | None = typer.Option(None, "--column", help="The column to build it for."),
    builder: str | None = typer.Option(
        None, "--builder", help="interval, date, prefix, order or mapping."
    ),
    param: list[str] | None = typer.Option(
        None,
        "--param",
        help="A builder parameter NAME=VALUE (repeatable), e.g. width=5, levels=month,year, "
        "keep=3,1, age_at=2024-01-01, file=icd10.csv.",
    ),
    out_file: Path | None = typer.Option(
        None, "--out", help="Write the hierarchy as an ARX-format CSV file."
    ),
    force: bool = FORCE_OUT_FILE,
    rows: int = ROWS,
    as_json: bool = JSON,
) -> None:
    """Build a column's hierarchy from its values with a builder; print it, write it (--out)."""
    from anonlab._validation import check_int
    from anonlab.atomic_output import atomic_write_text, require_file_free
    from anonlab.hierarchy_builders import BUILDERS, build_hierarchy, describe_builders

    if data is None or column is None or builder is None:
        raise AnonlabError("give --data FILE, --column COL and --builder NAME")
    if builder not in BUILDERS:
        raise AnonlabError(f"--builder {builder!r} is not a builder; valid:\n{describe_builders()}")
    check_int("rows", rows, minimum=0)
    spec = {"builder": builder, **parse_params(param)}
    require_file_free(out_file, "--out", force)
    values, missing = read_column_values(data, column)
    hierarchy = build_hierarchy(spec, values, column)
    if out_file is not None:
        atomic_write_text(out_file, hierarchy.to_csv())
    info = summary(hierarchy, rows)
    info.update(column=column, builder=builder, params=spec, missing_skipped=missing)
    if out_file is not None:
        info["out"] = str(out_file)
    if as_json:
        emit_json(info)
        return
    _print(
        info,
        f"Hierarchy of {column!r} ({builder} builder): {len(hierarchy):,} distinct values, "
        f"{hierarchy.height} levels above them",
    )
    if missing:
        say(f"{missing:,} missing cells skipped (a hierarchy has no leaf for them)")
    if out_file is not None:
        say(f"wrote {out_file}")
    else:
        say("not written: add --out FILE.csv to save it (ARX format)")


@hierarchy_app.command("show")
def show(
    file: Path = typer.Argument(..., help="An ARX-format hierarchy file (leaf;level1;...;*)."),
    rows: int = ROWS,
    as_json: bool = JSON,
) -> None:
    """Summarise an ARX-format hierarchy file: levels, nodes per level, first rows."""
    from anonlab._validation import check_int
    from anonlab.hierarchy import Hierarchy

    check_int("rows", rows, minimum=0)
    hierarchy = Hierarchy.read_csv(file)
    info = summary(hierarchy, rows)
    info["file"] = str(file)
    if as_json:
        emit_json(info)
        return
    _print(
        info,
        f"Hierarchy file {str(file)!r}: {len(hierarchy):,} leaves, {hierarchy.height} levels "
        "above them",
    )
    sizes = hierarchy.node_size(1) if hierarchy.height >= 1 else np.ones(1)
    say(f"leaves per level-1 node: {int(sizes.min()):,} to {int(sizes.max()):,}")


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.add_typer(hierarchy_app, name="hierarchy")
