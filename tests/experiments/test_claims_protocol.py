"""Issue 18, item 4: claim kinds (paper vs sanity), sanity checks kept out of the counts, the
overview's per-reading rows, the one converter of the modules' check shapes, Jin's 2-SE rule in
the adapter, and Wong's three small-signature readings side by side (quick mode)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from anonlab.errors import AnonlabError
from anonlab.experiments.claims import (
    CLAIM_KINDS,
    Claim,
    PaperResult,
    claim,
    from_check,
    render_summary,
    reported,
    sanity,
    within,
)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


# ---------------------------------------------------------------------- the kind field
def test_kind_defaults_to_paper_and_sanity_needs_a_reason():
    c = claim("p", "i", 1.0, 1.0, within(0), "s")
    assert c.kind == "paper" and not c.is_sanity and CLAIM_KINDS == ("paper", "sanity")
    s = sanity("p", "baseline", 0.5, 0.5, within(0), "s", "1/ℓ by construction")
    assert s.kind == "sanity" and s.is_sanity and s.why == "1/ℓ by construction"
    with pytest.raises(AnonlabError, match="why it cannot fail"):
        claim("p", "i", 1.0, 1.0, within(0), "s", kind="sanity")
    with pytest.raises(AnonlabError, match="kind"):
        Claim("p", "i", 1.0, 1.0, within(0), "s", True, kind="trend")
    payload = s.to_json()
    assert payload["kind"] == "sanity" and payload["why"] and payload["reading"] == ""
    assert json.dumps(payload)


# ---------------------------------------------------------------------- counting
def test_sanity_checks_are_not_counted_as_passes():
    r = PaperResult("p", "P")
    r.claims = [
        claim("p", "a", 1.0, 1.0, within(0), "s"),
        claim("p", "b", 1.0, 3.0, within(0), "s"),
        sanity("p", "c", 0.5, 0.5, within(0), "s", "theorem"),
        sanity("p", "d", 0.5, 0.6, within(0), "s", "theorem"),  # a broken invariant
    ]
    n = r.counts()
    assert (n["pass"], n["miss"], n["reported"]) == (1, 1, 0)
    assert (n["sanity"], n["sanity_failed"]) == (2, 1)
    text = render_summary([r], "# T")
    row = _cells(next(ln for ln in text.splitlines() if ln.startswith("| P |")))
    assert row[2:7] == ["2", "1", "1", "0", "1 held, **1 failed**"]
    assert "### Sanity checks" in text and "theorem" in text
    assert "**fails**" in text  # the broken invariant is shown, not hidden


def test_overview_has_one_row_per_reading_never_summed():
    r = PaperResult("p", "P")
    r.claims = [
        claim("p", "shared", 1.0, 1.0, within(0), "s"),
        claim("p", "x", 1.0, 1.0, within(0), "s", reading="rule A"),
        claim("p", "x", 1.0, 2.0, within(0), "s", reading="rule B"),
        claim("p", "y", 1.0, 2.0, reported(), "s", reading="rule B"),
        sanity("p", "z", 1, 1, within(0), "s", "data count", reading="rule A"),
    ]
    assert r.readings() == ["rule A", "rule B"]
    assert r.count_rows() == [
        ("rule A", {"pass": 2, "miss": 0, "reported": 0, "sanity": 1, "sanity_failed": 0}),
        ("rule B", {"pass": 1, "miss": 1, "reported": 1, "sanity": 0, "sanity_failed": 0}),
    ]
    text = render_summary([r], "# T")
    rows = [_cells(ln) for ln in text.splitlines() if ln.startswith("| P |")]
    assert [row[1:6] for row in rows] == [["rule A", "2", "2", "0", "0"],
                                          ["rule B", "3", "1", "1", "1"]]  # fmt: skip
    # side by side: one row for item x with both readings' values
    side = [ln for ln in text.splitlines() if ln.startswith("| x |")]
    assert len(side) == 1
    assert _cells(side[0])[4:8] == ["1", "pass", "2", "**miss**"]


def test_the_four_check_shapes_become_the_same_claim():
    wong = {"claim": "rises", "ok": True, "detail": "1 < 2"}
    martin = {"figure": 5, "claim": "rises", "holds": True, "numbers": "1 < 2"}
    jin_utility = {"panel": "5", "paper": "rises", "ours": "1 < 2", "holds": True}
    jin = pd.DataFrame([("rises", True)], columns=["claim", "holds"])
    made = [
        from_check("p", wong, "s", item="Figure 5"),
        from_check("p", martin, "s"),
        from_check("p", jin_utility, "s"),
        from_check("p", next(jin.itertuples(index=False)), "s", item="Figure 5"),
        from_check("p", ("rises", True), "s", item="Figure 5"),
    ]
    for c in made:
        assert (c.item, c.paper_value, c.passed, c.kind) == ("Figure 5", "rises", True, "paper")
    assert made[0].ours == made[1].ours == made[2].ours == "1 < 2"
    assert from_check("p", {**martin, "holds": False}, "s").passed is False
    s = from_check("p", martin, "s", kind="sanity", why="theorem")
    assert s.is_sanity and s.tolerance.kind == "holds"


# ---------------------------------------------------------------------- Jin: the 2-SE rule
def _summary(means, sds, seeds=20, along="m"):
    return pd.DataFrame(
        {"k": 5, along: [2, 3, 4, 5][: len(means)], "mean": means, "std": sds, "seeds": seeds}
    )


def test_jin_adapter_judges_figure6_by_the_modules_2se_rule(monkeypatch):
    from anonlab.experiments import jin
    from anonlab.experiments.reproduce.jin import figure6_trend_claims

    # a dip of 1 SE of the difference: noise under the pre-registered rule, a raw fall
    sd = 10.0
    se_diff = np.sqrt(2 * (sd / np.sqrt(20)) ** 2)
    small_dip = _summary([10.0, 30.0, 30.0 - se_diff, 40.0], [sd] * 4)
    (c,) = figure6_trend_claims(small_dip, "k", "m", "s", "Fig 6 set")
    assert c.passed is True and "some mean falls" in c.ours and "-1.00 SE" in c.ours
    assert "2 standard errors" in c.tolerance.words and c.reading == "Fig 6 set"
    big_dip = _summary([10.0, 30.0, 30.0 - 3 * se_diff, 40.0], [sd] * 4)
    (c,) = figure6_trend_claims(big_dip, "k", "m", "s", "Fig 6 set")
    assert c.passed is False
    # the adapter reads the module's threshold, not its own
    monkeypatch.setattr(jin, "TREND_SE", 0.5)
    (c,) = figure6_trend_claims(small_dip, "k", "m", "s", "Fig 6 set")
    assert c.passed is False


def test_jin_2se_rule_flat_step_without_spread_is_not_a_fall():
    from anonlab.experiments import jin

    ok, worst = jin.rises_within_noise(_summary([0.0, 0.0, 5.0, 5.0], [0.0, 0.0, 0.0, 0.0]), "m")
    assert ok and worst == 0.0
    ok, worst = jin.rises_within_noise(_summary([0.0, 5.0, 4.0, 6.0], [0.0, 0.0, 0.0, 0.0]), "m")
    assert not ok and worst == -np.inf


# ---------------------------------------------------------------------- Wong: three readings
@pytest.fixture(scope="module")
def wong_quick(tmp_path_factory):
    from anonlab.experiments.reproduce import wong_claims

    return wong_claims(True, tmp_path_factory.mktemp("wong"))


def test_wong_reports_every_rule_side_by_side(wong_quick):
    from anonlab.attacks.foreground import SMALL_SIGNATURE

    r = wong_quick
    assert r.error is None
    assert r.readings() == list(SMALL_SIGNATURE)  # all three, none left out
    items = {
        rule: sorted((c.item, str(c.paper_value)) for c in r.claims if c.reading == rule)
        for rule in SMALL_SIGNATURE
    }
    assert items["uniform-half"] == items["base-rate"] == items["pooled"]
    head = {
        c.reading: c
        for c in r.claims
        if c.item == "r = 2, QI size 5: average breach" and not c.is_sanity
    }
    assert set(head) == set(SMALL_SIGNATURE)
    assert all(c.tolerance.words.startswith("± 0.03") for c in head.values())
    # the readings give different numbers (the choice matters), each judged alike
    assert len({round(c.ours, 6) for c in head.values()}) == 3
    # for every reading: the data count (a sanity check), the execution times (Figures 1-2
    # (b): the anonymization does not depend on the rule) and the attack-time context row
    shared = [c for c in r.claims if not c.reading]
    (count,) = [c for c in shared if c.is_sanity]
    assert count.ours == 1566
    rest = [c for c in shared if not c.is_sanity]
    assert rest and all(
        c.item == "Figures 1–2 (b)" or c.passed is None or c.item == "Figure 3 (a)" for c in rest
    )
    text = render_summary([r], "# T")
    line = next(ln for ln in text.splitlines() if ln.startswith("| r = 2, QI size 5: average"))
    assert len(_cells(line)) == 4 + 2 * 3
    overview = [ln for ln in text.splitlines() if ln.startswith("| Wong")]
    assert [_cells(ln)[1] for ln in overview] == list(SMALL_SIGNATURE)


def test_wong_counts_every_claim_once(wong_quick):
    """No claim is counted twice: item, statement and reading are unique, and no time
    measurement of Figures 1-2 (a), (b) is judged twice under one reading."""
    keys = [(c.item, str(c.paper_value), c.reading, c.kind) for c in wong_quick.claims]
    assert len(keys) == len(set(keys))
    for reading in wong_quick.readings():
        timed = [c for c in wong_quick.paper_claims(reading) if c.item.startswith("Figures 1–2 (")]
        assert timed and len({(c.item, c.ours) for c in timed}) == len(timed)


def test_wong_anatomy_qi_trends_are_sanity_checks(wong_quick):
    checks = wong_quick.sanity_checks()
    anatomy = [c for c in checks if "nat" in str(c.paper_value) + c.item]
    assert anatomy and all("grouping" in c.why or "groups" in c.why for c in anatomy)
    assert not any(
        "anatomy" in str(c.paper_value) and "problematic share grows" in str(c.paper_value)
        for c in wong_quick.paper_claims()
    )
