"""The exact search: the node of least information loss whose release satisfies the model.

Nodes are visited in increasing metric order (:mod:`~anonlab.anonymize.lattice.metrics`), and a
node is checked only when no failed node already covers it
(:class:`~anonlab.anonymize.lattice.nodes.MonotoneSearch`); the first node that holds is
optimal. With a suppression limit the node-only metric is a lower bound that ends the search;
with a class metric every node is evaluated. See the package docstring.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab._validation import takes_table_or_frame
from anonlab.anonymize.lattice.classes import Partitions
from anonlab.anonymize.lattice.inputs import (
    check_lattice_size,
    check_model_fits,
    prunes_failures,
    search_inputs,
)
from anonlab.anonymize.lattice.metrics import (
    CLASS_METRICS,
    METRICS,
    NODE_METRICS,
    arx_loss_with_suppression,
    node_metric,
)
from anonlab.anonymize.lattice.nodes import MonotoneSearch, next_open, node_strides, order_rank
from anonlab.errors import IneligibleError
from anonlab.release import Release
from anonlab.table import Table


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
    run = search_inputs(
        table, model, metrics=METRICS, metric=metric, scheme=scheme, suppression=suppression,
        seed=seed, k=k, l=l, c=c, t=t, m=m, distance=distance, sensitive_values=sensitive_values,
    )  # fmt: skip
    table, model, params, limit = run.table, run.model, run.params, run.limit
    check_model_fits(table, model, params)
    qi = table.quasi_identifiers
    heights = np.array([table.schema[q].hierarchy.height for q in qi], dtype=np.int64)
    check_lattice_size(heights)
    # Every node, in itertools.product order (the last attribute varies fastest).
    nodes = np.indices(tuple((heights + 1).tolist())).reshape(len(qi), -1).T.astype(np.int64)
    candidates = Partitions(table, model, params)
    release = _search(
        table, model, params, run.metric, limit, nodes, heights, candidates, run.scheme, run.seed
    )
    release.manifest["parameters"]["suppression"] = run.suppression
    if verdicts:
        suppressed = np.array([candidates.suppressed(node)[0] for node in nodes], dtype=np.int64)
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
    monotone = prunes_failures(model, 0)
    if metric in NODE_METRICS:
        cost = node_metric(table, nodes, metric, candidates.leaf_counts())
        order = np.lexsort((nodes.sum(axis=1), cost))  # ties: fewer levels, then node order
        search = MonotoneSearch(candidates.holds, nodes, heights, order_rank(order), monotone)
        best = search.first_holding(order)
    else:
        # Classify every node, then take the best minimal satisfying node (without
        # monotonicity: the best satisfying node, which is minimal too, as the metric only
        # grows when classes merge).
        by_height = np.argsort(nodes.sum(axis=1), kind="stable")
        search = MonotoneSearch(candidates.holds, nodes, heights, order_rank(by_height), monotone)
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
    strides = node_strides(heights)
    # Per node evaluated: the records it suppresses, and its cost when that is within the limit
    # (kept, not the partition, which the store of partitions may drop).
    evaluated: dict[int, tuple[int, float]] = {}

    def evaluate(i: int) -> tuple[int, float]:
        if i not in evaluated:
            suppressed, failing, part = candidates.suppressed(nodes[i])
            if suppressed > limit:
                cost = np.inf
            elif metric == "arx-loss":
                cost = arx_loss_with_suppression(table, candidates, part, failing, suppressed)
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

    # Prune with the model; else with those of its parts that are monotone with suppression
    # (a node holding them is still checked whole: `whole` below).
    whole = not prunes_failures(model, limit) and candidates.bounded_pruning()
    bounded: set[int] = set()  # nodes whose monotone parts were checked (`whole` only)

    def bounded_holds(node: np.ndarray) -> bool:
        bounded.add(int(node @ strides))
        return candidates.suppressed_bounded(node) <= limit

    search = (
        MonotoneSearch(lambda node: evaluate(int(node @ strides))[0] <= limit, nodes, heights,
                        order_rank(order))
        if prunes_failures(model, limit)
        else MonotoneSearch(bounded_holds, nodes, heights, order_rank(order))
        if whole else None
    )  # fmt: skip
    best, best_cost = None, np.inf
    position = 0
    while position < len(order):
        if search is not None:  # skip the nodes known to fail, in compiled code
            position = next_open(search.status, order, position)
            if position < 0:
                break
        i = int(order[position])
        position += 1
        if metric not in CLASS_METRICS and bound[i] >= best_cost:
            break  # no node from here on can have a lower loss (bound rises along order)
        feasible = search.holds(i) if search is not None else evaluate(i)[0] <= limit
        if whole and feasible:
            feasible = evaluate(i)[0] <= limit
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
            # with pruning on a combination's monotone parts: the nodes checked on those parts
            # only, and the distinct nodes checked either way
            **({"checked_monotone_parts": len(bounded),
                "nodes_touched": len(bounded | set(evaluated))} if whole else {}),
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
