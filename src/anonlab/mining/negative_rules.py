"""Negative association rules ``X ⇒ ¬s`` with confidence 1 (Li & Li, "Injector", ICDE 2008, §IV).

A rule says: no record that satisfies ``X`` has sensitive value ``s``. ``X`` is a conjunction of
conditions ``A = v`` on quasi-identifiers, where ``v`` may be an internal node of ``A``'s
hierarchy (a *generalized* rule, §IV-A; items as in :mod:`anonlab.mining.itemsets`).

**Interestingness: expectation** (§IV-A). With ``n`` records, ``p(s)`` the share of records with
value ``s`` and ``C_X = n·P(X)`` the number of records satisfying ``X``::

    Expectation(X ⇒ ¬s) = 1 − (1 − p(s)) ** C_X

the probability that ``s`` would occur at least once among ``C_X`` records drawn independently.
A rule is kept when ``Expectation >= minExp`` and its confidence is 1 (``C_X[s] = 0``). The
expectation condition is a count threshold (notes §2.2, the OCR's lost ``1/n`` restored)::

    C_X >= ln(1 − minExp) / ln(1 − p(s))

e.g. 21.854 records for ``p(s) = 0.1``, ``minExp = 0.9``.

**Algorithm** (§IV-C). ``minSup`` is the smallest threshold over the sensitive values (that of
the most frequent value); every itemset with ``C_X >= minSup`` is found by Apriori
(:func:`anonlab.mining.itemsets.frequent_itemsets`, which keeps ``C_X[s]`` for every ``s``), and
``X ⇒ ¬s`` is emitted for every frequent ``X`` and every ``s`` with ``C_X`` at or above ``s``'s
threshold and ``C_X[s] = 0``. Values with ``p(s) = 0`` (absent from the table) have no finite
threshold and give no rule.

Choices where the paper is silent (notes §3, §11 A13; docs/rules.md):

* **Number of conditions** (``max_conditions``, default 1). The paper does not bound ``|X|``.
  Its Figure 3 (45 … 15 rules at minExp 0.75 … 0.95) is reproduced by rules with *one*
  condition (one quasi-identifier at any hierarchy level); both of its example rules have one.
  Conjunctions of up to three conditions give thousands of rules on Adult and leave records that
  no grouping can protect, which contradicts the paper's "Injector: 0 vulnerable records".
  More conditions are an ablation.
* **Redundant rules are pruned** (``prune_redundant=True``). ``X' ⇒ ¬s`` is *redundant* if a
  rule ``X ⇒ ¬s`` exists with ``X`` strictly more general: every condition of ``X`` is implied
  by a condition of ``X'`` on the same attribute (``X'`` adds conditions and/or replaces values
  by descendants). The pruned rules exclude exactly the same values from exactly the same
  records (the incompatibility matrix is unchanged), and the paper's small rule counts are
  counts of such most general rules. ``n_unpruned`` keeps the count before pruning.
* **Crisp membership.** A record satisfies ``A = v`` iff its value lies under ``v``; numeric
  attributes use their hierarchy's intervals. The paper's fuzzy support for numeric attributes
  (§IV-B: nodes as fuzzy sets, ``P(Z, t) = Π_i Mem(Z[i], t[a_i])``) is not implemented, because the
  paper gives no membership function (notes §11 A4): a trapezoid that falls off over some margin
  outside the interval would be one reading. Under fuzzy support ``C_X`` and ``C_X[s]`` become
  sums of memberships, a rule needs ``C_X[s] = 0`` (so a record of value ``s`` just outside the
  interval already kills it), and the adversary's exclusion still applies only to records that
  satisfy ``X`` fully.
* Float ties: ``C_X`` is compared with the threshold less a relative 1e-12.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from anonlab._validation import check_float, check_int
from anonlab.errors import AnonlabError
from anonlab.hierarchy import leaf_label
from anonlab.mining.itemsets import (
    Condition,
    FrequentItemsets,
    ItemCatalog,
    codes_to_nodes,
    condition_cover,
    condition_node,
    frequent_itemsets,
    node_labels,
)
from anonlab.table import Table

__all__ = [
    "Condition",
    "NegativeRule",
    "NegativeRuleSet",
    "count_threshold",
    "expectation",
    "incompatibility_distribution",
    "mine_negative_rules",
]

FORMAT = "anonlab-negative-rules"
FORMAT_VERSION = 1
#: Relative slack when comparing a count with a real-valued threshold.
_TIE = 1e-12
#: Largest (cell x value) lookup table built by ``incompatibility`` for one rule signature.
_GATHER_LIMIT = 1 << 26


def expectation(p: float | np.ndarray, count: float | np.ndarray) -> float | np.ndarray:
    """``1 − (1 − p) ** count``: the chance that a value of frequency ``p`` occurs at least once
    among ``count`` independent records (§IV-A)."""
    return 1.0 - np.power(1.0 - np.asarray(p, dtype=float), np.asarray(count, dtype=float))


def count_threshold(p: float | np.ndarray, min_expectation: float) -> float | np.ndarray:
    """Smallest ``C_X`` with expectation ``>= min_expectation``: ``ln(1−minExp)/ln(1−p)``.

    ``inf`` where ``p = 0`` (no rule), ``0`` where ``p = 1``.
    """
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore"):
        log_q = np.log1p(-p)
        out = np.where(p > 0, np.log1p(-min_expectation) / np.where(p > 0, log_q, -1.0), np.inf)
    out = np.where(p >= 1, 0.0, out)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class NegativeRule:
    """``X ⇒ ¬s`` with confidence 1.

    Attributes
    ----------
    conditions : tuple of Condition
        ``X``: ``(attribute, level, value)`` triples, one per attribute, in the table's
        quasi-identifier order.
    sensitive_value : str
        ``s``.
    support_count : int
        ``C_X``: records satisfying ``X`` (all of them satisfy ``¬s``).
    expectation : float
        ``1 − (1 − p(s)) ** C_X``.
    """

    conditions: tuple[Condition, ...]
    sensitive_value: str
    support_count: int
    expectation: float

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "conditions",
            tuple(Condition(str(a), int(l), str(v)) for a, l, v in self.conditions),
        )

    def __str__(self) -> str:
        return "{" + ", ".join(map(str, self.conditions)) + "} ⇒ ¬" + self.sensitive_value

    def to_json(self) -> dict:
        return {
            "conditions": [c.to_json() for c in self.conditions],
            "sensitive_value": self.sensitive_value,
            "support_count": int(self.support_count),
            "expectation": float(self.expectation),
        }

    def matches(self, table: Table) -> np.ndarray:
        """Bool mask over the table's records: which satisfy ``X``."""
        mask = np.ones(table.n_rows, dtype=bool)
        for c in self.conditions:
            mask &= condition_cover(table, c)[table.codes[c.attribute]]
        return mask


@dataclass(frozen=True)
class NegativeRuleSet:
    """The mined rules and the settings they were mined with.

    Attributes
    ----------
    rules : tuple of NegativeRule
        Sorted by sensitive value (table order), then number of conditions, then conditions.
    min_expectation : float
    max_conditions : int
    sensitive : str
        The sensitive attribute the rules are about.
    n_rows : int
        Records of the table the rules were mined from.
    n_unpruned : int or None
        Number of rules before redundant rules were pruned.
    """

    rules: tuple[NegativeRule, ...]
    min_expectation: float
    max_conditions: int
    sensitive: str
    n_rows: int = 0
    n_unpruned: int | None = None
    thresholds: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", tuple(self.rules))

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    # ------------------------------------------------------------------ knowledge
    def incompatibility(self, table: Table) -> np.ndarray:
        """Which sensitive values each record cannot take: IVS (§V-A) as a bool matrix.

        Returns
        -------
        ndarray of shape (table.n_rows, table.domain_size(sensitive)), dtype=bool
            ``[r, s]`` is True iff some rule ``X ⇒ ¬s`` has ``X`` satisfied by record ``r``;
            columns are the table's sensitive codes.
        """
        sens = _require_same_sensitive(table, self.sensitive)
        n_values = table.domain_size(sens)
        out = np.zeros((table.n_rows, n_values), dtype=bool)
        value_code = _value_codes(table, sens)
        by_x: dict[tuple[Condition, ...], np.ndarray] = {}
        for rule in self.rules:
            if rule.sensitive_value not in value_code:
                raise _unknown_value(table, sens, rule.sensitive_value)
            cols = by_x.setdefault(rule.conditions, np.zeros(n_values, dtype=bool))
            cols[value_code[rule.sensitive_value]] = True
        # Rules are grouped by signature (attributes and levels of X). Per signature, each
        # record's cell (its nodes at those levels) indexes a (cell x value) table: one gather.
        by_signature: dict[tuple, list] = {}
        for x, cols in by_x.items():
            sig = tuple((c.attribute, c.level) for c in x)
            nodes = tuple(condition_node(table, c) for c in x)
            by_signature.setdefault(sig, []).append((nodes, cols))
        for sig, members in by_signature.items():
            radices = [len(node_labels(table, a, lv)) for a, lv in sig]
            if math.prod(radices) * n_values > _GATHER_LIMIT:  # too many cells: rule by rule
                for nodes, cols in members:
                    mask = np.ones(table.n_rows, dtype=bool)
                    for (a, lv), node in zip(sig, nodes, strict=True):
                        mask &= codes_to_nodes(table, a, lv)[table.codes[a]] == node
                    out[mask] |= cols
                continue
            lookup = np.zeros((math.prod(radices), n_values), dtype=bool)
            keys = np.zeros(len(members), dtype=np.int64)
            cell = np.zeros(table.n_rows, dtype=np.int64)
            for c, ((a, lv), radix) in enumerate(zip(sig, radices, strict=True)):
                keys = keys * radix + np.array([m[0][c] for m in members], dtype=np.int64)
                cell = cell * radix + codes_to_nodes(table, a, lv)[table.codes[a]]
            np.logical_or.at(lookup, keys, np.stack([m[1] for m in members]))
            out |= lookup[cell]
        return out

    def incompatible_counts(self, table: Table) -> np.ndarray:
        """Number of values each record cannot take, ``|IVS[t]|``, shape (n_rows,)."""
        return self.incompatibility(table).sum(axis=1)

    def distribution(self, table: Table, top: int = 5) -> dict:
        """The paper's Figure 3 row for this rule set on ``table``; see
        :func:`incompatibility_distribution`."""
        return incompatibility_distribution(self.incompatible_counts(table), top)

    # ------------------------------------------------------------------ files
    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "sensitive": self.sensitive,
            "min_expectation": self.min_expectation,
            "max_conditions": self.max_conditions,
            "n_rows": int(self.n_rows),
            "n_rules": len(self.rules),
            "n_unpruned": None if self.n_unpruned is None else int(self.n_unpruned),
            "rules": [r.to_json() for r in self.rules],
        }

    @classmethod
    def from_json(cls, payload: Mapping, table: Table) -> NegativeRuleSet:
        """Read a rule set, checking every attribute, node and value against ``table``.

        Raises
        ------
        AnonlabError
            Naming the unknown attribute, hierarchy node or sensitive value and listing the
            valid ones; or a malformed payload.
        """
        if not isinstance(payload, Mapping):
            raise AnonlabError(f"a rule set must be a JSON object, got {type(payload).__name__}")
        if payload.get("format", FORMAT) != FORMAT:
            raise AnonlabError(
                f"not a negative rule file: format is {payload.get('format')!r}, expected "
                f"{FORMAT!r}"
            )
        for key in ("sensitive", "rules"):
            if key not in payload:
                raise AnonlabError(f"rule set: missing key {key!r}")
        sens = _require_same_sensitive(table, str(payload["sensitive"]))
        min_exp = check_min_expectation(payload.get("min_expectation", 0.9))
        max_cond = check_int("max_conditions", payload.get("max_conditions", 1), minimum=1)
        raw = payload["rules"]
        if not isinstance(raw, list):
            raise AnonlabError("rule set: 'rules' must be a list")
        value_code = _value_codes(table, sens)
        rules = []
        for i, r in enumerate(raw):
            if not isinstance(r, Mapping) or "conditions" not in r or "sensitive_value" not in r:
                raise AnonlabError(
                    f"rule {i + 1}: expected an object with 'conditions' and 'sensitive_value'"
                )
            conds = []
            for c in r["conditions"]:
                try:
                    cond = Condition(str(c["attribute"]), c.get("level", 0), str(c["value"]))
                except (TypeError, KeyError, AttributeError):
                    raise AnonlabError(
                        f"rule {i + 1}: a condition must be an object with 'attribute', 'level' "
                        f"and 'value', got {c!r}"
                    ) from None
                condition_cover(table, cond)  # validates attribute, level and node
                conds.append(cond)
            if not conds:
                raise AnonlabError(f"rule {i + 1} has no condition")
            names = [c.attribute for c in conds]
            if len(set(names)) != len(names):
                raise AnonlabError(f"rule {i + 1} has two conditions on one attribute: {names}")
            value = str(r["sensitive_value"])
            if value not in value_code:
                raise _unknown_value(table, sens, value)
            rules.append(
                NegativeRule(
                    tuple(conds),
                    value,
                    int(r.get("support_count", 0)),
                    float(r.get("expectation", float("nan"))),
                )
            )
        n_unpruned = payload.get("n_unpruned")
        return cls(
            tuple(rules),
            min_exp,
            max_cond,
            sens,
            int(payload.get("n_rows", 0) or 0),
            None if n_unpruned is None else int(n_unpruned),
        )

    def write(self, path: str | os.PathLike) -> Path:
        """Write the rule file (JSON), atomically."""
        from anonlab.release_io import atomic_write_text

        path = Path(path)
        atomic_write_text(path, json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n")
        return path

    @classmethod
    def read(cls, path: str | os.PathLike, table: Table) -> NegativeRuleSet:
        """Read a rule file written by :meth:`write` (or by hand), validated against ``table``."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise AnonlabError(f"cannot read rule file {str(path)!r}: {exc.strerror}") from None
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AnonlabError(f"rule file {str(path)!r} is not valid JSON: {exc}") from None
        return cls.from_json(payload, table)


def _require_same_sensitive(table: Table, sensitive: str) -> str:
    if table.sensitive is None:
        raise AnonlabError(
            "the table has no sensitive attribute; name one (--sensitive COL) to use negative "
            "association rules"
        )
    if sensitive != table.sensitive:
        raise AnonlabError(
            f"the rules are about sensitive attribute {sensitive!r} but the table's sensitive "
            f"attribute is {table.sensitive!r}"
        )
    return sensitive


def _value_codes(table: Table, sensitive: str) -> dict[str, int]:
    return {leaf_label(v): i for i, v in enumerate(table.values[sensitive])}


def _unknown_value(table: Table, sensitive: str, value: str) -> AnonlabError:
    valid = list(_value_codes(table, sensitive))
    shown = ", ".join(valid[:20]) + (" ..." if len(valid) > 20 else "")
    return AnonlabError(
        f"unknown value {value!r} of sensitive attribute {sensitive!r} in a rule; its values are: "
        f"{shown}"
    )


def check_min_expectation(value: object) -> float:
    v = check_float("min_expectation", value)
    if not 0 < v < 1:
        raise AnonlabError(
            f"parameter 'min_expectation' (minExp, --min-exp) must be in (0, 1), got {v!r}"
        )
    return v


def incompatibility_distribution(incompatible_counts: np.ndarray, top: int = 5) -> dict:
    """Figure 3's distribution: records by number of incompatible values.

    Parameters
    ----------
    incompatible_counts : ndarray of shape (n_rows,)
        ``|IVS[t]|`` per record.
    top : int, default=5
        The last bucket of the paper's view, ``N≥top``.

    Returns
    -------
    dict
        ``"counts"``/``"shares"``: lists indexed by ``k = 0 .. max`` (records with exactly ``k``
        incompatible values; shares of all records), ``"paper_view"``: ``{"N0": share, ...,
        "N4": share, "N>=5": share}`` (for ``top = 5``), ``"paper_view_counts"``: the same as
        counts, ``"n_rows"`` and ``"mean"``.
    """
    k = np.asarray(incompatible_counts, dtype=np.int64)
    n = int(k.size)
    counts = np.bincount(k, minlength=top + 1) if n else np.zeros(top + 1, dtype=np.int64)
    shares = counts / n if n else counts.astype(float)
    view = {f"N{i}": int(counts[i]) for i in range(top)}
    view[f"N>={top}"] = int(counts[top:].sum())
    return {
        "n_rows": n,
        "counts": [int(c) for c in counts],
        "shares": [float(s) for s in shares],
        "paper_view_counts": view,
        "paper_view": {key: (c / n if n else 0.0) for key, c in view.items()},
        "mean": float(k.mean()) if n else 0.0,
    }


def mine_negative_rules(
    table: Table,
    min_expectation: float = 0.9,
    max_conditions: int = 1,
    *,
    prune_redundant: bool = True,
    itemsets: Callable[[int, int], FrequentItemsets] | None = None,
    value_count: np.ndarray | None = None,
) -> NegativeRuleSet:
    """Mine every (non-redundant) negative rule ``X ⇒ ¬s`` of confidence 1 (§IV-C).

    Parameters
    ----------
    table : Table
        Needs a sensitive attribute; the quasi-identifiers' hierarchies give the generalized
        items (an attribute without a hierarchy contributes its values only).
    min_expectation : float, default=0.9
        minExp, in (0, 1).
    max_conditions : int, default=1
        Largest number of conditions in ``X`` (see the module docstring for why 1).
    prune_redundant : bool, default=True
        Drop rules that are specializations of another rule with the same ``s``.
    itemsets : callable, optional
        ``itemsets(min_count, max_conditions)`` counts the frequent itemsets (default
        :func:`frequent_itemsets` on ``table``); the Dask backend counts them over row blocks
        (:func:`anonlab.distributed.measures.mine_rules_distributed`).
    value_count : ndarray of shape (n_sensitive_values,), optional
        The records' count of each sensitive value (default: counted from ``table``); the Dask
        backend counts them on the workers, where the records are.

    Returns
    -------
    NegativeRuleSet
    """
    if table.sensitive is None:
        raise AnonlabError(
            "the table has no sensitive attribute; name one (--sensitive COL) to mine negative "
            "association rules"
        )
    min_exp = check_min_expectation(min_expectation)
    max_cond = check_int("max_conditions", max_conditions, minimum=1)
    sens = table.sensitive
    n = table.n_rows
    n_values = table.domain_size(sens)
    if value_count is None:
        value_count = np.bincount(table.codes[sens], minlength=n_values)
    elif np.shape(value_count) != (n_values,) or int(np.sum(value_count)) != n:
        raise AnonlabError(
            f"value_count must hold the {n} records' count of each of the {n_values} values of "
            f"{sens!r}, got shape {np.shape(value_count)}"
        )
    p = value_count / n if n else np.zeros(n_values)
    threshold = np.asarray(count_threshold(p, min_exp), dtype=float).reshape(n_values)
    labels = list(_value_codes(table, sens))
    settings = {labels[s]: float(threshold[s]) for s in range(n_values)}
    # A value present in every record can never be excluded; only 0 < p < 1 can give rules.
    usable = (p > 0) & (p < 1)
    if not usable.any() or n == 0:
        return NegativeRuleSet((), min_exp, max_cond, sens, n, 0, settings)
    min_count = int(np.ceil(threshold[usable].min() * (1 - _TIE)))
    frequent = (
        frequent_itemsets(table, min_count, max_cond)
        if itemsets is None
        else itemsets(min_count, max_cond)
    )
    holds = (
        (frequent.count[:, None] >= threshold[None, :] * (1 - _TIE))
        & (frequent.by_value == 0)
        & usable[None, :]
    )
    itemset, value = np.nonzero(holds)
    n_unpruned = int(len(itemset))
    if prune_redundant and n_unpruned:
        keep = ~_redundant(frequent, itemset, value, n_values)
        itemset, value = itemset[keep], value[keep]
    rules = _build_rules(frequent, itemset, value, p, labels)
    return NegativeRuleSet(tuple(rules), min_exp, max_cond, sens, n, n_unpruned, settings)


def _redundant(
    frequent: FrequentItemsets, itemset: np.ndarray, value: np.ndarray, n_values: int
) -> np.ndarray:
    """Which rules have a strictly more general rule with the same value.

    Only immediate generalizations need checking (drop one condition, or move one condition to
    its parent node): if any more general rule ``X ⇒ ¬s`` exists, every itemset between ``X`` and
    ``X'`` also has ``C[s] = 0`` and a count at least ``C_X'``, so it is a rule too, and one of
    them is an immediate generalization of ``X'``.
    """
    catalog = frequent.catalog
    rows = frequent.items[itemset]  # (r, K)
    n_rules, n_cols = rows.shape
    parent = np.r_[catalog.parent, -1]  # index -1 -> -1
    generalizations = []
    owners = []
    sizes = (rows >= 0).sum(axis=1)
    for c in range(n_cols):
        has = rows[:, c] >= 0
        # drop the condition (leave at least one)
        sel = np.flatnonzero(has & (sizes > 1))
        g = rows[sel].copy()
        g[:, c] = -1
        generalizations.append(g)
        owners.append(sel)
        # move it to its parent node
        par = parent[rows[:, c]]
        sel = np.flatnonzero(has & (par >= 0))
        g = rows[sel].copy()
        g[:, c] = par[sel]
        generalizations.append(g)
        owners.append(sel)
    gen = np.concatenate(generalizations) if generalizations else rows[:0]
    own = np.concatenate(owners) if owners else np.empty(0, dtype=np.int64)
    if len(gen) == 0:
        return np.zeros(n_rules, dtype=bool)
    rule_keys = np.concatenate([rows, value[:, None].astype(rows.dtype)], axis=1)
    gen_keys = np.concatenate([gen, value[own][:, None].astype(rows.dtype)], axis=1)
    _, inverse = np.unique(np.concatenate([rule_keys, gen_keys]), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    is_rule = np.zeros(int(inverse.max()) + 1, dtype=bool)
    is_rule[inverse[:n_rules]] = True
    redundant = np.zeros(n_rules, dtype=bool)
    np.logical_or.at(redundant, own, is_rule[inverse[n_rules:]])
    return redundant


def _build_rules(
    frequent: FrequentItemsets,
    itemset: np.ndarray,
    value: np.ndarray,
    p: np.ndarray,
    labels: Sequence[str],
) -> list[NegativeRule]:
    catalog: ItemCatalog = frequent.catalog
    rows = frequent.items[itemset]
    sizes = (rows >= 0).sum(axis=1)
    # order: value, number of conditions, then item ids column by column
    order = np.lexsort(tuple(rows[:, c] for c in range(rows.shape[1] - 1, -1, -1)) + (sizes, value))
    out = []
    for i in order.tolist():
        count = int(frequent.count[itemset[i]])
        s = int(value[i])
        out.append(
            NegativeRule(
                catalog.conditions(rows[i]), labels[s], count, float(expectation(p[s], count))
            )
        )
    return out
