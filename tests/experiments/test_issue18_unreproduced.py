"""Issue 18, item 5, last bullet: Martin's Figure 6 with negated atoms, Li's Figure 3 bins
N0 … N≥5, Jin's Tables 7-8 timing statements and Wong's time panels (Figures 1-2 (a), (b)) and
Figure 3 — each new claim built, its kind, its numbers computed by code, on small data. Timing
claims are checked for shape only (no wall-clock bound)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab.experiments import jin_timing as jt
from anonlab.experiments import jin_utility as ju
from anonlab.experiments import li, martin, wong
from anonlab.experiments.claims import PaperResult
from anonlab.experiments.reproduce.martin import NEGATION_STATEMENT, martin_claims


# ----------------------------------------------------------------------------- Martin, Fig 6
def test_martin_negation_claims_are_paper_claims_under_both_readings(tmp_path, monkeypatch):
    adult = martin.adult_table()
    sample = adult.take(np.sort(np.random.default_rng(0).choice(adult.n_rows, 2000, False)))
    monkeypatch.setattr(martin, "adult_table", lambda: sample)
    monkeypatch.setattr(martin, "lattice_nodes", lambda t: _nodes(t)[::6])
    result = martin_claims(True, tmp_path)
    neg = [c for c in result.claims if "negated atoms, not shown" in c.item]
    ks = martin.FIGURE6_KS
    assert len(neg) == 2 * len(ks)
    assert {c.reading for c in neg} == {"strict", "trend"}
    for c in neg:
        assert c.kind == "paper" and c.paper_value == NEGATION_STATEMENT
        assert c.tolerance.kind == "holds" and isinstance(c.passed, bool)
    side = [c for c in result.claims if "beside implications" in c.item]
    assert len(side) == len(ks)
    assert all(c.kind == "paper" and c.passed is None for c in side)  # reported, no goal
    assert any(f.path.endswith("figure6_negations.png") for f in result.figures)


_nodes = martin.lattice_nodes


def test_martin_figure6_gap_from_the_curves():
    table = martin.adult_table()
    nodes = martin.lattice_nodes(table)[::12]
    data = martin.figure6(table, ks=(1, 3), k_max=3, nodes=nodes)
    gap = martin.figure6_gap(data)
    c = data["curve"]
    for row in gap.itertuples():
        w = {
            lang: c[(c.language == lang) & (c.k == row.k) & (c.h == row.h)]["w"].item()
            for lang in martin.LANGUAGES
        }
        assert row.implications == w["implications"] and row.negations == w["negations"]
        assert row.gap == pytest.approx(w["implications"] - w["negations"])
        assert row.gap >= -1e-12  # the same tables T(h): negations never exceed (notes §6)
    checks = martin.check_claims(None, data)
    assert sum("(negations" in x["claim"] for x in checks) == 2 * 2  # 2 k × 2 readings


# ----------------------------------------------------------------------------- Li, Fig 3
def test_li_figure3_mode_computed_from_the_bins():
    paper = li.PAPER_FIGURE3.copy()
    mode = li.figure3_mode({"frame": paper, "paper": paper})
    assert mode["holds"] and mode["ours"] == mode["paper"]
    assert mode["paper"].startswith("0.75: N1 80.4% (next 15.9%)")
    flipped = paper.copy()
    flipped.loc[0, ["N1", "N2"]] = [40.0, 56.3]
    bad = li.figure3_mode({"frame": flipped, "paper": paper})
    assert not bad["holds"] and "0.75: N2 56.3%" in bad["ours"]


def test_li_figure3_bins_sum_to_100_on_a_sample():
    table = li.adult_table()
    small = table.take(np.arange(0, table.n_rows, 10))
    data = li.figure3(small, min_expectations=(0.9,))
    f = data["frame"]
    assert list(li.SHARE_COLUMNS) == ["N0", "N1", "N2", "N3", "N4", "N>=5"]
    assert f[list(li.SHARE_COLUMNS)].sum(axis=1).item() == pytest.approx(100.0)
    rules = data["rules"][0.9]
    k = rules.incompatible_counts(small)
    for i, col in enumerate(li.SHARE_COLUMNS[:-1]):
        assert f[col].item() == pytest.approx(100 * np.mean(k == i))
    assert f["N>=5"].item() == pytest.approx(100 * np.mean(k >= 5))
    assert isinstance(li.figure3_mode(data)["holds"], bool)


# ----------------------------------------------------------------------------- Jin, Tables 7-8
def test_jin_timing_claims_shape_and_ratios():
    census = ju.census_table(rows=1500, seed=1)
    t8 = jt.table8(census, repeat=2)
    assert list(t8.label) == list(jt.TABLE8_RUNS)
    assert (t8.min_s <= t8.median_s).all() and (t8.median_s <= t8.max_s).all()
    assert (t8.repeat == 2).all()
    adult = ju._sample(ju.adult_table(), 2000, 2)
    t7 = jt.table7(adult, k=10, m=3, repeat=2, reading="set")
    assert list(t7.label) == list(jt.TABLE7_RUNS) and set(t7.reading) == {"set"}
    claims = jt.check_claims(t7, t8)
    assert [c["table"] for c in claims].count(7) == 3
    assert [c["table"] for c in claims].count(8) == 7
    for c in claims:
        assert set(c) == {"table", "claim", "criterion", "paper_ratio", "ratio", "holds", "numbers"}
        assert isinstance(c["holds"], bool) and math.isfinite(c["ratio"])
    by = {c["claim"]: c for c in claims}
    much = by["Hilb++ runs much faster than Hilb"]
    assert much["ratio"] == pytest.approx(jt.ratio(t8, "Hilb", "Hilb++"))
    assert much["paper_ratio"] == pytest.approx(2.1 / 0.6)
    assert much["holds"] == (much["ratio"] >= jt.MUCH_FASTER)
    slower = by["MASK++ runs slower than MASK"]
    assert slower["holds"] == jt.faster(t7, "MASK", "MASK++")


def test_jin_timing_rules_on_fixed_numbers():
    f = pd.DataFrame(
        {
            "label": ["A", "B"],
            "median_s": [1.0, 3.0],
            "min_s": [0.9, 2.0],
            "max_s": [1.5, 4.0],
        }
    )
    assert jt.faster(f, "A", "B") and not jt.faster(f, "B", "A")
    assert jt.ratio(f, "B", "A") == 3.0
    f.loc[0, "max_s"] = 2.5  # ranges overlap: not "faster" beyond the noise
    assert not jt.faster(f, "A", "B")


def test_jin_timing_adapter_claims(monkeypatch):
    from anonlab.experiments.reproduce import jin as adapter

    small = ju.census_table(rows=1200, seed=3)
    adult = ju._sample(ju.adult_table(), 1500, 4)
    monkeypatch.setattr(ju, "census_table", lambda rows=None, seed=0: small)
    monkeypatch.setattr(ju, "adult_table", lambda: adult)
    monkeypatch.setattr(jt, "REPEAT", 1)
    res = PaperResult("jin", "jin")
    adapter._timing(res, 1200)
    timed = [c for c in res.claims if c.item.startswith("Table ")]
    assert len(timed) == 7 + 1 + 2 * (3 + 1)
    assert {c.reading for c in timed if c.item.startswith("Table 7")} == set(
        adapter.FIG7_READINGS.values()
    )
    for c in timed:
        assert c.kind == "paper"
        if "context" in c.item:
            assert c.passed is None and c.tolerance.kind == "reported"
        else:
            assert c.tolerance.kind == "holds" and isinstance(c.passed, bool)


# ----------------------------------------------------------------------------- Wong, Figs 1-3
def _figs() -> pd.DataFrame:
    rows = []
    for alg in ("anatomy", "mask", "t-closeness"):
        for r in (2, 10):
            for d in (3, 4, 5):
                rows.append(
                    {
                        "algorithm": alg,
                        "rule": "uniform-half",
                        "r": r,
                        "d": d,
                        "attack_seconds": 0.01 * d * (2 if r == 10 else 1),
                        "anonymize_seconds": 0.001 * (6 - d) if alg == "mask" else 0.001 * d,
                        "utility_error": 0.5 if alg == "t-closeness" else 0.05 * d,
                    }
                )
    return pd.DataFrame(rows)


def test_wong_timing_claims_computed():
    checks = wong.timing_claims(_figs())
    by = {c["claim"]: c for c in checks}
    assert by["anatomy, r=2: time for mining foreground knowledge increases with the QI size"]["ok"]
    assert not by["mask, r=2: execution time increases with the QI size"]["ok"]  # falls
    assert "t-closeness: execution time increases with the QI size" in by  # once, not per r
    assert "t-closeness, r=10: execution time increases with the QI size" not in by
    assert by["anatomy: mining time larger at r=10 than at r=2"]["ok"]
    assert "ratio 2.00" in by["mask: mining time larger at r=10 than at r=2"]["detail"]
    assert not any(c["claim"].startswith("t-closeness: mining time larger") for c in checks)
    assert {c["kind"] for c in checks} == {"mining", "execution", "mining-r"}


def _shared_figs() -> pd.DataFrame:
    """Rows as :func:`wong.figures` writes them: t-closeness made and attacked once, its
    measured times repeated in the rows of every r; ``injector-suppress`` suppressing nothing
    at r = 2 (Injector's releases) and 40 records at r = 10, where Injector refuses."""
    rows = []
    for i, alg in enumerate(("anatomy", "t-closeness", "injector", "injector-suppress")):
        for r in (2, 10):
            for d in (3, 4, 5):
                row = {"algorithm": alg, "r": r, "d": d, "suppressed_records": 0, "note": ""}
                if alg == "injector" and r == 10:
                    rows.append({**row, "note": "IneligibleError: refused"})
                    continue
                shared = alg == "t-closeness"  # the same run at every r
                row["attack_seconds"] = 0.01 * d * (1 if shared or r == 2 else 3) + 0.005 * i
                row["anonymize_seconds"] = 0.002 * d * (1 if shared or r == 2 else 2) + 0.005 * i
                row["problematic_sensitive"] = 0.1 * d
                if alg == "injector-suppress" and r == 10:
                    row["suppressed_records"] = 40
                rows.append(row)
    return pd.DataFrame(rows)


def test_wong_timing_claims_judge_a_shared_release_once():
    """t-closeness's release does not depend on r: one measurement, one claim per panel (not
    one per r, which counted the r = 2 times again as r = 10's)."""
    checks = wong.timing_claims(_shared_figs())
    names = [c["claim"] for c in checks]
    assert len(names) == len(set(names))
    mining = [c for c in checks if c["claim"].startswith("t-closeness") and c["kind"] == "mining"]
    assert [c["claim"] for c in mining] == [
        "t-closeness: time for mining foreground knowledge increases with the QI size"
    ]
    for kind in ("mining", "execution"):
        details = [c["detail"] for c in checks if c["kind"] == kind]
        assert len(details) == len(set(details)), kind  # no measurement judged twice


def test_wong_adapter_counts_each_time_claim_once():
    """The adapter leaves out injector-suppress's time claims where its releases are Injector's
    (as it does its other claims), and no claim is counted twice under a reading."""
    from anonlab.experiments.reproduce import wong as adapter

    figs = pd.concat(
        [_shared_figs().assign(rule=rule) for rule in adapter.rule_readings()], ignore_index=True
    )
    assert adapter.injector_repeats(_shared_figs()) == ("injector-suppress, r=2:",)
    res = PaperResult("wong", "Wong")
    adapter._time_claims(res, figs, "S")
    keys = [(c.item, str(c.paper_value), c.reading) for c in res.claims]
    assert len(keys) == len(set(keys))
    stated = {str(c.paper_value) for c in res.claims}
    assert not any(s.startswith("injector-suppress, r=2:") for s in stated)
    assert "injector, r=2: execution time increases with the QI size" in stated
    assert "injector-suppress, r=10: execution time increases with the QI size" in stated
    assert "injector-suppress: mining time larger at r=10 than at r=2" in stated
    for reading in adapter.rule_readings():
        timed = [c for c in res.claims if c.reading in ("", reading) and "(a)" in c.item]
        assert len({c.ours for c in timed}) == len(timed)


def test_wong_utility_claim():
    (c,) = wong.utility_claims(_figs())
    assert c["ok"] and "QI 5: t-closeness 0.500, next 0.250" in c["detail"]
    figs = _figs()
    figs.loc[figs.algorithm == "t-closeness", "utility_error"] = 0.0
    assert not wong.utility_claims(figs)[0]["ok"]
    assert wong.utility_claims(figs[figs.algorithm != "t-closeness"]) == []


def test_wong_figures_repeat_gives_median_and_range():
    df = wong.adult_frame()
    rows = np.random.default_rng(0).choice(len(df), size=3000, replace=False)
    frame = df.iloc[np.sort(rows)].reset_index(drop=True)
    figs = wong.figures(
        sizes=(3, 4), rs=(2,), algorithms=("mask",), frame=frame, min_support=300, n_queries=20,
        repeat=3,
    )  # fmt: skip
    for key in ("attack", "anonymize"):
        assert (figs[f"{key}_seconds_min"] <= figs[f"{key}_seconds"]).all()
        assert (figs[f"{key}_seconds"] <= figs[f"{key}_seconds_max"]).all()
    checks = wong.timing_claims(figs)
    assert len(checks) == 2 and all(isinstance(c["ok"], bool) for c in checks)
