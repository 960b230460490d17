"""Mondrian+ and Mondrian++ (Jin, Zhang, Das, ASAP, §6.2.1 Algorithm 1, §7 Algorithms 5-6).

*Global look-ahead* applied to ℓ-diverse Mondrian. Mondrian revokes a median cut of a partition
G into G1, G2 when a child violates ℓ-diversity, ``|Gi| < ℓ·S_max(Gi)``; that consults the
sensitive histogram of children that are never published, which an adversary who knows the
algorithm can exploit (Theorem 5.1). Mondrian+ changes this one test: the cut is allowed iff

    |G1| >= ℓ·S_max(G)   and   |G2| >= ℓ·S_max(G)                                   (§6.2.1)

with ``S_max(G)`` the *parent's* largest sensitive count. Each child is then ℓ-diverse even if
all ``S_max(G)`` copies of the most frequent value land in it (Eq. 20), and ``S_max(G)`` can be
read off the release, G being a union of published groups (Theorem 6.1: simulatable).

The printed Algorithm 1 is broken (notes/jin-asap-algorithm-safe-publishing.md §2.3, E1): line 4
uses G1 and G2 before line 5 creates them, and the children never re-enter ``InputSet``. The
fixed reading implemented here is the notes' per-split one:

    stack = [T]
    while stack:
        G = pop;  k = ℓ·S_max(G)
        cut = the first strict median cut of G, over the quasi-identifiers by decreasing
              normalized range, with both halves >= k
        if cut: push both halves (each re-examined with ITS OWN S_max)
        else:   publish G

Everything else is exactly :mod:`anonlab.anonymize.mondrian` (same dimension order, lower median,
strict cut, tie rules), so Mondrian+ and Mondrian differ only in the acceptance test: on a table
whose sensitive values are all distinct, Mondrian+ with ℓ equals Mondrian with ``k = ℓ``
(tested). The order in which partitions are processed does not change the result.

**Mondrian++** (Algorithm 5; Algorithm 6 in bucketization) = Mondrian+ followed by
:func:`~anonlab.anonymize.stratified_pickup.stratified_pickup` (Anatomy inside every group of at
least 2ℓ records), published in either scheme.

Choices where the paper is silent:

* ``sensitive_values`` (a subset of protected values): ``S_max`` counts only those values, so
  ``|child| >= ℓ·S_max(G)`` still bounds every protected value's share in the child by 1/ℓ.
* The manifest counts ``refused_splits``: median cuts (one per partition and attribute tried)
  with two non-empty halves that the look-ahead revoked, i.e. the trials where Mondrian+ fell
  back to the next attribute or published the partition whole.

References
----------
X. Jin, N. Zhang, G. Das. ASAP: Eliminating algorithm-based disclosure in privacy-preserving data
publishing. Information Systems 36(5), 2011, §6.2.1, §7.
K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Mondrian multidimensional k-anonymity. ICDE 2006.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab._validation import check_choice, check_int, check_seed, takes_table_or_frame
from anonlab.anonymize.eligibility import require_l_eligible
from anonlab.anonymize.mondrian import mondrian_kernel
from anonlab.errors import AnonlabError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table


def look_ahead_groups(
    qi: np.ndarray, sens: np.ndarray, constrained: np.ndarray, width: np.ndarray, l: int
) -> tuple[np.ndarray, int, int]:
    """Mondrian+ on raw arrays: (group per record, number of groups, refused cuts).

    ``qi`` (n, d) integer codes; ``sens`` sensitive codes; ``constrained`` bool mask over the
    sensitive domain; ``width`` the code range of each column (normalizes the ranges).
    """
    # Mondrian's kernel with the look-ahead acceptance test: the same dimension order, median
    # and strict cut, so Mondrian and Mondrian+ differ only in that test. The kernel permutes
    # its (d, n) columns and the sensitive codes in place: hand it copies.
    return mondrian_kernel(
        np.array(np.asarray(qi).T, order="C"),
        np.array(sens, dtype=np.int64),
        np.ascontiguousarray(constrained, dtype=np.bool_),
        np.ascontiguousarray(width, dtype=np.int64),
        1,
        int(l),
        True,
    )


def _validate(
    table: Table, l: int, sensitive_values: Sequence[str] | None, scheme: str, seed: int
) -> tuple[int, str, int, np.ndarray]:
    l = check_int("l", l, minimum=1)
    scheme = check_choice("scheme", scheme, SCHEMES)
    seed = check_seed(seed)
    sens = table.require_sensitive()
    if not table.quasi_identifiers:
        raise AnonlabError("Mondrian+ needs at least one quasi-identifier to cut on")
    if sensitive_values is not None and isinstance(sensitive_values, str | bytes):
        raise AnonlabError(
            f"parameter 'sensitive_values' must be a list of values, got the string "
            f"{sensitive_values!r}; write [{sensitive_values!r}]"
        )
    constrained = table.value_mask(sens, sensitive_values)
    require_l_eligible(table, l, constrained)
    return l, scheme, seed, constrained


def _parameters(l: int, sensitive_values: Sequence[str] | None) -> dict:
    return {
        "l": l,
        "sensitive_values": None
        if sensitive_values is None
        else [str(v) for v in sensitive_values],
    }


def _mondrian_plus_partition(
    table: Table, l: int, constrained: np.ndarray
) -> tuple[np.ndarray, int, int]:
    qi = table.qi_matrix()
    sens = table.codes[table.require_sensitive()]
    width = np.array([table.domain_size(q) - 1 for q in table.quasi_identifiers], dtype=np.int64)
    return look_ahead_groups(qi, sens, constrained, width, l)


@takes_table_or_frame
def mondrian_plus(
    table: Table,
    l: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """Partition ``table`` with Mondrian+ (global look-ahead; Jin et al. §6.2.1, Algorithm 1).

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute and at least one quasi-identifier.
    l : int
        ℓ >= 1. A cut of G is allowed iff both halves have at least ``ℓ·S_max(G)`` records.
    sensitive_values : sequence of str, optional
        Constrain only these values (``S_max`` counts only them). Default: every value.
    scheme : {"generalization", "bucketization"}
        How the groups are published.
    seed : int
        Mondrian+ is deterministic; the seed is only stored in the manifest.

    Returns
    -------
    Release
        Every group satisfies ``|G| >= ℓ·S_max(G)``. The manifest holds ``refused_splits``.

    Raises
    ------
    IneligibleError
        If the table is not ℓ-eligible (some protected value in more than n/ℓ records).
    """
    l, scheme, seed, constrained = _validate(table, l, sensitive_values, scheme, seed)
    group, _, refused = _mondrian_plus_partition(table, l, constrained)
    manifest = {
        "algorithm": "mondrian+",
        "parameters": _parameters(l, sensitive_values),
        "seed": seed,
        "look_ahead": "global",
        "refused_splits": int(refused),
    }
    return Release(table, group, scheme, manifest)


@takes_table_or_frame
def mondrian_plus_plus(
    table: Table,
    l: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """Mondrian++: Mondrian+ then stratified pick-up (Jin et al. §7, Algorithms 5 and 6).

    Parameters are those of :func:`mondrian_plus`; ``seed`` drives the random choices of the
    pick-up (Anatomy inside each group of at least 2ℓ records) and is stored in the manifest.
    In the bucketization scheme this is Algorithm 6 (exact QI published with each group's
    sensitive counts).

    Returns
    -------
    Release
        Manifest: ``refused_splits`` of the look-ahead, and the pick-up's ``pickup`` counts.
    """
    from anonlab.anonymize.stratified_pickup import pickup_groups

    l, scheme, seed, constrained = _validate(table, l, sensitive_values, scheme, seed)
    group, n_groups, refused = _mondrian_plus_partition(table, l, constrained)
    sens = table.codes[table.require_sensitive()]
    new_group, pickup = pickup_groups(group, n_groups, sens, constrained, l, seed)
    manifest = {
        "algorithm": "mondrian++",
        "parameters": _parameters(l, sensitive_values),
        "seed": seed,
        "look_ahead": "global",
        "refused_splits": int(refused),
        "pickup": pickup,
    }
    return Release(table, new_group, scheme, manifest)
