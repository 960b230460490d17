"""MASK (Wong, Fu, Wang, Pei, VLDB 2007): k-anonymize, then perturb the groups that violate
m-confidentiality.

Algorithm (Wong et al. §5; Jin et al. §2.2 and §6.3; notes/jin-asap-algorithm-safe-publishing.md
§2.6):

1. k-anonymize the table on its quasi-identifiers only (here strict Mondrian with ``k``), so the
   grouping never looks at the sensitive attribute;
2. a group *violates* m-confidentiality when some value of the sensitive set occurs in it more
   than ``⌊|G|/m⌋`` times; the other groups are *compliant* and are published unchanged;
3. for each violating group E, draw a compliant group E' uniformly at random and read off its
   proportion ``p`` of sensitive records; change sensitive values of E to non-sensitive values
   until E's sensitive proportion has dropped to ``p`` (and no sensitive value exceeds
   ``⌊|E|/m⌋``).

The papers leave the following open; each is a keyword parameter (default first):

* ``proportion`` — what is copied from E'. ``"total"``: the share of records whose value is in
  the sensitive set, as Jin et al. describe MASK (Table 2: ``p = 1/4`` AIDS taken from the Mexico
  group); because several sensitive values share that total, each sensitive value is also capped
  at ``⌊|E|/m⌋`` first (the per-value check of notes §2.6), so the group always complies.
  ``"per-value"``: each sensitive value's own share in E' is copied (capped the same way), which
  also reproduces E''s mix of sensitive values.
* ``rounding`` — how ``p·|E|`` becomes a count. ``"floor"``: the published proportion never
  exceeds the donor's, so perturbed groups are never more sensitive than the compliant group they
  imitate (and, with ``"per-value"``, ``⌊|E|·f'/|E'|⌋ <= ⌊|E|/m⌋`` holds without the cap).
  ``"nearest"`` (halves round up) and ``"ceil"`` keep more true values; the cap still applies.
  Counts only ever go *down*: a target above the group's current count leaves it as is.
* ``replacement`` — the value a changed record gets. ``"uniform"``: uniform over the
  non-sensitive values of the domain, the reading under which the PhD-25 attack of Jin et al.
  §8.2 bites (notes §5 E13). ``"global"``: drawn from the table's distribution of non-sensitive
  values, which keeps the marginal closer to the original.
* *Which* records change is not a parameter: within a group they are chosen uniformly at random,
  independently of the quasi-identifiers (notes §5 I3 — anything else leaks under
  bucketization, which publishes exact QI). With ``proportion="total"``, the cap removes random
  records of each over-cap value first, then random sensitive records of the group are removed
  until the target is met.
* Donor: a compliant group chosen uniformly (each violating group draws independently). If the
  table has no compliant group at all, there is no proportion to copy and
  :class:`~anonlab.errors.IneligibleError` is raised.

Every step is vectorised over groups (one histogram, one lexsort for the within-group ranks);
there is no Python loop over records or groups.

Known leak (Jin et al. Thm 5.2): the decision to perturb reads each group's unpublished S_max, so
an adversary who knows MASK learns which groups were perturbed; this module reproduces MASK as
published, the baseline for MASK+.

References
----------
R. C.-W. Wong, A. W.-C. Fu, K. Wang, J. Pei. Minimality attack in privacy preserving data
publishing. VLDB 2007, 543-554.
X. Jin, N. Zhang, G. Das. ASAP: Eliminating algorithm-based disclosure in privacy-preserving
data publishing. Information Systems 36(5), 2011 (§2.2, §6.3, §8.2).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab._validation import (
    check_choice,
    check_int,
    check_seed,
    rng_from_seed,
    takes_table_or_frame,
)
from anonlab.anonymize.mondrian import mondrian
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.grouping import group_histogram
from anonlab.release import SCHEMES, Release
from anonlab.table import Table

PROPORTIONS = ("total", "per-value")
ROUNDINGS = ("floor", "nearest", "ceil")
REPLACEMENTS = ("uniform", "global")


@takes_table_or_frame
def mask(
    table: Table,
    k: int,
    m: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    seed: int = 0,
    proportion: str = "total",
    rounding: str = "floor",
    replacement: str = "uniform",
) -> Release:
    """Publish ``table`` with MASK: Mondrian k-anonymity, then m-confidentiality by perturbation.

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute.
    k : int
        Every group has at least ``k`` records (k-anonymization on the quasi-identifiers).
    m : int
        1 <= m <= k. Every published group holds each sensitive value at most ``⌊|G|/m⌋`` times.
    sensitive_values : sequence of str
        The sensitive value set (e.g. Adult's education below 9th grade). Changed records get a
        value outside it, so at least one value must stay non-sensitive; the default ``None``
        (every value sensitive) is refused with an error that says so.
    scheme : {"generalization", "bucketization"}
        How the groups are published.
    seed : int
        Seed for donor groups, the records changed and their new values; stored in the manifest.
    proportion : {"total", "per-value"}
        What is copied from the donor group: the total share of sensitive records (default, as
        in Jin et al. §2.2) or each sensitive value's share. See the module docstring.
    rounding : {"floor", "nearest", "ceil"}
        How ``p·|E|`` is turned into a record count (default ``"floor"``: never above the
        donor's proportion).
    replacement : {"uniform", "global"}
        Distribution of the new values over the non-sensitive values: uniform (default) or the
        table's own frequencies.

    Returns
    -------
    Release
        ``published_sensitive`` holds the perturbed codes; the table keeps the originals (never
        exported). The manifest records the options, ``violating_groups``, ``compliant_groups``
        and ``perturbed_records`` (records whose published value differs from the original).

    Raises
    ------
    AnonlabError
        Bad parameter (named in the message), unknown sensitive value, or no non-sensitive value.
    IneligibleError
        Fewer than ``k`` records, or some group violates and no group complies.

    References
    ----------
    R. C.-W. Wong, A. W.-C. Fu, K. Wang, J. Pei. Minimality attack in privacy preserving data
    publishing. VLDB 2007.
    """
    k, m, scheme, seed = check_k_m(k, m, scheme, seed, why="MASK k-anonymizes first, and ")
    proportion = check_choice("proportion", proportion, PROPORTIONS)
    rounding = check_choice("rounding", rounding, ROUNDINGS)
    replacement = check_choice("replacement", replacement, REPLACEMENTS)
    sens_name = table.require_sensitive()
    if sensitive_values is not None and isinstance(sensitive_values, str | bytes):
        raise AnonlabError(
            f"parameter 'sensitive_values' must be a list of values, got the string "
            f"{sensitive_values!r}; write [{sensitive_values!r}]"
        )
    if sensitive_values is None:
        raise AnonlabError(
            "parameter 'sensitive_values' is required by MASK: it replaces sensitive values by "
            "non-sensitive ones, so name the sensitive values (e.g. ['Preschool', '1st-4th'])"
        )
    try:
        constrained = table.value_mask(sens_name, sensitive_values)
    except AnonlabError as exc:
        raise AnonlabError(f"parameter 'sensitive_values': {exc}") from None
    if constrained.all():
        raise AnonlabError(
            f"parameter 'sensitive_values' names every value of {sens_name!r}; MASK needs at "
            "least one non-sensitive value to perturb to"
        )

    base = mondrian(table, k=k, scheme=scheme, seed=seed)
    rng = rng_from_seed(seed)
    group, n_groups = base.group, base.n_groups
    codes = table.codes[sens_name]
    n_values = len(constrained)
    n = table.n_rows

    hist = group_histogram(group, codes, n_groups, n_values)
    sizes = hist.sum(axis=1)
    cap = sizes // m
    s_hist = np.where(constrained, hist, 0)
    violating = (s_hist > cap[:, None]).any(axis=1)
    compliant = np.flatnonzero(~violating)
    bad = np.flatnonzero(violating)
    if len(bad) and not len(compliant):
        raise IneligibleError(
            f"no group of the {k}-anonymization is {m}-confidential, so MASK has no compliant "
            f"group to copy a proportion from; lower m, or raise k (fewer, larger groups)"
        )

    # keep[g, v]: how many records of value v group g keeps (non-sensitive: all of them).
    keep = hist.copy()
    total_keep = np.full(n_groups, n, dtype=np.int64)  # no total limit outside violating groups
    if len(bad):
        donor = compliant[rng.integers(len(compliant), size=len(bad))]
        size_e = sizes[bad][:, None]
        size_d = sizes[donor][:, None]
        if proportion == "total":
            numer = s_hist[donor].sum(axis=1, keepdims=True)
        else:
            numer = s_hist[donor]
        target = _scale(numer * size_e, size_d, rounding)
        capped = np.minimum(hist[bad], cap[bad][:, None])
        if proportion == "total":
            keep[bad] = np.where(constrained, capped, hist[bad])
            total_keep[bad] = target[:, 0]
        else:
            keep[bad] = np.where(constrained, np.minimum(capped, target), hist[bad])

    # Rank records at random within (group, value); those past keep[g, v] change.
    key = rng.random(n)
    flat = group.astype(np.int64) * n_values + codes
    order = np.lexsort((key, flat))
    start = np.r_[0, np.cumsum(hist.ravel())[:-1]]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - start[flat[order]]
    change = rank >= keep.ravel()[flat]

    # proportion="total": then remove random remaining sensitive records down to the target.
    if proportion == "total" and len(bad):
        cand = np.flatnonzero(violating[group] & constrained[codes] & ~change)
        key2 = rng.random(len(cand))
        g_c = group[cand]
        o = np.lexsort((key2, g_c))
        counts = np.bincount(g_c, minlength=n_groups)
        first = np.r_[0, np.cumsum(counts)[:-1]]
        r2 = np.empty(len(cand), dtype=np.int64)
        r2[o] = np.arange(len(cand)) - first[g_c[o]]
        change[cand[r2 >= total_keep[g_c]]] = True

    changed = np.flatnonzero(change)
    published = codes.copy()
    others = np.flatnonzero(~constrained)
    if replacement == "uniform":
        published[changed] = others[rng.integers(len(others), size=len(changed))]
    else:
        freq = np.bincount(codes, minlength=n_values)[others].astype(np.float64)
        if freq.sum() == 0:  # no non-sensitive record in the table: fall back to uniform
            freq[:] = 1.0
        published[changed] = rng.choice(others, size=len(changed), p=freq / freq.sum())

    manifest = {
        "algorithm": "mask",
        "parameters": {
            "k": k,
            "m": m,
            "sensitive_values": [str(v) for v in sensitive_values],
            "proportion": proportion,
            "rounding": rounding,
            "replacement": replacement,
        },
        "seed": seed,
        "partition": "mondrian",
        "violating_groups": int(len(bad)),
        "compliant_groups": int(len(compliant)),
        "perturbed_records": int(len(changed)),
    }
    return Release(table, group, scheme, manifest, published_sensitive=published)


def check_k_m(
    k: object, m: object, scheme: object, seed: object, *, why: str = ""
) -> tuple[int, int, str, int]:
    """MASK's and MASK+'s common parameters, checked: ``(k, m, scheme, seed)``.

    ``k`` and ``m`` are integers with ``1 <= m <= k`` (a group of k records cannot be
    m-confidential when k < m; ``why`` opens that reason in the error), ``scheme`` one of
    :data:`~anonlab.release.SCHEMES`, ``seed`` a non-negative integer; checked in that order.
    """
    k = check_int("k", k, minimum=1)
    m = check_int("m", m, minimum=1)
    if m > k:
        raise AnonlabError(
            f"parameter 'm' must be <= k ({why}a group of k records cannot be {m}-confidential "
            f"when k < m); got k = {k}, m = {m}"
        )
    return k, m, check_choice("scheme", scheme, SCHEMES), check_seed(seed)


def _scale(numer: np.ndarray, denom: np.ndarray, rounding: str) -> np.ndarray:
    """``numer / denom`` as integers, rounded down, to nearest (halves up) or up."""
    if rounding == "floor":
        return numer // denom
    if rounding == "ceil":
        return -(-numer // denom)
    return (2 * numer + denom) // (2 * denom)
