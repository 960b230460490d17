"""Privacy checks, the COUNT-query workload, foreground mining, rule mining and the deFinetti
statistics as map-reduce over row partitions (issue 10, §2), identical to the single-machine path.

Each measure is split where its data pass is: a *map* over contiguous row blocks
(:mod:`anonlab.distributed.mapreduce`) computes the same integer count arrays the single-machine
code computes, keyed by *global* ids (group id, row key, itemset cell) so that the blocks'
arrays add up exactly; the workers add them up (a tree of reduce tasks) and the driver hands the
one reduced result to the existing single-machine finishing code. What is distributed, per
measure:

* **privacy checks** (:func:`check_distributed`, :func:`default_checks_distributed`): group sizes
  and the published per-group sensitive histogram (``bincount(group * n_values + s)`` per block,
  summed on the workers and narrowed to the smallest unsigned type before it travels; a block
  counts only its non-zero cells when the groups are many). Every registered model but matching
  ℓ-diversity reads only these (and the schema); the checks then run unchanged on the release
  with the reduced statistics in place.
* **COUNT-query workload** (:func:`workload_error_distributed`): every query and every
  bucketization estimate reads a record only through its quasi-identifier row, so the blocks
  are compacted on the workers to their distinct rows with per-row sensitive counts (and summed
  group shares) and merged there into the table's distinct rows (:mod:`.compact`; 16,935 rows
  for 1,000,000 resampled census records), which stay on a worker. The actual answers of each
  batch of drawn queries are evaluated on them by one task per worker (integers; the draws
  themselves are made on the driver from the one seeded generator, so the workload is the
  same), and so is the bucketization estimate (floats: equal to the single-machine value up to
  rounding, checked to 1e-12 relative). The generalization estimate reads the histogram and the
  published generalized values (per group the smallest and largest code of each
  quasi-identifier, reduced by min/max, plus per-group value presence for categorical
  attributes without a hierarchy), and is identical.
* **foreground attack** (:func:`mine_global_distribution_distributed`,
  :func:`foreground_attack_distributed`): everything Algorithm 1 derives from the
  quasi-identifiers depends on a record only through its distinct row, as the single machine
  exploits (``RowIndex``); the workers do the one pass over the records, the sort that finds
  the rows (each block's distinct row keys with counts and each record's row, one or two bytes
  a record), and the group statistics. The driver merges the rows into the single machine's
  ``RowIndex`` and runs its code on it: Apriori over the distinct rows, the signatures, the
  fixed point of Eqs. (4)-(6) per (attribute set, target) on threads, ``p*``. Bit-identical.
* **rule mining** (:func:`frequent_itemsets_distributed`, :func:`mine_rules_distributed`): the
  blocks compacted and merged as for the workload; per level of Apriori the candidate
  signatures are cut into one run per worker, each task counting its candidates' cells, with
  the sensitive value, over the distinct rows in a frequent cell of every sub-signature (the
  frequent cells of the previous levels travel with the tasks), weighted by the rows' counts;
  the driver keeps the frequent cells and runs the negative-rule or association-rule finishing
  of :mod:`anonlab.mining`.
* **deFinetti statistics** (:func:`definetti_statistics_distributed`): the count cells
  ``n_{x,s}`` of the sampler (Kifer, §3.5: the collapsed posterior is
  ``Π Γ(n_{x,s} + prior)``) for an assignment of sensitive values (default: the published
  ones), the ST (per-group histogram) and the collapsed log posterior. The Gibbs sweeps
  themselves are sequential in the groups and are not distributed.

One module per measure: :mod:`.checks` (group statistics and the privacy checks),
:mod:`.workload` (the COUNT-query workload and utility measures), :mod:`.foreground`,
:mod:`.rules`, :mod:`.definetti`; with :mod:`.partitions` (the row blocks), :mod:`.compact`
(a block's distinct quasi-identifier rows) and :mod:`.keys` (the mixed-radix keys) shared by
them.

Choices where the issue is silent: the driver keeps the release (it has loaded it); the passes
over the records run on the workers. Signature and cell keys are mixed-radix int64 codes; an
itemset signature or deFinetti joint cell whose key space exceeds 2^62 raises an error naming
it, while a row of quasi-identifiers is keyed by several int64 codes when one would overflow.
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
    published_generalization,
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
    "published_generalization",
    "release_with_statistics",
    "workload_error_distributed",
]
