"""Kifer §6 reproduction, small versions: the releases' shapes and the attack's margin."""

from __future__ import annotations

import numpy as np
import pytest

from anonlab.experiments import kifer


@pytest.fixture(scope="module")
def table():
    return kifer.adult_table()


def test_adult_train_shape(table):
    assert table.n_rows == 30_162
    assert [table.domain_size(a) for a in kifer.ATTRIBUTES] == [7, 6, 2, 2]
    assert table.domain_size(kifer.SENSITIVE) == 14


@pytest.mark.parametrize("grouping", kifer.GROUPINGS)
@pytest.mark.parametrize(("l", "sizes"), [(2, {2: 15081}), (3, {3: 10054}), (4, {4: 7538, 5: 2})])
def test_groupings_are_l_diverse_with_the_papers_sizes(table, grouping, l, sizes):
    rel = kifer.release_for(table, l, grouping, seed=1)
    got = dict(zip(*np.unique(rel.group_sizes, return_counts=True), strict=True))
    assert {int(k): int(v) for k, v in got.items()} == sizes
    assert rel.sensitive_histogram.max() == 1  # distinct values in every group
    assert np.array_equal(
        rel.sensitive_histogram.sum(axis=0), np.bincount(table.codes[kifer.SENSITIVE])
    )


def test_small_table7_run_beats_the_baseline(table):
    res = kifer.run(table, 2, targets=300, chains=2, sweeps=30, grouping_seed=0)
    assert res["baseline_ACC"] == pytest.approx(0.5)
    assert res["baseline_ABS"] == pytest.approx(300.0)
    assert res["ACC"] >= res["baseline_ACC"] + 0.2
    assert res["ACC_min"] <= res["ACC_max"] and res["ACC_min"] >= res["baseline_ACC"]
    summ = kifer.summary(
        kifer.table7(
            ls=(2,),
            groupings=("anatomize",),
            grouping_seeds=(0,),
            targets=300,
            chains=2,
            sweeps=20,
            table=table,
        )
    )
    assert bool(summ.loc[0, "goal: ACC ≥ base + margin"])
