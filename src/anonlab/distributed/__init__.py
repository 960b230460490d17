"""The Dask backend (extra ``anonlab[distributed]``): the same anonymizers, run per partition.

The driver cuts the table into partitions that each fit a worker (:mod:`.partitioning`), ships
them to workers, runs the single-machine algorithm on each with a seed derived from (seed,
partition index), and combines the group ids (:mod:`.anonymize`). Importing this package does
not import dask; :func:`connect` does, and names the extra when it is missing (:mod:`.cluster`).
Measures as map-reduce over partitions live in :mod:`.measures`. Design, proofs, benchmark and
the plan for 10⁹ records: docs/distributed.md.
"""

from __future__ import annotations

from anonlab.distributed.anonymize import anonymize_distributed, anonymize_distributed_timed
from anonlab.distributed.cluster import connect

__all__ = ["anonymize_distributed", "anonymize_distributed_timed", "connect"]
