"""Optimal full-domain generalization by search over the generalization lattice.

A node of the lattice gives one level per quasi-identifier; applying it is
:func:`~anonlab.anonymize.generalize.generalize`. The search returns the node with the least
information loss among those whose release satisfies a privacy model.

Pruning rests on two facts:

* the models registered as ``monotone`` (:class:`anonlab.models.Model`; all of anonlab's are) are
  *monotone under generalization*: if a node's release satisfies it,
  so does every more general node's (merging classes keeps k, frequency / distinct / entropy /
  recursive ℓ-diversity, m-confidentiality's frequency condition and EMD t-closeness; LeFevre et
  al., SIGMOD 2005, §3; Machanavajjhala et al. 2007, §4; Li et al., ICDE 2007, §4). So a node
  that fails proves every more specific node fails;
* without suppression ARX's Loss, height and precision depend on the node only, so they can be
  computed for all nodes up front; discernibility and the average class size depend on the
  classes but only grow when classes merge, so their minimum lies at a minimal satisfying node.

The search visits nodes in increasing metric order and checks a node only when no failed node
already covers it; the first node that holds is optimal (every node of lower metric has failed or
was proved to fail). This is exact, like Incognito and ARX's Flash. A node that fails is climbed
from, along Flash's paths with a binary search on each (:class:`_MonotoneSearch`), to a maximal
failing node whose down-set covers many of the nodes asked about next.

With a suppression limit and a class metric every node is evaluated (no bound ends the search).

Lattices too large to list (more than :data:`MAX_NODES` nodes, 10 and more quasi-identifiers):
:func:`lattice` refuses them, naming the size, and they are searched heuristically, within a
budget, by :func:`anonlab.anonymize.lightning.lightning`, which checks each node with this
module's check (:class:`NodeCheck`).

Checking a node costs no pass over the records: the records are grouped once into their distinct
quasi-identifier vectors, and each node's classes (sizes, sparse sensitive histograms, and the
verdict of the model on each) are rolled up from those of a finer node already checked, in
compiled code (:class:`_Partitions`). On Adult (30,162 or 301,620 rows, 2,160 nodes) a node
costs tens of microseconds; docs/benchmarks.md ("Lattice search beside ARX, same run") times the
whole search beside ARX 3.9.2.

References
----------
K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Incognito: efficient full-domain k-anonymity.
SIGMOD 2005. F. Kohlmayer, F. Prasser, C. Eckert, A. Kemper, K. A. Kuhn. Flash: efficient, stable
and optimal k-anonymity. PASSAT 2012.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from anonlab import models
from anonlab._validation import (
    check_choice,
    check_float,
    check_int,
    check_seed,
    takes_table_or_frame,
)
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table
from anonlab.utility.arx_loss import attribute_loss, combine_losses

#: Information-loss metrics that depend on the node only (so every node can be ranked first).
NODE_METRICS = ("arx-loss", "height", "precision")
#: Metrics that depend on the node's classes; both only grow when classes merge, so their minimum
#: over the satisfying nodes lies at a minimal satisfying node.
CLASS_METRICS = ("discernibility", "aecs")
METRICS = NODE_METRICS + CLASS_METRICS


def node_metric(
    table: Table,
    nodes: np.ndarray,
    metric: str,
    leaf_counts: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """A node-only metric of every node (rows of ``nodes``: one level per quasi-identifier).

    ``height``: the sum of levels. ``precision``: 1 − Sweeney's Prec, the mean over attributes of
    level / hierarchy height (Sweeney, IJUFKS 2002). ``arx-loss``: see the module docstring.
    ``leaf_counts`` (records per hierarchy leaf, one array per quasi-identifier) saves a pass
    over the records when the caller has them.
    """
    if metric == "height":
        return nodes.sum(axis=1).astype(float)
    if metric == "precision":
        heights = np.array(
            [max(table.schema[q].hierarchy.height, 1) for q in table.quasi_identifiers]
        )
        return (nodes / heights).mean(axis=1)
    # ARX's Loss without suppression: x_d depends on the level of attribute d only.
    terms = attribute_losses(table, leaf_counts)
    return combine_losses([x[nodes[:, j]] for j, x in enumerate(terms)])


def attribute_losses(
    table: Table, leaf_counts: Sequence[np.ndarray] | None = None
) -> list[np.ndarray]:
    """ARX's Loss term ``x_d`` of each quasi-identifier at each level of its hierarchy, nothing
    suppressed (notes/arx-loss-metric.md, step 3): one array per quasi-identifier, indexed by
    level. A node's Loss is :func:`~anonlab.utility.arx_loss.combine_losses` of its levels'
    terms; ``leaf_counts`` as :func:`node_metric` takes it."""
    terms = []
    for j, q in enumerate(table.quasi_identifiers):
        h = table.schema[q].hierarchy
        per_leaf = (
            np.bincount(table.leaf_codes(q)[table.codes[q]], minlength=len(h))
            if leaf_counts is None
            else leaf_counts[j]
        )
        a = np.array(  # records per leaf x the leaf's share, per level
            [per_leaf @ (h.node_size(lv) / len(h))[h.map(lv)] for lv in range(h.height + 1)]
        )
        terms.append(attribute_loss(a, table.n_rows, len(h)))
    return terms


@takes_table_or_frame
def lattice(
    table: Table,
    model: str,
    *,
    k: int | None = None,
    l: float | None = None,
    c: float | None = None,
    t: float | None = None,
    m: int | None = None,
    distance: str | None = None,
    sensitive_values: Sequence[str] | None = None,
    metric: str = "arx-loss",
    suppression: float = 0.0,
    verdicts: bool = False,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """The full-domain generalization with least ``metric`` that satisfies ``model``.

    Parameters
    ----------
    table : Table
        Every quasi-identifier needs a hierarchy.
    model : str
        A privacy model of :mod:`anonlab.models`. Its registered properties decide the
        pruning: ``monotone`` (a failing node proves the nodes below it fail) and, with
        suppression, ``monotone_with_suppression``; a model without them has every node it
        asks about checked on its own. What it needs of the table (``Model.missing``: a
        sensitive attribute, a hierarchy on it) is checked before the search.
    k, l, c, t, m, distance, sensitive_values
        The model's parameters (as :func:`anonlab.models.check` takes them; ``distance`` is
        t-closeness's ground distance, e.g. ``"equal"`` as ARX uses by default).
    metric : {"arx-loss", "height", "precision", "discernibility", "aecs"}
        ARX's default Loss (notes/arx-loss-metric.md), the sum of levels, 1 − Sweeney's
        precision (node-only metrics: nodes are visited in metric order), or the discernibility
        metric Σ|class|² or the average class size n / classes (class metrics: every node is
        classified, and the best minimal satisfying node is taken).
    suppression : float, default=0
        Largest share of records that may be suppressed (ARX's suppression limit): the records of
        the classes that violate the model are withheld from the release, and a node is
        acceptable when they number at most ``floor(suppression * n)``. With suppression, ARX's
        Loss charges each suppressed record 1 per attribute (so the metric is no longer node-only:
        the node-only value is a lower bound that ends the search), t-closeness compares each
        class with the distribution of the whole input, and only k-anonymity and distinct
        ℓ-diversity keep the pruning by monotonicity (ARX's ``monotonicWithSuppression``); with a
        class metric every node is evaluated (discernibility charges a suppressed record n; the
        average class size counts published records per published class).
    verdicts : bool, default=False
        Also evaluate every node of the lattice and store, in ``manifest["lattice"]["verdicts"]``,
        each node's levels, how many records it would suppress (those of its violating classes)
        and whether it is acceptable, for plots of the lattice. Costs one check per node.
    scheme : {"generalization", "bucketization"}
    seed : int
        Orders exported rows only.

    Returns
    -------
    Release
        Made by :func:`generalize` at the chosen node; the manifest records the model, the
        metric value, and how many nodes the lattice has, were checked, and were pruned.

    Raises
    ------
    IneligibleError
        When even the most general node (everything ``*``) fails the model.
    """
    metric = check_choice("metric", metric, METRICS)
    scheme = check_choice("scheme", scheme, SCHEMES)
    suppression = check_float("suppression", suppression, low=0.0, high=1.0)
    seed = check_seed(seed)
    model, params = model_parameters(
        model, k=k, l=l, c=c, t=t, m=m, distance=distance, sensitive_values=sensitive_values
    )
    table = searchable_table(table)
    check_model_fits(table, model, params)
    qi = table.quasi_identifiers
    heights = np.array([table.schema[q].hierarchy.height for q in qi], dtype=np.int64)
    check_lattice_size(heights)
    # Every node, in itertools.product order (the last attribute varies fastest).
    nodes = np.indices(tuple((heights + 1).tolist())).reshape(len(qi), -1).T.astype(np.int64)
    candidates = _Partitions(table, model, params)
    limit = int(np.floor(suppression * table.n_rows + 1e-9))
    release = _search(table, model, params, metric, limit, nodes, heights, candidates, scheme, seed)
    release.manifest["parameters"]["suppression"] = suppression
    if verdicts:
        suppressed = np.array([candidates.suppressed(node)[0] for node in nodes], dtype=np.int64)
        release.manifest["lattice"]["verdicts"] = {
            "quasi_identifiers": list(qi),
            "levels": nodes.tolist(),
            "suppressed": suppressed.tolist(),
            "acceptable": (suppressed <= limit).tolist(),
        }
    return release


def model_parameters(
    model: str,
    *,
    k: int | None = None,
    l: float | None = None,
    c: float | None = None,
    t: float | None = None,
    m: int | None = None,
    distance: str | None = None,
    sensitive_values: Sequence[str] | None = None,
) -> tuple[str, dict]:
    """The model's registered name and the parameters given (those not None), as the lattice
    searches pass them to the model's check.

    Raises
    ------
    AnonlabError
        For a model that :mod:`anonlab.models` does not know.
    """
    if model not in models.available() and model not in models.ALIASES:
        raise AnonlabError(f"unknown model {model!r}; available: {models.available()}")
    params = {
        key: value
        for key, value in {"k": k, "l": l, "c": c, "t": t, "m": m, "distance": distance}.items()
        if value is not None
    }
    if sensitive_values is not None:
        params["sensitive_values"] = list(sensitive_values)
    return models.get(model).name, params


def searchable_table(table: Table) -> Table:
    """``table`` with automatic intervals for numbers without a hierarchy, checked to have a
    hierarchy on every quasi-identifier (what a search over the generalization lattice needs).

    Raises
    ------
    AnonlabError
        Naming a quasi-identifier that has no hierarchy.
    """
    table = table.with_automatic_intervals()  # a number without a hierarchy gets intervals
    for q in table.quasi_identifiers:
        if table.schema[q].hierarchy is None:
            raise AnonlabError(
                f"quasi-identifier {q!r} has no hierarchy; the lattice search needs one per "
                "quasi-identifier (a builder: `anonlab hierarchy build` or a schema file; "
                "--hierarchies DIR; or a bundled --hierarchy-set)"
            )
    return table


#: The most nodes :func:`lattice` lists: beyond this (10 and more quasi-identifiers, ~250 MB of
#: node rows at 2.6 million nodes) it refuses and names the heuristic search.
MAX_NODES = 1_000_000


def check_lattice_size(heights: np.ndarray) -> None:
    """Refuse a lattice of more than :data:`MAX_NODES` nodes (``heights``: each
    quasi-identifier's hierarchy height), naming its size and the heuristic search.

    Raises
    ------
    AnonlabError
        Naming the number of nodes, the quasi-identifiers' levels, and ``lightning``.
    """
    n_nodes = int(np.prod([float(h) + 1 for h in np.asarray(heights).tolist()]))
    if n_nodes > MAX_NODES:
        shape = " x ".join(str(int(h) + 1) for h in np.asarray(heights).tolist())
        raise AnonlabError(
            f"the generalization lattice of the {len(heights)} quasi-identifiers has "
            f"{n_nodes:,} nodes ({shape} levels), more than the exact search lists "
            f"({MAX_NODES:,}); use the heuristic search, which checks nodes within a budget and "
            "reports its gap to the optimum: `anonlab anonymize --algorithm lightning "
            "--max-checks N` (anonlab.anonymize.lightning.lightning(table, model, ..., "
            "max_checks=N)), or use fewer quasi-identifiers or shallower hierarchies"
        )


def check_model_fits(table: Table, model: str, params: dict) -> None:
    """Refuse, before any search, a table that lacks what ``model`` needs with ``params``
    (:meth:`anonlab.models.Model.missing`: a sensitive attribute, a hierarchy on it).

    Raises
    ------
    AnonlabError
        Naming the model and what the table lacks.
    """
    lacks = models.get(model).missing(table, **params)
    if lacks:
        raise AnonlabError(
            f"the lattice search for {model} needs {' and '.join(lacks)}; the table has none"
        )


def prunes_failures(model: str, limit: int) -> bool:
    """Whether a node that fails ``model`` (with at most ``limit`` records suppressed) proves
    that every more specific node fails, so that a search may skip them: the model's
    ``monotone`` without suppression, its ``monotone_with_suppression`` with it
    (:class:`anonlab.models.Model`). Otherwise every node is judged by its own check."""
    spec = models.get(model)
    return spec.monotone and (limit == 0 or spec.monotone_with_suppression)


def _search(table, model, params, metric, limit, nodes, heights, candidates, scheme, seed):
    """The search proper (parameters validated by :func:`lattice`)."""
    if limit > 0:
        return _search_with_suppression(
            table, model, params, metric, limit, nodes, heights, candidates, scheme, seed
        )
    qi = table.quasi_identifiers
    monotone = prunes_failures(model, 0)
    if metric in NODE_METRICS:
        cost = node_metric(table, nodes, metric, candidates.leaf_counts())
        order = np.lexsort((nodes.sum(axis=1), cost))  # ties: fewer levels, then node order
        search = _MonotoneSearch(candidates.holds, nodes, heights, _rank(order), monotone)
        best = search.first_holding(order)
    else:
        # Classify every node, then take the best minimal satisfying node (without
        # monotonicity: the best satisfying node, which is minimal too, as the metric only
        # grows when classes merge).
        by_height = np.argsort(nodes.sum(axis=1), kind="stable")
        search = _MonotoneSearch(candidates.holds, nodes, heights, _rank(by_height), monotone)
        for i in by_height.tolist():
            search.holds(i)
        minimal = (
            search.minimal_holding() if monotone else np.flatnonzero(search.status == search.HOLDS)
        )
        cost = np.full(len(nodes), np.inf)
        for i in minimal.tolist():
            sizes = candidates.partition(nodes[i]).size
            cost[i] = (
                float((sizes**2).sum())
                if metric == "discernibility"
                else (table.n_rows / len(sizes))
            )
        order = np.lexsort((nodes.sum(axis=1), cost))
        best = int(order[0]) if len(minimal) else None
    if best is None:
        raise IneligibleError(
            f"no node of the lattice satisfies {model} with {params}: even the most general "
            "(every quasi-identifier '*') fails; relax the parameters"
        )
    levels = dict(zip(qi, nodes[best].tolist(), strict=True))
    manifest = {
        "algorithm": "lattice",
        "parameters": {
            "model": model,
            **params,
            "metric": metric,
            "levels": levels,
        },
        "seed": seed,
        "input_rows": int(table.n_rows),
        "suppressed_records": 0,
        "lattice": {
            "nodes": int(len(nodes)),
            "checked": search.checked,
            "visited_in_metric_order": int(np.flatnonzero(order == best)[0]) + 1
            if metric in NODE_METRICS
            else None,
            "metric_value": float(cost[best]),
        },
    }
    group, _ = candidates.groups_at(nodes[best], suppress=False)
    return Release(table, group, scheme, manifest, levels=levels)


def _search_with_suppression(
    table, model, params, metric, limit, nodes, heights, candidates, scheme, seed
) -> Release:
    """Least-loss node whose violating classes hold at most ``limit`` records (see lattice)."""
    if metric in CLASS_METRICS:  # no bound to stop at: every node is evaluated
        bound = np.zeros(len(nodes))
    else:
        bound = node_metric(table, nodes, metric, candidates.leaf_counts())  # none suppressed
    order = np.lexsort((nodes.sum(axis=1), bound))
    strides = _strides(heights)
    # Per node evaluated: the records it suppresses, and its cost when that is within the limit
    # (kept, not the partition, which the store of partitions may drop).
    evaluated: dict[int, tuple[int, float]] = {}

    def evaluate(i: int) -> tuple[int, float]:
        if i not in evaluated:
            suppressed, failing, part = candidates.suppressed(nodes[i])
            if suppressed > limit:
                cost = np.inf
            elif metric == "arx-loss":
                cost = _arx_loss_with_suppression(table, candidates, part, failing, suppressed)
            elif metric in CLASS_METRICS:
                sizes = part.size[~failing].astype(float)
                cost = (
                    float((sizes**2).sum()) + suppressed * table.n_rows  # Bayardo & Agrawal
                    if metric == "discernibility"
                    else (table.n_rows - suppressed) / len(sizes)  # published records per class
                )
            else:
                cost = bound[i]
            evaluated[i] = (suppressed, cost)
        return evaluated[i]

    search = (
        _MonotoneSearch(lambda node: evaluate(int(node @ strides))[0] <= limit, nodes, heights,
                        _rank(order))
        if prunes_failures(model, limit) else None
    )  # fmt: skip
    best, best_cost = None, np.inf
    position = 0
    while position < len(order):
        if search is not None:  # skip the nodes known to fail, in compiled code
            position = _next_open(search.status, order, position)
            if position < 0:
                break
        i = int(order[position])
        position += 1
        if metric not in CLASS_METRICS and bound[i] >= best_cost:
            break  # no node from here on can have a lower loss (bound rises along order)
        feasible = search.holds(i) if search is not None else evaluate(i)[0] <= limit
        if not feasible:
            continue
        cost = evaluate(i)[1]
        if cost < best_cost:
            best, best_cost = i, cost
    if best is None:
        raise IneligibleError(
            f"no node of the lattice satisfies {model} with {params} while suppressing at most "
            f"{limit} records; relax the parameters or raise the suppression limit"
        )
    qi = table.quasi_identifiers
    levels = dict(zip(qi, nodes[best].tolist(), strict=True))
    group, rows = candidates.groups_at(nodes[best], suppress=True)
    suppressed = int(table.n_rows - len(rows))
    manifest = {
        "algorithm": "lattice",
        "parameters": {
            "model": model, **params, "metric": metric, "levels": levels,
        },
        "seed": seed,
        "input_rows": int(table.n_rows),
        "suppressed_records": suppressed,
        "lattice": {
            "nodes": int(len(nodes)),
            "checked": len(evaluated),
            "suppression_limit": limit,
            "metric_value": float(best_cost),
        },
    }  # fmt: skip
    kept_table = table.take(rows)
    kept_table.dropped = dict(table.dropped, suppressed_records=suppressed)
    return Release(
        kept_table, group, scheme, manifest, levels=levels,
        reference_counts=candidates.reference,
    )  # fmt: skip


def _rank(order: np.ndarray) -> np.ndarray:
    """The position of each node in ``order``."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _strides(heights: np.ndarray) -> np.ndarray:
    """Row index of a node in the ``itertools.product`` order = its levels @ these strides."""
    return np.array(
        [int(np.prod(heights[j + 1 :] + 1)) for j in range(len(heights))], dtype=np.int64
    )


def _arx_loss_with_suppression(
    table: Table, candidates: _Partitions, part: _Partition, failing: np.ndarray, suppressed: int
) -> float:
    """ARX's Loss when the records of the ``failing`` classes of ``part`` are suppressed.

    A_d = Σ over kept classes of |class| × share of its value + suppressed, where the share is
    (leaves under the value) / |dom_d|: the sum is taken over integers and divided once.
    """
    numerators = candidates.kept_numerators(part, failing).tolist()
    factors = [
        attribute_loss(numerator / dom + suppressed, table.n_rows, dom)
        for numerator, dom in zip(numerators, candidates.dom.tolist(), strict=True)
    ]
    return float(combine_losses(factors))


#: Per-node checks compiled for these models (any other model goes through models.check).
_K_ANONYMITY, _DISTINCT, _EQUAL_CLOSENESS = 0, 1, 2
#: t-closeness's integer path (anonlab.models.t_closeness._INT_LIMIT): below it the EMD
#: numerators are exact int64, and so are ours.
_INT_LIMIT = 2**62
#: Stored partitions (see _Partitions) hold at most this many classes in all, per base class.
#: Measured on Adult with t-closeness and 2% suppression (every node evaluated), classes read by
#: the roll-ups and peak memory of the search: 16, 8.6 M and 21 MB; 32, 4.8 M and 35 MB; 64,
#: 4.1 M and 61 MB (rolling each node up from its smallest direct specialization would read
#: 3.9 M; the search before roll-ups peaked at 28 MB) ...
_STORE_PER_BASE = 32
#: ... and at most this many in all (or as many as the base classes, if more: the stored
#: partitions then take at most about what the base classes take) ...
_STORE_MAX = 1 << 21
#: ... and a partition is stored only when it has at most this share of its source's classes
#: (ARX's ``snapshotSizeSnapshot``, 0.8: a partition about as large as its source saves little).
_STORE_RATIO = 0.8


class _Partition:
    """The classes of one node (or the base classes), as arrays over the classes.

    ``rep``: one leaf code per quasi-identifier of some member (all members share the node's
    generalized values, so any member stands for the class at this node and every node above);
    ``size``: records per class; ``cell``/``value``/``count``: the sensitive histograms as
    sparse (class, value, count) triples, one per value present in a class (none when the
    model needs no sensitive values); ``of_source`` (where asked for): the class of each class
    of the partition it was rolled up from; ``failing``: which classes violate the model, where
    the compiled check covers it.
    """

    __slots__ = ("cell", "count", "failing", "levels", "n", "of_source", "rep", "size", "value")

    def __init__(
        self,
        levels: np.ndarray,
        rep: np.ndarray,
        size: np.ndarray,
        cell: np.ndarray,
        value: np.ndarray,
        count: np.ndarray,
        of_source: np.ndarray | None = None,
        failing: np.ndarray | None = None,
    ) -> None:
        self.levels = levels
        self.rep = rep
        self.size = size
        self.cell = cell
        self.value = value
        self.count = count
        self.n = len(size)
        self.of_source = of_source
        self.failing = failing


class _Partitions:
    """Each node's classes, rolled up from the smallest already-computed finer node.

    The records are first grouped once into their distinct leaf vectors (the base classes, with
    sizes and sparse sensitive histograms; one hashed pass, :func:`_base_classes`). A node's
    classes are unions of the classes of any finer node, so they are computed from the stored
    partition below the node with the fewest classes (:func:`_roll_up`, one pass over that
    partition's classes and histogram cells, none over the records): the roll-up of Incognito
    (LeFevre et al., SIGMOD 2005, §3.2) and of ARX's snapshots, which Flash checks nodes with
    (Kohlmayer et al., "Flash: efficient, stable and optimal k-anonymity", PASSAT 2012, §5).
    Which partitions are kept as sources: those with at most ``_STORE_RATIO`` of their source's
    classes, up to a budget of classes in all, the least recently used dropped first.

    The compiled check (in :func:`_roll_up`) covers k-anonymity, distinct ℓ-diversity and
    equal-distance t-closeness with anonlab.models's exact integer arithmetic; any other model
    is checked by :func:`anonlab.models.check` on the node's class statistics.
    """

    def __init__(self, table: Table, model: str, params: dict) -> None:
        self.table = table
        qi = table.quasi_identifiers
        hierarchies = [table.schema[q].hierarchy for q in qi]
        if np.prod([float(len(h)) for h in hierarchies]) >= 2.0**62:
            raise AnonlabError(
                "the quasi-identifiers' hierarchies have too many leaf combinations for the "
                "lattice search's 64-bit keys; use fewer quasi-identifiers"
            )
        self.model, self.params = model, params
        if table.sensitive is None:  # plain k-anonymity: one placeholder value for every record
            sens = np.zeros(table.n_rows, dtype=np.int32)
            self.n_values = 1
        else:
            sens = np.asarray(table.codes[table.sensitive], dtype=np.int32)
            self.n_values = table.domain_size(table.sensitive)
        self.reference = np.bincount(sens, minlength=self.n_values).astype(np.int64)
        self.fast = _fast_check(table, model, params, self.reference)
        # The compiled k-anonymity check needs no sensitive histograms; any other may.
        self.with_values = self.fast is None or self.fast[0] != _K_ANONYMITY
        self.dom = np.array([len(h) for h in hierarchies], dtype=np.int64)
        # Leaf -> node code at every level: each hierarchy's matrix, all in one flat array.
        self.maps = np.concatenate([h.matrix.ravel() for h in hierarchies]).astype(np.int64)
        self.map_width = np.array([h.height + 1 for h in hierarchies], dtype=np.int64)
        self.map_off = np.cumsum([0, *(self.dom * self.map_width).tolist()])[:-1].astype(np.int64)
        self.radix = np.ones((len(qi), int(self.map_width.max())), dtype=np.int64)
        self.size_off = np.zeros_like(self.radix)
        node_sizes = []
        for j, h in enumerate(hierarchies):
            for level in range(h.height + 1):
                self.radix[j, level] = len(h.labels(level))
                self.size_off[j, level] = sum(len(s) for s in node_sizes)
                node_sizes.append(h.node_size(level).astype(np.int64))
        self.node_sizes = np.concatenate(node_sizes)  # leaves under each node, flat

        leaf_of_code = [np.asarray(table.leaf_codes(q), dtype=np.int64) for q in qi]
        leaf_off = np.cumsum([0, *(len(c) for c in leaf_of_code)])[:-1].astype(np.int64)
        span = int(np.prod([float(d) for d in self.dom.tolist()]))  # < 2**62, checked above
        base_of_row, rep, size, cell, value, count = _base_classes(
            tuple(np.asarray(table.codes[q], dtype=np.int32) for q in qi),
            np.concatenate(leaf_of_code), leaf_off, self.dom, sens, self.n_values,
            self.with_values, np.full(span if span <= 4 * table.n_rows else 0, -1, np.int32),
        )  # fmt: skip
        self.base_of_row = base_of_row
        self.base = _Partition(np.zeros(len(qi), dtype=np.int64), rep, size, cell, value, count)
        self.n_base = self.base.n
        # Scratch for grouping by small keys (all -1, and left so by each use): the classes'
        # keys, and the (class, value) keys of the histogram cells.
        slots = self.n_base * (self.n_values if self.with_values else 8)
        self._slots = np.full(int(np.clip(slots, 1 << 16, 1 << 22)), -1, dtype=np.int32)
        # The stored sources: levels, classes and last use in arrays (grown as needed), for one
        # compiled choice of a source.
        self._stored: list[_Partition] = []
        self._stored_levels = np.zeros((64, len(qi)), dtype=np.int64)
        self._stored_classes = np.zeros(64, dtype=np.int64)
        self._stored_used = np.zeros(64, dtype=np.int64)
        self._stored_total = 0
        self._clock = 0
        self._budget = min(_STORE_PER_BASE * self.n_base, max(_STORE_MAX, self.n_base))
        self.work = 0  # classes read by roll-ups (to measure the choice of sources)

    def leaf_counts(self) -> list[np.ndarray]:
        """Records per leaf of each quasi-identifier's hierarchy."""
        return [
            np.bincount(self.base.rep[:, j], weights=self.base.size, minlength=d).astype(np.int64)
            for j, d in enumerate(self.dom.tolist())
        ]

    def _roll_up(self, source: _Partition, node: np.ndarray, keep_map: bool = False) -> _Partition:
        self.work += source.n
        kind, bound, t = self.fast if self.fast is not None else (-1, 0, 0.0)
        rep, size, cell, value, count, of_source, failing = _roll_up(
            source.rep, source.size, source.cell, source.value, source.count, node, self.maps,
            self.map_off, self.map_width, self.radix, self.n_values, self.with_values,
            self._slots, kind, bound, t, self.reference, self.table.n_rows,
        )  # fmt: skip
        return _Partition(
            node, rep, size, cell, value, count, of_source if keep_map else None, failing
        )

    def partition(self, node: np.ndarray) -> _Partition:
        """The classes of ``node``, rolled up from the stored partition below it with the fewest
        classes (or from the base classes)."""
        node = np.array(node, dtype=np.int64)  # a copy: callers may change theirs
        source = self.base
        k = len(self._stored)
        if k:
            best = _best_source(self._stored_levels, self._stored_classes, k, node)
            if best >= 0 and self._stored_classes[best] < source.n:
                source = self._stored[best]
                self._clock += 1
                self._stored_used[best] = self._clock
                if (source.levels == node).all():
                    return source
        part = self._roll_up(source, node)
        if part.n <= _STORE_RATIO * source.n and part.n <= self._budget:
            self._store(part)
        return part

    def _store(self, part: _Partition) -> None:
        """Keep ``part`` as a source, dropping the least recently used while over the budget."""
        while self._stored_total + part.n > self._budget:
            last = len(self._stored) - 1
            drop = int(np.argmin(self._stored_used[: last + 1]))
            self._stored_total -= int(self._stored_classes[drop])
            self._stored[drop] = self._stored[last]  # the last one takes its place
            self._stored_levels[drop] = self._stored_levels[last]
            self._stored_classes[drop] = self._stored_classes[last]
            self._stored_used[drop] = self._stored_used[last]
            self._stored.pop()
        k = len(self._stored)
        if k == len(self._stored_classes):
            self._stored_levels = np.concatenate([self._stored_levels, self._stored_levels])
            self._stored_classes = np.concatenate([self._stored_classes, self._stored_classes])
            self._stored_used = np.concatenate([self._stored_used, self._stored_used])
        self._stored.append(part)
        self._stored_levels[k] = part.levels
        self._stored_classes[k] = part.n
        self._clock += 1
        self._stored_used[k] = self._clock
        self._stored_total += part.n

    def class_of_base(self, node: np.ndarray) -> tuple[np.ndarray, _Partition]:
        """The class of each base class under ``node``, and the node's partition."""
        part = self._roll_up(self.base, np.array(node, dtype=np.int64), keep_map=True)
        return part.of_source, part

    def groups_at(self, node: np.ndarray, suppress: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The release's group of each record at ``node``: 0..G-1 in order of first
        appearance (the classes are numbered so, from base classes numbered so), and, with
        ``suppress``, the rows kept (those outside the violating classes; None otherwise),
        the kept classes renumbered 0.. in the same order."""
        cls, part = self.class_of_base(node)
        if not suppress:
            return np.take(cls.astype(np.int32), self.base_of_row), None
        kept = ~self.violating(part)
        renumber = np.where(kept, np.cumsum(kept) - 1, -1).astype(np.int32)
        group = np.take(renumber[cls], self.base_of_row)
        rows = np.flatnonzero(group >= 0)
        return np.take(group, rows), rows

    def histogram(self, part: _Partition) -> np.ndarray:
        """The partition's sensitive histogram, dense: shape (classes, sensitive values)."""
        hist = np.zeros((part.n, self.n_values), dtype=np.int64)
        hist[part.cell, part.value] = part.count
        return hist

    def _statistics(self, part: _Partition, reference: np.ndarray | None) -> Release:
        return Release._from_statistics(
            self.table, part.n, part.size, lambda: self.histogram(part),
            reference_counts=reference,
        )  # fmt: skip

    def violating(self, part: _Partition) -> np.ndarray:
        """Which classes violate the model, each checked against the whole input's sensitive
        distribution (t-closeness)."""
        if self.fast is not None:
            return part.failing
        result = models.check(self._statistics(part, self.reference), self.model, **self.params)
        failing = np.zeros(part.n, dtype=bool)
        failing[np.asarray(result.violating_groups, dtype=np.int64)] = True
        return failing

    def holds(self, node: np.ndarray) -> bool:
        """Whether the node's release (nothing suppressed) satisfies the model."""
        part = self.partition(node)
        if self.fast is not None:
            return not part.failing.any()
        return models.check(self._statistics(part, None), self.model, **self.params).holds

    def suppressed(self, node: np.ndarray) -> tuple[int, np.ndarray, _Partition]:
        """Records in the classes that violate the model, which classes those are, and the
        node's partition."""
        part = self.partition(node)
        failing = self.violating(part)
        return int(part.size @ failing), failing, part

    def kept_numerators(self, part: _Partition, failing: np.ndarray) -> np.ndarray:
        """Per quasi-identifier, Σ over kept classes of |class| × leaves under its value (ARX's
        A_d times |dom_d|, an exact integer)."""
        return _kept_numerators(
            part.rep, part.size, failing, part.levels, self.maps, self.map_off, self.map_width,
            self.node_sizes, self.size_off,
        )  # fmt: skip


def _fast_check(
    table: Table, model: str, params: dict, reference: np.ndarray
) -> tuple[int, int, float] | None:
    """(kind, integer bound, t) of a model the compiled check covers, else None. The
    parameters are first validated by the model itself (on the whole table as one class)."""
    from anonlab.models.t_closeness import DISTANCES, default_distance

    if model == "k-anonymity" and set(params) == {"k"}:
        kind = _K_ANONYMITY
    elif model == "distinct-l-diversity" and set(params) == {"l"}:
        kind = _DISTINCT
    elif model == "t-closeness" and set(params) <= {"t", "distance"}:
        distance = check_choice("distance", params.get("distance", "auto"), DISTANCES)
        if distance == "auto":
            distance = default_distance(table.schema[table.sensitive])
        n = float(table.n_rows)
        if distance != "equal" or n * n * (len(reference) + 1) * 3 >= _INT_LIMIT:
            return None
        kind = _EQUAL_CLOSENESS
    else:
        return None
    whole = Release._from_statistics(table, 1, np.array([table.n_rows]), lambda: reference[None, :])
    models.check(whole, model, **params)  # raises on invalid parameters, as the search would
    if kind == _K_ANONYMITY:
        return kind, check_int("k", params["k"], minimum=1), 0.0
    if kind == _DISTINCT:
        return kind, check_int("l", params["l"], minimum=1), 0.0
    return kind, 0, check_float("t", params["t"], low=0.0, high=1.0)


@njit(cache=True)
def _hash(key: np.int64, bits: int) -> np.int64:
    """Fibonacci hashing of a non-negative 64-bit key to ``bits`` bits."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@njit(cache=True)
def _group_keys(keys, span, slots):
    """Number equal keys 0.. in order of first appearance: the group of each key, the number of
    groups and each group's first position. Keys below ``span`` index ``slots`` (all -1, and
    left so) when the span is small (at most 2**16 or 8 keys per slot, so that the slots touched
    stay in cache: measured on Adult, a spread of 700,000 slots cost 60 ns a key); otherwise they
    are hashed into a table of about 2 slots per key (open addressing, grown as it fills)."""
    m = len(keys)
    group = np.empty(m, dtype=np.int64)
    first = np.empty(max(m, 1), dtype=np.int64)
    n = 0
    if span <= len(slots) and (span <= 1 << 16 or span <= 8 * m):
        for i in range(m):
            g = slots[keys[i]]
            if g < 0:
                g = n
                slots[keys[i]] = n
                first[n] = i
                n += 1
            group[i] = g
        for g in range(n):
            slots[keys[first[g]]] = -1
        return group, n, first[:n]
    bits = 6
    while (1 << bits) < 2 * min(m, 1 << 16):
        bits += 1
    table = np.full(1 << bits, -1, dtype=np.int64)
    mask = (1 << bits) - 1
    for i in range(m):
        key = keys[i]
        s = _hash(key, bits)
        while True:
            g = table[s]
            if g < 0:
                table[s] = n
                first[n] = i
                group[i] = n
                n += 1
                if 2 * n > mask:  # keep the table at most half full
                    bits += 1
                    mask = (1 << bits) - 1
                    table = np.full(1 << bits, -1, dtype=np.int64)
                    for h in range(n):
                        t = _hash(keys[first[h]], bits)
                        while table[t] >= 0:
                            t = (t + 1) & mask
                        table[t] = h
                break
            if keys[first[g]] == key:
                group[i] = g
                break
            s = (s + 1) & mask
    return group, n, first[:n]


@njit(cache=True)
def _add_cells(cell_group, cell_value, cell_count, n_groups, n_values, slots):
    """Sparse histograms of groups from their members' cells (``cell_group``: the group of each
    cell's class): (group, value, count) triples, one per value present in a group."""
    m = len(cell_group)
    keys = np.empty(m, dtype=np.int64)
    for e in range(m):
        keys[e] = cell_group[e] * n_values + cell_value[e]
    which, n_cells, first = _group_keys(keys, n_groups * n_values, slots)
    cell = np.empty(n_cells, dtype=np.int32)
    value = np.empty(n_cells, dtype=np.int32)
    count = np.zeros(n_cells, dtype=np.int32)
    for k in range(n_cells):
        cell[k] = cell_group[first[k]]
        value[k] = cell_value[first[k]]
    for e in range(m):
        count[which[e]] += cell_count[e]
    return cell, value, count


@njit(cache=True)
def _base_classes(codes, leaf_of_code, leaf_off, dom, sens, n_values, with_values, slots):
    """Group the records by their leaf vectors: the base class of each record, and the base
    classes' representative leaves, sizes and sparse sensitive histograms."""
    q = len(codes)
    n = len(sens)
    keys = np.zeros(n, dtype=np.int64)
    span = 1
    for j in range(q):
        column = codes[j]
        off = leaf_off[j]
        radix = dom[j]
        span *= radix
        for i in range(n):
            keys[i] = keys[i] * radix + leaf_of_code[off + column[i]]
    base, n_base, first = _group_keys(keys, span, slots)
    rep = np.empty((n_base, q), dtype=np.int32)
    for j in range(q):
        column = codes[j]
        off = leaf_off[j]
        for b in range(n_base):
            rep[b, j] = leaf_of_code[off + column[first[b]]]
    size = np.zeros(n_base, dtype=np.int64)
    for i in range(n):
        size[base[i]] += 1
    if not with_values:
        return base, rep, size, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32)
    cells = n_base * n_values
    if cells > 4 * n:  # too many (class, value) pairs to count in an array: hashed
        cell, value, count = _add_cells(
            base, sens, np.ones(n, dtype=np.int32), n_base, n_values,
            np.full(0, -1, dtype=np.int32),
        )  # fmt: skip
        return base, rep, size, cell, value, count
    # Count each (class, value) pair in an array, listing the pairs in order of first
    # appearance: the cells _add_cells gives, in one pass over the records.
    counts = np.zeros(cells, dtype=np.int32)
    order = np.empty(min(cells, n), dtype=np.int64)
    n_cells = 0
    for i in range(n):
        key = base[i] * n_values + sens[i]
        if counts[key] == 0:
            order[n_cells] = key
            n_cells += 1
        counts[key] += 1
    cell = np.empty(n_cells, dtype=np.int32)
    value = np.empty(n_cells, dtype=np.int32)
    count = np.empty(n_cells, dtype=np.int32)
    for e in range(n_cells):
        cell[e] = order[e] // n_values
        value[e] = order[e] % n_values
        count[e] = counts[order[e]]
    return base, rep, size, cell, value, count


@njit(cache=True)
def _roll_up(rep, size, cell, value, count, node, maps, map_off, map_width, radix, n_values,
             with_values, slots, kind, bound, t, reference, n):  # fmt: skip
    """The classes of ``node`` from those of a finer node: group the classes by their values at
    ``node`` (mixed-radix keys), add their sizes and histograms, and check each against the
    model: ``kind`` 0, k-anonymity (|class| < k = ``bound`` violates); 1, distinct ℓ-diversity
    (fewer than ℓ = ``bound`` values); 2, equal-distance t-closeness against the ``reference``
    counts of all ``n`` records (½ Σ_v |p_v − q_v| > t, summed as the exact integer
    Σ_v |n·h_v − |c|·T_v| and divided once, as anonlab.models.t_closeness does); -1, none."""
    c, q = rep.shape
    keys = np.zeros(c, dtype=np.int64)
    span = 1
    for j in range(q):
        level = node[j]
        off = map_off[j] + level
        width = map_width[j]
        r = radix[j, level]
        span *= r
        for i in range(c):
            keys[i] = keys[i] * r + maps[off + rep[i, j] * width]
    group, n_new, first = _group_keys(keys, span, slots)
    new_rep = np.empty((n_new, q), dtype=np.int32)
    for g in range(n_new):
        for j in range(q):
            new_rep[g, j] = rep[first[g], j]
    new_size = np.zeros(n_new, dtype=np.int64)
    for i in range(c):
        new_size[group[i]] += size[i]
    if with_values:
        cell_group = np.empty(len(cell), dtype=np.int64)
        for e in range(len(cell)):
            cell_group[e] = group[cell[e]]
        cell, value, count = _add_cells(cell_group, value, count, n_new, n_values, slots)
    failing = np.zeros(n_new, dtype=np.bool_)
    if kind == 0:
        for g in range(n_new):
            failing[g] = new_size[g] < bound
    elif kind == 1:
        distinct = np.zeros(n_new, dtype=np.int64)
        for e in range(len(cell)):
            distinct[cell[e]] += 1
        for g in range(n_new):
            failing[g] = distinct[g] < bound
    elif kind == 2:
        num = new_size * n  # Σ_v |0 − |c|·T_v| over every value; corrected for those present
        for e in range(len(cell)):
            g = cell[e]
            expected = new_size[g] * reference[value[e]]
            num[g] += abs(count[e] * n - expected) - expected
        for g in range(n_new):
            failing[g] = num[g] / (new_size[g] * n * 2) > t
    return new_rep, new_size, cell, value, count, group, failing


@njit(cache=True)
def _best_source(levels, classes, k, node):
    """Among the first ``k`` stored nodes, the one below ``node`` with the fewest classes (-1:
    none)."""
    best, fewest = -1, np.iinfo(np.int64).max
    q = levels.shape[1]
    for s in range(k):
        if classes[s] >= fewest:
            continue
        below = True
        for j in range(q):
            if levels[s, j] > node[j]:
                below = False
                break
        if below:
            best, fewest = s, classes[s]
    return best


@njit(cache=True)
def _kept_numerators(rep, size, failing, node, maps, map_off, map_width, node_sizes, size_off):
    """Σ over the kept classes of |class| × leaves under the class's value, per attribute."""
    c, q = rep.shape
    out = np.zeros(q, dtype=np.int64)
    for i in range(c):
        if failing[i]:
            continue
        for j in range(q):
            level = node[j]
            code = maps[map_off[j] + rep[i, j] * map_width[j] + level]
            out[j] += size[i] * node_sizes[size_off[j, level] + code]
    return out


class _MonotoneSearch:
    """Answers "does this node hold?" for a model monotone under generalization, checking as few
    nodes as it can.

    A status per lattice node (unknown / holds / fails) is kept in one array: a check that fails
    marks the node's whole down-set as failing, one that holds marks its up-set, each in one
    compiled pass over the nodes (:func:`_mark`). When a node fails, the search climbs from it to a
    maximal failing node, whose down-set then covers many nodes the search has yet to ask about.
    It climbs as Flash checks its paths (Kohlmayer et al., "Flash: efficient, stable and optimal
    k-anonymity", PASSAT 2012, §4): first through successors already known to fail (free), then
    along a path of successors of unknown status up to a node whose successors are all known,
    with a binary search on the path for its highest failing node (monotonicity makes the path
    fail below some point and hold above it), and again from there. Where Flash orders a path's
    steps by a fixed ranking of the attributes, the path here steps to the successor that comes
    first in the search's own order (``rank``: metric order, or the order of the loss bound), so
    that the failing nodes found cover the nodes the search asks about next. Measured on Adult
    (ARX's hierarchies, 2,160 nodes; nodes checked for 5-anonymity, distinct 4-diversity,
    0.2-closeness at 0% suppression, and the first two at 2%): 86, 87, 30, 266, 253, against
    141, 136, 50, 397, 443 when climbing one level of one attribute at a time; ARX 3.9.2 checks
    86, 81, 25, 288, 264. The node found does not depend on how the search climbs.
    """

    UNKNOWN, FAILS, HOLDS = 0, 1, 2

    def __init__(
        self,
        check,
        nodes: np.ndarray,
        heights: np.ndarray,
        rank: np.ndarray,
        monotone: bool = True,
    ) -> None:
        self._check = check
        self.monotone = monotone  # False: each node is judged by its own check, none inferred
        self.nodes = nodes
        self.heights = np.asarray(heights, dtype=np.int64)
        self.rank = np.asarray(rank, dtype=np.int64)
        self.status = np.zeros(len(nodes), dtype=np.int8)
        # nodes come from itertools.product: row index = mixed-radix value of the levels
        self.stride = _strides(heights)
        self.checked = 0

    def _status(self, node: np.ndarray) -> int:
        index = int(node @ self.stride)
        if self.status[index] == self.UNKNOWN:
            self.checked += 1
            holds = self._check(node)
            if self.monotone:
                _mark(self.nodes, self.status, node, self.HOLDS if holds else self.FAILS, holds)
            else:
                self.status[index] = self.HOLDS if holds else self.FAILS
        return int(self.status[index])

    def minimal_holding(self) -> np.ndarray:
        """Indices of the holding nodes none of whose direct specializations holds (call after
        every node is classified)."""
        holding = self.status == self.HOLDS
        minimal = holding.copy()
        for j, stride in enumerate(self.stride.tolist()):
            has_lower = self.nodes[:, j] > 0
            below = np.flatnonzero(has_lower)
            minimal[below] &= ~holding[below - stride]
        return np.flatnonzero(minimal)

    def first_holding(self, order: np.ndarray) -> int | None:
        """The first node in ``order`` that holds (None if none does): what asking
        :meth:`holds` of each node in turn gives, with the nodes known to fail skipped in
        compiled code."""
        position = 0
        while (position := _next_open(self.status, order, position)) >= 0:
            if self.holds(int(order[position])):
                return int(order[position])
            position += 1
        return None

    def holds(self, index: int) -> bool:
        if self.status[index] != self.UNKNOWN:
            return bool(self.status[index] == self.HOLDS)
        node = self.nodes[index]
        if self._status(node) == self.HOLDS:
            return True
        if not self.monotone:
            return False  # nothing to climb to: a failure proves nothing about other nodes
        top = node.copy()
        while True:
            _climb_failing(self.status, self.stride, self.heights, top)
            path = _first_path(self.status, self.rank, self.stride, self.heights, top)
            if len(path) == 0:
                return False
            low, high, highest = 0, len(path) - 1, -1
            while low <= high:  # binary search for the path's highest failing node
                middle = (low + high) // 2
                if self._status(path[middle]) == self.FAILS:
                    highest, low = middle, middle + 1
                else:
                    high = middle - 1
            if highest >= 0:
                top = path[highest].copy()
            # else the path's first node holds (now known): the next path avoids it


@njit(cache=True)
def _next_open(status, order, start):
    """The first position ``p >= start`` of ``order`` whose node is not known to fail
    (``status`` 1); -1 if there is none."""
    for p in range(start, len(order)):
        if status[order[p]] != 1:
            return p
    return -1


@njit(cache=True)
def _climb_failing(status, stride, heights, node):
    """Move ``node`` up (in place) through successors known to fail, while there are any."""
    index = 0
    for j in range(len(node)):
        index += node[j] * stride[j]
    moved = True
    while moved:
        moved = False
        for j in range(len(node)):
            if node[j] < heights[j] and status[index + stride[j]] == 1:
                node[j] += 1
                index += stride[j]
                moved = True


@njit(cache=True)
def _first_path(status, rank, stride, heights, node):
    """From ``node``, step to the successor of unknown status that comes first in ``rank``, and
    again, until there is none: the nodes of that path, lowest first."""
    q = len(node)
    cur = node.copy()
    index = 0
    for j in range(q):
        index += cur[j] * stride[j]
    path = np.empty((max(heights.sum() - cur.sum(), 0), q), dtype=np.int64)
    length = 0
    while True:
        step, first = -1, np.iinfo(np.int64).max
        for j in range(q):
            if cur[j] < heights[j]:
                s = index + stride[j]
                if status[s] == 0 and rank[s] < first:
                    step, first = j, rank[s]
        if step < 0:
            return path[:length]
        cur[step] += 1
        index += stride[step]
        path[length] = cur
        length += 1


@njit(cache=True)
def _mark(nodes, status, node, value, up):
    """Set ``status`` to ``value`` on the up-set (``up``) or the down-set of ``node``."""
    q = nodes.shape[1]
    for i in range(len(nodes)):
        inside = True
        for j in range(q):
            if (nodes[i, j] < node[j]) if up else (nodes[i, j] > node[j]):
                inside = False
                break
        if inside:
            status[i] = value


class NodeEvaluation(NamedTuple):
    """One node as :class:`NodeCheck` finds it."""

    #: Records in the classes that violate the model (withheld if the node is chosen).
    suppressed: int
    #: Whether ``suppressed`` is within the suppression limit.
    acceptable: bool
    #: The metric value :func:`lattice` gives the node when it is acceptable; ``inf`` otherwise.
    cost: float
    #: The metric with the violating classes suppressed, whether or not the limit allows it (ARX's
    #: information loss of a node that is not anonymous); equal to ``cost`` when acceptable.
    loss: float


class NodeCheck:
    """Nodes of the generalization lattice checked one at a time exactly as :func:`lattice`
    checks them, for searches that cannot enumerate the lattice
    (:func:`anonlab.anonymize.lightning.lightning`).

    The same classes (rolled up from stored finer nodes, :class:`_Partitions`), the same check of
    the privacy model, suppression limit and metric value as the exact search, so a node has the
    same verdict and cost in both. Node-only metrics only (``arx-loss``, ``height``,
    ``precision``): they have the lower bound :meth:`bound`.

    Parameters
    ----------
    table : Table
        As :func:`searchable_table` returns it.
    model, params
        As :func:`model_parameters` returns them.
    metric : {"arx-loss", "height", "precision"}
    limit : int
        Records that may be suppressed (``floor(suppression * n)``, as :func:`lattice` takes it).
    """

    def __init__(
        self, table: Table, model: str, params: dict, *, metric: str = "arx-loss", limit: int = 0
    ) -> None:
        if metric not in NODE_METRICS:
            raise AnonlabError(
                f"metric {metric!r} has no lower bound per node; a search node by node needs "
                f"one of {list(NODE_METRICS)}"
            )
        check_model_fits(table, model, params)
        self.table, self.model, self.params = table, model, params
        self.metric, self.limit = metric, int(limit)
        self.quasi_identifiers = list(table.quasi_identifiers)
        self.heights = np.array(
            [table.schema[q].hierarchy.height for q in self.quasi_identifiers], dtype=np.int64
        )
        self._partitions = _Partitions(table, model, params)
        self._leaf_counts = self._partitions.leaf_counts()
        self._terms = attribute_losses(table, self._leaf_counts) if metric == "arx-loss" else None
        self.checked = 0

    def bound(self, nodes: np.ndarray) -> np.ndarray:
        """The metric of each node (rows of ``nodes``) with nothing suppressed
        (:func:`node_metric`): the node's cost when it suppresses nothing, and a lower bound on
        the cost of the node and of every more general node, since each attribute's term only
        grows with its level and ARX's Loss charges a suppressed record 1 per attribute, at least
        its share at any level."""
        nodes = np.atleast_2d(nodes)
        if self._terms is None:
            return node_metric(self.table, nodes, self.metric, self._leaf_counts)
        return combine_losses([x[nodes[:, j]] for j, x in enumerate(self._terms)])

    def terms(self) -> tuple[str, list[np.ndarray]]:
        """How :meth:`bound` is made of per-attribute terms, for compiled callers: the
        aggregate and one array per quasi-identifier, indexed by level — ``"geometric-mean"``
        of ARX's ``x_d`` (:func:`attribute_losses`), ``"sum"`` of the levels (height), or
        ``"mean"`` of level / height (precision)."""
        if self._terms is not None:
            return "geometric-mean", self._terms
        levels = [np.arange(h + 1, dtype=float) for h in self.heights.tolist()]
        if self.metric == "height":
            return "sum", levels
        return "mean", [x / max(h, 1) for x, h in zip(levels, self.heights.tolist(), strict=True)]

    def evaluate(self, node: np.ndarray) -> NodeEvaluation:
        """Check ``node`` (one level per quasi-identifier): the exact search's verdict and
        cost. Each call counts in ``checked``."""
        node = np.asarray(node, dtype=np.int64)
        self.checked += 1
        suppressed, failing, part = self._partitions.suppressed(node)
        if self.metric == "arx-loss" and (self.limit > 0 or suppressed > 0):
            loss = _arx_loss_with_suppression(
                self.table, self._partitions, part, failing, suppressed
            )
        else:  # what the exact search takes: the node-only value
            loss = float(self.bound(node)[0])
        acceptable = suppressed <= self.limit
        return NodeEvaluation(int(suppressed), acceptable, loss if acceptable else np.inf, loss)

    def release(self, node: np.ndarray, scheme: str, manifest: dict) -> Release:
        """The release at ``node``, as :func:`lattice` makes it: the records of the violating
        classes withheld when a suppression limit is set (``manifest["suppressed_records"]`` is
        set to their number)."""
        node = np.asarray(node, dtype=np.int64)
        levels = dict(zip(self.quasi_identifiers, node.tolist(), strict=True))
        candidates = self._partitions
        group, rows = candidates.groups_at(node, suppress=self.limit > 0)
        if self.limit == 0:
            manifest["suppressed_records"] = 0
            return Release(self.table, group, scheme, manifest, levels=levels)
        suppressed = int(self.table.n_rows - len(rows))
        manifest["suppressed_records"] = suppressed
        kept_table = self.table.take(rows)
        kept_table.dropped = dict(self.table.dropped, suppressed_records=suppressed)
        return Release(
            kept_table, group, scheme, manifest, levels=levels,
            reference_counts=candidates.reference,
        )  # fmt: skip
