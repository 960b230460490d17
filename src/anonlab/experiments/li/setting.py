"""Li & Li (ICDE 2008), §VI: the setting — Adult's six quasi-identifiers and Occupation with the
``li-injector`` hierarchies (Table III), the parameter grids of Figures 3-8 and the paper's
Figure 3 (notes ``li-injector-negative-rules.md`` §9)."""

from __future__ import annotations

import pandas as pd

from anonlab.table import Table

QUASI_IDENTIFIERS = ("age", "workclass", "education", "marital-status", "race", "sex")
SENSITIVE = "occupation"
HIERARCHY_SET = "li-injector"
DATASET = "adult-train"
MIN_EXPECTATIONS = (0.75, 0.8, 0.85, 0.9, 0.95)
LS = (3, 4, 5, 6)
DEFAULT_MIN_EXPECTATION = 0.9
DEFAULT_L = 6
SEEDS = tuple(range(10))
QDS = (2, 3, 4, 5, 6)
SELECTIVITIES = (0.03, 0.05, 0.07, 0.1)
DEFAULT_QD = 3
DEFAULT_SELECTIVITY = 0.05
N_QUERIES = 1000
#: The issue's goal for Figure 3: our rule counts within this many of the paper's.
COUNT_TOLERANCE = 10

#: Figure 3 of the paper (OCR-repaired, notes §9.3); shares in %.
PAPER_FIGURE3 = pd.DataFrame(
    {
        "min_exp": [0.75, 0.80, 0.85, 0.90, 0.95],
        "rules": [45, 39, 32, 22, 15],
        "N0": [0.0, 0.0, 0.0, 0.0, 0.0],
        "N1": [80.4, 84.6, 87.5, 87.9, 96.2],
        "N2": [15.9, 12.2, 9.2, 9.2, 1.8],
        "N3": [2.3, 2.1, 2.0, 2.5, 2.0],
        "N4": [1.2, 1.0, 1.0, 0.4, 0.0],
        "N>=5": [0.2, 0.1, 0.0, 0.0, 0.0],
    }
)
SHARE_COLUMNS = ("N0", "N1", "N2", "N3", "N4", "N>=5")


def adult_table(dataset: str = DATASET) -> Table:
    """Adult with the paper's six quasi-identifiers, Occupation, and the li-injector hierarchies."""
    return Table.from_dataset(
        dataset,
        quasi_identifiers=list(QUASI_IDENTIFIERS),
        sensitive=SENSITIVE,
        hierarchy_set=HIERARCHY_SET,
    )
