"""Maximum disclosure under worst-case background knowledge (Martin et al., ICDE 2007).

Exact vectors from the paper and the notes (notes/martin-worst-case-background-knowledge.md
§7), the dynamic program against brute force over every consistent table and every k-set of
simple implications, the paper's own pseudo-code (with the notes' fixes) as a second reference,
and the invariants of notes §7.6.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from functools import cache

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Release, Table
from anonlab.attacks import (
    disclosure_by_group,
    disclosure_by_group_curve,
    disclosure_curve,
    maximum_disclosure,
)

# ---------------------------------------------------------------------------------------------
# Builders and references
# ---------------------------------------------------------------------------------------------


def make_release(buckets, scheme="bucketization") -> Release:
    values = [str(v) for b in buckets for v in b]
    groups = [i for i, b in enumerate(buckets) for _ in b]
    df = pd.DataFrame({"q": np.arange(len(values)), "s": values})
    table = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s")
    return Release(table, np.array(groups), scheme)


FIG3 = [["flu", "lc", "mumps", "flu", "lc"], ["flu", "bc", "flu", "hd", "oc"]]
B1 = FIG3[0]
B2 = FIG3[1]


def tables(buckets):
    """Every table consistent with the bucketization (rows: persons in bucket order)."""
    per_bucket = [sorted(set(itertools.permutations(b))) for b in buckets]
    rows = [sum(combo, ()) for combo in itertools.product(*per_bucket)]
    return np.array(rows, dtype=object)


def truth(buckets):
    """(tables x atoms) truth matrix; atoms are (person, value) over the value domain."""
    t = tables(buckets)
    domain = sorted({v for b in buckets for v in b})
    atoms = [(p, v) for p in range(t.shape[1]) for v in domain]
    x = np.stack([t[:, p] == v for p, v in atoms], axis=1).astype(bool)
    return x, atoms


def probability(buckets, target, knowledge):
    """Pr(target | B and knowledge) by counting; knowledge: list of (antecedent, consequent)
    atoms (implications) or (atom, None) (negations)."""
    x, atoms = truth(buckets)
    col = {a: i for i, a in enumerate(atoms)}
    ok = np.ones(len(x), dtype=bool)
    for a, b in knowledge:
        ok &= ~x[:, col[a]] if b is None else (~x[:, col[a]] | x[:, col[b]])
    return F(int((ok & x[:, col[target]]).sum()), int(ok.sum()))


def brute_same_consequent(buckets, k, persons=None):
    """Max over targets C (about one of ``persons``; default everyone) and multisets of k
    antecedents of Pr(C | B, AND(A_i -> C))."""
    x, atoms = truth(buckets)
    best = F(0)
    for c in range(len(atoms)):
        if persons is not None and atoms[c][0] not in persons:
            continue
        xc = x[:, c]
        for ants in itertools.combinations_with_replacement(range(len(atoms)), k):
            ok = np.ones(len(x), dtype=bool)
            for a in ants:
                ok &= ~x[:, a] | xc
            den = int(ok.sum())
            if den:
                best = max(best, F(int((ok & xc).sum()), den))
    return best


def brute_simple(buckets, k):
    """Max over targets and over all k-sets of arbitrary simple implications (k <= 2)."""
    x, atoms = truth(buckets)
    imp = np.stack([~x[:, a] | x[:, b] for a in range(len(atoms)) for b in range(len(atoms))], 1)
    if k == 0:
        joint = np.ones((len(x), 1), dtype=bool)
    elif k == 1:
        joint = imp
    else:
        joint = (imp[:, :, None] & imp[:, None, :]).reshape(len(x), -1)
    den = joint.sum(axis=0)
    best = F(0)
    for c in range(len(atoms)):
        num = (joint & x[:, [c]]).sum(axis=0)
        ratio = np.where(den > 0, num / np.maximum(den, 1), -1.0)
        i = int(np.argmax(ratio))
        best = max(best, F(int(num[i]), int(den[i])))
    return best


def brute_negations(buckets, k, persons=None):
    x, atoms = truth(buckets)
    best = F(0)
    cols = [i for i, (p, _) in enumerate(atoms) if persons is None or p in persons]
    # fewer than k negations: the rest may be vacuous (a tautology is a basic implication)
    subsets = (ants for j in range(k + 1) for ants in itertools.combinations(range(len(atoms)), j))
    for ants in subsets:
        ok = np.ones(len(x), dtype=bool)
        for a in ants:
            ok &= ~x[:, a]
        den = int(ok.sum())
        if den:
            num = (x[:, cols] & ok[:, None]).sum(axis=0)
            best = max(best, F(int(num.max()), den))
    return best


def paper_max_disclosure(buckets, k):
    """Algorithms 1 and 2 as printed (de-garbled), with the notes' three fixes."""
    stats = []
    for b in buckets:
        counts = sorted((b.count(v) for v in set(b)), reverse=True) + [0] * (k + 2)
        stats.append((len(b), counts))

    @cache
    def minimize1(bi, i, cap, left):
        n, counts = stats[bi]
        if i >= n:  # fix 1: guard i >= n_b
            return F(1)
        p_min = F(1)
        for ki in range(1, min(cap, left) + 1):
            p = minimize1(bi, i + 1, ki, left - ki)
            p = F(max(0, n - i - sum(counts[:ki])), n - i) * p  # fix 2: clamp
            p_min = min(p_min, p)
        return p_min

    inf = float("inf")

    @cache
    def minimize2(i, h, a):
        if i == len(buckets):  # fix 3: base case
            return F(1) if a else inf
        n, counts = stats[i]
        r_min = inf
        for m in range(h + 1):
            u = minimize1(i, 0, m, m)
            x = minimize2(i + 1, h - m, True)
            if not a:
                v = minimize1(i, 0, m + 1, m + 1)
                if x != inf:
                    r_min = min(r_min, v * x * F(n, counts[0]))
                rest = minimize2(i + 1, h - m, False)
                if rest != inf:
                    r_min = min(r_min, u * rest)
            elif x != inf:
                r_min = min(r_min, u * x)
        return r_min

    return 1 / (1 + minimize2(0, k, False))  # fix 3: top-level call with a = false


values = st.sampled_from("abcd")
small_buckets = st.lists(st.lists(values, min_size=1, max_size=4), min_size=1, max_size=3).filter(
    lambda bs: sum(map(len, bs)) <= 6
)
medium_buckets = st.lists(
    st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=12), min_size=1, max_size=5
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------------------------
# Exact vectors
# ---------------------------------------------------------------------------------------------


def test_paper_worked_probabilities():
    """§2: Ed's lung cancer 2/5 -> 1/2 -> 1; Charlie's flu given Hannah's implication 10/19."""
    ed, charlie, hannah = 3, 1, 6
    assert probability(FIG3, (ed, "lc"), []) == F(2, 5)
    assert probability(FIG3, (ed, "lc"), [((ed, "mumps"), None)]) == F(1, 2)
    assert probability(FIG3, (ed, "lc"), [((ed, "mumps"), None), ((ed, "flu"), None)]) == 1
    assert probability(FIG3, (charlie, "flu"), []) == F(2, 5)
    knowledge = [((hannah, "flu"), (charlie, "flu"))]
    assert probability(FIG3, (charlie, "flu"), knowledge) == F(10, 19)


def test_figure3_k1_is_two_thirds():
    """The OCR's '85' is garbled: the maximum disclosure of Figure 3 for k = 1 is 2/3."""
    r = maximum_disclosure(make_release(FIG3), 1, exact=True)
    assert r.value == F(2, 3)
    assert r.group == 0 and r.sensitive_value in {"flu", "lc"}
    assert len(r.statements) == 1
    (s,) = r.statements
    assert s.if_record == s.then_record == r.record  # a negation in implication form
    assert brute_same_consequent(FIG3, 1) == F(2, 3)


@pytest.mark.parametrize(
    "buckets, implications, negations",
    [
        (FIG3, [F(2, 5), F(2, 3), 1, 1, 1, 1], [F(2, 5), F(2, 3), 1, 1, 1, 1]),
        ([B1], [F(2, 5), F(2, 3), 1, 1, 1, 1], None),
        ([B2], [F(2, 5), F(4, 7), F(4, 5), 1, 1, 1], [F(2, 5), F(1, 2), F(2, 3), 1, 1, 1]),
        ([list("aaabc")], [F(3, 5), F(6, 7), 1, 1, 1, 1], [F(3, 5), F(3, 4), 1, 1, 1, 1]),
        (
            [list("aaaaabcdef")],
            [F(1, 2), F(9, 13), F(6, 7), F(21, 22), F(126, 127), 1],
            [F(1, 2), F(5, 9), F(5, 8), F(5, 7), F(5, 6), 1],
        ),
        ([list("aab"), list("ab")], [F(2, 3), 1, 1, 1, 1, 1], None),
        (
            [list("aaaaaaabbbbbbcd"), list("xxxxxxxxyyyzzww")],
            [F(8, 15), F(7, 9), F(60, 67), 1, 1, 1],
            None,
        ),
    ],
)
def test_notes_vectors(buckets, implications, negations):
    release = make_release(buckets)
    assert disclosure_curve(release, 5, exact=True) == implications
    assert np.allclose(disclosure_curve(release, 5), [float(v) for v in implications])
    for k, v in enumerate(implications):
        assert maximum_disclosure(release, k, exact=True).value == v
    if negations is not None:
        assert disclosure_curve(release, 5, language="negations", exact=True) == negations


def test_cross_bucket_witness_60_67():
    """Spreading the atoms wins: A is x in b2, the antecedents q = a and q = b for one q in b1."""
    buckets = [list("aaaaaaabbbbbbcd"), list("xxxxxxxxyyyzzww")]
    r = maximum_disclosure(make_release(buckets), 2, exact=True)
    assert r.value == F(60, 67)
    assert (r.group, r.sensitive_value, r.record) == (1, "x", 15)
    assert {(s.if_record, s.if_value) for s in r.statements} == {(0, "a"), (0, "b")}
    assert all(s.then_record == 15 and s.then_value == "x" for s in r.statements)
    assert (
        r.sentences[0] == "if record 0 (group 0) has s = 'a', then record 15 (group 1) has s = 'x'"
    )
    knowledge = [((s.if_record, s.if_value), (s.then_record, s.then_value)) for s in r.statements]
    # the brute force of the witness itself would need 15!·15! tables; check the formula instead
    assert F(1) / (1 + F(7, 15) * F(2, 15) / F(8, 15)) == F(60, 67)
    assert len(knowledge) == 2
    by_group = disclosure_by_group(make_release(buckets), 2, exact=True)
    assert max(by_group) == F(60, 67) and by_group[1] == F(60, 67)


def test_witness_in_words_and_json():
    r = maximum_disclosure(make_release([list("aaabc")]), 1, exact=True)
    assert r.value == F(6, 7) and r.prior == F(3, 5)
    assert r.sentences == (
        "if record 1 (group 0) has s = 'a', then record 0 (group 0) has s = 'a'",
    )
    assert "probability 0.8571" in r.explain()
    js = r.to_json()
    assert js["value_exact"] == "6/7" and js["statements"][0]["if_record"] == 1
    n = maximum_disclosure(make_release([list("aaaaabcdef")]), 2, language="negations")
    assert n.sentences == (
        "record 0 (group 0) does not have s = 'b'",
        "record 0 (group 0) does not have s = 'c'",
    )
    assert n.value == pytest.approx(5 / 8)


def test_generalized_release_is_one_bucket_per_group():
    a = make_release(FIG3, scheme="generalization")
    b = make_release(FIG3, scheme="bucketization")
    assert disclosure_curve(a, 4, exact=True) == disclosure_curve(b, 4, exact=True)


# ---------------------------------------------------------------------------------------------
# Brute force and the paper's pseudo-code
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(small_buckets, st.integers(0, 2))
def test_dp_equals_brute_force_same_consequent(buckets, k):
    release = make_release(buckets)
    dp = maximum_disclosure(release, k, exact=True)
    assert dp.value == brute_same_consequent(buckets, k)
    # the witness achieves the value
    knowledge = [((s.if_record, s.if_value), (s.then_record, s.then_value)) for s in dp.statements]
    assert probability(buckets, (dp.record, dp.sensitive_value), knowledge) == dp.value
    assert len(dp.statements) <= k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.lists(st.sampled_from("abc"), min_size=1, max_size=3), min_size=1, max_size=2
    ).filter(lambda bs: sum(map(len, bs)) <= 4),
    st.integers(0, 2),
)
def test_dp_equals_brute_force_arbitrary_simple_implications(buckets, k):
    """Theorem 9 checked: arbitrary k-sets of simple implications do no better."""
    assert maximum_disclosure(make_release(buckets), k, exact=True).value == brute_simple(
        buckets, k
    )


@SETTINGS
@given(small_buckets, st.integers(0, 3))
def test_negations_equal_brute_force(buckets, k):
    r = maximum_disclosure(make_release(buckets), k, language="negations", exact=True)
    assert r.value == brute_negations(buckets, k)
    knowledge = [((s.if_record, s.if_value), None) for s in r.statements]
    assert probability(buckets, (r.record, r.sensitive_value), knowledge) == r.value


def persons_of(buckets):
    start = np.cumsum([0] + [len(b) for b in buckets])
    return [set(range(start[g], start[g + 1])) for g in range(len(buckets))]


@SETTINGS
@given(small_buckets, st.integers(0, 3))
def test_by_group_equals_brute_force(buckets, k):
    """Per target group, past the k at which the maximum reaches 1 too: a group keeps its own
    value until k atoms can rule out a whole bucket (this one or another)."""
    release = make_release(buckets)
    imp = disclosure_by_group(release, k, exact=True)
    neg = disclosure_by_group(release, k, language="negations", exact=True)
    for g, persons in enumerate(persons_of(buckets)):
        assert imp[g] == brute_same_consequent(buckets, k, persons)
        assert neg[g] == brute_negations(buckets, k, persons)


@SETTINGS
@given(medium_buckets, st.integers(0, 6))
def test_by_group_curve_rows_are_by_group(buckets, k_max):
    """One dynamic program for every k gives each k's own per-group values (exact and float)."""
    release = make_release(buckets)
    for language in ("implications", "negations"):
        exact = disclosure_by_group_curve(release, k_max, language=language, exact=True)
        floats = disclosure_by_group_curve(release, k_max, language=language)
        assert floats.shape == (k_max + 1, len(buckets))
        for k in range(k_max + 1):
            assert exact[k] == disclosure_by_group(release, k, language=language, exact=True)
            assert np.array_equal(floats[k], disclosure_by_group(release, k, language=language))
            assert np.allclose(floats[k], [float(v) for v in exact[k]], rtol=1e-12)


def test_by_group_past_the_smallest_bucket():
    """{a,b} and {c,d,e,f}: the maximum is 1 from k = 1; the second group is pinned only at
    k = 2 ("record 0 has a -> target has c", "record 0 has b -> target has c")."""
    release = make_release([["a", "b"], ["c", "d", "e", "f"]])
    assert disclosure_by_group(release, 1, exact=True) == [F(1), F(2, 5)]
    assert disclosure_by_group(release, 2, exact=True) == [F(1), F(1)]
    # negations about the target only: 1/(4 - k)
    assert disclosure_by_group(release, 2, language="negations", exact=True) == [F(1), F(1, 2)]


@SETTINGS
@given(medium_buckets, st.integers(0, 6))
def test_knapsack_equals_paper_minimize2(buckets, k):
    assert maximum_disclosure(make_release(buckets), k, exact=True).value == (
        paper_max_disclosure(buckets, k)
    )


# ---------------------------------------------------------------------------------------------
# Invariants (notes §7.6)
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(medium_buckets, st.integers(0, 8))
def test_invariants(buckets, k_max):
    release = make_release(buckets)
    imp = disclosure_curve(release, k_max, exact=True)
    neg = disclosure_curve(release, k_max, language="negations", exact=True)
    # 1. k = 0: the largest frequency
    assert imp[0] == neg[0] == max(F(max(map(b.count, b)), len(b)) for b in buckets)
    min_distinct = min(len(set(b)) for b in buckets)
    for k in range(k_max + 1):
        # 2. disclosure is 1 iff some bucket has at most k + 1 distinct values
        assert (imp[k] == 1) == (min_distinct <= k + 1)
        # 5. negations never beat implications
        assert neg[k] <= imp[k]
    # 3. non-decreasing in k
    assert all(a <= b for a, b in itertools.pairwise(imp))
    assert all(a <= b for a, b in itertools.pairwise(neg))
    # floats agree with fractions
    assert np.allclose(disclosure_curve(release, k_max), [float(v) for v in imp], rtol=1e-12)
    # the per-group diagnosis tops out at the maximum
    by_group = disclosure_by_group(release, k_max, exact=True)
    assert max(by_group) == imp[k_max]


@SETTINGS
@given(medium_buckets.filter(lambda bs: len(bs) >= 2), st.integers(0, 6), st.data())
def test_merging_buckets_never_raises_disclosure(buckets, k, data):
    """Theorem 14."""
    i, j = data.draw(
        st.lists(st.integers(0, len(buckets) - 1), min_size=2, max_size=2, unique=True)
    )
    merged = [b for t, b in enumerate(buckets) if t not in (i, j)] + [buckets[i] + buckets[j]]
    for language in ("implications", "negations"):
        before = maximum_disclosure(make_release(buckets), k, language=language, exact=True)
        after = maximum_disclosure(make_release(merged), k, language=language, exact=True)
        assert after.value <= before.value


def test_large_k_and_statistics_only_release():
    release = make_release([list("aaaaabcdef"), list("abcdefgh")])
    assert maximum_disclosure(release, 1000, exact=True).value == 1
    assert len(disclosure_curve(release, 40)) == 41
    stats = Release._from_statistics(
        release.table, release.n_groups, release.group_sizes, lambda: release.sensitive_histogram
    )
    r = maximum_disclosure(stats, 2)
    assert r.record is None and "a person in group" in r.sentences[0]
    assert r.value == pytest.approx(6 / 7)


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"k": -1}, "'k' must be an integer >= 0"),
        ({"k": 1.5}, "'k' must be an integer"),
        ({"k": 1, "language": "cnf"}, "'language' must be one of"),
        ({"k": 1, "exact": "yes"}, "'exact' must be True or False"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(AnonlabError, match=match):
        maximum_disclosure(make_release(FIG3), **kwargs)


def test_errors_curve_and_release():
    with pytest.raises(AnonlabError, match="'k_max' must be an integer >= 0"):
        disclosure_curve(make_release(FIG3), -2)
    with pytest.raises(AnonlabError, match="must be an anonlab Release"):
        maximum_disclosure("table", 1)
