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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_int, check_seed, takes_release, takes_table
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

#: Largest table the checker enumerates.
MAX_RECORDS = 12
#: Largest number of algorithm runs (candidate tables × seeds).
MAX_RUNS = 100_000
#: Largest number of seeds per candidate for randomized algorithms (default); runs stop
#: earlier, after a batch, once TARGET_ACCEPTED runs have reproduced the release.
DEFAULT_SEEDS = 1024
SEED_BATCH = 16
TARGET_ACCEPTED = 1000
KNOWLEDGE = ("multiset", "domain")
#: Naive readings for an algorithm that perturbs sensitive values (see the module docstring);
#: the first is the default.
NAIVE = ("minimal-change", "face-value", "free")


@dataclass(frozen=True)
class AsapKnowledge:
    """What the checker's adversary is told, built by the publisher (:func:`asap_knowledge`).

    Attributes
    ----------
    algorithm : str
        The publishing algorithm (a name of the anonymizer registry).
    params : dict
        Its parameters, the seed aside.
    seed : int
        The seed the release states (the smart world's seeds are ``seed + 1, ...`` for a
        randomized algorithm; the seed itself only under ``known_seed``).
    knowledge : {"multiset", "domain"}
    multiset : ndarray of int, shape (n_values,), or None
        The original table's count of each sensitive value (``knowledge="multiset"``): for an
        algorithm that perturbs sensitive values, the constraint on the candidates.
    facts : tuple of (int, int)
        Negative facts "record does not hold value", as (row, code).
    """

    algorithm: str
    params: dict
    seed: int
    knowledge: str
    multiset: np.ndarray | None
    facts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class AsapResult:
    """Per-record posteriors in the naive and the smart world, and, once scored, the verdict.

    Attributes
    ----------
    algorithm : str
    parameters : dict
    knowledge : str
    perturbs_sensitive : bool
        Whether the algorithm publishes perturbed sensitive values.
    deterministic : bool
    seeds : list of int
        The seeds each candidate was run with.
    n_worlds : int
        Candidate tables the algorithm was re-run on (the smart world's support).
    n_naive_worlds : int
        Candidates of the naive world.
    naive_reading : str
        ``"published"`` (quasi-identifier-only algorithm), or one of :data:`NAIVE`.
    n_smart_worlds : int
        Candidates that reproduced the release at least once.
    failed_runs : int
        Runs on which the algorithm raised (weight 0).
    values : list of str
        The sensitive domain (columns of the posteriors).
    naive, smart : ndarray of shape (n_rows, n_values)
        ``Pr[t[S] = v]`` per record in each world.
    tolerance : float
    negative_facts : list of (int, str)
        The stated negative facts.
    fact_rise : ndarray of shape (n_rows, n_values, n_rows, n_values), optional
        ``fact_rise[i, v, j, u]``: smart − naive posterior of record j holding u once the
        adversary also knows "record i does not hold v", for *every* such fact (``-inf`` where
        the fact leaves a world empty). Which facts are true is a score (:attr:`fact_increase`).
    true_codes : ndarray of shape (n_rows,), or None
        Ground truth (scoring only; None until :meth:`score`), to show the posterior of each
        record's own value and to screen only true facts.
    """

    algorithm: str
    parameters: dict
    knowledge: str
    perturbs_sensitive: bool
    deterministic: bool
    seeds: list[int]
    n_worlds: int
    n_naive_worlds: int
    naive_reading: str
    n_smart_worlds: int
    failed_runs: int
    accepted_runs: int
    values: list[str]
    naive: np.ndarray
    smart: np.ndarray
    tolerance: float
    negative_facts: list = field(default_factory=list)
    fact_rise: np.ndarray | None = field(default=None, repr=False)
    true_codes: np.ndarray | None = field(default=None, repr=False)

    @property
    def scored(self) -> bool:
        """Whether :meth:`score` has compared the inference with the truth."""
        return self.true_codes is not None

    def score(self, release: Release) -> AsapResult:
        """This result scored against ``release``'s ground truth (the publisher's copy)."""
        true = np.asarray(release.table.codes[release.sensitive], dtype=np.int64)
        if true.shape != (self.naive.shape[0],):
            raise AnonlabError(
                f"score: the release has {len(true)} records, the inference {self.naive.shape[0]}"
            )
        return replace(self, true_codes=true)

    def _truth(self, what: str) -> np.ndarray:
        if self.true_codes is None:
            raise AnonlabError(
                f"{what} needs the ground truth: call result.score(release) first (the "
                "inference alone never reads it)"
            )
        return self.true_codes

    @property
    def increase(self) -> np.ndarray:
        """``smart − naive`` per record and value."""
        return self.smart - self.naive

    @property
    def max_increase(self) -> float:
        return float(self.increase.max()) if self.increase.size else 0.0

    @property
    def rising_records(self) -> np.ndarray:
        """Records some of whose posteriors rise by more than the tolerance."""
        return np.flatnonzero((self.increase > self.tolerance).any(axis=1))

    @property
    def safe_without_extra_facts(self) -> bool:
        """No posterior rises under the stated knowledge alone."""
        return len(self.rising_records) == 0

    @property
    def fact_increase(self) -> np.ndarray | None:
        """:attr:`fact_rise` screened to the *true* negative facts (scoring): a fact "record i
        does not hold v" with v the record's own value is false, so no adversary knows it
        (``-inf`` there)."""
        if self.fact_rise is None:
            return None
        true = self._truth("fact_increase")
        out = np.array(self.fact_rise, dtype=np.float64, copy=True)
        out[np.arange(len(true)), true, :, :] = -np.inf
        return out

    def worst_fact(self) -> tuple[int, str, int, str, float] | None:
        """The single extra negative fact "record i does not hold v" (true of the original)
        under which knowing the algorithm raises some posterior most: (i, v, j, u, rise)."""
        rise = self.fact_increase
        if rise is None or not np.isfinite(rise).any():
            return None
        i, v, j, u = np.unravel_index(int(np.argmax(rise)), rise.shape)
        return int(i), self.values[v], int(j), self.values[u], float(rise[i, v, j, u])

    @property
    def safe(self) -> bool:
        """ASAP on this release: no rise under the stated knowledge, nor under it plus any
        single true negative fact (ASAP must hold for every external knowledge, Def. 5)."""
        worst = self.worst_fact()
        return self.safe_without_extra_facts and (worst is None or worst[4] <= self.tolerance)

    def worst(self) -> tuple[int, str, float, float]:
        """(record, value, naive, smart) of the largest rise."""
        i, v = np.unravel_index(int(np.argmax(self.increase)), self.increase.shape)
        return int(i), self.values[v], float(self.naive[i, v]), float(self.smart[i, v])

    @property
    def verdict(self) -> str:
        if self.safe:
            sampled = (
                ""
                if self.deterministic
                else f"; randomized, estimated from {self.accepted_runs:,} reproducing runs "
                "(the tolerance shrinks with more: n_seeds)"
            )
            return (
                f"ASAP holds on this release: no posterior rises by more than "
                f"{self.tolerance:.3g} when the adversary knows {self.algorithm} (stated "
                f"knowledge, and with any one extra negative fact){sampled}"
            )
        if not self.safe_without_extra_facts:
            i, v, a, b = self.worst()
            return (
                f"algorithm-based disclosure: knowing {self.algorithm} raises record {i}'s "
                f"probability of {v!r} from {a:.4g} to {b:.4g} "
                f"({len(self.rising_records)} records' posteriors rise)"
            )
        i, v, j, u, rise = self.worst_fact()
        return (
            f"algorithm-based disclosure once the adversary also knows that record {i} does "
            f"not hold {v!r}: knowing {self.algorithm} then raises record {j}'s probability of "
            f"{u!r} by {rise:.4g}"
        )

    def to_json(self) -> dict[str, Any]:
        """Everything; the entries that need the truth (``naive_true_value``,
        ``smart_true_value``, ``worst_extra_fact``, ``safe``, ``verdict``) only once scored."""
        out = {
            "check": "asap",
            "algorithm": self.algorithm,
            "parameters": self.parameters,
            "knowledge": self.knowledge,
            "negative_facts": [[int(r), str(v)] for r, v in self.negative_facts],
            "perturbs_sensitive": self.perturbs_sensitive,
            "deterministic": self.deterministic,
            "seeds": len(self.seeds),
            "worlds": self.n_worlds,
            "naive_worlds": self.n_naive_worlds,
            "naive_reading": self.naive_reading,
            "smart_worlds": self.n_smart_worlds,
            "accepted_runs": self.accepted_runs,
            "failed_runs": self.failed_runs,
            "values": self.values,
            "naive": self.naive.tolist(),
            "smart": self.smart.tolist(),
            "naive_true_value": None,
            "smart_true_value": None,
            "max_increase": self.max_increase,
            "rising_records": self.rising_records.tolist(),
            "worst_extra_fact": None,
            "safe_without_extra_facts": self.safe_without_extra_facts,
            "tolerance": self.tolerance,
            "safe": None,
            "verdict": None,
        }
        if not self.scored:
            return {k: v for k, v in out.items() if k not in SCORES}
        idx = np.arange(len(self.true_codes))
        worst = self.worst_fact()
        out["naive_true_value"] = self.naive[idx, self.true_codes].tolist()
        out["smart_true_value"] = self.smart[idx, self.true_codes].tolist()
        out["worst_extra_fact"] = (
            None
            if worst is None
            else dict(
                zip(
                    ("record", "not_value", "target_record", "target_value", "increase"),
                    worst,
                    strict=True,
                )
            )
        )
        out["safe"] = self.safe
        out["verdict"] = self.verdict
        return out


#: The keys of :meth:`AsapResult.to_json` that need the ground truth.
SCORES = ("naive_true_value", "smart_true_value", "worst_extra_fact", "safe", "verdict")


# ---------------------------------------------------------------------------------------------
# Enumeration
# ---------------------------------------------------------------------------------------------


def _multinomial(counts: Sequence[int]) -> int:
    total = math.factorial(int(sum(counts)))
    for c in counts:
        total //= math.factorial(int(c))
    return total


def _multiset_permutations(values: np.ndarray) -> np.ndarray:
    """Every distinct ordering of ``values``, shape (count, len(values)) (lexicographic)."""
    a = np.sort(np.asarray(values, dtype=np.int64)).tolist()
    n = len(a)
    out = [list(a)]
    while True:  # next lexicographic permutation
        i = n - 2
        while i >= 0 and a[i] >= a[i + 1]:
            i -= 1
        if i < 0:
            break
        j = n - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
        a[i + 1 :] = reversed(a[i + 1 :])
        out.append(list(a))
    return np.array(out, dtype=np.int64).reshape(len(out), n)


def _cartesian(blocks: list[np.ndarray], columns: list[np.ndarray], n: int) -> np.ndarray:
    """Combine per-block alternatives (rows of each block) into full assignments."""
    sizes = [len(b) for b in blocks]
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    out = np.empty((total, n), dtype=np.int64)
    idx = np.indices(sizes).reshape(len(sizes), -1) if sizes else np.zeros((0, 1), np.int64)
    for b, (block, cols) in enumerate(zip(blocks, columns, strict=True)):
        out[:, cols] = block[idx[b]]
    return out


def _original_counts(
    release: Release, knowledge: str, multiset: np.ndarray | None
) -> np.ndarray | None:
    """The stated multiset (counts per sensitive code) the candidates of a perturbing algorithm
    keep; default: the release's own original values (the publisher's call)."""
    if knowledge != "multiset":
        return None
    n_values = release.table.domain_size(release.sensitive)
    if multiset is None:
        return np.bincount(release.table.codes[release.sensitive], minlength=n_values)
    counts = np.asarray(multiset, dtype=np.int64)
    if counts.shape != (n_values,) or counts.min(initial=0) < 0:
        raise AnonlabError(
            f"multiset must hold one count per sensitive value ({n_values}), got {counts}"
        )
    if int(counts.sum()) != release.table.n_rows:
        raise AnonlabError(
            f"multiset counts {int(counts.sum())} values; the release has "
            f"{release.table.n_rows} records"
        )
    return counts


def count_worlds(
    release: Release,
    knowledge: str = "multiset",
    face_value: bool = False,
    *,
    multiset: np.ndarray | None = None,
) -> int:
    """How many candidate tables there are (before negative facts and constraints).

    ``face_value``: the release's group multisets are taken as the original values (always so
    for an algorithm that perturbs only quasi-identifiers: each group's published multiset is
    all that is read). ``multiset``: for an algorithm that perturbs sensitive values under
    ``knowledge="multiset"``, the stated count of each original value (:class:`AsapKnowledge`);
    default: counted from the release's table, i.e. the publisher's ground truth.
    """
    table = release.table
    n_values = table.domain_size(release.sensitive)
    if release.published_sensitive is None or face_value:
        hist = release.sensitive_histogram
        return math.prod(_multinomial(row[row > 0]) for row in hist)
    if knowledge == "multiset":
        return _multinomial(_original_counts(release, knowledge, multiset))
    return n_values**table.n_rows


def candidate_worlds(
    release: Release,
    knowledge: str = "multiset",
    face_value: bool = False,
    *,
    multiset: np.ndarray | None = None,
) -> np.ndarray:
    """Every candidate assignment of sensitive codes, shape (worlds, n_rows) (see
    :func:`count_worlds`, also for ``multiset``)."""
    table = release.table
    n = table.n_rows
    n_values = table.domain_size(release.sensitive)
    if release.published_sensitive is None or face_value:
        pub = release.sensitive_codes
        blocks, columns = [], []
        for g in range(release.n_groups):
            members = np.flatnonzero(release.group == g)
            blocks.append(_multiset_permutations(pub[members]))
            columns.append(members)
        return _cartesian(blocks, columns, n)
    if knowledge == "multiset":
        counts = _original_counts(release, knowledge, multiset)
        return _multiset_permutations(np.repeat(np.arange(n_values), counts))
    return np.indices([n_values] * n).reshape(n, -1).T.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Re-running the algorithm
# ---------------------------------------------------------------------------------------------


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


def _with_sensitive(table: Table, codes: np.ndarray) -> Table:
    new = dict(table.codes)
    new[table.require_sensitive()] = codes.astype(np.int32)
    return Table(table.schema, new, table.values, table.row_id, table.dropped)


def _run(table: Table, algorithm: str, params: Mapping[str, Any], seed: int | None):
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


def _takes_seed(algorithm: str) -> bool:
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
    if not _takes_seed(algorithm):
        return True
    tables = [table] if include_table else []
    if len(worlds):
        pick = np.linspace(0, len(worlds) - 1, min(probes, len(worlds))).astype(int)
        tables += [_with_sensitive(table, worlds[i]) for i in pick]
    for t in tables:
        outs = {_run(t, algorithm, params, seed + s) for s in range(4)}
        if len(outs) > 1:
            return False
    return True


def _run_worlds(
    tables: Sequence[Table],
    algorithm: str,
    params: Mapping[str, Any],
    seeds: Sequence[int | None],
    target: bytes,
) -> tuple[np.ndarray, int]:
    """Per candidate table, how many of ``seeds`` reproduce ``target``; and the failed runs."""
    hits = np.zeros(len(tables), dtype=np.int64)
    failed = 0
    for w, candidate in enumerate(tables):
        for s in seeds:
            sig = _run(candidate, algorithm, params, s)
            if sig is None:
                failed += 1
            elif sig == target:
                hits[w] += 1
    return hits, failed


# ---------------------------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------------------------


@takes_table
def asap_check(
    table: Table,
    algorithm: str,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    knowledge: str = "multiset",
    naive: str = "minimal-change",
    negative_facts: Sequence[tuple[int, str]] = (),
    constraints: Callable[[np.ndarray], np.ndarray] | None = None,
    n_seeds: int | None = None,
    known_seed: bool = False,
    tolerance: float | None = None,
    max_runs: int = MAX_RUNS,
) -> AsapResult:
    """Publish ``table`` with ``algorithm`` and check the release for ASAP by enumeration.

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
    if _takes_seed(algorithm):
        kw["seed"] = seed
    release = anonymize(table, algorithm, **kw)
    return check_release(
        release,
        algorithm,
        params,
        seed=seed,
        knowledge=knowledge,
        naive=naive,
        negative_facts=negative_facts,
        constraints=constraints,
        n_seeds=n_seeds,
        known_seed=known_seed,
        tolerance=tolerance,
        max_runs=max_runs,
    )


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
    constraints: Callable[[np.ndarray], np.ndarray] | None = None,
    n_seeds: int | None = None,
    known_seed: bool = False,
    tolerance: float | None = None,
    max_runs: int = MAX_RUNS,
) -> AsapResult:
    """Check an existing release for ASAP (see :func:`asap_check`), scored.

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
    if naive not in NAIVE:
        raise AnonlabError(f"parameter 'naive' must be one of {list(NAIVE)}, got {naive!r}")
    check_reproduces(release, stated, known_seed=known_seed)
    result = asap_inference(
        release.adversary_copy(),
        stated,
        naive=naive,
        constraints=constraints,
        n_seeds=n_seeds,
        known_seed=known_seed,
        tolerance=tolerance,
        max_runs=max_runs,
    )
    return result.score(release)


@takes_release
def asap_knowledge(
    release: Release,
    algorithm: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    knowledge: str = "multiset",
    negative_facts: Sequence[tuple[int, str]] = (),
) -> AsapKnowledge:
    """The checker's stated knowledge, built by the publisher from the release.

    ``algorithm``, ``params`` and ``seed`` default to the manifest's (parameters the algorithm
    does not take are dropped; ``scheme`` is the release's); the parameters are validated by
    running the algorithm once on the original table. ``knowledge="multiset"`` adds the original
    table's count of each sensitive value; ``negative_facts`` (row, value) become codes.
    """
    from anonlab.anonymize import available, parameters

    knowledge = check_choice("knowledge", knowledge, KNOWLEDGE)
    table = release.table
    n = table.n_rows
    if n > MAX_RECORDS:
        raise AnonlabError(
            f"the ASAP checker enumerates every candidate table: at most {MAX_RECORDS} records, "
            f"got {n}"
        )
    algorithm = algorithm or release.manifest.get("algorithm")
    if algorithm not in available():
        raise AnonlabError(
            f"unknown algorithm {algorithm!r} for the ASAP checker; available: "
            f"{', '.join(available())}"
        )
    if params is None:
        accepted = set(parameters(algorithm)) - {"seed"}
        params = {
            k: v
            for k, v in release.manifest.get("parameters", {}).items()
            if k in accepted and v is not None
        }
        if "scheme" in accepted:
            params["scheme"] = release.scheme
    params = dict(params)
    if seed is None:
        seed = release.manifest.get("seed") or 0
    seed = check_seed(seed)
    _validate_params(table, algorithm, params, seed if _takes_seed(algorithm) else None)
    sens = release.sensitive
    facts = []
    for record, value in negative_facts:
        record = check_int("record", record, minimum=0)
        if record >= n:
            raise AnonlabError(f"negative fact on record {record}: the table has {n} records")
        code = int(np.flatnonzero(table.value_mask(sens, [value]))[0])
        facts.append((record, code))
    return AsapKnowledge(
        algorithm=algorithm,
        params=params,
        seed=seed,
        knowledge=knowledge,
        multiset=_original_counts(release, knowledge, None),
        facts=tuple(facts),
    )


def check_reproduces(release: Release, stated: AsapKnowledge, *, known_seed: bool = False) -> None:
    """The publisher's check that the stated algorithm made the release: re-running it on the
    original table (the release's seed) must reproduce it. A randomized algorithm (measured on
    the original table with four seeds) that does not is let through, as the checker weighs
    other seeds anyway; ``known_seed`` makes every algorithm one run with the seed."""
    table = release.table
    algorithm, params, seed = stated.algorithm, stated.params, stated.seed
    takes_seed = _takes_seed(algorithm)
    if _run(table, algorithm, params, seed if takes_seed else None) == release_signature(release):
        return
    empty = np.zeros((0, table.n_rows), dtype=np.int64)
    if known_seed or is_deterministic(table, algorithm, params, empty, seed):
        raise AnonlabError(
            f"re-running {algorithm} with parameters {params} and seed {seed} does not "
            "reproduce the release; give the parameters it was made with"
        )


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
    if naive not in NAIVE:
        raise AnonlabError(f"parameter 'naive' must be one of {list(NAIVE)}, got {naive!r}")
    table = view.adversary_copy().table  # the published values: never the original ones
    algorithm, params, seed = stated.algorithm, dict(stated.params), stated.seed
    knowledge = stated.knowledge
    takes_seed = _takes_seed(algorithm)
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
        naive_fact = _minimal_change_fact_posteriors(worlds, changes, log_weight, len(values))
    else:
        naive_set = worlds

    target = release_signature(view)
    tables = [_with_sensitive(table, codes) for codes in worlds]
    # Determinism is measured, never read off the original table: on the copy and 8 candidate
    # worlds, then, for an algorithm that takes a seed and looked deterministic so far, on up to
    # 8 of the worlds that the stated seed maps to the release (the original is one of them:
    # where MASK had to perturb, the copy and most candidates need no perturbing at all).
    first: tuple[np.ndarray, int] | None = None
    deterministic = known_seed or is_deterministic(table, algorithm, params, worlds, seed)
    if deterministic and takes_seed and not known_seed:
        first = _run_worlds(tables, algorithm, params, [seed], target)
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
        batch_hits, batch_failed = _run_worlds(tables, algorithm, params, batch, target)
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
    naive_post, smart, fact_rise = _posteriors(
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


def minimal_change_weights(release: Release, worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Changes and log-weights of candidate worlds in the minimal-change naive reading.

    For each candidate (row of ``worlds``, the sensitive code of every record): the number of
    published values it makes fake, ``Σ_G (|G| − Σ_v min(h'_Gv, p_Gv))``, and the log of its
    weight ``Π_G N_G / multinomial(h'_G)`` (see the module docstring; Jin et al. §2, Example 2).
    Only the candidates with the fewest changes form the naive world.
    """
    worlds = np.asarray(worlds, dtype=np.int64)
    n_worlds, n = worlds.shape
    group = np.asarray(release.group, dtype=np.int64)
    n_groups = release.n_groups
    n_values = release.table.domain_size(release.sensitive)
    published = np.asarray(release.sensitive_histogram, dtype=np.int64)  # (G, D)
    idx = (np.arange(n_worlds)[:, None] * n_groups + group[None, :]) * n_values + worlds
    hist = np.bincount(idx.ravel(), minlength=n_worlds * n_groups * n_values).reshape(
        n_worlds, n_groups, n_values
    )
    surplus = np.maximum(published[None] - hist, 0)  # published values that are fake
    deficit = np.maximum(hist - published[None], 0)  # their original values
    changes = surplus.sum(axis=(1, 2))
    log_fact = np.array([math.lgamma(i + 1) for i in range(n + 1)])
    sizes = published.sum(axis=1)
    log_n = (  # ways to choose the fake published values, and their originals
        (log_fact[published][None] - log_fact[surplus] - log_fact[published[None] - surplus]).sum(
            axis=2
        )
        + log_fact[surplus.sum(axis=2)]
        - log_fact[deficit].sum(axis=2)
    )
    log_orderings = log_fact[sizes][None] - log_fact[hist].sum(axis=2)
    return changes, (log_n - log_orderings).sum(axis=1)


def _minimal_change_fact_posteriors(
    worlds: np.ndarray, changes: np.ndarray, log_weight: np.ndarray, n_values: int
) -> np.ndarray:
    """Minimal-change naive posteriors once "record i does not hold v" is added: the fewest
    changes are re-minimised among the candidates the fact leaves. Shape (n·D, n·D), NaN rows
    where the fact leaves no candidate."""
    n = worlds.shape[1]
    nd = n * n_values
    flat = worlds + np.arange(n) * n_values
    out = np.full((nd, nd), np.nan)
    for i in range(n):
        for v in range(n_values):
            keep = worlds[:, i] != v
            if not keep.any():
                continue
            c = changes[keep]
            fewest = c == c.min()
            lw = log_weight[keep][fewest]
            w = np.exp(lw - lw.max())
            rows = flat[keep][fewest]
            post = np.zeros(nd)
            np.add.at(post, rows.ravel(), np.repeat(w, n))
            out[i * n_values + v] = post / w.sum()
    return out


def _accumulate(worlds: np.ndarray, weight: np.ndarray, n_values: int):
    """Weighted counts of each (record, value) and of each pair of them, over the worlds."""
    n_worlds, n = worlds.shape
    nd = n * n_values
    flat = worlds + np.arange(n) * n_values  # column of each (record, value) pair
    count = np.zeros(nd)
    joint = np.zeros((nd, nd))
    for start in range(0, n_worlds, 20_000):
        block = flat[start : start + 20_000]
        onehot = np.zeros((len(block), nd))
        np.put_along_axis(onehot, block, 1.0, axis=1)
        weighted = onehot * weight[start : start + 20_000, None]
        count += weighted.sum(axis=0)
        joint += weighted.T @ onehot
    return count, joint, float(weight.sum())


def _posteriors(
    naive_worlds: np.ndarray,
    smart_worlds: np.ndarray,
    hits: np.ndarray,
    n_values: int,
    *,
    naive_weight: np.ndarray | None = None,
    naive_fact: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Naive and smart posteriors (n, D), and the smart rise under each single extra negative
    fact: ``rise[i, v, j, u]`` = smart − naive of record j holding u once the adversary also
    knows "record i does not hold v" (``-inf`` where the fact leaves a world empty).

    ``naive_weight``: weights of the naive worlds (default uniform). ``naive_fact``: the naive
    posteriors under each fact, shape (n·D, n·D) with NaN where undefined, when the naive world
    is not simply conditioned on the fact (minimal-change re-minimises)."""
    n = naive_worlds.shape[1]
    weight = np.ones(len(naive_worlds)) if naive_weight is None else naive_weight
    count, joint, total = _accumulate(naive_worlds, weight, n_values)
    s_count, s_joint, s_total = _accumulate(smart_worlds, hits.astype(np.float64), n_values)
    naive = (count / total).reshape(n, n_values)
    smart = (s_count / s_total).reshape(n, n_values)
    with np.errstate(invalid="ignore", divide="ignore"):
        if naive_fact is None:
            naive_f = (count[None, :] - joint) / (total - count)[:, None]
            naive_empty = (total - count) <= 0
        else:
            naive_f = naive_fact
            naive_empty = np.isnan(naive_fact).all(axis=1)
        smart_f = (s_count[None, :] - s_joint) / (s_total - s_count)[:, None]
        rise = smart_f - naive_f
    empty = naive_empty | ((s_total - s_count) <= 0)
    rise[empty, :] = -np.inf
    rise = np.where(np.isnan(rise), -np.inf, rise)
    return naive, smart, rise.reshape(n, n_values, n, n_values)
