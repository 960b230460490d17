"""Wong et al. (TKDD 2011), §5: the data — Adult, the paper's attributes and the low-education
set (:mod:`anonlab.experiments.adult_education`, shared with Jin et al.), its merged label, and
the paper's numbers (notes ``wong-foreground-knowledge-attack.md`` §5).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonlab.experiments.adult_education import ATTRIBUTES, LOW_EDUCATION, SENSITIVE
from anonlab.schema import Kind
from anonlab.table import Table

MERGED = "low"
READINGS = ("set-only", "all-values")
ALGORITHMS = ("anatomy", "mask", "injector", "injector-suppress", "t-closeness")
HIERARCHY_SET = "jin-asap"

#: The paper's numbers (§5.1), keyed by (ℓ = r, QI size).
PAPER_BREACH = {(2, 5): 0.8917, (4, 5): 0.4640, (2, 3): 0.80307, (2, 8): 0.943526}
PAPER = {
    "sensitive_tuples": 1566,
    "sensitive_share": 0.0346,
    "recall_min": 0.99,
    "false_positive_max": 0.06,
    "mined_error_l2": 0.007,
    "mined_error_l10": 0.0526,
    "case_adm_clerical": 0.02,
    "case_craft_repair": 0.04,
    "case_posterior": 0.67,
}
#: Goal of the issue: the headline within this of 0.8917.
HEADLINE_TOLERANCE = 0.03


def adult_frame(age_width: int | None = None) -> pd.DataFrame:
    """Adult's paper attributes and Education; Age in ``age_width``-year bins if given."""
    from anonlab import datasets

    df = datasets.load_frame("adult")[[*ATTRIBUTES, SENSITIVE]].copy()
    if age_width:
        lo = (df["age"] // age_width) * age_width
        df["age"] = lo.astype(str) + "-" + (lo + age_width - 1).astype(str)
    return df


def adult_tables(
    d: int = 5,
    *,
    age_width: int | None = None,
    hierarchy_set: str | None = None,
    frame: pd.DataFrame | None = None,
) -> tuple[Table, Table]:
    """(original table, merged-label table) with QI = the first ``d`` paper attributes.

    The merged table has the four low-education values replaced by ``"low"``; rows are in the
    same order, so a grouping of one is a grouping of the other. Hierarchies only with raw Age.
    """
    if not 1 <= d <= len(ATTRIBUTES):
        raise ValueError(f"QI size must be 1..{len(ATTRIBUTES)}, got {d}")
    qi = list(ATTRIBUTES[:d])
    if frame is None:
        if age_width is None:
            table = Table.from_dataset(
                "adult", quasi_identifiers=qi, sensitive=SENSITIVE, hierarchy_set=hierarchy_set
            )
        else:
            df = adult_frame(age_width)
            table = Table.from_frame(
                df[[*qi, SENSITIVE]], quasi_identifiers=qi, sensitive=SENSITIVE
            )
    else:
        numeric = ["age"] if pd.api.types.is_numeric_dtype(frame["age"]) else []
        table = Table.from_frame(
            frame[[*qi, SENSITIVE]], quasi_identifiers=qi, sensitive=SENSITIVE, numeric=numeric
        )
    return table, merged_table(table)


def merged_table(table: Table) -> Table:
    """``table`` with the low-education values replaced by the one label ``"low"``."""
    df = table.to_frame()
    df[SENSITIVE] = np.where(df[SENSITIVE].isin(LOW_EDUCATION), MERGED, df[SENSITIVE])
    kinds = {a.name: a.kind for a in table.schema.attributes}
    hier = {
        a.name: a.hierarchy
        for a in table.schema.attributes
        if a.hierarchy is not None and a.name != SENSITIVE
    }
    return Table.from_frame(
        df,
        quasi_identifiers=list(table.quasi_identifiers),
        sensitive=SENSITIVE,
        numeric=[k for k, v in kinds.items() if v is Kind.NUMERIC and k != SENSITIVE],
        hierarchies=hier,
    )


def is_low(table: Table) -> np.ndarray:
    """Per record: original Education is in the low-education set."""
    return table.value_mask(SENSITIVE, list(LOW_EDUCATION))[table.codes[SENSITIVE]]
