"""The bucketization estimate summed over distinct quasi-identifier rows (records merged, their
group shares summed) equals Xiao & Tao's §6 sum taken record by record, up to rounding, and the
map-reduce estimate (bit for bit with one block)."""

from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import Release, Table
from anonlab.distributed import measures as dm
from anonlab.distributed.mapreduce import split_release
from anonlab.utility import Workload, estimated_counts, generate_workload, workload_error
from anonlab.utility.published_classes import published_classes
from anonlab.utility.workload import answers as wmod  # the settings the estimate reads

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def bucketized(draw):
    """A small bucketized release whose records repeat few QI rows (small domains), in groups
    of sizes such as 3, 5 and 7 (shares that are not exact binary fractions), sometimes with
    perturbed published sensitive values."""
    n = draw(st.integers(1, 60))
    n_qi = draw(st.integers(1, 3))
    cols, numeric = {}, []
    for i in range(n_qi):
        width = draw(st.integers(1, 4))
        if draw(st.booleans()):
            cols[f"q{i}"] = draw(st.lists(st.integers(0, width), min_size=n, max_size=n))
            numeric.append(f"q{i}")
        else:
            values = "abcde"[: width + 1]
            cols[f"q{i}"] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    sensitive = [f"s{v}" for v in range(draw(st.integers(1, 7)))]
    cols["s"] = draw(st.lists(st.sampled_from(sensitive), min_size=n, max_size=n))
    table = Table.from_frame(
        pd.DataFrame(cols),
        quasi_identifiers=[f"q{i}" for i in range(n_qi)],
        sensitive="s",
        numeric=numeric,
    )
    size = draw(st.sampled_from([1, 3, 5, 7]))
    group = np.arange(n) // size
    group = np.array(draw(st.permutations(group.tolist())))
    published = None
    if draw(st.booleans()):
        d = table.domain_size("s")
        published = np.array(draw(st.lists(st.integers(0, d - 1), min_size=n, max_size=n)))
    return Release(table, group, "bucketization", published_sensitive=published)


def _satisfies(wl: Workload, name: str, j: int, code: int) -> bool:
    if name in wl.intervals:
        lo, hi = wl.intervals[name][j]
        return bool(lo <= code <= hi)
    return bool(wl.masks[name][j, code])


def _record_terms(release: Release, wl: Workload, j: int):
    """Query ``j``'s §6 terms, record by record: (group, published count of the selected
    sensitive values in it, group size) of each record whose exact QI satisfy the query."""
    t = release.table
    hist = release.sensitive_histogram
    sizes = release.group_sizes
    selected = [v for v in range(t.domain_size(wl.sensitive)) if _satisfies(wl, wl.sensitive, j, v)]
    for r in range(t.n_rows):
        if all(
            _satisfies(wl, q, j, int(t.codes[q][r]))
            for i, q in enumerate(wl.quasi_identifiers)
            if wl.uses[j, i]
        ):
            g = int(release.group[r])
            yield int(hist[g, selected].sum()), int(sizes[g])


def record_by_record(release: Release, wl: Workload) -> np.ndarray:
    """Xiao & Tao's §6 estimate as a float sum over the records in record order."""
    out = np.zeros(len(wl))
    for j in range(len(wl)):
        est = 0.0
        for count, size in _record_terms(release, wl, j):
            est += count / size
        out[j] = est
    return out


def exact(release: Release, wl: Workload) -> list[Fraction]:
    """The same sum in exact rational arithmetic."""
    return [
        sum((Fraction(c, s) for c, s in _record_terms(release, wl, j)), Fraction(0))
        for j in range(len(wl))
    ]


@SETTINGS
@given(
    release=bucketized(),
    qd_frac=st.floats(0, 1),
    seed=st.integers(0, 2**16),
    n_queries=st.integers(1, 12),
    path=st.sampled_from(["compressed", "records"]),
    merge=st.booleans(),
    chunk=st.sampled_from([3, 1 << 22]),
)
def test_merged_estimate_equals_record_by_record_sum(
    release, qd_frac, seed, n_queries, path, merge, chunk
):
    t = release.table
    qd = round(qd_frac * len(t.quasi_identifiers))
    patches = [
        mock.patch.object(wmod, "_COMPRESS_MIN_QUERIES", 1 if path == "compressed" else 10**9),
        mock.patch.object(wmod, "_CHUNK", chunk),
    ]
    if not merge:  # the record-by-record fallback (rows nearly all distinct)
        patches += [
            mock.patch.object(wmod, "_MERGE_CELLS_PER_RECORD", 0),
            mock.patch.object(wmod, "_MERGE_MIN_CELLS", 0),
        ]
    for p in patches:
        p.start()
    try:
        wl = generate_workload(t, n_queries, qd, 0.5, seed, max_redrawn=10**6)
        with mock.patch.object(wmod, "qi_sums", wraps=wmod.qi_sums) as spy:
            est = estimated_counts(release, wl)
    finally:
        for p in reversed(patches):
            p.stop()
    rows = spy.call_args.args[0].n_rows
    assert rows == (published_classes(release).n_classes if merge else t.n_rows)
    np.testing.assert_allclose(est, record_by_record(release, wl), rtol=1e-12, atol=0)
    truth = exact(release, wl)
    np.testing.assert_allclose(est, [float(x) for x in truth], rtol=1e-13, atol=0)


def test_merged_rows_on_a_larger_table():
    """Thousands of records on a few hundred QI rows, groups of 3: the merged estimate reads
    the distinct rows only and stays within 1e-12 of the record-by-record sums."""
    rng = np.random.default_rng(3)
    n = 3000
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 30, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice([f"z{i}" for i in range(12)], n),
            "disease": rng.choice([f"d{i}" for i in range(9)], n),
        }
    )
    t = Table.from_frame(frame, quasi_identifiers=["age", "sex", "zip"], sensitive="disease")
    release = Release(t, rng.permutation(n) // 3, "bucketization")
    wl = generate_workload(t, 40, 2, 0.3, seed=2)
    with mock.patch.object(wmod, "qi_sums", wraps=wmod.qi_sums) as spy:
        est = estimated_counts(release, wl)
    assert spy.call_args.args[0].n_rows == published_classes(release).n_classes < 250
    np.testing.assert_allclose(est, record_by_record(release, wl), rtol=1e-12, atol=0)


@SETTINGS
@given(release=bucketized(), n_partitions=st.integers(1, 4), seed=st.integers(0, 1000))
def test_single_machine_and_map_reduce_agree(release, n_partitions, seed):
    """Both sum the merged rows' shares: identical with one block, to rounding with several
    (shares summed per block first)."""
    qd = min(2, len(release.quasi_identifiers))
    ours = workload_error(release, n_queries=15, qd=qd, selectivity=0.5, seed=seed)
    one = dm.workload_error_distributed(
        release, n_queries=15, qd=qd, selectivity=0.5, seed=seed,
        partitions=split_release(release, 1),
    )  # fmt: skip
    assert np.array_equal(one.actual, ours.actual)
    assert np.array_equal(one.estimated, ours.estimated)
    assert one.mean_relative_error == ours.mean_relative_error
    split = dm.workload_error_distributed(
        release, n_queries=15, qd=qd, selectivity=0.5, seed=seed,
        partitions=split_release(release, n_partitions),
    )  # fmt: skip
    assert np.array_equal(split.actual, ours.actual)
    np.testing.assert_allclose(split.estimated, ours.estimated, rtol=1e-12, atol=0)
    assert split.mean_relative_error == pytest.approx(ours.mean_relative_error, rel=1e-12)
