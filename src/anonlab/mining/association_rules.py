"""Positive association rules ``X ⇒ s`` ranked by conviction (Li & Li, ICDE 2008, §VI-C).

The paper measures the utility of a release by mining rules from the quasi-identifiers to the
sensitive attribute on the original table and on the release. ``X`` is a conjunction of
quasi-identifier conditions (generalized items, as for the negative rules:
:mod:`anonlab.mining.itemsets`) and ``s`` a sensitive value. A rule needs

* support ``P(X ∧ s) >= min_support``, and
* conviction (Brin et al. 1997, the paper's [16]) ``P(X)·P(¬s) / P(X ∧ ¬s) >= min_conviction``;
  a rule of confidence 1 has infinite conviction.

Confidence is ``P(X ∧ s) / P(X)``. The itemsets are found by Apriori with ``C_X >= min_support·n``
(a necessary condition, since ``C_X >= C_X[s]``).

Choices where the paper is silent (notes §8.2, §11 A12): ``min_support = 0.01``,
``min_conviction = 1.2``, at most ``max_conditions = 3`` conditions, one per attribute, any
hierarchy level; all rules are kept (no redundancy pruning: each rule's confidence is measured).
With ``probabilities`` (per-record value probabilities, e.g. from a bucketized release)
``C_X[s]`` is an expected count and support, confidence and conviction are estimates; ``P(s)`` is
then the mean probability, which for a bucketized release equals the published frequency.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import check_float, check_int
from anonlab.errors import AnonlabError
from anonlab.hierarchy import leaf_label
from anonlab.mining.itemsets import Condition, FrequentItemsets, ItemCatalog, frequent_itemsets
from anonlab.table import Table

__all__ = ["AssociationRule", "AssociationRuleSet", "mine_association_rules", "rule_measures"]

#: Slack for comparing estimated (float) measures with the thresholds.
_TOL = 1e-9


@dataclass(frozen=True)
class AssociationRule:
    """``X ⇒ s`` with its support, confidence and conviction.

    Attributes
    ----------
    conditions : tuple of Condition
    sensitive_value : str
    count : int
        ``C_X``, records satisfying ``X``.
    support : float
        ``P(X ∧ s)``.
    confidence : float
        ``P(X ∧ s) / P(X)``.
    conviction : float
        ``P(X)·P(¬s) / P(X ∧ ¬s)`` (``inf`` at confidence 1).
    """

    conditions: tuple[Condition, ...]
    sensitive_value: str
    count: int
    support: float
    confidence: float
    conviction: float

    @property
    def key(self) -> tuple[tuple[Condition, ...], str]:
        return (self.conditions, self.sensitive_value)

    def __str__(self) -> str:
        return "{" + ", ".join(map(str, self.conditions)) + "} ⇒ " + self.sensitive_value

    def to_json(self) -> dict:
        return {
            "conditions": [c.to_json() for c in self.conditions],
            "sensitive_value": self.sensitive_value,
            "count": int(self.count),
            "support": float(self.support),
            "confidence": float(self.confidence),
            "conviction": None if not np.isfinite(self.conviction) else float(self.conviction),
        }


@dataclass(frozen=True)
class AssociationRuleSet:
    """Rules mined from a table (or estimated from a release) and the settings used.

    Attributes
    ----------
    rules : tuple of AssociationRule
    min_support, min_conviction : float
    max_conditions : int
    sensitive : str
    n_rows : int
    estimated : bool
        True if ``C_X[s]`` were expected counts from per-record probabilities.
    itemsets : FrequentItemsets
        The frequent itemsets the rules come from (for aligning two rule sets).
    """

    rules: tuple[AssociationRule, ...]
    min_support: float
    min_conviction: float
    max_conditions: int
    sensitive: str
    n_rows: int
    estimated: bool = False
    itemsets: FrequentItemsets | None = field(default=None, repr=False, compare=False)
    holds: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.rules)

    def keys(self) -> set[tuple[tuple[Condition, ...], str]]:
        """The rules as ``(conditions, sensitive_value)`` pairs (for set comparisons)."""
        return {r.key for r in self.rules}

    def to_json(self) -> dict:
        return {
            "sensitive": self.sensitive,
            "min_support": self.min_support,
            "min_conviction": self.min_conviction,
            "max_conditions": self.max_conditions,
            "n_rows": self.n_rows,
            "estimated": self.estimated,
            "n_rules": len(self.rules),
            "rules": [r.to_json() for r in self.rules],
        }


def rule_measures(
    itemsets: FrequentItemsets, p: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Support, confidence and conviction of ``X ⇒ s`` for every itemset and value.

    Returns three arrays of shape (n_itemsets, n_values); conviction is ``inf`` where
    ``P(X ∧ ¬s) = 0``.
    """
    cx = itemsets.count[:, None].astype(float)
    cxs = itemsets.by_value.astype(float)
    support = cxs / n
    confidence = cxs / cx
    not_s = np.maximum(cx - cxs, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        conviction = np.where(not_s > _TOL, cx * (1.0 - p[None, :]) / not_s, np.inf)
    return support, confidence, conviction


def mine_association_rules(
    table: Table,
    min_support: float = 0.01,
    min_conviction: float = 1.2,
    max_conditions: int = 3,
    *,
    probabilities: np.ndarray | None = None,
    catalog: ItemCatalog | None = None,
    itemsets: Callable[[int, int], FrequentItemsets] | None = None,
    value_count: np.ndarray | None = None,
) -> AssociationRuleSet:
    """Every rule ``X ⇒ s`` with support ``>= min_support`` and conviction ``>= min_conviction``.

    Parameters
    ----------
    table : Table
        Needs a sensitive attribute.
    min_support : float, default=0.01
        In (0, 1].
    min_conviction : float, default=1.2
        At least 0 (conviction 1 means ``X`` and ``s`` are independent).
    max_conditions : int, default=3
    probabilities : ndarray of shape (n_rows, n_values), optional
        Per-record value probabilities (estimated rules); default the table's own values.
    catalog : ItemCatalog, optional
    itemsets : callable, optional
        ``itemsets(min_count, max_conditions)`` counts the frequent itemsets of the table's own
        values (default :func:`frequent_itemsets`); the Dask backend counts them over row blocks.
        Not with ``probabilities`` or ``catalog``.
    value_count : ndarray of shape (n_sensitive_values,), optional
        The records' count of each sensitive value (default: counted from ``table``); the Dask
        backend counts them on the workers, where the records are. Not with ``probabilities``.

    Returns
    -------
    AssociationRuleSet
    """
    sens = table.sensitive
    if sens is None:
        raise AnonlabError(
            "the table has no sensitive attribute; name one (--sensitive COL) to mine rules"
        )
    min_support = check_float("min_support", min_support)
    if not 0 < min_support <= 1:
        raise AnonlabError(f"parameter 'min_support' must be in (0, 1], got {min_support!r}")
    min_conviction = check_float("min_conviction", min_conviction, low=0.0)
    max_conditions = check_int("max_conditions", max_conditions, minimum=1)
    n = table.n_rows
    n_values = table.domain_size(sens)
    min_count = int(np.ceil(min_support * n - _TOL))
    if itemsets is None:
        frequent = frequent_itemsets(
            table, min_count, max_conditions, probabilities=probabilities, catalog=catalog
        )
    elif probabilities is not None or catalog is not None:
        raise AnonlabError("parameter 'itemsets' counts the table's own values: drop "
                           "'probabilities' and 'catalog', or 'itemsets'")  # fmt: skip
    else:
        frequent = itemsets(min_count, max_conditions)
    if value_count is not None:
        if (
            probabilities is not None
            or np.shape(value_count) != (n_values,)
            or int(np.sum(value_count)) != n
        ):
            raise AnonlabError(
                f"value_count must hold the {n} records' count of each of the {n_values} values "
                f"of {sens!r} (got shape {np.shape(value_count)}), and not with 'probabilities'"
            )
        p = np.asarray(value_count, dtype=np.float64) / n
    elif probabilities is None:
        p = np.bincount(table.codes[sens], minlength=n_values) / n
    else:
        p = np.asarray(probabilities, dtype=float).sum(axis=0) / n
    support, confidence, conviction = rule_measures(frequent, p, n)
    holds = (support >= min_support - _TOL) & (conviction >= min_conviction - _TOL)
    labels = [leaf_label(v) for v in table.values[sens]]
    rules = []
    for i, s in zip(*np.nonzero(holds), strict=True):
        rules.append(
            AssociationRule(
                frequent.catalog.conditions(frequent.items[i]),
                labels[s],
                int(frequent.count[i]),
                float(support[i, s]),
                float(confidence[i, s]),
                float(conviction[i, s]),
            )
        )
    return AssociationRuleSet(
        tuple(rules),
        min_support,
        min_conviction,
        max_conditions,
        sens,
        n,
        probabilities is not None,
        frequent,
        holds,
    )
