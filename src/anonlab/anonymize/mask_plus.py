"""MASK+ and MASK++ (Jin, Zhang, Das, ASAP, §6.3 Algorithm 3, §7): local look-ahead.

MASK (:mod:`anonlab.anonymize.mask`) perturbs exactly the k-anonymous groups that violate
m-confidentiality, so the *decision* reveals an unpublished ``S_max`` (Theorem 5.2). MASK+ never
reads a sensitive frequency that could turn out to violate m-confidentiality. For each
k-anonymous group G (here: strict Mondrian with ``k``, on the quasi-identifiers only), with
``cap = ⌊|G|/m⌋`` and ``D = |D_S|`` (the sensitive domain of the table; absent values count 0):

1. sort G's frequencies ascending, ``f_1 <= ... <= f_D`` (ties by code order: label order, or
   hierarchy-leaf order, which reproduces the paper's example);
2. ``f_1`` is always read; for ``i = 2 .. D−1`` read ``f_i`` iff
   ``(|G| − Σ_{j<i} f_j − f_{i−1}) / (D − i) <= cap`` (the worst case of Eq. 21);
3. if every ``f_2 .. f_{D−1}`` is read, ``f_D`` is implied (``<= cap``): G is published as is;
4. otherwise, with ``r`` values read (*Type-1*), the published frequencies are
   ``f'_j = f_j`` for ``j <= r``; every *Type-2* value starts at ``f_r``; then, from ``j = D``
   down to ``r + 1``, ``f'_j = min(cap, f'_j + residual)`` until the residual is 0.

The published group keeps the exact Type-1 frequencies and the fact that every Type-2 value is at
least every Type-1 value — all MASK+ used — and every value is at most ``cap`` (Theorem 6.3).

Fixes of the printed Algorithm 3 (notes §2.7, E5, E8):

* **Boundary (E5).** As printed, the loop leaves at ``i = D−1`` without testing the condition
  there and so skips a needed perturbation (D = 6, |G| = 4, m = 2, ``<0,0,0,0,0,4>``). Here the
  condition is tested for every ``i = 2 .. D−1``.
* **Feasibility (E8).** Footnote 4's ``⌊|G|/m⌋·D >= |G|`` does not make step 4 feasible (D = 4,
  |G| = 4, m = 3, ``<0,0,2,2>``: the fill reaches 3 < 4). MASK+ requires
  ``⌊|G|/m⌋·(D − 1) >= |G|`` for every k-anonymous group — a condition on the public group sizes
  only, which makes step 4 always feasible (for ``r = 1`` directly, for ``r >= 2`` by the
  successful read of ``f_r``) — and otherwise raises :class:`~anonlab.errors.IneligibleError`
  naming the group size and what would be valid. Nothing is published in that case (no silent
  fallback).

Tuple level (notes §2.7 [RECON], I3): for each value v the group keeps ``min(f_v, f'_v)`` of its
records, chosen uniformly at random independently of the quasi-identifiers; the surplus records
are given, in random order, the values with a deficit ``f'_v − f_v``.

**MASK++** = MASK+ then :mod:`stratified pick-up <anonlab.anonymize.stratified_pickup>` with
ℓ = m on the published values (every MASK+ group is m-eligible: each value ``<= ⌊|G|/m⌋``).
Note that pick-up yields groups of m to 2m−1 records: a MASK++ release is m-confidential, not
k-anonymous for the k of its first step (as in the paper: "smaller k generates more small-sized
k-anonymous groups, and thus the effect of our stratified pick-up is weakened", §8.2.2).

Choices where the paper is silent:

* **Sensitive set** (``sensitive_values``, ``as_one_value``). The paper formalizes MASK+ with
  every SA value capped (§6.3), while its experiment protects four education values, as MASK
  does (E10; issue 18, part 5). With a protected subset ``S`` (same meaning as MASK's: each value
  of ``S`` at most ``⌊|G|/m⌋``; the others unconstrained) the algorithm above is kept with two
  changes, both reducing to the printed algorithm when ``S`` is every value: (a) the read test
  of step 2 is applied only while some unread value is in ``S`` — once every protected value has
  been read (each within the cap), no later read can violate, so the group is published as is;
  (b) in step 4 only values of ``S`` are capped: the fill runs as printed (every Type-2 value up
  to ``cap``) and what it cannot place goes to the unprotected Type-2 value first in the fill
  order. In the ascending order, ties put protected values first (then code order), so a
  protected value absent from the group is read first rather than after the unprotected zeros.
  The published group keeps what the printed algorithm keeps (Type-1 frequencies exact, Type-2
  values at least ``f_r``), the identities of the values being public, so the argument of
  Theorem 6.3 carries over; it is ours, not the paper's. The fill is always feasible when at
  least two values are unprotected (a stop with every Type-2 value protected then has ``r >= 2``
  and the successful read of ``f_r`` bounds the residual); with at most one, E8's condition is
  required as printed. ``as_one_value=True`` protects ``S`` as one value ("below high school"):
  the look-ahead runs on the histogram with ``S`` merged into one column (at the position of its
  first value), and a record moved *into* the set gets one of its values uniformly at random.
  MASK++'s pick-up then constrains the protected values only (the merged column under
  ``as_one_value``), every other record a bucket of its own, as in
  :func:`~anonlab.anonymize.anatomy.anatomy`.
* **Fill order (I2).** By default (``fill="paper"``) ties in the ascending order go by code and
  Type-2 values are filled from the highest original frequency down, as printed; which values
  end up at ``cap`` then reveals the original order (an uneven fill shows which Type-2 value was
  smallest; a tie shows which absent value served as filler). ``fill="random"`` breaks ties and
  orders the fill at random instead (the notes' option; costs some utility, since records of
  frequent Type-2 values may be moved). See docs/asap.md for what the ASAP checker says of both.
* The k-anonymization is strict Mondrian with ``k`` (any k-anonymization is allowed, line 3).

References
----------
X. Jin, N. Zhang, G. Das. ASAP: Eliminating algorithm-based disclosure in privacy-preserving data
publishing. Information Systems 36(5), 2011, §6.3, §7, §8.2.
R. C.-W. Wong, A. W.-C. Fu, K. Wang, J. Pei. Minimality attack in privacy preserving data
publishing. VLDB 2007.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab._validation import (
    check_choice,
    rng_from_seed,
    takes_table_or_frame,
)
from anonlab.anonymize.mask import check_k_m
from anonlab.anonymize.mondrian import mondrian
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.grouping import group_histogram
from anonlab.release import Release
from anonlab.table import Table

#: How MASK+ orders ties and fills Type-2 values (see :func:`local_look_ahead`).
FILLS = ("paper", "random")


def local_look_ahead(
    hist: np.ndarray,
    m: int,
    *,
    sensitive: np.ndarray | None = None,
    check_feasible: bool = True,
    fill: str = "paper",
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """MASK+'s published frequencies for each group's sensitive histogram (Algorithm 3, fixed).

    Parameters
    ----------
    hist : ndarray of shape (n_groups, D)
        Counts of each sensitive value (the whole domain, absent values 0) per group.
    m : int
    sensitive : ndarray of bool, shape (D,), optional
        The protected values (default: every value, the paper's formalization). With a subset
        the look-ahead stops only while an unread value is protected, and only protected values
        are capped (see the module docstring, "Sensitive set").
    check_feasible : bool
        Raise :class:`IneligibleError` when some group violates ``⌊|G|/m⌋·(D−1) >= |G|`` (E8);
        checked only when at most one value is unprotected (otherwise the fill is always
        feasible).
    fill : {"paper", "random"}
        ``"paper"``: ties in the ascending order by code (protected values first), Type-2 values
        filled from the highest original frequency down (as printed). ``"random"``: ties broken
        at random (protected values first) and Type-2 values filled in a random order (notes I2;
        needs ``rng``).
    rng : numpy Generator, optional
        For ``fill="random"``.

    Returns
    -------
    published : ndarray of shape (n_groups, D)
        The published frequencies ``f'`` (equal to ``hist`` for unperturbed groups).
    read : ndarray of shape (n_groups,)
        How many frequencies the look-ahead read (``r``), or ``D`` when the group is published
        as is.
    """
    hist = np.asarray(hist, dtype=np.int64)
    n_groups, d = hist.shape
    sizes = hist.sum(axis=1)
    cap = sizes // m
    if sensitive is None:
        sensitive = np.ones(d, dtype=bool)
    sensitive = np.asarray(sensitive, dtype=bool)
    if sensitive.shape != (d,):
        raise AnonlabError(f"'sensitive' must hold one flag per value ({d}), got {sensitive.shape}")
    if check_feasible and sensitive.sum() >= d - 1:
        bad = np.flatnonzero(cap * (d - 1) < sizes)
        if len(bad):
            g = int(bad[np.argmin(sizes[bad])])
            raise IneligibleError(
                f"MASK+ cannot guarantee a feasible perturbation (notes E8): {len(bad)} of "
                f"{n_groups} k-anonymous groups violate ⌊|G|/m⌋·(|D_S|−1) >= |G|, e.g. a group "
                f"of {int(sizes[g])} records with m = {m} and |D_S| = {d} "
                f"({int(cap[g])}·{d - 1} = {int(cap[g]) * (d - 1)} < {int(sizes[g])}). Lower m "
                f"(at most |D_S|−1 = {d - 1} and small enough for the smallest groups), or raise k"
            )
    if fill not in FILLS:
        raise AnonlabError(f"parameter 'fill' must be one of {list(FILLS)}, got {fill!r}")
    if fill == "random":
        if rng is None:
            raise AnonlabError("fill='random' needs a random generator (rng)")
        # ascending, ties at random (protected values first): frequency + a uniform fraction
        order = np.argsort(2 * hist + ~sensitive + rng.random(hist.shape), axis=1)
    else:
        # ascending, ties: protected values first, then by code
        order = np.argsort(2 * hist + ~sensitive, axis=1, kind="stable")
    f = np.take_along_axis(hist, order, axis=1)
    csum = np.cumsum(f, axis=1)
    # open_sens[g, p]: a value at sorted position >= p (0-based) is protected, i.e. some value
    # still unread before f_{p+1} is read could be protected
    sens_sorted = sensitive[order]
    open_sens = np.flip(np.logical_or.accumulate(np.flip(sens_sorted, axis=1), axis=1), axis=1)
    read = np.full(n_groups, d, dtype=np.int64)
    if d >= 3:
        i = np.arange(2, d)  # 1-based i = 2 .. D-1
        # fails iff (|G| - C_{i-1} - f_{i-1}) > cap * (D - i); C, f 0-based at i-2
        lhs = sizes[:, None] - csum[:, i - 2] - f[:, i - 2]
        fails = lhs > cap[:, None] * (d - i)[None, :]
        fails &= open_sens[:, i - 1]  # nothing protected left unread: no read can violate
        any_fail = fails.any(axis=1)
        first = np.argmax(fails, axis=1)  # index into i
        read[any_fail] = first[any_fail] + 1  # r = i - 1 = (first + 2) - 1
    published = hist.copy()
    pert = np.flatnonzero(read < d)
    if len(pert):
        r = read[pert]
        fp = f[pert]
        f_r = fp[np.arange(len(pert)), r - 1]
        c_r = csum[pert][np.arange(len(pert)), r - 1]
        t = d - r
        residual = sizes[pert] - c_r - t * f_r
        room = cap[pert] - f_r
        j = np.arange(d)[None, :]
        # unprotected Type-2 values take what the capped fill leaves (uncapped)
        free = ~sens_sorted[pert] & (j >= r[:, None])
        if np.any((residual > t * room) & ~free.any(axis=1)):  # excluded by the E8 check
            g = int(pert[np.argmax((residual > t * room) & ~free.any(axis=1))])
            raise IneligibleError(
                f"MASK+ perturbation infeasible for a group of {int(sizes[g])} records at m = {m} "
                f"(notes E8): its Type-2 values cannot absorb the records at ⌊|G|/m⌋ each"
            )
        left = np.maximum(residual - t * room, 0)
        residual = residual - left
        safe_room = np.where(room > 0, room, 1)
        q = np.where(room > 0, residual // safe_room, 0)
        rem = np.where(room > 0, residual % safe_room, 0)
        if fill == "random":  # Type-2 positions ranked in a random order
            key = np.where(j >= r[:, None], rng.random((len(pert), d)), np.inf)
            u = np.empty((len(pert), d), dtype=np.int64)
            np.put_along_axis(u, np.argsort(key, axis=1), np.broadcast_to(j, u.shape), axis=1)
        else:
            u = np.broadcast_to(d - 1 - j, (len(pert), d))  # rank from the top, 0-based
        new_sorted = np.where(
            u < q[:, None],
            cap[pert][:, None],
            np.where(u == q[:, None], f_r[:, None] + rem[:, None], f_r[:, None]),
        )
        # the leftover goes to the unprotected Type-2 value first in the fill order
        first_free = np.argmin(np.where(free, u, d), axis=1)
        rows = np.flatnonzero(left > 0)
        new_sorted[rows, first_free[rows]] += left[rows]
        new_sorted = np.where(j < r[:, None], fp, new_sorted)
        out = np.empty_like(new_sorted)
        np.put_along_axis(out, order[pert], new_sorted, axis=1)
        published[pert] = out
    return published, read


def _perturb_records(
    group: np.ndarray,
    codes: np.ndarray,
    hist: np.ndarray,
    target: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Published code per record: keep ``min(hist, target)`` random records of each (group,
    value) and give the others, in random order, the values short of their target."""
    n = len(codes)
    n_groups, d = hist.shape
    keep = np.minimum(hist, target)
    flat = group.astype(np.int64) * d + codes
    order = np.lexsort((rng.random(n), flat))
    start = np.r_[0, np.cumsum(hist.ravel())[:-1]]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - start[flat[order]]
    change = np.flatnonzero(rank >= keep.ravel()[flat])
    published = codes.astype(np.int64).copy()
    if len(change):
        deficit = (target - keep).ravel()
        slots = np.repeat(np.arange(n_groups * d), deficit)  # sorted by group, then value
        moved = change[np.lexsort((rng.random(len(change)), group[change]))]
        published[moved] = slots % d
    return published


def _validate(
    table: Table,
    k: int,
    m: int,
    sensitive_values: Sequence[str] | None,
    as_one_value: bool,
    scheme: str,
    seed: int,
) -> tuple[int, int, str, int, np.ndarray]:
    """Checked parameters and the mask of protected values (every value when ``None``)."""
    k, m, scheme, seed = check_k_m(k, m, scheme, seed)
    sens = table.require_sensitive()
    d = table.domain_size(sens)
    if sensitive_values is None:
        if as_one_value:
            raise AnonlabError("as_one_value needs sensitive_values (the set to protect as one)")
        protected = np.ones(d, dtype=bool)
    else:
        if isinstance(sensitive_values, str | bytes):
            raise AnonlabError(
                f"parameter 'sensitive_values' must be a list of values, got the string "
                f"{sensitive_values!r}; write [{sensitive_values!r}]"
            )
        try:
            protected = np.asarray(table.value_mask(sens, sensitive_values), dtype=bool)
        except AnonlabError as exc:
            raise AnonlabError(f"parameter 'sensitive_values': {exc}") from None
        if not protected.any():
            raise AnonlabError("parameter 'sensitive_values' names no value to protect")
    # the look-ahead's domain: one column for the whole set when it is protected as one value
    d_look = d - int(protected.sum()) + 1 if as_one_value else d
    if d_look <= m:
        raise IneligibleError(
            f"MASK+ needs more sensitive values than m: |D_S| = {d_look} for {sens!r}"
            + (" (the protected set counted as one value)" if as_one_value else "")
            + f", m = {m}; use m <= {max(d_look - 1, 1)}"
        )
    return k, m, scheme, seed, protected


def _merge_columns(protected: np.ndarray) -> np.ndarray:
    """Column of each value when the protected set is one value: the set takes the column of
    its first value, the other values keep their code order."""
    keep = ~protected
    keep[np.flatnonzero(protected)[0]] = True
    column = np.cumsum(keep) - 1
    column[protected] = column[np.flatnonzero(protected)[0]]
    return column


def _mask_plus_groups(
    table: Table,
    k: int,
    m: int,
    scheme: str,
    seed: int,
    fill: str,
    protected: np.ndarray,
    as_one_value: bool,
) -> tuple[Release, np.ndarray, dict, np.random.Generator, np.ndarray, np.ndarray]:
    """MASK+ on the k-anonymous groups. Returns (the k-anonymization, published codes, manifest
    counts, the generator, and the codes and protected mask the look-ahead worked on — the
    merged domain under ``as_one_value``, for the pick-up)."""
    base = mondrian(table, k=k, scheme=scheme, seed=seed)
    sens = table.require_sensitive()
    codes = table.codes[sens].astype(np.int64)
    if as_one_value:
        column = _merge_columns(protected)
        work = column[codes]
        work_protected = np.zeros(int(column.max()) + 1, dtype=bool)
        work_protected[column[protected][0]] = True
    else:
        work, work_protected = codes, protected
    d = len(work_protected)
    hist = group_histogram(base.group, work, base.n_groups, d)
    rng = rng_from_seed(seed)
    target, read = local_look_ahead(hist, m, sensitive=work_protected, fill=fill, rng=rng)
    published_work = _perturb_records(base.group, work, hist, target, rng)
    if as_one_value:
        # unchanged records keep their own value; a record moved into the set gets one of the
        # set's values uniformly at random (independent of the quasi-identifiers)
        published = codes.copy()
        moved = published_work != work
        members = np.flatnonzero(protected)
        into_set = moved & work_protected[published_work]
        inverse = np.flatnonzero(~protected)
        out_of_set = moved & ~work_protected[published_work]
        # column -> original code for the unprotected values
        back = np.empty(d, dtype=np.int64)
        back[column[inverse]] = inverse
        published[out_of_set] = back[published_work[out_of_set]]
        published[into_set] = members[rng.integers(len(members), size=int(into_set.sum()))]
    else:
        published = published_work
    info = {
        "partition": "mondrian",
        "look_ahead": "local",
        "k_groups": int(base.n_groups),
        # groups where the look-ahead stopped before f_{D-1} (perturbation step run) ...
        "look_ahead_stops": int(np.count_nonzero(read < d)),
        # ... and those whose published frequencies differ from the original ones
        "perturbed_groups": int(np.count_nonzero((target != hist).any(axis=1))),
    }
    return base, published, info, rng, published_work, work_protected


def _parameters(k, m, table, protected, as_one_value, fill) -> dict:
    values = None
    if not protected.all() or as_one_value:
        domain = table.values[table.require_sensitive()]
        values = [str(v) for v in domain[protected]]
    return {
        "k": k,
        "m": m,
        "sensitive_values": values,
        "as_one_value": bool(as_one_value),
        "fill": fill,
    }


@takes_table_or_frame
def mask_plus(
    table: Table,
    k: int,
    m: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    as_one_value: bool = False,
    scheme: str = "generalization",
    fill: str = "paper",
    seed: int = 0,
) -> Release:
    """Publish ``table`` with MASK+ (local look-ahead; Jin et al. §6.3, Algorithm 3 fixed).

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute.
    k : int
        The k-anonymization (strict Mondrian on the QI) makes groups of at least ``k`` records.
    m : int
        1 <= m <= k and m < |D_S| (|D_S| counts the protected set once under ``as_one_value``).
        Every published group holds each protected value at most ``⌊|G|/m⌋`` times.
    sensitive_values : sequence of str, optional
        The protected values, as for :func:`~anonlab.anonymize.mask.mask` (default ``None``:
        every value, the paper's formalization). Values outside the set are never capped and
        their records change only to take what the capped fill leaves (see the module's
        "Sensitive set").
    as_one_value : bool
        Protect ``sensitive_values`` as one value: the set's total is capped at ``⌊|G|/m⌋``
        (Wong et al.'s and Jin et al.'s "below high school"). Needs ``sensitive_values``.
    scheme : {"generalization", "bucketization"}
    fill : {"paper", "random"}
        ``"paper"`` (default): ties by code, Type-2 values filled from the most frequent down, as
        printed. ``"random"``: ties and the fill order at random (notes I2); see the module.
    seed : int
        Seed of the random choice of perturbed records; stored in the manifest.

    Returns
    -------
    Release
        ``published_sensitive`` holds the perturbed codes. Manifest: ``look_ahead_stops`` (groups
        where the look-ahead stopped and ran the perturbation step), ``perturbed_groups`` (groups
        whose frequencies changed; a stop can leave them unchanged) and ``perturbed_records``.

    Raises
    ------
    IneligibleError
        If some k-anonymous group fails ``⌊|G|/m⌋·(|D_S|−1) >= |G|`` (E8; checked when at most
        one value is unprotected), or ``m >= |D_S|``.
    """
    k, m, scheme, seed, protected = _validate(
        table, k, m, sensitive_values, as_one_value, scheme, seed
    )
    fill = check_choice("fill", fill, FILLS)
    base, published, info, *_ = _mask_plus_groups(
        table, k, m, scheme, seed, fill, protected, as_one_value
    )
    manifest = {
        "algorithm": "mask+",
        "parameters": _parameters(k, m, table, protected, as_one_value, fill),
        "seed": seed,
        **info,
    }
    return Release(table, base.group, scheme, manifest, published_sensitive=published)


@takes_table_or_frame
def mask_plus_plus(
    table: Table,
    k: int,
    m: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    as_one_value: bool = False,
    scheme: str = "generalization",
    fill: str = "paper",
    seed: int = 0,
) -> Release:
    """MASK++: MASK+ then stratified pick-up with ℓ = m (Jin et al. §7, §8.2).

    Parameters are those of :func:`mask_plus`. The pick-up's seed is drawn from the same seeded
    generator, after MASK+'s draws; it constrains the protected values only (the set as one
    value under ``as_one_value``), as :func:`~anonlab.anonymize.anatomy.anatomy` does.

    Returns
    -------
    Release
        Groups of m to 2m−1 records where a k-anonymous group had at least 2m; manifest adds the
        pick-up counts under ``pickup``.
    """
    from anonlab.anonymize.stratified_pickup import pickup_groups

    k, m, scheme, seed, protected = _validate(
        table, k, m, sensitive_values, as_one_value, scheme, seed
    )
    fill = check_choice("fill", fill, FILLS)
    base, published, info, rng, work, work_protected = _mask_plus_groups(
        table, k, m, scheme, seed, fill, protected, as_one_value
    )
    pickup_seed = int(rng.integers(2**62))
    new_group, pickup = pickup_groups(
        base.group, base.n_groups, work, work_protected, m, pickup_seed
    )
    manifest = {
        "algorithm": "mask++",
        "parameters": _parameters(k, m, table, protected, as_one_value, fill),
        "seed": seed,
        **info,
        "pickup": pickup,
    }
    return Release(table, new_group, scheme, manifest, published_sensitive=published)
