"""The information-loss metrics the lattice search ranks nodes by.

Without suppression ARX's Loss (notes/arx-loss-metric.md), the height (sum of levels) and the
precision (1 − Sweeney's Prec) depend on the node only, so they can be computed for all nodes up
front (:data:`NODE_METRICS`, :func:`node_metric`): ARX's Loss is
:func:`~anonlab.utility.arx_loss.combine_losses` of one term ``x_d`` per quasi-identifier that
depends on its level only (:func:`attribute_losses`). The discernibility metric and the average
class size depend on the classes but only grow when classes merge, so their minimum lies at a
minimal satisfying node (:data:`CLASS_METRICS`). With suppression, ARX's Loss charges each
suppressed record 1 per attribute (:func:`arx_loss_with_suppression`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from anonlab.table import Table
from anonlab.utility.arx_loss import attribute_loss, combine_losses

if TYPE_CHECKING:
    from anonlab.anonymize.lattice.classes import Partition, Partitions

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


def arx_loss_with_suppression(
    table: Table, candidates: Partitions, part: Partition, failing: np.ndarray, suppressed: int
) -> float:
    """ARX's Loss when the records of the ``failing`` classes of ``part`` (a partition of
    ``candidates``) are suppressed: the cost of a node under a suppression limit, in the search
    and in :class:`~anonlab.anonymize.lattice.checks.NodeCheck`.

    A_d = Σ over kept classes of |class| × share of its value + suppressed, where the share is
    (leaves under the value) / |dom_d|: the sum is taken over integers and divided once.
    """
    numerators = candidates.kept_numerators(part, failing).tolist()
    factors = [
        attribute_loss(numerator / dom + suppressed, table.n_rows, dom)
        for numerator, dom in zip(numerators, candidates.dom.tolist(), strict=True)
    ]
    return float(combine_losses(factors))
