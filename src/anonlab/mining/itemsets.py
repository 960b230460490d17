"""Frequent itemsets of quasi-identifier conditions, counted per sensitive value.

The shared engine of negative rule mining (Li & Li, "Injector", ICDE 2008, §IV-C) and of the
positive rules behind the rule-mining utility metrics (§VI-C).

**Items.** An *item* is a condition ``A = v`` on one quasi-identifier ``A`` where ``v`` is a node
of ``A``'s generalization hierarchy below the root: a leaf (an actual value) or an internal node
(the paper's extended domain ``D'_A = D_A ∪ E_A``, §IV-A). A record satisfies ``A = v`` iff its
value lies under ``v`` (crisp membership; see :mod:`anonlab.mining.negative_rules` for the fuzzy
support of §IV-B, which is not implemented). An attribute without a hierarchy has its values as
items. Two canonicalisations, choices where the paper is silent:

* a node that covers every value of the attribute's domain (the root, or a node equal to it) is
  not an item: the condition is always true;
* nodes that cover exactly the same values (a node with one child, e.g. Race ``White`` above the
  leaf ``White``) are one item, named by the highest such node.

**Itemsets.** An *itemset* ``X`` is a conjunction of items with at most one item per attribute:
two items on one attribute are either nested (the conjunction equals the more specific one) or
disjoint (nothing satisfies it). ``C_X`` is the number of records satisfying ``X`` and
``C_X[s]`` the number of those with sensitive value ``s`` (the paper's counts). ``C_X[s]`` can
also be an *expected* count, from a matrix of per-record value probabilities (a bucketized
release, :mod:`anonlab.utility.rule_mining`); ``C_X`` is then still exact.

**Algorithm: Apriori** (Agrawal & Srikant 1994, the paper's reference [13]), level by level, on
integer codes. Itemsets are counted by *signature*, the tuple of (attribute, hierarchy level) of
their items: one signature's itemsets are the cells of the product of its levels' nodes, and all
its cells are counted with one ``np.bincount`` over the records. The anti-monotone prune is
applied to signatures and to records: a signature of ``k + 1`` items is counted only if each of
its ``k + 1`` sub-signatures has a frequent cell, and only over the records that lie in a frequent
cell of every sub-signature (a record outside them cannot be in a frequent ``(k+1)``-itemset).
A cell counted this way is frequent iff its true count is, and then its count is exact. No Python
loop runs over records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.hierarchy import leaf_label
from anonlab.table import Table

__all__ = ["Condition", "FrequentItemsets", "ItemCatalog", "frequent_itemsets"]

#: Above this many (cell, value) bins a signature's cells are compressed with np.unique first.
_DIRECT_BINS = 1 << 24


class Condition(NamedTuple):
    """One condition ``attribute = value`` of a rule; ``value`` is a node at ``level`` of the
    attribute's hierarchy (level 0: an actual value)."""

    attribute: str
    level: int
    value: str

    def __str__(self) -> str:
        return f"{self.attribute} = {self.value}"

    def to_json(self) -> dict:
        return {"attribute": self.attribute, "level": int(self.level), "value": self.value}


def node_labels(table: Table, name: str, level: int) -> np.ndarray:
    """Label of each node of ``name``'s hierarchy at ``level`` (the leaf labels, as the
    hierarchy writes them, without a hierarchy), indexed by node code."""
    h = table.schema[name].hierarchy
    if h is None:
        return np.array([leaf_label(v) for v in table.values[name]], dtype=object)
    return h.labels(level)


def codes_to_nodes(table: Table, name: str, level: int) -> np.ndarray:
    """Domain code of ``name`` -> node code at ``level`` (identity without a hierarchy).

    ``name`` must be an attribute of ``table`` and ``level`` a level of its hierarchy (0 without
    one); the result is indexed by the table's codes of ``name``.
    """
    h = table.schema[name].hierarchy
    if h is None:
        return np.arange(table.domain_size(name), dtype=np.int32)
    return h.map(level)[table.leaf_codes(name)]


def condition_node(table: Table, condition: Condition | Sequence) -> int:
    """The node code of a condition's value at its level (see :func:`condition_cover`).

    Raises :class:`AnonlabError` naming the attribute, level or node if the table has no such
    quasi-identifier, level or node (listing what is valid).
    """
    attribute, level, value = condition
    qis = list(table.quasi_identifiers)
    if attribute not in qis:
        raise AnonlabError(
            f"unknown attribute {attribute!r} in a rule: it is not a quasi-identifier of the "
            f"table; the quasi-identifiers are {qis}"
        )
    h = table.schema[attribute].hierarchy
    top = 0 if h is None else h.height
    if isinstance(level, bool) or not isinstance(level, int | np.integer) or not 0 <= level <= top:
        raise AnonlabError(
            f"unknown hierarchy level {level!r} for attribute {attribute!r} in a rule; valid "
            f"levels are 0..{top}" + (" (it has no hierarchy)" if h is None else "")
        )
    labels = node_labels(table, attribute, int(level))
    matches = np.flatnonzero(labels == str(value))
    if len(matches) == 0:
        shown = ", ".join(map(str, labels[:20])) + (" ..." if len(labels) > 20 else "")
        raise AnonlabError(
            f"unknown hierarchy node {value!r} at level {level} of attribute {attribute!r} in a "
            f"rule; the nodes at that level are: {shown}"
        )
    return int(matches[0])


def condition_cover(table: Table, condition: Condition | Sequence) -> np.ndarray:
    """Bool mask over the domain codes of the condition's attribute: the values it covers.

    Raises :class:`AnonlabError` as :func:`condition_node` does.
    """
    node = condition_node(table, condition)
    return codes_to_nodes(table, condition[0], int(condition[1])) == node


@dataclass(frozen=True, eq=False)
class ItemCatalog:
    """The items (conditions) of a table's quasi-identifiers, after canonicalisation.

    Attributes
    ----------
    attributes : tuple of str
        The quasi-identifiers; column ``j`` of an itemset matrix is ``attributes[j]``.
    attribute, level, node : ndarray of shape (n_items,)
        Each item's attribute index, hierarchy level and node code at that level.
    labels : tuple of str
        Each item's node label.
    parent : ndarray of shape (n_items,)
        The item of the nearest strictly more general node, -1 if only the root is above.
    cover : tuple of ndarray
        Per item, a bool mask over its attribute's domain codes.
    item_of_node : dict of (int, int) to ndarray
        ``(j, level)`` -> item id of each node code at that level (-1: not an item).
    levels : tuple of tuple of int
        Per attribute, the levels that have items.
    """

    attributes: tuple[str, ...]
    attribute: np.ndarray
    level: np.ndarray
    node: np.ndarray
    labels: tuple[str, ...]
    parent: np.ndarray
    cover: tuple[np.ndarray, ...] = field(repr=False)
    item_of_node: dict = field(repr=False)
    levels: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def from_table(cls, table: Table) -> ItemCatalog:
        attributes = tuple(table.quasi_identifiers)
        rows: list[tuple[int, int, int, str, np.ndarray]] = []
        item_of_node: dict[tuple[int, int], np.ndarray] = {}
        levels_per_attribute = []
        for j, name in enumerate(attributes):
            h = table.schema[name].hierarchy
            top = 1 if h is None else h.height  # the root level (h.height) has no items
            seen: set[bytes] = set()
            used_levels = []
            for level in range(top - 1, -1, -1):  # most general first: it names equal nodes
                node_of_code = codes_to_nodes(table, name, level)
                labels = node_labels(table, name, level)
                lookup = np.full(len(labels), -1, dtype=np.int64)
                for node in np.unique(node_of_code).tolist():
                    cover = node_of_code == node
                    key = np.packbits(cover).tobytes()
                    if cover.all() or key in seen:
                        continue
                    seen.add(key)
                    lookup[node] = len(rows)
                    rows.append((j, level, node, str(labels[node]), cover))
                item_of_node[(j, level)] = lookup
                if (lookup >= 0).any():
                    used_levels.append(level)
            levels_per_attribute.append(tuple(sorted(used_levels)))
        n = len(rows)
        attribute = np.array([r[0] for r in rows], dtype=np.int32)
        level = np.array([r[1] for r in rows], dtype=np.int32)
        node = np.array([r[2] for r in rows], dtype=np.int32)
        cover = tuple(r[4] for r in rows)
        parent = np.full(n, -1, dtype=np.int32)
        for i, (j, lv, _, _, cov) in enumerate(rows):
            name = attributes[j]
            h = table.schema[name].hierarchy
            if h is None:
                continue
            code = int(np.flatnonzero(cov)[0])
            for up in range(lv + 1, h.height):
                anc = int(codes_to_nodes(table, name, up)[code])
                item = int(item_of_node[(j, up)][anc])
                if item >= 0:
                    parent[i] = item
                    break
        return cls(
            attributes,
            attribute,
            level,
            node,
            tuple(r[3] for r in rows),
            parent,
            cover,
            item_of_node,
            tuple(levels_per_attribute),
        )

    def __len__(self) -> int:
        return len(self.labels)

    def condition(self, item: int) -> Condition:
        return Condition(
            self.attributes[int(self.attribute[item])], int(self.level[item]), self.labels[item]
        )

    def conditions(self, row: np.ndarray) -> tuple[Condition, ...]:
        """The conditions of one itemset row (item id per attribute, -1 for none)."""
        return tuple(self.condition(int(i)) for i in row if i >= 0)


@dataclass(frozen=True, eq=False)
class FrequentItemsets:
    """All itemsets with ``C_X >= min_count`` and at most ``max_conditions`` items.

    Attributes
    ----------
    catalog : ItemCatalog
    items : ndarray of shape (n_itemsets, n_qi), dtype=int32
        Item id per quasi-identifier column, -1 where the itemset has no item on it.
    count : ndarray of shape (n_itemsets,), dtype=int64
        ``C_X``.
    by_value : ndarray of shape (n_itemsets, n_sensitive_values)
        ``C_X[s]``: int64 counts, or float64 expected counts when mined with probabilities.
    min_count : int
    max_conditions : int
    """

    catalog: ItemCatalog
    items: np.ndarray = field(repr=False)
    count: np.ndarray = field(repr=False)
    by_value: np.ndarray = field(repr=False)
    min_count: int = 1
    max_conditions: int = 1

    def __len__(self) -> int:
        return int(self.items.shape[0])

    @property
    def size(self) -> np.ndarray:
        """Number of items of each itemset."""
        return (self.items >= 0).sum(axis=1)


def frequent_itemsets(
    table: Table,
    min_count: int,
    max_conditions: int,
    *,
    probabilities: np.ndarray | None = None,
    catalog: ItemCatalog | None = None,
) -> FrequentItemsets:
    """Every itemset of the table's quasi-identifier items with ``C_X >= min_count``.

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute.
    min_count : int
        Minimum support count (at least 1).
    max_conditions : int
        Largest itemset size (at least 1; capped at the number of quasi-identifiers).
    probabilities : ndarray of shape (n_rows, n_sensitive_values), optional
        Per record, the probability of each sensitive value; ``C_X[s]`` is then the expected
        count ``sum over records satisfying X of probabilities[r, s]``. Default: each record's
        own value with probability 1 (exact counts).
    catalog : ItemCatalog, optional
        Reuse a catalog built for this table.

    Returns
    -------
    FrequentItemsets
    """
    sens = table.require_sensitive()
    catalog = ItemCatalog.from_table(table) if catalog is None else catalog
    min_count = max(1, int(min_count))
    n_values = table.domain_size(sens)
    n_qi = len(catalog.attributes)
    max_k = min(int(max_conditions), n_qi)
    s_codes = table.codes[sens].astype(np.int64)
    if probabilities is not None:
        probabilities = np.asarray(probabilities, dtype=np.float64)
        if probabilities.shape != (table.n_rows, n_values):
            raise AnonlabError(
                f"probabilities must have shape (n_rows, n_sensitive_values) = "
                f"({table.n_rows}, {n_values}), got {probabilities.shape}"
            )
    row_node = {
        (j, lv): codes_to_nodes(table, name, lv)[table.codes[name]].astype(np.int64)
        for j, name in enumerate(catalog.attributes)
        for lv in catalog.levels[j]
    }
    n_nodes = {key: len(catalog.item_of_node[key]) for key in row_node}

    out_items: list[np.ndarray] = []
    out_count: list[np.ndarray] = []
    out_value: list[np.ndarray] = []
    # signature -> bool mask over records lying in one of its frequent cells
    frequent_rows: dict[tuple, np.ndarray] = {}
    current = [((j, lv),) for j in range(n_qi) for lv in catalog.levels[j]]
    all_rows = np.ones(table.n_rows, dtype=bool)
    for k in range(1, max_k + 1):
        next_frequent: dict[tuple, np.ndarray] = {}
        for sig in current:
            if k == 1:
                rows = all_rows
            else:
                rows = all_rows.copy()
                for drop in range(k):
                    sub = sig[:drop] + sig[drop + 1 :]
                    mask = frequent_rows.get(sub)
                    if mask is None:  # a sub-signature has no frequent cell
                        rows = None
                        break
                    rows &= mask
                if rows is None or not rows.any():
                    continue
            found = _count_signature(
                sig, rows, row_node, n_nodes, catalog, s_codes, n_values, probabilities, min_count
            )
            if found is None:
                continue
            items, count, by_value, row_mask = found
            out_items.append(itemset_rows(sig, items, n_qi))
            out_count.append(count)
            out_value.append(by_value)
            next_frequent[sig] = row_mask
        frequent_rows.update(next_frequent)
        if k == max_k or not next_frequent:
            break
        current = extend_signatures(next_frequent, catalog)
    dtype = np.float64 if probabilities is not None else np.int64
    return collect_itemsets(
        catalog, out_items, out_count, out_value, n_values, dtype, min_count, max_k
    )


def cell_items(sig: tuple, cells: np.ndarray, catalog: ItemCatalog) -> np.ndarray:
    """The items of each cell of signature ``sig``, shape ``(len(cells), len(sig))``.

    ``sig`` is a tuple of (quasi-identifier index, level) keys; a cell is the mixed-radix code
    of one node per key (radix: the key's node count, ``len(catalog.item_of_node[key])``), the
    last key varying fastest. A node that is not an item (it covers the whole domain) gives -1.
    """
    items = np.empty((len(cells), len(sig)), dtype=np.int64)
    rest = np.array(cells, dtype=np.int64)
    for c in range(len(sig) - 1, -1, -1):
        rest, node = np.divmod(rest, len(catalog.item_of_node[sig[c]]))
        items[:, c] = catalog.item_of_node[sig[c]][node]
    return items


def itemset_rows(sig: tuple, items: np.ndarray, n_qi: int) -> np.ndarray:
    """Itemsets of signature ``sig`` as rows of :attr:`FrequentItemsets.items`: the item of
    each key in its quasi-identifier's column, -1 in the others."""
    full = np.full((len(items), n_qi), -1, dtype=np.int32)
    for c, (j, _) in enumerate(sig):
        full[:, j] = items[:, c]
    return full


def extend_signatures(frequent: Sequence[tuple] | dict, catalog: ItemCatalog) -> list[tuple]:
    """Apriori's candidates of the next level: each signature in ``frequent`` extended by one
    (quasi-identifier, level) key on a later quasi-identifier (every level it has)."""
    n_qi = len(catalog.attributes)
    return [
        sig + ((j2, lv2),)
        for sig in frequent
        for j2 in range(sig[-1][0] + 1, n_qi)
        for lv2 in catalog.levels[j2]
    ]


def collect_itemsets(
    catalog: ItemCatalog,
    items: list[np.ndarray],
    count: list[np.ndarray],
    by_value: list[np.ndarray],
    n_values: int,
    dtype: type,
    min_count: int,
    max_conditions: int,
) -> FrequentItemsets:
    """The :class:`FrequentItemsets` of the per-signature blocks found level by level (rows as
    from :func:`itemset_rows`, their ``C_X`` and ``C_X[s]``); ``by_value`` cast to ``dtype``.
    No blocks: empty arrays of the right shapes."""
    n_qi = len(catalog.attributes)
    if items:
        all_items = np.concatenate(items)
        all_count = np.concatenate(count)
        all_by_value = np.concatenate(by_value).astype(dtype)
    else:
        all_items = np.empty((0, n_qi), dtype=np.int32)
        all_count = np.empty(0, dtype=np.int64)
        all_by_value = np.empty((0, n_values), dtype=dtype)
    return FrequentItemsets(catalog, all_items, all_count, all_by_value, min_count, max_conditions)


def _count_signature(sig, rows, row_node, n_nodes, catalog, s_codes, n_values, prob, min_count):
    """Count every cell of one signature over ``rows``; keep the frequent cells that are items."""
    radices = [n_nodes[key] for key in sig]
    n_cells = math.prod(radices)
    idx = None if rows.all() else np.flatnonzero(rows)
    cell = np.zeros(len(rows) if idx is None else len(idx), dtype=np.int64)
    for key, radix in zip(sig, radices, strict=True):
        col = row_node[key] if idx is None else row_node[key][idx]
        cell = cell * radix + col
    compressed = n_cells * n_values > _DIRECT_BINS
    if compressed:
        cells, cell = np.unique(cell, return_inverse=True)
        n_bins = len(cells)
    else:
        cells = None
        n_bins = n_cells
    count = np.bincount(cell, minlength=n_bins)
    keep = np.flatnonzero(count >= min_count)
    if len(keep) == 0:
        return None
    if prob is None:
        s = s_codes if idx is None else s_codes[idx]
        by_value = np.bincount(cell * n_values + s, minlength=n_bins * n_values).reshape(
            n_bins, n_values
        )
    else:
        p = prob if idx is None else prob[idx]
        flat = (cell[:, None] * n_values + np.arange(n_values)).ravel()
        by_value = np.bincount(flat, weights=p.ravel(), minlength=n_bins * n_values).reshape(
            n_bins, n_values
        )
    items = cell_items(sig, keep if cells is None else cells[keep], catalog)
    ok = (items >= 0).all(axis=1)
    keep, items = keep[ok], items[ok]
    if len(keep) == 0:
        return None
    is_frequent = np.zeros(n_bins, dtype=bool)
    is_frequent[keep] = True
    row_mask = np.zeros(len(rows), dtype=bool)
    if idx is None:
        row_mask = is_frequent[cell]
    else:
        row_mask[idx] = is_frequent[cell]
    return items.astype(np.int32), count[keep].astype(np.int64), by_value[keep], row_mask
