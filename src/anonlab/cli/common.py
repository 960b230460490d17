"""Shared pieces of the command line: the apps and command groups (:func:`command_group`),
opening a release for a command that can run on Dask (:func:`open_release_with_workers`), and
(re-exported) the consoles and printing (:mod:`.output`), the option vocabulary
(:mod:`.options`) and loading (:mod:`.loading`).

Command modules (``anonlab.cli.<topic>``) import from here and register their commands with
``register(app, attack_app)``; this module imports no command module, so there is no cycle.
"""

from __future__ import annotations

from pathlib import Path

import typer

from anonlab.cli.loading import (
    DATA_OPTIONS,
    DataOptions,
    data_separator,
    hierarchy_files,
    load_table,
    open_release,
    read_header,
    resample_manifest,
    schema_manifest,
    schema_sensitive_values,
    separator_note,
    takes_data_options,
    truth_from_data,
)
from anonlab.cli.options import (
    ATTACKED,
    AUDIT_OPTIONS,
    BOUNDS_DECIDE,
    BUDGET_OPTIONS,
    CHAINS,
    CLUSTER,
    DATA,
    DATASET,
    DROP_MISSING,
    EXPORT_KEY_FILE,
    FORCE_OUT,
    FORCE_OUT_FILE,
    FORCE_RECORDS,
    FOREGROUND_ATTRIBUTES,
    HIERARCHIES,
    HIERARCHY_SET,
    IDENTIFIERS,
    INSENSITIVE,
    JSON,
    K_MAX,
    MAX_RISK,
    MAX_SHARE_AT_RISK,
    MIN_EXP,
    PUBLISHED_FORMAT,
    QI,
    QUERIES,
    RECORDS,
    RELEASE_DIR,
    RESAMPLE,
    SCHEMA,
    SEED,
    SENSITIVE,
    SENSITIVE_VALUES,
    SWEEPS,
    TARGETS,
    TYPES,
    UNASSIGNED,
    VALUE_SETS,
    WORKERS,
    WORST_CASE_K,
    AuditOptions,
    audit_budget,
    check_group_sizes,
    check_workers_option,
    client_from_options,
    parse_levels,
    parse_types,
    require_cluster_for_written,
    split_list,
    takes_audit_options,
    takes_option_group,
)
from anonlab.cli.output import (
    Cell,
    add_column,
    add_row,
    column_lines,
    column_summary,
    counting_bar,
    drop_notes,
    emit_json,
    err,
    esc,
    flush_notes,
    format_value,
    jsonable,
    new_table,
    note,
    out,
    plain,
    print_measures,
    print_table,
    say,
    stage,
    styled,
)

app = typer.Typer(
    name="anonlab",
    help="Publish microdata without exposing the people in it: anonymize, check, measure.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def command_group(help: str) -> typer.Typer:
    """A group of subcommands (``anonlab attack``, ``anonlab rules``, ...) described by
    ``help``; given no subcommand, it prints its help."""
    return typer.Typer(help=help, no_args_is_help=True)


attack_app = command_group("Attacks on a release: what an adversary can infer.")

app.add_typer(attack_app, name="attack")


def open_release_with_workers(release_dir: Path, workers: int | None, sensitive: str | None = None):
    """The release at ``release_dir`` (:func:`open_release`, ``sensitive`` as it takes it), for
    a command that can run on Dask: ``--workers N`` is checked against this machine first
    (:func:`check_workers_option`, before any work)."""
    check_workers_option(workers)
    return open_release(release_dir, sensitive)


__all__ = [
    "AUDIT_OPTIONS",
    "BOUNDS_DECIDE",
    "BUDGET_OPTIONS",
    "CHAINS",
    "CLUSTER",
    "Cell",
    "DATA",
    "DATASET",
    "DATA_OPTIONS",
    "DROP_MISSING",
    "DataOptions",
    "EXPORT_KEY_FILE",
    "PUBLISHED_FORMAT",
    "FORCE_OUT",
    "FORCE_OUT_FILE",
    "FORCE_RECORDS",
    "ATTACKED",
    "FOREGROUND_ATTRIBUTES",
    "HIERARCHIES",
    "HIERARCHY_SET",
    "IDENTIFIERS",
    "INSENSITIVE",
    "JSON",
    "K_MAX",
    "MAX_RISK",
    "MAX_SHARE_AT_RISK",
    "MIN_EXP",
    "QI",
    "QUERIES",
    "RECORDS",
    "RELEASE_DIR",
    "RESAMPLE",
    "SCHEMA",
    "SEED",
    "SENSITIVE",
    "SENSITIVE_VALUES",
    "SWEEPS",
    "TARGETS",
    "TYPES",
    "UNASSIGNED",
    "VALUE_SETS",
    "WORKERS",
    "WORST_CASE_K",
    "AuditOptions",
    "add_column",
    "add_row",
    "app",
    "attack_app",
    "audit_budget",
    "check_group_sizes",
    "check_workers_option",
    "client_from_options",
    "column_lines",
    "column_summary",
    "command_group",
    "counting_bar",
    "data_separator",
    "drop_notes",
    "emit_json",
    "err",
    "esc",
    "flush_notes",
    "format_value",
    "hierarchy_files",
    "jsonable",
    "load_table",
    "new_table",
    "note",
    "open_release",
    "open_release_with_workers",
    "out",
    "parse_levels",
    "parse_types",
    "plain",
    "print_measures",
    "print_table",
    "read_header",
    "require_cluster_for_written",
    "resample_manifest",
    "say",
    "schema_manifest",
    "schema_sensitive_values",
    "separator_note",
    "split_list",
    "stage",
    "styled",
    "takes_audit_options",
    "takes_data_options",
    "takes_option_group",
    "truth_from_data",
]
