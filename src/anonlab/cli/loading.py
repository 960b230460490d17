"""Loading what a command reads: the original table from --dataset/--data with its roles
(:class:`DataOptions`, :func:`load_table`, schema files, hierarchy folders) and release
folders (:func:`open_release`, :func:`truth_from_data`)."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.cli.options import (
    DATA,
    DATASET,
    DROP_MISSING,
    HIERARCHIES,
    HIERARCHY_SET,
    IDENTIFIERS,
    INSENSITIVE,
    QI,
    SCHEMA,
    SENSITIVE,
    TYPES,
    UNASSIGNED,
    VALUE_SETS,
    parse_types,
    split_list,
)
from anonlab.cli.output import (
    column_lines,
    note,
)
from anonlab.errors import AnonlabError


@dataclass(frozen=True)
class DataOptions:
    """The options that say which table a command reads and each column's role, type and
    hierarchy: one definition for every command that loads the original table
    (:func:`takes_data_options`); :meth:`load` is :func:`load_table` with them."""

    dataset: str | None = None
    data: Path | None = None
    qi: str | None = None
    sensitive: str | None = None
    insensitive: str | None = None
    identifiers: str | None = None
    unassigned: str = "drop"
    types: str | None = None
    value_sets: str | None = None
    schema: Path | None = None
    hierarchies: Path | None = None
    hierarchy_set: str | None = None
    drop_missing: bool = False

    def load(self, **options: Any):
        """:func:`load_table` with these options and ``options`` (``as_json``, ``publishes``,
        ``resample``, ``seed``, ``algorithm``, ``memory_check``)."""
        return load_table(
            self.dataset,
            self.data,
            self.qi,
            self.sensitive,
            self.hierarchies,
            self.hierarchy_set,
            self.drop_missing,
            insensitive=self.insensitive,
            identifiers=self.identifiers,
            unassigned=self.unassigned,
            types=self.types,
            schema=self.schema,
            value_sets=self.value_sets,
            **options,
        )


#: The default of a command's ``data: DataOptions`` parameter (replaced by the options of
#: :func:`takes_data_options`; Python wants a default after the command's own options).
DATA_OPTIONS = DataOptions()


def takes_data_options(*, leave_out: Sequence[str] = ()) -> Callable:
    """Decorate a command whose function takes ``data: DataOptions``: the command line gets
    every option of :class:`DataOptions` (but ``leave_out``) in their one definition
    (``--dataset``, ``--data``, ``--qi``, ...), and the function one ``DataOptions``.

    Typer reads the returned function's signature: the command's own parameters, with the data
    options in the place of ``data``."""
    definitions = {
        "dataset": (DATASET, str | None),
        "data": (DATA, Path | None),
        "qi": (QI, str | None),
        "sensitive": (SENSITIVE, str | None),
        "insensitive": (INSENSITIVE, str | None),
        "identifiers": (IDENTIFIERS, str | None),
        "unassigned": (UNASSIGNED, str),
        "types": (TYPES, str | None),
        "value_sets": (VALUE_SETS, str | None),
        "schema": (SCHEMA, Path | None),
        "hierarchies": (HIERARCHIES, Path | None),
        "hierarchy_set": (HIERARCHY_SET, str | None),
        "drop_missing": (DROP_MISSING, bool),
    }
    names = [n for n in definitions if n not in leave_out]

    def decorate(fn: Callable) -> Callable:
        hints = typing.get_type_hints(fn)  # the module's own names (annotations are strings)
        signature = inspect.signature(fn)
        params: list[inspect.Parameter] = []
        for param in signature.parameters.values():
            if param.name != "data":
                params.append(param.replace(annotation=hints.get(param.name, param.annotation)))
                continue
            for name in names:
                option, annotation = definitions[name]
                params.append(
                    inspect.Parameter(
                        f"data_{name}" if name == "data" else name,
                        inspect.Parameter.POSITIONAL_OR_KEYWORD,
                        default=option,
                        annotation=annotation,
                    )
                )

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            given = {n: kwargs.pop(f"data_{n}" if n == "data" else n) for n in names}
            return fn(data=DataOptions(**given), **kwargs)

        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=params, return_annotation=None
        )
        command.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
        return command

    return decorate


def load_table(
    dataset: str | None,
    data: Path | None,
    qi: str | None,
    sensitive: str | None,
    hierarchies: Path | None = None,
    hierarchy_set: str | None = None,
    drop_missing: bool = False,
    resample: int | None = None,
    seed: int = 0,
    algorithm: str | None = None,
    memory_check: bool = True,
    *,
    insensitive: str | None = None,
    identifiers: str | None = None,
    unassigned: str = "drop",
    types: str | None = None,
    as_json: bool | None = None,
    publishes: bool = False,
    schema: Path | None = None,
    value_sets: str | None = None,
):
    """The original table from ``--dataset`` or ``--data`` with the given roles.

    ``insensitive`` and ``identifiers`` are the comma-separated ``--insensitive`` and
    ``--identifiers``; ``unassigned`` is ``--unassigned`` (``drop`` or ``error``) and ``types``
    the ``--types`` text (``zip=text,age=integer``). With ``as_json=False`` the decisions about
    the columns are printed after the command's output if it succeeds (:func:`column_lines`,
    :func:`note`: every type of a
    ``--data`` file, the columns given no role, the identifiers dropped); a command run with
    ``--json`` puts :func:`column_summary` in its JSON instead. None prints nothing.
    ``publishes``: the command writes a release (the unassigned columns are "not published").
    ``value_sets`` is ``--value-sets`` (comma-separated quasi-identifiers published as value
    sets by choice; :meth:`anonlab.table.Table.from_frame`).

    ``schema`` is ``--schema FILE`` (:mod:`anonlab.schema_file`): every column's role, type,
    hierarchy (a file or a builder, built on the column's distinct values) and extra
    missing-value markers come from it; it applies to ``--data`` only, and giving it with
    ``--qi``, ``--sensitive``, ``--insensitive``, ``--identifiers``, ``--types``,
    ``--hierarchies`` or ``--hierarchy-set`` is an error naming the clash (one source of truth
    for the roles).

    With ``resample=N``: N records drawn with replacement (:meth:`Table.resample`, seeded by
    ``seed``); state it in the manifest with :func:`resample_manifest`. Before drawing, N is
    checked against the memory available (:func:`anonlab.resources.check_resample`, counting
    ``algorithm``'s work when given) unless ``memory_check`` is False.
    """
    if sensitive is not None and "," in sensitive:  # several: --sensitive diagnosis,insurer
        given = sensitive
        sensitive = split_list(given)
        if sensitive is None:
            raise AnonlabError(f"--sensitive {given!r} names no column (e.g. --sensitive dx,ins)")
    if resample is not None and (isinstance(resample, bool) or resample < 1):
        raise AnonlabError(f"--resample must be a positive number of rows, got {resample}")
    if unassigned not in ("drop", "error"):
        raise AnonlabError(f"--unassigned must be 'drop' or 'error', got {unassigned!r}")
    if schema is not None:
        given = {
            "--dataset": dataset,
            "--qi": qi,
            "--sensitive": sensitive,
            "--insensitive": insensitive,
            "--identifiers": identifiers,
            "--types": types,
            "--hierarchies": hierarchies,
            "--hierarchy-set": hierarchy_set,
            "--value-sets": value_sets,
        }
        clash = [option for option, value in given.items() if value is not None]
        if clash:
            raise AnonlabError(
                f"--schema {str(schema)!r} gives every column's role, type and hierarchy; do not "
                f"also give {', '.join(clash)} (edit the schema file instead, or drop --schema)"
            )
        if data is None:
            raise AnonlabError("--schema describes a --data file; give --data FILE")
        table = _load_with_schema(data, schema, drop_missing)
    else:
        roles = {
            "insensitive": split_list(insensitive) or [],
            "identifiers": split_list(identifiers) or [],
            "unassigned": unassigned,
            "types": parse_types(types),
            "value_sets": split_list(value_sets) or [],
        }
        table = _load_table(
            dataset, data, qi, sensitive, hierarchies, hierarchy_set, drop_missing, roles
        )
    if as_json is False:
        lines = column_lines(table, types=data is not None, publishes=publishes, schema=schema)
        for line in [separator_note(data), *lines]:
            if line is not None:
                note(line)
    if resample is None:
        return table
    from anonlab.resources import check_resample

    check_resample(resample, len(table.schema.attributes), algorithm, override=not memory_check)
    return table.resample(resample, seed)


def resample_manifest(resample: int, seed: int, dataset: str | None, data: Path | None) -> dict:
    """What ``manifest["resample"]`` says: rows drawn, the seed, and the source drawn from."""
    return {
        "rows": int(resample),
        "seed": int(seed),
        "source": dataset if dataset is not None else str(data),
        "with_replacement": True,
    }


def _load_table(dataset, data, qi, sensitive, hierarchies, hierarchy_set, drop_missing, roles=None):
    from anonlab.hierarchy import Hierarchy
    from anonlab.table import Table

    roles = roles or {
        "insensitive": [],
        "identifiers": [],
        "unassigned": "drop",
        "types": None,
        "value_sets": [],
    }
    if (dataset is None) == (data is None):
        raise AnonlabError("give exactly one of --dataset NAME and --data FILE")
    qi_list = split_list(qi)
    hier: dict = {}
    if hierarchies is not None:
        if not hierarchies.is_dir():
            raise AnonlabError(f"--hierarchies {str(hierarchies)!r} is not a folder")
        if data is not None:
            wanted = set(read_header(data, data.suffix.lower() in (".parquet", ".pq")))
        else:
            from anonlab import datasets

            wanted = set(datasets.info(dataset).columns)  # from the catalog, not the data
        for name, f in hierarchy_files(hierarchies, wanted).items():
            hier[name] = Hierarchy.read_csv(f, name=name)
    if dataset is not None:
        from anonlab import datasets

        if roles["types"]:
            raise AnonlabError(
                "--types applies to --data; a bundled dataset's column types are fixed by its "
                "catalog (see `anonlab datasets`)"
            )
        if qi_list is None and sensitive is not None:
            qi_list = list(datasets.info(dataset).default_qi)
        table = Table.from_dataset(
            dataset,
            quasi_identifiers=qi_list,
            sensitive=sensitive,
            insensitive=roles["insensitive"],
            identifiers=roles["identifiers"],
            hierarchy_set=hierarchy_set,
        )
        if hier:
            dropped = table.dropped
            table = table.with_roles(table.quasi_identifiers, table.sensitive_attributes, hier)
            table.dropped = dropped  # the identifiers dropped stay named
        if roles["value_sets"]:
            table = table.with_value_sets(roles["value_sets"])
        return table
    if qi_list is None:
        raise AnonlabError("--qi is required with --data (e.g. --qi age,sex,zipcode)")
    # Chunked reading: the peak is the codes plus one chunk, not the file's text
    parquet = data.suffix.lower() in (".parquet", ".pq")
    columns = read_header(data, parquet)
    reader = Table.from_parquet if parquet else partial(Table.from_csv, sep=data_separator(data))
    return reader(
        data,
        quasi_identifiers=qi_list,
        sensitive=sensitive,
        insensitive=roles["insensitive"],
        identifiers=roles["identifiers"],
        hierarchies={k: v for k, v in hier.items() if k in columns},
        drop_missing=drop_missing,
        types=roles["types"],
        unassigned=roles["unassigned"],
        value_sets=roles["value_sets"],
    )


def _load_with_schema(data: Path, schema: Path, drop_missing: bool):
    """The table of ``--data`` as ``--schema`` describes it (see :func:`load_table`).

    The file is read once, in chunks as without a schema, with the schema's roles, types and
    extra ``missing`` markers; then the hierarchies are read or built on each column's distinct
    values and the table is given them (:meth:`Table.with_roles`)."""
    from anonlab.schema_file import read_schema_file
    from anonlab.table import MISSING_MARKERS, Table

    spec = read_schema_file(schema)
    parquet = data.suffix.lower() in (".parquet", ".pq")
    spec.check_columns(read_header(data, parquet), f"--data {str(data)!r}")
    sep = {} if parquet else {"sep": data_separator(data)}
    qi = spec.names("quasi-identifier")
    if not qi:
        raise AnonlabError(
            f"{spec.source}: columns: no column has role 'quasi-identifier'; give at least one "
            "(the attributes an attacker can link to outside data)"
        )
    options = {
        "quasi_identifiers": qi,
        "sensitive": spec.sensitive,
        "insensitive": spec.names("insensitive"),
        "identifiers": spec.names("identifier"),
        "drop_missing": drop_missing,
        "types": spec.types() or None,
        "unassigned": "drop",  # role 'drop': every column has a role in a schema
        "value_sets": [c.name for c in spec.columns if c.value_sets],
    }
    kept = {*qi, *options["insensitive"], *spec.sensitive}
    markers = {c.name: sorted(set(c.missing) - set(MISSING_MARKERS)) for c in spec.columns}
    options["missing"] = {k: v for k, v in markers.items() if v and k in kept}
    reader = Table.from_parquet if parquet else Table.from_csv
    table = reader(data, **options, **sep)
    wanted = [*table.quasi_identifiers, *table.sensitive_attributes]
    hierarchies = spec.hierarchies({name: table.values[name] for name in wanted})
    if hierarchies:
        dropped = table.dropped
        try:
            table = table.with_roles(
                table.quasi_identifiers, table.sensitive_attributes, hierarchies
            )
        except AnonlabError as exc:
            raise AnonlabError(f"{spec.source}: {exc}") from None
        table.dropped = dropped  # the identifiers and 'drop' columns stay named
    return table


def schema_sensitive_values(option: str | None, schema: Path | None) -> list[str] | None:
    """The sensitive values protected: ``--sensitive-values``, else the schema file's
    ``sensitive_values``; both given is an error (one source of truth)."""
    given = split_list(option)
    if schema is None:
        return given
    from anonlab.schema_file import read_schema_file

    spec = read_schema_file(schema)
    if given is not None and spec.sensitive_values is not None:
        raise AnonlabError(
            f"--sensitive-values is given and {spec.source} has sensitive_values; give one"
        )
    return given if given is not None else list(spec.sensitive_values or []) or None


def schema_manifest(schema: Path | None) -> dict | None:
    """What a release's manifest records about ``--schema`` (its roles, types and builder
    specs, :meth:`anonlab.schema_file.SchemaFile.manifest_entry`), or None without one."""
    if schema is None:
        return None
    from anonlab.schema_file import read_schema_file

    return read_schema_file(schema).manifest_entry()


def data_separator(path: Path) -> str:
    """The field separator of a ``--data`` CSV, detected from its header line
    (:func:`anonlab.release_io.detect_separator`: ``,`` unless another of ``;``, tab, ``|``
    occurs more often there; ARX writes ``;``). Commands print it when it is not ``,``."""
    from anonlab.release_io import detect_separator

    return detect_separator(path)


def separator_note(path: Path | None) -> str | None:
    """The line a command prints when ``--data`` is not comma-separated, else None."""
    if path is None or path.suffix.lower() in (".parquet", ".pq"):
        return None
    sep = data_separator(path)
    if sep == ",":
        return None
    shown = "tab" if sep == "\t" else repr(sep)
    return f"--data {str(path)!r}: {shown}-separated (detected from its header line)"


def hierarchy_files(folder: Path, columns: set[str]) -> dict[str, Path]:
    """The hierarchy files of a ``--hierarchies`` folder for ``columns``: ``COLUMN.csv``, or
    ARX's ``NAME_hierarchy_COLUMN.csv`` (as ARX's examples name them:
    ``adult_hierarchy_age.csv``); a file whose name is a column's is that column's. Files for
    other names (ARX's data file beside its hierarchies, say) are left out."""
    out: dict[str, Path] = {}
    for f in sorted(folder.glob("*.csv")):
        name = f.stem
        if name not in columns and "_hierarchy_" in name:
            name = name.split("_hierarchy_", 1)[1]
        if name not in columns:
            continue
        if name in out:
            raise AnonlabError(
                f"--hierarchies {str(folder)!r}: two files give column {name!r}'s hierarchy "
                f"({out[name].name} and {f.name}); keep one"
            )
        out[name] = f
    return out


def read_header(path: Path, parquet: bool) -> list[str]:
    """The column names of a CSV (its separator detected, :func:`data_separator`) or Parquet
    file, read without its rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from anonlab.table import check_input_path, read_csv_header

    path = check_input_path(path)  # names a missing file or a directory
    try:
        if parquet:
            return [str(c) for c in pq.read_schema(path).names]
        # as written: not renamed, formula guard removed
        return read_csv_header(path, data_separator(path))
    except (OSError, ValueError, UnicodeDecodeError, pa.ArrowException) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None


def open_release(path: Path, sensitive: str | None = None):
    """The release at ``path``; with ``sensitive`` (``--sensitive`` of the attack commands),
    seen with that attribute its one sensitive attribute (``Release.for_sensitive``: a release
    with several is attacked one attribute at a time; a name that is not one of its sensitive
    attributes is an error naming them)."""
    from anonlab.release_io import load_release

    release = load_release(path)
    return release if sensitive is None else release.for_sensitive(sensitive)


def truth_from_data(release, data: Path) -> np.ndarray | None:
    """Check that ``data`` is the release's table row by row (``--data ORIGINAL`` of the attack
    and audit commands): its quasi-identifiers equal the release's and every sensitive
    attribute's values lie in the release's domain. Returns the original's sensitive codes when
    the release has one sensitive attribute (attacked and scored), else None (none, or several:
    each checked)."""
    from anonlab.table import read_frame

    frame = read_frame(data)
    table = release.table
    if len(frame) != table.n_rows:
        raise AnonlabError(
            f"--data {str(data)!r} has {len(frame):,} rows but the release has "
            f"{table.n_rows:,}; give the original table the release was made from"
        )
    names = table.sensitive_attributes
    needed = [*release.quasi_identifiers, *names]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise AnonlabError(
            f"--data {str(data)!r} lacks column(s) {missing}; the release needs {needed}"
        )
    for name in release.quasi_identifiers:
        ours = _comparable(table.column(name), table, name)
        theirs = _comparable(frame[name], table, name)
        bad = np.flatnonzero(ours != theirs)
        if len(bad):
            i = int(bad[0])
            shown = frame[name].astype(str).to_numpy()
            raise AnonlabError(
                f"release and --data do not match: row {i} has {name} = {shown[i]!r} in the "
                f"data but {str(table.column(name)[i])!r} in the release ({len(bad):,} rows "
                "differ)"
            )
    truth = {}
    for name in names:
        labels = _comparable(table.values[name], table, name)
        values = _comparable(frame[name], table, name)
        codes = pd.Index(labels).get_indexer(values)  # -1 where the value is not in the domain
        if (codes < 0).any():
            unknown = sorted(set(values[codes < 0]))
            raise AnonlabError(
                f"--data column {name!r} has value(s) {unknown[:5]} that the release's "
                f"domain lacks ({list(labels)})"
            )
        truth[name] = codes.astype(np.int64)
    return truth[names[0]] if len(names) == 1 else None


def _comparable(values, table, name: str) -> np.ndarray:
    """Values of column ``name`` in a form that compares equal across the release and a file
    read as text (:func:`anonlab.table.read_frame`): numbers for a numeric column (``2.50``
    equals 2.5), else the stripped text."""
    from anonlab.schema import Kind

    series = pd.Series(np.asarray(values))
    if table.schema[name].kind is Kind.NUMERIC:
        return pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
    return series.astype(str).str.strip().to_numpy(dtype=object)
