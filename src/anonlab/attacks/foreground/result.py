"""What the foreground-knowledge attack returns: global distributions, the solver's report, and
the per-record worst-case breach probabilities.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011): :class:`GlobalDistribution` is Def. 2's ``G`` for one attribute set and target (the
solution of Eq. 4), :class:`ConvergenceReport` says how that fixed point was solved, and
:class:`ForegroundResult` holds ``p*(t) = max_{A, x} p_A(t : x)`` (§5) with the §5.1 measures.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonlab._validation import check_float
from anonlab.attacks.foreground.signatures import compact_index, signature_labels
from anonlab.release import Release


@dataclass(frozen=True)
class GlobalDistribution:
    """The global distribution ``G`` of one attribute set for one target ``x`` (Def. 2).

    Attributes
    ----------
    attributes : tuple of str
        The attribute set ``A`` (empty: every record has the one signature ``()``).
    target : tuple of str
        The sensitive value(s) treated as ``x``.
    signature_codes : ndarray of shape (n_signatures, len(attributes))
        Every signature of ``A`` that occurs in the release, as codes (sorted); the property
        ``signatures`` gives their labels (tuples in ``attributes`` order), built on first use:
        with hundreds of thousands of distinct rows, labels of every signature of every set as
        Python tuples were most of the attack's memory.
    values : tuple of ndarray
        The label of each code, per attribute of ``A`` (the release table's arrays, shared).
    probability : ndarray of shape (n_signatures,)
        ``f_i = p(s_i : x)``.
    support : ndarray of shape (n_signatures,)
        Number of records matching each signature.
    sufficient : ndarray of shape (n_signatures,), dtype=bool
        Whether the support reaches ``min_support`` (then ``f_i`` was solved for).
    row_signature : ndarray of shape (n_distinct_rows,) or None
        Index of the signature of each distinct quasi-identifier row of the release; None when
        it is recomputed from ``row_index`` on demand (what :func:`foreground_attack` keeps:
        with 800,000 distinct rows, these maps of 255 attribute sets were 488 MB).
    record_row : ndarray of shape (n_rows,)
        Each record's distinct row; shared by every distribution of one attack. A per-record
        signature array per attribute set was most of the attack's memory (1.8 GB of 2.5 GB at
        1M records with 239 attribute sets, docs/benchmarks.md "Scale"); the property
        ``record_signature`` computes it on demand.
    row_index : optional
        The attack's shared index of distinct rows (see ``row_signature``).
    min_support : int
    small_signature : str
        The rule used for insufficient signatures (see ``SMALL_SIGNATURE``).
    """

    attributes: tuple[str, ...]
    target: tuple[str, ...]
    signature_codes: np.ndarray = field(repr=False)
    values: tuple[np.ndarray, ...] = field(repr=False)
    probability: np.ndarray
    support: np.ndarray
    sufficient: np.ndarray
    row_signature: np.ndarray | None = field(repr=False)
    record_row: np.ndarray = field(repr=False)
    min_support: int = 1
    small_signature: str = "uniform-half"
    row_index: Any = field(default=None, repr=False, compare=False)

    def _row_map(self) -> np.ndarray:
        """``row_signature``, recomputed from the shared row index where not kept."""
        if self.row_signature is not None:
            return self.row_signature
        sig = self.row_index.signatures(self.attributes)
        return compact_index(np.asarray(sig.row_signature), len(self.probability))

    @functools.cached_property
    def signatures(self) -> tuple[tuple, ...]:
        """Every signature of ``A`` in the release: tuples of labels in ``attributes`` order."""
        return signature_labels(self.values, self.signature_codes)

    @property
    def record_signature(self) -> np.ndarray:
        """Index of each record's signature, shape (n_rows,), in the smallest unsigned dtype
        that holds the number of signatures."""
        return self._row_map()[self.record_row]

    def record_probabilities(self) -> np.ndarray:
        """``f`` of each record's signature, shape (n_rows,)."""
        return self.probability[self._row_map()][self.record_row]

    def as_dict(self) -> dict[tuple, float]:
        """``{signature: f}``."""
        return {s: float(p) for s, p in zip(self.signatures, self.probability, strict=True)}


@dataclass(frozen=True)
class ConvergenceReport:
    """How the fixed point of Eqs. (4)-(6) was solved.

    Attributes
    ----------
    converged : bool
        ``residual <= tol``.
    residual : float
        ``max_i |f_i - g_i(f)|`` at the returned point, ``g`` the right-hand side of Eq. (4).
    em_iterations : int
        Fixed-point (EM) iterations run.
    newton_steps : int
        Newton steps accepted (jumps to EM's limit where it crawls, and polishing after EM).
    mass_balance : float
        ``sum_t p(t : x) - #x`` summed over the records whose ``f`` is solved for, where
        ``p(t : x)`` is replaced by ``f_{s(t)}``; i.e. ``sum_i |s_i| f_i - sum_{t free} p(t:x)``.
        Zero at an exact fixed point; with every signature free this is the notes' invariant
        ``sum_i |s_i| f_i = #x``.
    n_unknowns : int
    tol : float
    """

    converged: bool
    residual: float
    em_iterations: int
    newton_steps: int
    mass_balance: float
    n_unknowns: int
    tol: float

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ForegroundResult:
    """Per-record worst-case breach probabilities of the foreground-knowledge attack.

    Attributes
    ----------
    p_star : ndarray of shape (n_rows,)
        ``p*(t) = max_{A, x} p_A(t : x)`` (paper §5 preamble).
    baseline : ndarray of shape (n_rows,)
        Random-world baseline ``max_x n_x(group) / |group|``.
    best_attributes : ndarray of shape (n_rows,), dtype=int
        Index into ``attribute_sets`` of the set that gave ``p*``.
    best_target : ndarray of shape (n_rows,), dtype=int
        Index into ``targets`` of the target that gave ``p*``.
    attribute_sets : tuple of tuple of str
        The attribute sets attacked (those with at least one sufficient signature).
    targets : tuple of tuple of str
    distributions : tuple of GlobalDistribution
        One per (attribute set, target), attribute-set major.
    reports : tuple of ConvergenceReport
        Same order as ``distributions``.
    min_support : int
    small_signature : str
    """

    p_star: np.ndarray
    baseline: np.ndarray
    best_attributes: np.ndarray
    best_target: np.ndarray
    attribute_sets: tuple[tuple[str, ...], ...]
    targets: tuple[tuple[str, ...], ...]
    distributions: tuple[GlobalDistribution, ...] = field(repr=False)
    reports: tuple[ConvergenceReport, ...] = field(repr=False)
    min_support: int = 1
    small_signature: str = "uniform-half"

    def problematic(self, r: float) -> np.ndarray:
        """Records with ``p*(t) > 1/r`` (Problem 2), by more than rounding (1e-12).

        Without the margin a probability exactly at ``1/r`` (e.g. 0.5 computed as
        0.5000000000000009) would count as a breach depending on the order of floating-point
        operations.
        """
        r = check_float("r", r, low=1.0)
        return self.p_star > 1.0 / r + 1e-12

    def average_delta(self, release: Release) -> dict[str, float]:
        """The paper's average Δ (§5.1): per group and distribution, the spread
        ``max_t p(s(t):x) − min_t p(s(t):x)`` of its members' mined probabilities, averaged over
        the groups; returned per attribute set and target (keys ``"a,b -> x"``) and ``"mean"``
        over all of them. A large Δ means the group mixes signatures the attacker can tell
        apart, which is what breaks it.
        """
        from anonlab.grouping import group_min_max

        out: dict[str, float] = {}
        for dist in self.distributions:
            f = dist.record_probabilities()
            lo, hi = group_min_max(release.group, f, release.n_groups)
            key = f"{','.join(dist.attributes) or '(none)'} -> {'|'.join(dist.target)}"
            out[key] = float(np.mean(hi - lo))
        out["mean"] = float(np.mean(list(out.values()))) if out else float("nan")
        return out

    def score(self, release: Release, r: float) -> dict[str, float]:
        """The paper's §5.1 measures against the ground truth (publisher side).

        Sensitive tuples are the records whose *original* value is in one of the targets.
        Returns recall (``|problematic ∩ sensitive| / |sensitive|``), the false-positive
        proportion (``|problematic ∩ non-sensitive| / |non-sensitive|``), and the average
        breach probability (mean ``p*`` over all sensitive tuples; and the baseline's mean).
        """
        table = release.table
        sens = release.sensitive
        mask = np.zeros(table.domain_size(sens), dtype=bool)
        for t in self.targets:
            mask |= table.value_mask(sens, list(t))
        is_sensitive = mask[table.codes[sens]]
        bad = self.problematic(r)
        n_s = int(is_sensitive.sum())
        n_o = int((~is_sensitive).sum())
        nan = float("nan")
        return {
            "sensitive_tuples": n_s,
            "recall": float((bad & is_sensitive).sum() / n_s) if n_s else nan,
            "false_positive": float((bad & ~is_sensitive).sum() / n_o) if n_o else nan,
            "average_breach": float(self.p_star[is_sensitive].mean()) if n_s else nan,
            "average_baseline": float(self.baseline[is_sensitive].mean()) if n_s else nan,
        }
