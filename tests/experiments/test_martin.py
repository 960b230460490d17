"""Martin et al. §4 reproduction: shapes and the claims that hold by theory (small data)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab.anonymize import generalize
from anonlab.experiments import martin

EPS = 1e-12


@pytest.fixture(scope="module")
def adult():
    return martin.adult_table()


@pytest.fixture(scope="module")
def sample(adult):
    rows = np.random.default_rng(0).choice(adult.n_rows, size=2000, replace=False)
    return adult.take(np.sort(rows))


@pytest.fixture(scope="module")
def fig6_sample(sample):
    return martin.figure6(sample)


def test_min_bucket_entropy_natural_log():
    assert martin.min_bucket_entropy(np.array([[1, 1], [3, 3]])) == pytest.approx(math.log(2))
    assert martin.min_bucket_entropy(np.array([[1, 1, 0], [0, 4, 0]])) == 0.0
    p = np.array([0.5, 0.25, 0.25])
    want = -(p * np.log(p)).sum()
    assert martin.min_bucket_entropy(np.array([[2, 1, 1], [1, 1, 1]])) == pytest.approx(want)


def test_lattice_has_72_nodes(adult):
    nodes = martin.lattice_nodes(adult)
    assert len(nodes) == 72
    assert {tuple(n.values()) for n in nodes} == {
        (a, m, r, s) for a in range(6) for m in range(3) for r in range(2) for s in range(2)
    }


def test_figure5_small_k(adult):
    data = martin.figure5(adult, k_max=3)
    f = data["frame"]
    assert list(f.columns) == ["k", "implications", "negations", "gap"]
    assert f["k"].tolist() == [0, 1, 2, 3]
    assert data["settings"]["levels"] == martin.FIGURE5_LEVELS
    assert data["settings"]["buckets"] == 5 == len(data["buckets"])
    assert data["buckets"]["size"].sum() == adult.n_rows == 45222
    imp, neg = f["implications"].to_numpy(), f["negations"].to_numpy()
    assert np.all(neg <= imp + EPS)
    assert np.all(np.diff(imp) >= -EPS) and np.all(np.diff(neg) >= -EPS)
    assert imp[0] == pytest.approx(neg[0])  # k = 0: the prior, same for both
    assert set(data["next"]) == {"implications", "negations"}


def test_figure5_reaches_one(adult):
    data = martin.figure5(adult)
    f = data["frame"]
    d = int(data["buckets"]["distinct"].min())
    assert np.all(f.loc[f["k"] >= d - 1, ["implications", "negations"]].to_numpy() == 1.0)
    assert np.all(f.loc[f["k"] < d - 1, "implications"].to_numpy() < 1.0)
    assert data["next"]["implications"] == 1.0 == data["next"]["negations"]
    claims = martin.check_claims(data)
    assert [c["figure"] for c in claims] == [5, 5, 5]
    assert claims[0]["holds"] is True and claims[2]["holds"] is True
    assert all(isinstance(c["holds"], bool) and c["numbers"] for c in claims)


def test_figure6_shape(fig6_sample, sample):
    data = fig6_sample
    tables, curve = data["tables"], data["curve"]
    assert len(tables) == 72 == data["settings"]["tables"]
    assert data["settings"]["rows"] == 2000
    assert data["settings"]["ks"] == list(martin.FIGURE6_KS)
    for lang in martin.LANGUAGES:
        for k in range(13):
            assert f"{lang}_{k}" in tables.columns
    assert list(curve.columns) == ["language", "k", "h", "n_tables", "w", "table", "w_at_least"]
    n_h = data["settings"]["distinct_h"]
    assert len(curve) == 2 * len(martin.FIGURE6_KS) * n_h
    for (_, _), c in curve.groupby(["language", "k"]):
        assert len(c) == n_h
        assert c["n_tables"].sum() == 72
        assert np.all(np.diff(c["h"].to_numpy()) > martin.H_TOLERANCE)
        assert np.all(c["w_at_least"].to_numpy() <= c["w"].to_numpy() + EPS)
        assert np.all(np.diff(c["w_at_least"].to_numpy()) <= EPS)  # non-increasing
        assert set(c["table"]) <= set(tables["node"])
    assert tables["min_entropy"].between(0, math.log(14) + EPS).all()


def test_figure6_theory_per_table(fig6_sample, sample):
    tables = fig6_sample["tables"]
    imp = tables[[f"implications_{k}" for k in range(13)]].to_numpy()
    neg = tables[[f"negations_{k}" for k in range(13)]].to_numpy()
    assert np.all(neg <= imp + EPS)
    assert np.all(np.diff(imp, axis=1) >= -EPS) and np.all(np.diff(neg, axis=1) >= -EPS)
    for i in (0, 17, 40, 71):
        levels = martin.lattice_nodes(sample)[i]
        assert tables["node"].iloc[i] == "(" + ", ".join(map(str, levels.values())) + ")"
        hist = np.asarray(generalize(sample, levels).sensitive_histogram)
        d = int((hist > 0).sum(axis=1).min())
        assert np.all(imp[i, max(d - 1, 0) :] == 1.0)
        assert tables["min_entropy"].iloc[i] == pytest.approx(martin.min_bucket_entropy(hist))


def test_figure6_few_nodes(adult):
    nodes = [
        {"age": 5, "marital-status": 2, "race": 1, "sex": 1},
        {"age": 3, "marital-status": 2, "race": 1, "sex": 1},
        {"age": 4, "marital-status": 1, "race": 1, "sex": 1},
    ]
    data = martin.figure6(adult, ks=(1, 3), k_max=3, nodes=nodes)
    assert len(data["tables"]) == 3 and data["settings"]["k_max"] == 3
    assert set(data["curve"]["k"]) == {1, 3}
    # The fully suppressed table has the highest minimum entropy of the three.
    assert data["tables"]["min_entropy"].idxmax() == 0
    claims = martin.check_claims(fig6=data)
    assert len(claims) == 2 * 2 * 2
    assert all(c["figure"] == 6 and isinstance(c["holds"], bool) for c in claims)
    wide = martin.figure6_wide(data)
    assert list(wide.columns) == ["h", "tables", "k=1", "k=3"]


def test_plots_write_png(tmp_path, fig6_sample, adult):
    pytest.importorskip("matplotlib")
    p5 = martin.plot_figure5(martin.figure5(adult, k_max=3), tmp_path / "f5.png")
    p6 = martin.plot_figure6(fig6_sample, tmp_path / "f6.png")
    p6n = martin.plot_figure6(fig6_sample, tmp_path / "f6n.png", language="negations")
    for p in (p5, p6, p6n):
        data = p.read_bytes()
        assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"


def test_main_prints_tables_and_claims(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert martin.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "## Figure 5" in out and "## Figure 6" in out and "## Claims" in out
    assert "45,222 rows" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "martin_figure5.png",
        "martin_figure6.png",
        "martin_figure6_negations.png",
    ]
    assert isinstance(pd.DataFrame(martin.check_claims()), pd.DataFrame)
