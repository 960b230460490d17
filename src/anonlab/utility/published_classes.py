"""The classes of a release and the population records that match them.

A *class* is the set of records an attacker cannot tell apart in what is published. Under
generalization it is the records whose published quasi-identifiers are equal (groups publishing
the same values merge, as ARX groups its output). Under bucketization the quasi-identifier table
publishes every record's *exact* quasi-identifiers, so a class is the records with equal
original quasi-identifiers.

A population record matches a class when each of its quasi-identifiers is covered by the
class's published value: a numeric range by its two ends (``lo <= v <= hi``, in values), a
hierarchy node or value set by membership (a value that does not occur in the release's domain
matches no categorical class), an exact value (bucketization) by equality. The population must
contain the sample (``F_c >= f_c`` for every class); otherwise it is refused. Used by
:mod:`anonlab.utility.reidentification` (journalist and marketer risk, k-map).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import require_release
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.schema import Kind
from anonlab.table import Table

__all__ = [
    "PublishedClasses",
    "population_class_sizes",
    "published_classes",
    "set_published_classes",
]

#: Population records x classes compared at once when matching a generalized release.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class PublishedClasses:
    """The classes of a release: records with the same published quasi-identifiers.

    Attributes
    ----------
    record_class : ndarray of shape (n_rows,), dtype=int64
    sizes : ndarray of shape (n_classes,), dtype=int64
        ``f_c``.
    representative : ndarray of shape (n_classes,), dtype=int64
        A group (generalization) or a record (bucketization) of each class.
    scheme : str
    """

    record_class: np.ndarray = field(repr=False)
    sizes: np.ndarray = field(repr=False)
    representative: np.ndarray = field(repr=False)
    scheme: str

    @property
    def n_classes(self) -> int:
        return len(self.sizes)


#: Where a release keeps its classes once counted (its ``__dict__``, as its other cached
#: statistics: copies of the release share them, and they depend on the groups and
#: quasi-identifiers only).
_CACHE = "_published_classes"


def published_classes(release: Release) -> PublishedClasses:
    """Group the records of a release by their published quasi-identifiers (see the module's
    notes: exact values under bucketization, published values under generalization).

    Counted once per release (the re-identification measures each ask for them), or given by
    :func:`set_published_classes` where they were counted elsewhere."""
    release = require_release(release, where="published_classes")
    cached = release.__dict__.get(_CACHE)
    if cached is not None:
        return cached
    if release.group is None:
        raise AnonlabError(
            "published_classes: this release is a search candidate known only by its group "
            "statistics; re-identification risk needs its records"
        )
    qis = release.quasi_identifiers
    if release.scheme == "bucketization":
        rows = _row_keys(release.table, qis)
        _, first, inverse = np.unique(
            rows, axis=0 if rows.ndim == 2 else None, return_index=True, return_inverse=True
        )
        record_class = inverse.ravel().astype(np.int64)
        representative = first.astype(np.int64)
    else:
        gen = release.generalization
        ids = np.stack(
            [np.unique(gen[q].labels.astype(str), return_inverse=True)[1].ravel() for q in qis],
            axis=1,
        )
        _, first, inverse = np.unique(ids, axis=0, return_index=True, return_inverse=True)
        record_class = inverse.ravel().astype(np.int64)[release.group]
        representative = first.astype(np.int64)
    sizes = np.bincount(record_class, minlength=len(representative)).astype(np.int64)
    return set_published_classes(
        release, PublishedClasses(record_class, sizes, representative, release.scheme)
    )


#: Key spaces from this size on are not packed into one int64 per record (the rows are used).
KEY_LIMIT = 2**63


def _row_keys(table: Table, names: Sequence[str]) -> np.ndarray:
    """The records' rows over ``names`` as one mixed-radix int64 key each (the codes are
    non-negative, so the keys' numeric order is the rows' lexicographic order and ``np.unique``
    numbers them as it numbers the rows: the same classes in the same order), or the rows
    themselves, ``(n, len(names))``, when the key space reaches 2^63. At 10 million records of
    7 quasi-identifiers the key sorts in about 2 s and 0.4 GB where the rows took 35 s and 1 GB
    (a one-off tracemalloc profile, not a kept benchmark).
    """
    radices = [int(table.domain_size(q)) for q in names]
    if math.prod(radices) >= KEY_LIMIT:
        return table.qi_matrix()
    key = np.zeros(table.n_rows, dtype=np.int64)
    for q, radix in zip(names, radices, strict=True):  # a loop over attributes, not records
        key *= radix
        key += table.codes[q]
    return key


def set_published_classes(release: Release, classes: PublishedClasses) -> PublishedClasses:
    """Keep ``classes`` as ``release``'s published classes (returned): for a release whose
    records are not where its classes are asked for (a release the workers wrote, whose
    classes are counted on the workers: :mod:`anonlab.distributed.written_measures`). Checked
    against the release's records and scheme."""
    n = release.table.n_rows
    if (
        classes.scheme != release.scheme
        or np.shape(classes.record_class) != (n,)
        or int(classes.sizes.sum()) != n
        or len(classes.representative) != classes.n_classes
    ):
        raise AnonlabError(
            f"published classes for {n} records of a {release.scheme} release expected, got "
            f"{len(classes.record_class)} records' classes ({classes.scheme})"
        )
    release.__dict__[_CACHE] = classes
    return classes


def _population_values(release: Release, population: object) -> dict[str, np.ndarray]:
    """Each quasi-identifier's values in the population: float for numeric, str otherwise."""
    qis = release.quasi_identifiers
    if isinstance(population, Table):
        missing = [q for q in qis if q not in population.schema.names]
        get = population.column
    elif type(population).__module__.split(".")[0] == "pandas" and hasattr(population, "columns"):
        missing = [q for q in qis if q not in population.columns]

        def get(q: str) -> np.ndarray:
            return population[q].to_numpy()
    else:
        raise AnonlabError(
            f"parameter 'population' must be an anonlab Table or a pandas DataFrame with the "
            f"quasi-identifiers {list(qis)}, got {type(population).__name__}"
        )
    if missing:
        raise AnonlabError(
            f"parameter 'population' lacks the quasi-identifier column(s) {missing}; it needs "
            f"{list(qis)}"
        )
    out = {}
    for q in qis:
        col = np.asarray(get(q), dtype=object)
        if release.table.schema[q].kind is Kind.NUMERIC:
            try:
                vals = col.astype(np.float64)
            except (TypeError, ValueError):
                bad = next(v for v in col if not _is_number(v))
                raise AnonlabError(
                    f"parameter 'population': column {q!r} is numeric in the release but holds "
                    f"{bad!r}"
                ) from None
            if not np.all(np.isfinite(vals)):
                raise AnonlabError(
                    f"parameter 'population': column {q!r} has a missing or infinite value"
                )
        else:
            if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in col):
                raise AnonlabError(f"parameter 'population': column {q!r} has a missing value")
            vals = np.char.strip(col.astype(str))
        out[q] = vals
    return out


def _is_number(v: object) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _codes_in_domain(domain: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Code of each value in ``domain`` (exact match), -1 where it does not occur."""
    order = np.argsort(domain, kind="stable")
    sorted_domain = domain[order]
    pos = np.searchsorted(sorted_domain, values)
    pos = np.minimum(pos, len(domain) - 1)
    hit = sorted_domain[pos] == values
    return np.where(hit, order[pos], -1)


def population_class_sizes(
    release: Release, population: object, classes: PublishedClasses | None = None
) -> np.ndarray:
    """``F_c``: the number of population records matching each class's published
    quasi-identifiers (see the module's notes), shape (n_classes,).

    Parameters
    ----------
    release : Release
    population : Table or DataFrame
        The population, with the release's quasi-identifier columns (by name); it must contain
        the sample.
    classes : PublishedClasses, optional
        :func:`published_classes` of ``release``, if already computed.
    """
    release = require_release(release, where="population_class_sizes")
    classes = published_classes(release) if classes is None else classes
    qis = release.quasi_identifiers
    pop = _population_values(release, population)
    table = release.table
    n_pop = len(next(iter(pop.values()))) if pop else 0
    if n_pop == 0:
        raise AnonlabError("parameter 'population' has no rows")
    domains = {}
    for q in qis:
        values = table.values[q]
        numeric = table.schema[q].kind is Kind.NUMERIC
        domains[q] = values.astype(np.float64) if numeric else np.array([str(v) for v in values])
    if classes.scheme == "bucketization":
        # Exact values: a hash join of the classes' codes with the population's.
        pop_codes = np.stack([_codes_in_domain(domains[q], pop[q]) for q in qis], axis=1)
        pop_codes = pop_codes[np.all(pop_codes >= 0, axis=1)]
        class_codes = table.qi_matrix()[classes.representative].astype(np.int64)
        both = np.concatenate([class_codes, pop_codes])
        _, inverse = np.unique(both, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        counts = np.bincount(inverse[len(class_codes) :], minlength=len(both))
        sizes = counts[inverse[: len(class_codes)]].astype(np.int64)
    else:
        sizes = _generalized_population_sizes(release, classes, pop, domains)
    short = sizes < classes.sizes
    if np.any(short):
        c = int(np.flatnonzero(short)[0])
        raise AnonlabError(
            f"parameter 'population' does not contain the release: {int(short.sum()):,} "
            f"class(es) have fewer matching population records than release records (e.g. "
            f"{int(classes.sizes[c])} in the release, {int(sizes[c])} in the population); the "
            "population must include every released person"
        )
    return sizes


def _generalized_population_sizes(
    release: Release,
    classes: PublishedClasses,
    pop: dict[str, np.ndarray],
    domains: dict[str, np.ndarray],
) -> np.ndarray:
    """Count matching population records per class: per QI a classes x distinct-values cover
    matrix, combined over the population's distinct QI combinations, in chunks of classes."""
    qis = release.quasi_identifiers
    gen = release.generalization
    rep = classes.representative
    covers, index = [], []
    for q in qis:
        distinct, inv = np.unique(pop[q], return_inverse=True)
        ga = gen[q]
        if ga.lo is not None:  # a numeric range: its two ends, in values
            lo = domains[q][ga.lo[rep]]
            hi = domains[q][ga.hi[rep]]
            cover = (lo[:, None] <= distinct[None, :]) & (distinct[None, :] <= hi[:, None])
        else:  # a hierarchy node or a value set: membership of the value
            code = _codes_in_domain(domains[q], distinct)
            mask = np.concatenate([ga.mask[rep], np.zeros((len(rep), 1), dtype=bool)], axis=1)
            cover = mask[:, code]  # code -1 picks the all-False column
        covers.append(cover)
        index.append(inv.ravel())
    combos, weight = np.unique(np.stack(index, axis=1), axis=0, return_counts=True)
    sizes = np.zeros(len(rep), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, len(combos)))
    for start in range(0, len(rep), step):
        block = slice(start, start + step)
        match = covers[0][block][:, combos[:, 0]]
        for i in range(1, len(qis)):
            match &= covers[i][block][:, combos[:, i]]
        sizes[block] = match.astype(np.int64) @ weight
    return sizes
