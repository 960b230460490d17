"""What the deFinetti attack reads from a release, checked, and the random-worlds baseline.

Kifer (SIGMOD 2009) §5.1: the attacker knows every record's quasi-identifiers and group (the QIT)
and each group's sensitive multiset (the ST). :func:`layout_of` puts them in the sampler's shape
(:class:`Layout`, with the count cells of :func:`feature_cells`); :func:`check_attributes` and
:func:`require_attackable` check the inputs; :func:`choose_targets` draws the attacked records;
:func:`random_worlds_posterior` is the baseline every result is compared with (Kifer §4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonlab._validation import check_int, rng_from_seed, takes_release
from anonlab.errors import AnonlabError
from anonlab.release import Release

MODELS = ("naive-bayes", "joint")
SAMPLERS = ("collapsed", "uncollapsed")
COMBINE = ("pool", "weight")


@dataclass(frozen=True)
class Layout:
    """What the attacker sees, in the sampler's shape (built by :func:`layout_of`)."""

    cells: np.ndarray  # (n, n_features) int64 count-cell index of each record's feature value
    n_cells: int
    order: np.ndarray  # records sorted by group
    ptr: np.ndarray  # group g's records are order[ptr[g]:ptr[g + 1]]
    multiset: np.ndarray  # published sensitive codes sorted by (group, code): the ST
    n_values: int
    feat_ptr: np.ndarray  # feature f's cells are feat_ptr[f]:feat_ptr[f + 1]


def feature_cells(
    release: Release, attributes: tuple[str, ...], model: str
) -> tuple[np.ndarray, int, np.ndarray]:
    """Each record's count cell per feature: ``(cells, n_cells, feat_ptr)``.

    Kifer (SIGMOD 2009) §5.1: Naive Bayes has one feature per attribute (cells
    ``feat_ptr[f]:feat_ptr[f+1]`` are attribute ``f``'s codes); the joint model has one feature,
    the whole quasi-identifier vector (a cell per distinct vector, in key order). ``cells`` has
    shape (n_rows, n_features), int64. Assumes ``attributes`` checked
    (:func:`check_attributes`) and ``model`` one of ``MODELS``.
    """
    table = release.table
    codes = [table.codes[a].astype(np.int64) for a in attributes]
    sizes = [table.domain_size(a) for a in attributes]
    if model == "joint":  # one feature: the whole quasi-identifier vector
        key = np.zeros(table.n_rows, dtype=np.int64)
        for col, size in zip(codes, sizes, strict=True):
            key = key * size + col
        _, inverse = np.unique(key, return_inverse=True)
        n_cells = int(inverse.max(initial=-1)) + 1
        return inverse.reshape(-1, 1), n_cells, np.array([0, n_cells], dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return np.stack(codes, axis=1) + ptr[:-1], int(sum(sizes)), ptr


def layout_of(release: Release, attributes: tuple[str, ...], model: str) -> Layout:
    """The release as the attacker sees it, in the sampler's shape (:class:`Layout`): each
    record's count cells (:func:`feature_cells`), the records sorted by group and the published
    sensitive multiset of every group. Assumes ``attributes`` checked (:func:`check_attributes`),
    ``model`` one of ``MODELS`` and the release attackable (:func:`require_attackable`)."""
    cells, n_cells, feat_ptr = feature_cells(release, attributes, model)
    order = np.argsort(release.group, kind="stable").astype(np.int64)
    ptr = np.zeros(release.n_groups + 1, dtype=np.int64)
    np.cumsum(release.group_sizes, out=ptr[1:])
    hist = release.sensitive_histogram  # (groups, values): the published ST
    n_values = hist.shape[1]
    multiset = np.repeat(np.tile(np.arange(n_values), release.n_groups), hist.ravel())
    return Layout(cells, n_cells, order, ptr, multiset.astype(np.int64), n_values, feat_ptr)


def check_attributes(release: Release, attributes: Sequence[str] | None) -> tuple[str, ...]:
    """The attacker's quasi-identifiers as a tuple (default: all of the release's).

    Raises naming the valid ones when one is not a quasi-identifier, or when none is left.
    """
    qi = release.quasi_identifiers
    if attributes is None:
        attributes = qi
    attributes = tuple(attributes)
    unknown = [a for a in attributes if a not in qi]
    if unknown:
        raise AnonlabError(
            f"attributes {unknown} are not quasi-identifiers of the release; choose from {list(qi)}"
        )
    if not attributes:
        raise AnonlabError("the deFinetti attack needs at least one quasi-identifier attribute")
    return attributes


def require_attackable(release: Release) -> None:
    """Raise unless the release has per-record groups and at least 2 sensitive values."""
    if release.group is None:
        raise AnonlabError("the release has no per-record groups (a candidate from a search)")
    n_values = release.table.domain_size(release.sensitive)
    if n_values < 2:
        raise AnonlabError(
            f"sensitive attribute {release.sensitive!r} has {n_values} value; the attack needs "
            "at least 2"
        )


@takes_release
def random_worlds_posterior(release: Release, rows: np.ndarray | None = None) -> np.ndarray:
    """The random-worlds baseline: each member gets its group's value frequencies.

    ``P(t.S = v) = c_g(v) / |g|`` (Kifer §4, from Martin et al. and Machanavajjhala et al.).
    Shape ``(len(rows), n_values)``; all records when ``rows`` is None.
    """
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    freq = hist / np.maximum(release.group_sizes, 1)[:, None]
    group = release.group if rows is None else release.group[np.asarray(rows)]
    return freq[group]


@takes_release
def choose_targets(release: Release, count: int | None, seed: int = 0) -> np.ndarray:
    """``count`` distinct records drawn uniformly at random (sorted); all records when None."""
    n = release.table.n_rows
    if count is None:
        return np.arange(n)
    count = check_int("targets", count, minimum=1)
    if count > n:
        raise AnonlabError(f"targets must be at most the number of records ({n}), got {count}")
    return np.sort(rng_from_seed(seed).choice(n, size=count, replace=False))
