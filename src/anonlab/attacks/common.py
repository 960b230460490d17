"""What several attacks share beyond the contract: the per-record-groups check, and the parts
of a finding that every judge builds the same way.

:func:`require_groups` refuses a release known only by its group statistics (a lattice
candidate), for the attacks that reason about which records share a group (foreground
knowledge, negative rules). For the judges (:attr:`anonlab.attacks.contract.Attack.judge`):
:func:`at_risk_fields` turns the per-record mask of records at risk into the
:class:`~anonlab.finding.Finding`'s verdict and counts, and :func:`worst_record` builds one row
of its ``worst`` list, so the rows have one shape whatever the attack.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab.attacks.contract import describe
from anonlab.errors import AnonlabError
from anonlab.release import Release

__all__ = ["at_risk_fields", "require_groups", "worst_record"]


def require_groups(release: Release, attack: str) -> None:
    """Raise unless ``release`` is a :class:`~anonlab.release.Release` with per-record groups.

    ``attack`` names the attack in the message ("the negative-rule attack needs per-record
    groups; ..."). A release known only by its group statistics (a lattice candidate) has no
    group per record, so an attack that weighs the worlds of each group cannot run on it.
    """
    if not isinstance(release, Release):
        raise AnonlabError(f"release must be an anonlab Release, got {type(release).__name__}")
    if release.group is None:
        raise AnonlabError(
            f"{attack} needs per-record groups; this release is known only by its group statistics"
        )


def at_risk_fields(risk: np.ndarray, records: np.ndarray | None = None) -> dict[str, Any]:
    """The finding's ``verdict``, ``at_risk`` and ``at_risk_records`` from ``risk``, a boolean
    mask over the records considered: ``"at risk"`` when any record is, else ``"pass"``; the
    number at risk; their positions in the release's table (``records[risk]`` when the mask runs
    over the considered ``records``, else the mask's own positions, ``np.flatnonzero(risk)``).
    Pass the result to :meth:`~anonlab.attacks.contract.Attack.finding` as ``**fields``."""
    return {
        "verdict": "at risk" if risk.any() else "pass",
        "at_risk": int(risk.sum()),
        "at_risk_records": np.flatnonzero(risk) if records is None else np.asarray(records)[risk],
    }


def worst_record(
    release: Release,
    row: int,
    attributes: Sequence[str],
    *,
    inferred: str,
    probability: float,
    random_worlds: float,
    correct: bool | None = None,
) -> dict[str, Any]:
    """One row of a finding's ``worst`` list: the record, its group, what the attacker knows of
    it (its exact values of ``attributes``, :func:`~anonlab.attacks.contract.describe`), the
    value or value set inferred (in words), the attacker's probability for it, the
    random-worlds probability beside it and, unless ``correct`` is None, whether the inference
    holds the record's true value.

    Assumes ``release`` has per-record groups and ``row`` is one of its records. The numbers
    are plain Python ``int``, ``float`` and ``bool``, as the finding's JSON needs.
    """
    out: dict[str, Any] = {
        "record": int(row),
        "group": int(release.group[row]),
        "known": describe(release, int(row), attributes),
        "inferred": inferred,
        "probability": float(probability),
        "random_worlds": float(random_worlds),
    }
    if correct is not None:
        out["correct"] = bool(correct)
    return out
