"""The negative-rule background-knowledge attack (Li & Li, ICDE 2008, §II and §VI-B)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anonlab import AnonlabError, Release, Table
from anonlab.attacks.negative_rules import negative_rule_attack
from anonlab.mining.negative_rules import mine_negative_rules

SEX = list("FFMMFMMMM")
DISEASE = ["OC", "OC", "PC", "Flu", "HD", "HD", "HD", "Flu", "Flu"]
TABLE_II_GROUPS = [0, 0, 0, 1, 1, 1, 2, 2, 2]


def table_one() -> Table:
    df = pd.DataFrame(
        {
            "zip": "47677 47602 47678 47905 47909 47906 47605 47673 47607".split(),
            "age": [29, 22, 27, 43, 52, 47, 30, 36, 32],
            "sex": SEX,
            "disease": DISEASE,
        }
    )
    return Table.from_frame(df, quasi_identifiers=["zip", "age", "sex"], sensitive="disease")


def male_not_oc(table: Table) -> np.ndarray:
    values = list(table.values["disease"])
    inc = np.zeros((table.n_rows, len(values)), dtype=bool)
    inc[table.column("sex") == "M", values.index("OC")] = True
    return inc


def test_table_two_three_vulnerable_by_matching_one_by_exclusion():
    """E4: the anatomized Table II under Sex = M ⇒ ¬OC at ℓ = 2."""
    t = table_one()
    rel = Release(t, TABLE_II_GROUPS, "bucketization", {"parameters": {"l": 2}})
    res = negative_rule_attack(rel, male_not_oc(t))  # ℓ from the manifest
    c = res.counts()
    assert (c["vulnerable_matching"], c["vulnerable_simple"], c["vulnerable_baseline"]) == (3, 1, 0)
    assert (c["pinned_matching"], c["pinned_simple"], c["pinned_baseline"]) == (3, 1, 0)
    assert c["vulnerable_groups_matching"] == 1
    assert res.vulnerable().tolist() == [True] * 3 + [False] * 6
    assert res.n_possible("baseline").tolist() == [2] * 9
    values = np.array(res.values)
    assert values[res.pinned_value()[:3]].tolist() == ["OC", "OC", "PC"]  # Bob: prostate cancer
    assert res.pinned_value()[3:].tolist() == [-1] * 6
    score = res.score(rel)
    assert score["disclosed_matching"] == 3 and score["disclosed_simple"] == 1
    assert score["true_value_possible_matching"] == 9


def test_mined_rule_gives_the_same_attack():
    """minExp 0.75 on Table I mines exactly Sex = M ⇒ ¬OC (notes E3); same result as by hand."""
    t = table_one()
    rules = mine_negative_rules(t, min_expectation=0.75)
    assert len(rules) == 1
    rel = Release(t, TABLE_II_GROUPS, "bucketization")
    a = negative_rule_attack(rel, rules, l=2)
    b = negative_rule_attack(rel, male_not_oc(t), l=2)
    assert (a.possible_matching == b.possible_matching).all()
    assert a.counts() == b.counts()


def test_generalized_release_uses_the_worst_case_reduction():
    t = table_one()
    inc = male_not_oc(t)
    gen = negative_rule_attack(Release(t, TABLE_II_GROUPS, "generalization"), inc, l=2)
    buck = negative_rule_attack(Release(t, TABLE_II_GROUPS, "bucketization"), inc, l=2)
    assert (gen.possible_matching == buck.possible_matching).all()
    assert gen.counts() == buck.counts()


def test_perturbed_values_contradicting_the_rules_are_reported():
    """A published OC on a group of men: no assignment exists; the simple reading is used."""
    t = table_one()
    codes = t.codes["disease"].copy()
    oc = list(t.values["disease"]).index("OC")
    codes[3] = oc  # group 1 (t4, t5, t6) publishes OC for the man t4
    codes[4] = oc  # and for the woman t5: two OC slots, one woman
    rel = Release(t, TABLE_II_GROUPS, "bucketization", published_sensitive=codes)
    res = negative_rule_attack(rel, male_not_oc(t), l=2)
    assert res.consistent_groups.tolist() == [True, False, True]
    assert res.counts()["inconsistent_groups"] == 1
    assert (res.possible_matching[3:6] == res.possible_simple[3:6]).all()


def test_json_and_per_record():
    t = table_one()
    rel = Release(t, TABLE_II_GROUPS, "bucketization")
    res = negative_rule_attack(rel, male_not_oc(t), l=2)
    js = json.loads(json.dumps(res.to_json(per_record=True)))
    assert js["vulnerable_matching"] == 3 and js["attack"] == "negative-rules"
    assert js["records_by_possible_values"]["matching"][:3] == [0, 3, 6]
    assert js["per_record"]["pinned_value"][:4] == ["OC", "OC", "PC", None]
    assert len(js["per_record"]["possible_simple"]) == 9
    assert not res.possible_matching.flags.writeable


def test_bad_input():
    t = table_one()
    rel = Release(t, TABLE_II_GROUPS, "bucketization")
    with pytest.raises(AnonlabError, match="'l' is required"):
        negative_rule_attack(rel, male_not_oc(t))
    with pytest.raises(AnonlabError, match="shape"):
        negative_rule_attack(rel, np.zeros((2, 4), dtype=bool), l=2)
    with pytest.raises(AnonlabError, match="Release"):
        negative_rule_attack(t, male_not_oc(t), l=2)


def test_rules_with_hierarchy_nodes_on_a_release_without_that_hierarchy():
    """Rules mined with a ZIP hierarchy, release table without it: ``rules_table`` says what
    the nodes mean; the result equals the attack on a release of the original table."""
    from anonlab import Hierarchy

    zips = "47677 47602 47678 47905 47909 47906 47605 47673 47607".split()
    zip_tree = Hierarchy([[z, z[:4] + "*", z[:3] + "**"] for z in sorted(set(zips))], name="zip")
    df = pd.DataFrame({"zip": zips, "sex": SEX, "disease": DISEASE})
    original = Table.from_frame(
        df, quasi_identifiers=["zip", "sex"], sensitive="disease", hierarchies={"zip": zip_tree}
    )
    plain = Table.from_frame(df, quasi_identifiers=["zip", "sex"], sensitive="disease")
    rules = mine_negative_rules(original, min_expectation=0.7)
    assert any(c.value.endswith("*") for r in rules for c in r.conditions)  # uses a node
    with pytest.raises(AnonlabError):
        negative_rule_attack(Release(plain, TABLE_II_GROUPS, "bucketization"), rules, l=2)
    got = negative_rule_attack(
        Release(plain, TABLE_II_GROUPS, "bucketization"), rules, l=2, rules_table=original
    )
    want = negative_rule_attack(Release(original, TABLE_II_GROUPS, "bucketization"), rules, l=2)
    assert (got.possible_matching == want.possible_matching).all()
    assert got.counts() == want.counts() and got.excluded_pairs > 0
