"""Release or don't release: an audit's findings judged against the publisher's thresholds
(issue 19, item 2), with the reasons in one paragraph and concrete next steps.

:func:`decide` reads only the audit's findings and the release's description, so the decision
of a redacted audit is the same as the internal one's, and it names no record.

Criteria and defaults (:class:`Thresholds`; every default is stated, and the publisher sets
their own):

* **The release's own model holds** (the checks stage's verdict is not "fail"). A release made
  without model parameters is not judged on this.
* **Highest re-identification risk** (prosecutor model, ``1/|group|``) at most
  ``max_risk`` = 0.2, i.e. every published class of at least 5 records (k = 5, a common choice
  for releases to a controlled audience; El Emam, *Guide to the De-Identification of Personal
  Health Information*, 2013, discusses thresholds by release context). Stricter values such as
  0.09 or 0.05 suit public releases: the publisher sets ``--max-risk``. anonlab's default is a
  choice, not a standard.
* **Share of records at risk under each concrete attack** (deFinetti, foreground, negative rules,
  algorithm-based, and any registered attack that is not a bound) at most ``max_share_at_risk``
  = 0.05: a record is at risk when the attack infers its true value above the release's promise
  (each attack's own definition, in its finding). No standard exists for this figure; 5 % is
  anonlab's choice, meant to be set by the publisher.
* **Bounds** (the worst case of Martin et al.: the most any attacker with k implications could
  learn) are reported beside the decision but do not decide it by default
  (``bounds_decide=False``): at the audit's default k = 1 almost every ℓ-diverse release has
  groups exactly at the promise, which any one implication exceeds.

An attack that did not run (skipped, with its reason) neither passes nor fails a release; the
paragraph names it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from anonlab._validation import check_float
from anonlab.errors import AnonlabError
from anonlab.finding import Finding, stage_of

#: The audit's stages that are not attacks (when the registered attacks are not given).
NOT_ATTACKS = ("checks", "risk", "utility", "distributions")


@dataclass(frozen=True)
class Thresholds:
    """The publisher's thresholds (see the module docstring for the defaults' sources).

    Attributes
    ----------
    max_risk : float
        Highest prosecutor re-identification risk allowed, in (0, 1].
    max_share_at_risk : float
        Largest share of records at risk under any one concrete attack, in [0, 1].
    bounds_decide : bool
        Whether a worst-case bound above the promise also blocks the release.
    """

    max_risk: float = 0.2
    max_share_at_risk: float = 0.05
    bounds_decide: bool = False

    def __post_init__(self) -> None:
        check_float("max_risk", self.max_risk)
        check_float("max_share_at_risk", self.max_share_at_risk)
        if not 0 < self.max_risk <= 1:
            raise AnonlabError(f"parameter 'max_risk' must be in (0, 1], got {self.max_risk}")
        if not 0 <= self.max_share_at_risk <= 1:
            raise AnonlabError(
                f"parameter 'max_share_at_risk' must be in [0, 1], got {self.max_share_at_risk}"
            )


@dataclass
class Decision:
    """Release or not, why, and what to do next.

    ``criteria`` has one entry per criterion judged: its name, the threshold, the measured value
    and whether it holds. ``summary`` is the paragraph the report opens with.
    """

    release: bool
    summary: str
    criteria: list[dict[str, Any]] = field(default_factory=list)
    not_judged: list[str] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)
    thresholds: Thresholds = field(default_factory=Thresholds)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["thresholds"] = asdict(self.thresholds)
        return out


def _share(f: Finding) -> float | None:
    if f.verdict == "skipped" or f.at_risk is None or not f.considered:
        return None
    return f.at_risk / f.considered


def decide(
    findings: list[Finding],
    release: dict[str, Any],
    thresholds: Thresholds | None = None,
    *,
    bounds: tuple[str, ...] = ("worst-case",),
    attacks: tuple[str, ...] = (),
) -> Decision:
    """Judge ``findings`` (an audit's) against ``thresholds``; ``release`` is the audit's
    description of the release (algorithm, parameters, records, suppressed records, columns).
    ``bounds`` names the findings that are worst-case bounds; ``attacks`` the registered
    attacks, so that those the audit did not run (``stages=``) are named as not judged."""
    thresholds = thresholds or Thresholds()
    by = {f.key: f for f in findings}
    criteria: list[dict[str, Any]] = []
    not_judged: list[str] = []
    steps: list[str] = []
    params = release.get("parameters") or {}

    checks = by.get("checks")
    if checks is not None and checks.verdict in ("pass", "fail"):
        ok = checks.verdict == "pass"
        own = checks.headline.split(";")[0]  # "meets its own model (l-diversity)"
        criteria.append({"criterion": "its own model", "threshold": "holds",
                         "value": own, "holds": ok})  # fmt: skip
        if not ok:
            steps.append(
                "The release does not meet the model it was made for: anonymize again (the "
                "checks section names the violated model and how many records break it)."
            )
    risk = by.get("risk")
    if risk is not None and risk.verdict != "skipped":
        highest = float(risk.measures.get("highest", math.nan))
        ok = highest <= thresholds.max_risk + 1e-12
        criteria.append(
            {
                "criterion": f"highest risk: {risk.title}",
                "threshold": thresholds.max_risk,
                "value": highest,
                "holds": ok,
            }
        )
        if not ok:
            k = math.ceil(1 / thresholds.max_risk - 1e-9)
            step = (
                f"Some published groups have fewer than {k} records (risk {highest:.3f} > "
                f"{thresholds.max_risk}): anonymize with k = {k} (or ℓ with groups of at least "
                f"{k})"
            )
            options = risk.measures.get("one_level_up") or {}
            if options:  # a full-domain release: the cheapest single attribute to generalize
                name, best = min(options.items(), key=lambda kv: kv[1]["records_below_k"])
                step += (
                    f", or generalize {name} one level (to level {best['level']}): "
                    f"{best['records_below_k']:,} records would stay in groups below {k}, to "
                    "suppress"
                )
            steps.append(step + ".")
    worst_attack, worst_share = None, -1.0
    for f in findings:
        stage = stage_of(f.key)  # per sensitive attribute: "definetti/insurer"
        is_attack = stage in attacks if attacks else stage not in NOT_ATTACKS
        if not is_attack:
            continue
        share = _share(f)
        if share is None:
            not_judged.append(f"{f.title} ({f.headline})")
            continue
        is_bound = stage in bounds
        ok = share <= thresholds.max_share_at_risk + 1e-12
        decides = thresholds.bounds_decide or not is_bound
        criteria.append({"criterion": f"share of records at risk: {f.title}"
                         + (" (a bound)" if is_bound else ""),
                         "threshold": thresholds.max_share_at_risk, "value": share,
                         "holds": ok, "decides": decides})  # fmt: skip
        if decides and not ok and share > worst_share:
            worst_attack, worst_share = f, share
    if worst_attack is not None:
        if stage_of(worst_attack.key) == "algorithm":
            algorithm = str(release.get("algorithm") or "")
            steps.append(
                f"An attacker who knows the algorithm ({algorithm}) learns more than its groups "
                "show: publish with its algorithm-safe version (mondrian++, hilb++ or mask++) "
                "and audit again."
            )
        else:
            l = params.get("l") or params.get("m")
            raise_l = f"raise ℓ above {l}" if l else "anonymize for ℓ-diversity"
            steps.append(
                f"{worst_attack.title} puts {worst_share:.1%} of records at risk (threshold "
                f"{thresholds.max_share_at_risk:.1%}): {raise_l}, or let `anonlab compare` "
                "try algorithms and ℓ against the same audit and pick a point of its frontier "
                "that meets the thresholds."
            )
    ran = {stage_of(key) for key in by}
    not_judged += [f"{name} (not run in this audit)" for name in attacks if name not in ran]
    if "sensitive" in release and release["sensitive"] is None:  # plain k-anonymity
        not_judged = ["the attacks, which infer sensitive values (the release has no sensitive "
                      "attribute: plain k-anonymity)"]  # fmt: skip
    blocking = [c for c in criteria if not c["holds"] and c.get("decides", True)]
    release_ok = not blocking
    suppressed = int(release.get("suppressed_records") or 0)
    deciding = [c for c in criteria if c.get("decides", True)]
    parts = [
        ("Release: every criterion holds ("
         + "; ".join(_because(c) for c in deciding) + ")."
         if release_ok else "Do not release: "
         + "; ".join(_because(c) for c in blocking) + ".")
    ]  # fmt: skip
    if not release_ok:
        parts.append("Next: " + " ".join(steps))
    passing = [c for c in criteria if c["holds"]]
    if passing and not release_ok:
        parts.append("Met: " + "; ".join(_because(c) for c in passing) + ".")
    bounds_seen = [c for c in criteria if not c.get("decides", True) and not c["holds"]]
    if bounds_seen:
        parts.append(
            "Shown as bounds, not deciding: " + "; ".join(_because(c) for c in bounds_seen) + "."
        )
    if not_judged:
        parts.append("Not judged (did not run): " + "; ".join(not_judged) + ".")
    records = int(release.get("records") or 0)
    if suppressed:
        parts.append(
            f"{suppressed:,} records were suppressed (withheld); {records:,} are published."
        )
    return Decision(
        release=release_ok,
        summary=" ".join(parts),
        criteria=criteria,
        not_judged=not_judged,
        next_steps=steps,
        thresholds=thresholds,
    )


def _because(c: dict[str, Any]) -> str:
    value, threshold = c["value"], c["threshold"]
    if isinstance(value, float) and isinstance(threshold, float):
        relation = "≤" if c["holds"] else ">"
        if c["criterion"].startswith("share"):
            return f"{c['criterion']} {value:.1%} {relation} {threshold:.1%}"
        return f"{c['criterion']} {value:.3f} {relation} {threshold}"
    return f"{c['criterion']}: {value}" if c["criterion"] != "its own model" else str(value)
