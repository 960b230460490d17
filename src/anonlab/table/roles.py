"""Roles and missing values: which columns a table keeps, under which role, and which cells are
missing.

The roles named by the caller are checked against the columns (:func:`check_roles`: every column
named exists, none has two roles, none takes a name anonlab keeps for its own columns, and with
``unassigned="error"`` every column has a role); a cell is missing when it is NaN or, in a
non-numeric column, one of :data:`MISSING_MARKERS` or of the column's own markers once stripped
of blanks (:func:`missing_mask`). :meth:`Table.from_frame <anonlab.table.Table.from_frame>` and
the chunked readers (:func:`anonlab.table.chunked.from_chunks`) share these checks and their
messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.schema import Role
from anonlab.table.column_types import stripped_text

#: Column names anonlab uses for itself in a release's publisher records file
#: (``publisher/records.parquet``, see :mod:`anonlab.release_io`): the input row id, the group
#: id and, where an algorithm perturbs them, the published sensitive values. A data column may
#: not be given a role under one of these names (it would be overwritten on save, or read back as
#: anonlab's own column); :func:`check_roles` refuses it. Defined here, not in release_io, so
#: that both modules see them without an import cycle.
ROW_ID_COLUMN = "__row_id__"
GROUP_ID_COLUMN = "__group__"
PUBLISHED_SENSITIVE_COLUMN = "__published_sensitive__"
RESERVED_COLUMNS = (ROW_ID_COLUMN, GROUP_ID_COLUMN, PUBLISHED_SENSITIVE_COLUMN)

#: Strings read as a missing value (UCI's '?' among them).
MISSING_MARKERS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")

#: The errors for a table with no row, and for one whose every row has a missing value that
#: ``drop_missing`` removed (the same words from the whole-frame and the chunked readers).
EMPTY_MESSAGE = "the table is empty (0 rows); nothing to anonymize"
ALL_MISSING_MESSAGE = "every row has a missing value; nothing is left to anonymize"


#: The CLI option of each role, for messages.
ROLE_OPTIONS = {
    "quasi-identifier": "--qi",
    "sensitive": "--sensitive",
    "insensitive": "--insensitive",
    "identifier": "--identifiers",
}
UNASSIGNED_CHOICES = ("drop", "error")


def sensitive_names(sensitive: str | Sequence[str] | None) -> list[str]:
    """The sensitive attributes named by ``sensitive``: none (None or empty), one (a column
    name) or several (a sequence of names, e.g. ``["diagnosis", "insurer"]``), in order."""
    if sensitive is None:
        return []
    if isinstance(sensitive, str):
        return [sensitive] if sensitive else []
    if not isinstance(sensitive, list | tuple):  # a set has no order, an iterator runs out
        raise AnonlabError(
            f"sensitive must be a column name or a list of names, got {type(sensitive).__name__}"
        )
    names = list(sensitive)
    for name in names:
        if not isinstance(name, str):
            raise AnonlabError(
                f"sensitive must name columns (str, or a list of str), got {name!r} in {names}"
            )
    return names


def check_roles(
    columns: list[str],
    quasi_identifiers: list[str],
    sensitive: str | Sequence[str] | None,
    insensitive: list[str],
    identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    unassigned: str = "drop",
) -> list[str]:
    """Validate the roles against the columns; return the kept columns in role order.

    ``sensitive`` may name one column or several (:func:`sensitive_names`). Every column named
    must exist; a column named under two roles (or twice under one) is an error naming it and
    both roles; with ``unassigned="error"`` every column given no role is
    listed in one error with the options that give one.
    """
    if unassigned not in UNASSIGNED_CHOICES:
        raise AnonlabError(
            f"unassigned must be one of {', '.join(UNASSIGNED_CHOICES)}, got {unassigned!r}"
        )
    if not quasi_identifiers:
        raise AnonlabError("no quasi-identifier given; name at least one (--qi a,b,c)")
    sensitive = sensitive_names(sensitive)
    named = (
        [(q, "quasi-identifier") for q in quasi_identifiers]
        + [(s, "sensitive") for s in sensitive]
        + [(c, "insensitive") for c in insensitive]
        + [(c, "identifier") for c in identifiers]
    )
    for name, _ in named:
        if name not in columns:
            raise AnonlabError(f"unknown column {name!r}; the data has columns {columns}")
    roles: dict[str, str] = {}
    for name, role in named:
        if name in roles:
            first = roles[name]
            both = (
                f"twice as {role} ({ROLE_OPTIONS[role]})"
                if first == role
                else f"two roles: {first} ({ROLE_OPTIONS[first]}) and {role} ({ROLE_OPTIONS[role]})"
            )
            raise AnonlabError(
                f"column {name!r} is given more than one role ({both}); give each column one role"
            )
        roles[name] = role
    for name in hierarchies:
        if name not in columns:
            raise AnonlabError(f"hierarchy given for unknown column {name!r}")
    kept = quasi_identifiers + sensitive + insensitive
    for name in kept:
        if name in RESERVED_COLUMNS:
            raise AnonlabError(
                f"column {name!r} has a name anonlab keeps for its own columns "
                f"({', '.join(RESERVED_COLUMNS)}); rename the column in the data"
            )
    if unassigned == "error":
        left = [c for c in columns if c not in roles]
        if left:
            raise AnonlabError(unassigned_message(left))
    return kept


def unassigned_message(columns: Sequence[str]) -> str:
    """The error for columns given no role under ``--unassigned error``."""
    return (
        f"{len(columns)} column(s) have no role: {', '.join(columns)}. Give each one: "
        "--qi (quasi-identifier), --sensitive, --insensitive (published as it is) or "
        "--identifiers (dropped, never published); or --unassigned drop to leave them out "
        "of the release"
    )


def dropped_columns(columns: Sequence[str], kept: Sequence[str], identifiers: Sequence[str]):
    """``Table.dropped``'s columns: those given no role, and (if any) the identifiers."""
    ids = set(identifiers)
    dropped: dict = {"columns": [c for c in columns if c not in kept and c not in ids]}
    if ids:
        dropped["identifiers"] = [c for c in columns if c in ids]
    return dropped


def role_of(
    name: str, quasi_identifiers: Sequence[str], sensitive: str | Sequence[str] | None
) -> Role:
    """The role of kept column ``name``: quasi-identifier if named one, sensitive if it is
    one of ``sensitive`` (:func:`sensitive_names`), else insensitive (the roles checked by
    :func:`check_roles`)."""
    if name in quasi_identifiers:
        return Role.QUASI_IDENTIFIER
    return Role.SENSITIVE if name in sensitive_names(sensitive) else Role.INSENSITIVE


def missing_mask(
    frame: pd.DataFrame,
    stripped: Mapping[str, pd.Series] | None = None,
    extra: Mapping[str, Sequence[str]] | None = None,
):
    """NaN, and in a non-numeric column a missing-value marker (after stripping blanks): one of
    :data:`MISSING_MARKERS` or of the column's ``extra`` markers.

    ``stripped``: the non-numeric columns already as stripped text (computed here if None).
    """
    missing = frame.isna()
    for name in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[name]):
            text = stripped_text(frame[name]) if stripped is None else stripped[name]
            missing[name] |= text.isin(markers_of(name, extra))
    return missing


def markers_of(name: str, extra: Mapping[str, Sequence[str]] | None) -> list[str]:
    """The missing-value markers of column ``name``: the usual ones and its ``extra`` ones."""
    more = [] if extra is None else [str(m).strip() for m in extra.get(name, ())]
    return [*MISSING_MARKERS, *more]


def check_missing(missing: object, kept: Sequence[str]) -> dict[str, list[str]]:
    """``missing`` (more markers per column) as a dict; an error names a column not kept."""
    if missing is None:
        return {}
    if not isinstance(missing, Mapping):
        raise AnonlabError(
            f"missing must map column names to lists of markers, got {type(missing).__name__}"
        )
    out = {}
    for name, markers in missing.items():
        if str(name) not in kept:
            raise AnonlabError(
                f"missing: markers are given for {str(name)!r}, which is not a column kept "
                f"(the kept columns are {list(kept)})"
            )
        if isinstance(markers, str) or not isinstance(markers, Iterable):
            raise AnonlabError(f"missing: the markers of {str(name)!r} must be a list of strings")
        out[str(name)] = [str(m) for m in markers]
    return out


def missing_message(bad: Mapping[str, int], first: Mapping[str, list]) -> str:
    """The error for missing values that are not dropped: ``bad`` the number missing per
    column (in column order), ``first`` the first (up to five) 1-based rows of each."""
    where = "; ".join(
        f"column {c!r}: {n} missing (rows {', '.join(map(str, first[c]))}"
        f"{', ...' if n > 5 else ''})"
        for c, n in bad.items()
    )
    return (
        f"missing values in the data: {where}. Drop those rows with drop_missing=True "
        "(CLI: --drop-missing), or fill them in"
    )
