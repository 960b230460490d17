"""The attack contract (issue 18, items 1 and 2): the registry, the adversary's copy, the
ground-truth scramble for every registered attack, and a toy attack that reaches the audit,
compare and the command line without touching another file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anonlab.anonymize import anonymize
from anonlab.attacks import contract
from anonlab.attacks.contract import Attack, Inference, Knowledge
from anonlab.errors import AnonlabError
from anonlab.finding import Finding
from anonlab.release_io import save_release
from anonlab.report import audit, stage_names
from anonlab.report.compare import strongest_candidates
from anonlab.table import Table

OPTIONS = dict(targets=30, chains=2, sweeps=20, seed=3, k_max=3, worst_case_k=1,
               min_expectation=0.9, foreground_attributes=1, queries=50)  # fmt: skip


def _table(n: int = 240, seed: int = 0) -> Table:
    """Age and sex that predict the disease in part, so the attacks have something to learn."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 70, n)
    sex = rng.choice(["F", "M"], n)
    zone = rng.choice(["north", "south", "east"], n)
    diseases = np.array(["flu", "cold", "ulcer", "gastritis", "asthma", "cancer"])
    risk = (age // 10 + (sex == "M")) % 6
    noise = rng.integers(0, 6, n)
    disease = diseases[np.where(rng.random(n) < 0.5, risk, noise)]
    frame = pd.DataFrame({"age": age, "sex": sex, "zone": zone, "disease": disease})
    return Table.from_frame(
        frame,
        quasi_identifiers=["age", "sex", "zone"],
        sensitive="disease",
        value_sets=["sex", "zone"],
    )


@pytest.fixture(scope="module")
def releases():
    table = _table()
    return {
        "anatomy": anonymize(table, "anatomy", l=3, seed=1),
        "mondrian": anonymize(table, "mondrian", l=3, seed=1),
        "hilb": anonymize(table, "hilb", l=3, seed=1),
    }


def _published(release) -> dict[str, pd.DataFrame]:
    """The published files up to row order (their rows are in the export key's secret order,
    which the same records with other values fill differently)."""
    return {
        k: v.astype(str).sort_values(list(v.columns)).reset_index(drop=True)
        for k, v in release.published_frames().items()
    }


# ------------------------------------------------------------------ the two copies
@pytest.mark.parametrize("name", ["anatomy", "mondrian"])
def test_scrambled_truth_publishes_the_same_files(releases, name):
    release = releases[name]
    release.export_key = b"k" * 32
    for other in (release.with_truth_permuted(np.random.default_rng(7)), release.adversary_copy()):
        other.export_key = release.export_key
        a, b = _published(release), _published(other)
        assert a.keys() == b.keys()
        for key in a:
            pd.testing.assert_frame_equal(a[key], b[key])
    truth = release.table.codes["disease"]
    moved = release.with_truth_permuted(np.random.default_rng(7)).table.codes["disease"]
    assert not np.array_equal(truth, moved)  # the link changed...
    for g in range(release.n_groups):  # ...within each group only
        rows = release.group == g
        assert sorted(truth[rows]) == sorted(moved[rows])


def test_adversary_copy_holds_no_original_link(releases):
    release = releases["anatomy"]
    copy = release.adversary_copy()
    codes = copy.table.codes["disease"]
    for g in range(release.n_groups):  # each group's published values, sorted by record order
        rows = np.flatnonzero(release.group == g)
        assert codes[rows].tolist() == sorted(release.sensitive_codes[rows].tolist())
    # two releases that differ only in the link have the same adversary copy
    other = release.with_truth_permuted(np.random.default_rng(11)).adversary_copy()
    assert np.array_equal(other.table.codes["disease"], codes)


# ------------------------------------------------------------------ the scramble, every attack
def _registered_cases():
    return [a.name for a in contract.attacks()]


@pytest.mark.parametrize("attack_name", _registered_cases())
@pytest.mark.parametrize("name", ["anatomy", "mondrian", "hilb"])
def test_every_attack_ignores_the_ground_truth(releases, name, attack_name):
    """Run the attack, scramble the release's ground truth within groups (the published files
    stay the same), run it again: the inference must not change."""
    attack = contract.get(attack_name)
    release = releases[name]
    reason = attack.applies(release)
    if reason:
        pytest.skip(f"{attack_name} does not apply to {name}: {reason}")
    knowledge = attack.know(release, OPTIONS)
    first = attack.infer(release, knowledge, OPTIONS)
    for seed in (1, 2):
        again = attack.infer(
            release.with_truth_permuted(np.random.default_rng(seed)), knowledge, OPTIONS
        )
        assert first.same_as(again), f"{attack_name} on {name}: the output read the truth"
    # what run() gives the attack: the same inference, and a finding scored on the truth
    inference, finding = contract.run(attack, release, OPTIONS)
    assert first.same_as(inference)
    assert finding.key == attack_name and finding.verdict in ("pass", "at risk")


def _cheat_infer(view, knowledge, options) -> Inference:
    """A broken attack: 'infers' each record's own value from the copy it was given."""
    codes = view.table.codes[view.sensitive].astype(np.int64)
    n, d = len(codes), view.table.domain_size(view.sensitive)
    inferred = np.zeros((n, d), dtype=bool)
    inferred[np.arange(n), codes] = True
    return Inference("cheat", tuple(map(str, view.table.values[view.sensitive])),
                     np.arange(n), inferred, np.ones(n), np.ones(n))  # fmt: skip


def test_the_scramble_catches_an_attack_that_reads_the_truth(releases):
    release = releases["anatomy"]
    first = _cheat_infer(release, Knowledge(), {})
    again = _cheat_infer(release.with_truth_permuted(np.random.default_rng(1)), Knowledge(), {})
    assert not first.same_as(again)
    # and run() never hands it the truth: on the adversary's copy it is right only where the
    # sorted published values happen to fall on the record's own
    toy = Attack("cheat", "Cheat", "none", "reads the truth", _cheat_infer, _toy_judge)
    inference, _ = contract.run(toy, release, {})
    right = inference.holds(release.table.codes["disease"])
    assert right.mean() < 0.9


# ------------------------------------------------------------------ a toy attack, everywhere
def _toy_infer(view: object, knowledge: Knowledge, options) -> Inference:
    """Guesses each group's most frequent published value with its share."""
    hist = np.asarray(view.sensitive_histogram, dtype=np.float64)
    share = hist / hist.sum(axis=1, keepdims=True)
    best = share.argmax(axis=1)[view.group]
    n, d = view.table.n_rows, hist.shape[1]
    inferred = np.zeros((n, d), dtype=bool)
    inferred[np.arange(n), best] = True
    p = share.max(axis=1)[view.group]
    values = tuple(map(str, view.table.values[view.sensitive]))
    return Inference("toy", values, np.arange(n), inferred, p, p, summary={"mean": p.mean()})


def _toy_judge(release, knowledge, inference, options) -> Finding:
    right = inference.holds(release.table.codes[release.sensitive][inference.records])
    bound, words = contract.promise(release)
    risk = right & (inference.probability > bound[inference.records] + 1e-9)
    return Finding(
        key=inference.attack,
        title="Toy attack",
        paper="none",
        attacker="guesses the group's most frequent value",
        promise=words,
        verdict="at risk" if risk.any() else "pass",
        headline=f"{int(risk.sum())} records at risk",
        at_risk=int(risk.sum()),
        considered=len(inference.records),
    )


TOY = Attack(
    name="toy",
    title="Toy attack",
    paper="a test",
    attacker="guesses the group's most frequent value",
    infer=_toy_infer,
    judge=_toy_judge,
    cost="one pass over the groups",
)


def test_a_registered_toy_attack_reaches_audit_compare_and_cli(releases, tmp_path, cli):
    release = releases["anatomy"]
    assert "toy" not in contract.names()
    with contract.registered(TOY):
        assert "toy" in contract.names() and "toy" in stage_names()
        assert "toy" in strongest_candidates()
        result = audit(release, stages=["checks", "toy"], **{
            k: v for k, v in OPTIONS.items() if k != "seed"})  # fmt: skip
        finding = result.finding("toy")
        # the truth decides the count: an independent recount
        truth = release.table.codes["disease"]
        hist = np.asarray(release.sensitive_histogram)
        best = hist.argmax(axis=1)[release.group]
        share = (hist.max(axis=1) / hist.sum(axis=1))[release.group]
        expected = int(((best == truth) & (share > 1 / 3 + 1e-9)).sum())
        assert finding.at_risk == expected and finding.title == "Toy attack"
        folder = save_release(release, tmp_path / "rel")
        code, out, err = cli(["attack", "toy", str(folder), "--json"])
        assert code == 0, err
        payload = json.loads(out)
        assert payload["finding"]["at_risk"] == expected
        assert len(payload["inference"]["records"]) == release.table.n_rows
        code, out, err = cli(["attack", "list", "--json"])
        assert code == 0 and "toy" in [a["name"] for a in json.loads(out)["attacks"]]
    assert "toy" not in contract.names()
    code, out, err = cli(["attack", "toy", str(folder)])
    assert code == 2 and "No such command 'toy'" in err  # its generic command went with it


def test_registry_errors():
    with pytest.raises(AnonlabError, match="no attack named 'nope'.*definetti"):
        contract.get("nope")
    with pytest.raises(AnonlabError, match="already registered"):
        contract.register(Attack("definetti", "x", "x", "x", _toy_infer, _toy_judge))
    with pytest.raises(AnonlabError, match="Attack record"):
        contract.register("definetti")  # type: ignore[arg-type]


def test_run_says_why_an_attack_does_not_apply(releases):
    picky = Attack("picky", "Picky", "none", "x", _toy_infer, _toy_judge,
                   applies=lambda r: "needs a release made by Hilb")  # fmt: skip
    with pytest.raises(AnonlabError, match="picky: needs a release made by Hilb"):
        contract.run(picky, releases["anatomy"], {})


def test_attack_foreground_reports_the_audits_count_beside_the_papers(tmp_path, cli):
    """Issue 19: the CLI attack and the audit report the same count for the same settings
    (Adult: signatures large enough for Theorem 1's support, so records are at risk)."""
    release = anonymize(Table.from_dataset("adult-train"), "anatomy", l=4, seed=2)
    folder = save_release(release, tmp_path / "rel")
    code, out, err = cli(["attack", "foreground", str(folder), "--json"])
    assert code == 0, err
    payload = json.loads(out)
    finding = audit(release, stages=["foreground"], foreground_attributes=None).finding(
        "foreground"
    )
    assert payload["audit_at_risk"] == finding.at_risk > 0
    assert payload["audit_promise"] == finding.promise
    assert payload["problematic_records"] != finding.at_risk  # the paper's count, p* > 1/2


def test_definetti_strongest_inference_is_a_true_one(releases):
    """Issue 19: the strongest inference shown names a record's true value (the most confident
    guess may be wrong), with the probability the attack gives it."""
    release = releases["anatomy"]
    inference, finding = contract.run("definetti", release, OPTIONS)
    truth = release.table.codes["disease"][inference.records]
    p_true = inference.probability_of(truth)
    top = int(np.argmax(p_true))
    value = release.table.values["disease"][truth[top]]
    assert f"has disease = {value} with probability {p_true[top]:.2f}" in finding.strongest
