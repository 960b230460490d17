"""Small-data runs of the ASAP utility experiments (Figures 7 and 10)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.experiments import jin_utility as ju


@pytest.fixture(scope="module")
def fig10():
    table = ju.census_table(rows=2500, seed=1)
    return ju.figure10(table, ls=(2, 4), l_ablation=(4,), n_queries=300, seed=0)


@pytest.fixture(scope="module")
def fig7():
    table = ju._sample(ju.adult_table(), 3000, 2)
    return ju.figure7(
        table, ks=(5, 10), ms=(3,), k_fixed=10, k_ablation=(10,), n_queries=300, seed=0
    )


def test_census_table_settings():
    table = ju.census_table(rows=500, seed=0)
    assert table.quasi_identifiers == ju.CENSUS_QI
    assert table.sensitive == "detailed_occupation_recode" and table.n_rows == 500


def test_figure10_small(fig10, tmp_path):
    assert len(fig10) == 2 * 5 + 2 * 4 + 8
    assert fig10.private.all()
    assert np.isfinite(fig10.error).all() and (fig10.error >= 0).all()
    i = fig10[fig10.panel == "10i"].set_index("algorithm")
    # pick-up only splits groups
    assert i.loc["mondrian++", "groups"] >= i.loc["mondrian+", "groups"]
    assert i.loc["hilb++", "groups"] >= i.loc["hilb+", "groups"]
    claims = {c["panel"]: c for c in ju.claims10(fig10)}
    assert set(claims) == {"10a", "10e", "10i"}
    e = fig10[fig10.panel == "10e"].pivot_table(index="l", columns="algorithm", values="error")
    want = bool(((e["mondrian++"] < e["anatomy"]) & (e["hilb++"] < e["anatomy"])).all())
    assert claims["10e"]["holds"] == want
    assert claims["10i"]["plus_loses"] == bool(
        i.loc["mondrian+", "error"] > i.loc["mondrian", "error"]
        and i.loc["hilb+", "error"] > i.loc["hilb", "error"]
    )
    path = ju.plot(fig10, tmp_path / "f10.png", "test")
    assert path.stat().st_size > 1000
    text = ju.report(fig10, list(claims.values()), "settings line")
    assert "(10i) generalization — paper:" in text and "settings line" in text


def test_figure7_small(fig7):
    assert len(fig7) == 2 * (2 * 2 + 2) + 3
    assert fig7.private.all()
    k = fig7[fig7.panel == "7k"].set_index("algorithm")
    assert k.loc["mask++", "groups"] >= k.loc["mask+", "groups"]
    # MASK+ and MASK++ perturb the same records (pick-up regroups, never changes values)
    assert k.loc["mask++", "perturbed_records"] == k.loc["mask+", "perturbed_records"]
    claims = {c["panel"]: c for c in ju.claims7(fig7)}
    assert set(claims) == {"7a", "7f", "7b", "7g", "7k"}
    a = fig7[fig7.panel == "7a"].pivot_table(index="k", columns="algorithm", values="error")
    assert claims["7a"]["holds"] == bool((a["mask++"] < a["mask"]).all())


def test_sweeps_small():
    table = ju.census_table(rows=2000, seed=3)
    s10 = ju.sweeps("10", table, qis=(3, 7), qds=(2,), selectivities=(0.05,), n_queries=200)
    assert len(s10) == (2 + 1 + 1) * (4 + 3)
    assert s10.private.all()
    assert set(s10.panel) == {"10b", "10c", "10d", "10f", "10g", "10h"}
    qi3 = s10[(s10.vary == "qi") & (s10.value == 3)]
    assert (qi3.groups > 0).all()
    claims = {c["panel"]: c for c in ju.claims_sweeps(s10)}
    f = s10[s10.panel == "10f"].pivot_table(index="value", columns="algorithm", values="error")
    want = bool(((f["mondrian++"] < f["anatomy"]) & (f["hilb++"] < f["anatomy"])).all())
    assert claims["10f"]["holds"] == want
    table7 = ju._sample(ju.adult_table(), 2000, 4)
    s7 = ju.sweeps("7", table7, qis=(3,), qds=(3,), selectivities=(0.05,), k=10, n_queries=200)
    assert len(s7) == 3 * 2 * 2 and s7.private.all()
    with pytest.raises(ValueError, match="figure"):
        ju.sweeps("8", table7)


def test_figure7_readings_compare_like_with_like():
    """Issue 18 part 5: by default MASK, MASK+ and MASK++ protect the same set (below high
    school, as one value); the "all-values" reading (MASK++ caps all 16 values, E10) is kept
    beside it. MASK's rows are the same under both; MASK++ perturbs fewer records on the set."""
    table = ju._sample(ju.adult_table(), 3000, 2)
    kw = {"ks": (10,), "ms": (3,), "k_fixed": 10, "k_ablation": (), "n_queries": 200}
    subset = ju.figure7(table, **kw)
    every = ju.figure7(table, reading="all-values", **kw)
    assert set(subset.reading) == {"set"} and set(every.reading) == {"all-values"}
    assert subset.private.all() and every.private.all()
    mpp = [f[f.algorithm == "mask++"].perturbed_records.sum() for f in (subset, every)]
    assert mpp[0] < mpp[1]
    cols = ["panel", "scheme", "k", "m", "error", "perturbed_records"]
    mask_rows = [f[f.algorithm == "mask"][cols].reset_index(drop=True) for f in (subset, every)]
    pd.testing.assert_frame_equal(mask_rows[0], mask_rows[1])
