"""Export: the published files of a release, in the order of its secret export key.

:func:`generalized_frame` (one generalized table, like ARX's output) and
:func:`bucketized_frames` (Anatomy's QIT and ST) build what is published; :func:`write_published`
writes them with every text cell guarded against spreadsheet formulas
(:mod:`anonlab.formula_guard`). Row order and group ids come from the release's export key
(:func:`export_key_of`, :mod:`anonlab.export_order`), never from the seed or the input order;
groups' sensitive values are given as counts sorted by value (never in member order).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab import export_order
from anonlab.release import Release, require_no_value_sets

GROUP_COLUMN = "group"
COUNT_COLUMN = "count"


def free_name(preferred: str, taken: Sequence[str]) -> str:
    """``preferred``, or ``preferred`` with leading underscores until no data column has it."""
    name = preferred
    while name in taken:
        name = "_" + name
    return name


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
    names = table.sensitive_attributes  # none for plain k-anonymity; several as they are
    for a in names:
        codes = release.sensitive_codes if len(names) == 1 else table.codes[a]
        cols[a] = table.values[a][codes]
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
