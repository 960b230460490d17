"""The whole check: publish (or take a release), state the knowledge, verify, infer, score.

:func:`asap_check` publishes a tiny table with a registry algorithm and checks the release;
:func:`check_release` checks an existing one: :func:`~.knowledge.asap_knowledge` (publisher),
:func:`check_reproduces` (publisher: the stated algorithm made the release),
:func:`~.inference.asap_inference` on the adversary's copy, and :meth:`AsapResult.score` (truth).
Jin, Zhang, Das (ASAP, Information Systems 2011, Defs. 3-5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from anonlab._validation import check_seed, takes_release, takes_table
from anonlab.attacks.asap_checker.inference import asap_inference, check_naive
from anonlab.attacks.asap_checker.knowledge import AsapKnowledge, asap_knowledge
from anonlab.attacks.asap_checker.result import AsapResult
from anonlab.attacks.asap_checker.runs import (
    algorithm_takes_seed,
    is_deterministic,
    release_signature,
    run_algorithm,
)
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table


@takes_table
def asap_check(
    table: Table,
    algorithm: str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    **options: Any,
) -> AsapResult:
    """Publish ``table`` with ``algorithm`` and check the release for ASAP by enumeration
    (:func:`check_release`, which takes the keyword ``options``).

    Parameters
    ----------
    table : Table
        At most :data:`MAX_RECORDS` records, with a sensitive attribute.
    algorithm : str
        A name of the anonymizer registry (``anonlab.anonymize.available()``).
    params : mapping
        The algorithm's parameters (``l``, ``k``, ``m``, ``sensitive_values`` ...), seed aside.
    seed : int
        Seed of the release (stored; the smart world uses other seeds, see the module docstring).
    knowledge : {"multiset", "domain"}
        What the adversary knows of the original sensitive values beyond the release.
    naive : {"minimal-change", "face-value", "free"}
        For an algorithm that perturbs sensitive values: naive Nash believes the published
        values except the fewest his knowledge contradicts (``"minimal-change"``, default; Jin
        et al. §2, Example 2), takes them at face value (``"face-value"``, Eq. 1), or knows only
        ``knowledge`` (``"free"``, Def. 3 literally). See the module docstring.
    negative_facts : sequence of (record, value)
        "Record does not hold value" (record = row index, 0-based).
    constraints : callable, optional
        Further knowledge: ``f(worlds) -> bool mask`` over a ``(n_worlds, n_rows)`` code array.
    n_seeds : int, optional
        Seeds per candidate for a randomized algorithm (default :data:`DEFAULT_SEEDS`).
    known_seed : bool
        The adversary knows the release's seed: every algorithm is run once per candidate with
        it (deterministic check).
    tolerance : float, optional
        A posterior rise above this counts (default: 1e-9, or for randomized algorithms
        ``max(0.02, 2/sqrt(accepted runs))``).
    max_runs : int
        Refuse above this many algorithm runs (default :data:`MAX_RUNS`).

    Returns
    -------
    AsapResult
    """
    from anonlab.anonymize import anonymize

    params = {k: v for k, v in dict(params or {}).items() if v is not None}
    if "seed" in params:
        raise AnonlabError("give the seed as asap_check(..., seed=S), not among params")
    seed = check_seed(seed)
    kw = dict(params)
    if algorithm_takes_seed(algorithm):
        kw["seed"] = seed
    release = anonymize(table, algorithm, **kw)
    return check_release(release, algorithm, params, seed=seed, **options)


@takes_release
def check_release(
    release: Release,
    algorithm: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    knowledge: str = "multiset",
    naive: str = "minimal-change",
    negative_facts: Sequence[tuple[int, str]] = (),
    known_seed: bool = False,
    **options: Any,
) -> AsapResult:
    """Check an existing release for ASAP (see :func:`asap_check`), scored. The other
    ``options`` are :func:`asap_inference`'s (``constraints``, ``n_seeds``, ``tolerance``,
    ``max_runs``).

    ``algorithm``, ``params`` and ``seed`` default to the release's manifest (parameters the
    algorithm does not take are dropped); re-running them on the original table must reproduce
    the release, otherwise the error says so. The steps: :func:`asap_knowledge` (publisher),
    that check (publisher), :func:`asap_inference` on :meth:`release.adversary_copy()
    <anonlab.release.Release.adversary_copy>` (adversary), :meth:`AsapResult.score` (truth).
    """
    stated = asap_knowledge(
        release,
        algorithm,
        params,
        seed=seed,
        knowledge=knowledge,
        negative_facts=negative_facts,
    )
    check_naive(naive)  # before re-running the algorithm
    check_reproduces(release, stated, known_seed=known_seed)
    view = release.adversary_copy()
    result = asap_inference(view, stated, naive=naive, known_seed=known_seed, **options)
    return result.score(release)


def check_reproduces(release: Release, stated: AsapKnowledge, *, known_seed: bool = False) -> None:
    """The publisher's check that the stated algorithm made the release: re-running it on the
    original table (the release's seed) must reproduce it. A randomized algorithm (measured on
    the original table with four seeds) that does not is let through, as the checker weighs
    other seeds anyway; ``known_seed`` makes every algorithm one run with the seed."""
    table = release.table
    algorithm, params, seed = stated.algorithm, stated.params, stated.seed
    takes_seed = algorithm_takes_seed(algorithm)
    made = run_algorithm(table, algorithm, params, seed if takes_seed else None)
    if made == release_signature(release):
        return
    empty = np.zeros((0, table.n_rows), dtype=np.int64)
    if known_seed or is_deterministic(table, algorithm, params, empty, seed):
        raise AnonlabError(
            f"re-running {algorithm} with parameters {params} and seed {seed} does not "
            "reproduce the release; give the parameters it was made with"
        )
