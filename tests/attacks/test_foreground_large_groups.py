"""Eq. (3) of the foreground-knowledge attack on large groups: the circle method.

:func:`anonlab.attacks.foreground.kernel._circle_link` evaluates the group's polynomial on ``K``
nodes of the unit circle and recovers ``[z^n]`` and every run's leave-one-out ``[z^{n-1}]`` by a
discrete Fourier transform. Checked against exhaustive enumeration of possible worlds
(Fractions) on tiny groups forced through it, against exact two-class values on groups of
thousands, and against the linear-pass kernel and the log-space reference on random groups
with runs (weights near 0 and 1, a = 0.5 exactly, complemented groups).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import Release, Table
from anonlab.attacks.foreground import breach_probabilities
from anonlab.attacks.foreground import kernel as fg_kernel
from anonlab.attacks.foreground.kernel import (
    GroupLayout,
    _circle_link,
    _link_kernel_ab,
    _poly_link_reference,
)

NEVER = 1 << 62  # fast_min_work that keeps every group on the linear passes


def kernel(a, n_x, groups, fast_min_work, fast_cost=0.0):
    """The compiled kernel on every group (members sorted by ``a``), ``b = 1 - a``."""
    layout = GroupLayout(groups, len(n_x), np.asarray(n_x, dtype=np.int64))
    order = layout.order(a)
    p = np.empty(len(a))
    p[layout.zero], p[layout.one] = 0.0, 1.0
    member = np.empty(len(order))
    failed = _link_kernel_ab(
        a[order],
        1.0 - a[order],
        layout.ptr,
        layout.degree,
        layout.complement,
        member,
        fast_min_work,
        fast_cost,
    )
    assert not failed.any()
    p[order] = member
    return p


def runs_of(rng, size, values):
    """A group of ``size`` members in runs of the given weights (random run lengths >= 1)."""
    cuts = np.sort(rng.choice(np.arange(1, size), len(values) - 1, replace=False))
    return np.repeat(np.asarray(values, dtype=np.float64), np.diff(np.r_[0, cuts, size]))


def circle(a, n, b=None):
    """``_circle_link`` on one group sorted by ``a`` (no cost test); (p, K), K = 0: declined."""
    a = np.sort(np.asarray(a, dtype=np.float64))
    b = 1.0 - a if b is None else b
    ones, zeros = int((b == 0).sum()), int((a == 0).sum())
    out = np.full(len(a), np.nan)
    K = _circle_link(a, b, n, ones, zeros, out, 0.0)
    return out, K, a


# ---------------------------------------------------------------------------------------------
# Tiny groups forced through the circle method, against enumeration
# ---------------------------------------------------------------------------------------------

WEIGHTS = [F(0), F(1), F(1, 2), F(1, 10), F(9, 10), F(1, 3), F(2, 3), F(1, 1000), F(999, 1000)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(WEIGHTS), min_size=2, max_size=8),
    st.integers(min_value=0, max_value=8),
)
def test_tiny_groups_forced_through_circle_equal_enumeration(enumerate_worlds, f, n):
    n = min(n, len(f))
    exact = enumerate_worlds(f, n)
    a = np.array([float(v) for v in f])
    got = kernel(a, [n], np.zeros(len(a), dtype=np.int64), fast_min_work=0)
    np.testing.assert_allclose(got, [float(v) for v in exact], rtol=1e-12, atol=1e-15)
    # where it applies (0 < n - #(a = 1) < #(0 < a < 1), at least two distinct weights, the
    # degree n at most N / 2) the circle method itself is used, with K > N (no aliasing), unless
    # its rounding bound is above 1e-11 of a coefficient (a leave-one-out coefficient ~1e-3 of
    # its scale, with weights 1/1000 and 999/1000): then it declines and the kernel above used
    # the linear passes
    ones, free = f.count(1), len(f) - f.count(0) - f.count(1)
    if 0 < n - ones < free and len(set(f)) > 1 and n > 1 and 2 * n <= len(f):
        p, K, s = circle(a, n)
        extreme = F(1, 1000) in f or F(999, 1000) in f
        assert K > len(f) or (extreme and K == 0)
        if K == 0:
            return
        exact_sorted = [float(v) for v in enumerate_worlds(sorted(f), n)]
        np.testing.assert_allclose(p, exact_sorted, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------------------------
# Exact two-class values on groups of thousands (K < N: the aliasing bound is in use)
# ---------------------------------------------------------------------------------------------


def two_class_exact(c1, c2, n, f1, f2):
    """p of a class-1 member: E[#x in class 1] / c1, weights C(c1,k) C(c2,n-k) r^k, exact."""
    r = f1 * (1 - f2) / ((1 - f1) * f2)
    num, den = r.numerator, r.denominator
    w = [math.comb(c1, k) * math.comb(c2, n - k) * num**k * den ** (n - k) for k in range(n + 1)]
    return F(sum(k * wk for k, wk in enumerate(w)), sum(w)) / c1


@pytest.mark.parametrize(
    ("c1", "c2", "n", "f1", "f2"),
    [
        (2000, 2000, 140, F(1, 10), F(1, 20)),
        (6000, 3000, 2500, F(1, 3), F(1, 4)),
        (1500, 1500, 1500, F(1, 10**12), F(2, 10**12)),  # plain linear pass underflows
        (3000, 1000, 900, F(1, 2), 1 - F(1, 2**20)),  # a = 0.5 exactly, a near 1
    ],
)
def test_two_classes_exact(c1, c2, n, f1, f2):
    exact1 = two_class_exact(c1, c2, n, f1, f2)
    exact2 = (n - exact1 * c1) / c2
    a = np.r_[np.full(c1, float(f1)), np.full(c2, float(f2))]
    p, K, s = circle(a, n)
    assert 0 < K < c1 + c2
    want = np.where(s == float(f1), float(exact1), float(exact2))
    np.testing.assert_allclose(p, want, rtol=1e-12)
    # the same through the kernel (complement when n > N / 2: x and not x swap)
    got = kernel(a, [n], np.zeros(c1 + c2, dtype=np.int64), fast_min_work=0)
    np.testing.assert_allclose(
        got, np.r_[np.full(c1, float(exact1)), np.full(c2, float(exact2))], rtol=1e-12
    )
    m = c1 + c2 - n
    got = kernel(1.0 - a, [m], np.zeros(c1 + c2, dtype=np.int64), fast_min_work=0)
    np.testing.assert_allclose(
        1.0 - got, np.r_[np.full(c1, float(exact1)), np.full(c2, float(exact2))], rtol=1e-9
    )


def test_subnormal_weights_exact():
    # a = 3e-310 and 1e-310 (b rounds to 1): a_i = m_i 2^-1074, weights C C m1^k m2^(n-k)
    c1 = c2 = 1500
    n = 1000
    m1, m2 = (F(v) / F(2) ** -1074 for v in (3e-310, 1e-310))
    w = [
        math.comb(c1, k) * math.comb(c2, n - k) * int(m1) ** k * int(m2) ** (n - k)
        for k in range(n + 1)
    ]
    exact1 = F(sum(k * wk for k, wk in enumerate(w)), sum(w)) / c1
    a = np.r_[np.full(c2, 1e-310), np.full(c1, 3e-310)]
    p, K, s = circle(a, n)
    assert K > 0
    np.testing.assert_allclose(p[c2:], float(exact1), rtol=1e-12)
    np.testing.assert_allclose(p[:c2], float((n - exact1 * c1) / c2), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Random groups with runs: circle method = linear passes = log-space reference
# ---------------------------------------------------------------------------------------------


def run_weights(rng, kind, n_runs):
    if kind == "uniform":
        return rng.uniform(0.01, 0.99, n_runs)
    if kind == "near-0-1":  # near 0 and near 1 together, with a = 0.5 exactly
        return rng.choice([1e-9, 1e-6, 1e-3, 0.5, 1 - 1e-3, 1 - 1e-6, 1 - 1e-9], n_runs)
    if kind == "tiny":  # odds ~1e-12: the plain linear pass underflows
        return rng.uniform(1e-12, 5e-12, n_runs)
    if kind == "zero-one":  # exact 0 and 1 among ordinary weights
        return np.r_[0.0, 1.0, 0.5, rng.uniform(0.05, 0.95, n_runs - 3)]
    raise AssertionError(kind)


CASES = [  # (kind, size, runs, n): n <= N / 2 and complemented groups (n > N / 2)
    ("uniform", 3000, 12, 40),
    ("uniform", 2500, 30, 1250),
    ("uniform", 2000, 8, 1700),
    ("near-0-1", 3000, 10, 700),
    ("near-0-1", 1200, 7, 900),
    ("tiny", 2000, 6, 600),
    ("zero-one", 2400, 9, 1000),
    ("zero-one", 1000, 12, 450),
]


@pytest.mark.parametrize(("kind", "size", "runs", "n"), CASES)
def test_random_runs_equal_linear_kernel_and_log_space_reference(kind, size, runs, n):
    rng = np.random.default_rng([size, runs, n])
    a = runs_of(rng, size, run_weights(rng, kind, runs))
    groups = np.zeros(size, dtype=np.int64)
    fast = kernel(a, [n], groups, fast_min_work=0)
    slow = kernel(a, [n], groups, fast_min_work=NEVER)
    # the circle method was taken (on the complement where n > N / 2), with aliasing bounded
    comp = n > size - n
    p, K, _ = circle(1.0 - a if comp else a, size - n if comp else n, a if comp else None)
    assert 0 < K < size
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-300)
    # against the reference on the side computed (not x in a complemented group: 1 - p there
    # would turn the reference's absolute error ~1e-12 into a large relative one near p = 0)
    if comp:
        ref, got = _poly_link_reference(1.0 - a[None, :], size - n, a[None, :])[0], 1.0 - fast
    else:
        ref, got = _poly_link_reference(a[None, :], n)[0], fast
    if kind == "tiny":  # the log-space reference is off by ~1e-9 here (see test_foreground.py)
        np.testing.assert_allclose(got, ref, rtol=1e-7)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-15)
    assert fast.sum() == pytest.approx(n, rel=1e-10)


def test_many_groups_in_one_call_and_gate():
    # a release with one large group among small ones: only the large one changes path, the
    # others are bit-for-bit those of the linear passes under the default gate
    rng = np.random.default_rng(7)
    sizes = [2500, 3, 7, 60, 400]
    n_x = [1100, 1, 5, 20, 150]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    a = np.concatenate([runs_of(rng, s, rng.uniform(0.05, 0.95, min(s - 1, 9))) for s in sizes])
    slow = kernel(a, n_x, groups, fast_min_work=NEVER)
    gated = kernel(a, n_x, groups, fast_min_work=2500 * 1100, fast_cost=fg_kernel._FAST_COST)
    small = groups > 0
    np.testing.assert_array_equal(gated[small], slow[small])
    assert not np.array_equal(gated[~small], slow[~small])  # the circle method was used
    np.testing.assert_allclose(gated, slow, rtol=1e-10)
    forced = kernel(a, n_x, groups, fast_min_work=0)
    np.testing.assert_allclose(forced, slow, rtol=1e-10)


def test_breach_probabilities_through_the_circle_method(monkeypatch):
    # the public entry point: a 2,400-record group on the linear passes (gate closed), by the
    # circle method (gate open) and under the default gate (N n = 2,400 x ~720: circle method)
    rng = np.random.default_rng(11)
    N = 2400
    sig = rng.choice(list("abcdefgh"), N)
    vals = np.where(rng.random(N) < 0.3, "x", "y")
    df = pd.DataFrame({"q": sig, "s": vals})
    release = Release(
        Table.from_frame(df, quasi_identifiers=["q"], sensitive="s"), np.zeros(N), "bucketization"
    )
    f = dict(zip("abcdefgh", [0.1, 0.2, 0.25, 0.3, 0.35, 0.5, 0.6, 0.05], strict=True))
    default = breach_probabilities(release, f, "x", attributes=["q"])
    monkeypatch.setattr(fg_kernel, "_FAST_MIN_WORK", NEVER)
    before = breach_probabilities(release, f, "x", attributes=["q"])
    monkeypatch.setattr(fg_kernel, "_FAST_MIN_WORK", 0)
    monkeypatch.setattr(fg_kernel, "_FAST_COST", 0.0)
    after = breach_probabilities(release, f, "x", attributes=["q"])
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(default, after)
    np.testing.assert_allclose(after, before, rtol=1e-10)
    assert after.sum() == pytest.approx((vals == "x").sum(), rel=1e-12)


def test_declines_where_it_does_not_apply(enumerate_worlds):
    # n - #(a = 1) = 0 or = #free (one world); the cost test on many runs with a small n
    a = np.r_[np.zeros(5), np.full(5, 0.3), np.ones(3)]
    out = np.empty(len(a))
    assert _circle_link(a, 1.0 - a, 3, 3, 5, out, 0.0) == 0
    assert _circle_link(a, 1.0 - a, 8, 3, 5, out, 0.0) == 0
    a = np.linspace(0.01, 0.99, 3000)  # 3,000 runs of one member, n = 30: too dear
    assert _circle_link(a, 1.0 - a, 30, 0, 0, np.empty(3000), fg_kernel._FAST_COST) == 0
    assert _circle_link(a, 1.0 - a, 30, 0, 0, np.empty(3000), 0.0) > 0
    # a leave-one-out coefficient ~1e-3 of the scale: the rounding bound is too close to 1e-11,
    # it declines, and the kernel (its scratch space then allocated by the linear pass) gives
    # the linear passes' result bit for bit, which is the enumeration's
    a = np.array([0.0, 0.0, 0.001, 0.999, 1.0, 1.0])
    assert _circle_link(a, 1.0 - a, 3, 2, 2, np.empty(6), 0.0) == 0
    groups = np.zeros(6, dtype=np.int64)
    got = kernel(a, [3], groups, fast_min_work=0)
    np.testing.assert_array_equal(got, kernel(a, [3], groups, fast_min_work=NEVER))
    exact = enumerate_worlds([F(0), F(0), F(1, 1000), F(999, 1000), F(1), F(1)], 3)
    np.testing.assert_allclose(got, [float(v) for v in exact], rtol=1e-12, atol=1e-15)
