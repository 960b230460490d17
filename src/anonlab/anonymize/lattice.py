"""Optimal full-domain generalization by search over the generalization lattice.

A node of the lattice gives one level per quasi-identifier; applying it is
:func:`~anonlab.anonymize.generalize.generalize`. The search returns the node with the least
information loss among those whose release satisfies a privacy model.

Pruning rests on two facts:

* every model offered here is *monotone under generalization*: if a node's release satisfies it,
  so does every more general node's (merging classes keeps k, frequency / distinct / entropy /
  recursive ℓ-diversity, m-confidentiality's frequency condition and EMD t-closeness; LeFevre et
  al., SIGMOD 2005, §3; Machanavajjhala et al. 2007, §4; Li et al., ICDE 2007, §4). So a node
  that fails proves every more specific node fails;
* without suppression ARX's Loss, height and precision depend on the node only, so they can be
  computed for all nodes up front; discernibility and the average class size depend on the
  classes but only grow when classes merge, so their minimum lies at a minimal satisfying node.

The search visits nodes in increasing metric order and checks a node only when no failed node
already covers it; the first node that holds is optimal (every node of lower metric has failed or
was proved to fail). This is exact, like Incognito and ARX's Flash, but simpler: it needs no
lattice traversal, only the failed nodes seen so far.

With a suppression limit and a class metric every node is evaluated (no bound ends the search).

References
----------
K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Incognito: efficient full-domain k-anonymity.
SIGMOD 2005. F. Kohlmayer, F. Prasser, C. Eckert, A. Kemper, K. A. Kuhn. Flash: efficient, stable
and optimal k-anonymity. PASSAT 2012.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from anonlab import models
from anonlab._validation import check_choice, check_float, check_seed, takes_table_or_frame
from anonlab.anonymize.generalize import generalize
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


def node_metric(table: Table, nodes: np.ndarray, metric: str) -> np.ndarray:
    """A node-only metric of every node (rows of ``nodes``: one level per quasi-identifier).

    ``height``: the sum of levels. ``precision``: 1 − Sweeney's Prec, the mean over attributes of
    level / hierarchy height (Sweeney, IJUFKS 2002). ``arx-loss``: see the module docstring.
    """
    if metric == "height":
        return nodes.sum(axis=1).astype(float)
    if metric == "precision":
        heights = np.array(
            [max(table.schema[q].hierarchy.height, 1) for q in table.quasi_identifiers]
        )
        return (nodes / heights).mean(axis=1)
    # ARX's Loss without suppression: x_d depends on the level of attribute d only.
    per_attribute = []
    for j, q in enumerate(table.quasi_identifiers):
        h = table.schema[q].hierarchy
        per_leaf = np.bincount(table.leaf_codes(q)[table.codes[q]], minlength=len(h))
        a = np.array(  # records per leaf x the leaf's share, per level
            [per_leaf @ (h.node_size(lv) / len(h))[h.map(lv)] for lv in range(h.height + 1)]
        )
        per_attribute.append(attribute_loss(a, table.n_rows, len(h))[nodes[:, j]])
    return combine_losses(per_attribute)


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
        A privacy model of :mod:`anonlab.models` (all are monotone under generalization).
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
    if model not in models.available() and model not in models.ALIASES:
        raise AnonlabError(f"unknown model {model!r}; available: {models.available()}")
    model = models.get(model).name
    params = {
        key: value
        for key, value in {"k": k, "l": l, "c": c, "t": t, "m": m, "distance": distance}.items()
        if value is not None
    }
    if sensitive_values is not None:
        params["sensitive_values"] = list(sensitive_values)
    qi = table.quasi_identifiers
    for q in qi:
        if table.schema[q].hierarchy is None:
            raise AnonlabError(
                f"quasi-identifier {q!r} has no hierarchy; the lattice search needs one per "
                "quasi-identifier (--hierarchies DIR or a bundled --hierarchy-set)"
            )
    heights = np.array([table.schema[q].hierarchy.height for q in qi], dtype=np.int64)
    nodes = np.array(list(itertools.product(*(range(h + 1) for h in heights))), dtype=np.int64)
    candidates = _CandidateStatistics(table)
    limit = int(np.floor(suppression * table.n_rows + 1e-9))
    release = _search(table, model, params, metric, limit, nodes, heights, candidates, scheme, seed)
    release.manifest["parameters"]["suppression"] = suppression
    if verdicts:
        suppressed = np.array(
            [candidates.suppressed(node, model, params)[0] for node in nodes], dtype=np.int64
        )
        release.manifest["lattice"]["verdicts"] = {
            "quasi_identifiers": list(qi),
            "levels": nodes.tolist(),
            "suppressed": suppressed.tolist(),
            "acceptable": (suppressed <= limit).tolist(),
        }
    return release


def _search(table, model, params, metric, limit, nodes, heights, candidates, scheme, seed):
    """The search proper (parameters validated by :func:`lattice`)."""
    if limit > 0:
        return _search_with_suppression(
            table, model, params, metric, limit, nodes, heights, candidates, scheme, seed
        )
    qi = table.quasi_identifiers
    search = _MonotoneSearch(lambda node: candidates.holds(node, model, params), nodes, heights)
    if metric in NODE_METRICS:
        cost = node_metric(table, nodes, metric)
        order = np.lexsort((nodes.sum(axis=1), cost))  # ties: fewer levels, then node order
        best = next((i for i in order.tolist() if search.holds(i)), None)
    else:
        # Classify every node, then take the best minimal satisfying node.
        for i in np.argsort(nodes.sum(axis=1), kind="stable").tolist():
            search.holds(i)
        minimal = search.minimal_holding()
        cost = np.full(len(nodes), np.inf)
        for i in minimal.tolist():
            sizes = candidates.class_sizes(nodes[i])
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
    cls, _ = candidates.classes(nodes[best])
    release = Release(table, cls[candidates.base], scheme, manifest, levels=levels)
    return release


#: Models whose acceptability with suppression is monotone under generalization (ARX's
#: ``monotonicWithSuppression``): merging classes never adds violating records.
MONOTONE_WITH_SUPPRESSION = ("k-anonymity", "distinct-l-diversity")


def _search_with_suppression(
    table, model, params, metric, limit, nodes, heights, candidates, scheme, seed
) -> Release:
    """Least-loss node whose violating classes hold at most ``limit`` records (see lattice)."""
    if metric in CLASS_METRICS:  # no bound to stop at: every node is evaluated
        bound = np.zeros(len(nodes))
    else:
        bound = node_metric(table, nodes, metric)  # the loss with nothing suppressed
    order = np.lexsort((nodes.sum(axis=1), bound))
    evaluated: dict[int, tuple[int, np.ndarray]] = {}

    def evaluate(i: int) -> tuple[int, np.ndarray]:
        if i not in evaluated:
            evaluated[i] = candidates.suppressed(nodes[i], model, params)
        return evaluated[i]

    search = (
        _MonotoneSearch(lambda node: evaluate(int(node @ _strides(heights)))[0] <= limit,
                        nodes, heights)
        if model in MONOTONE_WITH_SUPPRESSION else None
    )  # fmt: skip
    best, best_cost = None, np.inf
    for i in order.tolist():
        if metric not in CLASS_METRICS and bound[i] >= best_cost:
            break  # no node from here on can have a lower loss
        feasible = search.holds(i) if search is not None else evaluate(i)[0] <= limit
        if not feasible:
            continue
        suppressed, kept = evaluate(i)
        if metric == "arx-loss":
            cost = _arx_loss_with_suppression(table, candidates, nodes[i], kept, suppressed)
        elif metric in CLASS_METRICS:
            cls, n_groups = candidates.classes(nodes[i])
            sizes = np.bincount(cls[kept], weights=candidates.base_size[kept], minlength=n_groups)
            sizes = sizes[sizes > 0]
            cost = (
                float((sizes**2).sum()) + suppressed * table.n_rows  # Bayardo & Agrawal
                if metric == "discernibility"
                else (table.n_rows - suppressed) / len(sizes)  # published records per class
            )
        else:
            cost = bound[i]
        if cost < best_cost:
            best, best_cost = i, cost
    if best is None:
        raise IneligibleError(
            f"no node of the lattice satisfies {model} with {params} while suppressing at most "
            f"{limit} records; relax the parameters or raise the suppression limit"
        )
    qi = table.quasi_identifiers
    levels = dict(zip(qi, nodes[best].tolist(), strict=True))
    full = generalize(table, levels, scheme=scheme, seed=seed)
    check = models.check(
        Release(full.table, full.group, scheme, reference_counts=candidates.reference),
        model,
        **params,
    )
    keep = ~np.isin(full.group, np.asarray(check.violating_groups, dtype=np.int64))
    suppressed = int((~keep).sum())
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
    kept_table = table.take(np.flatnonzero(keep))
    kept_table.dropped = dict(table.dropped, suppressed_records=suppressed)
    return Release(
        kept_table, full.group[keep], scheme, manifest, levels=levels,
        reference_counts=candidates.reference,
    )  # fmt: skip


def _strides(heights: np.ndarray) -> np.ndarray:
    """Row index of a node in the ``itertools.product`` order = its levels @ these strides."""
    return np.array(
        [int(np.prod(heights[j + 1 :] + 1)) for j in range(len(heights))], dtype=np.int64
    )


def _arx_loss_with_suppression(table, candidates, node, kept, suppressed) -> float:
    """ARX's Loss when the records outside ``kept`` base classes are suppressed."""
    factors = []
    for j, q in enumerate(table.quasi_identifiers):
        h = table.schema[q].hierarchy
        level = int(node[j])
        share = h.node_size(level) / len(h)
        per_base = share[h.map(level)[candidates.base_leaves[j]]] * candidates.base_size
        a = float(per_base[kept].sum()) + suppressed  # a suppressed record costs 1
        factors.append(attribute_loss(a, table.n_rows, len(h)))
    return float(combine_losses(factors))


class _CandidateStatistics:
    """Per-node class sizes and sensitive histograms, from the table's distinct QI vectors.

    The records are first reduced to their distinct leaf vectors (base classes) with counts and
    sensitive histograms; a node's classes are then unions of base classes, found by one
    ``np.unique`` over the base classes' generalized keys, with no pass over the records.
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        qi = table.quasi_identifiers
        hierarchies = [table.schema[q].hierarchy for q in qi]
        leaves = [table.leaf_codes(q)[table.codes[q]].astype(np.int64) for q in qi]
        if np.prod([float(len(h)) for h in hierarchies]) >= 2.0**62:
            raise AnonlabError(
                "the quasi-identifiers' hierarchies have too many leaf combinations for the "
                "lattice search's 64-bit keys; use fewer quasi-identifiers"
            )
        key = np.zeros(table.n_rows, dtype=np.int64)
        for h, leaf in zip(hierarchies, leaves, strict=True):
            key = key * len(h) + leaf
        _, first, base = np.unique(key, return_index=True, return_inverse=True)
        base = base.ravel()
        self.base = base  # base class of each record
        self.n_base = len(first)
        sens = table.codes[table.require_sensitive()]
        self.n_values = table.domain_size(table.sensitive)
        self.base_size = np.bincount(base, minlength=self.n_base)
        # The base classes' sensitive counts as sparse (class, value, count) triples.
        cells = np.bincount(base * self.n_values + sens, minlength=self.n_base * self.n_values)
        nonzero = np.flatnonzero(cells)
        self.cell_base = nonzero // self.n_values
        self.cell_value = nonzero % self.n_values
        self.cell_count = cells[nonzero]
        self.reference = np.bincount(sens, minlength=self.n_values)
        self.base_leaves = [leaf[first] for leaf in leaves]
        self.generalized = [
            [h.map(level)[leaf[first]].astype(np.int64) for level in range(h.height + 1)]
            for h, leaf in zip(hierarchies, leaves, strict=True)
        ]
        self.radix = [[len(h.labels(level)) for level in range(h.height + 1)] for h in hierarchies]

    def classes(self, node: np.ndarray) -> tuple[np.ndarray, int]:
        """The class of each base class under ``node``, and the number of classes."""
        key = np.zeros(self.n_base, dtype=np.int64)
        span = 1
        for j, level in enumerate(node.tolist()):
            key = key * self.radix[j][level] + self.generalized[j][level]
            span *= self.radix[j][level]
        if span <= max(16 * self.n_base, 1 << 18):
            # Small key range: number the keys present by a counting pass instead of a sort.
            present = np.bincount(key, minlength=span) > 0
            number = np.cumsum(present) - 1
            return number[key], int(number[-1]) + 1
        _, cls = np.unique(key, return_inverse=True)
        cls = cls.ravel()
        return cls, int(cls.max()) + 1

    def class_sizes(self, node: np.ndarray) -> np.ndarray:
        cls, n_groups = self.classes(node)
        return np.bincount(cls, weights=self.base_size, minlength=n_groups).astype(np.int64)

    def suppressed(self, node: np.ndarray, model: str, params: dict) -> tuple[int, np.ndarray]:
        """Records in the classes that violate the model, and which base classes are kept.

        The classes are checked against the whole input's sensitive distribution (t-closeness).
        """
        cls, n_groups = self.classes(node)
        sizes = np.bincount(cls, weights=self.base_size, minlength=n_groups).astype(np.int64)
        release = Release._from_statistics(
            self.table, n_groups, sizes, lambda: self._histogram(cls, n_groups),
            reference_counts=self.reference,
        )  # fmt: skip
        result = models.check(release, model, **params)
        failing = np.zeros(n_groups, dtype=bool)
        failing[np.asarray(result.violating_groups, dtype=np.int64)] = True
        return int(sizes[failing].sum()), ~failing[cls]

    def _histogram(self, cls: np.ndarray, n_groups: int) -> np.ndarray:
        flat = cls[self.cell_base] * self.n_values + self.cell_value
        counts = np.bincount(flat, weights=self.cell_count, minlength=n_groups * self.n_values)
        return counts.reshape(n_groups, self.n_values)

    def holds(self, node: np.ndarray, model: str, params: dict) -> bool:
        cls, n_groups = self.classes(node)
        sizes = np.bincount(cls, weights=self.base_size, minlength=n_groups).astype(np.int64)

        release = Release._from_statistics(
            self.table, n_groups, sizes, lambda: self._histogram(cls, n_groups)
        )
        return models.check(release, model, **params).holds


class _MonotoneSearch:
    """Answers "does this node hold?" for a model monotone under generalization, checking as few
    nodes as it can.

    A status per lattice node (unknown / holds / fails) is kept in one array: a check that fails
    marks the node's whole down-set as failing, one that holds marks its up-set, each with one
    vectorised comparison over all nodes. When a node fails, the search climbs from it to a
    maximal failing node (one level of one attribute at a time, while it still fails), whose
    down-set is usually much larger: the idea of Flash's paths (Kohlmayer et al., PASSAT 2012)
    without its lattice bookkeeping.
    """

    UNKNOWN, FAILS, HOLDS = 0, 1, 2

    def __init__(self, check, nodes: np.ndarray, heights: np.ndarray) -> None:
        self._check = check
        self.nodes = nodes
        self.heights = heights
        self.status = np.zeros(len(nodes), dtype=np.int8)
        # nodes come from itertools.product: row index = mixed-radix value of the levels
        self.stride = _strides(heights)
        self.checked = 0

    def _status(self, node: np.ndarray) -> int:
        index = int(node @ self.stride)
        if self.status[index] == self.UNKNOWN:
            self.checked += 1
            if self._check(node):
                self.status[np.all(self.nodes >= node, axis=1)] = self.HOLDS
            else:
                self.status[np.all(self.nodes <= node, axis=1)] = self.FAILS
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

    def holds(self, index: int) -> bool:
        if self.status[index] != self.UNKNOWN:
            return bool(self.status[index] == self.HOLDS)
        node = self.nodes[index]
        if self._status(node) == self.HOLDS:
            return True
        # Climb to a maximal failing node: round-robin over the attributes, one level at a
        # time, while the node still fails. (Measured on Adult: fewer checks than climbing one
        # attribute to its top before the next, or a binary search per attribute, whose higher
        # probes mostly hold and prune nothing below the optimum.)
        top = node.copy()
        climbed = True
        while climbed:
            climbed = False
            for j in range(len(top)):
                if top[j] < self.heights[j]:
                    top[j] += 1
                    if self._status(top) == self.FAILS:
                        climbed = True
                    else:
                        top[j] -= 1
        return False
