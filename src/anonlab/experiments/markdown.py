"""One Markdown table writer for every experiment's report (paper-vs-ours tables)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def frame_to_markdown(frame: pd.DataFrame, floatfmt: str = ".4f") -> str:
    """A pipe table: floats with ``floatfmt`` (NaN as an empty cell), booleans as yes/NO,
    anything else as ``str``; pipes inside cells are escaped."""
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, bool | np.bool_):
                cells.append("yes" if v else "NO")
            elif isinstance(v, float | np.floating):
                cells.append("" if np.isnan(v) else format(v, floatfmt))
            else:
                cells.append(str(v).replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
