"""Algorithm 7's strict count (Jin, Zhang, Das, ASAP §8.3.1; issue 18 part 5): a flagged record
``t`` holds the value of a member of the flagging group ``G1`` ranked *below* ``t`` (its bucket
head), not any value of ``G1``; and a record flagged by several vulnerable groups is bound by
the last of them. Checked against a brute-force enumeration of every assignment of the
published values consistent with the flags, on hand-made Hilb releases where the old readings
give less, and on random small releases (every pin must be one the enumeration determines)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.anonymize import anonymize
from anonlab.attacks.hilb_algorithm7 import hilb_algorithm7, hilbert_keys
from anonlab.table import Table


def line_table(values: str) -> Table:
    """One QI ``x = 1..n`` (a 1-D Hilbert curve is the identity: ``Q_T(t_i) = i``); one letter
    per record as its sensitive value."""
    return Table.from_frame(
        pd.DataFrame({"x": range(1, len(values) + 1), "s": list(values)}),
        quasi_identifiers=["x"],
        sensitive="s",
    )


def reference_flags(keys, group, sa, l):
    """Algorithm 7 literally (lists; ties by row number): every ``(t, G1)`` with ``G1``
    vulnerable and ``t`` of a later group inside ``G1``'s range, in the order of the scan."""
    n = len(keys)
    order = sorted(range(n), key=lambda r: (keys[r], r))
    rank = {r: i for i, r in enumerate(order)}
    groups: dict[int, list[int]] = {}
    for r in order:
        groups.setdefault(int(group[r]), []).append(r)
    seq = sorted(groups.values(), key=lambda g: rank[g[0]])
    flags = []
    while seq:
        g1 = seq[0]
        rest = [r for g in seq for r in g]
        counts: dict = {}
        for r in rest:
            counts[sa[r]] = counts.get(sa[r], 0) + 1
        if len(rest) - len(g1) < l * max(counts.values()):
            break
        lo, hi = rank[g1[0]], rank[g1[-1]]
        if len(g1) + 1 < 2 * l:
            flags += [(t, g1, rank) for g in seq[1:] for t in g if lo <= rank[t] <= hi]
        seq = seq[1:]
    return flags


def below(flag):
    t, g1, rank = flag
    return t, [h for h in g1 if rank[h] < rank[t]]


def anywhere(flag):
    """The old reading: ``t``'s value is any value of ``G1``."""
    t, g1, _ = flag
    return t, list(g1)


def determined(group, sa, constraints):
    """Brute force: records whose value is the same in every assignment of each group's
    published multiset to its members that meets ``x_t ∈ {x_h : h ∈ B}`` for every ``(t, B)``;
    only records of groups a constraint touches and that publish two values or more."""
    n = len(sa)
    members: dict[int, list[int]] = {}
    for r in range(n):
        members.setdefault(int(group[r]), []).append(r)
    ids = sorted(members)
    options = [sorted(set(itertools.permutations([sa[r] for r in members[g]]))) for g in ids]
    seen: list[set] = [set() for _ in range(n)]
    x = [None] * n
    for combo in itertools.product(*options):
        for g, values in zip(ids, combo, strict=True):
            for r, v in zip(members[g], values, strict=True):
                x[r] = v
        if all(x[t] in {x[h] for h in b} for t, b in constraints):
            for r in range(n):
                seen[r].add(x[r])
    touched = {int(group[t]) for t, _ in constraints} | {int(group[b[0]]) for _, b in constraints}
    return {
        r: next(iter(seen[r]))
        for r in range(n)
        if len(seen[r]) == 1
        and int(group[r]) in touched
        and len({sa[q] for q in members[int(group[r])]}) > 1
    }


def pins(res, table) -> dict[int, str]:
    values = [str(v) for v in table.values["s"]]
    return {int(r): values[v] for r, v in enumerate(res.pinned_value) if v >= 0}


def test_strict_rule_uses_members_ranked_below_t(partition_of):
    """Hand example (ℓ = 3, t_i at x = i, rows 0..11 hold e e e a d c c a c d b d).

    Hilb: buckets e{0,1,2} a{3,7} d{4,9,11} c{5,6,8} b{10}. Round 1 takes the three lowest
    heads {0,3,4} (9 left, S_max 3: 9 >= 3·3); round 2 {1,5,7}; round 3 {2,6,9}; then {8,10,11}.
    Algorithm 7: G1 = {0,3,4} passes line 5 (12 − 3 >= 3·3) and its range [0,4] holds 1 and 2,
    so it is vulnerable (3 + 1 < 6); the next group fails line 5 (9 − 3 < 3·3).
    Only row 0 of G1 is ranked below rows 1 and 2, so x1 = x2 = x0, which must lie in
    {e,a,d} ∩ {e,c,a} ∩ {e,c,d} = {e}: rows 0, 1, 2 are e. The old reading (any value of G1)
    leaves x1 ∈ {e,a} and x2 ∈ {e,d}: nothing is pinned.
    """
    table = line_table("eeeadccacdbd")
    r = anonymize(table, "hilb", l=3)
    assert partition_of(r.group) == {
        frozenset({0, 3, 4}),
        frozenset({1, 5, 7}),
        frozenset({2, 6, 9}),
        frozenset({8, 10, 11}),
    }
    sa = list("eeeadccacdbd")
    flags = reference_flags(list(range(12)), r.group, sa, 3)
    assert [(t, sorted(g1)) for t, g1, _ in flags] == [(1, [0, 3, 4]), (2, [0, 3, 4])]
    assert determined(r.group, sa, [anywhere(f) for f in flags]) == {}
    assert determined(r.group, sa, [below(f) for f in flags]) == {0: "e", 1: "e", 2: "e"}
    res = hilb_algorithm7(r)
    assert pins(res, table) == {0: "e", 1: "e", 2: "e"}
    assert res.strict_precision == 1.0 and res.conflicts == 0
    assert res.union_count == 9  # {0,3,4} ∪ {1,5,7} ∪ {2,6,9}: unchanged by the strict rule


def test_strict_rule_binds_a_record_by_its_last_flagging_group(partition_of):
    """Hand example (ℓ = 3, rows 0..11 hold g d d d a b f g f c e a).

    Hilb: {0,1,4} (g,d,a), {2,5,6} (d,b,f), {3,7,8} (d,g,f), {9,10,11}. Algorithm 7 flags
    row 2 and row 3 from G1 = {0,1,4} (range [0,4]), then row 3 again from G1 = {2,5,6}
    (range [2,6], 9 − 3 >= 3·2). Row 2 ∈ {x0, x1} ∩ {d,b,f} ∩ {g,d,a} = {d}. By the first flag
    alone row 3 ∈ {x0, x1} ∩ {d,g,f} = {g,d}; the second flag says x3 = x2 = d.
    """
    table = line_table("gdddabfgfcea")
    r = anonymize(table, "hilb", l=3)
    assert partition_of(r.group) == {
        frozenset({0, 1, 4}),
        frozenset({2, 5, 6}),
        frozenset({3, 7, 8}),
        frozenset({9, 10, 11}),
    }
    sa = list("gdddabfgfcea")
    flags = reference_flags(list(range(12)), r.group, sa, 3)
    assert [(t, sorted(g1)) for t, g1, _ in flags] == [
        (2, [0, 1, 4]),
        (3, [0, 1, 4]),
        (3, [2, 5, 6]),
    ]
    first: dict = {}
    for f in flags:
        first.setdefault(f[0], below(f))
    assert determined(r.group, sa, list(first.values())) == {2: "d"}
    assert determined(r.group, sa, [below(f) for f in flags]) == {2: "d", 3: "d"}
    res = hilb_algorithm7(r)
    assert pins(res, table) == {2: "d", 3: "d"}
    assert res.strict_precision == 1.0 and res.conflicts == 0


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 3),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 4)), min_size=5, max_size=11),
)
def test_strict_pins_are_determined_by_the_flags(l, rows):
    """Soundness against enumeration: every pin is a value that all assignments meeting the
    group multisets and every flag of Algorithm 7 give that record (the propagation may pin
    fewer: it is a lower bound)."""
    xs, codes = zip(*rows, strict=True)
    if l * np.bincount(codes).max() > len(codes):
        return  # not ℓ-eligible
    sa = [str(c) for c in codes]
    t = Table.from_frame(
        pd.DataFrame({"x": xs, "y": [(3 * x + i) % 4 for i, x in enumerate(xs)], "s": sa}),
        quasi_identifiers=["x", "y"],
        sensitive="s",
    )
    r = anonymize(t, "hilb", l=l)
    res = hilb_algorithm7(r)
    flags = reference_flags(hilbert_keys(r).tolist(), r.group, sa, l)
    assert set(np.flatnonzero(res.flagged_records)) == {f[0] for f in flags}
    truth = determined(r.group, sa, [below(f) for f in flags])
    got = pins(res, t)
    assert got.items() <= truth.items()
    assert res.conflicts == 0 and res.candidate_ok[res.flagged_records].all()
