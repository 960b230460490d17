"""Multi-attribute ℓ-diversity (Machanavajjhala et al.): a hand-computed table, brute force on
random tables, and the one-attribute case equal to frequency ℓ-diversity."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import Release, Table, models
from anonlab.errors import AnonlabError


def _table(rows, sensitive=("dx", "ins")) -> Table:
    df = pd.DataFrame(rows, columns=["age", "dx", "ins", "job"])
    keep = ["age", *sensitive]
    return Table.from_frame(df[keep], quasi_identifiers=["age"], sensitive=list(sensitive))


def test_hand_computed_groups():
    """Group 0: four records, dx {flu, flu, hiv, hiv}, ins {a, a, b, b}, paired (flu, a),
    (flu, a), (hiv, b), (hiv, b): knowing the insurer gives the diagnosis (each part is one
    diagnosis), so 2-diversity fails though each attribute alone is 2-diverse. Group 1: the
    pairs crossed, (flu, a), (hiv, a), (flu, b), (hiv, b): each part of two records holds two
    values, 2-diverse."""
    rows = [
        (1, "flu", "a", 0), (1, "flu", "a", 0), (1, "hiv", "b", 0), (1, "hiv", "b", 0),
        (2, "flu", "a", 0), (2, "hiv", "a", 0), (2, "flu", "b", 0), (2, "hiv", "b", 0),
    ]  # fmt: skip
    table = _table(rows)
    release = Release(table, [0, 0, 0, 0, 1, 1, 1, 1], "generalization")
    result = models.check(release, "multi-attribute-l-diversity", l=2)
    assert not result.holds
    assert result.violating_groups.tolist() == [0]
    assert result.per_group.tolist() == [1.0, 2.0]
    assert result.violating_records == 4
    assert result.details["violating_groups_per_attribute"] == {"dx": 1, "ins": 1}
    assert models.check(release, "l-diversity", l=2).holds  # each attribute alone


@st.composite
def releases(draw, count: int | None = None):
    """(release, frame, names) with ``count`` sensitive attributes (default: 1 to 3, drawn)."""
    n = draw(st.integers(1, 30))
    rows = [
        (i, draw(st.sampled_from("abc")), draw(st.sampled_from("xy")), draw(st.sampled_from("pq")))
        for i in range(n)
    ]
    df = pd.DataFrame(rows, columns=["age", "s1", "s2", "s3"])
    k = count if count is not None else draw(st.integers(1, 3))  # sensitive attributes used
    names = ["s1", "s2", "s3"][:k]
    table = Table.from_frame(df[["age", *names]], quasi_identifiers=["age"], sensitive=names)
    group = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    return Release(table, group, "generalization"), df, names


def _brute_force(release: Release, df: pd.DataFrame, names: list[str], l: int) -> dict:
    """Per group: the least |P| / S_max(P) over attributes and parts, and whether some part
    violates, by listing the records."""
    out = {}
    for g in range(release.n_groups):
        rows = df[np.asarray(release.group) == g]
        least, bad = np.inf, False
        for a in names:
            others = [b for b in names if b != a]
            parts = rows.groupby(others) if others else [((), rows)]
            for _, part in parts:
                counts = Counter(part[a])
                s_max = max(counts.values())
                least = min(least, len(part) / s_max)
                bad |= l * s_max > len(part)
        out[g] = (least, bad)
    return out


@settings(max_examples=80, deadline=None)
@given(releases(), st.integers(1, 3))
def test_brute_force(case, l):
    release, df, names = case
    result = models.check(release, "multi-attribute-l-diversity", l=l)
    expected = _brute_force(release, df, names, l)
    assert result.per_group.tolist() == pytest.approx([expected[g][0] for g in expected])
    assert result.violating_groups.tolist() == [g for g in expected if expected[g][1]]


@settings(max_examples=40, deadline=None)
@given(releases(count=1), st.integers(1, 3))
def test_one_attribute_is_frequency_l_diversity(case, l):
    release, _, names = case
    assert len(names) == 1
    ours = models.check(release, "multi-attribute-l-diversity", l=l)
    plain = models.check(release, "l-diversity", l=l)
    assert ours.holds == plain.holds
    assert ours.violating_groups.tolist() == plain.violating_groups.tolist()
    assert ours.per_group.tolist() == pytest.approx(np.asarray(plain.per_group).tolist())


def test_stricter_than_each_attribute_and_in_the_default_checks():
    """Every group that fails one attribute's ℓ-diversity fails the multi-attribute model, and
    the audit's checks include it for a release with several sensitive attributes."""
    rng = np.random.default_rng(1)
    rows = [(int(a), str(d), str(i), 0) for a, d, i in
            zip(rng.integers(0, 40, 300), rng.choice(list("abcd"), 300),
                rng.choice(list("xyz"), 300), strict=True)]  # fmt: skip
    table = _table(rows)
    release = Release(table, np.asarray(table.codes["age"]) // 4, "generalization")
    multi = models.check(release, "multi-attribute-l-diversity", l=2)
    for a in ("dx", "ins"):
        single = models.check(release.for_sensitive(a), "l-diversity", l=2)
        assert set(single.violating_groups.tolist()) <= set(multi.violating_groups.tolist())
    from anonlab.models.defaults import default_checks

    assert "multi-attribute-l-diversity" in [r.model for r in default_checks(release)]
    one = Release(_table(rows, ("dx",)), release.group, "generalization")
    assert "multi-attribute-l-diversity" not in [r.model for r in default_checks(one)]


def test_a_search_candidate_is_refused():
    rows = [(a, "flu", "x", 0) for a in range(4)]
    table = _table(rows)
    candidate = Release._from_statistics(table, 1, np.array([4]), lambda: np.zeros((1, 2)))
    with pytest.raises(AnonlabError, match="per-record groups"):
        models.check(candidate, "multi-attribute-l-diversity", l=2)
