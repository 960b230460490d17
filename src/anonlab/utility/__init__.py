"""Utility and risk measures of a release, found by name.

>>> from anonlab.utility import available, measure
>>> available()  # doctest: +NORMALIZE_WHITESPACE
['arx-loss', 'average-class-size', 'discernibility', 'journalist-risk', 'k-map',
 'marketer-risk', 'ncp', 'population-uniqueness', 'precision', 'prosecutor-risk',
 'reidentification-risk', 'rule-mining-error', 'sample-uniqueness', 'workload-error']

``measure(release, name, **params)`` runs one; every result has ``.value`` (its headline number)
and ``.to_json()``. See docs/utility.md for the formulas and the query generator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anonlab._validation import require_release
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.utility.arx_loss import ArxLoss, arx_loss
from anonlab.utility.information_loss import (
    AverageClassSize,
    CertaintyPenalty,
    Discernibility,
    PrecisionLoss,
    average_class_size,
    discernibility,
    normalized_certainty_penalty,
    precision_loss,
)
from anonlab.utility.reidentification import (
    AttackerRisk,
    KMap,
    MarketerRisk,
    PopulationUniqueness,
    ReidentificationRisk,
    SampleUniqueness,
    journalist_risk,
    k_map,
    marketer_risk,
    population_uniqueness,
    reidentification_risk,
    sample_uniqueness,
)
from anonlab.utility.risk import ProsecutorRisk, prosecutor_risk
from anonlab.utility.rule_mining import RuleMiningError, rule_mining_error
from anonlab.utility.workload import (
    Workload,
    WorkloadError,
    actual_counts,
    estimated_counts,
    generate_workload,
    workload_error,
)

__all__ = [
    "MEASURES",
    "ArxLoss",
    "AttackerRisk",
    "AverageClassSize",
    "CertaintyPenalty",
    "Discernibility",
    "KMap",
    "MarketerRisk",
    "Measure",
    "PopulationUniqueness",
    "PrecisionLoss",
    "ProsecutorRisk",
    "ReidentificationRisk",
    "RuleMiningError",
    "SampleUniqueness",
    "Workload",
    "WorkloadError",
    "actual_counts",
    "arx_loss",
    "available",
    "average_class_size",
    "discernibility",
    "estimated_counts",
    "generate_workload",
    "journalist_risk",
    "k_map",
    "marketer_risk",
    "measure",
    "normalized_certainty_penalty",
    "population_uniqueness",
    "precision_loss",
    "prosecutor_risk",
    "reidentification_risk",
    "rule_mining_error",
    "sample_uniqueness",
    "workload_error",
]


@dataclass(frozen=True)
class Measure:
    """A registered measure.

    Attributes
    ----------
    name : str
    function : callable
        ``function(release, **params) -> result``.
    kind : {"utility", "risk"}
    summary : str
        One line for listings.
    """

    name: str
    function: Callable[..., Any]
    kind: str
    summary: str

    def __call__(self, release: Release, **params: Any) -> Any:
        return measure(release, self.name, **params)


MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        Measure(
            "workload-error",
            workload_error,
            "utility",
            "mean relative error of random COUNT queries (Xiao & Tao, VLDB 2006)",
        ),
        Measure(
            "arx-loss",
            arx_loss,
            "utility",
            "ARX's default Loss metric of a full-domain generalization (ARX 3.9)",
        ),
        Measure(
            "discernibility",
            discernibility,
            "utility",
            "sum of squared group sizes (Bayardo & Agrawal, ICDE 2005)",
        ),
        Measure(
            "average-class-size",
            average_class_size,
            "utility",
            "n / number of groups, divided by k if given (LeFevre et al., ICDE 2006)",
        ),
        Measure(
            "precision",
            precision_loss,
            "utility",
            "precision loss 1 - Prec of a full-domain generalization (Sweeney 2002; ARX's "
            "definition with definition='arx')",
        ),
        Measure(
            "ncp",
            normalized_certainty_penalty,
            "utility",
            "normalized certainty penalty of the published QIs (Xu et al., KDD 2006)",
        ),
        Measure(
            "prosecutor-risk",
            prosecutor_risk,
            "risk",
            "re-identification risk 1/|group|: highest, average, share at risk",
        ),
        Measure(
            "reidentification-risk",
            reidentification_risk,
            "risk",
            "prosecutor, journalist and marketer risk and sample uniques of the published "
            "classes (El Emam 2013; ARX's RiskModelSampleSummary)",
        ),
        Measure(
            "journalist-risk",
            journalist_risk,
            "risk",
            "1/|population class| per record, against a population table (El Emam 2013)",
        ),
        Measure(
            "marketer-risk",
            marketer_risk,
            "risk",
            "expected share of records re-identified by linking the population (El Emam 2013)",
        ),
        Measure(
            "sample-uniqueness",
            sample_uniqueness,
            "risk",
            "share of records alone in their published class",
        ),
        Measure(
            "population-uniqueness",
            population_uniqueness,
            "risk",
            "estimated population uniques: Pitman, Zayatz, SNB, Dankar et al.'s rule (ARX)",
        ),
        Measure(
            "k-map",
            k_map,
            "risk",
            "smallest number of population records matching a published class (Sweeney 2002)",
        ),
        Measure(
            "rule-mining-error",
            rule_mining_error,
            "utility",
            "confidence and identification error of conviction rules (Li & Li, ICDE 2008, §VI-C)",
        ),
    )
}


def available() -> list[str]:
    """Names of the registered measures, sorted."""
    return sorted(MEASURES)


def measure(release: Release, name: str, **params: Any) -> Any:
    """Run the measure called ``name`` on ``release``.

    Parameters
    ----------
    release : Release
    name : str
        One of :func:`available`.
    **params
        The measure's keyword parameters (e.g. ``qd=2`` for ``"workload-error"``).

    Returns
    -------
    result
        The measure's result object (``.value``, ``.to_json()``).
    """
    if name not in MEASURES:
        raise AnonlabError(f"unknown measure {name!r}; available measures are {available()}")
    require_release(release, where=f"measure({name!r})")
    try:
        return MEASURES[name].function(release, **params)
    except TypeError as exc:
        if "unexpected keyword" in str(exc):
            raise AnonlabError(f"measure {name!r}: {exc}") from None
        raise
