"""Issue 17, item 3 (the audit's part): a quasi-identifier published as the set of its group
members' exact values is flagged by the audit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.anonymize import anatomy, mondrian
from anonlab.hierarchy import Hierarchy
from anonlab.report import audit
from anonlab.table import Table

DATES = [f"1960-01-{d:02d}" for d in range(1, 21)]


def _table(with_hierarchy: bool) -> Table:
    rng = np.random.default_rng(0)
    n = 80
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "born": rng.choice(DATES, n),
            "s": rng.choice(["a", "b", "c", "d"], n),
        }
    )
    hierarchies = {}
    if with_hierarchy:
        hierarchies["born"] = Hierarchy([[d, d[:7], "*"] for d in DATES], name="born")
    # read as text, not dates (a date would get its automatic hierarchy)
    return Table.from_frame(
        frame,
        quasi_identifiers=["age", "born"],
        sensitive="s",
        hierarchies=hierarchies,
        types={"born": "text"},
    )


def _checks(release):
    return audit(release, stages=["checks"]).finding("checks")


def test_value_sets_are_flagged_with_their_records():
    release = mondrian(_table(False), k=4, seed=0)
    finding = _checks(release)
    sets = release.generalization["born"].mask.sum(axis=1) >= 2
    expected = int(release.group_sizes[sets].sum())
    assert expected > 0
    assert finding.settings["value_sets"] == {"born": expected}
    assert f"born ({expected:,} records)" in finding.headline
    assert "exact values" in finding.headline


@pytest.mark.parametrize(
    "make",
    [
        lambda: mondrian(_table(True), k=4, seed=0),  # a hierarchy: nodes, not sets
        lambda: anatomy(_table(False), l=2, seed=0),  # bucketization: exact by design
    ],
)
def test_no_value_sets_no_flag(make):
    finding = _checks(make())
    assert finding.settings["value_sets"] == {}
    assert "exact values" not in finding.headline
