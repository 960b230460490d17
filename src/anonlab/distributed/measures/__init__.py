"""Privacy checks, the COUNT-query workload, foreground mining, rule mining and the deFinetti
statistics as map-reduce over row partitions (issue 10, §2), identical to the single-machine path.

Each measure is split where its data pass is: a *map* over contiguous row blocks
(:mod:`anonlab.distributed.mapreduce`) computes the same integer count arrays the single-machine
code computes, keyed by *global* ids (group id, signature key, itemset cell) so that the blocks'
arrays add up exactly; the driver then hands the reduced counts to the existing single-machine
finishing code. What is distributed, per measure:

* **privacy checks** (:func:`check_distributed`, :func:`default_checks_distributed`): group sizes
  and the published per-group sensitive histogram (``bincount(group * n_values + s)`` per block,
  summed; a block sends only its non-zero cells when the groups are many). Every registered
  model but matching ℓ-diversity reads only these (and the schema); the checks then run
  unchanged on the release with the reduced statistics in place.
* **COUNT-query workload** (:func:`workload_error_distributed`): the actual answers of each batch
  of drawn queries (integers, summed; the draws themselves are made on the driver from the one
  seeded generator, so the workload is the same), the histogram, and the published generalized
  values (per group the smallest and largest code of each quasi-identifier, reduced by min/max,
  plus per-group value presence for categorical attributes without a hierarchy). Under
  bucketization the estimate is a sum over records, so each block returns its partial estimate
  (floats: equal to the single-machine value up to rounding, checked to 1e-12 relative).
* **foreground attack** (:func:`mine_global_distribution_distributed`,
  :func:`foreground_attack_distributed`): the counts of (group, signature) pairs of each attribute
  set, and, level by level, the signature counts over the records whose every sub-signature is
  sufficient (Algorithm 1's Apriori step). The fixed point of Eqs. (4)-(6) depends on the data
  only through these counts: the driver solves it on one representative record per counted
  member (same group sizes, same signatures per group, same order inside each group, hence the
  same floating-point operations) and a second map spreads the solved probabilities back to the
  records (``p*``, the maximising set and target, the baseline), each block receiving those of
  its own (group, signature) pairs only.
* **rule mining** (:func:`frequent_itemsets_distributed`, :func:`mine_rules_distributed`): per
  level of Apriori, each block counts the cells of every candidate signature, with the sensitive
  value, over its records that lie in a frequent cell of every sub-signature (the frequent cells
  of the previous levels are broadcast); the driver keeps the frequent cells and runs the
  negative-rule or association-rule finishing of :mod:`anonlab.mining`.
* **deFinetti statistics** (:func:`definetti_statistics_distributed`): the count cells
  ``n_{x,s}`` of the sampler (Kifer, §3.5: the collapsed posterior is
  ``Π Γ(n_{x,s} + prior)``) for an assignment of sensitive values (default: the published
  ones), the ST (per-group histogram) and the collapsed log posterior. The Gibbs sweeps
  themselves are sequential in the groups and are not distributed.

One module per measure: :mod:`.checks` (group statistics and the privacy checks),
:mod:`.workload` (the COUNT-query workload and utility measures), :mod:`.foreground`,
:mod:`.rules`, :mod:`.definetti`; with :mod:`.partitions` (the row blocks) and :mod:`.keys` (the
mixed-radix keys) shared by them.

Choices where the issue is silent: the driver keeps the release (it has loaded it); only the row
passes run on the workers. Signature and cell keys are mixed-radix int64 codes; an attribute set
whose key space (times the number of groups) exceeds 2^62 raises an error naming the attributes.
Matching ℓ-diversity (per-record incompatibilities, group-local matchings) is not distributed.
"""

from __future__ import annotations

from anonlab.distributed.measures.checks import (
    GroupStatistics,
    check_distributed,
    default_checks_distributed,
    group_statistics_distributed,
    release_with_statistics,
)
from anonlab.distributed.measures.definetti import (
    DeFinettiStatistics,
    definetti_statistics,
    definetti_statistics_distributed,
)
from anonlab.distributed.measures.foreground import (
    foreground_attack_distributed,
    frequent_attribute_sets_distributed,
    mine_global_distribution_distributed,
)
from anonlab.distributed.measures.partitions import Partitions as Partitions
from anonlab.distributed.measures.partitions import partition_release, partition_table
from anonlab.distributed.measures.rules import frequent_itemsets_distributed, mine_rules_distributed
from anonlab.distributed.measures.workload import (
    default_measures_distributed,
    estimated_counts_distributed,
    generate_workload_distributed,
    workload_error_distributed,
)

__all__ = [
    "DeFinettiStatistics",
    "GroupStatistics",
    "check_distributed",
    "default_checks_distributed",
    "default_measures_distributed",
    "estimated_counts_distributed",
    "definetti_statistics",
    "definetti_statistics_distributed",
    "foreground_attack_distributed",
    "frequent_attribute_sets_distributed",
    "frequent_itemsets_distributed",
    "generate_workload_distributed",
    "group_statistics_distributed",
    "mine_global_distribution_distributed",
    "mine_rules_distributed",
    "partition_release",
    "partition_table",
    "release_with_statistics",
    "workload_error_distributed",
]
