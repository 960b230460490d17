"""The foreground-knowledge attack: global distributions mined from the release itself.

Wong, Fu, Wang, Xu and Yu, "Can the Utility of Anonymized Data be used for Privacy Breaches?"
(ACM TKDD 2011); reading notes in ``notes/wong-foreground-knowledge-attack.md``.

Group-based anonymization (Anatomy, ℓ-diversity, t-closeness, MASK, Injector, ...) breaks the
link between quasi-identifiers and the sensitive value inside each group, and earlier analyses
give every assignment of a group's values to its members the same weight (the *random-world*
baseline ``n_k / N_k``). The adversary of this paper first learns, from the published table, a
*global distribution* ``f_i = p(s_i : x)``: the probability that a record with quasi-identifier
signature ``s_i`` (e.g. ``occupation = Craft-repair``) holds the sensitive value ``x``. It then
weights each possible world of a group by the product of these probabilities:

* Eq. (1) ``p(w) = prod_j p_{j,w}`` with ``p_{j,w} = f_{s(j)}`` if ``t_j`` holds ``x`` in ``w``
  and ``1 - f_{s(j)}`` otherwise;
* Eq. (2) ``p(w | L_k) = p(w) / sum_{w'} p(w')``;
* Eq. (3) ``p(t_j : x) = sum_{w in B_x} p(w | L_k)``, the worlds in which ``t_j`` holds ``x``.

One module per concept of the paper:

* :mod:`.small_signature`: Theorem 1's support ``J`` (:func:`hoeffding_support`) and the rules
  for signatures below it (``SMALL_SIGNATURE``);
* :mod:`.inputs`: what the attack reads from a release (groups, attribute set, target ``x``, the
  published count of ``x`` per group) and its options, checked;
* :mod:`.signatures`: the signatures of an attribute set, their supports and each record's,
  computed once per distinct quasi-identifier row;
* :mod:`.kernel`: Eqs. (1)-(3) as a truncated polynomial product, every group in one compiled
  call (``O(N_k · min(n_k, N_k - n_k))`` per group, or the circle method for large groups);
* :mod:`.breach`: :func:`breach_probabilities`, the public entry point of Eqs. (1)-(3);
* :mod:`.solver`: the fixed point of Eqs. (4)-(6) by EM, accelerated by SQUAREM (default) or
  Newton jumps, polished by Newton's method (the paper's);
* :mod:`.global_distribution`: :func:`mine_global_distribution` (Def. 2, Eqs. 4-6);
* :mod:`.algorithm`: Algorithm 1, :func:`frequent_attribute_sets` and
  :func:`foreground_attack` (``p*(t) = max_{A, x} p_A(t : x)`` per record);
* :mod:`.result`: :class:`GlobalDistribution`, :class:`ConvergenceReport`,
  :class:`ForegroundResult`.

Choices where the paper is silent (each stated where it applies):

* Generalized releases are attacked through the worst-case reduction of the paper's §2: the
  adversary knows each record's exact quasi-identifiers and its group, so every release is
  treated as a bucketization. Counts of ``x`` are the *published* sensitive values (perturbed
  ones where the algorithm perturbs, as in MASK).
* A target ``x`` may be a set of sensitive values, treated as one value (the paper's §5 uses
  the low-education set ``{Preschool, 1st-4th, 5th-6th, 7th-8th}``).
* A group whose possible worlds all have weight 0 (e.g. every member has ``f = 0`` but the group
  holds ``x``) falls back to the random-world value ``n_k / N_k`` for its members.
* Signatures matched by fewer than ``J = ceil(ln(2/σ) / (2ε²))`` records ("insufficient"):
  the paper says only that "uniform distribution will be assumed". See ``SMALL_SIGNATURE``
  for the options; the default ``"uniform-half"`` fixes ``f = 0.5`` (a uniform distribution
  over ``{x, not x}``), the reading that reproduces the paper's reported numbers best.
* The empty attribute set, whose one signature every record matches, is part of the search by
  default (``include_empty=True``): its global distribution is the table's base rate, under
  which ``p(t : x) = n_k / N_k``. Hence ``p*(t)`` is never below the random-world baseline.

The solver's settings ``SQUAREM_UNDO_RATIO``, ``SQUAREM_BOUNDARY_SHARE`` and
``NEWTON_POLISH_MAX_UNKNOWNS`` are re-exported here for reading; they are read at call time from
:mod:`.solver`, so a benchmark that changes one sets it there.
"""

from __future__ import annotations

from anonlab.attacks.foreground.algorithm import foreground_attack, frequent_attribute_sets
from anonlab.attacks.foreground.breach import breach_probabilities
from anonlab.attacks.foreground.global_distribution import mine_global_distribution
from anonlab.attacks.foreground.result import (
    ConvergenceReport,
    ForegroundResult,
    GlobalDistribution,
)
from anonlab.attacks.foreground.small_signature import SMALL_SIGNATURE, hoeffding_support
from anonlab.attacks.foreground.solver import (
    ACCELERATORS,
    NEWTON_POLISH_MAX_UNKNOWNS,
    SQUAREM_BOUNDARY_SHARE,
    SQUAREM_UNDO_RATIO,
)

__all__ = [
    "ACCELERATORS",
    "NEWTON_POLISH_MAX_UNKNOWNS",
    "SMALL_SIGNATURE",
    "SQUAREM_BOUNDARY_SHARE",
    "SQUAREM_UNDO_RATIO",
    "ConvergenceReport",
    "ForegroundResult",
    "GlobalDistribution",
    "breach_probabilities",
    "foreground_attack",
    "frequent_attribute_sets",
    "hoeffding_support",
    "mine_global_distribution",
]
