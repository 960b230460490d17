"""The adversary's inference: :func:`asap_inference`, from the published view and the
stated knowledge only.

Jin, Zhang, Das (ASAP, Information Systems 2011, Defs. 3-5): enumerate the candidate worlds
(:mod:`.worlds`), restrict them by the stated knowledge, re-run the algorithm on each
(:mod:`.runs`: seeds, batches, determinism measured on the candidates and the adversary's copy)
and weigh the naive and smart worlds (:mod:`.posteriors`). The choices are in
:mod:`anonlab.attacks.asap_checker`'s docstring.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from anonlab._validation import check_int, takes_release
from anonlab.attacks.asap_checker.knowledge import MAX_RECORDS, AsapKnowledge
from anonlab.attacks.asap_checker.posteriors import (
    minimal_change_fact_posteriors,
    minimal_change_weights,
    world_posteriors,
)
from anonlab.attacks.asap_checker.result import AsapResult
from anonlab.attacks.asap_checker.runs import (
    DEFAULT_SEEDS,
    MAX_RUNS,
    SEED_BATCH,
    TARGET_ACCEPTED,
    algorithm_takes_seed,
    is_deterministic,
    release_signature,
    run_worlds,
    with_sensitive,
)
from anonlab.attacks.asap_checker.worlds import candidate_worlds, count_worlds
from anonlab.errors import AnonlabError
from anonlab.release import Release

#: Naive readings for an algorithm that perturbs sensitive values (see the module docstring);
#: the first is the default.
NAIVE = ("minimal-change", "face-value", "free")


def check_naive(naive: str) -> None:
    """Raise unless ``naive`` is one of :data:`NAIVE`."""
    if naive not in NAIVE:
        raise AnonlabError(f"parameter 'naive' must be one of {list(NAIVE)}, got {naive!r}")


@takes_release
def asap_inference(
    view: Release,
    stated: AsapKnowledge,
    *,
    naive: str = "minimal-change",
    constraints: Callable[[np.ndarray], np.ndarray] | None = None,
    n_seeds: int | None = None,
    known_seed: bool = False,
    tolerance: float | None = None,
    max_runs: int = MAX_RUNS,
) -> AsapResult:
    """The naive and smart posteriors of every record, from the published view and the stated
    knowledge only (Jin et al. Defs. 3-5; see the module docstring). Unscored: the truth enters
    through :meth:`AsapResult.score`.

    Parameters
    ----------
    view : Release
        The release as the adversary sees it: its groups, published sensitive values,
        quasi-identifiers and levels are read. Its own sensitive column is never read: the
        tables re-run are its adversary's copy (:meth:`~anonlab.release.Release.adversary_copy`,
        what the published files show; one more table to measure determinism on) with each
        candidate's codes, so handing the publisher's release gives the same result.
    stated : AsapKnowledge
        The publisher's statement (:func:`asap_knowledge`).
    naive, constraints, n_seeds, known_seed, tolerance, max_runs
        As in :func:`asap_check`.
    """
    check_naive(naive)
    table = view.adversary_copy().table  # the published values: never the original ones
    algorithm, params, seed = stated.algorithm, dict(stated.params), stated.seed
    knowledge = stated.knowledge
    takes_seed = algorithm_takes_seed(algorithm)
    perturbs = view.published_sensitive is not None
    if perturbs and knowledge == "multiset" and stated.multiset is None:
        raise AnonlabError("knowledge='multiset' needs the stated multiset (asap_knowledge)")
    total = count_worlds(view, knowledge, multiset=stated.multiset)
    if total > max_runs:
        raise AnonlabError(
            f"the smart world has {total:,} candidate tables, more than the {max_runs:,} runs "
            f"the checker allows; use a smaller table (at most {MAX_RECORDS} records, few "
            f"distinct values)" + (" or knowledge='multiset'" if knowledge == "domain" else "")
        )
    values = [str(v) for v in table.values[view.sensitive]]
    facts = list(stated.facts)

    def restrict(candidates: np.ndarray, what: str) -> np.ndarray:
        keep = np.ones(len(candidates), dtype=bool)
        for record, code in facts:
            keep &= candidates[:, record] != code
        if constraints is not None:
            mask = np.asarray(constraints(candidates), dtype=bool)
            if mask.shape != (len(candidates),):
                raise AnonlabError(
                    f"constraints must return one bool per world ({len(candidates)}), got "
                    f"{mask.shape}"
                )
            keep &= mask
        if not keep.any():
            hint = (
                "; the published values contradict it read at face value: use "
                "naive='minimal-change' (the default) or naive='free'"
                if what == "naive world"
                else ""
            )
            raise AnonlabError(
                f"no candidate table of the {what} satisfies the stated knowledge{hint}"
            )
        return candidates[keep]

    worlds = restrict(candidate_worlds(view, knowledge, multiset=stated.multiset), "smart world")
    naive_weight = None
    naive_fact = None
    if perturbs and naive == "face-value":
        naive_set = restrict(candidate_worlds(view, knowledge, face_value=True), "naive world")
    elif perturbs and naive == "minimal-change":
        changes, log_weight = minimal_change_weights(view, worlds)
        fewest = changes == changes.min()
        naive_set = worlds[fewest]
        naive_weight = np.exp(log_weight[fewest] - log_weight[fewest].max())
        naive_fact = minimal_change_fact_posteriors(worlds, changes, log_weight, len(values))
    else:
        naive_set = worlds

    target = release_signature(view)
    tables = [with_sensitive(table, codes) for codes in worlds]
    # Determinism is measured, never read off the original table: on the copy and 8 candidate
    # worlds, then, for an algorithm that takes a seed and looked deterministic so far, on up to
    # 8 of the worlds that the stated seed maps to the release (the original is one of them:
    # where MASK had to perturb, the copy and most candidates need no perturbing at all).
    first: tuple[np.ndarray, int] | None = None
    deterministic = known_seed or is_deterministic(table, algorithm, params, worlds, seed)
    if deterministic and takes_seed and not known_seed:
        first = run_worlds(tables, algorithm, params, [seed], target)
        reproducing = worlds[first[0] > 0]
        deterministic = is_deterministic(
            table, algorithm, params, reproducing, seed, include_table=False
        )
    if deterministic:
        seeds = [seed] if takes_seed else [None]
    else:
        s = DEFAULT_SEEDS if n_seeds is None else check_int("n_seeds", n_seeds, minimum=1)
        seeds = [seed + 1 + i for i in range(s)]
    adaptive = n_seeds is None and not deterministic
    if adaptive:  # as many seeds as the budget allows; stops early at TARGET_ACCEPTED
        seeds = seeds[: max(SEED_BATCH, max_runs // max(len(worlds), 1))]
    runs = len(worlds) * (min(len(seeds), SEED_BATCH) if adaptive else len(seeds))
    if runs > max_runs:
        raise AnonlabError(
            f"{len(worlds):,} candidate tables × {len(seeds)} seeds = {runs:,} runs, more than "
            f"the {max_runs:,} the checker allows; lower n_seeds or use a smaller table"
        )

    if deterministic and first is not None:  # the pass with the stated seed is the whole run
        hits, failed = first
        used: list[int | None] = list(seeds)
    else:
        hits = np.zeros(len(worlds), dtype=np.int64)
        failed = 0
        used = []
    while len(used) < len(seeds):
        batch = seeds[len(used) : len(used) + (len(seeds) if deterministic else SEED_BATCH)]
        batch_hits, batch_failed = run_worlds(tables, algorithm, params, batch, target)
        hits += batch_hits
        failed += batch_failed
        used += batch
        if adaptive and hits.sum() >= TARGET_ACCEPTED:
            break
    seeds = used
    accepted = int(hits.sum())
    if accepted == 0:
        raise AnonlabError(
            f"no candidate table reproduced the release in {len(worlds) * len(seeds):,} runs"
            + ("" if deterministic else "; raise n_seeds")
        )
    naive_post, smart, fact_rise = world_posteriors(
        naive_set, worlds, hits, len(values), naive_weight=naive_weight, naive_fact=naive_fact
    )
    if tolerance is None:
        tolerance = 1e-9 if deterministic else max(0.02, 2.0 / math.sqrt(accepted))
    return AsapResult(
        algorithm=algorithm,
        parameters=dict(params),
        knowledge=knowledge,
        perturbs_sensitive=perturbs,
        deterministic=deterministic,
        seeds=[s for s in seeds if s is not None],
        n_worlds=len(worlds),
        n_naive_worlds=len(naive_set),
        naive_reading=naive if perturbs else "published",
        n_smart_worlds=int((hits > 0).sum()),
        failed_runs=failed,
        accepted_runs=accepted,
        values=values,
        naive=naive_post,
        smart=smart,
        tolerance=float(tolerance),
        negative_facts=[(r, values[c]) for r, c in facts],
        fact_rise=fact_rise,
    )
