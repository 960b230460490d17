"""k-anonymity: every group holds at least k records."""

from __future__ import annotations

import numpy as np

from anonlab._validation import check_int
from anonlab.models.result import CheckResult, build_result, check_release
from anonlab.release import Release


def k_anonymity(release: Release, *, k: int) -> CheckResult:
    """Check k-anonymity: each group (equivalence class) has at least ``k`` records.

    Under generalization each group is a set of records with the same published
    quasi-identifiers, so every record is indistinguishable from at least ``k - 1`` others
    (Samarati & Sweeney 1998; Sweeney 2002). Under bucketization the same count bounds how many
    records share a group id.

    Parameters
    ----------
    release : Release
    k : int
        Minimum group size, ``k >= 1``.

    Returns
    -------
    CheckResult
        ``per_group`` is each group's size (int64); ``value`` is the smallest group size (the
        release's achieved k); a group violates iff its size is below ``k``.

    References
    ----------
    .. [1] L. Sweeney. "k-anonymity: a model for protecting privacy". International Journal of
       Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 557-570, 2002.
    .. [2] P. Samarati and L. Sweeney. "Protecting privacy when disclosing information:
       k-anonymity and its enforcement through generalization and suppression". SRI technical
       report SRI-CSL-98-04, 1998.

    Examples
    --------
    >>> import pandas as pd
    >>> from anonlab import Release, Table
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2, 2], "disease": ["a", "b", "a", "a", "b"]})
    >>> table = Table.from_frame(df, quasi_identifiers=["zip"], sensitive="disease")
    >>> r = k_anonymity(Release(table, df["zip"].to_numpy(), "generalization"), k=3)
    >>> r.holds, r.value, r.violating_groups.tolist()
    (False, 2, [0])
    """
    release = check_release(release)
    k = check_int("k", k, minimum=1)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    return build_result("k-anonymity", {"k": k}, sizes.copy(), sizes < k, sizes, worst="min")
