"""COUNT-query workload error: how well a release answers aggregate queries.

The measure of Xiao & Tao (Anatomy, VLDB 2006, §6), reused by Li & Li (Injector, ICDE 2008,
§VI.D) and Jin et al. (ASAP, §8). A query is

.. code-block:: sql

    SELECT COUNT(*) FROM T
    WHERE pred(A_1) AND ... AND pred(A_qd) AND pred(S)

over ``qd`` quasi-identifiers chosen at random and the sensitive attribute ``S``. Its *actual*
answer ``act`` is counted on the original table; its *estimate* ``est`` is reconstructed from the
release. The error of the workload is the mean of ``|act - est| / act``.

The query generator (exactly; see :func:`generate_workload` and docs/utility.md):

* the ``qd`` quasi-identifiers of a query are a uniform random ``qd``-subset of the table's
  quasi-identifiers, drawn independently for every query;
* every predicate, the sensitive one included, selects ``b = ceil(|A| * s ** (1 / (qd + 1)))``
  values of its attribute ``A`` (``|A|`` = number of distinct values of ``A`` in the table,
  ``s`` = the expected selectivity), so that the ``qd + 1`` predicates together keep about a share
  ``s`` of a uniform table;
* numeric attribute: a contiguous run of ``b`` codes (the ``b`` consecutive distinct values
  starting at a uniform random position ``0 .. |A| - b``);
  categorical attribute: a uniform random subset of ``b`` distinct values;
* a query whose actual answer is 0 is redrawn (its relative error is undefined), up to a cap;
  the number of redrawn queries is reported.

Estimation (the uniformity assumption of the papers):

* generalization: records are spread uniformly over the domain values their group's published
  value covers, and attributes are independent inside a group::

      est = sum_g sum_{v in pred(S)} hist[g, v] * prod_i covered_i(g) / cover_size_i(g)

* bucketization (Anatomy): the QI table is exact and the sensitive table gives the group's
  counts; within a group, QI and sensitive values are independent::

      est = sum_g #{r in g : r's exact QI satisfy every QI predicate}
                  * sum_{v in pred(S)} hist[g, v] / |g|

``hist`` holds the *published* sensitive values: a release with perturbed sensitive values (MASK)
is estimated from what it publishes, while ``act`` counts the original values.

Evaluation is batched: queries that use the same quasi-identifiers share one compression of the
table to its distinct value combinations, and each batch is a few array products; no Python loop
runs over records (nor, for generalization, over groups).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import check_float, check_int, check_seed, rng_from_seed
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.schema import Kind
from anonlab.table import Table

__all__ = [
    "Workload",
    "WorkloadError",
    "actual_counts",
    "estimated_counts",
    "generate_workload",
    "predicate_size",
    "workload_error",
]

#: Elements (queries x rows) handled per array product; bounds memory to a few tens of MB.
_CHUNK = 1 << 22
#: Query sets smaller than this are evaluated record by record instead of compressing the table.
_COMPRESS_MIN_QUERIES = 8
#: Tolerance subtracted before the ceiling of the b rule, so an exact product is not rounded up.
_CEIL_TOL = 1e-9


# ---------------------------------------------------------------------------------------- workload
@dataclass(frozen=True, eq=False)
class Workload:
    """A set of COUNT queries over the quasi-identifiers and the sensitive attribute of a table.

    Build one with :func:`generate_workload` (random, as in the papers) or
    :meth:`Workload.from_queries` (given predicates).

    Attributes
    ----------
    quasi_identifiers : tuple of str
        The table's quasi-identifiers; column ``j`` of :attr:`uses` is ``quasi_identifiers[j]``.
    sensitive : str
    domain_sizes : dict of str to int
        ``|A|`` of every quasi-identifier and of the sensitive attribute.
    uses : ndarray of shape (n_queries, n_qi), dtype=bool
        Which quasi-identifiers each query constrains.
    masks : dict of str to ndarray of shape (n_queries, |A|), dtype=bool
        Categorical attributes: the values each query selects. Rows of queries that do not use the
        attribute are all True.
    intervals : dict of str to ndarray of shape (n_queries, 2), dtype=int64
        Numeric attributes: the inclusive code range ``[lo, hi]`` each query selects
        (``lo > hi`` selects nothing). Rows of queries that do not use it span the domain.
    qd : int or None
        Query dimensionality (None when queries differ in dimensionality).
    selectivity : float or None
        The expected selectivity ``s`` the predicate sizes were derived from.
    seed : int or None
    predicate_sizes : dict of str to int
        ``b`` of each attribute (generated workloads only).
    n_redrawn : int
        Queries drawn with an actual answer of 0 and replaced.
    actual : ndarray of shape (n_queries,), dtype=int64, or None
        Actual answers on the table the workload was generated from.
    """

    quasi_identifiers: tuple[str, ...]
    sensitive: str
    domain_sizes: dict[str, int]
    uses: np.ndarray = field(repr=False)
    masks: dict[str, np.ndarray] = field(repr=False)
    intervals: dict[str, np.ndarray] = field(repr=False)
    qd: int | None = None
    selectivity: float | None = None
    seed: int | None = None
    predicate_sizes: dict[str, int] = field(default_factory=dict)
    n_redrawn: int = 0
    actual: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.uses.shape[0])

    @property
    def n_queries(self) -> int:
        return len(self)

    @property
    def attributes(self) -> np.ndarray:
        """Indices into :attr:`quasi_identifiers` of each query's attributes, ascending.

        Returns
        -------
        ndarray of shape (n_queries, qd), dtype=int64
        """
        per_query = self.uses.sum(axis=1)
        if len(self) and np.any(per_query != per_query[0]):
            raise AnonlabError("the queries of this workload use different numbers of attributes")
        qd = int(per_query[0]) if len(self) else 0
        return np.nonzero(self.uses)[1].reshape(len(self), qd)

    def mask(self, name: str) -> np.ndarray:
        """The values each query selects of attribute ``name``, shape (n_queries, |A|), bool."""
        if name in self.masks:
            return self.masks[name]
        if name not in self.intervals:
            raise AnonlabError(
                f"attribute {name!r} is not in the workload; it has "
                f"{list(self.quasi_identifiers) + [self.sensitive]}"
            )
        iv = self.intervals[name]
        dom = np.arange(self.domain_sizes[name])
        return (dom >= iv[:, :1]) & (dom <= iv[:, 1:])

    def to_json(self) -> dict:
        """The settings of the workload (not the predicates)."""
        return {
            "n_queries": self.n_queries,
            "qd": self.qd,
            "selectivity": self.selectivity,
            "seed": self.seed,
            "n_redrawn": self.n_redrawn,
            "predicate_sizes": dict(self.predicate_sizes),
            "quasi_identifiers": list(self.quasi_identifiers),
            "sensitive": self.sensitive,
        }

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_queries(cls, table: Table, queries: Sequence[Mapping[str, object]]) -> Workload:
        """A workload of given queries.

        Parameters
        ----------
        table : Table
        queries : sequence of mapping of str to values
            One mapping per query, from attribute name (quasi-identifier or the sensitive
            attribute) to its predicate: for a categorical attribute an iterable of values, for a
            numeric one a pair ``(low, high)``, the closed range of values. An attribute that is
            not named is not constrained.

        Returns
        -------
        Workload
        """
        sens = table.require_sensitive()
        qis = tuple(table.quasi_identifiers)
        names = qis + (sens,)
        if len(queries) == 0:
            raise AnonlabError("parameter 'queries' is empty; give at least one query")
        n = len(queries)
        uses = np.zeros((n, len(qis)), dtype=bool)
        masks: dict[str, np.ndarray] = {}
        intervals: dict[str, np.ndarray] = {}
        for name in names:
            size = table.domain_size(name)
            if table.schema[name].kind is Kind.NUMERIC:
                intervals[name] = np.tile(np.array([0, size - 1], dtype=np.int64), (n, 1))
            else:
                masks[name] = np.ones((n, size), dtype=bool)
        for j, query in enumerate(queries):
            for name, pred in query.items():
                if name not in names:
                    raise AnonlabError(
                        f"query {j}: attribute {name!r} is neither a quasi-identifier nor the "
                        f"sensitive attribute; use one of {list(names)}"
                    )
                values = table.values[name]
                if name in intervals:
                    lo, hi = _as_range(pred, name, j)
                    intervals[name][j] = (
                        np.searchsorted(values, lo, side="left"),
                        np.searchsorted(values, hi, side="right") - 1,
                    )
                else:
                    masks[name][j] = _value_mask(values, pred, name, j)
                if name != sens:
                    uses[j, qis.index(name)] = True
        sizes = {name: table.domain_size(name) for name in names}
        return cls(qis, sens, sizes, uses, masks, intervals)


def _as_range(pred: object, name: str, j: int) -> tuple[object, object]:
    if isinstance(pred, str) or not isinstance(pred, Sequence) or len(pred) != 2:
        raise AnonlabError(
            f"query {j}: the predicate on numeric attribute {name!r} must be a pair (low, high), "
            f"got {pred!r}"
        )
    return pred[0], pred[1]


def _value_mask(values: np.ndarray, pred: object, name: str, j: int) -> np.ndarray:
    if isinstance(pred, str) or not isinstance(pred, Iterable):
        pred = [pred]
    labels = {str(v): i for i, v in enumerate(values)}
    mask = np.zeros(len(values), dtype=bool)
    for v in pred:
        code = labels.get(str(v))
        if code is None:
            raise AnonlabError(
                f"query {j}: value {v!r} does not occur in column {name!r}; its values are "
                f"{[str(x) for x in values[:20]]}"
            )
        mask[code] = True
    return mask


def predicate_size(domain_size: int, qd: int, selectivity: float) -> int:
    """Values selected by one predicate: ``b = ceil(|A| * s ** (1 / (qd + 1)))``.

    Xiao & Tao (VLDB 2006, §6): with ``qd + 1`` independent predicates each keeping a share
    ``s ** (1 / (qd + 1))`` of a uniform domain, a query keeps a share ``s`` of the table. The
    product is computed in double precision and a tolerance of 1e-9 is subtracted before the
    ceiling, so that an exact integer (e.g. ``16 * 0.0625 ** 0.5 = 4``) is not rounded up; the
    result is clipped to ``[1, |A|]``.
    """
    raw = domain_size * selectivity ** (1.0 / (qd + 1))
    return int(min(max(math.ceil(raw - _CEIL_TOL), 1), domain_size))


def generate_workload(
    table: Table,
    n_queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
    *,
    max_redrawn: int | None = None,
    answer: Callable[[Workload], np.ndarray] | None = None,
) -> Workload:
    """Draw a random COUNT-query workload as in Xiao & Tao (VLDB 2006, §6).

    Parameters
    ----------
    table : Table
        The original table (it must have a sensitive attribute).
    n_queries : int, default=10000
        Number of queries, all with a non-zero actual answer. Jin et al. (ASAP, §8) use 10,000;
        Li & Li (Injector, §VI.D) use 1,000.
    qd : int, default=3
        Query dimensionality: quasi-identifiers per query, ``0 <= qd <= n_qi``. The sensitive
        predicate is always present.
    selectivity : float, default=0.05
        The expected selectivity ``s`` in (0, 1].
    seed : int, default=0
        The same seed on the same table gives the same workload.
    max_redrawn : int, optional
        Cap on the number of queries redrawn because their actual answer is 0; default
        ``10 * n_queries``. Past it an error asks for a larger ``selectivity`` or smaller ``qd``.
    answer : callable, optional
        Counts the actual answers of a batch of drawn queries (default:
        :func:`actual_counts` on ``table``). The Dask backend counts them over row blocks
        (:func:`anonlab.distributed.measures.generate_workload_distributed`); any exact count
        gives the same workload.

    Returns
    -------
    Workload
        With :attr:`Workload.actual` (the actual answers) and :attr:`Workload.n_redrawn` filled in.

    Notes
    -----
    For each query: its quasi-identifiers are a uniform random ``qd``-subset (the first ``qd`` of a
    uniform random permutation); for each of them and for the sensitive attribute, ``b`` values
    (:func:`predicate_size`) are chosen: for a numeric attribute the codes ``start .. start+b-1``
    with ``start`` uniform in ``0 .. |A|-b``, for a categorical one a uniform random ``b``-subset
    of its codes. Queries are drawn in batches from one ``numpy.random.Generator`` seeded with
    ``seed``; a query with actual answer 0 is dropped and counted in ``n_redrawn``, and further
    batches are drawn until ``n_queries`` remain (kept in draw order; the rest of the last batch,
    after the ``n_queries``-th kept query, is discarded unexamined and not counted).

    References
    ----------
    X. Xiao and Y. Tao. Anatomy: simple and effective privacy preservation. VLDB 2006, §6.
    X. Jin, N. Zhang and G. Das. ASAP: eliminating algorithm-based disclosure in privacy-preserving
    data publishing. Information Systems 36(5), 2011, §8.
    """
    sens = table.require_sensitive()
    n_queries = check_int("n_queries", n_queries, minimum=1)
    qd = check_int("qd", qd, minimum=0)
    n_qi = len(table.quasi_identifiers)
    if qd > n_qi:
        raise AnonlabError(
            f"parameter 'qd' must be at most the number of quasi-identifiers ({n_qi}: "
            f"{list(table.quasi_identifiers)}), got {qd}"
        )
    selectivity = check_float("selectivity", selectivity)
    if not 0.0 < selectivity <= 1.0:
        raise AnonlabError(
            f"parameter 'selectivity' must be a number in (0, 1], got {selectivity!r}"
        )
    seed = check_seed(seed)
    max_redrawn = (
        10 * n_queries if max_redrawn is None else check_int("max_redrawn", max_redrawn, minimum=0)
    )
    rng = rng_from_seed(seed)
    names = tuple(table.quasi_identifiers) + (sens,)
    sizes = {name: predicate_size(table.domain_size(name), qd, selectivity) for name in names}

    parts: list[Workload] = []
    kept = drawn = redrawn = 0
    while kept < n_queries:
        need = n_queries - kept
        rate = kept / drawn if kept else (1.0 if drawn == 0 else 0.1)
        batch = min(math.ceil(need / max(rate, 1e-3) * 1.1) + 8, need + max_redrawn - redrawn)
        part = _draw(table, batch, qd, sizes, rng)
        act = actual_counts(table, part) if answer is None else answer(part)
        nonzero = np.flatnonzero(act > 0)
        drawn += batch
        if len(nonzero) >= need:
            stop = int(nonzero[need - 1]) + 1  # queries after the last one kept are not used
            redrawn += stop - need
            nonzero = nonzero[:need]
        else:
            redrawn += batch - len(nonzero)
        if redrawn > max_redrawn:
            raise AnonlabError(
                f"only {kept + len(nonzero)} of {drawn} queries drawn had a non-zero answer "
                f"(cap max_redrawn={max_redrawn} reached); raise parameter 'selectivity' "
                f"(now {selectivity}) or lower 'qd' (now {qd})"
            )
        parts.append(_take(part, nonzero, act[nonzero]))
        kept += len(nonzero)
    out = _concat(parts)
    return Workload(
        out.quasi_identifiers,
        out.sensitive,
        out.domain_sizes,
        out.uses,
        out.masks,
        out.intervals,
        qd=qd,
        selectivity=selectivity,
        seed=seed,
        predicate_sizes=sizes,
        n_redrawn=int(redrawn),
        actual=out.actual,
    )


def _draw(
    table: Table, n: int, qd: int, sizes: dict[str, int], rng: np.random.Generator
) -> Workload:
    """``n`` random queries (no check of their answers)."""
    sens = table.require_sensitive()
    qis = tuple(table.quasi_identifiers)
    d = len(qis)
    uses = np.zeros((n, d), dtype=bool)
    if qd == d:
        uses[:] = True
    elif qd > 0:
        chosen = np.argsort(rng.random((n, d)), axis=1)[:, :qd]
        uses[np.arange(n)[:, None], chosen] = True
    masks: dict[str, np.ndarray] = {}
    intervals: dict[str, np.ndarray] = {}
    for j, name in enumerate(qis + (sens,)):
        size = table.domain_size(name)
        b = sizes[name]
        rows = np.arange(n) if name == sens else np.flatnonzero(uses[:, j])
        if table.schema[name].kind is Kind.NUMERIC:
            iv = np.tile(np.array([0, size - 1], dtype=np.int64), (n, 1))
            start = rng.integers(0, size - b + 1, size=len(rows))
            iv[rows, 0] = start
            iv[rows, 1] = start + b - 1
            intervals[name] = iv
        else:
            m = np.ones((n, size), dtype=bool)
            if b < size and len(rows):
                pick = np.argsort(rng.random((len(rows), size)), axis=1)[:, :b]
                sub = np.zeros((len(rows), size), dtype=bool)
                sub[np.arange(len(rows))[:, None], pick] = True
                m[rows] = sub
            masks[name] = m
    domain = {name: table.domain_size(name) for name in qis + (sens,)}
    return Workload(qis, sens, domain, uses, masks, intervals)


def _take(wl: Workload, rows: np.ndarray, actual: np.ndarray | None = None) -> Workload:
    return Workload(
        wl.quasi_identifiers,
        wl.sensitive,
        wl.domain_sizes,
        wl.uses[rows],
        {k: v[rows] for k, v in wl.masks.items()},
        {k: v[rows] for k, v in wl.intervals.items()},
        actual=actual,
    )


def _concat(parts: list[Workload]) -> Workload:
    first = parts[0]
    return Workload(
        first.quasi_identifiers,
        first.sensitive,
        first.domain_sizes,
        np.concatenate([p.uses for p in parts]),
        {k: np.concatenate([p.masks[k] for p in parts]) for k in first.masks},
        {k: np.concatenate([p.intervals[k] for p in parts]) for k in first.intervals},
        actual=np.concatenate([p.actual for p in parts]),
    )


# ---------------------------------------------------------------------------------------- answers
def actual_counts(table: Table, workload: Workload) -> np.ndarray:
    """The answer of each query on the original table.

    Parameters
    ----------
    table : Table
    workload : Workload

    Returns
    -------
    ndarray of shape (n_queries,), dtype=int64
    """
    check_workload_matches(table, workload)
    sens = workload.sensitive
    sums = qi_sums(table, workload, table.codes[sens], None)
    return np.rint(sums).astype(np.int64)


def estimated_counts(release: Release, workload: Workload) -> np.ndarray:
    """The answer of each query estimated from what the release publishes.

    Generalization: uniformity inside each group's published ranges and hierarchy nodes,
    independence across attributes. Bucketization: exact QI table, the group's sensitive counts
    spread uniformly over its members (Xiao & Tao, VLDB 2006, §6). The sensitive counts are the
    published ones (perturbed, for MASK).

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
    hist = release.sensitive_histogram.astype(np.float64)
    # column-major: qi_sums gathers one sensitive value's column at a time (3x faster at 1M rows)
    share = np.asfortranarray(hist / release.group_sizes[:, None])
    return qi_sums(release.table, workload, release.group, share)


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
    table: Table, wl: Workload, key: np.ndarray, key_weights: np.ndarray | None
) -> np.ndarray:
    """For each query j: sum over records r satisfying j's QI predicates of w(r) . pred_j(S).

    ``w(r)`` is a weight vector over the sensitive domain: the one-hot vector of ``key[r]`` when
    ``key_weights`` is None (actual answers), else ``key_weights[key[r]]`` (bucketization: the
    sensitive shares of r's group). Assumes ``wl`` was drawn for ``table``'s schema
    (:func:`check_workload_matches`); a sum over records, so blocks of rows add up (the
    map-reduce estimate of :mod:`anonlab.distributed.measures`).
    """
    out = np.zeros(len(wl), dtype=np.float64)
    sens_mask = wl.mask(wl.sensitive)
    n_s = sens_mask.shape[1]
    key = np.asarray(key, dtype=np.int64)
    for attrs, rows in _subsets(wl.uses):
        names = [wl.quasi_identifiers[a] for a in attrs]
        codes = [table.codes[q] for q in names]
        if len(rows) >= _COMPRESS_MIN_QUERIES:
            # The distinct value combinations of these attributes, with their sensitive weights.
            combo, reps = _combine(codes, [table.domain_size(q) for q in names], table.n_rows)
            k = int(combo.max()) + 1
            if key_weights is None:
                weights = np.bincount(combo * n_s + key, minlength=k * n_s).reshape(k, n_s)
            else:
                weights = np.empty((k, n_s), dtype=np.float64)
                for v in range(n_s):  # a loop over sensitive values, not records
                    weights[:, v] = np.bincount(combo, weights=key_weights[key, v], minlength=k)
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
                per_key = sm if key_weights is None else sm @ key_weights.T
                out[qr] = np.einsum("qr,qr->q", ind, per_key[:, key])
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
        for c, r in zip(codes, radices, strict=True):
            key = key * r + c
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
    hist = release.sensitive_histogram.astype(np.float64)
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


# ---------------------------------------------------------------------------------------- error
@dataclass(frozen=True)
class WorkloadError:
    """Relative error of a release on a COUNT-query workload.

    Attributes
    ----------
    mean_relative_error : float
        Mean of ``|act - est| / act`` over the queries with ``act > 0`` (the papers' measure).
    median_relative_error : float
    n_queries : int
        Queries the error is averaged over.
    n_excluded : int
        Queries left out because their actual answer is 0 (always 0 for a generated workload
        evaluated on the table it was generated from).
    n_redrawn : int
        Queries redrawn during generation because their actual answer was 0.
    scheme : str
    settings : dict
        The workload's settings (``n_queries``, ``qd``, ``selectivity``, ``seed``,
        ``predicate_sizes``, ...).
    seed : int or None
    actual, estimated, relative_error : ndarray of shape (n_queries_in_workload,)
        Per query; ``relative_error`` is NaN where ``actual`` is 0.
    """

    mean_relative_error: float
    median_relative_error: float
    n_queries: int
    n_excluded: int
    n_redrawn: int
    scheme: str
    settings: dict
    seed: int | None
    actual: np.ndarray = field(repr=False)
    estimated: np.ndarray = field(repr=False)
    relative_error: np.ndarray = field(repr=False)

    @property
    def value(self) -> float:
        """The headline number: :attr:`mean_relative_error`."""
        return self.mean_relative_error

    def to_json(self) -> dict:
        return {
            "measure": "workload-error",
            "mean_relative_error": self.mean_relative_error,
            "median_relative_error": self.median_relative_error,
            "n_queries": self.n_queries,
            "n_excluded": self.n_excluded,
            "n_redrawn": self.n_redrawn,
            "scheme": self.scheme,
            "seed": self.seed,
            "settings": dict(self.settings),
        }


def workload_error(
    release: Release,
    workload: Workload | None = None,
    *,
    n_queries: int = 10_000,
    qd: int = 3,
    selectivity: float = 0.05,
    seed: int = 0,
) -> WorkloadError:
    """Average relative error of COUNT queries answered from a release.

    Parameters
    ----------
    release : Release
    workload : Workload, optional
        Queries to answer; give the same workload to compare releases of one table. Default: one
        drawn by :func:`generate_workload` with the parameters below.
    n_queries, qd, selectivity, seed
        Passed to :func:`generate_workload` when ``workload`` is None (defaults: 10,000 queries,
        ``qd=3``, ``s=0.05``, seed 0, the settings of Jin et al., §8).

    Returns
    -------
    WorkloadError

    References
    ----------
    X. Xiao and Y. Tao. Anatomy: simple and effective privacy preservation. VLDB 2006, §6.
    T. Li and N. Li. Injector: mining background knowledge for data anonymization. ICDE 2008,
    §VI.D.
    """
    if not isinstance(release, Release):
        raise AnonlabError(f"expected a Release, got {type(release).__name__}")
    if workload is None:
        workload = generate_workload(release.table, n_queries, qd, selectivity, seed)
        act = workload.actual
    else:
        act = actual_counts(release.table, workload)
    return workload_error_from_counts(release, workload, act, estimated_counts(release, workload))


def workload_error_from_counts(
    release: Release, workload: Workload, act: np.ndarray, est: np.ndarray
) -> WorkloadError:
    """The :class:`WorkloadError` of actual answers ``act`` and estimates ``est`` (also the
    finishing step of the Dask backend's map-reduce workload error)."""
    valid = act > 0
    rel = np.full(len(workload), np.nan)
    rel[valid] = np.abs(act[valid] - est[valid]) / act[valid]
    if not valid.any():
        raise AnonlabError("every query of the workload has an actual answer of 0 on this table")
    good = rel[valid]
    settings = workload.to_json()
    settings["perturbed_records"] = release.manifest.get("perturbed_records", 0)
    return WorkloadError(
        mean_relative_error=float(good.mean()),
        median_relative_error=float(np.median(good)),
        n_queries=int(valid.sum()),
        n_excluded=int((~valid).sum()),
        n_redrawn=workload.n_redrawn,
        scheme=release.scheme,
        settings=settings,
        seed=workload.seed,
        actual=act,
        estimated=est,
        relative_error=rel,
    )
