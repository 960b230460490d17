"""The foreground-knowledge attack (Wong, Fu, Wang, Xu, Yu).

Exact vectors of notes/wong-foreground-knowledge-attack.md §4 (Table 5, Tables 7-8, Tables 2-3,
the Adult case study), the polynomial form against enumeration of possible worlds (Fractions),
fixed-point invariants of the mining, Apriori against brute force, and a real-data run.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Release, Table
from anonlab.attacks.foreground import (
    breach_probabilities,
    foreground_attack,
    frequent_attribute_sets,
    hoeffding_support,
    mine_global_distribution,
)
from anonlab.attacks.foreground.kernel import (
    GroupLayout,
    _link_kernel,
    _loo_pass,
    _poly_link_reference,
)

# ---------------------------------------------------------------------------------------------
# Builders and the enumeration oracle
# ---------------------------------------------------------------------------------------------


def make_release(sigs, values, groups, scheme="bucketization") -> Release:
    df = pd.DataFrame({"a": [str(s) for s in sigs], "s": [str(v) for v in values]})
    table = Table.from_frame(df, quasi_identifiers=["a"], sensitive="s")
    return Release(table, np.array(groups), scheme)


# ---------------------------------------------------------------------------------------------
# Exact vectors
# ---------------------------------------------------------------------------------------------


def test_table5_example1(enumerate_worlds):
    # One group t1..t4 with signatures s1, s1, s2, s2 and values {x, x, y, z}; G: s1 0.5, s2 0.2.
    exact = enumerate_worlds([F(1, 2), F(1, 2), F(1, 5), F(1, 5)], 2)
    assert exact == [F(8, 11), F(8, 11), F(3, 11), F(3, 11)]
    r = make_release(["s1", "s1", "s2", "s2"], ["x", "x", "y", "z"], [0, 0, 0, 0])
    p = breach_probabilities(r, {"s1": 0.5, "s2": 0.2}, "x", attributes=["a"])
    np.testing.assert_allclose(p, [float(v) for v in exact], rtol=0, atol=1e-12)
    assert p[0] == pytest.approx(0.72, abs=0.01)  # the paper's rounded value
    assert p.sum() == pytest.approx(2.0)
    # the same through a per-record array and through a mined-distribution-free tuple key
    p2 = breach_probabilities(r, np.array([0.5, 0.5, 0.2, 0.2]), "x")
    np.testing.assert_allclose(p2, p)
    p3 = breach_probabilities(r, {("s1",): 0.5, ("s2",): 0.2}, ["x"], attributes="a")
    np.testing.assert_allclose(p3, p)


TABLE8 = (["s1", "s2", "s1", "s1", "s2", "s2"], ["x", "y", "x", "y", "y", "z"], [0, 0, 1, 1, 2, 2])


@pytest.mark.parametrize("newton", [False, True])
def test_tables7_8_mining(newton, enumerate_worlds):
    r = make_release(*TABLE8)
    dist, rep = mine_global_distribution(r, ["a"], "x", min_support=1, newton=newton)
    f = dist.as_dict()
    assert f[("s1",)] == pytest.approx(2 / 3, abs=1e-6)
    assert f[("s2",)] == pytest.approx(0.0, abs=1e-6)
    assert rep.converged and rep.residual <= 1e-10
    assert sum(dist.support * dist.probability) == pytest.approx(2.0)  # = #x
    p = breach_probabilities(r, dist)
    np.testing.assert_allclose(p, [1, 0, 0.5, 0.5, 0, 0], atol=1e-6)
    # the exact solution (2/3, 0) gives p(t1:x) = 1 exactly, by enumeration
    assert enumerate_worlds([F(2, 3), F(0)], 1) == [1, 0]


def test_tables7_8_newton_reaches_boundary_exactly():
    r = make_release(*TABLE8)
    dist, rep = mine_global_distribution(r, ["a"], "x", min_support=1, newton=True)
    assert rep.newton_steps >= 1
    assert dist.as_dict()[("s2",)] == 0.0
    assert breach_probabilities(r, dist)[0] == 1.0


def test_table3_with_table2(enumerate_worlds):
    sigs = ["American", "Japanese", "Japanese", "Japanese", "French", "Japanese"]
    vals = ["HD", "Flu", "Flu", "SV", "HIV", "Diabetes"]
    r = make_release(sigs, vals, [0, 0, 1, 1, 2, 2])
    g = {"American": 0.1, "Japanese": 0.003, "French": 0.05}
    p = breach_probabilities(r, g, "HD", attributes=["a"])
    exact = enumerate_worlds([F(1, 10), F(3, 1000)], 1)
    assert exact[0] == F(997, 1024)
    assert p[0] == pytest.approx(float(exact[0]), abs=1e-12)
    assert round(p[0], 6) == 0.973633
    assert p[1] == pytest.approx(0.026367, abs=1e-6)
    # Mining on Table 2 itself: f_American = 1, f_Japanese = f_French = 0, so p(Alex:HD) = 1.
    dist, rep = mine_global_distribution(r, ["a"], "HD", min_support=1)
    f = dist.as_dict()
    assert f[("American",)] == pytest.approx(1.0, abs=1e-8)
    assert f[("Japanese",)] == pytest.approx(0.0, abs=1e-8)
    assert f[("French",)] == pytest.approx(0.0, abs=1e-8)
    assert breach_probabilities(r, dist)[0] == pytest.approx(1.0, abs=1e-8)


def test_case_study():
    r = make_release(["Adm-clerical", "Craft-repair"], ["Bachelors", "5th-6th"], [0, 0])
    p = breach_probabilities(
        r, {"Adm-clerical": 0.02, "Craft-repair": 0.04}, "5th-6th", attributes=["a"]
    )
    assert p[1] == pytest.approx(0.0392 / 0.0584, abs=1e-12)
    assert round(p[1], 4) == 0.6712
    p = breach_probabilities(
        r, {"Adm-clerical": 0.01, "Craft-repair": 0.04}, "5th-6th", attributes=["a"]
    )
    assert round(p[1], 6) == 0.804878


def test_hoeffding_support():
    assert hoeffding_support(0.01, 0.9) == 3993
    assert math.comb(23, 8) == 490314  # MASK l=2 worlds (notes §4.5), for the record


# ---------------------------------------------------------------------------------------------
# Polynomial form against enumeration
# ---------------------------------------------------------------------------------------------


@st.composite
def small_groups(draw):
    n_groups = draw(st.integers(1, 4))
    sigs, vals, groups, f = [], [], [], {}
    for g in range(n_groups):
        N = draw(st.integers(1, 7))
        n = draw(st.integers(0, N))
        for j in range(N):
            s = draw(st.sampled_from(["u", "v", "w", "y"]))
            sigs.append(s)
            vals.append("x" if j < n else f"o{j}")
            groups.append(g)
    for s in ["u", "v", "w", "y"]:
        f[s] = draw(
            st.one_of(
                st.sampled_from([F(0), F(1), F(1, 2)]),
                st.fractions(min_value=0, max_value=1, max_denominator=50),
            )
        )
    return sigs, vals, groups, f


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_groups())
def test_polynomial_equals_enumeration(enumerate_worlds, case):
    sigs, vals, groups, f = case
    if "x" not in vals:
        vals[0] = "x"
    r = make_release(sigs, vals, groups)
    p = breach_probabilities(r, {k: float(v) for k, v in f.items()}, "x", attributes=["a"])
    for g in set(groups):
        idx = [i for i, gg in enumerate(groups) if gg == g]
        n = sum(vals[i] == "x" for i in idx)
        exact = enumerate_worlds([f[sigs[i]] for i in idx], n)
        np.testing.assert_allclose(p[idx], [float(e) for e in exact], atol=1e-9)
        assert p[idx].sum() == pytest.approx(n)


def test_uniform_distribution_gives_random_worlds():
    rng = np.random.default_rng(1)
    groups = rng.integers(0, 30, 400)
    vals = np.where(rng.random(400) < 0.3, "x", "y")
    sigs = rng.integers(0, 5, 400)
    r = make_release(sigs, vals, groups)
    p = breach_probabilities(r, np.full(400, 0.37), "x")
    n = np.bincount(groups, weights=vals == "x", minlength=30)
    N = np.bincount(groups, minlength=30)
    dense = r.group  # renumbered; map back through the first record of each group
    base = (np.bincount(dense, weights=vals == "x") / np.bincount(dense))[dense]
    np.testing.assert_allclose(p, base, atol=1e-12)
    assert n.sum() == pytest.approx(p.sum()) and N.sum() == 400


def test_large_group_exact():
    # One group of 4000 (t-closeness size): 2000 + 2000 members with odds ratio known exactly;
    # the count k of x among class 1 has weight C(2000,k) C(2000,n-k) f1^k g1^(c-k) ...
    c1 = c2 = 2000
    n = 140
    f1, f2 = F(1, 10), F(1, 20)
    w = [
        math.comb(c1, k)
        * math.comb(c2, n - k)
        * f1**k
        * (1 - f1) ** (c1 - k)
        * f2 ** (n - k)
        * (1 - f2) ** (c2 - n + k)
        for k in range(n + 1)
    ]
    e_k = sum(k * wk for k, wk in enumerate(w)) / sum(w)
    exact1 = e_k / c1
    sigs = ["a"] * c1 + ["b"] * c2
    vals = ["x"] * n + ["y"] * (c1 + c2 - n)
    r = make_release(sigs, vals, [0] * (c1 + c2))
    p = breach_probabilities(r, {"a": 0.1, "b": 0.05}, "x", attributes=["a"])
    assert p[0] == pytest.approx(float(exact1), rel=1e-9)
    assert p.sum() == pytest.approx(n, rel=1e-10)
    # tiny probabilities do not underflow (the odds are ~1e-12 each)
    p = breach_probabilities(r, {"a": 1e-12, "b": 2e-12}, "x", attributes=["a"])
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(n, rel=1e-9)
    assert p[-1] > p[0]
    # complement branch (n > N/2)
    vals = ["x"] * (c1 + c2 - n) + ["y"] * n
    r = make_release(sigs, vals, [0] * (c1 + c2))
    q = breach_probabilities(r, {"a": 0.9, "b": 0.95}, "x", attributes=["a"])
    assert 1 - q[0] == pytest.approx(float(exact1), rel=1e-9)


# ---------------------------------------------------------------------------------------------
# The compiled kernel against the previous log-space implementation
# ---------------------------------------------------------------------------------------------


def _reference_link(a, groups, n_x):
    """Eq. (3) group by group with the log-space reference (complement when n > N / 2; there
    the roles of ``a`` and ``b = 1 - a`` swap, and ``a`` itself is passed as the new ``b``:
    ``1 - (1 - a)`` would lose ``a`` below ~1e-16, and its digits beyond ~1e-16 / a)."""
    out = np.empty(len(a))
    for g, n in enumerate(n_x):
        idx = np.flatnonzero(groups == g)
        N = len(idx)
        if n == 0 or n == N:
            out[idx] = float(n > 0)
        elif n > N - n:
            out[idx] = 1.0 - _poly_link_reference(1.0 - a[idx][None, :], N - n, a[idx][None, :])[0]
        else:
            out[idx] = _poly_link_reference(a[idx][None, :], n)[0]
    return out


def _kernel_link(a, groups, n_x, key=None):
    """The kernel on every group in one call, members sorted by ``key`` (default ``a``)."""
    layout = GroupLayout(groups, len(n_x), np.asarray(n_x, dtype=np.int64))
    order = layout.order(a if key is None else key)
    p = np.full(len(a), np.nan)
    p[layout.zero], p[layout.one] = 0.0, 1.0
    member = np.full(len(order), np.nan)
    failed = _link_kernel(a[order], layout.ptr, layout.degree, layout.complement, member)
    assert not failed.any()  # the log-space safety net is never needed
    p[order] = member
    np.testing.assert_array_equal(p, layout.probabilities(a, order))
    return p


SEEDS = {"uniform": 0, "mixed": 1, "tiny": 2, "extreme": 3, "zero-one": 4, "subnormal": 5}


def _weights(rng, N, kind):
    if kind == "uniform":
        return rng.random(N)
    if kind == "mixed":  # exact 0 and 1 among ordinary and tiny values, few distinct values
        return rng.choice([0.0, 1.0, 0.3, 0.7, 1e-12, 0.5], N)
    if kind == "tiny":  # odds ~1e-12: the linear pass underflows, the tilted one is needed
        return rng.choice([1e-12, 2e-12, 5e-13], N)
    if kind == "extreme":  # near 0 and near 1 together
        return np.where(rng.random(N) < 0.5, 1e-9, 1 - 1e-9)
    if kind == "subnormal":  # odds below 1e-280, down to the smallest double
        return rng.choice([1e-300, 3e-310, 5e-324, 0.0, 0.5], N, p=[0.3, 0.3, 0.2, 0.1, 0.1])
    return rng.choice([0.0, 1.0, 0.5], N, p=[0.3, 0.2, 0.5])  # "zero-one"


@pytest.mark.parametrize("kind", list(SEEDS))
def test_kernel_equals_log_space_reference_small(kind):
    # many groups in one kernel call; every n from 0 to N for each size
    rng = np.random.default_rng(SEEDS[kind])
    groups, n_x = [], []
    for N in (1, 2, 3, 7, 20, 61):
        for n in range(N + 1):
            groups += [len(n_x)] * N
            n_x.append(n)
    groups = np.array(groups)
    a = _weights(rng, len(groups), kind)
    ref = _reference_link(a, groups, n_x)
    got = _kernel_link(a, groups, n_x)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-9)
    # the member order within a group changes rounding only
    shuffled = _kernel_link(a, groups, n_x, key=rng.random(len(a)))
    np.testing.assert_allclose(shuffled, got, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", [k for k in SEEDS if k != "subnormal"])
def test_kernel_equals_log_space_reference_large(kind):
    # (subnormal weights: the log-space reference is off by up to ~1e-8 on groups of 3,000,
    # its logarithms being ~-1e6; see test_kernel_tilted_pass_is_exact for an exact check)
    # groups of 3,000 with n near N / 2 on both sides (complement), and a small n
    rng = np.random.default_rng(100 + SEEDS[kind])
    n_x = [1499, 1500, 1501, 40]
    groups = np.repeat(np.arange(len(n_x)), 3000)
    a = _weights(rng, len(groups), kind)
    got = _kernel_link(a, groups, n_x)
    np.testing.assert_allclose(got, _reference_link(a, groups, n_x), rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.bincount(groups, weights=got), n_x, rtol=1e-9)


def test_kernel_tilted_pass_is_exact():
    # 1,500 + 1,500 members with odds 1e-12 and 2e-12, n = 1,500: [z^n] of the plain linear
    # pass underflows; the tilted pass matches the exact two-class value to ~1e-16 (the
    # log-space reference is off by ~1e-9 here).
    c1 = c2 = n = 1500
    f1, f2 = F(1, 10**12), F(2, 10**12)
    # weight of k x's among class 1: C(c1,k) C(c2,n-k) r^k up to a common factor, with
    # r = f1 (1 - f2) / ((1 - f1) f2) = num / den; times den^n it is an integer
    r = f1 * (1 - f2) / ((1 - f1) * f2)
    num, den = r.numerator, r.denominator
    w = [math.comb(c1, k) * math.comb(c2, n - k) * num**k * den ** (n - k) for k in range(n + 1)]
    exact1 = F(sum(k * wk for k, wk in enumerate(w)), sum(w)) / c1
    exact2 = (n - exact1 * c1) / c2
    a = np.r_[np.full(c1, 1e-12), np.full(c2, 2e-12)]
    assert _loo_pass(a, n, np.empty(c1 + c2), np.empty(0)) < 1e-250  # plain pass underflows
    p = _kernel_link(a, np.zeros(c1 + c2, dtype=np.int64), [n])
    assert p[0] == pytest.approx(float(exact1), rel=1e-12)
    assert p[-1] == pytest.approx(float(exact2), rel=1e-12)
    # subnormal weights 3e-310 and 1e-310 (b = 1 - a rounds to 1): with a_i = m_i 2^-1074,
    # the weight of k x's in class 1 is C(c1,k) C(c2,n-k) m1^k m2^(n-k), integers
    n = 1000
    m1, m2 = (F(v) / F(2) ** -1074 for v in (3e-310, 1e-310))
    assert m1.denominator == m2.denominator == 1
    w = [
        math.comb(c1, k) * math.comb(c2, n - k) * int(m1) ** k * int(m2) ** (n - k)
        for k in range(n + 1)
    ]
    exact1 = F(sum(k * wk for k, wk in enumerate(w)), sum(w)) / c1
    a = np.r_[np.full(c1, 3e-310), np.full(c2, 1e-310)]
    p = _kernel_link(a, np.zeros(c1 + c2, dtype=np.int64), [n])
    assert p[0] == pytest.approx(float(exact1), rel=1e-12)
    assert p[-1] == pytest.approx(float((n - exact1 * c1) / c2), rel=1e-12)


def test_degenerate_weights_fall_back_to_random_worlds():
    r = make_release(["u", "u", "v"], ["x", "x", "y"], [0, 0, 0])
    # every f = 0 while the group holds x twice: every world has weight 0
    p = breach_probabilities(r, np.zeros(3), "x")
    np.testing.assert_allclose(p, [2 / 3] * 3)


def test_generalized_release_is_attacked_like_a_bucketization():
    sigs, vals, groups = TABLE8
    a = make_release(sigs, vals, groups, "bucketization")
    b = make_release(sigs, vals, groups, "generalization")
    ra = foreground_attack(a, "x", min_support=1)
    rb = foreground_attack(b, "x", min_support=1)
    np.testing.assert_array_equal(ra.p_star, rb.p_star)


# ---------------------------------------------------------------------------------------------
# Mining: fixed-point invariants
# ---------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.booleans())
def test_fixed_point_invariants(seed, newton):
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(6, 80))
    sigs = rng.integers(0, 4, n_rows)
    vals = np.where(rng.random(n_rows) < rng.uniform(0.05, 0.6), "x", "y")
    vals[0] = "x"
    groups = rng.integers(0, max(1, n_rows // 3), n_rows)
    r = make_release(sigs, vals, groups)
    dist, rep = mine_global_distribution(
        r, ["a"], "x", min_support=1, newton=newton, max_iter=20_000
    )
    f = dist.probability
    assert np.all((f >= 0) & (f <= 1))
    # Σ|s_i| f_i = #x (every signature free)
    assert float(dist.support @ f) == pytest.approx(float((vals == "x").sum()), abs=1e-6)
    assert abs(rep.mass_balance) < 1e-6
    # f = g(f): recompute Eq. (4) from the posteriors
    p = breach_probabilities(r, dist)
    g = np.bincount(dist.record_signature, weights=p) / dist.support
    if rep.converged:
        np.testing.assert_allclose(g, f, atol=1e-8)


def test_small_signature_rules():
    # s1 has 3 records, s2 has 3; with min_support 4 both are insufficient.
    r = make_release(*TABLE8)
    d, rep = mine_global_distribution(r, ["a"], "x", min_support=4)
    assert np.all(d.probability == 0.5) and rep.n_unknowns == 0 and not d.sufficient.any()
    d, _ = mine_global_distribution(r, ["a"], "x", min_support=4, small_signature="base-rate")
    np.testing.assert_allclose(d.probability, 2 / 6)
    d, rep = mine_global_distribution(r, ["a"], "x", min_support=4, small_signature="pooled")
    assert rep.n_unknowns == 1
    np.testing.assert_allclose(d.probability, 2 / 6)  # one pooled rate = base rate
    # mixed: s1 sufficient (3), s2 not (min_support 3 with an extra s2 ... use a 4-row set)
    r = make_release(["s1", "s1", "s1", "s2"], ["x", "y", "y", "z"], [0, 0, 1, 1])
    d, _ = mine_global_distribution(r, ["a"], "x", min_support=3)
    assert d.sufficient.tolist() == [True, False]
    assert d.probability[1] == 0.5


# ---------------------------------------------------------------------------------------------
# Mining: the accelerated solver reaches plain EM's fixed point
# ---------------------------------------------------------------------------------------------


def _plain_em(release, **kwargs):
    """Plain EM (no extrapolation, no Newton) run to full convergence: the reference."""
    return mine_global_distribution(
        release,
        ["a"],
        "x",
        min_support=1,
        newton=False,
        accelerate=False,
        tol=1e-15,
        max_iter=500_000,
        **kwargs,
    )


# Derandomized: about 1 draw in 300 (seeds 5933 and 6385 of 5,800-6,400) is a release where
# SQUAREM reaches another fixed point than plain EM; those are pinned, as known failures, in
# test_squarem_can_reach_another_fixed_point below, so that CI does not fail at random on them.
@pytest.mark.parametrize("accelerate", ["squarem", "newton"])
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
@given(st.integers(0, 10_000), st.booleans())
def test_accelerated_solver_reaches_plain_em_fixed_point(accelerate, seed, newton):
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(6, 80))
    sigs = rng.integers(0, int(rng.integers(2, 6)), n_rows)
    vals = np.where(rng.random(n_rows) < rng.uniform(0.05, 0.6), "x", "y")
    vals[0] = "x"
    groups = rng.integers(0, max(1, n_rows // 3), n_rows)
    # Two signatures with the same count in every group are exchangeable: exact EM keeps their
    # f equal (possibly at a saddle point of the likelihood), and plain EM in floating point
    # leaves that saddle or not by rounding alone, so "plain EM's fixed point" is not defined.
    profile = pd.crosstab(sigs, groups).to_numpy()
    assume(len(np.unique(profile, axis=0)) == len(profile))
    r = make_release(sigs, vals, groups)
    ref, ref_rep = _plain_em(r)
    assume(ref_rep.converged)  # plain EM reached 1e-15 (it may crawl slower than 500,000 steps)
    # Plain EM stopped at the default tolerance 1e-10 may sit next to a saddle point that it
    # leaves only later (e.g. (1/3, 1/3) on the way to (0, 1)): the fixed point is then
    # defined by the tolerance, not by the equations; such draws are not compared.
    current, _ = mine_global_distribution(
        r, ["a"], "x", min_support=1, newton=newton, accelerate=False
    )
    assume(np.max(np.abs(current.probability - ref.probability)) <= 1e-8)
    dist, rep = mine_global_distribution(
        r, ["a"], "x", min_support=1, newton=newton, accelerate=accelerate
    )
    assert rep.converged and rep.residual <= 1e-10
    np.testing.assert_allclose(dist.probability, ref.probability, rtol=0, atol=1e-8)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="known: SQUAREM's extrapolation can land in another basin than plain EM from the base "
    "rate (no likelihood safeguard; see _squarem's docstring); found by the property test above",
)
@pytest.mark.parametrize("seed", [5933, 6385])
def test_squarem_can_reach_another_fixed_point(seed):
    test_accelerated_solver_reaches_plain_em_fixed_point.hypothesis.inner_test(
        accelerate="squarem", seed=seed, newton=False
    )


def _crawling_boundary_release(k=2, m=40):
    """A release whose fixed point has ``f(s2) = 0`` and where plain EM crawls towards it.

    ``k`` groups {s1, s2} and ``m`` groups {s1, s1}, each holding one ``x``, and one group
    {s1, s1} holding two (without it the base rate, EM's start, would be the saddle point
    ``f1 = f2 = 1/2``). At ``f2 = 0``, ``f1 = (k + m + 2) / (k + 2m + 2)`` and EM shrinks
    ``f2`` by ``dg_2/df_2 = (1 - f1) / f1 = m / (k + m + 2)`` per step (0.91 here)."""
    sigs = ["s1", "s2"] * k + ["s1", "s1"] * (m + 1)
    vals = ["x", "y"] * (k + m) + ["x", "x"]
    groups = np.repeat(np.arange(k + m + 1), 2)
    return make_release(sigs, vals, groups), (k + m + 2) / (k + 2 * m + 2)


@pytest.mark.parametrize("accelerate", ["squarem", "newton"])
@pytest.mark.parametrize("newton", [False, True])
def test_accelerated_solver_boundary_solution(newton, accelerate):
    r, f1 = _crawling_boundary_release()
    ref, ref_rep = _plain_em(r)
    assert ref_rep.converged and ref_rep.em_iterations > 300
    assert ref.as_dict()[("s1",)] == pytest.approx(f1, abs=1e-12)
    assert ref.as_dict()[("s2",)] < 1e-12
    dist, rep = mine_global_distribution(
        r, ["a"], "x", min_support=1, newton=newton, accelerate=accelerate
    )
    assert rep.converged and rep.residual <= 1e-10
    np.testing.assert_allclose(dist.probability, ref.probability, rtol=0, atol=1e-8)
    # plain EM needs far more iterations for the same tolerance
    _, plain_rep = mine_global_distribution(
        r, ["a"], "x", min_support=1, newton=newton, accelerate=False
    )
    assert rep.em_iterations + rep.newton_steps < plain_rep.em_iterations / 3
    # the same breach probabilities as the reference
    np.testing.assert_allclose(
        breach_probabilities(r, dist), breach_probabilities(r, ref), rtol=0, atol=1e-8
    )
    # Tables 7-8: boundary f2 = 0 as well
    r8 = make_release(*TABLE8)
    ref8, _ = _plain_em(r8)
    dist8, rep8 = mine_global_distribution(
        r8, ["a"], "x", min_support=1, newton=newton, accelerate=accelerate
    )
    assert rep8.converged
    np.testing.assert_allclose(dist8.probability, ref8.probability, rtol=0, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------------------------


def test_apriori_equals_brute_force():
    rng = np.random.default_rng(7)
    n = 600
    df = pd.DataFrame(
        {
            "p": rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1]),
            "q": rng.choice(["a", "b"], n, p=[0.7, 0.3]),
            "r": rng.choice(["a", "b", "c", "d"], n),
            "s": rng.choice(["x", "y", "z"], n),
        }
    )
    table = Table.from_frame(df, quasi_identifiers=["p", "q", "r"], sensitive="s")
    rel = Release(table, rng.integers(0, 100, n), "bucketization")
    for J in (1, 20, 60, 150, 250, 400):
        got = frequent_attribute_sets(rel, J)
        want = [
            c
            for k in (1, 2, 3)
            for c in itertools.combinations(["p", "q", "r"], k)
            if df.groupby(list(c)).size().max() >= J
        ]
        assert got == want
        assert frequent_attribute_sets(rel, J, max_attributes=1) == [c for c in want if len(c) == 1]


def test_foreground_attack_small():
    r = make_release(*TABLE8)
    res = foreground_attack(r, "x", min_support=1)
    assert res.attribute_sets == ((), ("a",))
    np.testing.assert_allclose(res.p_star, [1, 0.5, 0.5, 0.5, 0, 0], atol=1e-6)
    np.testing.assert_allclose(res.baseline, [0.5, 0.5, 0.5, 0.5, 0, 0])
    assert res.best_attributes[0] == 1 and res.best_target[0] == 0
    assert res.problematic(2).tolist() == [True, False, False, False, False, False]
    s = res.score(r, 2)
    assert s["recall"] == 0.5 and s["average_breach"] == pytest.approx(0.75, abs=1e-6)
    # several targets: the maximum over targets
    res2 = foreground_attack(r, [["x"], ["y"]], min_support=1)
    assert res2.targets == (("x",), ("y",))
    res_y = foreground_attack(r, "y", min_support=1)
    np.testing.assert_allclose(res2.p_star, np.maximum(res.p_star, res_y.p_star))


def test_result_does_not_depend_on_the_thread_count():
    # 24 (attribute set, target) problems mined on 1 and on 3 threads: every field equal,
    # ties broken the same way (the first maximising set and target in enumeration order)
    rng = np.random.default_rng(7)
    n = 240
    df = pd.DataFrame(
        {
            "a": rng.choice(["a0", "a1", "a2"], n),
            "b": rng.choice(["b0", "b1"], n),
            "c": rng.choice(["c0", "c1", "c2", "c3"], n),
            "s": rng.choice(["x", "y", "z", "w"], n, p=[0.4, 0.3, 0.2, 0.1]),
        }
    )
    table = Table.from_frame(df, quasi_identifiers=["a", "b", "c"], sensitive="s")
    release = Release(table, rng.permutation(np.repeat(np.arange(n // 6), 6)), "bucketization")
    one = foreground_attack(release, min_support=20, threads=1)
    three = foreground_attack(release, min_support=20, threads=3)
    assert len(one.attribute_sets) * len(one.targets) >= 12
    assert np.array_equal(one.p_star, three.p_star)
    assert np.array_equal(one.best_attributes, three.best_attributes)
    assert np.array_equal(one.best_target, three.best_target)
    assert [d.probability.tolist() for d in one.distributions] == [
        d.probability.tolist() for d in three.distributions
    ]
    with pytest.raises(AnonlabError, match="threads"):
        foreground_attack(release, min_support=20, threads=0)


def test_bad_input():
    r = make_release(*TABLE8)
    with pytest.raises(AnonlabError, match="does not occur"):
        foreground_attack(r, "nope")
    with pytest.raises(AnonlabError, match="small_signature"):
        foreground_attack(r, "x", small_signature="half")
    with pytest.raises(AnonlabError, match="epsilon"):
        foreground_attack(r, "x", epsilon=0)
    with pytest.raises(AnonlabError, match="not a quasi-identifier"):
        mine_global_distribution(r, ["zzz"], "x")
    with pytest.raises(AnonlabError, match="one target"):
        mine_global_distribution(r, ["a"], [["x"], ["y"]])
    with pytest.raises(AnonlabError, match="no probability for signature"):
        breach_probabilities(r, {"s1": 0.5}, "x", attributes=["a"])
    with pytest.raises(AnonlabError, match=r"\[0, 1\]"):
        breach_probabilities(r, np.full(6, 1.5), "x")
    with pytest.raises(AnonlabError, match="one probability per record"):
        breach_probabilities(r, np.full(5, 0.5), "x")
    with pytest.raises(AnonlabError, match="attributes"):
        breach_probabilities(r, {"s1": 0.5, "s2": 0.1}, "x")
    with pytest.raises(AnonlabError, match="sensitive_values"):
        breach_probabilities(r, np.full(6, 0.5))
    with pytest.raises(AnonlabError, match="min_support"):
        foreground_attack(r, "x", min_support=0)


# ---------------------------------------------------------------------------------------------
# Real data: Anatomy ℓ = 2 on Adult, the paper's §5.1 setting
# ---------------------------------------------------------------------------------------------

LOW = ["Preschool", "1st-4th", "5th-6th", "7th-8th"]
ADULT_QI = ["age", "workclass", "marital-status", "occupation", "race"]


def test_adult_anatomy_l2():
    from anonlab.anonymize.anatomy import anatomy

    table = Table.from_dataset("adult", quasi_identifiers=ADULT_QI, sensitive="education")
    # The paper's Anatomy keeps at most one tuple of the low-education *set* per group (notes
    # §6.4): group on a copy whose set is one label, publish the original values.
    frame = table.to_frame()
    frame["education"] = np.where(
        frame["education"].isin(LOW), "low", frame["education"].astype(str)
    )
    merged = Table.from_frame(frame, quasi_identifiers=ADULT_QI, sensitive="education")
    release = Release(
        table, anatomy(merged, 2, sensitive_values=["low"], seed=0).group, "bucketization"
    )
    res = foreground_attack(release, LOW)
    assert np.all(res.p_star >= res.baseline - 1e-12)
    assert np.all(res.p_star <= 1.0)
    assert all(rep.converged for rep in res.reports)
    # raw age (74 values) never reaches J = 3993 records per value
    assert not any("age" in a for a in res.attribute_sets)
    score = res.score(release, 2)
    print(
        f"Adult Anatomy l=2: mean p* over sensitive tuples = {score['average_breach']:.4f} "
        f"(paper 0.8917), recall {score['recall']:.4f}"
    )
    assert score["average_baseline"] == pytest.approx(0.5)
    assert 0.5 < score["average_breach"] <= 1.0


def test_average_delta_by_hand():
    """Δ is the within-group spread of the mined f: recomputed here group by group by hand
    (groups {0, 1} and {2, 3}) from each distribution's per-record f."""
    df = pd.DataFrame({"a": ["u", "v", "u", "u"], "s": ["x", "y", "x", "y"]})
    table = Table.from_frame(df, quasi_identifiers=["a"], sensitive="s")
    release = Release(table, np.array([0, 0, 1, 1]), "bucketization")
    result = foreground_attack(release, ["x"], min_support=1)
    delta = result.average_delta(release)
    for dist in result.distributions:
        f = dist.record_probabilities()
        expected = np.mean([abs(f[0] - f[1]), abs(f[2] - f[3])])
        key = f"{','.join(dist.attributes) or '(none)'} -> {'|'.join(dist.target)}"
        assert delta[key] == pytest.approx(expected)
    assert delta["mean"] == pytest.approx(np.mean([v for k, v in delta.items() if k != "mean"]))
    # group 1 holds two records of one signature: no spread there
    assert all(v >= 0 for v in delta.values())


def test_complemented_group_keeps_tiny_probabilities(enumerate_worlds):
    """A group of 10 with n = 8 is computed through its complement (2 values not x). With
    three members at a = 1e-20 and seven at a = 0.9, 1 - (1 - a) would make the three a = 0
    exactly, hence every member equal and n/N = 0.8 for all; carried separately, ``b`` keeps
    them apart: by enumeration (exact), 1/3 for each of the three (one of them must take the
    eighth x) and 1 for the others, up to O(1e-20)."""
    tiny = F(1, 10**20)
    f = [tiny] * 3 + [F(9, 10)] * 7
    exact = enumerate_worlds(f, 8)
    assert abs(exact[0] - F(1, 3)) < F(1, 10**18) and abs(exact[9] - 1) < F(1, 10**18)
    release = make_release(["t"] * 3 + ["u"] * 7, ["x"] * 8 + ["y"] * 2, [0] * 10)
    p = breach_probabilities(release, np.array([float(v) for v in f]), "x")
    np.testing.assert_allclose(p, [float(v) for v in exact], rtol=1e-12, atol=1e-15)
    assert p.sum() == pytest.approx(8.0)
