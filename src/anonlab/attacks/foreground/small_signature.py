"""Sufficient and small signatures: Theorem 1's support ``J`` and the rules for the rest.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011), §4.2: a signature matched by at least ``J = ceil(ln(2/σ) / (2ε²))`` records is
*sufficient*, and its ``f`` is solved for (Eq. 4). For the others the paper says only that
"uniform distribution will be assumed"; ``SMALL_SIGNATURE`` lists the readings implemented, and
:func:`signature_unknowns` applies one to an attribute set's signatures.
"""

from __future__ import annotations

import math

import numpy as np

from anonlab._validation import check_float
from anonlab.errors import AnonlabError

SMALL_SIGNATURE = ("uniform-half", "base-rate", "pooled")
"""Rules for signatures with fewer than ``J`` matching records.

* ``"uniform-half"`` (default): ``f = 0.5``, fixed, not solved for. "Uniform distribution"
  read as uniform over ``{x, not x}``. With a rare ``x`` this makes a record with an
  insufficient signature far more likely than its group mates to hold ``x``; it is the reading
  that reproduces the paper's Adult numbers best.
* ``"base-rate"``: ``f = #x / |T*|``, fixed (the notes' default, option (a)): uniform over the
  records, neutral relative to the sufficient signatures.
* ``"pooled"``: all insufficient signatures of the attribute set share one unknown, solved like
  the others (the notes' option (b)).
"""


def hoeffding_support(epsilon: float, sigma: float) -> int:
    """Sample size of Theorem 1 (Toivonen): ``J = ceil(ln(2/σ) / (2 ε²))``.

    ``hoeffding_support(0.01, 0.9) == 3993``, the paper's setting.
    """
    epsilon = check_float("epsilon", epsilon, low=0.0, high=1.0)
    sigma = check_float("sigma", sigma, low=0.0, high=1.0)
    if epsilon <= 0 or sigma <= 0:
        raise AnonlabError(
            f"parameters 'epsilon' and 'sigma' must be > 0, got epsilon={epsilon}, sigma={sigma}"
        )
    return max(1, math.ceil(math.log(2.0 / sigma) / (2.0 * epsilon * epsilon)))


def signature_unknowns(
    sufficient: np.ndarray, small_signature: str, base: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per signature: its unknown (-1 where ``f`` is fixed), its fixed ``f`` (ignored where
    solved for) and the number of unknowns, under the ``small_signature`` rule.

    The unknowns of Eq. (4) are the sufficient signatures' ``f_i`` (numbered in signature
    order), plus, under ``"pooled"``, one shared by every insufficient signature (numbered
    last). ``sufficient`` is a boolean array over the signatures of one attribute set;
    ``small_signature`` must already be one of ``SMALL_SIGNATURE`` (checked by the caller, e.g.
    :func:`~anonlab.attacks.foreground.inputs.mining_options`); ``base`` is the table's rate
    ``#x / |T*|``, the fixed ``f`` under ``"base-rate"``.
    """
    m = len(sufficient)
    sig_var = np.full(m, -1, dtype=np.int64)
    sig_var[sufficient] = np.arange(int(sufficient.sum()))
    n_vars = int(sufficient.sum())
    fixed_sig = np.zeros(m)
    if small_signature == "uniform-half":
        fixed_sig[~sufficient] = 0.5
    elif small_signature == "base-rate":
        fixed_sig[~sufficient] = base
    elif (~sufficient).any():  # pooled: one more unknown shared by every small signature
        sig_var[~sufficient] = n_vars
        n_vars += 1
    return sig_var, fixed_sig, n_vars
