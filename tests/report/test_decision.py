"""Release or don't release (issue 19, item 2): each criterion against hand-made findings, the
thresholds, what is not judged, and the decision through the audit, its HTML and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from anonlab.errors import AnonlabError
from anonlab.finding import Finding
from anonlab.release import Release
from anonlab.release_io import save_release
from anonlab.report import audit, render_html
from anonlab.report.decision import Thresholds, decide

RELEASE = {"algorithm": "anatomy", "parameters": {"l": 4}, "records": 1000}


def _finding(key, verdict="pass", at_risk=0, considered=1000, **kw) -> Finding:
    return Finding(key=key, title=kw.pop("title", key), paper="", attacker="", promise="",
                   verdict=verdict, headline=kw.pop("headline", f"{key} found"),
                   at_risk=at_risk, considered=considered, **kw)  # fmt: skip


def _safe() -> list[Finding]:
    return [
        _finding("checks", headline="meets its own model (l-diversity)"),
        _finding("definetti", at_risk=10, considered=200),  # 5.0 %: at the threshold
        _finding("worst-case", "at risk", at_risk=1000),  # a bound
        _finding("risk", measures={"highest": 0.2}),
        _finding("utility", "info", at_risk=None, considered=None),
    ]


def test_a_release_within_every_threshold():
    d = decide(_safe(), RELEASE)
    assert d.release and d.summary.startswith("Release: every criterion holds")
    assert not d.next_steps
    # the bound is shown, not deciding
    bound = [c for c in d.criteria if "Worst" in c["criterion"] or "worst" in c["criterion"]]
    assert bound and not bound[0]["holds"] and bound[0]["decides"] is False
    assert "Shown as bounds, not deciding: share of records at risk: worst-case" in d.summary


@pytest.mark.parametrize(
    ("change", "reason", "step"),
    [
        (lambda f: f[0].__setattr__("verdict", "fail"), "its own model", "anonymize again"),
        (lambda f: f[3].measures.__setitem__("highest", 0.25), "0.250 > 0.2", "k = 5"),
        (lambda f: f[1].__setattr__("at_risk", 11), "5.5% > 5.0%",
         "raise ℓ above 4"),
    ],
)  # fmt: skip
def test_each_criterion_can_block(change, reason, step):
    findings = _safe()
    change(findings)
    d = decide(findings, RELEASE)
    assert not d.release and d.summary.startswith("Do not release")
    assert reason in d.summary
    assert any(step in s for s in d.next_steps)


def test_thresholds_are_the_publishers():
    findings = _safe()
    findings[3].measures["highest"] = 0.25
    assert not decide(findings, RELEASE).release
    assert decide(findings, RELEASE, Thresholds(max_risk=0.25)).release
    assert not decide(_safe(), RELEASE, Thresholds(max_share_at_risk=0.01)).release
    assert not decide(_safe(), RELEASE, Thresholds(bounds_decide=True)).release
    for bad in (dict(max_risk=0), dict(max_risk=1.5), dict(max_share_at_risk=-0.1)):
        with pytest.raises(AnonlabError, match=next(iter(bad))):
            Thresholds(**bad)


def test_what_did_not_run_is_named_not_judged():
    findings = _safe() + [_finding("algorithm", "skipped", at_risk=None, considered=None,
                                   headline="not applicable: needs a Hilb release")]  # fmt: skip
    d = decide(findings, RELEASE, attacks=("definetti", "foreground", "algorithm"))
    assert d.release
    assert any("needs a Hilb release" in n for n in d.not_judged)
    assert "foreground (not run in this audit)" in d.not_judged


def test_the_algorithm_attack_points_to_the_safe_versions():
    findings = _safe() + [_finding("algorithm", "at risk", at_risk=300, title="Algorithm")]
    d = decide(findings, {**RELEASE, "algorithm": "hilb"})
    assert not d.release and any("hilb++" in s for s in d.next_steps)


def test_suppressed_records_are_stated():
    d = decide(_safe(), {**RELEASE, "suppressed_records": 42})
    assert "42 records were suppressed" in d.summary


def test_the_audit_opens_with_the_decision(make_table, tmp_path, cli):
    # groups of two: prosecutor risk 0.5 blocks the release at the default 0.2, not at 0.5
    q = np.repeat([f"q{i}" for i in range(10)], 2)
    s = np.tile(["a", "b"], 10)
    table = make_table({"q": q, "s": s}, qi=["q"], sensitive="s")
    release = Release(table, np.repeat(np.arange(10), 2), "bucketization",
                      {"algorithm": "anatomy", "parameters": {"l": 2}})  # fmt: skip
    stages = ["checks", "risk", "utility"]
    a = audit(release, stages=stages, queries=20)
    assert a.decision is not None and not a.decision.release
    assert "0.500 > 0.2" in a.decision.summary
    risk = a.finding("risk")  # bucketized: presence disclosed, the link to a bucket judged
    assert "presence disclosed" in risk.title and "who is in the data" in risk.headline
    page = render_html(a)
    assert page.index('id="decision"') < page.index("<h2>Verdicts</h2>")
    assert a.to_json()["decision"]["release"] is False
    assert a.redacted().decision.summary == a.decision.summary  # aggregates only
    lenient = audit(release, stages=stages, queries=20, thresholds=Thresholds(max_risk=0.5))
    assert lenient.decision.release
    folder = save_release(release, tmp_path / "rel")
    code, out, err = cli(["audit", str(folder), "--stages", ",".join(stages), "--queries", "20",
                          "--max-risk", "0.5", "--json"])  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["decision"]["release"] is True
    code, out, err = cli(["audit", str(folder), "--stages", "risk", "--max-risk", "0", "--force"])
    assert code == 2 and "max_risk" in err


def test_one_level_up_matches_the_generalized_release():
    """The next step's counts equal those of the release made one level up (the anonymizer's
    own grouping), per quasi-identifier."""
    from anonlab.anonymize import generalize
    from anonlab.report.audit import one_level_up
    from anonlab.table import Table

    table = Table.from_dataset("adult-train").take(np.arange(3000))
    levels = {q: 0 for q in table.quasi_identifiers} | {"age": 1, "education": 1}
    release = generalize(table, levels=levels)
    options = one_level_up(release, 5)
    assert set(options) == {q for q in table.quasi_identifiers
                            if levels[q] < table.schema[q].hierarchy.height}  # fmt: skip
    for q, option in options.items():
        up = generalize(table, levels={**levels, q: levels[q] + 1})
        small = up.group_sizes < 5
        assert option == {
            "level": levels[q] + 1,
            "records_below_k": int(up.group_sizes[small].sum()),
        }
    assert one_level_up(Release(table, np.zeros(3000, int), "generalization"), 5) == {}


def test_the_next_step_names_the_cheapest_attribute_to_generalize():
    findings = _safe()
    findings[3].measures.update(
        highest=0.5,
        one_level_up={
            "age": {"level": 2, "records_below_k": 40},
            "sex": {"level": 1, "records_below_k": 7},
        },  # fmt: skip
    )
    d = decide(findings, RELEASE)
    assert any("generalize sex one level (to level 1): 7 records" in s for s in d.next_steps)


def test_the_at_risk_file_is_keyed_by_the_input_row_id(make_table, tmp_path, cli):
    from anonlab.report.audit import at_risk_frame

    # 10 groups of two; row ids that are not positions (an input with rows dropped)
    q = np.repeat([f"q{i}" for i in range(10)], 2)
    s = np.tile(["a", "b"], 10)
    table = make_table({"q": q, "s": s}, qi=["q"], sensitive="s")
    table.row_id = np.arange(20, dtype=np.int64) * 3 + 7
    release = Release(table, np.repeat(np.arange(10), 2), "bucketization",
                      {"algorithm": "anatomy", "parameters": {"l": 2}})  # fmt: skip
    a = audit(release, stages=["checks", "risk", "worst-case", "utility"], queries=20, k_max=2)
    frame = at_risk_frame(a, release)
    expected = set()
    for f in a.findings:
        if f.at_risk_records is not None:
            assert len(f.at_risk_records) == f.at_risk
            expected |= set(f.at_risk_records.tolist())
    assert sorted(frame["row_id"]) == sorted(table.row_id[sorted(expected)].tolist())
    assert frame["risk"].all()  # every group of two is above the 0.2 threshold
    with pytest.raises(AnonlabError, match="redacted"):
        at_risk_frame(a.redacted(), release)
    folder = save_release(release, tmp_path / "rel")
    target = tmp_path / "risk.csv"
    code, out, err = cli(["audit", str(folder), "--stages", "risk", "--at-risk", str(target)])
    assert code == 0, err
    assert target.read_text().splitlines()[0] == "row_id,group,risk,stages"
    assert len(target.read_text().splitlines()) == 21
    code, out, err = cli(["audit", str(folder), "--stages", "risk", "--at-risk",
                          str(tmp_path / "risk.txt"), "--force"])  # fmt: skip
    assert code == 2 and ".csv or .parquet" in err
