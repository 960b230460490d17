"""MASK+ / MASK++ with a protected subset of sensitive values (Jin et al. §6.3, notes E10; issue
18 part 5): only the protected values are capped, the look-ahead stops only while one of them is
unread, and every output is m-confidential over the subset (or over the set as one value).

The reference is a plain-Python transcription of the module docstring's algorithm, checked
exhaustively on every small histogram; the table-level tests brute-force small random tables."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.anonymize import anonymize
from anonlab.anonymize.mask_plus import local_look_ahead, mask_plus, mask_plus_plus
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.grouping import group_histogram
from anonlab.models import check
from anonlab.table import Table


def reference(freq: list[int], m: int, protected: list[bool]) -> list[int] | None:
    """One group, ``fill="paper"``: Algorithm 3 (fixed) with the read test applied only while a
    protected value is unread, ties protected-first then by code, the capped fill as printed
    and the rest to the first unprotected Type-2 value from the top. None if infeasible."""
    size, d = sum(freq), len(freq)
    cap = size // m
    order = sorted(range(d), key=lambda v: (freq[v], not protected[v], v))
    f = [freq[v] for v in order]
    r = d
    for i in range(2, d):  # 1-based i = 2 .. D-1
        if not any(protected[v] for v in order[i - 1 :]):
            break  # every protected value read: nothing left can violate
        if size - sum(f[: i - 1]) - f[i - 2] > cap * (d - i):
            r = i - 1
            break
    if r == d:
        return list(freq)
    out = f[:r] + [f[r - 1]] * (d - r)
    residual = size - sum(out)
    for j in range(d - 1, r - 1, -1):  # from the most frequent down
        add = max(min(cap - out[j], residual), 0)
        out[j] += add
        residual -= add
    if residual:
        free = [j for j in range(d - 1, r - 1, -1) if not protected[order[j]]]
        if not free:
            return None
        out[free[0]] += residual
    published = [0] * d
    for pos, v in enumerate(order):
        published[v] = out[pos]
    return published


def histograms(d: int, size: int):
    for cut in itertools.combinations(range(size + d - 1), d - 1):
        bounds = (-1, *cut, size + d - 1)
        yield [bounds[i + 1] - bounds[i] - 1 for i in range(d)]


@pytest.mark.parametrize("m", [2, 3])
def test_look_ahead_matches_the_reference_on_every_small_histogram(m):
    """Every histogram over 4 values with 2..8 records, every non-empty protected set: the
    vectorised look-ahead equals the reference; protected values end at most ⌊|G|/m⌋; an
    unprotected value may exceed it; nothing changes unless a protected value was unread."""
    d = 4
    seen_uncapped = 0
    for protected in itertools.product([False, True], repeat=d):
        if not any(protected):
            continue
        mask = np.array(protected)
        for size in range(2, 9):
            hists = list(histograms(d, size))
            want = [reference(h, m, list(protected)) for h in hists]
            feasible = [w is not None for w in want]
            hist = np.array([h for h, ok in zip(hists, feasible, strict=True) if ok]).reshape(-1, d)
            if not len(hist):
                continue
            got, _ = local_look_ahead(hist, m, sensitive=mask, check_feasible=False)
            expect = np.array([w for w in want if w is not None])
            assert np.array_equal(got, expect), (protected, size)
            cap = size // m
            assert (got[:, mask] <= cap).all()
            assert (got.sum(axis=1) == size).all()
            seen_uncapped += int((got[:, ~mask] > cap).any()) if (~mask).any() else 0
    assert seen_uncapped > 0  # unprotected values are not capped


def test_every_value_protected_is_the_printed_algorithm():
    rng = np.random.default_rng(0)
    hist = rng.integers(0, 6, size=(200, 6))
    hist = hist[hist.sum(axis=1) // 3 * 5 >= hist.sum(axis=1)]  # E8-feasible at m = 3
    a, ra = local_look_ahead(hist, 3)
    b, rb = local_look_ahead(hist, 3, sensitive=np.ones(6, dtype=bool))
    assert np.array_equal(a, b) and np.array_equal(ra, rb)


def one_group(values: list[str], **kw) -> Table:
    """All records share one QI value, so the k-anonymization is one group."""
    return Table.from_frame(
        pd.DataFrame({"x": [1] * len(values), "s": values}), quasi_identifiers=["x"], sensitive="s"
    )


def test_unprotected_value_over_the_cap_is_published_as_is():
    """6 records, m = 2 (cap 3): b holds 4. Protecting {a} (1 record): a is read first, then
    nothing protected is unread, so the group is published as is. Capping every value (the
    paper's formalization): a, c, b = 1, 1, 4; reading c fails ((6−1−1)/1 = 4 > 3), r = 1, c and
    b start at 1 and fill from the top: b 3, c 2."""
    t = one_group(["a", "b", "b", "b", "b", "c"])
    sub = mask_plus(t, 6, 2, sensitive_values=["a"])
    assert np.array_equal(sub.sensitive_codes, t.codes["s"])
    assert sub.manifest["perturbed_groups"] == 0
    every = mask_plus(t, 6, 2)
    assert np.bincount(every.sensitive_codes, minlength=3).tolist() == [1, 3, 2]


def test_set_as_one_value_caps_the_set_total():
    """6 records, m = 2 (cap 3): x 2, y 2, b 1, c 1. Each of x, y is within the cap, so the
    per-value subset publishes the group as is; as one value the set holds 4 > 3. Merged
    histogram (b, c, {x,y}) = (1, 1, 4): f_1 = b; reading c fails ((6−1−1)/1 = 4 > 3), so r = 1,
    Type-2 c and the set start at 1 and fill from the top: set 3, c 2."""
    values = ["x", "x", "y", "y", "b", "c"]
    t = one_group(values)
    per_value = mask_plus(t, 6, 2, sensitive_values=["x", "y"])
    assert np.array_equal(per_value.sensitive_codes, t.codes["s"])
    for seed in range(5):
        one = mask_plus(t, 6, 2, sensitive_values=["x", "y"], as_one_value=True, seed=seed)
        labels = t.values["s"][one.sensitive_codes]
        assert sorted(labels) == sorted(["b", "c", "c"] + list(labels[np.isin(labels, ["x", "y"])]))
        assert np.isin(labels, ["x", "y"]).sum() == 3 and (labels == "c").sum() == 2
        # only a protected record moved: b and c records keep their values
        keep = ~np.isin(np.array(values), ["x", "y"])
        assert np.array_equal(labels[keep], np.array(values)[keep])
        assert one.manifest["parameters"]["as_one_value"] is True
        assert one.manifest["parameters"]["sensitive_values"] == ["x", "y"]


@st.composite
def tiny_tables(draw):
    n = draw(st.integers(4, 14))
    d = draw(st.integers(3, 5))
    codes = draw(st.lists(st.integers(0, d - 1), min_size=n, max_size=n))
    xs = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    labels = [chr(ord("a") + c) for c in codes]
    present = sorted(set(labels))
    subset = draw(st.lists(st.sampled_from(present), min_size=1, unique=True))
    t = Table.from_frame(
        pd.DataFrame({"x": xs, "s": labels}), quasi_identifiers=["x"], sensitive="s"
    )
    return t, subset


@settings(max_examples=80, deadline=None)
@given(tiny_tables(), st.integers(2, 3), st.booleans(), st.integers(0, 3))
def test_outputs_are_m_confidential_over_the_subset(case, m, as_one, seed):
    """Brute force over small random tables: MASK+ and MASK++ with a subset (each value or the
    set as one) meet the frequency condition over it; MASK+ changes no record of a group whose
    published histogram equals the original, and keeps the k-anonymization's groups."""
    t, subset = case
    k = m
    try:
        plus = mask_plus(t, k, m, sensitive_values=subset, as_one_value=as_one, seed=seed)
    except IneligibleError:
        return  # E8 (at most one unprotected value) or |D_S| <= m
    plus2 = mask_plus_plus(t, k, m, sensitive_values=subset, as_one_value=as_one, seed=seed)
    in_set = t.value_mask("s", subset)
    for r in (plus, plus2):
        if as_one:
            count = r.sensitive_histogram[:, in_set].sum(axis=1)
            assert (count <= r.group_sizes // m).all()
        else:
            assert check(r, "m-confidentiality", m=m, sensitive_values=subset).holds
        assert r.sensitive_codes.shape == t.codes["s"].shape
    # MASK++ regroups, never changes a value
    assert np.array_equal(plus.sensitive_codes, plus2.sensitive_codes)
    d = t.domain_size("s")
    before = group_histogram(plus.group, t.codes["s"], plus.n_groups, d)
    after = group_histogram(plus.group, plus.sensitive_codes, plus.n_groups, d)
    same = (before == after).all(axis=1)
    changed = plus.sensitive_codes != t.codes["s"]
    assert not changed[same[plus.group]].any()


def test_registry_and_manifest_take_the_subset():
    rng = np.random.default_rng(3)
    n = 200
    t = Table.from_frame(
        pd.DataFrame(
            {
                "x": rng.integers(0, 40, n),
                "s": rng.choice(["hiv", "flu", "cold", "none"], n, p=[0.15, 0.2, 0.25, 0.4]),
            }
        ),
        quasi_identifiers=["x"],
        sensitive="s",
    )
    r = anonymize(t, "mask++", k=6, m=3, sensitive_values=["hiv"])
    assert r.manifest["parameters"]["sensitive_values"] == ["hiv"]
    assert check(r, "m-confidentiality", m=3, sensitive_values=["hiv"]).holds
    assert not check(r, "m-confidentiality", m=3).holds  # 'none' is not capped
    every = sorted(set(t.values["s"]))
    a = mask_plus(t, 6, 2, sensitive_values=every)
    b = mask_plus(t, 6, 2)
    assert np.array_equal(a.sensitive_codes, b.sensitive_codes)
    assert a.manifest["parameters"]["sensitive_values"] is None


def test_bad_subsets():
    t = one_group(["a", "b", "c", "d"])
    with pytest.raises(AnonlabError, match="as_one_value needs sensitive_values"):
        mask_plus(t, 4, 2, as_one_value=True)
    with pytest.raises(AnonlabError, match="'sensitive_values'"):
        mask_plus(t, 4, 2, sensitive_values=["zzz"])
    with pytest.raises(AnonlabError, match="list of values"):
        mask_plus(t, 4, 2, sensitive_values="a")
    with pytest.raises(IneligibleError, match="counted as one value"):
        mask_plus(t, 4, 2, sensitive_values=["a", "b", "c"], as_one_value=True)  # 2 values left
