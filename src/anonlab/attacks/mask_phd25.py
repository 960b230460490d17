"""The PhD-25 attack on MASK (Jin, Zhang, Das, ASAP, Information Systems 2011, §8.2.1).

MASK (:mod:`anonlab.anonymize.mask`) perturbs only the groups that violate m-confidentiality,
replacing sensitive values (Adult: education below high school) by non-sensitive ones. An
adversary holding the negative association rule "fewer than 10% of people aged 25 or under have a
doctorate" reads a published group of young people with more than 10% ``Doctorate`` as a group
whose values were changed — so it *originally violated* m-confidentiality, and each of its
members is below high school with probability above ``1/m`` (Thm 5.2: the decision to perturb
used an unpublished ``S_max``).

Attack (paper §8.2.1; notes §2.11-C): for each published group whose ages are all at most 25
(generalization: the published age range's upper end; bucketization: the exact ages), if the
share of ``Doctorate`` among its published values exceeds 10%, label it *problematic*; its
records are *compromised*. Scores (ground truth, read only here):

* ``false_positive_groups``: problematic groups MASK did not perturb (the paper: none);
* ``violating``: problematic groups that originally violated m-confidentiality;
* ``sensitive_share``: the share of compromised records that truly hold a sensitive value,
  beside ``1/m`` (the inference claims more than ``1/m`` for each).

Choices where the paper is silent: "aged ≤ 25" is the group's largest age (so the rule applies to
every member); the share is strict (``> threshold``); the attribute, the age bound, the value and
the threshold are parameters.

Scoring "originally violated m-confidentiality" follows the release's protection: each value of
the sensitive set capped on its own (``as_one_value=False``), or the set counted as one value —
"below high school", as Jin et al. §8.2 (after Wong et al.) protect it (``as_one_value=True``).
By default the manifest's ``parameters["as_one_value"]`` says which (issue 18, part 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonlab._validation import check_float, check_int, takes_release
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.schema import Kind


@dataclass(frozen=True)
class PhD25Result:
    """Outcome of the PhD-25 attack.

    Attributes
    ----------
    problematic_groups : ndarray of int
        Groups labelled problematic.
    compromised_records : int
        Records in problematic groups.
    young_groups : int
        Groups whose ages are all <= the bound.
    perturbed_groups : int
        Groups MASK changed (any published value differs from the original).
    perturbed_young_groups : int
    violating_groups : int
        Groups that originally violated m-confidentiality.
    false_positive_groups : int
        Problematic groups MASK did not perturb.
    false_positive_records : int
    sensitive_in_compromised : int
        Compromised records that truly hold a sensitive value.
    m : int or None
    """

    problematic_groups: np.ndarray
    compromised_records: int
    young_groups: int
    perturbed_groups: int
    perturbed_young_groups: int
    violating_groups: int
    false_positive_groups: int
    false_positive_records: int
    sensitive_in_compromised: int
    m: int | None
    settings: dict

    @property
    def sensitive_share(self) -> float:
        c = self.compromised_records
        return self.sensitive_in_compromised / c if c else float("nan")

    def to_json(self) -> dict:
        share = self.sensitive_share
        return {
            "attack": "mask-phd25",
            **self.settings,
            "m": self.m,
            "problematic_groups": int(len(self.problematic_groups)),
            "compromised_records": self.compromised_records,
            "young_groups": self.young_groups,
            "perturbed_groups": self.perturbed_groups,
            "perturbed_young_groups": self.perturbed_young_groups,
            "violating_groups": self.violating_groups,
            "false_positive_groups": self.false_positive_groups,
            "false_positive_records": self.false_positive_records,
            "sensitive_in_compromised": self.sensitive_in_compromised,
            "sensitive_share": None if share != share else share,
            "one_over_m": None if not self.m else 1 / self.m,
        }


def _group_max_age(release: Release, attribute: str) -> np.ndarray:
    """Largest age of each group as the adversary sees it (published range or exact ages)."""
    table = release.table
    if attribute not in table.quasi_identifiers:
        raise AnonlabError(
            f"attribute {attribute!r} is not a quasi-identifier of the release; its "
            f"quasi-identifiers are {list(table.quasi_identifiers)}"
        )
    if table.schema[attribute].kind is not Kind.NUMERIC:
        raise AnonlabError(f"attribute {attribute!r} must be numeric (ages), it is categorical")
    values = table.values[attribute].astype(np.float64)
    if release.scheme == "generalization":
        return values[release.generalization[attribute].hi]
    hi = np.full(release.n_groups, -np.inf)
    np.maximum.at(hi, release.group, values[table.codes[attribute]])
    return hi


@takes_release
def phd25_attack(
    release: Release,
    *,
    sensitive_values: Sequence[str] | None = None,
    m: int | None = None,
    as_one_value: bool | None = None,
    age_attribute: str = "age",
    max_age: float = 25,
    value: str = "Doctorate",
    threshold: float = 0.10,
) -> PhD25Result:
    """Run the PhD-25 attack (Jin et al. §8.2.1) on a MASK release.

    Parameters
    ----------
    release : Release
    sensitive_values : sequence of str, optional
        MASK's sensitive set (default: the manifest's), used to score the inference.
    m : int, optional
        MASK's m (default: the manifest's).
    as_one_value : bool, optional
        Whether the set was protected as one value (default: the manifest's
        ``parameters["as_one_value"]``, else False): a group originally violated iff the set's
        count exceeds ``⌊|G|/m⌋``; otherwise iff some value of the set does.
    age_attribute, max_age, value, threshold
        The rule "fewer than ``threshold`` of people aged <= ``max_age`` have ``value``".

    Returns
    -------
    PhD25Result
    """
    params = release.manifest.get("parameters", {})
    if sensitive_values is None:
        sensitive_values = params.get("sensitive_values")
    if m is None:
        m = params.get("m")
    if as_one_value is None:
        as_one_value = bool(params.get("as_one_value", False))
    if m is not None:
        m = check_int("m", m, minimum=1)
    threshold = check_float("threshold", threshold, low=0.0, high=1.0)
    max_age = check_float("max_age", max_age)
    table = release.table
    sens = release.sensitive
    target = table.value_mask(sens, [value])  # raises naming the column if absent
    young = _group_max_age(release, age_attribute) <= max_age
    hist = release.sensitive_histogram
    sizes = release.group_sizes
    share = hist[:, target].sum(axis=1) / np.maximum(sizes, 1)
    problematic = young & (share > threshold)

    original = table.codes[sens]
    changed = np.bincount(
        release.group, weights=(release.sensitive_codes != original), minlength=release.n_groups
    )
    perturbed = changed > 0
    if sensitive_values is not None:
        constrained = table.value_mask(sens, sensitive_values)
        from anonlab.grouping import group_histogram

        orig_hist = group_histogram(
            release.group, original, release.n_groups, table.domain_size(sens)
        )
        in_set = np.where(constrained, orig_hist, 0)
        if not m:
            violating = perturbed
        elif as_one_value:
            violating = in_set.sum(axis=1) > sizes // m
        else:
            violating = (in_set > (sizes // m)[:, None]).any(axis=1)
        sens_rec = constrained[original]
        sensitive_in = int(sens_rec[problematic[release.group]].sum())
    else:
        violating = perturbed
        sensitive_in = 0
    fp = problematic & ~perturbed
    return PhD25Result(
        problematic_groups=np.flatnonzero(problematic),
        compromised_records=int(sizes[problematic].sum()),
        young_groups=int(young.sum()),
        perturbed_groups=int(perturbed.sum()),
        perturbed_young_groups=int((perturbed & young).sum()),
        violating_groups=int((violating & problematic).sum()),
        false_positive_groups=int(fp.sum()),
        false_positive_records=int(sizes[fp].sum()),
        sensitive_in_compromised=sensitive_in,
        m=m,
        settings={
            "as_one_value": bool(as_one_value),
            "age_attribute": age_attribute,
            "max_age": max_age,
            "value": value,
            "threshold": threshold,
        },
    )
