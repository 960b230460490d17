"""COUNT-query workload error: how well a release answers aggregate queries.

The measure of Xiao & Tao (Anatomy, VLDB 2006, §6), reused by Li & Li (Injector, ICDE 2008,
§VI.D) and Jin et al. (ASAP, §8). A query is

.. code-block:: sql

    SELECT COUNT(*) FROM T
    WHERE pred(A_1) AND ... AND pred(A_qd) AND pred(S)

over ``qd`` quasi-identifiers chosen at random and the sensitive attribute ``S``. Its *actual*
answer ``act`` is counted on the original table; its *estimate* ``est`` is reconstructed from the
release. The error of the workload is the mean of ``|act - est| / act``.

The query generator (exactly; see :func:`generate_workload` and docs/utility.md):

* the ``qd`` quasi-identifiers of a query are a uniform random ``qd``-subset of the table's
  quasi-identifiers, drawn independently for every query;
* every predicate, the sensitive one included, selects ``b = ceil(|A| * s ** (1 / (qd + 1)))``
  values of its attribute ``A`` (``|A|`` = number of distinct values of ``A`` in the table,
  ``s`` = the expected selectivity), so that the ``qd + 1`` predicates together keep about a share
  ``s`` of a uniform table;
* numeric attribute: a contiguous run of ``b`` codes (the ``b`` consecutive distinct values
  starting at a uniform random position ``0 .. |A| - b``);
  categorical attribute: a uniform random subset of ``b`` distinct values;
* a query whose actual answer is 0 is redrawn (its relative error is undefined), up to a cap;
  the number of redrawn queries is reported.

Estimation (the uniformity assumption of the papers):

* generalization: records are spread uniformly over the domain values their group's published
  value covers, and attributes are independent inside a group::

      est = sum_g sum_{v in pred(S)} hist[g, v] * prod_i covered_i(g) / cover_size_i(g)

* bucketization (Anatomy): the QI table is exact and the sensitive table gives the group's
  counts; within a group, QI and sensitive values are independent::

      est = sum_g #{r in g : r's exact QI satisfy every QI predicate}
                  * sum_{v in pred(S)} hist[g, v] / |g|

``hist`` holds the *published* sensitive values: a release with perturbed sensitive values (MASK)
is estimated from what it publishes, while ``act`` counts the original values.

Evaluation is batched: queries that use the same quasi-identifiers share one compression of the
table to its distinct value combinations, and each batch is a few array products; no Python loop
runs over records (nor, for generalization, over groups).

The bucketization sum above runs over records; a record enters it only through its exact
quasi-identifier row and its group's shares ``hist[g, v] / |g|``, so the records on one row are
merged first (their shares summed) and the sum runs over the distinct rows with those weights,
as in the map-reduce estimate. The estimates therefore equal Xiao & Tao's §6 sum taken record by
record up to floating-point rounding, not bit for bit: about 1e-15 relative to the exact value,
where the record-by-record float sum itself drifted by up to about 1e-12 at a million records
(a one-off measurement: :func:`~anonlab.utility.workload.answers.estimated_counts`).
"""

from __future__ import annotations

from anonlab.utility.workload.answers import (
    actual_counts,
    check_workload_matches,
    estimated_counts,
    qi_sums,
)
from anonlab.utility.workload.error import (
    WorkloadError,
    workload_error,
    workload_error_from_counts,
)
from anonlab.utility.workload.generation import (
    Workload,
    generate_workload,
    predicate_size,
)

__all__ = [
    "Workload",
    "WorkloadError",
    "actual_counts",
    "check_workload_matches",
    "estimated_counts",
    "generate_workload",
    "predicate_size",
    "qi_sums",
    "workload_error",
    "workload_error_from_counts",
]
