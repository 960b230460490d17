"""The ``order`` builder: ordered categories merged in runs of adjacent values.

ARX's ordering builder: ``order`` lists the values in order (default: sorted, numerically if
every value is a number), level ``j`` merges runs of ``fanout ** j`` adjacent values, labelled
by the first and last of the run (``low-mid``), until one run is left; then ``*``.

Choices made where ARX and the papers are silent: labels name the first and last value of the
run in the full ``order`` (values listed in ``order`` but absent from the column still count
for positions), a run of one its value; rows come in ``order``'s order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from anonlab.hierarchy_builders.common import BuilderContext, as_text, hierarchy_rows, preview

__all__ = ["order_rows"]


def _natural_sort(values: np.ndarray) -> list[str]:
    nums = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    if np.isfinite(nums).all():
        return values[np.lexsort((values.astype(str), nums))].tolist()
    return sorted(values.tolist())


def order_rows(params: Mapping[str, object], values: np.ndarray, ctx: BuilderContext) -> list:
    """The ``order`` builder: the hierarchy's rows for the distinct values ``values``, runs of
    ``fanout ** j`` adjacent values of ``order`` at level ``j``; parameters already checked
    against the builder's names."""
    fanout = ctx.param_int(params, "fanout", 2, minimum=2)
    if "order" in params:
        order = [as_text(v) or "" for v in ctx.param_list(params, "order")]
        seen: set[str] = set()
        dup = next((v for v in order if v in seen or seen.add(v)), None)  # type: ignore[func-returns-value]
        if dup is not None:
            ctx.fail(f"value {dup!r} appears twice in parameter 'order'; list each value once")
        position = {v: i for i, v in enumerate(order)}
        missing = [v for v in values if v not in position]
        if missing:
            ctx.fail(
                f"value(s) {preview(missing)} of the column are not in parameter 'order'; "
                "list every value of the column in its place"
            )
    else:
        order = _natural_sort(values)
        position = {v: i for i, v in enumerate(order)}
    n = len(order)
    pos = np.array([position[v] for v in values], dtype=np.int64)
    levels = []
    step = fanout
    while (n_groups := -(-n // step)) > 1:
        labels = []
        for g in range(n_groups):
            first, last = order[g * step], order[min((g + 1) * step, n) - 1]
            labels.append(first if first == last else f"{first}-{last}")
        if len(set(labels)) < n_groups:
            clash = next(lab for lab in labels if labels.count(lab) > 1)
            ctx.fail(
                f"two runs of level {len(levels) + 1} would both be labelled {clash!r} (values "
                "containing '-'); rename the values or use the 'mapping' builder"
            )
        levels.append(np.asarray(labels, dtype=object)[pos // step])
        step *= fanout
    return hierarchy_rows(values, levels, np.argsort(pos, kind="stable"), top=True)
