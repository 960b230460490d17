"""t-closeness with the Earth Mover's Distance of Li, Li and Venkatasubramanian (ICDE 2007).

A group G is t-close iff the EMD between the distribution P of the sensitive attribute in G and
its distribution Q in the whole (published) table is at most t. The EMD is the minimum cost of
moving the probability mass of P onto Q when moving a unit of mass from value v_i to v_j costs
the *ground distance* d(v_i, v_j) (Li et al. 2007, §4.1). Three ground distances, each in
[0, 1] (§4.2):

* **equal** (categorical, no hierarchy): d = 1 between any two different values, giving
  ``D[P, Q] = ½ Σ_i |p_i − q_i|``.
* **ordered** (numeric): values sorted, v_1 < ... < v_m, d(v_i, v_j) = |i − j| / (m − 1),
  giving ``D[P, Q] = 1/(m − 1) · Σ_{i=1..m} |Σ_{j=1..i} (p_j − q_j)|``.
* **hierarchical** (categorical with a hierarchy of height H): d(v_i, v_j) =
  level(v_i, v_j) / H, the height of the lowest common ancestor over H. With
  extra(N) = Σ_{leaves v under N} (p_v − q_v), pos_extra(N) / neg_extra(N) the sums of the
  positive / the absolute negative extra(C) over the children C of N, and
  ``cost(N) = height(N) / H · min(pos_extra(N), neg_extra(N))``,
  the EMD is ``D[P, Q] = Σ_{non-leaf N} cost(N)``.

Exactness. With n records, |G| records in G and integer counts, n·|G|·(p_i − q_i) is an integer,
so every numerator above is summed in int64 and divided once: the reported distance is the
exact rational value correctly rounded to a float (e.g. 0.375 is exactly 0.375), and the
comparison with t has no accumulated rounding error. (Very large tables, where the integers
could overflow, fall back to float64 arithmetic.)
"""

from __future__ import annotations

import numpy as np

from anonlab._validation import check_choice, check_float
from anonlab.errors import AnonlabError
from anonlab.grouping import row_blocks
from anonlab.hierarchy import Hierarchy
from anonlab.models.result import CheckResult, build_result, check_release, sensitive_counts
from anonlab.release import Release
from anonlab.schema import Attribute, Kind

DISTANCES = ("auto", "equal", "ordered", "hierarchical")

#: Above this bound on |numerator| the int64 path could overflow; use float64 instead.
_INT_LIMIT = 2**62


# ---------------------------------------------------------------------------------------------
# Kernels: EMD numerators over the scaled difference  diff = n·|G|·(P − Q)  (prior validation
# is assumed). Each returns one number per group, to be divided by (n · |G| · normaliser).
# ---------------------------------------------------------------------------------------------


def _equal_numerator(diff: np.ndarray) -> np.ndarray:
    """Σ_i |diff_i| (to be divided by 2 n |G|)."""
    return np.abs(diff).sum(axis=1)


def _ordered_numerator(diff: np.ndarray) -> np.ndarray:
    """Σ_i |Σ_{j<=i} diff_j| (to be divided by (m − 1) n |G|)."""
    return np.abs(np.cumsum(diff, axis=1)).sum(axis=1)


def _hierarchy_levels(hierarchy: Hierarchy) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Per level j = 1..H of ``hierarchy``: (j, order, starts), where ``order`` gathers the
    nodes of level j − 1 by parent (a stable sort of their parent codes) and ``starts`` are
    the first position of each parent in that order. The same for every group, so
    :func:`_hierarchical_numerator` computes it once for all blocks of groups."""
    levels = []
    width = len(hierarchy)
    matrix = hierarchy.matrix
    for level in range(1, hierarchy.height + 1):
        child, parent = matrix[:, level - 1], matrix[:, level]
        parent_of = np.empty(width, dtype=np.int64)
        parent_of[child] = parent
        order = np.argsort(parent_of, kind="stable")
        sorted_parents = parent_of[order]
        starts = np.flatnonzero(np.r_[True, sorted_parents[1:] != sorted_parents[:-1]])
        levels.append((level, order, starts))
        width = len(starts)
    return levels


def _hierarchical_numerator(
    diff: np.ndarray,
    leaf_of_code: np.ndarray,
    hierarchy: Hierarchy,
    levels: list[tuple[int, np.ndarray, np.ndarray]] | None = None,
) -> np.ndarray:
    """Σ_N height(N) · min(pos_extra(N), neg_extra(N)) (to be divided by H n |G|).

    One pass per level, bottom-up: the extras of the nodes at level j − 1 are summed into their
    parents at level j with ``np.add.reduceat`` (children of one parent are gathered by a stable
    sort of their parent codes, ``levels``: :func:`_hierarchy_levels`). In the ARX format every
    leaf is at depth H, so a node at level j has height j.
    """
    if levels is None:
        levels = _hierarchy_levels(hierarchy)
    n_groups = diff.shape[0]
    extra = np.zeros((n_groups, len(hierarchy)), dtype=diff.dtype)
    extra[:, leaf_of_code] = diff
    total = np.zeros(n_groups, dtype=diff.dtype)
    for level, order, starts in levels:
        ordered = extra[:, order]
        pos = np.add.reduceat(np.maximum(ordered, 0), starts, axis=1)
        neg = np.add.reduceat(np.maximum(-ordered, 0), starts, axis=1)
        total += level * np.minimum(pos, neg).sum(axis=1)
        extra = pos - neg  # extra of each node at this level, indexed by node code
    return total


def default_distance(attribute: Attribute) -> str:
    """The ground distance Li et al. use for an attribute of this kind.

    Numeric -> ``"ordered"``; categorical with a hierarchy -> ``"hierarchical"``; other
    categorical -> ``"equal"``.
    """
    if attribute.kind is Kind.NUMERIC:
        return "ordered"
    return "hierarchical" if attribute.hierarchy is not None else "equal"


def emd_per_group(release: Release, distance: str) -> tuple[np.ndarray, dict]:
    """EMD between each group's published sensitive distribution and the whole table's.

    Prior validation is assumed (``distance`` resolved, a hierarchy present if needed).

    Returns
    -------
    emd : ndarray of shape (n_groups,), dtype=float64
    details : dict
        The distance used and its normaliser (m − 1 or H).
    """
    table = release.table
    name = release.sensitive
    hist = sensitive_counts(release)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    n_values = hist.shape[1]
    total = hist.sum(axis=0, dtype=np.int64)
    if release.reference_counts is not None:  # records withheld by suppression still count
        total = np.asarray(release.reference_counts, dtype=np.int64)
    n = int(total.sum())
    details: dict = {"distance": distance}
    hierarchy = None
    width = n_values
    if distance == "ordered":
        norm = max(n_values - 1, 1)
        details["m"] = n_values
    elif distance == "hierarchical":
        hierarchy = table.schema[name].hierarchy
        norm = hierarchy.height
        if norm == 0:  # a leaf-only (ARX: never generalized) hierarchy has no distance scale
            raise AnonlabError(
                f"hierarchical distance: the hierarchy of {name!r} has only its leaf column "
                "(height 0), so no two values have a common ancestor to measure by; give it "
                "levels above the leaves, or use distance='equal'"
            )
        width = max(n_values, len(hierarchy))
        details["hierarchy_height"] = norm
    else:
        norm = 2
    # Every |diff|, partial sum and node extra is <= n·|G| <= n²; a numerator adds at most
    # `width` of them per level, weighted by at most `norm`.
    exact = float(n) ** 2 * (width + 1) * (norm + 1) < _INT_LIMIT
    if exact:
        total = total.astype(np.int64)
        scale = sizes * n
        num = np.empty(len(sizes), dtype=np.int64)
    else:
        scale = np.ones(len(sizes))
        num = np.empty(len(sizes), dtype=np.float64)
    if distance == "hierarchical":
        leaf_of_code = table.leaf_codes(name)
        levels = _hierarchy_levels(hierarchy)
    # One block of groups at a time: diff and the kernels' temporaries are a few MiB, not
    # several n_groups × n_values int64 arrays; each group's numerator is computed from its
    # own row exactly as on the whole histogram.
    for rows in row_blocks(len(sizes), width):
        if exact:
            diff = hist[rows].astype(np.int64)
            diff *= n
            diff -= sizes[rows, None] * total[None, :]
        else:
            diff = hist[rows] / sizes[rows, None] - total[None, :] / n
        if distance == "equal":
            num[rows] = _equal_numerator(diff)
        elif distance == "ordered":
            num[rows] = _ordered_numerator(diff) if n_values > 1 else 0
        else:
            num[rows] = _hierarchical_numerator(diff, leaf_of_code, hierarchy, levels)
    emd = num / (scale * norm)
    return np.asarray(emd, dtype=np.float64), details


def t_closeness(release: Release, *, t: float, distance: str = "auto") -> CheckResult:
    """Check t-closeness: every group's sensitive distribution is within EMD t of the table's.

    The whole-table distribution Q is that of the published sensitive values of all records
    (what an adversary sees; after suppression, of all input records, as ARX does:
    ``release.reference_counts``), and each group's P that of its published values. See the module
    docstring for the three ground distances and their closed forms (Li et al. 2007, §4.2).

    Parameters
    ----------
    release : Release
    t : float
        Threshold in [0, 1].
    distance : {"auto", "equal", "ordered", "hierarchical"}, default="auto"
        Ground distance. ``"auto"``: ordered for a numeric sensitive attribute, hierarchical
        for a categorical one with a hierarchy, equal otherwise (Li et al.'s choices). Forcing
        ``"ordered"`` on a categorical attribute uses its code order (hierarchy leaf order, or
        labels sorted); ``"hierarchical"`` needs a hierarchy on the sensitive attribute.

    Returns
    -------
    CheckResult
        ``per_group`` is each group's EMD (float64); ``value`` is the largest (the smallest t
        the release satisfies); a group violates iff its EMD > t. ``parameters["distance"]`` is
        the distance used; ``details`` records its normaliser (``m`` or ``hierarchy_height``).

    References
    ----------
    .. [1] N. Li, T. Li and S. Venkatasubramanian. "t-Closeness: privacy beyond k-anonymity
       and ℓ-diversity". ICDE 2007, 106-115 (§4: EMD and its ground distances).
    .. [2] Y. Rubner, C. Tomasi and L. J. Guibas. "The Earth Mover's Distance as a metric for
       image retrieval". IJCV 40(2), 99-121, 2000.

    Examples
    --------
    Li et al.'s salary example: the group {3k, 4k, 5k} of a table with salaries 3k..11k.

    >>> import pandas as pd
    >>> from anonlab import Release, Table
    >>> df = pd.DataFrame({"zip": range(9), "salary": [3, 4, 5, 6, 7, 8, 9, 10, 11]})
    >>> tab = Table.from_frame(df, quasi_identifiers=["zip"], sensitive="salary")
    >>> r = t_closeness(Release(tab, [0, 0, 0, 1, 1, 1, 1, 1, 1], "generalization"), t=0.2)
    >>> float(r.per_group[0]), r.parameters["distance"], r.holds
    (0.375, 'ordered', False)
    """
    release = check_release(release)
    t = check_float("t", t, low=0.0, high=1.0)
    distance = check_choice("distance", distance, DISTANCES)
    attribute = release.table.schema[release.sensitive]
    if distance == "auto":
        distance = default_distance(attribute)
    if distance == "hierarchical" and attribute.hierarchy is None:
        raise AnonlabError(
            f"parameter 'distance' is 'hierarchical' but the sensitive attribute "
            f"{attribute.name!r} has no hierarchy; give it one, or use 'equal' or 'ordered'"
        )
    emd, details = emd_per_group(release, distance)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    return build_result(
        "t-closeness",
        {"t": t, "distance": distance},
        emd,
        emd > t,
        sizes,
        worst="max",
        details=details,
    )
