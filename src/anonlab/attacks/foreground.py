"""The foreground-knowledge attack: global distributions mined from the release itself.

Wong, Fu, Wang, Xu and Yu, "Can the Utility of Anonymized Data be used for Privacy Breaches?"
(ACM TKDD 2011); reading notes in ``notes/wong-foreground-knowledge-attack.md``.

Group-based anonymization (Anatomy, ℓ-diversity, t-closeness, MASK, Injector, ...) breaks the
link between quasi-identifiers and the sensitive value inside each group, and earlier analyses
give every assignment of a group's values to its members the same weight (the *random-world*
baseline ``n_k / N_k``). The adversary of this paper first learns, from the published table, a
*global distribution* ``f_i = p(s_i : x)``: the probability that a record with quasi-identifier
signature ``s_i`` (e.g. ``occupation = Craft-repair``) holds the sensitive value ``x``. It then
weights each possible world of a group by the product of these probabilities:

* Eq. (1) ``p(w) = prod_j p_{j,w}`` with ``p_{j,w} = f_{s(j)}`` if ``t_j`` holds ``x`` in ``w``
  and ``1 - f_{s(j)}`` otherwise;
* Eq. (2) ``p(w | L_k) = p(w) / sum_{w'} p(w')``;
* Eq. (3) ``p(t_j : x) = sum_{w in B_x} p(w | L_k)``, the worlds in which ``t_j`` holds ``x``.

Only the set of members that receive ``x`` matters, so with ``a_j = f_{s(j)}`` and
``b_j = 1 - a_j`` the normaliser is ``[z^n] prod_j (b_j + a_j z)`` and
``p(t_j : x) = a_j [z^{n-1}] prod_{i != j} (b_i + a_i z) / [z^n] prod_i (b_i + a_i z)``
(notes §2.1). :func:`breach_probabilities` evaluates this truncated polynomial product exactly
(up to rounding), in ``O(N_k · min(n_k, N_k - n_k))`` per group, instead of enumerating the
``C(N_k, n_k)`` worlds (impossible for the t-closeness groups of thousands of records): one
compiled call for all groups, prefix and suffix products in linear space (their coefficients are
probabilities, so they cannot overflow), one leave-one-out coefficient per run of members with
equal ``f``, and an exponential tilt of the weights (which leaves Eq. 3 unchanged) where the
plain product would underflow. Large groups (``N · n >= 2^18``) with few runs of equal ``f``
go through :func:`_circle_link` instead: the tilted product evaluated at ``K`` points of the
unit circle and read off by one Fourier sum per coefficient, ``O(runs · K)`` with ``K`` about
11 standard deviations of the count (aliasing below 1e-25 by a Bernstein bound, rounding
checked; it declines, and the linear passes run, when either check fails).

The global distribution of an attribute set (Eqs. 4-6) is the fixed point
``f_i = sum_k c_k(s_i : x) / #{records matching s_i}`` with ``c_k`` the expected number of
``s_i``-records holding ``x`` in group ``k`` under the weighted worlds. The paper solves it with
Newton's method. :func:`mine_global_distribution` iterates the fixed-point map itself, which is
the EM algorithm for per-signature Bernoulli rates observed through each group's count of ``x``
(notes §2.2): every iterate stays in ``[0, 1]`` and preserves the mass balance
``sum_i |s_i| f_i = #x``, and the likelihood increases monotonically. EM crawls where a
coordinate of the fixed point is on the boundary 0 with ``dg_i/df_i`` near 1 or the likelihood
is flat; by default it is accelerated by SQUAREM extrapolation (:func:`_squarem`), or, as an
option, by Newton jumps to its limit under safeguards that make the root EM's own (see
:func:`_solve`). The EM result is then optionally polished with clipped Newton steps (the
paper's method), accepted only when they reduce the residual. Groups equal in size, count of
``x`` and members' unknowns are evaluated once per iteration (:class:`_Problem`), and
everything that depends only on the quasi-identifiers is computed once per distinct row
(:class:`_RowIndex`).
:func:`foreground_attack` is Algorithm 1: Apriori enumeration of attribute sets with sufficient
signatures (Theorem 1), mining of each, and the worst case ``p*(t) = max_{A, x} p_A(t : x)``
per record.

Choices where the paper is silent (each stated where it applies):

* Generalized releases are attacked through the worst-case reduction of the paper's §2: the
  adversary knows each record's exact quasi-identifiers and its group, so every release is
  treated as a bucketization. Counts of ``x`` are the *published* sensitive values (perturbed
  ones where the algorithm perturbs, as in MASK).
* A target ``x`` may be a set of sensitive values, treated as one value (the paper's §5 uses
  the low-education set ``{Preschool, 1st-4th, 5th-6th, 7th-8th}``).
* A group whose possible worlds all have weight 0 (e.g. every member has ``f = 0`` but the group
  holds ``x``) falls back to the random-world value ``n_k / N_k`` for its members.
* Signatures matched by fewer than ``J = ceil(ln(2/σ) / (2ε²))`` records ("insufficient"):
  the paper says only that "uniform distribution will be assumed". See ``SMALL_SIGNATURE``
  for the options; the default ``"uniform-half"`` fixes ``f = 0.5`` (a uniform distribution
  over ``{x, not x}``), the reading that reproduces the paper's reported numbers best.
* The empty attribute set, whose one signature every record matches, is part of the search by
  default (``include_empty=True``): its global distribution is the table's base rate, under
  which ``p(t : x) = n_k / N_k``. Hence ``p*(t)`` is never below the random-world baseline.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_float, check_int, takes_release
from anonlab.errors import AnonlabError
from anonlab.release import Release

SMALL_SIGNATURE = ("uniform-half", "base-rate", "pooled")
"""Rules for signatures with fewer than ``J`` matching records.

* ``"uniform-half"`` (default): ``f = 0.5``, fixed, not solved for. "Uniform distribution"
  read as uniform over ``{x, not x}``. With a rare ``x`` this makes a record with an
  insufficient signature far more likely than its group mates to hold ``x``; it is the reading
  that reproduces the paper's Adult numbers best.
* ``"base-rate"``: ``f = #x / |T*|``, fixed (the notes' default, option (a)): uniform over the
  records, neutral relative to the sufficient signatures.
* ``"pooled"``: all insufficient signatures of the attribute set share one unknown, solved like
  the others (the notes' option (b)).
"""


def hoeffding_support(epsilon: float, sigma: float) -> int:
    """Sample size of Theorem 1 (Toivonen): ``J = ceil(ln(2/σ) / (2 ε²))``.

    ``hoeffding_support(0.01, 0.9) == 3993``, the paper's setting.
    """
    epsilon = check_float("epsilon", epsilon, low=0.0, high=1.0)
    sigma = check_float("sigma", sigma, low=0.0, high=1.0)
    if epsilon <= 0 or sigma <= 0:
        raise AnonlabError(
            f"parameters 'epsilon' and 'sigma' must be > 0, got epsilon={epsilon}, sigma={sigma}"
        )
    return max(1, math.ceil(math.log(2.0 / sigma) / (2.0 * epsilon * epsilon)))


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GlobalDistribution:
    """The global distribution ``G`` of one attribute set for one target ``x`` (Def. 2).

    Attributes
    ----------
    attributes : tuple of str
        The attribute set ``A`` (empty: every record has the one signature ``()``).
    target : tuple of str
        The sensitive value(s) treated as ``x``.
    signature_codes : ndarray of shape (n_signatures, len(attributes))
        Every signature of ``A`` that occurs in the release, as codes (sorted); the property
        ``signatures`` gives their labels (tuples in ``attributes`` order), built on first use:
        with hundreds of thousands of distinct rows, labels of every signature of every set as
        Python tuples were most of the attack's memory.
    values : tuple of ndarray
        The label of each code, per attribute of ``A`` (the release table's arrays, shared).
    probability : ndarray of shape (n_signatures,)
        ``f_i = p(s_i : x)``.
    support : ndarray of shape (n_signatures,)
        Number of records matching each signature.
    sufficient : ndarray of shape (n_signatures,), dtype=bool
        Whether the support reaches ``min_support`` (then ``f_i`` was solved for).
    row_signature : ndarray of shape (n_distinct_rows,) or None
        Index of the signature of each distinct quasi-identifier row of the release; None when
        it is recomputed from ``row_index`` on demand (what :func:`foreground_attack` keeps:
        with 800,000 distinct rows, these maps of 255 attribute sets were 488 MB).
    record_row : ndarray of shape (n_rows,)
        Each record's distinct row; shared by every distribution of one attack. A per-record
        signature array per attribute set was most of the attack's memory (1.8 GB of 2.5 GB at
        1M records with 239 attribute sets, docs/benchmarks.md "Scale"); the property
        ``record_signature`` computes it on demand.
    row_index : optional
        The attack's shared index of distinct rows (see ``row_signature``).
    min_support : int
    small_signature : str
        The rule used for insufficient signatures (see ``SMALL_SIGNATURE``).
    """

    attributes: tuple[str, ...]
    target: tuple[str, ...]
    signature_codes: np.ndarray = field(repr=False)
    values: tuple[np.ndarray, ...] = field(repr=False)
    probability: np.ndarray
    support: np.ndarray
    sufficient: np.ndarray
    row_signature: np.ndarray | None = field(repr=False)
    record_row: np.ndarray = field(repr=False)
    min_support: int = 1
    small_signature: str = "uniform-half"
    row_index: Any = field(default=None, repr=False, compare=False)

    def _row_map(self) -> np.ndarray:
        """``row_signature``, recomputed from the shared row index where not kept."""
        if self.row_signature is not None:
            return self.row_signature
        sig = self.row_index.signatures(self.attributes)
        return _compact_index(np.asarray(sig.row_signature), len(self.probability))

    @functools.cached_property
    def signatures(self) -> tuple[tuple, ...]:
        """Every signature of ``A`` in the release: tuples of labels in ``attributes`` order."""
        return _labels(self.values, self.signature_codes)

    @property
    def record_signature(self) -> np.ndarray:
        """Index of each record's signature, shape (n_rows,), in the smallest unsigned dtype
        that holds the number of signatures."""
        return self._row_map()[self.record_row]

    def record_probabilities(self) -> np.ndarray:
        """``f`` of each record's signature, shape (n_rows,)."""
        return self.probability[self._row_map()][self.record_row]

    def as_dict(self) -> dict[tuple, float]:
        """``{signature: f}``."""
        return {s: float(p) for s, p in zip(self.signatures, self.probability, strict=True)}


@dataclass(frozen=True)
class ConvergenceReport:
    """How the fixed point of Eqs. (4)-(6) was solved.

    Attributes
    ----------
    converged : bool
        ``residual <= tol``.
    residual : float
        ``max_i |f_i - g_i(f)|`` at the returned point, ``g`` the right-hand side of Eq. (4).
    em_iterations : int
        Fixed-point (EM) iterations run.
    newton_steps : int
        Newton steps accepted (jumps to EM's limit where it crawls, and polishing after EM).
    mass_balance : float
        ``sum_t p(t : x) - #x`` summed over the records whose ``f`` is solved for, where
        ``p(t : x)`` is replaced by ``f_{s(t)}``; i.e. ``sum_i |s_i| f_i - sum_{t free} p(t:x)``.
        Zero at an exact fixed point; with every signature free this is the notes' invariant
        ``sum_i |s_i| f_i = #x``.
    n_unknowns : int
    tol : float
    """

    converged: bool
    residual: float
    em_iterations: int
    newton_steps: int
    mass_balance: float
    n_unknowns: int
    tol: float

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ForegroundResult:
    """Per-record worst-case breach probabilities of the foreground-knowledge attack.

    Attributes
    ----------
    p_star : ndarray of shape (n_rows,)
        ``p*(t) = max_{A, x} p_A(t : x)`` (paper §5 preamble).
    baseline : ndarray of shape (n_rows,)
        Random-world baseline ``max_x n_x(group) / |group|``.
    best_attributes : ndarray of shape (n_rows,), dtype=int
        Index into ``attribute_sets`` of the set that gave ``p*``.
    best_target : ndarray of shape (n_rows,), dtype=int
        Index into ``targets`` of the target that gave ``p*``.
    attribute_sets : tuple of tuple of str
        The attribute sets attacked (those with at least one sufficient signature).
    targets : tuple of tuple of str
    distributions : tuple of GlobalDistribution
        One per (attribute set, target), attribute-set major.
    reports : tuple of ConvergenceReport
        Same order as ``distributions``.
    min_support : int
    small_signature : str
    """

    p_star: np.ndarray
    baseline: np.ndarray
    best_attributes: np.ndarray
    best_target: np.ndarray
    attribute_sets: tuple[tuple[str, ...], ...]
    targets: tuple[tuple[str, ...], ...]
    distributions: tuple[GlobalDistribution, ...] = field(repr=False)
    reports: tuple[ConvergenceReport, ...] = field(repr=False)
    min_support: int = 1
    small_signature: str = "uniform-half"

    def problematic(self, r: float) -> np.ndarray:
        """Records with ``p*(t) > 1/r`` (Problem 2), by more than rounding (1e-12).

        Without the margin a probability exactly at ``1/r`` (e.g. 0.5 computed as
        0.5000000000000009) would count as a breach depending on the order of floating-point
        operations.
        """
        r = check_float("r", r, low=1.0)
        return self.p_star > 1.0 / r + 1e-12

    def average_delta(self, release: Release) -> dict[str, float]:
        """The paper's average Δ (§5.1): per group and distribution, the spread
        ``max_t p(s(t):x) − min_t p(s(t):x)`` of its members' mined probabilities, averaged over
        the groups; returned per attribute set and target (keys ``"a,b -> x"``) and ``"mean"``
        over all of them. A large Δ means the group mixes signatures the attacker can tell
        apart, which is what breaks it.
        """
        from anonlab.grouping import group_min_max

        out: dict[str, float] = {}
        for dist in self.distributions:
            f = dist.record_probabilities()
            lo, hi = group_min_max(release.group, f, release.n_groups)
            key = f"{','.join(dist.attributes) or '(none)'} -> {'|'.join(dist.target)}"
            out[key] = float(np.mean(hi - lo))
        out["mean"] = float(np.mean(list(out.values()))) if out else float("nan")
        return out

    def score(self, release: Release, r: float) -> dict[str, float]:
        """The paper's §5.1 measures against the ground truth (publisher side).

        Sensitive tuples are the records whose *original* value is in one of the targets.
        Returns recall (``|problematic ∩ sensitive| / |sensitive|``), the false-positive
        proportion (``|problematic ∩ non-sensitive| / |non-sensitive|``), and the average
        breach probability (mean ``p*`` over all sensitive tuples; and the baseline's mean).
        """
        table = release.table
        sens = release.sensitive
        mask = np.zeros(table.domain_size(sens), dtype=bool)
        for t in self.targets:
            mask |= table.value_mask(sens, list(t))
        is_sensitive = mask[table.codes[sens]]
        bad = self.problematic(r)
        n_s = int(is_sensitive.sum())
        n_o = int((~is_sensitive).sum())
        nan = float("nan")
        return {
            "sensitive_tuples": n_s,
            "recall": float((bad & is_sensitive).sum() / n_s) if n_s else nan,
            "false_positive": float((bad & ~is_sensitive).sum() / n_o) if n_o else nan,
            "average_breach": float(self.p_star[is_sensitive].mean()) if n_s else nan,
            "average_baseline": float(self.baseline[is_sensitive].mean()) if n_s else nan,
        }


# ---------------------------------------------------------------------------------------------
# Eq. (1)-(3): the truncated polynomial product, every group in one compiled call
# ---------------------------------------------------------------------------------------------

_TINY = 1e-250
"""Smallest accepted ``[z^n]`` of a linear-space pass (see :func:`_group_link`)."""


class _Layout:
    """The busy groups of one target in CSR form, for :func:`_link_kernel`.

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
        return _Posterior(self, order, member).full()

    def link(self, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
        """``p(t : x)`` of the busy groups' members, given and returned in an :meth:`order`;
        ``b = 1 - a`` (default: computed as ``1 - a``; the kernel carries it separately, so
        that an ``a`` below 1e-16 is not lost in a complemented group)."""
        return _link(a, b, self.ptr, self.degree, self.complement)


def _link(
    a: np.ndarray, b: np.ndarray | None, ptr: np.ndarray, degree: np.ndarray, complement: np.ndarray
) -> np.ndarray:
    """Eq. (3) for groups in CSR form (see :class:`_Layout`): ``p(t : x)`` of their members."""
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
:func:`_loo_pass_ab`. Read by :meth:`_Layout.link` at call time. Chosen by measurement on Adult
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


@njit(cache=True)
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


@njit(cache=True)
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


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def _require_groups(release: Release) -> None:
    if not isinstance(release, Release):
        raise AnonlabError(f"release must be an anonlab Release, got {type(release).__name__}")
    if release.group is None:
        raise AnonlabError(
            "the foreground-knowledge attack needs per-record groups; this release is known "
            "only by its group statistics"
        )


def _targets(release: Release, sensitive_values: Any) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """Normalise ``sensitive_values`` to a list of (labels, mask over the sensitive domain).

    ``str``: one value. A sequence of str: one value *set*, treated as one ``x``. A sequence
    of sequences: several targets. ``None``: every value of the domain on its own.
    """
    sens = release.sensitive
    values = release.table.values[sens]
    if sensitive_values is None:
        return [((str(v),), release.sensitive_mask([v])) for v in values]
    if isinstance(sensitive_values, str):
        sensitive_values = [sensitive_values]
    items = list(sensitive_values)
    if not items:
        raise AnonlabError("parameter 'sensitive_values' must name at least one value")
    if all(isinstance(v, str) or not isinstance(v, Sequence) for v in items):
        groups = [items]
    else:
        groups = [[g] if isinstance(g, str) else list(g) for g in items]
    out = []
    for g in groups:
        if not g:
            raise AnonlabError("parameter 'sensitive_values': a target value set is empty")
        out.append((tuple(str(v) for v in g), release.sensitive_mask(g)))
    return out


def _check_attributes(release: Release, attributes: Sequence[str] | str) -> tuple[str, ...]:
    if isinstance(attributes, str):
        attributes = [attributes]
    attributes = tuple(attributes)
    qi = release.quasi_identifiers
    for a in attributes:
        if a not in qi:
            raise AnonlabError(
                f"attribute {a!r} is not a quasi-identifier of the release; they are {list(qi)}"
            )
    if len(set(attributes)) != len(attributes):
        raise AnonlabError(f"parameter 'attributes' repeats an attribute: {list(attributes)}")
    return attributes


def _distinct_keys(
    columns: Sequence[np.ndarray], radices: Sequence[int], n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows given column by column (codes ``0 .. radix - 1``): the first row of each
    distinct row, in lexicographic order of the rows, each row's distinct-row index, and the
    counts. One mixed-radix int64 key per row instead of ``np.unique(axis=0)``, which sorts
    rows as structured records and was most of this attack's time; the key is renumbered
    densely whenever it would pass 2^62, so any number of columns works."""
    key = np.zeros(n, dtype=np.int64)
    space = 1
    for col, r in zip(columns, radices, strict=True):
        if space * int(r) >= 2**62:
            _, key = np.unique(key, return_inverse=True)  # dense, same order
            key = key.ravel().astype(np.int64)
            space = int(key.max()) + 1 if n else 1
        key = key * int(r) + np.asarray(col, dtype=np.int64)
        space *= int(r)
    _, first, inv, cnt = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return first, inv.ravel(), cnt


def _compact_index(index: np.ndarray, size: int) -> np.ndarray:
    """``index`` (values in ``0 .. size - 1``) in the smallest unsigned dtype holding them."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if size <= np.iinfo(dtype).max + 1:
            return index.astype(dtype)
    return index.astype(np.int64)


@dataclass(frozen=True, eq=False)
class _RowIndex:
    """The distinct quasi-identifier rows of a release (over ``attributes``), their counts and
    each record's distinct row.

    Everything the attack derives from the quasi-identifiers alone (Apriori's counts, the
    signatures of an attribute set and their supports) depends on a record only through its
    row, so it is computed once per distinct row, weighted by the count, and read back per
    record through ``record_row`` where a per-record array is needed. Census data has far
    fewer distinct rows than records (every signature the attack solves for has at least ``J``
    records); a resampled table has at most as many as its source.
    """

    attributes: tuple[str, ...]
    rows: np.ndarray  # (D, |attributes|) int64 codes
    count: np.ndarray  # (D,) int64
    record_row: np.ndarray  # (n_rows,) smallest unsigned dtype
    radices: tuple[int, ...]

    @classmethod
    def of(cls, release: Release, attributes: tuple[str, ...]) -> _RowIndex:
        table = release.table
        n = table.n_rows
        radices = tuple(int(table.domain_size(a)) for a in attributes)
        if not attributes or not n:
            rows = np.zeros((1 if n else 0, len(attributes)), dtype=np.int64)
            return cls(
                attributes,
                rows,
                np.full(len(rows), n, dtype=np.int64),
                np.zeros(n, dtype=np.uint8),
                radices,
            )
        columns = [table.codes[a] for a in attributes]
        first, inv, cnt = _distinct_keys(columns, radices, n)
        rows = np.stack([np.asarray(c)[first] for c in columns], axis=1).astype(np.int64)
        return cls(attributes, rows, cnt.astype(np.int64), _compact_index(inv, len(first)), radices)

    def signatures(self, attributes: tuple[str, ...]) -> _Signatures:
        """The signatures of ``attributes`` (a subset of ``self.attributes``)."""
        if not attributes:
            m = 1 if len(self.rows) else 0
            return _Signatures(
                np.zeros((m, 0), dtype=np.int64),
                np.zeros(len(self.rows), dtype=np.int64),
                self.record_row,
                np.full(m, int(self.count.sum()), dtype=np.int64),
                self,
            )
        cols = [self.attributes.index(a) for a in attributes]
        first, row_sig, _ = _distinct_keys(
            [self.rows[:, j] for j in cols], [self.radices[j] for j in cols], len(self.rows)
        )
        support = np.bincount(row_sig, weights=self.count, minlength=len(first))
        return _Signatures(
            self.rows[first][:, cols],
            row_sig,
            self.record_row,
            np.rint(support).astype(np.int64),
            self,
        )


@dataclass(frozen=True, eq=False)
class _Signatures:
    """The signatures of one attribute set: their codes ``(m, |A|)``, the signature of each
    distinct row (``row_signature``), each record's row (``record_row``) and the supports."""

    codes: np.ndarray
    row_signature: np.ndarray
    record_row: np.ndarray
    support: np.ndarray
    index: _RowIndex | None = None  # where row_signature can be recomputed from

    @classmethod
    def per_record(cls, codes: np.ndarray, record_signature: np.ndarray) -> _Signatures:
        """Signatures given per record (every record its own "row")."""
        record_signature = np.asarray(record_signature)
        return cls(
            codes,
            np.arange(len(codes), dtype=np.int64),
            record_signature,
            np.bincount(record_signature, minlength=len(codes)).astype(np.int64),
        )

    def of(self, records: np.ndarray) -> np.ndarray:
        """Signature index (int64) of the given records."""
        return np.asarray(self.row_signature)[self.record_row[records]].astype(np.int64)


def _signatures(release: Release, attributes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(codes of each distinct signature (m, |A|), per-record signature index)."""
    sig = _RowIndex.of(release, attributes).signatures(attributes)
    return sig.codes, np.asarray(sig.row_signature)[sig.record_row].astype(np.int64)


def _labels(values: Sequence[np.ndarray], codes: np.ndarray) -> tuple:
    """Rows of ``codes`` as tuples of labels (``values[i]`` the labels of column ``i``)."""
    columns = []
    for i, vals in enumerate(values):
        col = np.asarray(vals)[codes[:, i]]
        items = col.tolist()  # Python scalars, as _plain gives
        columns.append([_plain(v) for v in items] if col.dtype == object else items)
    if not len(values):
        return tuple(() for _ in range(len(codes)))
    return tuple(zip(*columns, strict=True))


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _count_x(release: Release, mask: np.ndarray) -> np.ndarray:
    """Published count of the target ``x`` in each group."""
    return (np.asarray(release.sensitive_histogram)[:, mask]).sum(axis=1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Eq. (1)-(3) public entry point
# ---------------------------------------------------------------------------------------------


@takes_release
def breach_probabilities(
    release: Release,
    global_distribution: GlobalDistribution | Mapping | np.ndarray,
    sensitive_values: Any = None,
    *,
    attributes: Sequence[str] | None = None,
) -> np.ndarray:
    """Posterior ``p(t : x)`` of every record given a global distribution (Eqs. 1-3).

    Exact, by the generating-function form of notes §2.1: with ``a_j = f_{s(j)}`` and
    ``b_j = 1 - a_j``,
    ``p(t_j : x) = a_j [z^{n-1}] prod_{i != j}(b_i + a_i z) / [z^n] prod_i (b_i + a_i z)``,
    which equals the sum over possible worlds of Eqs. (1)-(3) without enumerating them. Work is
    ``O(N · min(n, N - n))`` per group, or ``O(runs · K)`` for large groups (the circle method),
    with no under/overflow for groups of thousands (see :func:`_group_link`).

    Parameters
    ----------
    release : Release
        Attacked through the worst-case reduction (exact QIs and group of every record known).
    global_distribution : GlobalDistribution, mapping or ndarray
        ``f = p(s : x)``: a mined :class:`GlobalDistribution`; or a mapping ``{signature: f}``
        over the signatures of ``attributes`` (a signature is a tuple of labels in ``attributes``
        order, or a bare label for one attribute), which must cover every signature in the
        release; or an array of shape (n_rows,) with each record's ``f``.
    sensitive_values : str or sequence of str, optional
        The target ``x`` (a set of values is treated as one value). Default: the target of the
        :class:`GlobalDistribution`; required otherwise.
    attributes : sequence of str, optional
        The attribute set of a mapping ``global_distribution``.

    Returns
    -------
    ndarray of shape (n_rows,)
        ``p(t : x)``; within each group they sum to the group's count of ``x``. A group whose
        worlds all have weight 0 gets the random-world value ``n / N``.

    Raises
    ------
    AnonlabError
        On a release without per-record groups, probabilities outside [0, 1], signatures
        missing from a mapping, or an unknown sensitive value.
    """
    _require_groups(release)
    if isinstance(global_distribution, GlobalDistribution):
        f = global_distribution.record_probabilities()
        if sensitive_values is None:
            sensitive_values = list(global_distribution.target)
    elif isinstance(global_distribution, Mapping):
        if attributes is None:
            raise AnonlabError(
                "parameter 'attributes' is required when global_distribution is a mapping"
            )
        attrs = _check_attributes(release, attributes)
        codes, inv = _signatures(release, attrs)
        labels = _labels([release.table.values[a] for a in attrs], codes)
        table = {(k if isinstance(k, tuple) else (k,)): v for k, v in global_distribution.items()}
        table = {tuple(str(x) for x in k): v for k, v in table.items()}
        per_sig = np.empty(len(labels))
        for i, s in enumerate(labels):
            key = tuple(str(x) for x in s)
            if key not in table:
                raise AnonlabError(
                    f"global_distribution has no probability for signature {s} of {list(attrs)}"
                )
            per_sig[i] = float(table[key])
        f = per_sig[inv]
    else:
        f = np.asarray(global_distribution, dtype=np.float64)
        if f.shape != (release.table.n_rows,):
            raise AnonlabError(
                f"global_distribution as an array must hold one probability per record "
                f"({release.table.n_rows}), got shape {f.shape}"
            )
    if not np.all(np.isfinite(f)) or np.any(f < 0) or np.any(f > 1):
        raise AnonlabError("global_distribution: probabilities must lie in [0, 1]")
    if sensitive_values is None:
        raise AnonlabError("parameter 'sensitive_values' is required: name the target value(s)")
    targets = _targets(release, sensitive_values)
    if len(targets) != 1:
        raise AnonlabError(
            f"breach_probabilities takes one target x (a value or a value set), got {len(targets)}"
        )
    n_x = _count_x(release, targets[0][1])
    return _Layout(release.group, release.n_groups, n_x).probabilities(f)


# ---------------------------------------------------------------------------------------------
# Eq. (4)-(6): mining
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _sequence_hashes(keys: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each group's key sequence ``keys[ptr[g]:ptr[g+1]]`` (order-dependent;
    used only to sort groups, equality is checked exactly)."""
    n = len(ptr) - 1
    out = np.empty(n, dtype=np.uint64)
    for g in range(n):
        h = np.uint64(1469598103934665603)
        for i in range(ptr[g], ptr[g + 1]):
            z = np.uint64(keys[i]) + np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            h = (h ^ (z ^ (z >> np.uint64(31)))) * np.uint64(1099511628211)
        out[g] = h
    return out


@njit(cache=True)
def _group_types(
    keys: np.ndarray, ptr: np.ndarray, degree: np.ndarray, complement: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Number groups by type: equal size, degree, complement flag and key sequence. ``order``
    lists the groups so that groups of one type are adjacent (sorted by those and a hash of
    the sequence); a group starts a new type unless it equals the current type's first group
    exactly, so a hash collision can only split a type, never merge two. Returns each group's
    type and each type's first group."""
    n = len(order)
    kind = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    t = -1
    rep = -1
    for k in range(n):
        g = order[k]
        same = rep >= 0
        if same:
            size = ptr[g + 1] - ptr[g]
            same = (
                size == ptr[rep + 1] - ptr[rep]
                and degree[g] == degree[rep]
                and complement[g] == complement[rep]
            )
            if same:
                for j in range(size):
                    if keys[ptr[g] + j] != keys[ptr[rep] + j]:
                        same = False
                        break
        if not same:
            t += 1
            rep = g
            first[t] = g
        kind[g] = t
    return kind, first[: t + 1]


class _Problem:
    """The fixed point ``f = g(f)`` of Eq. (4) for one attribute set and one target.

    A busy group's ``p(t : x)`` (Eq. 3) depends only on its size, its count of ``x`` and the
    multiset of its members' *keys* (their unknown, or their fixed ``f``). Groups equal in
    these ("types") are computed once and weighted by how many there are: exact (the same
    kernel on the same numbers; only the order of Eq. (4)'s sums changes, so results agree to
    rounding). On an Anatomy release, whose groups of two pair a few hundred keys, the 787,060
    busy members at 10M resampled census records form at most 66,246 types in one attribute set
    (docs/benchmarks.md, "Scale").
    """

    def __init__(
        self,
        layout: _Layout,
        signatures: _Signatures,
        sig_var: np.ndarray,
        sig_fixed: np.ndarray,
        n_vars: int,
    ) -> None:
        self.layout = layout
        self.n_vars = n_vars
        free_sig = sig_var >= 0
        self.den = np.bincount(
            sig_var[free_sig], weights=signatures.support[free_sig], minlength=n_vars
        ).astype(np.float64)
        # a key per signature: its unknown, or n_vars + the index of its fixed value
        fixed_values, fixed_key = np.unique(sig_fixed[~free_sig], return_inverse=True)
        sig_key = np.empty(len(sig_var), dtype=np.int64)
        sig_key[free_sig] = sig_var[free_sig]
        sig_key[~free_sig] = n_vars + fixed_key.ravel()
        n_keys = n_vars + len(fixed_values)
        member_key = sig_key[signatures.of(layout.records)]
        # busy groups' members by group, then key (equal a adjacent for the kernel)
        by = np.argsort(layout.record_group * max(n_keys, 1) + member_key, kind="stable")
        self.order = layout.records[by]
        keys = member_key[by]
        ptr = layout.ptr
        sizes = np.diff(ptr)
        hashes = _sequence_hashes(keys, ptr).view(np.int64)
        groups = np.lexsort((hashes, layout.complement, layout.degree, sizes))
        kind, first = _group_types(keys, ptr, layout.degree, layout.complement, groups)
        rep_sizes = sizes[first]
        self.ptr = np.r_[0, np.cumsum(rep_sizes)].astype(np.int64)
        self.degree = layout.degree[first]
        self.complement = layout.complement[first]
        rep_members = np.repeat(ptr[first] - self.ptr[:-1], rep_sizes) + np.arange(self.ptr[-1])
        rep_key = keys[rep_members]
        # member i of group g reads the result of its type's first group at the same offset
        self.member_rep = np.repeat(self.ptr[kind] - ptr[:-1], sizes) + np.arange(len(keys))
        self.rep_free = rep_key < n_vars
        self.rep_var = np.where(self.rep_free, rep_key, 0)
        self.rep_fixed = np.where(
            self.rep_free,
            0.0,
            fixed_values[np.maximum(rep_key - n_vars, 0)] if len(fixed_values) else 0.0,
        )
        multiplicity = np.bincount(kind, minlength=len(first)).astype(np.float64)
        self.rep_weight = np.repeat(multiplicity, rep_sizes)[self.rep_free]
        self.rep_free_var = rep_key[self.rep_free]
        one_var = sig_var[signatures.of(layout.one)]
        self.num_one = np.bincount(one_var[one_var >= 0], minlength=n_vars).astype(np.float64)
        self.n_types = len(first)
        self.last: tuple[np.ndarray, np.ndarray] | None = None

    def type_probabilities(self, f: np.ndarray) -> np.ndarray:
        """``p(t : x)`` of the members of each type's first group (CSR ``self.ptr``)."""
        a = (
            self.rep_fixed
            if not self.n_vars
            else np.where(self.rep_free, f[self.rep_var], self.rep_fixed)
        )
        return _link(a, None, self.ptr, self.degree, self.complement)

    def posterior(self, f: np.ndarray) -> _Posterior:
        """``p(t : x)`` of every record at ``f``."""
        return _Posterior(self.layout, self.order, self._rep(f)[self.member_rep])

    def _rep(self, f: np.ndarray) -> np.ndarray:
        if self.last is not None and np.array_equal(self.last[0], f):
            return self.last[1]  # the solver's final point is usually the last one evaluated
        return self.type_probabilities(f)

    def mass_balance(self, f: np.ndarray) -> float:
        """``sum_i |s_i| f_i - sum_{t free} p(t : x)`` (see :class:`ConvergenceReport`)."""
        rep = self._rep(f)
        expected = self.num_one.sum() + float(rep[self.rep_free] @ self.rep_weight)
        return float(self.den @ f - expected)

    def g(self, f: np.ndarray) -> np.ndarray:
        rep = self.type_probabilities(f)
        self.last = (f.copy(), rep)
        num = self.num_one + np.bincount(
            self.rep_free_var, weights=rep[self.rep_free] * self.rep_weight, minlength=self.n_vars
        )
        return np.clip(num / self.den, 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class _Posterior:
    """``p(t : x)`` of every record for one (attribute set, target): 0 on ``layout.zero``, 1
    on ``layout.one``, ``member`` on ``records`` (the busy groups' members)."""

    layout: _Layout
    records: np.ndarray
    member: np.ndarray

    def full(self) -> np.ndarray:
        p = np.empty(self.layout.n_rows, dtype=np.float64)
        p[self.layout.zero] = 0.0
        p[self.layout.one] = 1.0
        p[self.records] = self.member
        return p


def _residual(f: np.ndarray, gf: np.ndarray) -> float:
    return float(np.max(np.abs(gf - f))) if len(f) else 0.0


#: Newton polishing (after EM has converged to ``tol``) is skipped for attribute sets with more
#: unknowns than this: its forward-difference Jacobian costs ``m + 1`` evaluations of Eq. (3)
#: per step, which at 10M resampled records (up to 539 unknowns in a set) would be most of the
#: attack's time, to move ``f`` by less than ``tol``. Adult's sets have at most a few dozen.
NEWTON_POLISH_MAX_UNKNOWNS = 64


def _newton(
    problem: _Problem, f: np.ndarray, gf: np.ndarray, res: float, target: float, max_steps: int
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Newton's method on ``F(f) = f - g(f) = 0`` (the paper's method), projected on [0, 1].

    Forward-difference Jacobian (``m + 1`` evaluations of ``g`` per step, ``m`` at most
    ``|T*| / J`` + 1, i.e. 12 on Adult). A step is clipped to [0, 1]; if that does not lower
    the residual ``max |F|``, the step is halved (up to 4 times, each clipped); Newton stops at
    the first step that lowers nothing, or once the residual is at most ``target``. Returns
    the point, ``g`` there, its residual and the number of steps accepted.
    """
    steps = 0
    m = problem.n_vars
    h = 1e-7
    while steps < max_steps and res > target:
        F = f - gf
        jac = np.eye(m)
        for i in range(m):
            step = -h if f[i] + h > 1.0 else h
            e = f.copy()
            e[i] += step
            jac[:, i] -= (problem.g(e) - gf) / step
        try:
            delta = np.linalg.solve(jac, -F)
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(delta)):
            break
        accepted = False
        for t in (1.0, 0.5, 0.25, 0.125, 0.0625):
            cand = np.clip(f + t * delta, 0.0, 1.0)
            gc = problem.g(cand)
            rc = _residual(cand, gc)
            if rc < res:
                f, gf, res = cand, gc, rc
                accepted = True
                break
        if not accepted:
            break
        steps += 1
    return f, gf, res, steps


def _unstable(problem: _Problem, f: np.ndarray, gf: np.ndarray) -> bool:
    """Whether EM moves away from the fixed point ``f`` (``gf = g(f)``): the forward-difference
    Jacobian of ``g`` has an eigenvalue with real part above ``1 + 1e-4``. Newton's method
    converges to any root of ``f - g(f)``, also to a saddle point of the likelihood that EM
    leaves (e.g. two exchangeable signatures with equal ``f``); such a point is not EM's."""
    m = problem.n_vars
    h = 1e-7
    dg = np.empty((m, m))
    for i in range(m):
        step = -h if f[i] + h > 1.0 else h
        e = f.copy()
        e[i] += step
        dg[:, i] = (problem.g(e) - gf) / step
    return bool(np.max(np.linalg.eigvals(dg).real) > 1.0 + 1e-4)


ACCELERATORS = ("squarem", "newton")
"""EM accelerators of :func:`mine_global_distribution` (``accelerate=``; ``True`` is
``"squarem"``, ``False`` plain EM)."""


def _accelerator(accelerate: bool | str) -> str | None:
    if accelerate is True:
        return "squarem"
    if accelerate is False or accelerate is None:
        return None
    return check_choice("accelerate", accelerate, ACCELERATORS)


#: Fraction-to-the-boundary rule of :func:`_squarem`: an extrapolated coordinate keeps at least
#: this share of its distance to 0 and to 1 (0 and 1 are absorbing for EM: ``f_i = 0`` gives
#: its records ``a = 0``, hence ``g_i = 0``, so a step that lands on a bound cannot be undone).
SQUAREM_BOUNDARY_SHARE = 0.01

#: A SQUAREM cycle whose new point's residual ``max |g(f) - f|`` exceeds this multiple of the
#: cycle's start is undone (see :func:`_squarem`). The residual of an extrapolated EM is not
#: monotone, and undoing too eagerly slows it: on Adult's Mondrian ℓ = 3 release (16 targets,
#: sets of at most one attribute) 10 took 7,049 evaluations in all and 100 took 5,101
#: (``benchmarks/bench_foreground.py --accelerators --very-large-groups --undo-ratio R``).
SQUAREM_UNDO_RATIO = 100.0


def _squarem(
    problem: _Problem, f: np.ndarray, gf: np.ndarray, res: float, tol: float, max_iter: int
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """EM accelerated by SQUAREM (Varadhan and Roland, "Simple and globally convergent methods
    for accelerating the convergence of any EM algorithm", Scand. J. Statist. 35, 2008), scheme
    S3 with their step-length bound.

    A cycle from ``f0`` with ``f1 = g(f0)``, ``f2 = g(f1)``, ``r = f1 - f0``,
    ``v = f2 - 2 f1 + f0`` takes ``α = -|r| / |v|`` (at most ``-1``; ``α = -1`` is two plain
    EM steps), the extrapolated point ``f0 - 2 α r + α² v`` and one EM step from it (the
    stabilisation step). ``|α|`` is bounded by ``step_max`` (1 at first, times 4 each time the
    bound is hit). Choices where the method leaves room, for this problem: each coordinate of
    the extrapolated point is projected so that it keeps at least ``SQUAREM_BOUNDARY_SHARE``
    of its distance to 0 and to 1 (EM can never leave a bound it lands on; each coordinate is
    projected on its own rather than ``α`` shrunk for the whole vector, which let the
    coordinate nearest a bound slow every other one); and a cycle whose
    new point has a residual ``max |g(f) - f|`` more than ``SQUAREM_UNDO_RATIO`` (100) times
    the cycle's start (or not finite) is undone for ``f2`` and the bound ``step_max`` divided
    by 4 (SQUAREM's safeguard uses the likelihood, which the solver does not compute). Every
    evaluation of ``g`` counts as one EM iteration; the stopping test is plain EM's,
    ``max |g(f) - f| <= tol``, at the returned point.
    """
    it = 0
    step_max = 1.0
    share = SQUAREM_BOUNDARY_SHARE
    while res > tol and it + 3 <= max_iter:
        f1 = gf
        f2 = problem.g(f1)
        it += 1
        r = f1 - f
        v = f2 - f1 - r
        nr, nv = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
        alpha = -1.0 if nv == 0.0 else max(-step_max, min(-1.0, -nr / nv))
        if alpha == -1.0:
            x = f2
        else:
            x = f - 2.0 * alpha * r + alpha * alpha * v
            x = np.clip(x, share * f, 1.0 - share * (1.0 - f))
        if alpha == -step_max:
            step_max *= 4.0
        new = problem.g(x)
        g_new = problem.g(new)
        it += 2
        res_new = _residual(new, g_new)
        if not math.isfinite(res_new) or res_new > SQUAREM_UNDO_RATIO * res:
            new, g_new = f2, problem.g(f2)
            it += 1
            res_new = _residual(new, g_new)
            step_max = max(1.0, step_max / 4.0)
        f, gf, res = new, g_new, res_new
    return f, gf, res, it


def _solve(
    problem: _Problem,
    f0: np.ndarray,
    tol: float,
    max_iter: int,
    newton: bool,
    accelerate: bool | str = True,
) -> tuple[np.ndarray, ConvergenceReport, _Posterior]:
    """Solve the fixed point ``f = g(f)`` of Eq. (4) by EM from ``f0``.

    Plain EM (fixed-point) iteration ``f <- g(f)`` until ``max |g(f) - f| <= tol`` or
    ``max_iter`` iterations, then (``newton``, and at most ``NEWTON_POLISH_MAX_UNKNOWNS``
    unknowns) Newton polishing (:func:`_newton`).

    EM converges linearly, at the rate ``ρ`` of the largest eigenvalue of ``Dg``; it crawls
    (``ρ`` near 1) where a coordinate of the fixed point is on the boundary (``f_i -> 0``: EM
    shrinks ``f_i`` by ``dg_i/df_i`` per step) or the likelihood is flat in some direction. On
    Adult's t-closeness releases (QI size 8) EM hit 10,000 iterations on three attribute sets.
    With ``accelerate="squarem"`` (the default, ``True``) EM runs as SQUAREM cycles
    (:func:`_squarem`), then plain EM if the evaluations left allow. With
    ``accelerate="newton"``, once EM is slow and in its linear regime (the last five
    ratios of successive residuals within 1% of each other, the largest, ``ρ``, above 0.5,
    and ``log(tol / res) / log ρ``, the EM steps still needed, above ``6 (m + 2)``, what
    Newton would cost), Newton's method (the paper's) is
    tried from the current iterate; its root is accepted only if (a) its residual is at most
    ``tol``, (b) it lies within ``10 res / (1 - ρ)`` of the iterate, the distance a linearly
    converging EM can still travel, in the direction EM is going (cosine with the EM step at
    least 0.9: in the linear regime EM moves along its slowest eigenvector), so that it is
    EM's limit, not another fixed point, and
    (c) EM is stable there (:func:`_unstable`: not a saddle point of the likelihood, which EM
    would leave). Otherwise EM goes on and Newton is retried after twice as many iterations
    (5, 10, 20, ...). The equations, the tolerance and the test are those of plain EM;
    ``em_iterations`` counts EM steps, ``newton_steps`` the accepted Newton steps.

    Returns the solution, the report and ``p(t : x)`` of every record at the solution
    (:class:`_Posterior`).
    """
    method = _accelerator(accelerate)
    f = f0.copy()
    it = 0
    steps = 0
    gf = problem.g(f) if problem.n_vars else f
    res = _residual(f, gf)
    ratios: list[float] = []
    next_newton = 5
    gap = 5
    if method == "squarem" and problem.n_vars:
        f, gf, res, it = _squarem(problem, f, gf, res, tol, max_iter)
    while problem.n_vars and res > tol and it < max_iter:
        if method == "newton" and it >= next_newton and len(ratios) >= 5:
            rho = max(ratios[-5:])
            # EM steps still needed at this rate, against ~5 Newton steps of m + 2 evaluations
            remaining = (
                math.log(tol / res) / math.log(rho) if 0 < tol < res and 0 < rho < 1 else 1e9
            )
            if (
                rho > 0.5
                and min(ratios[-5:]) >= 0.99 * rho
                and remaining > 6 * (problem.n_vars + 2)
            ):
                next_newton = it + gap
                gap *= 2
                fn, gn, rn, k = _newton(problem, f, gf, res, tol * 1e-3, 50)
                reach = 10.0 * res / max(1.0 - rho, 1e-12)
                jump = fn - f
                em_step = gf - f
                aligned = float(jump @ em_step) >= 0.9 * float(
                    np.sqrt((jump @ jump) * (em_step @ em_step))
                )
                if (
                    k
                    and rn <= tol
                    and aligned
                    and float(np.max(np.abs(jump))) <= reach
                    and not _unstable(problem, fn, gn)
                ):
                    f, gf, res = fn, gn, rn
                    steps += k
                    break
        f = gf
        gf = problem.g(f)
        previous, res = res, _residual(f, gf)
        if previous > 0:
            ratios.append(res / previous)
        it += 1
    if newton and 0 < problem.n_vars <= NEWTON_POLISH_MAX_UNKNOWNS and res > 0:
        f, gf, res, k = _newton(problem, f, gf, res, tol * 1e-3, 50)
        steps += k
    posterior = problem.posterior(f)
    mass = problem.mass_balance(f) if problem.n_vars else 0.0
    report = ConvergenceReport(
        converged=bool(res <= tol),
        residual=res,
        em_iterations=it,
        newton_steps=steps,
        mass_balance=mass,
        n_unknowns=int(problem.n_vars),
        tol=tol,
    )
    return f, report, posterior


def _unknowns(
    sufficient: np.ndarray, small_signature: str, base: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per signature: its unknown (-1 where ``f`` is fixed), its fixed ``f`` (ignored where
    solved for) and the number of unknowns, under the ``small_signature`` rule."""
    m = len(sufficient)
    sig_var = np.full(m, -1, dtype=np.int64)
    sig_var[sufficient] = np.arange(int(sufficient.sum()))
    n_vars = int(sufficient.sum())
    fixed_sig = np.zeros(m)
    if small_signature == "uniform-half":
        fixed_sig[~sufficient] = 0.5
    elif small_signature == "base-rate":
        fixed_sig[~sufficient] = base
    elif (~sufficient).any():  # pooled: one more unknown shared by every small signature
        sig_var[~sufficient] = n_vars
        n_vars += 1
    return sig_var, fixed_sig, n_vars


def _mine(
    release: Release,
    attributes: tuple[str, ...],
    target: tuple[tuple[str, ...], np.ndarray],
    layout: _Layout,
    signatures: _Signatures,
    min_support: int,
    small_signature: str,
    tol: float,
    max_iter: int,
    newton: bool,
    base: float,
    accelerate: bool | str = True,
) -> tuple[GlobalDistribution, ConvergenceReport, _Posterior]:
    """Mine one (attribute set, target); also returns ``p(t : x)`` of every record under the
    mined distribution (Eqs. 1-3), computed by the solver at its last point."""
    support = signatures.support
    sufficient = support >= min_support
    m = len(support)
    sig_var, fixed_sig, n_vars = _unknowns(sufficient, small_signature, base)
    problem = _Problem(layout, signatures, sig_var, fixed_sig, n_vars)
    f, report, posterior = _solve(problem, np.full(n_vars, base), tol, max_iter, newton, accelerate)
    prob = fixed_sig if not n_vars else np.where(sig_var >= 0, f[np.maximum(sig_var, 0)], fixed_sig)
    dist = GlobalDistribution(
        attributes=attributes,
        target=target[0],
        signature_codes=signatures.codes,
        values=tuple(release.table.values[a] for a in attributes),
        probability=prob,
        support=support,
        sufficient=sufficient,
        row_signature=None
        if signatures.index is not None
        else _compact_index(np.asarray(signatures.row_signature), m),
        record_row=signatures.record_row,
        row_index=signatures.index,
        min_support=min_support,
        small_signature=small_signature,
    )
    return dist, report, posterior


@takes_release
def mine_global_distribution(
    release: Release,
    attributes: Sequence[str] | str,
    sensitive_values: Any,
    *,
    epsilon: float = 0.01,
    sigma: float = 0.9,
    min_support: int | None = None,
    small_signature: str = "uniform-half",
    tol: float = 1e-10,
    max_iter: int = 10_000,
    newton: bool = True,
    accelerate: bool | str = True,
) -> tuple[GlobalDistribution, ConvergenceReport]:
    """Mine the global distribution of one attribute set for one target (Eqs. 4-6).

    Solves ``f_i = sum_k c_k(s_i : x) / sum_k |L_k(s_i)|`` (Eq. 4) with
    ``c_k(s_i : x) = |L_k(s_i)| p(t : x)`` (Eqs. 5-6) for every sufficient signature ``s_i``.
    Method: fixed-point iteration ``f <- g(f)`` from the base rate ``#x / |T*|`` (the EM
    algorithm of notes §2.2: iterates stay in [0, 1], the likelihood increases) until
    ``max |g(f) - f| <= tol``, then optionally Newton's method (the paper's choice) with a
    forward-difference Jacobian, each step clipped to [0, 1] and accepted only if it lowers the
    residual. By default EM is accelerated by SQUAREM (Varadhan and Roland 2008; see
    :func:`_squarem`): same equations, same map, same stopping test, far fewer evaluations of
    Eq. (3); ``accelerate="newton"`` instead jumps where EM crawls by safeguarded Newton steps
    to its limit (see :func:`_solve`).

    Parameters
    ----------
    release : Release
    attributes : sequence of str
        The attribute set ``A`` (quasi-identifiers; may be empty).
    sensitive_values : str or sequence of str
        The target ``x`` (a value set is one value).
    epsilon, sigma : float
        Theorem 1's error and confidence; a signature needs
        ``J = ceil(ln(2/σ) / (2ε²))`` matching records (3993 for the defaults).
    min_support : int, optional
        Overrides ``J`` (``1``: every signature is solved for).
    small_signature : {"uniform-half", "base-rate", "pooled"}
        The rule for signatures with fewer than ``J`` records (see ``SMALL_SIGNATURE``).
    tol : float
        Convergence tolerance on ``max |f - g(f)|``.
    max_iter : int
        Maximum EM iterations.
    newton : bool
        Polish the EM result with Newton steps (attribute sets with at most
        ``NEWTON_POLISH_MAX_UNKNOWNS`` = 64 unknowns; beyond, EM's ``tol`` stands).
    accelerate : bool or {"squarem", "newton"}
        ``True`` or ``"squarem"`` (default): SQUAREM extrapolation of EM; ``"newton"``: where
        EM crawls, jump to its limit by safeguarded Newton steps (the default until issue 10;
        its safeguards do not always hold: on Adult's Mondrian ℓ = 3 release, QI age,
        workclass, marital-status, occupation, race, sex, native-country, 16 targets, sets of at
        most one attribute, its ``f`` is up to 0.26 from plain EM's run to convergence
        (120,534 iterations in all), SQUAREM's within 3e-11: ``bench_foreground.py
        --accelerators --very-large-groups --plain-max-iter 200000``); ``False``: plain EM. On the
        census setting at 1M resampled records (240 attribute sets) plain EM takes 99,506
        evaluations of Eq. (3), Newton jumps 25,691 plus their Jacobians, SQUAREM 13,278;
        both accelerated results are within 3.3e-8 of plain EM's ``f``
        (``benchmarks/bench_foreground.py --accelerators``).

    Returns
    -------
    GlobalDistribution
        ``f`` for every signature of ``A`` in the release (fixed values for insufficient ones).
    ConvergenceReport
    """
    _require_groups(release)
    attrs = _check_attributes(release, attributes)
    targets = _targets(release, sensitive_values)
    if len(targets) != 1:
        raise AnonlabError(
            f"mine_global_distribution takes one target x (a value or a value set), got "
            f"{len(targets)}"
        )
    J, small_signature, tol, max_iter = _options(
        epsilon, sigma, min_support, small_signature, tol, max_iter
    )
    n_x = _count_x(release, targets[0][1])
    layout = _Layout(release.group, release.n_groups, n_x)
    signatures = _RowIndex.of(release, attrs).signatures(attrs)
    base = float(n_x.sum()) / max(release.table.n_rows, 1)
    dist, report, _ = _mine(
        release,
        attrs,
        targets[0],
        layout,
        signatures,
        J,
        small_signature,
        tol,
        max_iter,
        newton,
        base,
        accelerate,
    )
    return dist, report


def _options(epsilon, sigma, min_support, small_signature, tol, max_iter):
    J = hoeffding_support(epsilon, sigma)
    if min_support is not None:
        J = check_int("min_support", min_support, minimum=1)
    small_signature = check_choice("small_signature", small_signature, SMALL_SIGNATURE)
    tol = check_float("tol", tol, low=0.0)
    max_iter = check_int("max_iter", max_iter, minimum=0)
    return J, small_signature, tol, max_iter


# ---------------------------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------------------------


@takes_release
def frequent_attribute_sets(
    release: Release,
    min_support: int,
    *,
    attributes: Sequence[str] | None = None,
    max_attributes: int | None = None,
) -> list[tuple[str, ...]]:
    """Step 1 of Algorithm 1: attribute sets with at least one sufficient signature.

    Levelwise (Apriori): a signature of ``A`` is counted only on records whose every
    ``(|A|-1)``-sub-signature is sufficient (the monotonicity of §4.2), and ``A`` is a candidate
    only if all its ``(|A|-1)``-subsets survived. The result equals a brute-force group-by with
    threshold ``min_support``. Order: by size, then lexicographically in quasi-identifier order.
    The empty set is not listed.
    """
    _require_groups(release)
    attrs = _check_attributes(
        release, release.quasi_identifiers if attributes is None else attributes
    )
    J = check_int("min_support", min_support, minimum=1)
    top = (
        len(attrs)
        if max_attributes is None
        else check_int("max_attributes", max_attributes, minimum=0)
    )
    return _frequent_sets(_RowIndex.of(release, attrs), J, top)


def _frequent_sets(index: _RowIndex, J: int, top: int) -> list[tuple[str, ...]]:
    """:func:`frequent_attribute_sets` over the distinct rows of ``index.attributes``: a row is
    eligible, and counts with its multiplicity, exactly when its records are."""
    attrs = index.attributes
    n_rows = len(index.rows)
    ok: dict[tuple[str, ...], np.ndarray] = {(): np.full(n_rows, int(index.count.sum()) >= J)}
    out = []
    level = [()]
    for size in range(1, min(top, len(attrs)) + 1):
        survivors = set(level)
        cands = [
            c
            for c in itertools.combinations(attrs, size)
            if all(tuple(x for x in c if x != d) in survivors for d in c)
        ]
        level = []
        for c in cands:
            eligible = np.ones(n_rows, dtype=bool)
            for d in c:
                eligible &= ok[tuple(x for x in c if x != d)]
            rows = np.flatnonzero(eligible)
            mask = np.zeros(n_rows, dtype=bool)
            if len(rows):
                cols = [attrs.index(a) for a in c]
                _, inv, _ = _distinct_keys(
                    [index.rows[rows, j] for j in cols], [index.radices[j] for j in cols], len(rows)
                )
                support = np.bincount(inv, weights=index.count[rows])
                mask[rows] = support[inv] >= J
            if mask.any():
                ok[c] = mask
                level.append(c)
                out.append(c)
        for c in [c for c in ok if len(c) < size]:  # only the last level is read next
            del ok[c]
        if not level:
            break
    return out


@takes_release
def foreground_attack(
    release: Release,
    sensitive_values: Any = None,
    *,
    epsilon: float = 0.01,
    sigma: float = 0.9,
    min_support: int | None = None,
    max_attributes: int | None = None,
    attributes: Sequence[str] | None = None,
    small_signature: str = "uniform-half",
    include_empty: bool = True,
    tol: float = 1e-10,
    max_iter: int = 10_000,
    newton: bool = True,
    accelerate: bool | str = True,
) -> ForegroundResult:
    """The foreground-knowledge attack (Algorithm 1 and the breach decision of §5).

    1. Find every attribute set ``A`` with at least one sufficient signature, levelwise
       (:func:`frequent_attribute_sets`; ``J = ceil(ln(2/σ)/(2ε²))``, 3993 for the paper's
       ``ε = 0.01, σ = 0.9``).
    2. For each such ``A`` and each target ``x``, mine ``G_{A,x}``
       (:func:`mine_global_distribution`) and compute ``p_A(t : x)`` for every record
       (:func:`breach_probabilities`).
    3. Report ``p*(t) = max_{A, x} p_A(t : x)`` per record, with the maximising ``A`` and ``x``
       (the first in enumeration order among ties), beside the random-world baseline.

    Parameters
    ----------
    release : Release
        Attacked through the worst-case reduction (see the module docstring).
    sensitive_values : str, sequence of str, sequence of sequences, or None
        The targets. A flat sequence is one value *set* treated as one ``x`` (the paper's §5);
        a sequence of sequences gives several targets; None: every sensitive value on its own.
    epsilon, sigma : float
        Theorem 1's parameters for ``J``.
    min_support : int, optional
        Overrides ``J``.
    max_attributes : int, optional
        Largest attribute-set size considered (default: all quasi-identifiers).
    attributes : sequence of str, optional
        The quasi-identifiers the adversary uses (default: all of the release's).
    small_signature : {"uniform-half", "base-rate", "pooled"}
        Rule for signatures with fewer than ``J`` records (``SMALL_SIGNATURE``). The default
        ``"uniform-half"`` (``f = 0.5``) reproduces the paper's numbers best.
    include_empty : bool
        Include the empty attribute set (random worlds, ``p = n/N``) in the maximum, so that
        ``p*(t)`` is at least the baseline.
    tol, max_iter, newton, accelerate
        Solver settings (see :func:`mine_global_distribution`).

    Returns
    -------
    ForegroundResult
    """
    _require_groups(release)
    J, small_signature, tol, max_iter = _options(
        epsilon, sigma, min_support, small_signature, tol, max_iter
    )
    targets = _targets(release, sensitive_values)
    attrs = _check_attributes(
        release, release.quasi_identifiers if attributes is None else attributes
    )
    top = (
        len(attrs)
        if max_attributes is None
        else check_int("max_attributes", max_attributes, minimum=0)
    )
    index = _RowIndex.of(release, attrs)
    sets = _frequent_sets(index, J, top)
    if include_empty:
        sets = [(), *sets]
    n = release.table.n_rows
    sizes = np.asarray(release.group_sizes, dtype=np.float64)
    p_star = np.full(n, -np.inf)
    best_a = np.full(n, -1, dtype=np.int64)
    best_x = np.full(n, -1, dtype=np.int64)
    baseline = np.zeros(n)
    prepared = []
    for target in targets:
        n_x = _count_x(release, target[1])
        baseline = np.maximum(baseline, (n_x / np.maximum(sizes, 1))[release.group])
        base = float(n_x.sum()) / max(n, 1)
        prepared.append((target, _Layout(release.group, release.n_groups, n_x), base))

    def take(records: np.ndarray, p: np.ndarray | float, ai: int, xi: int) -> None:
        better = p > p_star[records]
        chosen = records[better]
        p_star[chosen] = p[better] if isinstance(p, np.ndarray) else p
        best_a[chosen] = ai
        best_x[chosen] = xi

    dists, reports = [], []
    for ai, attrs_a in enumerate(sets):
        signatures = index.signatures(attrs_a)
        for xi, (target, layout, base) in enumerate(prepared):
            dist, rep, posterior = _mine(
                release,
                attrs_a,
                target,
                layout,
                signatures,
                J,
                small_signature,
                tol,
                max_iter,
                newton,
                base,
                accelerate,
            )
            if ai == 0:  # p = 0 and p = 1 in groups without / all x: the same for every set
                take(layout.zero, 0.0, ai, xi)
                take(layout.one, 1.0, ai, xi)
            take(posterior.records, posterior.member, ai, xi)
            dists.append(dist)
            reports.append(rep)
    if not sets:  # nothing frequent and the empty set excluded: fall back to the baseline
        p_star = baseline.copy()
    return ForegroundResult(
        p_star=p_star,
        baseline=baseline,
        best_attributes=best_a,
        best_target=best_x,
        attribute_sets=tuple(sets),
        targets=tuple(t[0] for t in targets),
        distributions=tuple(dists),
        reports=tuple(reports),
        min_support=J,
        small_signature=small_signature,
    )
