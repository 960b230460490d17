"""Eqs. (1)-(3): the posterior ``p(t : x)`` of each group's members, every group in one compiled
call.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011), reading notes in ``notes/wong-foreground-knowledge-attack.md`` §2.1. The adversary
weights each possible world of a group by Eq. (1) ``p(w) = prod_j p_{j,w}`` (``f_{s(j)}`` if
``t_j`` holds ``x`` in ``w``, ``1 - f_{s(j)}`` otherwise), normalises it (Eq. 2) and sums the
worlds in which ``t_j`` holds ``x`` (Eq. 3). Only the set of members that receive ``x`` matters,
so with ``a_j = f_{s(j)}`` and ``b_j = 1 - a_j`` the normaliser is ``[z^n] prod_j (b_j + a_j z)``
and ``p(t_j : x) = a_j [z^{n-1}] prod_{i != j} (b_i + a_i z) / [z^n] prod_i (b_i + a_i z)``.

This module evaluates that truncated polynomial product exactly (up to rounding), in
``O(N_k · min(n_k, N_k - n_k))`` per group, instead of enumerating the ``C(N_k, n_k)`` worlds
(impossible for the t-closeness groups of thousands of records): one compiled call for all
groups, prefix and suffix products in linear space (their coefficients are probabilities, so
they cannot overflow), one leave-one-out coefficient per run of members with equal ``f``, and
an exponential tilt of the weights (which leaves Eq. 3 unchanged) where the plain product would
underflow. Large groups (``N · n >= 2^18``) with few runs of equal ``f`` go through
:func:`_circle_link` instead: the tilted product evaluated at ``K`` points of the unit circle
and read off by one Fourier sum per coefficient, ``O(runs · K)`` with ``K`` about 11 standard
deviations of the count (aliasing below 1e-25 by a Bernstein bound, rounding checked; it
declines, and the linear passes run, when either check fails).

A group whose possible worlds all have weight 0 (e.g. every member has ``f = 0`` but the group
holds ``x``) falls back to the random-world value ``n_k / N_k`` for its members (the paper is
silent). The entry points for other modules are :class:`GroupLayout`, :class:`Posterior` and
:func:`link_groups`; ``_FAST_MIN_WORK`` and ``_FAST_COST`` are read at call time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

_TINY = 1e-250
"""Smallest accepted ``[z^n]`` of a linear-space pass (see :func:`_group_link`)."""


class GroupLayout:
    """The busy groups of one target in CSR form, for :func:`_link_kernel`.

    Built from each record's group id and the published count ``n_x`` of the target per group
    (:func:`~anonlab.attacks.foreground.inputs.count_x`); shared by the breach probabilities,
    the fixed-point solver and the map-reduce attack (which passes representative records).

    Groups with ``n = 0`` (every member 0) or ``n = N`` (every member 1) need no work. The
    others ("busy") are listed in group order with pointers ``ptr`` into a record order that
    lists each group's members contiguously. When ``n > N / 2`` the complement is computed
    (``x`` and ``not x`` swap roles, ``a`` and ``b`` swap, ``n -> N - n``), so the polynomial
    degree is at most ``N / 2``. Within a group the members are sorted by a key (their
    signature, or ``a`` itself) so that members with equal ``a`` are adjacent: the kernel
    computes one leave-one-out coefficient per run of equal ``a``.
    """

    def __init__(self, group: np.ndarray, n_groups: int, n_x: np.ndarray) -> None:
        group = np.asarray(group, dtype=np.int64)
        self.n_rows = len(group)
        self.group = group
        sizes = np.bincount(group, minlength=n_groups).astype(np.int64)
        n_rec = n_x[group]
        self.zero = np.flatnonzero(n_rec == 0)
        self.one = np.flatnonzero((n_rec == sizes[group]) & (n_rec > 0))
        busy = (n_x > 0) & (n_x < sizes)
        self.records = np.flatnonzero(busy[group])  # members of busy groups, ascending
        self.record_group = group[self.records]
        size = sizes[busy]
        count = n_x[busy].astype(np.int64)
        self.ptr = np.r_[0, np.cumsum(size)].astype(np.int64)
        self.complement = count > size - count
        self.degree = np.where(self.complement, size - count, count).astype(np.int64)

    def order(self, *keys: np.ndarray) -> np.ndarray:
        """Members of the busy groups, by group, then by ``keys`` (per-record arrays, the
        last one primary, as in ``np.lexsort``)."""
        sort_keys = tuple(k[self.records] for k in keys) + (self.record_group,)
        return self.records[np.lexsort(sort_keys)]

    def probabilities(
        self, a: np.ndarray, order: np.ndarray | None = None, b: np.ndarray | None = None
    ) -> np.ndarray:
        """``p(t : x)`` per record for per-record ``a = f_{s(t)}`` (Eqs. 1-3) and
        ``b = 1 - a`` (default: computed as ``1 - a``).

        ``order`` (from :meth:`order`) must list members with equal ``a`` adjacently for
        speed (not for correctness); by default the members are sorted by ``a``.
        """
        a = np.asarray(a, dtype=np.float64)
        if order is None:
            order = self.order(a)
        member = self.link(a[order], None if b is None else np.asarray(b)[order])
        return Posterior(self, order, member).full()

    def link(self, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        """``p(t : x)`` of the busy groups' members, given and returned in an :meth:`order`;
        ``b = 1 - a`` (default: computed as ``1 - a``; the kernel carries it separately, so
        that an ``a`` below 1e-16 is not lost in a complemented group)."""
        return link_groups(a, b, self.ptr, self.degree, self.complement)


@dataclass(frozen=True, eq=False)
class Posterior:
    """``p(t : x)`` of every record for one (attribute set, target): 0 on ``layout.zero``, 1
    on ``layout.one``, ``member`` on ``records`` (the busy groups' members)."""

    layout: GroupLayout
    records: np.ndarray
    member: np.ndarray

    def full(self) -> np.ndarray:
        """``p(t : x)`` of every record, shape (n_rows,)."""
        p = np.empty(self.layout.n_rows, dtype=np.float64)
        p[self.layout.zero] = 0.0
        p[self.layout.one] = 1.0
        p[self.records] = self.member
        return p


def link_groups(
    a: np.ndarray, b: np.ndarray | None, ptr: np.ndarray, degree: np.ndarray, complement: np.ndarray
) -> np.ndarray:
    """Eq. (3) for groups in CSR form (see :class:`GroupLayout`): ``p(t : x)`` of their members.

    ``a`` (and ``b = 1 - a``, computed when None) hold each member's own ``f``, group by group
    (members ``ptr[g]:ptr[g+1]`` of group ``g``); where ``complement[g]`` the kernel swaps the
    roles of ``a`` and ``b`` itself; ``degree[g]`` is ``min(n, N - n)``. Members with equal
    ``(a, b)`` should be adjacent within a group (speed only). A group on which the compiled
    passes fail (never observed) is recomputed in log space (:func:`_poly_link_reference`).
    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = 1.0 - a if b is None else np.ascontiguousarray(b, dtype=np.float64)
    p = np.empty(len(a), dtype=np.float64)
    if len(degree):
        failed = _link_kernel_ab(a, b, ptr, degree, complement, p, _FAST_MIN_WORK, _FAST_COST)
        for g in np.flatnonzero(failed):  # never seen; kept as a safety net
            part = slice(ptr[g], ptr[g + 1])
            if complement[g]:
                p[part] = 1.0 - _poly_link_reference(b[None, part], degree[g], a[None, part])[0]
            else:
                p[part] = _poly_link_reference(a[None, part], degree[g])[0]
    return p


@njit(cache=True, inline="never")
def _multiply(src: np.ndarray, dst: np.ndarray, top: int, a: float, b: float) -> None:
    """``dst = src * (b + a z)`` on coefficients stored at offset 1 (``src[0] == 0``), degrees
    ``0..top``. A separate function over two arrays, so that LLVM vectorises it (the in-place
    loop over one array was not, and ran ~6x slower); same arithmetic, same rounding."""
    for k in range(1, top + 2):
        dst[k] = src[k] * b + src[k - 1] * a


@njit(cache=True)
def _count_runs(w: np.ndarray) -> int:
    """Number of maximal runs of equal adjacent values."""
    runs = 1
    for j in range(len(w) - 1):
        if w[j + 1] != w[j]:
            runs += 1
    return runs


@njit(cache=True)
def _count_pair_runs(w: np.ndarray, wb: np.ndarray) -> int:
    """Number of maximal runs of equal adjacent pairs ``(w, wb)``."""
    runs = 1
    for j in range(len(w) - 1):
        if w[j + 1] != w[j] or wb[j + 1] != wb[j]:
            runs += 1
    return runs


@njit(cache=True)
def _loo_pass_ab(w: np.ndarray, wb: np.ndarray, n: int, out: np.ndarray, work: np.ndarray) -> float:
    """One linear-space pass of Eq. (3) on one group: ``out[j] = p(t_j : x)``; returns
    ``[z^n] prod_j (b_j + a_j z)`` (``a = w``, ``b = wb``, given separately so that a
    complemented ``a`` near 0 keeps its value in ``b``; runs are of equal pairs).

    Every coefficient of a prefix or suffix product is a probability (the product of the
    factors ``b + a z``, each summing to 1, truncated above degree ``n``), so nothing
    overflows and no rescaling is needed; underflow loses at most ~1e-300 in absolute terms,
    negligible whenever the returned ``[z^n]`` is not tiny (the caller checks). The forward pass
    stores the prefix product in front of the last member of each run of equal ``w``; the
    backward pass carries the suffix product and combines it with that prefix into the run's
    leave-one-out coefficient ``[z^{n-1}]``; all members of a run share it. Rows live in two
    alternating buffers, coefficient ``k`` at index ``k + 1`` (index 0 stays 0). ``work`` is
    scratch space of at least ``runs * (n + 1) + 2 * (n + 2)`` (allocated here if shorter).
    """
    size = len(w)
    runs = _count_pair_runs(w, wb)
    need = runs * (n + 1) + 2 * (n + 2)
    if len(work) < need:
        work = np.empty(need)
    prefix = work[: runs * n]  # row r at r * n
    run_p = work[runs * n : runs * (n + 1)]
    base = runs * (n + 1)
    rows = (work[base : base + n + 2], work[base + n + 2 : base + 2 * n + 4])
    for half in rows:
        half[:] = 0.0
    rows[0][1] = 1.0
    c = 0
    r = 0
    for j in range(size):
        x = w[j]
        if j == size - 1 or w[j + 1] != x or wb[j + 1] != wb[j]:
            src = rows[c]
            for k in range(n):
                prefix[r * n + k] = src[k + 1]
            r += 1
        _multiply(rows[c], rows[1 - c], min(j + 1, n), x, wb[j])
        c = 1 - c
    z = rows[c][n + 1]
    if not z >= _TINY:
        return z
    # degrees 0..n-1 of the product of members j+1..size-1 (index n + 1 unused)
    for half in rows:
        half[:] = 0.0
    rows[0][1] = 1.0
    c = 0
    r = runs - 1
    for j in range(size - 1, -1, -1):
        x = w[j]
        if j == size - 1 or w[j + 1] != x or wb[j + 1] != wb[j]:
            src = rows[c]
            s = 0.0
            for k in range(n):
                s += prefix[r * n + k] * src[n - k]
            run_p[r] = x * s / z
            r -= 1
        if j > 0:
            _multiply(rows[c], rows[1 - c], min(size - j, n - 1), x, wb[j])
            c = 1 - c
    r = 0
    for j in range(size):
        out[j] = min(max(run_p[r], 0.0), 1.0)
        if j < size - 1 and (w[j + 1] != w[j] or wb[j + 1] != wb[j]):
            r += 1
    return z


@njit(cache=True)
def _loo_pass(w: np.ndarray, n: int, out: np.ndarray, work: np.ndarray) -> float:
    """:func:`_loo_pass_ab` with ``b = 1 - w``."""
    return _loo_pass_ab(w, 1.0 - w, n, out, work)


_FAST_MIN_WORK = 1 << 18
"""Groups with ``N · n`` (size times polynomial degree, ``n <= N / 2``) at least this try the
circle method (:func:`_circle_link`) before the linear passes; smaller groups (every group of
fewer than 725 members) never do, so their results are bit-for-bit those of
:func:`_loo_pass_ab`. Read by :meth:`GroupLayout.link` at call time. Chosen by measurement on Adult
Mondrian ℓ = 3 (largest groups 23,027 / 10,765 / 4,963): kernel time per call 2.5 ms with
``2^22``, 1.5 ms with ``2^20``, about 1 ms with ``2^18`` or lower (under load), against 32 ms
with the linear passes alone."""

_FAST_COST = 128.0
"""The circle method is taken only if ``runs · K · _FAST_COST <= N · n``. Measured (under
load): 11-20 ns per run and node pair (``K / 2`` nodes; per run and node a logarithm, an
arctangent and a complex division) against 0.1-0.75 ns per member and degree for the linear
passes (``2 N n`` vectorised multiply-adds), a ratio of 16-125; at 128 the circle method is
taken only where it is not slower. 0 takes it wherever it applies (tests)."""

_ALIAS = 1e-25
"""Target bound on the aliased probability mass of the circle method (see :func:`_circle_link`)."""


@njit(cache=True)
def _tilt_log_lambda(logit: np.ndarray, weight: np.ndarray, target: float) -> float:
    """``log λ`` of the exponential tilt: solves ``sum_i weight_i σ(log λ + logit_i) = target``
    (``σ`` the logistic function) by bisection on ``[min(-logit) - 40, max(-logit) + 40]``,
    200 halvings at most (until the midpoint no longer lies strictly inside)."""
    lo = np.inf
    hi = -np.inf
    for i in range(len(logit)):
        lo = min(lo, -logit[i] - 40.0)
        hi = max(hi, -logit[i] + 40.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        mean = 0.0
        for i in range(len(logit)):
            mean += weight[i] / (1.0 + math.exp(-(mid + logit[i])))
        if mean < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@njit(cache=True)
def _circle_link(
    w: np.ndarray, wb: np.ndarray, n: int, ones: int, zeros: int, out: np.ndarray, cost: float
) -> int:
    """Eq. (3) for one large group by evaluating the product on the unit circle; returns the
    number ``K`` of nodes used, or 0 (``out`` untouched) when it does not apply, is not clearly
    cheaper or not accurate enough, and the caller then runs the linear passes. ``w``, ``wb``,
    ``n`` as in :func:`_group_link`, which has already handled the degenerate groups;
    ``ones`` / ``zeros`` count the members with ``b = 0`` / ``a = 0``; ``cost`` is
    ``_FAST_COST`` (0: no cost test).

    The members form ``R`` runs of equal ``(a, b)``, run ``r`` with ``m_r`` members, and
    ``P(z) = prod_r (b_r + a_r z)^{m_r}``. After the exponential tilt of :func:`_group_link`
    (``[z^n] P`` near the mode of the Poisson-binomial law ``P / P(1)``: the expected count is
    ``n``), the coefficients ``c_j`` of a polynomial ``Q`` are recovered from ``K`` values on
    the circle by the discrete Fourier transform,
    ``(1/K) sum_k Q(e^{i θ_k}) e^{-i j θ_k} = c_j - c_{j+K} - c_{j-K} + c_{j+2K} + ...`` with
    ``θ_k = π (2k + 1) / K`` (a half-step shift, so that ``θ = π``, where ``b + a e^{iθ}``
    vanishes for ``a = b``, is never a node; ``K`` is even and the nodes come in conjugate
    pairs, so ``K / 2`` of them suffice). ``Q = P`` with ``j = n`` gives ``Z``, and
    ``Q = P / (b_r + a_r z)`` (``m_r - 1`` factors of run ``r``) with ``j = n - 1`` the run's
    leave-one-out coefficient ``L_r``; ``p = a_r L_r / Z``. In polar form
    ``b + a e^{iθ} = (a + b) e^{iθ/2} (cos(θ/2) + i d sin(θ/2))``, ``d = (a - b) / (a + b)``
    (no cancellation), so one logarithm and one arctangent per run and node give ``log P``
    (sums of ``m_r`` times them: the phase of ``P`` is accurate where ``|P|`` matters), and
    ``P / (b_r + a_r z)`` is one complex division; the phases ``n θ_k`` are reduced modulo
    ``2π`` in integers.

    The aliased terms are the probabilities that the count deviates from its mean by about
    ``K`` or more; by Bernstein's inequality for a sum of independent Bernoulli variables with
    variance ``σ² = sum_r m_r a_r b_r / (a_r + b_r)²``, ``P(|X - μ| >= t) <=
    2 exp(-t² / (2 (σ² + t / 3)))``, so ``K ≈ t(_ALIAS) + 1 + |μ - n|`` (about ``11 σ`` for
    large ``σ``, e.g. 684 nodes for a group of 23,027 with ``n = 7,000``) makes them below
    ``_ALIAS`` whatever ``N``; if ``K`` would exceed ``N``, ``K = N + 1`` or ``N + 2`` and there
    is no aliasing at all (``deg P = N``). Work is ``O(R K)`` against ``O(N n)`` for the linear
    passes. Every value has modulus at most ``P(1) ≈ 1`` and the terms near ``θ = 0`` that
    make up ``Z`` and ``L_r`` add without cancellation. Checked afterwards against each
    coefficient: a running bound of the rounding (``4 eps`` times the magnitudes summed into
    each logarithm and phase, weighted by ``|P|``) must be below ``1e-11`` of it and the
    Bernstein bound below ``1e-13`` of it, or the method declines (e.g. a leave-one-out
    coefficient a thousandth of the scale of ``P``). Measured: within ``1.3e-13`` (relative) of
    the linear passes on 396 random groups of up to 25,000 members (runs of weights in
    ``[1e-12, 1]``, exact 0, 1 and 1/2 among them), none declined.
    """
    size = len(w)
    target = n - ones
    free = size - zeros - ones
    if target <= 0 or target >= free:
        return 0
    runs = _count_pair_runs(w, wb)
    ra = np.empty(runs)
    rb = np.empty(runs)
    mult = np.empty(runs)
    r = 0
    first = 0
    for j in range(size):
        if j == size - 1 or w[j + 1] != w[j] or wb[j + 1] != wb[j]:
            ra[r] = w[j]
            rb[r] = wb[j]
            mult[r] = j + 1 - first
            first = j + 1
            r += 1
    logit = np.empty(runs)
    weight = np.empty(runs)
    m = 0
    for r in range(runs):
        if ra[r] > 0.0 and rb[r] > 0.0:
            logit[m] = math.log(ra[r]) - math.log(rb[r])
            weight[m] = mult[r]
            m += 1
    u = _tilt_log_lambda(logit[:m], weight[:m], float(target))
    mean = 0.0
    var = 0.0
    for r in range(runs):
        if ra[r] > 0.0 and rb[r] > 0.0:
            t = u + math.log(ra[r]) - math.log(rb[r])
            ra[r] = 1.0 / (1.0 + math.exp(-t))
            rb[r] = 1.0 / (1.0 + math.exp(t))
        s = ra[r] + rb[r]
        mean += mult[r] * (ra[r] / s)
        var += mult[r] * (ra[r] / s) * (rb[r] / s)
    shift = abs(mean - n)
    big = math.log(2.0 / _ALIAS)
    t = big / 3.0 + math.sqrt(big * big / 9.0 + 2.0 * big * var)
    K = int(math.ceil(t + 1.0 + shift))
    K += K & 1
    if K > size:  # no aliasing: the degree of P is size < K
        K = size + 1 + ((size + 1) & 1)
        alias = 0.0
    else:
        tt = K - 1.0 - shift
        alias = 2.0 * math.exp(-tt * tt / (2.0 * (var + tt / 3.0)))
    if cost > 0.0 and runs * K * cost > size * float(n):
        return 0
    log_s = np.empty(runs)
    d = np.empty(runs)
    e = np.empty(runs)
    for r in range(runs):
        s = ra[r] + rb[r]
        log_s[r] = math.log(s)
        d[r] = (ra[r] - rb[r]) / s
        e[r] = 4.0 * (ra[r] / s) * (rb[r] / s)  # 1 - d², without cancellation
    total = np.empty(runs)
    for r in range(runs):
        total[r] = ra[r] + rb[r]
    loo = np.zeros(runs)
    loo_err = np.zeros(runs)
    z = 0.0
    z_err = 0.0
    two_k = 2 * K
    for k in range(K // 2):
        half = math.pi * (2 * k + 1) / two_k  # θ_k / 2, in (0, π / 2)
        sn = math.sin(half)
        cs = math.cos(half)
        s_re = 0.0
        s_im = 0.0
        s_abs = 0.0
        for r in range(runs):
            q = e[r] * sn * sn
            if q < 0.5:
                lr = log_s[r] + 0.5 * math.log1p(-q)
            else:
                lr = log_s[r] + 0.5 * math.log(cs * cs + d[r] * d[r] * sn * sn)
            ai = half + math.atan2(d[r] * sn, cs)
            s_re += mult[r] * lr
            s_im += mult[r] * ai
            s_abs += mult[r] * (abs(lr) + abs(ai))
        phase_n = math.pi * ((n * (2 * k + 1)) % two_k) / K
        phase_m = math.pi * (((n - 1) * (2 * k + 1)) % two_k) / K
        bound = s_abs + 2.0 * math.pi + 8.0
        ez = math.exp(s_re)
        z += ez * math.cos(s_im - phase_n)
        z_err += ez * bound
        # P e^{-i (n-1) θ} / (b_r + a_r e^{iθ}), the factor being (a + b) e^{iθ/2} (cs + i d sn)
        psi = s_im - phase_m - half
        vr = ez * math.cos(psi)
        vi = ez * math.sin(psi)
        for r in range(runs):
            ds = d[r] * sn
            mag2 = cs * cs + ds * ds
            inv = 1.0 / (total[r] * mag2)
            loo[r] += (vr * cs + vi * ds) * inv
            loo_err[r] += ez * inv * math.sqrt(mag2) * bound
    eps = 2.0**-52
    if not (z > 0.0 and 4.0 * eps * z_err <= 1e-11 * z and alias <= 1e-13 * 2.0 * z / K):
        return 0
    for r in range(runs):
        if ra[r] > 0.0 and not (
            loo[r] > 0.0
            and 4.0 * eps * loo_err[r] <= 1e-11 * loo[r]
            and alias <= 1e-13 * 2.0 * loo[r] / K
        ):
            return 0
    r = 0
    for j in range(size):
        out[j] = min(max(ra[r] * loo[r] / z, 0.0), 1.0)
        if j < size - 1 and (w[j + 1] != w[j] or wb[j + 1] != wb[j]):
            r += 1
    return K


@njit(cache=True)
def _group_link(
    w: np.ndarray,
    wb: np.ndarray,
    n: int,
    out: np.ndarray,
    work: np.ndarray,
    fast_min_work: int = _FAST_MIN_WORK,
    fast_cost: float = _FAST_COST,
) -> bool:
    """Eq. (3) for one group with ``n`` values ``x`` and member weights ``w`` (``a``) and
    ``wb`` (``b = 1 - a``, carried separately: in the complement ``a`` and ``b`` swap, and
    ``1 - (1 - a)`` would turn an ``a`` below 1e-16 into 0); False only if both linear passes
    failed (the caller then uses the log-space reference).

    All worlds have weight 0 (more than ``n`` members with ``a = 1`` or fewer than ``n`` with
    ``a > 0``): ``n / N``. Every member with the same ``a`` (e.g. the empty attribute set):
    ``n / N`` by symmetry. ``n = 1`` (Anatomy's groups): each member's odds ``a / b`` over
    their sum (unless the largest odds is below 1e-280). Otherwise a linear pass on ``w``; if
    its ``[z^n]`` is tiny (< 1e-250), a second pass on the exponentially tilted weights
    ``a'_j = λ a_j / (b_j + λ a_j)``, which leave every ``p(t_j : x)`` unchanged (the common
    factor ``λ^n`` cancels in Eq. 2) and are chosen, by bisection on ``log λ``, so that the
    expected count ``sum_j a'_j`` is ``n``: then ``[z^n]`` is the mode of a Poisson-binomial
    law, at least ``1 / (N + 1)``. Before the linear passes, a group with
    ``N · n >= fast_min_work`` tries the circle method (:func:`_circle_link`: the tilted
    product evaluated on ``K ≈ 11 σ`` points of the unit circle, ``O(runs · K)`` instead of
    ``O(N n)``), taken where it is applicable, cheaper by the measure ``fast_cost`` (see
    ``_FAST_COST``) and accurate to its checked bound; smaller groups are computed exactly as
    before.
    """
    size = len(w)
    ones = 0
    zeros = 0
    for j in range(size):
        if wb[j] == 0.0:
            ones += 1
        elif w[j] == 0.0:
            zeros += 1
    same = True
    for j in range(1, size):
        if w[j] != w[0] or wb[j] != wb[0]:
            same = False
            break
    if ones > n or size - zeros < n or same:  # no weighted world, or all members alike
        for j in range(size):
            out[j] = n / size
        return True
    if n == 1 and ones == 1:  # the one world: x on the member with a = 1
        for j in range(size):
            out[j] = 1.0 if wb[j] == 0.0 else 0.0
        return True
    if n == 1:  # p_j = a_j prod_{i != j} b_i / sum_k (...) = odds_j / sum of odds
        top = 0.0
        total = 0.0
        for j in range(size):  # odds computed once, kept in out
            out[j] = w[j] / wb[j]
            top = max(top, out[j])
            total += out[j]
        # else a denormal odds could lose precision, or a huge one overflow: general pass
        if 1e-280 <= top <= 1e280:
            for j in range(size):
                out[j] = min(max(out[j] / total, 0.0), 1.0)
            return True
    if size * n >= fast_min_work and _circle_link(w, wb, n, ones, zeros, out, fast_cost) > 0:
        return True
    if _loo_pass_ab(w, wb, n, out, work) >= _TINY:
        return True
    target = n - ones
    free = size - zeros - ones
    tilted = w.copy()
    tilted_b = wb.copy()
    if target == 0 or target == free:
        for j in range(size):
            if w[j] > 0.0 and wb[j] > 0.0:
                tilted[j] = 0.0 if target == 0 else 1.0
                tilted_b[j] = 1.0 - tilted[j]
    else:
        # bisection on log λ over the distinct weights (runs of equal w) with multiplicities
        logit = np.empty(size)
        weight = np.zeros(size)
        m = 0
        for j in range(size):
            if w[j] > 0.0 and wb[j] > 0.0:
                if m > 0 and w[j] == w[j - 1] and wb[j] == wb[j - 1]:
                    weight[m - 1] += 1.0
                    continue
                logit[m] = math.log(w[j]) - math.log(wb[j])
                weight[m] = 1.0
                m += 1
        u = _tilt_log_lambda(logit[:m], weight[:m], float(target))
        for j in range(size):
            if w[j] > 0.0 and wb[j] > 0.0:
                t = u + math.log(w[j]) - math.log(wb[j])
                tilted[j] = 1.0 / (1.0 + math.exp(-t))
                tilted_b[j] = 1.0 / (1.0 + math.exp(t))
    return _loo_pass_ab(tilted, tilted_b, n, out, work) >= _TINY


@njit(cache=True, inline="always")
def _odds_link(a: np.ndarray, b: np.ndarray, lo: int, hi: int, comp: bool, out: np.ndarray) -> bool:
    """:func:`_group_link`'s odds branch for a group with one ``x`` (after the complement),
    members ``lo:hi`` of ``a``, ``b`` and ``out``: ``p_j = odds_j / sum of odds``, the same
    arithmetic, so the same numbers. False, leaving the group to :func:`_group_link`, wherever
    that function would take another branch or might round differently: a member with
    ``b = 0``, all odds equal (including all 0), odds outside [1e-280, 1e280].

    A loop of its own over the arrays, run before the general loop: for Anatomy's groups of
    two, calling :func:`_group_link` on array views cost most of the time
    (``benchmarks/bench_foreground.py --kernel``, 66,246 groups: 5.6 ms through
    ``_group_link``, 1.0 ms here, the same numbers)."""
    top = 0.0
    low = 1e300
    total = 0.0
    for i in range(lo, hi):
        w = b[i] if comp else a[i]
        wb = a[i] if comp else b[i]
        odds = w / wb if wb > 0.0 else 1e308
        out[i] = odds
        top = max(top, odds)
        low = min(low, odds)
        total += odds
    if low == top or not 1e-280 <= top <= 1e280:
        return False
    for i in range(lo, hi):
        res = min(max(out[i] / total, 0.0), 1.0)
        out[i] = 1.0 - res if comp else res
    return True


@njit(cache=True, nogil=True)
def _link_kernel_ab(
    a: np.ndarray,
    b: np.ndarray,
    ptr: np.ndarray,
    degree: np.ndarray,
    complement: np.ndarray,
    out: np.ndarray,
    fast_min_work: int = _FAST_MIN_WORK,
    fast_cost: float = _FAST_COST,
) -> np.ndarray:
    """Eq. (3) for every busy group (CSR: members ``ptr[g]:ptr[g+1]`` of ``a`` and ``out``,
    which list the members group by group); writes ``out``, returns the groups that failed.
    ``b = 1 - a`` is given separately: in a complemented group the roles swap (``a' = b``,
    ``b' = a``), and ``a`` itself, not ``1 - (1 - a)``, is the new ``b``. ``fast_min_work``
    and ``fast_cost`` gate the circle method for large groups (``_FAST_MIN_WORK``,
    ``_FAST_COST``; see :func:`_group_link`).

    Serial: a ``prange`` over groups was 3.5x slower on the shared 2-core machine (22 ms
    against 6 ms per call on Adult Mondrian ℓ = 4, whose largest group is 63% of the work).
    """
    n_groups = len(ptr) - 1
    failed = np.zeros(n_groups, dtype=np.bool_)
    done = np.zeros(n_groups, dtype=np.bool_)
    for g in range(n_groups):  # groups with one x first, in a loop of their own (faster)
        if degree[g] == 1:
            done[g] = _odds_link(a, b, ptr[g], ptr[g + 1], complement[g], out)
    largest = 0
    need = 0
    for g in range(n_groups):  # scratch space for the largest group, allocated once
        if done[g]:
            continue
        size = ptr[g + 1] - ptr[g]
        largest = max(largest, size)
        if size * degree[g] >= fast_min_work:
            continue  # circle method; a linear pass falling back allocates its own
        runs = _count_pair_runs(a[ptr[g] : ptr[g + 1]], b[ptr[g] : ptr[g + 1]])
        need = max(need, runs * (degree[g] + 1) + 2 * (degree[g] + 2))
    w_all = np.empty(largest)
    wb_all = np.empty(largest)
    res_all = np.empty(largest)
    work = np.empty(need)
    for g in range(n_groups):
        lo = ptr[g]
        size = ptr[g + 1] - lo
        comp = complement[g]
        if done[g]:
            continue
        w = w_all[:size]
        wb = wb_all[:size]
        for j in range(size):
            w[j] = b[lo + j] if comp else a[lo + j]
            wb[j] = a[lo + j] if comp else b[lo + j]
        res = res_all[:size]
        if not _group_link(w, wb, degree[g], res, work, fast_min_work, fast_cost):
            failed[g] = True
        for j in range(size):
            out[lo + j] = 1.0 - res[j] if comp else res[j]
    return failed


@njit(cache=True, nogil=True)
def _link_kernel(
    a: np.ndarray,
    ptr: np.ndarray,
    degree: np.ndarray,
    complement: np.ndarray,
    out: np.ndarray,
) -> np.ndarray:
    """:func:`_link_kernel_ab` with ``b = 1 - a``."""
    return _link_kernel_ab(a, 1.0 - a, ptr, degree, complement, out)


def _poly_link_reference(a: np.ndarray, n: int, b: np.ndarray | None = None) -> np.ndarray:
    """Eq. (3) in log space for a batch of groups of equal size with ``n`` values ``x`` each.

    The previous implementation, kept as the reference of the tests and as a safety net for a
    group on which :func:`_group_link` fails (not observed). ``a`` has shape (B, N), entries in
    [0, 1]. Coefficients of ``prod_j (b_j + a_j z)`` are kept as logarithms, truncated at
    degree ``n``: a forward pass stores the prefix products, a backward pass carries the suffix
    product and combines it with the prefix to get each member's leave-one-out coefficient
    ``[z^{n-1}]``. Groups whose worlds all have weight 0 get ``n / N``. ``b`` (default
    ``1 - a``) is ``1 - a`` given separately, e.g. the original ``a`` of a complemented group.
    """
    B, N = a.shape
    with np.errstate(divide="ignore"):
        la = np.log(a)
        lb = np.log1p(-a) if b is None else np.log(b)
    neg = -np.inf
    prefix = np.full((N + 1, B, n + 1), neg)
    prefix[0, :, 0] = 0.0
    for j in range(N):
        cur = prefix[j]
        nxt = prefix[j + 1]
        nxt[:, 0] = cur[:, 0] + lb[:, j]
        nxt[:, 1:] = np.logaddexp(cur[:, 1:] + lb[:, j, None], cur[:, :-1] + la[:, j, None])
    log_z = prefix[N, :, n]
    suffix = np.full((B, n), neg)  # degrees 0..n-1 of the product of members j+1..N-1
    suffix[:, 0] = 0.0
    out = np.empty((B, N))
    for j in range(N - 1, -1, -1):
        # [z^{n-1}] prefix_j * suffix_{j+1} = logsumexp_k prefix_j[k] + suffix[n-1-k]
        terms = prefix[j, :, :n] + suffix[:, ::-1]
        m = terms.max(axis=1)
        finite = np.isfinite(m)
        loo = np.full(B, neg)
        loo[finite] = m[finite] + np.log(np.exp(terms[finite] - m[finite, None]).sum(axis=1))
        out[:, j] = la[:, j] + loo
        new = np.empty_like(suffix)
        new[:, 0] = suffix[:, 0] + lb[:, j]
        new[:, 1:] = np.logaddexp(suffix[:, 1:] + lb[:, j, None], suffix[:, :-1] + la[:, j, None])
        suffix = new
    ok = np.isfinite(log_z)
    res = np.full((B, N), n / N)
    with np.errstate(invalid="ignore"):
        res[ok] = np.exp(out[ok] - log_z[ok, None])
    return np.clip(res, 0.0, 1.0)
