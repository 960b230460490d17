"""ARX's "Loss" information-loss metric for full-domain generalizations, with ARX's options.

The metric ARX 3.9.2 minimises by default (notes/arx-loss-metric.md, derived from ARX's source and
checked there against ARX's values at six nodes on Adult). For a release that generalizes every
quasi-identifier ``d`` to a fixed level ``L_d`` of its hierarchy (:attr:`Release.levels`):

1. the *domain share* of a generalized value ``v`` is the number of hierarchy-file rows whose
   column ``L_d`` equals ``v``, divided by ``|dom_d|``, the number of rows of the file (not of the
   data: a hierarchy may list values the data lacks);
2. ``A_d = g * sum over kept classes c of |c| * share_d(v_c) + (cost of the suppressed records)``;
   a suppressed record costs 1 when ``s = 1`` (the default), else ``share + s * (1 - share)``
   with the share of the value it would have been published as; a release made with a
   suppression limit withholds these records and records their number in its manifest;
3. ``m_d = g * N / |dom_d|`` and ``x_d = max(0, (A_d - m_d) / (N - m_d))``, truncated to 10
   decimals as ARX does;
4. the ``x_d`` are aggregated, by default ``Loss = prod_d (1 + x_d) ** (1 / D) - 1`` (a geometric
   mean), multiplied in attribute order.

ARX's options of the measure (``Metric.createLossMetric(gsFactor, aggregateFunction)`` and
``ARXConfiguration.setAttributeWeight``), read from ARX's source (arx-deidentifier/arx,
``src/main/org/deidentifier/arx/metric/v2/MetricMDNMLoss.java`` for the factors,
``AbstractMetricMultiDimensional.java`` for the weights, ``ILMultiDimensionalGeometricMean``,
``ILMultiDimensionalArithmeticMean``, ``ILMultiDimensionalSum``, ``ILMultiDimensionalMax`` and
``ILMultiDimensionalRank.java`` for the aggregates) and checked against ARX 3.9.2's values at four
nodes of Adult (tests/utility/test_arx_loss_options.py):

* ``gs_factor`` in [0, 1] (ARX's generalization/suppression factor, default 0.5) gives the
  suppression factor ``s = 2 gs`` below 0.5, else 1, and the generalization factor
  ``g = 1 - 2 (gs - 0.5)`` above 0.5, else 1: 0 favours suppression, 1 generalization;
* ``weights``: one weight >= 0 per attribute; ARX gives an attribute left out 0.5 and divides all
  by the largest (all 0: every weight 1); equal weights change nothing;
* ``aggregate``: ``"geometric-mean"`` ``prod_d (1 + x_d w_d) ** (1/D) - 1`` (as ARX 3.9.2's
  compiled ``ILMultiDimensionalGeometricMean.getAggregate`` computes it; older sources in ARX's
  history multiply ``(1 + x_d)`` by ``w_d`` instead, which 3.9.2's values contradict),
  ``"arithmetic-mean"`` ``sum_d (x_d / D) w_d``, ``"sum"`` ``sum_d x_d w_d``, ``"maximum"``
  ``max_d x_d w_d``, ``"rank"`` the vector of ``x_d w_d`` sorted in descending order, compared
  lexicographically (:attr:`ArxLoss.ranking`; its headline :attr:`ArxLoss.value` is the first,
  largest entry).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release

#: ARX's aggregate functions of a multi-dimensional metric (``Metric.AggregateFunction``).
AGGREGATES = ("geometric-mean", "arithmetic-mean", "sum", "maximum", "rank")
#: ARX's weight of an attribute given none (``ARXConfiguration.getAttributeWeight``).
DEFAULT_WEIGHT = 0.5


@dataclass(frozen=True)
class ArxLoss:
    """ARX's Loss of a full-domain release, with each attribute's normalised loss ``x_d``.

    Attributes
    ----------
    value : float
        The aggregate (for ``aggregate="rank"``: the largest weighted ``x_d``).
    per_attribute : dict of str to float
        ``x_d`` per quasi-identifier (unweighted, truncated to 10 decimals).
    levels : dict of str to int
    suppressed : int
        Records withheld by suppression.
    gs_factor : float
    aggregate : str
    weights : dict of str to float or None
        The normalised weights (largest 1) when weights were given, else None.
    ranking : tuple of float or None
        For ``aggregate="rank"``: the weighted ``x_d`` in descending order.
    """

    value: float
    per_attribute: dict[str, float]
    levels: dict[str, int]
    suppressed: int = 0
    gs_factor: float = 0.5
    aggregate: str = "geometric-mean"
    weights: dict[str, float] | None = None
    ranking: tuple[float, ...] | None = None

    def to_json(self) -> dict:
        out = {
            "measure": "arx-loss",
            "value": self.value,
            "per_attribute": self.per_attribute,
            "levels": self.levels,
            "suppressed": self.suppressed,
        }
        # ARX's options, written only where they differ from ARX's defaults.
        if self.gs_factor != 0.5:
            out["gs_factor"] = self.gs_factor
        if self.aggregate != "geometric-mean":
            out["aggregate"] = self.aggregate
        if self.weights is not None:
            out["weights"] = dict(self.weights)
        if self.ranking is not None:
            out["ranking"] = list(self.ranking)
        return out


def arx_loss(
    release: Release,
    *,
    gs_factor: float = 0.5,
    weights: Mapping[str, float] | None = None,
    aggregate: str = "geometric-mean",
    original=None,
) -> ArxLoss:
    """ARX's Loss metric of a full-domain generalization (see the module docstring).

    Parameters
    ----------
    release : Release
        A full-domain generalization (``release.levels``), e.g. from the lattice search.
    gs_factor : float, default=0.5
        ARX's generalization/suppression factor in [0, 1].
    weights : mapping of str to float, optional
        ARX's attribute weights (>= 0); attributes left out weigh 0.5, as in ARX.
    aggregate : {"geometric-mean", "arithmetic-mean", "sum", "maximum", "rank"}
    original : Table, optional
        The table the release was made from. Needed only when ``gs_factor < 0.5`` and records
        were suppressed: a suppressed record then costs by how far its own values would have
        been generalized, and the release does not hold the records it withheld.

    Raises
    ------
    AnonlabError
        If the release is not a full-domain generalization (no ``levels``), e.g. Mondrian's; if
        an option is out of range; if ``original`` is needed and missing or does not match.

    References
    ----------
    F. Prasser, F. Kohlmayer et al. ARX Data Anonymization Tool 3.9 (``MetricMDNMLoss``);
    notes/arx-loss-metric.md.
    """
    if release.levels is None:
        raise AnonlabError(
            "arx-loss needs a full-domain generalization (a release with hierarchy levels, e.g. "
            "from --algorithm generalize); this release has none"
        )
    g, s = arx_factors(gs_factor)
    aggregate = _check_aggregate(aggregate)
    qis = list(release.quasi_identifiers)
    w = normalized_weights(qis, weights)
    table = release.table
    suppressed = int(release.manifest.get("suppressed_records", 0))
    n = table.n_rows + suppressed  # suppressed records are withheld from the release's table
    withheld = None
    if s < 1 and suppressed > 0:
        withheld = _withheld_records(release, original, suppressed)
    per_attribute = {}
    for q in qis:
        h = table.schema[q].hierarchy
        level = release.levels[q]
        sizes = h.node_size(level)  # leaves under each node at this level
        share = sizes / len(h)
        node = h.map(level)[table.leaf_codes(q)[table.codes[q]]]
        # the integer sum divided once, as the lattice search computes it
        # (anonymize.lattice.metrics.arx_loss_with_suppression): attribute_loss truncates to
        # 10 decimals as ARX does, so a sum of float shares, off in the last bit, could land
        # on the other side of a truncation step (found: two nodes' costs 4e-11 apart, swapped)
        a = float(np.sum(sizes[node], dtype=np.int64)) / len(h)
        if g != 1.0:
            a *= g
        if withheld is None:
            a += suppressed  # a suppressed record costs 1 (s = 1)
        else:
            codes = withheld.codes[q]
            sh = share[h.map(level)[withheld.leaf_codes(q)[codes]]]
            a += float(np.sum(sh + s * (1.0 - sh)))
        per_attribute[q] = float(attribute_loss(a, n, len(h), g_factor=g))
    combined = combine_losses(list(per_attribute.values()), aggregate=aggregate, weights=w)
    ranking = None
    if aggregate == "rank":
        ranking = tuple(float(v) for v in combined)
        value = ranking[0] if ranking else 0.0
    else:
        value = float(combined)
    return ArxLoss(
        value=float(value),
        per_attribute=per_attribute,
        levels=dict(release.levels),
        suppressed=suppressed,
        gs_factor=float(gs_factor),
        aggregate=aggregate,
        weights=None if weights is None else dict(zip(qis, map(float, w), strict=True)),
        ranking=ranking,
    )


def arx_factors(gs_factor: float) -> tuple[float, float]:
    """ARX's generalization and suppression factors ``(g, s)`` of a gs-factor in [0, 1]
    (``MetricMDNMLoss``: ``s = gs < 0.5 ? 2 gs : 1``, ``g = gs <= 0.5 ? 1 : 1 - 2 (gs - 0.5)``)."""
    if isinstance(gs_factor, bool) or not isinstance(gs_factor, int | float | np.number):
        raise AnonlabError(f"gs_factor must be a number in [0, 1], got {gs_factor!r}")
    gs = float(gs_factor)
    if not 0.0 <= gs <= 1.0:
        raise AnonlabError(
            f"gs_factor must lie in [0, 1] (ARX's generalization/suppression factor: 0 favours "
            f"suppression, 1 generalization, 0.5 treats both alike), got {gs_factor!r}"
        )
    s = 2.0 * gs if gs < 0.5 else 1.0
    g = 1.0 if gs <= 0.5 else 1.0 - 2.0 * (gs - 0.5)
    return g, s


def normalized_weights(
    attributes: Sequence[str], weights: Mapping[str, float] | None
) -> list[float] | None:
    """ARX's attribute weights, one per attribute in order, divided by the largest; None when
    no weights are given (every weight 1). An attribute left out weighs 0.5 before the division
    (ARX's default); all weights 0 give every attribute 1, as in ARX."""
    if weights is None:
        return None
    if not isinstance(weights, Mapping):
        raise AnonlabError(
            f"weights must map attribute names to numbers (e.g. {{'age': 1.0}}), got "
            f"{type(weights).__name__}"
        )
    unknown = [a for a in weights if a not in attributes]
    if unknown:
        raise AnonlabError(
            f"weights given for {unknown}, which are not quasi-identifiers; they are "
            f"{list(attributes)}"
        )
    raw = []
    for a in attributes:
        v = weights.get(a, DEFAULT_WEIGHT)
        if isinstance(v, bool) or not isinstance(v, int | float | np.number):
            raise AnonlabError(f"weights[{a!r}] must be a number >= 0, got {v!r}")
        if not np.isfinite(v) or v < 0:
            raise AnonlabError(f"weights[{a!r}] must be a finite number >= 0, got {v!r}")
        raw.append(float(v))
    top = max(raw, default=0.0)
    if top == 0.0:
        return [1.0] * len(raw)
    return [v / top for v in raw]


def attribute_loss(
    a: np.ndarray | float, n: int, dom: int, *, g_factor: float = 1.0
) -> np.ndarray | float:
    """Step 3: ``x_d = max(0, (A_d - m_d) / (N - m_d))`` with ``m_d = g N / |dom_d|``, truncated
    to 10 decimals as ARX does. ``a`` may be an array (one ``A_d`` per level or node)."""
    m = n / dom if g_factor == 1.0 else g_factor * n / dom
    if n <= m:
        return np.zeros_like(np.asarray(a, dtype=float))
    return np.floor(np.maximum(0.0, (np.asarray(a, dtype=float) - m) / (n - m)) * 1e10) / 1e10


def combine_losses(
    per_attribute: list,
    *,
    aggregate: str = "geometric-mean",
    weights: Sequence[float] | None = None,
) -> np.ndarray | float:
    """Step 4: aggregate the ``x_d`` (each may be an array, one value per lattice node).

    The default is ARX's geometric mean ``prod_d (1 + x_d w_d) ** (1 / D) - 1``, multiplied in
    attribute order as ARX does. ``weights`` are the normalised weights
    (:func:`normalized_weights`), one per attribute, or None for all 1. For ``"rank"`` the result
    is the weighted values sorted in descending order (last axis: attributes).
    """
    aggregate = _check_aggregate(aggregate)
    d = len(per_attribute)
    w = [1.0] * d if weights is None else [float(v) for v in weights]
    if len(w) != d:
        raise AnonlabError(f"{len(w)} weights for {d} attributes")
    if aggregate == "geometric-mean":
        value = 1.0
        for x, wi in zip(per_attribute, w, strict=True):
            value = value * ((1.0 + x) if weights is None else x * wi + 1.0) ** (1.0 / d)
        return value - 1.0
    if aggregate == "arithmetic-mean":
        value = 0.0
        for x, wi in zip(per_attribute, w, strict=True):
            value = value + (x / d) * wi
        return value
    if aggregate == "sum":
        value = 0.0
        for x, wi in zip(per_attribute, w, strict=True):
            value = value + x * wi
        return value
    weighted = [np.asarray(x, dtype=float) * wi for x, wi in zip(per_attribute, w, strict=True)]
    if aggregate == "maximum":
        value = 0.0
        for x in weighted:
            value = np.maximum(value, x)
        return value if np.ndim(value) else float(value)
    if not weighted:
        return np.zeros(0)
    stacked = np.stack(np.broadcast_arrays(*weighted), axis=-1)
    return -np.sort(-stacked, axis=-1)


def _check_aggregate(aggregate: str) -> str:
    if aggregate not in AGGREGATES:
        raise AnonlabError(
            f"aggregate must be one of {list(AGGREGATES)} (ARX's aggregate functions), got "
            f"{aggregate!r}"
        )
    return aggregate


def _withheld_records(release: Release, original, suppressed: int):
    """The records a release withheld by suppression: ``original``'s rows whose input row id the
    release's table lacks (checked: as many as the manifest counts, same hierarchies)."""
    from anonlab.table import Table

    if original is None:
        raise AnonlabError(
            "with gs_factor < 0.5 a suppressed record costs by how far its values would have "
            "been generalized, and this release withheld its "
            f"{suppressed} suppressed records; pass original=TABLE, the table it was made from"
        )
    if not isinstance(original, Table):
        raise AnonlabError(f"original must be a Table, got {type(original).__name__}")
    kept = np.isin(original.row_id, release.table.row_id)
    rows = np.flatnonzero(~kept)
    if len(rows) != suppressed or int(kept.sum()) != release.table.n_rows:
        raise AnonlabError(
            f"original has {len(rows)} records the release lacks and {int(kept.sum())} it holds; "
            f"the release withheld {suppressed} and holds {release.table.n_rows}. Is this the "
            "table the release was made from?"
        )
    for q in release.quasi_identifiers:
        if (
            q not in original.schema.names
            or original.schema[q].hierarchy != release.table.schema[q].hierarchy
        ):
            raise AnonlabError(
                f"original's quasi-identifier {q!r} is missing or has another hierarchy than the "
                "release's; pass the table the release was made from"
            )
    return original.take(rows)
