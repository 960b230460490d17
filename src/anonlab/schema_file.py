"""The schema file: every column's role, type, hierarchy and missing-value markers, in JSON.

A publisher describes a data file once, in a JSON file that ``anonlab init DATA`` drafts and
``anonlab anonymize --schema FILE`` (and every command that reads ``--data``) applies::

    {
      "format": "anonlab-schema",
      "format_version": 1,
      "columns": [
        {"name": "patient_id", "role": "identifier"},
        {"name": "zip", "role": "quasi-identifier", "type": "text",
         "hierarchy": {"builder": "prefix"}},
        {"name": "birth_date", "role": "quasi-identifier", "type": "date",
         "hierarchy": {"builder": "date", "levels": ["month", "year", "5-year"]}},
        {"name": "sex", "role": "quasi-identifier", "type": "categorical", "hierarchy": null},
        {"name": "icd10", "role": "sensitive", "type": "text", "missing": ["unknown"]},
        {"name": "length_of_stay", "role": "insensitive", "type": "integer"},
        {"name": "notes", "role": "drop"}
      ],
      "sensitive_values": ["C50.911"]
    }

Fields (the declared JSON Schema is :data:`SCHEMA`, validated with :mod:`jsonschema`):

``format``, ``format_version``
    ``"anonlab-schema"`` and ``1``.
``columns``
    One entry per column of the data, each column once. ``name`` and ``role`` are required:
    ``quasi-identifier`` (generalized), ``sensitive`` (the attributes protected: none for plain
    k-anonymity, one, or several, each checked and attacked on its own), ``insensitive``
    (published as it is), ``identifier`` (a direct identifier: dropped, never published) or
    ``drop`` (left out: not published, not used).
    ``type`` (optional; absent or null: inferred from the values, as without a schema) is one
    of ``text``, ``integer``, ``decimal``, ``categorical``, ``date``, ``datetime``
    (:class:`anonlab.schema.ColumnType`; dates in ISO 8601, :mod:`anonlab.dates`; a date
    quasi-identifier without a hierarchy gets the ``date`` builder's default levels).
    ``hierarchy`` (optional, only for a quasi-identifier or the sensitive attribute) is null,
    the path of an ARX-format CSV hierarchy, or a builder spec ``{"builder": NAME, ...}``
    (:mod:`anonlab.hierarchy_builders`: interval, date, prefix, order, mapping). ``missing``
    (optional) lists more cell values read as missing in that column, besides the usual ones
    (:data:`anonlab.table.MISSING_MARKERS`).
    ``value_sets`` (optional, ``true`` only for a quasi-identifier without a hierarchy): publish
    it as the set of each group's values, knowingly (``--value-sets``); without a hierarchy or
    this, a text quasi-identifier makes a generalized release refuse to be published.
    ``note`` (optional text) is for people: ``anonlab init`` writes why it guessed each role.
``sensitive_values`` (optional)
    Only these sensitive values are protected (as ``--sensitive-values``).
``note`` (optional text)
    For people; ignored.

Choices:

* Every column of the data must be in the schema and every schema column in the data: a
  column forgotten is never published by accident, and a schema written for another file is
  noticed. Both lists are named in one error.
* Relative paths (a hierarchy file, a ``mapping`` builder's ``file``) are resolved against the
  schema file's folder, so a schema and its hierarchies move together.
* Builders are built on the column's distinct values as the data is read (after missing values
  are dropped or refused), so a schema describes the data, never contains it; the release's
  manifest records the schema's columns and builder specs (:func:`manifest_entry`), not values.
* Unknown fields are errors (a misspelt ``hierachy`` would otherwise be ignored silently);
  ``note`` is the one free field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
from jsonschema.exceptions import ValidationError, best_match

from anonlab.errors import AnonlabError
from anonlab.hierarchy_builders import (
    BUILDERS,
    DEFAULT_DATE_LEVELS,
    automatic_interval_spec,
    builder_params,
)
from anonlab.manifest import (
    describe_got,
    describe_schema_error,
    field_path,
    parse_json,
    short_repr,
)
from anonlab.schema import ColumnType

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ROLES",
    "SCHEMA",
    "ColumnSpec",
    "SchemaFile",
    "read_schema_file",
    "validate_schema_file",
]

FORMAT = "anonlab-schema"
FORMAT_VERSION = 1

#: The roles a column may have in a schema file.
ROLES: tuple[str, ...] = ("quasi-identifier", "sensitive", "insensitive", "identifier", "drop")

#: Largest schema file read (a schema lists columns, not data).
MAX_BYTES = 10 * 1024 * 1024

_TYPES = [t.value for t in ColumnType]

#: The declared JSON Schema of a schema file (Draft 2020-12).
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "anonlab schema file",
    "type": "object",
    "required": ["format", "format_version", "columns"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": FORMAT, "description": f'"{FORMAT}"'},
        "format_version": {"const": FORMAT_VERSION, "description": str(FORMAT_VERSION)},
        "note": {"type": "string", "description": "text for people"},
        "columns": {
            "type": "array",
            "minItems": 1,
            "description": "a list of one object per column of the data",
            "items": {
                "type": "object",
                "required": ["name", "role"],
                "additionalProperties": False,
                "description": 'an object such as {"name": "zip", "role": "quasi-identifier"}',
                "properties": {
                    "name": {
                        "type": "string",
                        "minLength": 1,
                        "description": "a column name of the data",
                    },
                    "role": {"enum": list(ROLES), "description": f"one of {list(ROLES)}"},
                    "type": {
                        "enum": [*_TYPES, None],
                        "description": f"one of {_TYPES} or null (inferred)",
                    },
                    "hierarchy": {
                        "type": ["null", "string", "object"],
                        "description": 'null, a hierarchy CSV path or {"builder": NAME, ...}',
                    },
                    "value_sets": {
                        "type": "boolean",
                        "description": "true to publish a quasi-identifier without a hierarchy "
                        "as the set of each group's values (every member's exact value)",
                    },
                    "missing": {
                        "type": "array",
                        "items": {"type": "string", "description": "a cell value"},
                        "description": 'a list of cell values read as missing, e.g. ["?"]',
                    },
                    "note": {"type": "string", "description": "text for people"},
                },
            },
        },
        "sensitive_values": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "description": "a sensitive value"},
            "description": "a non-empty list of sensitive values",
        },
    },
}


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a schema file (``hierarchy`` as written: None, a path or a builder spec;
    a relative path is resolved by :meth:`SchemaFile.hierarchy_path` / builder reading)."""

    name: str
    role: str
    type: str | None = None
    hierarchy: str | dict[str, Any] | None = None
    missing: tuple[str, ...] = ()
    value_sets: bool = False


@dataclass(frozen=True)
class SchemaFile:
    """A validated schema file: its path (named in messages), columns and sensitive values."""

    path: Path
    columns: tuple[ColumnSpec, ...]
    sensitive_values: tuple[str, ...] | None = None

    @property
    def source(self) -> str:
        return str(self.path)

    def names(self, role: str) -> list[str]:
        """The columns with ``role``, in the file's order."""
        return [c.name for c in self.columns if c.role == role]

    @property
    def sensitive(self) -> list[str]:
        """The columns with role ``sensitive`` (none, one or several), in the file's order."""
        return self.names("sensitive")

    def types(self) -> dict[str, str]:
        """Declared types of the kept columns (quasi-identifiers, sensitive, insensitive)."""
        kept = ("quasi-identifier", "sensitive", "insensitive")
        return {c.name: c.type for c in self.columns if c.role in kept and c.type is not None}

    def resolve(self, value: str) -> Path:
        """A path written in the schema, relative ones against the schema file's folder."""
        p = Path(value).expanduser()
        return p if p.is_absolute() else self.path.parent / p

    def check_columns(self, columns: Sequence[str], data: str) -> None:
        """Every column of the data in the schema and every schema column in the data (one
        error listing both kinds of difference)."""
        ours = [c.name for c in self.columns]
        missing = [c for c in columns if c not in set(ours)]
        extra = [c for c in ours if c not in set(columns)]
        if not missing and not extra:
            return
        parts = []
        if missing:
            parts.append(
                f"column(s) of the data missing from the schema: {', '.join(map(repr, missing))} "
                "(add an entry for each, with role 'drop' to leave one out)"
            )
        if extra:
            parts.append(f"column(s) of the schema not in the data: {', '.join(map(repr, extra))}")
        raise AnonlabError(
            f"{self.source}: columns: the schema does not match {data} ({'; '.join(parts)}); "
            f"the data has columns {list(columns)}"
        )

    def hierarchies(self, values: Mapping[str, Sequence[object]]) -> dict[str, Any]:
        """The hierarchy of each column that has one: read from its file or built with
        :func:`~anonlab.hierarchy_builders.build_hierarchy` on ``values[name]`` (the column's
        distinct values). Errors name the schema file and the column's field."""
        from anonlab.hierarchy import Hierarchy
        from anonlab.hierarchy_builders import build_hierarchy

        out: dict[str, Any] = {}
        for i, c in enumerate(self.columns):
            if c.hierarchy is None or c.name not in values:
                continue
            where = f"{self.source}: columns[{i}].hierarchy"
            try:
                if isinstance(c.hierarchy, str):
                    path = self.resolve(c.hierarchy)
                    if not path.is_file():
                        raise AnonlabError(f"hierarchy file {str(path)!r} does not exist")
                    out[c.name] = Hierarchy.read_csv(path, name=c.name)
                    continue
                spec = dict(c.hierarchy)
                if spec.get("builder") == "mapping" and isinstance(spec.get("file"), str):
                    spec["file"] = str(self.resolve(spec["file"]))
                labels = np.asarray(values[c.name]).tolist()  # Python numbers or text
                out[c.name] = build_hierarchy(spec, labels, c.name)
            except AnonlabError as exc:
                raise AnonlabError(f"{where} (column {c.name!r}): {exc}") from None
        return out

    def manifest_entry(self) -> dict[str, Any]:
        """What a release's manifest records about the schema: each column's role, declared
        type and hierarchy as written (a builder spec or a file name), never the data."""
        columns = []
        for c in self.columns:
            entry: dict[str, Any] = {"name": c.name, "role": c.role, "type": c.type}
            if c.hierarchy is not None:
                entry["hierarchy"] = c.hierarchy
            if c.missing:
                entry["missing"] = list(c.missing)
            if c.value_sets:
                entry["value_sets"] = True
            columns.append(entry)
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "columns": columns}


def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(SCHEMA)


def _describe(error: ValidationError) -> tuple[list[str | int], str]:
    """The field path and message of one JSON Schema error, in the manifest's words."""
    return describe_schema_error(error, "as the schema file format says")


def _fail(source: str, path: Sequence[str | int], message: str) -> AnonlabError:
    where = field_path(path) if path else "(the schema file)"
    return AnonlabError(f"{source}: {where}: {message}")


def validate_schema_file(obj: object, source: str) -> SchemaFile:
    """Check a parsed schema file and return it as a :class:`SchemaFile`.

    Raises
    ------
    AnonlabError
        Naming ``source``, the field path and what would be valid, e.g.
        ``schema.json: columns[2].role: 'secret' is not one of ['quasi-identifier', ...]``;
        besides the JSON Schema: a column named twice, more than one sensitive column, a
        hierarchy on a column that is not a quasi-identifier or the sensitive attribute, an
        unknown builder or builder parameter, ``sensitive_values`` without a sensitive column.
    """
    if not isinstance(obj, dict):
        raise AnonlabError(
            f'{source}: a schema file must be a JSON object with "format": "{FORMAT}", '
            f'"format_version": {FORMAT_VERSION} and "columns", got {describe_got(obj)}'
        )
    if "format" in obj and obj["format"] != FORMAT:
        raise _fail(
            source, ["format"], f'{short_repr(obj["format"])} is not "{FORMAT}": not a schema file'
        )
    try:
        error = best_match(_validator().iter_errors(obj))
    except RecursionError:
        raise AnonlabError(f"{source}: a value is nested too deeply for a schema file") from None
    if error is not None:
        path, message = _describe(error)
        raise _fail(source, path, message)
    seen: dict[str, int] = {}
    columns = []
    for i, c in enumerate(obj["columns"]):
        name = c["name"]
        if name in seen:
            raise _fail(
                source,
                ["columns", i, "name"],
                f"column {name!r} is listed twice (also at "
                f"columns[{seen[name]}]); each column has one entry",
            )
        seen[name] = i
        hierarchy = c.get("hierarchy")
        if hierarchy is not None:
            if c["role"] not in ("quasi-identifier", "sensitive"):
                raise _fail(
                    source,
                    ["columns", i, "hierarchy"],
                    f"column {name!r} has role {c['role']!r}; only a quasi-identifier or the "
                    "sensitive attribute has a hierarchy (set it to null)",
                )
            if isinstance(hierarchy, str) and not hierarchy.strip():
                raise _fail(source, ["columns", i, "hierarchy"], "must not be an empty path")
            if isinstance(hierarchy, dict):
                _check_builder(hierarchy, source, ["columns", i, "hierarchy"])
        if c.get("value_sets"):
            if c["role"] != "quasi-identifier" or hierarchy is not None:
                raise _fail(
                    source,
                    ["columns", i, "value_sets"],
                    f"column {name!r}: value_sets applies to a quasi-identifier without a "
                    "hierarchy (it says how to publish one that has none)",
                )
        columns.append(
            ColumnSpec(
                name=name,
                role=c["role"],
                type=c.get("type"),
                hierarchy=hierarchy,
                missing=tuple(c.get("missing") or ()),
                value_sets=bool(c.get("value_sets")),
            )
        )
    sensitive = [c.name for c in columns if c.role == "sensitive"]
    values = obj.get("sensitive_values")
    if values is not None and not sensitive:
        raise _fail(source, ["sensitive_values"], "given but no column has role 'sensitive'")
    if values is not None and len(sensitive) > 1:
        raise _fail(
            source,
            ["sensitive_values"],
            f"protects values of one sensitive attribute and {len(sensitive)} columns have role "
            f"'sensitive' ({', '.join(map(repr, sensitive))}); remove sensitive_values (every "
            "value of each is protected) or keep one column 'sensitive'",
        )
    return SchemaFile(Path(source), tuple(columns), None if values is None else tuple(values))


def _check_builder(spec: Mapping[str, Any], source: str, path: list[str | int]) -> None:
    """A builder spec's name and parameter names (values are checked when it is built)."""
    builder = spec.get("builder")
    if builder not in BUILDERS:
        raise _fail(
            source,
            [*path, "builder"],
            f"{short_repr(builder) if builder is not None else 'missing'}: not a hierarchy "
            f"builder; valid builders are {list(BUILDERS)}",
        )
    allowed = builder_params(str(builder))
    for key in spec:
        if key != "builder" and key not in allowed:
            raise _fail(
                source,
                [*path, key],
                f"unknown parameter of the {builder} builder; valid parameters are {list(allowed)}",
            )


def read_schema_file(path: str | Path, option: str = "--schema") -> SchemaFile:
    """Read and validate a schema file (UTF-8 JSON, duplicate keys refused); errors name the
    file (and ``option`` when it cannot be read at all)."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise AnonlabError(f"{option} {source!r} does not exist or is not a file")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise AnonlabError(
                f"{option} {source!r} is larger than {MAX_BYTES // (1024 * 1024)} MiB; a schema "
                "file lists columns, not data"
            )
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise AnonlabError(f"{option} {source!r} cannot be read: {reason}") from None
    obj = parse_json(
        text, source, "schema file", "a schema file is JSON (write one with `anonlab init DATA`)"
    )
    return validate_schema_file(obj, source)


def dump_schema(obj: Mapping[str, Any]) -> str:
    """A schema file's text: indented JSON, one column per block, ending with a newline."""
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------- drafting (anonlab init)
_DRAFT_NOTE = (
    "Drafted by `anonlab init` from {data}. The roles are GUESSES to review: 'quasi-identifier' "
    "is a placeholder for every column not taken for an identifier; mark the sensitive "
    "attribute (role 'sensitive'), columns to publish as they are ('insensitive'), direct "
    "identifiers ('identifier') and columns to leave out ('drop'); check each type and "
    "hierarchy. Then: anonlab anonymize --data {data} --schema THIS_FILE ..."
)

#: Date levels a drafted ``date`` builder uses (the builder's default, written out to edit).
DRAFT_DATE_LEVELS = list(DEFAULT_DATE_LEVELS)

#: Bands a drafted ``interval`` builder aims at over the column's range.
DRAFT_BANDS = 10


@dataclass(frozen=True)
class Suggestion:
    """What ``anonlab init`` decided about one column, and why (shown and written)."""

    name: str
    type: str
    type_note: str
    role: str
    hierarchy: dict[str, Any] | None
    why: str


#: Values of an all-distinct column that the draft looks at (see :func:`draft_schema`).
DRAFT_SAMPLE = 1000


def draft_schema(table: Any, data: str) -> tuple[dict[str, Any], list[Suggestion]]:
    """A draft schema file for a table read with every column kept (types as the reader
    decided them: :attr:`anonlab.table.Table.types`) and the decisions behind it.

    Role rules (guesses, stated as such in the file and the output):

    * ``identifier``: every value distinct (at least 2 rows), and the column text, categorical
      or integer but not dates: ids (``P00017``, 1..n) and names are unique per person, and a
      unique text column is as identifying as a name whatever it holds;
    * ``quasi-identifier`` otherwise, as a placeholder: anonlab cannot tell which attribute is
      sensitive or may be published as it is.

    A column whose values are all distinct is judged on its first :data:`DRAFT_SAMPLE` values
    (the guess needs only to tell dates from ids; a whole column of unique ids made ``init``
    twice as slow).

    Builder rules, for each quasi-identifier (:func:`~anonlab.hierarchy_builders.fitting_builders`
    on its distinct values):

    * every value an ISO date or datetime: ``date`` with levels month, year, 5-year;
    * text codes of one length of at least 2 letters or digits (zip codes, fixed-width codes,
      leading zeros kept by the reader): ``prefix`` (one more character masked per level);
    * integers or decimals: ``interval`` with a width of 1, 2 or 5 times a power of ten that
      cuts the range into at most :data:`DRAFT_BANDS` bands (bands merged two by two above);
    * other text: ``suppress`` (a value or ``*``), with a note naming the builders that fit
      (``order`` or ``mapping`` give finer levels to someone who knows what the values mean);
      never null, which would make a generalized release refuse to be published.
    """
    from anonlab.hierarchy_builders import fitting_builders

    suggestions = []
    n_rows = int(table.n_rows)
    for a in table.schema.attributes:
        name = a.name
        decided = table.types.get(name) or {}
        kind = str(decided.get("type", "categorical"))
        type_note = f"{decided.get('how', 'inferred')}" + (
            f": {decided['note']}" if decided.get("note") else ""
        )
        values = np.asarray(table.values[name]).tolist()
        labels = [_label_text(v) for v in values]
        distinct = len(labels)
        unique = n_rows >= 2 and distinct == n_rows
        # an all-distinct column (an id, a name) is judged on its first values: the builders
        # that fit matter only to tell dates from ids, and all 1,000,000 took 6 of init's 13 s
        fits = fitting_builders(labels[:DRAFT_SAMPLE] if unique else labels)
        if unique and kind != "decimal" and "date" not in fits:
            suggestions.append(
                Suggestion(
                    name,
                    kind,
                    type_note,
                    "identifier",
                    None,
                    f"all {n_rows:,} values distinct: looks like an id or a name (dropped, "
                    "never published)",
                )
            )
            continue
        hierarchy, why = _draft_hierarchy(kind, values, labels, fits)
        suggestions.append(
            Suggestion(name, kind, type_note, "quasi-identifier", hierarchy, f"placeholder; {why}")
        )
    columns = []
    for s in suggestions:
        columns.append(
            {
                "name": s.name,
                "role": s.role,
                "type": s.type,
                "hierarchy": s.hierarchy,
                "note": f"guessed: {s.why}",
            }
        )
    draft = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "note": _DRAFT_NOTE.format(data=data),
        "columns": columns,
    }
    validate_schema_file(draft, "the draft")  # what init writes, anonymize reads
    return draft, suggestions


def _label_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _draft_hierarchy(
    kind: str, values: list, labels: list[str], fits: tuple[str, ...]
) -> tuple[dict[str, Any] | None, str]:
    """The builder ``anonlab init`` suggests for a quasi-identifier, and why."""
    if "date" in fits:
        return (
            {"builder": "date", "levels": list(DRAFT_DATE_LEVELS)},
            "ISO dates: generalized to " + ", ".join(DRAFT_DATE_LEVELS),
        )
    width = len(labels[0]) if labels else 0
    alnum = all(t.isascii() and t.isalnum() for t in labels)
    if kind == "text" and "prefix" in fits and width >= 2 and alnum:
        return (
            {"builder": "prefix"},
            f"codes of {width} characters (e.g. {labels[0]!r}): masked from the right, one "
            "more character per level",
        )
    if kind in ("integer", "decimal") and "interval" in fits:
        lo, hi = float(min(values)), float(max(values))
        spec = automatic_interval_spec(values, integer=kind == "integer", bands=DRAFT_BANDS)
        return (
            spec,
            f"numbers from {_label_text(lo)} to {_label_text(hi)}: bands of {spec['width']}",
        )
    few = f"{len(labels):,} distinct value{'s' if len(labels) != 1 else ''}"
    return (
        {"builder": "suppress"},
        f"{few}: each value or * (a group of several values publishes *); a finer hierarchy "
        "needs to know what the values mean (builders that fit: " + ", ".join(fits) + ")",
    )
