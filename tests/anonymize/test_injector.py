"""Injector's bucketization (Li & Li, ICDE 2008, §V-C, Fig. 2).

References: the notes' worked examples E3 and E7 (hand-traced), and on random tables the
matching ℓ-diversity check, itself tested against brute force over all one-to-one assignments
(tests/models/test_matching_l_diversity.py).
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Table, models
from anonlab.anonymize import anonymize
from anonlab.anonymize.injector import injector, unprotectable_records
from anonlab.errors import IneligibleError

SEX = list("FFMMFMMMM")
DISEASE = ["OC", "OC", "PC", "Flu", "HD", "HD", "HD", "Flu", "Flu"]


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


def ivs_matrix(table: Table, ivs: list[set[str]]) -> np.ndarray:
    values = list(table.values["disease"])
    inc = np.zeros((table.n_rows, len(values)), dtype=bool)
    for i, s in enumerate(ivs):
        for v in s:
            inc[i, values.index(v)] = True
    return inc


#: IVS at minExp 0.75: the one rule Sex = M ⇒ ¬OC (notes E3).
IVS_075 = [set() if s == "F" else {"OC"} for s in SEX]
#: IVS at minExp 0.7 with the toy hierarchies (notes E3, second table).
IVS_07 = [
    {"Flu", "HD"},
    {"Flu", "HD"},
    {"OC", "Flu", "HD"},
    {"OC"},
    {"Flu"},
    {"OC"},
    {"OC"},
    {"OC", "HD"},
    {"OC"},
]


def buckets(release) -> set[frozenset[int]]:
    rows = release.table.row_id
    return {frozenset(rows[release.group == g].tolist()) for g in range(release.n_groups)}


def matching_holds(release, inc: np.ndarray, l: int) -> bool:
    return models.check(release, "matching-l-diversity", l=l, incompatibility=inc).holds


# ---------------------------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------------------------


def test_table_one_at_l2_is_the_hand_traced_bucketization():
    """E7, ℓ = 2: {t1, t5, t2}, {t4, t3}, {t6, t8}, {t7, t9} (0-based below)."""
    t = table_one()
    inc = ivs_matrix(t, IVS_075)
    rel = injector(t, 2, rules=inc)
    assert buckets(rel) == {
        frozenset({0, 4, 1}),
        frozenset({3, 2}),
        frozenset({5, 7}),
        frozenset({6, 8}),
    }
    assert rel.scheme == "bucketization"
    assert rel.manifest["algorithm"] == "injector"
    assert rel.manifest["phase1_groups"] == 4 and rel.manifest["leftover_records"] == 1
    assert rel.manifest["suppressed_records"] == 0
    assert matching_holds(rel, inc, 2)


def test_table_one_at_l3_is_one_bucket():
    """E7, ℓ = 3: the only matching-3-diverse partition is the whole table."""
    t = table_one()
    rel = injector(t, 3, rules=ivs_matrix(t, IVS_075))
    assert buckets(rel) == {frozenset(range(9))}


def test_mined_rules_give_the_same_bucketization():
    """Mining at minExp 0.75 finds Sex = M ⇒ ¬OC, so the result is E7's."""
    t = table_one()
    mined = injector(t, 2, min_expectation=0.75)
    given_rules = injector(t, 2, rules=ivs_matrix(t, IVS_075))
    assert buckets(mined) == buckets(given_rules)
    assert mined.manifest["rules"] == "mined" and mined.manifest["n_rules"] == 1
    assert mined.manifest["parameters"]["min_expectation"] == 0.75
    assert mined.manifest["rules_min_expectation"] == 0.75
    assert mined.manifest["rules_max_conditions"] == 1


def test_unprotectable_records_are_detected_reported_and_suppressed():
    """E3 at minExp 0.7, ℓ = 2: t1, t2, t3, t5, t8 have one valid value even in the whole table."""
    t = table_one()
    inc = ivs_matrix(t, IVS_07)
    assert unprotectable_records(t.codes["disease"], inc, 2).tolist() == [0, 1, 2, 4, 7]
    with pytest.raises(IneligibleError, match="5 of 9 records") as err:
        injector(t, 2, rules=inc)
    assert "suppress" in str(err.value)
    rel = injector(t, 2, rules=inc, suppress=True)
    assert rel.manifest["suppressed_records"] == 5
    assert rel.table.dropped["suppressed_records"] == 5
    assert rel.manifest["input_rows"] == 9 and rel.table.n_rows == 4
    assert sorted(rel.table.row_id.tolist()) == [3, 5, 6, 8]
    assert rel.reference_counts.tolist() == np.bincount(t.codes["disease"]).tolist()
    kept = inc[rel.table.row_id]
    assert matching_holds(rel, kept, 2)


def test_registry_and_random_ties():
    t = table_one()
    inc = ivs_matrix(t, IVS_075)
    rel = anonymize(t, "injector", l=2, rules=inc)
    assert buckets(rel) == buckets(injector(t, 2, rules=inc))
    rnd = injector(t, 2, rules=inc, ties="random", seed=7)
    assert rnd.manifest["seed"] == 7 and rnd.manifest["parameters"]["ties"] == "random"
    assert matching_holds(rnd, inc, 2)
    one = injector(t, 1, rules=inc)  # ℓ = 1: every record is its own bucket
    assert one.n_groups == 9 and matching_holds(one, inc, 1)


# ---------------------------------------------------------------------------------------------
# Property: every output is matching ℓ-diverse under its knowledge
# ---------------------------------------------------------------------------------------------


@st.composite
def random_tables(draw):
    n_values = draw(st.integers(2, 6))
    n = draw(st.integers(2, 40))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    sens = rng.integers(0, n_values, n)
    sens[:n_values] = np.arange(n_values)[: min(n, n_values)]  # every value occurs
    qi = rng.integers(0, 4, n)
    df = pd.DataFrame({"q": qi, "s": [f"v{v}" for v in sens]})
    table = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s")
    d = table.domain_size("s")
    # Knowledge that depends on the quasi-identifier (as rules do), never the own value.
    by_q = rng.random((4, d)) < draw(st.sampled_from([0.1, 0.3, 0.5]))
    inc = by_q[table.codes["q"]]
    inc[np.arange(table.n_rows), table.codes["s"]] = False
    l = draw(st.integers(2, d))
    ties = draw(st.sampled_from(["index", "random"]))
    return table, inc, l, ties, seed


@settings(max_examples=150, deadline=None)
@given(random_tables())
def test_every_output_is_matching_l_diverse(case):
    table, inc, l, ties, seed = case
    bad = unprotectable_records(table.codes["s"], inc, l)
    if len(bad) == table.n_rows:
        with pytest.raises(IneligibleError, match="no record"):
            injector(table, l, rules=inc, suppress=True)
        return
    rel = injector(table, l, rules=inc, suppress=True, ties=ties, seed=seed)
    assert rel.manifest["suppressed_records"] == len(bad)
    kept = np.setdiff1d(np.arange(table.n_rows), bad)
    assert rel.table.row_id.tolist() == table.row_id[kept].tolist()  # no record lost or added
    assert matching_holds(rel, inc[kept], l)
    # The assignment phase's count table and its plain scan give the same buckets.
    module = importlib.import_module("anonlab.anonymize.injector")
    limit = module._COUNT_TABLE_LIMIT
    module._COUNT_TABLE_LIMIT = 0
    try:
        scanned = injector(table, l, rules=inc, suppress=True, ties=ties, seed=seed)
    finally:
        module._COUNT_TABLE_LIMIT = limit
    assert scanned.group.tolist() == rel.group.tolist()
    if len(bad) == 0:  # without suppression it also runs
        assert injector(table, l, rules=inc, ties=ties, seed=seed).table.n_rows == table.n_rows
    else:
        with pytest.raises(IneligibleError):
            injector(table, l, rules=inc, ties=ties, seed=seed)


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


def test_bad_parameters():
    t = table_one()
    inc = ivs_matrix(t, IVS_075)
    with pytest.raises(AnonlabError, match="larger than the sensitive domain"):
        injector(t, 5, rules=inc)
    for bad in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(AnonlabError, match="min_expectation"):
            injector(t, 2, min_expectation=bad)
    with pytest.raises(AnonlabError, match="'l'"):
        injector(t, 0, rules=inc)
    with pytest.raises(AnonlabError, match="shape"):
        injector(t, 2, rules=inc[:3])
    own = inc.copy()
    own[0, list(t.values["disease"]).index("OC")] = True
    with pytest.raises(AnonlabError, match="own sensitive value"):
        injector(t, 2, rules=own)
    with pytest.raises(AnonlabError, match="ties"):
        injector(t, 2, rules=inc, ties="first")
    with pytest.raises(AnonlabError, match="max_conditions"):
        injector(t, 2, max_conditions=0)
    part = t.take(np.array([0, 2, 3]))  # OC, PC, Flu: the domain keeps HD
    with pytest.raises(IneligibleError, match="distinct values"):
        injector(part, 4, rules=np.zeros((3, 4), dtype=bool))
