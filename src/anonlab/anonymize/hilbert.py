"""The d-dimensional Hilbert curve: grid point -> index along the curve.

Skilling's transpose algorithm (J. Skilling, "Programming the Hilbert curve", AIP Conference
Proceedings 707, 2004): the coordinates are turned in place into the *transposed* Hilbert index
(one ``bits``-bit word per dimension) by ``AxestoTranspose`` — an "inverse undo" of the rotations
and reflections from the most significant bit down, then a Gray encoding — and the index is read
by interleaving those words, most significant bit first, dimension 0 first.

Convention (orientation) of the curve produced here, on a grid of side ``2**bits`` in each of
``d`` dimensions:

* the curve starts at the origin (index 0 is the point ``(0, ..., 0)``);
* for ``d >= 2`` it ends at the far corner of dimension 0: the last index,
  ``2**(d*bits) - 1``, is the point with coordinate ``2**bits - 1`` in dimension 0 and 0
  elsewhere (dimension 0 is the most significant in the interleaving);
* for ``d = 2`` and coordinates ``(c0, c1)`` it equals the classic ``xy2d(x=c0, y=c1)`` of the
  textbook (Wikipedia "Hilbert curve") algorithm, which starts at ``(0, 0)`` and ends at
  ``(2**bits - 1, 0)``;
* for ``d = 1`` it is the identity.

Consecutive indices are always grid neighbours (L1 distance 1), and the map is a bijection from
the ``2**(d*bits)`` grid points onto ``0 .. 2**(d*bits) - 1``; ``tests/anonymize/test_hilbert.py``
checks both, and the ``d = 2`` agreement, on small grids.

The kernel is compiled with numba (one pass per record, O(d·bits) word operations each).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab._validation import check_int
from anonlab.errors import AnonlabError


@njit(cache=True)
def _hilbert_kernel(coords: np.ndarray, bits: int) -> np.ndarray:
    """Hilbert index of each row of ``coords`` (uint64, shape (n, d)) on a 2**bits grid."""
    n, d = coords.shape
    out = np.empty(n, dtype=np.uint64)
    x = np.empty(d, dtype=np.uint64)
    one = np.uint64(1)
    zero = np.uint64(0)
    top = np.uint64(1) << np.uint64(bits - 1)
    for r in range(n):
        for i in range(d):
            x[i] = coords[r, i]
        # Inverse undo (Skilling's AxestoTranspose, first loop).
        q = top
        while q > one:
            p = q - one
            for i in range(d):
                if (x[i] & q) != zero:
                    x[0] ^= p  # invert
                else:
                    t = (x[0] ^ x[i]) & p  # exchange
                    x[0] ^= t
                    x[i] ^= t
            q = q >> one
        # Gray encode.
        for i in range(1, d):
            x[i] ^= x[i - 1]
        t = zero
        q = top
        while q > one:
            if (x[d - 1] & q) != zero:
                t ^= q - one
            q = q >> one
        for i in range(d):
            x[i] ^= t
        # Interleave the transposed index: bit b of dimension 0, 1, ..., d-1, then bit b-1, ...
        h = zero
        for b in range(bits - 1, -1, -1):
            sb = np.uint64(b)
            for i in range(d):
                h = (h << one) | ((x[i] >> sb) & one)
        out[r] = h
    return out


def hilbert_index(coords: np.ndarray, bits: int | None = None) -> np.ndarray:
    """Index of each grid point along the d-dimensional Hilbert curve (Skilling 2004).

    Parameters
    ----------
    coords : array_like of shape (n, d)
        Non-negative integer coordinates, each ``< 2**bits``; ``d >= 1``.
    bits : int, optional
        Bits per coordinate: the grid has side ``2**bits``. Default: the bit length of the
        largest coordinate (at least 1). ``d * bits`` must be at most 64.

    Returns
    -------
    ndarray of shape (n,), dtype=uint64
        The Hilbert index, in ``0 .. 2**(d*bits) - 1``; see the module docstring for the curve's
        orientation.

    Raises
    ------
    AnonlabError
        If ``coords`` is not a 2-D array of non-negative integers, a coordinate does not fit in
        ``bits`` bits, or ``d * bits > 64``.

    References
    ----------
    J. Skilling. Programming the Hilbert curve. AIP Conf. Proc. 707, 381 (2004).
    """
    arr = np.asarray(coords)
    if arr.ndim != 2:
        raise AnonlabError(f"coords must be a 2-D array (n, d), got shape {arr.shape}")
    if arr.size and not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
        raise AnonlabError(f"coords must hold integers, got dtype {arr.dtype}")
    n, d = arr.shape
    if d < 1:
        raise AnonlabError("coords must have at least one dimension (column)")
    if arr.size and np.issubdtype(arr.dtype, np.signedinteger) and arr.min() < 0:
        raise AnonlabError(f"coords must be non-negative, got minimum {int(arr.min())}")
    biggest = int(arr.max()) if arr.size else 0
    if bits is None:
        bits = max(1, biggest.bit_length())
    else:
        bits = check_int("bits", bits, minimum=1)
    if d * bits > 64:
        raise AnonlabError(
            f"a Hilbert index of d = {d} dimensions with bits = {bits} needs d*bits = {d * bits} "
            f"bits; at most 64 fit (uint64)"
        )
    if biggest >> bits:
        raise AnonlabError(
            f"coordinate {biggest} does not fit in bits = {bits} (grid side {2**bits}); "
            f"use bits >= {biggest.bit_length()}"
        )
    return _hilbert_kernel(np.ascontiguousarray(arr, dtype=np.uint64), bits)
