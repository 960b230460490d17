"""The anonymizers on a Dask cluster: cut on the driver, anonymize each part on a worker.

:func:`anonymize_distributed` is the distributed twin of :func:`anonlab.anonymize.anonymize`:

1. the driver partitions the table (:mod:`anonlab.distributed.partitioning`) — the first cuts
   of Mondrian/Mondrian+ for the Mondrian family, ℓ-eligible runs of an order (merged with a
   neighbour when a run is not eligible, and reported) for Anatomy and the Hilb family;
2. each part goes to a worker as one task (``client.submit(..., retries=2, pure=False)``), which
   runs the *single-machine* algorithm on it with its own seed; no data moves between workers
   (as in the Spark prototypes of distributed Mondrian);
3. the driver gathers each part's group ids, offsets them by the groups of the parts before it,
   and publishes one :class:`~anonlab.release.Release` of the whole table.

Why the model still holds: every part satisfies what the algorithm needs of its input (a node
of Mondrian's recursion; an ℓ-eligible set), the algorithm's output on a part satisfies the model
group by group, and no group spans two parts, so every group of the combined release is a group
of some part's release. For Mondrian and Mondrian+ the groups are moreover *identical* to the
single-machine run's (see :mod:`~anonlab.distributed.partitioning`).

Determinism: part ``p`` is anonymized with the seed
``SeedSequence(seed).spawn(n_parts)[p].generate_state(1, uint32)[0]``, the parts depend only on
the data, ``seed`` and ``max_partition_rows``, and results are combined in part order, so the
release is the same whatever the number of workers and the order in which tasks finish (a task
retried after its worker died recomputes the same part with the same seed).

Prototype limits (see docs/distributed.md for what a real cluster would do): the driver holds the
whole coded table, and each part is shipped inside its task (:meth:`Table.take` on the driver);
a cluster holding 10⁹ records would have workers read their Parquet row groups and the driver
compute the cuts from map-reduced histograms instead.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from anonlab._validation import check_choice, check_int, check_seed, rng_from_seed
from anonlab.anonymize.eligibility import require_l_eligible
from anonlab.anonymize.registry import FieldView
from anonlab.distributed.cluster import require_distributed, worker_count
from anonlab.distributed.partitioning import (
    Partitioning,
    merge_ineligible,
    mondrian_cuts,
    ordered_chunks,
)
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

#: Records per part when neither ``n_partitions`` nor ``max_partition_rows`` is given. At the
#: per-record costs measured in docs/distributed.md a part of this size takes ~0.1-1 s on one core,
#: long enough to hide the per-task overhead (milliseconds) and small enough to balance workers.
DEFAULT_MAX_PARTITION_ROWS = 250_000

#: Task retries on an exception (a worker that dies is rescheduled by the scheduler as well).
RETRIES = 2

#: Working memory of a part on a worker, in bytes per record beyond its coded columns: the
#: row ids (8), an int64 copy of the QI matrix (8 per QI), and the algorithms' index, group,
#: stack and sort arrays (about 96). Used only for the up-front out-of-memory check.
_WORK_BYTES_PER_ROW = 104
#: A part may use at most this share of a worker's memory limit.
_MEMORY_SHARE = 0.5

#: algorithm -> how the driver partitions for it: each anonymizer's record says
#: (:attr:`Anonymizer.partitioning <anonlab.anonymize.registry.Anonymizer.partitioning>`),
#: read live from the registry; one without a partitioning has no Dask backend.
PARTITIONING: Mapping[str, str] = FieldView("partitioning")

#: Counters in the per-part manifests that add up over parts.
_SUMMED = ("refused_splits", "residue_records", "greedy_groups", "fallback_groups")
_SUMMED_PICKUP = ("groups_in", "groups_split", "groups_out", "residue_records")
#: What :class:`Release` recomputes for the whole table (dropped from per-part manifests).
_RECOMPUTED = ("schema", "rows", "groups", "dropped", "perturbed_records", "scheme")


def available() -> list[str]:
    """The algorithms the Dask backend runs."""
    return sorted(PARTITIONING)


def partition_seeds(seed: int, n_parts: int) -> list[int]:
    """The seed of each part: ``SeedSequence(seed).spawn(n_parts)[p]``, as a uint32."""
    children = np.random.SeedSequence(check_seed(seed)).spawn(n_parts)
    return [int(c.generate_state(1, dtype=np.uint32)[0]) for c in children]


def anonymize_distributed(
    table: Table,
    algorithm: str,
    client: Client,
    *,
    n_partitions: int | None = None,
    max_partition_rows: int | None = None,
    seed: int = 0,
    **params: object,
) -> Release:
    """Anonymize ``table`` with ``algorithm`` on the Dask cluster behind ``client``.

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute.
    algorithm : str
        One of :func:`available` (the anonymizers whose record names a partitioning: the
        Mondrian and Hilb families and Anatomy).
    client : distributed.Client
        From :func:`anonlab.distributed.connect` (``--cluster ADDRESS`` / ``--workers N``).
    n_partitions : int, optional
        Aim for this many parts: ``max_partition_rows = ceil(n / n_partitions)``. The Mondrian
        family gets at least this many parts where allowable cuts exist (median cuts halve, so up
        to about twice as many); the others exactly this many before merges.
    max_partition_rows : int, optional
        Largest part (default :data:`DEFAULT_MAX_PARTITION_ROWS`); give at most one of the two.
        A Mondrian partition with no allowable cut stays whole (counted as ``oversized_parts``).
    seed : int
        Master seed: part ``p`` runs with :func:`partition_seeds`\\ ``(seed, P)[p]``; the release
        depends on ``seed`` and the parts, never on the workers.
    **params
        The algorithm's parameters (``k``, ``l``, ``sensitive_values``, ``scheme``, ...), as for
        :func:`anonlab.anonymize.anonymize`; ``None`` values are dropped.

    Returns
    -------
    Release
        Manifest: the algorithm's own fields (counters summed over parts), ``backend = "dask"``
        and ``distributed`` = workers, parts, their sizes and seeds, the driver's cuts and the
        merges of non-eligible runs.

    Raises
    ------
    AnonlabError
        Unknown algorithm or parameter, bad ``n_partitions``/``max_partition_rows``, or a part
        that would not fit a worker's memory (checked before any task is sent).
    IneligibleError
        When the whole table cannot satisfy the model (as on one machine).
    """
    release, _ = anonymize_distributed_timed(
        table,
        algorithm,
        client,
        n_partitions=n_partitions,
        max_partition_rows=max_partition_rows,
        seed=seed,
        **params,
    )
    return release


def anonymize_distributed_timed(
    table: Table,
    algorithm: str,
    client: Client,
    *,
    n_partitions: int | None = None,
    max_partition_rows: int | None = None,
    seed: int = 0,
    **params: object,
) -> tuple[Release, dict]:
    """:func:`anonymize_distributed` and its timings (kept out of the manifest, so that a
    release is byte-for-byte reproducible): ``driver_seconds`` (partitioning),
    ``cluster_seconds`` (submit to gather), ``partition_seconds`` (each part's algorithm on its
    worker), ``combine_seconds``."""
    from anonlab.anonymize import parameters as accepted_parameters

    algorithm = check_choice("algorithm", algorithm, available())
    seed = check_seed(seed)
    params = {k: v for k, v in params.items() if v is not None}
    accepted = [p for p in accepted_parameters(algorithm) if p != "seed"]
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise AnonlabError(
            f"algorithm {algorithm!r} does not take parameter(s) {unknown}; it takes {accepted}"
        )
    n = table.n_rows
    max_rows = _max_rows(n, n_partitions, max_partition_rows)
    if "scheme" in params:
        check_choice("scheme", params["scheme"], SCHEMES)
    if n == 0:
        raise AnonlabError("the table is empty: there is nothing to anonymize")

    t0 = time.perf_counter()
    partitioning = partition_for(table, algorithm, max_rows, seed, params)
    driver_seconds = time.perf_counter() - t0
    part_rows = partitioning.rows()
    sizes = [len(r) for r in part_rows]
    _check_memory(client, table, sizes, max_rows)
    seeds = partition_seeds(seed, partitioning.n_parts)

    distributed = require_distributed()
    import dask

    token = uuid.uuid4().hex[:12]
    t1 = time.perf_counter()
    # Each part travels inside its task, on purpose: the scheduler keeps the task, so a part
    # whose worker dies is recomputed elsewhere (scattered data would die with the worker).
    # Dask warns about task graphs over 10 MB; here that is the design, so the threshold is
    # raised above the largest part for these submissions only.
    largest_part = int(part_bytes(table, max(sizes)))
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": 4 * largest_part}):
        futures = [
            client.submit(
                anonymize_part,
                table.take(rows),
                algorithm,
                params,
                part_seed,
                key=f"anonlab-{algorithm}-part-{p}-{token}",
                retries=RETRIES,
                pure=False,
            )
            for p, (rows, part_seed) in enumerate(zip(part_rows, seeds, strict=True))
        ]
    try:
        results = client.gather(futures)
    finally:
        for f in futures:
            f.release()
    worker_seconds = time.perf_counter() - t1

    t2 = time.perf_counter()
    group = np.empty(n, dtype=np.int64)
    offset = 0
    for rows, (part_group, n_groups, _, _) in zip(part_rows, results, strict=True):
        group[rows] = part_group.astype(np.int64) + offset
        offset += n_groups
    manifest = combine_manifests(algorithm, [r[2] for r in results], partitioning, seed)
    manifest["distributed"] = {
        "dask_version": distributed.__version__,
        "workers": worker_count(client),
        "partitions": int(partitioning.n_parts),
        "max_partition_rows": int(max_rows),
        **partitioning.to_json(),
        "partition_rows": sizes,
        "partition_seeds": seeds,
        "seed_derivation": "numpy SeedSequence(seed).spawn(partitions)[p]"
        ".generate_state(1, uint32)[0]",
        "retries": RETRIES,
    }
    scheme = "bucketization" if algorithm == "anatomy" else params.get("scheme", "generalization")
    release = Release(table, group, str(scheme), manifest)
    timings = {
        "driver_seconds": driver_seconds,
        "cluster_seconds": worker_seconds,
        "partition_seconds": [float(r[3]) for r in results],
        "combine_seconds": time.perf_counter() - t2,
    }
    return release, timings


def anonymize_part(
    part: Table, algorithm: str, params: dict, seed: int
) -> tuple[np.ndarray, int, dict, float]:
    """On a worker: the single-machine algorithm on one part.

    Returns (group id of each of the part's records, number of groups, the part's manifest
    without what the whole release recomputes, seconds spent).
    """
    from anonlab.anonymize import anonymize

    t0 = time.perf_counter()
    release = anonymize(part, algorithm, seed=seed, **params)
    manifest = {k: v for k, v in release.manifest.items() if k not in _RECOMPUTED}
    return release.group, int(release.n_groups), manifest, time.perf_counter() - t0


def partition_for(
    table: Table, algorithm: str, max_partition_rows: int, seed: int, params: dict
) -> Partitioning:
    """The driver's parts for ``algorithm`` (validating the model on the whole table first)."""
    method = PARTITIONING[algorithm]
    sens = table.require_sensitive()
    codes = table.codes[sens]
    sensitive_values = params.get("sensitive_values")
    if sensitive_values is not None and isinstance(sensitive_values, str | bytes):
        raise AnonlabError(
            f"parameter 'sensitive_values' must be a list of values, got the string "
            f"{sensitive_values!r}; write [{sensitive_values!r}]"
        )
    constrained = table.value_mask(sens, sensitive_values)
    if method == "mondrian-cuts":
        return _mondrian_partitioning(table, algorithm, max_partition_rows, params, constrained)
    l = check_int("l", params.get("l"), minimum=1) if "l" in params else None
    if l is None:
        raise AnonlabError(f"{algorithm} needs l (ℓ-diversity), e.g. l=4")
    if params.get("as_one_value"):
        if sensitive_values is None:
            raise AnonlabError("as_one_value needs sensitive_values (the set to protect as one)")
        first = int(np.argmax(constrained))
        codes = np.where(constrained[codes], first, codes)
        constrained = np.zeros_like(constrained)
        constrained[first] = True
    require_l_eligible(table, l, constrained, codes)
    if table.n_rows < l:
        raise IneligibleError(
            f"the table has {table.n_rows} records, fewer than ℓ = {l}; the largest ℓ this "
            f"table allows is {table.n_rows}"
        )
    if method == "hilbert-runs":
        from anonlab.anonymize.hilb_plus import hilbert_keys

        keys, _ = hilbert_keys(table)
        order = np.argsort(keys, kind="stable")  # ties by row number, as Hilb orders them
    else:
        # Anatomy is QI-blind (algorithm-safe publishing, Jin et al. §2.8): so are its parts
        order = rng_from_seed(seed).permutation(table.n_rows)
    run = ordered_chunks(order, max_partition_rows)
    return merge_ineligible(run, codes, constrained, l, method)


def _mondrian_partitioning(
    table: Table, algorithm: str, max_rows: int, params: dict, constrained: np.ndarray
) -> Partitioning:
    look_ahead = algorithm != "mondrian"
    if look_ahead:
        if "l" not in params:
            raise AnonlabError(f"{algorithm} needs l (ℓ-diversity), e.g. l=4")
        k, l = 1, check_int("l", params["l"], minimum=1)
    else:
        if "k" not in params and "l" not in params:
            raise AnonlabError("Mondrian needs a privacy model: give k (k-anonymity) and/or l")
        k = check_int("k", params.get("k", 1), minimum=1)
        l = check_int("l", params.get("l", 1), minimum=1)
        if table.n_rows < k:
            raise IneligibleError(
                f"k = {k} is larger than the table ({table.n_rows} records); the largest k is "
                f"{table.n_rows}"
            )
    if not table.quasi_identifiers:
        raise AnonlabError(f"{algorithm} needs at least one quasi-identifier to cut on")
    if l > 1:
        require_l_eligible(table, l, constrained)
    width = np.array([table.domain_size(q) - 1 for q in table.quasi_identifiers], dtype=np.int64)
    return mondrian_cuts(
        table.qi_matrix(),
        table.codes[table.sensitive],
        constrained,
        width,
        k=k,
        l=l,
        look_ahead=look_ahead,
        max_partition_rows=max_rows,
    )


def _max_rows(n: int, n_partitions: int | None, max_partition_rows: int | None) -> int:
    if n_partitions is not None and max_partition_rows is not None:
        raise AnonlabError(
            "give at most one of n_partitions and max_partition_rows (n_partitions sets "
            "max_partition_rows = ceil(rows / n_partitions))"
        )
    if n_partitions is not None:
        parts = check_int("n_partitions", n_partitions, minimum=1)
        return max(1, math.ceil(n / parts))
    if max_partition_rows is not None:
        return check_int("max_partition_rows", max_partition_rows, minimum=1)
    return DEFAULT_MAX_PARTITION_ROWS


def part_bytes(table: Table, rows: int) -> int:
    """Estimated working memory of a part of ``rows`` records on a worker, in bytes."""
    columns = len(table.codes)
    return int(rows * (4 * columns + _WORK_BYTES_PER_ROW + 8 * len(table.quasi_identifiers)))


def _check_memory(client: Client, table: Table, sizes: Sequence[int], max_rows: int) -> None:
    """Refuse, before sending anything, a part that would not fit the smallest worker."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    limits = [w.get("memory_limit") or 0 for w in workers.values()]
    limits = [x for x in limits if x > 0]
    if not limits or not sizes:
        return
    limit = min(limits)
    largest = max(sizes)
    need = part_bytes(table, largest)
    if need > _MEMORY_SHARE * limit:
        fit = int(_MEMORY_SHARE * limit / max(part_bytes(table, 1), 1))
        raise AnonlabError(
            f"a part of {largest:,} records needs about {need / 2**30:.2f} GiB on a worker, more "
            f"than {_MEMORY_SHARE:.0%} of the smallest worker's memory limit "
            f"({limit / 2**30:.2f} GiB); give max_partition_rows <= {fit:,} (now {max_rows:,}) "
            "or workers with more memory"
        )


def combine_manifests(
    algorithm: str, manifests: list[dict], partitioning: Partitioning, seed: int
) -> dict:
    """One manifest for the whole release: the first part's fields, counters summed."""
    manifest = dict(manifests[0])
    manifest["algorithm"] = algorithm
    manifest["seed"] = seed
    for key in _SUMMED:
        if key in manifest:
            manifest[key] = int(sum(m[key] for m in manifests))
    if "refused_splits" in manifest:  # the driver's refused trials above the parts
        manifest["refused_splits"] += int(partitioning.refused_splits)
    if "remainder_groups" in manifest:
        manifest["remainder_groups"] = int(sum(m["remainder_groups"] for m in manifests))
    if "remainder_group_size" in manifest:  # Hilb+ (paper): one last group per part
        manifest["remainder_group_size"] = [int(m["remainder_group_size"]) for m in manifests]
    if "pickup" in manifest:
        pickup = dict(manifest["pickup"])
        for key in _SUMMED_PICKUP:
            pickup[key] = int(sum(m["pickup"][key] for m in manifests))
        manifest["pickup"] = pickup
    manifest["backend"] = "dask"
    return manifest
