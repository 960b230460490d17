"""What one check, attack or measure found about a release: the :class:`Finding` every stage
of the audit returns, and its JSON form.

A finding states what the attacker is assumed to know, the *promise* the release makes, how many
records are at risk beyond it, the worst records, the strongest inference in words and the
random-worlds baseline beside it. Attacks build theirs in their own modules
(:mod:`anonlab.attacks.contract`); the audit (:mod:`anonlab.report.audit`) collects them.

Record-level fields are listed in :data:`Finding.RECORD_LEVEL`; :meth:`Finding.redacted` is the
shareable form (aggregates only).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

#: Manifest parameters that hold values of the data (withheld from a redacted report).
DATA_PARAMETERS = ("sensitive_values", "rules", "targets")
#: Manifest entries never shown in any report (the release's secrets).
SECRET_PARAMETERS = ("seed", "key", "export_key", "secret")


def withheld(value: Any) -> str:
    """What replaces a withheld value of the data: how many there were, nothing else."""
    if isinstance(value, str) and value.startswith("withheld"):
        return value  # already withheld (redacting twice changes nothing)
    if isinstance(value, dict | list | tuple | set):
        return f"withheld ({len(value)} item(s))"
    return "withheld"


#: Separates a stage's name from the sensitive attribute it ran for, in the key of a finding of
#: a release with several sensitive attributes (``"definetti/insurer"``).
ATTRIBUTE_SEPARATOR = "/"


def stage_of(key: str) -> str:
    """The audit stage a finding's ``key`` belongs to (``"definetti/insurer"`` ->
    ``"definetti"``; a key without an attribute is its stage)."""
    return key.split(ATTRIBUTE_SEPARATOR, 1)[0]


def attribute_key(stage: str, attribute: str) -> str:
    """The key of ``stage``'s finding for sensitive attribute ``attribute``."""
    return f"{stage}{ATTRIBUTE_SEPARATOR}{attribute}"


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
    RECORD_LEVEL = ("worst", "strongest", "example", "at_risk_records")

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
    #: Positions (in the release's table) of the records counted in ``at_risk``; the audit's
    #: at-risk file keys them by the input's row id (publisher only; never in the JSON).
    at_risk_records: np.ndarray | None = field(default=None, repr=False)

    def redacted(self) -> Finding:
        """This finding without record-level data: :data:`RECORD_LEVEL` emptied, every
        ``value_paths`` entry replaced by how many values it held. Aggregates are unchanged."""
        out = replace(
            self,
            strongest=None,
            worst=[],
            at_risk_records=None,
            example=None,
            measures=copy.deepcopy(self.measures),
            baseline=copy.deepcopy(self.baseline),
            settings=copy.deepcopy(self.settings),
            # aggregate by construction (histograms, shares by attribute, curves), except a plot
            # labelled with values of the data (per-column distributions), which goes
            plot=None if (self.plot or {}).get("has_values") else self.plot,
            value_paths=list(self.value_paths),
            is_redacted=True,
        )
        for path in self.value_paths:
            node: Any = {"measures": out.measures, "baseline": out.baseline,
                         "settings": out.settings}  # fmt: skip
            for part in path[:-1]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, dict) and path[-1] in node:
                node[path[-1]] = withheld(node[path[-1]])
        return out

    def to_json(self) -> dict[str, Any]:
        # the same keys in both forms; a redacted finding's record-level ones are empty
        skip = ("plot", "value_paths", "is_redacted", "at_risk_records")
        out = {k: v for k, v in self.__dict__.items() if k not in skip}
        return plain_json(out)


def plain_json(obj: Any) -> Any:
    """``obj`` with numpy scalars and arrays as Python numbers and lists, keys as strings and
    non-finite floats as ``None``: what ``json.dumps`` writes without a custom encoder."""
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
