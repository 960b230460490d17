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
