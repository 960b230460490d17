"""The checks' memory-saving paths give the same results as the whole-histogram computation.

The checks read a compact (narrow unsigned) histogram shared by the checks of a release
(``anonlab.models.result.sensitive_counts``) and compute their per-group numbers one block of
groups at a time (``anonlab.grouping.row_blocks``). Here every check is run both ways on random
releases: with the int64 ``release.sensitive_histogram`` in one block (the plain computation) and
with the compact histogram in blocks of a few groups; every field of every result must be equal,
per-group arrays bit for bit.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from anonlab import Hierarchy, Release, Table, models
from anonlab.grouping import compact_group_histogram, count_dtype, group_histogram, row_blocks
from anonlab.models import l_diversity, t_closeness
from anonlab.models.result import sensitive_counts


def _hierarchy(values: list[str]) -> Hierarchy:
    """A height-2 hierarchy: values in runs of 3 under a parent, all under ``*``."""
    return Hierarchy([[v, f"p{i // 3}", "*"] for i, v in enumerate(values)], name="s")


def _release(seed: int, *, hierarchy: bool, big: bool) -> Release:
    """A random release of groups of varied sizes (some over 255 records when ``big``, so the
    compact histogram is uint16), with published values differing from the truth at times."""
    rng = np.random.default_rng(seed)
    n_values = int(rng.integers(1, 12))
    sizes = rng.integers(1, 9, size=int(rng.integers(1, 60)))
    if big:
        sizes[rng.integers(0, len(sizes))] = 300
    n = int(sizes.sum())
    group = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    values = [f"v{i}" for i in range(n_values)]
    skew = rng.dirichlet(np.full(n_values, 0.3))
    sensitive = rng.choice(n_values, size=n, p=skew)
    frame = pd.DataFrame({"q": np.arange(n), "s": [values[i] for i in sensitive]})
    table = Table.from_frame(
        frame,
        quasi_identifiers=["q"],
        sensitive="s",
        hierarchies={"s": _hierarchy(values)} if hierarchy else None,
    )
    published = None
    if rng.random() < 0.5:
        present = np.unique(table.codes["s"])
        published = np.where(
            rng.random(n) < 0.3, rng.choice(present, size=n), table.codes["s"]
        ).astype(np.int32)
    return Release(table, group, "bucketization", published_sensitive=published)


def _specs(release: Release) -> list[tuple[str, dict]]:
    domain = [str(v) for v in release.table.values["s"]]
    hierarchical = release.table.schema["s"].hierarchy is not None
    distances = ["equal", "ordered"] + (["hierarchical"] if hierarchical else [])
    return [
        ("k-anonymity", {"k": 3}),
        ("l-diversity", {"l": 2}),
        ("l-diversity", {"l": 2, "sensitive_values": domain[:2]}),
        ("m-confidentiality", {"m": 3, "sensitive_values": domain[-1:]}),
        ("distinct-l-diversity", {"l": 2}),
        ("entropy-l-diversity", {"l": 1.5}),
        *[("recursive-cl-diversity", {"c": 2.0, "l": l}) for l in (1, 2, 3, 12, 13)],
        *[("t-closeness", {"t": 0.2, "distance": d}) for d in distances],
    ]


def _fields(result: models.CheckResult) -> tuple:
    return (
        result.model,
        result.parameters,
        result.holds,
        result.value,
        result.worst_group,
        result.worst_value,
        result.per_group.dtype,
        result.per_group.tobytes(),
        result.violating_groups.tolist(),
        result.violating_records,
        repr(result.details),
    )


def _run(release: Release, monkeypatch: pytest.MonkeyPatch, blocks) -> list[tuple]:
    for module in (l_diversity, t_closeness):
        monkeypatch.setattr(module, "row_blocks", blocks)
    out = [_fields(models.check(release, name, **p)) for name, p in _specs(release)]
    monkeypatch.undo()
    return out


def _one_block(n_rows: int, width: int) -> list[slice]:
    return [slice(0, n_rows)] if n_rows else []


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("float_emd", [False, True])
def test_blocks_and_compact_counts_change_no_result(seed, float_emd, monkeypatch):
    hierarchy, big = seed % 2 == 0, seed % 3 == 0
    if float_emd:  # the float64 fallback of t-closeness, blocked the same way
        monkeypatch.setattr(t_closeness, "_INT_LIMIT", 0)
    plain = _release(seed, hierarchy=hierarchy, big=big)
    assert plain.sensitive_histogram.dtype == np.int64  # cached: the checks read it as before
    compact = _release(seed, hierarchy=hierarchy, big=big)
    assert sensitive_counts(plain).dtype == np.int64
    assert sensitive_counts(compact).dtype == (np.uint16 if big else np.uint8)
    limit = t_closeness._INT_LIMIT
    want = _run(plain, monkeypatch, _one_block)
    monkeypatch.setattr(t_closeness, "_INT_LIMIT", limit)
    tiny = functools.partial(row_blocks, cells=int(np.random.default_rng(seed).integers(1, 40)))
    got = _run(compact, monkeypatch, tiny)
    assert "sensitive_histogram" not in compact.__dict__  # no int64 histogram was made
    assert got == want


def test_compact_histogram_is_the_histogram_in_a_narrow_dtype():
    rng = np.random.default_rng(5)
    group = rng.integers(0, 50, size=5000).astype(np.int32)
    codes = rng.integers(0, 7, size=5000).astype(np.int32)
    want = group_histogram(group, codes, 50, 7)
    got = compact_group_histogram(group, codes, 50, 7, int(want.max()), chunk=333)
    assert got.dtype == count_dtype(int(want.max())) == np.uint8
    np.testing.assert_array_equal(got, want)
    assert count_dtype(255) == np.uint8 and count_dtype(256) == np.uint16
    assert count_dtype(0) == np.uint8 and count_dtype(2**40) == np.uint64


def test_row_blocks_cover_the_rows_once():
    for n_rows, width, cells in [(0, 5, 10), (1, 5, 10), (17, 3, 10), (17, 100, 10), (9, 1, 9)]:
        blocks = row_blocks(n_rows, width, cells)
        covered = np.concatenate([np.arange(n_rows)[b] for b in blocks] or [np.array([], int)])
        assert covered.tolist() == list(range(n_rows))
        assert all(b.stop - b.start <= max(1, cells // width) for b in blocks)


def test_compact_counts_are_shared_and_kept_per_release():
    frame = pd.DataFrame({"q": range(6), "a": list("xxyyzz"), "b": list("uvuvuu")})
    table = Table.from_frame(frame, quasi_identifiers=["q"], sensitive=["a", "b"])
    release = Release(table, [0, 0, 0, 1, 1, 1], "generalization")
    a, b = release.for_sensitive("a"), release.for_sensitive("b")
    assert sensitive_counts(a) is sensitive_counts(a)  # computed once per release
    np.testing.assert_array_equal(sensitive_counts(a), a.sensitive_histogram)
    np.testing.assert_array_equal(sensitive_counts(b), b.sensitive_histogram)
    assert not sensitive_counts(a).flags.writeable
    assert sensitive_counts(b) is b.sensitive_histogram  # the cached int64 one is reused
    assert sensitive_counts(a).shape == (2, 3) and sensitive_counts(b).shape == (2, 2)
