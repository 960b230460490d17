"""The deFinetti sampler's count statistics (Kifer, SIGMOD 2009) by map-reduce.

The count cells ``n_{x,s}`` of the sampler (§3.5: the collapsed posterior is
``Π Γ(n_{x,s} + prior)``) for an assignment of sensitive values (default: the published ones),
the ST (per-group histogram) and the collapsed log posterior. The Gibbs sweeps themselves are
sequential in the groups and are not distributed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_float
from anonlab.distributed.mapreduce import (
    Partition,
    map_reduce,
)
from anonlab.distributed.measures.keys import key_space, radix_keys
from anonlab.distributed.measures.partitions import Partitions, release_parts
from anonlab.errors import AnonlabError
from anonlab.grouping import group_histogram
from anonlab.release import Release


@dataclass(frozen=True, eq=False)
class DeFinettiStatistics:
    """The count statistics of the deFinetti sampler (Kifer, SIGMOD 2009, §3.5 and §5.1).

    The collapsed posterior of an assignment ``π`` of every group's sensitive multiset to its
    members is ``∝ Π_{feature, x, s} Γ(n^π_{x,s} + prior)``; ``counts`` holds ``n^π_{x,s}``.

    Attributes
    ----------
    model : {"naive-bayes", "joint"}
    attributes : tuple of str
    counts : ndarray of shape (n_cells, n_values), dtype=int64
        Records with feature cell ``x`` assigned value ``s`` (Naive Bayes: one block of cells
        per attribute, ``feat_ptr``; joint: one cell per distinct quasi-identifier vector).
    feat_ptr : ndarray of shape (n_features + 1,), dtype=int64
    cell_keys : ndarray or None
        Joint model: the mixed-radix key of each cell's QI vector, ascending (cell order).
    group_sizes, sensitive_histogram : ndarray
        The QIT's group sizes and the ST (published per-group counts).
    prior : float
    log_posterior : float
        ``Σ log Γ(n_{x,s} + prior)`` (the sampler's trace value for this assignment).
    """

    model: str
    attributes: tuple[str, ...]
    counts: np.ndarray
    feat_ptr: np.ndarray
    cell_keys: np.ndarray | None
    group_sizes: np.ndarray
    sensitive_histogram: np.ndarray
    prior: float
    log_posterior: float


def _definetti_inputs(release, model, attributes, assignment, prior):
    from anonlab._validation import check_choice
    from anonlab.attacks.definetti import MODELS, check_attributes, require_attackable

    require_attackable(release)
    model = check_choice("model", model, MODELS)
    attributes = check_attributes(release, attributes)
    prior = check_float("prior", prior)
    if not prior > 0:
        raise AnonlabError(f"parameter 'prior' must be > 0, got {prior}")
    if assignment is not None:
        assignment = np.asarray(assignment)
        n_values = release.table.domain_size(release.sensitive)
        if (
            assignment.shape != (release.table.n_rows,)
            or not np.issubdtype(assignment.dtype, np.integer)
            or (len(assignment) and (assignment.min() < 0 or assignment.max() >= n_values))
        ):
            raise AnonlabError(
                f"parameter 'assignment' must hold one sensitive code in 0..{n_values - 1} per "
                f"record ({release.table.n_rows}), got shape {assignment.shape}"
            )
        assignment = assignment.astype(np.int64)
    return model, attributes, assignment, prior


def definetti_statistics(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    assignment: np.ndarray | None = None,
    prior: float = 1.0,
) -> DeFinettiStatistics:
    """The deFinetti sampler's count statistics on one machine, with the sampler's own feature
    cells (:func:`anonlab.attacks.definetti.feature_cells`) — the reference the distributed version
    is tested against. ``assignment``: a sensitive code per record (default: the published
    values, i.e. the true permutation of every group's multiset)."""
    from anonlab.attacks.definetti import collapsed_log_posterior, feature_cells

    model, attributes, assignment, prior = _definetti_inputs(
        release, model, attributes, assignment, prior
    )
    assign = (
        np.asarray(release.sensitive_codes, dtype=np.int64) if assignment is None else assignment
    )
    cells, n_cells, feat_ptr = feature_cells(release, attributes, model)
    n_values = release.table.domain_size(release.sensitive)
    counts = np.zeros(n_cells * n_values, dtype=np.int64)
    for f in range(cells.shape[1]):
        counts += np.bincount(cells[:, f] * n_values + assign, minlength=n_cells * n_values)
    counts = counts.reshape(n_cells, n_values)
    keys = None
    if model == "joint":
        keys = np.unique(radix_keys(release.table, attributes))
    return DeFinettiStatistics(
        model, attributes, counts, feat_ptr, keys,
        np.asarray(release.group_sizes, dtype=np.int64),
        np.asarray(release.sensitive_histogram, dtype=np.int64),
        prior, float(collapsed_log_posterior(counts, prior)),
    )  # fmt: skip


def _map_distinct_keys(part: Partition, attributes: tuple[str, ...]) -> dict:
    keys = np.unique(radix_keys(part.table, attributes))
    return {"keys": (keys, np.ones(len(keys), dtype=np.int64))}


def _map_definetti_counts(part: Partition, shared: dict) -> dict:
    table = part.table
    attributes, n_values = shared["attributes"], shared["n_values"]
    assignment = shared["assignment"]
    assign = (
        part.published_sensitive.astype(np.int64)
        if assignment is None
        else assignment[part.start : part.start + part.n_rows]
    )
    n_cells = shared["n_cells"]
    counts = np.zeros(n_cells * n_values, dtype=np.int64)
    if shared["cell_keys"] is not None:  # joint: the rank of the QI vector among all vectors
        columns = [np.searchsorted(shared["cell_keys"], radix_keys(table, attributes))]
    else:
        ptr = shared["feat_ptr"]
        columns = [table.codes[a].astype(np.int64) + ptr[i] for i, a in enumerate(attributes)]
    for cell in columns:
        counts += np.bincount(cell * n_values + assign, minlength=n_cells * n_values)
    return {
        "counts": counts,
        "sizes": np.bincount(part.group, minlength=part.n_groups).astype(np.int64),
        "histogram": group_histogram(part.group, part.published_sensitive, part.n_groups, n_values),
    }


def definetti_statistics_distributed(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    assignment: np.ndarray | None = None,
    prior: float = 1.0,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> DeFinettiStatistics:
    """:func:`definetti_statistics` by map-reduce (one map; two for the joint model, whose cells
    are the distinct QI vectors of the whole table). Identical counts and log posterior."""
    from anonlab.attacks.definetti import collapsed_log_posterior

    model, attributes, assignment, prior = _definetti_inputs(
        release, model, attributes, assignment, prior
    )
    parts = release_parts(release, client, partitions, n_partitions)
    table = release.table
    n_values = table.domain_size(release.sensitive)
    sizes = [table.domain_size(a) for a in attributes]
    feat_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    keys = None
    if model == "joint":
        key_space(table, attributes, what=" (deFinetti joint model)")
        keys = map_reduce(_map_distinct_keys, parts, attributes, {"keys": "merge"}, client)["keys"][
            0
        ]
        n_cells = len(keys)
        feat_ptr = np.array([0, n_cells], dtype=np.int64)
    else:
        n_cells = int(feat_ptr[-1])
    shared = {
        "attributes": attributes,
        "n_values": n_values,
        "assignment": assignment,
        "n_cells": n_cells,
        "cell_keys": keys,
        "feat_ptr": feat_ptr,
    }
    how = {"counts": "sum", "sizes": "sum", "histogram": "sum"}
    out = map_reduce(_map_definetti_counts, parts, shared, how, client)
    counts = out["counts"].reshape(n_cells, n_values)
    return DeFinettiStatistics(
        model, attributes, counts, feat_ptr, keys, out["sizes"], out["histogram"], prior,
        float(collapsed_log_posterior(counts, prior)),
    )  # fmt: skip
