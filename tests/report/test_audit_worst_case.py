"""The audit's worst-case verdict: (c,k)-safety at a small k (default one implication), with
the curve to k_max beside it. Expected values are derived by hand from Martin et al.'s
Formula (1), Pr(A | B, A_1 -> A) = 1 / (1 + R), R = Pr(not A and not A_1 | B) / Pr(A | B), and by
enumerating the worlds of tiny releases."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.report import audit


def _release(make_table, buckets: list[str], l: int) -> Release:
    """One bucket per string, one record per letter (the sensitive value)."""
    s = [v for b in buckets for v in b]
    group = np.repeat(np.arange(len(buckets)), [len(b) for b in buckets])
    table = make_table({"q": [f"q{i}" for i in range(len(s))], "s": s}, qi=["q"], sensitive="s")
    manifest = {"algorithm": "anatomy", "parameters": {"l": l}}
    return Release(table, group, "bucketization", manifest)


def test_one_implication_harmless_while_the_curve_still_rises(make_table):
    # Two buckets of four distinct values, promise 1/ℓ = 1/2. Prior 1/4. One implication: within
    # a bucket at best "Ann has not b" (R = (2/4)/(1/4) = 2, disclosure 1/3); across buckets
    # R = (3/4)(3/4)/(1/4) = 9/4, disclosure 4/13. Both stay below 1/2: nobody at risk at k = 1.
    # Three implications deny Ann three values: disclosure 1.
    release = _release(make_table, ["abcd", "efgh"], l=2)
    f = audit(release, stages=["worst-case"], k_max=4).finding("worst-case")
    curve = f.measures["curve_implications"]
    assert curve[0] == pytest.approx(0.25) and curve[1] == pytest.approx(1 / 3)
    assert curve[3] == 1.0 and list(curve) == sorted(curve)
    assert f.verdict == "pass" and f.at_risk == 0 and f.considered == 8
    assert "0 records" in f.headline and "after 1 implication" in f.headline
    # the curve still rises above the promise: everybody by k = 3 (the k = 2 value is <= 1/2)
    assert f.measures["records_above_promise_by_k"][0] == 0
    assert f.measures["records_above_promise_by_k"][1] == 0
    assert f.measures["records_above_promise_by_k"][3] == 8
    first = f.measures["smallest_k_above_promise"]
    assert sum(first.values()) == 8 and first["0"] == first["1"] == 0
    assert f.measures["smallest_k_certain"]["3"] == 8
    # judged at k = 3 instead, everybody is at risk
    g = audit(release, stages=["worst-case"], k_max=4, worst_case_k=3).finding("worst-case")
    assert g.verdict == "at risk" and g.at_risk == 8


def test_verdict_flags_exactly_the_groups_without_slack(make_table):
    # "abcd" buckets: prior 1/4; best single implication: across into an "aabc" bucket, where
    # the atom "Bob has a" has Pr(not A_1) = 1/2: R = (3/4)(1/2)/(1/4) = 3/2, disclosure 2/5;
    # within the bucket 1/3 (a negation, or "if Bob has a then Ann has a": Pr(neither has a) =
    # (3/4)(2/3) = 1/2, R = 2). Below 1/2. "aabc" buckets: prior 1/2, at the promise; "if Bob
    # has a then Ann has a" gives Pr(neither) = (2/4)(1/3) = 1/6, R = 1/3, disclosure 3/4 > 1/2
    # (a negation gives 2/3). So exactly the 2 x 4 records of the "aabc" buckets are at risk.
    release = _release(make_table, ["abcd", "efgh", "aabc", "ccde"], l=2)
    f = audit(release, stages=["worst-case"], k_max=2).finding("worst-case")
    assert f.at_risk == 8 and f.considered == 16
    assert f.measures["smallest_k_above_promise"]["1"] == 8
    assert f.measures["curve_implications"][1] == pytest.approx(3 / 4)
    assert f.worst and f.worst[0]["probability"] == pytest.approx(3 / 4)
    assert f.worst[0]["group"] in (2, 3) and f.worst[0]["random_worlds"] == pytest.approx(0.5)
    # k = 0: no knowledge, the promise holds with equality: nobody above it
    g = audit(release, stages=["worst-case"], k_max=2, worst_case_k=0).finding("worst-case")
    assert g.verdict == "pass" and g.at_risk == 0


def _disclosure_by_enumeration(buckets: list[str], implications, target: int, value: str):
    """Pr(record ``target`` has ``value`` | the implications) over every consistent world."""
    base = [v for b in buckets for v in b]
    sizes = [len(b) for b in buckets]
    starts = np.cumsum([0, *sizes])
    hits = total = 0
    for perms in itertools.product(*(set(itertools.permutations(b)) for b in buckets)):
        world = [v for p in perms for v in p]
        assert sorted(world) == sorted(base) and len(starts) == len(buckets) + 1
        if all(world[i] != x or world[j] == y for i, x, j, y in implications):
            total += 1
            hits += world[target] == value
    return Fraction(hits, total)


def test_certainty_through_another_groups_small_domain(make_table):
    # Group 0 = {a, b} (records 0, 1), group 1 = {c, d, e, f} (records 2..5). Two implications
    # "if record 0 has a then record 2 has c" and "if record 0 has b then record 2 has c" pin
    # record 2 (enumerated below): every record of group 1 is certain at k = 2, though its own
    # bucket would need 3 negations. Group 0 is pinned by 1 ("record 0 has not b").
    buckets = ["ab", "cdef"]
    pinned = _disclosure_by_enumeration(buckets, [(0, "a", 2, "c"), (0, "b", 2, "c")], 2, "c")
    assert pinned == 1
    assert _disclosure_by_enumeration(buckets, [(0, "b", 0, "a")], 0, "a") == 1
    release = _release(make_table, buckets, l=2)
    f = audit(release, stages=["worst-case"], k_max=4).finding("worst-case")
    certain = f.measures["smallest_k_certain"]
    assert certain["1"] == 2 and certain["2"] == 4 and certain["> 4"] == 0
    assert f.measures["records_above_promise_by_k"][2:] == [6, 6, 6]


def test_worst_case_k_must_lie_on_the_curve(make_table):
    release = _release(make_table, ["abcd", "efgh"], l=2)
    with pytest.raises(AnonlabError, match="worst_case_k"):
        audit(release, stages=["worst-case"], k_max=2, worst_case_k=3)
    with pytest.raises(AnonlabError, match="worst_case_k"):
        audit(release, stages=["worst-case"], worst_case_k=-1)


def test_settings_record_the_verdicts_k(make_table):
    release = _release(make_table, ["abcd", "efgh"], l=2)
    a = audit(release, stages=["worst-case"], k_max=3, worst_case_k=2)
    assert a.settings["worst_case_k"] == 2 and "tick" not in a.settings
    f = a.finding("worst-case")
    assert f.settings == {"k_max": 3, "worst_case_k": 2} and f.measures["verdict_k"] == 2


def _brute_force_by_group(buckets: list[str], k: int) -> list[Fraction]:
    """Per group, the maximum over targets in it, their values and every multiset of k simple
    implications ``A_i -> A`` (Theorem 9: these reach the maximum over all basic implications)
    of Pr(A | implications), by enumerating every consistent world."""
    worlds = np.array(
        [
            [v for p in perms for v in p]
            for perms in itertools.product(
                *(sorted(set(itertools.permutations(b))) for b in buckets)
            )
        ]
    )
    n = worlds.shape[1]
    values = sorted(set("".join(buckets)))
    atoms = [(p, u) for p in range(n) for u in values]
    group = np.repeat(np.arange(len(buckets)), [len(b) for b in buckets])
    best = [Fraction(0)] * len(buckets)
    for t in range(n):
        for v in values:
            a = worlds[:, t] == v
            if not a.any():
                continue
            holds = {atom: (worlds[:, atom[0]] != atom[1]) | a for atom in atoms}
            for chosen in itertools.combinations_with_replacement(atoms, k):
                mask = np.ones(len(worlds), dtype=bool)
                for atom in chosen:
                    mask &= holds[atom]
                p = Fraction(int((a & mask).sum()), int(mask.sum()))
                best[group[t]] = max(best[group[t]], p)
    return best


@settings(max_examples=12, deadline=None)
@given(
    st.lists(
        st.text(alphabet="abc", min_size=2, max_size=3),
        min_size=2,
        max_size=3,
    )
)
def test_per_record_counts_match_brute_force(make_table, buckets):
    k_max = 2
    release = _release(make_table, buckets, l=2)
    f = audit(release, stages=["worst-case"], k_max=k_max).finding("worst-case")
    sizes = np.array([len(b) for b in buckets])
    above, certain = [], []
    for k in range(k_max + 1):
        per_group = _brute_force_by_group(buckets, k)
        above.append(int(sum(sizes[g] for g, p in enumerate(per_group) if p > Fraction(1, 2))))
        certain.append([p == 1 for p in per_group])
    assert f.measures["records_above_promise_by_k"] == above
    assert f.at_risk == above[1]
    first_certain = {str(k): 0 for k in range(k_max + 1)} | {f"> {k_max}": 0}
    for g in range(len(buckets)):
        ks = [k for k in range(k_max + 1) if certain[k][g]]
        first_certain[str(ks[0]) if ks else f"> {k_max}"] += int(sizes[g])
    assert f.measures["smallest_k_certain"] == first_certain


def test_without_a_promised_l_the_baseline_is_the_groups_maximum(make_table):
    # No ℓ or m in the manifest: the promise is random worlds. The worst case speaks of the
    # group's most exposed value, so it is compared with the group's largest random-worlds
    # probability: nobody is above it with no knowledge (k = 0), though record 2 ("b" in a group
    # where "a" has 2/3) has its own value at 1/3. With one implication every group with two or
    # more values is above it (here pinned: "if record 6 has e then the target has a" is
    # certain, record 6 being alone with "e"); the single-record group is not.
    table = make_table(
        {"q": [f"q{i}" for i in range(7)], "s": list("aabcdd") + ["e"]}, qi=["q"], sensitive="s"
    )
    release = Release(table, [0, 0, 0, 1, 1, 1, 2], "bucketization")
    f = audit(release, stages=["worst-case"], k_max=2).finding("worst-case")
    assert "random-worlds" in f.promise
    assert f.measures["records_above_promise_by_k"][0] == 0
    assert f.measures["records_above_promise_by_k"][1] == 6 and f.at_risk == 6
