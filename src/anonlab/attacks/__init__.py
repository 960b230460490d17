"""Attacks on releases: what an adversary can infer from what is published.

Importing this package registers the built-in attacks (:mod:`anonlab.attacks.contract`): each
module ends with ``ATTACK = register(Attack(...))``.
"""

from anonlab.attacks import contract
from anonlab.attacks.algorithm_disclosure import (
    applicable_attacks,
    minimal_change_naive,
    run_algorithm_attacks,
)
from anonlab.attacks.asap_checker import AsapResult, asap_check
from anonlab.attacks.asap_checker import check_release as asap_check_release
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
from anonlab.attacks.foreground import attack as _foreground_record  # noqa: F401 (registers)
from anonlab.attacks.hilb_algorithm7 import Algorithm7Result, hilb_algorithm7
from anonlab.attacks.mask_phd25 import PhD25Result, phd25_attack
from anonlab.attacks.minimality import (
    MinimalityResult,
    holder_worlds,
    minimal_suppression,
    minimality_attack,
)
from anonlab.attacks.negative_rules import NegativeRuleAttackResult, negative_rule_attack
from anonlab.attacks.worst_case import (
    DisclosureResult,
    Statement,
    disclosure_by_group,
    disclosure_by_group_curve,
    disclosure_curve,
    maximum_disclosure,
)

__all__ = [
    "contract",
    "Algorithm7Result",
    "AsapResult",
    "MinimalityResult",
    "NegativeRuleAttackResult",
    "PhD25Result",
    "applicable_attacks",
    "asap_check",
    "asap_check_release",
    "hilb_algorithm7",
    "holder_worlds",
    "minimal_change_naive",
    "minimal_suppression",
    "minimality_attack",
    "negative_rule_attack",
    "phd25_attack",
    "run_algorithm_attacks",
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
    "disclosure_by_group_curve",
    "disclosure_curve",
    "maximum_disclosure",
]
