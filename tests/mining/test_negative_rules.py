"""Negative rule mining (Li & Li, ICDE 2008, §IV): the notes' worked examples and brute force."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.mining import (
    Condition,
    NegativeRuleSet,
    count_threshold,
    expectation,
    incompatibility_distribution,
    mine_negative_rules,
)
from anonlab.mining.itemsets import ItemCatalog, condition_cover
from anonlab.table import Table

OC, PC, FLU, HD = "Ovarian Cancer", "Prostate Cancer", "Flu", "Heart Disease"


# ---------------------------------------------------------------------- the measure
def test_count_threshold_generic_example():
    # notes §10 E2: p = 0.1, minExp = 0.9 -> ln 0.1 / ln 0.9 = 21.854 records
    assert count_threshold(0.1, 0.9) == pytest.approx(21.854, abs=5e-4)
    assert count_threshold(0.1, 0.9) == pytest.approx(math.log(0.1) / math.log(0.9))


def test_count_thresholds_table_one():
    # notes §10 E2 at minExp 0.75 and 0.7 (p = 2/9, 1/9, 3/9)
    p = np.array([2 / 9, 1 / 9, 3 / 9])
    assert count_threshold(p, 0.75) == pytest.approx([5.516, 11.77, 3.419], abs=5e-3)
    assert count_threshold(p, 0.7) == pytest.approx([4.79, 10.22, 2.969], abs=5e-3)
    assert count_threshold(0.0, 0.9) == math.inf
    assert count_threshold(1.0, 0.9) == 0.0


def test_expectation_values():
    assert expectation(2 / 9, 6) == pytest.approx(0.7786226, abs=1e-7)
    assert expectation(1 / 9, 3) == pytest.approx(0.2976680, abs=1e-7)
    assert expectation(3 / 9, 3) == pytest.approx(0.7037037, abs=1e-7)


# ---------------------------------------------------------------------- Table I
def test_table_one_at_075_one_rule(table_one):
    rules = mine_negative_rules(table_one, 0.75, max_conditions=3)
    assert len(rules) == 1 and rules.n_unpruned == 1
    (rule,) = rules.rules
    assert rule.conditions == (Condition("sex", 0, "M"),)
    assert rule.sensitive_value == OC
    assert rule.support_count == 6
    assert rule.expectation == pytest.approx(0.77862, abs=5e-6)
    ivs = rules.incompatibility(table_one)
    oc = list(table_one.values["disease"]).index(OC)
    males = table_one.column("sex") == "M"
    assert ivs.shape == (9, 4) and ivs.dtype == bool
    assert np.array_equal(ivs[:, oc], males)
    assert ivs.sum() == 6


def _keys(rules):
    return {(tuple((c.attribute, c.value) for c in r.conditions), r.sensitive_value) for r in rules}


def test_table_one_at_07_redundancy(table_one):
    # notes §10 E3: 8 rules, of which 5 are most general
    minimal = {
        ((("zip", "4767*"),), HD),
        ((("age", "[20-29]"),), FLU),
        ((("age", "[20-29]"),), HD),
        ((("sex", "F"),), FLU),
        ((("sex", "M"),), OC),
    }
    redundant = {
        ((("zip", "476**"), ("age", "[20-29]")), FLU),
        ((("zip", "476**"), ("age", "[20-29]")), HD),
        ((("zip", "4767*"), ("age", "[20-39]")), HD),
    }
    pruned = mine_negative_rules(table_one, 0.7, max_conditions=3)
    everything = mine_negative_rules(table_one, 0.7, max_conditions=3, prune_redundant=False)
    assert _keys(pruned) == minimal
    assert _keys(everything) == minimal | redundant
    assert pruned.n_unpruned == 8 == len(everything)
    for r in pruned:
        assert r.support_count in (3, 6)
    # pruning never changes the knowledge
    assert np.array_equal(pruned.incompatibility(table_one), everything.incompatibility(table_one))
    ivs = pruned.incompatibility(table_one)
    values = list(table_one.values["disease"])
    want = [
        {FLU, HD},
        {FLU, HD},
        {OC, FLU, HD},
        {OC},
        {FLU},
        {OC},
        {OC},
        {OC, HD},
        {OC},
    ]
    got = [{values[s] for s in np.flatnonzero(row)} for row in ivs]
    assert got == want
    # one condition: the same five rules (all minimal rules here have one condition)
    assert _keys(mine_negative_rules(table_one, 0.7)) == minimal


def test_distribution_table_one(table_one):
    d = mine_negative_rules(table_one, 0.7, 3).distribution(table_one)
    assert d["counts"][:4] == [0, 5, 3, 1]
    assert d["paper_view_counts"] == {"N0": 0, "N1": 5, "N2": 3, "N3": 1, "N4": 0, "N>=5": 0}
    assert d["paper_view"]["N1"] == pytest.approx(5 / 9)
    assert sum(d["shares"]) == pytest.approx(1.0)


def test_incompatibility_distribution_buckets():
    d = incompatibility_distribution(np.array([0, 1, 1, 2, 5, 7, 9]))
    assert d["counts"] == [1, 2, 1, 0, 0, 1, 0, 1, 0, 1]
    assert d["paper_view_counts"]["N>=5"] == 3
    assert d["paper_view"]["N1"] == pytest.approx(2 / 7)


# ---------------------------------------------------------------------- files and errors
def test_json_round_trip(table_one, tmp_path):
    rules = mine_negative_rules(table_one, 0.7, 3)
    path = rules.write(tmp_path / "rules.json")
    back = NegativeRuleSet.read(path, table_one)
    assert back == rules
    assert np.array_equal(back.incompatibility(table_one), rules.incompatibility(table_one))
    payload = json.loads(path.read_text())
    assert payload["format"] == "anonlab-negative-rules"
    assert payload["rules"][0]["conditions"][0].keys() == {"attribute", "level", "value"}
    assert [p.name for p in tmp_path.iterdir()] == ["rules.json"]


def _payload(**rule):
    base = {"conditions": [{"attribute": "sex", "level": 0, "value": "M"}], "sensitive_value": OC}
    base.update(rule)
    return {"sensitive": "disease", "min_expectation": 0.75, "max_conditions": 1, "rules": [base]}


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (
            _payload(conditions=[{"attribute": "gender", "level": 0, "value": "M"}]),
            ["unknown attribute 'gender'", "'zip', 'age', 'sex'"],
        ),
        (_payload(sensitive_value="Cold"), ["unknown value 'Cold'", "Flu"]),
        (
            _payload(conditions=[{"attribute": "zip", "level": 1, "value": "4799*"}]),
            ["unknown hierarchy node '4799*'", "level 1", "4767*"],
        ),
        (
            _payload(conditions=[{"attribute": "sex", "level": 4, "value": "M"}]),
            ["unknown hierarchy level 4", "0..1"],
        ),
        ({**_payload(), "sensitive": "zip"}, ["'zip'", "'disease'"]),
        ({**_payload(), "min_expectation": 1.0}, ["min_expectation", "(0, 1)"]),
        (_payload(conditions=[]), ["no condition"]),
        ({"rules": []}, ["missing key 'sensitive'"]),
        ([1, 2], ["JSON object"]),
    ],
)
def test_from_json_errors(table_one, payload, words):
    with pytest.raises(AnonlabError) as info:
        NegativeRuleSet.from_json(payload, table_one)
    for w in words:
        assert w in str(info.value)


def test_read_bad_file(table_one, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(AnonlabError, match="not valid JSON"):
        NegativeRuleSet.read(bad, table_one)
    with pytest.raises(AnonlabError, match="cannot read rule file"):
        NegativeRuleSet.read(tmp_path / "missing.json", table_one)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, float("nan")])
def test_min_expectation_outside_unit_interval(table_one, bad):
    with pytest.raises(AnonlabError, match="min_expectation"):
        mine_negative_rules(table_one, bad)


def test_bad_max_conditions_and_no_sensitive(table_one, make_table):
    with pytest.raises(AnonlabError, match="max_conditions"):
        mine_negative_rules(table_one, 0.9, 0)
    plain = make_table({"a": ["x", "y"], "b": ["u", "v"]}, qi=["a"])
    with pytest.raises(AnonlabError, match="no sensitive attribute"):
        mine_negative_rules(plain)


# ---------------------------------------------------------------------- brute force
def _random_hierarchy(draw, name: str, values: list[str]) -> Hierarchy:
    height = draw(st.integers(1, 3))
    rows = [[v] for v in values]
    parents = list(range(len(values)))
    for level in range(1, height):
        n_nodes = max(1, len(set(parents)))
        mapping = {p: draw(st.integers(0, max(0, n_nodes - 2))) for p in sorted(set(parents))}
        parents = [mapping[p] for p in parents]
        for r, p in zip(rows, parents, strict=True):
            r.append(f"{name}{level}_{p}")
    return Hierarchy(rows, name=name)


@st.composite
def small_tables(draw):
    n = draw(st.integers(3, 24))
    n_qi = draw(st.integers(1, 3))
    data, hierarchies = {}, {}
    for j in range(n_qi):
        name = f"q{j}"
        m = draw(st.integers(2, 5))
        values = [f"{name}v{i}" for i in range(m)]
        col = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
        present = [v for v in values if v in col]
        data[name] = col
        if draw(st.booleans()):
            hierarchies[name] = _random_hierarchy(draw, name, present)
    n_s = draw(st.integers(2, 4))
    data["s"] = draw(
        st.lists(st.sampled_from([f"s{i}" for i in range(n_s)]), min_size=n, max_size=n)
    )
    table = Table.from_frame(
        pd.DataFrame(data),
        quasi_identifiers=[f"q{j}" for j in range(n_qi)],
        sensitive="s",
        hierarchies=hierarchies,
    )
    return table


def _all_conditions(table: Table):
    """Every (attribute, level, node) below the root, including nodes equal to others."""
    out = []
    for name in table.quasi_identifiers:
        h = table.schema[name].hierarchy
        top = 1 if h is None else h.height
        for level in range(top):
            labels = [str(v) for v in table.values[name]] if h is None else list(h.labels(level))
            for label in labels:
                cond = Condition(name, level, label)
                cover = condition_cover(table, cond)
                if cover.any() and not cover.all():
                    out.append((cond, frozenset(np.flatnonzero(cover).tolist())))
    return out


def _brute_force(table: Table, min_exp: float, max_conditions: int):
    """Rules by definition, with plain loops: {(frozenset of (attribute, cover)), value}."""
    rows = table.to_frame()
    n = len(rows)
    sens = table.sensitive
    values = [str(v) for v in table.values[sens]]
    codes = {q: table.codes[q].tolist() for q in table.quasi_identifiers}
    p = {v: sum(1 for x in rows[sens] if str(x) == v) / n for v in values}
    items = {}
    for cond, cover in _all_conditions(table):
        items.setdefault((cond.attribute, cover), cond)  # canonical: same attribute and cover
    keys = list(items)
    rules = set()
    for k in range(1, max_conditions + 1):
        for combo in itertools.combinations(keys, k):
            if len({a for a, _ in combo}) < k:
                continue
            match = [r for r in range(n) if all(codes[a][r] in cover for a, cover in combo)]
            for v in values:
                if not 0 < p[v] < 1 or not match:
                    continue
                exp = 1 - (1 - p[v]) ** len(match)
                # exp == min_exp holds exactly when (1 - p)^|match| = 1 - min_exp; allow for
                # rounding (e.g. p = 0.2, one record, min_exp = 0.2 gives 0.19999999999999996)
                if exp >= min_exp - 1e-12 and all(str(rows[sens].iloc[r]) != v for r in match):
                    rules.add((frozenset(combo), v))
    minimal = set()
    for x, v in rules:
        general = any(
            v2 == v and x2 != x and all(any(a == a2 and c <= c2 for a, c in x) for a2, c2 in x2)
            for x2, v2 in rules
        )
        if not general:
            minimal.add((x, v))
    return rules, minimal


def _canonical(table: Table, rules) -> set:
    out = set()
    for r in rules:
        x = frozenset(
            (c.attribute, frozenset(np.flatnonzero(condition_cover(table, c)).tolist()))
            for c in r.conditions
        )
        out.add((x, r.sensitive_value))
    return out


@settings(max_examples=100, deadline=None)
@given(
    table=small_tables(),
    min_exp=st.sampled_from([0.2, 0.35, 0.5, 0.65, 0.8, 0.9]),
    max_conditions=st.integers(1, 3),
)
def test_miner_equals_brute_force(table, min_exp, max_conditions):
    every, minimal = _brute_force(table, min_exp, max_conditions)
    got_all = mine_negative_rules(table, min_exp, max_conditions, prune_redundant=False)
    got = mine_negative_rules(table, min_exp, max_conditions)
    assert _canonical(table, got_all) == every
    assert len(got_all) == len(every) == got.n_unpruned
    assert _canonical(table, got) == minimal
    assert len(got) == len(minimal)
    # the exclusions are those of the rules, by definition, and pruning does not change them
    ivs = got.incompatibility(table)
    want = np.zeros_like(ivs)
    values = [str(v) for v in table.values[table.sensitive]]
    for x, v in every:
        for r in range(table.n_rows):
            if all(int(table.codes[a][r]) in c for a, c in x):
                want[r, values.index(v)] = True
    assert np.array_equal(ivs, want)
    for rule in got:
        assert rule.expectation >= min_exp - 1e-12
        assert rule.support_count == int(rule.matches(table).sum())


def test_catalog_merges_equal_nodes_and_drops_root(make_table):
    h = Hierarchy(
        [["w", "White", "*"], ["b", "Non-white", "*"], ["a", "Non-white", "*"]], name="race"
    )
    t = make_table(
        {"race": ["w", "b", "a", "w"], "s": ["x", "y", "x", "y"]},
        qi=["race"],
        sensitive="s",
        hierarchies={"race": h},
    )
    cat = ItemCatalog.from_table(t)
    conds = {cat.condition(i) for i in range(len(cat))}
    assert conds == {
        Condition("race", 1, "White"),
        Condition("race", 1, "Non-white"),
        Condition("race", 0, "b"),
        Condition("race", 0, "a"),
    }
    by_label = {cat.labels[i]: i for i in range(len(cat))}
    assert cat.parent[by_label["a"]] == by_label["Non-white"]
    assert cat.parent[by_label["White"]] == -1


def test_compressed_counting_and_rule_by_rule_paths_agree(monkeypatch):
    """The np.unique path (huge signatures) and the rule-by-rule incompatibility path give the
    same results as the direct ones."""
    from anonlab.mining import itemsets, negative_rules

    rng = np.random.default_rng(7)
    n = 400
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 30, n),
            "b": rng.choice([f"b{i}" for i in range(6)], n),
            "c": rng.choice(["x", "y", "z"], n),
            "s": rng.choice([f"s{i}" for i in range(5)], n, p=[0.4, 0.3, 0.15, 0.1, 0.05]),
        }
    )
    h = Hierarchy.intervals(np.unique(frame["a"]), (5, 10), name="a")
    table = Table.from_frame(
        frame, quasi_identifiers=["a", "b", "c"], sensitive="s", hierarchies={"a": h}
    )
    direct = mine_negative_rules(table, 0.6, 3, prune_redundant=False)
    inc = direct.incompatibility(table)
    monkeypatch.setattr(itemsets, "_DIRECT_BINS", 0)
    monkeypatch.setattr(negative_rules, "_GATHER_LIMIT", 0)
    other = mine_negative_rules(table, 0.6, 3, prune_redundant=False)
    assert len(direct) > 10 and any(len(r.conditions) == 3 for r in direct)
    assert {(r.conditions, r.sensitive_value, r.support_count) for r in other} == {
        (r.conditions, r.sensitive_value, r.support_count) for r in direct
    }
    assert np.array_equal(other.incompatibility(table), inc)
