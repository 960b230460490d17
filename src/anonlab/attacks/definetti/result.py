"""The deFinetti attack's result: each target's posterior, the chains and their diagnostics."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonlab._validation import check_float
from anonlab.errors import AnonlabError


@dataclass(frozen=True)
class DeFinettiResult:
    """Posterior distributions over sensitive values for the attacked records.

    Attributes
    ----------
    rows : ndarray (R,)
        The records attacked (indices into the release's table).
    posterior : ndarray (R, n_values)
        The chains combined (see ``combine``).
    chain_posteriors : ndarray (chains, R, n_values)
        Each chain's estimate (the paper's per-run results; Min/Max come from these).
    log_posterior : ndarray (chains, sweeps)
        Each chain's collapsed log posterior after every sweep, up to one shared constant.
    chain_weights : ndarray (chains,)
        The weights used to combine the chains.
    baseline : ndarray (R, n_values)
        Random worlds on the same release.
    """

    rows: np.ndarray
    posterior: np.ndarray
    chain_posteriors: np.ndarray
    log_posterior: np.ndarray
    chain_weights: np.ndarray
    baseline: np.ndarray
    values: tuple[str, ...]
    attributes: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def monte_carlo_error(self) -> np.ndarray:
        """Standard error of the pooled posterior from the spread between chains, (R, n_values).

        ``sd_between_chains / sqrt(chains)``; zero with one chain (no estimate).
        """
        c = self.chain_posteriors.shape[0]
        if c < 2:
            return np.zeros_like(self.posterior)
        return self.chain_posteriors.std(axis=0, ddof=1) / math.sqrt(c)

    def r_hat(self) -> float:
        """Gelman–Rubin potential scale reduction of the log posterior after burn-in.

        Near 1 when the chains sample the same distribution; far above 1 when they sit in
        different modes (as Kifer's chains do for ℓ >= 3). NaN with fewer than 2 chains or 2
        kept sweeps.
        """
        kept = self.log_posterior[:, self.settings["burn_in"] :]
        c, s = kept.shape
        if c < 2 or s < 2:
            return float("nan")
        means = kept.mean(axis=1)
        within = kept.var(axis=1, ddof=1).mean()
        between = s * means.var(ddof=1)
        if within == 0:
            return 1.0 if between == 0 else float("inf")
        return float(math.sqrt(((s - 1) / s * within + between / s) / within))

    def chain_spread(self) -> float:
        """Largest difference between two chains' posteriors for any record and value."""
        return float(np.ptp(self.chain_posteriors, axis=0).max(initial=0.0))

    def confident(self, threshold: float = 0.8) -> np.ndarray:
        """Records (table indices) given some value with posterior >= ``threshold``."""
        return self.rows[self.posterior.max(axis=1) >= threshold]

    def breached(self, truth: np.ndarray, l: float | None = None) -> np.ndarray:
        """Records whose *true* value gets posterior above ``1/ℓ`` (publisher's view).

        ``truth`` holds the true sensitive codes of :attr:`rows`. ℓ-diversity under random
        worlds promises ``P(true value) <= 1/ℓ``; a record above it is breached beyond that
        promise. Without ℓ, each record's own random-worlds probability of its true value is the
        bound. A tolerance of 1e-9 absorbs rounding.
        """
        truth = np.asarray(truth, dtype=np.int64)
        if truth.shape != self.rows.shape:
            raise AnonlabError(
                f"truth must hold one code per attacked record ({len(self.rows)}), "
                f"got shape {truth.shape}"
            )
        idx = np.arange(len(truth))
        p = self.posterior[idx, truth]
        bound = self.baseline[idx, truth] if l is None else 1.0 / check_float("l", l)
        return self.rows[p > bound + 1e-9]

    def to_json(self) -> dict[str, Any]:
        return {
            "attack": "definetti",
            "records": int(len(self.rows)),
            "attributes": list(self.attributes),
            "settings": dict(self.settings),
            "chain_weights": self.chain_weights.tolist(),
            "chain_mean_log_posterior": _kept_means(self).tolist(),
            "r_hat": self.r_hat(),
            "chain_spread": self.chain_spread(),
            "monte_carlo_error_mean": float(self.monte_carlo_error().mean()),
        }


def _kept_means(result: DeFinettiResult) -> np.ndarray:
    kept = result.log_posterior[:, result.settings["burn_in"] :]
    return kept.mean(axis=1) if kept.shape[1] else result.log_posterior[:, -1]
