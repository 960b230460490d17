"""Re-running the publishing algorithm on candidate worlds: the smart world's likelihood.

Jin, Zhang, Das (ASAP, Information Systems 2011, Def. 4): smart Sam weighs a candidate ``T'`` by
``Pr[A(T') = T*]``. The algorithm is re-run by name (:func:`anonlab.anonymize.anonymize`'s
registry) on each candidate and its output compared with the release up to group labels
(:func:`release_signature`); a run that raises cannot have produced ``T*``. Whether the algorithm
is deterministic is measured (:func:`is_deterministic`), and the run budget is stated here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

#: Largest number of algorithm runs (candidate tables × seeds).
MAX_RUNS = 100_000
#: Largest number of seeds per candidate for randomized algorithms (default); runs stop
#: earlier, after a batch, once TARGET_ACCEPTED runs have reproduced the release.
DEFAULT_SEEDS = 1024
SEED_BATCH = 16
TARGET_ACCEPTED = 1000


def release_signature(release: Release) -> bytes:
    """What the adversary sees, up to group labels: the partition (groups numbered by their
    first record), each group's published sensitive counts, and the hierarchy levels."""
    group = np.asarray(release.group, dtype=np.int64)
    n_groups = release.n_groups
    first = np.full(n_groups, len(group), dtype=np.int64)
    np.minimum.at(first, group, np.arange(len(group)))
    relabel = np.empty(n_groups, dtype=np.int64)
    relabel[np.argsort(first, kind="stable")] = np.arange(n_groups)
    canon = relabel[group]
    hist = np.asarray(release.sensitive_histogram)[np.argsort(relabel)]
    levels = "" if release.levels is None else repr(sorted(release.levels.items()))
    return canon.tobytes() + b"|" + hist.astype(np.int64).tobytes() + b"|" + levels.encode()


def with_sensitive(table: Table, codes: np.ndarray) -> Table:
    """``table`` with its sensitive column replaced by ``codes`` (one code of the same domain per
    row): a candidate world as a table the algorithm can be re-run on. The schema, values, row
    ids and dropped counts are kept."""
    new = dict(table.codes)
    new[table.require_sensitive()] = codes.astype(np.int32)
    return Table(table.schema, new, table.values, table.row_id, table.dropped)


def run_algorithm(table: Table, algorithm: str, params: Mapping[str, Any], seed: int | None):
    """Signature of the algorithm's output on ``table``, or None if it raises AnonlabError.

    The registry function is called directly (``params`` were validated by
    :func:`anonlab.anonymize.anonymize` on the original table first).
    """
    from anonlab.anonymize import ALGORITHMS

    kw = dict(params)
    if seed is not None:
        kw["seed"] = seed
    try:
        return release_signature(ALGORITHMS[algorithm](table, **kw))
    except AnonlabError:
        return None


def _validate_params(table: Table, algorithm: str, params: Mapping[str, Any], seed) -> None:
    """Let the registry reject unknown parameters once, with its message."""
    from anonlab.anonymize import anonymize

    kw = dict(params)
    if seed is not None:
        kw["seed"] = seed
    anonymize(table, algorithm, **kw)


def algorithm_takes_seed(algorithm: str) -> bool:
    """Whether the registry's anonymizer ``algorithm`` (a name of
    :func:`anonlab.anonymize.available`) takes a ``seed`` parameter."""
    from anonlab.anonymize import parameters

    return "seed" in parameters(algorithm)


def is_deterministic(
    table: Table,
    algorithm: str,
    params: Mapping[str, Any],
    worlds: np.ndarray,
    seed: int = 0,
    probes: int = 8,
    *,
    include_table: bool = True,
) -> bool:
    """Measured: outputs agree across 4 seeds on ``table`` (unless ``include_table`` is False)
    and on up to ``probes`` worlds (``table`` with each world's sensitive codes), picked evenly.
    """
    if not algorithm_takes_seed(algorithm):
        return True
    tables = [table] if include_table else []
    if len(worlds):
        pick = np.linspace(0, len(worlds) - 1, min(probes, len(worlds))).astype(int)
        tables += [with_sensitive(table, worlds[i]) for i in pick]
    for t in tables:
        outs = {run_algorithm(t, algorithm, params, seed + s) for s in range(4)}
        if len(outs) > 1:
            return False
    return True


def run_worlds(
    tables: Sequence[Table],
    algorithm: str,
    params: Mapping[str, Any],
    seeds: Sequence[int | None],
    target: bytes,
) -> tuple[np.ndarray, int]:
    """Per candidate table, how many of ``seeds`` reproduce ``target``; and the failed runs.

    ``target`` is the release's :func:`release_signature`; a seed of None runs an algorithm that
    takes none. Returns ``(hits, failed)``: int64 hits per table, and the runs that raised.
    """
    hits = np.zeros(len(tables), dtype=np.int64)
    failed = 0
    for w, candidate in enumerate(tables):
        for s in seeds:
            sig = run_algorithm(candidate, algorithm, params, s)
            if sig is None:
                failed += 1
            elif sig == target:
                hits[w] += 1
    return hits, failed
