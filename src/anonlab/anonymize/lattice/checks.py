"""Nodes checked one at a time, exactly as the exact search checks them, for searches that
cannot list the lattice (:func:`anonlab.anonymize.lightning.lightning`): :class:`NodeCheck`
and what it finds of a node, :class:`NodeEvaluation`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from anonlab.anonymize.lattice.classes import Partitions
from anonlab.anonymize.lattice.inputs import check_model_fits
from anonlab.anonymize.lattice.metrics import (
    NODE_METRICS,
    arx_loss_with_suppression,
    attribute_losses,
    node_metric,
)
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table
from anonlab.utility.arx_loss import combine_losses


class NodeEvaluation(NamedTuple):
    """One node as :class:`NodeCheck` finds it."""

    #: Records in the classes that violate the model (withheld if the node is chosen).
    suppressed: int
    #: Whether ``suppressed`` is within the suppression limit.
    acceptable: bool
    #: The metric value :func:`~anonlab.anonymize.lattice.lattice` gives the node when it is
    #: acceptable; ``inf`` otherwise.
    cost: float
    #: The metric with the violating classes suppressed, whether or not the limit allows it (ARX's
    #: information loss of a node that is not anonymous); equal to ``cost`` when acceptable.
    loss: float


class NodeCheck:
    """Nodes of the generalization lattice checked one at a time exactly as
    :func:`~anonlab.anonymize.lattice.lattice` checks them, for searches that cannot enumerate
    the lattice (:func:`anonlab.anonymize.lightning.lightning`).

    The same classes (rolled up from stored finer nodes, :class:`Partitions`), the same check of
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
        Records that may be suppressed (``floor(suppression * n)``, as
        :func:`~anonlab.anonymize.lattice.lattice` takes it).
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
        self._partitions = Partitions(table, model, params)
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
            loss = arx_loss_with_suppression(
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
