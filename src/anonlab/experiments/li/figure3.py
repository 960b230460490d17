"""Li & Li (ICDE 2008), Figure 3: the negative rules mined per minExp and the records by number
of incompatible values (N0 … N≥5), beside the paper's table."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pandas as pd

from anonlab.experiments.li.setting import (
    DEFAULT_L,
    MIN_EXPECTATIONS,
    PAPER_FIGURE3,
    SHARE_COLUMNS,
    adult_table,
)
from anonlab.mining import mine_negative_rules
from anonlab.table import Table


def figure3(
    table: Table | None = None,
    min_expectations: Sequence[float] = MIN_EXPECTATIONS,
    max_conditions: int = 1,
    *,
    l: int = DEFAULT_L,
) -> dict[str, Any]:
    """Figure 3: number of rules and records by number of incompatible values, per minExp.

    Parameters
    ----------
    table : Table, optional
        Default :func:`adult_table` (adult-train).
    min_expectations : sequence of float
    max_conditions : int, default=1
        Conditions per rule; 2 or 3 is the ablation.
    l : int, default=6
        For the column ``cannot_keep_l``: records with more than ``d − ℓ`` incompatible values,
        which keep fewer than ℓ possible values even in the whole table (so no bucketization
        protects them; the matching test can only add to these).

    Returns
    -------
    dict
        ``"settings"``; ``"frame"``: one row per minExp with ``rules`` (non-redundant),
        ``rules_unpruned``, ``N0`` … ``N4``, ``N>=5`` (% of records), ``cannot_keep_l``
        (records), ``seconds`` (mining); ``"paper"``: :data:`PAPER_FIGURE3`; ``"rules"``: the
        rule set per minExp.
    """
    table = adult_table() if table is None else table
    sens = table.require_sensitive()
    d = table.domain_size(sens)
    rows, rule_sets = [], {}
    for me in min_expectations:
        t0 = time.perf_counter()
        rules = mine_negative_rules(table, me, max_conditions)
        seconds = time.perf_counter() - t0
        k = rules.incompatible_counts(table)
        view = rules.distribution(table)["paper_view"]
        rows.append(
            {
                "min_exp": float(me),
                "rules": len(rules),
                "rules_unpruned": rules.n_unpruned,
                **{c: 100 * view[c] for c in SHARE_COLUMNS},
                "N0_records": int((k == 0).sum()),
                "cannot_keep_l": int((k > d - l).sum()),
                "seconds": seconds,
            }
        )
        rule_sets[float(me)] = rules
    return {
        "settings": {
            "rows": table.n_rows,
            "quasi_identifiers": list(table.quasi_identifiers),
            "hierarchy_heights": {
                q: table.schema[q].hierarchy.height + 1
                if table.schema[q].hierarchy is not None
                else None
                for q in table.quasi_identifiers
            },
            "sensitive": sens,
            "sensitive_values": d,
            "max_conditions": max_conditions,
            "pruning": "redundant specializations removed",
            "l": l,
        },
        "frame": pd.DataFrame(rows),
        "paper": PAPER_FIGURE3.copy(),
        "rules": rule_sets,
    }


def figure3_comparison(data: dict[str, Any]) -> pd.DataFrame:
    """Paper beside ours, one row per minExp: rules and the six shares (ours / paper)."""
    ours = data["frame"].set_index("min_exp")
    paper = data["paper"].set_index("min_exp")
    rows = []
    for me in ours.index:
        row: dict[str, Any] = {"min_exp": me}
        p = paper.loc[me] if me in paper.index else None
        row["rules (paper)"] = None if p is None else int(p["rules"])
        row["rules (ours)"] = int(ours.loc[me, "rules"])
        row["unpruned (ours)"] = int(ours.loc[me, "rules_unpruned"])
        for c in SHARE_COLUMNS:
            paper_value = "" if p is None else f"{p[c]:.1f}"
            row[c] = f"{ours.loc[me, c]:.1f} ({paper_value})"
        rows.append(row)
    return pd.DataFrame(rows)
