"""Table I of Li & Li (ICDE 2008) with the toy hierarchies of the notes (§10 E3)."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab.hierarchy import Hierarchy
from anonlab.table import Table

TABLE_I = {
    "zip": ["47677", "47602", "47678", "47905", "47909", "47906", "47605", "47673", "47607"],
    "age": [29, 22, 27, 43, 52, 47, 30, 36, 32],
    "sex": ["F", "F", "M", "M", "F", "M", "M", "M", "M"],
    "disease": [
        "Ovarian Cancer",
        "Ovarian Cancer",
        "Prostate Cancer",
        "Flu",
        "Heart Disease",
        "Heart Disease",
        "Heart Disease",
        "Flu",
        "Flu",
    ],
}


def _zip_rows() -> list[list[str]]:
    return [[z, z[:4] + "*", z[:3] + "**"] for z in sorted(set(TABLE_I["zip"]))]


def _age_rows() -> list[list[str]]:
    rows = []
    for a in sorted(set(TABLE_I["age"])):
        d = a // 10 * 10
        w = a // 20 * 20
        rows.append([str(a), f"[{d}-{d + 9}]", f"[{w}-{w + 19}]"])
    return rows


@pytest.fixture(scope="session")
def table_one() -> Table:
    """Table I: ZIP (5 digits -> 4-digit prefix -> 3-digit prefix -> *), Age (year -> decade ->
    20 years -> *), Sex (value -> *); sensitive Disease."""
    return Table.from_frame(
        pd.DataFrame(TABLE_I),
        quasi_identifiers=["zip", "age", "sex"],
        sensitive="disease",
        hierarchies={
            "zip": Hierarchy(_zip_rows(), name="zip"),
            "age": Hierarchy(_age_rows(), name="age"),
            "sex": Hierarchy.flat(["F", "M"], name="sex"),
        },
    )
