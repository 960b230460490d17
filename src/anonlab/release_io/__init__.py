"""Release files: save and load the publisher's copy, export what is published, import releases
made elsewhere.

Directory layout written by :func:`save_release`::

    DIR/manifest.json                  how it was made, checksums of every file, a keyed seal
    DIR/.anonlab                       marks DIR as anonlab's (so --force may replace it)
    DIR/publisher/records.parquet      ground truth: input row id, group, original values
    DIR/publisher/export-key           the secret export key (see anonlab.export_order)
    DIR/publisher/hierarchies/*.csv    the hierarchies used (ARX format)
    DIR/published/...                  the export: generalized.csv, or qit.csv + st.csv
                                       (.parquet instead with published_format="parquet")

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

One module per concept:

* :mod:`.export`: what is published, :func:`generalized_frame`, :func:`bucketized_frames` (whole
  frames) and :func:`write_published` (the same rows streamed in chunks to CSV or Parquet), in
  the order of the release's export key (:func:`export_key_of`);
* :mod:`.folder`: :func:`save_release` and :func:`load_release`, with the checks above;
* :mod:`.labels`: published labels read against the original (values, ranges, hierarchy nodes,
  value sets, ``*``);
* :mod:`.matching`: matching original records to published classes
  (:func:`capacitated_matching`) or to QIT rows (a local search);
* :mod:`.importing`: :func:`import_generalized`, :func:`import_bucketized` and
  :func:`detect_separator`, for releases made elsewhere (e.g. ARX's output).

The writers of :mod:`anonlab.atomic_output` are re-exported here, their public home.
"""

from __future__ import annotations

from anonlab.atomic_output import (
    atomic_directory,
    atomic_write_bytes,
    atomic_write_text,
    owner_only,
    require_output_free,
)
from anonlab.release_io.export import (
    CHUNK_ROWS,
    COUNT_COLUMN,
    GROUP_COLUMN,
    PUBLISHED_FORMATS,
    bucketized_frames,
    export_key_of,
    free_name,
    generalized_frame,
    published_file_names,
    write_published,
)
from anonlab.release_io.folder import PUBLISHED_SENSITIVE, load_release, save_release
from anonlab.release_io.importing import (
    SEPARATORS,
    detect_separator,
    import_bucketized,
    import_generalized,
)
from anonlab.release_io.matching import capacitated_matching

__all__ = [
    "CHUNK_ROWS",
    "COUNT_COLUMN",
    "GROUP_COLUMN",
    "PUBLISHED_FORMATS",
    "PUBLISHED_SENSITIVE",
    "SEPARATORS",
    "atomic_directory",
    "atomic_write_bytes",
    "atomic_write_text",
    "bucketized_frames",
    "capacitated_matching",
    "detect_separator",
    "export_key_of",
    "free_name",
    "generalized_frame",
    "import_bucketized",
    "import_generalized",
    "load_release",
    "owner_only",
    "published_file_names",
    "require_output_free",
    "save_release",
    "write_published",
]
