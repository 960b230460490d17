"""The ASAP checker's result: per-record posteriors in the naive and smart worlds, scored.

Jin, Zhang, Das (ASAP, Information Systems 2011, Defs. 3-5): ``T*`` is algorithm-safe iff every
record's posterior is the same whether or not the adversary knows the publishing algorithm.
:class:`AsapResult` holds both posteriors as inferred from the published view; the verdict needs
the truth (which extra negative facts are true), so it is a score: :meth:`AsapResult.score`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release


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
        ``"published"`` (quasi-identifier-only algorithm), or one of
        :data:`~anonlab.attacks.asap_checker.inference.NAIVE`.
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
