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
from, along Flash's paths with a binary search on each (:class:`.nodes.MonotoneSearch`), to a
maximal failing node whose down-set covers many of the nodes asked about next.

With a suppression limit and a class metric every node is evaluated (no bound ends the search).

Lattices too large to list (more than :data:`MAX_NODES` nodes, 10 and more quasi-identifiers):
:func:`lattice` refuses them, naming the size, and they are searched heuristically, within a
budget, by :func:`anonlab.anonymize.lightning.lightning`, which checks each node with this
package's check (:class:`NodeCheck`).

Checking a node costs no pass over the records: the records are grouped once into their distinct
quasi-identifier vectors, and each node's classes (sizes, sparse sensitive histograms, and the
verdict of the model on each) are rolled up from those of a finer node already checked, in
compiled code (:class:`.classes.Partitions`). On Adult (30,162 or 301,620 rows, 2,160 nodes) a node
costs tens of microseconds; docs/benchmarks.md ("Lattice search beside ARX, same run") times the
whole search beside ARX 3.9.2.

References
----------
K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Incognito: efficient full-domain k-anonymity.
SIGMOD 2005. F. Kohlmayer, F. Prasser, C. Eckert, A. Kemper, K. A. Kuhn. Flash: efficient, stable
and optimal k-anonymity. PASSAT 2012.

Modules
-------
``inputs``: what a search takes (the model and its parameters, a table with hierarchies, a lattice
small enough to list, whether failures prune). ``metrics``: the information-loss metrics.
``nodes``: the lattice's order and :class:`~.nodes.MonotoneSearch`. ``rollup``: the compiled
grouping into classes, roll-up and per-class checks. ``classes``: each node's classes, rolled up
from stored finer nodes. ``checks``: :class:`NodeCheck`, one node at a time. ``search``:
:func:`lattice` itself.
"""

from anonlab.anonymize.lattice.checks import NodeCheck, NodeEvaluation
from anonlab.anonymize.lattice.inputs import (
    MAX_NODES,
    MODEL_PARAMETERS,
    SearchInputs,
    check_lattice_size,
    check_model_fits,
    model_parameters,
    prunes_failures,
    search_inputs,
    searchable_table,
)
from anonlab.anonymize.lattice.metrics import (
    CLASS_METRICS,
    METRICS,
    NODE_METRICS,
    attribute_losses,
    node_metric,
)
from anonlab.anonymize.lattice.search import lattice

__all__ = [
    "CLASS_METRICS",
    "MAX_NODES",
    "METRICS",
    "MODEL_PARAMETERS",
    "NODE_METRICS",
    "NodeCheck",
    "NodeEvaluation",
    "SearchInputs",
    "attribute_losses",
    "check_lattice_size",
    "check_model_fits",
    "lattice",
    "model_parameters",
    "node_metric",
    "prunes_failures",
    "search_inputs",
    "searchable_table",
]
