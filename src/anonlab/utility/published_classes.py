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

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

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

    Under bucketization class ``c`` is the ``c``-th distinct quasi-identifier row in the
    lexicographic order of the codes and its representative the first record on it, as
    ``np.unique`` over the rows numbers them (:func:`distinct_code_rows`).

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
        record_class, representative = distinct_code_rows(release.table, qis)
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


#: Key spaces from this size on are not packed into one int64 per record: the rows packed so far
#: are numbered first (0..m-1, in the same order), and the packing goes on from there.
KEY_LIMIT = 2**63

#: From this many records on, a strided sample of the keys (every ``_SAMPLE_STRIDE``-th) decides
#: between hashing and sorting them (:func:`_number_keys`); fewer are always hashed.
_SAMPLE_MIN_ROWS = 1 << 17
_SAMPLE_STRIDE = 16


def distinct_code_rows(table: Table, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``table`` over the attributes ``names`` (their codes).

    Returns ``(row, first)``: each record's row (int64, 0..m-1) and the first record on each
    row (int64, ascending by row), the rows numbered in the lexicographic order of their codes:
    what ``np.unique(table.qi_matrix(names), axis=0, return_index=True, return_inverse=True)``
    gives, which the bucketized :func:`published_classes` promise (class ``c`` is the ``c``-th
    distinct quasi-identifier row in code order, its representative the first record on it).

    The codes are packed into one mixed-radix int64 key per record (the codes are non-negative,
    so the keys' numeric order is the rows' lexicographic order); when the key space would reach
    ``KEY_LIMIT`` the keys packed so far are numbered 0..m-1 (m <= n records, same order) and the
    packing goes on from those numbers, so no key overflows. The keys are then numbered by
    :func:`_number_keys`: hashed (``pandas.factorize``, then only the m distinct keys sorted)
    where they repeat, sorted where they are mostly distinct. At 3,000,000 census-kdd-workers
    records (7 quasi-identifiers, 16,935 rows) this took 0.075 s, keys included, where
    ``np.unique`` on the keys took 0.36 s (a stable sort of every key); on 3,000,000 records of
    nearly all distinct rows 0.22 s against 0.38 s (medians of 5 on a loaded 2-core machine, a
    one-off timing, not a kept benchmark).
    """
    n = table.n_rows
    key = np.zeros(n, dtype=np.int64)
    space = 1  # the keys so far are in 0..space-1
    for q in names:  # a loop over attributes, not records
        codes = table.codes[q]
        radix = int(table.domain_size(q))
        if space * radix >= KEY_LIMIT:
            # m <= n < 2^32 rows so far times a radix < 2^31 (int32 codes): below 2^63
            key, _ = _number_keys(key, space)
            space = int(key.max()) + 1 if n else 1
        key *= radix
        key += codes
        space *= radix
    return _number_keys(key, space)


def _number_keys(key: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_index=True, return_inverse=True)[2:0:-1]`` for non-negative int64
    keys below ``space``: each key's rank among the distinct keys (ascending) and the first
    position of each distinct key, both int64, equal to ``np.unique``'s.

    Hashing costs about the number of keys plus a sort of the m distinct ones, sorting every
    key about the same whatever m; so from ``_SAMPLE_MIN_ROWS`` keys on, a sample with more
    than half its keys distinct sends them to the sort. (3,000,000 keys, medians of 5 on a
    loaded 2-core machine, a one-off timing: 16,935 distinct, hashed 0.06 s, sorted 0.22 s;
    all distinct, hashed 0.75 s, sorted 0.23 s.)"""
    n = len(key)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if n >= _SAMPLE_MIN_ROWS:
        sample = key[::_SAMPLE_STRIDE]
        if 2 * len(pd.unique(sample)) > len(sample):
            return _number_sorted(key, space)
    return _number_hashed(key)


def _number_hashed(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_number_keys` by a hash table: ``pandas.factorize`` numbers the keys in order of
    first appearance, so a key's first position is where the running maximum of those numbers
    rises; only the distinct keys are then sorted."""
    n = len(key)
    seen, distinct = pd.factorize(key)
    seen = seen.astype(np.int64, copy=False)
    rises = np.empty(n, dtype=bool)
    rises[0] = True
    np.greater(seen[1:], np.maximum.accumulate(seen)[:-1], out=rises[1:])
    first = np.flatnonzero(rises)  # first position of the keys numbered 0, 1, 2, ... by factorize
    order = np.argsort(distinct)  # the distinct keys ascending (distinct: any sort is stable)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[seen], first[order].astype(np.int64)


def _number_sorted(key: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_number_keys` by sorting: each key with its position in the low bits, so one
    (unstable, vectorized) ``np.sort`` of int64 orders equal keys by position, as
    ``np.unique``'s stable argsort does; ``np.unique`` itself where that would overflow."""
    n = len(key)
    bits = max(1, (n - 1).bit_length())
    if space > np.iinfo(np.int64).max >> bits:
        _, first, rank = np.unique(key, return_index=True, return_inverse=True)
        return rank.ravel().astype(np.int64), first.astype(np.int64)
    packed = key << bits
    packed |= np.arange(n, dtype=np.int64)
    packed.sort()
    position = packed & ((1 << bits) - 1)
    packed >>= bits  # the keys ascending
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(packed[1:], packed[:-1], out=starts[1:])
    rank = np.empty(n, dtype=np.int64)
    rank[position] = np.cumsum(starts) - 1
    return rank, position[starts]


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
