"""Matching original records to a published release: the two searches an import needs.

:func:`capacitated_matching` (exact: greedy, then augmenting paths) places each record of a
generalized release in a class that covers it and still has its sensitive value;
:func:`assign_to_buckets` (a seeded local search) pairs records with the rows of an Anatomy QIT
so that every group holds the values its ST gives.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np


def capacitated_matching(
    candidates: list[np.ndarray], capacity: np.ndarray
) -> tuple[np.ndarray, int | None]:
    """Give every item one of its candidate slots without exceeding any slot's capacity.

    Greedy first (items with fewest candidates first, to the candidate with most room left),
    then breadth-first augmenting paths for the items left over, so the answer is exact: it fails
    (returning the index of an item that cannot be placed) only when no complete assignment
    exists.
    """
    n = len(candidates)
    load = np.zeros(len(capacity), dtype=np.int64)
    assigned = np.full(n, -1, dtype=np.int64)
    members: dict[int, set[int]] = defaultdict(set)
    order = np.argsort([len(c) for c in candidates], kind="stable")
    left = []
    for i in order.tolist():
        cand = candidates[i]
        room = capacity[cand] - load[cand]
        if len(cand) and room.max() > 0:
            s = int(cand[int(np.argmax(room))])
            assigned[i] = s
            load[s] += 1
            members[s].add(i)
        else:
            left.append(i)
    for i in left:
        prev_item: dict[int, int] = {}  # slot -> item that reached it
        prev_slot: dict[int, int] = {}  # item -> slot it sits in on the path
        queue = []
        for s in candidates[i].tolist():
            if s not in prev_item:
                prev_item[s] = i
                queue.append(s)
        found = None
        head = 0
        while head < len(queue) and found is None:
            s = queue[head]
            head += 1
            if load[s] < capacity[s]:
                found = s
                break
            for j in members[s]:
                if j in prev_slot or j == i:
                    continue
                prev_slot[j] = s
                for t in candidates[j].tolist():
                    if t not in prev_item:
                        prev_item[t] = j
                        queue.append(t)
        if found is None:
            return assigned, i
        s = found
        load[s] += 1
        while True:  # walk the path back, moving each item one slot along
            j = prev_item[s]
            old = int(assigned[j])
            if old >= 0:
                members[old].discard(j)
            assigned[j] = s
            members[s].add(j)
            if j == i:
                break
            s = old
    return assigned, None


def assign_to_buckets(
    records: dict[tuple, list[int]],
    slots: dict[tuple, list[str]],
    need: dict[tuple[str, int], int],
    sens: np.ndarray,
    max_moves: int = 50_000,
    sample: int = 40,
) -> np.ndarray | None:
    """Group label per record, consistent with QI keys and ST counts; None if none is found.

    Where records share their exact quasi-identifiers the true assignment is not recoverable
    from QIT/ST (any consistent one is equally likely to the adversary); this finds one
    consistent assignment. That is a three-way transportation problem (record keys x groups x
    values), solved here by local search: each key's records are first dealt to its QIT rows,
    preferring groups that still need their value; then, while some group holds a value more
    often than its ST says, a record with that value is swapped with a record of the same key in
    another group (which keeps every key's rows right), taking the best of a seeded sample of
    swaps by the total excess, or a random swap when none improves it. Keys whose rows all lie
    in one group are fixed from the start. Gives up (None) after ``max_moves`` swaps.
    """
    rng = np.random.default_rng(0)
    label = np.empty(len(sens), dtype=object)
    excess: dict[tuple[str, int], int] = defaultdict(int)
    needers: dict[int, set[str]] = defaultdict(set)  # value -> groups still short of it
    for (g, v), count in need.items():
        excess[(g, v)] -= count
        if count > 0:
            needers[v].add(g)
    members: dict[tuple[str, int], set[int]] = defaultdict(set)  # movable records per cell
    placed: dict[tuple, dict[str, list[int]]] = {}  # movable key -> group -> records

    def move(i: int, g: str) -> None:
        v = int(sens[i])
        excess[(g, v)] += 1
        if excess[(g, v)] >= 0:
            needers[v].discard(g)
        label[i] = g

    for key, recs in records.items():
        groups = list(slots.get(key, []))
        if len(groups) != len(recs):
            return None
        free: dict[str, int] = defaultdict(int)
        for g in groups:
            free[g] += 1
        for i in recs:
            open_ = needers[int(sens[i])]
            pick = (
                next((g for g in free if g in open_), None)
                if len(free) <= len(open_)
                else (next((g for g in open_ if free.get(g, 0) > 0), None))
            )
            g = pick if pick is not None else next(iter(free))
            move(i, g)
            free[g] -= 1
            if free[g] == 0:
                del free[g]
        if len(set(groups)) > 1:
            per_group: dict[str, list[int]] = defaultdict(list)
            for i in recs:
                per_group[label[i]].append(i)
                members[(label[i], int(sens[i]))].add(i)
            placed[key] = per_group
    key_of = {i: key for key, per in placed.items() for rs in per.values() for i in rs}

    def swap(i: int, j: int) -> None:
        gi, gj = label[i], label[j]
        for r, old, new in ((i, gi, gj), (j, gj, gi)):
            v = int(sens[r])
            excess[(old, v)] -= 1
            if excess[(old, v)] < 0:
                needers[v].add(old)
            members[(old, v)].discard(r)
            members[(new, v)].add(r)
            per = placed[key_of[r]]
            per[old].remove(r)
            per[new].append(r)
            move(r, new)

    def gain(i: int, j: int) -> int:
        (g1, s1), (g2, s2) = (label[i], int(sens[i])), (label[j], int(sens[j]))
        if g1 == g2 or s1 == s2:
            return 0
        # each over-full cell losing one and each short cell gaining one is an improvement
        return (
            (excess[(g1, s1)] > 0)
            + (excess[(g2, s2)] > 0)
            - (excess[(g1, s2)] >= 0)
            - (excess[(g2, s1)] >= 0)
        )

    over = {c for c, e in excess.items() if e > 0}
    for _ in range(max_moves):
        over = {c for c in over if excess[c] > 0}
        if not over:
            return label if not any(excess.values()) else None
        cell = sorted(over)[rng.integers(len(over))]
        movable = list(members[cell])
        if not movable:
            return None  # the excess comes from fixed keys: the counts cannot be met
        best, best_gain, options = None, 0, []
        for i in rng.choice(movable, size=min(sample, len(movable)), replace=False).tolist():
            per = placed[key_of[i]]
            partners = [j for g, rs in per.items() if g != label[i] for j in rs]
            if not partners:
                continue
            for j in rng.choice(partners, size=min(sample, len(partners)), replace=False):
                j = int(j)
                if int(sens[j]) == int(sens[i]):
                    continue
                options.append((i, j))
                gn = gain(i, j)
                if gn > best_gain:
                    best, best_gain = (i, j), gn
        if not options:
            continue
        i, j = best if best is not None else options[rng.integers(len(options))]
        swap(i, j)
        over.update(((label[i], int(sens[i])), (label[j], int(sens[j]))))
    return None
