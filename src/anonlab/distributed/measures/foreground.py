"""The foreground-knowledge attack (Wong et al., TKDD 2011) by map-reduce.

The counts of (group, signature) pairs of each attribute set, and, level by level, the signature
counts over the records whose every sub-signature is sufficient (Algorithm 1's Apriori step).
The fixed point of Eqs. (4)-(6) depends on the data only through these counts: the driver solves
it with the single-machine solver (:mod:`anonlab.attacks.foreground`) on one representative
record per counted member (same group sizes, same signatures per group, same order inside each
group, hence the same floating-point operations) and a second map spreads the solved
probabilities back to the records (``p*``, the maximising set and target, the baseline), each
block receiving those of its own (group, signature) pairs only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab._validation import check_int
from anonlab.distributed.mapreduce import (
    Partition,
    PerBlock,
    map_blocks,
    map_reduce,
    merge_keyed_counts,
)
from anonlab.distributed.measures.checks import (
    group_statistics_distributed,
    release_with_statistics,
)
from anonlab.distributed.measures.keys import decode_keys, key_space, radix_keys, unique_counts
from anonlab.distributed.measures.partitions import Partitions, release_parts
from anonlab.release import Release


def _map_attribute_set_counts(part: Partition, shared: dict) -> dict:
    """Apriori step of Algorithm 1 on one block: for each candidate set, the counts of its
    signatures over the block's records whose every sub-signature is sufficient."""
    table = part.table
    n_total, sufficient, candidates = shared["n"], shared["sufficient"], shared["candidates"]
    memo: dict[tuple[str, ...], np.ndarray] = {}

    def ok(attrs: tuple[str, ...]) -> np.ndarray:
        if attrs not in memo:
            if not attrs:
                memo[attrs] = np.full(table.n_rows, n_total >= shared["J"])
            else:
                keys = radix_keys(table, attrs)
                memo[attrs] = eligible(attrs) & np.isin(keys, sufficient[attrs])
        return memo[attrs]

    def eligible(attrs: tuple[str, ...]) -> np.ndarray:
        mask = np.ones(table.n_rows, dtype=bool)
        for d in attrs:
            mask &= ok(tuple(x for x in attrs if x != d))
        return mask

    out = {}
    for i, c in enumerate(candidates):
        rows = eligible(c)
        out[f"set{i}"] = unique_counts(radix_keys(table, c)[rows])
    return out


def frequent_attribute_sets_distributed(
    release: Release,
    min_support: int,
    *,
    attributes: Sequence[str] | None = None,
    max_attributes: int | None = None,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
) -> list[tuple[str, ...]]:
    """:func:`anonlab.attacks.foreground.frequent_attribute_sets` by map-reduce: one map per
    level, counting signatures keyed by their mixed-radix code (exact integer sums)."""
    from anonlab.attacks.foreground.inputs import require_groups, search_attributes

    require_groups(release)
    parts = release_parts(release, client, partitions, n_partitions)
    attrs, top = search_attributes(release, attributes, max_attributes)
    J = check_int("min_support", min_support, minimum=1)
    return _frequent_sets(release, parts, client, J, attrs, top)[0]


def _frequent_sets(release, parts, client, J, attrs, top):
    from anonlab.attacks.foreground.algorithm import apriori_candidates

    table = release.table
    sufficient: dict[tuple[str, ...], np.ndarray] = {}
    out: list[tuple[str, ...]] = []
    level: list[tuple[str, ...]] = [()]
    for size in range(1, min(top, len(attrs)) + 1):
        cands = apriori_candidates(attrs, size, level)
        for c in cands:
            key_space(table, c, what=" (foreground attack)")
        level = []
        if not cands:
            break
        shared = {"n": table.n_rows, "J": J, "sufficient": sufficient, "candidates": cands}
        how = {f"set{i}": "merge" for i in range(len(cands))}
        counted = map_reduce(_map_attribute_set_counts, parts, shared, how, client)
        for i, c in enumerate(cands):
            keys, counts = counted[f"set{i}"]
            enough = keys[counts >= J]
            if len(enough):
                sufficient[c] = enough
                level.append(c)
                out.append(c)
        if not level:
            break
    return out, sufficient


def _map_signature_pairs(part: Partition, shared: list[tuple[tuple[str, ...], int]]) -> dict:
    """For each attribute set: the block's (group, signature) pairs, keyed
    ``group * key_space + signature key``, with their counts."""
    group = part.group.astype(np.int64)
    return {
        f"set{i}": unique_counts(group * space + radix_keys(part.table, attrs))
        for i, (attrs, space) in enumerate(shared)
    }


def _map_foreground_records(part: Partition, shared: dict) -> dict:
    """Spread the solved per-(group, signature) probabilities to the block's records."""
    group = part.group.astype(np.int64)
    n = part.n_rows
    p_star = np.full(n, -np.inf)
    best_a = np.full(n, -1, dtype=np.int64)
    best_x = np.full(n, -1, dtype=np.int64)
    baseline = np.zeros(n)
    for rate in shared["rates"]:
        baseline = np.maximum(baseline, rate[group])
    out: dict[str, np.ndarray] = {}
    for ai, (attrs, space) in enumerate(shared["sets"]):
        sig_key = radix_keys(part.table, attrs)
        out[f"sig{ai}"] = np.searchsorted(shared["signature_keys"][ai], sig_key)
        if all(p_pair is None for p_pair in shared["p_pair"][ai]):
            continue
        # this block's pairs only (sorted): each record's pair among them
        pair = np.searchsorted(shared["pair_keys"][ai], group * space + sig_key)
        for xi, p_pair in enumerate(shared["p_pair"][ai]):
            p = p_pair[pair]
            better = p > p_star
            p_star[better] = p[better]
            best_a[better] = ai
            best_x[better] = xi
    out.update(p_star=p_star, best_a=best_a, best_x=best_x, baseline=baseline)
    return out


@dataclass(frozen=True, eq=False)
class _PairTable:
    """The reduced (group, signature) counts of one attribute set, and the representative
    records the solver runs on (one per counted member, by group then signature).
    ``block_pairs[i]``: the sorted pair keys block ``i`` holds (where its records' ``p`` is
    sent back)."""

    attributes: tuple[str, ...]
    space: int
    pair_keys: np.ndarray
    signature_keys: np.ndarray
    codes: np.ndarray
    record_group: np.ndarray
    record_signature: np.ndarray
    pair_start: np.ndarray
    block_pairs: tuple[np.ndarray, ...]

    def signatures(self) -> Any:
        """The representative records' signatures, for the single-machine solver."""
        from anonlab.attacks.foreground.signatures import Signatures

        return Signatures.per_record(self.codes, self.record_signature)


def _pair_tables(release, parts, client, sets) -> list[_PairTable]:
    table = release.table
    spaces = [key_space(table, a, release.n_groups, " (foreground attack)") for a in sets]
    shared = list(zip(sets, spaces, strict=True))
    blocks = map_blocks(_map_signature_pairs, parts, shared, client)
    out = []
    for i, (attrs, space) in enumerate(shared):
        keys, counts = merge_keyed_counts([b[f"set{i}"] for b in blocks])
        pair_group, pair_sig = np.divmod(keys, space)
        signature_keys, pair_index = np.unique(pair_sig, return_inverse=True)
        codes = decode_keys(signature_keys, [table.domain_size(a) for a in attrs])
        out.append(
            _PairTable(
                attributes=tuple(attrs),
                space=space,
                pair_keys=keys,
                signature_keys=signature_keys,
                codes=codes,
                record_group=np.repeat(pair_group, counts),
                record_signature=np.repeat(pair_index.reshape(-1), counts),
                pair_start=np.cumsum(counts) - counts,
                block_pairs=tuple(b[f"set{i}"][0] for b in blocks),
            )
        )
    return out


def _with_record_signature(dist: Any, record_signature: np.ndarray) -> Any:
    """``dist`` with each record's signature given directly (every record its own row)."""
    m = len(dist.probability)
    rows = np.arange(m, dtype=dist.row_signature.dtype)
    return dataclasses.replace(dist, row_signature=rows, record_row=record_signature)


def _spread(parts, client, tables, p_pair, rates, how) -> dict:
    """Send each block the probabilities of its own pairs and map them to its records."""
    items = []
    for b in range(len(parts)):
        mine = [t.block_pairs[b] for t in tables]
        where = [np.searchsorted(t.pair_keys, k) for t, k in zip(tables, mine, strict=True)]
        items.append(
            {
                "sets": [(t.attributes, t.space) for t in tables],
                "pair_keys": mine,
                "signature_keys": [t.signature_keys for t in tables],
                "p_pair": [
                    [None if p is None else p[w] for p in per_target]
                    for per_target, w in zip(p_pair, where, strict=True)
                ],
                "rates": rates,
            }
        )
    return map_reduce(_map_foreground_records, parts, PerBlock(tuple(items)), how, client)


def mine_global_distribution_distributed(
    release: Release,
    attributes: Sequence[str] | str,
    sensitive_values: Any,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **options: Any,
) -> tuple[Any, Any]:
    """:func:`anonlab.attacks.foreground.mine_global_distribution` from map-reduced counts.

    ``options`` are the single machine's (``epsilon``, ``sigma``, ``min_support``,
    ``small_signature``, ``tol``, ``max_iter``, ``newton``, ``accelerate``), with its defaults.
    The map counts each (group, signature) pair of the attribute set and each group's count of
    the target (the published histogram); the driver solves Eqs. (4)-(6) with the single-machine
    solver on one representative record per counted member; a second map gives each record its
    signature index. The result (``probability``, ``support``, ``sufficient``, ``signatures``,
    ``record_signature``, the convergence report) equals the single machine's.
    """
    from anonlab.attacks.foreground.global_distribution import (
        mine_from_layout,
        mine_global_distribution,
        one_target,
    )
    from anonlab.attacks.foreground.inputs import count_target, keyword_options, mining_options
    from anonlab.attacks.foreground.kernel import GroupLayout

    attrs, target = one_target(release, attributes, sensitive_values)
    mining = mining_options(**keyword_options(mine_global_distribution, options))
    parts = release_parts(release, client, partitions, n_partitions)
    proxy = release_with_statistics(
        release, group_statistics_distributed(release, partitions=parts)
    )
    n_x, base = count_target(proxy, target[1])
    pairs = _pair_tables(release, parts, client, [attrs])[0]
    layout = GroupLayout(pairs.record_group, release.n_groups, n_x)
    dist, report, _ = mine_from_layout(
        proxy, attrs, target, layout, pairs.signatures(), mining, base
    )
    spread = _spread(parts, client, [pairs], [[None]], [], {"sig0": "concat"})
    return _with_record_signature(dist, spread["sig0"]), report


def foreground_attack_distributed(
    release: Release,
    sensitive_values: Any = None,
    *,
    client: Any = None,
    partitions: Partitions | None = None,
    n_partitions: int | None = None,
    **options: Any,
) -> Any:
    """:func:`anonlab.attacks.foreground.foreground_attack` (Algorithm 1) by map-reduce.

    ``options`` are the single machine's (``epsilon``, ``sigma``, ``min_support``,
    ``max_attributes``, ``attributes``, ``small_signature``, ``include_empty``, ``tol``,
    ``max_iter``, ``newton``, ``accelerate``), with its defaults. Maps: the group statistics;
    one per Apriori level (signature counts over the eligible records); one for the (group,
    signature) pair counts of every attribute set found; one to spread the solved probabilities
    to the records (``p*``, the maximising set and target in the single machine's enumeration
    order, the baseline, each set's record signatures). The mining runs on the driver with the
    single-machine solver. The :class:`~anonlab.attacks.foreground.ForegroundResult` equals
    the single machine's.
    """
    from anonlab.attacks.foreground.algorithm import foreground_attack, foreground_result
    from anonlab.attacks.foreground.global_distribution import mine_from_layout
    from anonlab.attacks.foreground.inputs import (
        keyword_options,
        mining_options,
        require_groups,
        resolve_targets,
        search_attributes,
        target_counts,
    )
    from anonlab.attacks.foreground.kernel import GroupLayout

    o = keyword_options(foreground_attack, options)
    search = {name: o.pop(name) for name in ("attributes", "max_attributes", "include_empty")}
    o.pop("threads")  # the driver mines the sets one after another (below)
    require_groups(release)
    mining = mining_options(**o)
    targets = resolve_targets(release, sensitive_values)
    parts = release_parts(release, client, partitions, n_partitions)
    proxy = release_with_statistics(
        release, group_statistics_distributed(release, partitions=parts)
    )
    attrs, top = search_attributes(release, search["attributes"], search["max_attributes"])
    sets, _ = _frequent_sets(release, parts, client, mining.J, attrs, top)
    if search["include_empty"]:
        sets = [(), *sets]
    prepared = target_counts(proxy, targets)
    rates = [rate for _, _, rate, _ in prepared]
    tables = _pair_tables(release, parts, client, sets) if sets else []
    dists, reports, p_pair = [], [], []
    for pairs in tables:
        per_target = []
        for target, n_x, _, base in prepared:
            layout = GroupLayout(pairs.record_group, release.n_groups, n_x)
            dist, rep, posterior = mine_from_layout(
                proxy, pairs.attributes, target, layout, pairs.signatures(), mining, base
            )
            dists.append(dist)
            reports.append(rep)
            per_target.append(posterior.full()[pairs.pair_start])
        p_pair.append(per_target)
    how = {k: "concat" for k in ("p_star", "best_a", "best_x", "baseline")}
    how.update({f"sig{ai}": "concat" for ai in range(len(tables))})
    spread = _spread(parts, client, tables, p_pair, rates, how)
    n_targets = len(targets)
    dists = [_with_record_signature(d, spread[f"sig{i // n_targets}"]) for i, d in enumerate(dists)]
    return foreground_result(
        spread["p_star"], spread["baseline"], spread["best_a"], spread["best_x"], sets,
        targets, dists, reports, mining,
    )  # fmt: skip
