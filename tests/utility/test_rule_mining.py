"""Rule-mining utility (Li & Li, ICDE 2008, §VI-C): conviction rules, confidence and
identification error of a bucketized release, against hand values and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.mining import Condition, mine_association_rules
from anonlab.mining.itemsets import condition_cover
from anonlab.release import Release
from anonlab.table import Table
from anonlab.utility import measure
from anonlab.utility.rule_mining import bucket_probabilities, rule_mining_error


def test_conviction_worked_example(make_table):
    # notes §10 E9: P(X) = 0.2, P(Y) = 0.3, P(X ∧ ¬Y) = 0.1 -> conviction 0.2 * 0.7 / 0.1 = 1.4
    t = make_table(
        {
            "a": ["x", "x"] + ["o"] * 8,
            "s": ["y", "n", "y", "y"] + ["n"] * 6,
        },
        qi=["a"],
        sensitive="s",
    )
    rules = mine_association_rules(t, min_support=0.05, min_conviction=0.0, max_conditions=1)
    by_key = {(r.conditions, r.sensitive_value): r for r in rules.rules}
    r = by_key[((Condition("a", 0, "x"),), "y")]
    assert r.conviction == pytest.approx(1.4)
    assert r.support == pytest.approx(0.1) and r.confidence == pytest.approx(0.5)
    assert r.count == 2
    # a = o: 2 of its 8 records have y (confidence 0.25 < P(y) = 0.3): conviction below 1
    r = by_key[((Condition("a", 0, "o"),), "y")]
    assert r.conviction == pytest.approx(0.8 * 0.7 / 0.6)


def test_confidence_one_has_infinite_conviction(make_table):
    t = make_table(
        {"a": ["x"] * 4 + ["o"] * 4, "s": ["y"] * 4 + ["y", "n", "n", "n"]}, qi=["a"], sensitive="s"
    )
    rules = mine_association_rules(t, min_support=0.1, min_conviction=1.2, max_conditions=1)
    by_key = {(r.conditions, r.sensitive_value): r for r in rules.rules}
    rule = by_key[((Condition("a", 0, "x"),), "y")]
    assert rule.conviction == np.inf and rule.confidence == 1.0
    assert rule.to_json()["conviction"] is None  # JSON has no infinity


def test_confidence_error_worked_example(make_table):
    # notes §10 E9: one rule with org confidence 0.50 and rec confidence 0.40 -> 20 %.
    # X = (a = x) holds for 10 records, 5 of them with value y. One bucket of 20 records holds
    # all of them and 10 others (3 with y): rec confidence = (5 + 3) / 20 = 0.4.
    a = ["x"] * 10 + ["o"] * 10
    s = ["y"] * 5 + ["n"] * 5 + ["y"] * 3 + ["n"] * 7
    t = make_table({"a": a, "s": s}, qi=["a"], sensitive="s")
    release = Release(t, np.zeros(20, dtype=np.int64), "bucketization")
    result = rule_mining_error(release, min_support=0.2, min_conviction=0.0, max_conditions=1)
    org = {(r.conditions, r.sensitive_value): r for r in result.original.rules}
    rec = {(r.conditions, r.sensitive_value): r for r in result.reconstructed.rules}
    key = ((Condition("a", 0, "x"),), "y")
    assert org[key].confidence == pytest.approx(0.5)
    assert rec[key].confidence == pytest.approx(0.4)
    # rules: (x, y) 0.5, (x, n) 0.5, (o, n) 0.7; with support >= 0.2 and (o, y) 0.3 has 0.15
    errors = {
        ((Condition("a", 0, "x"),), "y"): abs(0.4 - 0.5) / 0.5,
        ((Condition("a", 0, "x"),), "n"): abs(0.6 - 0.5) / 0.5,
        ((Condition("a", 0, "o"),), "n"): abs(0.6 - 0.7) / 0.7,
    }
    assert set(org) == set(errors)
    assert result.confidence_error == pytest.approx(np.mean(list(errors.values())))
    assert result.value == result.confidence_error


def test_identity_release_has_no_error(make_table):
    rng = np.random.default_rng(3)
    t = make_table(
        {
            "a": rng.choice(["p", "q", "r"], 200),
            "b": rng.choice(["u", "v"], 200),
            "s": rng.choice(["s1", "s2", "s3"], 200, p=[0.6, 0.3, 0.1]),
        },
        qi=["a", "b"],
        sensitive="s",
    )
    t = t.take(np.argsort(t.codes["a"] * 10 + t.codes["s"], kind="stable"))
    own = Release(t, np.arange(t.n_rows), "bucketization")
    r = rule_mining_error(own, min_support=0.02, min_conviction=1.05, max_conditions=2)
    assert r.n_original_rules > 0
    assert r.confidence_error == pytest.approx(0.0, abs=1e-12)
    assert r.false_positive == 0.0 and r.false_negative == 0.0
    assert r.n_common_rules == r.n_original_rules == r.n_reconstructed_rules
    # one bucket: every estimated confidence is the global frequency, conviction 1
    one = Release(t, np.zeros(t.n_rows, dtype=np.int64), "bucketization")
    r1 = rule_mining_error(one, min_support=0.02, min_conviction=1.05, max_conditions=2)
    assert r1.n_reconstructed_rules == 0
    assert r1.false_negative == 1.0 and r1.false_positive == 0.0
    via_registry = measure(one, "rule-mining-error", min_support=0.02, min_conviction=1.05)
    assert via_registry.to_json()["measure"] == "rule-mining-error"


def test_errors(make_table):
    t = make_table({"a": ["x", "y"] * 5, "s": ["p", "q"] * 5}, qi=["a"], sensitive="s")
    gen = Release(t, np.zeros(10, dtype=np.int64), "generalization")
    with pytest.raises(AnonlabError, match="bucketized release"):
        rule_mining_error(gen)
    bucket = gen.with_scheme("bucketization")
    with pytest.raises(AnonlabError, match="no rule has support"):
        rule_mining_error(bucket, min_support=0.9)
    with pytest.raises(AnonlabError, match="min_support"):
        mine_association_rules(t, min_support=0.0)
    with pytest.raises(AnonlabError, match="max_conditions"):
        mine_association_rules(t, max_conditions=0)


# ---------------------------------------------------------------------- brute force
@st.composite
def bucketized(draw):
    n = draw(st.integers(4, 30))
    data = {}
    hierarchies = {}
    for name in ("a", "b", "c"):
        m = draw(st.integers(2, 4))
        values = [f"{name}{i}" for i in range(m)]
        data[name] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
        present = sorted(set(data[name]))
        if draw(st.booleans()) and len(present) > 2:
            rows = [[v, f"{name}_top{int(i < len(present) // 2)}"] for i, v in enumerate(present)]
            hierarchies[name] = Hierarchy(rows, name=name)
    data["s"] = draw(st.lists(st.sampled_from(["s0", "s1", "s2"]), min_size=n, max_size=n))
    table = Table.from_frame(
        pd.DataFrame(data),
        quasi_identifiers=["a", "b", "c"],
        sensitive="s",
        hierarchies=hierarchies,
    )
    groups = draw(st.lists(st.integers(0, max(0, n // 3)), min_size=n, max_size=n))
    return Release(table, np.array(groups), "bucketization")


def _brute(release: Release, min_support: float, min_conviction: float, max_conditions: int):
    """(rule -> (org_conf, rec_conf)) for the original rules, and the two rule sets, by loops."""
    t = release.table
    n = t.n_rows
    values = [str(v) for v in t.values["s"]]
    s_of = [values[c] for c in t.codes["s"].tolist()]
    groups = release.group.tolist()
    members: dict[int, list[int]] = {}
    for r, g in enumerate(groups):
        members.setdefault(g, []).append(r)
    conds = {}
    for name in t.quasi_identifiers:
        h = t.schema[name].hierarchy
        top = 1 if h is None else h.height
        for level in range(top):
            labels = [str(v) for v in t.values[name]] if h is None else list(h.labels(level))
            for lab in labels:
                cov = condition_cover(t, Condition(name, level, lab))
                if cov.any() and not cov.all():
                    conds.setdefault((name, frozenset(np.flatnonzero(cov).tolist())), True)
    keys = list(conds)
    p_org = {v: s_of.count(v) / n for v in values}
    p_rec = p_org  # the published multiset is the original one
    org, rec, conf = set(), set(), {}
    for k in range(1, max_conditions + 1):
        for combo in itertools.combinations(keys, k):
            if len({a for a, _ in combo}) < k:
                continue
            match = [r for r in range(n) if all(int(t.codes[a][r]) in c for a, c in combo)]
            cx = len(match)
            if cx < min_support * n - 1e-9:
                continue
            for v in values:
                c_org = sum(1 for r in match if s_of[r] == v)
                c_rec = sum(
                    sum(1 for m in members[groups[r]] if s_of[m] == v) / len(members[groups[r]])
                    for r in match
                )
                for cxs, p, out in ((c_org, p_org, org), (c_rec, p_rec, rec)):
                    conv = np.inf if cx - cxs <= 1e-9 else cx * (1 - p[v]) / (cx - cxs)
                    if cxs / n >= min_support - 1e-9 and conv >= min_conviction - 1e-9:
                        out.add((frozenset(combo), v))
                conf[(frozenset(combo), v)] = (c_org / cx, c_rec / cx)
    return org, rec, conf


def _canon(table, rules):
    return {
        (
            frozenset(
                (c.attribute, frozenset(np.flatnonzero(condition_cover(table, c)).tolist()))
                for c in r.conditions
            ),
            r.sensitive_value,
        )
        for r in rules
    }


@settings(max_examples=40, deadline=None)
@given(
    release=bucketized(),
    min_support=st.sampled_from([0.05, 0.1, 0.2]),
    min_conviction=st.sampled_from([0.0, 1.1, 1.5]),
    max_conditions=st.integers(1, 3),
)
def test_equals_brute_force(release, min_support, min_conviction, max_conditions):
    org, rec, conf = _brute(release, min_support, min_conviction, max_conditions)
    if not org:
        with pytest.raises(AnonlabError):
            rule_mining_error(
                release,
                min_support=min_support,
                min_conviction=min_conviction,
                max_conditions=max_conditions,
            )
        return
    result = rule_mining_error(
        release,
        min_support=min_support,
        min_conviction=min_conviction,
        max_conditions=max_conditions,
    )
    t = release.table
    assert _canon(t, result.original.rules) == org
    assert _canon(t, result.reconstructed.rules) == rec
    want = np.mean([abs(conf[k][1] - conf[k][0]) / conf[k][0] for k in org])
    assert result.confidence_error == pytest.approx(want)
    assert result.false_positive == pytest.approx(len(rec - org) / len(org))
    assert result.false_negative == pytest.approx(len(org - rec) / len(org))


def test_bucket_probabilities_rows_sum_to_one(make_table):
    t = make_table({"a": list("xyzxyz"), "s": list("pqrppq")}, qi=["a"], sensitive="s")
    rel = Release(t, np.array([0, 0, 1, 1, 1, 2]), "bucketization")
    prob = bucket_probabilities(rel)
    assert prob.shape == (6, 3)
    assert np.allclose(prob.sum(axis=1), 1.0)
    assert np.allclose(prob[0], [0.5, 0.5, 0.0])
    assert np.allclose(prob[5], [0.0, 1.0, 0.0])
