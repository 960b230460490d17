"""The d-dimensional Hilbert index (Skilling 2004): bijection, adjacency, 2-D reference, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.anonymize.hilbert import hilbert_index
from anonlab.errors import AnonlabError

GRIDS = [(d, bits) for d in range(1, 5) for bits in range(1, 5)]


def _grid(d: int, bits: int) -> np.ndarray:
    return np.array(list(itertools.product(range(2**bits), repeat=d)), dtype=np.int64)


def xy2d(side: int, x: int, y: int) -> int:
    """The textbook 2-D Hilbert index (Wikipedia "Hilbert curve", ``xy2d``)."""
    d = 0
    s = side // 2
    while s > 0:
        rx = 1 if x & s else 0
        ry = 1 if y & s else 0
        d += s * s * ((3 * rx) ^ ry)
        if ry == 0:
            if rx == 1:
                x = s - 1 - x
                y = s - 1 - y
            x, y = y, x
        s //= 2
    return d


def skilling_reference(point: list[int], bits: int) -> int:
    """Skilling's AxestoTranspose in plain Python integers, then bit interleaving."""
    x = list(point)
    n = len(x)
    m = 1 << (bits - 1)
    q = m
    while q > 1:
        p = q - 1
        for i in range(n):
            if x[i] & q:
                x[0] ^= p
            else:
                t = (x[0] ^ x[i]) & p
                x[0] ^= t
                x[i] ^= t
        q >>= 1
    for i in range(1, n):
        x[i] ^= x[i - 1]
    t = 0
    q = m
    while q > 1:
        if x[n - 1] & q:
            t ^= q - 1
        q >>= 1
    x = [v ^ t for v in x]
    h = 0
    for b in range(bits - 1, -1, -1):
        for i in range(n):
            h = (h << 1) | ((x[i] >> b) & 1)
    return h


@pytest.mark.parametrize("d,bits", GRIDS)
def test_bijection_on_small_grids(d, bits):
    pts = _grid(d, bits)
    h = hilbert_index(pts, bits)
    assert h.dtype == np.uint64 and h.shape == (len(pts),)
    assert np.array_equal(np.sort(h), np.arange(2 ** (d * bits), dtype=np.uint64))


@pytest.mark.parametrize("d,bits", GRIDS)
def test_consecutive_indices_are_grid_neighbours(d, bits):
    pts = _grid(d, bits)
    h = hilbert_index(pts, bits).astype(np.int64)
    path = np.empty_like(pts)
    path[h] = pts
    steps = np.abs(np.diff(path, axis=0)).sum(axis=1)
    assert np.all(steps == 1)
    # documented orientation: starts at the origin; ends at the far corner of dimension 0
    assert np.all(path[0] == 0)
    end = np.zeros(d, dtype=np.int64)
    end[0] = 2**bits - 1
    assert np.array_equal(path[-1], end)


@pytest.mark.parametrize("bits", range(1, 7))
def test_two_d_equals_textbook_xy2d(bits):
    pts = _grid(2, bits)
    h = hilbert_index(pts, bits)
    ref = np.array([xy2d(2**bits, int(a), int(b)) for a, b in pts], dtype=np.uint64)
    assert np.array_equal(h, ref)


def test_one_d_is_identity():
    x = np.arange(1000).reshape(-1, 1)
    assert np.array_equal(hilbert_index(x), np.arange(1000, dtype=np.uint64))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_large_grids_agree_with_python_reference(data):
    d = data.draw(st.integers(1, 8))
    bits = data.draw(st.integers(1, 64 // d))
    pts = data.draw(
        st.lists(
            st.lists(st.integers(0, 2**bits - 1), min_size=d, max_size=d), min_size=1, max_size=8
        )
    )
    arr = np.array(pts, dtype=np.uint64)
    got = hilbert_index(arr, bits)
    assert got.tolist() == [skilling_reference(p, bits) for p in pts]


def test_full_64_bit_index():
    top = np.array([[2**64 - 1]], dtype=np.uint64)
    assert int(hilbert_index(top, 64)[0]) == 2**64 - 1
    corner = np.array([[2**32 - 1, 0]], dtype=np.uint64)
    assert int(hilbert_index(corner, 32)[0]) == 2**64 - 1


def test_default_bits_is_bit_length_of_the_largest_coordinate():
    pts = np.array([[0, 5], [3, 1], [7, 7]])
    assert np.array_equal(hilbert_index(pts), hilbert_index(pts, 3))
    assert hilbert_index(np.zeros((3, 2), dtype=np.int32)).tolist() == [0, 0, 0]
    assert hilbert_index(np.empty((0, 3), dtype=np.int64)).shape == (0,)


def test_accepts_int32_and_lists():
    pts = [[1, 2], [3, 0]]
    assert np.array_equal(hilbert_index(np.array(pts, dtype=np.int32), 2), hilbert_index(pts, 2))


@pytest.mark.parametrize(
    "coords,bits,match",
    [
        (np.zeros((2, 5), dtype=np.int64), 13, "at most 64"),
        (np.zeros((2, 1), dtype=np.int64), 65, "at most 64"),
        (np.array([[1, -1]]), None, "non-negative"),
        (np.array([[0.5, 1.0]]), None, "integers"),
        (np.arange(4), None, "2-D"),
        (np.empty((3, 0), dtype=np.int64), None, "at least one dimension"),
        (np.array([[8, 1]]), 3, "does not fit"),
        (np.array([[1, 1]]), 0, "'bits'"),
        (np.array([[1, 1]]), "2", "'bits'"),
    ],
)
def test_errors(coords, bits, match):
    with pytest.raises(AnonlabError, match=match):
        hilbert_index(coords, bits)


def test_too_many_dimensions_for_default_bits():
    with pytest.raises(AnonlabError, match="d\\*bits = 66"):
        hilbert_index(np.full((1, 11), 63))
