"""The foreground attack's machinery for millions of records (issue 10), against the plain
computations it replaces.

* ``_odds_link`` (Anatomy's groups with one ``x``) gives bit for bit what ``_group_link`` gives,
  including the cases it hands back (``b = 0``, all odds equal, odds out of range).
* ``FixedPointProblem`` evaluates each *type* of group (size, count of ``x``, members' keys)
  once: its ``g`` and its posterior equal the per-group kernel over every group, also when every
  hash collides (the exact comparison, not the hash, decides a type).
* ``distinct_keys`` / ``RowIndex``: distinct rows equal ``np.unique(axis=0)``, also past a
  2^62 key space; signatures and supports read through the distinct rows equal the per-record
  group-by.
* ``foreground_attack`` on a release with many repeated rows and groups equals the same attack
  with each group evaluated on its own (every hash made unique).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import anonlab.attacks.foreground.kernel as fg_kernel
import anonlab.attacks.foreground.solver as fg_solver
from anonlab import Release, Table
from anonlab.attacks.foreground import foreground_attack
from anonlab.attacks.foreground.inputs import count_x, resolve_targets
from anonlab.attacks.foreground.kernel import GroupLayout, _group_link, _link_kernel_ab
from anonlab.attacks.foreground.signatures import RowIndex, distinct_keys
from anonlab.attacks.foreground.solver import FixedPointProblem

# ---------------------------------------------------------------------------------------------
# _odds_link against _group_link
# ---------------------------------------------------------------------------------------------

SPECIAL = [0.0, 1.0, 0.5, 1e-300, 1e-200, 0.25]


@st.composite
def one_x_groups(draw):
    """Groups whose degree (count of x after the complement) is 1, with special weights."""
    n_groups = draw(st.integers(1, 12))
    a_parts, sizes, comp = [], [], []
    for _ in range(n_groups):
        size = draw(st.integers(1, 5))
        values = draw(
            st.lists(
                st.one_of(st.sampled_from(SPECIAL), st.floats(0.0, 1.0)),
                min_size=size,
                max_size=size,
            )
        )
        a_parts.append(values)
        sizes.append(size)
        comp.append(draw(st.booleans()) and size >= 2)
    return a_parts, sizes, comp


def _reference(a, b, ptr, degree, complement):
    out = np.empty(len(a))
    for g in range(len(degree)):
        lo, hi = ptr[g], ptr[g + 1]
        w = (b if complement[g] else a)[lo:hi].copy()
        wb = (a if complement[g] else b)[lo:hi].copy()
        res = np.empty(hi - lo)
        work = np.empty(64 * (hi - lo + 4))
        assert _group_link(
            w, wb, int(degree[g]), res, work, fg_kernel._FAST_MIN_WORK, fg_kernel._FAST_COST
        )
        out[lo:hi] = 1.0 - res if complement[g] else res
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(one_x_groups())
def test_odds_link_equals_group_link_bit_for_bit(groups):
    a_parts, sizes, comp = groups
    a = np.array([v for part in a_parts for v in part], dtype=np.float64)
    b = 1.0 - a
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    degree = np.ones(len(sizes), dtype=np.int64)
    complement = np.array(comp, dtype=np.bool_)
    out = np.empty(len(a))
    failed = _link_kernel_ab(
        a, b, ptr, degree, complement, out, fg_kernel._FAST_MIN_WORK, fg_kernel._FAST_COST
    )
    assert not failed.any()
    assert np.array_equal(out, _reference(a, b, ptr, degree, complement))


def test_odds_link_hands_back_the_special_cases():
    """Cases _group_link answers by another branch: the kernel's answer is that branch's."""
    a = np.array([0.3, 0.3, 1.0, 0.2, 0.0, 0.0, 1e-300, 0.4], dtype=np.float64)
    ptr = np.array([0, 2, 4, 6, 8], dtype=np.int64)  # alike; a = 1; all 0; odds < 1e-280
    degree = np.ones(4, dtype=np.int64)
    out = np.empty(8)
    _link_kernel_ab(a, 1.0 - a, ptr, degree, np.zeros(4, dtype=np.bool_), out)
    assert out.tolist()[:6] == [0.5, 0.5, 1.0, 0.0, 0.5, 0.5]
    assert np.array_equal(out, _reference(a, 1.0 - a, ptr, degree, np.zeros(4, dtype=bool)))


# ---------------------------------------------------------------------------------------------
# _Problem's group types against every group on its own
# ---------------------------------------------------------------------------------------------


def _release(rng, n_rows, n_sigs, max_group, rate, columns=1):
    data = {f"q{j}": rng.integers(0, n_sigs, n_rows).astype(str) for j in range(columns)}
    data["s"] = np.where(rng.random(n_rows) < rate, "x", "y")
    df = pd.DataFrame(data)
    table = Table.from_frame(df, quasi_identifiers=[f"q{j}" for j in range(columns)], sensitive="s")
    sizes = rng.integers(1, max_group + 1, n_rows)
    group = np.repeat(np.arange(n_rows), sizes)[:n_rows]
    return Release(table, group, "bucketization")


def _problem(release, attributes, min_support, small="uniform-half"):
    targets = resolve_targets(release, "x")
    n_x = count_x(release, targets[0][1])
    layout = GroupLayout(release.group, release.n_groups, n_x)
    sig = RowIndex.of(release, attributes).signatures(attributes)
    sufficient = sig.support >= min_support
    sig_var = np.full(len(sig.support), -1, dtype=np.int64)
    sig_var[sufficient] = np.arange(int(sufficient.sum()))
    fixed = np.where(sufficient, 0.0, 0.5 if small == "uniform-half" else 0.1)
    problem = FixedPointProblem(layout, sig, sig_var, fixed, int(sufficient.sum()))
    record_var = sig_var[sig.of(np.arange(release.table.n_rows))]
    record_fixed = fixed[sig.of(np.arange(release.table.n_rows))]
    return problem, layout, record_var, record_fixed


def _plain_g(layout, record_var, record_fixed, f, n_vars):
    """Eq. (3) per group (no types) and Eq. (4)."""
    a = np.where(record_var >= 0, np.append(f, 0.0)[record_var], record_fixed)
    p = layout.probabilities(a)
    free = record_var >= 0
    num = np.bincount(record_var[free], weights=p[free], minlength=n_vars)
    den = np.bincount(record_var[free], minlength=n_vars)
    return np.clip(num / den, 0.0, 1.0), p


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_group_types_equal_every_group_on_its_own(seed, collide, monkeypatch):
    if collide:  # every sequence hashes alike: only the exact comparison separates types
        monkeypatch.setattr(
            fg_solver, "_sequence_hashes", lambda keys, ptr: np.zeros(len(ptr) - 1, np.uint64)
        )
    rng = np.random.default_rng(seed)
    rel = _release(
        rng, 600, int(rng.integers(2, 7)), int(rng.integers(2, 6)), rng.uniform(0.1, 0.6)
    )
    problem, layout, rv, rf = _problem(rel, ("q0",), min_support=int(rng.integers(1, 130)))
    # far fewer types than busy groups: the release repeats compositions
    assert problem.n_types < len(layout.degree)
    for _ in range(3):
        f = rng.uniform(0.0, 1.0, problem.n_vars)
        expected, p = _plain_g(layout, rv, rf, f, problem.n_vars)
        np.testing.assert_allclose(problem.g(f), expected, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(problem.posterior(f).full(), p, rtol=1e-13, atol=1e-15)


def test_foreground_attack_with_types_equals_one_type_per_group(monkeypatch):
    rng = np.random.default_rng(7)
    rel = _release(rng, 3000, 3, 3, 0.3, columns=3)
    with_types = foreground_attack(rel, "x", min_support=60)
    counter = iter(range(10**9))  # a distinct hash per group and a single-group type each

    def unique_hashes(keys, ptr):
        return np.array([next(counter) for _ in range(len(ptr) - 1)], dtype=np.uint64)

    def one_type_per_group(keys, ptr, degree, complement, order):
        kind = np.empty(len(order), dtype=np.int64)
        kind[order] = np.arange(len(order))
        return kind, order.astype(np.int64)

    monkeypatch.setattr(fg_solver, "_sequence_hashes", unique_hashes)
    monkeypatch.setattr(fg_solver, "_group_types", one_type_per_group)
    plain = foreground_attack(rel, "x", min_support=60)
    assert with_types.attribute_sets == plain.attribute_sets
    assert len(with_types.attribute_sets) > 3
    np.testing.assert_allclose(with_types.p_star, plain.p_star, rtol=0, atol=1e-9)
    assert np.array_equal(with_types.best_attributes, plain.best_attributes)
    for d1, d2 in zip(with_types.distributions, plain.distributions, strict=True):
        np.testing.assert_allclose(d1.probability, d2.probability, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Distinct rows
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("radix", [3, 40, 300])
def test_distinct_keys_equal_unique_rows(radix):
    """Eight columns of radix 300 span 300^8 > 2^62 keys: the key is renumbered on the way."""
    rng = np.random.default_rng(radix)
    base = rng.integers(0, radix, (50, 8))
    rows = base[rng.integers(0, 50, 2000)]
    first, inv, cnt = distinct_keys([rows[:, j] for j in range(8)], [radix] * 8, len(rows))
    uniq, ref_inv, ref_cnt = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    assert np.array_equal(rows[first], uniq)
    assert np.array_equal(inv, ref_inv.ravel())
    assert np.array_equal(cnt, ref_cnt)


def test_row_index_signatures_equal_the_per_record_group_by():
    rng = np.random.default_rng(3)
    rel = _release(rng, 5000, 4, 2, 0.2, columns=3)
    index = RowIndex.of(rel, ("q0", "q1", "q2"))
    assert len(index.rows) <= 64 and int(index.count.sum()) == 5000
    for attrs in [(), ("q1",), ("q0", "q2"), ("q0", "q1", "q2")]:
        sig = index.signatures(attrs)
        per_record = sig.of(np.arange(5000))
        cols = (
            np.stack([rel.table.codes[a] for a in attrs], axis=1) if attrs else np.zeros((5000, 0))
        )
        uniq, inv, cnt = np.unique(cols, axis=0, return_inverse=True, return_counts=True)
        assert np.array_equal(sig.codes, uniq)
        assert np.array_equal(per_record, inv.ravel())
        assert np.array_equal(sig.support, cnt)


def test_attack_distributions_recompute_record_signatures_on_demand():
    """The attack keeps no per-set row map (``row_signature`` None); ``record_signature`` and
    ``record_probabilities`` recompute it from the shared row index: equal to the group-by."""
    rng = np.random.default_rng(11)
    rel = _release(rng, 2000, 3, 2, 0.3, columns=2)
    result = foreground_attack(rel, "x", min_support=50)
    assert len(result.distributions) >= 3
    for d in result.distributions:
        assert d.row_signature is None
        if d.attributes:
            cols = np.stack([rel.table.codes[a] for a in d.attributes], axis=1)
        else:
            cols = np.zeros((2000, 0))
        _, inv = np.unique(cols, axis=0, return_inverse=True)
        assert np.array_equal(d.record_signature, inv.ravel())
        assert np.array_equal(d.record_probabilities(), d.probability[inv.ravel()])
