"""The candidate worlds: every original table ``T'`` the adversary cannot rule out.

Jin, Zhang, Das (ASAP, Information Systems 2011, Def. 3): for an algorithm that perturbs only
quasi-identifiers, each group's values are exactly its published multiset (permuted among its
members); for one that perturbs the sensitive values, the values are free except for the stated
multiset (``knowledge="multiset"``) or the domain. :func:`count_worlds` counts them before
anything is enumerated, :func:`candidate_worlds` lists them as a ``(worlds, n_rows)`` array of
sensitive codes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release


def _multinomial(counts: Sequence[int]) -> int:
    total = math.factorial(int(sum(counts)))
    for c in counts:
        total //= math.factorial(int(c))
    return total


def _multiset_permutations(values: np.ndarray) -> np.ndarray:
    """Every distinct ordering of ``values``, shape (count, len(values)) (lexicographic)."""
    a = np.sort(np.asarray(values, dtype=np.int64)).tolist()
    n = len(a)
    out = [list(a)]
    while True:  # next lexicographic permutation
        i = n - 2
        while i >= 0 and a[i] >= a[i + 1]:
            i -= 1
        if i < 0:
            break
        j = n - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
        a[i + 1 :] = reversed(a[i + 1 :])
        out.append(list(a))
    return np.array(out, dtype=np.int64).reshape(len(out), n)


def _cartesian(blocks: list[np.ndarray], columns: list[np.ndarray], n: int) -> np.ndarray:
    """Combine per-block alternatives (rows of each block) into full assignments."""
    sizes = [len(b) for b in blocks]
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    out = np.empty((total, n), dtype=np.int64)
    idx = np.indices(sizes).reshape(len(sizes), -1) if sizes else np.zeros((0, 1), np.int64)
    for b, (block, cols) in enumerate(zip(blocks, columns, strict=True)):
        out[:, cols] = block[idx[b]]
    return out


def original_counts(
    release: Release, knowledge: str, multiset: np.ndarray | None
) -> np.ndarray | None:
    """The stated multiset (counts per sensitive code) the candidates of a perturbing algorithm
    keep; default: the release's own original values (the publisher's call).

    None unless ``knowledge == "multiset"``. A given ``multiset`` must hold one count >= 0 per
    sensitive value, summing to the number of records (an :class:`AnonlabError` otherwise).
    """
    if knowledge != "multiset":
        return None
    n_values = release.table.domain_size(release.sensitive)
    if multiset is None:
        return np.bincount(release.table.codes[release.sensitive], minlength=n_values)
    counts = np.asarray(multiset, dtype=np.int64)
    if counts.shape != (n_values,) or counts.min(initial=0) < 0:
        raise AnonlabError(
            f"multiset must hold one count per sensitive value ({n_values}), got {counts}"
        )
    if int(counts.sum()) != release.table.n_rows:
        raise AnonlabError(
            f"multiset counts {int(counts.sum())} values; the release has "
            f"{release.table.n_rows} records"
        )
    return counts


def count_worlds(
    release: Release,
    knowledge: str = "multiset",
    face_value: bool = False,
    *,
    multiset: np.ndarray | None = None,
) -> int:
    """How many candidate tables there are (before negative facts and constraints).

    ``face_value``: the release's group multisets are taken as the original values (always so
    for an algorithm that perturbs only quasi-identifiers: each group's published multiset is
    all that is read). ``multiset``: for an algorithm that perturbs sensitive values under
    ``knowledge="multiset"``, the stated count of each original value (:class:`AsapKnowledge`);
    default: counted from the release's table, i.e. the publisher's ground truth.
    """
    table = release.table
    n_values = table.domain_size(release.sensitive)
    if release.published_sensitive is None or face_value:
        hist = release.sensitive_histogram
        return math.prod(_multinomial(row[row > 0]) for row in hist)
    if knowledge == "multiset":
        return _multinomial(original_counts(release, knowledge, multiset))
    return n_values**table.n_rows


def candidate_worlds(
    release: Release,
    knowledge: str = "multiset",
    face_value: bool = False,
    *,
    multiset: np.ndarray | None = None,
) -> np.ndarray:
    """Every candidate assignment of sensitive codes, shape (worlds, n_rows) (see
    :func:`count_worlds`, also for ``multiset``)."""
    table = release.table
    n = table.n_rows
    n_values = table.domain_size(release.sensitive)
    if release.published_sensitive is None or face_value:
        pub = release.sensitive_codes
        blocks, columns = [], []
        for g in range(release.n_groups):
            members = np.flatnonzero(release.group == g)
            blocks.append(_multiset_permutations(pub[members]))
            columns.append(members)
        return _cartesian(blocks, columns, n)
    if knowledge == "multiset":
        counts = original_counts(release, knowledge, multiset)
        return _multiset_permutations(np.repeat(np.arange(n_values), counts))
    return np.indices([n_values] * n).reshape(n, -1).T.astype(np.int64)
