"""Algorithm-based disclosure (Jin, Zhang, Das, ASAP, Information Systems 2011): the attacks.

An adversary who knows the publishing algorithm learns from its decisions. The attacks live one
per module; this module says which apply to a release and runs them (``anonlab attack
algorithm RELEASE``):

* :mod:`anonlab.attacks.minimality` — the minimality attack on generalization (Example 1,
  Table 1, Table 5), by exact enumeration over a toy minimal-suppression algorithm;
* :mod:`anonlab.attacks.mask_phd25` — the PhD-25 attack on MASK (§8.2.1);
* :mod:`anonlab.attacks.hilb_algorithm7` — Algorithm 7 against Hilb (§8.3.1), union and strict
  counts;
* :mod:`anonlab.attacks.asap_checker` — the generic brute-force ASAP checker for tiny tables
  (any anonymizer of the registry, by name).

It also holds :func:`minimal_change_naive`, the naive reading of Example 2 (Table 2) used by the
paper's hand computation (naive Nash's 3/8 and 5/12), and the registry's record ``"algorithm"``
(:mod:`anonlab.attacks.contract`): knowledge from the manifest (:func:`_know`), the inference of
every applicable attack from the adversary's copy (:func:`infer_algorithm_attacks`, no ground
truth), the finding scored on the truth (:func:`_judge`, :func:`score_algorithm_attacks`).
:func:`run_algorithm_attacks` gives the scores as JSON, as ``anonlab attack algorithm`` prints
them: each attack's function there infers from the adversary's copy and then scores, and the
checker's (:func:`~anonlab.attacks.asap_checker.check_release`) first checks, on the
publisher's side, that the manifest's algorithm reproduces the release. The registered attack
does not make that check: it is a statement about the original table, and the ground-truth
scramble (a release whose truth is permuted within groups) must leave every step but the scores
unchanged.

Which attack applies to which algorithm (:data:`ATTACKS`): Algorithm 7 to Hilb and to Hilb+/Hilb++
(whose greedy groups are also the lowest frontier heads, notes I1); PhD-25 to MASK and to its
repairs when the release has a numeric ``age`` quasi-identifier and a ``Doctorate`` sensitive
value (Adult's education); the ASAP checker to any algorithm of the registry when the release
has at most :data:`~anonlab.attacks.asap_checker.MAX_RECORDS` records.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from anonlab._validation import takes_release
from anonlab.attacks.contract import Attack, Inference, Knowledge, register, sensitive_labels
from anonlab.errors import AnonlabError
from anonlab.finding import DATA_PARAMETERS, Finding
from anonlab.release import Release
from anonlab.schema import Kind

#: algorithm name (manifest) -> attacks that target it
ATTACKS: dict[str, tuple[str, ...]] = {
    "hilb": ("hilb-algorithm7",),
    "hilb+": ("hilb-algorithm7",),
    "hilb++": ("hilb-algorithm7",),
    "mask": ("mask-phd25",),
    "mask+": ("mask-phd25",),
    "mask++": ("mask-phd25",),
}


@takes_release
def applicable_attacks(release: Release) -> list[tuple[str, str | None]]:
    """Each attack with ``None`` if it applies to the release, else the reason it does not."""
    from anonlab.anonymize import available
    from anonlab.attacks.asap_checker import MAX_RECORDS

    algorithm = str(release.manifest.get("algorithm", "unknown"))
    table = release.table
    out: list[tuple[str, str | None]] = []
    targeted = ATTACKS.get(algorithm, ())
    for name in ("hilb-algorithm7", "mask-phd25"):
        if name not in targeted:
            out.append((name, f"targets {_targets(name)}, not {algorithm}"))
            continue
        if name == "hilb-algorithm7" and release.manifest.get("parameters", {}).get("l") is None:
            out.append((name, "the manifest has no ℓ (parameter 'l')"))
        elif name == "mask-phd25":
            reason = None
            if "age" not in table.quasi_identifiers or table.schema["age"].kind is not Kind.NUMERIC:
                reason = "needs a numeric quasi-identifier 'age'"
            elif "Doctorate" not in {str(v) for v in table.values[release.sensitive]}:
                reason = f"needs the value 'Doctorate' in {release.sensitive!r}"
            out.append((name, reason))
        else:
            out.append((name, None))
    if algorithm not in available():
        out.append(("asap-check", f"{algorithm!r} is not in the anonymizer registry"))
    elif table.n_rows > MAX_RECORDS:
        out.append(("asap-check", f"enumerates at most {MAX_RECORDS} records, not {table.n_rows}"))
    else:
        out.append(("asap-check", None))
    return out


def _targets(name: str) -> str:
    return ", ".join(a for a, names in ATTACKS.items() if name in names)


@takes_release
def run_algorithm_attacks(release: Release, **options: Any) -> dict[str, Any]:
    """Run every applicable attack; ``{"applied": {name: result json}, "skipped": {name: why}}``.

    ``options`` go to the attacks that take them (``tie_break`` for Algorithm 7; ``n_seeds`` for
    the checker). Each attack infers from :meth:`release.adversary_copy()
    <anonlab.release.Release.adversary_copy>` and is then scored on ``release``
    (:func:`hilb_algorithm7`, :func:`phd25_attack`, :func:`check_release`); the JSON holds
    the scores.
    """
    from anonlab.attacks.asap_checker import check_release
    from anonlab.attacks.hilb_algorithm7 import hilb_algorithm7
    from anonlab.attacks.mask_phd25 import phd25_attack

    applied: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name, reason in applicable_attacks(release):
        if reason is not None:
            skipped[name] = reason
            continue
        if name == "hilb-algorithm7":
            applied[name] = hilb_algorithm7(
                release, tie_break=options.get("tie_break", "rank")
            ).to_json()
        elif name == "mask-phd25":
            applied[name] = phd25_attack(release).to_json()
        else:
            applied[name] = check_release(release, n_seeds=options.get("n_seeds")).to_json()
    return {
        "algorithm": release.manifest.get("algorithm"),
        "applied": applied,
        "skipped": skipped,
    }


@takes_release
def infer_algorithm_attacks(
    view: Release,
    *,
    asap: Any = None,
    tie_break: str = "rank",
    n_seeds: int | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The inference of every applicable attack, from the published view and stated knowledge
    only: ``({name: unscored result}, {name: why it does not apply})``.

    ``view`` is the adversary's copy (:meth:`~anonlab.release.Release.adversary_copy`); ``asap``
    the checker's stated knowledge (:func:`~anonlab.attacks.asap_checker.asap_knowledge`, built
    by the publisher), needed when the checker applies. Score each result with its
    ``score(release)``.
    """
    from anonlab.attacks.asap_checker import asap_inference
    from anonlab.attacks.hilb_algorithm7 import algorithm7_inference
    from anonlab.attacks.mask_phd25 import phd25_inference

    results: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name, reason in applicable_attacks(view):
        if reason is not None:
            skipped[name] = reason
        elif name == "hilb-algorithm7":
            results[name] = algorithm7_inference(view, tie_break=tie_break)
        elif name == "mask-phd25":
            results[name] = phd25_inference(view)
        else:
            if asap is None:
                raise AnonlabError(
                    "the ASAP checker applies: give its stated knowledge (asap_knowledge)"
                )
            results[name] = asap_inference(view, asap, n_seeds=n_seeds)
    return results, skipped


@takes_release
def minimal_change_naive(
    release: Release,
    rule: Callable[[np.ndarray], bool],
    *,
    max_changes: int = 3,
) -> np.ndarray:
    """Naive Nash of Jin et al.'s Example 2: the fewest published values are fake.

    Nash does not know MASK but knows values may have been perturbed. He assumes the fewest
    published sensitive values were changed such that the per-group histogram satisfies his
    external knowledge ``rule`` (a function of the ``(n_groups, n_values)`` histogram); each
    choice of fake records, and of an original value for each (any value but the published
    one), is equally likely; a record then holds each value with its group's share. This is
    the reading that gives the paper's 3/8 ("Japanese have very low heart-disease incidence")
    and 5/12 ("only 1 of 8 patients has cancer") on Table 2.

    Returns
    -------
    ndarray of shape (n_rows, n_values)
        Nash's posterior per record.
    """
    group = release.group
    pub = np.asarray(release.sensitive_codes, dtype=np.int64)
    n_values = release.table.domain_size(release.sensitive)
    base = np.asarray(release.sensitive_histogram, dtype=np.int64)
    sizes = release.group_sizes
    n = len(pub)
    for changes in range(max_changes + 1):
        total = np.zeros((release.n_groups, n_values))
        count = 0
        for fake in itertools.combinations(range(n), changes):
            others = [[v for v in range(n_values) if v != pub[r]] for r in fake]
            for originals in itertools.product(*others):
                hist = base.copy()
                for r, v in zip(fake, originals, strict=True):
                    hist[group[r], pub[r]] -= 1
                    hist[group[r], v] += 1
                if rule(hist):
                    total += hist / sizes[:, None]
                    count += 1
        if count:
            return (total / count)[group]
    raise AnonlabError(
        f"no change of at most {max_changes} published values satisfies the rule; raise max_changes"
    )


# ---------------------------------------------------------------------------------------------
# The registry's record
# ---------------------------------------------------------------------------------------------


def _applies(release: Release) -> str | None:
    """None when Algorithm 7, PhD-25 or the ASAP checker applies; else every reason."""
    status = applicable_attacks(release)
    if any(reason is None for _, reason in status):
        return None
    return "; ".join(f"{name}: {reason}" for name, reason in status)


def _know(release: Release, options: Mapping[str, Any]) -> Knowledge:
    """The publishing algorithm and its parameters (the manifest's; Jin et al. §3: the smart
    adversary knows ``A``), and where the ASAP checker applies its stated knowledge
    (:func:`~anonlab.attacks.asap_checker.asap_knowledge`: the manifest's algorithm,
    parameters and seed, and the original multiset of sensitive values)."""
    from anonlab.attacks.asap_checker import asap_knowledge

    algorithm = release.manifest.get("algorithm")
    status = dict(applicable_attacks(release))
    asap = asap_knowledge(release) if status.get("asap-check", "") is None else None
    words = f"the publishing algorithm ({algorithm}) and its parameters"
    if asap is not None and release.published_sensitive is not None:
        words += "; the original count of each sensitive value"
    return Knowledge(
        {
            "algorithm": algorithm,
            "parameters": dict(release.manifest.get("parameters", {})),
            "asap": asap,
        },
        words + "; every record's quasi-identifiers and group",
    )


def _infer(view: Release, knowledge: Knowledge, options: Mapping[str, Any]) -> Inference:
    """Every applicable attack on the adversary's copy (:func:`infer_algorithm_attacks`), read
    record by record. Every record is considered; its inferred set, probability and baseline
    come from the strongest attack that ran:

    * **the ASAP checker** (tiny releases): the smart adversary's exact posterior (Def. 4) is
      the posterior; the inferred set is its most probable value (ties: the lowest code), with
      that probability; the baseline is naive Nash's posterior of the same value (the random
      worlds of Def. 3: every table that could be published as ``T*`` weighs the same). Where
      it ran it is the only reading: it weighs every world by ``Pr[A(T') = T*]``, so a sound
      deduction of Algorithm 7 holds in it already;
    * else **Algorithm 7** (Hilb): the record's domain after the strict rule (its pinned value
      where it is pinned; its group's published values where no flag touched its group), with
      probability 1 (a deduction, sound under Hilb's own order: ``tie_break="rank"``); the
      baseline is the random-worlds probability of the set, its published share in the group;
    * else **PhD-25** (MASK): a compromised record (in a problematic group) is inferred to hold
      a value of MASK's protected set with probability at least ``(⌊|G|/m⌋ + 1)/|G|``: its
      group originally violated m-confidentiality (§8.2.1, Thm 5.2), so at least that many of
      its members held a protected value (per value or as one value, the bound is the same);
      the baseline is the protected values' published share in the group. Without ``m`` or a
      protected set in the manifest, nothing is inferred;
    * a record no attack speaks of: the values published in its group, probability 1 and
      baseline 1 (nothing beyond the publication); for an algorithm that perturbs sensitive
      values (MASK), the whole domain.

    ``summary`` holds each attack's counts (the scores need the truth: :func:`_judge`);
    ``detail`` the unscored results and the skipped attacks.
    """
    tie_break = str(options.get("tie_break", "rank"))
    n_seeds = options.get("n_seeds")
    results, skipped = infer_algorithm_attacks(
        view, asap=knowledge.get("asap"), tie_break=tie_break, n_seeds=n_seeds
    )
    values = sensitive_labels(view)
    n, d = view.table.n_rows, len(values)
    rows = np.arange(n)
    group = view.group
    hist = np.asarray(view.sensitive_histogram, dtype=np.float64)
    sizes = np.maximum(np.asarray(view.group_sizes, dtype=np.float64), 1.0)
    if view.published_sensitive is None:
        inferred = hist[group] > 0
    else:
        inferred = np.ones((n, d), dtype=bool)
    probability = np.ones(n)
    baseline = np.ones(n)
    posterior = None
    if "asap-check" in results:
        res = results["asap-check"]
        best = res.smart.argmax(axis=1)
        inferred = np.zeros((n, d), dtype=bool)
        inferred[rows, best] = True
        probability = res.smart[rows, best]
        baseline = res.naive[rows, best]
        posterior = res.smart
    elif "hilb-algorithm7" in results:
        inferred = np.asarray(results["hilb-algorithm7"].domain, dtype=bool)
        baseline = (hist[group] * inferred).sum(axis=1) / sizes[group]
    elif "mask-phd25" in results:
        res = results["mask-phd25"]
        if res.m and res.sensitive_values:
            protected = view.table.value_mask(view.sensitive, list(res.sensitive_values))
            bad = np.zeros(view.n_groups, dtype=bool)
            bad[res.problematic_groups] = True
            hit = bad[group]
            g = group[hit]
            inferred[hit] = protected
            probability[hit] = (np.floor(sizes[g] / res.m) + 1) / sizes[g]
            baseline[hit] = hist[g][:, protected].sum(axis=1) / sizes[g]
    summary = {
        name: {k: v for k, v in r.to_json().items() if not isinstance(v, list)}
        for name, r in results.items()
    }
    return Inference(
        attack=ATTACK.name,
        values=values,
        records=rows,
        inferred=inferred,
        probability=probability,
        baseline=baseline,
        posterior=posterior,
        summary=summary,
        settings={"tie_break": tie_break, "n_seeds": n_seeds},
        detail={
            "algorithm": view.manifest.get("algorithm"),
            "results": results,
            "skipped": skipped,
        },
    )


def score_algorithm_attacks(release: Release, inference: Inference) -> dict[str, Any]:
    """The scored JSON of each attack of ``inference`` (:func:`_infer`) against ``release``'s
    ground truth: what :func:`run_algorithm_attacks` returns as ``applied``."""
    return {name: r.score(release).to_json() for name, r in inference.detail["results"].items()}


def _compromised(name: str, result: Any, scored: Mapping[str, Any], release: Release):
    """Positions of the records an algorithm attack counts: Algorithm 7's union rule, the
    members of PhD-25's problematic groups, the ASAP checker's rising records."""
    if name == "hilb-algorithm7":
        return np.flatnonzero(result.union_records)
    if name == "mask-phd25":
        return np.flatnonzero(np.isin(release.group, result.problematic_groups))
    return np.asarray(scored["rising_records"], dtype=np.int64)


def _judge(
    release: Release, knowledge: Knowledge, inference: Inference, options: Mapping[str, Any]
) -> Finding:
    """At risk: the most records any one attack compromises — Algorithm 7's union rule, the
    PhD-25 attack's compromised records, or the records whose posterior the ASAP checker sees
    rise when the attacker knows the algorithm (Jin et al. Def. 5). The measures are each
    attack's scored summary (scalars only)."""
    applied = score_algorithm_attacks(release, inference)
    skipped = inference.detail["skipped"]
    if not applied:
        raise AnonlabError(
            "no algorithm-based attack applies: "
            + "; ".join(f"{k}: {v}" for k, v in skipped.items())
        )
    at_risk = 0
    at_risk_records = np.zeros(0, dtype=np.int64)
    parts = []
    measures: dict[str, Any] = {}
    results = inference.detail["results"]
    for name, r in applied.items():
        if name == "hilb-algorithm7":
            n = int(r["union_compromised"])
            parts.append(
                f"Algorithm 7 compromises {n:,} records (union rule; {r['strict_compromised']:,} "
                "pinned to one value)"
            )
        elif name == "mask-phd25":
            n = int(r["compromised_records"])
            parts.append(f"the PhD-25 attack compromises {n:,} records")
        else:
            n = len(r["rising_records"])
            parts.append(
                f"the ASAP checker finds {n:,} records whose posterior rises when the attacker "
                f"knows the algorithm (largest rise {r['max_increase']:.3f})"
            )
        if n > at_risk:  # the records of the attack that compromises the most
            at_risk, at_risk_records = n, _compromised(name, results[name], r, release)
        measures[name] = {k: v for k, v in r.items() if not isinstance(v, list)}
    # record-level entries of the attacks' summaries (the ASAP checker's worst extra fact and its
    # verdict name records and values) and parameters that hold values of the data
    value_paths = [("measures", name, key) for name, m in measures.items()
                   for key in ("worst_extra_fact", "verdict") if key in m]  # fmt: skip
    value_paths += [
        ("measures", name, "parameters", p)
        for name, m in measures.items()
        if isinstance(m.get("parameters"), dict)
        for p in DATA_PARAMETERS
        if p in m["parameters"]
    ]
    return ATTACK.finding(
        attacker=f"knows the publishing algorithm ({inference.detail['algorithm']}) and its "
        "parameters, and every record's quasi-identifiers and group",
        promise="knowing the algorithm changes no one's posterior",
        verdict="at risk" if at_risk else "pass",
        headline="; ".join(parts),
        at_risk=at_risk,
        at_risk_records=at_risk_records,
        considered=release.table.n_rows,
        measures=measures,
        value_paths=value_paths,
        settings={"skipped": skipped},
    )


ATTACK = register(
    Attack(
        name="algorithm",
        title="Algorithm-based disclosure",
        paper="Jin, Zhang, Das, ASAP: algorithm-safe publishing (Information Systems 2011)",
        attacker="knows the publishing algorithm and its parameters, and every record's "
        "quasi-identifiers and group",
        knowledge=("algorithm", "parameters", "asap"),
        know=_know,
        infer=_infer,
        judge=_judge,
        applies=_applies,
        command="algorithm",
        order=50,
        cost="Algorithm 7 and PhD-25 grow with records (a sort and one scan); the ASAP checker "
        "with candidate tables × seeds algorithm runs (at most 100,000, on at most 12 records)",
    )
)
