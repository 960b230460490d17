"""Heuristic search of generalization lattices too large for an exact search: Lightning.

With 10 to 15 quasi-identifiers the lattice of full-domain generalizations has 10^6 to 10^10
nodes, and the exact search (:func:`anonlab.anonymize.lattice.lattice`) cannot even list them.
:func:`lightning` searches such a lattice within a budget of nodes checked and/or seconds, returns
the best node it found, and says how far that node may be from the optimum.

The search is ARX's Lightning (F. Prasser, R. Bild, J. Eicher, H. Spengler, K. A. Kuhn,
"Lightning: Utility-Driven Anonymization of High-Dimensional Data", Transactions on Data Privacy
9(2), 2016, §4, Algorithm 1; ARX 3.9.2's ``LIGHTNINGAlgorithm``, "best effort, bottom-up"). It
starts at the bottom node (nothing generalized) and keeps a priority queue of checked nodes,
ordered by information loss. Each step takes the queue's first node and *expands* it: checks all
of its direct generalizations (one attribute one level up) and adds them to the queue. Every
``stepping``-th step (ARX: the height of the lattice, the sum of the hierarchies' heights) it
instead *dives*: a greedy depth-first walk without backtracking that expands the node, moves to
its successor of least loss, expands that, and so on, which reaches an acceptable node quickly.
A node whose lower bound on loss is at least the best loss found so far is pruned with all its
generalizations (the bound is monotone). Given no budget, the search ends only when the queue is
empty; it is then a complete branch and bound, and its node is optimal.

It reuses the exact search's check of a node (:class:`~anonlab.anonymize.lattice.NodeCheck`):
the same privacy models, suppression limit, classes and Loss, so a node has the same verdict and
the same loss under both searches.

The lower bound and the gap
---------------------------
The *lower bound* of a node (``NodeCheck.bound``) is its metric with nothing suppressed: with ARX's
Loss, each attribute's term grows with its level and a suppressed record costs 1 per attribute,
at least its share at any level, so it bounds the loss of the node and of every more general
node. The release reports ``lower_bound`` LB with LB <= optimum <= ``metric_value``, and
``gap = metric_value - LB`` (in the metric's units). LB is the larger of two bounds, each valid
alone, and at most the best loss found:

1. *The queue's bound.* At any point each node of the lattice is *expanded* (checked, and each
   of its successors checked, pruned or expanded), *pruned* (its bound, hence every more general
   node's, is at least the best loss found), or at or above a node that is *open*: checked and in
   the queue but not expanded (by induction: the bottom is open at the start; expanding a node
   makes each successor open, expanded or pruned). An open node is no better than the best found
   or not acceptable, and a node strictly above it lies at or above one of its direct
   successors; those already checked are covered by the same argument. So the optimum is at
   least the least bound over the unchecked direct successors of the open nodes.
2. *The enumerated bound.* The optimum is at least the least bound over the nodes that are
   neither checked nor *known to fail*: at or below a checked node that fails, when the model is
   monotone under generalization (a model registered ``monotone``, and with suppression
   ``monotone_with_suppression``: :func:`~anonlab.anonymize.lattice.prunes_failures`). It is
   found by visiting nodes from the bottom in order of bound (the bound is monotone), passing
   through the excluded ones to their successors, at most ``bound_effort`` nodes; when the effort
   runs out, the least bound left to visit is returned, still valid because every node not
   visited lies above one of those.

``proven_optimal`` is ``LB >= metric_value`` (always so when the queue empties). The bound is
honest but weak on large lattices: most nodes of low bound are neither checked nor below a
checked node that fails.

Choices where the paper and ARX are silent or were changed
---------------------------------------------------------
* A successor whose lower bound is already at least the best loss found is pruned, not checked
  (ARX checks it and prunes it only when it leaves the queue). It could not improve on the best
  node, nor could any node above it, so the node found for a given budget is never worse, and a
  dive ends where no successor can improve instead of climbing to the top of the lattice.
* The queue's order is the loss of ARX's node check: the metric with the violating classes
  suppressed, whether or not the suppression limit allows it (ARX computes a non-anonymous node's
  loss the same way). Ties: fewer levels in all, then the lower node index (the last attribute
  varies fastest), so the search is deterministic; it makes no random choice.
* The best node is the acceptable node of least loss found (ties: fewer levels, then index), as
  the exact search breaks ties.
* If the budget ends before any acceptable node is found, the top node (every attribute at its
  root) is checked once more beyond the budget and returned if acceptable, with the gap to the
  lower bound; otherwise :class:`~anonlab.errors.IneligibleError`.
* Only node-only metrics (ARX's Loss, height, precision) have the lower bound the pruning and the
  gap need; class metrics are refused.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence

import numpy as np
from numba import njit

from anonlab._validation import check_float, check_int, takes_table_or_frame
from anonlab.anonymize.lattice import (
    NODE_METRICS,
    NodeCheck,
    NodeEvaluation,
    prunes_failures,
    search_inputs,
)
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import Release
from anonlab.table import Table

#: Nodes checked when no budget is given (a search with neither budget runs to the end).
DEFAULT_MAX_CHECKS = 10_000
#: Nodes the lower bound's enumeration visits at most (no check: bounds and comparisons only).
DEFAULT_BOUND_EFFORT = 200_000


@takes_table_or_frame
def lightning(
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
    max_checks: int | None = DEFAULT_MAX_CHECKS,
    max_seconds: float | None = None,
    bound_effort: int = DEFAULT_BOUND_EFFORT,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """The full-domain generalization of least ``metric`` that Lightning finds within a budget.

    Not proven optimal unless ``manifest["lattice"]["proven_optimal"]`` says so; the manifest
    gives the loss found, the best lower bound the search knows and the gap between them (module
    docstring).

    Parameters
    ----------
    table : Table
        Every quasi-identifier needs a hierarchy.
    model, k, l, c, t, m, distance, sensitive_values, suppression
        As :func:`anonlab.anonymize.lattice.lattice` takes them (the same check of each node).
    metric : {"arx-loss", "height", "precision"}
        A node-only metric (its value with nothing suppressed is the lower bound).
    max_checks : int or None, default=10,000
        Stop after this many nodes checked (ARX's step limit, counted in checks). None: no limit.
        The result depends only on the data and the parameters.
    max_seconds : float or None
        Stop after this much wall-clock time (ARX's time limit). None: no limit. With a time
        limit the node found depends on the machine. With neither limit the search runs until
        its queue is empty, and the node is optimal (beware: on 10^6 nodes and more, that is
        usually far out of reach). The lower bound is computed after the search, outside
        this limit.
    bound_effort : int, default=200,000
        Nodes the second lower bound visits at most (module docstring; no node is checked, and
        a smaller effort gives a weaker but still valid bound; 0 keeps only the first bound).
    scheme : {"generalization", "bucketization"}
    seed : int
        Orders exported rows only (the search makes no random choice).

    Returns
    -------
    Release
        Made at the node found, as the exact search makes it. ``manifest["lattice"]`` holds
        ``nodes`` (in the lattice), ``checked``, ``expanded``, ``metric_value`` (the loss
        found), ``lower_bound``, ``gap``, ``proven_optimal``, ``stopped_by`` (``"checks"``,
        ``"seconds"`` or None when the queue emptied) and a ``note`` saying whether the node
        is proven optimal.

    Raises
    ------
    IneligibleError
        When no acceptable node is found (the top node included).
    """
    run = search_inputs(
        table, model, metrics=NODE_METRICS, metric=metric, scheme=scheme, suppression=suppression,
        seed=seed, k=k, l=l, c=c, t=t, m=m, distance=distance, sensitive_values=sensitive_values,
    )  # fmt: skip
    table, model, params, metric, limit = run.table, run.model, run.params, run.metric, run.limit
    if max_checks is not None:
        max_checks = check_int("max_checks", max_checks, minimum=1)
    if max_seconds is not None:
        max_seconds = check_float("max_seconds", max_seconds, low=0.0)
    bound_effort = check_int("bound_effort", bound_effort, minimum=0)
    check = NodeCheck(table, model, params, metric=metric, limit=limit)
    search = LightningSearch(check, max_checks=max_checks, max_seconds=max_seconds)
    search.run()
    best = search.best
    topped = False
    if best is None:  # nothing acceptable within the budget: the top, once more
        top = search.index(check.heights)
        if top not in search.evaluated:
            search.assure_checked(top)
            topped = True
        best = search.best
    if best is None:
        raise IneligibleError(
            f"no node of the lattice that the search checked satisfies {model} with {params}"
            + (f" while suppressing at most {limit} records" if limit else "")
            + ", not even the most general (every quasi-identifier '*'); relax the parameters"
            + (" or raise the suppression limit" if limit else "")
        )
    node = search.levels(best)
    qi = check.quasi_identifiers
    levels = dict(zip(qi, node.tolist(), strict=True))
    cost = search.evaluated[best].cost
    lower = search.lower_bound(bound_effort)
    proven = bool(lower >= cost)
    manifest = {
        "algorithm": "lightning",
        "parameters": {
            "model": model, **params, "metric": metric, "levels": levels,
            "suppression": run.suppression, "max_checks": max_checks, "max_seconds": max_seconds,
        },
        "seed": run.seed,
        "input_rows": int(table.n_rows),
        "suppressed_records": 0,
        "lattice": {
            "search": "lightning",
            "nodes": int(np.prod([int(h) + 1 for h in check.heights.tolist()])),
            "checked": check.checked,
            "expanded": len(search.expanded),
            "suppression_limit": limit,
            "metric_value": float(cost),
            "lower_bound": float(lower),
            "gap": float(max(cost - lower, 0.0)),
            "proven_optimal": proven,
            "stopped_by": search.stopped_by,
            "top_checked_beyond_budget": topped,
            "note": (
                "proven optimal: no node of lower loss is left unexplored"
                if proven
                else f"heuristic: not proven optimal; the optimum lies in [{lower:.10g}, "
                f"{cost:.10g}] (gap {cost - lower:.4g}); search stopped by its "
                f"{search.stopped_by} budget"
            ),
        },
    }  # fmt: skip
    return check.release(node, run.scheme, manifest)


class LightningSearch:
    """The search state of :func:`lightning` over the lattice of ``check``: which nodes are
    checked (``evaluated``), expanded and pruned, the queue, and the best node.

    Nodes are named by their index in the lattice's ``itertools.product`` order (levels @
    strides), which fits 64 bits for any lattice the node check accepts; nothing is allocated
    per node of the lattice, only per node visited.
    """

    def __init__(
        self, check: NodeCheck, *, max_checks: int | None, max_seconds: float | None
    ) -> None:
        self.check = check
        self.heights = check.heights
        q = len(self.heights)
        if np.prod([float(h) + 1 for h in self.heights.tolist()]) >= 2.0**62:
            raise AnonlabError(
                "the lattice has 2**62 nodes or more; use fewer quasi-identifiers or shorter "
                "hierarchies"
            )
        self.strides = np.ones(q, dtype=np.int64)
        for j in range(q - 2, -1, -1):
            self.strides[j] = self.strides[j + 1] * (self.heights[j + 1] + 1)
        # ARX: the level of the top node, i.e. the height of the lattice (at least 1).
        self.stepping = max(int(self.heights.sum()), 1)
        self.max_checks, self.max_seconds = max_checks, max_seconds
        self.evaluated: dict[int, NodeEvaluation] = {}
        self._keys: dict[int, tuple[float, int, int]] = {}
        self.expanded: set[int] = set()
        self.pruned: set[int] = set()
        self.queue: list[tuple[float, int, int]] = []
        self.best: int | None = None
        self._best_key: tuple[float, int, int] = (np.inf, 0, 0)
        self.stopped_by: str | None = None
        self._start = 0.0

    def index(self, node: np.ndarray) -> int:
        """A node's index from its levels."""
        return int(np.asarray(node, dtype=np.int64) @ self.strides)

    def levels(self, index: int) -> np.ndarray:
        """A node's levels from its index."""
        return (index // self.strides) % (self.heights + 1)

    def must_stop(self) -> bool:
        """Whether a budget is spent (ARX's ``mustStop``); records which."""
        if self.max_checks is not None and self.check.checked >= self.max_checks:
            self.stopped_by = "checks"
        elif self.max_seconds is not None and time.perf_counter() - self._start > self.max_seconds:
            self.stopped_by = "seconds"
        return self.stopped_by is not None

    def _key(self, index: int) -> tuple[float, int, int]:
        """A checked node's place in the queue: loss, then fewer levels, then index."""
        return self._keys[index]

    def assure_checked(self, index: int) -> NodeEvaluation:
        """Check a node once, and keep track of the best acceptable node."""
        found = self.evaluated.get(index)
        if found is None:
            node = self.levels(index)
            found = self.evaluated[index] = self.check.evaluate(node)
            self._keys[index] = (found.loss, int(node.sum()), index)
            if found.acceptable:
                key = self._key(index)
                if key < self._best_key:
                    self.best, self._best_key = index, key
        return found

    @property
    def best_cost(self) -> float:
        return self._best_key[0]

    def prune(self, index: int) -> bool:
        """Whether a node leaving the queue is skipped: expanded already, or bounded by the best
        loss (then it and every node above it are pruned)."""
        if index in self.expanded or index in self.pruned:
            return True
        if self.best is not None and index != self.best:
            if self.check.bound(self.levels(index))[0] >= self.best_cost:
                self.pruned.add(index)
                return True
        return False

    def _successors(self, index: int) -> list[int]:
        node = self.levels(index)
        return [index + int(self.strides[j]) for j in np.flatnonzero(node < self.heights)]

    def expand(self, index: int) -> int | None:
        """Check every successor not yet expanded or pruned and queue it; the successor of least
        loss among them, or None. Interrupted by the budget, the node stays in the queue."""
        successors = self._successors(index)
        bounds = (
            self.check.bound(np.array([self.levels(s) for s in successors])) if successors else []
        )
        result = None
        for s, bound in zip(successors, bounds, strict=True):
            if s in self.expanded or s in self.pruned:
                continue
            if self.best is not None and bound >= self.best_cost:
                self.pruned.add(s)  # neither it nor any node above it can improve on the best
                continue
            self.assure_checked(s)
            heapq.heappush(self.queue, self._key(s))
            if result is None or self._key(s) < self._key(result):
                result = s
            if self.must_stop():
                heapq.heappush(self.queue, self._key(index))  # not expanded: still open
                return None
        self.expanded.add(index)
        return result

    def dive(self, index: int) -> None:
        """Lightning's depth-first search without backtracking: expand, move to the successor
        of least loss, again, until there is none or the budget is spent."""
        current: int | None = index
        while current is not None and not self.must_stop():
            current = self.expand(current)

    def run(self) -> None:
        """The search (Prasser et al. 2016, Algorithm 1), until the queue is empty or a budget
        is spent."""
        self._start = time.perf_counter()
        bottom = 0
        self.assure_checked(bottom)
        heapq.heappush(self.queue, self._key(bottom))
        step = 0
        if self.must_stop():
            return
        while self.queue:
            index = heapq.heappop(self.queue)[2]
            if self.prune(index):
                continue
            step += 1
            if step % self.stepping == 0:
                self.dive(index)
            else:
                self.expand(index)
            if self.must_stop():
                return

    def open_nodes(self) -> np.ndarray:
        """Indices of the checked nodes left in the queue, neither expanded nor pruned."""
        return np.array(
            sorted({i for *_, i in self.queue} - self.expanded - self.pruned), dtype=np.int64
        )

    def queue_bound(self) -> float:
        """The least bound over the open nodes' successors not yet checked (module docstring,
        first bound); the best loss found when no node is open."""
        open_nodes = self.open_nodes()
        if len(open_nodes) == 0:
            return self.best_cost
        q = len(self.heights)
        up = np.repeat(open_nodes, q) + np.tile(self.strides, len(open_nodes))
        levels = self.levels_of(up)
        inside = (self.levels_of(open_nodes) < self.heights).ravel()
        checked = np.fromiter(self.evaluated, dtype=np.int64, count=len(self.evaluated))
        keep = inside & ~np.isin(up, checked)
        if not keep.any():
            return self.best_cost
        return float(min(self.best_cost, self.check.bound(levels[keep]).min()))

    def levels_of(self, indices: np.ndarray) -> np.ndarray:
        """The levels of many nodes (one row each)."""
        return (np.asarray(indices, dtype=np.int64)[:, None] // self.strides) % (self.heights + 1)

    def enumerated_bound(self, effort: int) -> float:
        """The least bound over the nodes neither checked nor known to fail (second bound),
        found by visiting nodes from the bottom in order of bound, at most ``effort`` of them.

        A node is known to fail when it lies below a checked node that fails and the model is
        monotone (a model registered ``monotone``, and with suppression
        ``monotone_with_suppression``: :func:`~anonlab.anonymize.lattice.prunes_failures`).
        Nodes known to be
        excluded are passed through to their successors. When ``effort`` runs out, the least
        bound left in the visit's queue is returned: every node not yet visited lies above one
        of those, so it is still a lower bound, only a weaker one. The visit is compiled
        (:func:`_least_open_bound`); the value returned is :meth:`NodeCheck.bound` of the node
        it ends at.
        """
        checked = np.sort(np.fromiter(self.evaluated, dtype=np.int64, count=len(self.evaluated)))
        monotone = prunes_failures(self.check.model, self.check.limit)
        failing_index = [i for i, e in self.evaluated.items() if not e.acceptable]
        q = len(self.heights)
        failing = (
            self.levels_of(np.array(failing_index, dtype=np.int64))
            if monotone and failing_index
            else np.zeros((0, q), dtype=np.int64)
        )
        failing = failing[np.argsort(-failing.sum(axis=1), kind="stable")]  # likeliest first
        aggregate, terms = self.check.terms()
        table = np.zeros((q, int(self.heights.max()) + 1))
        for j, x in enumerate(terms):
            table[j, : len(x)] = (1.0 + x) ** (1.0 / q) if aggregate == "geometric-mean" else x
        mode = ("geometric-mean", "sum", "mean").index(aggregate)
        node = _least_open_bound(
            table, mode, self.heights, self.strides, checked, failing, effort, self.best_cost
        )
        if node < 0:
            return self.best_cost
        return float(min(self.best_cost, self.check.bound(self.levels(node))[0]))

    def lower_bound(self, effort: int = 0) -> float:
        """The best lower bound on the optimum the search knows: the larger of the two bounds
        of the module docstring (each valid alone), and at most the best loss found."""
        bound = self.queue_bound()
        if effort > 0:
            bound = max(bound, self.enumerated_bound(effort))
        return float(min(bound, self.best_cost))


@njit(cache=True)
def _key(table, mode, node):
    """A node's bound from per-attribute terms (see ``NodeCheck.terms``), in attribute order."""
    q = len(node)
    if mode == 0:
        value = 1.0
        for j in range(q):
            value = value * table[j, node[j]]
        return value - 1.0
    value = 0.0
    for j in range(q):
        value += table[j, node[j]]
    return value if mode == 1 else value / q


@njit(cache=True)
def _below_any(node, tops):
    """Whether ``node`` is at or below (every level <=) some row of ``tops``."""
    q = len(node)
    for f in range(len(tops)):
        below = True
        for j in range(q):
            if node[j] > tops[f, j]:
                below = False
                break
        if below:
            return True
    return False


@njit(cache=True)
def _least_open_bound(table, mode, heights, strides, checked, failing, effort, limit):
    """Visit nodes from the bottom in order of bound, passing through those that are checked
    (``checked``, sorted indices) or at or below a row of ``failing``; stop at the first other
    node, when the least bound left reaches ``limit``, or after ``effort`` visits. Returns the
    node whose bound is then the least (a lower bound on every node not passed through), or -1
    when that bound is at least ``limit``."""
    q = len(heights)
    node = np.zeros(q, dtype=np.int64)
    heap = [(_key(table, mode, node), np.int64(0))]
    seen = {np.int64(0)}
    visited = 0
    while len(heap) > 0 and visited < effort:
        bound, index = heapq.heappop(heap)
        if bound >= limit:
            return -1
        visited += 1
        for j in range(q):
            node[j] = (index // strides[j]) % (heights[j] + 1)
        at = np.searchsorted(checked, index)
        is_checked = at < len(checked) and checked[at] == index
        if not is_checked and not _below_any(node, failing):
            return index  # neither checked nor known to fail: the least bound left
        for j in range(q):
            if node[j] < heights[j]:
                up = index + strides[j]
                if up not in seen:
                    seen.add(up)
                    node[j] += 1
                    heapq.heappush(heap, (_key(table, mode, node), up))
                    node[j] -= 1
    if len(heap) == 0 or heap[0][0] >= limit:
        return -1
    return heap[0][1]


__all__ = ["DEFAULT_MAX_CHECKS", "LightningSearch", "lightning"]
