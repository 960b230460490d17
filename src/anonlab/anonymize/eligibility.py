"""ℓ-eligibility (Xiao & Tao, VLDB 2006, Property I): a table has an ℓ-diverse partition in the
frequency form iff no protected sensitive value occurs in more than n/ℓ of its records."""

from __future__ import annotations

import numpy as np

from anonlab.errors import IneligibleError
from anonlab.table import Table


def require_l_eligible(
    table: Table, l: int, constrained: np.ndarray, codes: np.ndarray | None = None
) -> None:
    """Raise :class:`IneligibleError` naming the value and the largest ℓ the table allows.

    ``constrained`` is the bool mask of protected values over the sensitive domain; ``codes``
    (default: the table's sensitive codes) may merge several values into one (a value *set*
    protected as one value).
    """
    sens = table.require_sensitive()
    codes = table.codes[sens] if codes is None else codes
    counts = np.bincount(codes, minlength=len(constrained))
    require_l_eligible_counts(counts, l, constrained, table.values[sens], sens)


def require_l_eligible_counts(
    counts: np.ndarray, l: int, constrained: np.ndarray, values: np.ndarray, name: str
) -> None:
    """:func:`require_l_eligible` from the sensitive value counts alone (``counts[v]`` records
    hold value ``v``; ``values`` names them, ``name`` is the attribute), e.g. counts reduced
    from a cluster's workers."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    worst = int(np.argmax(np.where(constrained, counts, -1)))
    if constrained[worst] and l * counts[worst] > n:
        raise IneligibleError(
            f"the table is not {l}-eligible: value {values[worst]!r} of {name!r} "
            f"occurs in {counts[worst]} of {n} records ({counts[worst] / n:.1%}), more than "
            f"1/ℓ = {1 / l:.1%}; the largest ℓ this table allows is {n // counts[worst]}"
        )
