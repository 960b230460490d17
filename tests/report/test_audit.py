"""The publisher's audit: each finding equals its attack run on its own, the extremes (nobody at
risk, everybody at risk), the JSON summary, and the HTML report (self-contained, escaped)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from anonlab.attacks.definetti import choose_targets, definetti_attack
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.report import STAGES, audit, promise, render_html

HOSTILE = "<script>document.title='pwned'</script>"
QUIET = ["checks", "definetti", "negative-rules", "risk", "utility"]


def _release(make_table, q, s, group, l=2, extra=None):
    data = {"q": q, "s": s, **(extra or {})}
    qi = ["q", *(extra or {})]
    table = make_table(data, qi=qi, sensitive="s")
    return Release(table, group, "bucketization", {"algorithm": "anatomy", "parameters": {"l": l}})


@pytest.fixture(scope="module")
def nobody_at_risk(make_table):
    # every group of 5 shares one QI value and holds a, a, b, b, c: every permutation gives
    # the same counts, so the deFinetti posterior is exactly random worlds; both QI values
    # occur with both sensitive values, so no negative rule exists. (Groups that mix QI values
    # would not do: the Naive Bayes posterior then prefers to segregate them, and a chain
    # settles on one of the two symmetric modes.)
    q = np.repeat(["q0", "q1"] * 4, 5)
    s = np.tile(list("aabbc"), 8)
    return _release(make_table, q, s, np.repeat(np.arange(8), 5))


@pytest.fixture(scope="module")
def everybody_at_risk(make_table):
    # q determines s (q0 <-> a, q1 <-> b); 10 groups of two q0 {a, a}, 10 of two q1 {b, b} and
    # 20 mixed {a, b}: the homogeneous groups teach the model, which then pins the mixed ones
    q = ["q0", "q0"] * 10 + ["q1", "q1"] * 10 + ["q0", "q1"] * 20
    s = ["a", "a"] * 10 + ["b", "b"] * 10 + ["a", "b"] * 20
    return _release(make_table, q, s, np.repeat(np.arange(40), 2))


def test_promise_reads_the_manifest(everybody_at_risk, make_table):
    bound, words = promise(everybody_at_risk)
    assert np.all(bound == 0.5) and "1/ℓ" in words
    plain = Release(everybody_at_risk.table, everybody_at_risk.group, "bucketization")
    bound, words = promise(plain)
    assert "random-worlds" in words
    assert np.allclose(bound, [1.0] * 40 + [0.5] * 40)  # homogeneous pairs, then mixed ones


def test_nobody_at_risk(nobody_at_risk):
    a = audit(nobody_at_risk, stages=QUIET, targets=40, chains=2, sweeps=50, queries=200)
    by = {f.key: f for f in a.findings}
    assert by["definetti"].at_risk == 0 and by["definetti"].verdict == "pass"
    assert by["negative-rules"].at_risk == 0 and by["negative-rules"].measures["rules"] == 0
    assert by["risk"].at_risk == 0
    assert by["checks"].verdict == "pass"


def test_everybody_at_risk(everybody_at_risk):
    a = audit(everybody_at_risk, stages=["definetti", "negative-rules", "worst-case"],
              targets=40, chains=2, sweeps=200, k_max=2)  # fmt: skip
    by = {f.key: f for f in a.findings}
    assert by["definetti"].at_risk == 40
    # q0 => not b and q1 => not a are mined: every value pinned
    assert by["negative-rules"].at_risk == 80
    assert by["negative-rules"].measures["pinned_matching"] == 80
    assert by["worst-case"].measures["curve_implications"][1] == pytest.approx(1.0)


def test_definetti_finding_equals_the_attack_run_alone(everybody_at_risk):
    release = everybody_at_risk
    a = audit(release, stages=["definetti"], targets=10, chains=2, sweeps=50, seed=3)
    f = a.finding("definetti")
    rows = choose_targets(release, 10, seed=3)
    res = definetti_attack(release, targets=rows, chains=2, sweeps=50, seed=3)
    truth = release.table.codes["s"][rows]
    p_true = res.posterior[np.arange(10), truth]
    noise = np.maximum(0.01, 3 * res.monte_carlo_error()[np.arange(10), truth])
    assert f.at_risk == int((p_true > 0.5 + noise).sum())
    assert f.considered == 10
    assert f.settings["seed"] == 3 and f.settings["sweeps"] == 50


def test_json_summary_is_plain_and_complete(nobody_at_risk):
    a = audit(nobody_at_risk, stages=QUIET, targets=20, chains=2, sweeps=20, queries=100)
    payload = json.loads(json.dumps(a.to_json(), allow_nan=False))
    assert [f["key"] for f in payload["findings"]] == QUIET
    assert payload["settings"]["seed"] == 0 and payload["settings"]["targets"] == 20
    assert payload["release"]["records"] == 40 and payload["release"]["groups"] == 8


def test_stage_that_does_not_apply_is_skipped_with_the_reason(nobody_at_risk):
    a = audit(nobody_at_risk, stages=["algorithm"])
    f = a.finding("algorithm")
    assert f.verdict == "skipped" and "enumerates at most" in f.headline


def test_bad_audit_parameters(nobody_at_risk):
    with pytest.raises(AnonlabError, match="unknown audit stage"):
        audit(nobody_at_risk, stages=["definetti", "x-ray"])
    with pytest.raises(AnonlabError, match="targets"):
        audit(nobody_at_risk, targets=0)


def test_html_is_self_contained_and_escapes_data(make_table):
    n = 24
    extra = {"w": np.where(np.arange(n) % 3 == 0, HOSTILE, "plain")}
    q = np.where(np.arange(n) % 2 == 0, "q0", "q1")
    s = np.where(np.arange(n) % 2 == 0, "a", "b")
    release = _release(make_table, q, s, np.repeat(np.arange(n // 2), 2), extra=extra)
    a = audit(release, stages=["checks", "definetti", "negative-rules", "worst-case", "utility"],
              targets=24, chains=2, sweeps=40, k_max=2, queries=100)  # fmt: skip
    page = render_html(a)
    assert HOSTILE not in page
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in page
    assert "<script" not in page.lower()  # no script at all: nothing can run
    assert not re.search(r"(src|href)=[\"']https?:", page)  # no network
    # one inline SVG per finding that has a plot
    plotted = sum(1 for f in a.findings if f.plot)
    assert page.count("<svg") == plotted >= 3
    for f in a.findings:
        assert f'id="{f.key}"' in page


def test_stages_cover_every_attack():
    assert set(STAGES) >= {"definetti", "foreground", "negative-rules", "worst-case", "algorithm"}


def test_report_is_identical_when_re_run(nobody_at_risk):
    kw = dict(stages=["definetti", "worst-case", "utility"], targets=10, chains=2, sweeps=10)
    kw |= dict(k_max=2, queries=50)

    def page() -> str:  # everything but the measured run times
        return re.sub(r"\d+\.\d+ s</p>", " s</p>", render_html(audit(nobody_at_risk, **kw)))

    assert page() == page()
