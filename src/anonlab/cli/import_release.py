"""``anonlab import``: a release made by another tool (ARX, sdcMicro, ...) read back as an anonlab
release."""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.common import (
    DATA_OPTIONS,
    EXPORT_KEY_FILE,
    FORCE_OUT,
    JSON,
    PUBLISHED_FORMAT,
    DataOptions,
    column_summary,
    emit_json,
    say,
    schema_manifest,
    takes_data_options,
)
from anonlab.errors import AnonlabError
from anonlab.export_order import read_export_key


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    app.command("import")(import_release)


@takes_data_options(leave_out=("drop_missing",))
def import_release(
    out_dir: Path = typer.Option(..., "--out", help="Release directory to write."),
    generalized: Path | None = typer.Option(
        None, "--generalized", help="A generalized CSV (e.g. ARX output)."
    ),
    qit: Path | None = typer.Option(
        None, "--qit", help="Anatomy's QI table (with a group column)."
    ),
    st: Path | None = typer.Option(
        None, "--st", help="Anatomy's sensitive table (group, value, count)."
    ),
    group_column: str | None = typer.Option(
        None, "--group-column", help="Group id column, if any."
    ),
    sep: str | None = typer.Option(
        None,
        "--sep",
        help="Field separator of the imported CSV files (';', ',', 'tab', ...); default: "
        "detected from each file's header line (ARX writes ';').",
    ),
    withhold_suppressed: bool = typer.Option(
        False,
        "--withhold-suppressed",
        help="--generalized: rows whose every quasi-identifier is '*' (ARX's suppressed "
        "records) are withheld from the release and counted as suppressed, as ARX counts them.",
    ),
    data: DataOptions = DATA_OPTIONS,
    export_key_file: Path | None = EXPORT_KEY_FILE,
    published_format: str = PUBLISHED_FORMAT,
    force: bool = FORCE_OUT,
    as_json: bool = JSON,
) -> None:
    """Import a release made elsewhere (generalized CSV or QIT/ST pair) against its original.

    ARX's output imports as ARX writes it: ';'-separated (detected, or --sep) and labelled
    through the hierarchies given (--hierarchies, --hierarchy-set).
    """
    from anonlab.release_io import (
        import_bucketized,
        import_generalized,
        published_file_names,
        require_output_free,
        save_release,
    )

    if sep is not None:
        sep = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";"}.get(sep.lower(), sep)
        if len(sep) != 1:
            raise AnonlabError(
                f"--sep must be one character (e.g. ';' or ','; 'tab' for a tab), got {sep!r}"
            )
    if withhold_suppressed and generalized is None:
        raise AnonlabError("--withhold-suppressed applies to --generalized files only")
    require_output_free(out_dir, force)  # fail before any work
    published_file_names("generalization", published_format)  # a known format, before the work
    key = None if export_key_file is None else read_export_key(export_key_file)
    table = data.load(as_json=as_json, publishes=True)
    if generalized is not None and qit is None and st is None:
        release = import_generalized(
            generalized,
            table,
            group_column=group_column,
            sep=sep,
            withhold_suppressed=withhold_suppressed,
        )
    elif generalized is None and qit is not None and st is not None:
        release = import_bucketized(qit, st, table, group_column=group_column or "group", sep=sep)
    else:
        raise AnonlabError("give either --generalized FILE or both --qit FILE and --st FILE")
    if data.schema is not None:  # the schema's roles, types and builder specs (never the data)
        release.manifest["schema_file"] = schema_manifest(data.schema)
    save_release(release, out_dir, force=force, export_key=key, published_format=published_format)
    summary = {
        "out": str(out_dir),
        "scheme": release.scheme,
        "rows": release.table.n_rows,
        "groups": release.n_groups,
        "columns": column_summary(table),
    }
    suppressed = release.manifest.get("suppressed_records")
    if suppressed is not None:
        summary["suppressed_records"] = suppressed
    if release.levels is not None:
        summary["levels"] = dict(release.levels)
    if as_json:
        emit_json(summary)
    else:
        say(
            f"imported {release.table.n_rows:,} records in {release.n_groups:,} groups "
            f"({release.scheme})"
            + (f", {suppressed:,} suppressed records withheld" if suppressed is not None else "")
            + f" -> {out_dir}"
        )
