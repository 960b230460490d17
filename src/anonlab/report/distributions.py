"""Per column, the original distribution beside the released one (issue 19, item 2): what
generalization, suppression or perturbation did to each quasi-identifier and to the sensitive
attribute, as counts of records per value.

Choices:

* The original side counts each value of the publisher's copy (records withheld by
  suppression are not in the release's table, so the suppressed records appear in neither
  side; the report states their number). A numeric column with more than ``top`` values is
  binned into ``top`` ranges of about equal counts, labelled ``[lo-hi]`` in the column's own
  values.
* The released side counts records per *published* value: under generalization each group's
  label (``[20-29]``, a hierarchy node, ``{a,b}``) weighted by the group's size; under
  bucketization the quasi-identifiers are published exactly (the same counts) and the
  sensitive values per bucket; a perturbed sensitive value (MASK) is counted as published.
* At most ``top`` labels per side are kept (the most frequent), the rest summed as "other".
* Labels are values of the data: the redacted report drops these tables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonlab.release import Release
from anonlab.schema import Kind


def _top(labels: np.ndarray, counts: np.ndarray, top: int) -> dict[str, int]:
    keep = counts > 0
    labels, counts = labels[keep], counts[keep]
    order = np.argsort(-counts, kind="stable")
    out = {str(labels[i]): int(counts[i]) for i in order[:top]}
    rest = int(counts[order[top:]].sum())
    if rest:
        out["other"] = out.get("other", 0) + rest
    return out


def _original(
    release: Release, name: str, top: int, value_counts: dict[str, np.ndarray] | None = None
) -> dict[str, int]:
    table = release.table
    if value_counts is not None:
        counts = np.asarray(value_counts[name], dtype=np.int64)
    else:
        counts = np.bincount(table.codes[name], minlength=table.domain_size(name))
    values = np.asarray(table.values[name], dtype=object)
    if table.schema[name].kind is Kind.NUMERIC and len(values) > top:
        # about equal-count bins over the code order (numeric codes are sorted by value)
        cum = np.cumsum(counts)
        edges = np.searchsorted(cum, np.linspace(0, cum[-1], top + 1)[1:-1], side="left")
        edges = np.unique(np.r_[0, edges + 1, len(values)])
        out = {}
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            if hi > lo:
                out[f"[{values[lo]}-{values[hi - 1]}]"] = int(counts[lo:hi].sum())
        return out
    return _top(values, counts, top)


def _released(
    release: Release, name: str, top: int, value_counts: dict[str, np.ndarray] | None = None
) -> dict[str, int]:
    table = release.table
    if name in table.sensitive_attributes:
        view = release if len(table.sensitive_attributes) == 1 else release.for_sensitive(name)
        counts = np.asarray(view.sensitive_histogram).sum(axis=0)
        return _top(np.asarray(table.values[name], dtype=object), counts, top)
    if release.scheme == "bucketization":
        return _original(release, name, top, value_counts)
    labels = np.asarray(release.generalization[name].labels, dtype=object).astype(str)
    distinct, inverse = np.unique(labels, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=release.group_sizes, minlength=len(distinct))
    return _top(distinct, counts.astype(np.int64), top)


def column_distributions(
    release: Release, top: int = 12, value_counts: dict[str, np.ndarray] | None = None
) -> dict[str, dict[str, Any]]:
    """Per quasi-identifier and sensitive attribute (none, one or several): ``{"original":
    {label: records}, "released": {label: records}, "how": words}``.

    ``value_counts``: each column's records per value (code order), counted elsewhere (a
    cluster's, whose records are on the workers); default: counted from the release's table.
    The released side then reads only the group statistics and published values."""
    out: dict[str, dict[str, Any]] = {}
    sensitive = release.table.sensitive_attributes
    for name in (*release.quasi_identifiers, *sensitive):
        if name in sensitive:
            how = (
                "perturbed values, as published"
                if release.published_sensitive is not None
                else "published per group"
            )
        elif release.scheme == "bucketization":
            how = "published exactly (the QI table)"
        else:
            how = "generalized: records per published value"
        out[name] = {
            "original": _original(release, name, top, value_counts),
            "released": _released(release, name, top, value_counts),
            "how": how,
        }
    return out
