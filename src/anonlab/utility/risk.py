"""Prosecutor re-identification risk from the group sizes of a release.

The prosecutor model (El Emam & Dankar, JAMIA 2008; ARX's ``RiskModelSampleRisks``): the attacker
knows the target is in the data and knows the target's quasi-identifiers, finds the target's
group, and picks one of its records at random. A record in group ``g`` is re-identified with
probability ``1 / |g|``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import check_float
from anonlab.errors import AnonlabError
from anonlab.release import Release

__all__ = ["BUCKET_LINK_STATEMENT", "DEFAULT_THRESHOLD", "ProsecutorRisk", "prosecutor_risk"]

#: Default risk threshold: records in groups of fewer than 5 (risk above 1/5) are "at risk".
DEFAULT_THRESHOLD = 0.2

#: What the prosecutor risk of a bucketized release measures, in words (in its result).
BUCKET_LINK_STATEMENT = (
    "Bucketized release: 1/|bucket| is the risk of linking a person to their sensitive value "
    "(attribute disclosure). It is not the risk of identity or presence disclosure: the "
    "quasi-identifier table publishes every record's exact quasi-identifiers, so it shows who "
    "is in the data; measure 'reidentification-risk' gives that risk on the exact values."
)


@dataclass(frozen=True)
class ProsecutorRisk:
    """Prosecutor re-identification risk of a release.

    Attributes
    ----------
    highest : float
        ``1 / min_g |g|``.
    average : float
        Mean over records of ``1 / |g|``, which equals ``G / n``.
    records_at_risk : float
        Share of records whose risk is strictly above :attr:`threshold`.
    n_records_at_risk : int
    threshold : float
    scheme : str
    group_risk : ndarray of shape (n_groups,), dtype=float64
        ``1 / |group|``.
    record_group : ndarray of shape (n_rows,)
        Each record's group (the release's ``group``, shared, not copied).
    per_record : ndarray of shape (n_rows,), dtype=float64
        ``1 / |group of the record|``: ``group_risk[record_group]``, made when read, so that a
        float64 array the length of the release (80 MB at 10 million records) is not kept in
        the result.
    statement : str
        For a bucketized release, what the number measures (:data:`BUCKET_LINK_STATEMENT`);
        empty under generalization.
    """

    highest: float
    average: float
    records_at_risk: float
    n_records_at_risk: int
    threshold: float
    scheme: str
    group_risk: np.ndarray = field(repr=False)
    record_group: np.ndarray = field(repr=False)
    statement: str = ""

    @property
    def per_record(self) -> np.ndarray:
        """``1 / |group of the record|`` (a new array on every read)."""
        return self.group_risk[self.record_group]

    @property
    def value(self) -> float:
        """The headline number: :attr:`highest`."""
        return self.highest

    def to_json(self) -> dict:
        return {
            "measure": "prosecutor-risk",
            "highest": self.highest,
            "average": self.average,
            "records_at_risk": self.records_at_risk,
            "n_records_at_risk": self.n_records_at_risk,
            "threshold": self.threshold,
            "scheme": self.scheme,
            "statement": self.statement,
        }


def prosecutor_risk(release: Release, threshold: float = DEFAULT_THRESHOLD) -> ProsecutorRisk:
    """Prosecutor re-identification risk: per record ``1 / |group|``, then max, mean, share at risk.

    Parameters
    ----------
    release : Release
    threshold : float, default=0.2
        A record is at risk when its risk is strictly above this, in [0, 1]. The default 0.2
        flags records in groups of fewer than 5 (the common k = 5 rule). ARX takes the threshold
        from the user (``RiskModelSampleRiskDistribution.getFractionOfRecordsAtRisk``); 0.2 is our
        choice, not a value taken from ARX.

    Returns
    -------
    ProsecutorRisk

    Notes
    -----
    The same formula serves both schemes. Under generalization the group is the equivalence class
    (records with the same published quasi-identifiers). Under bucketization the group is the
    bucket: 1/|bucket| is the chance of linking a person to their sensitive-table entry by picking
    one of the bucket's entries at random. Note that the QI table of a bucketized release
    publishes exact quasi-identifiers, so *membership* of a person with unique quasi-identifiers is
    certain; the group-level risk does not measure that, and the result says so in
    :attr:`ProsecutorRisk.statement`. :func:`anonlab.utility.reidentification.reidentification_risk`
    measures identity disclosure on the published classes (the exact values, for a bucketized
    release).

    References
    ----------
    K. El Emam and F. K. Dankar. Protecting privacy using k-anonymity. JAMIA 15(5), 2008.
    """
    if not isinstance(release, Release):
        raise AnonlabError(f"expected a Release, got {type(release).__name__}")
    threshold = check_float("threshold", threshold, low=0.0, high=1.0)
    sizes = release.group_sizes
    group_risk = 1.0 / sizes
    n = release.table.n_rows
    at_risk = int(sizes[group_risk > threshold].sum())
    return ProsecutorRisk(
        highest=float(group_risk.max()),
        average=float(release.n_groups / n),
        records_at_risk=float(at_risk / n),
        n_records_at_risk=at_risk,
        threshold=threshold,
        scheme=release.scheme,
        group_risk=group_risk,
        record_group=release.group,
        statement=BUCKET_LINK_STATEMENT if release.scheme == "bucketization" else "",
    )
