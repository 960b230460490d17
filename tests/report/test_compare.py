"""``compare``: every (algorithm, ℓ) a row; the strongest attack and the query error read back
from each release's own audit; the frontier against a brute-force Pareto computation; failed
releases kept as rows with their reason; the files; the HTML (self-contained, escaped)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.release_io import load_release
from anonlab.report.compare import (
    check_algorithms,
    compare,
    pareto_optimal,
    parse_l_values,
    release_parameters,
    render_compare_html,
    strongest_candidates,
    write_comparison,
)
from anonlab.table import Table

HOSTILE = "<script>alert('pwned')</script>"
QI = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country"]
TINY = {"targets": 30, "chains": 2, "sweeps": 10, "k_max": 1, "queries": 200}


def brute_force_pareto(points: list[tuple[float, float] | None]) -> list[bool]:
    """Point i is optimal when placed and no placed j has both coordinates <= and one <."""
    out = []
    for i, p in enumerate(points):
        if p is None:
            out.append(False)
            continue
        dominated = False
        for j, q in enumerate(points):
            if j == i or q is None:
                continue
            if q[0] <= p[0] and q[1] <= p[1] and (q[0] < p[0] or q[1] < p[1]):
                dominated = True
        out.append(not dominated)
    return out


def _point(row):
    return (row.query_error, row.at_risk_share) if row.placed else None


@pytest.fixture(scope="module")
def sample() -> Table:
    table = Table.from_dataset("adult-train", quasi_identifiers=QI, sensitive="occupation")
    rows = np.sort(np.random.default_rng(7).choice(table.n_rows, 3000, replace=False))
    return table.take(rows)


@pytest.fixture(scope="module")
def adult_comparison(sample):
    return compare(
        sample,
        ["anatomy", "mondrian", "injector"],
        [2, 3],
        foreground_attributes=1,
        seed=3,
        **TINY,
    )


@pytest.fixture(scope="module")
def hostile_comparison():
    # s: 12 × HOSTILE, 6 × b, 6 × c — 2-eligible, not 3-eligible; MASK needs sensitive values
    rng = np.random.default_rng(1)
    n = 24
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "zip": rng.choice(["z1", "z2", HOSTILE], n),
            "s": [HOSTILE] * 12 + ["b"] * 6 + ["c"] * 6,
        }
    )
    table = Table.from_frame(
        frame, quasi_identifiers=["age", "zip"], sensitive="s", value_sets=["zip"]
    )  # zip has no hierarchy: the generalized releases saved publish it as sets, by choice
    return compare(
        table,
        ["anatomy", "mondrian", "mask", "mask+"],
        [2, 3],
        stages=["checks", "definetti", "negative-rules", "worst-case", "utility"],
        **dict(TINY, targets=10, queries=50),
    )


# ---------------------------------------------------------------------- parameters
def test_parse_l_values():
    assert parse_l_values("2..6") == [2, 3, 4, 5, 6]
    assert parse_l_values(" 3 .. 3 ") == [3]
    assert parse_l_values("2,4,6") == [2, 4, 6]
    assert parse_l_values("5") == [5]
    for bad, words in [
        ("6..2", "empty"),
        ("1..3", "'l'"),
        ("a..b", "not a range"),
        ("", "not a range"),
        ("2,2", "more than once"),
        ("2..", "not a range"),
    ]:
        with pytest.raises(AnonlabError, match=words):
            parse_l_values(bad)


def test_check_algorithms():
    assert check_algorithms(["anatomy", "mondrian++"]) == ["anatomy", "mondrian++"]
    with pytest.raises(AnonlabError, match="unknown algorithm 'nope'"):
        check_algorithms(["anatomy", "nope"])
    with pytest.raises(AnonlabError, match="'generalize' takes no ℓ"):
        check_algorithms(["generalize"])
    with pytest.raises(AnonlabError, match="more than once"):
        check_algorithms(["anatomy", "anatomy"])


def test_release_parameters():
    assert release_parameters("anatomy", 3) == {"l": 3}
    assert release_parameters("injector", 4) == {"l": 4, "suppress": True}
    assert release_parameters("mask+", 3) == {"k": 3, "m": 3}
    assert release_parameters("mask", 3, mask_k=10, sensitive_values=["x"]) == {
        "k": 10,
        "m": 3,
        "sensitive_values": ["x"],
    }
    assert release_parameters("lattice", 2) == {"model": "l-diversity", "l": 2}
    assert release_parameters("injector", 2, sensitive_values=["x"]) == {"l": 2, "suppress": True}


def test_compare_rejects_stages_without_both_axes(sample):
    with pytest.raises(AnonlabError, match="'utility' and at least one attack"):
        compare(sample, ["anatomy"], [2], stages=["definetti", "risk"])
    with pytest.raises(AnonlabError, match="'utility' and at least one attack"):
        compare(sample, ["anatomy"], [2], stages=["checks", "utility"])
    with pytest.raises(AnonlabError, match="unknown audit stage"):
        compare(sample, ["anatomy"], [2], stages=["utility", "bogus"])


# ---------------------------------------------------------------------- the frontier
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.tuples(st.integers(0, 4), st.integers(0, 4)),  # small grid: many ties
        ),
        max_size=12,
    )
)
def test_pareto_optimal_equals_brute_force(points):
    x = np.array([np.nan if p is None else p[0] for p in points], dtype=float)
    y = np.array([np.nan if p is None else p[1] for p in points], dtype=float)
    assert pareto_optimal(x, y).tolist() == brute_force_pareto(points)


def test_pareto_optimal_hand_example():
    # (1, 5) and (5, 1) trade off; (3, 3) is not dominated; (4, 4) is by (3, 3); ties both stay
    x = np.array([1, 5, 3, 4, 1, np.nan])
    y = np.array([5, 1, 3, 4, 5, 0])
    assert pareto_optimal(x, y).tolist() == [True, True, True, False, True, False]


def test_rows_read_their_own_audit(adult_comparison, sample):
    c = adult_comparison
    assert [(r.algorithm, r.l) for r in c.rows] == [
        (a, l) for a in ("anatomy", "mondrian", "injector") for l in (2, 3)
    ]
    for r in c.rows:
        assert r.status == "ok", r.reason
        assert r.release.manifest["parameters"]["l"] == r.l
        assert r.release.manifest["seed"] == 3 and r.audit.settings["seed"] == 0  # audit_seed
        shares = {
            f.key: f.at_risk / f.considered
            for f in r.audit.findings
            if f.key in strongest_candidates() and f.verdict != "skipped"
        }
        assert shares, "some attack applies to every release"
        assert r.at_risk_share == pytest.approx(max(shares.values()))
        assert shares[r.strongest_attack] == max(shares.values())
        assert r.strongest_attack not in ("checks", "risk", "utility", "worst-case")
        # the worst-case bound is reported beside the attacks, never chosen as the strongest
        bound = r.audit.finding("worst-case")
        assert r.attacks["worst-case"]["share"] == pytest.approx(bound.at_risk / bound.considered)
        best = r.audit.finding(r.strongest_attack)
        assert (r.at_risk, r.considered) == (best.at_risk, best.considered)
        error = r.audit.finding("utility").measures["workload-error"]["mean_relative_error"]
        assert r.query_error == pytest.approx(error)
        assert r.records + r.suppressed == sample.n_rows
        assert r.suppressed == r.release.manifest.get("suppressed_records", 0)
    assert all(r.release.manifest["parameters"]["suppress"] for r in c.rows if r.algorithm ==
               "injector")  # fmt: skip


def test_frontier_is_the_brute_force_pareto_set(adult_comparison):
    c = adult_comparison
    expected = brute_force_pareto([_point(r) for r in c.rows])
    assert [r.pareto for r in c.rows] == expected
    assert any(expected)
    front = c.frontier()
    assert {r.name for r in front} == {r.name for r, e in zip(c.rows, expected, strict=True) if e}
    errors = [r.query_error for r in front]
    assert errors == sorted(errors)
    # along the frontier, a smaller error is paid for with a larger share at risk
    shares = [r.at_risk_share for r in front]
    assert all(a >= b for a, b in zip(shares, shares[1:], strict=False))


def test_failed_releases_are_rows_with_their_reason(hostile_comparison):
    c = hostile_comparison
    by = {r.name: r for r in c.rows}
    assert list(by) == [f"{a}-l{l}" for a in ("anatomy", "mondrian", "mask", "mask+")
                        for l in (2, 3)]  # fmt: skip
    assert by["anatomy-l2"].status == "ok" and by["mondrian-l2"].status == "ok"
    for name in ("anatomy-l3", "mondrian-l3"):
        assert by[name].status == "failed" and "not 3-eligible" in by[name].reason
    for name in ("mask-l2", "mask-l3"):
        assert by[name].status == "failed" and "sensitive_values" in by[name].reason
    assert "MASK+" in by["mask+-l2"].reason and "m <= 2" in by["mask+-l3"].reason
    for r in c.rows:
        if r.status == "failed":
            assert not r.pareto and r.release is None and r.at_risk_share is None
    assert [r.pareto for r in c.rows] == brute_force_pareto([_point(r) for r in c.rows])
    payload = c.to_json()
    failed = [row for row in payload["rows"] if row["status"] == "failed"]
    assert len(failed) == 6 and all(row["reason"] and row["report"] is None for row in failed)


def test_html_is_self_contained_and_escaped(hostile_comparison):
    html = render_compare_html(hostile_comparison)
    assert HOSTILE not in html and "&lt;script&gt;" in html  # the eligibility reasons name it
    assert "<script" not in html and "<link" not in html and "src=" not in html
    assert html.count("<svg") == 1
    assert render_compare_html(hostile_comparison) == html  # no date or id changes the page
    for r in hostile_comparison.rows:
        assert r.name in html
    assert html.count("title='Pareto-optimal'>★") == sum(r.pareto for r in hostile_comparison.rows)


def test_write_comparison(hostile_comparison, tmp_path):
    c = hostile_comparison
    out = write_comparison(c, tmp_path / "cmp")
    assert (out / "compare.html").read_text() == render_compare_html(c)
    payload = json.loads((out / "compare.json").read_text())
    assert payload["frontier"] == [r.name for r in c.frontier()]
    made = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert made == sorted(r.name for r in c.rows if r.status == "ok")  # failed rows: no folder
    for row, r in zip(payload["rows"], c.rows, strict=True):
        assert row["pareto"] == r.pareto and row["name"] == r.name and row["status"] == r.status
        if r.status != "ok":
            continue
        assert math.isclose(row["query_error"], r.query_error)
        folder = out / r.name
        assert (folder / "audit.html").is_file() and row["report"] == f"{r.name}/audit.html"
        audit = json.loads((folder / "audit.json").read_text())
        assert [f["key"] for f in audit["findings"]] == [f.key for f in r.audit.findings]
        loaded = load_release(folder)
        assert np.array_equal(loaded.group, r.release.group)
        assert loaded.manifest["algorithm"] == r.algorithm
        assert f'href="{r.name}/audit.html"' in (out / "compare.html").read_text()
    with pytest.raises(AnonlabError, match="already exists"):
        write_comparison(c, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmp"]  # no temporary left behind


def test_recommended_is_the_most_useful_release_that_meets_the_thresholds(adult_comparison):
    rows = [r for r in adult_comparison.rows if r.status == "ok"]
    assert all(r.meets_thresholds == r.audit.decision.release for r in rows)
    meeting = [r for r in rows if r.meets_thresholds and r.query_error is not None]
    best = adult_comparison.recommended()
    if meeting:
        assert best is not None and best.query_error == min(r.query_error for r in meeting)
    else:
        assert best is None
    assert adult_comparison.to_json()["recommended"] == (None if best is None else best.name)


def test_the_thresholds_decide_which_releases_meet_them(sample):
    from anonlab.report.decision import Thresholds

    stages = ["checks", "negative-rules", "risk", "utility"]
    strict = compare(sample, ["mondrian"], [2, 6], stages=stages, queries=50,
                     thresholds=Thresholds(max_risk=0.01))  # fmt: skip
    assert strict.recommended() is None  # no group of 100 records at ℓ <= 6
    lenient = compare(sample, ["mondrian"], [2, 6], stages=stages, queries=50,
                      thresholds=Thresholds(max_risk=1.0, max_share_at_risk=1.0))  # fmt: skip
    assert lenient.recommended() is not None
    assert lenient.recommended().query_error == min(r.query_error for r in lenient.rows)
    assert lenient.settings["thresholds"]["max_risk"] == 1.0
