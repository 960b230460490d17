"""Re-identification risk of a release as publishers know it: prosecutor, journalist, marketer.

The three attacker models of El Emam ("Guide to the De-Identification of Personal Health
Information", 2013, ch. "Measuring the probability of re-identification"; El Emam & Dankar, JAMIA
2008), as ARX 3.9's ``RiskModelSampleSummary`` computes them. A *class* is the set of records
with the same published quasi-identifiers, of size ``f_c`` in the release; ``F_c`` is the number
of people in the population who match the class's published quasi-identifiers.

* **prosecutor**: the attacker knows the target is in the release. Per record ``1 / f_c``.
* **journalist**: the attacker does not know whether the target is in the release, and links
  against the population. Per record ``1 / F_c``; the average is El Emam's
  ``max(C / sum_c F_c, (1/n) sum_c f_c / F_c)``. Needs a population table; without one, ARX
  takes the sample as its own population (``F_c = f_c``), and so does anonlab, saying so: the
  result is then the prosecutor risk, an upper bound on the journalist risk for any population
  that contains the sample.
* **marketer**: the attacker links every person of the population and counts the expected share
  of records re-identified, ``(1/n) sum_c f_c / F_c`` (``C / n`` without a population).

Besides: sample uniques (records alone in their class), population uniques estimated from the
class sizes (:mod:`anonlab.utility.population_uniqueness`), and k-map (Sweeney 2002; El Emam &
Dankar 2008): every class matches at least ``k`` people of a population table.

**Classes, per scheme** (:mod:`anonlab.utility.published_classes`, which also matches a
population to them). Under generalization a class is the records whose published
quasi-identifiers are equal. Under bucketization the quasi-identifier table publishes every
record's *exact* quasi-identifiers, so a class is the records with equal original
quasi-identifiers: the table itself shows who is in the data, and the buckets protect only the
link to the sensitive value (attribute disclosure, ``prosecutor-risk``'s 1/|bucket|). Every
result of a bucketized release says so in words (:data:`BUCKETIZED_STATEMENT`): identity
disclosure is reported on the exact values (risk 1 for every record whose quasi-identifiers no
other record shares; ``1 / f_c`` for the others, who share all their published values with
``f_c - 1`` records), presence is disclosed, and attribute disclosure is what the buckets
limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import check_float, check_int, require_release
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.utility.population_uniqueness import (
    ESTIMATORS,
    PopulationModel,
    UniquesEstimate,
    estimate_population_uniques,
    population_model,
)
from anonlab.utility.published_classes import (
    PublishedClasses,
    population_class_sizes,
    published_classes,
)
from anonlab.utility.risk import DEFAULT_THRESHOLD

__all__ = [
    "BUCKETIZED_STATEMENT",
    "NO_POPULATION_NOTE",
    "AttackerRisk",
    "KMap",
    "MarketerRisk",
    "PopulationUniqueness",
    "ReidentificationRisk",
    "SampleUniqueness",
    "journalist_risk",
    "k_map",
    "marketer_risk",
    "population_uniqueness",
    "reidentification_risk",
    "sample_uniqueness",
]

#: What every re-identification result of a bucketized release says (formatted with counts).
BUCKETIZED_STATEMENT = (
    "Bucketized release: the quasi-identifier table publishes every record's exact "
    "quasi-identifiers, so it shows who is in the data. Re-identification is measured on those "
    "exact values: {n_unique:,} of {n_records:,} records ({share:.1%}) have quasi-identifiers "
    "no other record shares and are re-identified with certainty (risk 1) by anyone who knows "
    "them, and a person whose values are unique in the population is known to be in the data. "
    "Identity and presence disclosure are not limited by the buckets; what the buckets protect "
    "is the link from a record to its sensitive value (attribute disclosure: 1/|bucket|, "
    "measure 'prosecutor-risk')."
)

#: What a journalist or marketer result says when no population table was given.
NO_POPULATION_NOTE = (
    "no population table: the release is taken as its own population (ARX's fallback), so "
    "journalist risk equals prosecutor risk and marketer risk is classes / records; with a "
    "population that contains the sample both can only be lower"
)


# ----------------------------------------------------------------------------- results
def _statement(release: Release, classes: PublishedClasses) -> str:
    n = release.table.n_rows
    n_unique = int(np.sum(classes.sizes == 1))
    if release.scheme == "bucketization":
        return BUCKETIZED_STATEMENT.format(n_unique=n_unique, n_records=n, share=n_unique / n)
    return (
        f"Generalized release: {classes.n_classes:,} classes of records with the same published "
        f"quasi-identifiers; {n_unique:,} of {n:,} records ({n_unique / n:.1%}) are alone in "
        "their class."
    )


@dataclass(frozen=True)
class AttackerRisk:
    """Per-record and summary re-identification risk under one attacker model.

    Attributes
    ----------
    model : {"prosecutor", "journalist"}
    highest, lowest : float
        The largest and smallest per-record risk.
    average : float
        Prosecutor: ``C / n``. Journalist: ``max(C / sum_c F_c, mean of 1 / F_c)`` (El Emam).
    records_at_risk : float
        Share of records whose risk is strictly above :attr:`threshold`.
    n_records_at_risk : int
    threshold : float
    population : bool
        Whether a population table was used (journalist).
    note : str
    statement : str
        What the scheme means for the risk, in words.
    scheme : str
    class_risk : ndarray of shape (n_classes,)
        The risk of each published class.
    record_class : ndarray of shape (n_rows,)
        Each record's class (:attr:`PublishedClasses.record_class`, shared, not copied).
    per_record : ndarray of shape (n_rows,)
        ``class_risk[record_class]``, made when read: a float64 array the length of the
        release (80 MB at 10 million records) is not kept in every result.
    """

    model: str
    highest: float
    lowest: float
    average: float
    records_at_risk: float
    n_records_at_risk: int
    threshold: float
    population: bool
    note: str
    statement: str
    scheme: str
    class_risk: np.ndarray = field(repr=False)
    record_class: np.ndarray = field(repr=False)

    @property
    def per_record(self) -> np.ndarray:
        """Each record's risk, ``class_risk[record_class]`` (a new array on every read)."""
        return self.class_risk[self.record_class]

    @property
    def value(self) -> float:
        """The headline number: :attr:`highest`."""
        return self.highest

    def to_json(self) -> dict:
        return {
            "measure": f"{self.model}-risk",
            "highest": self.highest,
            "lowest": self.lowest,
            "average": self.average,
            "records_at_risk": self.records_at_risk,
            "n_records_at_risk": self.n_records_at_risk,
            "threshold": self.threshold,
            "population": self.population,
            "note": self.note,
            "statement": self.statement,
            "scheme": self.scheme,
        }


@dataclass(frozen=True)
class MarketerRisk:
    """Expected share of records a marketer re-identifies: ``(1/n) sum_c f_c / F_c``."""

    expected_share: float
    expected_records: float
    population: bool
    note: str
    statement: str
    scheme: str

    @property
    def value(self) -> float:
        """The headline number: :attr:`expected_share`."""
        return self.expected_share

    def to_json(self) -> dict:
        return {
            "measure": "marketer-risk",
            "expected_share": self.expected_share,
            "expected_records": self.expected_records,
            "population": self.population,
            "note": self.note,
            "statement": self.statement,
            "scheme": self.scheme,
        }


@dataclass(frozen=True)
class SampleUniqueness:
    """Records alone in their class."""

    n_unique: int
    fraction: float
    n_records: int
    n_classes: int
    statement: str
    scheme: str

    @property
    def value(self) -> float:
        """The headline number: :attr:`fraction`."""
        return self.fraction

    def to_json(self) -> dict:
        return {
            "measure": "sample-uniqueness",
            "n_unique": self.n_unique,
            "fraction": self.fraction,
            "n_records": self.n_records,
            "n_classes": self.n_classes,
            "statement": self.statement,
            "scheme": self.scheme,
        }


@dataclass(frozen=True)
class ReidentificationRisk:
    """Prosecutor, journalist and marketer risk and sample uniques of one release."""

    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: MarketerRisk
    sample_uniques: SampleUniqueness
    statement: str
    scheme: str

    @property
    def value(self) -> float:
        """The headline number: the highest prosecutor risk."""
        return self.prosecutor.highest

    def to_json(self) -> dict:
        return {
            "measure": "reidentification-risk",
            "prosecutor": self.prosecutor.to_json(),
            "journalist": self.journalist.to_json(),
            "marketer": self.marketer.to_json(),
            "sample_uniques": self.sample_uniques.to_json(),
            "statement": self.statement,
            "scheme": self.scheme,
        }


def _attacker(
    model: str,
    class_risk: np.ndarray,
    classes: PublishedClasses,
    threshold: float,
    average: float,
    population: bool,
    note: str,
    statement: str,
) -> AttackerRisk:
    n = int(classes.sizes.sum())
    at_risk = int(classes.sizes[class_risk > threshold].sum())
    return AttackerRisk(
        model=model,
        highest=float(class_risk.max()),
        lowest=float(class_risk.min()),
        average=float(average),
        records_at_risk=at_risk / n,
        n_records_at_risk=at_risk,
        threshold=threshold,
        population=population,
        note=note,
        statement=statement,
        scheme=classes.scheme,
        class_risk=class_risk,
        record_class=classes.record_class,
    )


def _prepare(
    release: Release, population: object, where: str
) -> tuple[Release, PublishedClasses, np.ndarray, bool]:
    release = require_release(release, where=where)
    classes = published_classes(release)
    if population is None:
        return release, classes, classes.sizes, False
    return release, classes, population_class_sizes(release, population, classes), True


def _journalist(classes, big_f, threshold, has_pop, statement) -> AttackerRisk:
    f = classes.sizes.astype(np.float64)
    big_f = big_f.astype(np.float64)
    n = f.sum()
    average = max(classes.n_classes / big_f.sum(), float(np.sum(f / big_f)) / n)
    note = (
        "population table given: F_c matching population records per class"
        if has_pop
        else NO_POPULATION_NOTE
    )
    return _attacker(
        "journalist", 1.0 / big_f, classes, threshold, average, has_pop, note, statement
    )


def _marketer(classes, big_f, has_pop, statement) -> MarketerRisk:
    expected = float(np.sum(classes.sizes / big_f.astype(np.float64)))
    n = int(classes.sizes.sum())
    note = "population table given: (1/n) sum_c f_c / F_c" if has_pop else NO_POPULATION_NOTE
    return MarketerRisk(expected / n, expected, has_pop, note, statement, classes.scheme)


def journalist_risk(
    release: Release, threshold: float = DEFAULT_THRESHOLD, population: object = None
) -> AttackerRisk:
    """Journalist re-identification risk: per record ``1 / F_c`` (see the module's notes).

    Parameters
    ----------
    release : Release
    threshold : float, default=0.2
        A record is at risk when its risk is strictly above this, in [0, 1].
    population : Table or DataFrame, optional
        A population containing the sample, with the quasi-identifier columns. Without one the
        sample is its own population (ARX's fallback; the result says so).
    """
    threshold = check_float("threshold", threshold, low=0.0, high=1.0)
    release, classes, big_f, has_pop = _prepare(release, population, "journalist_risk")
    return _journalist(classes, big_f, threshold, has_pop, _statement(release, classes))


def marketer_risk(release: Release, population: object = None) -> MarketerRisk:
    """Marketer re-identification risk: the expected share of records re-identified,
    ``(1/n) sum_c f_c / F_c``; ``C / n`` without a population (see the module's notes).

    Parameters
    ----------
    release : Release
    population : Table or DataFrame, optional
    """
    release, classes, big_f, has_pop = _prepare(release, population, "marketer_risk")
    return _marketer(classes, big_f, has_pop, _statement(release, classes))


def sample_uniqueness(release: Release) -> SampleUniqueness:
    """Sample uniques: records alone in their class (class = same published quasi-identifiers;
    exact quasi-identifiers under bucketization)."""
    release = require_release(release, where="sample_uniqueness")
    classes = published_classes(release)
    n_unique = int(np.sum(classes.sizes == 1))
    n = release.table.n_rows
    return SampleUniqueness(
        n_unique, n_unique / n, n, classes.n_classes, _statement(release, classes), release.scheme
    )


def reidentification_risk(
    release: Release, threshold: float = DEFAULT_THRESHOLD, population: object = None
) -> ReidentificationRisk:
    """Prosecutor, journalist and marketer risk and sample uniques (ARX's
    ``RiskModelSampleSummary``; El Emam 2013).

    Parameters
    ----------
    release : Release
    threshold : float, default=0.2
        A record is at risk when its risk is strictly above this (records in classes of fewer
        than 5 by default), in [0, 1].
    population : Table or DataFrame, optional
        A population containing the sample, with the quasi-identifier columns, for the
        journalist and marketer models. Without one the sample is its own population (ARX's
        fallback; the results say so).

    Returns
    -------
    ReidentificationRisk
    """
    threshold = check_float("threshold", threshold, low=0.0, high=1.0)
    release, classes, big_f, has_pop = _prepare(release, population, "reidentification_risk")
    statement = _statement(release, classes)
    sizes = classes.sizes.astype(np.float64)
    prosecutor = _attacker(
        "prosecutor",
        1.0 / sizes,
        classes,
        threshold,
        classes.n_classes / sizes.sum(),
        False,
        "the attacker knows the target is in the release: 1 / f_c",
        statement,
    )
    n_unique = int(np.sum(classes.sizes == 1))
    n = release.table.n_rows
    return ReidentificationRisk(
        prosecutor=prosecutor,
        journalist=_journalist(classes, big_f, threshold, has_pop, statement),
        marketer=_marketer(classes, big_f, has_pop, statement),
        sample_uniques=SampleUniqueness(
            n_unique, n_unique / n, n, classes.n_classes, statement, release.scheme
        ),
        statement=statement,
        scheme=release.scheme,
    )


# ----------------------------------------------------------------------------- population uniques
@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniques of a release.

    Attributes
    ----------
    estimator : str
        The headline estimator (default ``"dankar"``).
    estimate : UniquesEstimate
        Its result.
    estimates : dict of str to UniquesEstimate
        All four (``dankar``, ``pitman``, ``zayatz``, ``snb``).
    model : PopulationModel
    sample_uniques : int
    statement : str
    scheme : str
    """

    estimator: str
    estimate: UniquesEstimate
    estimates: dict[str, UniquesEstimate]
    model: PopulationModel
    sample_uniques: int
    statement: str
    scheme: str

    @property
    def value(self) -> float | None:
        """The headline number: the estimated share of the population that is unique
        (ARX's ``getFractionOfUniqueTuples``), also the expected share of the release's records
        that are population uniques under random sampling. None if the estimator failed."""
        return self.estimate.fraction

    def to_json(self) -> dict:
        return {
            "measure": "population-uniqueness",
            "estimator": self.estimator,
            "uniques": self.estimate.uniques,
            "fraction": self.estimate.fraction,
            "chosen": self.estimate.chosen,
            "note": self.estimate.note,
            "estimates": {k: v.to_json() for k, v in self.estimates.items()},
            "population_model": self.model.to_json(),
            "sample_uniques": self.sample_uniques,
            "statement": self.statement,
            "scheme": self.scheme,
        }


def population_uniqueness(
    release: Release,
    estimator: str = "dankar",
    sampling_fraction: float | None = None,
    population_size: int | None = None,
    region: str | None = None,
) -> PopulationUniqueness:
    """Population uniques estimated from the release's class sizes (Pitman, Zayatz, SNB and
    Dankar et al.'s rule among them; :mod:`anonlab.utility.population_uniqueness`).

    Parameters
    ----------
    release : Release
    estimator : {"dankar", "pitman", "zayatz", "snb"}, default="dankar"
        The headline; all four are computed and reported.
    sampling_fraction : float, optional
        ``n / N`` in (0, 1]. Default 0.01 (ARX's ``ARXPopulationModel`` default) unless
        ``population_size`` or ``region`` is given.
    population_size : int, optional
        ``N``, at least the number of records.
    region : str, optional
        One of ARX's regions (:data:`~anonlab.utility.population_uniqueness.REGIONS`): its
        population is ``N``.
    """
    release = require_release(release, where="population_uniqueness")
    estimator = str(estimator)
    if estimator not in ESTIMATORS:
        raise AnonlabError(
            f"parameter 'estimator' must be one of {list(ESTIMATORS)}, got {estimator!r}"
        )
    classes = published_classes(release)
    model: PopulationModel = population_model(
        release.table.n_rows,
        sampling_fraction=sampling_fraction,
        population_size=population_size,
        region=region,
    )
    with np.errstate(all="ignore"):
        estimates = {e: estimate_population_uniques(classes.sizes, model, e) for e in ESTIMATORS}
    return PopulationUniqueness(
        estimator,
        estimates[estimator],
        estimates,
        model,
        int(np.sum(classes.sizes == 1)),
        _statement(release, classes),
        release.scheme,
    )


# ----------------------------------------------------------------------------- k-map
@dataclass(frozen=True)
class KMap:
    """k-map against a population table.

    Attributes
    ----------
    k_map : int
        ``min_c F_c``: the largest ``k`` for which the release satisfies k-map.
    k : int or None
        The ``k`` asked about, if any.
    satisfied : bool or None
        Whether every class matches at least ``k`` population records.
    n_classes_below, n_records_below : int
        Classes (and their release records) matching fewer than ``k`` population records
        (0 without ``k``).
    n_population : int
    statement : str
    scheme : str
    population_sizes : ndarray of shape (n_classes,)
        ``F_c``.
    """

    k_map: int
    k: int | None
    satisfied: bool | None
    n_classes_below: int
    n_records_below: int
    n_population: int
    statement: str
    scheme: str
    population_sizes: np.ndarray = field(repr=False)

    @property
    def value(self) -> int:
        """The headline number: :attr:`k_map`."""
        return self.k_map

    def to_json(self) -> dict:
        return {
            "measure": "k-map",
            "k_map": self.k_map,
            "k": self.k,
            "satisfied": self.satisfied,
            "n_classes_below": self.n_classes_below,
            "n_records_below": self.n_records_below,
            "n_population": self.n_population,
            "statement": self.statement,
            "scheme": self.scheme,
        }


def k_map(release: Release, population: object = None, k: int | None = None) -> KMap:
    """k-map (Sweeney 2002; El Emam & Dankar, JAMIA 2008): each class of the release matches at
    least ``k`` records of the population table.

    Parameters
    ----------
    release : Release
    population : Table or DataFrame
        Required: the population, containing the sample, with the quasi-identifier columns.
    k : int, optional
        If given, report whether k-map holds and which classes fall short.
    """
    release = require_release(release, where="k_map")
    if population is None:
        raise AnonlabError(
            "k-map needs a population table: pass population=<Table or DataFrame with the "
            f"quasi-identifiers {list(release.quasi_identifiers)}> (CLI: --population FILE)"
        )
    k = None if k is None else check_int("k", k, minimum=1)
    classes = published_classes(release)
    big_f = population_class_sizes(release, population, classes)
    below = big_f < k if k is not None else np.zeros(len(big_f), dtype=bool)
    n_population = len(population)
    return KMap(
        k_map=int(big_f.min()),
        k=k,
        satisfied=None if k is None else not bool(below.any()),
        n_classes_below=int(below.sum()),
        n_records_below=int(classes.sizes[below].sum()),
        n_population=int(n_population),
        statement=_statement(release, classes),
        scheme=release.scheme,
        population_sizes=big_f,
    )
