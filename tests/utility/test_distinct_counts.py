"""The actual answers counted over the distinct (quasi-identifier row, sensitive value) cells
equal a count record by record, and the bucketized published classes (numbered by hashing or
sorting mixed-radix keys, renumbered where the key space overflows int64) equal a brute-force
numbering of the rows in code order."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import Release, Table
from anonlab.utility import Workload, actual_counts, workload_error
from anonlab.utility import published_classes as pcmod
from anonlab.utility.workload import answers as wmod

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw):
    """A small table: rows that repeat (small domains) or are all distinct (unique tuples),
    numeric and categorical quasi-identifiers, a sensitive attribute of 1 to 6 values."""
    n = draw(st.integers(1, 50))
    n_qi = draw(st.integers(1, 4))
    numeric = [draw(st.booleans()) for _ in range(n_qi)]
    width = draw(st.integers(1, 30))
    row = st.tuples(*[st.integers(0, width) for _ in range(n_qi)])
    unique = draw(st.booleans()) and (width + 1) ** n_qi >= n
    rows = draw(st.lists(row, min_size=n, max_size=n, unique=unique))
    cols = {}
    for i in range(n_qi):
        values = [r[i] for r in rows]
        cols[f"q{i}"] = values if numeric[i] else [f"c{v}" for v in values]
    cols["s"] = draw(st.lists(st.sampled_from([f"s{v}" for v in range(6)]), min_size=n, max_size=n))
    return Table.from_frame(
        pd.DataFrame(cols),
        quasi_identifiers=[f"q{i}" for i in range(n_qi)],
        sensitive="s",
        numeric=[f"q{i}" for i in range(n_qi) if numeric[i]],
    )


def random_workload(table: Table, n_queries: int, seed: int) -> Workload:
    """Random predicates over codes, answers of 0 included: each quasi-identifier used or not,
    code ranges (some empty) for numeric attributes, value subsets (some empty) otherwise."""
    rng = np.random.default_rng(seed)
    qis = tuple(table.quasi_identifiers)
    sens = table.require_sensitive()
    uses = rng.random((n_queries, len(qis))) < 0.6
    masks, intervals = {}, {}
    for j, name in enumerate((*qis, sens)):
        size = table.domain_size(name)
        used = np.ones(n_queries, dtype=bool) if name == sens else uses[:, j]
        if table.schema[name].kind.value == "numeric":
            iv = np.tile(np.array([0, size - 1], dtype=np.int64), (n_queries, 1))
            ends = np.sort(rng.integers(-1, size + 1, (n_queries, 2)), axis=1)
            empty = rng.random(n_queries) < 0.1
            ends[empty] = ends[empty][:, ::-1]  # lo > hi: selects nothing
            iv[used] = ends[used]
            intervals[name] = iv
        else:
            m = np.ones((n_queries, size), dtype=bool)
            m[used] = rng.random((int(used.sum()), size)) < 0.5
            masks[name] = m
    sizes = {name: table.domain_size(name) for name in (*qis, sens)}
    return Workload(qis, sens, sizes, uses, masks, intervals)


def count_record_by_record(table: Table, wl: Workload) -> list[int]:
    """Each query's answer: the records whose codes satisfy all its predicates, one by one."""

    def satisfies(name: str, j: int, code: int) -> bool:
        if name in wl.intervals:
            lo, hi = wl.intervals[name][j]
            return bool(lo <= code <= hi)
        return bool(wl.masks[name][j, code])

    answers = []
    for j in range(len(wl)):
        names = [q for i, q in enumerate(wl.quasi_identifiers) if wl.uses[j, i]]
        names.append(wl.sensitive)
        answers.append(
            sum(
                all(satisfies(q, j, int(table.codes[q][r])) for q in names)
                for r in range(table.n_rows)
            )
        )
    return answers


def distinct_cells(table: Table, wl: Workload) -> int:
    used = [q for i, q in enumerate(wl.quasi_identifiers) if wl.uses[:, i].any()]
    names = [*used, wl.sensitive]
    return len({tuple(int(table.codes[q][r]) for q in names) for r in range(table.n_rows)})


@SETTINGS
@given(
    table=tables(),
    n_queries=st.integers(1, 14),
    seed=st.integers(0, 2**16),
    path=st.sampled_from(["compressed", "records"]),
    merge=st.sampled_from(["default", "always", "never"]),
    chunk=st.sampled_from([3, 1 << 22]),
    sample_from=st.sampled_from([0, 1 << 17]),
)
def test_actual_counts_equal_a_count_record_by_record(
    table, n_queries, seed, path, merge, chunk, sample_from
):
    wl = random_workload(table, n_queries, seed)
    fraction = {"default": wmod._CELLS_MAX_FRACTION, "always": 1.0, "never": -1.0}[merge]
    with (
        mock.patch.object(wmod, "_COMPRESS_MIN_QUERIES", 1 if path == "compressed" else 10**9),
        mock.patch.object(wmod, "_CHUNK", chunk),
        mock.patch.object(wmod, "_CELLS_MAX_FRACTION", fraction),
        mock.patch.object(pcmod, "_SAMPLE_MIN_ROWS", sample_from),  # 0: hashed or sorted
        mock.patch.object(pcmod, "_SAMPLE_STRIDE", 1),
        mock.patch.object(wmod, "qi_sums", wraps=wmod.qi_sums) as spy,
    ):
        act = actual_counts(table, wl)
    assert act.dtype == np.int64
    assert act.tolist() == count_record_by_record(table, wl)
    cells = distinct_cells(table, wl)
    merged = cells <= fraction * table.n_rows
    assert spy.call_args.args[0].n_rows == (cells if merged else table.n_rows)
    assert (spy.call_args.kwargs.get("row_counts") is not None) == merged


def test_actual_counts_on_all_distinct_rows_keep_the_records():
    """Rows nearly all distinct: the records are counted one by one (no merged copy)."""
    rng = np.random.default_rng(5)
    n = 4000
    frame = pd.DataFrame(
        {
            "a": rng.permutation(n),
            "b": rng.integers(0, 50, n),
            "s": rng.choice([f"s{v}" for v in range(9)], n),
        }
    )
    t = Table.from_frame(frame, quasi_identifiers=["a", "b"], sensitive="s", numeric=["a"])
    wl = random_workload(t, 20, seed=1)
    wl.uses[:, 0] = True  # every query on the distinct column
    with mock.patch.object(wmod, "qi_sums", wraps=wmod.qi_sums) as spy:
        act = actual_counts(t, wl)
    assert spy.call_args.args[0].n_rows == n
    assert act.tolist() == count_record_by_record(t, wl)


@pytest.mark.parametrize("scheme", ["bucketization", "generalization"])
def test_workload_error_actual_answers_of_either_scheme(scheme):
    """``workload_error`` counts the original table's records whatever the release."""
    from anonlab.anonymize import anonymize

    t = Table.from_dataset("census-kdd-workers").take(np.arange(3000))
    release = (
        anonymize(t, "anatomy", l=3, seed=1)
        if scheme == "bucketization"
        else anonymize(t, "mondrian", k=5)
    )
    wl = random_workload(t, 30, seed=4)
    result = workload_error(release, wl)
    assert result.actual.tolist() == count_record_by_record(t, wl)


# --- published classes ---------------------------------------------------------------------


def brute_classes(table: Table, names) -> tuple[list[int], list[int], list[int]]:
    """Each record's class (the distinct rows numbered in code order), each class's first
    record and size, by tuples and a dict."""
    rows = [tuple(int(table.codes[q][r]) for q in names) for r in range(table.n_rows)]
    number = {row: c for c, row in enumerate(sorted(set(rows)))}
    first: dict[int, int] = {}
    for r, row in enumerate(rows):
        first.setdefault(number[row], r)
    record_class = [number[row] for row in rows]
    sizes = [record_class.count(c) for c in range(len(number))]
    return record_class, [first[c] for c in range(len(number))], sizes


def check_classes(release: Release) -> None:
    release.__dict__.pop(pcmod._CACHE, None)
    classes = pcmod.published_classes(release)
    record_class, first, sizes = brute_classes(release.table, release.quasi_identifiers)
    assert classes.record_class.dtype == classes.representative.dtype == np.int64
    assert classes.record_class.tolist() == record_class
    assert classes.representative.tolist() == first
    assert classes.sizes.tolist() == sizes
    assert classes.n_classes == len(first)


@SETTINGS
@given(
    table=tables(),
    key_limit=st.sampled_from([2**63, 2, 7, 40, 1000]),
    sample_from=st.sampled_from([0, 1 << 17]),
    stride=st.integers(1, 3),
)
def test_published_classes_equal_a_brute_force_numbering(table, key_limit, sample_from, stride):
    """Small ``KEY_LIMIT``: the keys are renumbered between attributes as on an overflow;
    ``_SAMPLE_MIN_ROWS = 0``: the sample sends mostly distinct keys to the sort."""
    release = Release(table, np.arange(table.n_rows), "bucketization")
    with (
        mock.patch.object(pcmod, "KEY_LIMIT", key_limit),
        mock.patch.object(pcmod, "_SAMPLE_MIN_ROWS", sample_from),
        mock.patch.object(pcmod, "_SAMPLE_STRIDE", stride),
    ):
        check_classes(release)


def test_published_classes_when_the_key_space_overflows_int64():
    """Seven quasi-identifiers of 700 values each (700^7 > 2^63): no key overflows, and the
    numbering is the brute-force one, repeated rows included."""
    rng = np.random.default_rng(11)
    base = np.stack([rng.permutation(700) for _ in range(7)], axis=1)  # every value present
    rows = np.concatenate([base, base[rng.integers(0, 700, 500)]])
    rows = rows[rng.permutation(len(rows))]
    frame = pd.DataFrame({f"q{i}": rows[:, i] for i in range(7)})
    frame["s"] = rng.choice(["x", "y", "z"], len(rows))
    qis = [f"q{i}" for i in range(7)]
    t = Table.from_frame(frame, quasi_identifiers=qis, sensitive="s", numeric=qis[:4])
    assert np.prod([float(t.domain_size(q)) for q in qis]) >= 2**63
    release = Release(t, np.arange(t.n_rows) // 4, "bucketization")
    for sample_from in (0, 1 << 17):  # hashed, then sorted (mostly distinct keys)
        with mock.patch.object(pcmod, "_SAMPLE_MIN_ROWS", sample_from):
            check_classes(release)
    assert 700 <= pcmod.published_classes(release).n_classes < t.n_rows


@settings(max_examples=150, deadline=None)
@given(
    keys=st.lists(st.integers(0, 2**62), min_size=0, max_size=60)
    | st.lists(st.integers(0, 5), min_size=0, max_size=60),
    how=st.sampled_from(["keys", "hashed", "sorted", "sorted-unpacked"]),
)
def test_key_numbering_is_np_unique(keys, how):
    """Every way of numbering keys gives ``np.unique``'s ranks and first positions."""
    key = np.array(keys, dtype=np.int64)
    space = int(key.max()) + 1 if len(key) else 1
    _, first, rank = np.unique(key, return_index=True, return_inverse=True)
    if how == "keys" or len(key) == 0:
        got = pcmod._number_keys(key, space)
    elif how == "hashed":
        got = pcmod._number_hashed(key)
    elif how == "sorted":
        got = pcmod._number_sorted(key, space)
    else:  # a key space too large to pack the positions beside the keys
        got = pcmod._number_sorted(key, 2**62)
    assert got[0].dtype == got[1].dtype == np.int64
    assert got[0].tolist() == rank.ravel().tolist()
    assert got[1].tolist() == first.tolist()
