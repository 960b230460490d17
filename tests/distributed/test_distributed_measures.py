"""Map-reduce measures (issue 10, §2) equal the single-machine path.

Two layers: the pure map/reduce functions run in this process on random tables (hypothesis, no
Dask), and the same entry points on a 2-worker LocalCluster (``dask_client``) on Adult.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab.attacks.foreground import foreground_attack, mine_global_distribution
from anonlab.distributed import measures as dm
from anonlab.distributed.mapreduce import (
    map_reduce,
    merge_keyed_counts,
    reduce_results,
    split_release,
    split_table,
)
from anonlab.distributed.measures.checks import _map_group_statistics
from anonlab.errors import AnonlabError
from anonlab.mining import frequent_itemsets, mine_association_rules, mine_negative_rules
from anonlab.models.defaults import default_checks
from anonlab.release import Release
from anonlab.table import Table
from anonlab.utility import generate_workload, workload_error
from anonlab.utility.defaults import default_measures

SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# ------------------------------------------------------------------------------ random releases
@st.composite
def releases(draw):
    """A small random table (numeric + categorical QIs) with random groups and scheme."""
    import pandas as pd

    n = draw(st.integers(6, 40))
    ints = st.lists(st.integers(0, 4), min_size=n, max_size=n)
    frame = pd.DataFrame(
        {
            "age": draw(ints),
            "zip": [f"z{v}" for v in draw(ints)],
            "sex": [f"s{v % 2}" for v in draw(ints)],
            # the first two records hold d0 and d1: at least two sensitive values
            "disease": ["d0", "d1"] + [f"d{v % 3}" for v in draw(ints)][2:],
        }
    )
    table = Table.from_frame(frame, quasi_identifiers=["age", "zip", "sex"], sensitive="disease")
    group = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    scheme = draw(st.sampled_from(["generalization", "bucketization"]))
    n_partitions = draw(st.integers(1, 5))
    return Release(table, group, scheme), n_partitions


def _check_json(results):
    return [r.to_json() for r in results]


@SETTINGS
@given(releases())
def test_checks_equal_single_machine_without_dask(case):
    release, n_partitions = case
    parts = split_release(release, n_partitions)
    ours = dm.default_checks_distributed(release, partitions=parts)
    assert _check_json(ours) == _check_json(default_checks(release))
    stats = dm.group_statistics_distributed(release, partitions=parts)
    assert np.array_equal(stats.sizes, release.group_sizes)
    assert np.array_equal(stats.histogram, release.sensitive_histogram)


@SETTINGS
@given(releases(), st.integers(0, 2), st.integers(0, 1000))
def test_workload_equals_single_machine_without_dask(case, qd, seed):
    release, n_partitions = case
    parts = split_release(release, n_partitions)
    ours = dm.workload_error_distributed(
        release, n_queries=25, qd=qd, selectivity=0.5, seed=seed, partitions=parts
    )
    theirs = workload_error(release, n_queries=25, qd=qd, selectivity=0.5, seed=seed)
    assert np.array_equal(ours.actual, theirs.actual)  # same queries, same integer answers
    assert ours.n_redrawn == theirs.n_redrawn
    assert ours.settings == theirs.settings
    if release.scheme == "generalization":
        assert np.array_equal(ours.estimated, theirs.estimated)
    else:  # a float sum per block
        np.testing.assert_allclose(ours.estimated, theirs.estimated, rtol=1e-12, atol=1e-12)
    assert ours.mean_relative_error == pytest.approx(theirs.mean_relative_error, rel=1e-12)


@SETTINGS
@given(releases(), st.integers(1, 4))
def test_foreground_equals_single_machine_without_dask(case, min_support):
    release, n_partitions = case
    parts = split_release(release, n_partitions)
    # every value of the domain on its own (None), plus all values but the first as one set
    values = [str(v) for v in release.table.values["disease"]]
    targets = None if len(values) == 1 else [[v] for v in values] + [values[1:]]
    ours = dm.foreground_attack_distributed(
        release, targets, min_support=min_support, partitions=parts
    )
    theirs = foreground_attack(release, targets, min_support=min_support)
    assert ours.attribute_sets == theirs.attribute_sets
    assert np.array_equal(ours.p_star, theirs.p_star)
    assert np.array_equal(ours.best_attributes, theirs.best_attributes)
    assert np.array_equal(ours.best_target, theirs.best_target)
    assert np.array_equal(ours.baseline, theirs.baseline)
    for a, b in zip(ours.distributions, theirs.distributions, strict=True):
        assert a.signatures == b.signatures
        assert np.array_equal(a.probability, b.probability)
        assert np.array_equal(a.record_signature, b.record_signature)
        assert np.array_equal(a.support, b.support)


@SETTINGS
@given(releases(), st.sampled_from(["naive-bayes", "joint"]), st.integers(0, 100))
def test_definetti_statistics_equal_brute_force_without_dask(case, model, seed):
    release, n_partitions = case
    n_values = release.table.domain_size("disease")
    assignment = np.random.default_rng(seed).integers(0, n_values, release.table.n_rows)
    parts = split_release(release, n_partitions)
    ours = dm.definetti_statistics_distributed(
        release, model=model, assignment=assignment, partitions=parts
    )
    # brute force: count (cell, value) pairs record by record
    qi = release.quasi_identifiers
    table = release.table
    vectors = [tuple(int(table.codes[q][r]) for q in qi) for r in range(table.n_rows)]
    if model == "joint":
        cells = sorted(set(vectors))
        expected = np.zeros((len(cells), n_values), dtype=np.int64)
        for r, v in enumerate(vectors):
            expected[cells.index(v), assignment[r]] += 1
    else:
        offsets = np.cumsum([0] + [table.domain_size(q) for q in qi])
        expected = np.zeros((offsets[-1], n_values), dtype=np.int64)
        for r, v in enumerate(vectors):
            for f, code in enumerate(v):
                expected[offsets[f] + code, assignment[r]] += 1
    assert np.array_equal(ours.counts, expected)
    reference = dm.definetti_statistics(release, model=model, assignment=assignment)
    assert np.array_equal(reference.counts, expected)
    assert ours.log_posterior == reference.log_posterior
    assert np.array_equal(ours.sensitive_histogram, release.sensitive_histogram)


@SETTINGS
@given(releases(), st.integers(1, 4), st.integers(1, 3))
def test_frequent_itemsets_equal_single_machine_without_dask(case, min_count, max_conditions):
    release, n_partitions = case
    table = release.table
    ours = dm.frequent_itemsets_distributed(
        table, min_count, max_conditions, partitions=split_table(table, n_partitions)
    )
    theirs = frequent_itemsets(table, min_count, max_conditions)
    assert np.array_equal(ours.items, theirs.items)
    assert np.array_equal(ours.count, theirs.count)
    assert np.array_equal(ours.by_value, theirs.by_value)


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(-3, 50), st.integers(0, 9)), min_size=0, max_size=30).map(
        lambda xs: [x for x in xs]
    ),
    st.integers(1, 4),
)
def test_merge_keyed_counts_matches_a_dictionary(pairs, n_blocks):
    expected: dict[int, int] = {}
    for k, v in pairs:
        expected[k] = expected.get(k, 0) + v
    blocks = [pairs[i::n_blocks] for i in range(n_blocks)]
    items = [
        (np.array([k for k, _ in b], dtype=np.int64), np.array([v for _, v in b], dtype=np.int64))
        for b in blocks
    ]
    keys, values = merge_keyed_counts(items)
    assert keys.tolist() == sorted(expected)
    assert values.tolist() == [expected[k] for k in sorted(expected)]


def test_reduce_rules_and_split_blocks(make_table):
    table = make_table({"a": list(range(10)), "s": list("xyxyxyxyxy")}, qi=["a"], sensitive="s")
    parts = split_table(table, 3)
    assert [p.start for p in parts] == [0, 3, 7]
    assert np.array_equal(np.concatenate([p.table.codes["a"] for p in parts]), table.codes["a"])
    outs = [{"n": np.array([1, 2]), "lo": np.array([5, 1]), "rows": np.arange(2) + i}
            for i in range(3)]  # fmt: skip
    red = reduce_results(outs, {"n": "sum", "lo": "min", "rows": "concat"})
    assert red["n"].tolist() == [3, 6] and red["lo"].tolist() == [5, 1]
    assert red["rows"].tolist() == [0, 1, 1, 2, 2, 3]
    with pytest.raises(AnonlabError, match="reduction"):
        reduce_results(outs, {"n": "mean"})
    with pytest.raises(AnonlabError, match="n_partitions"):
        split_table(table, 0)


# ------------------------------------------------------------------------- compacted rows, keys
@pytest.fixture(params=[None, 8], ids=["one-key", "split-keys"])
def key_limit(request, monkeypatch):
    """The mixed-radix key limit: the real one, or 8 so that rows are keyed by several int64
    columns (the path a table with huge domains takes)."""
    from anonlab.distributed.measures import keys

    if request.param is not None:
        monkeypatch.setattr(keys, "KEY_LIMIT", request.param)
    return request.param


@SETTINGS
@given(releases(), st.integers(1, 4))
def test_row_index_and_compacted_rows_equal_one_pass(key_limit, case, min_support):
    from anonlab.attacks.foreground import frequent_attribute_sets
    from anonlab.attacks.foreground.signatures import RowIndex
    from anonlab.distributed.measures.compact import compact_block, merge_compact
    from anonlab.distributed.measures.foreground import row_index

    release, n_partitions = case
    attrs = tuple(release.quasi_identifiers)
    parts = split_release(release, n_partitions)
    ours, ref = row_index(release, parts, attrs), RowIndex.of(release, attrs)
    assert np.array_equal(ours.rows, ref.rows) and np.array_equal(ours.count, ref.count)
    assert np.array_equal(ours.record_row, ref.record_row) and ours.radices == ref.radices
    assert dm.frequent_attribute_sets_distributed(
        release, min_support, partitions=parts
    ) == frequent_attribute_sets(release, min_support)
    # the blocks' distinct rows, merged, are the whole table's (counts exact, shares to rounding)
    shares_from = (release.sensitive_histogram, release.group_sizes)
    n_values = release.table.domain_size("disease")
    whole = compact_block(split_release(release, 1)[0], (n_values, shares_from))
    merged = merge_compact([compact_block(p, (n_values, shares_from)) for p in parts])
    assert np.array_equal(merged.keys, whole.keys) and np.array_equal(merged.counts, whole.counts)
    np.testing.assert_allclose(merged.shares, whole.shares, rtol=1e-12)
    assert merged.n_rows == release.table.n_rows and merged.counts.sum() == merged.n_rows
    for q in release.quasi_identifiers:
        assert np.array_equal(merged.table.codes[q], whole.table.codes[q])


@SETTINGS
@given(releases(), st.integers(1, 3))
def test_rules_and_workload_with_split_keys(key_limit, case, max_conditions):
    release, n_partitions = case
    table = release.table
    parts = split_table(table, n_partitions)
    ours = dm.frequent_itemsets_distributed(table, 2, max_conditions, partitions=parts)
    theirs = frequent_itemsets(table, 2, max_conditions)
    assert np.array_equal(ours.items, theirs.items)
    assert np.array_equal(ours.by_value, theirs.by_value)
    ours = dm.workload_error_distributed(
        release, n_queries=20, qd=2, selectivity=0.5, partitions=split_release(release, 2)
    )
    theirs = workload_error(release, n_queries=20, qd=2, selectivity=0.5)
    assert np.array_equal(ours.actual, theirs.actual)
    np.testing.assert_allclose(ours.estimated, theirs.estimated, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(-2, 6), st.integers(0, 9)), min_size=0, max_size=30
    ),
    st.integers(1, 4),
)
def test_merge_keyed_counts_with_compound_keys(triples, n_blocks):
    expected: dict[tuple[int, int], int] = {}
    for a, b, v in triples:
        expected[(a, b)] = expected.get((a, b), 0) + v
    blocks = [triples[i::n_blocks] for i in range(n_blocks)]
    items = [
        (
            np.array([[a, b] for a, b, _ in t], dtype=np.int64).reshape(-1, 2),
            np.array([v for *_, v in t], dtype=np.int64),
        )
        for t in blocks
    ]
    keys, values = merge_keyed_counts(items)
    assert [tuple(k) for k in keys.tolist()] == sorted(expected)
    assert values.tolist() == [expected[k] for k in sorted(expected)]


def test_narrowed_counts_add_up_without_overflow():
    from anonlab.distributed.measures.keys import narrow

    blocks = [narrow(np.array([200, 1, 0])), narrow(np.array([100, 255, 7]))]
    assert blocks[0].dtype == np.uint8
    total = reduce_results([{"h": b} for b in blocks], {"h": "sum"})["h"]
    assert total.tolist() == [300, 256, 7] and total.dtype == np.uint16
    assert narrow(np.array([70_000])).dtype == np.uint32
    assert narrow(np.array([], dtype=np.int64)).dtype == np.uint8


# ------------------------------------------------------------------------------ Adult on Dask
QI = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country"]


@pytest.fixture(scope="module")
def adult():
    from anonlab.anonymize import anonymize

    table = Table.from_dataset("adult", quasi_identifiers=QI, sensitive="occupation")
    return {
        "table": table,
        "anatomy": anonymize(table, "anatomy", l=4, seed=0),
        "mondrian": anonymize(table, "mondrian", l=4, seed=0),
    }


@pytest.fixture(scope="module")
def scattered(adult, dask_client):
    """Each Adult release's blocks, scattered once to the 2 workers and reused."""
    return {
        name: dm.partition_release(adult[name], dask_client) for name in ("anatomy", "mondrian")
    }


@pytest.mark.parametrize("name", ["anatomy", "mondrian"])
def test_adult_checks_on_two_workers(adult, scattered, name):
    release = adult[name]
    parts = scattered[name]
    assert len(parts) == 4  # twice the workers
    ours = dm.default_checks_distributed(release, partitions=parts)
    assert _check_json(ours) == _check_json(default_checks(release))
    ck = dm.check_distributed(release, "ck-safety", c=0.95, k=2, partitions=parts)
    from anonlab.models import check

    assert ck.to_json() == check(release, "ck-safety", c=0.95, k=2).to_json()
    with pytest.raises(AnonlabError, match="matching-l-diversity"):
        dm.check_distributed(release, "matching-l-diversity", l=2, incompatibility=None)


@pytest.mark.parametrize("name", ["anatomy", "mondrian"])
def test_adult_utility_on_two_workers(adult, scattered, name):
    release = adult[name]
    ours = dm.default_measures_distributed(release, 2000, seed=3, partitions=scattered[name])
    theirs = default_measures(release, 2000, seed=3)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        if key != "workload-error":
            assert ours[key].to_json() == theirs[key].to_json(), key
    w_ours, w_theirs = ours["workload-error"], theirs["workload-error"]
    assert np.array_equal(w_ours.actual, w_theirs.actual)
    if release.scheme == "generalization":
        assert np.array_equal(w_ours.estimated, w_theirs.estimated)
        assert w_ours.to_json() == w_theirs.to_json()
    else:
        np.testing.assert_allclose(w_ours.estimated, w_theirs.estimated, rtol=1e-12)
    # a given workload, answered on the cluster
    workload = generate_workload(adult["table"], 300, qd=2, seed=5)
    given = dm.workload_error_distributed(release, workload, partitions=scattered[name])
    assert np.array_equal(given.actual, workload.actual)


def test_adult_foreground_on_two_workers(adult, scattered):
    release = adult["mondrian"]
    parts = scattered["mondrian"]
    targets = [["Prof-specialty"], ["Craft-repair", "Sales"]]
    options = {"max_attributes": 1, "attributes": ["education", "race", "sex"]}
    ours = dm.foreground_attack_distributed(release, targets, partitions=parts, **options)
    theirs = foreground_attack(release, targets, **options)
    assert ours.attribute_sets == theirs.attribute_sets and len(ours.attribute_sets) > 2
    assert np.array_equal(ours.p_star, theirs.p_star)
    assert np.array_equal(ours.best_attributes, theirs.best_attributes)
    assert np.array_equal(ours.best_target, theirs.best_target)
    assert ours.score(release, 2) == theirs.score(release, 2)
    for a, b in zip(ours.reports, theirs.reports, strict=True):
        assert (a.em_iterations, a.newton_steps, a.residual) == (
            b.em_iterations,
            b.newton_steps,
            b.residual,
        )
        assert a.mass_balance == pytest.approx(b.mass_balance, abs=1e-9)  # summed in row order
    dist, report = dm.mine_global_distribution_distributed(
        release, ["race", "sex"], "Prof-specialty", min_support=500, partitions=parts
    )
    ref, ref_report = mine_global_distribution(
        release, ["race", "sex"], "Prof-specialty", min_support=500
    )
    assert dist.signatures == ref.signatures
    assert np.array_equal(dist.probability, ref.probability)
    assert np.array_equal(dist.record_signature, ref.record_signature)
    assert report.em_iterations == ref_report.em_iterations
    sets = dm.frequent_attribute_sets_distributed(release, 3993, max_attributes=2, partitions=parts)
    from anonlab.attacks.foreground import frequent_attribute_sets

    assert sets == frequent_attribute_sets(release, 3993, max_attributes=2)


def test_adult_rules_and_definetti_on_two_workers(adult, scattered, dask_client):
    table = adult["table"]
    parts = dm.partition_table(table, dask_client)
    ours = dm.mine_rules_distributed(table, "negative", max_conditions=2, partitions=parts)
    theirs = mine_negative_rules(table, 0.9, 2)
    assert len(theirs) > 100 and ours.to_json() == theirs.to_json()
    ours = dm.mine_rules_distributed(
        table, "association", min_support=0.01, min_conviction=1.5, max_conditions=2,
        partitions=parts,
    )  # fmt: skip
    theirs = mine_association_rules(table, 0.01, 1.5, 2)
    assert len(theirs) > 0 and ours.to_json() == theirs.to_json()
    release = adult["anatomy"]
    for model in ("naive-bayes", "joint"):
        ours = dm.definetti_statistics_distributed(
            release, model=model, partitions=scattered["anatomy"]
        )
        theirs = dm.definetti_statistics(release, model=model)
        assert np.array_equal(ours.counts, theirs.counts)
        assert ours.counts.sum() == table.n_rows * (len(QI) if model == "naive-bayes" else 1)
        assert ours.log_posterior == theirs.log_posterior


def test_partitions_of_another_release_are_refused(adult, scattered):
    with pytest.raises(AnonlabError, match="partition_release"):
        dm.default_checks_distributed(adult["mondrian"], partitions=scattered["anatomy"])


def test_map_reduce_on_the_cluster_equals_local(adult, dask_client):
    release = adult["anatomy"]
    parts = split_release(release, 3)
    for sparse, how in ((False, {"histogram": "sum"}), (True, {"cells": "merge"})):
        shared = (release.n_groups, 14, sparse)
        local = map_reduce(_map_group_statistics, parts, shared, how)
        remote = map_reduce(_map_group_statistics, parts, shared, how, dask_client)
        key = next(iter(how))
        assert np.array_equal(np.asarray(local[key]), np.asarray(remote[key]))
    keys, counts = remote["cells"]
    dense = np.zeros(release.n_groups * 14, dtype=np.int64)
    dense[keys] = counts
    assert np.array_equal(dense.reshape(-1, 14), release.sensitive_histogram)


def test_a_map_the_scheduler_forgot_is_submitted_again(adult, dask_client, monkeypatch):
    """A map whose tasks the scheduler cancelled ("already forgotten", after a worker died) is
    run again once; a second cancellation is raised."""
    release = adult["mondrian"]
    parts = dm.partition_release(release, dask_client)

    class FutureCancelledError(Exception):  # distributed's, matched by name
        pass

    real_gather = type(dask_client).gather
    calls = []

    def gather(self, futures, *args, **kwargs):
        calls.append(1)
        if len(calls) <= failures:
            raise FutureCancelledError("cancelled for reason: already forgotten")
        return real_gather(self, futures, *args, **kwargs)

    monkeypatch.setattr(type(dask_client), "gather", gather)
    failures = 1
    ours = dm.default_checks_distributed(release, partitions=parts)
    assert _check_json(ours) == _check_json(default_checks(release))
    calls.clear()
    failures = 2
    with pytest.raises(FutureCancelledError):
        dm.default_checks_distributed(release, partitions=parts)


def test_remote_reduction_and_tasks_on_the_cluster_equal_local(adult, dask_client):
    from anonlab.distributed.mapreduce import (
        derive_partitions,
        map_remote,
        reduce_partitions,
        worker_count,
    )
    from anonlab.distributed.measures.compact import compact_block, merge_compact

    table = adult["table"]
    parts = split_table(table, 9)  # two levels of the reduction tree (fan-in 8)
    shared = (table.domain_size("occupation"), None)
    local = reduce_partitions(merge_compact, derive_partitions(compact_block, parts, shared))
    remote = reduce_partitions(
        merge_compact, derive_partitions(compact_block, parts, shared, dask_client)
    )
    assert local.client is None and remote.client is dask_client
    assert worker_count(dask_client) == 2 and worker_count(None) == 1

    def sizes(block, item):
        return int(block.counts.sum()) + item

    assert map_remote(sizes, remote, [0, 1, 2]) == map_remote(sizes, local, [0, 1, 2])
    assert map_remote(sizes, remote, [0]) == [table.n_rows]
    merged = dask_client.gather(remote.value)
    assert np.array_equal(merged.keys, local.value.keys)
    assert np.array_equal(merged.counts, local.value.counts)


def test_worker_killed_while_answering_queries_gives_the_same_workload(
    adult, dask_client, kill_worker_once
):
    """The worker holding the merged distinct rows dies as it starts answering a batch: they
    are recomputed from the blocks (held by the job), the task retried, the workload equal."""
    release = adult["anatomy"]
    parts = dm.partition_release(release, dask_client)
    with kill_worker_once("anonlab-map-actual_for") as marker:
        ours = dm.workload_error_distributed(release, n_queries=300, seed=4, partitions=parts)
    assert marker.exists(), "the plugin never killed a worker"
    theirs = workload_error(release, n_queries=300, seed=4)
    assert np.array_equal(ours.actual, theirs.actual)
    np.testing.assert_allclose(ours.estimated, theirs.estimated, rtol=1e-12)


# ------------------------------------------------------------------------------ CLI
def test_worker_killed_mid_map_gives_the_same_checks(adult, dask_client, kill_worker_once):
    """A worker plugin SIGKILLs its worker when a map task starts, once (a marker file): the
    block it held is recomputed from its task, the map retried, the result unchanged."""
    import os

    release = adult["mondrian"]
    parts = dm.partition_release(release, dask_client)  # its own blocks: some will be lost
    with kill_worker_once("anonlab-map-") as marker:
        ours = dm.default_checks_distributed(release, partitions=parts)
    assert marker.exists(), "the plugin never killed a worker"
    with pytest.raises(ProcessLookupError):
        os.kill(int(marker.read_text()), 0)
    assert _check_json(ours) == _check_json(default_checks(release))


def test_cli_check_with_cluster_equals_single_machine(adult, dask_client, cli, tmp_path):
    from anonlab.release_io import save_release

    save_release(adult["mondrian"], tmp_path / "rel")
    address = dask_client.scheduler.address
    code, single, err = cli(["check", str(tmp_path / "rel"), "--json"])
    assert code == 0, err
    code, dist, err = cli(["check", str(tmp_path / "rel"), "--json", "--cluster", address])
    assert code == 0, err
    assert json.loads(dist) == json.loads(single)
    code, _, err = cli(["check", str(tmp_path / "rel"), "--cluster", address, "--workers", "2"])
    assert code == 2 and "exactly one of --cluster" in err


def test_cli_utility_with_cluster_equals_single_machine(adult, dask_client, cli, tmp_path):
    from anonlab.release_io import save_release

    save_release(adult["mondrian"], tmp_path / "rel")
    argv = ["utility", str(tmp_path / "rel"), "--json", "--queries", "300", "--seed", "2"]
    code, single, err = cli(argv)
    assert code == 0, err
    code, dist, err = cli([*argv, "--cluster", dask_client.scheduler.address])
    assert code == 0, err
    assert json.loads(dist) == json.loads(single)
    assert json.loads(dist)["workload-error"]["n_queries"] == 300
