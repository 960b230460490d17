"""``anonlab init DATA``: draft a schema file for a data file, for the publisher to review.

The data is read through the project's typed reading (:meth:`anonlab.table.Table.from_csv`,
:meth:`~anonlab.table.Table.from_parquet`: leading-zero codes stay text, a stray word in a
numeric column is an error naming it), every column kept; rows with a missing value are left
out of the guesses (counted in the output). Each column's type is the reader's decision, its
role and hierarchy builder are guesses (:func:`anonlab.schema_file.draft_schema`): the draft
file and the output both say so. The file is written atomically, never over an existing one
without ``--force``.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from anonlab.cli.common import JSON, add_column, add_row, emit_json, new_table, out, say, stage


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``anonlab init`` to the top-level app."""
    app.command("init")(init)


def init(
    data: Path = typer.Argument(..., help="A CSV (header row) or Parquet file."),
    out_file: Path = typer.Option(
        Path("schema.json"), "--out", help="The schema file to write (JSON)."
    ),
    force: bool = typer.Option(False, "--force", help="Replace --out if it exists."),
    as_json: bool = JSON,
) -> None:
    """Draft a schema file for DATA: each column's type as read, a GUESSED role and hierarchy
    builder; review it, then `anonlab anonymize --data DATA --schema FILE ...`."""
    from anonlab.atomic_output import atomic_write_text, require_file_free
    from anonlab.cli.common import data_separator, read_header, separator_note
    from anonlab.schema_file import draft_schema, dump_schema
    from anonlab.table import Table

    require_file_free(out_file, "--out", force)  # before any work
    parquet = data.suffix.lower() in (".parquet", ".pq")
    columns = read_header(data, parquet)
    sep = {} if parquet else {"sep": data_separator(data)}
    reader = Table.from_parquet if parquet else Table.from_csv
    with stage(f"reading {data}", as_json):
        table = reader(
            data,
            quasi_identifiers=columns[:1],
            insensitive=columns[1:],
            drop_missing=True,
            **sep,
        )
    draft, suggestions = draft_schema(table, str(data))
    atomic_write_text(out_file, dump_schema(draft))
    missing_rows = int(table.dropped.get("rows_with_missing") or 0)
    if as_json:
        emit_json(
            {
                "out": str(out_file),
                "rows": table.n_rows,
                "rows_with_missing_ignored": missing_rows,
                "roles_are_guesses": True,
                "columns": [
                    {
                        "name": s.name,
                        "type": s.type,
                        "type_decided": s.type_note,
                        "role": s.role,
                        "hierarchy": s.hierarchy,
                        "why": s.why,
                    }
                    for s in suggestions
                ],
            }
        )
        return
    tab = new_table(f"Draft schema for {data} ({table.n_rows:,} rows)")
    for header in ("column", "type", "suggested role", "suggested hierarchy", "why"):
        add_column(tab, header)
    for s in suggestions:
        hierarchy = "none" if s.hierarchy is None else json.dumps(s.hierarchy)
        add_row(tab, s.name, s.type, s.role, hierarchy, s.why)
    out.print(tab)
    sep_line = separator_note(data)
    if sep_line is not None:
        say(sep_line)
    say("column types as read (change with the 'type' fields):")
    for line in table.type_lines():
        say(f"  {line}", soft_wrap=True)
    if missing_rows:
        say(f"{missing_rows:,} rows with a missing value were left out of the guesses")
    say(f"wrote {out_file}")
    say(
        "The roles are guesses to review: 'quasi-identifier' is a placeholder. Mark the "
        "sensitive attribute (role 'sensitive'), columns to publish as they are "
        "('insensitive'), identifiers ('identifier') and columns to leave out ('drop'); check "
        "each type and hierarchy."
    )
    say(f"Then: anonlab anonymize --data {data} --schema {out_file} --algorithm ... --out ...")
