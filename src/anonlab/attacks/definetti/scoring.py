"""Scoring posteriors against the truth: Kifer's measures (SIGMOD 2009, §6)."""

from __future__ import annotations

import numpy as np

from anonlab.errors import AnonlabError


def score_posterior(
    posterior: np.ndarray, truth: np.ndarray, confidence: float = 0.8
) -> dict[str, float]:
    """Kifer's measures (§6) of posteriors ``(R, n_values)`` against true codes ``(R,)``.

    * ``ABS = Σ_i Σ_j |s_ij − p_ij|`` and ``SSQ = Σ_i Σ_j (s_ij − p_ij)²`` (sums over targets,
      as Table 7 reports them for 1,000 targets);
    * ``ACC``: share of targets whose most probable value is the true one, with fractional credit
      ``1/|argmax set|`` for ties (notes A10: this is how the random-worlds baseline gets exactly
      1/ℓ);
    * ``confident_share``: share of targets given some value with probability >= ``confidence``,
      and ``confident_precision``: the (tie-credited) share of those whose top value is right.
    """
    posterior = np.asarray(posterior, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.int64)
    if posterior.ndim != 2 or truth.shape != (posterior.shape[0],):
        raise AnonlabError(
            f"posterior must be (records, values) and truth (records,); got {posterior.shape} "
            f"and {truth.shape}"
        )
    r = len(truth)
    if r == 0:
        raise AnonlabError("no targets to score")
    onehot = np.zeros_like(posterior)
    onehot[np.arange(r), truth] = 1.0
    diff = onehot - posterior
    top = posterior.max(axis=1, keepdims=True)
    ties = np.abs(posterior - top) <= 1e-12
    credit = ties[np.arange(r), truth] / ties.sum(axis=1)
    confident = top[:, 0] >= confidence
    return {
        "targets": r,
        "ABS": float(np.abs(diff).sum()),
        "SSQ": float((diff**2).sum()),
        "ACC": float(credit.mean()),
        "mean_true_probability": float(posterior[np.arange(r), truth].mean()),
        "confident_share": float(confident.mean()),
        "confident_precision": float(credit[confident].mean()) if confident.any() else float("nan"),
    }
