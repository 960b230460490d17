"""The COUNT-query workload: :class:`Workload` and :func:`generate_workload` (Xiao & Tao,
VLDB 2006, §6; the generator is described in the package docstring)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from anonlab._validation import check_float, check_int, check_seed, rng_from_seed
from anonlab.errors import AnonlabError
from anonlab.schema import Kind
from anonlab.table import Table

#: Tolerance subtracted before the ceiling of the b rule, so an exact product is not rounded up.
_CEIL_TOL = 1e-9


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
    from anonlab.utility.workload.answers import actual_counts  # answers import Workload

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
