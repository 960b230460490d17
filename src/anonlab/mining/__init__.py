"""Knowledge mined from a table: association rules over quasi-identifier conditions.

* :mod:`anonlab.mining.itemsets`: generalized items (hierarchy nodes) and Apriori with
  per-sensitive-value counts, the shared engine;
* :mod:`anonlab.mining.negative_rules`: negative rules ``X ⇒ ¬s`` of confidence 1 with the
  expectation measure (Li & Li, "Injector", ICDE 2008, §IV), the adversary's background knowledge;
* :mod:`anonlab.mining.association_rules`: positive rules ``X ⇒ s`` with conviction (§VI-C), for
  the rule-mining utility metrics.

docs/rules.md describes the mining, the rule file and the choices made where the paper is silent.
"""

from anonlab.mining.association_rules import (
    AssociationRule,
    AssociationRuleSet,
    mine_association_rules,
)
from anonlab.mining.itemsets import Condition, FrequentItemsets, ItemCatalog, frequent_itemsets
from anonlab.mining.negative_rules import (
    NegativeRule,
    NegativeRuleSet,
    count_threshold,
    expectation,
    incompatibility_distribution,
    mine_negative_rules,
)

__all__ = [
    "AssociationRule",
    "AssociationRuleSet",
    "Condition",
    "FrequentItemsets",
    "ItemCatalog",
    "NegativeRule",
    "NegativeRuleSet",
    "count_threshold",
    "expectation",
    "frequent_itemsets",
    "incompatibility_distribution",
    "mine_association_rules",
    "mine_negative_rules",
]
