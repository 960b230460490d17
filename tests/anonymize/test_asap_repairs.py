"""ASAP repairs (Jin, Zhang, Das §6-7): Mondrian+/++, Hilb+/++, MASK+/++, stratified pick-up.

Worked examples are the notes' (notes/jin-asap-algorithm-safe-publishing.md §3.5, §3.7, §3.8);
the property tests compare the compiled kernels with plain-Python references written from the
notes' pseudo-code, and check every output with ``anonlab.models.check``.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from anonlab.anonymize import anonymize
from anonlab.anonymize.hilb import _hilb_groups
from anonlab.anonymize.hilb_plus import hilb_plus, hilb_plus_groups, hilb_plus_plus
from anonlab.anonymize.mask_plus import local_look_ahead, mask_plus, mask_plus_plus
from anonlab.anonymize.mondrian import mondrian
from anonlab.anonymize.mondrian_plus import look_ahead_groups, mondrian_plus, mondrian_plus_plus
from anonlab.anonymize.stratified_pickup import pickup_groups, stratified_pickup
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.models import check
from anonlab.table import Table

# ------------------------------------------------------------------ the §6 running example
# Notes §3.5 [RECON] coordinates; t1..t8 are rows 0..7.
RUNNING = pd.DataFrame(
    {
        "x": [7, 9, 6, 1, 2, 8, 3, 5],
        "y": [6, 5, 2, 1, 3, 1, 4, 5],
        "s": ["AIDS", "diabetes", "heart disease", "cancer", "cancer", "mumps", "gastritis",
              "gastritis"],
    }
)  # fmt: skip
GROUP1 = frozenset({3, 4, 6, 7})  # {t4, t5, t7, t8}


@pytest.fixture(scope="module")
def running() -> Table:
    return Table.from_frame(RUNNING, quasi_identifiers=["x", "y"], sensitive="s")


def _partition(labels) -> frozenset[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for i, g in enumerate(np.asarray(labels).tolist()):
        groups.setdefault(g, set()).add(i)
    return frozenset(frozenset(s) for s in groups.values())


def _codes(values: list[str]) -> tuple[np.ndarray, int]:
    domain = sorted(set(values))
    return np.array([domain.index(v) for v in values]), len(domain)


def test_mondrian_and_mondrian_plus_on_the_running_example(running):
    expected = frozenset({GROUP1, frozenset({0, 1}), frozenset({2, 5})})
    assert _partition(mondrian(running, l=2).group) == expected
    release = mondrian_plus(running, 2)
    assert _partition(release.group) == expected
    # Group1 has S_max = 2: both of its cuts ({t4,t5}|{t7,t8} on x and on y) are refused with
    # threshold 4; the two pairs each refuse one cut per attribute (threshold 2 > 1).
    assert release.manifest["refused_splits"] == 6
    assert release.manifest["algorithm"] == "mondrian+"


def test_mondrian_plus_plus_splits_group1_into_cancer_gastritis_pairs(running):
    for seed in range(5):
        release = mondrian_plus_plus(running, 2, seed=seed)
        parts = _partition(release.group)
        assert frozenset({0, 1}) in parts and frozenset({2, 5}) in parts
        inner = [p for p in parts if p <= GROUP1]
        assert len(inner) == 2
        for p in inner:
            assert sorted(RUNNING.s[list(p)]) == ["cancer", "gastritis"]
        assert release.manifest["pickup"]["groups_split"] == 1
        assert release.manifest["seed"] == seed


def test_hilb_and_hilb_plus_groups_on_the_running_example():
    codes, n_values = _codes(list(RUNNING.s))
    keys = np.arange(8)  # the notes: Q_T(t_i) = i
    hilb_group, *_ = _hilb_groups(keys, codes, n_values, 2)
    assert _partition(hilb_group) == frozenset(
        {frozenset({0, 1}), frozenset({2, 3}), frozenset({4, 6}), frozenset({5, 7})}
    )
    plus_group, last = hilb_plus_groups(keys, codes, n_values, 2)
    assert _partition(plus_group) == frozenset(
        {frozenset({0, 1}), frozenset({2, 3}), frozenset({4, 5, 6, 7})}
    )
    assert last == 4


# ------------------------------------------------------------------ Hilb+ and Algorithm 7 (I1)
FIG8 = ["gastritis", "gastritis", "heart disease", "diabetes", "cancer", "mumps", "AIDS", "AIDS"]


def _smart_and_naive(algorithm, keys, sa: list[str]) -> tuple[dict, dict]:
    """Per-record posteriors of the naive and the smart world for a deterministic QI-only
    algorithm whose release is the partition plus each group's sensitive multiset; the
    adversary knows every record's Q_T (notes §1.7, §2.12)."""
    codes, n_values = _codes(sa)
    published = algorithm(keys, codes, n_values)
    groups = sorted(_partition(published), key=min)
    per_group = []
    for g in groups:
        rows = sorted(g)
        perms = set(itertools.permutations([sa[r] for r in rows]))
        per_group.append([dict(zip(rows, p, strict=True)) for p in perms])
    naive: Counter = Counter()
    smart: Counter = Counter()
    n_naive = n_smart = 0
    for combo in itertools.product(*per_group):
        world = {r: v for part in combo for r, v in part.items()}
        world_sa = [world[r] for r in range(len(sa))]
        n_naive += 1
        naive.update(world.items())
        c, nv = _codes(world_sa)
        if _partition(algorithm(keys, c, nv)) == _partition(published):
            n_smart += 1
            smart.update(world.items())
    return (
        {key: c / n_naive for key, c in naive.items()},
        {key: c / n_smart for key, c in smart.items()},
    )


def _hilb_plus_paper(keys, codes, n_values):
    return hilb_plus_groups(keys, codes, n_values, 2)[0]


def _hilb_plus_cut(keys, codes, n_values):
    constrained = np.ones(n_values, dtype=bool)
    width = np.array([len(keys) - 1])
    return look_ahead_groups(keys.reshape(-1, 1), codes, constrained, width, 2)[0]


def test_hilb_plus_is_still_open_to_algorithm_7_on_figure_8():
    """Notes §5 I1: Hilb+ outputs {t1,t3},{t2,t4},{t5..t8}; knowing the algorithm pins
    t1 = t2 = gastritis, t3 = heart disease, t4 = diabetes (the paper's count of 4)."""
    keys = np.arange(8)
    codes, n_values = _codes(FIG8)
    assert _partition(_hilb_plus_paper(keys, codes, n_values)) == frozenset(
        {frozenset({0, 2}), frozenset({1, 3}), frozenset({4, 5, 6, 7})}
    )
    naive, smart = _smart_and_naive(_hilb_plus_paper, keys, FIG8)
    for r, v in ((0, "gastritis"), (1, "gastritis"), (2, "heart disease"), (3, "diabetes")):
        assert naive[(r, v)] == 0.5
        assert smart[(r, v)] == 1.0
    # the rest (the remainder group) learns nothing beyond the naive world
    for r in range(4, 8):
        for v in set(FIG8):
            assert smart.get((r, v), 0) == pytest.approx(naive.get((r, v), 0))


def test_hilb_plus_cut_variant_is_algorithm_safe_on_figure_8():
    keys = np.arange(8)
    naive, smart = _smart_and_naive(_hilb_plus_cut, keys, FIG8)
    assert set(naive) == set(smart)
    for key, p in naive.items():
        assert smart[key] == pytest.approx(p)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcd"), min_size=3, max_size=7), st.integers(1, 2))
def test_mondrian_plus_one_dimension_is_algorithm_safe(sa, l):
    """Smart world == naive world for the look-ahead cut (Theorem 5.3), on every tiny input."""
    counts = Counter(sa)
    assume(l * max(counts.values()) <= len(sa))
    keys = np.arange(len(sa))

    def cut(keys, codes, n_values):
        constrained = np.ones(n_values, dtype=bool)
        return look_ahead_groups(keys.reshape(-1, 1), codes, constrained, [len(keys) - 1], l)[0]

    naive, smart = _smart_and_naive(cut, keys, sa)
    for key, p in naive.items():
        assert smart[key] == pytest.approx(p)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=7),
    st.data(),
    st.integers(1, 2),
)
def test_mondrian_plus_is_algorithm_safe_on_tiny_tables(points, data, l):
    """Mondrian+ in 2-D: knowing the algorithm changes no posterior (smart == naive world)."""
    n = len(points)
    sa = data.draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    assume(l * max(Counter(sa).values()) <= n)
    qi = np.array(points)
    width = qi.max(axis=0)

    def mondrian_plus_2d(keys, codes, n_values):
        return look_ahead_groups(qi, codes, np.ones(n_values, dtype=bool), width, l)[0]

    naive, smart = _smart_and_naive(mondrian_plus_2d, np.arange(n), sa)
    for key, p in naive.items():
        assert smart[key] == pytest.approx(p)


def test_stratified_pickup_keeps_mask_plus_published_values(running):
    base = mask_plus(running, 4, 3, seed=2)
    out = stratified_pickup(base, 2, seed=0)
    assert np.array_equal(out.published_sensitive, base.published_sensitive)
    assert out.manifest["algorithm"] == "mask++pickup"  # the input's name + "+pickup"
    assert out.manifest["input"]["algorithm"] == "mask+"
    assert check(out, "m-confidentiality", m=2).holds
    assert out.n_groups == 4  # both 4-record groups split into pairs of distinct values


# ------------------------------------------------------------------ MASK+ (notes §3.5, §3.8)
def literal_algorithm_3(f_ascending: list[int], m: int) -> int | None:
    """The printed Algorithm 3's loop (lines 7-11): the number read before perturbing, or None
    when the group is published as is. Kept to document the boundary bug (E5)."""
    d, size = len(f_ascending), sum(f_ascending)
    cap = size // m
    i = 1
    while True:
        i += 1
        bound = (size - sum(f_ascending[: i - 1]) - f_ascending[i - 2]) / (d - i)
        if i == d - 1 or bound > cap:
            break
    return i - 1 if i < d - 1 else None


def reference_local_look_ahead(f: list[int], m: int) -> list[int]:
    """MASK+ on one ascending frequency vector, fixed (notes §2.7): test every i = 2..D-1."""
    d, size = len(f), sum(f)
    cap = size // m
    r = None
    for i in range(2, d):  # 1-based i
        if (size - sum(f[: i - 1]) - f[i - 2]) > cap * (d - i):
            r = i - 1
            break
    if r is None:
        return list(f)
    out = list(f[:r]) + [f[r - 1]] * (d - r)
    for j in range(d - 1, r - 1, -1):
        resid = size - sum(out)
        if resid == 0:
            break
        out[j] = min(cap, out[j] + resid)
    assert sum(out) == size
    return out


def test_mask_plus_on_group1_with_m_3(running):
    release = mask_plus(running, 4, 3, seed=1)
    assert _partition(release.group) == frozenset({GROUP1, frozenset({0, 1, 2, 5})})
    hist = release.sensitive_histogram
    values = list(running.values["s"])
    g1 = int(release.group[3])
    published = {values[v]: int(c) for v, c in enumerate(hist[g1]) if c}
    # notes §3.5 and E9: heart disease, mumps, cancer, gastritis once each
    assert published == {"heart disease": 1, "mumps": 1, "cancer": 1, "gastritis": 1}
    g2 = int(release.group[0])
    assert sorted(values[v] for v in np.flatnonzero(hist[g2])) == [
        "AIDS", "diabetes", "heart disease", "mumps",
    ]  # fmt: skip
    # tuple level: one cancer and one gastritis keep their value, the other two are changed
    orig = running.codes["s"]
    changed = np.flatnonzero(release.published_sensitive != orig)
    assert len(changed) == 2 and set(changed) <= GROUP1
    assert release.manifest["look_ahead_stops"] == 2  # Group2 stops too (a no-op, notes §3.5)
    assert release.manifest["perturbed_groups"] == 1
    assert release.manifest["perturbed_records"] == 2
    assert check(release, "m-confidentiality", m=3).holds


def test_mask_plus_group1_frequencies_and_group2_no_op():
    # labels in code order: AIDS, cancer, diabetes, gastritis, heart disease, mumps
    published, read = local_look_ahead(np.array([[0, 2, 0, 2, 0, 0], [1, 0, 1, 0, 1, 1]]), 3)
    assert published.tolist() == [[0, 1, 0, 1, 1, 1], [1, 0, 1, 0, 1, 1]]
    assert read.tolist() == [2, 2]


def test_mask_plus_random_fill_option():
    """fill="random" (notes I2): ties and the Type-2 fill order at random; same caps."""
    hist = np.array([[0, 2, 0, 2, 0, 0]])  # Group1: AIDS, cancer, diabetes, gastritis, HD, mumps
    chosen = Counter()
    for seed in range(40):
        published, read = local_look_ahead(hist, 3, fill="random", rng=np.random.default_rng(seed))
        assert read.tolist() == [2]
        row = published[0]
        assert row[1] == 1 and row[3] == 1 and row.sum() == 4 and row.max() == 1
        chosen.update(np.flatnonzero(row[[0, 2, 4, 5]]).tolist())
    assert set(chosen) == {0, 1, 2, 3}  # every absent value is sometimes the filler
    with pytest.raises(AnonlabError, match="rng"):
        local_look_ahead(hist, 3, fill="random")
    with pytest.raises(AnonlabError, match="'fill'"):
        local_look_ahead(hist, 3, fill="sorted")


def test_mask_plus_boundary_fix_e5():
    published, read = local_look_ahead(np.array([[0, 0, 0, 0, 0, 4]]), 2)
    assert published.tolist() == [[0, 0, 0, 0, 2, 2]] and read.tolist() == [4]
    assert literal_algorithm_3([0, 0, 0, 0, 0, 4], 2) is None  # the printed loop publishes it


def test_mask_plus_non_uniform_fill():
    published, _ = local_look_ahead(np.array([[0, 0, 1, 2, 3, 4]]), 3)
    assert published.tolist() == [[0, 0, 1, 3, 3, 3]]


def test_mask_plus_infeasibility_e8_raises():
    # footnote 4 holds (1*4 >= 4) but the fill would reach only 3 < 4
    with pytest.raises(IneligibleError, match=r"E8.*4 records.*m = 3.*\|D_S\| = 4"):
        local_look_ahead(np.array([[0, 0, 2, 2]]), 3)
    table = Table.from_frame(
        pd.DataFrame({"x": [1, 2, 3, 4], "s": ["a", "b", "c", "c"]}),
        quasi_identifiers=["x"],
        sensitive="s",
    )
    # |D_S| = 3 <= m
    with pytest.raises(IneligibleError, match="more sensitive values than m"):
        mask_plus(table, 4, 3)
    table = Table.from_frame(
        pd.DataFrame({"x": [1, 2, 3, 4, 5], "s": ["a", "b", "c", "c", "d"]}),
        quasi_identifiers=["x"],
        sensitive="s",
    )
    with pytest.raises(IneligibleError, match=r"E8.*5 records"):
        mask_plus(table, 5, 3)


def test_mask_plus_protects_a_sensitive_subset(running):
    # issue 18, item 5: MASK+ takes the protected subset MASK takes (it refused it before, so
    # Figure 7 compared MASK protecting 4 values with MASK++ capping all 16)
    r = mask_plus(running, 4, 3, sensitive_values=["AIDS"])
    assert r.manifest["parameters"]["sensitive_values"] == ["AIDS"]
    assert check(r, "m-confidentiality", m=3, sensitive_values=["AIDS"]).holds
    everything = sorted(set(RUNNING.s))
    assert mask_plus(running, 4, 3, sensitive_values=everything).n_groups == 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=3, max_size=8), st.integers(1, 4))
def test_local_look_ahead_equals_reference(freqs, m):
    f = sorted(freqs)
    size, d = sum(f), len(f)
    assume(size > 0 and m < d and (size // m) * (d - 1) >= size)
    rng = np.random.default_rng(size)
    perm = rng.permutation(d)
    hist = np.array(f)[perm]  # any column order: the function sorts
    published, read = local_look_ahead(hist[None, :], m)
    order = np.argsort(hist, kind="stable")
    want = reference_local_look_ahead(list(hist[order]), m)
    assert published[0][order].tolist() == want
    assert published.sum() == size
    assert (published[0] <= size // m).all()  # m-confidential after the look-ahead
    if read[0] == d:  # every read passed: published as is (a stop may also be a no-op)
        assert want == f


# ------------------------------------------------------------------ references and properties
def reference_mondrian_plus(table: Table, l: int) -> list[list[int]]:
    """Notes §2.3 fixed reading, plainly: a cut of G is allowed iff both halves >= ℓ·S_max(G)."""
    qi = table.qi_matrix()
    sa = table.codes["s"].tolist()
    width = [table.domain_size(q) - 1 for q in table.quasi_identifiers]
    out, stack = [], [list(range(table.n_rows))]
    while stack:
        rows = stack.pop()
        threshold = max(1, l * max(Counter(sa[r] for r in rows).values()))
        span = []
        for a in range(qi.shape[1]):
            col = [int(qi[r, a]) for r in rows]
            span.append((max(col) - min(col)) / width[a] if width[a] > 0 else 0.0)
        done = False
        for a in [a for a in sorted(range(len(span)), key=lambda a: -span[a]) if span[a] > 0]:
            xs = sorted(int(qi[r, a]) for r in rows)
            med = xs[(len(xs) - 1) // 2]
            left = [r for r in rows if qi[r, a] <= med]
            if len(left) == len(rows):
                left = [r for r in rows if qi[r, a] < med]
            right = [r for r in rows if r not in set(left)]
            if left and right and min(len(left), len(right)) >= threshold:
                stack += [right, left]
                done = True
                break
        if not done:
            out.append(rows)
    return out


def reference_hilb_plus(keys: list[int], sa: list[int], l: int) -> list[list[int]]:
    """Algorithm 2 literally (E4 fixes): frontier = head of each bucket in Q_T order."""
    order = sorted(range(len(keys)), key=lambda r: (keys[r], r))
    buckets: dict[int, list[int]] = {}
    for r in order:
        buckets.setdefault(sa[r], []).append(r)
    remaining = len(keys)
    groups = []
    while remaining:
        smax = max(len(b) for b in buckets.values())
        if remaining - l < l * smax:
            g = [r for b in buckets.values() for r in b]
        else:
            heads = sorted((b[0] for b in buckets.values() if b), key=order.index)
            g = heads[:l]
        for r in g:
            buckets[sa[r]].remove(r)
        remaining -= len(g)
        groups.append(g)
    return groups


@st.composite
def tiny_tables(draw, max_rows: int = 24):
    n = draw(st.integers(2, max_rows))
    data = {
        "x": draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)),
        "y": draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)),
        "s": draw(st.lists(st.sampled_from("abcdef"), min_size=n, max_size=n)),
    }
    return Table.from_frame(pd.DataFrame(data), quasi_identifiers=["x", "y"], sensitive="s")


def _eligible(table: Table, l: int) -> bool:
    return l * max(Counter(table.codes["s"].tolist()).values()) <= table.n_rows


@settings(max_examples=200, deadline=None)
@given(tiny_tables(40), st.integers(1, 4))
def test_mondrian_plus_kernel_equals_reference(table, l):
    assume(_eligible(table, l))
    got = _partition(mondrian_plus(table, l).group)
    want = frozenset(frozenset(g) for g in reference_mondrian_plus(table, l))
    assert got == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=2, max_size=30), st.data(), st.integers(1, 4))
def test_hilb_plus_kernel_equals_reference(keys, data, l):
    n = len(keys)
    sa = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    assume(l * max(Counter(sa).values()) <= n and n >= l)
    got, _ = hilb_plus_groups(np.array(keys), np.array(sa), 5, l)
    want = reference_hilb_plus(keys, sa, l)
    assert _partition(got) == frozenset(frozenset(g) for g in want)


def test_mondrian_plus_equals_mondrian_k_when_values_are_distinct():
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame(
        {"x": rng.integers(0, 20, n), "y": rng.integers(0, 7, n), "s": [f"v{i}" for i in range(n)]}
    )
    table = Table.from_frame(frame, quasi_identifiers=["x", "y"], sensitive="s")
    for l in (1, 2, 3, 5):
        assert _partition(mondrian_plus(table, l).group) == _partition(mondrian(table, k=l).group)


PLUS = ["mondrian+", "mondrian++", "hilb+", "hilb++"]


@settings(max_examples=60, deadline=None)
@given(tiny_tables(), st.integers(1, 3), st.sampled_from(PLUS), st.integers(0, 3))
def test_every_plus_output_is_l_diverse(table, l, algorithm, seed):
    assume(_eligible(table, l))
    for scheme in ("generalization", "bucketization"):
        for variant in ("paper", "cut") if algorithm.startswith("hilb") else (None,):
            extra = {} if variant is None else {"variant": variant}
            release = anonymize(table, algorithm, l=l, scheme=scheme, seed=seed, **extra)
            assert release.scheme == scheme
            assert check(release, "l-diversity", l=l).holds
            assert release.manifest["algorithm"] == algorithm


@settings(max_examples=60, deadline=None)
@given(tiny_tables(30), st.integers(2, 3), st.integers(0, 3), st.data())
def test_every_mask_plus_output_is_m_confidential(table, m, seed, data):
    k = data.draw(st.integers(m, 8))
    d = table.domain_size("s")
    assume(table.n_rows >= k and d > m)
    for algorithm, fill in (("mask+", "paper"), ("mask++", "paper"), ("mask+", "random")):
        try:
            release = anonymize(table, algorithm, k=k, m=m, seed=seed, fill=fill)
        except IneligibleError as exc:  # E8: a k-group too small for the fill
            assert "E8" in str(exc)
            return
        assert check(release, "m-confidentiality", m=m).holds
        assert release.manifest["parameters"]["fill"] == fill
        if algorithm == "mask+" and fill == "paper":
            # the groups are Mondrian's k-anonymous ones, and each group's published
            # frequencies are the plain-Python reference's
            base = mondrian(table, k=k)
            assert _partition(release.group) == _partition(base.group)
            for g in range(release.n_groups):
                rows = np.flatnonzero(release.group == g)
                orig = np.bincount(table.codes["s"][rows], minlength=d)
                order = np.argsort(orig, kind="stable")
                want = reference_local_look_ahead(orig[order].tolist(), m)
                got = np.bincount(release.published_sensitive[rows], minlength=d)
                assert got[order].tolist() == want


@settings(max_examples=80, deadline=None)
@given(tiny_tables(40), st.integers(1, 4), st.integers(0, 5))
def test_stratified_pickup_keeps_each_groups_multiset(table, l, seed):
    assume(_eligible(table, l))
    base = mondrian_plus(table, l)
    out = stratified_pickup(base, l, seed=seed)
    sa = table.codes["s"]
    for g in range(base.n_groups):
        rows = np.flatnonzero(base.group == g)
        inner = set(out.group[rows].tolist())
        # nested: each new group lies inside one old group, and together they cover it
        assert all(set(np.flatnonzero(out.group == h)) <= set(rows) for h in inner)
        if len(rows) >= 2 * l:
            for h in inner:
                members = np.flatnonzero(out.group == h)
                assert l <= len(members) < 2 * l  # Theorem 7.1
                assert len(set(sa[members].tolist())) == len(members)
        else:
            assert len(inner) == 1
    # the multiset of each old group is unchanged (records are regrouped, never altered)
    assert Counter(zip(base.group.tolist(), sa.tolist(), strict=True)) == Counter(
        zip(base.group.tolist(), out.sensitive_codes.tolist(), strict=True)
    )
    assert check(out, "l-diversity", l=l).holds
    assert out.manifest["pickup"]["groups_in"] == base.n_groups


def test_pickup_refuses_ineligible_groups():
    group = np.array([0, 0, 0, 0])
    with pytest.raises(IneligibleError, match="ℓ-eligible"):
        pickup_groups(group, 1, np.array([0, 0, 1, 2]), np.ones(3, dtype=bool), 3, 0)


def test_pickup_is_seeded():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 6, 200)
    group = np.zeros(200, dtype=np.int64)
    a, _ = pickup_groups(group, 1, codes, np.ones(6, dtype=bool), 3, 7)
    b, _ = pickup_groups(group, 1, codes, np.ones(6, dtype=bool), 3, 7)
    c, _ = pickup_groups(group, 1, codes, np.ones(6, dtype=bool), 3, 8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


# ------------------------------------------------------------------ subsets, manifest, CLI
def test_sensitive_subset_for_the_global_look_ahead():
    rng = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame(
        {
            "x": rng.integers(0, 50, n),
            "y": rng.integers(0, 9, n),
            "s": rng.choice(["hiv", "flu", "cold", "none"], n, p=[0.1, 0.2, 0.2, 0.5]),
        }
    )
    table = Table.from_frame(frame, quasi_identifiers=["x", "y"], sensitive="s")
    for fn in (mondrian_plus, mondrian_plus_plus, hilb_plus, hilb_plus_plus):
        release = fn(table, 3, sensitive_values=["hiv"])
        assert check(release, "l-diversity", l=3, sensitive_values=["hiv"]).holds
        assert release.manifest["parameters"]["sensitive_values"] == ["hiv"]
    with pytest.raises(IneligibleError):
        mondrian_plus(table, 3)  # 'none' holds half the records: not 3-eligible overall


def test_ineligible_table_and_bad_parameters(running):
    with pytest.raises(IneligibleError, match="not 5-eligible"):
        mondrian_plus(running, 5)
    with pytest.raises(IneligibleError, match="not 5-eligible"):
        hilb_plus_plus(running, 5)
    with pytest.raises(AnonlabError, match="'variant'"):
        hilb_plus(running, 2, variant="frontier")
    with pytest.raises(AnonlabError, match="'scheme'"):
        mondrian_plus_plus(running, 2, scheme="anatomy")
    with pytest.raises(AnonlabError, match="'m' must be <= k"):
        mask_plus_plus(running, 2, 3)


def test_cli_anonymize_mondrian_plus_plus_bucketization(cli, tmp_path, make_table):
    import json

    data = tmp_path / "t.csv"
    RUNNING.to_csv(data, index=False)
    out = tmp_path / "rel"
    code, stdout, err = cli(
        ["anonymize", "--data", str(data), "--qi", "x,y", "--sensitive", "s", "--algorithm",
         "mondrian++", "--scheme", "bucketization", "--l", "2", "--out", str(out), "--json"]
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(stdout)
    assert summary["scheme"] == "bucketization" and summary["groups"] == 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["algorithm"] == "mondrian++"
    assert manifest["refused_splits"] == 6 and manifest["pickup"]["groups_split"] == 1
    code, _, err = cli(
        ["anonymize", "--data", str(data), "--qi", "x,y", "--sensitive", "s", "--algorithm",
         "mask+", "--k", "4", "--m", "3", "--sensitive-values", "AIDS", "--out",
         str(tmp_path / "r2")]
    )  # fmt: skip
    assert code == 0, err  # the protected subset reaches MASK+ from the command line
    manifest = json.loads((tmp_path / "r2" / "manifest.json").read_text())
    assert manifest["parameters"]["sensitive_values"] == ["AIDS"]
