"""The background-knowledge attack with negative association rules (Li & Li, ICDE 2008).

The adversary of "Injector" (§II, §V-A, §VI-B) knows negative association rules ``X ⇒ ¬s`` with
confidence 1 mined from data like the released table (``anonlab.mining.negative_rules``), and,
as usual, each target's quasi-identifiers and bucket. For a record that satisfies ``X`` the value
``s`` is impossible, so the adversary removes it from the record's candidates; since a bucket's
values are a one-to-one assignment to its members, removing a value for some members can force
the values of others (Table II: group 1 holds two ovarian cancers and one prostate cancer; with
"male ⇒ ¬ovarian cancer", the one man has prostate cancer, and then both women have ovarian
cancer).

:func:`negative_rule_attack` reports, for every record, its possible sensitive values in both
readings of :mod:`anonlab.models.matching_l_diversity` — *simple* (values of the bucket not
excluded by a rule) and *matching* (values some one-to-one assignment still gives it) — the
records with fewer than ℓ possible values (*vulnerable*, the paper's Fig. 4 measure), the records
whose value is determined (*pinned*: one possible value), and beside them the *random-worlds
baseline*: an adversary without rules keeps every distinct value of the record's bucket.

Any release works, from any algorithm or tool: a generalized release is read through the
worst-case reduction of ``anonlab.attacks.foreground`` (the adversary knows each record's exact
quasi-identifiers and group, so every group is a bucket of known members). The rules are applied
to the members' exact quasi-identifiers. Only published information enters the computation: each
group's multiset of published sensitive values (perturbed ones where the algorithm perturbs).
The ground truth is read only by :meth:`NegativeRuleAttackResult.score`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_int, takes_release
from anonlab.attacks.common import at_risk_fields, require_groups, worst_record
from anonlab.attacks.contract import (
    Attack,
    Inference,
    Knowledge,
    register,
    strongest_sentence,
)
from anonlab.errors import AnonlabError
from anonlab.finding import Finding
from anonlab.models.matching_l_diversity import (
    READINGS,
    group_values,
    incompatibility_matrix,
    matching_possible_values,
)
from anonlab.release import Release
from anonlab.table import Table


@dataclass(frozen=True, eq=False)
class NegativeRuleAttackResult:
    """What negative rules reveal about each record of a release.

    Attributes
    ----------
    l : int
        Records with fewer than ℓ possible values are vulnerable.
    values : tuple of str
        The sensitive domain (column order of the per-record matrices).
    group : ndarray of shape (n_rows,)
        Each record's group in the release.
    possible_matching, possible_simple, possible_baseline : ndarray (n_rows, n_values), bool
        Possible values per record: matching reading, simple reading, and without rules (the
        distinct values of the record's group).
    consistent_groups : ndarray of shape (n_groups,), dtype=bool
        Groups with at least one one-to-one assignment compatible with the rules. In the others
        the rules contradict the published values and the matching reading falls back to the
        simple one.
    excluded_pairs : int
        Number of (record, value) pairs the rules exclude.
    """

    l: int
    values: tuple[str, ...]
    group: np.ndarray = field(repr=False)
    possible_matching: np.ndarray = field(repr=False)
    possible_simple: np.ndarray = field(repr=False)
    possible_baseline: np.ndarray = field(repr=False)
    consistent_groups: np.ndarray = field(repr=False)
    excluded_pairs: int = 0

    # ------------------------------------------------------------------ per record
    def possible(self, reading: str = "matching") -> np.ndarray:
        """Possible values per record: ``"matching"``, ``"simple"`` or ``"baseline"``."""
        reading = check_choice("reading", reading, (*READINGS, "baseline"))
        return {
            "matching": self.possible_matching,
            "simple": self.possible_simple,
            "baseline": self.possible_baseline,
        }[reading]

    def n_possible(self, reading: str = "matching") -> np.ndarray:
        """Number of possible values per record, shape (n_rows,), int64."""
        return self.possible(reading).sum(axis=1).astype(np.int64)

    def vulnerable(self, reading: str = "matching", l: int | None = None) -> np.ndarray:
        """Records with fewer than ℓ possible values (bool, shape (n_rows,))."""
        l = self.l if l is None else check_int("l", l, minimum=1)
        return self.n_possible(reading) < l

    def pinned(self, reading: str = "matching") -> np.ndarray:
        """Records whose sensitive value is determined: exactly one possible value."""
        return self.n_possible(reading) == 1

    def pinned_value(self, reading: str = "matching") -> np.ndarray:
        """The determined value's code per record (-1 where not pinned)."""
        p = self.possible(reading)
        return np.where(self.pinned(reading), np.argmax(p, axis=1), -1)

    # ------------------------------------------------------------------ summaries
    def counts(self) -> dict[str, Any]:
        """Vulnerable and pinned records per reading, with the baseline."""
        out: dict[str, Any] = {"records": int(len(self.group)), "l": self.l}
        for reading in ("matching", "simple", "baseline"):
            out[f"vulnerable_{reading}"] = int(self.vulnerable(reading).sum())
            out[f"pinned_{reading}"] = int(self.pinned(reading).sum())
        out["vulnerable_groups_matching"] = int(
            len(np.unique(self.group[self.vulnerable("matching")]))
        )
        out["inconsistent_groups"] = int((~self.consistent_groups).sum())
        out["excluded_pairs"] = self.excluded_pairs
        return out

    def score(self, release: Release) -> dict[str, Any]:
        """Publisher side: is each record's true value among its possible values?

        With rules of confidence 1 mined from the released table and unperturbed values it
        always is; a pinned record then has its value disclosed exactly.
        """
        true = release.table.codes[release.sensitive]
        rows = np.arange(len(true))
        out = {}
        for reading in ("matching", "simple"):
            p = self.possible(reading)
            out[f"true_value_possible_{reading}"] = int(p[rows, true].sum())
            out[f"disclosed_{reading}"] = int((self.pinned(reading) & p[rows, true]).sum())
        return out

    def to_json(self, per_record: bool = False) -> dict[str, Any]:
        """Plain Python types. ``per_record=True`` adds the per-record counts and pinned values."""
        out: dict[str, Any] = {"attack": "negative-rules", **self.counts()}
        hist = {}
        for reading in ("matching", "simple", "baseline"):
            k = self.n_possible(reading)
            hist[reading] = np.bincount(k, minlength=len(self.values) + 1).tolist()
        out["records_by_possible_values"] = hist
        if per_record:
            out["per_record"] = {
                "group": self.group.tolist(),
                "possible_matching": self.n_possible("matching").tolist(),
                "possible_simple": self.n_possible("simple").tolist(),
                "possible_baseline": self.n_possible("baseline").tolist(),
                "pinned_value": [
                    None if c < 0 else self.values[c] for c in self.pinned_value().tolist()
                ],
            }
        return out


@takes_release
def negative_rule_attack(
    release: Release, rules: Any, *, l: int | None = None, rules_table: Table | None = None
) -> NegativeRuleAttackResult:
    """Attack ``release`` with negative association rules (Li & Li, ICDE 2008, §VI-B).

    Parameters
    ----------
    release : Release
        Any release; a generalized one is read through the worst-case reduction (exact
        quasi-identifiers and groups known).
    rules : NegativeRuleSet or ndarray of shape (n_rows, n_sensitive_values), dtype=bool
        The adversary's knowledge: a rule set (evaluated on ``release.table`` with
        ``rules.incompatibility``) or an incompatibility matrix for the release's records.
    l : int, optional
        Vulnerability threshold; default the release's ``l`` parameter (manifest).
    rules_table : Table, optional
        The table the rules were mined from. Its hierarchies give the meaning of the rules'
        hierarchy nodes (``Workclass = Government``), which the release's own hierarchies may
        not have (e.g. a release made with another hierarchy set, or imported from another
        tool): the rules are then applied to the release's records re-expressed with those
        hierarchies. Default: the release's hierarchies.

    Returns
    -------
    NegativeRuleAttackResult
    """
    require_groups(release, "the negative-rule attack")
    if l is None:
        l = release.manifest.get("parameters", {}).get("l")
        if l is None:
            raise AnonlabError(
                "parameter 'l' is required: the release's manifest names no ℓ (CLI: --l L)"
            )
    l = check_int("l", l, minimum=1)
    inc = _knowledge(release, rules, rules_table)
    codes = release.sensitive_codes
    matching, consistent = matching_possible_values(release.group, codes, inc)
    baseline = group_values(release.group, codes, inc.shape[1])
    simple = np.greater(baseline, inc)  # simple_possible_values, without a second table
    excluded = int(inc.sum())
    del inc
    for a in (matching, simple, baseline):
        a.flags.writeable = False
    group = np.asarray(release.group)
    return NegativeRuleAttackResult(
        l=l,
        values=tuple(str(v) for v in release.table.values[release.sensitive]),
        group=group,
        possible_matching=matching,
        possible_simple=simple,
        possible_baseline=baseline,
        consistent_groups=consistent,
        excluded_pairs=excluded,
    )


def _knowledge(release: Release, rules: Any, rules_table: Table | None) -> np.ndarray:
    """The incompatibility matrix of the release's records (columns: its sensitive codes)."""
    if rules_table is None or not hasattr(rules, "incompatibility"):
        return incompatibility_matrix(rules, release.table)
    if not isinstance(rules_table, Table):
        raise AnonlabError(
            f"parameter 'rules_table' must be an anonlab Table, got {type(rules_table).__name__}"
        )
    table = release.table
    sens = release.sensitive
    names = rules_table.schema.names
    hierarchies = {
        q: rules_table.schema[q].hierarchy
        for q in release.quasi_identifiers
        if q in names and rules_table.schema[q].hierarchy is not None
    }
    view = table.with_roles(release.quasi_identifiers, sens, hierarchies)
    inc = incompatibility_matrix(rules, view)
    source = [str(v) for v in view.values[sens]]
    target = [str(v) for v in table.values[sens]]
    if source != target:  # same values, possibly another code order
        inc = np.ascontiguousarray(inc[:, [source.index(v) for v in target]])
    return inc


# ---------------------------------------------------------------------- the registry's record
def _know(release: Release, options: Mapping[str, Any]) -> Knowledge:
    """The rules: every negative rule of confidence 1 mined from the original table (minExp
    ``min_expectation``, one condition each), as the Injector paper's adversary knows them."""
    from anonlab.mining.negative_rules import mine_negative_rules

    min_expectation = options.get("min_expectation", 0.9)
    rules = mine_negative_rules(release.table, min_expectation, 1)
    l = promised_l(release.manifest.get("parameters", {}))
    return Knowledge({"rules": rules, "l": l}, knowledge_words(len(rules.rules), min_expectation))


def promised_l(parameters: Mapping[str, Any]) -> int:
    """The ℓ a release's parameters promise against the negative-rule attacker: its ``l``, or
    MASK's ``m`` (it promises 1/m), else 2."""
    return int(parameters.get("l") or parameters.get("m") or 2)


def knowledge_words(n_rules: int, min_expectation: float) -> str:
    """What the audit's negative-rule attacker knows, in words."""
    return (
        f"the {n_rules} negative rules mined from the original table (minExp "
        f"{min_expectation}, one condition each) and every record's quasi-identifiers and group"
    )


def _infer(view: Release, knowledge: Knowledge, options: Mapping[str, Any]) -> Inference:
    """Per record, the matching reading's possible values: the attacker is certain the value is
    one of them (rules of confidence 1)."""
    res = negative_rule_attack(view, knowledge["rules"], l=knowledge["l"])
    possible = res.possible("matching")
    n = len(res.group)
    hist = np.asarray(view.sensitive_histogram, dtype=np.float64)
    sizes = np.maximum(view.group_sizes, 1).astype(np.float64)
    in_set = (hist[view.group] * possible).sum(axis=1) / sizes[view.group]
    return Inference(
        attack="negative-rules",
        values=res.values,
        records=np.arange(n),
        inferred=possible,
        probability=np.ones(n),
        baseline=in_set,
        summary={**res.counts(), "rules": len(knowledge["rules"].rules)},
        settings={
            "min_expectation": options.get("min_expectation", 0.9),
            "max_conditions": 1,
            "l": knowledge["l"],
        },  # fmt: skip
        detail=res,
    )


def _judge(
    release: Release, knowledge: Knowledge, inference: Inference, options: Mapping[str, Any]
) -> Finding:
    """At risk: fewer than ℓ possible values left (the paper's vulnerable records, Fig. 4)."""
    res: NegativeRuleAttackResult = inference.detail
    rules = knowledge["rules"]
    l = knowledge["l"]
    counts = res.counts()
    n_match = res.n_possible("matching")
    n_base = res.n_possible("baseline")
    vulnerable = res.vulnerable("matching")
    truth = release.table.codes[release.sensitive]
    order = np.lexsort((np.arange(len(n_match)), n_match - n_base))[:10]
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    worst = []
    for row in order.tolist():
        if n_match[row] >= n_base[row]:
            break
        possible = np.flatnonzero(res.possible("matching")[row])
        group = release.group[row]
        worst.append(
            worst_record(
                release,
                row,
                release.quasi_identifiers,
                inferred="{" + ", ".join(res.values[j] for j in possible) + "}",
                probability=1.0 / max(1, len(possible)),
                random_worlds=hist[group, truth[row]] / release.group_sizes[group],
                correct=res.possible("matching")[row, truth[row]],
            )
        )
    top = worst[0] if worst else None
    example = rules.rules[0] if len(rules.rules) else None
    return negative_rules_finding(
        knowledge.words,
        l,
        {**counts, **res.score(release), "rules": len(rules.rules)},
        np.bincount(n_match, minlength=len(res.values) + 1),
        np.bincount(n_base, minlength=len(res.values) + 1),
        at_risk_fields(vulnerable),
        inference.settings,
        example=None if example is None else f"a mined rule: {example}",
        strongest=None
        if top is None
        else strongest_sentence(release, [{**top, "probability": None}], set_of=True),  # fmt: skip
        worst=worst,
    )


def negative_rules_finding(
    knows: str,
    l: int,
    measures: dict[str, Any],
    by_possible_matching: np.ndarray,
    by_possible_baseline: np.ndarray,
    risk_fields: dict[str, Any],
    settings: dict[str, Any],
    *,
    example: str | None = None,
    strongest: str | None = None,
    worst: list[dict] | None = None,
) -> Finding:
    """The negative-rule stage's finding from the attack's counts (``measures``: its
    :meth:`NegativeRuleAttackResult.counts`, ``score`` and the number of rules), the records by
    number of possible values (matching reading and without rules) and the records at risk
    (``risk_fields``: :func:`~anonlab.attacks.common.at_risk_fields` of the vulnerable ones).
    The judge here counts them over the records; a cluster's audit part by part
    (:mod:`anonlab.distributed.written_audit`)."""
    return ATTACK.finding(
        attacker=f"knows {knows}",
        example=example,
        promise=f"at least ℓ = {l} possible values per record",
        headline=f"{int(risk_fields['at_risk']):,} records keep fewer than {l} possible values "
        f"({measures['pinned_matching']:,} pinned to one value); without rules "
        f"{measures['vulnerable_baseline']:,}",
        **risk_fields,
        considered=measures["records"],
        strongest=strongest,
        measures=measures,
        baseline={
            "vulnerable": measures["vulnerable_baseline"],
            "pinned": measures["pinned_baseline"],
        },
        worst=worst or [],
        plot={
            "kind": "possible",
            "matching": by_possible_matching,
            "baseline": by_possible_baseline,
            "label": "records by number of possible sensitive values",
        },
        settings=settings,
    )


ATTACK = register(
    Attack(
        name="negative-rules",
        title="Background knowledge from negative association rules",
        paper="Li & Li, Injector: mining background knowledge for data anonymization, ICDE 2008",
        attacker="knows negative association rules X ⇒ ¬s of confidence 1 mined from the "
        "original table, and every record's quasi-identifiers and group",
        knowledge=("rules",),
        know=_know,
        infer=_infer,
        judge=_judge,
        command="rules",
        order=30,
        cost="mining grows with records × quasi-identifier values × sensitive values; the "
        "matching reading with records × group size",
        options=("min_expectation",),
    )
)

__all__ = ["ATTACK", "NegativeRuleAttackResult", "negative_rule_attack"]
