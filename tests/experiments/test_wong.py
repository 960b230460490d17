"""Wong et al. §5 reproduction: small-data checks of facts that hold by theory (not timings)."""

from __future__ import annotations

import numpy as np
import pytest

from anonlab.attacks.foreground import SMALL_SIGNATURE
from anonlab.experiments import wong


@pytest.fixture(scope="module")
def frame():
    df = wong.adult_frame()
    rows = np.random.default_rng(0).choice(len(df), size=5000, replace=False)
    return df.iloc[np.sort(rows)].reset_index(drop=True)


@pytest.fixture(scope="module")
def tables(frame):
    return wong.adult_tables(4, frame=frame)  # QI size 4: Occupation for the case study


@pytest.fixture(scope="module")
def release(tables):
    table, merged = tables
    return wong.anatomy_release(table, merged, 2, seed=0)


def _attack(release, rule="uniform-half"):
    # J = 3993 prunes almost everything on 5,000 rows; 400 keeps the sample meaningful
    return wong.attack(release, rule=rule, min_support=400)


def test_full_adult_low_education_count():
    table, merged = wong.adult_tables(3)
    assert table.n_rows == 45222
    assert int(wong.is_low(table).sum()) == 1566
    assert int((merged.column(wong.SENSITIVE) == wong.MERGED).sum()) == 1566


def test_merged_table_keeps_rows_and_labels(tables):
    table, merged = tables
    assert merged.n_rows == table.n_rows
    orig = table.column(wong.SENSITIVE)
    new = merged.column(wong.SENSITIVE)
    low = np.isin(orig, wong.LOW_EDUCATION)
    assert np.all(new[low] == wong.MERGED)
    assert np.all(new[~low] == orig[~low])


@pytest.mark.parametrize("reading", wong.READINGS)
@pytest.mark.parametrize("l", [2, 3])
def test_anatomy_reading_guarantees(tables, reading, l):
    table, merged = tables
    rel = wong.anatomy_release(table, merged, l, reading=reading, seed=1)
    assert rel.table is table  # original values are published
    low = wong.is_low(table)
    per_group = np.bincount(rel.group, weights=low, minlength=rel.n_groups)
    sizes = np.bincount(rel.group)
    assert per_group.max() <= 1  # at most one low-education record per group (both readings)
    assert sizes.min() >= l
    if reading == "set-only":
        assert sizes.max() <= l + 1
    else:  # every merged label at most once per group
        lab = merged.codes[wong.SENSITIVE]
        pairs = np.unique(np.stack([rel.group, lab], axis=1), axis=0)
        assert len(pairs) == table.n_rows


@pytest.mark.parametrize("rule", SMALL_SIGNATURE)
def test_attack_theory(release, rule):
    res = _attack(release, rule)
    assert np.all(res.p_star >= res.baseline - 1e-12)
    assert np.all((res.p_star >= 0) & (res.p_star <= 1))
    m = wong.measures(release, res, 2)
    for key in ("recall", "false_positive"):
        assert 0.0 <= m[key] <= 1.0
    # one low record in a group of 2-3: the random-world baseline is 1/|G|
    assert 1 / 3 - 1e-12 <= m["average_baseline"] <= 0.5 + 1e-12
    assert m["average_breach"] >= m["average_baseline"] - 1e-12
    # every group's probabilities sum to its count of x under each attribute set
    low = wong.is_low(release.table)
    for dist in res.distributions[:3]:
        from anonlab.attacks.foreground import breach_probabilities

        p = breach_probabilities(release, dist)
        np.testing.assert_allclose(
            np.bincount(release.group, weights=p), np.bincount(release.group, weights=low)
        )


def test_measures_and_delta(release):
    res = _attack(release)
    acc = wong.mined_accuracy(release, res)
    assert acc["signatures"] >= 1
    assert acc["mean_relative_error"] >= 0
    assert 0 <= acc["mean_absolute_error"] <= 1
    delta = wong.average_delta(release, res)
    assert 0 <= delta <= 1
    truth, inv = wong.true_distribution(release, ("occupation",))
    np.testing.assert_allclose(
        np.bincount(inv, weights=truth[inv]).sum() / 1, wong.is_low(release.table).sum()
    )


def test_case_study_formula(release):
    res = _attack(release)
    case = wong.case_study(res, release)
    assert case["posterior_paper_values"] == pytest.approx(0.671233, abs=1e-6)
    assert 0 <= case["posterior_mined"] <= 1


def test_mask_release_maps_back(tables):
    table, merged = tables
    rel = wong.mask_release(table, merged, 2, seed=0)
    assert rel.table is table
    pub = rel.sensitive_codes
    low_mask = table.value_mask(wong.SENSITIVE, list(wong.LOW_EDUCATION))
    # perturbation only turns low records into non-low ones
    changed = pub != table.codes[wong.SENSITIVE]
    assert np.all(wong.is_low(table)[changed])
    assert not np.any(low_mask[pub[changed]])
    # m-confidentiality of the set as one value: at most |G|/2 published low per group
    n_low = np.bincount(rel.group, weights=low_mask[pub], minlength=rel.n_groups)
    assert np.all(n_low <= np.bincount(rel.group) / 2 + 1e-12)


def test_check_claims_structure():
    import pandas as pd

    head = pd.DataFrame(
        [
            {"l": 2, "d": 5, "average_breach": 0.89, "recall": 1.0, "false_positive": 0.01},
            {"l": 4, "d": 5, "average_breach": 0.46, "recall": 1.0, "false_positive": 0.01},
        ]
    )
    claims = wong.check_claims(head, n_sensitive=1566)
    assert all(set(c) == {"claim", "ok", "detail"} for c in claims)
    assert all(c["ok"] for c in claims)


def test_figures_injector_branch_matches_direct_attack(frame):
    """The Injector rows of the sweep equal the attack run directly on the same Injector
    release; a refused setting (ℓ = 10: records no bucket protects) is a row with the reason."""
    figs = wong.figures(
        sizes=(4,),
        rs=(2, 10),
        algorithms=("injector", "injector-suppress"),
        frame=frame,
        min_support=400,
        n_queries=20,
    )
    row = figs[(figs.algorithm == "injector") & (figs.r == 2)].iloc[0]
    assert 0.0 <= row.problematic_sensitive <= 1.0
    assert 0.0 <= row.false_positive <= 1.0
    table, merged = wong.adult_tables(4, hierarchy_set=wong.HIERARCHY_SET, frame=frame)
    rel = wong.injector_release(table, merged, 2)
    assert rel.table is table and rel.manifest["algorithm"] == "injector"
    res = wong.attack(rel, min_support=400)
    low = wong.is_low(table)
    direct = float((res.problematic(2) & low).sum() / low.sum())
    assert row.problematic_sensitive == pytest.approx(direct, abs=1e-12)
    assert row.average_breach == pytest.approx(res.p_star[low].mean(), abs=1e-12)
    assert row.groups == rel.n_groups and row.suppressed_records == 0
    # Injector at ℓ = 2 on the merged labels: every group holds at most one low record
    per_group = np.bincount(rel.group, weights=low, minlength=rel.n_groups)
    assert per_group.max() <= 1
    refused = figs[(figs.algorithm == "injector") & (figs.r == 10)].iloc[0]
    assert refused.note.startswith("IneligibleError") and np.isnan(refused.problematic_sensitive)
    sup = figs[(figs.algorithm == "injector-suppress") & (figs.r == 10)].iloc[0]
    n_bad = int(refused.note.split(":")[1].split(" of ")[0])  # "375 of 5000 records ..."
    assert sup.suppressed_records == n_bad > 0
    assert 0 <= sup.suppressed_sensitive <= sup.suppressed_records
    claims = wong.check_claims(figs=figs)
    assert any(
        c["claim"] == "injector, r=10: a release at every QI size" and not c["ok"] for c in claims
    )


def test_best_mate_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(20):
        group = rng.integers(0, 6, size=25)
        f = rng.integers(0, 4, size=25) / 4  # many ties
        mate = wong.best_mate(group, f)
        for i in range(25):
            others = [j for j in range(25) if group[j] == group[i] and j != i]
            if not others:
                assert mate[i] == -1
            else:
                assert f[mate[i]] == max(f[j] for j in others) and mate[i] in others


def test_recall_diagnosis_partitions_missed(release):
    res = _attack(release)
    causes, summary = wong.recall_diagnosis(release, res, 2)
    low = wong.is_low(release.table)
    missed = int((low & ~res.problematic(2)).sum())
    assert summary["missed"] == missed == causes.records.sum()
    assert summary["recall"] == pytest.approx(res.score(release, 2)["recall"], abs=1e-12)
    # in a group of two, p > 1/2 exactly when the own f is larger: a missed record never has
    # the larger f, so the last cause is empty, and every tie sits at exactly 1/2
    if release.group_sizes.max() == 2:
        assert causes.records.iloc[4] == 0
    ties = int(causes.records.iloc[:2].sum())
    assert summary["missed_at_exactly_1_over_r"] >= ties
    # the ≥ option flags every record the strict comparison flags, and the ties too
    strict = wong.measures(release, res, 2)
    loose = wong.measures(release, res, 2, at_least=True)
    assert loose["recall"] >= strict["recall"]
    assert loose["recall"] * low.sum() >= strict["recall"] * low.sum() + ties - 1e-9
