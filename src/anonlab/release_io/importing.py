"""Import releases made elsewhere (ARX's generalized CSV, an Anatomy QIT/ST pair).

:func:`import_generalized` and :func:`import_bucketized` turn another tool's output into a
:class:`~anonlab.release.Release` of the original table, so it can be checked, attacked and saved
like anonlab's own: the published labels are read against the original's domain and hierarchies
(:mod:`.labels`) and each original record is matched to its published class or QIT row
(:mod:`.matching`). :func:`detect_separator` reads a file's separator from its header line.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.release import Release, value_set_columns
from anonlab.release_io.export import COUNT_COLUMN, GROUP_COLUMN
from anonlab.release_io.labels import ANY_LABELS, codes_of, cover_mask, hierarchy_level_of
from anonlab.release_io.matching import assign_to_buckets, capacitated_matching
from anonlab.schema import Kind
from anonlab.table import Table, read_frame

#: Separators :func:`detect_separator` chooses among (ARX writes ';', anonlab ',').
SEPARATORS = (",", ";", "\t", "|")


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
      (see :func:`~anonlab.release_io.labels.cover_mask` for the rest);
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
        level = hierarchy_level_of(original, q, uniq)
        covers[q] = np.stack([cover_mask(original, q, u, level) for u in uniq])
    key_cols = [group_column] if group_column else qi
    cls_ids, _ = pd.factorize(pd.MultiIndex.from_frame(frame[key_cols]))
    pub_sens = codes_of(original, sens, frame[sens].to_numpy())
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
        star &= np.isin(frame[q].str.strip().to_numpy(), ANY_LABELS)
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
            if not np.isin(published[q].str.strip().to_numpy(), ANY_LABELS).any()
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
            q: hierarchy_level_of(
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
    (:func:`~anonlab.release_io.matching.assign_to_buckets`). Limitation: that search is a
    heuristic for a three-way transportation problem; on Adult bucketized by Anatomy it
    succeeded with QIs sex and race (10 distinct QI vectors) and gave up with age, sex, race and
    marital status (a clear error; tried by hand, not a test or benchmark).
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
    st_codes = codes_of(original, sens, st[sens].to_numpy())
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
        group_label = assign_to_buckets(records, slots, need, sens_codes)
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


def _row_keys(columns: Sequence[np.ndarray], numeric: Sequence[bool]) -> list[tuple]:
    """Normalised QI tuples (numbers as floats, labels as stripped str), one per row."""
    cols = [
        [float(v) for v in raw] if num else [str(v).strip() for v in raw]
        for raw, num in zip(columns, numeric, strict=True)
    ]
    return list(zip(*cols, strict=True))
