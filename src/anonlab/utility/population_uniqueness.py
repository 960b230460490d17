"""Population uniques estimated from a sample's class-size histogram: Pitman, Zayatz, SNB, Dankar.

A release is a sample of ``n`` records from a population of ``N`` people (sampling fraction
``f = n / N``). Its classes (records with the same published quasi-identifiers) have sizes
``f_j``; ``c_k`` is the number of classes of size ``k`` (``c_1`` = sample uniques, ``u`` = the
number of classes). The estimators below guess how many people are *unique in the population* on
the published quasi-identifiers, from ``c_k``, ``n`` and ``N`` alone. They are the ones ARX 3.9
offers (``RiskModelPopulationUniqueness``) and follow ARX's formulas, so that its values can be
checked against ours (tests/utility/test_reidentification.py).

* **Pitman** (Pitman 1996, the two-parameter Poisson-Dirichlet sampling formula; applied to
  population uniqueness by Hoshino 2001): the maximum-likelihood ``(theta, alpha)`` of the
  sample's partition, then ``E[uniques] = Gamma(theta + 1) / Gamma(theta + alpha) * N**alpha``.
* **Zayatz** (Zayatz 1991): the share of sample uniques that are population uniques,
  ``P(F = 1 | f = 1)``, with the population class-size distribution taken to be the sample's
  (``c_k / u``) and hypergeometric sampling; uniques ``= c_1 * P(F = 1 | f = 1) / f``.
* **SNB** (Chen & Keller-McNulty 1998, the slide negative binomial): population class sizes
  ``F - 1 ~ NegBin(alpha, beta)``, sample sizes binomial given ``F``; ``alpha, beta`` solve the
  moment equations for ``c_1`` and ``c_2``; uniques ``= K * beta**alpha`` with ``K`` the number of
  non-empty population classes (a Shlosser-type estimate, Haas & Stokes 1998).
* **Dankar** (Dankar, El Emam, Neisa & Roffey, BMC Med Inform Decis Mak 12:66, 2012): the
  decision rule that picks among them: Pitman when ``f <= 0.1`` (Zayatz if Pitman fails);
  otherwise the smaller of Zayatz and SNB (Zayatz if SNB fails).

Choices where the papers are silent (each the same as ARX 3.9.2 unless said otherwise):

* ``N = round(n / f)`` and the effective fraction is then ``n / N`` (``ARXPopulationModel``).
* Solver: two-dimensional Newton-Raphson on the score equations (Pitman) or the moment equations
  (SNB) with the analytic Jacobian (Pitman) or a central-difference Jacobian (SNB: ours, ARX uses
  Matlab-derived closed forms). Converged when every residual is below ``1e-6`` in absolute value
  (ARX's default accuracy), at most 1,000 iterations per start. Ours, not ARX's: each Newton step
  is halved (up to 40 times) until it stays in the model's parameter space (Pitman:
  ``alpha < 1`` and ``theta + i * alpha > 0`` for ``i = 1 .. u - 1``; SNB: ``alpha > 0`` and
  ``0 < beta < 1``) and its residual is finite; a root outside that space is not a valid
  estimate.
* Starts: Pitman from Hoshino's moment start as ARX computes it, then ARX's 4 x 4 grid of start
  values (0, 0.33, 0.66, 0.99 for each parameter); SNB from the same grid.
* An estimator that does not converge, or whose estimate is not a finite number in
  ``(0, N]``, *fails*: its result has ``uniques = None``, ``converged = False`` and a note that
  says why; Dankar's rule then falls back as ARX does. With no sample uniques every estimate is
  0 (ARX's rule: there is nothing to estimate).
* The Zayatz probabilities use ``lgamma`` (``math.lgamma``, over the distinct class sizes only).
* SNB's ``K``: ARX's ``estimateNonEmptyEquivalenceClasses`` formula, kept as ARX computes it so
  that its values reproduce, including the ``- 1`` it subtracts once per distinct class size in a
  denominator (a term the Shlosser estimator in Haas & Stokes does not have).

References
----------
J. Pitman. Some developments of the Blackwell-MacQueen urn scheme. In Statistics, Probability and
Game Theory, IMS Lecture Notes 30, 1996.
N. Hoshino. Applying Pitman's sampling formula to microdata disclosure risk assessment. Journal
of Official Statistics 17(4), 2001.
L. Zayatz. Estimation of the percent of unique population elements on a microdata file using the
sample. Statistical Research Division Report Census/SRD/RR-91/08, US Bureau of the Census, 1991.
G. Chen and S. Keller-McNulty. Estimation of identification disclosure risk in microdata.
Journal of Official Statistics 14(1), 1998.
F. K. Dankar, K. El Emam, A. Neisa and T. Roffey. Estimating the re-identification risk of
clinical data sets. BMC Medical Informatics and Decision Making 12:66, 2012.
P. J. Haas and L. Stokes. Estimating the number of classes in a finite population. JASA 93, 1998.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_choice, check_float, check_int
from anonlab.errors import AnonlabError

__all__ = [
    "DEFAULT_SAMPLING_FRACTION",
    "ESTIMATORS",
    "REGIONS",
    "SOLVER_MAX_ITERATIONS",
    "SOLVER_TOLERANCE",
    "PopulationModel",
    "UniquesEstimate",
    "class_size_histogram",
    "dankar",
    "estimate_population_uniques",
    "pitman",
    "population_model",
    "snb",
    "zayatz",
]

#: Default sampling fraction n / N: ARX 3.9.2's ``ARXPopulationModel`` default (0.01).
DEFAULT_SAMPLING_FRACTION = 0.01

#: Population sizes of ARX 3.9.2's ``ARXPopulationModel.Region`` (its figures, unchanged).
REGIONS: dict[str, int] = {
    "africa": 1_100_000_000,
    "australia": 23_130_900,
    "europe": 740_000_000,
    "north-america": 565_265_000,
    "south-america": 385_742_554,
    "european-union": 507_420_000,
    "brasil": 202_656_788,
    "canada": 34_834_841,
    "china": 1_366_040_000,
    "france": 65_820_916,
    "germany": 80_767_000,
    "india": 1_210_569_573,
    "uk": 63_705_000,
    "usa": 317_238_626,
}

#: The estimators, by name; "dankar" is the decision rule among the other three.
ESTIMATORS = ("dankar", "pitman", "zayatz", "snb")

#: Newton-Raphson: converged when every residual is below this (ARX's default accuracy).
SOLVER_TOLERANCE = 1e-6
#: Newton-Raphson: iterations per start value (ARX's default).
SOLVER_MAX_ITERATIONS = 1000
#: ARX's prepared start values: every pair from this grid.
_GRID = (0.0, 0.33, 0.66, 0.99)
_HALVINGS = 40


@dataclass(frozen=True)
class PopulationModel:
    """The population a release is a sample of.

    Attributes
    ----------
    sample_size : int
        ``n``, the records of the release.
    population_size : int
        ``N``.
    sampling_fraction : float
        ``n / N``.
    source : str
        How ``N`` was set, in words.
    """

    sample_size: int
    population_size: int
    sampling_fraction: float
    source: str

    def to_json(self) -> dict:
        return {
            "sample_size": self.sample_size,
            "population_size": self.population_size,
            "sampling_fraction": self.sampling_fraction,
            "source": self.source,
        }


def population_model(
    sample_size: int,
    *,
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    region: str | None = None,
) -> PopulationModel:
    """The population a sample of ``sample_size`` records is drawn from (ARX's
    ``ARXPopulationModel``): give at most one of ``sampling_fraction`` (``N = round(n / f)``),
    ``population_size`` or ``region`` (a name of :data:`REGIONS`); none gives
    :data:`DEFAULT_SAMPLING_FRACTION`."""
    n = check_int("sample_size", sample_size, minimum=1)
    given = [
        name
        for name, value in (
            ("sampling_fraction", sampling_fraction),
            ("population_size", population_size),
            ("region", region),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise AnonlabError(
            f"give at most one of sampling_fraction, population_size, region; got {given}"
        )
    if population_size is not None:
        big_n = check_int("population_size", population_size, minimum=n)
        source = f"population_size = {big_n:,}"
    elif region is not None:
        key = check_choice("region", str(region).lower(), REGIONS)
        big_n = REGIONS[key]
        if big_n < n:
            raise AnonlabError(
                f"region {region!r} has {big_n:,} people, fewer than the {n:,} records"
            )
        source = f"region {key} (ARX's population figure, {big_n:,})"
    else:
        default = sampling_fraction is None
        f = DEFAULT_SAMPLING_FRACTION if default else sampling_fraction
        f = check_float("sampling_fraction", f, low=0.0, high=1.0)
        if f <= 0.0:
            raise AnonlabError(f"'sampling_fraction' must be in (0, 1], got {f}")
        big_n = max(n, int(np.round(n / f)))
        source = f"sampling fraction {f} ({'anonlab default, ARX default' if default else 'given'})"
    return PopulationModel(n, int(big_n), n / big_n, source)


@dataclass(frozen=True)
class UniquesEstimate:
    """An estimate of the number of population uniques.

    Attributes
    ----------
    estimator : str
        ``"pitman"``, ``"zayatz"``, ``"snb"`` or ``"dankar"``.
    uniques : float or None
        Estimated people unique in the population; None when the estimator failed.
    fraction : float or None
        ``uniques / N`` (ARX's ``getFractionOfUniqueTuples``).
    converged : bool
    chosen : str or None
        For ``"dankar"``: the estimator its rule picked.
    parameters : dict
        The fitted parameters (``theta``, ``alpha``; ``alpha``, ``beta``, ``K``), iterations.
    note : str
        Why it failed, or which rule applied.
    """

    estimator: str
    uniques: float | None
    fraction: float | None
    converged: bool
    chosen: str | None = None
    parameters: dict | None = None
    note: str = ""

    @property
    def value(self) -> float | None:
        """The headline number: :attr:`fraction`."""
        return self.fraction

    def to_json(self) -> dict:
        return {
            "estimator": self.estimator,
            "uniques": self.uniques,
            "fraction": self.fraction,
            "converged": self.converged,
            "chosen": self.chosen,
            "parameters": self.parameters,
            "note": self.note,
        }


def class_size_histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct class sizes ``k`` (ascending) and ``c_k``, the number of classes of each size."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.ndim != 1 or len(sizes) == 0 or sizes.min() < 1:
        raise AnonlabError("class sizes must be a non-empty list of positive integers")
    k, c = np.unique(sizes, return_counts=True)
    return k, c.astype(np.int64)


def _classes_of_size(k: np.ndarray, c: np.ndarray, size: int) -> float:
    """``c_size``: the number of classes of ``size`` records (0 when there is none)."""
    return float(c[k == size][0]) if np.any(k == size) else 0.0


def _result(name: str, uniques: float, model: PopulationModel, **kw) -> UniquesEstimate:
    return UniquesEstimate(name, float(uniques), float(uniques) / model.population_size, True, **kw)


def _failed(name: str, note: str, **kw) -> UniquesEstimate:
    return UniquesEstimate(name, None, None, False, note=note, **kw)


_Estimator = Callable[[np.ndarray, PopulationModel], UniquesEstimate]


def _given_uniques(
    name: str, note: str = "no sample uniques: no population uniques are estimated"
) -> Callable[[_Estimator], _Estimator]:
    """Decorate the estimator ``name``: without sample uniques (no class of size 1) it
    estimates 0 population uniques without fitting, saying ``note``; the estimator runs only
    on samples with some."""

    def decorate(fn: _Estimator) -> _Estimator:
        @functools.wraps(fn)
        def estimator(sizes: np.ndarray, model: PopulationModel) -> UniquesEstimate:
            k, _ = class_size_histogram(sizes)
            if k[0] != 1:
                return UniquesEstimate(name, 0.0, 0.0, True, note=note)
            return fn(sizes, model)

        return estimator

    return decorate


def _newton(
    residual: Callable[[float, float], np.ndarray],
    jacobian: Callable[[float, float], np.ndarray],
    start: tuple[float, float],
    inside: Callable[[float, float], bool],
) -> tuple[float, float, int] | None:
    """Damped 2-D Newton-Raphson; None if it does not converge (see the module's notes)."""
    x, y = start
    if not inside(x, y):
        return None
    r = residual(x, y)
    for it in range(SOLVER_MAX_ITERATIONS):
        if not np.all(np.isfinite(r)):
            return None
        if np.max(np.abs(r)) < SOLVER_TOLERANCE:
            return x, y, it
        j = jacobian(x, y)
        det = j[0, 0] * j[1, 1] - j[0, 1] * j[1, 0]
        if not np.isfinite(det) or det == 0.0:
            return None
        dx = -(j[1, 1] * r[0] - j[0, 1] * r[1]) / det
        dy = -(j[0, 0] * r[1] - j[1, 0] * r[0]) / det
        step = 1.0
        for _ in range(_HALVINGS):
            nx, ny = x + step * dx, y + step * dy
            if inside(nx, ny):
                nr = residual(nx, ny)
                if np.all(np.isfinite(nr)):
                    break
            step /= 2
        else:
            return None
        x, y, r = nx, ny, nr
    return None


def _solve(
    name: str,
    equations: tuple[Callable[..., np.ndarray], Callable[..., np.ndarray], Callable[..., bool]],
    starts: Sequence[tuple[float, float]],
    estimate: Callable[[float, float, int], UniquesEstimate | str],
    reason: str,
    **failed: Any,
) -> UniquesEstimate:
    """Fit a two-parameter model: :func:`_newton` on its ``(residual, jacobian, inside)`` from
    each start in turn (non-finite starts skipped); the first root whose ``estimate`` is
    accepted (a :class:`UniquesEstimate`, not a string saying why not) is the result. Failing
    that, the estimator ``name`` fails with the last reason (``reason`` if no start converged)."""
    for start in starts:
        if not all(np.isfinite(start)):
            continue
        with np.errstate(all="ignore"):  # a start far from the root may overflow: it fails
            solved = _newton(*equations[:2], start, equations[2])
        if solved is None:
            continue
        outcome = estimate(*solved)
        if isinstance(outcome, UniquesEstimate):
            return outcome
        reason = outcome
    return _failed(name, reason, **failed)


@_given_uniques("pitman")
def pitman(sizes: np.ndarray, model: PopulationModel) -> UniquesEstimate:
    """Population uniques under Pitman's sampling formula (Pitman 1996; Hoshino 2001).

    The log-likelihood of the sample's partition is ``sum_{i<u} log(theta + i alpha) -
    sum_{i<n} log(theta + i) + sum_k c_k sum_{j<k} log(j - alpha)``; its score equations are
    solved for ``(theta, alpha)`` (see the module's notes on the solver), and the estimate is
    ``exp(lgamma(theta + 1) - lgamma(theta + alpha)) * N**alpha``, valid when ``alpha != 0`` and
    it lies in ``[0, N]`` (ARX's check).

    ``sizes`` and ``model`` as for :func:`estimate_population_uniques`.
    """
    k, c = class_size_histogram(sizes)
    c1 = float(c[0])
    u = float(c.sum())
    n = float(model.sample_size)
    i_u = np.arange(1, int(u), dtype=np.float64)  # 1 .. u-1
    i_n = np.arange(1, int(n), dtype=np.float64)  # 1 .. n-1
    j_max = int(k[-1])
    j = np.arange(1, j_max, dtype=np.float64)  # 1 .. max k - 1
    big = k >= 2
    k_big, c_big = k[big] - 2, c[big].astype(np.float64)  # index of sum_{j<k} in the cumsum

    def residual(t: float, a: float) -> np.ndarray:
        d = t + i_u * a
        o1 = np.sum(1.0 / d)
        o3 = np.sum(i_u / d)
        o2 = np.sum(1.0 / (t + i_n))
        o4 = float(c_big @ np.cumsum(1.0 / (j - a))[k_big]) if len(k_big) else 0.0
        return np.array([o1 - o2, o3 - o4])

    def jacobian(t: float, a: float) -> np.ndarray:
        d2inv = 1.0 / (t + i_u * a) ** 2
        d1 = np.sum(d2inv)
        d5 = np.sum(i_u * d2inv)
        d3 = np.sum(i_u * i_u * d2inv)
        d2 = np.sum(1.0 / (t + i_n) ** 2)
        d4 = float(c_big @ np.cumsum(1.0 / (j - a) ** 2)[k_big]) if len(k_big) else 0.0
        return np.array([[d2 - d1, -d5], [-d5, -d3 - d4]])

    def inside(t: float, a: float) -> bool:
        return a < 1.0 and t + a > 0.0 and t + (u - 1.0) * a > 0.0

    c2 = _classes_of_size(k, c, 2)
    c2 = c2 if c2 != 0 else 1.0  # ARX: overestimate when there are no classes of size 2
    cc = c1 * (c1 - 1.0) / c2
    denominator = 2.0 * c1 * u + c1 * cc - n * cc
    starts = [(x, y) for x in _GRID for y in _GRID]
    if denominator != 0.0:  # Hoshino's start first, where it is defined
        t0 = (n * u * cc - c1 * (n - 1.0) * (2.0 * u + cc)) / denominator
        starts.insert(0, (t0, (t0 * (c1 - n) + (n - 1.0) * c1) / (n * u)))
    big_n = float(model.population_size)

    def estimate(t: float, a: float, its: int) -> UniquesEstimate | str:
        if a == 0.0:
            return "the fitted alpha is 0"
        try:
            est = math.exp(math.lgamma(t + 1.0) - math.lgamma(t + a) + a * math.log(big_n))
        except (OverflowError, ValueError):
            return "the estimate overflows"
        if not (0.0 <= est <= big_n):
            return f"the estimate {est:.6g} is outside [0, N]"
        return _result("pitman", est, model, parameters={"theta": t, "alpha": a, "iterations": its})

    reason = "Newton-Raphson did not converge from Hoshino's start or ARX's 16 start values"
    return _solve("pitman", (residual, jacobian, inside), starts, estimate, reason)


def _log_choose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    lg = np.vectorize(math.lgamma, otypes=[float])
    return lg(a + 1.0) - lg(b + 1.0) - lg(a - b + 1.0)


@_given_uniques("zayatz")
def zayatz(sizes: np.ndarray, model: PopulationModel) -> UniquesEstimate:
    """Population uniques by Zayatz's method (Zayatz 1991), as ARX computes it.

    ``P(F = 1 | f = 1) = (c_1 / u) h_1 / sum_k (c_k / u) h_k`` with ``h_k`` the hypergeometric
    probability of drawing exactly one of a class of ``k`` when ``n`` of ``N`` are drawn (the
    population class-size distribution is taken to be the sample's, ``c_k / u``); the estimate is
    ``c_1 * P(F = 1 | f = 1) / (n / N)``.

    ``sizes`` and ``model`` as for :func:`estimate_population_uniques`.
    """
    k, c = class_size_histogram(sizes)
    big_n, n = float(model.population_size), float(model.sample_size)
    kf = k.astype(np.float64)
    possible = big_n - kf >= n - 1.0
    log_h = np.full(len(k), -np.inf)
    kp = kf[possible]
    log_h[possible] = (
        np.log(kp)
        + _log_choose(np.full(len(kp), big_n) - kp, np.full(len(kp), n - 1.0))
        - _log_choose(np.array([big_n]), np.array([n]))
    )
    h = np.exp(log_h - log_h[0])  # relative to h_1, which is never 0
    u = float(c.sum())
    share = (c[0] / u) / float(np.sum(c / u * h))
    est = c[0] * share / model.sampling_fraction
    if not np.isfinite(est) or est < 0:
        return _failed("zayatz", f"the estimate {est} is not a finite non-negative number")
    return _result("zayatz", est, model, parameters={"conditional_uniqueness": float(share)})


def _shlosser_k(k: np.ndarray, c: np.ndarray, f: float) -> float:
    """ARX's estimate of the number of non-empty population classes (see the module's notes)."""
    kf, cf = k.astype(np.float64), c.astype(np.float64)
    f2 = f * f
    var1 = np.sum(kf * f2 * (1.0 - f2) ** (kf - 1.0) * cf)
    var2 = np.sum((1.0 - f) ** kf * cf * (1.0 + f) ** kf - 1.0)
    var3 = np.sum((1.0 - f) ** kf * cf)
    var4 = np.sum(kf * f * (1.0 - f) ** (kf - 1.0) * cf)
    c1 = float(c[0]) if k[0] == 1 else 0.0
    return float(c.sum() + c1 * (var1 / var2) * (var3 / var4) ** 2)


@_given_uniques("snb")
def snb(sizes: np.ndarray, model: PopulationModel) -> UniquesEstimate:
    """Population uniques under the slide negative binomial model (Chen & Keller-McNulty 1998).

    With ``d = (1 - f)(1 - beta)``, the expected sample uniques and pairs are
    ``K f (beta / (1 - d))**alpha (alpha d / (1 - d) + 1)`` and
    ``K alpha beta**alpha f**2 (1 - beta) / 2 (1 - d)**(alpha + 2) (2 - (1 - alpha) d)``
    (the equations as ARX 3.9.2 writes them); they are set equal to ``c_1`` and ``c_2`` and solved
    for ``(alpha, beta)``; the estimate is ``K beta**alpha``.

    ``sizes`` and ``model`` as for :func:`estimate_population_uniques`.
    """
    k, c = class_size_histogram(sizes)
    c1 = float(c[0])
    c2 = _classes_of_size(k, c, 2)
    f = model.sampling_fraction
    big_k = _shlosser_k(k, c, f)

    def residual(a: float, b: float) -> np.ndarray:
        d = (1.0 - f) * (1.0 - b)
        r1 = big_k * f * (b / (1.0 - d)) ** a * (a * d / (1.0 - d) + 1.0) - c1
        r2 = (
            big_k
            * a
            * b**a
            * f
            * f
            * (1.0 - b)
            / 2.0
            * (1.0 - d) ** (a + 2.0)
            * (2.0 - (1.0 - a) * d)
            - c2
        )
        return np.array([r1, r2])

    def jacobian(a: float, b: float) -> np.ndarray:
        ha, hb = 1e-7 * max(1.0, abs(a)), 1e-7 * max(1e-3, min(b, 1.0 - b))
        da = (residual(a + ha, b) - residual(a - ha, b)) / (2 * ha)
        db = (residual(a, b + hb) - residual(a, b - hb)) / (2 * hb)
        return np.column_stack([da, db])

    def inside(a: float, b: float) -> bool:
        return a > 0.0 and 0.0 < b < 1.0

    def estimate(a: float, b: float, its: int) -> UniquesEstimate | str:
        est = big_k * b**a
        if not (np.isfinite(est) and 0.0 < est <= model.population_size):
            return f"the estimate {est:.6g} is outside (0, N]"
        return _result(
            "snb", est, model, parameters={"alpha": a, "beta": b, "K": big_k, "iterations": its}
        )

    starts = [(x, y) for x in _GRID for y in _GRID]
    reason = (
        "Newton-Raphson did not converge from ARX's 16 start values inside alpha > 0, 0 < beta < 1"
    )
    return _solve(
        "snb", (residual, jacobian, inside), starts, estimate, reason, parameters={"K": big_k}
    )


@_given_uniques("dankar", note="no sample uniques: 0 population uniques")
def dankar(sizes: np.ndarray, model: PopulationModel) -> UniquesEstimate:
    """Dankar et al.'s (2012) decision rule, as ARX 3.9.2 applies it.

    ``f <= 0.1``: Pitman, or Zayatz if Pitman fails. ``f > 0.1``: the smaller of Zayatz and SNB,
    or Zayatz if SNB fails.

    ``sizes`` and ``model`` as for :func:`estimate_population_uniques`.
    """
    f = model.sampling_fraction
    if f <= 0.1:
        first = pitman(sizes, model)
        if first.converged:
            return _chosen(first, f"sampling fraction {f:.4g} <= 0.1: Pitman")
        z = zayatz(sizes, model)
        return _chosen(z, f"sampling fraction {f:.4g} <= 0.1: Pitman failed ({first.note}); Zayatz")
    z = zayatz(sizes, model)
    s = snb(sizes, model)
    if not s.converged:
        return _chosen(z, f"sampling fraction {f:.4g} > 0.1: SNB failed ({s.note}); Zayatz")
    if z.converged and z.uniques < s.uniques:
        return _chosen(z, f"sampling fraction {f:.4g} > 0.1: Zayatz, smaller than SNB")
    return _chosen(s, f"sampling fraction {f:.4g} > 0.1: SNB, not larger than Zayatz")


def _chosen(est: UniquesEstimate, note: str) -> UniquesEstimate:
    return UniquesEstimate(
        "dankar",
        est.uniques,
        est.fraction,
        est.converged,
        chosen=est.estimator,
        parameters=est.parameters,
        note=note if est.converged else f"{note}; {est.note}",
    )


_FUNCTIONS = {"dankar": dankar, "pitman": pitman, "zayatz": zayatz, "snb": snb}


def estimate_population_uniques(
    sizes: np.ndarray, model: PopulationModel, estimator: str = "dankar"
) -> UniquesEstimate:
    """Run one of :data:`ESTIMATORS` on the class sizes of a sample.

    Parameters
    ----------
    sizes : ndarray of int
        The sample's class sizes.
    model : PopulationModel
        The population the sample is drawn from (:func:`population_model`).
    estimator : str
        One of :data:`ESTIMATORS`; each is also a function of this module with the parameters
        ``sizes`` and ``model``.
    """
    estimator = check_choice("estimator", estimator, ESTIMATORS)
    return _FUNCTIONS[estimator](sizes, model)
