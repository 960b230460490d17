"""The driver's cuts from map-reduced histograms equal mondrian_cuts exactly (issue 21)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

from anonlab.anonymize.mondrian import _lower_median  # the rule the vectorised median follows
from anonlab.distributed.histogram_cuts import (
    CUT,
    LEAF,
    OVERSIZED,
    apply_cuts,
    decide_cuts,
    histogram_mondrian_cuts,
    level_histograms,
    lower_median,
)
from anonlab.distributed.partitioning import mondrian_cuts
from anonlab.table import Table


def _same(a, b):
    assert a.n_parts == b.n_parts
    assert a.part.dtype == b.part.dtype
    np.testing.assert_array_equal(a.part, b.part)
    assert (a.cuts, a.refused_splits, a.oversized) == (b.cuts, b.refused_splits, b.oversized)
    assert a.method == b.method


def _split(n: int, bounds: list[int]) -> list[tuple[int, int]]:
    cuts = sorted({min(max(b, 0), n) for b in bounds} | {0, n})
    return list(zip(cuts[:-1], cuts[1:], strict=True)) or [(0, n)]


@st.composite
def problems(draw):
    d = draw(st.integers(1, 4))
    domains = draw(st.lists(st.integers(2, 9), min_size=d, max_size=d))
    if d > 1 and draw(st.booleans()):
        domains[0] = 1  # an attribute that cannot be cut
    n_values = draw(st.integers(1, 8) if draw(st.booleans()) else st.integers(4, 8))
    if draw(st.sampled_from(["sized"] * 7 + ["tiny"])) == "sized":
        n = draw(st.integers(40, 600))
    else:  # the edges: no record, one, a few
        n = draw(st.integers(0, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    qi = np.column_stack([rng.integers(0, dom, n) for dom in domains]).astype(np.int32)
    qi = qi.reshape(n, d)
    # skewed sensitive values, so ℓ-diversity refuses some cuts
    p = rng.dirichlet(np.ones(n_values) * draw(st.sampled_from([0.7, 3.0, 20.0])))
    sensitive = rng.choice(n_values, size=n, p=p).astype(np.int32)
    constrained = np.array(draw(st.lists(st.booleans(), min_size=n_values, max_size=n_values)))
    look_ahead = draw(st.booleans())
    k = 1 if look_ahead else draw(st.integers(1, 12))
    l = draw(st.integers(1, 4))
    # mostly small parts, so that most examples cut several times
    if draw(st.sampled_from(["share"] * 4 + ["free"])) == "share":
        max_rows = n // draw(st.integers(2, 30))
    else:
        max_rows = draw(st.integers(0, 500))
    bounds = draw(st.lists(st.integers(0, n), max_size=8))
    return qi, sensitive, constrained, domains, k, l, look_ahead, max_rows, bounds


CUT_SHARE = {"examples": 0, "several": 0}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_histogram_cuts_equal_mondrian_cuts(problem):
    qi, sensitive, constrained, domains, k, l, look_ahead, max_rows, bounds = problem
    width = np.array(domains, dtype=np.int64) - 1
    kwargs = dict(k=k, l=l, look_ahead=look_ahead, max_partition_rows=max_rows)
    expected = mondrian_cuts(qi, sensitive, constrained, width, **kwargs)
    blocks = [(qi[s:e], sensitive[s:e]) for s, e in _split(len(sensitive), bounds)]
    got = histogram_mondrian_cuts(blocks, constrained, width, domains, **kwargs)
    _same(got, expected)
    target(float(min(expected.n_parts, 20)), label="parts")
    CUT_SHARE["examples"] += 1
    CUT_SHARE["several"] += expected.n_parts >= 2


def test_most_examples_cut():
    """Runs after the property (file order): most random examples made at least one cut."""
    if CUT_SHARE["examples"] == 0:
        pytest.skip("the property test did not run in this session")
    share = CUT_SHARE["several"] / CUT_SHARE["examples"]
    print(f"examples with >= 2 parts: {CUT_SHARE['several']}/{CUT_SHARE['examples']} = {share:.0%}")
    assert share > 0.5


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12), st.integers(0, 4))
def test_lower_median_is_the_kernels(counts, shift):
    hist = np.array(counts, dtype=np.int64)
    if hist.sum() == 0:
        hist[-1] = 1
    nz = np.flatnonzero(hist)
    lo, hi = nz[0], nz[-1]
    m = int(hist.sum())
    split, n_left = _lower_median(hist[lo : hi + 1].copy(), m)
    padded = np.r_[np.zeros(shift, dtype=np.int64), hist]  # codes below lo count 0
    code, got_left = lower_median(padded[None, :], np.array([m]))
    assert int(got_left[0]) == int(n_left)
    assert int(code[0]) == shift + lo + int(split)


@pytest.fixture(scope="module")
def census():
    table = Table.from_dataset("census-kdd-workers")
    sens = table.require_sensitive()
    domains = [table.domain_size(q) for q in table.quasi_identifiers]
    return (
        table.qi_matrix(),
        table.codes[table.sensitive],
        table.value_mask(sens, None),
        np.array(domains, dtype=np.int64) - 1,
        domains,
    )


@pytest.mark.parametrize(("k", "l", "look_ahead"), [(10, 1, False), (1, 4, False), (1, 4, True)])
def test_census_equal_to_mondrian_cuts(census, k, l, look_ahead):
    qi, sensitive, constrained, width, domains = census
    kwargs = dict(k=k, l=l, look_ahead=look_ahead, max_partition_rows=3000)
    expected = mondrian_cuts(qi, sensitive, constrained, width, **kwargs)
    bounds = np.linspace(0, len(sensitive), 8).astype(int)
    blocks = [(qi[s:e], sensitive[s:e]) for s, e in zip(bounds[:-1], bounds[1:], strict=True)]
    assert len(blocks) == 7
    got = histogram_mondrian_cuts(blocks, constrained, width, domains, **kwargs)
    assert expected.n_parts >= 10  # 31, 32 and 10 parts; the last with 21 refusals, 6 oversized
    _same(got, expected)


def test_census_k_and_l_together(census):
    qi, sensitive, constrained, width, domains = census
    kwargs = dict(k=10, l=4, look_ahead=False, max_partition_rows=3000)
    expected = mondrian_cuts(qi, sensitive, constrained, width, **kwargs)
    bounds = np.linspace(0, len(sensitive), 8).astype(int)
    blocks = [(qi[s:e], sensitive[s:e]) for s, e in zip(bounds[:-1], bounds[1:], strict=True)]
    _same(histogram_mondrian_cuts(blocks, constrained, width, domains, **kwargs), expected)


def test_level_histograms_by_hand():
    # 2 QIs (domains 3 and 2), 2 sensitive values; partitions 0 (open, row 1), 1 (closed),
    # 2 (open, row 0)
    qi = np.array([[0, 1], [2, 0], [2, 1], [1, 1], [0, 0]])
    sensitive = np.array([1, 0, 1, 0, 1])
    part = np.array([0, 0, 2, 1, 2])
    open_row = np.array([1, -1, 0])
    hist = level_histograms(qi, sensitive, part, open_row, [3, 2], 2)
    assert hist.shape == (2, (3 + 2) * 2)
    assert hist.dtype == np.int64
    # row 0 = partition 2: records (2,1,s1) and (0,0,s1)
    a0 = np.array([[0, 1], [0, 0], [0, 1]])  # code 0: s1; code 2: s1
    a1 = np.array([[0, 1], [0, 1]])  # code 0: s1; code 1: s1
    np.testing.assert_array_equal(hist[0], np.r_[a0.ravel(), a1.ravel()])
    # row 1 = partition 0: records (0,1,s1) and (2,0,s0)
    a0 = np.array([[0, 1], [0, 0], [1, 0]])
    a1 = np.array([[1, 0], [0, 1]])
    np.testing.assert_array_equal(hist[1], np.r_[a0.ravel(), a1.ravel()])
    # empty block, and no open partition
    assert level_histograms(qi[:0], sensitive[:0], part[:0], open_row, [3, 2], 2).sum() == 0
    assert level_histograms(qi, sensitive, part, np.full(3, -1), [3, 2], 2).shape == (0, 10)


def test_decide_and_apply_by_hand():
    # one open partition of 4 records on one QI (domain 4), no sensitive constraint
    qi = np.array([[0], [1], [2], [3]])
    sensitive = np.zeros(4, dtype=np.int64)
    hist = level_histograms(qi, sensitive, np.zeros(4, dtype=np.int64), np.array([0]), [4], 1)
    kw = dict(k=2, l=1, look_ahead=False)
    decision = decide_cuts(hist, [4], np.array([False]), np.array([3]), max_partition_rows=3, **kw)
    assert decision.action[0] == CUT
    assert (decision.attribute[0], decision.threshold[0], decision.n_left[0]) == (0, 1, 2)
    table = np.array([[0, 1, 1, 2]])
    new = apply_cuts(qi, np.zeros(4, dtype=np.int64), np.vstack([table, [[-1] * 4] * 2]))
    np.testing.assert_array_equal(new, [1, 1, 2, 2])
    small = decide_cuts(hist, [4], np.array([False]), np.array([3]), max_partition_rows=4, **kw)
    assert small.action[0] == LEAF
    kw["k"] = 3
    big_k = decide_cuts(hist, [4], np.array([False]), np.array([3]), max_partition_rows=3, **kw)
    assert big_k.action[0] == OVERSIZED and big_k.refused[0] == 0
