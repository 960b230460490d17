"""Jin, Zhang, Das (ASAP, Information Systems 2011): Figures 6 and 9, the attacks, reproduced.

    python -m anonlab.experiments.jin [--out DIR] [--seeds 20] [--quick]

Figure 6 — the PhD-25 attack on MASK (§8.2.1; :mod:`anonlab.attacks.mask_phd25`):

* Data: Adult (45,222 rows), quasi-identifiers in Table 6 order (:data:`ADULT_QI`: age, work
  class, marital status, occupation, race, sex, country, salary), ``jin-asap`` hierarchies;
  sensitive attribute education with the sensitive set :data:`LOW_EDUCATION` (1,566 records).
* MASK (:func:`anonlab.anonymize.mask`) with uniform replacement over the non-sensitive values
  (the reading under which the attack bites, notes E13), ``proportion="total"``, ``rounding=
  "floor"``; each (k, m) cell is run with ``seeds`` seeds (default 20) and summarised by mean,
  standard deviation, min and max (per seed the counts are noisy: a few groups of 5-8 records).
* Protection of the set (:data:`PROTECTIONS`, :func:`mask_release`): ``"set"`` (default) —
  "below high school" as one value, a group violating when the set's count exceeds
  ``⌊|G|/m⌋``, as the paper takes Wong et al.'s setting; ``"per-value"`` — each value capped
  on its own, the literal reading of "a sensitive value", which perturbs fewer groups (k = 5,
  m = 5: 182 against 288). :func:`main` runs both side by side (issue 18, part 5).
* 6a: k in 5..8 × m in 2..5. 6b: k = 5, m in 2..5, the share of sensitive records set to
  10%..20% by stratified resampling with replacement (same table size; sensitive records drawn
  from the 1,566, the others from the rest; a new resample per seed).
* Reported beside the compromised records: perturbed groups (MASK's violating groups; they do not
  depend on the seed and must rise with m), perturbed groups of people aged ≤ 25 (the attack's
  ceiling), false positives (the paper: none) with the original rows (``row_id``) whose true
  Doctorate set them off, and the share of compromised records that truly are below high school
  (the inference claims more than 1/m).
* Trend claims ("rises with m", "rises with the share") use a criterion fixed before the
  60-seed run (docs/reproductions/jin.md): no step's mean may fall by more than
  :data:`TREND_SE` standard errors of the difference (:func:`rises_within_noise`); the raw
  ordering is reported beside it.

Figure 9 — Algorithm 7 against Hilb (§8.3.1; :mod:`anonlab.attacks.hilb_algorithm7`):

* Data: census-kdd-workers (49,479 rows) standing in for the paper's 300,000 IPUMS rows, which are
  not available; sensitive attribute detailed occupation (46 values, the paper's 50);
  quasi-identifiers in Table 6 order (:data:`CENSUS_QI`: age, sex, education, marital status,
  race, class of worker, country of birth). ℓ = 2..6.
* Compromised records by the union rule (the paper's count) and the strict rule (values pinned
  down: a flagged record holds the value of a member of the flagging group ranked below it,
  propagated to a fixed point), with the strict rule's precision against the true values,
  under both tie-breaks
  (``rank``: Hilb's own order, index then row; ``index``: the raw Hilbert index, inclusive).
* The paper: 259,937 / 300,000 = 86.6% at ℓ = 6, rising monotonically with ℓ (no other number is
  in the text; notes E18).

Also: PhD-25 on MASK, MASK+ and MASK++ under each reading of :data:`REPAIR_READINGS`
(:func:`figure6_repairs`), Algorithm 7 on Hilb's repairs (:func:`figure9_repairs`: Hilb+ and
Hilb++ as printed and with ``variant="cut"``), the ASAP checker on random tiny tables
(:func:`checker_survey`) and on MASK+ / MASK++ (:func:`mask_checker_survey`, ``--only
mask-survey``; docs/asap.md).

Every number in docs/reproductions/jin.md comes from :func:`main`; the claims, plots and report
are in :mod:`anonlab.experiments.jin_report` (also importable from here).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab._validation import rng_from_seed
from anonlab.anonymize import hilb, mask
from anonlab.attacks.hilb_algorithm7 import hilb_algorithm7
from anonlab.attacks.mask_phd25 import phd25_attack
from anonlab.experiments.adult_education import ATTRIBUTES, LOW_EDUCATION, SENSITIVE
from anonlab.formula_guard import guard_frame
from anonlab.release import Release
from anonlab.table import Table

#: Table 6a's Adult setting, Wong et al.'s (:mod:`anonlab.experiments.adult_education`).
ADULT_QI = ATTRIBUTES
ADULT_SENSITIVE = SENSITIVE
CENSUS_DATASET = "census-kdd-workers"
CENSUS_QI = (
    "age",
    "sex",
    "education",
    "marital_stat",
    "race",
    "class_of_worker",
    "country_of_birth_self",
)
CENSUS_SENSITIVE = "detailed_occupation_recode"
HIERARCHY_SET = "jin-asap"

PAPER = {
    "adult_rows": 45222,
    "adult_sensitive": 1566,
    "fig6_false_positives": 0,
    "fig9_share_l6": 259937 / 300000,
    "fig9_rows": 300000,
    "census_expected_union_l6": 0.75,  # the expectation on census-kdd-workers
}


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


def adult_table() -> Table:
    """Adult with Table 6's quasi-identifiers and education as the sensitive attribute."""
    return Table.from_dataset(
        "adult",
        quasi_identifiers=list(ADULT_QI),
        sensitive=ADULT_SENSITIVE,
        hierarchy_set=HIERARCHY_SET,
    )


def census_table() -> Table:
    """census-kdd-workers with Table 6's Census quasi-identifiers, detailed occupation."""
    return Table.from_dataset(
        CENSUS_DATASET,
        quasi_identifiers=list(CENSUS_QI),
        sensitive=CENSUS_SENSITIVE,
        hierarchy_set=HIERARCHY_SET,
    )


def stratified_resample(
    table: Table, share: float, seed: int, sensitive_values: Sequence[str] = LOW_EDUCATION
) -> Table:
    """Same number of rows, ``share`` of them sensitive, drawn with replacement per stratum."""
    if not 0 < share < 1:
        raise ValueError(f"share must be in (0, 1), got {share}")
    rng = rng_from_seed(seed)
    sens = table.value_mask(table.require_sensitive(), sensitive_values)[
        table.codes[table.sensitive]
    ]
    pos, neg = np.flatnonzero(sens), np.flatnonzero(~sens)
    n = table.n_rows
    n_s = int(round(share * n))
    rows = np.concatenate(
        [rng.choice(pos, size=n_s, replace=True), rng.choice(neg, size=n - n_s, replace=True)]
    )
    return table.take(np.sort(rows))


# ---------------------------------------------------------------------------------------------
# Figure 6
# ---------------------------------------------------------------------------------------------


def young_doctorates(table: Table, max_age: float = 25) -> np.ndarray:
    """``row_id`` of the records aged <= ``max_age`` whose education is Doctorate."""
    sens = table.require_sensitive()
    age = np.asarray(table.values["age"], dtype=float)[table.codes["age"]]
    doctorate = table.value_mask(sens, ["Doctorate"])[table.codes[sens]]
    return np.unique(table.row_id[(age <= max_age) & doctorate])


#: How MASK protects the low-education set (issue 18, part 5): ``"set"`` — as one value,
#: "below high school", as Jin et al. §8.2 take Wong et al.'s setting (and as
#: :mod:`anonlab.experiments.wong` runs MASK); ``"per-value"`` — each of the four values capped on
#: its own (anonlab's ``mask(sensitive_values=...)``), the literal reading of "linked to a
#: sensitive value", reported beside it.
PROTECTIONS = ("set", "per-value")


def mask_release(
    table: Table,
    k: int,
    m: int,
    *,
    seed: int = 0,
    protection: str = "set",
    replacement: str = "uniform",
    scheme: str = "generalization",
) -> Release:
    """MASK (``proportion="total"``, ``rounding="floor"``) protecting :data:`LOW_EDUCATION`.

    ``protection="set"``: MASK on a copy of the table whose four values are one label
    (:func:`anonlab.experiments.wong.merged_table`; the grouping is on the QI only, so it is
    the same partition), publishing the original values except where MASK changed a record
    (its new, non-sensitive label). The manifest says ``as_one_value: True`` so the PhD-25
    scoring counts the set as one value. ``protection="per-value"``: :func:`mask` itself.
    """
    if protection not in PROTECTIONS:
        raise ValueError(f"protection must be one of {PROTECTIONS}, got {protection!r}")
    low = list(LOW_EDUCATION)
    kw = {"seed": seed, "replacement": replacement, "scheme": scheme}
    if protection == "per-value":
        return mask(table, k, m, sensitive_values=low, **kw)
    from anonlab.experiments.wong import MERGED, merged_table

    sens = table.require_sensitive()
    merged = merged_table(table)
    rel = mask(merged, k, m, sensitive_values=[MERGED], **kw)
    changed = rel.sensitive_codes != merged.codes[sens]
    domain = {str(v): i for i, v in enumerate(table.values[sens])}
    to_original = np.array([domain.get(str(v), -1) for v in merged.values[sens]])
    published = table.codes[sens].astype(np.int64)
    published[changed] = to_original[rel.sensitive_codes[changed]]
    keep = ("seed", "partition", "violating_groups", "compliant_groups")
    manifest = {
        "algorithm": "mask",
        "parameters": {
            **rel.manifest["parameters"],
            "sensitive_values": low,
            "as_one_value": True,
        },
        **{key: rel.manifest[key] for key in keep},
    }
    return Release(table, rel.group, rel.scheme, manifest, published_sensitive=published)


def _phd_row(table: Table, k: int, m: int, seed: int, protection: str = "set") -> dict:
    release = mask_release(table, k, m, seed=seed, protection=protection)
    res = phd25_attack(release)
    j = res.to_json()
    # false positives: problematic groups MASK left unperturbed; which original rows (row_id)
    # hold the true Doctorate values that set them off
    sens = table.require_sensitive()
    original = table.codes[sens]
    changed = np.bincount(
        release.group, weights=release.sensitive_codes != original, minlength=release.n_groups
    )
    fp_group = np.zeros(release.n_groups, dtype=bool)
    fp_group[res.problematic_groups] = True
    fp_group &= changed == 0
    doctorate = table.value_mask(sens, ["Doctorate"])[original]
    fp_rows = np.unique(table.row_id[fp_group[release.group] & doctorate])
    return {
        "protection": protection,
        "k": k,
        "m": m,
        "seed": seed,
        "compromised": j["compromised_records"],
        "problematic_groups": j["problematic_groups"],
        "perturbed_groups": j["perturbed_groups"],
        "perturbed_young_groups": j["perturbed_young_groups"],
        "false_positive_groups": j["false_positive_groups"],
        "sensitive_in_compromised": j["sensitive_in_compromised"],
        "fp_doctorate_rows": " ".join(str(int(r)) for r in fp_rows),
    }


def figure6a(
    ks: Sequence[int] = (5, 6, 7, 8),
    ms: Sequence[int] = (2, 3, 4, 5),
    seeds: Sequence[int] = range(20),
    table: Table | None = None,
    protections: Sequence[str] = ("set",),
) -> pd.DataFrame:
    """PhD-25 on MASK over k × m, one row per (protection, k, m, seed); see
    :data:`PROTECTIONS` (default: the set as one value, the paper's setting)."""
    table = adult_table() if table is None else table
    return pd.DataFrame(
        [_phd_row(table, k, m, s, p) for p in protections for k in ks for m in ms for s in seeds]
    )


def figure6b(
    shares: Sequence[float] = (0.10, 0.12, 0.14, 0.16, 0.18, 0.20),
    ms: Sequence[int] = (2, 3, 4, 5),
    seeds: Sequence[int] = range(20),
    k: int = 5,
    table: Table | None = None,
    protections: Sequence[str] = ("set",),
) -> pd.DataFrame:
    """PhD-25 on MASK over the share of sensitive records (stratified resampling), k = 5."""
    table = adult_table() if table is None else table
    rows = []
    for share in shares:
        for s in seeds:
            sample = stratified_resample(table, share, seed=10_000 + s)
            for p in protections:
                for m in ms:
                    rows.append({"share": share, **_phd_row(sample, k, m, s, p)})
    return pd.DataFrame(rows)


#: Figure 6 repairs: which values MASK, MASK+ and MASK++ protect. ``"set"`` and
#: ``"per-value"`` as :data:`PROTECTIONS` (all three algorithms alike: like with like);
#: ``"all-values"``: MASK+ / MASK++ cap every education value, the paper's formalization of
#: MASK+ (§6.3, notes E10), MASK then as under ``"set"``.
REPAIR_READINGS = ("set", "per-value", "all-values")


def repair_release(
    table: Table,
    algorithm: str,
    k: int,
    m: int,
    seed: int,
    reading: str = "set",
    scheme: str = "generalization",
) -> Release:
    """MASK, MASK+ or MASK++ on Adult under a reading of :data:`REPAIR_READINGS`."""
    from anonlab.anonymize import anonymize

    if reading not in REPAIR_READINGS:
        raise ValueError(f"reading must be one of {REPAIR_READINGS}, got {reading!r}")
    if algorithm == "mask":
        protection = "per-value" if reading == "per-value" else "set"
        return mask_release(table, k, m, seed=seed, protection=protection, scheme=scheme)
    kw: dict = {"k": k, "m": m, "seed": seed, "scheme": scheme}
    if reading != "all-values":
        kw["sensitive_values"] = list(LOW_EDUCATION)
        kw["as_one_value"] = reading == "set"
    return anonymize(table, algorithm, **kw)


def protects(release: Release, algorithm: str, m: int, reading: str) -> bool:
    """Whether ``release`` meets the frequency condition of m-confidentiality as the reading
    protects the values: the below-high-school set as one value (``"set"``, and MASK under
    ``"all-values"``), each of its values (``"per-value"``), every education value (MASK+ and
    MASK++ under ``"all-values"``)."""
    from anonlab.models import check

    sizes = release.group_sizes
    if reading == "all-values" and algorithm != "mask":
        return bool(check(release, "m-confidentiality", m=m).holds)
    if reading == "per-value":
        low = list(LOW_EDUCATION)
        return bool(check(release, "m-confidentiality", m=m, sensitive_values=low).holds)
    in_set = release.table.value_mask(release.sensitive, list(LOW_EDUCATION))
    count = release.sensitive_histogram[:, in_set].sum(axis=1)
    return bool((count <= sizes // m).all())


def figure6_repairs(
    ms: Sequence[int] = (2, 3, 4, 5),
    seeds: Sequence[int] = range(5),
    k: int = 5,
    table: Table | None = None,
    readings: Sequence[str] = REPAIR_READINGS,
) -> pd.DataFrame:
    """PhD-25 on MASK and on its repairs, each reading of :data:`REPAIR_READINGS` (MASK's own
    rows are the same under "set" and "all-values"). The attack is scored against the
    low-education set either way (compromised = below high school?), as one value under
    "set". A setting an algorithm refuses (e.g. E8) is a row with the reason in ``note``."""
    from anonlab.anonymize import available
    from anonlab.errors import AnonlabError

    table = adult_table() if table is None else table
    rows = []
    for reading in readings:
        for name in ("mask", "mask+", "mask++"):
            if name not in available():
                continue
            for m in ms:
                for s in seeds:
                    base = {"reading": reading, "algorithm": name, "m": m, "seed": s}
                    try:
                        release = repair_release(table, name, k, m, s, reading)
                    except AnonlabError as exc:
                        rows.append({**base, "note": str(exc).split(";")[0]})
                        continue
                    j = phd25_attack(
                        release,
                        sensitive_values=list(LOW_EDUCATION),
                        m=m,
                        as_one_value=reading == "set",
                    ).to_json()
                    rows.append(
                        {
                            **base,
                            "groups": release.n_groups,
                            "perturbed_records": release.manifest["perturbed_records"],
                            "perturbed_groups": j["perturbed_groups"],
                            "problematic_groups": j["problematic_groups"],
                            "compromised": j["compromised_records"],
                            "false_positive_groups": j["false_positive_groups"],
                            "sensitive_in_compromised": j["sensitive_in_compromised"],
                            "note": "",
                        }
                    )
    runs = pd.DataFrame(rows)
    g = runs.groupby(["reading", "algorithm", "m"], sort=False)
    cols = ["groups", "perturbed_records", "perturbed_groups", "problematic_groups"]
    out = g[[*cols, "compromised"]].mean()
    out["false_positive_groups"] = g["false_positive_groups"].sum()
    out["sensitive_in_compromised"] = g["sensitive_in_compromised"].sum()
    out["seeds"] = g["compromised"].count()
    out["note"] = g["note"].agg(lambda x: "; ".join(sorted({v for v in x if v})))
    return out.reset_index()


def summarize(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean, standard deviation, min and max of the compromised records per cell."""
    g = runs.groupby(list(by))
    out = g["compromised"].agg(["mean", "std", "min", "max"])
    out["perturbed_groups"] = g["perturbed_groups"].mean()
    out["perturbed_young_groups"] = g["perturbed_young_groups"].mean()
    out["false_positive_groups"] = g["false_positive_groups"].sum()
    comp = g["compromised"].sum()
    out["sensitive_share"] = (g["sensitive_in_compromised"].sum() / comp.where(comp > 0)).round(4)
    out["seeds"] = g.size()
    return out.reset_index()


def rises(series: pd.Series) -> bool:
    """Every step of ``series`` ``>= 0`` (the raw ordering, no noise allowance)."""
    v = series.to_numpy()
    return bool(np.all(np.diff(v) >= 0))


#: Figure 6's trend criterion, fixed before the 60-seed run: a step of the parameter "falls"
#: only if the mean drops by more than this many standard errors of the difference of means.
TREND_SE = 2.0


def rises_within_noise(summary: pd.DataFrame, along: str) -> tuple[bool, float]:
    """Whether the mean compromised count rises along ``along`` up to noise (per-seed counts
    are noisy): no step may fall by more than :data:`TREND_SE` standard errors of the
    difference, ``sqrt(sd_a²/n_a + sd_b²/n_b)`` (seeds independent). Also returns the worst
    step in standard errors (negative = a fall)."""
    s = summary.sort_values(along)
    mean = s["mean"].to_numpy()
    se = (s["std"].fillna(0) / np.sqrt(s["seeds"])).to_numpy()
    diff = np.diff(mean)
    se_diff = np.sqrt(se[1:] ** 2 + se[:-1] ** 2)
    # no spread (e.g. every seed 0): a step falls only if its mean does (equal means: 0 SE)
    flat = np.where(diff < 0, -np.inf, np.where(diff > 0, np.inf, 0.0))
    z = np.where(se_diff > 0, diff / np.where(se_diff > 0, se_diff, 1), flat)
    worst = float(z.min()) if len(z) else 0.0
    return bool(worst >= -TREND_SE), worst


# ---------------------------------------------------------------------------------------------
# Figure 9
# ---------------------------------------------------------------------------------------------


def figure9(ls: Sequence[int] = (2, 3, 4, 5, 6), table: Table | None = None) -> pd.DataFrame:
    """Algorithm 7 on Hilb over ℓ: union and strict counts under both tie-breaks."""
    table = census_table() if table is None else table
    rows = []
    for l in ls:
        release = hilb(table, l)
        for tie in ("rank", "index"):
            t0 = time.perf_counter()
            res = hilb_algorithm7(release, tie_break=tie)
            secs = time.perf_counter() - t0
            j = res.to_json()
            rows.append(
                {
                    "l": l,
                    "tie_break": tie,
                    "rows": table.n_rows,
                    "groups": release.n_groups,
                    "greedy_groups": release.manifest["greedy_groups"],
                    "vulnerable_groups": j["vulnerable_groups"],
                    "union": j["union_compromised"],
                    "union_share": round(j["union_share"], 4),
                    "union_precision": j["union_precision"],
                    "strict": j["strict_compromised"],
                    "strict_share": round(j["strict_share"], 4),
                    "strict_precision": j["strict_precision"],
                    "seconds": round(secs, 4),
                }
            )
    return pd.DataFrame(rows)


REPAIRS = (
    ("hilb", {}),
    ("hilb+", {}),
    ("hilb+", {"variant": "cut"}),
    ("hilb++", {}),
    ("hilb++", {"variant": "cut"}),
)


def figure9_repairs(
    ls: Sequence[int] = (2, 4, 6), table: Table | None = None, seed: int = 0
) -> pd.DataFrame:
    """Algorithm 7 (rank tie-break) on Hilb and its repairs; the strict rule's precision tells
    whether the attack's inference still holds (it assumes Hilb's frontier structure)."""
    from anonlab.anonymize import anonymize, available

    table = census_table() if table is None else table
    rows = []
    for name, params in REPAIRS:
        if name not in available():
            continue
        for l in ls:
            release = anonymize(table, name, l=l, seed=seed, **params)
            j = hilb_algorithm7(release).to_json()
            rows.append(
                {
                    "algorithm": name + (f" ({params['variant']})" if params else ""),
                    "l": l,
                    "groups": release.n_groups,
                    "union_share": round(j["union_share"], 4),
                    "strict": j["strict_compromised"],
                    "strict_precision": j["strict_precision"],
                }
            )
    return pd.DataFrame(rows)


SURVEY = (
    ("mondrian", {"l": 2}),
    ("mondrian+", {"l": 2}),
    ("hilb", {"l": 2}),
    ("hilb+", {"l": 2}),
    ("hilb+", {"l": 2, "variant": "cut"}),
)


def checker_survey(trials: int = 60, seed: int = 1) -> pd.DataFrame:
    """The ASAP checker on random tiny tables: how often each deterministic algorithm leaks.

    Tables of 4-7 records, two QIs with codes 0..3, sensitive values drawn from 4 labels
    (seeded); tables that are not 2-eligible are counted as skipped. A table "leaks" when some
    posterior rises under the multiset knowledge alone or with one extra negative fact.
    """
    from anonlab.anonymize import available
    from anonlab.attacks.asap_checker import asap_check
    from anonlab.errors import AnonlabError

    rng = rng_from_seed(seed)
    counts = {(n, tuple(sorted(p.items()))): [0, 0, 0, 0] for n, p in SURVEY if n in available()}
    for _ in range(trials):
        n = int(rng.integers(4, 8))
        frame = pd.DataFrame(
            {
                "x": rng.integers(0, 4, n),
                "y": rng.integers(0, 4, n),
                "s": rng.choice(list("abcd"), n),
            }
        )
        table = Table.from_frame(frame, quasi_identifiers=["x", "y"], sensitive="s")
        for (name, key), c in counts.items():
            try:
                res = asap_check(table, name, dict(key))
            except AnonlabError:
                c[3] += 1
                continue
            c[0] += 1
            c[1] += not res.safe_without_extra_facts
            c[2] += not res.safe
    rows = []
    for (name, key), (checked, marginal, leaks, skipped) in counts.items():
        rows.append(
            {
                "algorithm": name,
                "parameters": ", ".join(f"{k}={v}" for k, v in key),
                "tables": checked,
                "leak_without_extra_fact": marginal,
                "leak": leaks,
                "skipped_not_eligible": skipped,
            }
        )
    return pd.DataFrame(rows)


MASK_SURVEY = (
    ("mask+", {"fill": "paper"}),
    ("mask+", {"fill": "random"}),
    ("mask++", {"fill": "random"}),
)


def mask_checker_survey(
    trials: int = 12,
    seed: int = 2,
    sizes: Sequence[int] = (4, 6),
    knowledge: Sequence[str] = ("domain", "multiset"),
    naive: str = "minimal-change",
    n_seeds: int = 32,
) -> pd.DataFrame:
    """The ASAP checker on MASK+ / MASK++ (k = 2, m = 2) over random tiny tables.

    Tables: ``sizes`` records (even: with |D_S| = 3 and m = 2 only even groups are feasible,
    notes E8), two QIs with codes 0..3, the three values a, b, c each present, the rest drawn
    (seeded); tables MASK+ refuses are redrawn (counted). Per (algorithm, fill, knowledge): tables
    where some published group differs from the original, tables with a rise under the stated
    knowledge (``leak``) and with one extra negative fact (``leak_with_fact``), and tables where
    the smart posterior of some record exceeds 1/m by more than the tolerance (m-confidentiality
    against the algorithm-aware adversary, MASK+'s own guarantee), with the largest smart and
    naive posteriors. Randomized runs use ``n_seeds`` seeds per candidate table.
    """
    from anonlab.anonymize import anonymize
    from anonlab.attacks.asap_checker import asap_check
    from anonlab.errors import AnonlabError

    rng = rng_from_seed(seed)
    m = 2
    tables, refused = [], 0
    while len(tables) < trials:
        n = int(rng.choice(list(sizes)))
        values = np.concatenate([["a", "b", "c"], rng.choice(list("abc"), n - 3)])
        frame = pd.DataFrame(
            {"x": rng.integers(0, 4, n), "y": rng.integers(0, 4, n), "s": rng.permutation(values)}
        )
        table = Table.from_frame(frame, quasi_identifiers=["x", "y"], sensitive="s")
        try:
            anonymize(table, "mask+", k=2, m=m)
        except AnonlabError:
            refused += 1
            continue
        tables.append(table)
    rows = []
    for name, extra in MASK_SURVEY:
        for kn in knowledge:
            c = dict.fromkeys(("perturbed", "leak", "leak_with_fact", "above_1_over_m"), 0)
            top_smart = top_naive = 0.0
            for table in tables:
                params = {"k": 2, "m": m, **extra}
                release = anonymize(table, name, seed=0, **params)
                res = asap_check(table, name, params, knowledge=kn, naive=naive, n_seeds=n_seeds)
                c["perturbed"] += bool((release.sensitive_codes != table.codes["s"]).any())
                c["leak"] += not res.safe_without_extra_facts
                c["leak_with_fact"] += not res.safe
                c["above_1_over_m"] += bool(res.smart.max() > 1 / m + res.tolerance)
                top_smart = max(top_smart, float(res.smart.max()))
                top_naive = max(top_naive, float(res.naive.max()))
            rows.append(
                {
                    "algorithm": name,
                    "fill": extra["fill"],
                    "knowledge": kn,
                    "naive": naive,
                    "tables": len(tables),
                    **c,
                    "max_smart": round(top_smart, 3),
                    "max_naive": round(top_naive, 3),
                    "redrawn": refused,
                }
            )
    return pd.DataFrame(rows)


#: Names that live in :mod:`anonlab.experiments.jin_report`, importable from here too.
_REPORT_NAMES = ("by_protection", "check_claims", "plot", "report")


def __getattr__(name: str):
    """The report's names (:data:`_REPORT_NAMES`), loaded on first use (no import cycle)."""
    if name in _REPORT_NAMES:
        from anonlab.experiments import jin_report

        return getattr(jin_report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """The report (docs/reproductions/jin.md): Figures 6, 9, the repairs and the surveys."""
    from anonlab.experiments.jin_report import plot, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="jin-out", help="Folder for CSV, PNG and report.md.")
    parser.add_argument("--seeds", type=int, default=20, help="Seeds per Figure 6 cell.")
    parser.add_argument("--quick", action="store_true", help="3 seeds, fewer cells.")
    parser.add_argument(
        "--only", choices=["6a", "6b", "9", "survey", "mask-survey"], nargs="*", default=None
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = range(3 if args.quick else args.seeds)
    only = set(args.only or ["6a", "6b", "9", "survey", "mask-survey"])
    t0 = time.perf_counter()
    adult = adult_table() if only & {"6a", "6b"} else None
    a = figure6a(seeds=seeds, table=adult, protections=PROTECTIONS) if "6a" in only else None
    shares = (0.10, 0.15, 0.20) if args.quick else (0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
    b = (
        figure6b(shares=shares, seeds=seeds, table=adult, protections=PROTECTIONS)
        if "6b" in only
        else None
    )
    mrep = figure6_repairs(table=adult) if "6a" in only else None
    f9 = figure9() if "9" in only else None
    rep = figure9_repairs() if "9" in only else None
    survey = checker_survey() if "survey" in only else None
    msurvey = mask_checker_survey() if "mask-survey" in only else None
    frames = (("figure6a", a), ("figure6b", b), ("figure9", f9), ("repairs", rep))
    frames += (("mask_repairs", mrep),)
    for name, frame in (*frames, ("survey", survey), ("mask_survey", msurvey)):
        if frame is not None:
            guard_frame(frame).to_csv(out / f"{name}.csv", index=False)
    plot(a, b, f9, out)
    young = young_doctorates(adult) if adult is not None else None
    text = report(a, b, f9, len(seeds), rep, survey, mrep, young, msurvey)
    text += f"\nTotal time {time.perf_counter() - t0:.1f} s.\n"
    (out / "report.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
