"""The folder of a release the workers wrote: its manifest, template and seal (issue 21).

:func:`anonlab.distributed.worker_release.anonymize_on_workers` writes::

    published/<file>/part-NNNNN.parquet|csv   what may leave (generalized, or qit and st)
    publisher/records/part-NNNNN.parquet      input row, published group id and the records'
                                               codes (template domains), per part
    publisher/template-domains.parquet         each attribute's values in code order (padded)
    publisher/hierarchies/<name>.csv           the template's hierarchies
    publisher/export-key                       the secret export key
    publisher/manifest.json                    how it was made, the schema, every file's SHA-256
                                               and size, and a seal

The **template** (the table's schema and domains, no records) is kept so that the release can be
checked later without the original data (:func:`open_written`): it is read back with the same
reader as a release folder's records (:func:`anonlab.release_io.folder.table_from_schema`) and
must give every attribute's values in the same order, else the folder is refused. The **seal**
is the export key's MAC over the manifest, as in a release folder (:mod:`anonlab.release_io`):
an edited manifest is refused. Files written by the driver (template, hierarchies, key) are
verified when the folder is opened; a part's files are verified on the worker that reads them
(:func:`verify_file`), so that no record file passes through the driver.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from anonlab import export_order
from anonlab.errors import AnonlabError

if TYPE_CHECKING:  # pragma: no cover
    from anonlab.table import Table

MANIFEST = "publisher/manifest.json"
TEMPLATE_DOMAINS = "publisher/template-domains.parquet"
#: What marks the folder's manifest (``distributed.path``).
PATH_MARK = "workers"


def _canonical(manifest: dict) -> bytes:
    from anonlab.release_io.folder import canonical_manifest

    return canonical_manifest(manifest)


def write_manifest(root: Path, manifest: dict, template, export_key: bytes) -> dict:
    """Write the template, its hierarchies, the key and the sealed manifest into ``root``
    (the temporary folder the workers wrote their parts into). ``manifest["files"]`` already
    lists the parts' files; the driver's files are added. Returns the manifest written."""
    from anonlab.distributed.worker_input import padded_frame
    from anonlab.release_io.folder import file_sha256, hierarchy_files, json_default

    root = Path(root)
    publisher = root / "publisher"
    (publisher / "hierarchies").mkdir(parents=True, exist_ok=True)
    schema = template.schema.to_json()
    paths = hierarchy_files(template)
    for entry in schema:
        entry["hierarchy_file"] = paths.get(entry["name"])
        if entry["hierarchy_file"] is not None:
            template.schema[entry["name"]].hierarchy.to_csv(root / entry["hierarchy_file"])
    names = list(template.schema.names)
    sizes = {name: len(template.values[name]) for name in names}
    padded_frame({name: np.asarray(template.values[name]) for name in names}).to_parquet(
        root / TEMPLATE_DOMAINS, index=False
    )
    (root / export_order.KEY_FILE).write_text(export_order.key_to_text(export_key))
    files = dict(manifest.get("files", {}))
    for rel in [TEMPLATE_DOMAINS, export_order.KEY_FILE, *paths.values()]:
        p = root / rel
        files[rel] = {"sha256": file_sha256(p), "bytes": p.stat().st_size}
    manifest = dict(manifest)
    manifest.update(
        schema=schema,
        domain_sizes=sizes,
        column_types={k: dict(v) for k, v in template.types.items()},
        files=files,
    )
    manifest["seal"] = export_order.mac(export_key, _canonical(manifest))
    text = json.dumps(manifest, indent=2, sort_keys=True, default=json_default) + "\n"
    (root / MANIFEST).write_text(text, encoding="utf-8")
    return manifest


def verify_file(root: str | Path, rel: str, info: dict) -> None:
    """Refuse a file that does not match its size and SHA-256 in the manifest (run where the
    file is read: on a worker for a part's files)."""
    from anonlab.release_io.folder import file_sha256

    p = Path(root) / rel
    if not p.is_file() or p.is_symlink():
        raise AnonlabError(f"release file {str(p)!r} is missing; the release is damaged")
    size = p.stat().st_size
    if size != info["bytes"] or file_sha256(p) != info["sha256"]:
        raise AnonlabError(
            f"release file {str(p)!r} was changed after the release was written: it does not "
            f"match its {'size' if size != info['bytes'] else 'SHA-256'} in {MANIFEST}"
        )


def is_written(path: str | Path) -> bool:
    """Whether ``path`` holds a release the workers wrote (its manifest under ``publisher/``
    and no release folder's top-level manifest)."""
    root = Path(path)
    return (root / MANIFEST).is_file() and not (root / "manifest.json").exists()


def open_written(path: str | Path):
    """``(manifest, template)`` of the release the workers wrote at ``path``, after checking
    the seal, the driver's files and that the template reads back as it was written."""
    import pandas as pd

    from anonlab.hierarchy import Hierarchy
    from anonlab.release_io.folder import table_from_schema

    root = Path(path)
    mpath = root / MANIFEST
    if not mpath.is_file():
        raise AnonlabError(
            f"{str(path)!r} is not a release written by the workers (no {MANIFEST}); a release "
            "folder made on one machine is checked without --cluster/--workers"
        )
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AnonlabError(f"cannot read {str(mpath)!r}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("distributed", {}).get("path") != PATH_MARK:
        raise AnonlabError(f"{str(mpath)!r} is not the manifest of a release the workers wrote")
    key_path = root / export_order.KEY_FILE
    key = export_order.parse_export_key(
        key_path.read_bytes()[:1024].decode("ascii", errors="replace"), repr(str(key_path))
    )
    if not hmac.compare_digest(
        str(manifest.get("seal", "")), export_order.mac(key, _canonical(manifest))
    ):
        raise AnonlabError(
            f"{str(mpath)!r} was changed after the release was written (its seal does not "
            "match); restore it or make the release again"
        )
    files = manifest["files"]
    schema = manifest["schema"]
    hierarchy_paths = [a["hierarchy_file"] for a in schema if a.get("hierarchy_file")]
    driver_files = [TEMPLATE_DOMAINS, *hierarchy_paths]
    for rel in driver_files:
        verify_file(root, rel, files[rel])
    frame = pd.read_parquet(root / TEMPLATE_DOMAINS)
    hierarchies = {
        a["name"]: Hierarchy.read_csv(root / a["hierarchy_file"], name=a["name"])
        for a in schema
        if a.get("hierarchy_file")
    }
    table = table_from_schema(frame, schema, hierarchies, manifest)
    for name, size in manifest["domain_sizes"].items():
        written = frame[name].to_numpy()[:size]
        if len(table.values[name]) != size or not np.array_equal(
            np.asarray(table.values[name], dtype=object), np.asarray(written, dtype=object)
        ):
            raise AnonlabError(
                f"{TEMPLATE_DOMAINS}: the values of {name!r} do not read back in the order they "
                "were written; the release is damaged"
            )
    return manifest, table.take(np.zeros(0, dtype=np.int64))


def table_without_records(template: Table, n_rows: int, row_id: np.ndarray | None = None) -> Table:
    """The template's schema and domains with ``n_rows`` rows and no codes, for the driver of a
    measure whose records are on the workers: built over a constant broadcast to the rows (no
    memory), for the row count, then given :class:`RecordsOnWorkers` as its codes, so that any
    read of a record on the driver fails. ``row_id``: the records' input rows when the driver
    holds them (default: ``-1`` broadcast)."""
    from anonlab.table import Table

    absent = np.broadcast_to(np.int32(-1), (n_rows,))
    codes = dict.fromkeys(template.schema.names, absent)
    if row_id is None:
        row_id = np.broadcast_to(np.int64(-1), (n_rows,))
    table = Table(template.schema, codes, template.values, row_id=row_id, types=template.types)
    table.codes = RecordsOnWorkers(template.schema.names)  # a read raises, naming the column
    return table


class RecordsOnWorkers(Mapping):
    """The ``codes`` of the driver's table of a written release: the attribute names, and an
    error for any read of a column (the records are in the parts, on the workers), so that a
    measure that would read the records on the driver fails instead of running on stand-ins."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = tuple(names)

    def __getitem__(self, name: str) -> np.ndarray:
        raise AnonlabError(
            f"the records of column {name!r} are in the release's parts, on the workers; this "
            "measure reads them on the driver and does not run over written parts"
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def no_histogram() -> np.ndarray:
    """The histogram of a release known by its counts alone (``Release._from_statistics``) that
    no check may ask for: the driver's views of a written release before its statistics are
    counted, and the one that only names the checks' parameters."""
    raise AnonlabError("internal: a histogram was asked of a release that holds none")
