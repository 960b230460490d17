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


def _brute_force_exact(release, q: str) -> int:
    """Records in groups whose members all share one value of ``q`` (counted row by row)."""
    frame = pd.DataFrame({"g": release.group, "v": release.table.codes[q]})
    distinct = frame.groupby("g")["v"].nunique()
    return int(frame["g"].map(distinct).eq(1).sum())


def test_exact_values_are_counted_per_quasi_identifier():
    release = mondrian(_table(True), k=4, seed=0)
    finding = _checks(release)
    expected = {q: _brute_force_exact(release, q) for q in ("age", "born")}
    assert 0 < sum(expected.values()) < 2 * release.table.n_rows  # some, not all
    assert finding.settings["exact_values"] == {q: n for q, n in expected.items() if n}
    for q, n in expected.items():
        assert (f"{q} ({n:,} records)" in finding.headline) == (n > 0)
    assert "published as an exact value" in finding.headline
    # a bucketized release publishes its QI table exactly by design: not counted here
    assert _checks(anatomy(_table(False), l=2, seed=0)).settings["exact_values"] == {}


def test_exact_values_of_a_full_domain_release_count_single_value_nodes():
    from anonlab.anonymize import generalize

    born = Hierarchy(
        [[d, d[:7] if d < "1960-01-15" else d, "*"] for d in DATES], name="born"
    )  # from the 15th on, level 1 keeps each day: a node of one value
    age = Hierarchy.intervals(list(range(20, 70)), [10])
    table = Table.from_frame(
        _table(False).to_frame(),
        quasi_identifiers=["age", "born"],
        sensitive="s",
        hierarchies={"born": born, "age": age},
        types={"born": "text"},
    )
    release = generalize(table, {"age": 1, "born": 1})
    exact = _checks(release).settings["exact_values"]
    late = int((table.column("born") >= "1960-01-15").sum())
    assert exact == {"born": late}
