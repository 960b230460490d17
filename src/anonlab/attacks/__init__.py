"""Attacks on releases: what an adversary can infer from what is published."""

from anonlab.attacks.worst_case import (
    DisclosureResult,
    Statement,
    disclosure_by_group,
    disclosure_curve,
    maximum_disclosure,
)

__all__ = [
    "DisclosureResult",
    "Statement",
    "disclosure_by_group",
    "disclosure_curve",
    "maximum_disclosure",
]
