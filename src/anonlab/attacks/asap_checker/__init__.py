"""A brute-force ASAP checker for tiny tables: does knowing the algorithm change a posterior?

Jin, Zhang, Das (ASAP, Information Systems 2011, Defs. 3-5) compare two adversaries with the same
external knowledge ``K_e`` and the same release ``T*``. Naive Nash weighs every original table
``T'`` that could be published as ``T*`` equally (the *naive world*); smart Sam also knows the
publishing algorithm ``A`` and weighs ``T'`` by ``Pr[A(T') = T*]`` (the *smart world*, Def. 4
read as a normalised likelihood, notes E14). ``T*`` is *algorithm-safe* (ASAP) iff every record's
posterior over the sensitive values is the same in both worlds. The paper argues each algorithm by
hand; this checker decides it mechanically for any anonymizer of the registry
(:func:`anonlab.anonymize.anonymize`), including ones written later, by enumeration
(notes/jin-asap-algorithm-safe-publishing.md §2.12).

What is enumerated (the adversary's knowledge, stated in the result):

* everyone's exact quasi-identifiers, and the group of every record (the worst case of the
  literature: a generalized release is treated as its bucketization);
* the release: a candidate ``T'`` gives each record a sensitive value; for an algorithm that
  perturbs only quasi-identifiers (``release.published_sensitive is None``), ``T' ⇒ T*`` requires
  each group's values to be exactly its published multiset. For an algorithm that perturbs the
  sensitive values (MASK and its repairs), the sensitive values of ``T'`` are free (notes §1.7
  [RECON]) except for the knowledge below;
* the naive world of such an algorithm (Sam's candidates are always the free ones):

  - ``naive="minimal-change"`` (default; the paper's reading). Nash knows the published values
    may have been perturbed but not by which rule. He believes them except for the *fewest*
    that his knowledge forces to be fake, and each choice of fake published values and of
    their original values is equally likely; inside a group the records are exchangeable
    (Jin et al. §2, Example 2: Tom's 3/8 and 5/12 on Table 2, reproduced exactly). Formally,
    among the candidates ``T'`` consistent with the knowledge, those with the fewest changes
    ``Σ_G (|G| − Σ_v min(h'_Gv, p_Gv))`` (``h'`` the candidate's and ``p`` the published group
    histograms), each weighted ``Π_G N_G / multinomial(h'_G)`` with ``N_G = Π_v C(p_Gv, s_Gv)
    · d_G! / Π_v e_Gv!`` (``s``/``e`` the surplus/deficit of value v in G, ``d_G`` the
    changes in G): the number of (fake published values, originals) choices giving ``h'_G``,
    spread evenly over the orderings of the group. When nothing contradicts the published
    values this is the face-value reading (Eq. 1 and Eq. 8 of the proofs of Thms 5.1/5.2:
    Nash's posterior is the published ``S*(q)``, restricted to the values he does not rule
    out). An extra negative fact re-minimises (the screen below).
  - ``naive="face-value"``: Nash reads the published values as the original ones, filtered by
    the knowledge below; an error when the knowledge contradicts them. The original multiset
    (``knowledge="multiset"``) is *not* applied to his world.
  - ``naive="free"``: Nash knows only the knowledge below (Def. 3 read literally: the
    sensitive values of ``T'`` are free, notes §1.7 [RECON]); he ignores the published values.
* ``knowledge="multiset"`` (default): the original table's multiset of sensitive values (e.g.
  published statistics, "only 1 of 8 patients has cancer"); ``knowledge="domain"``: only the
  domain. For quasi-identifier-only algorithms both coincide with the release's constraint;
* ``negative_facts``: pairs ``(record, value)`` — "record does not hold value" (Jin et al.'s
  negative association rules, Table 5);
* ``constraints``: any further ``K_e`` as a function from a ``(worlds, n)`` array of sensitive
  codes to a boolean mask (e.g. "at least one male has AIDS").

The smart world re-runs the algorithm by name with the same parameters on every candidate and
keeps the candidates whose output reproduces the release: the same partition of the records
(groups compared as sets of record indices), the same published sensitive multiset in each group
and the same hierarchy levels where the release has them. Candidates on which the algorithm
raises (e.g. not eligible) cannot have produced ``T*`` and get weight 0 (counted).

Every external knowledge (Def. 5 quantifies over all ``K_e``): besides the stated knowledge, the
checker screens every single true negative fact "record i does not hold v" added to it, from the
same runs (inclusion-exclusion on the weighted world counts), and reports the worst
(:meth:`AsapResult.worst_fact`). ``safe`` requires no rise in either. Example: Mondrian's revoked
cut on the notes' §3.5 data changes no marginal (the leak is in the joint: t4 and t5 share a
value) but does once "t4 is not gastritis" is known.

Randomness. A deterministic algorithm is run once per candidate (the release's seed). Whether an
algorithm is deterministic is *measured*: it is run with four seeds on the original and on up to
eight candidates, and any difference makes it randomized. A randomized algorithm is run with
seeds ``seed + 1, seed + 2, …`` — never the release's own seed, which would favour the true table
— and ``Pr[A(T') = T*]`` is the share of runs that reproduce the release (Jin et al.'s footnote
3: the adversary simulates the randomness, not the draws). With ``n_seeds`` given, exactly that
many seeds per candidate; by default batches of 16 seeds until :data:`TARGET_ACCEPTED` runs have
reproduced the release, :data:`DEFAULT_SEEDS` seeds or the run budget. ``known_seed=True``
models an adversary who knows the seed (it is in the manifest): one run per candidate.
Posteriors of a randomized algorithm are estimates: a rise counts only above
``max(0.02, 2/sqrt(reproducing runs))`` unless ``tolerance`` is given (deterministic: ``1e-9``;
the posteriors are then exact up to floating point, so ``tolerance=1e-12`` may be given). There
is no exact mode for a randomized algorithm: ``Pr[A(T') = T*]`` is an expectation over the
generator's draws, which cannot be enumerated from outside the algorithm (``known_seed=True`` is
exact but models an adversary who knows the draws). An algorithm whose randomness never changes
the published signature (e.g. MASK+ with ``fill="paper"``, whose randomness only picks which
records carry the changed values) is measured deterministic and checked exactly.

Limits: at most :data:`MAX_RECORDS` records and :data:`MAX_RUNS` algorithm runs (candidates ×
seeds); above them :class:`~anonlab.errors.AnonlabError` says how many there would be.

The adversary's view apart from the ground truth (issue 18, item 2). Three steps:
:func:`asap_knowledge` is the publisher's (the algorithm, its parameters and seed from the
manifest, the original multiset of sensitive values, the negative facts as codes; it reads the
original table); :func:`asap_inference` enumerates and re-runs from the adversary's copy
(:meth:`Release.adversary_copy() <anonlab.release.Release.adversary_copy>`) and that knowledge
only — the candidate worlds need only each group's published multiset (or, for a perturbing
algorithm, the stated multiset), and determinism is measured on the candidate worlds and the
copy, never on the original table; :meth:`AsapResult.score` reads the truth: each record's
posterior of its own value, and which extra negative facts are *true* (only those can be known,
so only those are screened: ``worst_fact``, ``safe`` and ``verdict`` are scores).
:func:`check_release` is all three, and first checks, on the publisher's side, that re-running
the stated algorithm on the original table reproduces the release.

One module per step:

* :mod:`.result`: :class:`AsapResult` (the posteriors, and once scored the verdict) and
  ``SCORES``;
* :mod:`.knowledge`: :class:`AsapKnowledge` and :func:`asap_knowledge` (the publisher's
  statement), :data:`MAX_RECORDS`;
* :mod:`.worlds`: the candidate tables, :func:`count_worlds` and :func:`candidate_worlds`;
* :mod:`.runs`: re-running the algorithm, :func:`release_signature`, :func:`is_deterministic`
  and the run budget (:data:`MAX_RUNS`, :data:`DEFAULT_SEEDS`, :data:`TARGET_ACCEPTED`);
* :mod:`.posteriors`: the naive and smart posteriors, :func:`minimal_change_weights`;
* :mod:`.inference`: :func:`asap_inference` (the adversary's side), :data:`NAIVE`;
* :mod:`.check`: :func:`asap_check`, :func:`check_release` and :func:`check_reproduces`.
"""

from __future__ import annotations

from anonlab.attacks.asap_checker.check import asap_check, check_release, check_reproduces
from anonlab.attacks.asap_checker.inference import NAIVE, asap_inference
from anonlab.attacks.asap_checker.knowledge import (
    KNOWLEDGE,
    MAX_RECORDS,
    AsapKnowledge,
    asap_knowledge,
)
from anonlab.attacks.asap_checker.posteriors import minimal_change_weights
from anonlab.attacks.asap_checker.result import SCORES, AsapResult
from anonlab.attacks.asap_checker.runs import (
    DEFAULT_SEEDS,
    MAX_RUNS,
    SEED_BATCH,
    TARGET_ACCEPTED,
    is_deterministic,
    release_signature,
)
from anonlab.attacks.asap_checker.worlds import candidate_worlds, count_worlds

__all__ = [
    "DEFAULT_SEEDS",
    "KNOWLEDGE",
    "MAX_RECORDS",
    "MAX_RUNS",
    "NAIVE",
    "SCORES",
    "SEED_BATCH",
    "TARGET_ACCEPTED",
    "AsapKnowledge",
    "AsapResult",
    "asap_check",
    "asap_inference",
    "asap_knowledge",
    "candidate_worlds",
    "check_release",
    "check_reproduces",
    "count_worlds",
    "is_deterministic",
    "minimal_change_weights",
    "release_signature",
]
