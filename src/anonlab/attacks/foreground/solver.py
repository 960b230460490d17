"""The fixed point of Eqs. (4)-(6), solved: EM, SQUAREM and Newton's method.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011). The global distribution of an attribute set (Eqs. 4-6) is the fixed point
``f_i = sum_k c_k(s_i : x) / #{records matching s_i}`` with ``c_k`` the expected number of
``s_i``-records holding ``x`` in group ``k`` under the weighted worlds. The paper solves it with
Newton's method. :func:`solve_fixed_point` iterates the fixed-point map itself, which is the EM
algorithm for per-signature Bernoulli rates observed through each group's count of ``x`` (notes
§2.2): every iterate stays in ``[0, 1]`` and preserves the mass balance ``sum_i |s_i| f_i = #x``,
and the likelihood increases monotonically. EM crawls where a coordinate of the fixed point is
on the boundary 0 with ``dg_i/df_i`` near 1 or the likelihood is flat; by default it is
accelerated by SQUAREM extrapolation (:func:`_squarem`), or, as an option, by Newton jumps to
its limit under safeguards that make the root EM's own. The EM result is then optionally
polished with clipped Newton steps (the paper's method), accepted only when they reduce the
residual. Groups equal in size, count of ``x`` and members' unknowns are evaluated once per
iteration (:class:`FixedPointProblem`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from anonlab._validation import check_choice
from anonlab.attacks.foreground.kernel import GroupLayout, Posterior, link_groups
from anonlab.attacks.foreground.result import ConvergenceReport
from anonlab.attacks.foreground.signatures import Signatures


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


class FixedPointProblem:
    """The fixed point ``f = g(f)`` of Eq. (4) for one attribute set and one target.

    A busy group's ``p(t : x)`` (Eq. 3) depends only on its size, its count of ``x`` and the
    multiset of its members' *keys* (their unknown, or their fixed ``f``). Groups equal in
    these ("types") are computed once and weighted by how many there are: exact (the same
    kernel on the same numbers; only the order of Eq. (4)'s sums changes, so results agree to
    rounding). On an Anatomy release, whose groups of two pair a few hundred keys, the 787,060
    busy members at 10M resampled census records form at most 66,246 types in one attribute set
    (docs/benchmarks.md, "Scale").

    Built from the target's :class:`~anonlab.attacks.foreground.kernel.GroupLayout`, the
    attribute set's :class:`~anonlab.attacks.foreground.signatures.Signatures` (over the same
    records), each signature's unknown ``sig_var`` (-1 where fixed) and fixed ``sig_fixed``,
    and the number of unknowns ``n_vars`` (see
    :func:`~anonlab.attacks.foreground.small_signature.signature_unknowns`).
    """

    def __init__(
        self,
        layout: GroupLayout,
        signatures: Signatures,
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
        return link_groups(a, None, self.ptr, self.degree, self.complement)

    def posterior(self, f: np.ndarray) -> Posterior:
        """``p(t : x)`` of every record at ``f``."""
        return Posterior(self.layout, self.order, self._rep(f)[self.member_rep])

    def _rep(self, f: np.ndarray) -> np.ndarray:
        if self.last is not None and np.array_equal(self.last[0], f):
            return self.last[1]  # the solver's final point is usually the last one evaluated
        return self.type_probabilities(f)

    def mass_balance(self, f: np.ndarray) -> float:
        """``sum_i |s_i| f_i - sum_{t free} p(t : x)`` (see :class:`ConvergenceReport`)."""
        rep = self._rep(f)
        # a sum of products, not ``@``: OpenBLAS threads a dot product this long, and its idle
        # threads then spin on the cores the other mining threads (and numba's) work on
        expected = self.num_one.sum() + float(np.sum(rep[self.rep_free] * self.rep_weight))
        return float(self.den @ f - expected)

    def g(self, f: np.ndarray) -> np.ndarray:
        """The right-hand side of Eq. (4) at ``f`` (the EM map), clipped to [0, 1]."""
        rep = self.type_probabilities(f)
        self.last = (f.copy(), rep)
        num = self.num_one + np.bincount(
            self.rep_free_var, weights=rep[self.rep_free] * self.rep_weight, minlength=self.n_vars
        )
        return np.clip(num / self.den, 0.0, 1.0)


def _residual(f: np.ndarray, gf: np.ndarray) -> float:
    return float(np.max(np.abs(gf - f))) if len(f) else 0.0


#: Newton polishing (after EM has converged to ``tol``) is skipped for attribute sets with more
#: unknowns than this: its forward-difference Jacobian costs ``m + 1`` evaluations of Eq. (3)
#: per step, which at 10M resampled records (up to 539 unknowns in a set) would be most of the
#: attack's time, to move ``f`` by less than ``tol``. Adult's sets have at most a few dozen.
NEWTON_POLISH_MAX_UNKNOWNS = 64


def _newton(
    problem: FixedPointProblem,
    f: np.ndarray,
    gf: np.ndarray,
    res: float,
    target: float,
    max_steps: int,
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


def _unstable(problem: FixedPointProblem, f: np.ndarray, gf: np.ndarray) -> bool:
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
    problem: FixedPointProblem, f: np.ndarray, gf: np.ndarray, res: float, tol: float, max_iter: int
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


def solve_fixed_point(
    problem: FixedPointProblem,
    f0: np.ndarray,
    tol: float,
    max_iter: int,
    newton: bool,
    accelerate: bool | str = True,
) -> tuple[np.ndarray, ConvergenceReport, Posterior]:
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
    (:class:`Posterior`).
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
