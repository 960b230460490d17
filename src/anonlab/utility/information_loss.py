"""Information-loss measures computed from the groups of a release.

* Discernibility metric (Bayardo & Agrawal, ICDE 2005): ``DM = sum_g |g|^2``.
* Average equivalence class size (LeFevre et al., ICDE 2006, ``C_AVG``): ``n / G``, and
  ``(n / G) / k`` when ``k`` is given; ``definition="arx"``: ARX's ``AECS``, which counts the
  suppressed records and gives them one class of their own.
* Precision loss of a full-domain generalization (Sweeney, IJUFKS 2002): the mean over
  quasi-identifiers of level / height, as the lattice search's ``precision`` metric ranks nodes;
  ``definition="arx"``: ARX's precision, which charges each suppressed record fully.
* Normalized certainty penalty (Xu et al., KDD 2006): how much of each quasi-identifier's domain
  a record's published value spans, averaged over records and quasi-identifiers.

All work per group (group sizes and the per-group published values), never per record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import check_choice, check_int
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.schema import Kind

__all__ = [
    "AverageClassSize",
    "CertaintyPenalty",
    "Discernibility",
    "PrecisionLoss",
    "average_class_size",
    "discernibility",
    "normalized_certainty_penalty",
    "precision_loss",
]

#: Forms of the categorical penalty accepted by :func:`normalized_certainty_penalty`.
CATEGORICAL_FORMS = ("range", "xu")
#: Definitions accepted by :func:`average_class_size` and :func:`precision_loss`: anonlab's
#: (the default) and ARX 3.9's.
DEFINITIONS = ("anonlab", "arx")


def _check_release(release: object) -> Release:
    if not isinstance(release, Release):
        raise AnonlabError(f"expected a Release, got {type(release).__name__}")
    return release


# ------------------------------------------------------------------------------- discernibility
@dataclass(frozen=True)
class Discernibility:
    """The discernibility metric of a release.

    Attributes
    ----------
    value : int
        ``sum_g |g|^2``: each record is charged the size of the group it is indistinguishable in.
    n_rows, n_groups : int
    suppressed : int
        Records withheld by suppression; Bayardo and Agrawal charge each of them ``n``.
    """

    value: int
    n_rows: int
    n_groups: int
    suppressed: int = 0

    def to_json(self) -> dict:
        return {
            "measure": "discernibility",
            "value": self.value,
            "n_rows": self.n_rows,
            "n_groups": self.n_groups,
            "suppressed": self.suppressed,
        }


def discernibility(release: Release) -> Discernibility:
    """Discernibility metric ``C_DM = sum_g |g|^2`` (Bayardo & Agrawal, ICDE 2005).

    The paper's full form is ``sum_{|E| >= k} |E|^2 + sum_{E suppressed} n * |E|``: each record
    withheld by suppression (``manifest["suppressed_records"]``, e.g. from the lattice search's
    suppression limit) costs ``n``, the number of input records. The value ranges from ``n``
    (every record its own group) to ``n^2`` (one group). It is the same for both schemes.

    Parameters
    ----------
    release : Release

    Returns
    -------
    Discernibility

    References
    ----------
    R. J. Bayardo and R. Agrawal. Data privacy through optimal k-anonymization. ICDE 2005.
    """
    release = _check_release(release)
    sizes = release.group_sizes.astype(np.int64)
    suppressed = int(release.manifest.get("suppressed_records", 0))
    n_input = int(release.table.n_rows) + suppressed
    return Discernibility(
        value=int(np.dot(sizes, sizes)) + suppressed * n_input,
        n_rows=int(release.table.n_rows),
        n_groups=int(release.n_groups),
        suppressed=suppressed,
    )


# ---------------------------------------------------------------------------- average class size
@dataclass(frozen=True)
class AverageClassSize:
    """Average equivalence class size.

    Attributes
    ----------
    value : float
        ``n / G`` (``definition="arx"``: ARX's AECS, see :func:`average_class_size`).
    normalized : float or None
        ``value / k`` when ``k`` was given (1 is the ideal for k-anonymity).
    k : int or None
    n_rows, n_groups : int
        Published records and classes.
    definition : str
        ``"anonlab"`` or ``"arx"``.
    suppressed : int
        Records withheld by suppression (counted by ``definition="arx"`` only).
    """

    value: float
    normalized: float | None
    k: int | None
    n_rows: int
    n_groups: int
    definition: str = "anonlab"
    suppressed: int = 0

    def to_json(self) -> dict:
        out = {
            "measure": "average-class-size",
            "value": self.value,
            "normalized": self.normalized,
            "k": self.k,
            "n_rows": self.n_rows,
            "n_groups": self.n_groups,
        }
        if self.definition != "anonlab":  # the default's output is as it always was
            out["definition"] = self.definition
            out["suppressed"] = self.suppressed
        return out


def average_class_size(
    release: Release,
    k: int | None = None,
    definition: str = "anonlab",
    gs_factor: float = 0.5,
) -> AverageClassSize:
    """Average equivalence class size, normalised by ``k`` when given.

    ``definition="anonlab"`` (the default): ``n / G``, the published records per class.
    ``C_AVG = (n / G) / k`` is LeFevre et al.'s normalised form (Mondrian, ICDE 2006). Under
    bucketization the classes are the buckets.

    ``definition="arx"``: ARX's "AECS" (``MetricSDAECS``), ``N / (G + 1)`` when records were
    suppressed and ``N / G`` otherwise, where ``N`` counts the suppressed records too
    (``manifest["suppressed_records"]``): the suppressed records count as one more class. With
    ARX's generalization/suppression factor (``gs_factor``, see
    :func:`anonlab.utility.arx_loss.arx_factors`, giving ``g`` and ``s``) the denominator is
    ``s G + g [S > 0]`` (ARX swaps the two factors here on purpose); the default 0.5 makes both
    1. ARX does not normalise by ``k``; ``k`` still divides the value when given. Read from
    arx-deidentifier/arx ``src/main/org/deidentifier/arx/metric/v2/MetricSDAECS.java``
    (``getInformationLossInternal``) and checked against ARX 3.9.2's values on Adult
    (tests/test_arx_parity.py: ARX's JUnit ``TestUtilityMetrics``, AECS with 5-anonymity).

    Parameters
    ----------
    release : Release
    k : int, optional
        The k of k-anonymity (or the l of l-diversity) the release was made for, ``k >= 1``.
    definition : {"anonlab", "arx"}, default="anonlab"
    gs_factor : float, default=0.5
        ARX's generalization/suppression factor in [0, 1]; ``definition="arx"`` only.

    Returns
    -------
    AverageClassSize

    References
    ----------
    K. LeFevre, D. J. DeWitt and R. Ramakrishnan. Mondrian multidimensional k-anonymity.
    ICDE 2006.
    """
    from anonlab.utility.arx_loss import arx_factors

    release = _check_release(release)
    if k is not None:
        k = check_int("k", k, minimum=1)
    definition = check_choice("definition", definition, DEFINITIONS)
    g, s = arx_factors(gs_factor)
    if definition == "anonlab" and gs_factor != 0.5:
        raise AnonlabError("gs_factor applies to definition='arx' only (ARX's factor)")
    n = int(release.table.n_rows)
    suppressed = _suppressed(release)
    if definition == "arx":
        groups = release.n_groups * s + (g if suppressed else 0.0)  # ARX swaps g and s here
        avg = (n + suppressed) / groups
    else:
        avg = n / release.n_groups
    return AverageClassSize(
        value=float(avg),
        normalized=None if k is None else float(avg / k),
        k=k,
        n_rows=n,
        n_groups=int(release.n_groups),
        definition=definition,
        suppressed=suppressed,
    )


def _suppressed(release: Release) -> int:
    """Records the release withheld by suppression (its manifest's count)."""
    return int(release.manifest.get("suppressed_records", 0) or 0)


# ------------------------------------------------------------------------------------ precision
@dataclass(frozen=True)
class PrecisionLoss:
    """Precision loss of a full-domain generalization.

    Attributes
    ----------
    value : float
        In [0, 1] for the default options: 0 when nothing is generalized, 1 when every
        attribute is ``*`` (or, under ``definition="arx"``, every record suppressed).
    per_attribute : dict of str to float
        The loss of each quasi-identifier before aggregation.
    levels : dict of str to int
    definition : str
    suppressed : int
    """

    value: float
    per_attribute: dict[str, float]
    levels: dict[str, int]
    definition: str = "anonlab"
    suppressed: int = 0

    def to_json(self) -> dict:
        return {
            "measure": "precision",
            "value": self.value,
            "per_attribute": dict(self.per_attribute),
            "levels": dict(self.levels),
            "definition": self.definition,
            "suppressed": self.suppressed,
        }


def precision_loss(
    release: Release,
    definition: str = "anonlab",
    *,
    gs_factor: float = 0.5,
    aggregate: str = "arithmetic-mean",
    weights: dict[str, float] | None = None,
) -> PrecisionLoss:
    """Precision loss (1 − Sweeney's Prec) of a full-domain generalization.

    For quasi-identifier ``d`` at level ``L_d`` of a hierarchy of height ``H_d``:

    * ``definition="anonlab"`` (the default): ``p_d = L_d / H_d`` (0 when ``H_d`` is 0), and the
      value is their mean; records withheld by suppression are not counted. This is the
      ``precision`` metric by which the lattice search (:func:`anonlab.anonymize.lattice`) ranks
      nodes.
    * ``definition="arx"``: ARX's precision (``Metric.createPrecisionMetric(false)``, the
      non-monotonic ``MetricMDNMPrecision``), which charges each suppressed record fully:
      ``p_d = ((N − S) g L_d / H_d + S s) / N`` with ``N`` all input records, ``S`` those
      suppressed and ARX's factors ``g``, ``s`` of ``gs_factor``
      (:func:`anonlab.utility.arx_loss.arx_factors`; both 1 by default), aggregated with
      ARX's aggregate functions and weights (:func:`anonlab.utility.arx_loss.combine_losses`;
      ARX's default is the arithmetic mean ``sum_d (p_d / D) w_d``). Read from
      arx-deidentifier/arx ``src/main/org/deidentifier/arx/metric/v2/MetricMDNMPrecision.java``
      (``getInformationLossInternal``) and checked against ARX 3.9.2's values on Adult
      (tests/test_arx_parity.py: ARX's JUnit ``TestUtilityMetrics``, precision with
      5-anonymity, and tests/utility/test_arx_loss_options.py).

    Parameters
    ----------
    release : Release
        A full-domain generalization (``release.levels``).
    definition : {"anonlab", "arx"}, default="anonlab"
    gs_factor : float, default=0.5
        ``definition="arx"`` only.
    aggregate : str, default="arithmetic-mean"
        ``definition="arx"`` only: one of
        :data:`anonlab.utility.arx_loss.AGGREGATES` except ``"rank"``.
    weights : dict of str to float, optional
        ``definition="arx"`` only: ARX's attribute weights.

    Returns
    -------
    PrecisionLoss

    References
    ----------
    L. Sweeney. Achieving k-anonymity privacy protection using generalization and suppression.
    IJUFKS 10(5), 2002.
    """
    from anonlab.utility.arx_loss import arx_factors, combine_losses, normalized_weights

    release = _check_release(release)
    definition = check_choice("definition", definition, DEFINITIONS)
    if release.levels is None:
        raise AnonlabError(
            "precision needs a full-domain generalization (a release with hierarchy levels, e.g. "
            "from the lattice search or --algorithm generalize); this release has none"
        )
    if definition == "anonlab" and (
        gs_factor != 0.5 or aggregate != "arithmetic-mean" or weights is not None
    ):
        raise AnonlabError(
            "gs_factor, aggregate and weights are ARX's options: give them with definition='arx'"
        )
    if aggregate == "rank":
        raise AnonlabError("aggregate='rank' gives a vector; use arx_loss for ARX's rank order")
    g, s = arx_factors(gs_factor)
    table = release.table
    qis = list(release.quasi_identifiers)
    suppressed = _suppressed(release)
    n_kept = float(table.n_rows)
    n_all = n_kept + suppressed
    per_attribute: dict[str, float] = {}
    for q in qis:
        height = table.schema[q].hierarchy.height
        level = release.levels[q]
        share = 0.0 if height == 0 else level / height
        if definition == "arx":
            per_attribute[q] = (
                (n_kept * share * g + suppressed * s) / n_all if n_all else 0.0
            )  # ARX: result[i] += unsuppressed * value * g + suppressed * s; result[i] /= rows
        else:
            per_attribute[q] = float(share)
    if definition == "arx":
        w = normalized_weights(qis, weights)
        value = float(combine_losses(list(per_attribute.values()), aggregate=aggregate, weights=w))
    else:
        value = float(np.mean(list(per_attribute.values()))) if qis else 0.0
    return PrecisionLoss(
        value=value,
        per_attribute=per_attribute,
        levels=dict(release.levels),
        definition=definition,
        suppressed=suppressed,
    )


# ---------------------------------------------------------------------------------------- NCP
@dataclass(frozen=True)
class CertaintyPenalty:
    """Normalized certainty penalty of a release.

    Attributes
    ----------
    value : float
        Mean penalty over records and quasi-identifiers, in [0, 1].
    total : float
        ``sum_records sum_qi penalty``: Xu et al.'s ``NCP(T)`` with unit weights.
    per_attribute : dict of str to float
        Mean penalty over records, per quasi-identifier.
    per_group : ndarray of shape (n_groups,)
        Mean penalty over quasi-identifiers of each group's records.
    scheme : str
    categorical : str
        Form of the categorical penalty (``"range"`` or ``"xu"``).
    """

    value: float
    total: float
    per_attribute: dict[str, float]
    scheme: str
    categorical: str
    per_group: np.ndarray = field(repr=False)

    def to_json(self) -> dict:
        return {
            "measure": "ncp",
            "value": self.value,
            "total": self.total,
            "per_attribute": dict(self.per_attribute),
            "scheme": self.scheme,
            "categorical": self.categorical,
        }


def normalized_certainty_penalty(release: Release, categorical: str = "range") -> CertaintyPenalty:
    """Normalized certainty penalty (NCP) of the published quasi-identifiers.

    For a record ``t`` in group ``g`` and a quasi-identifier ``A``:

    * numeric: ``(max_g - min_g) / (max_A - min_A)``, the width of the group's published range
      over that of the attribute's domain, in the attribute's values (0 when the domain has one
      value);
    * categorical, ``categorical="range"`` (default): ``(|u| - 1) / (|A| - 1)``, where ``|u|`` is
      the number of domain values the published value covers (hierarchy node or value set) and
      ``|A|`` the domain size; 0 when ``|A| = 1``. A leaf costs 0 and ``*`` costs 1, as in the
      numeric form;
    * categorical, ``categorical="xu"``: Xu et al.'s printed form, 0 when ``|u| = 1`` and
      ``|u| / |A|`` otherwise.

    Values are counted in the table's domain (the distinct values present), also for hierarchy
    nodes. The penalties are averaged over records and quasi-identifiers (Xu et al. sum them,
    reported as :attr:`CertaintyPenalty.total`).

    Under bucketization the quasi-identifiers are published exactly, so the NCP is 0; the loss
    is in the QI-sensitive association, which :func:`~anonlab.utility.workload.workload_error`
    measures.

    Parameters
    ----------
    release : Release
    categorical : {"range", "xu"}, default="range"

    Returns
    -------
    CertaintyPenalty

    References
    ----------
    J. Xu, W. Wang, J. Pei, X. Wang, B. Shi and A. W.-C. Fu. Utility-based anonymization using
    local recoding. KDD 2006.
    """
    release = _check_release(release)
    categorical = check_choice("categorical", categorical, CATEGORICAL_FORMS)
    table = release.table
    qis = table.quasi_identifiers
    sizes = release.group_sizes.astype(np.float64)
    n = float(table.n_rows)
    # One attribute's (n_groups,) penalties at a time, added in attribute order (the same sums
    # as a (n_qi, n_groups) matrix's column sums, without the matrix: 140 MB at 2.5 million
    # groups of 7 quasi-identifiers).
    summed = np.zeros(release.n_groups, dtype=np.float64)
    per_attribute = {}
    for q in qis:
        penalty = _ncp_penalty(release, q, categorical)
        per_attribute[q] = float(penalty @ sizes / n)
        summed += penalty
        del penalty
    per_group = summed / len(qis) if len(qis) else np.zeros(release.n_groups)
    total = float(summed @ sizes)
    return CertaintyPenalty(
        value=float(per_group @ sizes / n),
        total=total,
        per_attribute=per_attribute,
        scheme=release.scheme,
        categorical=categorical,
        per_group=per_group,
    )


def _ncp_penalty(release: Release, q: str, categorical: str) -> np.ndarray:
    """Each group's NCP of quasi-identifier ``q``, shape (n_groups,), float64: 0 under
    bucketization (exact values are published) and for a single-valued domain."""
    table = release.table
    penalty = np.zeros(release.n_groups, dtype=np.float64)
    if release.scheme != "generalization":
        return penalty
    ga = release.generalization[q]
    if table.schema[q].kind is Kind.NUMERIC:
        values = table.values[q].astype(np.float64)
        span = values[-1] - values[0]
        if span > 0:
            penalty[:] = (values[ga.hi] - values[ga.lo]) / span
    else:
        size = table.domain_size(q)
        cover = ga.cover_size().astype(np.float64)
        if categorical == "range":
            if size > 1:
                penalty[:] = (cover - 1) / (size - 1)
        else:
            penalty[:] = np.where(cover > 1, cover / size, 0.0)
    return penalty
