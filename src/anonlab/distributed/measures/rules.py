"""Rule mining by map-reduce: the frequent itemsets of negative and association rules.

The blocks are first compacted on the workers to their distinct quasi-identifier rows with
per-row sensitive counts and merged there into the table's distinct rows (:mod:`.compact`; an
itemset tests a record only through its quasi-identifier values), which stay on a worker. Per
level of Apriori, the level's candidate signatures are cut into one run per worker; a task
counts the cells of each of its candidates, with the sensitive value, over the distinct rows
that lie in a frequent cell of every sub-signature (the frequent cells of the previous levels
travel with the task), each row weighted by its count (integers: exact). The driver receives
one ``(candidate, cell * n_values + s)`` count table per task, keeps the frequent cells and runs
the negative-rule (Li et al.) or association-rule finishing of :mod:`anonlab.mining`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonlab.distributed.mapreduce import (
    Remote,
    derive_partitions,
    map_remote,
    reduce_partitions,
    worker_count,
)
from anonlab.distributed.measures.compact import CompactBlock, compact_block, merge_compact
from anonlab.distributed.measures.keys import DENSE_KEYS, DENSE_RATIO, KEY_LIMIT
from anonlab.distributed.measures.partitions import Partitions, table_parts
from anonlab.errors import AnonlabError
from anonlab.table import Table


def keyed_sums(keys: np.ndarray, weights: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (ascending, in ``0 .. space - 1``) and the sum of the integer
    ``weights`` of each (int64, exact below 2^53), in the form ``"merge"`` adds up: one
    ``bincount`` when the key space is small, else a sort."""
    if len(keys) and space <= min(DENSE_KEYS, DENSE_RATIO * len(keys)):
        sums = np.bincount(keys, weights=weights, minlength=int(space))
        unique = np.flatnonzero(sums)
        return unique.astype(np.int64), np.rint(sums[unique]).astype(np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    sums = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(unique))
    return unique.astype(np.int64), np.rint(sums).astype(np.int64)


def _count_itemsets(block: CompactBlock, shared: dict) -> tuple[np.ndarray, np.ndarray]:
    """One Apriori level of :func:`anonlab.mining.itemsets.frequent_itemsets` for some of its
    candidates, on the distinct rows: for each candidate signature ``i``,
    ``cell * n_values + s`` counts over the records that lie in a frequent cell of every
    sub-signature (each distinct row with its counts). One table for all the candidates:
    keys ``(i, cell * n_values + s)`` ascending, counts."""
    table = block.table
    row, s, weight = block.weighted_values()
    node_maps, radices, n_values = shared["node_maps"], shared["radices"], shared["n_values"]
    frequent = shared["frequent"]
    names = table.quasi_identifiers
    cells: dict[tuple, np.ndarray] = {(): np.zeros(table.n_rows, dtype=np.int64)}
    in_frequent: dict[tuple, np.ndarray] = {}

    def cell_of(sig: tuple) -> np.ndarray:  # per distinct row; from the prefix's cells
        if sig not in cells:
            last = sig[-1]
            node = node_maps[last][table.codes[names[last[0]]]]
            cells[sig] = cell_of(sig[:-1]) * radices[last] + node
        return cells[sig]

    def frequent_rows(sig: tuple) -> np.ndarray:  # rows in a frequent cell of ``sig``
        if sig not in in_frequent:
            in_frequent[sig] = np.isin(cell_of(sig), frequent[sig])
        return in_frequent[sig]

    keys, counts = [], []
    for i, sig in enumerate(shared["candidates"]):
        rows = np.ones(table.n_rows, dtype=bool)
        if len(sig) > 1:
            for drop in range(len(sig)):
                rows &= frequent_rows(sig[:drop] + sig[drop + 1 :])
        keep = rows[row]
        space = math.prod(radices[key] for key in sig) * n_values
        key, count = keyed_sums(cell_of(sig)[row[keep]] * n_values + s[keep], weight[keep], space)
        keys.append(np.stack([np.full(len(key), i, dtype=np.int64), key], axis=1))
        counts.append(count)
    if not keys:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(keys), np.concatenate(counts)


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
    """:func:`anonlab.mining.itemsets.frequent_itemsets` (exact counts) by map-reduce: the
    table's distinct quasi-identifier rows compacted and merged on the workers
    (:mod:`.compact`), then, per Apriori level, the candidates counted on them by one task per
    worker; the frequent item cells of the previous levels travel with the tasks so that only
    the rows that can lie in a frequent itemset are counted (the same prune)."""
    parts = table_parts(table, client, partitions, n_partitions)
    return _frequent_itemsets(table, _compact(table, parts), min_count, max_conditions, catalog)


def _compact(table: Table, parts: Partitions) -> Remote:
    """The table's distinct quasi-identifier rows with their counts, left on a worker."""
    n_values = table.domain_size(table.require_sensitive())
    return reduce_partitions(
        merge_compact, derive_partitions(compact_block, parts, (n_values, None))
    )


def _count_level(compact: Remote, shared: dict, candidates: list) -> tuple[np.ndarray, np.ndarray]:
    """The counts of one Apriori level's candidates (:func:`_count_itemsets`), the candidates
    cut into one consecutive run per worker; keys ``(candidate index, cell * n_values + s)``."""
    n_tasks = max(1, min(worker_count(compact.client), len(candidates)))
    cuts = np.linspace(0, len(candidates), n_tasks + 1).round().astype(np.int64)
    items = [
        dict(shared, candidates=candidates[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    outputs = map_remote(_count_itemsets, compact, items)
    keys = np.concatenate(
        [k + np.array([[a, 0]]) for (k, _), a in zip(outputs, cuts[:-1], strict=True)]
    )
    return keys, np.concatenate([c for _, c in outputs])


def _frequent_itemsets(table: Table, compact: Remote, min_count: int, max_conditions: int, catalog):
    from anonlab.mining.itemsets import (
        ItemCatalog,
        cell_items,
        codes_to_nodes,
        collect_itemsets,
        extend_signatures,
        itemset_rows,
    )

    sens = table.require_sensitive()
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
        }
        index_keys, index_counts = _count_level(compact, shared, current)
        bounds = np.searchsorted(index_keys[:, 0], np.arange(len(current) + 1))
        next_frequent: dict[tuple, np.ndarray] = {}
        for i, sig in enumerate(current):
            keys = index_keys[bounds[i] : bounds[i + 1], 1]
            counts = index_counts[bounds[i] : bounds[i + 1]]
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


def _value_count(compact: Any, _: Any) -> np.ndarray:
    """The records' count of each sensitive value: the merged rows' counts, summed."""
    return compact.counts.sum(axis=0)


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
    (its ``itemsets`` hook; the blocks are compacted once for every count it asks for).
    Returns the same rule set.
    """
    from anonlab._validation import check_choice
    from anonlab.mining import mine_association_rules, mine_negative_rules

    kind = check_choice("kind", kind, ("negative", "association"))
    if table.sensitive is None:
        raise AnonlabError(
            "the table has no sensitive attribute; name one (--sensitive COL) to mine rules"
        )
    compact = _compact(table, table_parts(table, client, partitions, n_partitions))

    def count(min_count: int, max_cond: int) -> Any:
        return _frequent_itemsets(table, compact, min_count, max_cond, None)

    # the sensitive values' counts from the merged rows, where they are (not the driver's table)
    value_count = map_remote(_value_count, compact, [None])[0]

    # the single machine's miners, with only the itemset counting map-reduced
    if kind == "negative":
        return mine_negative_rules(
            table,
            min_expectation,
            1 if max_conditions is None else max_conditions,
            prune_redundant=prune_redundant,
            itemsets=count,
            value_count=value_count,
        )
    return mine_association_rules(
        table,
        min_support,
        min_conviction,
        3 if max_conditions is None else max_conditions,
        itemsets=count,
        value_count=value_count,
    )
