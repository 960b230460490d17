"""A workload's answers: actual counts on the original table and estimates reconstructed from
a release under the papers' uniformity assumption (the package docstring gives the formulas)."""

from __future__ import annotations

import math

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.schema import Kind
from anonlab.table import Table
from anonlab.utility.published_classes import distinct_code_rows, published_classes
from anonlab.utility.workload.generation import (
    Workload,
)

#: Query sets smaller than this are evaluated record by record instead of compressing the table.
_COMPRESS_MIN_QUERIES = 8


#: Elements (queries x rows) handled per array product; bounds memory to a few tens of MB.
_CHUNK = 1 << 22

#: A bucketized release is estimated over its distinct QI rows unless their merged float64
#: shares (rows x sensitive values) exceed this many cells per record and ``_MERGE_MIN_CELLS``
#: (nearly all rows distinct: merging would save little time and cost memory).
_MERGE_CELLS_PER_RECORD = 2
_MERGE_MIN_CELLS = 1 << 22

#: The actual answers are counted over the distinct (quasi-identifier row, sensitive value)
#: cells unless there are more than this fraction of the records (nearly all distinct: merging
#: would save little and copy the table).
_CELLS_MAX_FRACTION = 0.75


def actual_counts(table: Table, workload: Workload) -> np.ndarray:
    """The answer of each query on the original table.

    Parameters
    ----------
    table : Table
    workload : Workload

    Returns
    -------
    ndarray of shape (n_queries,), dtype=int64

    Notes
    -----
    A record enters a count only through its quasi-identifiers and its sensitive value, so the
    records are merged first into their distinct cells (the values of the quasi-identifiers
    some query uses, and the sensitive value: 33,795 cells in census-kdd-workers, as many
    resampled to 3,000,000 records, when the queries use all seven), each counted, and
    :func:`qi_sums` runs over the cells with those counts. The counts are integers, summed
    exactly in float64 in any order: the answers are those of the records one by one,
    identical. Where the cells are more than ``_CELLS_MAX_FRACTION`` of the records, the
    records are counted one by one as before.
    """
    check_workload_matches(table, workload)
    sens = workload.sensitive
    used = [q for j, q in enumerate(workload.quasi_identifiers) if workload.uses[:, j].any()]
    cell, first = distinct_code_rows(table, [*used, sens])
    if len(first) > _CELLS_MAX_FRACTION * table.n_rows:
        del cell, first  # not held while the records are counted
        sums = qi_sums(table, workload, table.codes[sens], None)
    else:
        cells = table.take(first)  # a record of each cell: its codes (those unused are not read)
        counts = np.bincount(cell, minlength=len(first))
        sums = qi_sums(cells, workload, cells.codes[sens], None, row_counts=counts)
    return np.rint(sums).astype(np.int64)


def estimated_counts(release: Release, workload: Workload) -> np.ndarray:
    """The answer of each query estimated from what the release publishes.

    Generalization: uniformity inside each group's published ranges and hierarchy nodes,
    independence across attributes. Bucketization: exact QI table, the group's sensitive counts
    spread uniformly over its members (Xiao & Tao, VLDB 2006, §6). The sensitive counts are the
    published ones (perturbed, for MASK).

    The bucketization estimate is the §6 sum over records, taken over the release's distinct
    quasi-identifier rows instead (:func:`_estimate_bucketized`): its values equal the sum
    record by record up to floating-point rounding, not bit for bit (about 1e-15 relative to
    the exact value; the record-by-record float sum itself drifted by up to about 1e-12 at a
    million records: a one-off measurement, see :func:`_estimate_bucketized`; the tests hold
    the merged estimates to 1e-13 of exact fractions).

    Parameters
    ----------
    release : Release
    workload : Workload

    Returns
    -------
    ndarray of shape (n_queries,), dtype=float64
    """
    if not isinstance(release, Release):
        raise AnonlabError(f"expected a Release, got {type(release).__name__}")
    check_workload_matches(release.table, workload)
    if release.scheme == "generalization":
        return _estimate_generalized(release, workload)
    return _estimate_bucketized(release, workload)


def _estimate_bucketized(release: Release, wl: Workload) -> np.ndarray:
    """The bucketization estimate (Xiao & Tao, VLDB 2006, §6) over the distinct QI rows.

    The §6 estimate is a sum over records, and a record enters it only through its exact
    quasi-identifier row (which predicates it satisfies) and its group's published shares
    ``hist[g, v] / |g|``. So the records on one row are merged first: each distinct row (the
    release's published classes, :func:`~anonlab.utility.published_classes.published_classes`,
    counted once per release and shared with the re-identification measures) carries the sum
    of its records' shares, and :func:`qi_sums` runs over the rows with those weights, as the
    map-reduce estimate does (:mod:`anonlab.distributed.measures.compact`, which with one block
    gives the same numbers bit for bit). Census data has far fewer rows than records (16,935
    in census-kdd-workers resampled to 3,000,000 records), so the passes per set of queried
    attributes read those rows instead of the records.

    The shares are added per row and then per value combination, not record by record: the
    estimates equal the record-by-record sum up to floating-point rounding, not bit for bit.
    Shorter sums round less: on 1,000,000 census-kdd-workers records (Anatomy, l = 3, 5, 7;
    2,000 queries; a one-off measurement, not a kept test) the merged estimates were within
    3e-15 relative of the exact values, the record-by-record sums within 1.1e-12 (with l = 4
    every share is a multiple of 1/4 and both are exact).

    When the merged (rows x sensitive values) float64 shares would take more than
    ``_MERGE_CELLS_PER_RECORD`` cells per record (and more than ``_MERGE_MIN_CELLS``), the
    rows being nearly all distinct, merging would save little and cost memory: the records
    are summed one by one as before (:class:`GroupShares`).
    """
    table = release.table
    counts = _published_counts(release)
    classes = published_classes(release)
    m = classes.n_classes
    if m * counts.shape[1] > max(_MERGE_CELLS_PER_RECORD * table.n_rows, _MERGE_MIN_CELLS):
        return qi_sums(table, wl, release.group, GroupShares(counts, release.group_sizes))
    if m == 0:
        return np.zeros(len(wl), dtype=np.float64)
    merged = summed_shares(classes.record_class, m, release.group, counts, release.group_sizes)
    rows = table.take(classes.representative)  # one record of each row: its exact QI codes
    return qi_sums(rows, wl, np.arange(m), merged)


def summed_shares(
    row: np.ndarray, n_rows: int, group: np.ndarray, counts: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """Per row, the sum of its records' group shares ``counts[g, v] / sizes[g]``: shape
    (n_rows, n_values), float64, column-major.

    ``row`` and ``group``: each record's row (0..n_rows-1) and group; ``counts``: the
    published sensitive histogram (any integer dtype), ``sizes`` the group sizes. Each share
    is the float64 quotient :class:`GroupShares` makes, and a row's shares are added in record
    order, one sensitive value at a time into buffers made once (no (records, values)
    temporary): what the bucketization estimate (:func:`_estimate_bucketized`) and the
    map-reduce blocks (:func:`anonlab.distributed.measures.compact.compact_block`) both sum,
    so that one block gives the same numbers bit for bit.
    """
    counts = np.asarray(counts)
    group = np.asarray(group).astype(np.intp, copy=False)
    size = np.asarray(sizes, dtype=np.int64)[group].astype(np.float64)
    count = np.empty(len(group), dtype=counts.dtype)
    share = np.empty(len(group), dtype=np.float64)
    out = np.empty((n_rows, counts.shape[1]), dtype=np.float64, order="F")
    for v in range(counts.shape[1]):  # a loop over sensitive values, not records
        np.take(counts[:, v], group, out=count)
        np.divide(count, size, out=share)
        out[:, v] = np.bincount(row, weights=share, minlength=n_rows)
    return out


def _published_counts(release: Release) -> np.ndarray:
    """The published sensitive histogram (n_groups, n_values) in the narrowest unsigned dtype
    (:func:`anonlab.models.result.sensitive_counts`, shared with the privacy checks): at 10
    million records in 2.5 million groups of 46 values 110 MiB in uint8, where the int64
    ``release.sensitive_histogram`` is 877 MiB and a float64 copy of it as much again. The
    estimates read one column at a time and convert it exactly, so they do not depend on the
    dtype."""
    from anonlab.models.result import sensitive_counts  # models import the utility lazily too

    return sensitive_counts(release)


class GroupShares:
    """The bucketization weights ``counts[g, v] / sizes[g]`` (the published sensitive share of
    each value in each group), made one sensitive value's column at a time.

    :func:`qi_sums` takes it as ``key_weights`` in place of the dense (n_groups, n_values)
    float64 matrix, which is 877 MiB at 10 million records in 2.5 million groups of 46 values
    (and was made twice: the float64 histogram, then the shares). A column is the same float64
    quotient as the matrix's, so the sums are bit-for-bit the same.
    """

    def __init__(self, counts: np.ndarray, sizes: np.ndarray) -> None:
        self.counts = counts
        self.sizes = sizes

    def column(self, v: int) -> np.ndarray:
        """``counts[:, v] / sizes``, shape (n_groups,), float64."""
        return np.true_divide(self.counts[:, v], self.sizes, dtype=np.float64)

    def dense(self) -> np.ndarray:
        """The whole (n_groups, n_values) float64 matrix (for a few queries evaluated record by
        record, where the matrix product needs it)."""
        return np.asfortranarray(np.true_divide(self.counts, self.sizes[:, None], dtype=np.float64))


def _weight_column(key_weights, v: int) -> np.ndarray:
    """Column ``v`` of ``key_weights``: a (n_keys, n_values) array or :class:`GroupShares`."""
    if isinstance(key_weights, GroupShares):
        return key_weights.column(v)
    return key_weights[:, v]


def check_workload_matches(table: Table, wl: Workload) -> None:
    """Raise unless ``wl`` is a :class:`Workload` drawn for ``table``'s schema: the same
    quasi-identifiers, sensitive attribute and domain sizes (the queries are over codes)."""
    if not isinstance(wl, Workload):
        raise AnonlabError(f"parameter 'workload' must be a Workload, got {type(wl).__name__}")
    sens = table.require_sensitive()
    if tuple(table.quasi_identifiers) != wl.quasi_identifiers or sens != wl.sensitive:
        raise AnonlabError(
            f"the workload is over quasi-identifiers {list(wl.quasi_identifiers)} and sensitive "
            f"{wl.sensitive!r}, the table has {list(table.quasi_identifiers)} and {sens!r}; "
            "generate a workload for this table"
        )
    for name, size in wl.domain_sizes.items():
        if table.domain_size(name) != size:
            raise AnonlabError(
                f"the workload was made for a domain of {size} values of {name!r}, the table has "
                f"{table.domain_size(name)}; generate a workload for this table"
            )


def qi_sums(
    table: Table,
    wl: Workload,
    key: np.ndarray,
    key_weights: np.ndarray | None,
    *,
    row_counts: np.ndarray | None = None,
) -> np.ndarray:
    """For each query j: sum over records r satisfying j's QI predicates of w(r) . pred_j(S).

    ``w(r)`` is a weight vector over the sensitive domain: the one-hot vector of ``key[r]`` when
    ``key_weights`` is None (actual answers; times ``row_counts[r]`` where given, a row standing
    for that many records: :func:`actual_counts`), else ``key_weights[key[r]]`` (bucketization: the
    sensitive shares of r's group), ``key_weights`` a (n_keys, n_values) array or a
    :class:`GroupShares`. Assumes ``wl`` was drawn for ``table``'s schema
    (:func:`check_workload_matches`); a sum over the table's rows, so blocks of rows add up
    and a row may stand for several records with its weights summed (the bucketization
    estimate, :func:`_estimate_bucketized`, and the map-reduce answers of
    :mod:`anonlab.distributed.measures` pass the distinct quasi-identifier rows, ``key`` their
    index and ``key_weights`` their summed shares or counts).

    Per set of queried attributes the weights of each value combination are summed over the
    rows in row order (``np.bincount``), one sensitive value at a time, so no
    (n_rows, n_values) or (n_keys, n_values) float64 temporary is made.
    """
    out = np.zeros(len(wl), dtype=np.float64)
    sens_mask = wl.mask(wl.sensitive)
    n_s = sens_mask.shape[1]
    if row_counts is not None and key_weights is not None:
        raise AnonlabError("qi_sums: row_counts weigh the one-hot rows of key_weights=None only")
    key = np.asarray(key)
    if key_weights is not None or key.dtype.kind not in "iu":
        # gathered once per sensitive value and attribute set: intp indices gather 1.5x faster
        key = key.astype(np.intp, copy=False)
    for attrs, rows in _subsets(wl.uses):
        names = [wl.quasi_identifiers[a] for a in attrs]
        codes = [table.codes[q] for q in names]
        if len(rows) >= _COMPRESS_MIN_QUERIES:
            # The distinct value combinations of these attributes, with their sensitive weights.
            combo, reps = _combine(codes, [table.domain_size(q) for q in names], table.n_rows)
            k = int(combo.max()) + 1
            if key_weights is None:
                combo *= n_s  # in place: the combination of each record, with its value
                combo += key
                # with row_counts: float64 sums of integers, exact
                weights = np.bincount(combo, weights=row_counts, minlength=k * n_s)
                weights = weights.reshape(k, n_s)
            else:
                weights = np.empty((k, n_s), dtype=np.float64)
                for v in range(n_s):  # a loop over sensitive values, not records
                    column = _weight_column(key_weights, v)[key]
                    weights[:, v] = np.bincount(combo, weights=column, minlength=k)
                    del column
            factors = [_record_factor(wl, q) for q in names]
            _contract(rows, factors, reps, weights.astype(np.float64), sens_mask, out)
        else:
            # Few queries: evaluate them on the records directly.
            step = max(1, _CHUNK // max(table.n_rows, 1))
            for lo in range(0, len(rows), step):
                qr = rows[lo : lo + step]
                ind = np.ones((len(qr), table.n_rows), dtype=bool)
                for q, c in zip(names, codes, strict=True):
                    ind &= _record_factor(wl, q)(qr, c)
                sm = sens_mask[qr].astype(np.float64)
                if isinstance(key_weights, GroupShares):
                    key_weights = key_weights.dense()
                per_key = sm if key_weights is None else sm @ key_weights.T
                per_row = per_key[:, key]
                if row_counts is not None:
                    per_row *= row_counts
                out[qr] = np.einsum("qr,qr->q", ind, per_row)
    return out


def _record_factor(wl: Workload, name: str):
    """f(queries, codes) -> bool (len(queries), len(codes)): the code satisfies the predicate."""
    if name in wl.intervals:
        intervals = wl.intervals[name]

        def factor(qr: np.ndarray, codes: np.ndarray) -> np.ndarray:
            iv = intervals[qr]
            return (codes >= iv[:, :1]) & (codes <= iv[:, 1:])

    else:
        masks = wl.masks[name]

        def factor(qr: np.ndarray, codes: np.ndarray) -> np.ndarray:
            return np.take(masks[qr], codes, axis=1)

    return factor


def _contract(
    rows: np.ndarray,
    factors: list,
    reps: list[np.ndarray],
    weights: np.ndarray,
    sens_mask: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[q] = sum_k prod_i factors[i](q, reps[i])[k] * (weights[k] . sens_mask[q])``.

    ``k`` runs over value combinations (of records or of groups), ``weights`` (K, S) holds their
    sensitive counts or shares; queries are processed in chunks of about ``_CHUNK`` elements.
    """
    k = weights.shape[0]
    step = max(1, _CHUNK // max(k, 1))
    for lo in range(0, len(rows), step):
        qr = rows[lo : lo + step]
        f = np.ones((len(qr), k), dtype=bool)
        for factor, rep in zip(factors, reps, strict=True):
            x = factor(qr, rep)
            if f.dtype == bool and x.dtype == bool:
                f &= x  # 0/1 indicators: stay boolean (8x less memory traffic)
            elif f.dtype == bool:
                f = x * f
            else:
                f *= x
        f = f.astype(np.float64, copy=False)
        out[qr] = np.einsum("qs,qs->q", f @ weights, sens_mask[qr])


def _subsets(uses: np.ndarray) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """Queries grouped by the set of quasi-identifiers they use."""
    if uses.shape[0] == 0:
        return []
    patterns, inverse = np.unique(uses, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(patterns) + 1))
    return [
        (tuple(int(a) for a in np.flatnonzero(p)), order[bounds[i] : bounds[i + 1]])
        for i, p in enumerate(patterns)
    ]


def _combine(
    codes: list[np.ndarray], radices: list[int], n: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Distinct combinations of ``codes`` (each in ``0..radix-1``) over ``n`` items.

    Returns the combination id of each item (0..K-1) and, per attribute, the value each
    combination has. Small key spaces are counted with ``bincount``, large ones sorted.
    """
    if not codes:
        return np.zeros(n, dtype=np.int64), []
    if math.prod(radices) <= max(4 * n, 1 << 16):
        key = np.zeros(n, dtype=np.int64)
        for c, r in zip(codes, radices, strict=True):  # in place: one (n,) int64 array
            key *= r
            key += c
        present = np.bincount(key, minlength=math.prod(radices)) > 0
        combo = (np.cumsum(present) - 1)[key]
        keys = np.flatnonzero(present)
        reps = []
        for r in reversed(radices):
            reps.append(keys % r)
            keys = keys // r
        return combo, reps[::-1]
    combo = np.zeros(n, dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    for c, r in zip(codes, radices, strict=True):  # re-densify after each, so no overflow
        _, first, combo = np.unique(combo * r + c, return_index=True, return_inverse=True)
        combo = combo.reshape(-1).astype(np.int64)
    return combo, [c[first] for c in codes]


def _estimate_generalized(release: Release, wl: Workload) -> np.ndarray:
    """Uniformity estimate from the published generalized values, batched over queries.

    Per set of attributes queried together, groups with the same published values on them are
    merged (their histograms summed); the estimate is then the same contraction as for records,
    with the covered share ``covered_i(g) / cover_size_i(g)`` in place of the 0/1 indicator.
    """
    hist = _published_counts(release)  # integers; bincount adds them as float64, exactly
    n_groups = release.n_groups
    sens_mask = wl.mask(wl.sensitive)
    n_s = sens_mask.shape[1]
    # Per quasi-identifier: the distinct published values and which group has which.
    published: dict[str, tuple[np.ndarray, object]] = {}
    for j, q in enumerate(wl.quasi_identifiers):
        if wl.uses[:, j].any():
            published[q] = _share_factor(release, wl, q)
    out = np.zeros(len(wl), dtype=np.float64)
    for attrs, rows in _subsets(wl.uses):
        names = [wl.quasi_identifiers[a] for a in attrs]
        which = [published[q][0] for q in names]
        radices = [int(w.max()) + 1 for w in which]
        combo, reps = _combine(which, radices, n_groups)
        k = int(combo.max()) + 1
        weights = np.empty((k, n_s), dtype=np.float64)
        for v in range(n_s):  # a loop over sensitive values, not groups
            weights[:, v] = np.bincount(combo, weights=hist[:, v], minlength=k)
        _contract(rows, [published[q][1] for q in names], reps, weights, sens_mask, out)
    return out


def _share_factor(release: Release, wl: Workload, name: str) -> tuple[np.ndarray, object]:
    """Index of each group's published value of ``name`` and f(queries, values) -> share.

    The share is ``covered / cover_size``: of the domain values the published value covers, the
    fraction the query's predicate selects. It is computed once per distinct published value and
    then spread to the value combinations.
    """
    ga = release.generalization[name]
    if release.table.schema[name].kind is Kind.NUMERIC:
        size = release.table.domain_size(name)
        _, first, inv = np.unique(
            ga.lo.astype(np.int64) * size + ga.hi, return_index=True, return_inverse=True
        )
        ulo = ga.lo[first].astype(np.int64)
        uhi = ga.hi[first].astype(np.int64)
        cover = (uhi - ulo + 1).astype(np.float64)
        intervals = wl.intervals[name]

        def factor(qr: np.ndarray, idx: np.ndarray) -> np.ndarray:
            iv = intervals[qr]
            covered = np.clip(np.minimum(iv[:, 1:], uhi) - np.maximum(iv[:, :1], ulo) + 1, 0, None)
            return np.take(covered / cover, idx, axis=1)

    else:
        first, inv = _distinct_rows(ga.mask)
        uniq = ga.mask[first]
        share = uniq.astype(np.float64).T / uniq.sum(axis=1)  # (|A|, U): share of each value
        masks = wl.masks[name]

        def factor(qr: np.ndarray, idx: np.ndarray) -> np.ndarray:
            return np.take(masks[qr].astype(np.float64) @ share, idx, axis=1)

    return inv.reshape(-1).astype(np.int64), factor


def _distinct_rows(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row of each distinct row of a bool matrix, and each row's distinct-row index.

    Rows are packed into 62-bit integers (one per 62 columns), then sorted; much faster than
    ``np.unique(mask, axis=0)`` on many rows.
    """
    n_rows, width = mask.shape
    bits = 1 << np.arange(62, dtype=np.int64)
    cols = [
        mask[:, lo : lo + 62].astype(np.int64) @ bits[: min(62, width - lo)]
        for lo in range(0, width, 62)
    ] or [np.zeros(n_rows, dtype=np.int64)]
    keys = np.stack(cols, axis=1)
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)]
    inv = np.empty(n_rows, dtype=np.int64)
    inv[order] = np.cumsum(new) - 1
    return order[new], inv
