"""Matching ℓ-diversity (Li & Li, "Injector", ICDE 2008, §V-A Definition 1 and §V-B).

Background knowledge is given as a boolean *incompatibility matrix* ``incompatibility`` of shape
(n_rows, n_sensitive_values): ``incompatibility[i, s]`` is True when the adversary can exclude
value ``s`` for record ``i`` (for Injector: some negative association rule ``X ⇒ ¬s`` with
confidence 1 has a condition ``X`` that record ``i`` satisfies; any other source of such
knowledge works as well). Each record's *possible* sensitive values are computed in two readings:

* **simple** (the paper's first, insufficient requirement): the values in the record's group that
  no rule excludes for it;
* **matching** (Definition 1): the values ``s`` of the group such that some one-to-one assignment
  of the group's sensitive multiset to its members gives ``s`` to the record and gives every
  member a value it can take (a perfect matching of the bipartite graph members × value slots).

A group satisfies *matching ℓ-diversity* when every member has at least ℓ matching-possible
values, counted as **distinct** values (the paper's Fig. 1 builds a *set* of valid values). The
paper has no frequency form of the requirement (its adversary is possibilistic: no probability is
attached to the remaining values), so only the distinct reading is offered; ``reading="simple"``
checks the simple requirement instead, for comparison.

The matching test (notes §5, [derived]) replaces the paper's Fig. 1, which solves ``|g|²``
maximum bipartite matchings per group (``O(|g|⁴p)``), by one strongly-connected-component pass.
Take any perfect matching ``M`` (normally the members' own values). A non-matching edge belongs to
some perfect matching iff it lies on an ``M``-alternating cycle. On the compressed graph with one
node per member and one per distinct value — member ``i → v`` when ``i`` can take ``v``, value
``v → j`` when ``M`` gives ``v`` to ``j`` — value ``v`` is possible for ``i`` iff ``v = M(i)`` or
(``i → v`` and ``i``, ``v`` are in the same SCC). Cost ``O(|g|·d)`` per group (``d`` distinct
values in the group), compiled with numba and run over all groups in one call. It equals brute
force over all one-to-one assignments (tests/models/test_matching_l_diversity.py).

Choices where the paper is silent:

* The result depends only on each group's published multiset and the matrix: the members' own
  published values serve only as the starting matching. When that pairing is not a perfect
  matching (a member's own published value is excluded — MASK perturbs values, or the matrix was
  not mined from this table), a perfect matching is searched for by augmenting paths. A group with
  no perfect matching at all contradicts the adversary's knowledge; its members keep their simple
  possible values, and such groups are reported (``consistent`` is False).
* Generalized releases are read through the worst-case reduction (the adversary knows every
  record's exact quasi-identifiers and its group), so every release is a bucketization here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_int
from anonlab.errors import AnonlabError
from anonlab.models.result import CheckResult, build_result, check_release
from anonlab.release import Release
from anonlab.table import Table

READINGS = ("matching", "simple")


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def incompatibility_matrix(source: Any, table: Table) -> np.ndarray:
    """The boolean incompatibility matrix of ``table`` from a matrix or a rule set.

    Parameters
    ----------
    source : ndarray of shape (n_rows, n_sensitive_values), or an object with
        ``incompatibility(table) -> ndarray`` (``anonlab.mining.negative_rules.NegativeRuleSet``)
    table : Table
        Rows and sensitive codes the matrix is indexed by.

    Returns
    -------
    ndarray of shape (n_rows, n_sensitive_values), dtype=bool, C-contiguous
    """
    sens = table.require_sensitive()
    if hasattr(source, "incompatibility") and callable(source.incompatibility):
        matrix = source.incompatibility(table)
    else:
        matrix = source
    if matrix is None:
        raise AnonlabError(
            "parameter 'incompatibility' is required: a bool matrix (records × sensitive values) "
            "or a negative-rule set (anonlab.mining.negative_rules.mine_negative_rules)"
        )
    matrix = np.asarray(matrix)
    shape = (table.n_rows, table.domain_size(sens))
    if matrix.shape != shape:
        raise AnonlabError(
            f"parameter 'incompatibility' must have shape (records, values of {sens!r}) = "
            f"{shape}, got {matrix.shape}"
        )
    if matrix.dtype != np.bool_:
        if not np.isin(matrix, (0, 1)).all():
            raise AnonlabError("parameter 'incompatibility' must hold booleans (or 0/1)")
        matrix = matrix.astype(bool)
    return np.ascontiguousarray(matrix)


def _prepare(
    group: np.ndarray, sensitive_codes: np.ndarray, incompatibility: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    group = np.asarray(group, dtype=np.int64)
    codes = np.asarray(sensitive_codes, dtype=np.int64)
    inc = np.asarray(incompatibility)
    if inc.ndim != 2 or inc.shape[0] != len(group) or codes.shape != group.shape:
        raise AnonlabError(
            f"group ({group.shape}), sensitive codes ({codes.shape}) and incompatibility "
            f"({inc.shape}) must describe the same records"
        )
    if len(codes) and (codes.min() < 0 or codes.max() >= inc.shape[1]):
        raise AnonlabError(
            f"sensitive codes must lie in 0..{inc.shape[1] - 1} (the incompatibility columns)"
        )
    if len(group) and group.min() < 0:
        raise AnonlabError("group ids must be >= 0")
    n_groups = int(group.max()) + 1 if len(group) else 0
    return group, codes, np.ascontiguousarray(inc, dtype=np.bool_), n_groups


# ---------------------------------------------------------------------------------------------
# The two readings
# ---------------------------------------------------------------------------------------------


def simple_possible_values(
    group: np.ndarray, sensitive_codes: np.ndarray, incompatibility: np.ndarray
) -> np.ndarray:
    """Values in each record's group that no rule excludes for it (the simple reading).

    Parameters
    ----------
    group : ndarray of shape (n_rows,)
        Group id of each record (any non-negative ints).
    sensitive_codes : ndarray of shape (n_rows,)
        The published sensitive codes; each group's multiset is that of its members.
    incompatibility : ndarray of shape (n_rows, n_values), dtype=bool

    Returns
    -------
    ndarray of shape (n_rows, n_values), dtype=bool
    """
    group, codes, inc, n_groups = _prepare(group, sensitive_codes, incompatibility)
    # present & ~inc, as one comparison on booleans
    return np.greater(_group_values(group, codes, n_groups, inc.shape[1]), inc)


def group_values(group: np.ndarray, sensitive_codes: np.ndarray, n_values: int) -> np.ndarray:
    """The values each record's group holds: :func:`simple_possible_values` with no rule (the
    baseline of the negative-rule attack), shape (n_rows, n_values), dtype=bool."""
    group = np.asarray(group, dtype=np.int64)
    n_groups = int(group.max()) + 1 if len(group) else 0
    return _group_values(group, np.asarray(sensitive_codes), n_groups, n_values)


def _group_values(group: np.ndarray, codes: np.ndarray, n_groups: int, n_values: int):
    """Per record, which values its group holds, from one boolean (group x value) presence
    table (an int64 group histogram was 1.2 GB at 10M records in 3.3M groups of 46 values;
    this table is 153 MB)."""
    present = np.zeros((n_groups, n_values), dtype=np.bool_)
    present[group, codes] = True
    return present[group]


def matching_possible_values(
    group: np.ndarray, sensitive_codes: np.ndarray, incompatibility: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Values each record can take in some one-to-one assignment of its group (Definition 1).

    Parameters
    ----------
    group : ndarray of shape (n_rows,)
    sensitive_codes : ndarray of shape (n_rows,)
        The published sensitive codes (the groups' multisets).
    incompatibility : ndarray of shape (n_rows, n_values), dtype=bool

    Returns
    -------
    possible : ndarray of shape (n_rows, n_values), dtype=bool
        ``possible[i, s]``: some perfect matching of ``i``'s group gives ``s`` to ``i``. In a
        group with no perfect matching (``consistent`` False) the simple reading is returned.
    consistent : ndarray of shape (n_groups,), dtype=bool
        Whether the group has a perfect matching at all (n_groups = max group id + 1; ids that
        hold no record count as consistent).
    """
    group, codes, inc, n_groups = _prepare(group, sensitive_codes, incompatibility)
    n, d = inc.shape
    order = np.argsort(group, kind="stable").astype(np.int64)
    starts = np.r_[0, np.cumsum(np.bincount(group, minlength=n_groups))].astype(np.int64)
    possible = np.zeros((n, d), dtype=np.bool_)
    consistent = np.ones(n_groups, dtype=np.bool_)
    if n:
        _matching_kernel(order, starts, codes, inc, possible, consistent)
    if not consistent.all():
        bad = ~consistent[group]
        simple = simple_possible_values(group, codes, inc)
        possible[bad] = simple[bad]
    return possible, consistent


def possible_values(
    group: np.ndarray,
    sensitive_codes: np.ndarray,
    incompatibility: np.ndarray,
    reading: str = "matching",
) -> np.ndarray:
    """Possible values per record in the given reading (``"matching"`` or ``"simple"``)."""
    reading = check_choice("reading", reading, READINGS)
    if reading == "simple":
        return simple_possible_values(group, sensitive_codes, incompatibility)
    return matching_possible_values(group, sensitive_codes, incompatibility)[0]


# ---------------------------------------------------------------------------------------------
# Compiled matching + SCC
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _open_node(
    v: int,
    counter: int,
    sp: int,
    cp: int,
    index: np.ndarray,
    low: np.ndarray,
    stack: np.ndarray,
    call: np.ndarray,
    eptr: np.ndarray,
    adj_start: np.ndarray,
) -> None:
    """Tarjan's visit of node ``v`` (iterative): number it ``counter``, push it at ``sp`` on the
    SCC stack and at ``cp`` on the call stack, its edges from the first. The caller advances
    ``counter``, ``sp`` and ``cp``."""
    index[v] = counter
    low[v] = counter
    stack[sp] = v
    call[cp] = v
    eptr[v] = adj_start[v]


@njit(cache=True)
def group_valid(
    members: np.ndarray,
    slot: np.ndarray,
    inc: np.ndarray,
    out: np.ndarray,
    cap: np.ndarray,
    assign: np.ndarray,
    used: np.ndarray,
    adj_start: np.ndarray,
    adj: np.ndarray,
    work: np.ndarray,
) -> bool:
    """Matching-possible values of one group's members, written to ``out[members[k], :]``.

    ``members`` are record indices (rows of ``inc``, the record-by-value incompatibility
    matrix, and of ``out``, which only gains True entries); ``slot[k]`` is member k's published
    code (the multiset). Returns False when the group has no perfect matching (then ``out`` rows
    are left False). Workspaces, for ``m`` members and ``d`` sensitive values: ``cap, used`` of
    length ``d``, ``assign`` of ``m``, ``adj_start`` of ``m + d + 1``, ``adj`` of
    ``m * d + m + 1`` and ``work`` of ``6 (m + d) + 1`` (int64; longer is fine). Compiled
    (numba); shared by :func:`matching_l_diversity` and the Injector's repair loop.
    """
    m = members.shape[0]
    d = inc.shape[1]
    cap[:] = 0
    used[:] = 0
    for k in range(m):
        cap[slot[k]] += 1
    # 1. a perfect matching: own values where allowed, then augmenting paths (BFS).
    for k in range(m):
        v = slot[k]
        if not inc[members[k], v]:
            assign[k] = v
            used[v] += 1
        else:
            assign[k] = -1
    # BFS workspaces inside ``work``: parent of record nodes, parent of value nodes, queue.
    par_rec = work[0:m]
    par_val = work[m : m + d]
    queue = work[m + d : 2 * m + d]
    for k0 in range(m):
        if assign[k0] >= 0:
            continue
        par_rec[:] = -2
        par_val[:] = -2
        par_rec[k0] = -1
        head = 0
        tail = 0
        queue[tail] = k0
        tail += 1
        found = -1
        while head < tail and found < 0:
            r = queue[head]
            head += 1
            for v in range(d):
                if cap[v] == 0 or par_val[v] != -2 or inc[members[r], v]:
                    continue
                par_val[v] = r
                if used[v] < cap[v]:
                    found = v
                    break
                for j in range(m):
                    if assign[j] == v and par_rec[j] == -2:
                        par_rec[j] = v
                        queue[tail] = j
                        tail += 1
        if found < 0:
            return False
        # augment along the path: value found <- record par_val[found] <- value ... <- k0
        v = found
        used[v] += 1
        while True:
            r = par_val[v]
            prev = assign[r]
            assign[r] = v
            if r == k0:
                break
            v = par_rec[r]  # r gave up value v (== prev)
            if prev != v:
                return False  # cannot happen
    # 2. compressed graph: nodes 0..m-1 members, m..m+d-1 values.
    n_nodes = m + d
    pos = 0
    for k in range(m):
        adj_start[k] = pos
        r = members[k]
        for v in range(d):
            if cap[v] > 0 and not inc[r, v]:
                adj[pos] = m + v
                pos += 1
    for v in range(d):
        adj_start[m + v] = pos
        if cap[v] > 0:
            for j in range(m):
                if assign[j] == v:
                    adj[pos] = j
                    pos += 1
    adj_start[n_nodes] = pos
    # 3. Tarjan's SCC, iterative. work is reused: index, low, comp, stack, call stack, edge ptr.
    index = work[0:n_nodes]
    low = work[n_nodes : 2 * n_nodes]
    comp = work[2 * n_nodes : 3 * n_nodes]
    stack = work[3 * n_nodes : 4 * n_nodes]
    call = work[4 * n_nodes : 5 * n_nodes]
    eptr = work[5 * n_nodes : 6 * n_nodes]
    index[:] = -1
    comp[:] = -1
    counter = 0
    sp = 0
    n_comp = 0
    for s in range(n_nodes):
        if index[s] >= 0:
            continue
        if s >= m and cap[s - m] == 0:
            continue
        cp = 0
        _open_node(s, counter, sp, cp, index, low, stack, call, eptr, adj_start)
        counter += 1
        sp += 1
        cp += 1
        while cp > 0:
            u = call[cp - 1]
            if eptr[u] < adj_start[u + 1]:
                w = adj[eptr[u]]
                eptr[u] += 1
                if index[w] < 0:
                    _open_node(w, counter, sp, cp, index, low, stack, call, eptr, adj_start)
                    counter += 1
                    sp += 1
                    cp += 1
                elif comp[w] < 0:  # on the stack
                    if index[w] < low[u]:
                        low[u] = index[w]
            else:
                cp -= 1
                if low[u] == index[u]:
                    while True:
                        sp -= 1
                        w = stack[sp]
                        comp[w] = n_comp
                        if w == u:
                            break
                    n_comp += 1
                if cp > 0:
                    p = call[cp - 1]
                    if low[u] < low[p]:
                        low[p] = low[u]
    # 4. valid values.
    for k in range(m):
        r = members[k]
        for v in range(d):
            if v == assign[k]:
                out[r, v] = True
            elif cap[v] > 0 and not inc[r, v] and comp[k] == comp[m + v]:
                out[r, v] = True
    return True


@njit(cache=True)
def _matching_kernel(
    order: np.ndarray,
    starts: np.ndarray,
    codes: np.ndarray,
    inc: np.ndarray,
    possible: np.ndarray,
    consistent: np.ndarray,
) -> None:
    d = inc.shape[1]
    n_groups = starts.shape[0] - 1
    max_m = 0
    for g in range(n_groups):
        if starts[g + 1] - starts[g] > max_m:
            max_m = starts[g + 1] - starts[g]
    cap = np.zeros(d, dtype=np.int64)
    used = np.zeros(d, dtype=np.int64)
    assign = np.empty(max_m, dtype=np.int64)
    adj_start = np.empty(max_m + d + 1, dtype=np.int64)
    adj = np.empty(max_m * d + max_m + 1, dtype=np.int64)
    work = np.empty(6 * (max_m + d) + 1, dtype=np.int64)
    slot = np.empty(max_m, dtype=np.int64)
    for g in range(n_groups):
        a = starts[g]
        b = starts[g + 1]
        if b == a:
            continue
        members = order[a:b]
        for k in range(b - a):
            slot[k] = codes[members[k]]
        ok = group_valid(
            members, slot[: b - a], inc, possible, cap, assign, used, adj_start, adj, work
        )
        if not ok:
            consistent[g] = False


def member_valid_values(
    members: np.ndarray, sensitive_codes: np.ndarray, incompatibility: np.ndarray
) -> tuple[np.ndarray, bool]:
    """Matching-possible values of the records ``members`` taken as one group.

    Returns ``(possible, consistent)`` with ``possible`` of shape (len(members), n_values).
    """
    members = np.asarray(members, dtype=np.int64)
    group = np.zeros(len(members), dtype=np.int64)
    possible, consistent = matching_possible_values(
        group, np.asarray(sensitive_codes)[members], np.asarray(incompatibility)[members]
    )
    return possible, bool(consistent.all()) if len(consistent) else True


# ---------------------------------------------------------------------------------------------
# The privacy model
# ---------------------------------------------------------------------------------------------


def matching_l_diversity(
    release: Release, *, l: int, incompatibility: Any, reading: str = "matching"
) -> CheckResult:
    """Check matching ℓ-diversity (Li & Li, ICDE 2008, Definition 1).

    Every record must keep at least ℓ distinct possible sensitive values in its group under the
    adversary's background knowledge: values still possible in some one-to-one assignment of the
    group's published multiset to its members (``reading="matching"``, the paper's requirement),
    or values of the group not excluded for the record (``reading="simple"``, the requirement
    §V-A shows to be insufficient). A generalized release is checked as a bucketization (the
    adversary knows each record's exact quasi-identifiers and group).

    Parameters
    ----------
    release : Release
    l : int
        ℓ >= 1.
    incompatibility : ndarray of shape (n_rows, n_sensitive_values), dtype=bool, or a rule set
        ``True`` where the adversary excludes the value for the record; or an object with
        ``incompatibility(table)`` (a ``NegativeRuleSet``), evaluated on ``release.table``.
    reading : {"matching", "simple"}

    Returns
    -------
    CheckResult
        ``per_group`` is each group's smallest number of possible values over its members
        (int64); ``value`` the smallest over the release; a group violates when it is below ℓ.
        ``details``: ``vulnerable_records`` (records with fewer than ℓ possible values),
        ``pinned_records`` (exactly one), ``inconsistent_groups`` (no perfect matching).

    References
    ----------
    T. Li and N. Li. Injector: Mining Background Knowledge for Data Anonymization. ICDE 2008.
    """
    release = check_release(release)
    l = check_int("l", l, minimum=1)
    reading = check_choice("reading", reading, READINGS)
    if release.group is None:
        raise AnonlabError("matching ℓ-diversity needs per-record groups")
    inc = incompatibility_matrix(incompatibility, release.table)
    if reading == "simple":
        possible = simple_possible_values(release.group, release.sensitive_codes, inc)
        consistent = np.ones(release.n_groups, dtype=bool)
    else:
        possible, consistent = matching_possible_values(release.group, release.sensitive_codes, inc)
    counts = possible.sum(axis=1).astype(np.int64)
    per_group = np.full(release.n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(per_group, release.group, counts)
    violating = per_group < l
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    details = {
        "reading": reading,
        "vulnerable_records": int((counts < l).sum()),
        "pinned_records": int((counts == 1).sum()),
        "inconsistent_groups": int((~consistent).sum()),
        "excluded_pairs": int(inc.sum()),
    }
    return build_result(
        "matching-l-diversity",
        {"l": l, "reading": reading},
        per_group,
        violating,
        sizes,
        worst="min",
        details=details,
    )


__all__ = [
    "READINGS",
    "incompatibility_matrix",
    "matching_l_diversity",
    "matching_possible_values",
    "member_valid_values",
    "possible_values",
    "simple_possible_values",
    "group_values",
]
