"""``anonlab datasets``: the bundled datasets, their roles and provenance."""

from __future__ import annotations

import typer

from anonlab.cli.common import (
    JSON,
    add_row,
    emit_json,
    new_table,
    out,
    say,
    styled,
)


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command()(datasets)


def datasets(as_json: bool = JSON) -> None:
    """List the bundled datasets with their size, provenance and license."""
    from anonlab import datasets as ds

    infos = [ds.info(n) for n in ds.names()]
    if as_json:
        emit_json(
            [
                {
                    "name": i.name,
                    "rows": i.rows,
                    "description": i.description,
                    "source": i.source,
                    "license": i.license,
                    "citation": i.citation,
                    "default_qi": list(i.default_qi),
                    "default_sensitive": i.default_sensitive,
                    "hierarchy_sets": list(i.hierarchy_sets),
                }
                for i in infos
            ]
        )
        return
    t = new_table("Bundled datasets (shipped in the package; nothing is downloaded)")
    for col in ("name", "rows", "default QI / sensitive", "hierarchy sets", "license"):
        t.add_column(col)
    for i in infos:
        add_row(
            t,
            i.name,
            f"{i.rows:,}",
            f"{', '.join(i.default_qi)} / {i.default_sensitive}",
            ", ".join(i.hierarchy_sets),
            i.license,
        )
    out.print(t)
    for i in infos:
        say(styled(i.name, "bold"), f": {i.citation}")
