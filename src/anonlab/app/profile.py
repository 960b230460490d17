"""What the schema page shows of each column: a few values, how many distinct and missing.

Read once per data file with pandas (every cell as text, as the CSV holds it; a Parquet file's
values written as text) and kept beside it (``profile.json``), so the schema page loads fast
after the first time. The values shown are the first distinct ones in file order, at most
:data:`SAMPLE` of them, each cut to :data:`WIDTH` characters; the page escapes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonlab.app.projects import Project, read_json, write_json

SAMPLE = 6
WIDTH = 40


def column_profile(project: Project) -> dict[str, dict[str, Any]]:
    """``{column: {"sample": [...], "distinct": n, "missing": n}}`` for the project's data."""
    path = project.folder / "profile.json"
    stamp = _stamp(project.data)
    cached = read_json(path)
    if isinstance(cached, dict) and cached.get("stamp") == stamp:
        return cached["columns"]
    columns = _profile(project.data)
    write_json(path, {"stamp": stamp, "columns": columns})
    return columns


def _stamp(data: Path) -> list[float]:
    info = data.stat()
    return [info.st_size, info.st_mtime]


def _profile(data: Path) -> dict[str, dict[str, Any]]:
    import pandas as pd

    from anonlab.table import MISSING_MARKERS

    if data.suffix == ".parquet":
        frame = pd.read_parquet(data)
        missing = {c: int(frame[c].isna().sum()) for c in frame.columns}
        frame = frame.astype("string").fillna("")
    else:
        frame = pd.read_csv(data, dtype=str, keep_default_na=False, na_filter=False,
                            skipinitialspace=True, index_col=False)  # fmt: skip
        missing = {c: int(frame[c].str.strip().isin(MISSING_MARKERS).sum()) for c in frame.columns}
    out = {}
    for name in frame.columns:
        values = pd.unique(frame[name].astype(str).str.strip())
        shown = [v if len(v) <= WIDTH else v[: WIDTH - 1] + "…" for v in values[:SAMPLE]]
        out[str(name)] = {"sample": shown, "distinct": int(len(values)),
                          "missing": missing[name]}  # fmt: skip
    return out
