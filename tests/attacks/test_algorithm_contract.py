"""The algorithm-based disclosure attacks (Jin, Zhang, Das, ASAP, Information Systems 2011) as
the registered attack ``"algorithm"`` (issue 18, items 1-2).

(a) ``contract.run`` gives the finding the scored results of the existing functions give
(:func:`run_algorithm_attacks`), and the hand-computed counts of Figure 8 and of a hand-made
MASK release; (b) the ground-truth scramble: the inference is the same on a release and on the
same release with its truth permuted within groups (and on the publisher's copy itself); (c) the
scores follow the truth where they should; (d) the per-record reading is sound on the truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.anonymize import anonymize
from anonlab.attacks import contract
from anonlab.attacks.algorithm_disclosure import (
    run_algorithm_attacks,
    score_algorithm_attacks,
)
from anonlab.attacks.asap_checker import asap_inference, asap_knowledge, check_release
from anonlab.attacks.hilb_algorithm7 import algorithm7_inference, hilb_algorithm7
from anonlab.attacks.mask_phd25 import phd25_attack, phd25_inference
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

FIG8 = ["gastritis", "gastritis", "heart disease", "diabetes", "cancer", "mumps", "AIDS", "AIDS"]
RUNNING = pd.DataFrame(
    {
        "x": [7, 9, 6, 1, 2, 8, 3, 5],
        "y": [6, 5, 2, 1, 3, 1, 4, 5],
        "s": ["AIDS", "diabetes", "heart disease", "cancer", "cancer", "mumps"]
        + ["gastritis", "gastritis"],
    }
)
SEEDS = range(4)


def fig8_hilb() -> Release:
    """Figure 8: one QI ``x = i`` (Q_T(t_i) = i); Hilb ℓ = 2 gives {t1,t3} {t2,t4} {t5,t7}
    {t6,t8}; Algorithm 7 pins t1..t4; 8 records, so the ASAP checker runs too."""
    t = Table.from_frame(
        pd.DataFrame({"x": range(1, 9), "s": FIG8}), quasi_identifiers=["x"], sensitive="s"
    )
    return anonymize(t, "hilb", l=2)


def random_hilb(seed: int, n: int = 60, l: int = 2) -> Release:
    """A Hilb release too large for the checker: Algorithm 7 only."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 5, n)
    s[: n // 5] = np.arange(n // 5) % 5  # every value present, none over n/ℓ
    frame = pd.DataFrame({"x": rng.integers(0, 8, n), "y": rng.integers(0, 6, n), "s": s})
    t = Table.from_frame(frame, quasi_identifiers=["x", "y"], sensitive="s")
    return anonymize(t, "hilb", l=l)


def phd_release(scheme: str = "bucketization") -> Release:
    """Four hand-made MASK groups of 4 (m = 2, protected 7th-8th; 16 records, so the checker
    does not run): group 0 young and perturbed (two 7th-8th published as Doctorate and
    Bachelors), group 1 young with a real doctorate, groups 2-3 older."""
    df = pd.DataFrame(
        {
            "age": [20, 22, 24, 25, 21, 23, 24, 25, 40, 41, 45, 50, 30, 33, 35, 38],
            "education": ["7th-8th", "7th-8th", "7th-8th", "HS-grad"]
            + ["Doctorate", "HS-grad", "HS-grad", "Bachelors"]
            + ["Doctorate", "Doctorate", "HS-grad", "7th-8th"]
            + ["HS-grad", "Bachelors", "7th-8th", "Doctorate"],
        }
    )
    t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="education")
    code = {str(v): i for i, v in enumerate(t.values["education"])}
    published = t.codes["education"].copy()
    published[0] = code["Doctorate"]
    published[1] = code["Bachelors"]
    manifest = {
        "algorithm": "mask",
        "parameters": {"k": 4, "m": 2, "sensitive_values": ["7th-8th"]},
    }
    return Release(t, np.repeat([0, 1, 2, 3], 4), scheme, manifest, published_sensitive=published)


def mask_release() -> Release:
    """MASK itself (k = 4, m = 3, "below high school" as the protected set) on 80 young and
    older people: PhD-25 only."""
    rng = np.random.default_rng(7)
    n = 80
    low = ["1st-4th", "5th-6th", "7th-8th"]
    values = low + ["HS-grad", "Bachelors", "Doctorate"]
    education = rng.choice(values, n, p=[0.15, 0.15, 0.15, 0.25, 0.15, 0.15])
    frame = pd.DataFrame({"age": rng.integers(18, 60, n), "education": education})
    t = Table.from_frame(frame, quasi_identifiers=["age"], sensitive="education")
    return anonymize(t, "mask", k=4, m=3, sensitive_values=low, seed=3)


def running_mondrian() -> Release:
    """The notes' §3.5 running example under Mondrian ℓ = 2: the checker only (deterministic)."""
    t = Table.from_frame(RUNNING, quasi_identifiers=["x", "y"], sensitive="s")
    return anonymize(t, "mondrian", l=2)


def tiny_mask() -> Release:
    """Four records, MASK k = 2, m = 2 protecting ``a``: the group {a, a} is perturbed; the
    checker only (randomized: 32 seeds per candidate)."""
    t = Table.from_frame(
        pd.DataFrame({"x": [1, 2, 3, 4], "y": [1, 1, 2, 2], "s": list("aabc")}),
        quasi_identifiers=["x", "y"],
        sensitive="s",
    )
    return anonymize(t, "mask", k=2, m=2, sensitive_values=["a"], seed=0)


CASES = {
    "fig8-hilb": (fig8_hilb, {}),
    "random-hilb": (lambda: random_hilb(1), {}),
    "random-hilb-index": (lambda: random_hilb(2, l=3), {"tie_break": "index"}),
    "phd-bucketization": (lambda: phd_release("bucketization"), {}),
    "phd-generalization": (lambda: phd_release("generalization"), {}),
    "mask": (mask_release, {}),
    "running-mondrian": (running_mondrian, {}),
    "tiny-mask": (tiny_mask, {"n_seeds": 32}),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    make, opts = CASES[request.param]
    release = make()
    inference, finding = contract.run("algorithm", release, opts)
    return request.param, release, opts, inference, finding


def _counts(applied: dict) -> dict[str, int]:
    out = {}
    for name, r in applied.items():
        if name == "hilb-algorithm7":
            out[name] = r["union_compromised"]
        elif name == "mask-phd25":
            out[name] = r["compromised_records"]
        else:
            out[name] = len(r["rising_records"])
    return out


# ------------------------------------------------------------------ (a) the same finding
def test_finding_matches_the_scored_functions(case):
    name, release, opts, inference, finding = case
    old = run_algorithm_attacks(release, **opts)
    assert finding.key == "algorithm"
    assert finding.settings == {"skipped": old["skipped"]}
    assert finding.measures == {
        a: {k: v for k, v in r.items() if not isinstance(v, list)}
        for a, r in old["applied"].items()
    }
    at_risk = max(_counts(old["applied"]).values())
    assert finding.at_risk == at_risk
    assert finding.verdict == ("at risk" if at_risk else "pass")
    assert finding.considered == release.table.n_rows
    assert score_algorithm_attacks(release, inference) == old["applied"]
    for path in finding.value_paths:  # every withheld path exists in the measures
        node = finding.measures
        for part in path[1:]:
            node = node[part]


def test_figure8_finding_by_hand():
    """Figure 8 (§8.3.1): Algorithm 7 flags and pins t1..t4 (union 4, strict 4, all true)."""
    _, f = contract.run("algorithm", fig8_hilb())
    a7 = f.measures["hilb-algorithm7"]
    assert (a7["union_compromised"], a7["strict_compromised"], a7["strict_correct"]) == (4, 4, 4)
    assert a7["strict_precision"] == 1.0 and a7["union_precision"] == 1.0
    assert f.at_risk == 4 and f.verdict == "at risk"
    assert "Algorithm 7 compromises 4 records (union rule; 4 pinned to one value)" in f.headline
    assert f.settings == {"skipped": {"mask-phd25": "targets mask, mask+, mask++, not hilb"}}


def test_phd25_finding_by_hand():
    """Groups 0 and 1 are young with a published doctorate share 1/4 > 10%: 8 compromised;
    group 1 was not perturbed (a false positive); group 0 held 3 of 7th-8th > ⌊4/2⌋."""
    _, f = contract.run("algorithm", phd_release())
    p = f.measures["mask-phd25"]
    assert p["compromised_records"] == 8 and f.at_risk == 8
    assert (p["perturbed_groups"], p["false_positive_groups"], p["violating_groups"]) == (1, 1, 1)
    assert p["sensitive_in_compromised"] == 3 and p["sensitive_share"] == 3 / 8
    assert f.headline == "the PhD-25 attack compromises 8 records"
    assert set(f.settings["skipped"]) == {"hilb-algorithm7", "asap-check"}


def test_checker_finding_on_the_running_example():
    """Mondrian on §3.5: no marginal rises (at risk 0), but one true negative fact makes a
    posterior rise (the checker's verdict: not safe; its worst fact is withheld on redaction)."""
    _, f = contract.run("algorithm", running_mondrian())
    c = f.measures["asap-check"]
    assert f.at_risk == 0 and f.verdict == "pass"
    assert c["safe_without_extra_facts"] is True and c["safe"] is False
    assert ("measures", "asap-check", "worst_extra_fact") in f.value_paths
    assert f.redacted().measures["asap-check"]["worst_extra_fact"].startswith("withheld")


def test_does_not_apply_with_every_reason():
    t = Table.from_frame(
        pd.DataFrame({"x": range(20), "s": list("abcd") * 5}),
        quasi_identifiers=["x"],
        sensitive="s",
    )
    release = anonymize(t, "anatomy", l=2)
    attack = contract.get("algorithm")
    reason = attack.applies(release)
    assert "hilb-algorithm7: targets hilb" in reason
    assert "mask-phd25: targets mask" in reason
    assert "asap-check: enumerates at most 12 records, not 20" in reason
    with pytest.raises(AnonlabError, match="^algorithm: hilb-algorithm7"):
        contract.run("algorithm", release)
    assert attack.applies(fig8_hilb()) is None and attack.order == 50


# ------------------------------------------------------------------ (b) the scramble
def test_inference_ignores_the_ground_truth(case):
    name, release, opts, inference, _ = case
    attack = contract.get("algorithm")
    knowledge = attack.know(release, opts)
    assert attack.infer(release, knowledge, opts).same_as(inference)  # the publisher's copy
    for s in SEEDS:
        scrambled = release.with_truth_permuted(np.random.default_rng(s))
        for view in (scrambled, scrambled.adversary_copy()):
            assert attack.infer(view, knowledge, opts).same_as(inference), (name, s)
        # knowledge stated by a publisher of the scrambled truth: the same inference too
        assert attack.infer(scrambled.adversary_copy(), attack.know(scrambled, opts), opts).same_as(
            inference
        ), (name, s)


def test_a_truth_that_differs_only_outside_the_publication_is_invisible():
    """A scramble that does move values (checked) on Figure 8, and the attack's intermediate
    arrays compared one by one."""
    release = fig8_hilb()
    truth = release.table.codes["s"]
    base = algorithm7_inference(release)
    moved = 0
    for s in SEEDS:
        scrambled = release.with_truth_permuted(np.random.default_rng(s))
        moved += int((scrambled.table.codes["s"] != truth).sum())
        other = algorithm7_inference(scrambled)
        for field in ("union_records", "flagged_records", "flagger", "pinned_value", "domain"):
            assert np.array_equal(getattr(base, field), getattr(other, field)), field
    assert moved > 0


# ------------------------------------------------------------------ (c) the scores follow the truth
def test_hilb_scores_follow_the_truth():
    """Swap t1 and t3 (one group: gastritis, heart disease): the published files are the same,
    the pins are the same, and two of the four pins are now wrong."""
    release = fig8_hilb()
    codes = release.table.codes["s"].copy()
    codes[[0, 2]] = codes[[2, 0]]
    swapped = release.with_truth(codes)
    attack = contract.get("algorithm")
    inference, finding = contract.run(attack, release)
    inference2, finding2 = contract.run(attack, swapped)
    assert inference2.same_as(inference)
    before = finding.measures["hilb-algorithm7"]
    after = finding2.measures["hilb-algorithm7"]
    assert before["strict_correct"] == 4 and after["strict_correct"] == 2
    assert after["strict_precision"] == 0.5 and after["union_precision"] < 1
    assert after["union_compromised"] == before["union_compromised"]  # not a score
    # the checker ran too (8 records): its most probable value is the pinned one for t1..t4
    assert inference.holds(release.table.codes["s"])[:4].all()
    assert not inference.holds(codes)[[0, 2]].any()


def test_phd25_scores_follow_the_truth():
    """Row 0 (published Doctorate) truly 7th-8th; say it was HS-grad instead: one sensitive
    compromised record fewer, and group 0 (2 of 4) no longer violated m = 2."""
    release = phd_release()
    code = {str(v): i for i, v in enumerate(release.table.values["education"])}
    codes = release.table.codes["education"].copy()
    codes[0] = code["HS-grad"]
    other = release.with_truth(codes)
    inference, finding = contract.run("algorithm", release)
    inference2, finding2 = contract.run("algorithm", other)
    assert inference2.same_as(inference)
    p, q = finding.measures["mask-phd25"], finding2.measures["mask-phd25"]
    assert (p["sensitive_in_compromised"], q["sensitive_in_compromised"]) == (3, 2)
    assert (p["violating_groups"], q["violating_groups"]) == (1, 0)
    assert q["compromised_records"] == p["compromised_records"] == 8


def test_checker_scores_follow_the_truth():
    """The posterior of each record's own value is a score. On Figure 8 the smart adversary is
    sure of t1..t4; swap t1 and t3 and their own values get posterior 0 (the posteriors
    themselves are the same)."""
    release = fig8_hilb()
    inference, _ = contract.run("algorithm", release)
    own = score_algorithm_attacks(release, inference)["asap-check"]["smart_true_value"]
    assert own[:4] == [1.0] * 4
    codes = release.table.codes["s"].copy()
    codes[[0, 2]] = codes[[2, 0]]
    swapped = release.with_truth(codes)
    got = score_algorithm_attacks(swapped, inference)["asap-check"]["smart_true_value"]
    assert got[0] == got[2] == 0.0 and got[1] == got[3] == 1.0
    assert got == inference.posterior[np.arange(8), codes].tolist()
    for s in SEEDS:  # any scramble: the score reads the scrambled truth
        scrambled = release.with_truth_permuted(np.random.default_rng(s))
        got = score_algorithm_attacks(scrambled, inference)["asap-check"]["smart_true_value"]
        truth = scrambled.table.codes["s"]
        assert got == inference.posterior[np.arange(8), truth].tolist()


# ------------------------------------------------------------------ (d) the per-record reading
def test_algorithm7_reading_is_sound_and_pins_single_values():
    for seed in range(3):
        release = random_hilb(seed, n=80)
        inference, finding = contract.run("algorithm", release)
        detail = inference.detail["results"]["hilb-algorithm7"]
        truth = release.table.codes["s"]
        assert inference.holds(truth).all()  # rank tie-break: a sound deduction
        pinned = detail.pinned_value >= 0
        assert (inference.inferred[pinned].sum(axis=1) == 1).all()
        assert (inference.inferred[pinned].argmax(axis=1) == detail.pinned_value[pinned]).all()
        hist = release.sensitive_histogram
        published = hist[release.group] > 0
        assert (inference.inferred <= published).all()  # never outside the published group
        assert (inference.probability == 1).all()
        assert (inference.baseline <= 1 + 1e-12).all() and (inference.baseline > 0).all()
        assert finding.measures["hilb-algorithm7"]["strict_compromised"] == int(pinned.sum())


def test_phd25_reading_by_hand():
    release = phd_release()
    inference, _ = contract.run("algorithm", release)
    protected = release.table.value_mask("education", ["7th-8th"])
    compromised = np.isin(release.group, [0, 1])
    assert (inference.inferred[compromised] == protected).all()
    assert inference.inferred[~compromised].all()  # MASK perturbs: nothing beyond the domain
    assert np.allclose(inference.probability[compromised], 3 / 4)  # (⌊4/2⌋ + 1) / 4
    published_share = [1 / 4] * 4 + [0] * 4  # group 0 publishes one 7th-8th, group 1 none
    assert np.allclose(inference.baseline[compromised], published_share)
    # the bound holds on the truth for the group MASK perturbed (group 1 is the false positive)
    truth = release.table.codes["education"]
    assert protected[truth[:4]].mean() >= inference.probability[0]


def test_checker_reading_is_the_smart_posterior():
    release = tiny_mask()
    inference, _ = contract.run("algorithm", release, {"n_seeds": 32})
    res = inference.detail["results"]["asap-check"]
    assert np.allclose(inference.posterior.sum(axis=1), 1)
    assert np.allclose(inference.probability, res.smart.max(axis=1))
    best = res.smart.argmax(axis=1)
    assert np.allclose(inference.baseline, res.naive[np.arange(4), best])


# ------------------------------------------------------------------ the steps apart
def test_unscored_results_refuse_scores_and_score_to_the_old_values():
    release = fig8_hilb()
    bare = algorithm7_inference(release.adversary_copy())
    assert bare.true_value is None and "strict_correct" not in bare.to_json()
    with pytest.raises(AnonlabError, match="score"):
        _ = bare.strict_precision
    assert bare.score(release).to_json() == hilb_algorithm7(release).to_json()

    mask = phd_release()
    bare = phd25_inference(mask.adversary_copy())
    assert bare.perturbed_groups is None and "sensitive_share" not in bare.to_json()
    with pytest.raises(AnonlabError, match="score"):
        _ = bare.sensitive_share
    assert bare.score(mask).to_json() == phd25_attack(mask).to_json()

    small = running_mondrian()
    bare = asap_inference(small.adversary_copy(), asap_knowledge(small))
    assert "safe" not in bare.to_json() and bare.safe_without_extra_facts
    with pytest.raises(AnonlabError, match="score"):
        _ = bare.safe
    assert bare.score(small).to_json() == check_release(small).to_json()
