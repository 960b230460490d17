"""The exact oracle: the model's posterior by enumeration, and the posterior predictive.

:func:`exact_posterior` enumerates every assignment of a tiny release (the test oracle for the
sampler; notes/kifer-definetti-attack.md §3.5); :func:`predictive_posterior` is the closed form
for a person outside fully known data (Kifer, SIGMOD 2009, Table 1, §3.2).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from anonlab._validation import check_choice, takes_release
from anonlab.attacks.definetti.inputs import (
    MODELS,
    check_attributes,
    layout_of,
    require_attackable,
)
from anonlab.errors import AnonlabError
from anonlab.release import Release

#: Largest total number of assignments :func:`exact_posterior` enumerates.
EXACT_LIMIT = 2_000_000


@takes_release
def exact_posterior(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    prior: float = 1.0,
) -> np.ndarray:
    """The model's exact posterior by enumerating every assignment (tiny releases only).

    ``P(π | T) ∝ Π_{feature, x, s} Γ(n^π_{x,s} + prior)`` summed over the ``Π_g |g|!``
    assignments (notes §3.5); returns ``(n_rows, n_values)``. Raises above
    :data:`EXACT_LIMIT` assignments. This is the test oracle for the sampler.
    """
    require_attackable(release)
    model = check_choice("model", model, MODELS)
    attributes = check_attributes(release, attributes)
    layout = layout_of(release, attributes, model)
    sizes = np.diff(layout.ptr)
    total = math.prod(math.factorial(int(m)) for m in sizes)
    if total > EXACT_LIMIT:
        raise AnonlabError(
            f"exact enumeration needs {total:,} assignments; the limit is {EXACT_LIMIT:,} "
            "(use definetti_attack for larger releases)"
        )
    n = release.table.n_rows
    n_values = layout.n_values
    choices = []
    for g in range(len(sizes)):
        lo, hi = layout.ptr[g], layout.ptr[g + 1]
        members = layout.order[lo:hi]
        vals = layout.multiset[lo:hi]
        choices.append([(members, vals[list(p)]) for p in itertools.permutations(range(hi - lo))])
    logs, assigns = [], []
    assign = np.empty(n, dtype=np.int64)
    for combo in itertools.product(*choices):
        for members, vals in combo:
            assign[members] = vals
        counts = np.zeros((layout.n_cells, n_values))
        for f in range(layout.cells.shape[1]):
            np.add.at(counts, (layout.cells[:, f], assign), 1)
        logs.append(float(np.sum([math.lgamma(x + prior) for x in counts.ravel()])))
        assigns.append(assign.copy())
    logs_arr = np.array(logs)
    w = np.exp(logs_arr - logs_arr.max())
    w /= w.sum()
    out = np.zeros((n, n_values))
    stacked = np.array(assigns)
    for s in range(n_values):
        out[:, s] = w @ (stacked == s)
    return out


def predictive_posterior(
    features: np.ndarray,
    sensitive: np.ndarray,
    query: np.ndarray,
    n_values: int,
    domain_sizes: Sequence[int],
    *,
    model: str = "naive-bayes",
    prior: float = 1.0,
) -> np.ndarray:
    """Posterior predictive ``P(S | R = query, data)`` for a person *outside* fully known data.

    Kifer's Table 1 (§3.2): 199 people with known (smoker, cancer), and person 200 known to be a
    smoker. Naive Bayes: ``∝ (n_s + α)·Π_i (n_{i,r_i,s} + α) / (n_s + α|R_i|)``; joint: ``∝
    n_{r,s} + α``. ``features`` is (n, n_features) codes, ``sensitive`` (n,) codes, ``query``
    (n_features,) codes.
    """
    model = check_choice("model", model, MODELS)
    features = np.asarray(features, dtype=np.int64).reshape(len(sensitive), -1)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    query = np.asarray(query, dtype=np.int64)
    if model == "joint":
        match = np.all(features == query, axis=1)
        weight = np.bincount(sensitive[match], minlength=n_values) + prior
    else:
        n_s = np.bincount(sensitive, minlength=n_values).astype(np.float64)
        weight = n_s + prior
        for i, size in enumerate(domain_sizes):
            n_is = np.bincount(sensitive[features[:, i] == query[i]], minlength=n_values)
            weight = weight * (n_is + prior) / (n_s + prior * size)
    return weight / weight.sum()
