"""Mixed-radix int64 keys of signatures, cells and (group, signature) pairs.

The map-reduce measures key their counts by *global* ids so that the blocks' arrays add up
exactly: a record's codes on an attribute set, read as one mixed-radix number (lexicographic
order). Choice where the issue is silent: an attribute set whose key space (times the number of
groups) reaches 2^62 raises an error naming the attributes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.table import Table

#: Largest key space of a mixed-radix int64 key (signature, cell or (group, signature) pair).
KEY_LIMIT = 1 << 62


def key_space(table: Table, attributes: Sequence[str], factor: int = 1, what: str = "") -> int:
    """Product of the domain sizes (times ``factor``); raises when an int64 key would overflow."""
    space = math.prod(int(table.domain_size(a)) for a in attributes)
    if space * max(int(factor), 1) >= KEY_LIMIT:
        raise AnonlabError(
            f"attribute set {list(attributes)} has too many value combinations "
            f"({space:,}{f' x {factor:,} groups' if factor > 1 else ''}) for a 62-bit key"
            f"{what}; use fewer attributes (parameter 'attributes' or 'max_attributes')"
        )
    return space


def radix_keys(table: Table, attributes: Sequence[str]) -> np.ndarray:
    """Mixed-radix int64 key of each record's codes on ``attributes`` (lexicographic order)."""
    key = np.zeros(table.n_rows, dtype=np.int64)
    for a in attributes:
        key = key * int(table.domain_size(a)) + table.codes[a]
    return key


def decode_keys(keys: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """Inverse of :func:`radix_keys`: (m, len(radices)) int64 codes."""
    out = np.empty((len(keys), len(radices)), dtype=np.int64)
    rest = np.asarray(keys, dtype=np.int64).copy()
    for j in range(len(radices) - 1, -1, -1):
        rest, out[:, j] = np.divmod(rest, int(radices[j]))
    return out


def unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (ascending) and how often each occurs (int64): a block's keyed
    counts, in the form ``merge_keyed_counts`` and ``map_reduce``'s ``"merge"`` add up."""
    unique, counts = np.unique(keys, return_counts=True)
    return unique, counts.astype(np.int64)
