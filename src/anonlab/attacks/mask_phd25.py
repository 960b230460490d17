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
records are *compromised*. The inference (:func:`phd25_inference`) reads only the published
view, the rule and the manifest's MASK parameters (``m``, the protected values), which the
attacker knows; it never reads the original values. Scores (:meth:`PhD25Result.score`, the only
place the ground truth is read; :func:`phd25_attack` is both steps):

* ``perturbed_groups``: groups MASK changed (a published value differs from the original);
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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from anonlab._validation import check_float, check_int, takes_release
from anonlab.errors import AnonlabError
from anonlab.grouping import group_histogram
from anonlab.release import Release
from anonlab.schema import Kind


@dataclass(frozen=True)
class PhD25Result:
    """Outcome of the PhD-25 attack: the inference, and once :meth:`score` has compared it with
    the truth, the scores (None until then).

    Attributes
    ----------
    problematic_groups : ndarray of int
        Groups labelled problematic.
    compromised_records : int
        Records in problematic groups.
    young_groups : int
        Groups whose ages are all <= the bound.
    young : ndarray of bool, shape (n_groups,)
        Which groups are young (the rule applies to every member).
    m : int or None
    sensitive_values : tuple of str or None
        MASK's protected values (the manifest's), the set the attacker infers for a compromised
        record.
    settings : dict
    perturbed_groups : int or None
        Scoring: groups MASK changed (any published value differs from the original).
    perturbed_young_groups : int or None
    violating_groups : int or None
        Scoring: problematic groups that originally violated m-confidentiality.
    false_positive_groups : int or None
        Scoring: problematic groups MASK did not perturb.
    false_positive_records : int or None
    sensitive_in_compromised : int or None
        Scoring: compromised records that truly hold a sensitive value.
    """

    problematic_groups: np.ndarray
    compromised_records: int
    young_groups: int
    young: np.ndarray
    m: int | None
    sensitive_values: tuple[str, ...] | None
    settings: dict
    perturbed_groups: int | None = None
    perturbed_young_groups: int | None = None
    violating_groups: int | None = None
    false_positive_groups: int | None = None
    false_positive_records: int | None = None
    sensitive_in_compromised: int | None = None

    @property
    def scored(self) -> bool:
        """Whether :meth:`score` has compared the inference with the truth."""
        return self.perturbed_groups is not None

    def score(self, release: Release) -> PhD25Result:
        """This result scored against ``release``'s ground truth (the publisher's copy): which
        groups MASK perturbed, which problematic groups originally violated m-confidentiality
        (per value, or the set as one value: ``settings["as_one_value"]``), and how many
        compromised records truly hold a protected value."""
        table = release.table
        sens = release.sensitive
        sizes = release.group_sizes
        if len(sizes) != len(self.young):
            raise AnonlabError(
                f"score: the release has {len(sizes)} groups, the inference {len(self.young)}"
            )
        problematic = np.zeros(len(sizes), dtype=bool)
        problematic[self.problematic_groups] = True
        original = table.codes[sens]
        changed = np.bincount(
            release.group,
            weights=(release.sensitive_codes != original),
            minlength=release.n_groups,
        )
        perturbed = changed > 0
        m = self.m
        if self.sensitive_values is not None:
            constrained = table.value_mask(sens, list(self.sensitive_values))
            orig_hist = group_histogram(
                release.group, original, release.n_groups, table.domain_size(sens)
            )
            in_set = np.where(constrained, orig_hist, 0)
            if not m:
                violating = perturbed
            elif self.settings["as_one_value"]:
                violating = in_set.sum(axis=1) > sizes // m
            else:
                violating = (in_set > (sizes // m)[:, None]).any(axis=1)
            sens_rec = constrained[original]
            sensitive_in = int(sens_rec[problematic[release.group]].sum())
        else:
            violating = perturbed
            sensitive_in = 0
        fp = problematic & ~perturbed
        return replace(
            self,
            perturbed_groups=int(perturbed.sum()),
            perturbed_young_groups=int((perturbed & self.young).sum()),
            violating_groups=int((violating & problematic).sum()),
            false_positive_groups=int(fp.sum()),
            false_positive_records=int(sizes[fp].sum()),
            sensitive_in_compromised=sensitive_in,
        )

    @property
    def sensitive_share(self) -> float:
        """Share of compromised records that truly hold a protected value (scoring; nan if
        none is compromised)."""
        if not self.scored:
            raise AnonlabError(
                "sensitive_share compares the inference with the ground truth: call "
                "result.score(release) first (the inference alone never reads it)"
            )
        c = self.compromised_records
        return self.sensitive_in_compromised / c if c else float("nan")

    def to_json(self) -> dict:
        """The inference's counts; the scores only once scored."""
        out = {
            "attack": "mask-phd25",
            **self.settings,
            "m": self.m,
            "problematic_groups": int(len(self.problematic_groups)),
            "compromised_records": self.compromised_records,
            "young_groups": self.young_groups,
        }
        if not self.scored:
            return out
        share = self.sensitive_share
        return {
            **out,
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
def phd25_attack(release: Release, **options: Any) -> PhD25Result:
    """Run the PhD-25 attack (Jin et al. §8.2.1) on a MASK release and score it:
    :func:`phd25_inference` with ``options`` (its keywords: ``sensitive_values``, ``m``,
    ``as_one_value``, ``age_attribute``, ``max_age``, ``value``, ``threshold``) on
    :meth:`release.adversary_copy() <anonlab.release.Release.adversary_copy>`, so it cannot
    read the truth, then :meth:`PhD25Result.score` on ``release``.
    """
    return phd25_inference(release.adversary_copy(), **options).score(release)


@takes_release
def phd25_inference(
    view: Release,
    *,
    sensitive_values: Sequence[str] | None = None,
    m: int | None = None,
    as_one_value: bool | None = None,
    age_attribute: str = "age",
    max_age: float = 25,
    value: str = "Doctorate",
    threshold: float = 0.10,
) -> PhD25Result:
    """The PhD-25 attack (Jin et al. §8.2.1) from what is published only: the problematic
    groups and the compromised records. Score the result with :meth:`PhD25Result.score`.

    Parameters
    ----------
    view : Release
        A MASK release: the adversary's copy (:meth:`~anonlab.release.Release.adversary_copy`)
        or the release itself; only its published sensitive values, groups, quasi-identifiers
        and manifest are read.
    sensitive_values : sequence of str, optional
        MASK's sensitive set (default: the manifest's): what a compromised record is inferred to
        hold, and what the score counts.
    m : int, optional
        MASK's m (default: the manifest's).
    as_one_value : bool, optional
        Whether the set was protected as one value (default: the manifest's
        ``parameters["as_one_value"]``, else False): a group originally violated iff the set's
        count exceeds ``⌊|G|/m⌋``; otherwise iff some value of the set does (scoring).
    age_attribute, max_age, value, threshold
        The rule "fewer than ``threshold`` of people aged <= ``max_age`` have ``value``".

    Returns
    -------
    PhD25Result
        Unscored (the scores are None).
    """
    params = view.manifest.get("parameters", {})
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
    table = view.table
    sens = view.sensitive
    target = table.value_mask(sens, [value])  # raises naming the column if absent
    if sensitive_values is not None:
        sensitive_values = tuple(str(v) for v in sensitive_values)
        table.value_mask(sens, list(sensitive_values))  # raises naming an unknown value
    young = _group_max_age(view, age_attribute) <= max_age
    hist = view.sensitive_histogram
    sizes = view.group_sizes
    share = hist[:, target].sum(axis=1) / np.maximum(sizes, 1)
    problematic = young & (share > threshold)
    return PhD25Result(
        problematic_groups=np.flatnonzero(problematic),
        compromised_records=int(sizes[problematic].sum()),
        young_groups=int(young.sum()),
        young=young,
        m=m,
        sensitive_values=sensitive_values,
        settings={
            "as_one_value": bool(as_one_value),
            "age_attribute": age_attribute,
            "max_age": max_age,
            "value": value,
            "threshold": threshold,
        },
    )
