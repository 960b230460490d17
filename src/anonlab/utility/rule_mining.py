"""Rule-mining utility: confidence error and identification error (Li & Li, ICDE 2008, §VI-C).

Positive association rules ``X ⇒ s`` (``X`` quasi-identifier conditions, ``s`` a sensitive value;
support and conviction thresholds, :mod:`anonlab.mining.association_rules`) are mined from the
original table (``R_org``) and estimated from a bucketized release (``R_rec``).

**Estimation rule** (the paper gives none; notes §8.1, the standard Anatomy estimator, the same as
the COUNT-query workload's). A bucketized release publishes every record's exact quasi-identifiers
and, per group, the multiset of sensitive values. Within a group ``g`` each member's sensitive
value is spread uniformly over the group's multiset: record ``r`` has value ``s`` with probability
``hist[g, s] / |g|``. Counts are expected counts::

    rec_C_X[s] = sum_g |{r in g : r satisfies X}| · hist[g, s] / |g|

while ``C_X`` (quasi-identifiers only) is exact. Support, confidence ``rec_C_X[s] / C_X`` and
conviction are computed from these; ``P(s)`` is the published frequency. ``hist`` holds the
*published* sensitive values.

**Metrics** (§VI-C; reported in % by the paper, as fractions here):

* confidence error: mean over ``r ∈ R_org`` of ``|rec_conf_r − org_conf_r| / org_conf_r``;
* identification error, false positives ``ρ+ = |R_rec − R_org| / |R_org|`` and false negatives
  ``ρ− = |R_org − R_rec| / |R_org|``.

Only releases that publish exact quasi-identifiers can be evaluated this way (bucketization);
a generalized release raises an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.mining.association_rules import AssociationRuleSet, mine_association_rules
from anonlab.mining.itemsets import ItemCatalog
from anonlab.release import Release

__all__ = ["RuleMiningError", "bucket_probabilities", "rule_mining_error"]


def bucket_probabilities(release: Release) -> np.ndarray:
    """Per record, the probability of each sensitive value under the uniform spread within its
    group: ``hist[g(r), s] / |g(r)|``, shape (n_rows, n_sensitive_values)."""
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    sizes = np.asarray(release.group_sizes, dtype=np.float64)
    return (hist / sizes[:, None])[release.group]


@dataclass(frozen=True)
class RuleMiningError:
    """Errors of rules estimated from a release against rules mined from the original.

    Attributes
    ----------
    confidence_error : float
        Mean relative confidence error over ``R_org`` (fraction; ×100 for the paper's %).
    false_positive : float
        ``|R_rec − R_org| / |R_org|``.
    false_negative : float
        ``|R_org − R_rec| / |R_org|``.
    n_original_rules, n_reconstructed_rules, n_common_rules : int
    settings : dict
        ``min_support``, ``min_conviction``, ``max_conditions``, ``estimation``.
    original, reconstructed : AssociationRuleSet
    """

    confidence_error: float
    false_positive: float
    false_negative: float
    n_original_rules: int
    n_reconstructed_rules: int
    n_common_rules: int
    settings: dict
    original: AssociationRuleSet = field(repr=False, compare=False)
    reconstructed: AssociationRuleSet = field(repr=False, compare=False)

    @property
    def value(self) -> float:
        """The headline number: :attr:`confidence_error`."""
        return self.confidence_error

    def to_json(self) -> dict:
        return {
            "measure": "rule-mining-error",
            "confidence_error": self.confidence_error,
            "false_positive": self.false_positive,
            "false_negative": self.false_negative,
            "n_original_rules": self.n_original_rules,
            "n_reconstructed_rules": self.n_reconstructed_rules,
            "n_common_rules": self.n_common_rules,
            "settings": dict(self.settings),
        }


def rule_mining_error(
    release: Release,
    *,
    min_support: float = 0.01,
    min_conviction: float = 1.2,
    max_conditions: int = 3,
    original: AssociationRuleSet | None = None,
) -> RuleMiningError:
    """Confidence and identification error of a bucketized release (§VI-C).

    Parameters
    ----------
    release : Release
        A bucketization (exact quasi-identifiers); its ``table`` is the original.
    min_support : float, default=0.01
    min_conviction : float, default=1.2
    max_conditions : int, default=3
        Rule settings (the paper's are unstated; see :mod:`anonlab.mining.association_rules`).
    original : AssociationRuleSet, optional
        ``R_org`` mined beforehand with the same settings (to compare many releases of one table).

    Returns
    -------
    RuleMiningError
    """
    if release.scheme != "bucketization":
        raise AnonlabError(
            f"rule-mining error needs a bucketized release (exact quasi-identifiers), got "
            f"scheme {release.scheme!r}; for the same groups published as buckets use "
            "release.with_scheme('bucketization')"
        )
    table = release.table
    catalog = (
        original.itemsets.catalog
        if original is not None and original.itemsets is not None
        else ItemCatalog.from_table(table)
    )
    if original is None:
        original = mine_association_rules(
            table, min_support, min_conviction, max_conditions, catalog=catalog
        )
    elif (original.min_support, original.min_conviction, original.max_conditions) != (
        min_support,
        min_conviction,
        max_conditions,
    ) or original.n_rows != table.n_rows:
        raise AnonlabError(
            "parameter 'original': mined with other settings or another table; mine it with "
            f"min_support={min_support}, min_conviction={min_conviction}, "
            f"max_conditions={max_conditions} on the release's table"
        )
    if len(original) == 0:
        raise AnonlabError(
            f"no rule has support >= {min_support} and conviction >= {min_conviction} in the "
            "original table; lower min_support or min_conviction"
        )
    prob = bucket_probabilities(release)
    reconstructed = mine_association_rules(
        table,
        min_support,
        min_conviction,
        max_conditions,
        probabilities=prob,
        catalog=catalog,
    )
    org_sets, rec_sets = original.itemsets, reconstructed.itemsets
    # C_X is exact in both, so Apriori visits the same itemsets in the same order.
    if not np.array_equal(org_sets.items, rec_sets.items):  # pragma: no cover - invariant
        raise AssertionError("original and reconstructed itemsets differ")
    count = org_sets.count[:, None].astype(np.float64)
    org_conf = org_sets.by_value / count
    rec_conf = rec_sets.by_value / count
    i, s = np.nonzero(original.holds)
    conf_error = float(np.mean(np.abs(rec_conf[i, s] - org_conf[i, s]) / org_conf[i, s]))
    org_holds, rec_holds = original.holds, reconstructed.holds
    n_org = int(org_holds.sum())
    common = int((org_holds & rec_holds).sum())
    return RuleMiningError(
        confidence_error=conf_error,
        false_positive=float((rec_holds & ~org_holds).sum() / n_org),
        false_negative=float((org_holds & ~rec_holds).sum() / n_org),
        n_original_rules=n_org,
        n_reconstructed_rules=int(rec_holds.sum()),
        n_common_rules=common,
        settings={
            "min_support": min_support,
            "min_conviction": min_conviction,
            "max_conditions": max_conditions,
            "estimation": "uniform spread of each group's sensitive multiset over its members",
        },
        original=original,
        reconstructed=reconstructed,
    )
