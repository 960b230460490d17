"""One Markdown table writer for every experiment's report (paper-vs-ours tables), and the
report file those reports end in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

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


def write_report(out: Path, parts: Sequence[str], seconds: float, note: str = "") -> str:
    """End an experiment's report: append ``Total time {seconds} s{note}.``, join the parts with
    blank lines, write the text to ``out / "report.md"`` (through a temporary file, so a failed
    run leaves no half-written report), print it and return it."""
    from anonlab.atomic_output import atomic_write_text

    text = "\n\n".join([*parts, f"Total time {seconds:.1f} s{note}."]) + "\n"
    atomic_write_text(out / "report.md", text)
    print(text)
    return text
