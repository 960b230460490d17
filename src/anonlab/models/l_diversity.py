"""ℓ-diversity in its four common forms: frequency, distinct, entropy and recursive (c,ℓ).

All four read the published sensitive histogram (shape (n_groups, n_values), shared by the checks
of a release in a narrow dtype: :func:`~anonlab.models.result.sensitive_counts`) and are
vectorised over groups, a block of groups at a time: no Python loop over records or groups, and
no float64 array of the histogram's size.

Notation: a group G has |G| records; its sensitive counts sorted in descending order are
r_1 >= r_2 >= ... >= r_m (m = number of values of the sensitive domain, zeros included);
S_max(G) = r_1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab._validation import check_float, check_int
from anonlab.errors import AnonlabError
from anonlab.grouping import row_blocks
from anonlab.models.result import (
    CheckResult,
    build_result,
    check_release,
    sensitive_counts,
    sensitive_value_mask,
)
from anonlab.release import Release

#: Absolute slack (in nats) when comparing a group's entropy with ln ℓ, so that a group whose
#: values are exactly uniform over ℓ values is not rejected by a rounding error.
ENTROPY_TOLERANCE = 1e-12


# ---------------------------------------------------------------------------------------------
# Kernels (prior validation assumed)
# ---------------------------------------------------------------------------------------------


def frequency_level(
    histogram: np.ndarray, sizes: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per group: S_max over the masked values, and the achieved level |G| / S_max.

    ``histogram`` may hold its counts in any integer dtype (:func:`sensitive_counts`); a subset
    of the values is gathered one block of groups at a time, so no (n_groups, n_masked) copy is
    made.

    Returns
    -------
    s_max : ndarray of shape (n_groups,), dtype=int64
    level : ndarray of shape (n_groups,), dtype=float64
        ``inf`` for a group that holds none of the masked values.
    """
    if mask.all():
        s_max = histogram.max(axis=1).astype(np.int64)
    else:
        columns = np.flatnonzero(mask)
        s_max = np.empty(len(histogram), dtype=np.int64)
        for rows in row_blocks(len(histogram), len(columns)):
            s_max[rows] = histogram[rows][:, columns].max(axis=1)
    level = np.full(len(sizes), np.inf)
    np.divide(sizes, s_max, out=level, where=s_max > 0)
    return s_max, level


def _distinct(histogram: np.ndarray) -> np.ndarray:
    """Number of non-zero counts per group (int64), one block of groups at a time (the
    ``!= 0`` mask of a whole histogram would be n_groups × n_values bytes)."""
    out = np.empty(len(histogram), dtype=np.int64)
    for rows in row_blocks(len(histogram), histogram.shape[1]):
        out[rows] = np.count_nonzero(histogram[rows], axis=1)
    return out


def _entropy(histogram: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Shannon entropy (natural log) of each group's sensitive distribution; 0·ln 0 = 0.

    Computed one block of groups at a time, so the float64 shares and logarithms are a few
    MiB instead of three n_groups × n_values float64 arrays; each group's sum is taken over
    the same row of the same values as on the whole histogram, so the result is the same.
    """
    out = np.empty(len(histogram), dtype=np.float64)
    for rows in row_blocks(len(histogram), histogram.shape[1]):
        p = histogram[rows] / sizes[rows, None]
        logp = np.zeros_like(p)
        np.log(p, out=logp, where=p > 0)
        np.multiply(p, logp, out=logp)
        out[rows] = -logp.sum(axis=1)
    return out


def _recursive_ratio(histogram: np.ndarray, l: int) -> np.ndarray:
    """r_1 / (r_l + ... + r_m) per group, counts sorted descending; inf when the tail is 0.

    One block of groups at a time, sorted ascending (the counts may be unsigned, which
    negation would wrap): r_1 is the last column and r_l..r_m are the first m − l + 1; the
    tail is summed in int64, so it is exact in any order.
    """
    n_values = histogram.shape[1]
    n_tail = max(n_values - l + 1, 0)
    head = np.empty(len(histogram), dtype=np.float64)
    tail = np.empty(len(histogram), dtype=np.int64)
    for rows in row_blocks(len(histogram), n_values):
        r = np.sort(histogram[rows], axis=1)
        head[rows] = r[:, -1]
        tail[rows] = r[:, :n_tail].sum(axis=1, dtype=np.int64)
    ratio = np.full(len(histogram), np.inf)
    np.divide(head, tail, out=ratio, where=tail > 0)
    return ratio


# ---------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------


def frequency_check(
    release: Release,
    model: str,
    parameter: str,
    value: int,
    sensitive_values: Sequence[object] | None,
    *,
    details: dict[str, str],
) -> CheckResult:
    """The frequency condition ``value · S_max(G) <= |G|`` checked on every group, as ``model``.

    The one computation behind frequency ℓ-diversity (:func:`l_diversity`, ``parameter="l"``)
    and m-confidentiality's frequency condition
    (:func:`~anonlab.models.m_confidentiality.m_confidentiality`, ``parameter="m"``): the
    release and ``value`` (an integer >= 1, named ``parameter`` in errors) are checked here;
    S_max is taken over ``sensitive_values`` (default: every value). A group violates iff
    ``S_max(G) > ⌊|G| / value⌋``, the same as ``value · S_max(G) > |G|`` for integers (and
    never overflows). ``per_group`` is the achieved level |G| / S_max(G); the result's
    ``details`` are ``details`` followed by ``protected_values``.
    """
    release = check_release(release)
    value = check_int(parameter, value, minimum=1)
    mask = sensitive_value_mask(release, sensitive_values)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    s_max, level = frequency_level(sensitive_counts(release), sizes, mask)
    params = {
        parameter: value,
        "sensitive_values": None if sensitive_values is None else list(sensitive_values),
    }
    return build_result(
        model,
        params,
        level,
        s_max > sizes // value,
        sizes,
        worst="min",
        details={**details, "protected_values": int(mask.sum())},
    )


def l_diversity(
    release: Release, *, l: int, sensitive_values: Sequence[object] | None = None
) -> CheckResult:
    """Check frequency ℓ-diversity: in every group the most frequent value covers <= 1/ℓ.

    A group G satisfies it iff ``|G| >= ℓ · S_max(G)``, where S_max(G) is the largest count of
    a sensitive value in G (Xiao & Tao 2006, Definition 2; the form the Anatomy, foreground-
    knowledge and deFinetti papers use). An adversary who knows a target's group then infers
    any one sensitive value with probability at most 1/ℓ (random-worlds reasoning).

    With ``sensitive_values``, S_max is taken over those values only: the guarantee is then
    only for them, and a group that holds none of them satisfies the model.

    Parameters
    ----------
    release : Release
    l : int
        ℓ >= 1.
    sensitive_values : sequence, optional
        Values of the sensitive attribute to protect (default: all).

    Returns
    -------
    CheckResult
        ``per_group`` is |G| / S_max(G) (float; ``inf`` when G holds none of the protected
        values), the group's achieved ℓ; ``value`` is its minimum; a group violates iff
        ``|G| < ℓ · S_max(G)`` (tested in integers, so exact).

    Notes
    -----
    This is neither entropy ℓ-diversity nor recursive (c,ℓ)-diversity; see
    :func:`entropy_l_diversity` and :func:`recursive_cl_diversity`. The condition for a real
    threshold α = 1/ℓ is (α, k)-anonymity's α part (Wong et al. 2006).

    References
    ----------
    .. [1] X. Xiao and Y. Tao. "Anatomy: simple and effective privacy preservation". VLDB 2006,
       139-150 (Definition 2).
    .. [2] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam. "ℓ-diversity:
       privacy beyond k-anonymity". ACM TKDD 1(1), 2007.

    Examples
    --------
    The Anatomy notes' 2-diverse group of 4 (2 dyspepsia, 2 pneumonia):

    >>> import pandas as pd
    >>> from anonlab import Release, Table
    >>> df = pd.DataFrame({"age": [23, 27, 35, 59],
    ...                    "disease": ["dyspepsia", "pneumonia", "dyspepsia", "pneumonia"]})
    >>> t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="disease")
    >>> r = l_diversity(Release(t, [0, 0, 0, 0], "bucketization"), l=2)
    >>> r.holds, r.value
    (True, 2.0)
    """
    return frequency_check(
        release,
        "l-diversity",
        "l",
        l,
        sensitive_values,
        details={"condition": "|G| >= l * S_max(G)"},
    )


def distinct_l_diversity(release: Release, *, l: int) -> CheckResult:
    """Check distinct ℓ-diversity: every group holds at least ℓ distinct sensitive values.

    The weakest reading of the ℓ-diversity principle (Machanavajjhala et al. 2007; named
    "distinct ℓ-diversity" by Li et al. 2007, §2; ARX's ``DistinctLDiversity``; pyCANON's
    ``l_diversity``). It does not
    bound the frequency of a value: a group of 100 records with 98 of one value and one each
    of two others is distinct 3-diverse.

    Parameters
    ----------
    release : Release
    l : int
        ℓ >= 1.

    Returns
    -------
    CheckResult
        ``per_group`` is the number of distinct published sensitive values in the group
        (int64); ``value`` is its minimum; a group violates iff it has fewer than ℓ.

    References
    ----------
    .. [1] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam. "ℓ-diversity:
       privacy beyond k-anonymity". ACM TKDD 1(1), 2007.
    .. [2] N. Li, T. Li and S. Venkatasubramanian. "t-Closeness: privacy beyond k-anonymity
       and ℓ-diversity". ICDE 2007, 106-115.
    """
    release = check_release(release)
    l = check_int("l", l, minimum=1)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    distinct = _distinct(sensitive_counts(release))
    return build_result(
        "distinct-l-diversity", {"l": l}, distinct, distinct < l, sizes, worst="min"
    )


def entropy_l_diversity(release: Release, *, l: float) -> CheckResult:
    """Check entropy ℓ-diversity: every group's sensitive entropy is at least ln ℓ.

    Entropy(G) = -Σ_s p(G, s) ln p(G, s), with p(G, s) the share of value s in G and
    0 · ln 0 = 0 (Machanavajjhala et al. 2007, §4, entropy ℓ-diversity). Natural logarithms
    are used; the condition does not depend on the base, but reported entropies would.

    Parameters
    ----------
    release : Release
    l : float
        ℓ >= 1 (need not be an integer).

    Returns
    -------
    CheckResult
        ``per_group`` is exp(Entropy(G)), the group's achieved entropy ℓ (the "effective
        number" of values: k for k equally frequent values); ``value`` = exp(min Entropy) =
        min ``per_group``. A group violates iff Entropy(G) < ln ℓ − 1e-12 (a rounding slack,
        :data:`ENTROPY_TOLERANCE`, so that a group uniform over ℓ values passes).
        ``details["min_entropy_nats"]`` is the smallest entropy, in nats.

    Notes
    -----
    pyCANON's ``entropy_l_diversity`` reports ``int(exp(min entropy))``, i.e. this ``value``
    rounded down.

    References
    ----------
    .. [1] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam. "ℓ-diversity:
       privacy beyond k-anonymity". ACM TKDD 1(1), 2007, §4 (entropy ℓ-diversity).
    """
    release = check_release(release)
    l = check_float("l", l, low=1.0)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    entropy = _entropy(sensitive_counts(release), sizes)
    violating = entropy < np.log(l) - ENTROPY_TOLERANCE
    details = {
        "log_base": "e",
        "min_entropy_nats": float(entropy.min()) if len(entropy) else None,
        "condition": "Entropy(G) >= ln(l)",
    }
    return build_result(
        "entropy-l-diversity",
        {"l": l},
        np.exp(entropy),
        violating,
        sizes,
        worst="min",
        details=details,
    )


def recursive_cl_diversity(release: Release, *, c: float, l: int) -> CheckResult:
    """Check recursive (c,ℓ)-diversity: r_1 < c · (r_ℓ + r_{ℓ+1} + ... + r_m) in every group.

    r_1 >= r_2 >= ... >= r_m are the group's sensitive counts sorted in *descending* order
    (Machanavajjhala et al. 2007, §4, recursive (c,ℓ)-diversity): the most frequent value
    must not dominate the values from the ℓ-th most frequent on. A group with fewer than ℓ
    distinct values has an empty (zero) tail and violates the model for every c.

    Parameters
    ----------
    release : Release
    c : float
        c > 0.
    l : int
        ℓ >= 1.

    Returns
    -------
    CheckResult
        ``per_group`` is r_1 / (r_ℓ + ... + r_m) (``inf`` when the tail is empty); ``value`` is
        its maximum, the smallest c the release fails (it satisfies every c above ``value``); a
        group violates iff its ratio is >= c (the inequality is strict).

    Notes
    -----
    pyCANON 1.3.6's ``recursive_c_l_diversity`` sorts each class's counts in *ascending* order
    (smallest first) and uses ℓ = the table's distinct ℓ, so its c differs from this one; see
    ``docs/models.md``.

    References
    ----------
    .. [1] A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam. "ℓ-diversity:
       privacy beyond k-anonymity". ACM TKDD 1(1), 2007, §4 (recursive (c,ℓ)-diversity).
    """
    release = check_release(release)
    c = check_float("c", c, low=0.0)
    if c <= 0:
        raise AnonlabError(f"parameter 'c' must be a number > 0, got {c!r}")
    l = check_int("l", l, minimum=1)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    ratio = _recursive_ratio(sensitive_counts(release), l)
    return build_result(
        "recursive-cl-diversity",
        {"c": c, "l": l},
        ratio,
        ratio >= c,
        sizes,
        worst="max",
        details={"condition": "r_1 < c * (r_l + ... + r_m), counts sorted descending"},
    )
