"""The compiled grouping of records into classes and the roll-up of a node's classes from a
finer node's, with the check of each class against the model.

Records, and then classes, are grouped by integer keys (mixed-radix leaf or node codes) into
classes numbered in order of first appearance (:func:`_group_keys`: an array of slots for small
key spans, open addressing otherwise); each class keeps its size and a sparse sensitive
histogram. :func:`roll_up` checks each new class for the models :func:`compiled_check` covers,
with anonlab.models's exact integer arithmetic. The kernels call one another, so they live in
one file (numba refreshes a cached function only when its own file changes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab import models
from anonlab._validation import check_choice, check_float, check_int
from anonlab.release import Release
from anonlab.table import Table

#: The kinds of the per-class criteria compiled in :func:`roll_up` (any other model goes through
#: models.check): k-anonymity, distinct ℓ-diversity, equal-distance t-closeness.
K_ANONYMITY, DISTINCT, EQUAL_CLOSENESS = 0, 1, 2
#: t-closeness's integer path (anonlab.models.t_closeness._INT_LIMIT): below it the EMD
#: numerators are exact int64, and so are ours.
_INT_LIMIT = 2**62


def compiled_check(
    table: Table, model: str, params: dict, reference: np.ndarray, blocks: np.ndarray
) -> tuple[np.ndarray, ...] | None:
    """The per-class criteria the compiled check of :func:`roll_up` covers for ``model``
    (one model, or several joined by :data:`anonlab.models.COMBINATION`), else None.

    One criterion per model for k-anonymity, and per model and sensitive attribute for the
    others: arrays ``kinds`` (:data:`K_ANONYMITY`, :data:`DISTINCT`, :data:`EQUAL_CLOSENESS`),
    integer ``bounds``, ``ts``, and each criterion's value range ``lows``..``highs`` of the
    concatenated sensitive domain (``blocks``: where each attribute's values start, and the
    end; ``reference``: the whole input's counts over it), and ``bounded``: which criteria's
    models are monotone with suppression (their violating records never grow as classes
    merge, so a search may prune with them alone). None as soon as one model or
    parameter is outside what is compiled (it is then checked by :func:`anonlab.models.check`).
    The parameters are first validated by the models themselves (on the whole table as one
    class)."""
    from anonlab.models.t_closeness import DISTANCES, default_distance

    whole = Release._from_statistics(table, 1, np.array([table.n_rows]), lambda: reference[None, :])
    models.check(whole, model, **params)  # raises on invalid parameters, as the search would
    names = table.sensitive_attributes
    criteria: list[tuple[int, int, float, int, int]] = []
    start = []  # where each model's criteria start
    specs = models.parts(model)
    for spec in specs:
        start.append(len(criteria))
        given = models.parameters_for(spec, params)
        if spec.name == "k-anonymity" and set(given) == {"k"}:
            criteria.append((K_ANONYMITY, check_int("k", given["k"], minimum=1), 0.0, 0, 0))
        elif spec.name == "distinct-l-diversity" and set(given) == {"l"}:
            bound = check_int("l", given["l"], minimum=1)
            for j in range(len(names)):
                criteria.append((DISTINCT, bound, 0.0, blocks[j], blocks[j + 1]))
        elif spec.name == "t-closeness" and set(given) <= {"t", "distance"}:
            n = float(table.n_rows)
            for j, name in enumerate(names):
                distance = check_choice("distance", given.get("distance", "auto"), DISTANCES)
                if distance == "auto":
                    distance = default_distance(table.schema[name])
                width = blocks[j + 1] - blocks[j]
                if distance != "equal" or n * n * (width + 1) * 3 >= _INT_LIMIT:
                    return None
                t = check_float("t", given.get("t"), low=0.0, high=1.0)
                criteria.append((EQUAL_CLOSENESS, 0, t, blocks[j], blocks[j + 1]))
        else:
            return None
    kinds, bounds, ts, lows, highs = zip(*criteria, strict=True)
    bounded = np.zeros(len(criteria), dtype=np.bool_)
    for spec, first, last in zip(specs, start, [*start[1:], len(criteria)], strict=True):
        bounded[first:last] = spec.monotone_with_suppression
    return (
        np.array(kinds, dtype=np.int64), np.array(bounds, dtype=np.int64),
        np.array(ts, dtype=np.float64), np.array(lows, dtype=np.int64),
        np.array(highs, dtype=np.int64), bounded,
    )  # fmt: skip


@njit(cache=True)
def _hash(key: np.int64, bits: int) -> np.int64:
    """Fibonacci hashing of a non-negative 64-bit key to ``bits`` bits."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@njit(cache=True)
def _group_keys(keys, span, slots):
    """Number equal keys 0.. in order of first appearance: the group of each key, the number of
    groups and each group's first position. Keys below ``span`` index ``slots`` (all -1, and
    left so) when the span is small (at most 2**16 or 8 keys per slot, so that the slots touched
    stay in cache: measured on Adult, a spread of 700,000 slots cost 60 ns a key); otherwise they
    are hashed into a table of about 2 slots per key (open addressing, grown as it fills)."""
    m = len(keys)
    group = np.empty(m, dtype=np.int64)
    first = np.empty(max(m, 1), dtype=np.int64)
    n = 0
    if span <= len(slots) and (span <= 1 << 16 or span <= 8 * m):
        for i in range(m):
            g = slots[keys[i]]
            if g < 0:
                g = n
                slots[keys[i]] = n
                first[n] = i
                n += 1
            group[i] = g
        for g in range(n):
            slots[keys[first[g]]] = -1
        return group, n, first[:n]
    bits = 6
    while (1 << bits) < 2 * min(m, 1 << 16):
        bits += 1
    table = np.full(1 << bits, -1, dtype=np.int64)
    mask = (1 << bits) - 1
    for i in range(m):
        key = keys[i]
        s = _hash(key, bits)
        while True:
            g = table[s]
            if g < 0:
                table[s] = n
                first[n] = i
                group[i] = n
                n += 1
                if 2 * n > mask:  # keep the table at most half full
                    bits += 1
                    mask = (1 << bits) - 1
                    table = np.full(1 << bits, -1, dtype=np.int64)
                    for h in range(n):
                        t = _hash(keys[first[h]], bits)
                        while table[t] >= 0:
                            t = (t + 1) & mask
                        table[t] = h
                break
            if keys[first[g]] == key:
                group[i] = g
                break
            s = (s + 1) & mask
    return group, n, first[:n]


@njit(cache=True)
def _add_cells(cell_group, cell_value, cell_count, n_groups, n_values, slots):
    """Sparse histograms of groups from their members' cells (``cell_group``: the group of each
    cell's class): (group, value, count) triples, one per value present in a group."""
    m = len(cell_group)
    keys = np.empty(m, dtype=np.int64)
    for e in range(m):
        keys[e] = cell_group[e] * n_values + cell_value[e]
    which, n_cells, first = _group_keys(keys, n_groups * n_values, slots)
    cell = np.empty(n_cells, dtype=np.int32)
    value = np.empty(n_cells, dtype=np.int32)
    count = np.zeros(n_cells, dtype=np.int32)
    for k in range(n_cells):
        cell[k] = cell_group[first[k]]
        value[k] = cell_value[first[k]]
    for e in range(m):
        count[which[e]] += cell_count[e]
    return cell, value, count


@njit(cache=True)
def base_classes(codes, leaf_of_code, leaf_off, dom, sens, n_values, with_values, slots):
    """Group the records by their leaf vectors: the base class of each record, and the base
    classes' representative leaves, sizes and sparse sensitive histograms (``codes``: each
    quasi-identifier's codes; ``leaf_of_code``/``leaf_off``: each one's code -> leaf, flat;
    ``sens``: (attributes, records), each record's value of each sensitive attribute, offset
    into one domain of ``n_values`` (a class's histogram then holds every attribute's counts);
    ``slots``: scratch, as :func:`_group_keys` takes it)."""
    q = len(codes)
    n_attr, n = sens.shape
    keys = np.zeros(n, dtype=np.int64)
    span = 1
    for j in range(q):
        column = codes[j]
        off = leaf_off[j]
        radix = dom[j]
        span *= radix
        for i in range(n):
            keys[i] = keys[i] * radix + leaf_of_code[off + column[i]]
    base, n_base, first = _group_keys(keys, span, slots)
    rep = np.empty((n_base, q), dtype=np.int32)
    for j in range(q):
        column = codes[j]
        off = leaf_off[j]
        for b in range(n_base):
            rep[b, j] = leaf_of_code[off + column[first[b]]]
    size = np.zeros(n_base, dtype=np.int64)
    for i in range(n):
        size[base[i]] += 1
    if not with_values:
        return base, rep, size, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32)
    cells = n_base * n_values
    if cells > 4 * n * n_attr:  # too many (class, value) pairs to count in an array: hashed
        cell_group = np.empty(n * n_attr, dtype=np.int64)
        for b in range(n_attr):
            cell_group[b * n : (b + 1) * n] = base
        cell, value, count = _add_cells(
            cell_group, sens.ravel(), np.ones(n * n_attr, dtype=np.int32), n_base, n_values,
            np.full(0, -1, dtype=np.int32),
        )  # fmt: skip
        return base, rep, size, cell, value, count
    # Count each (class, value) pair in an array, listing the pairs in order of first
    # appearance: the cells _add_cells gives, in one pass over the records (per attribute).
    counts = np.zeros(cells, dtype=np.int32)
    order = np.empty(min(cells, n * n_attr), dtype=np.int64)
    n_cells = 0
    for b in range(n_attr):
        for i in range(n):
            key = base[i] * n_values + sens[b, i]
            if counts[key] == 0:
                order[n_cells] = key
                n_cells += 1
            counts[key] += 1
    cell = np.empty(n_cells, dtype=np.int32)
    value = np.empty(n_cells, dtype=np.int32)
    count = np.empty(n_cells, dtype=np.int32)
    for e in range(n_cells):
        cell[e] = order[e] // n_values
        value[e] = order[e] % n_values
        count[e] = counts[order[e]]
    return base, rep, size, cell, value, count


@njit(cache=True)
def roll_up(rep, size, cell, value, count, node, maps, map_off, map_width, radix, n_values,
             with_values, slots, kinds, bounds, ts, lows, highs, bounded, reference,
             n):  # fmt: skip
    """The classes of ``node`` from those of a finer node: group the classes by their values at
    ``node`` (mixed-radix keys), add their sizes and histograms, and check each against every
    criterion (a class violates if it fails any): ``kinds[c]`` 0, k-anonymity (|class| < k =
    ``bounds[c]`` violates); 1, distinct ℓ-diversity (fewer than ℓ = ``bounds[c]`` values among
    ``lows[c]``..``highs[c]``, one sensitive attribute's); 2, equal-distance t-closeness of that
    attribute against the ``reference`` counts of all ``n`` records (½ Σ_v |p_v − q_v| >
    ``ts[c]``, summed as the exact integer Σ_v |n·h_v − |c|·T_v| and divided once, as
    anonlab.models.t_closeness does). No criterion: nothing fails. Also returned: which
    classes fail a criterion marked ``bounded`` (monotone with suppression)."""
    c, q = rep.shape
    keys = np.zeros(c, dtype=np.int64)
    span = 1
    for j in range(q):
        level = node[j]
        off = map_off[j] + level
        width = map_width[j]
        r = radix[j, level]
        span *= r
        for i in range(c):
            keys[i] = keys[i] * r + maps[off + rep[i, j] * width]
    group, n_new, first = _group_keys(keys, span, slots)
    new_rep = np.empty((n_new, q), dtype=np.int32)
    for g in range(n_new):
        for j in range(q):
            new_rep[g, j] = rep[first[g], j]
    new_size = np.zeros(n_new, dtype=np.int64)
    for i in range(c):
        new_size[group[i]] += size[i]
    if with_values:
        cell_group = np.empty(len(cell), dtype=np.int64)
        for e in range(len(cell)):
            cell_group[e] = group[cell[e]]
        cell, value, count = _add_cells(cell_group, value, count, n_new, n_values, slots)
    failing = np.zeros(n_new, dtype=np.bool_)
    failing_bounded = np.zeros(n_new, dtype=np.bool_)
    fails = np.zeros(n_new, dtype=np.bool_)
    for c in range(len(kinds)):
        kind, bound, t, low, high = kinds[c], bounds[c], ts[c], lows[c], highs[c]
        if kind == 0:
            for g in range(n_new):
                fails[g] = new_size[g] < bound
        elif kind == 1:
            distinct = np.zeros(n_new, dtype=np.int64)
            for e in range(len(cell)):
                if low <= value[e] < high:
                    distinct[cell[e]] += 1
            for g in range(n_new):
                fails[g] = distinct[g] < bound
        elif kind == 2:
            # Σ_v |0 − |c|·T_v| over the attribute's values (its counts sum to n); corrected
            # for the values present
            num = new_size * n
            for e in range(len(cell)):
                if low <= value[e] < high:
                    g = cell[e]
                    expected = new_size[g] * reference[value[e]]
                    num[g] += abs(count[e] * n - expected) - expected
            for g in range(n_new):
                fails[g] = num[g] / (new_size[g] * n * 2) > t
        for g in range(n_new):
            failing[g] |= fails[g]
            if bounded[c]:
                failing_bounded[g] |= fails[g]
    return new_rep, new_size, cell, value, count, group, failing, failing_bounded
