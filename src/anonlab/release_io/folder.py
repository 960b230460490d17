"""Save and load a release folder: the publisher's copy, the export, checksums and the seal.

The folder's layout, what may leave the publisher, the tamper evidence and the atomic writes
are described once, in the package docstring (:mod:`anonlab.release_io`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab import export_order
from anonlab.atomic_output import atomic_directory, owner_only
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.manifest import FORMAT, FORMAT_VERSION, RECORDS_FILE
from anonlab.release import Release
from anonlab.release_io.export import export_key_of, published_file_names, write_published
from anonlab.release_io.labels import codes_of
from anonlab.schema import ColumnType
from anonlab.table import (
    GROUP_ID_COLUMN,
    PUBLISHED_SENSITIVE_COLUMN,
    ROW_ID_COLUMN,
    Table,
)

PUBLISHED_SENSITIVE = PUBLISHED_SENSITIVE_COLUMN
# Column names of the publisher's records file; no data column may have them (table.py).
_ROW_ID, _GROUP = ROW_ID_COLUMN, GROUP_ID_COLUMN
# Manifest fields that save_release writes from the files, not from the release.
_FILE_FIELDS = ("published_files", "files", "format", "format_version", "seal")

_SAFE_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def hierarchy_files(table: Table) -> dict[str, str]:
    """Relative path of each attribute's hierarchy file: ``<name>.csv`` where the name is a
    plain file name, else ``attribute-<i>.csv`` (a name such as ``../../x`` or ``a/b`` never
    becomes a path; names equal up to case get distinct files)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for i, a in enumerate(table.schema.attributes):
        if a.hierarchy is None:
            continue
        base = a.name
        if not _SAFE_FILE_NAME.fullmatch(base) or base.endswith(".") or base.lower() in used:
            base = f"attribute-{i}"
        used.add(base.lower())
        out[a.name] = f"publisher/hierarchies/{base}.csv"
    return out


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex), read 1 MiB at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _file_table(root: Path) -> dict[str, dict]:
    """SHA-256 and size of every file under ``publisher/`` and ``published/``."""
    files = {}
    for top in ("publisher", "published"):
        for p in sorted((root / top).rglob("*")):
            if p.is_file():
                rel = p.relative_to(root).as_posix()
                files[rel] = {"sha256": file_sha256(p), "bytes": p.stat().st_size}
    return files


def canonical_manifest(manifest: dict) -> bytes:
    """The manifest as the seal covers it: every field but the seal, keys sorted."""
    body = {k: v for k, v in manifest.items() if k != "seal"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), default=json_default).encode()


def save_release(
    release: Release,
    out: str | os.PathLike,
    force: bool = False,
    export_key: bytes | None = None,
    published_format: str = "csv",
) -> Path:
    """Save the publisher's copy and the export to directory ``out`` (atomically).

    ``export_key`` (32 bytes) fixes the published row order and group ids; without it the
    release's own key is used (one loaded from a release directory has its saved key), else a
    fresh one is drawn. The key is written to ``publisher/export-key``; the same release and the
    same key give byte-identical files.

    ``published_format``: ``"csv"`` (``published/generalized.csv``, or ``qit.csv`` and
    ``st.csv``; text cells guarded against spreadsheet formulas) or ``"parquet"`` (the same
    rows as typed Parquet columns, not guarded: :mod:`anonlab.release_io.export`). The manifest
    lists them in ``published_files`` with their checksums, under the seal. The records and the
    published files are written in chunks, never as one whole-table frame.
    """
    published_file_names(release.scheme, published_format)  # refused before any work
    table = release.table
    if export_key is not None:
        if not isinstance(export_key, bytes) or len(export_key) != export_order.KEY_BYTES:
            raise AnonlabError(
                f"export_key must be {export_order.KEY_BYTES} bytes (e.g. "
                "anonlab.export_order.new_export_key())"
            )
        release.export_key = export_key
    key = export_key_of(release)
    hierarchy_paths = hierarchy_files(table)
    with atomic_directory(out, force) as tmp:
        pub = tmp / "publisher"
        (pub / "hierarchies").mkdir(parents=True)
        _write_records(release, tmp / RECORDS_FILE)
        schema = table.schema.to_json()
        for entry in schema:
            entry["hierarchy_file"] = hierarchy_paths.get(entry["name"])
            if entry["hierarchy_file"] is not None:
                table.schema[entry["name"]].hierarchy.to_csv(tmp / entry["hierarchy_file"])
        (tmp / export_order.KEY_FILE).write_text(export_order.key_to_text(key))
        published = write_published(release, tmp / "published", published_format)
        owner_only(pub)
        manifest = {k: v for k, v in release.manifest.items() if k not in _FILE_FIELDS}
        manifest.update(
            format=FORMAT,
            format_version=FORMAT_VERSION,
            schema=schema,
            published_files=published,
            files=_file_table(tmp),
        )
        manifest["seal"] = export_order.mac(key, canonical_manifest(manifest))
        text = json.dumps(manifest, indent=2, default=json_default)
        (tmp / "manifest.json").write_text(text, encoding="utf-8")
        os.chmod(tmp / "manifest.json", 0o600)
    return Path(out)


def _release_file(root: Path, rel: str, what: str) -> Path:
    """``root/rel`` after checking that ``rel`` stays inside ``root`` and that no part of the
    way is a symbolic link and the end is a regular file."""
    parts = rel.split("/")
    if (
        not rel
        or "\\" in rel
        or rel.startswith("/")
        or any(p in ("", ".", "..") for p in parts)
        or ":" in parts[0]
    ):
        raise AnonlabError(
            f"{what} {rel[:200]!r} in {str(root / 'manifest.json')!r} is not a path inside the "
            "release folder (no '..', no absolute path); the release was edited by hand"
        )
    p = root
    for part in parts:
        p = p / part
        if p.is_symlink():
            raise AnonlabError(
                f"{str(p)!r} is a symbolic link; a release holds only its own files (copy the "
                "release folder with its files, not links)"
            )
    if not p.is_file():
        raise AnonlabError(
            f"release file {str(p)!r} is missing (the manifest lists it); the release folder "
            "is incomplete"
        )
    return p


def _read_manifest(path: Path) -> dict:
    from anonlab.manifest import read_manifest

    mpath = path / "manifest.json"
    # anonlab.distributed.written_release.MANIFEST (that layer is not imported here)
    if not mpath.exists() and (path / "publisher" / "manifest.json").is_file():
        raise AnonlabError(
            f"{str(path)!r} is a release the workers wrote (anonymize --on-workers): a folder of "
            "parts, which this command does not read; measure it on a cluster: `anonlab audit "
            "DIR --cluster ADDRESS` (or --workers N); `anonlab check`, `anonlab utility` and "
            "`anonlab attack rules` take --cluster too"
        )
    if not mpath.exists() and not mpath.is_symlink():
        raise AnonlabError(
            f"{str(path)!r} is not a release directory (no manifest.json); make one with "
            "`anonlab anonymize ... --out DIR` or import one with `anonlab import`"
        )
    return read_manifest(mpath)


def _check_files(path: Path, manifest: dict) -> bytes:
    """Check every listed file (inside, no link, size, SHA-256), that every file under
    ``publisher/`` and ``published/`` is listed, and the seal; return the export key."""
    files = manifest["files"]  # lists the records, published and hierarchy files (validated)
    if export_order.KEY_FILE not in files:
        raise AnonlabError(
            f"{str(path / 'manifest.json')!r}: files has no entry for "
            f"{export_order.KEY_FILE!r}; the manifest was edited by hand"
        )
    for rel, info in files.items():
        p = _release_file(path, rel, "file")
        size = p.stat().st_size
        if size != info["bytes"] or file_sha256(p) != info["sha256"]:
            raise AnonlabError(
                f"release file {str(p)!r} was changed after the release was written: it does "
                f"not match its {'size' if size != info['bytes'] else 'SHA-256'} in "
                "manifest.json; restore it or make the release again"
            )
    for top in ("publisher", "published"):
        for p in (path / top).rglob("*"):
            rel = p.relative_to(path).as_posix()
            if p.is_symlink():
                raise AnonlabError(f"{str(p)!r} is a symbolic link; a release holds its own files")
            if p.is_file() and rel not in files:
                raise AnonlabError(
                    f"{str(p)!r} is not a file of this release (the manifest does not list it); "
                    "remove it"
                )
    key_path = path / export_order.KEY_FILE
    key = export_order.parse_export_key(
        key_path.read_bytes()[:1024].decode("ascii", errors="replace"), repr(str(key_path))
    )
    seal = export_order.mac(key, canonical_manifest(manifest))
    if not hmac.compare_digest(manifest["seal"], seal):
        raise AnonlabError(
            f"{str(path / 'manifest.json')!r} was changed after the release was written (its "
            "seal does not match); restore it or make the release again"
        )
    return key


def _check_records(frame: pd.DataFrame, columns: list[str], manifest: dict, source: str) -> None:
    """The records file agrees with the manifest: columns (``columns``: the file's), row
    count, ids and groups (``frame``: its id columns)."""
    names = [a["name"] for a in manifest["schema"]]
    missing = [c for c in [_ROW_ID, _GROUP, *names] if c not in columns]
    if missing:
        raise AnonlabError(f"{source} lacks column(s) {missing[:10]}; the release is damaged")
    if len(frame) != manifest["rows"]:
        raise AnonlabError(
            f"{source} has {len(frame):,} records but manifest.json says rows = "
            f"{manifest['rows']:,}; the release is damaged"
        )
    for col in (_ROW_ID, _GROUP):
        if not pd.api.types.is_integer_dtype(frame[col].dtype):
            raise AnonlabError(
                f"{source} column {col!r} holds {frame[col].dtype} values, not integers; the "
                "release is damaged"
            )
    row_id = frame[_ROW_ID].to_numpy()
    group = frame[_GROUP].to_numpy()
    n_groups = manifest["groups"]
    if len(row_id) and (row_id.min() < 0 or not _distinct(row_id)):
        raise AnonlabError(
            f"{source}: input row ids must be distinct non-negative integers; the release is "
            "damaged"
        )
    if len(group) and (group.min() < 0 or group.max() >= n_groups):
        raise AnonlabError(
            f"{source}: group ids must lie in 0..{n_groups - 1} (manifest groups = {n_groups}), "
            f"found {int(group.min())}..{int(group.max())}; the release is damaged"
        )
    used = int(np.count_nonzero(np.bincount(group, minlength=n_groups)))
    if used != n_groups:
        raise AnonlabError(
            f"{source}: {used:,} groups are used but manifest.json says "
            f"groups = {n_groups:,}; the release is damaged"
        )


def _distinct(ids: np.ndarray) -> bool:
    """Whether non-negative integer ids are pairwise distinct (counting when the range is small,
    as it is for input row ids; else a sort)."""
    if int(ids.max()) < 4 * len(ids) + 1024:
        return int(np.bincount(ids).max()) <= 1
    ordered = np.sort(ids)
    return bool(np.all(ordered[1:] != ordered[:-1]))


def _temporal_types(manifest: dict, schema: list[dict]) -> dict[str, str]:
    """The date and datetime columns as the manifest's ``column_types`` records them, so that
    a loaded release reads them back as dates (their labels are canonical ISO 8601)."""
    decided = manifest.get("column_types") or {}
    names = {a["name"] for a in schema}
    return {
        name: entry["type"]
        for name, entry in decided.items()
        if name in names
        and isinstance(entry, dict)
        and entry.get("type") in (ColumnType.DATE.value, ColumnType.DATETIME.value)
    }


def load_release(path: str | os.PathLike) -> Release:
    """Load a release directory written by :func:`save_release`, after the checks listed in
    the module docstring (any failure is an :class:`AnonlabError` naming the file or field)."""
    path = Path(path)
    manifest = _read_manifest(path)
    key = _check_files(path, manifest)
    import pyarrow.parquet as pq

    records = path / RECORDS_FILE
    # The ids (and published values) are read as columns; the attributes are read by the
    # chunked Parquet reader (Table.from_parquet: the same table as from_frame of the whole
    # file, without its text as one frame; a 10M-record release: 6.5 GB peak read whole).
    try:
        columns = pq.ParquetFile(records).schema_arrow.names
        own = [c for c in (_ROW_ID, _GROUP, PUBLISHED_SENSITIVE) if c in columns]
        ids = pq.read_table(records, columns=own)
    except Exception as exc:  # pyarrow raises its own error types for damaged files
        raise AnonlabError(f"cannot read {str(records)!r}: {exc}") from None
    frame = ids.to_pandas()
    _check_records(frame, columns, manifest, repr(str(records)))
    schema = manifest["schema"]
    hierarchies = {
        a["name"]: Hierarchy.read_csv(path / a["hierarchy_file"], name=a["name"])
        for a in schema
        if a.get("hierarchy_file")
    }
    table = table_from_schema(records, schema, hierarchies, manifest, columns)
    table.row_id = frame[_ROW_ID].to_numpy()
    table.dropped = manifest.get("dropped", {})
    published = None
    if PUBLISHED_SENSITIVE in frame.columns:
        published = codes_of(table, table.sensitive, frame[PUBLISHED_SENSITIVE].to_numpy())
    release = Release(
        table,
        frame[_GROUP].to_numpy(),
        manifest["scheme"],
        {k: v for k, v in manifest.items() if k not in _FILE_FIELDS},
        published,
        manifest.get("levels"),
        manifest.get("reference_counts"),
    )
    release.export_key = key
    return release


def table_from_schema(
    source: pd.DataFrame | Path,
    schema: list[dict],
    hierarchies: dict,
    manifest: dict,
    columns: list[str] | None = None,
) -> Table:
    """The table of a release's records as its manifest's ``schema`` describes it (roles,
    kinds, hierarchies, value sets, date types): ``source`` a frame of them, or a Parquet file
    of them (read in chunks, :meth:`Table.from_parquet`; ``columns``: its column names). The
    records file's own columns (row id, group, published sensitive value) are not attributes."""
    columns = list(source.columns) if isinstance(source, pd.DataFrame) else list(columns or [])
    options = {
        "quasi_identifiers": [a["name"] for a in schema if a["role"] == "quasi-identifier"],
        "sensitive": [a["name"] for a in schema if a["role"] == "sensitive"],
        "insensitive": [a["name"] for a in schema if a["role"] == "insensitive"],
        "identifiers": [c for c in (_ROW_ID, _GROUP, PUBLISHED_SENSITIVE) if c in columns],
        "numeric": [a["name"] for a in schema if a["kind"] == "numeric"],
        "hierarchies": hierarchies,
        "types": _temporal_types(manifest, schema),
        "value_sets": [a["name"] for a in schema if a.get("value_sets")],
    }
    if isinstance(source, pd.DataFrame):
        return Table.from_frame(source, **options)
    return Table.from_parquet(source, **options)


def _to_parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False, compression="zstd")


#: Records per chunk of ``publisher/records.parquet``: pyarrow's default row group (2**20
#: rows), so the file written chunk by chunk is the one ``DataFrame.to_parquet`` writes whole.
_RECORD_ROWS = 1 << 20


def _records_frame(release: Release, rows: slice) -> pd.DataFrame:
    """Records ``rows`` (input order) as ``publisher/records.parquet`` holds them: input row id,
    internal group, every attribute's original value, the published sensitive value (MASK)."""
    table = release.table
    frame = pd.DataFrame(
        {a.name: table.values[a.name][table.codes[a.name][rows]] for a in table.schema.attributes}
    )
    frame.insert(0, _GROUP, release.group[rows])
    frame.insert(0, _ROW_ID, table.row_id[rows])
    if release.published_sensitive is not None:
        values = table.values[release.sensitive]
        frame[PUBLISHED_SENSITIVE] = values[release.published_sensitive[rows]]
    return frame


class _NotUniform(Exception):
    """Two chunks of the records converted to different Arrow schemas."""


def _write_records(release: Release, path: Path, chunk_rows: int | None = None) -> None:
    """Write ``publisher/records.parquet`` ``chunk_rows`` records at a time, one row group each
    (the whole table as one pandas frame of text cells took 1.4 GB more at 10M records).

    The first chunk goes through pandas as the whole frame did (its Arrow schema, with pandas'
    metadata, is the file's); the others are gathered from each attribute's domain converted
    once the same way (Arrow ``take``), which gives the same columns without converting every
    cell's text again. A table whose chunks would convert to different Arrow types (object
    columns of mixed values) is written whole, as before."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk_rows = _RECORD_ROWS if chunk_rows is None else chunk_rows
    n = release.table.n_rows
    if n <= chunk_rows:
        _to_parquet(_records_frame(release, slice(None)), path)
        return
    try:
        part = pa.Table.from_pandas(
            _records_frame(release, slice(0, chunk_rows)), preserve_index=False
        )
        schema = part.schema
        domains = _record_domains(release, schema)
        with pq.ParquetWriter(path, schema, compression="zstd") as writer:
            for start in range(0, n, chunk_rows):
                if start:
                    part = _records_chunk(
                        release, schema, domains, slice(start, start + chunk_rows)
                    )
                    if not part.schema.equals(schema, check_metadata=True):
                        raise _NotUniform
                writer.write_table(part, row_group_size=chunk_rows)
                del part
    except (_NotUniform, pa.ArrowException):
        path.unlink(missing_ok=True)
        _to_parquet(_records_frame(release, slice(None)), path)


def _record_columns(release: Release) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each coded column of the records file: (its domain, the code of each record)."""
    table = release.table
    out = {a.name: (table.values[a.name], table.codes[a.name]) for a in table.schema.attributes}
    if release.published_sensitive is not None:
        out[PUBLISHED_SENSITIVE] = (table.values[release.sensitive], release.published_sensitive)
    return out


def _record_domains(release: Release, schema) -> dict | None:
    """Each coded column's domain as pandas converts it to Arrow, or None when one converts to
    another type than the first chunk's column (then every chunk goes through pandas)."""
    import pyarrow as pa

    domains = {}
    for name, (values, _) in _record_columns(release).items():
        frame = pd.DataFrame({name: values})
        column = pa.Table.from_pandas(frame, preserve_index=False).column(0).combine_chunks()
        if column.type != schema.field(name).type:
            return None
        domains[name] = column
    return domains


def _records_chunk(release: Release, schema, domains: dict | None, rows: slice):
    import pyarrow as pa

    if domains is None:
        return pa.Table.from_pandas(_records_frame(release, rows), preserve_index=False)
    coded = _record_columns(release)
    arrays = []
    for name in schema.names:
        if name == _ROW_ID:
            arrays.append(pa.array(release.table.row_id[rows]))
        elif name == _GROUP:
            arrays.append(pa.array(release.group[rows]))
        else:
            arrays.append(domains[name].take(pa.array(coded[name][1][rows])))
    return pa.Table.from_arrays(arrays, schema=schema)


def json_default(obj: object) -> object:
    """NumPy scalars and arrays as JSON (``json.dumps(..., default=...)``)."""
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")
