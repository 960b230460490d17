"""Mondrian's driver cuts from map-reduced histograms: the records stay on the workers (issue 21).

This is item 2 of the plan in docs/distributed.md ("Plan: 10⁹ records on 100 nodes", "Driver
cuts from histograms"): instead of holding the coded table, as
:func:`anonlab.distributed.partitioning.mondrian_cuts` does, the driver grows the cut tree one
level at a time from histograms that the workers compute over their own records:

* **map** (:func:`level_histograms`, on a worker, for its block of records): for every partition
  still being cut ("open") and every quasi-identifier ``a``, the joint histogram of
  ``(code_a, sensitive code)``;
* **reduce**: the sum of the blocks' arrays (a tree reduce on a cluster);
* **decide** (:func:`decide_cuts`, on the driver): for every open partition, the cut
  :func:`~anonlab.distributed.partitioning.mondrian_cuts` makes there, or that it is a leaf;
* **apply** (:func:`apply_cuts`, on a worker): each record's new partition from a small table
  the driver broadcasts (per partition: attribute, threshold code, left and right ids).

:func:`grow_cut_tree` is that loop, given the map-reduce and the apply as two functions;
:func:`histogram_mondrian_cuts` runs it over in-memory blocks (the map is a loop over blocks,
the reduce a sum) and returns the same :class:`Partitioning` as ``mondrian_cuts``;
:func:`anonlab.distributed.worker_cuts.mondrian_cuts_on_workers` runs it on a Dask cluster over
Parquet row groups that the workers read and keep.

Why the result is identical. ``mondrian_cuts`` decides a partition's cut from that partition's
records only (its size, sensitive histogram, per-attribute code ranges, medians, and the halves'
sizes and sensitive histograms); every one of these is a function of the joint histograms, so
:func:`decide_cuts` reproduces the decision exactly. The order in which partitions are visited
(depth-first there, level by level here) therefore does not change the tree; numbering the
leaves left to right at the end gives ``mondrian_cuts``' numbering (its stack pops the left
child first, so its leaves come out left to right). Tested on random tables split into random
blocks and on census-kdd-workers.

Choices:

* **One map-reduce round per level, not two.** The plan sends the per-attribute marginals and
  the sensitive histogram in round 1 (ranges, spans, medians, ``S_max``) and, in round 2, the
  left half's size and sensitive histogram for each candidate (attribute, median). The joint
  histogram of ``(code_a, sensitive)`` contains all of that at once: its code marginal gives
  ``lo``/``hi`` and the lower median, summing it over codes gives the partition's sensitive
  histogram, and its cumulative sum over codes up to the median gives the left half's size and
  sensitive histogram for *every* attribute (the driver needs them for the attributes tried in
  order until one is allowable). The price is size: ``Σ_a domain_a × n_values`` integers per
  open partition instead of the plan's ``Σ_a domain_a + n_values`` then
  ``d × (1 + n_values)``. For census-kdd-workers (7 QIs, domains 75+2+5+7+16+7+43 = 155,
  46 sensitive values) that is 7,130 integers per partition, 1,024 × 7,130 = 7.3M integers =
  58 MB as int64 per worker message at 1,024 open partitions (the plan's two rounds: 1,024 ×
  (155 + 46) then 1,024 × 7 × 47 integers, ≈ 4.3 MB in all). One round halves the scheduling
  latencies (the plan's ≈1-2 s per level is mostly those) but multiplies the bytes moved by
  ≈13 when sent dense. So :mod:`anonlab.distributed.worker_cuts` sends the joint histogram as
  its non-zero cells (:class:`~anonlab.distributed.worker_cuts.SparseHistogram`): 1.6 % of
  them are non-zero at 1,024 partitions of ~3,000 records, 1.82 MB per block instead of 58 MB,
  less than the two rounds' 4.3 MB (benchmarks/bench_histogram_cuts.py; more cells are
  non-zero with larger partitions, at the top levels, where the histograms are small). The
  decision function is the same either way; only what is shipped differs.
* **Only partitions larger than ``max_partition_rows`` are opened.** A cut gives the sizes of
  both halves, so a half that is small enough is a leaf without another round; the root's size
  is the sum of the blocks' sizes.
* **The lower median is computed vectorised** over all open partitions at once (the first code
  whose cumulative count reaches half, moved one code down when the left half would hold
  everything) — the rule of ``anonlab.anonymize.mondrian``'s compiled ``_lower_median``, which
  is private to that module and works on one histogram at a time; the tests check the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from anonlab.distributed.partitioning import Partitioning

#: :attr:`LevelDecision.action` values.
LEAF, OVERSIZED, CUT = 0, 1, 2


@dataclass(frozen=True)
class LevelDecision:
    """The driver's decision for each open partition of one level (arrays of length n_open).

    Attributes
    ----------
    action : ndarray of int8
        :data:`LEAF` (at most ``max_partition_rows`` records), :data:`OVERSIZED` (larger, but no
        allowable cut) or :data:`CUT`.
    size : ndarray of int64
        The partition's number of records.
    attribute, threshold : ndarray of int64
        For a cut: the quasi-identifier (column) and the largest code of the left half (left is
        ``code <= threshold``); -1 otherwise.
    n_left : ndarray of int64
        For a cut: records in the left half; 0 otherwise.
    refused : ndarray of int64
        For a cut: median cuts with two non-empty halves tried before it and found not
        allowable (``mondrian_cuts``' ``refused_splits``); 0 otherwise (``mondrian_cuts`` does
        not count the trials of a partition it does not cut).
    """

    action: np.ndarray
    size: np.ndarray
    attribute: np.ndarray
    threshold: np.ndarray
    n_left: np.ndarray
    refused: np.ndarray


def histogram_width(domains: Iterable[int], n_values: int) -> int:
    """Integers per open partition in :func:`level_histograms`' output: ``Σ domains × n_values``."""
    return int(sum(int(x) for x in domains)) * int(n_values)


def level_histograms(
    qi: np.ndarray,
    sensitive: np.ndarray,
    part: np.ndarray,
    open_row: np.ndarray,
    domains: Iterable[int],
    n_values: int,
) -> np.ndarray:
    """The map step for one block of records: joint (QI code, sensitive code) histograms.

    Parameters
    ----------
    qi : ndarray of shape (m, d)
        The block's quasi-identifier codes (``0 .. domains[a]-1``).
    sensitive : ndarray of shape (m,)
        The block's sensitive codes (``0 .. n_values-1``).
    part : ndarray of shape (m,)
        The current partition id of each record.
    open_row : ndarray
        Partition id → its row among the open partitions (``0 .. n_open-1``), -1 when the
        partition is not being cut; ``n_open = open_row.max() + 1``.
    domains : sequence of int
        The domain size of each quasi-identifier.
    n_values : int
        The sensitive domain's size.

    Returns
    -------
    ndarray of shape (n_open, Σ domains × n_values), dtype int64
        Row ``r``, block of attribute ``a`` (columns ``off_a·n_values .. (off_a +
        domains[a])·n_values``, ``off_a = Σ_{b<a} domains[b]``), reshaped to
        ``(domains[a], n_values)``: the number of the block's records of open partition ``r``
        with code ``c`` on ``a`` and sensitive code ``v``. One ``bincount`` per attribute on
        the key ``(row·domain_a + code)·n_values + v``; records of closed partitions are dropped.
    """
    domains = [int(x) for x in domains]
    open_row = np.asarray(open_row, dtype=np.int64)
    n_open = int(open_row.max()) + 1 if open_row.size else 0
    out = np.zeros((n_open, sum(domains) * n_values), dtype=np.int64)
    if n_open == 0 or len(part) == 0:
        return out
    row = open_row[np.asarray(part, dtype=np.int64)]
    keep = row >= 0
    qi = np.asarray(qi)[keep]
    sens = np.asarray(sensitive, dtype=np.int64)[keep]
    row = row[keep]
    off = 0
    for a, dom in enumerate(domains):  # a loop over attributes, not records
        key = (row * dom + qi[:, a].astype(np.int64)) * n_values + sens
        counts = np.bincount(key, minlength=n_open * dom * n_values)
        out[:, off * n_values : (off + dom) * n_values] = counts.reshape(n_open, dom * n_values)
        off += dom
    return out


def lower_median(marginal: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The strict lower-median cut of each row of ``marginal`` (partitions × codes, ``size``
    records each, ``size > 0``): (threshold code, records left of it), left being ``code <=
    threshold``. The first code whose cumulative count reaches half the records; when that
    leaves every record on the left (more than half share the largest value) the cut moves one
    code below it, so the left half may be empty or everything (no cut). Codes below the
    partition's smallest have count 0, so this is the rule of the single-machine Mondrian on
    the range ``lo..hi`` with the threshold expressed as a code (``lo + split``)."""
    cum = np.cumsum(marginal, axis=1)
    size = np.asarray(size, dtype=np.int64)
    v = np.argmax(2 * cum >= size[:, None], axis=1)
    rows = np.arange(marginal.shape[0])
    n_left = cum[rows, v]
    full = n_left == size
    n_left = np.where(full, n_left - marginal[rows, v], n_left)
    return np.where(full, v - 1, v).astype(np.int64), n_left.astype(np.int64)


def decide_cuts(
    hist: np.ndarray,
    domains: Iterable[int],
    constrained: np.ndarray,
    width: np.ndarray,
    *,
    k: int,
    l: int,
    look_ahead: bool,
    max_partition_rows: int,
) -> LevelDecision:
    """The driver's decision for every open partition from the reduced histograms.

    Exactly what :func:`~anonlab.distributed.partitioning.mondrian_cuts` decides for a partition
    with these records: a leaf if it has at most ``max_partition_rows`` records; otherwise the
    attributes in decreasing normalized span ``(hi - lo) / width`` (ties by column order; an
    attribute of span 0 ends the trials), for each the strict lower-median cut of its code
    histogram, skipped when a half is empty, refused when a half has fewer than the threshold's
    records (``k``, or Mondrian+'s ``max(k, ℓ·S_max(parent))``) or, for Mondrian with ``ℓ > 1``,
    a half is not ℓ-diverse over ``constrained``; the first allowable one is the cut. Mondrian+
    tries nothing when the partition has fewer than ``2·threshold`` records. No allowable cut:
    an oversized leaf.

    Parameters
    ----------
    hist : ndarray of shape (n_open, Σ domains × n_values)
        The sum over blocks of :func:`level_histograms`.
    domains : sequence of int
        Domain size of each quasi-identifier (at least one).
    constrained : ndarray of bool, shape (n_values,)
        Protected sensitive values.
    width : ndarray of shape (d,)
        ``domain_size - 1`` of each quasi-identifier, as ``mondrian_cuts`` takes it.
    k, l, look_ahead, max_partition_rows
        As ``mondrian_cuts``.

    Returns
    -------
    LevelDecision
        Vectorised over partitions; the only Python loop is over the d attributes.
    """
    domains = [int(x) for x in domains]
    constrained = np.asarray(constrained, dtype=bool)
    width = np.asarray(width, dtype=np.int64)
    n_values = len(constrained)
    d = len(domains)
    if d == 0:
        raise ValueError("decide_cuts needs at least one quasi-identifier")
    hist = np.asarray(hist, dtype=np.int64)
    n_open = hist.shape[0]
    joint0 = hist[:, : domains[0] * n_values].reshape(n_open, domains[0], n_values)
    total_hist = joint0.sum(axis=1)  # (n_open, n_values)
    size = total_hist.sum(axis=1)
    threshold = np.full(n_open, k, dtype=np.int64)
    if look_ahead:
        smax = np.where(constrained, total_hist, 0).max(axis=1, initial=0)
        threshold = np.maximum(threshold, l * smax)
    diversity = l > 1 and not look_ahead
    lo = np.zeros((n_open, d), dtype=np.int64)
    hi = np.zeros((n_open, d), dtype=np.int64)
    cut_code = np.zeros((n_open, d), dtype=np.int64)
    n_left = np.zeros((n_open, d), dtype=np.int64)
    diverse = np.ones((n_open, d), dtype=bool)
    safe_size = np.maximum(size, 1)
    off = 0
    for a, dom in enumerate(domains):
        joint = hist[:, off * n_values : (off + dom) * n_values].reshape(n_open, dom, n_values)
        off += dom
        marginal = joint.sum(axis=2)
        present = marginal > 0
        lo[:, a] = np.argmax(present, axis=1)
        hi[:, a] = dom - 1 - np.argmax(present[:, ::-1], axis=1)
        cut_code[:, a], n_left[:, a] = lower_median(marginal, safe_size)
        if diversity:
            left_mask = np.arange(dom)[None, :] <= cut_code[:, a][:, None]
            left_hist = np.einsum("pcv,pc->pv", joint, left_mask.astype(np.int64))
            right_hist = total_hist - left_hist
            nl = n_left[:, a][:, None]
            bad = (constrained & (l * left_hist > nl)).any(axis=1) | (
                constrained & (l * right_hist > size[:, None] - nl)
            ).any(axis=1)
            diverse[:, a] = ~bad
    span = np.where(width > 0, (hi - lo) / np.maximum(width, 1), 0.0)
    order = np.argsort(-span, axis=1, kind="stable")  # the kernel's order, per partition
    n_right = size[:, None] - n_left
    tried = span > 0
    two_sided = tried & (n_left > 0) & (n_right > 0)
    big_enough = (n_left >= threshold[:, None]) & (n_right >= threshold[:, None])
    allowable = two_sided & big_enough & diverse
    refused_here = two_sided & ~(big_enough & diverse)
    allowable_o = np.take_along_axis(allowable, order, axis=1)
    refused_o = np.take_along_axis(refused_here, order, axis=1)
    has_cut = allowable_o.any(axis=1)
    first = np.argmax(allowable_o, axis=1)
    before = np.arange(d)[None, :] < first[:, None]
    refused = (refused_o & before).sum(axis=1).astype(np.int64)
    large = size > max_partition_rows
    if look_ahead:
        has_cut &= ~(size < 2 * threshold)
    cut = large & has_cut
    rows = np.arange(n_open)
    chosen = order[rows, first]
    action = np.where(cut, CUT, np.where(large, OVERSIZED, LEAF)).astype(np.int8)
    return LevelDecision(
        action=action,
        size=size,
        attribute=np.where(cut, chosen, -1).astype(np.int64),
        threshold=np.where(cut, cut_code[rows, chosen], -1).astype(np.int64),
        n_left=np.where(cut, n_left[rows, chosen], 0).astype(np.int64),
        refused=np.where(cut, refused, 0),
    )


def apply_cuts(qi: np.ndarray, part: np.ndarray, cut_table: np.ndarray) -> np.ndarray:
    """The records' partition ids after one level (a worker's step, vectorised).

    ``cut_table`` has one row per partition id: ``(attribute, threshold, left id, right id)``;
    ``attribute = -1`` means the partition stays as it is. A record of a cut partition goes left
    when its code on ``attribute`` is ``<= threshold``.
    """
    cut_table = np.asarray(cut_table, dtype=np.int64)
    part = np.asarray(part, dtype=np.int64)
    if len(part) == 0:
        return part.copy()
    attribute, threshold, left, right = (cut_table[part, j] for j in range(4))
    is_cut = attribute >= 0
    code = np.asarray(qi)[np.arange(len(part)), np.maximum(attribute, 0)]
    moved = np.where(code <= threshold, left, right)
    return np.where(is_cut, moved, part)


@dataclass
class CutTree:
    """The cut tree the level loop grows (:func:`grow_cut_tree`).

    ``children[node]`` is ``(left, right)`` for a cut partition, None for a leaf; node 0 is the
    root. ``cuts``, ``refused_splits`` and ``oversized`` count as ``mondrian_cuts`` does.
    """

    children: list[tuple[int, int] | None]
    cuts: int = 0
    refused_splits: int = 0
    oversized: int = 0

    def leaf_numbers(self) -> tuple[np.ndarray, int]:
        """Node → its leaf number (int32, -1 for an inner node) and the number of leaves:
        leaves left to right (depth-first, left child first), as ``mondrian_cuts`` numbers
        them."""
        leaf_number = np.full(len(self.children), -1, dtype=np.int32)
        stack, count = [0], 0
        while stack:
            node = stack.pop()
            kids = self.children[node]
            if kids is None:
                leaf_number[node] = count
                count += 1
            else:
                stack += [kids[1], kids[0]]
        return leaf_number, count


def grow_cut_tree(
    n_rows: int,
    level_histogram: Callable[[np.ndarray], np.ndarray],
    apply_table: Callable[[np.ndarray], None],
    constrained: np.ndarray,
    width: np.ndarray,
    domains: Iterable[int],
    *,
    k: int,
    l: int,
    look_ahead: bool,
    max_partition_rows: int,
) -> CutTree:
    """The driver's level loop, whatever holds the records.

    ``level_histogram(open_row)`` returns the reduced :func:`level_histograms` of all the
    records for this ``open_row`` (partition id → row among the open partitions, -1 when not
    open); ``apply_table(table)`` moves every record to its new partition id with
    :func:`apply_cuts` and this table, before the next ``level_histogram`` counts them (it may
    defer the move to that call: :mod:`anonlab.distributed.worker_cuts` applies a level's
    cuts in the task that counts the next level; after the last level the caller applies the
    last table). The loop (this function) only sees those reduced
    histograms and the ``n_rows`` count: :func:`histogram_mondrian_cuts` supplies in-memory
    blocks, :func:`anonlab.distributed.worker_cuts.mondrian_cuts_on_workers` Dask futures.
    Each level: the decisions (:func:`decide_cuts`), the cut table, and a half with more than
    ``max_partition_rows`` records opened for the next level.
    """
    domains = [int(x) for x in domains]
    constrained = np.asarray(constrained, dtype=bool)
    tree = CutTree(children=[None])
    open_ids = [0] if (n_rows > max_partition_rows and len(domains) > 0) else []
    children = tree.children
    while open_ids:
        open_row = np.full(len(children), -1, dtype=np.int64)
        open_row[open_ids] = np.arange(len(open_ids))
        hist = level_histogram(open_row)
        decision = decide_cuts(
            hist,
            domains,
            constrained,
            width,
            k=k,
            l=l,
            look_ahead=look_ahead,
            max_partition_rows=max_partition_rows,
        )
        table = np.full((len(children), 4), -1, dtype=np.int64)
        next_open = []
        for r, node in enumerate(open_ids):  # a loop over open partitions, not records
            action = int(decision.action[r])
            if action == OVERSIZED:
                tree.oversized += 1
            if action != CUT:
                continue
            left, right = len(children), len(children) + 1
            children[node] = (left, right)
            children += [None, None]
            tree.cuts += 1
            tree.refused_splits += int(decision.refused[r])
            table[node] = (decision.attribute[r], decision.threshold[r], left, right)
            n_left = int(decision.n_left[r])
            if n_left > max_partition_rows:
                next_open.append(left)
            if int(decision.size[r]) - n_left > max_partition_rows:
                next_open.append(right)
        table = np.vstack([table, np.full((len(children) - len(table), 4), -1, dtype=np.int64)])
        apply_table(table)
        open_ids = next_open
    return tree


def histogram_mondrian_cuts(
    blocks: Iterable[tuple[np.ndarray, np.ndarray]],
    constrained: np.ndarray,
    width: np.ndarray,
    domains: Iterable[int],
    *,
    k: int,
    l: int,
    look_ahead: bool,
    max_partition_rows: int,
) -> Partitioning:
    """:func:`~anonlab.distributed.partitioning.mondrian_cuts` computed level by level from
    histograms, the records staying in their blocks.

    ``blocks`` are ``(qi, sensitive)`` pairs (the records of the table, in row order once
    concatenated); the map is a loop over them, the reduce a sum. Each level: the open
    partitions' joint histograms (:func:`level_histograms`), the decisions
    (:func:`decide_cuts`), the records' new ids (:func:`apply_cuts`); a half with more than
    ``max_partition_rows`` records is opened for the next level (the loop is
    :func:`grow_cut_tree`). At the end the leaves are numbered left to right.

    Returns the same :class:`Partitioning` as ``mondrian_cuts`` on the concatenated table —
    ``part`` (concatenated over the blocks in order), ``n_parts``, ``cuts``,
    ``refused_splits``, ``oversized`` — because a partition's decision depends only on its own
    records, so the level-synchronous order builds the same tree as the depth-first one
    (docs/distributed.md, "Plan: 10⁹ records on 100 nodes", item 2).
    """
    blocks = [(np.asarray(q), np.asarray(s, dtype=np.int64)) for q, s in blocks]
    domains = [int(x) for x in domains]
    constrained = np.asarray(constrained, dtype=bool)
    n_values = len(constrained)
    n = sum(len(s) for _, s in blocks)
    parts = [np.zeros(len(s), dtype=np.int64) for _, s in blocks]

    def level_histogram(open_row: np.ndarray) -> np.ndarray:
        n_open = int(open_row.max()) + 1
        hist = np.zeros((n_open, histogram_width(domains, n_values)), dtype=np.int64)
        for (q, s), p in zip(blocks, parts, strict=True):  # map; reduce: the sum
            hist += level_histograms(q, s, p, open_row, domains, n_values)
        return hist

    def apply_table(table: np.ndarray) -> None:
        parts[:] = [apply_cuts(q, p, table) for (q, _), p in zip(blocks, parts, strict=True)]

    tree = grow_cut_tree(
        n,
        level_histogram,
        apply_table,
        constrained,
        width,
        domains,
        k=k,
        l=l,
        look_ahead=look_ahead,
        max_partition_rows=max_partition_rows,
    )
    leaf_number, count = tree.leaf_numbers()
    part = leaf_number[np.concatenate(parts)] if parts else np.zeros(0, dtype=np.int32)
    return Partitioning(
        part=part.astype(np.int32),
        n_parts=count,
        method="mondrian-cuts",
        cuts=tree.cuts,
        refused_splits=tree.refused_splits,
        oversized=tree.oversized,
    )
