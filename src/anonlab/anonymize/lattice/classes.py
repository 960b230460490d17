"""Each node's classes, rolled up from those of a finer node already computed.

The records are grouped once into their distinct quasi-identifier vectors (the base classes);
a node's classes, with their sizes, sparse sensitive histograms and the model's verdict on each,
are then rolled up from the stored partition below the node with the fewest classes, in compiled
code (:mod:`~anonlab.anonymize.lattice.rollup`), with no pass over the records: the roll-up of
Incognito (LeFevre et al., SIGMOD 2005, §3.2) and of ARX's snapshots, which Flash checks nodes
with (Kohlmayer et al., PASSAT 2012, §5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab import models
from anonlab.anonymize.lattice.rollup import K_ANONYMITY, base_classes, compiled_check, roll_up
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table

#: Stored partitions (see Partitions) hold at most this many classes in all, per base class.
#: Measured on Adult with t-closeness and 2% suppression (every node evaluated), classes read by
#: the roll-ups and peak memory of the search: 16, 8.6 M and 21 MB; 32, 4.8 M and 35 MB; 64,
#: 4.1 M and 61 MB (rolling each node up from its smallest direct specialization would read
#: 3.9 M; the search before roll-ups peaked at 28 MB) ...
_STORE_PER_BASE = 32
#: ... and at most this many in all (or as many as the base classes, if more: the stored
#: partitions then take at most about what the base classes take) ...
_STORE_MAX = 1 << 21
#: ... and a partition is stored only when it has at most this share of its source's classes
#: (ARX's ``snapshotSizeSnapshot``, 0.8: a partition about as large as its source saves little).
_STORE_RATIO = 0.8


#: No compiled criterion (the model is checked by anonlab.models.check): roll_up's arrays.
_NO_CRITERIA = (
    np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64),
    np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.bool_),
)  # fmt: skip


class Partition:
    """The classes of one node (or the base classes), as arrays over the classes.

    ``rep``: one leaf code per quasi-identifier of some member (all members share the node's
    generalized values, so any member stands for the class at this node and every node above);
    ``size``: records per class; ``cell``/``value``/``count``: the sensitive histograms as
    sparse (class, value, count) triples, one per value present in a class (none when the
    model needs no sensitive values); ``of_source`` (where asked for): the class of each class
    of the partition it was rolled up from; ``failing``: which classes violate the model, where
    the compiled check covers it.
    """

    __slots__ = (
        "cell", "count", "failing", "failing_bounded", "levels", "n", "of_source", "rep", "size",
        "value",
    )  # fmt: skip

    def __init__(
        self,
        levels: np.ndarray,
        rep: np.ndarray,
        size: np.ndarray,
        cell: np.ndarray,
        value: np.ndarray,
        count: np.ndarray,
        of_source: np.ndarray | None = None,
        failing: np.ndarray | None = None,
        failing_bounded: np.ndarray | None = None,
    ) -> None:
        self.levels = levels
        self.rep = rep
        self.size = size
        self.cell = cell
        self.value = value
        self.count = count
        self.n = len(size)
        self.of_source = of_source
        self.failing = failing
        self.failing_bounded = failing_bounded


class Partitions:
    """Each node's classes, rolled up from the smallest already-computed finer node.

    The records are first grouped once into their distinct leaf vectors (the base classes, with
    sizes and sparse sensitive histograms; one hashed pass, :func:`base_classes`). A node's
    classes are unions of the classes of any finer node, so they are computed from the stored
    partition below the node with the fewest classes (:func:`roll_up`, one pass over that
    partition's classes and histogram cells, none over the records): the roll-up of Incognito
    (LeFevre et al., SIGMOD 2005, §3.2) and of ARX's snapshots, which Flash checks nodes with
    (Kohlmayer et al., "Flash: efficient, stable and optimal k-anonymity", PASSAT 2012, §5).
    Which partitions are kept as sources: those with at most ``_STORE_RATIO`` of their source's
    classes, up to a budget of classes in all, the least recently used dropped first.

    The compiled check (in :func:`roll_up`) covers k-anonymity, distinct ℓ-diversity and
    equal-distance t-closeness with anonlab.models's exact integer arithmetic, alone or
    together (a combination of models, :data:`anonlab.models.COMBINATION`), for every sensitive
    attribute of the table: the classes' histograms hold each attribute's counts side by side
    (``blocks``: where each attribute's values start). Any other model is checked by
    :func:`anonlab.models.check` on the node's class statistics, per attribute.
    """

    def __init__(self, table: Table, model: str, params: dict) -> None:
        self.table = table
        qi = table.quasi_identifiers
        hierarchies = [table.schema[q].hierarchy for q in qi]
        if np.prod([float(len(h)) for h in hierarchies]) >= 2.0**62:
            raise AnonlabError(
                "the quasi-identifiers' hierarchies have too many leaf combinations for the "
                "lattice search's 64-bit keys; use fewer quasi-identifiers"
            )
        self.model, self.params = model, params
        names = table.sensitive_attributes
        if not names:  # plain k-anonymity: one placeholder value for every record
            sens = np.zeros((1, table.n_rows), dtype=np.int32)
            self.blocks = np.array([0, 1], dtype=np.int64)
        else:  # each attribute's codes offset into one domain (the histograms side by side)
            self.blocks = np.cumsum([0, *(table.domain_size(a) for a in names)]).astype(np.int64)
            sens = np.stack(
                [np.asarray(table.codes[a], dtype=np.int32) + np.int32(self.blocks[j])
                 for j, a in enumerate(names)]
            )  # fmt: skip
        self.n_values = int(self.blocks[-1])
        self.reference = np.bincount(sens.ravel(), minlength=self.n_values).astype(np.int64)
        self.fast = compiled_check(table, model, params, self.reference, self.blocks)
        # The compiled k-anonymity check needs no sensitive histograms; any other may.
        self.with_values = self.fast is None or bool((self.fast[0] != K_ANONYMITY).any())
        self.dom = np.array([len(h) for h in hierarchies], dtype=np.int64)
        # Leaf -> node code at every level: each hierarchy's matrix, all in one flat array.
        self.maps = np.concatenate([h.matrix.ravel() for h in hierarchies]).astype(np.int64)
        self.map_width = np.array([h.height + 1 for h in hierarchies], dtype=np.int64)
        self.map_off = np.cumsum([0, *(self.dom * self.map_width).tolist()])[:-1].astype(np.int64)
        self.radix = np.ones((len(qi), int(self.map_width.max())), dtype=np.int64)
        self.size_off = np.zeros_like(self.radix)
        node_sizes = []
        for j, h in enumerate(hierarchies):
            for level in range(h.height + 1):
                self.radix[j, level] = len(h.labels(level))
                self.size_off[j, level] = sum(len(s) for s in node_sizes)
                node_sizes.append(h.node_size(level).astype(np.int64))
        self.node_sizes = np.concatenate(node_sizes)  # leaves under each node, flat

        leaf_of_code = [np.asarray(table.leaf_codes(q), dtype=np.int64) for q in qi]
        leaf_off = np.cumsum([0, *(len(c) for c in leaf_of_code)])[:-1].astype(np.int64)
        span = int(np.prod([float(d) for d in self.dom.tolist()]))  # < 2**62, checked above
        base_of_row, rep, size, cell, value, count = base_classes(
            tuple(np.asarray(table.codes[q], dtype=np.int32) for q in qi),
            np.concatenate(leaf_of_code), leaf_off, self.dom, sens, self.n_values,
            self.with_values, np.full(span if span <= 4 * table.n_rows else 0, -1, np.int32),
        )  # fmt: skip
        self.base_of_row = base_of_row
        self.base = Partition(np.zeros(len(qi), dtype=np.int64), rep, size, cell, value, count)
        self.n_base = self.base.n
        # Scratch for grouping by small keys (all -1, and left so by each use): the classes'
        # keys, and the (class, value) keys of the histogram cells.
        slots = self.n_base * (self.n_values if self.with_values else 8)
        self._slots = np.full(int(np.clip(slots, 1 << 16, 1 << 22)), -1, dtype=np.int32)
        # The stored sources: levels, classes and last use in arrays (grown as needed), for one
        # compiled choice of a source.
        self._stored: list[Partition] = []
        self._stored_levels = np.zeros((64, len(qi)), dtype=np.int64)
        self._stored_classes = np.zeros(64, dtype=np.int64)
        self._stored_used = np.zeros(64, dtype=np.int64)
        self._stored_total = 0
        self._clock = 0
        self._budget = min(_STORE_PER_BASE * self.n_base, max(_STORE_MAX, self.n_base))
        self.work = 0  # classes read by roll-ups (to measure the choice of sources)

    def leaf_counts(self) -> list[np.ndarray]:
        """Records per leaf of each quasi-identifier's hierarchy."""
        return [
            np.bincount(self.base.rep[:, j], weights=self.base.size, minlength=d).astype(np.int64)
            for j, d in enumerate(self.dom.tolist())
        ]

    def _roll_up(self, source: Partition, node: np.ndarray, keep_map: bool = False) -> Partition:
        self.work += source.n
        rep, size, cell, value, count, of_source, failing, failing_bounded = roll_up(
            source.rep, source.size, source.cell, source.value, source.count, node, self.maps,
            self.map_off, self.map_width, self.radix, self.n_values, self.with_values,
            self._slots, *(self.fast if self.fast is not None else _NO_CRITERIA),
            self.reference, self.table.n_rows,
        )  # fmt: skip
        return Partition(
            node, rep, size, cell, value, count, of_source if keep_map else None, failing,
            failing_bounded,
        )  # fmt: skip

    def partition(self, node: np.ndarray) -> Partition:
        """The classes of ``node``, rolled up from the stored partition below it with the fewest
        classes (or from the base classes)."""
        node = np.array(node, dtype=np.int64)  # a copy: callers may change theirs
        source = self.base
        k = len(self._stored)
        if k:
            best = _best_source(self._stored_levels, self._stored_classes, k, node)
            if best >= 0 and self._stored_classes[best] < source.n:
                source = self._stored[best]
                self._clock += 1
                self._stored_used[best] = self._clock
                if (source.levels == node).all():
                    return source
        part = self._roll_up(source, node)
        if part.n <= _STORE_RATIO * source.n and part.n <= self._budget:
            self._store(part)
        return part

    def _store(self, part: Partition) -> None:
        """Keep ``part`` as a source, dropping the least recently used while over the budget."""
        while self._stored_total + part.n > self._budget:
            last = len(self._stored) - 1
            drop = int(np.argmin(self._stored_used[: last + 1]))
            self._stored_total -= int(self._stored_classes[drop])
            self._stored[drop] = self._stored[last]  # the last one takes its place
            self._stored_levels[drop] = self._stored_levels[last]
            self._stored_classes[drop] = self._stored_classes[last]
            self._stored_used[drop] = self._stored_used[last]
            self._stored.pop()
        k = len(self._stored)
        if k == len(self._stored_classes):
            self._stored_levels = np.concatenate([self._stored_levels, self._stored_levels])
            self._stored_classes = np.concatenate([self._stored_classes, self._stored_classes])
            self._stored_used = np.concatenate([self._stored_used, self._stored_used])
        self._stored.append(part)
        self._stored_levels[k] = part.levels
        self._stored_classes[k] = part.n
        self._clock += 1
        self._stored_used[k] = self._clock
        self._stored_total += part.n

    def class_of_base(self, node: np.ndarray) -> tuple[np.ndarray, Partition]:
        """The class of each base class under ``node``, and the node's partition."""
        part = self._roll_up(self.base, np.array(node, dtype=np.int64), keep_map=True)
        return part.of_source, part

    def groups_at(self, node: np.ndarray, suppress: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The release's group of each record at ``node``: 0..G-1 in order of first
        appearance (the classes are numbered so, from base classes numbered so), and, with
        ``suppress``, the rows kept (those outside the violating classes; None otherwise),
        the kept classes renumbered 0.. in the same order."""
        cls, part = self.class_of_base(node)
        if not suppress:
            return np.take(cls.astype(np.int32), self.base_of_row), None
        kept = ~self.violating(part)
        renumber = np.where(kept, np.cumsum(kept) - 1, -1).astype(np.int32)
        group = np.take(renumber[cls], self.base_of_row)
        rows = np.flatnonzero(group >= 0)
        return np.take(group, rows), rows

    def histogram(self, part: Partition) -> np.ndarray:
        """The partition's sensitive histogram, dense: shape (classes, sensitive values)."""
        hist = np.zeros((part.n, self.n_values), dtype=np.int64)
        hist[part.cell, part.value] = part.count
        return hist

    def _statistics(self, part: Partition, reference: np.ndarray | None) -> Release:
        return Release._from_statistics(
            self.table, part.n, part.size, lambda: self.histogram(part),
            reference_counts=reference,
        )  # fmt: skip

    def violating(self, part: Partition) -> np.ndarray:
        """Which classes violate the model, each checked against the whole input's sensitive
        distribution (t-closeness)."""
        if self.fast is not None:
            return part.failing
        result = models.check(self._statistics(part, self.reference), self.model, **self.params)
        failing = np.zeros(part.n, dtype=bool)
        failing[np.asarray(result.violating_groups, dtype=np.int64)] = True
        return failing

    def holds(self, node: np.ndarray) -> bool:
        """Whether the node's release (nothing suppressed) satisfies the model."""
        part = self.partition(node)
        if self.fast is not None:
            return not part.failing.any()
        return models.check(self._statistics(part, None), self.model, **self.params).holds

    def bounded_pruning(self) -> bool:
        """Whether the compiled check holds criteria of models monotone with suppression
        beside others (a combination such as k-anonymity and t-closeness): a node whose
        violating classes under those alone exceed the suppression limit proves every more
        specific node exceeds it too (:meth:`suppressed_bounded`), even though the whole
        combination is not monotone with suppression (ARX prunes on the k-anonymity part of
        its criteria the same way)."""
        return self.fast is not None and bool(self.fast[5].any()) and not self.fast[5].all()

    def suppressed_bounded(self, node: np.ndarray) -> int:
        """Records in the classes of ``node`` that violate a model monotone with suppression
        (:meth:`bounded_pruning`)."""
        part = self.partition(node)
        return int(part.size @ part.failing_bounded)

    def suppressed(self, node: np.ndarray) -> tuple[int, np.ndarray, Partition]:
        """Records in the classes that violate the model, which classes those are, and the
        node's partition."""
        part = self.partition(node)
        failing = self.violating(part)
        return int(part.size @ failing), failing, part

    def kept_numerators(self, part: Partition, failing: np.ndarray) -> np.ndarray:
        """Per quasi-identifier, Σ over kept classes of |class| × leaves under its value (ARX's
        A_d times |dom_d|, an exact integer)."""
        return _kept_numerators(
            part.rep, part.size, failing, part.levels, self.maps, self.map_off, self.map_width,
            self.node_sizes, self.size_off,
        )  # fmt: skip


@njit(cache=True)
def _best_source(levels, classes, k, node):
    """Among the first ``k`` stored nodes, the one below ``node`` with the fewest classes (-1:
    none)."""
    best, fewest = -1, np.iinfo(np.int64).max
    q = levels.shape[1]
    for s in range(k):
        if classes[s] >= fewest:
            continue
        below = True
        for j in range(q):
            if levels[s, j] > node[j]:
                below = False
                break
        if below:
            best, fewest = s, classes[s]
    return best


@njit(cache=True)
def _kept_numerators(rep, size, failing, node, maps, map_off, map_width, node_sizes, size_off):
    """Σ over the kept classes of |class| × leaves under the class's value, per attribute."""
    c, q = rep.shape
    out = np.zeros(q, dtype=np.int64)
    for i in range(c):
        if failing[i]:
            continue
        for j in range(q):
            level = node[j]
            code = maps[map_off[j] + rep[i, j] * map_width[j] + level]
            out[j] += size[i] * node_sizes[size_off[j, level] + code]
    return out
