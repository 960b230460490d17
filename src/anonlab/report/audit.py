"""The publisher's audit: every check, attack and utility measure that applies to a release.

:func:`audit` runs, in order, the privacy-model checks, each attack whose input the release can
give, re-identification risk and the COUNT-query workload, and returns an :class:`Audit` of
:class:`Finding` objects. Each finding states what the attacker is assumed to know, the
*promise* the release makes (the bound a record's inferred probability should stay under), how
many records are at risk beyond it, the worst records, the strongest inference in words, and the
random-worlds baseline beside it. :mod:`anonlab.report.html` renders an Audit as one
self-contained HTML file; ``to_json()`` is the JSON summary.

Choices (documented in docs/audit.md):

* The promise is ``1/ℓ`` when the release was made for ℓ (``l`` in its manifest), else ``1/m``
  (m-confidentiality), else each record's own random-worlds probability of its true value.
* A record is *at risk* under an attack when the attack gives its **true** value a probability
  above the promise (the publisher's view: confident wrong guesses are reported separately as
  confident records where the attack gives them). For the sampled deFinetti posterior "above"
  means by more than the Monte-Carlo noise: 0.01 or three between-chain standard errors.
* The worst case (Martin et al.) is judged at ``worst_case_k`` basic implications (default 1):
  (c,k)-safety with ``c`` = the promise; the curve to ``k_max`` is shown beside it (see
  :func:`_worst_case`).
* Attacks are scored against the publisher's copy of the original (the release's table), never
  read by the attacks themselves.
* An audit is an internal document: its findings name records (position, group, exact
  quasi-identifiers, inferred value, whether it is right). Every serialisation states so
  (:data:`INTERNAL`). :meth:`Audit.redacted` is the shareable form (:data:`REDACTED`): the
  verdicts and aggregate figures, no record-level value and no value of the data
  (:data:`Finding.RECORD_LEVEL` and each finding's ``value_paths`` say what goes).
* Neither form names the release's seed or its export key; ``settings["seed"]`` is the audit's
  own seed (its targets, chains and workload), an audit parameter chosen by whoever runs it.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from anonlab._validation import check_seed, require_release
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.report.budget import AuditBudget
from anonlab.schema import Kind

#: Stages in the order they run; attacks that do not apply to a release are skipped with a reason.
STAGES = (
    "checks",
    "definetti",
    "foreground",
    "negative-rules",
    "worst-case",
    "algorithm",
    "risk",
    "utility",
)


#: The classification every unredacted report carries (HTML banner, JSON "classification").
INTERNAL = "internal: contains record-level findings; do not publish"
#: The classification of a redacted report (:meth:`Audit.redacted`).
REDACTED = (
    "redacted: aggregate figures only; record positions, group ids, quasi-identifier and "
    "sensitive values, strongest inferences, worst records and examples mined from the data "
    "removed"
)
#: Manifest parameters that hold values of the data (withheld from a redacted report).
DATA_PARAMETERS = ("sensitive_values", "rules", "targets")
#: Manifest entries never shown in any report (the release's secrets).
SECRET_PARAMETERS = ("seed", "key", "export_key", "secret")


def _withheld(value: Any) -> str:
    """What replaces a withheld value of the data: how many there were, nothing else."""
    if isinstance(value, str) and value.startswith("withheld"):
        return value  # already withheld (redacting twice changes nothing)
    if isinstance(value, dict | list | tuple | set):
        return f"withheld ({len(value)} item(s))"
    return "withheld"


@dataclass
class Finding:
    """What one check, attack or measure found.

    Record-level fields (:data:`RECORD_LEVEL`): ``worst`` (rows with a record's position, group,
    exact quasi-identifiers, inferred value and whether it is right), ``strongest`` (a sentence
    naming one person's quasi-identifiers and value) and ``example`` (something mined from the
    data, e.g. a negative rule, quoted to explain the attacker). ``value_paths`` lists the paths
    (e.g. ``("settings", "targets")``) under ``measures``/``baseline``/``settings`` that hold
    values of the data or name records (the ASAP checker's worst extra fact). :meth:`redacted`
    drops the former and withholds the latter; everything else (verdict, headline, counts,
    shares, averages, curves, plots) is aggregate.
    """

    #: Fields that name individual records; empty in a redacted finding.
    RECORD_LEVEL = ("worst", "strongest", "example")

    key: str
    title: str
    paper: str
    attacker: str
    promise: str
    verdict: str  # "pass", "at risk", "fail", "info", "skipped"
    headline: str
    at_risk: int | None = None
    considered: int | None = None
    strongest: str | None = None
    measures: dict[str, Any] = field(default_factory=dict)
    baseline: dict[str, Any] = field(default_factory=dict)
    worst: list[dict[str, Any]] = field(default_factory=list)
    plot: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    example: str | None = None
    value_paths: list[tuple[str, ...]] = field(default_factory=list)
    is_redacted: bool = False

    def redacted(self) -> Finding:
        """This finding without record-level data: :data:`RECORD_LEVEL` emptied, every
        ``value_paths`` entry replaced by how many values it held. Aggregates are unchanged."""
        out = replace(
            self,
            strongest=None,
            worst=[],
            example=None,
            measures=copy.deepcopy(self.measures),
            baseline=copy.deepcopy(self.baseline),
            settings=copy.deepcopy(self.settings),
            plot=self.plot,  # aggregate by construction: histograms, shares by attribute, curves
            value_paths=list(self.value_paths),
            is_redacted=True,
        )
        for path in self.value_paths:
            node: Any = {"measures": out.measures, "baseline": out.baseline,
                         "settings": out.settings}  # fmt: skip
            for part in path[:-1]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict) and path[-1] in node:
                node[path[-1]] = _withheld(node[path[-1]])
        return out

    def to_json(self) -> dict[str, Any]:
        # the same keys in both forms; a redacted finding's record-level ones are empty
        skip = ("plot", "value_paths", "is_redacted")
        out = {k: v for k, v in self.__dict__.items() if k not in skip}
        return plain_json(out)


#: An example value quoted in a column's type note (:func:`anonlab.table._show` quotes with
#: ``repr``), which the redacted audit withholds.
_EXAMPLE = re.compile(r"""e\.g\. (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


@dataclass
class Audit:
    """All findings on one release, with the settings to re-run the audit exactly.

    ``release`` describes the release (algorithm, parameters, scheme, counts, attribute names);
    it never holds the release's seed or export key. ``is_redacted`` is True for the shareable
    form made by :meth:`redacted`; :attr:`classification` is the banner either form carries.
    """

    release: dict[str, Any]
    findings: list[Finding]
    settings: dict[str, Any]
    is_redacted: bool = False

    @property
    def classification(self) -> str:
        """:data:`INTERNAL` or, for a redacted audit, :data:`REDACTED`."""
        return REDACTED if self.is_redacted else INTERNAL

    def finding(self, key: str) -> Finding:
        for f in self.findings:
            if f.key == key:
                return f
        raise KeyError(key)

    def redacted(self) -> Audit:
        """The shareable form: verdicts and aggregate figures, no record-level value.

        Each finding is :meth:`Finding.redacted`; the release's parameters that hold values
        of the data (:data:`DATA_PARAMETERS`, e.g. the protected sensitive values) are replaced
        by how many values they held. The original audit is not changed.
        """
        release = copy.deepcopy(self.release)
        params = release.get("parameters")
        if isinstance(params, dict):
            for name in DATA_PARAMETERS:
                if params.get(name) is not None:
                    params[name] = _withheld(params[name])
        types = (release.get("columns") or {}).get("types") or {}
        for decided in types.values():  # a type note quotes a value: "e.g. '01656'"
            if isinstance(decided, dict) and decided.get("note"):
                decided["note"] = _EXAMPLE.sub("e.g. (a value, withheld)", decided["note"])
        return Audit(
            release=release,
            findings=[f.redacted() for f in self.findings],
            settings=copy.deepcopy(self.settings),
            is_redacted=True,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "classification": self.classification,
            "redacted": self.is_redacted,
            "release": plain_json(self.release),
            "settings": plain_json(self.settings),
            "findings": [f.to_json() for f in self.findings],
        }


def plain_json(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): plain_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain_json(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return plain_json(obj.tolist())
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating | float):
        v = float(obj)
        return v if np.isfinite(v) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


# ---------------------------------------------------------------------- the promise
def promise(release: Release) -> tuple[np.ndarray, str]:
    """Per record, the probability its true value should stay under, and the words for it."""
    params = release.manifest.get("parameters", {})
    n = release.table.n_rows
    for key, name in (("l", "ℓ"), ("m", "m")):
        value = params.get(key)
        if value:
            return np.full(n, 1.0 / float(value)), f"1/{name} = 1/{value}"
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    truth = release.table.codes[release.sensitive]
    sizes = np.maximum(release.group_sizes, 1)[release.group]
    return hist[release.group, truth] / sizes, "each record's random-worlds probability"


def release_columns(release: Release) -> dict[str, Any]:
    """What the report's header says about the input's columns (issue 17, item 4): those
    published as they are (insensitive), those left out for want of a role and the
    identifiers dropped (``manifest["dropped"]``), the rows dropped for missing values, and
    how each column's type was decided where the release says (``manifest["column_types"]``,
    written by the CLI for ``--data``). Column names only, never values, so the redacted
    report keeps it."""
    dropped = release.manifest.get("dropped") or release.table.dropped or {}
    return {
        "insensitive": list(release.table.schema.insensitive),
        "not_published": list(dropped.get("columns") or []),
        "identifiers_dropped": list(dropped.get("identifiers") or []),
        "rows_with_missing": int(dropped.get("rows_with_missing") or 0),
        "types": dict(release.manifest.get("column_types") or {}),
    }


def _describe(release: Release, row: int, attributes: Sequence[str]) -> str:
    return ", ".join(f"{a} = {release.table.column(a)[row]}" for a in attributes) or "anyone"


# ---------------------------------------------------------------------- stages
def _checks(release: Release, opts: dict) -> Finding:
    from anonlab.models.defaults import default_checks

    results = default_checks(release)
    failed = [r for r in results if not r.holds]
    made = release.manifest.get("parameters", {})
    own = [r for r in results if _is_own_model(r, made)]
    own_failed = [r for r in own if not r.holds]
    verdict = "fail" if own_failed else "pass"
    at_risk = max((r.violating_records for r in own_failed), default=0)
    headline = (
        f"meets its own model ({', '.join(r.model for r in own)})"
        if own and not own_failed
        else (
            f"violates its own model: {', '.join(r.model for r in own_failed)}"
            if own_failed
            else "no model parameters in the manifest; common models checked at defaults"
        )
    )
    if failed:
        headline += f"; {len(failed)} of {len(results)} models checked are violated"
    value_sets = _value_sets(release)
    if value_sets:
        headline += (
            "; published as the set of the members' exact values (no hierarchy): "
            + ", ".join(f"{q} ({n:,} records)" for q, n in value_sets.items())
        )
    exact = _exact_values(release)
    if exact:
        headline += (
            "; published as an exact value (every member of the group has it): "
            + ", ".join(f"{q} ({n:,} records)" for q, n in exact.items())
        )
    return Finding(
        key="checks",
        title="Privacy models",
        paper="k-anonymity, ℓ-diversity (frequency, distinct, entropy, recursive), "
        "t-closeness, m-confidentiality",
        attacker="—",
        promise="the model the release was made for",
        verdict=verdict if own else "info",
        headline=headline,
        at_risk=at_risk,
        considered=release.table.n_rows,
        value_paths=[
            ("measures", r.model, "parameters", name)
            for r in results
            for name in DATA_PARAMETERS
            if name in (r.parameters or {})
        ],
        measures={
            r.model: {
                "parameters": r.parameters,
                "holds": r.holds,
                "value": r.value,
                "violating_records": r.violating_records,
            }
            for r in results
        },
        settings={"value_sets": value_sets, "exact_values": exact},
    )


def _exact_values(release: Release) -> dict[str, int]:
    """Records whose published quasi-identifier is one exact value of its domain (issue 17,
    item 3: the audit flags it), per quasi-identifier with any.

    Under generalization a group whose members share one value publishes that value (a
    single number, a hierarchy leaf); under full-domain generalization a node that covers one
    value of the domain is that value too. Either is allowed by k-anonymity (every member has
    it), and is reported so the publisher sees which attributes are published exactly for how
    many records. A bucketized release publishes every quasi-identifier exactly by design and
    gives ``{}`` here (its QI table is the published form).
    """
    if release.scheme != "generalization" or release.group is None:
        return {}
    out: dict[str, int] = {}
    sizes = release.group_sizes
    table = release.table
    for q in release.quasi_identifiers:
        lo, hi = release.code_range(q)
        if release.levels is not None:
            h = table.schema[q].hierarchy
            per_value = h.map(release.levels[q])[table.leaf_codes(q)]  # code -> node
            covered = np.bincount(per_value, minlength=int(per_value.max()) + 1)
            single = covered[per_value[lo]] == 1
        else:
            single = lo == hi
        if single.any():
            out[q] = int(sizes[single].sum())
    return out


def _value_sets(release: Release) -> dict[str, int]:
    """Records whose published quasi-identifier is the set of its group members' exact values.

    Under generalization a categorical quasi-identifier without a hierarchy is published as the
    set of the values in the group (``{a,b}``): every member's exact value in disguise (issue
    17, item 3). Per such attribute, the records of groups with two or more values (a group
    sharing one value publishes that value, as any k-anonymous generalization does). Numeric
    ranges and hierarchy nodes are not counted; bucketization publishes exact quasi-identifiers
    by design and full-domain releases publish hierarchy levels, so both give ``{}``.
    """
    if release.scheme != "generalization" or release.levels is not None or release.group is None:
        return {}
    out: dict[str, int] = {}
    sizes = release.group_sizes
    for q in release.quasi_identifiers:
        att = release.table.schema[q]
        if att.kind is Kind.NUMERIC or att.hierarchy is not None:
            continue
        sets = release.generalization[q].mask.sum(axis=1) >= 2
        if sets.any():
            out[q] = int(sizes[sets].sum())
    return out


def _is_own_model(result, params: dict) -> bool:
    if result.model == "k-anonymity":
        return "k" in params and params.get("k") is not None
    if result.model == "l-diversity":
        return params.get("l") is not None
    if result.model == "m-confidentiality":
        return params.get("m") is not None
    if result.model == "t-closeness":
        return params.get("t") is not None
    return result.model == params.get("model")


def _definetti(release: Release, opts: dict) -> Finding:
    from anonlab.attacks.definetti import choose_targets, definetti_attack, score_posterior

    n = release.table.n_rows
    rows = choose_targets(release, min(opts["targets"], n), seed=opts["seed"])
    res = definetti_attack(
        release,
        targets=rows,
        chains=opts["chains"],
        sweeps=opts["sweeps"],
        seed=opts["seed"],
        progress=opts.get("tick"),  # chunked sampling, the same result
    )
    truth = release.table.codes[release.sensitive][rows]
    bound, words = promise(release)
    ours = score_posterior(res.posterior, truth)
    base = score_posterior(res.baseline, truth)
    p_true = res.posterior[np.arange(len(rows)), truth]
    # above the promise by more than the Monte-Carlo noise (0.01, or 3 standard errors)
    noise = np.maximum(0.01, 3 * res.monte_carlo_error()[np.arange(len(rows)), truth])
    risk = p_true > bound[rows] + noise
    order = np.argsort(-res.posterior.max(axis=1), kind="stable")[:10]
    worst = []
    for i in order.tolist():
        row = int(rows[i])
        j = int(res.posterior[i].argmax())
        worst.append(
            {
                "record": row,
                "group": int(release.group[row]),
                "known": _describe(release, row, res.attributes),
                "inferred": res.values[j],
                "probability": float(res.posterior[i, j]),
                "random_worlds": float(res.baseline[i, j]),
                "correct": bool(j == truth[i]),
            }
        )
    top = worst[0]
    strongest = (
        f"a person with {top['known']} in group {top['group']} has {release.sensitive} = "
        f"{top['inferred']} with probability {top['probability']:.2f} (random worlds "
        f"{top['random_worlds']:.2f})"
    )
    return Finding(
        key="definetti",
        title="deFinetti attack",
        paper="Kifer, Attacks on privacy and deFinetti's theorem, SIGMOD 2009",
        attacker="knows the targets' quasi-identifiers and groups; learns a Naive Bayes model of "
        "quasi-identifiers and sensitive value from the release itself",
        promise=words,
        verdict="at risk" if risk.any() else "pass",
        headline=f"{int(risk.sum()):,} of {len(rows):,} targets have their true value inferred "
        f"above {words}; accuracy {ours['ACC']:.3f} vs {base['ACC']:.3f} for random worlds",
        at_risk=int(risk.sum()),
        considered=len(rows),
        strongest=strongest,
        measures={**ours, "r_hat": res.r_hat(), "chain_spread": res.chain_spread()},
        baseline=base,
        worst=worst,
        plot={
            "kind": "posterior",
            "ours": p_true,
            "baseline": res.baseline[np.arange(len(rows)), truth],
            "bound": float(np.median(bound)),
            "label": "deFinetti: probability of the true value",
        },
        settings=dict(res.settings, targets=len(rows)),
    )


def _foreground(release: Release, opts: dict) -> Finding:
    from anonlab.attacks.foreground import foreground_attack

    values = release.manifest.get("parameters", {}).get("sensitive_values")
    res = foreground_attack(release, values, max_attributes=opts["foreground_attributes"])
    bound, words = promise(release)
    truth = release.table.codes[release.sensitive]
    # a breach: p* above the promise for a target set that holds the record's true value
    masks = [np.isin(np.arange(release.table.domain_size(release.sensitive)), _codes(release, t))
             for t in res.targets]  # fmt: skip
    holds_true = np.zeros(release.table.n_rows, dtype=bool)
    for xi, mask in enumerate(masks):
        sel = res.best_target == xi
        holds_true[sel] = mask[truth[sel]]
    risk = (res.p_star > bound + 1e-9) & holds_true
    flagged = res.p_star > bound + 1e-9
    order = np.argsort(-np.where(holds_true, res.p_star, -1), kind="stable")[:10]
    worst = []
    for row in order.tolist():
        attrs = res.attribute_sets[int(res.best_attributes[row])]
        target = res.targets[int(res.best_target[row])]
        worst.append(
            {
                "record": row,
                "group": int(release.group[row]),
                "known": _describe(release, row, attrs),
                "inferred": "{" + ", ".join(target) + "}",
                "probability": float(res.p_star[row]),
                "random_worlds": float(res.baseline[row]),
                "correct": bool(holds_true[row]),
            }
        )
    top = worst[0] if worst else None
    share_by_set: dict[str, float] = {}
    for ai, attrs in enumerate(res.attribute_sets):
        sel = res.best_attributes == ai
        if sel.any():
            share_by_set[" ∧ ".join(attrs) or "(none)"] = float(risk[sel].sum()) / max(
                1, release.table.n_rows
            )
    return Finding(
        key="foreground",
        title="Foreground-knowledge attack",
        paper="Wong, Fu, Wang, Xu, Yu, Global privacy guarantee in serial data publishing / "
        "foreground knowledge (TKDD 2011)",
        attacker="knows every record's quasi-identifiers and group; mines global distributions "
        "p(signature : value) from the release itself",
        promise=words,
        verdict="at risk" if risk.any() else "pass",
        headline=f"{int(risk.sum()):,} records have their sensitive value inferred above "
        f"{words}; {int(flagged.sum()):,} records flagged in all",
        at_risk=int(risk.sum()),
        considered=release.table.n_rows,
        strongest=None
        if top is None
        else (
            f"a person with {top['known']} in group {top['group']} has {release.sensitive} in "
            f"{top['inferred']} with probability {top['probability']:.2f} (random worlds "
            f"{top['random_worlds']:.2f})"
        ),
        measures={
            "flagged_records": int(flagged.sum()),
            "mean_p_star": float(res.p_star.mean()),
            "attribute_sets": len(res.attribute_sets),
            "min_support": res.min_support,
        },
        baseline={"mean": float(res.baseline.mean())},
        worst=worst,
        plot={
            "kind": "bars",
            "data": share_by_set,
            "label": "share of records breached, by the attribute set that breaches them",
        },  # fmt: skip
        value_paths=[("settings", "targets")],  # sensitive values, of the data's domain
        settings={
            "targets": [list(t) for t in res.targets],
            "min_support": res.min_support,
            "max_attributes": opts["foreground_attributes"],
        },
    )


def _codes(release: Release, labels: Sequence[str]) -> np.ndarray:
    values = [str(v) for v in release.table.values[release.sensitive]]
    return np.array([values.index(str(x)) for x in labels], dtype=np.int64)


def _negative_rules(release: Release, opts: dict) -> Finding:
    from anonlab.attacks.negative_rules import negative_rule_attack
    from anonlab.mining.negative_rules import mine_negative_rules

    rules = mine_negative_rules(release.table, opts["min_expectation"], 1)
    params = release.manifest.get("parameters", {})
    l = int(params.get("l") or params.get("m") or 2)  # MASK promises 1/m
    res = negative_rule_attack(release, rules, l=l)
    counts = res.counts()
    n_match = res.n_possible("matching")
    n_base = res.n_possible("baseline")
    vulnerable = res.vulnerable("matching")
    pinned = res.pinned("matching")
    truth = release.table.codes[release.sensitive]
    order = np.lexsort((np.arange(len(n_match)), n_match - n_base))[:10]
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    worst = []
    for row in order.tolist():
        if n_match[row] >= n_base[row]:
            break
        possible = np.flatnonzero(res.possible("matching")[row])
        worst.append(
            {
                "record": row,
                "group": int(release.group[row]),
                "known": _describe(release, row, release.quasi_identifiers),
                "inferred": "{" + ", ".join(res.values[j] for j in possible) + "}",
                "probability": 1.0 / max(1, len(possible)),
                "random_worlds": float(
                    hist[release.group[row], truth[row]] / release.group_sizes[release.group[row]]
                ),
                "correct": bool(res.possible("matching")[row, truth[row]]),
            }
        )
    top = worst[0] if worst else None
    example = rules.rules[0] if len(rules.rules) else None
    return Finding(
        key="negative-rules",
        title="Background knowledge from negative association rules",
        paper="Li & Li, Injector: mining background knowledge for data anonymization, ICDE 2008",
        attacker=f"knows the {len(rules.rules)} negative rules mined from the original table "
        f"(minExp {opts['min_expectation']}, one condition each) and every record's "
        "quasi-identifiers and group",
        example=None if example is None else f"a mined rule: {example}",
        promise=f"at least ℓ = {l} possible values per record",
        verdict="at risk" if vulnerable.any() else "pass",
        headline=f"{int(vulnerable.sum()):,} records keep fewer than {l} possible values "
        f"({int(pinned.sum()):,} pinned to one value); without rules "
        f"{counts['vulnerable_baseline']:,}",
        at_risk=int(vulnerable.sum()),
        considered=release.table.n_rows,
        strongest=None
        if top is None
        else (
            f"a person with {top['known']} in group {top['group']} has {release.sensitive} in "
            f"{top['inferred']}"
        ),
        measures={**counts, **res.score(release), "rules": len(rules.rules)},
        baseline={
            "vulnerable": counts["vulnerable_baseline"],
            "pinned": counts["pinned_baseline"],
        },
        worst=worst,
        plot={
            "kind": "possible",
            "matching": np.bincount(n_match, minlength=len(res.values) + 1),
            "baseline": np.bincount(n_base, minlength=len(res.values) + 1),
            "label": "records by number of possible sensitive values",
        },
        settings={"min_expectation": opts["min_expectation"], "max_conditions": 1, "l": l},
    )


def _algorithm(release: Release, opts: dict) -> Finding:
    from anonlab.attacks.algorithm_disclosure import run_algorithm_attacks

    res = run_algorithm_attacks(release)
    applied, skipped = res["applied"], res["skipped"]
    at_risk = 0
    parts = []
    measures: dict[str, Any] = {}
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
        at_risk = max(at_risk, n)
        measures[name] = {k: v for k, v in r.items() if not isinstance(v, list)}
    if not applied:
        raise AnonlabError(
            "no algorithm-based attack applies: "
            + "; ".join(f"{k}: {v}" for k, v in skipped.items())
        )
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
    return Finding(
        key="algorithm",
        title="Algorithm-based disclosure",
        paper="Jin, Zhang, Das, ASAP: algorithm-safe publishing (Information Systems 2011)",
        attacker=f"knows the publishing algorithm ({res['algorithm']}) and its parameters, "
        "and every record's quasi-identifiers and group",
        promise="knowing the algorithm changes no one's posterior",
        verdict="at risk" if at_risk else "pass",
        headline="; ".join(parts),
        at_risk=at_risk,
        considered=release.table.n_rows,
        measures=measures,
        value_paths=value_paths,
        settings={"skipped": skipped},
    )


def _worst_case(release: Release, opts: dict) -> Finding:
    """Martin et al.'s worst case, judged at a small budget of background knowledge.

    Martin, Kifer, Machanavajjhala, Gehrke and Halpern (ICDE 2007) define (c,k)-safety
    (Definition 13): maximum disclosure under ``k`` basic implications below a threshold ``c``;
    the paper leaves ``c`` and ``k`` to the publisher. The audit's verdict takes ``c`` = the
    release's promise (:func:`promise`, e.g. ``1/ℓ``) and ``k`` = ``worst_case_k`` (default 1:
    one basic implication, e.g. "if Bob has flu then Ann has flu"): a record is *at risk* when
    the maximum disclosure with the target in its group (:func:`disclosure_by_group`; every k
    from one run, :func:`disclosure_by_group_curve`; the implications may speak of anyone)
    exceeds the promise after ``worst_case_k`` implications.

    Judging at ``k = k_max`` instead flags almost every record of any ℓ-diverse release: a group
    with ``d`` distinct values is pinned by ``d - 1`` implications, so with ``k_max >= ℓ - 1``
    every group with exactly ℓ values reaches disclosure 1, and the count says nothing about one
    release against another. At ``k = 1`` a group whose most frequent value already sits at the
    promise is still exceeded (any one fact raises it), while a group with slack below the
    promise passes. The whole curve ``k = 0..k_max`` (both languages) is still computed and
    shown, with, per record, the smallest ``k`` at which its group exceeds the promise and the
    smallest at which its value becomes certain. Without ℓ or m the threshold is the group's
    random-worlds maximum (its disclosure at k = 0): disclosure speaks of the group's most
    exposed value, not of the record's own.
    """
    from anonlab.attacks.worst_case import (
        disclosure_by_group_curve,
        disclosure_curve,
        maximum_disclosure,
    )

    k_max, k_verdict = opts["k_max"], opts["worst_case_k"]
    tick = opts.get("tick")
    curve = {lang: disclosure_curve(release, k_max, language=lang)
             for lang in ("implications", "negations")}  # fmt: skip
    bound, words = promise(release)
    # Disclosure is about the group's most exposed value, not the record's own: compare it with
    # the group's largest promise (the same 1/ℓ for every record; without ℓ or m, the group's
    # random-worlds maximum, so no record is at risk at k = 0).
    group_bound = np.zeros(release.n_groups, dtype=np.float64)
    np.maximum.at(group_bound, release.group, bound)
    bound = group_bound[release.group]
    n = release.table.n_rows
    first_above = np.full(n, -1, dtype=np.int64)  # smallest k above the promise; -1: none <= K
    first_certain = np.full(n, -1, dtype=np.int64)  # smallest k with disclosure 1
    above_by_k = []
    per_group_by_k = disclosure_by_group_curve(release, k_max)  # (k_max + 1, groups)
    for k in range(k_max + 1):
        per_record = per_group_by_k[k][release.group]
        above = per_record > bound + 1e-9
        first_above[(first_above < 0) & above] = k
        first_certain[(first_certain < 0) & (per_record >= 1 - 1e-12)] = k
        above_by_k.append(int(above.sum()))
        if tick is not None:
            tick(k + 1, k_max + 1)
    risk = (first_above >= 0) & (first_above <= k_verdict)
    implications = curve["implications"]
    never = int((first_above < 0).sum())
    witness = maximum_disclosure(release, k_verdict)
    worst = []
    if witness.record is not None:
        worst.append(
            {
                "record": witness.record,
                "group": witness.group,
                "known": "; ".join(witness.sentences) or "nothing",
                "inferred": witness.sensitive_value,
                "probability": float(witness.value),
                "random_worlds": float(witness.prior),
                "correct": bool(
                    str(release.table.column(release.sensitive)[witness.record])
                    == witness.sensitive_value
                ),
            }
        )
    return Finding(
        key="worst-case",
        title="Worst-case background knowledge",
        paper="Martin, Kifer, Machanavajjhala, Gehrke, Halpern, ICDE 2007",
        attacker=f"knows every record's group and k basic implications about anyone's sensitive "
        f"values; the verdict is at k = {k_verdict}, the curve runs to k = {k_max}",
        promise=f"{words}, against k = {k_verdict} implication(s) ((c,k)-safety, c = the promise)",
        verdict="at risk" if risk.any() else "pass",
        headline=f"{int(risk.sum()):,} records in groups above {words} after {k_verdict} "
        f"implication(s) (maximum disclosure {implications[k_verdict]:.3f}); "
        f"maximum disclosure {implications[0]:.3f} with no knowledge, "
        f"{implications[k_max]:.3f} after {k_max}; {above_by_k[k_max]:,} records above the "
        f"promise at k = {k_max}",
        at_risk=int(risk.sum()),
        considered=n,
        strongest=witness.explain(),
        measures={
            "verdict_k": k_verdict,
            "curve_implications": implications,
            "curve_negations": curve["negations"],
            "records_above_promise_by_k": above_by_k,
            "records_above_promise_at_k1": above_by_k[1],
            "smallest_k_above_promise": {
                **{str(k): int((first_above == k).sum()) for k in range(k_max + 1)},
                f"> {k_max}": never,
            },
            "smallest_k_certain": {
                **{str(k): int((first_certain == k).sum()) for k in range(k_max + 1)},
                f"> {k_max}": int((first_certain < 0).sum()),
            },
        },
        baseline={"max_disclosure_k0": float(implications[0])},
        worst=worst,
        plot={"kind": "curve", "curves": curve, "label": "maximum disclosure against k"},
        settings={"k_max": k_max, "worst_case_k": k_verdict},
    )


def _risk(release: Release, opts: dict) -> Finding:
    from anonlab.utility import measure

    risk = measure(release, "prosecutor-risk")
    r = risk.to_json()
    return Finding(
        key="risk",
        title="Re-identification risk (prosecutor)",
        paper="the prosecutor model: risk 1/|group| for an attacker who knows the target is in "
        "the data",
        attacker="knows a target's quasi-identifiers and that the target is in the data",
        promise="risk <= 0.2 per record (groups of at least 5)",
        verdict="at risk" if risk.n_records_at_risk else "pass",
        headline=f"highest risk {risk.highest:.3f}, average {risk.average:.4f}; "
        f"{risk.n_records_at_risk:,} records above {risk.threshold}",
        at_risk=int(risk.n_records_at_risk),
        considered=release.table.n_rows,
        measures=r,
    )


def _utility(release: Release, opts: dict) -> Finding:
    from anonlab.utility.defaults import default_measures

    qd = min(3, len(release.quasi_identifiers))  # the papers' qd = 3, fewer when fewer QIs
    res = default_measures(release, queries=opts["queries"], qd=qd, seed=opts["seed"])
    work = res["workload-error"].to_json()
    return Finding(
        key="utility",
        title="Utility: COUNT-query workload and information loss",
        paper="Xiao & Tao (Anatomy, VLDB 2006) workload; LeFevre et al. discernibility",
        attacker="—",
        promise="—",
        verdict="info",
        headline=f"{opts['queries']:,} random COUNT queries: mean relative error "
        f"{work['mean_relative_error']:.3f}, median {work['median_relative_error']:.3f}",
        measures={k: v.to_json() for k, v in res.items()},
        plot={
            "kind": "errors",
            "errors": res["workload-error"].relative_error,
            "label": "relative error of each query",
        },
        settings={"queries": opts["queries"], "qd": qd, "selectivity": 0.05},
    )


RUNNERS: dict[str, Callable[[Release, dict], Finding]] = {
    "checks": _checks,
    "definetti": _definetti,
    "foreground": _foreground,
    "negative-rules": _negative_rules,
    "algorithm": _algorithm,
    "worst-case": _worst_case,
    "risk": _risk,
    "utility": _utility,
}


@dataclass(frozen=True)
class StageProgress:
    """One progress event of :func:`audit`, for a progress bar drawn by the caller.

    ``event`` is ``"start"`` (before the stage runs), ``"advance"`` (the stage has done
    ``completed`` of ``total`` iterations: the deFinetti sweeps, the worst case's values of k;
    other stages send none) or ``"done"`` (with its ``finding``). ``index`` counts the stages
    run from 0; ``stages`` is how many run. The audit itself draws nothing: this module stays
    free of terminal code (the command line draws the bar, ``anonlab.cli.audit``).
    """

    stage: str
    index: int
    stages: int
    event: str
    completed: int | None = None
    total: int | None = None
    finding: Finding | None = None


def audit(
    release: Release,
    *,
    stages: Sequence[str] | None = None,
    budget: AuditBudget | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    on_progress: Callable[[StageProgress], None] | None = None,
    **budget_fields: Any,
) -> Audit:
    """Run every stage of :data:`STAGES` (or ``stages``) on ``release``.

    Parameters
    ----------
    release : Release
        With its publisher copy (the truth the attacks are scored against).
    stages : sequence of str, optional
        A subset of :data:`STAGES` (default: all).
    budget : AuditBudget, optional
        Each stage's budget (:class:`~anonlab.report.budget.AuditBudget`: the deFinetti
        attack's ``targets``, ``chains``, ``sweeps``; the worst case's ``k_max`` and
        ``worst_case_k``; the workload's ``queries``; the negative rules' ``min_expectation``;
        the foreground attack's ``foreground_attributes``). Default: its defaults.
    **budget_fields
        Any of those fields by name, applied over ``budget`` (``audit(release, targets=40)``).
    seed : int
        The audit's own seed: seeds targets, chains and the workload; stored in the settings
        (an audit parameter, independent of the release's seed, which no report shows).
    progress : callable, optional
        Called with each stage's name before it runs.
    on_progress : callable, optional
        Called with a :class:`StageProgress` when each stage starts, advances and ends (for a
        progress bar). Neither callback changes the result.
    """
    require_release(release, where="audit")
    stages = list(STAGES if stages is None else stages)
    unknown = [s for s in stages if s not in RUNNERS]
    if unknown:
        raise AnonlabError(f"unknown audit stage(s) {unknown}; choose from {list(STAGES)}")
    opts = {**AuditBudget.of(budget, **budget_fields).to_dict(), "seed": check_seed(seed)}
    if release.table.n_rows == 0:
        raise AnonlabError("the release has no records to audit")
    findings = []
    for index, name in enumerate(stages):
        if progress is not None:
            progress(name)
        tick = None
        if on_progress is not None:
            on_progress(StageProgress(name, index, len(stages), "start"))

            def tick(done: int, total: int, name: str = name, index: int = index) -> None:
                on_progress(StageProgress(name, index, len(stages), "advance", done, total))

        t0 = time.perf_counter()
        try:
            finding = RUNNERS[name](release, {**opts, "tick": tick})
        except AnonlabError as exc:  # the stage does not apply to this release
            finding = Finding(
                key=name,
                title=name,
                paper="",
                attacker="",
                promise="",
                verdict="skipped",
                headline=f"not applicable: {exc}",
            )
        finding.seconds = time.perf_counter() - t0
        findings.append(finding)
        if on_progress is not None:
            on_progress(StageProgress(name, index, len(stages), "done", finding=finding))
    # never the release's seed or export key (they stay in the publisher's copy)
    params = release.manifest.get("parameters") or {}
    info = {
        "algorithm": release.manifest.get("algorithm"),
        "parameters": {k: v for k, v in params.items() if k not in SECRET_PARAMETERS},
        "scheme": release.scheme,
        "records": release.table.n_rows,
        "groups": release.n_groups,
        "quasi_identifiers": list(release.quasi_identifiers),
        "sensitive": release.sensitive,
        "columns": release_columns(release),
    }
    return Audit(release=info, findings=findings, settings={"stages": stages, **opts})
