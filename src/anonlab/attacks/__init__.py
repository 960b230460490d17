"""Attacks on releases: what an adversary can infer from what is published."""

from anonlab.attacks.definetti import (
    DeFinettiResult,
    choose_targets,
    definetti_attack,
    exact_posterior,
    predictive_posterior,
    random_worlds_posterior,
    score_posterior,
)
from anonlab.attacks.foreground import (
    SMALL_SIGNATURE,
    ConvergenceReport,
    ForegroundResult,
    GlobalDistribution,
    breach_probabilities,
    foreground_attack,
    frequent_attribute_sets,
    hoeffding_support,
    mine_global_distribution,
)
from anonlab.attacks.worst_case import (
    DisclosureResult,
    Statement,
    disclosure_by_group,
    disclosure_curve,
    maximum_disclosure,
)

__all__ = [
    "DeFinettiResult",
    "choose_targets",
    "definetti_attack",
    "exact_posterior",
    "predictive_posterior",
    "random_worlds_posterior",
    "score_posterior",
    "SMALL_SIGNATURE",
    "ConvergenceReport",
    "DisclosureResult",
    "ForegroundResult",
    "GlobalDistribution",
    "breach_probabilities",
    "foreground_attack",
    "frequent_attribute_sets",
    "hoeffding_support",
    "mine_global_distribution",
    "Statement",
    "disclosure_by_group",
    "disclosure_curve",
    "maximum_disclosure",
]
