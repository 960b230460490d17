"""The memory-lean utility measures give bit-for-bit what the straightforward computations give.

``anonlab utility`` estimates the workload from the compact (uint8) sensitive histogram, one
sensitive value's shares at a time (:class:`~anonlab.utility.workload.answers.GroupShares`),
sums NCP one attribute at a time, and makes the per-record risks only when they are read. Each
is compared here with the dense computation it replaces, on random small releases, with
``np.array_equal`` (not a tolerance).
"""

from __future__ import annotations

from unittest import mock

import anonlab_utility_test_support as _support  # tests/utility/conftest.py
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import Release
from anonlab.utility import (
    average_class_size,
    discernibility,
    estimated_counts,
    generate_workload,
    normalized_certainty_penalty,
    prosecutor_risk,
    reidentification_risk,
)
from anonlab.utility.published_classes import published_classes
from anonlab.utility.workload import answers as wmod
from anonlab.utility.workload import qi_sums


def releases():
    """A random release: up to 40 records, 1-4 quasi-identifiers (numeric, categorical, with a
    hierarchy), a sensitive attribute of 2-6 values, groups 0..7, sometimes perturbed
    published values."""
    return _support.random_releases(
        max_rows=40,
        max_qis=4,
        max_code=9,
        sensitive=st.integers(2, 6).map(lambda k: [f"s{i}" for i in range(k)]),
        max_group=7,
    )


def _fresh(release: Release) -> Release:
    """The same release as a new object, with no statistics cached yet."""
    return Release(
        release.table,
        release.group,
        release.scheme,
        published_sensitive=release.published_sensitive,
    )


def _dense_bucket_estimate(release: Release, wl) -> np.ndarray:
    """The bucketization estimate as it was computed before: the int64 histogram made float64,
    divided by the group sizes into a dense column-major share matrix."""
    hist = np.asarray(release.sensitive_histogram).astype(np.float64)
    share = np.asfortranarray(hist / release.group_sizes[:, None])
    return qi_sums(release.table, wl, release.group, share)


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    release=releases(),
    qd_frac=st.floats(0, 1),
    seed=st.integers(0, 2**16),
    n_queries=st.integers(1, 20),
    path=st.sampled_from(["compressed", "records"]),
)
def test_estimates_equal_the_dense_computation(release, qd_frac, seed, n_queries, path):
    """From the compact (uint8) histogram bit for bit as from the int64 one; as the dense
    record-by-record computation up to rounding."""
    t = release.table
    qd = round(qd_frac * len(t.quasi_identifiers))
    min_queries = 1 if path == "compressed" else 10**9
    with mock.patch.object(wmod, "_COMPRESS_MIN_QUERIES", min_queries):
        wl = generate_workload(t, n_queries, qd, 0.5, seed, max_redrawn=10**6)
        lean = estimated_counts(_fresh(release), wl)  # the compact (uint8) histogram
        cached = _fresh(release)
        _ = cached.sensitive_histogram  # cached int64: the estimate reads that one instead
        from_int64 = estimated_counts(cached, wl)
        if release.scheme == "bucketization":
            dense = _dense_bucket_estimate(_fresh(release), wl)
            # summed over the distinct QI rows since eacc4fa: equal to the record-by-record
            # sum up to rounding (test_workload_merged checks both against exact fractions)
            np.testing.assert_allclose(lean, dense, rtol=1e-12, atol=1e-12)
    assert lean.dtype == np.float64
    assert np.array_equal(lean, from_int64)


@SETTINGS
@given(release=releases(), seed=st.integers(0, 2**16), n_queries=st.integers(1, 12))
def test_group_shares_match_the_dense_share_matrix(release, seed, n_queries):
    """GroupShares' columns and dense matrix are the dense computation's, in qi_sums' both
    paths (value combinations, and a few queries record by record)."""
    if release.scheme != "bucketization":
        release = Release(release.table, release.group, "bucketization")
    fresh = _fresh(release)
    counts = wmod._published_counts(fresh)
    shares = wmod.GroupShares(counts, fresh.group_sizes)
    dense = np.asarray(fresh.sensitive_histogram).astype(np.float64) / fresh.group_sizes[:, None]
    assert np.array_equal(shares.dense(), dense)
    assert shares.dense().flags.f_contiguous
    for v in range(dense.shape[1]):
        assert np.array_equal(shares.column(v), dense[:, v])
    t = release.table
    wl = generate_workload(t, n_queries, min(2, len(t.quasi_identifiers)), 0.5, seed)
    for min_queries in (1, 10**9):
        with mock.patch.object(wmod, "_COMPRESS_MIN_QUERIES", min_queries):
            got = qi_sums(t, wl, fresh.group, shares)
            want = qi_sums(t, wl, fresh.group.astype(np.int64), np.asfortranarray(dense))
        assert np.array_equal(got, want)


def _dense_ncp(release: Release, categorical: str):
    """NCP from a (n_qi, n_groups) penalty matrix, as it was computed before."""
    t = release.table
    qis = t.quasi_identifiers
    sizes = release.group_sizes.astype(np.float64)
    n = float(t.n_rows)
    penalties = np.zeros((len(qis), release.n_groups), dtype=np.float64)
    if release.scheme == "generalization":
        for i, q in enumerate(qis):
            ga = release.generalization[q]
            if t.schema[q].kind.value == "numeric":
                values = t.values[q].astype(np.float64)
                span = values[-1] - values[0]
                if span > 0:
                    penalties[i] = (values[ga.hi] - values[ga.lo]) / span
            else:
                size = t.domain_size(q)
                cover = ga.cover_size().astype(np.float64)
                if categorical == "range":
                    if size > 1:
                        penalties[i] = (cover - 1) / (size - 1)
                else:
                    penalties[i] = np.where(cover > 1, cover / size, 0.0)
    per_group = penalties.mean(axis=0)
    return (
        float(per_group @ sizes / n),
        float(penalties.sum(axis=0) @ sizes),
        {q: float(penalties[i] @ sizes / n) for i, q in enumerate(qis)},
        per_group,
    )


@SETTINGS
@given(release=releases(), categorical=st.sampled_from(["range", "xu"]))
def test_ncp_equals_the_penalty_matrix_bit_for_bit(release, categorical):
    got = normalized_certainty_penalty(release, categorical=categorical)
    value, total, per_attribute, per_group = _dense_ncp(release, categorical)
    assert got.value == value
    assert got.total == total
    assert got.per_attribute == per_attribute
    assert np.array_equal(got.per_group, per_group)


@SETTINGS
@given(release=releases(), threshold=st.sampled_from([0.0, 0.2, 0.5, 1.0]))
def test_per_record_risks_are_the_per_record_reference(release, threshold):
    """The per-record risks, made when read, are 1/|group| and 1/|class| of each record."""
    n = release.table.n_rows
    group = release.group.tolist()
    p = prosecutor_risk(release, threshold)
    assert p.per_record.dtype == np.float64
    assert np.array_equal(p.per_record, np.array([1.0 / group.count(g) for g in group]))
    assert p.n_records_at_risk == sum(1.0 / group.count(g) > threshold for g in group)
    if release.scheme == "bucketization":  # classes: equal exact quasi-identifiers
        keys = [
            tuple(release.table.codes[q][r] for q in release.quasi_identifiers) for r in range(n)
        ]
    else:  # equal published values, by group: equal group => equal class
        classes = published_classes(release)
        keys = classes.record_class.tolist()
    r = reidentification_risk(release, threshold)
    want = np.array([1.0 / keys.count(k) for k in keys])
    assert np.array_equal(r.prosecutor.per_record, want)
    assert np.array_equal(r.journalist.per_record, want)  # the sample is its own population
    assert r.prosecutor.n_records_at_risk == int(np.sum(want > threshold))


@SETTINGS
@given(release=releases())
def test_group_measures_unchanged_by_cached_statistics(release):
    """Discernibility and class sizes read only the group sizes: the same either way."""
    a, b = _fresh(release), _fresh(release)
    _ = b.sensitive_histogram
    assert discernibility(a).to_json() == discernibility(b).to_json()
    assert average_class_size(a).to_json() == average_class_size(b).to_json()
