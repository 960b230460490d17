"""ARX's "Loss" information-loss metric for full-domain generalizations.

The metric ARX 3.9.2 minimises by default (notes/arx-loss-metric.md, derived from ARX's source and
checked there against ARX's values at six nodes on Adult). For a release that generalizes every
quasi-identifier ``d`` to a fixed level ``L_d`` of its hierarchy (:attr:`Release.levels`):

1. the *domain share* of a generalized value ``g`` is the number of hierarchy-file rows whose
   column ``L_d`` equals ``g``, divided by ``|dom_d|``, the number of rows of the file (not of the
   data: a hierarchy may list values the data lacks);
2. ``A_d = sum over kept classes c of |c| * share_d(g_c) + S`` (``S`` suppressed records, each
   costing 1 with ARX's default generalization/suppression factor 0.5; a release made with a
   suppression limit withholds them and records their number in its manifest);
3. ``m_d = N / |dom_d|`` and ``x_d = max(0, (A_d - m_d) / (N - m_d))``, truncated to 10 decimals
   as ARX does;
4. ``Loss = prod_d (1 + x_d) ** (1 / D) - 1`` (a geometric mean), multiplied in attribute order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release


@dataclass(frozen=True)
class ArxLoss:
    """ARX's Loss of a full-domain release, with each attribute's normalised loss ``x_d``."""

    value: float
    per_attribute: dict[str, float]
    levels: dict[str, int]
    suppressed: int = 0

    def to_json(self) -> dict:
        return {
            "measure": "arx-loss",
            "value": self.value,
            "per_attribute": self.per_attribute,
            "levels": self.levels,
            "suppressed": self.suppressed,
        }


def arx_loss(release: Release) -> ArxLoss:
    """ARX's Loss metric of a full-domain generalization (see the module docstring).

    Raises
    ------
    AnonlabError
        If the release is not a full-domain generalization (no ``levels``), e.g. Mondrian's.

    References
    ----------
    F. Prasser, F. Kohlmayer et al. ARX Data Anonymization Tool 3.9 (``MetricMDNMLoss`` with the
    default settings); notes/arx-loss-metric.md.
    """
    if release.levels is None:
        raise AnonlabError(
            "arx-loss needs a full-domain generalization (a release with hierarchy levels, e.g. "
            "from --algorithm generalize); this release has none"
        )
    table = release.table
    suppressed = int(release.manifest.get("suppressed_records", 0))
    n = table.n_rows + suppressed  # suppressed records are withheld from the release's table
    per_attribute = {}
    for q in release.quasi_identifiers:
        h = table.schema[q].hierarchy
        level = release.levels[q]
        share = h.node_size(level) / len(h)  # per node at this level
        node = h.map(level)[table.leaf_codes(q)[table.codes[q]]]
        a = float(share[node].sum()) + suppressed  # a suppressed record costs 1
        per_attribute[q] = float(attribute_loss(a, n, len(h)))
    value = 1.0 + combine_losses(list(per_attribute.values()))
    return ArxLoss(float(value - 1.0), per_attribute, dict(release.levels), suppressed)


def attribute_loss(a: np.ndarray | float, n: int, dom: int) -> np.ndarray | float:
    """Step 3: ``x_d = max(0, (A_d - m_d) / (N - m_d))`` with ``m_d = N / |dom_d|``, truncated
    to 10 decimals as ARX does. ``a`` may be an array (one ``A_d`` per level or node)."""
    m = n / dom
    if n <= m:
        return np.zeros_like(np.asarray(a, dtype=float))
    return np.floor(np.maximum(0.0, (np.asarray(a, dtype=float) - m) / (n - m)) * 1e10) / 1e10


def combine_losses(per_attribute: list) -> np.ndarray | float:
    """Step 4: ``prod_d (1 + x_d) ** (1 / D) - 1``, multiplied in attribute order as ARX does;
    each ``x_d`` may be an array (one value per lattice node)."""
    d = len(per_attribute)
    value = 1.0
    for x in per_attribute:
        value = value * (1.0 + x) ** (1.0 / d)
    return value - 1.0
