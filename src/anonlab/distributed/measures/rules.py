"""Rule mining by map-reduce: the frequent itemsets of negative and association rules.

Per level of Apriori, each block counts the cells of every candidate signature, with the
sensitive value, over its records that lie in a frequent cell of every sub-signature (the
frequent cells of the previous levels are broadcast); the driver keeps the frequent cells and
runs the negative-rule (Li et al.) or association-rule finishing of :mod:`anonlab.mining`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonlab.distributed.mapreduce import (
    Partition,
    map_reduce,
)
from anonlab.distributed.measures.keys import KEY_LIMIT, unique_counts
from anonlab.distributed.measures.partitions import Partitions, table_parts
from anonlab.errors import AnonlabError
from anonlab.table import Table


def _cell_keys(table: Table, sig: tuple, node_maps: dict, radices: dict) -> np.ndarray:
    """Mixed-radix cell of each record for a signature of (attribute index, level) pairs."""
    cell = np.zeros(table.n_rows, dtype=np.int64)
    names = table.quasi_identifiers
    for key in sig:
        cell = cell * radices[key] + node_maps[key][table.codes[names[key[0]]]]
    return cell


def _map_itemset_counts(part: Partition, shared: dict) -> dict:
    """One Apriori level of :func:`anonlab.mining.itemsets.frequent_itemsets` on one block:
    for each candidate signature, ``cell * n_values + s`` counts over the block's records that
    lie in a frequent cell of every sub-signature."""
    table = part.table
    sens = table.require_sensitive()
    s = table.codes[sens].astype(np.int64)
    node_maps, radices, n_values = shared["node_maps"], shared["radices"], shared["n_values"]
    frequent = shared["frequent"]
    cells: dict[tuple, np.ndarray] = {}

    def cell_of(sig: tuple) -> np.ndarray:
        if sig not in cells:
            cells[sig] = _cell_keys(table, sig, node_maps, radices)
        return cells[sig]

    out = {}
    for i, sig in enumerate(shared["candidates"]):
        rows = np.ones(table.n_rows, dtype=bool)
        if len(sig) > 1:
            for drop in range(len(sig)):
                sub = sig[:drop] + sig[drop + 1 :]
                rows &= np.isin(cell_of(sub), frequent[sub])
        out[f"sig{i}"] = unique_counts(cell_of(sig)[rows] * n_values + s[rows])
    return out


def frequent_itemsets_distributed(
    table: Table,
    min_count: int,
    max_conditions: int,
    *,
    catalog: Any = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """:func:`anonlab.mining.itemsets.frequent_itemsets` (exact counts) by map-reduce: one map
    per Apriori level; the frequent item cells of the previous levels are broadcast so each
    block counts only its records that can lie in a frequent itemset (the same prune)."""
    from anonlab.mining.itemsets import (
        ItemCatalog,
        cell_items,
        codes_to_nodes,
        collect_itemsets,
        extend_signatures,
        itemset_rows,
    )

    sens = table.require_sensitive()
    parts = table_parts(table, client, partitions, n_partitions)
    catalog = ItemCatalog.from_table(table) if catalog is None else catalog
    min_count = max(1, int(min_count))
    n_values = table.domain_size(sens)
    n_qi = len(catalog.attributes)
    max_k = min(int(max_conditions), n_qi)
    node_maps = {
        (j, lv): codes_to_nodes(table, name, lv).astype(np.int64)
        for j, name in enumerate(catalog.attributes)
        for lv in catalog.levels[j]
    }
    radices = {key: len(catalog.item_of_node[key]) for key in node_maps}
    out_items, out_count, out_value = [], [], []
    frequent: dict[tuple, np.ndarray] = {}
    current = [((j, lv),) for j in range(n_qi) for lv in catalog.levels[j]]
    for k in range(1, max_k + 1):
        if k > 1:  # a candidate needs a frequent cell in every sub-signature
            current = [
                sig for sig in current if all(sig[:d] + sig[d + 1 :] in frequent for d in range(k))
            ]
        for sig in current:
            if math.prod(radices[key] for key in sig) * n_values >= KEY_LIMIT:
                raise AnonlabError(
                    f"itemset signature {sig} has too many cells for a 62-bit key; lower "
                    "'max_conditions'"
                )
        if not current:
            break
        shared = {
            "node_maps": node_maps,
            "radices": radices,
            "n_values": n_values,
            "frequent": frequent,
            "candidates": current,
        }
        how = {f"sig{i}": "merge" for i in range(len(current))}
        counted = map_reduce(_map_itemset_counts, parts, shared, how, client)
        next_frequent: dict[tuple, np.ndarray] = {}
        for i, sig in enumerate(current):
            keys, counts = counted[f"sig{i}"]
            cell, value = np.divmod(keys, n_values)
            cells, inverse = np.unique(cell, return_inverse=True)
            inverse = inverse.reshape(-1)
            by_value = np.zeros((len(cells), n_values), dtype=np.int64)
            by_value[inverse, value] = counts
            count = by_value.sum(axis=1)
            keep = np.flatnonzero(count >= min_count)
            if len(keep) == 0:
                continue
            items = cell_items(sig, cells[keep], catalog)
            ok = (items >= 0).all(axis=1)
            keep, items = keep[ok], items[ok]
            if len(keep) == 0:
                continue
            out_items.append(itemset_rows(sig, items, n_qi))
            out_count.append(count[keep].astype(np.int64))
            out_value.append(by_value[keep])
            next_frequent[sig] = cells[keep]
        frequent.update(next_frequent)
        if k == max_k or not next_frequent:
            break
        current = extend_signatures(next_frequent, catalog)
    return collect_itemsets(
        catalog, out_items, out_count, out_value, n_values, np.int64, min_count, max_k
    )


def mine_rules_distributed(
    table: Table,
    kind: str = "negative",
    *,
    min_expectation: float = 0.9,
    min_support: float = 0.01,
    min_conviction: float = 1.2,
    max_conditions: int | None = None,
    prune_redundant: bool = True,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> Any:
    """Negative rules (:func:`anonlab.mining.mine_negative_rules`, ``kind="negative"``,
    default ``max_conditions=1``) or association rules
    (:func:`anonlab.mining.mine_association_rules`, ``kind="association"``, default
    ``max_conditions=3``): the single machine's miner with the itemset counts map-reduced
    (its ``itemsets`` hook). Returns the same rule set.
    """
    from anonlab._validation import check_choice
    from anonlab.mining import mine_association_rules, mine_negative_rules

    kind = check_choice("kind", kind, ("negative", "association"))
    if table.sensitive is None:
        raise AnonlabError(
            "the table has no sensitive attribute; name one (--sensitive COL) to mine rules"
        )
    parts = table_parts(table, client, partitions, n_partitions)

    def count(min_count: int, max_cond: int) -> Any:
        return frequent_itemsets_distributed(table, min_count, max_cond, partitions=parts)

    # the single machine's miners, with only the itemset counting map-reduced
    if kind == "negative":
        return mine_negative_rules(
            table,
            min_expectation,
            1 if max_conditions is None else max_conditions,
            prune_redundant=prune_redundant,
            itemsets=count,
        )
    return mine_association_rules(
        table,
        min_support,
        min_conviction,
        3 if max_conditions is None else max_conditions,
        itemsets=count,
    )
