"""Mondrian's cuts on a Dask cluster from Parquet row groups read by the workers (issue 21).

The result equals ``mondrian_cuts`` on the same codes, the driver receives only distinct values
and reduced histograms, and it never reads a block itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from anonlab.distributed import worker_cuts  # noqa: E402
from anonlab.distributed.partitioning import mondrian_cuts  # noqa: E402
from anonlab.distributed.worker_cuts import (  # noqa: E402
    encode,
    mondrian_cuts_on_workers,
    parquet_domains,
)
from anonlab.errors import AnonlabError  # noqa: E402
from anonlab.table import Table  # noqa: E402

N_CENSUS = 20_000
ROW_GROUP = 2_500


@pytest.fixture(scope="module")
def census_table() -> Table:
    return Table.from_dataset("census-kdd-workers").take(np.arange(N_CENSUS))


@pytest.fixture(scope="module")
def census_parquet(census_table, tmp_path_factory):
    """The first 20,000 census-kdd-workers records, QIs and sensitive, in 8 row groups."""
    columns = [*census_table.quasi_identifiers, census_table.sensitive]
    frame = census_table.to_frame()[columns]
    path = tmp_path_factory.mktemp("census") / "census.parquet"
    pq.write_table(
        pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=ROW_GROUP
    )
    assert pq.ParquetFile(path).metadata.num_row_groups == N_CENSUS // ROW_GROUP
    return str(path), frame, list(census_table.quasi_identifiers), census_table.sensitive


@pytest.fixture(scope="module")
def synthetic_parquet(tmp_path_factory):
    """A random table (ints, strings, a skewed sensitive column) in 9 uneven row groups."""
    rng = np.random.default_rng(21)
    n = 6_000
    values = [f"s{i:02d}" for i in range(24)]
    frame = pd.DataFrame(
        {
            "a": rng.integers(-5, 30, n),
            "b": rng.choice(["x", "y", "zz", "w", "v"], n),
            "c": rng.normal(0, 1, n).round(1),
            "s": rng.choice(values, n, p=rng.dirichlet(np.full(len(values), 8.0))),
        }
    )
    path = tmp_path_factory.mktemp("synthetic") / "synthetic.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=700)
    return str(path), frame, ["a", "b", "c"], "s"


def _reference(frame, qi_names, sensitive_name, constrained_values, **kwargs):
    """mondrian_cuts on the file's columns coded independently (np.unique: sorted codes)."""
    codes, domains = [], {}
    for name in [*qi_names, sensitive_name]:
        domains[name], code = np.unique(frame[name].to_numpy(), return_inverse=True)
        codes.append(code)
    qi = np.column_stack(codes[:-1]).astype(np.int32)
    sens_domain = domains[sensitive_name]
    if constrained_values is None:
        constrained = np.ones(len(sens_domain), dtype=bool)
    else:
        constrained = np.isin(sens_domain, constrained_values)
    width = np.array([len(domains[q]) for q in qi_names], dtype=np.int64) - 1
    return mondrian_cuts(qi, codes[-1], constrained, width, **kwargs), domains


def _same(got, expected):
    assert got.n_parts == expected.n_parts
    assert (got.cuts, got.refused_splits, got.oversized) == (
        expected.cuts,
        expected.refused_splits,
        expected.oversized,
    )
    assert got.part.dtype == np.int32
    np.testing.assert_array_equal(got.part, expected.part)


CASES = [
    pytest.param(dict(k=10, l=1, look_ahead=False), None, id="mondrian-k10"),
    pytest.param(dict(k=1, l=4, look_ahead=False), None, id="mondrian-l4"),
    pytest.param(dict(k=10, l=4, look_ahead=False), None, id="mondrian-k10-l4"),
    pytest.param(dict(k=1, l=4, look_ahead=True), None, id="mondrian+-l4"),
]


@pytest.mark.parametrize(("params", "constrained_values"), CASES)
def test_census_equals_mondrian_cuts(dask_client, census_parquet, params, constrained_values):
    path, frame, qi_names, sensitive_name = census_parquet
    kwargs = dict(params, max_partition_rows=2000)
    expected, domains = _reference(frame, qi_names, sensitive_name, constrained_values, **kwargs)
    got = mondrian_cuts_on_workers(
        dask_client, path, qi_names, sensitive_name, constrained_values, gather_parts=True, **kwargs
    )
    print(f"n_parts={expected.n_parts} refused={expected.refused_splits}", end=" ")
    assert expected.n_parts >= 5
    _same(got.partitioning(), expected)
    assert got.n_rows == N_CENSUS
    for name, domain in domains.items():
        np.testing.assert_array_equal(got.domains[name], domain)


@pytest.mark.parametrize(
    ("params", "constrained_values"),
    [
        *CASES,
        pytest.param(
            dict(k=1, l=3, look_ahead=False), ["s00", "s01", "s02"], id="mondrian-l3-protected"
        ),
        pytest.param(
            dict(k=1, l=3, look_ahead=True), ["s00", "s01", "s02"], id="mondrian+-l3-protected"
        ),
    ],
)
def test_synthetic_equals_mondrian_cuts(dask_client, synthetic_parquet, params, constrained_values):
    path, frame, qi_names, sensitive_name = synthetic_parquet
    kwargs = dict(params, max_partition_rows=400)
    expected, _ = _reference(frame, qi_names, sensitive_name, constrained_values, **kwargs)
    got = mondrian_cuts_on_workers(
        dask_client,
        path,
        qi_names,
        sensitive_name,
        constrained_values,
        gather_parts=True,
        split_every=3,  # a reduce tree of depth 2 over the 9 blocks
        **kwargs,
    )
    print(f"n_parts={expected.n_parts} refused={expected.refused_splits}", end=" ")
    assert expected.n_parts >= 2
    _same(got.partitioning(), expected)


def test_table_domains_give_the_tables_codes(dask_client, census_parquet, census_table):
    """Domains in a Table's code order (unsorted categories): the result is mondrian_cuts on
    the Table's own codes."""
    path, _, qi_names, sensitive_name = census_parquet
    domains = {name: census_table.values[name] for name in [*qi_names, sensitive_name]}
    kwargs = dict(k=1, l=4, look_ahead=False, max_partition_rows=2000)
    sens = census_table.require_sensitive()
    expected = mondrian_cuts(
        census_table.qi_matrix(),
        census_table.codes[sens],
        census_table.value_mask(sens, None),
        np.array([census_table.domain_size(q) for q in qi_names], dtype=np.int64) - 1,
        **kwargs,
    )
    got = mondrian_cuts_on_workers(
        dask_client, path, qi_names, sensitive_name, None, domains=domains, gather_parts=True,
        **kwargs,
    )  # fmt: skip
    _same(got.partitioning(), expected)


def test_repeated_calls_with_the_same_domains(dask_client, census_parquet):
    """Calls one after another with the same domains each succeed with the same cuts (the
    domains scattered by content shared one key across calls: dropping the first call's
    future cancelled a later call's reads, "lost dependencies", found by
    benchmarks/bench_worker_cuts.py)."""
    path, _, qi_names, sensitive_name = census_parquet
    domains = parquet_domains(dask_client, path, [*qi_names, sensitive_name])
    kwargs = dict(k=1, l=4, look_ahead=False, max_partition_rows=2000)
    results = [
        mondrian_cuts_on_workers(dask_client, path, qi_names, sensitive_name, None,
                                 domains=domains, gather_parts=True, **kwargs).partitioning()
        for _ in range(4)
    ]  # fmt: skip
    for other in results[1:]:
        _same(other, results[0])
    assert results[0].n_parts > 1


def test_driver_never_materialises_the_records(dask_client, census_parquet, monkeypatch):
    path, frame, qi_names, sensitive_name = census_parquet
    kwargs = dict(k=1, l=4, look_ahead=True, max_partition_rows=2000)
    expected, domains = _reference(frame, qi_names, sensitive_name, None, **kwargs)
    sizes = {name: len(d) for name, d in domains.items()}
    n_values = sizes[sensitive_name]
    sum_domains = sum(sizes[q] for q in qi_names)

    def no_local_read(*args, **kwargs):
        raise AssertionError("read_block called on the driver")

    # the driver's copy of the module; the worker processes import their own
    monkeypatch.setattr(worker_cuts, "read_block", no_local_read)
    received: list[tuple[str, object]] = []
    got = mondrian_cuts_on_workers(
        dask_client,
        path,
        qi_names,
        sensitive_name,
        None,
        on_gather=lambda kind, value: received.append((kind, value)),
        **kwargs,
    )
    assert got.part is None
    assert (got.n_parts, got.cuts, got.refused_splits, got.oversized) == (
        expected.n_parts,
        expected.cuts,
        expected.refused_splits,
        expected.oversized,
    )
    # the part arrays stayed on the workers; the test (not the function) gathers them
    np.testing.assert_array_equal(
        np.concatenate(dask_client.gather(got.part_futures)), expected.part
    )

    kinds = [kind for kind, _ in received]
    assert set(kinds) == {"domains", "histogram"}
    assert kinds.count("domains") == N_CENSUS // ROW_GROUP  # one answer per row group
    levels = [value for kind, value in received if kind == "histogram"]
    assert len(levels) >= 3
    per_level = []
    for sparse in levels:  # a level's non-zero cells: what travelled
        assert isinstance(sparse, worker_cuts.SparseHistogram)
        hist = sparse.dense()
        assert hist.ndim == 2 and hist.dtype == np.int64
        n_open = hist.shape[0]
        # every open partition has more than max_partition_rows records, each counted once
        # per quasi-identifier
        assert 1 <= n_open and n_open * 2000 < N_CENSUS
        assert hist.shape[1] == sum_domains * n_values
        assert hist.sum() == len(qi_names) * hist[:, : sizes[qi_names[0]] * n_values].sum()
        if sparse.index is not None:  # under half the cells non-zero: only those travelled
            assert len(sparse.index) == np.count_nonzero(hist) and (sparse.count > 0).all()
            assert 2 * len(sparse.index) < hist.size
        assert sparse.nbytes <= hist.nbytes
        per_level.append(sparse.nbytes)
    for kind, value in received:
        if kind == "domains":  # a row group's distinct values, column by column
            assert len(value) == len(qi_names) + 1
            for name, distinct in zip([*qi_names, sensitive_name], value, strict=True):
                assert len(distinct) <= sizes[name]
    # nothing with one entry per record (or per row group's record) reached the driver
    for kind, value in received:
        if kind == "histogram":
            continue  # checked above: cells of a level's histogram, not records
        for array in value:
            assert len(array) < ROW_GROUP
    print("bytes received per level:", per_level)


def test_on_gather_sees_gathered_parts(dask_client, synthetic_parquet):
    """The hook is not blind: asking for the part arrays shows per-record arrays to it."""
    path, _, qi_names, sensitive_name = synthetic_parquet
    received = []
    mondrian_cuts_on_workers(
        dask_client, path, qi_names, sensitive_name, None, k=10, l=1, look_ahead=False,
        max_partition_rows=400, gather_parts=True,
        on_gather=lambda kind, value: received.append((kind, value)),
    )  # fmt: skip
    parts = [value for kind, value in received if kind == "parts"]
    assert len(parts) == 1 and sum(len(p) for p in parts[0]) == 6_000


def test_value_outside_domain_names_column_and_value(dask_client, census_parquet):
    path, _, qi_names, sensitive_name = census_parquet
    domains = parquet_domains(dask_client, path, [*qi_names, sensitive_name])
    domains["race"] = domains["race"][domains["race"] != "Other"]
    with pytest.raises(AnonlabError, match=r"column 'race'.*value 'Other' is not in its domain"):
        mondrian_cuts_on_workers(
            dask_client, path, qi_names, sensitive_name, None, k=10, l=1, look_ahead=False,
            max_partition_rows=2000, domains=domains,
        )  # fmt: skip


def test_encode():
    np.testing.assert_array_equal(encode(np.array([3, 1, 2]), np.array([1, 2, 3]), "x"), [2, 0, 1])
    # a domain in any order: codes are positions in it
    np.testing.assert_array_equal(
        encode(np.array(["b", "a", "c"], dtype=object), np.array(["c", "a", "b"]), "y"), [2, 1, 0]
    )
    with pytest.raises(AnonlabError, match=r"column 'x'.*value 4 "):
        encode(np.array([1, 4]), np.array([1, 2, 3]), "x")
    with pytest.raises(AnonlabError, match=r"column 'y'.*value None "):
        encode(np.array(["a", None], dtype=object), np.array(["a", "b"], dtype=object), "y")


def test_sparse_histograms_add_up_exactly():
    from anonlab.distributed.worker_cuts import SparseHistogram, sum_sparse

    rng = np.random.default_rng(3)
    for density in (0.01, 0.3, 0.9):
        denses = [rng.integers(1, 5, (6, 40)) * (rng.random((6, 40)) < density) for _ in range(5)]
        parts = [SparseHistogram.of(d) for d in denses]
        assert all((p.index is None) == (2 * np.count_nonzero(d) >= d.size)
                   for p, d in zip(parts, denses, strict=True))  # fmt: skip
        total = sum_sparse(*parts)
        np.testing.assert_array_equal(total.dense(), sum(denses))
        np.testing.assert_array_equal(sum_sparse(total, parts[0]).dense(), sum(denses) + denses[0])
    empty = SparseHistogram.of(np.zeros((2, 3), dtype=np.int64))
    assert sum_sparse(empty, empty).dense().sum() == 0


def _random_level(rng):
    """A random block (codes, sensitive codes, partition ids) with an open_row and a cut table
    as grow_cut_tree makes them (some partitions open, some cut, ids of children after)."""
    d = int(rng.integers(1, 5))
    domains = [int(x) for x in rng.integers(1, 9, d)]
    n_values = int(rng.integers(1, 6))
    if rng.random() < 0.2:  # cells past int16: int32
        domains[0], n_values = int(rng.integers(600, 900)), int(rng.integers(40, 60))
    m = int(rng.integers(0, 300))
    qi = np.asfortranarray(
        np.column_stack([rng.integers(0, x, m) for x in domains]).reshape(m, d).astype(np.int32)
    )
    sensitive = rng.integers(0, n_values, m)
    n_nodes = int(rng.integers(1, 10))
    part = rng.integers(0, n_nodes, m)
    open_row = np.full(n_nodes, -1)
    chosen = rng.random(n_nodes) < rng.random()
    open_row[chosen] = np.arange(chosen.sum())
    table = np.full((3 * n_nodes, 4), -1)
    for node in range(n_nodes):
        if rng.random() < 0.6:
            a = int(rng.integers(0, d))
            table[node] = (a, int(rng.integers(-1, domains[a])), n_nodes + 2 * node,
                           n_nodes + 2 * node + 1)  # fmt: skip
    return qi, sensitive, part, open_row, table, domains, n_values


def test_cell_kernels_equal_level_histograms_and_apply_cuts():
    """The workers' kernels on cell codes give exactly the in-memory reference's histograms
    (as ``SparseHistogram.of`` sends them: same form, same cells) and partition ids, for
    every mix of open and closed partitions, the root alone (``part`` None), and both cell
    widths."""
    from anonlab.distributed.histogram_cuts import apply_cuts, level_histograms
    from anonlab.distributed.worker_cuts import (
        SparseHistogram,
        apply_cell_cuts,
        cell_codes,
        cell_histograms,
    )

    rng = np.random.default_rng(5)
    dtypes = set()
    for _ in range(300):
        qi, sensitive, part, open_row, table, domains, n_values = _random_level(rng)
        cell = cell_codes(qi, sensitive, domains, n_values)
        dtypes.add(cell.dtype)
        cases = [(part, open_row), (None, np.array([0])), (None, np.array([-1]))]
        for p, rows in cases:
            ids = np.zeros(len(sensitive), dtype=np.int64) if p is None else p
            expected = SparseHistogram.of(
                level_histograms(qi, sensitive, ids, rows, domains, n_values)
            )
            got = cell_histograms(cell, p, rows, domains, n_values)
            assert got.shape == expected.shape
            assert (got.index is None) == (expected.index is None)
            if got.index is not None:
                np.testing.assert_array_equal(got.index, expected.index)
            np.testing.assert_array_equal(got.count, expected.count)
            moved = apply_cell_cuts(cell, p, table, n_values)
            assert moved.dtype == np.int64
            np.testing.assert_array_equal(moved, apply_cuts(qi, ids, table))
    assert dtypes == {np.dtype(np.int16), np.dtype(np.int32)}


def test_encode_arrow_dictionary_columns(tmp_path):
    """A column read as the Parquet file's dictionary (what read_block asks for): chunks with
    different dictionaries, and dictionary entries no record uses, which need not be in the
    domain (a file written from a pandas categorical keeps its unused categories)."""
    from anonlab.distributed.worker_cuts import encode_arrow, read_block

    domain = np.array(["a", "b", "c"], dtype=object)
    chunks = pa.chunked_array([
        pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int32()), pa.array(["c", "a"])),
        pa.DictionaryArray.from_arrays(pa.array([1, 1], pa.int32()), pa.array(["zz", "b"])),
    ])  # fmt: skip
    np.testing.assert_array_equal(encode_arrow(chunks, domain, "x"), [2, 0, 2, 1, 1])
    used = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), pa.array(["zz", "b"]))
    with pytest.raises(AnonlabError, match=r"column 'x'.*value 'zz' is not in its domain"):
        encode_arrow(used, domain, "x")
    with pytest.raises(AnonlabError, match=r"column 'x'.*1 missing values"):
        encode_arrow(pa.chunked_array([pa.array(["a"]), pa.array([None, "b"])]), domain, "x")

    frame = pd.DataFrame(
        {
            "q": pd.Categorical(["a", "a", "b", "c"], categories=["a", "zz", "b", "c"]),
            "s": [1, 2, 1, 2],
        }
    )
    path = tmp_path / "categorical.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    qi, sensitive = read_block(str(path), 0, ["q"], "s", {"q": domain, "s": np.array([1, 2])})
    np.testing.assert_array_equal(qi[:, 0], [0, 0, 1, 2])
    np.testing.assert_array_equal(sensitive, [0, 1, 0, 1])


def test_blocks_given_equal_mondrian_cuts(dask_client, synthetic_parquet):
    """Blocks already read on the workers (``blocks=``, as anonymize_on_workers passes them):
    the same cuts and parts as ``mondrian_cuts``."""
    path, frame, qi_names, sensitive_name = synthetic_parquet
    kwargs = dict(k=1, l=3, look_ahead=False, max_partition_rows=300)
    expected, domains = _reference(frame, qi_names, sensitive_name, None, **kwargs)
    [shared] = dask_client.scatter([domains], broadcast=True, hash=False)
    n_groups = pq.ParquetFile(path).metadata.num_row_groups
    blocks = [
        dask_client.submit(worker_cuts.read_block, path, g, qi_names, sensitive_name, shared,
                           pure=False)
        for g in range(n_groups)
    ]  # fmt: skip
    got = mondrian_cuts_on_workers(
        dask_client, path, qi_names, sensitive_name, None, domains=domains, blocks=blocks,
        gather_parts=True, split_every=2, **kwargs,
    )  # fmt: skip
    assert expected.n_parts >= 2
    _same(got.partitioning(), expected)


def test_cell_codes_past_int32():
    """Cells past int32 (a domain times the sensitive values above 2**31) are int64 and exact:
    the product is not taken in the codes' int32."""
    from anonlab.distributed.worker_cuts import cell_codes

    qi = np.asfortranarray(np.array([[70_000, 3], [1, 0]], dtype=np.int32))
    cell = cell_codes(qi, np.array([39_999, 5]), [70_001, 4], 40_000)
    assert cell.dtype == np.int64
    assert cell.tolist() == [[70_000 * 40_000 + 39_999, 3 * 40_000 + 39_999], [40_005, 5]]
