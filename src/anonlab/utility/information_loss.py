"""Information-loss measures computed from the groups of a release.

* Discernibility metric (Bayardo & Agrawal, ICDE 2005): ``DM = sum_g |g|^2``.
* Average equivalence class size (LeFevre et al., ICDE 2006, ``C_AVG``; ARX's ``AECS``):
  ``n / G``, and ``(n / G) / k`` when ``k`` is given.
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
    "average_class_size",
    "discernibility",
    "normalized_certainty_penalty",
]

#: Forms of the categorical penalty accepted by :func:`normalized_certainty_penalty`.
CATEGORICAL_FORMS = ("range", "xu")


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
        ``n / G``.
    normalized : float or None
        ``(n / G) / k`` when ``k`` was given (1 is the ideal for k-anonymity).
    k : int or None
    n_rows, n_groups : int
    """

    value: float
    normalized: float | None
    k: int | None
    n_rows: int
    n_groups: int

    def to_json(self) -> dict:
        return {
            "measure": "average-class-size",
            "value": self.value,
            "normalized": self.normalized,
            "k": self.k,
            "n_rows": self.n_rows,
            "n_groups": self.n_groups,
        }


def average_class_size(release: Release, k: int | None = None) -> AverageClassSize:
    """Average equivalence class size ``n / G``, normalised by ``k`` when given.

    ``C_AVG = (n / G) / k`` is LeFevre et al.'s normalised form (Mondrian, ICDE 2006); ARX
    reports the unnormalised ``n / G`` as "AECS" (``MetricSDAECS``). Under bucketization the
    classes are the buckets.

    Parameters
    ----------
    release : Release
    k : int, optional
        The k of k-anonymity (or the l of l-diversity) the release was made for, ``k >= 1``.

    Returns
    -------
    AverageClassSize

    References
    ----------
    K. LeFevre, D. J. DeWitt and R. Ramakrishnan. Mondrian multidimensional k-anonymity.
    ICDE 2006.
    """
    release = _check_release(release)
    if k is not None:
        k = check_int("k", k, minimum=1)
    n = int(release.table.n_rows)
    avg = n / release.n_groups
    return AverageClassSize(
        value=float(avg),
        normalized=None if k is None else float(avg / k),
        k=k,
        n_rows=n,
        n_groups=int(release.n_groups),
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
    penalties = np.zeros((len(qis), release.n_groups), dtype=np.float64)
    if release.scheme == "generalization":
        for i, q in enumerate(qis):
            ga = release.generalization[q]
            if table.schema[q].kind is Kind.NUMERIC:
                values = table.values[q].astype(np.float64)
                span = values[-1] - values[0]
                if span > 0:
                    penalties[i] = (values[ga.hi] - values[ga.lo]) / span
            else:
                size = table.domain_size(q)
                cover = ga.cover_size().astype(np.float64)
                if categorical == "range":
                    if size > 1:
                        penalties[i] = (cover - 1) / (size - 1)
                else:
                    penalties[i] = np.where(cover > 1, cover / size, 0.0)
    per_group = penalties.mean(axis=0) if len(qis) else np.zeros(release.n_groups)
    per_attribute = {q: float(penalties[i] @ sizes / n) for i, q in enumerate(qis)}
    total = float(penalties.sum(axis=0) @ sizes)
    return CertaintyPenalty(
        value=float(per_group @ sizes / n),
        total=total,
        per_attribute=per_attribute,
        scheme=release.scheme,
        categorical=categorical,
        per_group=per_group,
    )
