"""Shared test helpers, exposed as session fixtures so hypothesis tests can use them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pytest

from anonlab.table import Table


def _make_table(
    data: Mapping[str, Sequence],
    qi: Sequence[str],
    sensitive: str | None = None,
    **kwargs,
) -> Table:
    """A Table from a dict of columns (pandas dtypes decide numeric vs categorical)."""
    return Table.from_frame(
        pd.DataFrame(dict(data)), quasi_identifiers=list(qi), sensitive=sensitive, **kwargs
    )


def _partition(labels: Sequence[int] | np.ndarray) -> frozenset[frozenset[int]]:
    """A labelling as a set of groups of row indices (equal partitions up to relabelling)."""
    groups: dict[int, set[int]] = {}
    for i, g in enumerate(np.asarray(labels).tolist()):
        groups.setdefault(g, set()).add(i)
    return frozenset(frozenset(s) for s in groups.values())


@pytest.fixture(scope="session")
def make_table():
    """``make_table({"age": [...], "s": [...]}, qi=["age"], sensitive="s", **from_frame_kw)``."""
    return _make_table


@pytest.fixture(scope="session")
def partition_of():
    """``partition_of(labels)``: the partition a group labelling induces (a set of row sets)."""
    return _partition


@pytest.fixture
def cli(capsys):
    """Run ``anonlab ARGV...`` in-process through the real entry point; (exit code, out, err)."""
    import sys

    from anonlab.cli import main

    def run(argv: list[str]) -> tuple[int, str, str]:
        old = sys.argv
        sys.argv = ["anonlab", *argv]
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.argv = old
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def _assert_same_table(a: Table, b: Table) -> None:
    """Two tables are the same: schema (names, roles, kinds, the same hierarchy objects), codes
    and values with their dtypes, row ids, dropped columns and rows, and type decisions."""
    assert a.schema.names == b.schema.names
    for x, y in zip(a.schema.attributes, b.schema.attributes, strict=True):
        assert (x.name, x.role, x.kind) == (y.name, y.role, y.kind)
        assert x.hierarchy is y.hierarchy
    for name in a.schema.names:
        assert a.codes[name].dtype == b.codes[name].dtype == np.int32
        assert np.array_equal(a.codes[name], b.codes[name]), name
        assert a.values[name].dtype == b.values[name].dtype, name
        assert a.values[name].tolist() == b.values[name].tolist(), name
    assert a.row_id.dtype == b.row_id.dtype
    assert np.array_equal(a.row_id, b.row_id)
    assert a.dropped == b.dropped
    assert a.types == b.types


@pytest.fixture(scope="session")
def assert_same_table():
    """``assert_same_table(a, b)``: two Tables read two ways are the same in every part."""
    return _assert_same_table
