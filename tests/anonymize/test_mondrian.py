"""Mondrian: the numba kernel against a plain recursive reference of the documented rules."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.anonymize import anonymize, mondrian
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.table import Table

ADULT = Path("/work/shared/datasets/adult")
ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
]  # fmt: skip
ADULT_QI = [
    "age", "education-num", "hours-per-week", "marital-status", "race", "sex", "workclass",
]  # fmt: skip


# ---------------------------------------------------------------------- the reference
class Reference:
    """Strict Mondrian exactly as mondrian.py documents it, written for clarity, not speed.

    * attributes by decreasing normalized range (partition's code range / table's code range),
      ties by column order; attributes with zero range are never cut;
    * the cut value is the lower median m of the partition's codes; left = x <= m, or x < m when
      that leaves the right side empty;
    * a cut is allowable when both sides have >= k records and, for every constrained value v,
      l * count(v) <= size; if not, the next attribute is tried; no allowable cut -> a group.
    """

    def __init__(self, table: Table, k: int = 1, l: int = 1, sensitive_values=None):
        self.qi = table.qi_matrix()
        self.width = [table.domain_size(q) - 1 for q in table.quasi_identifiers]
        self.k, self.l = k, l
        if table.sensitive is None:
            self.sens = np.zeros(table.n_rows, dtype=int)
            self.constrained = {0: False}
        else:
            self.sens = table.codes[table.sensitive]
            mask = table.value_mask(table.sensitive, sensitive_values)
            self.constrained = dict(enumerate(mask.tolist()))

    def allowable(self, rows: list[int]) -> bool:
        if len(rows) < self.k:
            return False
        counts = Counter(self.sens[rows].tolist())
        return all(self.l * c <= len(rows) for v, c in counts.items() if self.constrained[v])

    def cut(self, rows: list[int], a: int) -> tuple[list[int], list[int]]:
        xs = sorted(int(self.qi[r, a]) for r in rows)
        m = xs[(len(xs) - 1) // 2]  # lower median
        left = [r for r in rows if self.qi[r, a] <= m]
        if len(left) == len(rows):
            left = [r for r in rows if self.qi[r, a] < m]
        in_left = set(left)
        right = [r for r in rows if r not in in_left]
        return left, right

    def order(self, rows: list[int]) -> list[int]:
        d = self.qi.shape[1]
        span = []
        for a in range(d):
            col = [int(self.qi[r, a]) for r in rows]
            span.append((max(col) - min(col)) / self.width[a] if self.width[a] > 0 else 0.0)
        return [a for a in sorted(range(d), key=lambda a: -span[a]) if span[a] > 0]

    def allowable_cut(self, rows: list[int]) -> int | None:
        """The attribute of the first allowable cut, or None."""
        for a in self.order(rows):
            left, right = self.cut(rows, a)
            if left and right and self.allowable(left) and self.allowable(right):
                return a
        return None

    def run(self) -> list[list[int]]:
        groups: list[list[int]] = []
        stack = [list(range(len(self.qi)))]
        while stack:
            rows = stack.pop()
            a = self.allowable_cut(rows)
            if a is None:
                groups.append(rows)
            else:
                left, right = self.cut(rows, a)
                stack += [right, left]
        return groups


# ---------------------------------------------------------------------- random tables
@st.composite
def tables(draw):
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 3))
    data = {}
    for j in range(d):
        if draw(st.booleans()):
            hi = draw(st.integers(0, 12))
            data[f"n{j}"] = draw(st.lists(st.integers(0, hi), min_size=n, max_size=n))
        else:
            pool = draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=7, unique=True))
            data[f"c{j}"] = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    data["s"] = draw(st.lists(st.sampled_from("pqrs"), min_size=n, max_size=n))
    qi = [c for c in data if c != "s"]
    return Table.from_frame(pd.DataFrame(data), quasi_identifiers=qi, sensitive="s")


def _eligible(table: Table, k: int, l: int, subset) -> bool:
    if table.n_rows < k:
        return False
    counts = Counter(table.column("s").tolist())
    constrained = counts if subset is None else {v: counts[v] for v in subset}
    return all(l * c <= table.n_rows for c in constrained.values())


def _groups(release) -> list[list[int]]:
    return [np.flatnonzero(release.group == g).tolist() for g in range(release.n_groups)]


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(1, 6), st.integers(1, 4), st.booleans(), st.data())
def test_kernel_equals_reference(table, k, l, use_subset, data):
    subset = None
    if use_subset:
        subset = data.draw(
            st.lists(st.sampled_from(sorted(set(table.column("s")))), min_size=1, unique=True)
        )
    use_k, use_l = data.draw(st.sampled_from([(True, False), (False, True), (True, True)]))
    kw = {"k": k if use_k else None, "l": l if use_l else None, "sensitive_values": subset}
    k_eff, l_eff = (k if use_k else 1), (l if use_l else 1)
    if not _eligible(table, k_eff, l_eff, subset if use_l else None):
        with pytest.raises(IneligibleError):
            mondrian(table, **kw)
        return
    r = mondrian(table, **kw)
    ref = Reference(table, k_eff, l_eff, subset)
    expected = ref.run()
    assert sorted(map(sorted, _groups(r))) == sorted(map(sorted, expected))
    # every group satisfies the model and admits no allowable cut
    for members in _groups(r):
        assert ref.allowable(members)
        assert ref.allowable_cut(members) is None


def test_reference_rules_on_a_hand_example():
    # One numeric QI 1..8, k = 2: median cuts 1-4 | 5-8, then 1-2 | 3-4 | 5-6 | 7-8.
    t = Table.from_frame(
        pd.DataFrame({"a": [8, 1, 7, 2, 6, 3, 5, 4], "s": list("qppqqppq")}),
        quasi_identifiers=["a"],
        sensitive="s",
    )
    r = mondrian(t, k=2)
    values = t.column("a")
    assert sorted(sorted(values[g].tolist()) for g in _groups(r)) == [
        [1, 2], [3, 4], [5, 6], [7, 8],
    ]  # fmt: skip
    # groups are numbered by first appearance in the input
    assert r.generalization["a"].labels.tolist() == ["[7-8]", "[1-2]", "[5-6]", "[3-4]"]
    # l = 2: the same cuts are allowable, every group is {p, q}
    r2 = mondrian(t, l=2)
    assert np.array_equal(r2.group, r.group)
    assert np.all(r2.sensitive_histogram.max(axis=1) == 1)
    # k = 3: 1-4 | 5-8 only
    assert sorted(mondrian(t, k=3).group_sizes.tolist()) == [4, 4]


def test_fallback_cut_below_a_heavy_maximum():
    # Lower median is 5 = the maximum, so the cut is x < 5: {1, 2, 3} | {5 x 5}.
    t = Table.from_frame(
        pd.DataFrame({"a": [5, 1, 5, 2, 5, 3, 5, 5], "s": list("pqrspqrs")}),
        quasi_identifiers=["a"],
        sensitive="s",
    )
    r = mondrian(t, k=3)
    assert sorted(r.group_sizes.tolist()) == [3, 5]
    assert r.generalization["a"].labels.tolist() == ["5", "[1-3]"]


def test_widest_normalized_range_is_cut_first():
    # Root: a and b both span their whole domain -> tie -> a (column order), cut at a <= 1.
    # In each half a spans 1/3 of its domain and b all of it -> b is cut next, although the
    # raw ranges are equal (1 and 1) and a raw-range rule would cut a again.
    t = Table.from_frame(
        pd.DataFrame(
            {"a": [0, 0, 1, 1, 2, 2, 3, 3], "b": [0, 1, 0, 1, 0, 1, 0, 1], "s": list("pqqppqqp")}
        ),
        quasi_identifiers=["a", "b"],
        sensitive="s",
    )
    r = mondrian(t, k=2)
    gen = r.generalization
    assert set(zip(gen["a"].labels, gen["b"].labels, strict=True)) == {
        ("[0-1]", "0"), ("[0-1]", "1"), ("[2-3]", "0"), ("[2-3]", "1"),
    }  # fmt: skip
    # Column order breaks the root tie: with b first, b is cut at the root.
    t2 = t.with_roles(["b", "a"], "s")
    gen2 = mondrian(t2, k=4).generalization
    assert sorted(gen2["b"].labels.tolist()) == ["0", "1"]
    assert gen2["a"].labels.tolist() == ["[0-3]", "[0-3]"]
    assert sorted(mondrian(t, k=4).generalization["a"].labels.tolist()) == ["[0-1]", "[2-3]"]


def test_next_attribute_is_tried_when_the_widest_cut_is_not_allowable():
    def table(sens):
        return Table.from_frame(
            pd.DataFrame({"a": [0, 0, 9, 9], "b": [0, 1, 0, 1], "s": sens}),
            quasi_identifiers=["a", "b"],
            sensitive="s",
        )

    # a is tried first (tie, column order); its cut is 2-diverse here ...
    r = mondrian(table(["p", "q", "p", "q"]), l=2)
    assert sorted(r.generalization["a"].labels.tolist()) == ["0", "9"]
    # ... but not here ({p, p} | {q, q}), so the cut is revoked and b is cut instead.
    r = mondrian(table(["p", "p", "q", "q"]), l=2)
    assert r.n_groups == 2
    assert sorted(r.generalization["b"].labels.tolist()) == ["0", "1"]
    assert r.generalization["a"].labels.tolist() == ["[0-9]", "[0-9]"]


# ---------------------------------------------------------------------- options and errors
@pytest.fixture
def small():
    rng = np.random.default_rng(4)
    return Table.from_frame(
        pd.DataFrame(
            {
                "age": rng.integers(20, 60, 50),
                "city": rng.choice(["a", "b", "c", "d"], 50),
                "s": rng.choice(["p", "q", "r"], 50),
            }
        ),
        quasi_identifiers=["age", "city"],
        sensitive="s",
    )


def test_bucketization_scheme_option(small):
    g = mondrian(small, k=4)
    b = mondrian(small, k=4, scheme="bucketization")
    assert g.scheme == "generalization" and b.scheme == "bucketization"
    assert b.manifest["scheme"] == "bucketization"
    assert np.array_equal(g.group, b.group)
    assert b.published().generalization is None
    with pytest.raises(AnonlabError, match="'scheme'"):
        mondrian(small, k=4, scheme="suppression")


def test_no_model_raises(small):
    with pytest.raises(AnonlabError, match="privacy model"):
        mondrian(small)
    with pytest.raises(AnonlabError, match="privacy model"):
        anonymize(small, "mondrian", k=None, l=None)


def test_k_larger_than_n_raises(small):
    assert mondrian(small, k=50).n_groups == 1
    with pytest.raises(IneligibleError, match=r"k = 51 .*\(50 records\).* largest k is 50"):
        mondrian(small, k=51)


def test_ineligible_l_raises_naming_value(small):
    counts = Counter(small.column("s").tolist())
    value, top = counts.most_common(1)[0]
    l_max = small.n_rows // top
    assert mondrian(small, l=l_max).n_groups >= 1
    with pytest.raises(
        IneligibleError, match=rf"'{value}'.*largest ℓ this table allows is {l_max}"
    ):
        mondrian(small, l=l_max + 1)


@pytest.mark.parametrize(
    "kw, name",
    [({"k": 0}, "k"), ({"k": "3"}, "k"), ({"l": 0}, "l"), ({"l": 2.5}, "l"),
     ({"k": 2, "seed": -1}, "seed")],
)  # fmt: skip
def test_bad_parameters_raise(small, kw, name):
    with pytest.raises(AnonlabError, match=f"parameter '{name}'"):
        mondrian(small, **kw)


@pytest.mark.parametrize("kw", [{"l": 2}, {"k": 2, "sensitive_values": ["x"]}])
def test_table_without_sensitive_attribute_raises(kw):
    t = Table.from_frame(pd.DataFrame({"a": range(10)}), quasi_identifiers=["a"])
    with pytest.raises(AnonlabError, match="sensitive"):
        mondrian(t, **kw)


def test_plain_k_anonymity_needs_no_sensitive_attribute():
    t = Table.from_frame(pd.DataFrame({"a": range(10)}), quasi_identifiers=["a"])
    release = mondrian(t, k=2)
    # median cuts: 10 -> 5 + 5 -> (2 + 3) + (2 + 3); a group of 3 cannot be cut into two of 2
    assert sorted(release.group_sizes.tolist()) == [2, 2, 3, 3]


def test_empty_sensitive_values_constrains_nothing():
    t = Table.from_frame(
        pd.DataFrame({"a": [1, 2, 3, 4], "s": ["x", "x", "x", "z"]}),
        quasi_identifiers=["a"],
        sensitive="s",
    )
    assert mondrian(t, l=2, sensitive_values=[]).n_groups == 4
    with pytest.raises(IneligibleError, match="'x'"):
        mondrian(t, l=2)


def test_manifest(small):
    r = mondrian(small, l=2, sensitive_values=["p"], seed=3)
    assert r.manifest["algorithm"] == "mondrian"
    assert r.manifest["parameters"] == {"k": None, "l": 2, "sensitive_values": ["p"]}
    assert r.manifest["seed"] == 3
    r2 = mondrian(small, k=3, l=2)
    assert r2.manifest["parameters"]["k"] == 3
    assert np.all(r2.group_sizes >= 3)
    assert np.all(2 * r2.sensitive_histogram.max(axis=1) <= r2.group_sizes)


# ---------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def adult():
    """adult.data + adult.test with '?' rows dropped: 45,222 records (the literature's Adult)."""
    frames = [
        pd.read_csv(
            ADULT / name,
            header=None,
            names=ADULT_COLUMNS,
            skipinitialspace=True,
            na_values="?",
            keep_default_na=False,
        )
        for name in ("adult.data", "adult.test")
    ]
    df = pd.concat(frames, ignore_index=True)
    df = df.dropna().reset_index(drop=True)  # any '?' in any column, as the papers do
    return Table.from_frame(df, quasi_identifiers=ADULT_QI, sensitive="occupation")


def test_adult_k10_at_least_anonypy_class_count(adult):
    # anonypy 0.2.1's Mondrian gives 2,410 classes at k = 10 on these 45,222 records with these
    # QIs; strict Mondrian over ordered codes must do at least as well.
    assert adult.n_rows == 45_222
    r = mondrian(adult, k=10)
    assert r.n_groups >= 2_410
    assert r.group_sizes.min() >= 10


def test_adult_sample_kernel_equals_reference(adult):
    rows = np.random.default_rng(0).choice(adult.n_rows, 1_500, replace=False)
    sample = adult.take(np.sort(rows))
    for kw in ({"k": 5}, {"l": 3}, {"k": 4, "l": 2}):
        r = mondrian(sample, **kw)
        ref = Reference(sample, kw.get("k", 1), kw.get("l", 1))
        assert sorted(map(sorted, _groups(r))) == sorted(map(sorted, ref.run())), kw
