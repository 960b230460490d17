"""The deFinetti attack (Kifer, SIGMOD 2009): learn a model from the release itself.

Random-worlds reasoning gives each member of a group the group's value frequencies
(``P(t.S = v) = c_g(v) / |g|``). Kifer's attacker instead treats the records as exchangeable
(de Finetti's theorem): it puts a prior on the parameters of a model of how the quasi-identifiers
``R_1..R_n`` and the sensitive value ``S`` go together, learns that model from *all* groups of the
release, and reasons about each group's unknown permutation of its sensitive multiset
(paper §5.1, Eq. 1–7). The attacker knows only what is published: every record's quasi-identifiers
and group (the QIT) and each group's sensitive multiset (the ST).

Model and sampler
-----------------
* **Naive Bayes** (paper Eq. 1), ``P(S)·Π_i P(R_i | S)``, uniform Dirichlet priors (``prior=1``).
  ``model="joint"`` uses one Dirichlet over whole quasi-identifier vectors instead
  (``P(R_1..R_n, S)``, the reading under which the paper's Table 1 gives 100/101): the same
  code with the QI vector as a single feature. Other models fit the same shape as long as their
  collapsed likelihood is a product over count cells.
* **Collapsed Gibbs sampling** (notes §3.5): the Dirichlet parameters are integrated out, so the
  posterior of a full assignment ``π`` (a bijection, in every group, of the group's multiset onto
  its members) is ``∝ Π_{feature, x, s} Γ(n^π_{x,s} + prior)``. ``n_s`` is fixed by the ST, so the
  ``P(S)`` factor and the Dirichlet normalisers are constant and drop out. Each sweep redraws
  every group's permutation from its exact conditional given all other groups: by enumerating the
  ``|g|!`` permutations when ``|g| <= exact_max`` (the paper's choice for groups of 2–4,
  Algorithm 2), and otherwise by Metropolis–Hastings with random transpositions (the paper
  proposes independent shuffles, which are almost never accepted in large groups; transpositions
  leave the same posterior invariant and mix far better).
* **Rao–Blackwellised estimates**: for enumerated groups the per-record marginals of the exact
  conditional are accumulated instead of the one sampled permutation, which lowers the Monte-Carlo
  error at no cost. Metropolis–Hastings groups accumulate each record's value averaged over all
  inner states of the sweep (time-weighted), not just the final one.
* **Chains**: several chains from independent random starting permutations, run in parallel
  threads (numba ``prange``); each has its own counter-based random stream, so results depend on
  the seed only, not on the thread count. The paper pools the samples of its 20 runs
  (``combine="pool"``). The posterior is multimodal for ℓ >= 3 (chains stay in modes hundreds of
  nats apart), so ``combine="weight"`` weights chains by ``exp`` of their mean log posterior after
  burn-in instead (a crude mode-mass estimate: equal-volume modes), and every chain's trace is kept
  for inspection.

Generalized releases are attacked through the worst-case reduction (Wong et al. §2): the attacker
knows every record's exact quasi-identifiers and group, and each group's sensitive multiset. For
a generalized release that is more than is published (the QIs are coarsened), so the result is an
upper bound on what this attacker learns. Releases with perturbed sensitive values (MASK) are
attacked through their published values.

References
----------
D. Kifer. Attacks on privacy and deFinetti's theorem. SIGMOD 2009. Notes:
notes/kifer-definetti-attack.md (§3.5 collapsed form, §5 experiments, §7 ambiguities).

One module per concept:

* :mod:`.sampler`: the compiled sampler (numba): each chain's random stream, the Gibbs redraw of a
  small group by enumeration (Algorithm 2), Metropolis–Hastings transpositions for a large one,
  the uncollapsed sampler's parameter draws (Eq. 5), :func:`collapsed_log_posterior` and the
  sweeps of every chain in parallel;
* :mod:`.inputs`: what the attack reads (:func:`feature_cells`, the layout, the checks
  :func:`check_attributes` and :func:`require_attackable`), :func:`choose_targets` and the
  random-worlds baseline :func:`random_worlds_posterior`;
* :mod:`.result`: :class:`DeFinettiResult` and its diagnostics (R-hat, chain spread, Monte-Carlo
  error);
* :mod:`.algorithm`: :func:`definetti_attack` (Algorithm 1: chains, burn-in, combining);
* :mod:`.scoring`: :func:`score_posterior` (Kifer's ABS, SSQ and ACC, §6);
* :mod:`.exact`: the exact oracle, :func:`exact_posterior` (enumeration) and
  :func:`predictive_posterior` (Table 1);
* :mod:`.attack`: the registry's record, ``ATTACK`` (importing this package registers it).

Example: Kifer's Table 6, where the smokers' groups all hold Cancer, so the non-smoker t12 of a
mixed group probably does not hold it (exactly 5/32 by enumeration; random worlds says 1/2), and
:func:`definetti_attack` comes close to the exact value:

>>> import numpy as np, pandas as pd
>>> from anonlab import Release, Table
>>> frame = pd.DataFrame({
...     "smoker": list("yynnynyynnyn"),
...     "disease": ["Cancer", "Flu", "Flu", "Healthy", "Cancer", "Healthy",
...                 "Cancer", "Healthy", "Flu", "Healthy", "Cancer", "Healthy"]})
>>> table = Table.from_frame(frame, quasi_identifiers=["smoker"], sensitive="disease")
>>> release = Release(table, np.repeat(np.arange(6), 2), "bucketization")
>>> round(float(exact_posterior(release)[11, 0]), 12)  # P(t12 = Cancer)
0.15625
>>> float(random_worlds_posterior(release)[11, 0])
0.5
>>> result = definetti_attack(release, sweeps=4000, seed=0)
>>> bool(abs(result.posterior[11, 0] - 5 / 32) < 0.02)
True
"""

from __future__ import annotations

from anonlab.attacks.definetti.algorithm import definetti_attack
from anonlab.attacks.definetti.attack import ATTACK
from anonlab.attacks.definetti.exact import EXACT_LIMIT, exact_posterior, predictive_posterior
from anonlab.attacks.definetti.inputs import (
    COMBINE,
    MODELS,
    SAMPLERS,
    check_attributes,
    choose_targets,
    feature_cells,
    random_worlds_posterior,
    require_attackable,
)
from anonlab.attacks.definetti.result import DeFinettiResult
from anonlab.attacks.definetti.sampler import collapsed_log_posterior
from anonlab.attacks.definetti.scoring import score_posterior

__all__ = [
    "ATTACK",
    "COMBINE",
    "EXACT_LIMIT",
    "MODELS",
    "SAMPLERS",
    "DeFinettiResult",
    "check_attributes",
    "choose_targets",
    "collapsed_log_posterior",
    "definetti_attack",
    "exact_posterior",
    "feature_cells",
    "predictive_posterior",
    "random_worlds_posterior",
    "require_attackable",
    "score_posterior",
]
