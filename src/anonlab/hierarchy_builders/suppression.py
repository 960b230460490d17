"""The ``suppress`` builder: each value, then ``*``.

A group publishes its one value or ``*``, nothing in between (ARX's usual hierarchy for sex, and
the safe choice for a category with no natural grouping). Rows come in the values' lexical
order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from anonlab.hierarchy_builders.common import BuilderContext, hierarchy_rows

__all__ = ["suppress_rows"]


def suppress_rows(params: Mapping[str, object], values: np.ndarray, ctx: BuilderContext) -> list:
    """The ``suppress`` builder: one row ``[value, *]`` per distinct value (it takes no
    parameters)."""
    return hierarchy_rows(values, [], np.argsort(values.astype(str), kind="stable"), top=True)
