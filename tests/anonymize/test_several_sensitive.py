"""Several sensitive attributes at once (issue 19): the lattice search, lightning, Mondrian, the
refusals of the one-attribute steps, the release folder and the audit.

Every expectation is built independently of the several-attribute code: from tables built
separately with ``Table.from_frame(..., sensitive="dx")`` (one per attribute, never through
``Table.for_sensitive``), by brute force over the 24 nodes of a small lattice, or with numpy.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from anonlab import Hierarchy, Table, models
from anonlab.anonymize import anonymize, generalize
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.release_io import load_release, save_release
from anonlab.release_io.export import GROUP_COLUMN
from anonlab.report.audit import audit

#: Three quasi-identifiers, as tests/anonymize/test_lattice_models.py: 4 x 3 x 2 = 24 nodes.
HIERARCHIES = {
    "age": Hierarchy.intervals(range(12), (3, 6)),
    "colour": Hierarchy(
        [
            [leaf, "warm" if leaf in ("red", "pink") else "cold", "*"]
            for leaf in ("red", "pink", "blue", "navy", "teal")
        ]
    ),
    "size": Hierarchy([[leaf, "*"] for leaf in "SML"]),
}
COLOUR, SIZE = HIERARCHIES["colour"], HIERARCHIES["size"]
QI = list(HIERARCHIES)
#: dx is categorical (letters), ins numeric (so its automatic t-closeness distance is ordered).
SENS = ("dx", "ins")

#: A wide domain for dx: with it the lattice counts its classes' histograms in a hash table
#: rather than an array (more (class, value) pairs than 4 per record and attribute).
WIDE = "abcdefghijklmnopqrst"

#: The parameters each model takes, written out here (not read from anonlab.models).
TAKES = {
    "k-anonymity": ("k",),
    "distinct-l-diversity": ("l",),
    "l-diversity": ("l",),
    "t-closeness": ("t", "distance"),
}
#: The combinations searched: two compiled in the roll-up, one (frequency ℓ) through
#: models.check.
COMBINATIONS = [
    "k-anonymity,distinct-l-diversity",
    "k-anonymity,t-closeness",
    "k-anonymity,l-diversity",
]


@st.composite
def frames(draw, min_rows: int = 4, max_rows: int = 40) -> pd.DataFrame:
    """Records (age, colour, size; dx, ins) drawn row by row. Each sensitive attribute has a
    domain of drawn size and is either drawn at random or, but for drawn noisy records, a
    function of one quasi-identifier's exact value (so that different attributes force
    different quasi-identifiers up, and either may be the one that binds)."""
    if draw(st.booleans()):
        domains = {"dx": draw(st.sampled_from(["ab", "abc", "abcd"])),
                   "ins": list(range(draw(st.integers(2, 4))))}  # fmt: skip
    else:
        domains = {"dx": WIDE, "ins": list(range(16))}
    follows = {a: draw(st.sampled_from([None, *QI])) for a in SENS}
    record = st.tuples(
        st.integers(0, 11), st.sampled_from(list(COLOUR.leaves)),
        st.sampled_from(list(SIZE.leaves)), st.integers(0, 19), st.integers(0, 15),
        st.integers(0, 4), st.integers(0, 4),
    )  # fmt: skip
    rows = draw(st.lists(record, min_size=min_rows, max_size=max_rows))
    index = {"age": lambda v: v, "colour": list(COLOUR.leaves).index,
             "size": list(SIZE.leaves).index}  # fmt: skip
    out = []
    for age, colour, size, *drawn in rows:
        qi = {"age": age, "colour": colour, "size": size}
        values = []
        for j, a in enumerate(SENS):
            domain, q = domains[a], follows[a]
            noisy = drawn[2 + j] == 0  # one record in five
            key = drawn[j] if q is None or noisy else index[q](qi[q])
            values.append(domain[key % len(domain)])
        out.append((age, colour, size, *values))
    return pd.DataFrame(out, columns=[*QI, *SENS])


@st.composite
def parameters(draw, combination: str) -> dict:
    """Parameters for the models of ``combination`` (t-closeness with the equal distance)."""
    out: dict = {"k": draw(st.integers(1, 4))}
    if "distinct-l-diversity" in combination:
        out["l"] = draw(st.sampled_from([1, 2, 2, 3]))
    elif "l-diversity" in combination:  # the frequency form: ℓ = 2 is demanding already
        out["l"] = draw(st.sampled_from([1, 2, 2]))
    if "t-closeness" in combination:
        out["t"] = draw(st.sampled_from([0.1, 0.2, 0.3, 0.4, 0.5]))
        out["distance"] = "equal"
    return out


def both(df: pd.DataFrame) -> Table:
    return Table.from_frame(df, quasi_identifiers=QI, sensitive=list(SENS), hierarchies=HIERARCHIES)


def single(df: pd.DataFrame, name: str) -> Table:
    """A separate table with ``name`` its one sensitive attribute (the other left out)."""
    return Table.from_frame(
        df.drop(columns=[a for a in SENS if a != name]),
        quasi_identifiers=QI,
        sensitive=name,
        hierarchies=HIERARCHIES,
    )


def singles(df: pd.DataFrame) -> dict[str, Table]:
    return {a: single(df, a) for a in SENS}


def partition(labels) -> frozenset[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for i, g in enumerate(np.asarray(labels).tolist()):
        groups.setdefault(g, set()).add(i)
    return frozenset(frozenset(s) for s in groups.values())


def _nodes() -> np.ndarray:
    """Every node in itertools.product order (the lattice's order, last attribute fastest)."""
    heights = [HIERARCHIES[q].height for q in QI]
    return np.array(list(itertools.product(*(range(h + 1) for h in heights))), dtype=np.int64)


def _failing_rows(tables: dict[str, Table], levels: dict, combination: str, params: dict):
    """The records of the classes at ``levels`` that violate some model of ``combination`` for
    some attribute, each checked on the attribute's own table by models.check of one model."""
    failing = None
    for table in tables.values():
        release = generalize(table, levels)
        if failing is None:
            failing = np.zeros(table.n_rows, dtype=bool)
        for name in combination.split(","):
            result = models.check(release, name, **{p: params[p] for p in TAKES[name]})
            bad = np.zeros(release.n_groups, dtype=bool)
            bad[np.asarray(result.violating_groups, dtype=np.int64)] = True
            assert bool(result.holds) == (not bad.any())
            failing |= bad[release.group]
    return failing


def brute_force(tables: dict[str, Table], combination: str, params: dict, limit: int = 0):
    """The node of least height (ties: node order, as the lattice's lexsort breaks them; the
    height is the sum of levels) whose violating classes hold at most ``limit`` records, and
    those records; (None, None) when there is none."""
    nodes = _nodes()
    order = np.argsort(nodes.sum(axis=1), kind="stable")
    for i in order.tolist():
        levels = dict(zip(QI, nodes[i].tolist(), strict=True))
        failing = _failing_rows(tables, levels, combination, params)
        if int(failing.sum()) <= limit:
            return levels, failing
    return None, None


# ---------------------------------------------------------------------- the lattice search
@pytest.mark.parametrize("combination", COMBINATIONS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_lattice_finds_the_brute_force_optimum_for_every_attribute(combination, data):
    """Without suppression the lattice's node is the least-height node at which every model
    holds for each sensitive attribute (each checked on its own separately built table), or
    the lattice says no node holds; lightning's node holds too, and when it says it is optimal
    its height is the optimum's."""
    df = data.draw(frames())
    params = data.draw(parameters(combination))
    table, tables = both(df), singles(df)
    expected, _ = brute_force(tables, combination, params)
    if expected is None:
        with pytest.raises(AnonlabError, match="no node of the lattice"):
            anonymize(table, "lattice", model=combination, metric="height", **params)
        return
    release = anonymize(table, "lattice", model=combination, metric="height", **params)
    assert release.levels == expected
    assert release.table.sensitive_attributes == SENS
    assert models.check(release, combination, **params).holds
    for t in tables.values():  # the chosen node's groups, attribute by attribute
        on_own = Release(t, release.group, "generalization")
        for name in combination.split(","):
            assert models.check(on_own, name, **{p: params[p] for p in TAKES[name]}).holds

    heuristic = anonymize(table, "lightning", model=combination, metric="height", **params)
    assert not _failing_rows(tables, heuristic.levels, combination, params).any()
    if heuristic.manifest["lattice"]["proven_optimal"]:
        assert sum(heuristic.levels.values()) == sum(expected.values())


@pytest.mark.parametrize("combination", COMBINATIONS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_lattice_with_suppression_keeps_only_records_that_satisfy_every_model(combination, data):
    """With a suppression limit (a share s) the lattice's node is the least-height node whose
    violating classes (for any model and any attribute) hold at most floor(s n) records,
    exactly those records are withheld, and the kept records satisfy every model for each
    attribute (t-closeness against the whole input, as ARX compares)."""
    df = data.draw(frames(min_rows=5))
    params = data.draw(parameters(combination))
    suppression = data.draw(st.sampled_from([0.1, 0.2, 0.3]))
    table, tables = both(df), singles(df)
    limit = int(np.floor(suppression * len(df) + 1e-9))
    expected, failing = brute_force(tables, combination, params, limit)
    if expected is None:
        with pytest.raises(AnonlabError, match="no node of the lattice"):
            anonymize(table, "lattice", model=combination, metric="height",
                      suppression=suppression, **params)  # fmt: skip
        return
    release = anonymize(
        table, "lattice", model=combination, metric="height", suppression=suppression, **params
    )
    assert release.levels == expected
    kept = np.asarray(release.table.row_id)
    assert kept.tolist() == np.flatnonzero(~failing).tolist()
    assert len(df) - len(kept) <= limit
    assert release.manifest["suppressed_records"] == len(df) - len(kept)
    assert models.check(release, combination, **params).holds
    for a, t in tables.items():
        whole = np.bincount(t.codes[a], minlength=t.domain_size(a))
        on_own = Release(t.take(kept), release.group, "generalization", reference_counts=whole)
        for name in combination.split(","):
            result = models.check(on_own, name, **{p: params[p] for p in TAKES[name]})
            assert result.holds, (a, name, result.value)
    # the kept groups are the node's classes, less the withheld ones
    full = generalize(table, expected)
    assert partition(release.group) == partition(full.group[kept])


@pytest.mark.parametrize("seed", [275, 283, 479])
def test_lattice_with_suppression_prunes_only_on_the_monotone_part(seed):
    """k-anonymity with t-closeness under suppression: t-closeness's violating records may
    shrink as classes split, so a node that fails on them proves nothing below it; tables
    (found by a random search) where pruning on the whole combination misses the optimum."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 30))
    df = pd.DataFrame(
        {
            "age": rng.integers(0, 12, n),
            "colour": rng.choice(list(COLOUR.leaves), n),
            "size": rng.choice(list(SIZE.leaves), n),
            "dx": rng.choice(list("abc"), n),
            "ins": rng.integers(0, int(rng.integers(2, 4)), n),
        }
    )
    combination = "k-anonymity,t-closeness"
    params = {"k": int(rng.integers(1, 3)), "t": float(rng.choice([0.1, 0.2, 0.3, 0.4])),
              "distance": "equal"}  # fmt: skip
    suppression = float(rng.choice([0.1, 0.2, 0.3]))
    limit = int(np.floor(suppression * n + 1e-9))
    expected, failing = brute_force(singles(df), combination, params, limit)
    release = anonymize(both(df), "lattice", model=combination, metric="height",
                        suppression=suppression, **params)  # fmt: skip
    assert release.levels == expected
    assert np.asarray(release.table.row_id).tolist() == np.flatnonzero(~failing).tolist()


@pytest.mark.parametrize("suppression", [0.0, 0.1])
@pytest.mark.parametrize("combination", COMBINATIONS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lattice_with_wide_sensitive_domains(seed, combination, suppression):
    """40 records, nearly one class per record at the finest node, 20 + 16 sensitive values:
    the classes' histograms are hashed (more than 4 (class, value) pairs per record and
    attribute), and the search still finds the brute-force node."""
    rng = np.random.default_rng(seed)
    n = 40
    df = pd.DataFrame(
        {
            "age": rng.integers(0, 12, n),
            "colour": rng.choice(list(COLOUR.leaves), n),
            "size": rng.choice(list(SIZE.leaves), n),
            "dx": rng.choice(list(WIDE), n),
            "ins": rng.integers(0, 16, n),
        }
    )
    table, tables = both(df), singles(df)
    n_classes = len(df[QI].drop_duplicates())
    assert n_classes * sum(table.domain_size(a) for a in SENS) > 4 * n * len(SENS)
    params = {"k": 2, "l": 3 if "distinct" in combination else 2, "t": 0.6, "distance": "equal"}
    params = {key: params[key] for name in combination.split(",") for key in TAKES[name]}
    limit = int(np.floor(suppression * n + 1e-9))
    expected, failing = brute_force(tables, combination, params, limit)
    assert expected is not None
    release = anonymize(table, "lattice", model=combination, metric="height",
                        suppression=suppression, **params)  # fmt: skip
    assert release.levels == expected
    assert np.asarray(release.table.row_id).tolist() == np.flatnonzero(~failing).tolist()


def test_lattice_combination_generalizes_for_the_second_attribute():
    """A case checked by hand. Pairs of records share (age, colour); dx has two values in every
    pair, so dx alone allows the finest node. ins is constant in the red and the pink pair, so
    those pairs must merge: colour to "warm" merges them only once age is in one interval
    ([0-2]), and nothing lower does (age alone or colour alone keeps them apart)."""
    df = pd.DataFrame(
        {
            "age": [0, 0, 1, 1, 2, 2],
            "colour": ["red", "red", "pink", "pink", "blue", "blue"],
            "size": ["S"] * 6,
            "dx": list("ababab"),
            "ins": [0, 0, 1, 1, 0, 1],
        }
    )
    model = "k-anonymity,distinct-l-diversity"
    alone = anonymize(single(df, "dx"), "lattice", model=model, k=2, l=2, metric="height")
    assert alone.levels == {"age": 0, "colour": 0, "size": 0}
    release = anonymize(both(df), "lattice", model=model, k=2, l=2, metric="height")
    assert release.levels == {"age": 1, "colour": 1, "size": 0}
    assert partition(release.group) == partition([0, 0, 0, 0, 1, 1])


# ---------------------------------------------------------------------- Mondrian
NUMERIC_QI = ["age", "zip"]


@st.composite
def mondrian_frames(draw, copy: bool = False) -> pd.DataFrame:
    """Two numeric quasi-identifiers; dx letters and ins numbers, each of a drawn domain."""
    record = st.tuples(
        st.integers(0, 20), st.integers(0, 9),
        st.sampled_from(draw(st.sampled_from(["ab", "abc", "abcd"]))),
        st.integers(0, draw(st.integers(1, 4))),
    )  # fmt: skip
    rows = draw(st.lists(record, min_size=1, max_size=60))
    df = pd.DataFrame(rows, columns=[*NUMERIC_QI, *SENS])
    if copy:
        df["ins"] = df["dx"]
    return df


def m_table(df: pd.DataFrame, sensitive) -> Table:
    keep = [*NUMERIC_QI, *([sensitive] if isinstance(sensitive, str) else sensitive or [])]
    return Table.from_frame(df[keep], quasi_identifiers=NUMERIC_QI, sensitive=sensitive)


def _emd(hist: np.ndarray, reference: np.ndarray, distance: str) -> float:
    """t-closeness's EMD of one half (counts ``hist``) to the whole table (``reference``),
    summed in exact integers as anonlab.models.t_closeness documents."""
    m, n = int(hist.sum()), int(reference.sum())
    diff = hist.astype(np.int64) * n - m * reference.astype(np.int64)
    if distance == "equal":
        return int(np.abs(diff).sum()) / (2 * m * n)
    if len(hist) < 2:
        return 0.0
    return int(np.abs(np.cumsum(diff)).sum()) / ((len(hist) - 1) * m * n)


def _allowed(rows, tables, k, l, t, distances) -> bool:
    """Whether a half of ``rows`` satisfies k, frequency ℓ and t for every attribute."""
    if len(rows) < k:
        return False
    for a, table in tables.items():
        codes = table.codes[a]
        size = table.domain_size(a)
        hist = np.bincount(codes[rows], minlength=size)
        if l is not None and l * hist.max() > len(rows):
            return False
        if t is not None:
            whole = np.bincount(codes, minlength=size)
            if _emd(hist, whole, distances[a]) > t:
                return False
    return True


def _median_cut(values: np.ndarray) -> np.ndarray:
    """Mondrian's strict lower-median cut (mondrian.py's docstring): left = x <= median, or
    x < median when that leaves the right empty; a bool mask of the left records."""
    xs = np.sort(values)
    median = xs[(len(xs) - 1) // 2]
    left = values <= median
    if left.all():
        left = values < median
    return left


@settings(max_examples=60, deadline=None)
@given(
    mondrian_frames(),
    st.integers(1, 5),
    st.one_of(st.none(), st.integers(1, 3)),
    st.one_of(st.none(), st.sampled_from([0.15, 0.3, 0.5, 0.8])),
    st.sampled_from([None, "equal", "ordered"]),
)
def test_mondrian_groups_satisfy_every_model_for_each_attribute(df, k, l, t, distance):
    """Every group has >= k records and, for each attribute on its own separately built table,
    is frequency ℓ-diverse and t-close (the manifest's distance per attribute); and no group
    could still be cut: its median cut on any quasi-identifier leaves a half that fails some
    model for some attribute (strict Mondrian's stopping rule)."""
    distance = None if t is None else distance
    table = m_table(df, list(SENS))
    tables = {a: m_table(df, a) for a in SENS}
    auto = {"dx": "equal", "ins": "ordered"}  # categorical without hierarchy; numeric
    distances = {a: distance or auto[a] for a in SENS}
    ineligible = l is not None and any(l * df[a].value_counts().max() > len(df) for a in SENS)
    if ineligible or k > len(df):
        with pytest.raises(AnonlabError):
            anonymize(table, "mondrian", k=k, l=l, t=t, distance=distance)
        return
    release = anonymize(table, "mondrian", k=k, l=l, t=t, distance=distance)
    params = release.manifest["parameters"]
    if t is not None:
        assert params["distance"] == distances
    for a, own in tables.items():
        on_own = Release(own, release.group, "generalization")
        assert models.check(on_own, "k-anonymity", k=k).holds
        if l is not None:
            assert models.check(on_own, "l-diversity", l=l).holds, a
        if t is not None:
            result = models.check(on_own, "t-closeness", t=t, distance=distances[a])
            assert result.holds, (a, result.value)
    for g in range(release.n_groups):
        rows = np.flatnonzero(release.group == g)
        for q in NUMERIC_QI:
            values = table.codes[q][rows]
            if values.min() == values.max():
                continue
            left = _median_cut(values)
            halves = (rows[left], rows[~left])
            assert not all(_allowed(h, tables, k, l, t, distances) for h in halves), (
                f"group {g} could still be cut on {q}"
            )


def reference_mondrian(table, tables, k, l, t, distances) -> frozenset[frozenset[int]]:
    """Strict Mondrian as mondrian.py documents it, written for clarity (as
    tests/anonymize/test_mondrian.py's Reference, with every sensitive attribute and t): the
    attributes by decreasing normalized range, ties by column order; the median cut; a cut is
    allowable when both halves satisfy k, ℓ and t for every attribute (:func:`_allowed`)."""
    width = [table.domain_size(q) - 1 for q in NUMERIC_QI]
    groups = []
    stack = [np.arange(table.n_rows)]
    while stack:
        rows = stack.pop()
        span = [
            (np.ptp(table.codes[q][rows]) / width[j]) if width[j] > 0 else 0.0
            for j, q in enumerate(NUMERIC_QI)
        ]
        cut = None
        for j in sorted(range(len(NUMERIC_QI)), key=lambda j: -span[j]):  # stable: ties
            if span[j] <= 0:
                break
            left = _median_cut(table.codes[NUMERIC_QI[j]][rows])
            halves = (rows[left], rows[~left])
            if all(len(h) and _allowed(h, tables, k, l, t, distances) for h in halves):
                cut = halves
                break
        if cut is None:
            groups.append(frozenset(rows.tolist()))
        else:
            stack += [cut[1], cut[0]]
    return frozenset(groups)


@settings(max_examples=80, deadline=None)
@given(
    mondrian_frames(),
    st.integers(1, 4),
    st.one_of(st.none(), st.integers(1, 3)),
    st.one_of(st.none(), st.sampled_from([0.1, 0.2, 0.3, 0.5])),
    st.sampled_from([None, "equal", "ordered"]),
)
def test_mondrian_equals_a_plain_reference_over_every_attribute(df, k, l, t, distance):
    """The groups are exactly those of the documented rules applied with every model to every
    sensitive attribute (the automatic distance: equal for dx, ordered for the numeric ins)."""
    distance = None if t is None else distance
    table = m_table(df, list(SENS))
    tables = {a: m_table(df, a) for a in SENS}
    distances = {a: distance or {"dx": "equal", "ins": "ordered"}[a] for a in SENS}
    if k > len(df) or (l is not None and not _allowed(np.arange(len(df)), tables, 1, l, None,
                                                       distances)):  # fmt: skip
        return
    release = anonymize(table, "mondrian", k=k, l=l, t=t, distance=distance)
    assert partition(release.group) == reference_mondrian(table, tables, k, l, t, distances)


@settings(max_examples=40, deadline=None)
@given(mondrian_frames(), st.integers(1, 6))
def test_mondrian_with_k_only_ignores_the_sensitive_attributes(df, k):
    """k alone: the groups are those of Mondrian on the table without sensitive attributes."""
    if k > len(df):
        return
    with_sens = anonymize(m_table(df, list(SENS)), "mondrian", k=k)
    without = anonymize(m_table(df, None), "mondrian", k=k)
    assert partition(with_sens.group) == partition(without.group)


@settings(max_examples=50, deadline=None)
@given(
    mondrian_frames(copy=True),
    st.integers(1, 4),
    st.one_of(st.none(), st.integers(2, 3)),
    st.one_of(st.none(), st.sampled_from([0.2, 0.4, 0.7])),
    st.sampled_from(["equal", "ordered"]),
)
def test_mondrian_with_a_copied_attribute_equals_one_attribute(df, k, l, t, distance):
    """ins an exact copy of dx: the same groups as Mondrian protecting dx alone."""
    if l is None and t is None:
        l = 2
    kwargs = {"k": k, "l": l, "t": t, "distance": distance if t is not None else None}
    try:
        single = partition(anonymize(m_table(df, "dx"), "mondrian", **kwargs).group)
    except AnonlabError:  # refused for dx alone: refused for the copy too
        with pytest.raises(AnonlabError):
            anonymize(m_table(df, list(SENS)), "mondrian", **kwargs)
        assume(False)  # a refusal says little about the groups: draw another table
    assert partition(anonymize(m_table(df, list(SENS)), "mondrian", **kwargs).group) == single


def test_mondrian_protects_the_second_attribute_where_the_first_allows_a_cut():
    """dx alone is cut into two pairs (a and b in each); ins is 0, 0 and 1, 1 in those pairs,
    so with both attributes ℓ = 2 keeps the table one group."""
    df = pd.DataFrame(
        {"age": [0, 1, 2, 3], "zip": [0, 0, 0, 0], "dx": list("abab"), "ins": [0, 0, 1, 1]}
    )
    alone = anonymize(m_table(df, "dx"), "mondrian", l=2)
    assert alone.n_groups == 2
    release = anonymize(m_table(df, list(SENS)), "mondrian", l=2)
    assert release.n_groups == 1
    assert release.manifest["parameters"]["l"] == 2


# ---------------------------------------------------------------------- refusals
def _fixed_frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 60
    return pd.DataFrame(
        {
            "age": rng.integers(0, 12, n),
            "colour": rng.choice(list(COLOUR.leaves), n),
            "size": rng.choice(list(SIZE.leaves), n),
            "dx": rng.choice(list("abcd"), n),
            "ins": rng.choice([0, 1, 2], n),
        }
    )


def test_the_table_names_its_sensitive_attributes_and_refuses_to_pick_one():
    df = _fixed_frame()
    table = both(df)
    assert table.sensitive_attributes == SENS
    with pytest.raises(AnonlabError) as error:
        _ = table.sensitive
    assert "'dx'" in str(error.value) and "'ins'" in str(error.value)
    view = table.for_sensitive("ins")
    assert view.sensitive == "ins" and view.sensitive_attributes == ("ins",)
    assert "dx" in view.schema.insensitive
    own = single(df, "ins")
    assert np.array_equal(view.column("ins"), own.column("ins"))
    assert np.array_equal(view.column("dx"), df["dx"].to_numpy())
    assert view.n_rows == table.n_rows
    with pytest.raises(AnonlabError, match="'age' is not a sensitive attribute"):
        table.for_sensitive("age")


#: The anonymizers that protect one sensitive attribute, with parameters they accept.
ONE_ATTRIBUTE = {
    "anatomy": {"l": 2},
    "hilb": {"l": 2},
    "hilb+": {"l": 2},
    "hilb++": {"l": 2},
    "mondrian+": {"l": 2},
    "mondrian++": {"l": 2},
    "injector": {"l": 2},
    "mask": {"k": 2, "m": 2},
    "mask+": {"k": 2, "m": 2},
    "mask++": {"k": 2, "m": 2},
}
SEVERAL_ATTRIBUTES = ("mondrian", "lattice", "lightning", "generalize")


@pytest.mark.parametrize("algorithm", sorted(ONE_ATTRIBUTE))
def test_one_attribute_anonymizers_refuse_several_naming_those_that_take_them(algorithm):
    table = both(_fixed_frame())
    with pytest.raises(AnonlabError) as error:
        anonymize(table, algorithm, **ONE_ATTRIBUTE[algorithm])
    message = str(error.value)
    assert repr(algorithm) in message
    assert "dx" in message and "ins" in message
    for name in SEVERAL_ATTRIBUTES:
        assert name in message, name


@pytest.mark.parametrize("algorithm", sorted(ONE_ATTRIBUTE))
def test_one_attribute_anonymizers_refuse_several_when_called_directly(algorithm):
    """Called as functions (not through anonymize), they stop at the table's one sensitive
    attribute, which names both."""
    from anonlab.anonymize import ALGORITHMS

    with pytest.raises(AnonlabError) as error:
        ALGORITHMS[algorithm](both(_fixed_frame()), **ONE_ATTRIBUTE[algorithm])
    assert "'dx'" in str(error.value) and "'ins'" in str(error.value)


def test_a_frame_with_several_sensitive_columns_is_taken_or_refused_by_name():
    df = _fixed_frame()
    frame = {"quasi_identifiers": QI, "sensitive": list(SENS), "hierarchies": HIERARCHIES}
    release = anonymize(df, "mondrian", k=3, l=2, **frame)
    assert release.table.sensitive_attributes == SENS
    assert release.manifest["column_roles"]["ins"] == "sensitive"
    with pytest.raises(AnonlabError, match="'anatomy' protects one sensitive attribute"):
        anonymize(df, "anatomy", l=2, **frame)


def test_several_attribute_steps_refuse_what_publishes_one():
    table = both(_fixed_frame())
    node = {"age": 1, "colour": 1, "size": 1}
    calls = [
        lambda: anonymize(table, "mondrian", k=2, scheme="bucketization"),
        lambda: anonymize(table, "lattice", model="k-anonymity", k=2, scheme="bucketization"),
        lambda: generalize(table, node, scheme="bucketization"),
        lambda: Release(table, np.zeros(table.n_rows, dtype=int), "bucketization"),
    ]
    for call in calls:
        with pytest.raises(AnonlabError, match="2 sensitive attributes") as error:
            call()
        assert "dx" in str(error.value) and "ins" in str(error.value)
    with pytest.raises(AnonlabError, match="sensitive_values") as error:
        anonymize(table, "mondrian", l=2, sensitive_values=["a"])
    assert "dx" in str(error.value) and "ins" in str(error.value)


def test_lattice_refuses_sensitive_values_with_several_attributes():
    df = _fixed_frame()
    df["ins"] = np.where(df["ins"] == 0, "a", "b")  # 'a' is a value of both attributes
    with pytest.raises(AnonlabError, match="sensitive_values"):
        anonymize(both(df), "lattice", model="l-diversity", l=2, sensitive_values=["a"])


# ---------------------------------------------------------------------- the release folder
def _multisets(groups: np.ndarray, frame: pd.DataFrame, columns: list[str]) -> Counter:
    """Each group's multiset of ``columns``' values, as a multiset over groups."""
    out: Counter = Counter()
    for g in np.unique(groups).tolist():
        rows = frame[groups == g]
        out[frozenset(Counter(map(tuple, rows[columns].astype(str).to_numpy())).items())] += 1
    return out


LATTICE_MODEL = "k-anonymity,distinct-l-diversity,t-closeness"


@pytest.mark.parametrize("algorithm", ["mondrian", "lattice"])
def test_save_and_load_keep_both_sensitive_attributes(tmp_path, algorithm):
    df = _fixed_frame()
    table = both(df)
    if algorithm == "mondrian":
        release = anonymize(table, "mondrian", k=3, l=2, t=0.4)
    else:
        release = anonymize(table, "lattice", model=LATTICE_MODEL, k=3, l=2, t=0.4,
                            distance="equal", suppression=0.1)  # fmt: skip
        assert release.reference_counts is not None  # each attribute's counts of the input
    folder = save_release(release, tmp_path / "release")
    loaded = load_release(folder)
    assert loaded.table.sensitive_attributes == SENS
    assert loaded.manifest["parameters"] == release.manifest["parameters"]
    assert partition(loaded.group) == partition(release.group)
    assert np.array_equal(loaded.table.row_id, release.table.row_id)
    for a in SENS:
        assert np.array_equal(
            loaded.table.column(a).astype(str), df[a].to_numpy()[release.table.row_id].astype(str)
        )
    # the published frame and file: every sensitive column, each group's records as they were
    published = release.published_frames()["generalized"]
    assert set(SENS) <= set(published.columns)
    kept = df.iloc[release.table.row_id].reset_index(drop=True)
    expected = _multisets(release.group, kept, list(SENS))
    assert _multisets(published[GROUP_COLUMN].to_numpy(), published, list(SENS)) == expected
    on_disk = pd.read_csv(folder / "published" / "generalized.csv", dtype=str)
    assert _multisets(on_disk[GROUP_COLUMN].to_numpy(), on_disk, list(SENS)) == expected
    for a in SENS:
        assert Counter(on_disk[a]) == Counter(kept[a].astype(str))
    # the checks read the loaded release as the original (after suppression: t-closeness
    # against each attribute's counts of the whole input, saved in the manifest)
    if algorithm == "lattice":
        combination, params = LATTICE_MODEL, {"k": 3, "l": 2, "t": 0.4, "distance": "equal"}
    else:
        combination, params = "k-anonymity,l-diversity,t-closeness", {"k": 3, "l": 2, "t": 0.4}
    before = models.check(release, combination, **params)
    after = models.check(loaded, combination, **params)
    assert before.holds and after.holds
    assert before.details == after.details


# ---------------------------------------------------------------------- the audit
def test_audit_runs_each_attack_per_attribute():
    df = _fixed_frame()
    release = anonymize(both(df), "mondrian", k=4, l=2)
    budget = {"targets": 20, "chains": 2, "sweeps": 20, "queries": 50}
    result = audit(release, stages=["checks", "definetti", "risk", "utility"], **budget)
    keys = [f.key for f in result.findings]
    assert keys == [
        "checks", "definetti/dx", "definetti/ins", "risk", "utility/dx", "utility/ins",
    ]  # fmt: skip
    assert result.release["sensitive"] == list(SENS)
    for a in SENS:
        finding = result.finding(f"definetti/{a}")
        assert a in finding.title
        alone = audit(release.for_sensitive(a), stages=["definetti"], **budget)
        assert finding.at_risk == alone.finding("definetti").at_risk
        # the same groups over a separately built one-attribute table
        own = Release(single(df, a), release.group, "generalization",
                      dict(release.manifest))  # fmt: skip
        separate = audit(own, stages=["definetti"], **budget).finding("definetti")
        assert finding.at_risk == separate.at_risk
        assert finding.considered == separate.considered
        assert finding.verdict != "skipped"
        utility = audit(own, stages=["utility"], **budget).finding("utility")
        assert result.finding(f"utility/{a}").measures == utility.measures
    # the checks stage checks each attribute: its own models hold for both
    checks = result.finding("checks")
    assert checks.verdict == "pass"
