"""The ``prefix`` builder: codes and zip codes kept as text, masked from the right.

ARX's ``HierarchyBuilderRedactionBased``: each level masks one more trailing character
(``02139`` → ``0213*`` → ``021**`` → ... → ``*****``); ``keep`` lists how many leading
characters each level keeps, ``mask_char`` is the mask (default ``*``).

Choices made where ARX and the papers are silent:

* Masking needs every value to have the same length (a zip code that lost its leading zero,
  ``2139``, is refused, not grouped with ``2139x``); ``pad: true`` accepts shorter values,
  right-padded with the mask to the longest length before masking (``A01`` → ``A01*``).
* Without ``keep``, the levels keep ``L - 1, L - 2, ..., 0`` characters, so the top is all
  masks (``*****``); a ``keep`` that does not end in 0 gets ``*`` above it.
* Rows come in the values' lexical order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from anonlab.hierarchy_builders.common import BuilderContext, hierarchy_rows, to_number

__all__ = ["prefix_rows"]


def prefix_rows(params: Mapping[str, object], values: np.ndarray, ctx: BuilderContext) -> list:
    """The ``prefix`` builder: the hierarchy's rows for the distinct values ``values``, each
    level masking more trailing characters (``keep``, ``mask_char``, ``pad``); parameters
    already checked against the builder's names."""
    mask = params.get("mask_char", "*")
    if not isinstance(mask, str) or len(mask) != 1 or mask.isspace():
        ctx.fail(f"parameter 'mask_char' must be one visible character, got {mask!r}")
    pad = params.get("pad", False)
    if isinstance(pad, str) and pad.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        pad = pad.strip().lower() in ("true", "yes", "1")
    if not isinstance(pad, bool):
        ctx.fail(f"parameter 'pad' must be true or false, got {pad!r}")
    text = values.astype(str)
    lengths = np.char.str_len(text)
    length = int(lengths.max())
    if not pad and (lengths != length).any():
        common = np.bincount(lengths).argmax()
        odd = np.flatnonzero(lengths != common)[0]
        ctx.fail(
            f"value {values[odd]!r} has {lengths[odd]} characters but most values have {common}; "
            "prefix masking needs values of one length (a code that lost a leading zero?); "
            "fix the data, or pass pad=true to right-pad shorter values with the mask"
        )
    if "keep" in params:
        keep_raw = ctx.param_list(params, "keep")
        keep = [to_number(k) for k in keep_raw]
        if (
            not keep
            or any(k is None or not float(k).is_integer() for k in keep)
            or any(not 0 <= k < length for k in keep)  # type: ignore[operator]
            or any(b >= a for a, b in zip(keep, keep[1:], strict=False))  # type: ignore[operator]
        ):
            ctx.fail(
                f"parameter 'keep' must list decreasing numbers of leading characters kept, each "
                f"in 0..{length - 1} (values have {length} characters), got {keep_raw!r}"
            )
        keep_n = [int(k) for k in keep]  # type: ignore[arg-type]
    else:
        keep_n = list(range(length - 1, -1, -1))
    padded = np.char.ljust(text, length, mask) if pad else text
    levels = []
    for k in keep_n:
        kept = padded.astype(f"<U{k}") if k > 0 else np.full(len(text), "", dtype="<U1")
        levels.append(np.char.add(kept, mask * (length - k)).astype(object))
    order = np.argsort(text, kind="stable")
    return hierarchy_rows(values, levels, order, top=keep_n[-1] != 0)
