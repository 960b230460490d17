"""Release files: save and load the publisher's copy, export what is published, import releases
made elsewhere.

Directory layout written by :func:`save_release`::

    DIR/manifest.json                  how it was made, checksums of every file, a keyed seal
    DIR/.anonlab                       marks DIR as anonlab's (so --force may replace it)
    DIR/publisher/records.parquet      ground truth: input row id, group, original values
    DIR/publisher/export-key           the secret export key (see anonlab.export_order)
    DIR/publisher/hierarchies/*.csv    the hierarchies used (ARX format)
    DIR/published/...                  the export: generalized.csv, or qit.csv + st.csv

Only ``published/`` is meant to leave the publisher. Its row order and group ids come from the
secret export key (:mod:`anonlab.export_order`), never from the seed or the input order; groups'
sensitive values are given as counts sorted by value (never in member order); no input row id or
original sensitive value is written there; text cells a spreadsheet would run as a formula are
guarded (:mod:`anonlab.formula_guard`). ``publisher/`` is readable by its owner only.

Tamper evidence: the manifest lists the SHA-256 and size of every file under ``publisher/`` and
``published/`` and is sealed with an HMAC under the export key. :func:`load_release` refuses a
release whose manifest does not validate (:mod:`anonlab.manifest`), whose seal or any checksum
does not match, that holds a symbolic link, a file the manifest does not list or a name that
leaves the folder, or whose records contradict the manifest (row count, group ids 0..G-1 each
used, unique non-negative row ids). The seal stops edits made without the key; someone who can
read ``publisher/`` has the key, so it is evidence of tampering, not a signature.

Everything is written to a temporary directory first and renamed into place, so a failure leaves
no half-written output (:mod:`anonlab.atomic_output`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab import export_order
from anonlab.atomic_output import (  # noqa: F401  (re-exported: the public home of these)
    atomic_directory,
    atomic_write_bytes,
    atomic_write_text,
    owner_only,
    require_output_free,
)
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.manifest import FORMAT, FORMAT_VERSION, RECORDS_FILE
from anonlab.release import Release, require_no_value_sets, value_set_columns
from anonlab.schema import ColumnType, Kind
from anonlab.table import (
    GROUP_ID_COLUMN,
    PUBLISHED_SENSITIVE_COLUMN,
    ROW_ID_COLUMN,
    Table,
    read_frame,
)

PUBLISHED_SENSITIVE = PUBLISHED_SENSITIVE_COLUMN
GROUP_COLUMN = "group"
COUNT_COLUMN = "count"
# Column names of the publisher's records file; no data column may have them (table.py).
_ROW_ID, _GROUP = ROW_ID_COLUMN, GROUP_ID_COLUMN
# Manifest fields that save_release writes from the files, not from the release.
_FILE_FIELDS = ("published_files", "files", "format", "format_version", "seal")


def free_name(preferred: str, taken: Sequence[str]) -> str:
    """``preferred``, or ``preferred`` with leading underscores until no data column has it."""
    name = preferred
    while name in taken:
        name = "_" + name
    return name


# ---------------------------------------------------------------------- export
def export_key_of(release: Release) -> bytes:
    """The release's export key, drawn fresh (and kept on the release) if it has none."""
    key = getattr(release, "export_key", None)
    if key is None:
        key = export_order.new_export_key()
        release.export_key = key
    return key


def _plan(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """(row order, published group id per internal group) from the release's export key."""
    fingerprint = export_order.release_fingerprint(
        release.group, release.published_sensitive, release.manifest
    )
    return export_order.export_plan(
        export_key_of(release), release.group, release.n_groups, fingerprint
    )


def generalized_frame(release: Release) -> pd.DataFrame:
    """The release as one generalized table (like ARX's output) with a group id column, rows
    and group ids in the order of the release's export key (:mod:`anonlab.export_order`).
    A quasi-identifier that would be published as value sets without the publisher's choice
    is refused (:func:`anonlab.release.require_no_value_sets`)."""
    table = release.table
    require_no_value_sets(table, release.scheme, release.levels)
    gen = release.generalization
    order, published_id = _plan(release)
    cols: dict[str, np.ndarray] = {
        free_name(GROUP_COLUMN, table.schema.names): published_id[release.group]
    }
    for q in release.quasi_identifiers:
        cols[q] = gen[q].labels[release.group]
    for a in table.schema.insensitive:
        cols[a] = table.column(a)
    cols[release.sensitive] = table.values[release.sensitive][release.sensitive_codes]
    return pd.DataFrame({k: v[order] for k, v in cols.items()})


def bucketized_frames(release: Release) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The QIT (exact QI + group, rows in key order) and ST (group, value, count; sorted by
    published group id and value)."""
    table = release.table
    group_name = free_name(GROUP_COLUMN, table.schema.names)
    order, published_id = _plan(release)
    cols: dict[str, np.ndarray] = {group_name: published_id[release.group]}
    for q in release.quasi_identifiers:
        cols[q] = table.column(q)
    for a in table.schema.insensitive:
        cols[a] = table.column(a)
    qit = pd.DataFrame({k: v[order] for k, v in cols.items()})
    # rows of the histogram in published-id order: nonzero() then yields (id, value) sorted
    hist = release.sensitive_histogram[np.argsort(published_id)]
    g, v = np.nonzero(hist)
    st = pd.DataFrame(
        {
            group_name: g,
            release.sensitive: table.values[release.sensitive][v],
            free_name(COUNT_COLUMN, [release.sensitive, group_name]): hist[g, v],
        }
    )
    return qit, st


def write_published(release: Release, folder: Path) -> list[str]:
    """Write the export for the release's scheme into ``folder`` (text cells guarded against
    spreadsheet formulas); returns the file names."""
    from anonlab.formula_guard import guard_frame

    folder.mkdir(parents=True, exist_ok=True)
    if release.scheme == "generalization":
        frames = {"generalized.csv": generalized_frame(release)}
    else:
        qit, st = bucketized_frames(release)
        frames = {"qit.csv": qit, "st.csv": st}
    for name, frame in frames.items():
        guard_frame(frame).to_csv(folder / name, index=False)
    return list(frames)


# ---------------------------------------------------------------------- save / load
_SAFE_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def _hierarchy_files(table: Table) -> dict[str, str]:
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


def _sha256(path: Path) -> str:
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
                files[rel] = {"sha256": _sha256(p), "bytes": p.stat().st_size}
    return files


def _canonical(manifest: dict) -> bytes:
    """The manifest as the seal covers it: every field but the seal, keys sorted."""
    body = {k: v for k, v in manifest.items() if k != "seal"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), default=_json_default).encode()


def save_release(
    release: Release,
    out: str | os.PathLike,
    force: bool = False,
    export_key: bytes | None = None,
) -> Path:
    """Save the publisher's copy and the export to directory ``out`` (atomically).

    ``export_key`` (32 bytes) fixes the published row order and group ids; without it the
    release's own key is used (one loaded from a release directory has its saved key), else a
    fresh one is drawn. The key is written to ``publisher/export-key``; the same release and the
    same key give byte-identical files.
    """
    table = release.table
    if export_key is not None:
        if not isinstance(export_key, bytes) or len(export_key) != export_order.KEY_BYTES:
            raise AnonlabError(
                f"export_key must be {export_order.KEY_BYTES} bytes (e.g. "
                "anonlab.export_order.new_export_key())"
            )
        release.export_key = export_key
    key = export_key_of(release)
    hierarchy_files = _hierarchy_files(table)
    with atomic_directory(out, force) as tmp:
        pub = tmp / "publisher"
        (pub / "hierarchies").mkdir(parents=True)
        frame = table.to_frame()
        frame.insert(0, _GROUP, release.group)
        frame.insert(0, _ROW_ID, table.row_id)
        if release.published_sensitive is not None:
            frame[PUBLISHED_SENSITIVE] = table.values[release.sensitive][
                release.published_sensitive
            ]
        _to_parquet(frame, tmp / RECORDS_FILE)
        schema = table.schema.to_json()
        for entry in schema:
            entry["hierarchy_file"] = hierarchy_files.get(entry["name"])
            if entry["hierarchy_file"] is not None:
                table.schema[entry["name"]].hierarchy.to_csv(tmp / entry["hierarchy_file"])
        (tmp / export_order.KEY_FILE).write_text(export_order.key_to_text(key))
        published = write_published(release, tmp / "published")
        owner_only(pub)
        manifest = {k: v for k, v in release.manifest.items() if k not in _FILE_FIELDS}
        manifest.update(
            format=FORMAT,
            format_version=FORMAT_VERSION,
            schema=schema,
            published_files=published,
            files=_file_table(tmp),
        )
        manifest["seal"] = export_order.mac(key, _canonical(manifest))
        text = json.dumps(manifest, indent=2, default=_json_default)
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
        if size != info["bytes"] or _sha256(p) != info["sha256"]:
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
    if not hmac.compare_digest(manifest["seal"], export_order.mac(key, _canonical(manifest))):
        raise AnonlabError(
            f"{str(path / 'manifest.json')!r} was changed after the release was written (its "
            "seal does not match); restore it or make the release again"
        )
    return key


def _check_records(frame: pd.DataFrame, manifest: dict, source: str) -> None:
    """The records file agrees with the manifest: columns, row count, ids and groups."""
    names = [a["name"] for a in manifest["schema"]]
    missing = [c for c in [_ROW_ID, _GROUP, *names] if c not in frame.columns]
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
    records = path / RECORDS_FILE
    try:
        frame = pd.read_parquet(records)
    except Exception as exc:  # pyarrow raises its own error types for damaged files
        raise AnonlabError(f"cannot read {str(records)!r}: {exc}") from None
    _check_records(frame, manifest, repr(str(records)))
    schema = manifest["schema"]
    hierarchies = {
        a["name"]: Hierarchy.read_csv(path / a["hierarchy_file"], name=a["name"])
        for a in schema
        if a.get("hierarchy_file")
    }
    table = Table.from_frame(
        frame,
        quasi_identifiers=[a["name"] for a in schema if a["role"] == "quasi-identifier"],
        sensitive=next(a["name"] for a in schema if a["role"] == "sensitive"),
        insensitive=[a["name"] for a in schema if a["role"] == "insensitive"],
        identifiers=[_ROW_ID, _GROUP]
        + ([PUBLISHED_SENSITIVE] if PUBLISHED_SENSITIVE in frame.columns else []),
        numeric=[a["name"] for a in schema if a["kind"] == "numeric"],
        hierarchies=hierarchies,
        types=_temporal_types(manifest, schema),
        value_sets=[a["name"] for a in schema if a.get("value_sets")],
    )
    table.row_id = frame[_ROW_ID].to_numpy()
    table.dropped = manifest.get("dropped", {})
    published = None
    if PUBLISHED_SENSITIVE in frame.columns:
        published = _codes_of(table, table.sensitive, frame[PUBLISHED_SENSITIVE].to_numpy())
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


def _to_parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False, compression="zstd")


def _json_default(obj: object) -> object:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


def _codes_of(table: Table, name: str, labels: np.ndarray) -> np.ndarray:
    """Codes of decoded labels of column ``name`` (raises naming an unknown value)."""
    values = table.values[name]
    if table.schema[name].kind is Kind.NUMERIC:
        lookup = {float(v): i for i, v in enumerate(values)}
        key = float
    else:
        lookup = {str(v): i for i, v in enumerate(values)}
        key = str
    out = np.empty(len(labels), dtype=np.int32)
    for i, v in enumerate(labels):
        code = lookup.get(key(v))
        if code is None:
            raise AnonlabError(
                f"value {v!r} of column {name!r} does not occur in the original data"
            )
        out[i] = code
    return out


# ---------------------------------------------------------------------- import
_RANGE = re.compile(r"^\s*([\[\(]?)\s*(-?[\d.]+)\s*(?:-|,|\.\.)\s*(-?[\d.]+)\s*([\]\[\)]?)\s*$")
#: Separators :func:`detect_separator` chooses among (ARX writes ';', anonlab ',').
SEPARATORS = (",", ";", "\t", "|")
#: Labels that cover every value: ARX's suppressed or fully generalized cell, and an empty one.
_ANY = ("*", "")


def detect_separator(path: str | os.PathLike) -> str:
    """The field separator of a CSV file, from its header line: the one of ``,`` ``;`` tab
    ``|`` that occurs most often outside double quotes (``,`` on a tie or when none occurs).

    ARX writes its output ``;``-separated (``DataHandle.save(file, ';')``), anonlab
    ``,``-separated; a Parquet file has no separator (``,`` is returned, unused).
    """
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq") or not path.is_file():
        return ","  # no separator to find (a missing file is reported by the reader)
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
            line = fh.readline(1 << 20)
    except OSError:
        return ","  # the reader reports it
    counts = dict.fromkeys(SEPARATORS, 0)
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    best = max(SEPARATORS, key=lambda c: (counts[c], c == ","))
    return best if counts[best] else ","


def _separator(path: str | os.PathLike, sep: str | None) -> str:
    """``sep`` as given, or the separator detected from the file's header when None."""
    return detect_separator(path) if sep is None else sep


def _hierarchy_level_of(table: Table, name: str, labels, ignore_any: bool = True) -> int | None:
    """The one hierarchy level holding every published label of a column, the lowest if
    several do; None if the attribute has no hierarchy or no level holds them all. With
    ``ignore_any`` the labels ``*`` and empty (which cover every value anyway, e.g. ARX's
    suppressed records) are left out of the question. A full-domain release such as ARX's
    publishes each attribute at one level, so its labels are resolved there: ARX's Adult age
    hierarchy labels 20 as ``15-19`` at level 1, which read as a range would not cover 20."""
    h = table.schema[name].hierarchy
    if h is None:
        return None
    wanted = {str(v).strip() for v in labels}
    if ignore_any:
        wanted -= set(_ANY)
    if not wanted:
        return None
    for level in range(h.height + 1):
        if wanted <= set(h.labels(level).tolist()):
            return level
    return None


def _cover_mask(table: Table, name: str, label: str, level: int | None = None) -> np.ndarray:
    """Which domain values of attribute ``name`` a published label covers.

    In this order: ``*`` (or empty) every value; with ``level`` (the hierarchy level the
    column's labels were found at, :func:`_hierarchy_level_of`) the node of that level; a
    number, a range or a value of the original; a node of the attribute's hierarchy (at any
    level above the leaves); a numeric range; a value or a set ``{a,b}`` in the escaped form of
    :func:`anonlab.release.escape_member` (an unescaped value of another tool's file is
    accepted when it matches a value exactly). A label of a numeric attribute is looked up in
    its hierarchy before it is read as a range, so an ARX interval label such as ``15-19``
    covers what ARX's hierarchy puts under it. A set member that is not a value of the
    original is an error naming it."""
    from anonlab.release import parse_label  # here: the module's imports are the export's

    att = table.schema[name]
    values = table.values[name]
    label = str(label).strip()
    if label in _ANY:
        return np.ones(len(values), dtype=bool)
    if level is not None and att.hierarchy is not None:
        hit = _hierarchy_mask(table, name, label, [level])
        if hit is not None:
            return hit
    if att.kind is Kind.NUMERIC and att.hierarchy is not None:
        x = values.astype(float)
        try:
            number = float(label)
        except ValueError:
            number = None
        if number is not None and np.any(x == number):
            return x == number
        hit = _hierarchy_mask(table, name, label, range(1, att.hierarchy.height + 1))
        if hit is not None:
            return hit
    if att.kind is Kind.NUMERIC:
        x = values.astype(float)
        m = _RANGE.match(label)
        if m:
            a, b = float(m.group(2)), float(m.group(3))
            upper_open = m.group(4) in ("[", ")")
            lower_open = m.group(1) == "("
            lo_ok = x > a if lower_open else x >= a
            hi_ok = x < b if upper_open else x <= b
            return lo_ok & hi_ok
        try:
            return x == float(label)
        except ValueError:
            pass
    labels = np.array([str(v) for v in values], dtype=object)
    exact = labels == label
    if att.hierarchy is None or (label.startswith("{") and label.endswith("}")):
        # A value or a set of values, escaped as release.escape_member writes them.
        members = [m.strip() for m in parse_label(label) or []]
        known = set(labels.tolist())
        unknown = [m for m in members if m not in known]
        if not unknown:
            return np.isin(labels, members)
        if exact.any():  # a value written without escapes by another tool
            return exact
        if att.hierarchy is None:
            what = "lists" if len(members) > 1 else "is"
            raise AnonlabError(
                f"published value {label!r} of column {name!r} {what} {unknown[0]!r}, which is "
                "neither a value of the original data nor a range; give the hierarchy that "
                "defines it, or write a set as {a,b} with a backslash before each ',', '{', "
                "'}' or '\\' inside a value (and \\* for the value *)"
            )
    if exact.any():
        return exact
    mask = _hierarchy_mask(table, name, label, range(1, att.hierarchy.height + 1))
    if mask is None:
        raise AnonlabError(
            f"published value {label!r} of column {name!r} is not a node of its hierarchy"
        )
    return mask


def _hierarchy_mask(table: Table, name: str, label: str, levels) -> np.ndarray | None:
    """Domain values under the nodes labelled ``label`` at the given levels of ``name``'s
    hierarchy (the union where several levels have such a node); None if none has."""
    h = table.schema[name].hierarchy
    rows = h.matrix[table.leaf_codes(name)]
    mask = np.zeros(len(table.values[name]), dtype=bool)
    found = False
    for level in levels:
        hit = np.flatnonzero(h.labels(level) == label)
        if len(hit):
            found = True
            mask |= rows[:, level] == hit[0]
    return mask if found else None


def import_generalized(
    path: str | os.PathLike,
    original: Table,
    *,
    group_column: str | None = None,
    sep: str | None = None,
    withhold_suppressed: bool = False,
) -> Release:
    """Import a generalized table made elsewhere (e.g. ARX output) against the original table.

    Equivalence classes are the rows with equal published quasi-identifiers (or equal values of
    ``group_column`` when given). Records are matched to rows in the same order when the file is
    row-aligned with the original (ARX keeps the input order); otherwise each original record is
    assigned to a class whose published values cover its own and whose published sensitive values
    still hold its value (classes with fewest candidates first). A record that fits no class is an
    error naming it.

    ARX's output as ARX writes it imports as it is:

    * ``sep`` None (the default) detects the separator from the header line
      (:func:`detect_separator`; ARX writes ``;``, anonlab ``,``);
    * labels are resolved through the original's hierarchies first: where all the labels of a
      column are nodes of one level of the attribute's hierarchy (as in a full-domain release,
      e.g. ARX's), each is read as that node, so ARX's age labels such as ``15-19`` (which its
      Adult hierarchy puts 20 under) cover what the hierarchy says, not the numeric range
      (see :func:`_cover_mask` for the rest);
    * when every quasi-identifier has a hierarchy, every column's labels lie at one level and
      no ``group_column`` is given, the release records those levels (``release.levels``), so
      full-domain measures such as ARX's Loss apply to it;
    * ``withhold_suppressed=True``: rows whose every quasi-identifier is ``*`` (ARX's suppressed
      records) while some row's are not are taken as suppressed, as ARX counts them: the
      records matched to them are withheld from the release and counted in the manifest
      (``suppressed_records``), as anonlab's lattice search does with a suppression limit.
      Without it (the default) they form one more class, the view of someone who reads the
      published file.
    """
    sep = _separator(path, sep)
    frame = read_frame(path, sep=sep)
    frame = frame.astype(str)
    sens = original.require_sensitive()
    qi = list(original.quasi_identifiers)
    for c in qi + [sens] + ([group_column] if group_column else []):
        if c not in frame.columns:
            hint = (
                f" (is it separated by {detect_separator(path)!r}, not {sep!r}? give sep=...)"
                if len(frame.columns) == 1
                else ""
            )
            raise AnonlabError(
                f"column {c!r} is missing from {str(path)!r}; it has columns "
                f"{list(frame.columns)}{hint}"
            )
    if len(frame) != original.n_rows:
        raise AnonlabError(
            f"{str(path)!r} has {len(frame)} rows but the original table has {original.n_rows}; "
            "a release must publish every record (suppressed records as '*')"
        )
    # Per QI: distinct labels -> cover masks over the domain.
    label_ids, covers, uniques = {}, {}, {}
    for q in qi:
        ids, uniq = pd.factorize(frame[q].to_numpy())
        label_ids[q] = ids
        uniques[q] = uniq
        level = _hierarchy_level_of(original, q, uniq)
        covers[q] = np.stack([_cover_mask(original, q, u, level) for u in uniq])
    key_cols = [group_column] if group_column else qi
    cls_ids, _ = pd.factorize(pd.MultiIndex.from_frame(frame[key_cols]))
    pub_sens = _codes_of(original, sens, frame[sens].to_numpy())
    orig_sens = original.codes[sens]
    aligned = np.array_equal(pub_sens, orig_sens) and all(
        covers[q][label_ids[q], original.codes[q]].all() for q in qi
    )
    if aligned:
        group = cls_ids
    else:
        group = _match_records(original, qi, label_ids, covers, cls_ids, pub_sens)
    manifest = {
        "algorithm": "imported",
        "parameters": {
            "source": str(path),
            "format": "generalized-csv",
            "row_aligned": bool(aligned),
            "sep": sep,
        },
        "seed": None,
    }
    # Rows whose every QI is '*' while others' are not: ARX's suppressed records.
    star = np.ones(len(frame), dtype=bool)
    for q in qi:
        star &= np.isin(frame[q].str.strip().to_numpy(), _ANY)
    suppressed_rows = star if withhold_suppressed and star.any() and not star.all() else None
    manifest["parameters"]["withhold_suppressed"] = bool(withhold_suppressed)
    # A quasi-identifier without a hierarchy that the file's maker published as values or value
    # sets is republished so, by that earlier choice. One with a '*' (or another node no value
    # or set names) is not marked: re-exporting would turn that '*' into the set of the group's
    # exact values, so saving the import is refused until a hierarchy is given.
    published = frame if suppressed_rows is None else frame[~suppressed_rows]
    original = original.with_value_sets(
        [
            q
            for q in value_set_columns(original)
            if not np.isin(published[q].str.strip().to_numpy(), _ANY).any()
        ]
    )
    reference = None
    kept_rows = np.ones(len(frame), dtype=bool)
    if suppressed_rows is not None:
        withheld = np.isin(group, np.unique(cls_ids[suppressed_rows]))
        n_withheld = int(withheld.sum())
        reference = np.bincount(orig_sens, minlength=original.domain_size(sens))
        dropped = dict(original.dropped, suppressed_records=n_withheld)
        original = original.take(np.flatnonzero(~withheld))
        original.dropped = dropped
        group = group[~withheld]
        kept_rows = ~suppressed_rows
        manifest["suppressed_records"] = n_withheld
        manifest["input_rows"] = int(len(frame))
    levels = None
    if group_column is None:
        found = {
            q: _hierarchy_level_of(
                original, q, pd.unique(uniques[q][label_ids[q][kept_rows]]), ignore_any=False
            )
            for q in qi
        }
        if all(level is not None for level in found.values()):
            levels = found
    return Release(
        original, group, "generalization", manifest, levels=levels, reference_counts=reference
    )


def _match_records(original, qi, label_ids, covers, cls_ids, pub_sens) -> np.ndarray:
    """Assign each original record to a published class (exact capacitated bipartite matching).

    A record may go to a class whose published values cover its own; each class takes, of each
    sensitive value, as many records as it publishes. Slots are nodes ``class * V + value``.
    """
    n_cls = int(cls_ids.max()) + 1
    n_values = original.domain_size(original.sensitive)
    first = np.zeros(n_cls, dtype=np.int64)  # one representative row per class
    first[cls_ids[::-1]] = np.arange(len(cls_ids))[::-1]
    cls_label = {q: label_ids[q][first] for q in qi}
    capacity = np.bincount(
        cls_ids.astype(np.int64) * n_values + pub_sens, minlength=n_cls * n_values
    )
    sens = original.codes[original.sensitive].astype(np.int64)
    candidates: list[np.ndarray] = []
    chunk = 512
    for start in range(0, original.n_rows, chunk):
        rows = slice(start, start + chunk)
        ok = np.ones((min(chunk, original.n_rows - start), n_cls), dtype=bool)
        for q in qi:
            ok &= covers[q][cls_label[q]][:, original.codes[q][rows]].T
        for r, row in zip(range(start, start + len(ok)), ok, strict=True):
            slots = np.flatnonzero(row) * n_values + sens[r]
            candidates.append(slots[capacity[slots] > 0])
    slot, failed = capacitated_matching(candidates, capacity)
    if failed is not None:
        raise AnonlabError(
            f"original record {int(original.row_id[failed]) + 1} fits no published class (no "
            "class covering its quasi-identifiers has its sensitive value left, however the "
            "others are placed); is this the original of that release?"
        )
    return slot // n_values


def capacitated_matching(
    candidates: list[np.ndarray], capacity: np.ndarray
) -> tuple[np.ndarray, int | None]:
    """Give every item one of its candidate slots without exceeding any slot's capacity.

    Greedy first (items with fewest candidates first, to the candidate with most room left),
    then breadth-first augmenting paths for the items left over, so the answer is exact: it fails
    (returning the index of an item that cannot be placed) only when no complete assignment
    exists.
    """
    n = len(candidates)
    load = np.zeros(len(capacity), dtype=np.int64)
    assigned = np.full(n, -1, dtype=np.int64)
    members: dict[int, set[int]] = defaultdict(set)
    order = np.argsort([len(c) for c in candidates], kind="stable")
    left = []
    for i in order.tolist():
        cand = candidates[i]
        room = capacity[cand] - load[cand]
        if len(cand) and room.max() > 0:
            s = int(cand[int(np.argmax(room))])
            assigned[i] = s
            load[s] += 1
            members[s].add(i)
        else:
            left.append(i)
    for i in left:
        prev_item: dict[int, int] = {}  # slot -> item that reached it
        prev_slot: dict[int, int] = {}  # item -> slot it sits in on the path
        queue = []
        for s in candidates[i].tolist():
            if s not in prev_item:
                prev_item[s] = i
                queue.append(s)
        found = None
        head = 0
        while head < len(queue) and found is None:
            s = queue[head]
            head += 1
            if load[s] < capacity[s]:
                found = s
                break
            for j in members[s]:
                if j in prev_slot or j == i:
                    continue
                prev_slot[j] = s
                for t in candidates[j].tolist():
                    if t not in prev_item:
                        prev_item[t] = j
                        queue.append(t)
        if found is None:
            return assigned, i
        s = found
        load[s] += 1
        while True:  # walk the path back, moving each item one slot along
            j = prev_item[s]
            old = int(assigned[j])
            if old >= 0:
                members[old].discard(j)
            assigned[j] = s
            members[s].add(j)
            if j == i:
                break
            s = old
    return assigned, None


def import_bucketized(
    qit_path: str | os.PathLike,
    st_path: str | os.PathLike,
    original: Table,
    *,
    group_column: str = GROUP_COLUMN,
    count_column: str = COUNT_COLUMN,
    sep: str | None = None,
) -> Release:
    """Import an Anatomy-style QIT/ST pair made elsewhere against the original table.

    ``sep`` None (the default) detects each file's separator from its header line
    (:func:`detect_separator`).

    A QIT in the original's row order (checked, with the ST counts) is taken as it is. Otherwise
    each original record is matched to a QIT row with the same exact quasi-identifiers so that
    every group holds the sensitive values its ST gives. Records whose quasi-identifiers occur in
    one group only are placed exactly; where several groups share a QI vector the true pairing is
    not in the published data, and a consistent one is found by a seeded local search
    (:func:`_assign_to_buckets`). Limitation: that search is a heuristic for a three-way
    transportation problem; on Adult bucketized by Anatomy it succeeded with QIs sex and race
    (10 distinct QI vectors) and gave up with age, sex, race and marital status (a clear error;
    tried by hand, not a test or benchmark).
    """
    qit = read_frame(qit_path, sep=_separator(qit_path, sep)).astype(str)
    st = read_frame(st_path, sep=_separator(st_path, sep))
    sens = original.require_sensitive()
    qi = list(original.quasi_identifiers)
    if group_column in qi:
        raise AnonlabError(
            f"the group column {group_column!r} is also a quasi-identifier of the original; "
            "give the QIT/ST group column another name (group_column=...)"
        )
    if count_column in (group_column, sens):
        raise AnonlabError(
            f"the count column {count_column!r} is also the "
            f"{'group' if count_column == group_column else 'sensitive'} column; give the ST "
            "count column another name (count_column=...)"
        )
    for c in qi + [group_column]:
        if c not in qit.columns:
            raise AnonlabError(f"column {c!r} is missing from QIT {str(qit_path)!r}")
    for c in (group_column, sens, count_column):
        if c not in st.columns:
            raise AnonlabError(f"column {c!r} is missing from ST {str(st_path)!r}")
    if len(qit) != original.n_rows:
        raise AnonlabError(
            f"QIT {str(qit_path)!r} has {len(qit)} rows, the original table {original.n_rows}"
        )
    need: dict[tuple[str, int], int] = defaultdict(int)
    counts = _st_counts(st[count_column], st_path, count_column)
    st_codes = _codes_of(original, sens, st[sens].to_numpy())
    for g, s, c in zip(
        st[group_column].astype(str), st_codes.tolist(), counts.tolist(), strict=True
    ):
        need[(g, s)] += c
    slots: dict[tuple, list[str]] = defaultdict(list)
    numeric = [original.schema[q].kind is Kind.NUMERIC for q in qi]
    try:
        qit_keys = _row_keys([qit[q].to_numpy() for q in qi], numeric)
    except ValueError as exc:
        raise AnonlabError(f"QIT {str(qit_path)!r} has a non-numeric value: {exc}") from None
    for key, g in zip(qit_keys, qit[group_column].tolist(), strict=True):
        slots[key].append(g)
    orig_keys = _row_keys([original.column(q) for q in qi], numeric)
    sens_codes = original.codes[sens]
    group_label = None
    row_aligned = qit_keys == orig_keys
    if row_aligned:  # the QIT keeps the original's row order: take its groups as they are
        group_label = np.array(qit[group_column].tolist(), dtype=object)
        counts: dict[tuple[str, int], int] = defaultdict(int)
        for g, v in zip(group_label.tolist(), sens_codes.tolist(), strict=True):
            counts[(g, v)] += 1
        if {c: n for c, n in counts.items() if n} != {c: n for c, n in need.items() if n}:
            group_label, row_aligned = None, False
    if group_label is None:
        records: dict[tuple, list[int]] = defaultdict(list)
        for i, key in enumerate(orig_keys):
            records[key].append(i)
        group_label = _assign_to_buckets(records, slots, need, sens_codes)
    if group_label is None:
        raise AnonlabError(
            "found no assignment of the original records to the QIT rows that agrees with the "
            "ST counts (each record to a row with its exact quasi-identifiers, each group with "
            "its published sensitive values). Either this is not the original of that release, "
            "or many records share their quasi-identifiers and the search gave up; a QIT in the "
            "original's row order is matched exactly"
        )
    group, _ = pd.factorize(np.array(group_label, dtype=object))
    manifest = {
        "algorithm": "imported",
        "parameters": {
            "source": [str(qit_path), str(st_path)],
            "format": "qit-st",
            "row_aligned": bool(row_aligned),
        },
        "seed": None,
    }
    return Release(original, group, "bucketization", manifest)


def _st_counts(column: pd.Series, path: str | os.PathLike, name: str) -> np.ndarray:
    """The ST's counts as int64, or an error naming the first row whose count is not a whole
    number >= 0 (text, empty, negative, fractional, infinite or true/false)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        bad = np.ones(len(column), dtype=bool)
        number = pd.Series(np.nan, index=column.index)
    else:
        number = pd.to_numeric(column, errors="coerce").astype(float)
        arr = number.to_numpy()
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(arr) | (arr < 0) | (np.mod(arr, 1) != 0) | (arr > 2**53)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AnonlabError(
            f"ST {str(path)!r}, row {i + 1} (counting from 1 after the header): the count "
            f"{column.iloc[i]!r} in column {name!r} is not a whole number >= 0 (and at most "
            f"2**53); each ST row "
            f"gives how many records of its group hold its value ({int(bad.sum())} row(s) "
            "with a bad count)"
        )
    return number.to_numpy().astype(np.int64)


def _assign_to_buckets(
    records: dict[tuple, list[int]],
    slots: dict[tuple, list[str]],
    need: dict[tuple[str, int], int],
    sens: np.ndarray,
    max_moves: int = 50_000,
    sample: int = 40,
) -> np.ndarray | None:
    """Group label per record, consistent with QI keys and ST counts; None if none is found.

    Where records share their exact quasi-identifiers the true assignment is not recoverable
    from QIT/ST (any consistent one is equally likely to the adversary); this finds one
    consistent assignment. That is a three-way transportation problem (record keys x groups x
    values), solved here by local search: each key's records are first dealt to its QIT rows,
    preferring groups that still need their value; then, while some group holds a value more
    often than its ST says, a record with that value is swapped with a record of the same key in
    another group (which keeps every key's rows right), taking the best of a seeded sample of
    swaps by the total excess, or a random swap when none improves it. Keys whose rows all lie
    in one group are fixed from the start. Gives up (None) after ``max_moves`` swaps.
    """
    rng = np.random.default_rng(0)
    label = np.empty(len(sens), dtype=object)
    excess: dict[tuple[str, int], int] = defaultdict(int)
    needers: dict[int, set[str]] = defaultdict(set)  # value -> groups still short of it
    for (g, v), count in need.items():
        excess[(g, v)] -= count
        if count > 0:
            needers[v].add(g)
    members: dict[tuple[str, int], set[int]] = defaultdict(set)  # movable records per cell
    placed: dict[tuple, dict[str, list[int]]] = {}  # movable key -> group -> records

    def move(i: int, g: str) -> None:
        v = int(sens[i])
        excess[(g, v)] += 1
        if excess[(g, v)] >= 0:
            needers[v].discard(g)
        label[i] = g

    for key, recs in records.items():
        groups = list(slots.get(key, []))
        if len(groups) != len(recs):
            return None
        free: dict[str, int] = defaultdict(int)
        for g in groups:
            free[g] += 1
        for i in recs:
            open_ = needers[int(sens[i])]
            pick = (
                next((g for g in free if g in open_), None)
                if len(free) <= len(open_)
                else (next((g for g in open_ if free.get(g, 0) > 0), None))
            )
            g = pick if pick is not None else next(iter(free))
            move(i, g)
            free[g] -= 1
            if free[g] == 0:
                del free[g]
        if len(set(groups)) > 1:
            per_group: dict[str, list[int]] = defaultdict(list)
            for i in recs:
                per_group[label[i]].append(i)
                members[(label[i], int(sens[i]))].add(i)
            placed[key] = per_group
    key_of = {i: key for key, per in placed.items() for rs in per.values() for i in rs}

    def swap(i: int, j: int) -> None:
        gi, gj = label[i], label[j]
        for r, old, new in ((i, gi, gj), (j, gj, gi)):
            v = int(sens[r])
            excess[(old, v)] -= 1
            if excess[(old, v)] < 0:
                needers[v].add(old)
            members[(old, v)].discard(r)
            members[(new, v)].add(r)
            per = placed[key_of[r]]
            per[old].remove(r)
            per[new].append(r)
            move(r, new)

    def gain(i: int, j: int) -> int:
        (g1, s1), (g2, s2) = (label[i], int(sens[i])), (label[j], int(sens[j]))
        if g1 == g2 or s1 == s2:
            return 0
        # each over-full cell losing one and each short cell gaining one is an improvement
        return (
            (excess[(g1, s1)] > 0)
            + (excess[(g2, s2)] > 0)
            - (excess[(g1, s2)] >= 0)
            - (excess[(g2, s1)] >= 0)
        )

    over = {c for c, e in excess.items() if e > 0}
    for _ in range(max_moves):
        over = {c for c in over if excess[c] > 0}
        if not over:
            return label if not any(excess.values()) else None
        cell = sorted(over)[rng.integers(len(over))]
        movable = list(members[cell])
        if not movable:
            return None  # the excess comes from fixed keys: the counts cannot be met
        best, best_gain, options = None, 0, []
        for i in rng.choice(movable, size=min(sample, len(movable)), replace=False).tolist():
            per = placed[key_of[i]]
            partners = [j for g, rs in per.items() if g != label[i] for j in rs]
            if not partners:
                continue
            for j in rng.choice(partners, size=min(sample, len(partners)), replace=False):
                j = int(j)
                if int(sens[j]) == int(sens[i]):
                    continue
                options.append((i, j))
                gn = gain(i, j)
                if gn > best_gain:
                    best, best_gain = (i, j), gn
        if not options:
            continue
        i, j = best if best is not None else options[rng.integers(len(options))]
        swap(i, j)
        over.update(((label[i], int(sens[i])), (label[j], int(sens[j]))))
    return None


def _row_keys(columns: Sequence[np.ndarray], numeric: Sequence[bool]) -> list[tuple]:
    """Normalised QI tuples (numbers as floats, labels as stripped str), one per row."""
    cols = [
        [float(v) for v in raw] if num else [str(v).strip() for v in raw]
        for raw, num in zip(columns, numeric, strict=True)
    ]
    return list(zip(*cols, strict=True))
