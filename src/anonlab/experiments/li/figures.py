"""Li & Li (ICDE 2008), Figures 4-8 regenerated: vulnerable records (4), time (5), rule-mining
error (6, 7) and query error (8), Injector beside Anatomy (mean over Anatomy's seeds)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.experiments.li.runs import Runs, runs_settings, settings_grid, suppressed_records
from anonlab.experiments.li.setting import (
    DEFAULT_L,
    DEFAULT_MIN_EXPECTATION,
    DEFAULT_QD,
    DEFAULT_SELECTIVITY,
    LS,
    MIN_EXPECTATIONS,
    N_QUERIES,
    QDS,
    SELECTIVITIES,
    adult_table,
)


def figure4(
    runs: Runs | None = None,
    min_expectations: Sequence[float] = MIN_EXPECTATIONS,
    ls: Sequence[int] = LS,
) -> dict[str, Any]:
    """Figure 4: vulnerable records (fewer than ℓ possible values), Anatomy vs Injector.

    Returns
    -------
    dict
        ``"settings"``; ``"frame"``: one row per (panel, x, method) with ``vulnerable``
        (matching test; Anatomy: mean over seeds), ``vulnerable_simple``, ``pinned`` (exactly
        one possible value, matching), ``vulnerable_min``/``vulnerable_max`` over Anatomy's
        seeds, ``suppressed`` (Injector).
    """
    from anonlab.attacks.negative_rules import negative_rule_attack

    runs = Runs(adult_table()) if runs is None else runs
    rows = []
    for panel, x, me, l in settings_grid(min_expectations, ls):
        rules = runs.rules_at(me)
        inj = runs.injector_at(me, l)
        a = negative_rule_attack(inj, rules, l=l)
        rows.append(
            {
                "panel": panel,
                "x": x,
                "method": "Injector",
                "vulnerable": float(a.vulnerable("matching").sum()),
                "vulnerable_simple": float(a.vulnerable("simple").sum()),
                "pinned": float(a.pinned("matching").sum()),
                "vulnerable_min": int(a.vulnerable("matching").sum()),
                "vulnerable_max": int(a.vulnerable("matching").sum()),
                "suppressed": suppressed_records(inj),
            }
        )
        per_seed = []
        for seed in runs.seeds:
            a = negative_rule_attack(runs.anatomy_at(l, seed), rules, l=l)
            per_seed.append(
                (a.vulnerable("matching").sum(), a.vulnerable("simple").sum(), a.pinned().sum())
            )
        v = np.array(per_seed, dtype=float)
        rows.append(
            {
                "panel": panel,
                "x": x,
                "method": "Anatomy",
                "vulnerable": float(v[:, 0].mean()),
                "vulnerable_simple": float(v[:, 1].mean()),
                "pinned": float(v[:, 2].mean()),
                "vulnerable_min": int(v[:, 0].min()),
                "vulnerable_max": int(v[:, 0].max()),
                "suppressed": 0,
            }
        )
    return {"settings": runs_settings(runs), "frame": pd.DataFrame(rows)}


def figure5(
    runs: Runs | None = None,
    min_expectations: Sequence[float] = MIN_EXPECTATIONS,
    ls: Sequence[int] = LS,
) -> dict[str, Any]:
    """Figure 5: time of Injector (rule mining + bucketization) and of Anatomy, in seconds.

    Rule mining is timed when the rules are first mined; the bucketization when the release is
    first made (Anatomy: mean over seeds). Wall clock on this machine.
    """
    runs = Runs(adult_table()) if runs is None else runs
    rows = []
    for panel, x, me, l in settings_grid(min_expectations, ls):
        runs.injector_at(me, l)
        for seed in runs.seeds:
            runs.anatomy_at(l, seed)
        rows.append(
            {
                "panel": panel,
                "x": x,
                "injector_mining_s": runs.mining_seconds[float(me)],
                "injector_bucketization_s": runs.injector_seconds[(float(me), int(l))],
                "injector_total_s": runs.mining_seconds[float(me)]
                + runs.injector_seconds[(float(me), int(l))],
                "anatomy_s": float(
                    np.mean([runs.anatomy_seconds[(int(l), s)] for s in runs.seeds])
                ),
            }
        )
    return {"settings": runs_settings(runs), "frame": pd.DataFrame(rows)}


def figures6_7(
    runs: Runs | None = None,
    min_expectations: Sequence[float] = MIN_EXPECTATIONS,
    ls: Sequence[int] = LS,
    *,
    min_support: float = 0.01,
    min_conviction: float = 1.2,
    max_conditions: int = 3,
) -> dict[str, Any]:
    """Figures 6 and 7: confidence error and identification error (false positives and
    negatives) of rules estimated from each release, in % (Anatomy: mean over seeds)."""
    from anonlab.mining import mine_association_rules
    from anonlab.utility.rule_mining import rule_mining_error

    runs = Runs(adult_table()) if runs is None else runs
    original = mine_association_rules(runs.table, min_support, min_conviction, max_conditions)
    kw = {
        "min_support": min_support,
        "min_conviction": min_conviction,
        "max_conditions": max_conditions,
        "original": original,
    }
    rows = []
    anatomy_cache: dict[int, np.ndarray] = {}
    for panel, x, me, l in settings_grid(min_expectations, ls):
        inj = runs.injector_at(me, l)
        # With suppressed records the release's table is smaller: its own R_org is mined.
        same = inj.table.n_rows == runs.table.n_rows
        r = rule_mining_error(inj, **(kw if same else {**kw, "original": None}))
        rows.append(
            {
                "panel": panel,
                "x": x,
                "method": "Injector",
                "confidence_error": 100 * r.confidence_error,
                "false_positive": 100 * r.false_positive,
                "false_negative": 100 * r.false_negative,
                "rules_reconstructed": float(r.n_reconstructed_rules),
            }
        )
        if l not in anatomy_cache:
            per = [rule_mining_error(runs.anatomy_at(l, s), **kw) for s in runs.seeds]
            anatomy_cache[l] = np.array(
                [
                    [
                        100 * e.confidence_error,
                        100 * e.false_positive,
                        100 * e.false_negative,
                        e.n_reconstructed_rules,
                    ]
                    for e in per
                ]
            ).mean(axis=0)
        m = anatomy_cache[l]
        rows.append(
            {
                "panel": panel,
                "x": x,
                "method": "Anatomy",
                "confidence_error": float(m[0]),
                "false_positive": float(m[1]),
                "false_negative": float(m[2]),
                "rules_reconstructed": float(m[3]),
            }
        )
    settings = runs_settings(runs)
    settings.update(
        {
            "positive_rules": len(original),
            "min_support": min_support,
            "min_conviction": min_conviction,
            "positive_max_conditions": max_conditions,
        }
    )
    return {"settings": settings, "frame": pd.DataFrame(rows)}


def figure8(
    runs: Runs | None = None,
    min_expectations: Sequence[float] = MIN_EXPECTATIONS,
    ls: Sequence[int] = LS,
    qds: Sequence[int] = QDS,
    selectivities: Sequence[float] = SELECTIVITIES,
    *,
    n_queries: int = N_QUERIES,
    seed: int = 0,
) -> dict[str, Any]:
    """Figure 8: average relative error (%) of COUNT queries, varied minExp, ℓ, qd and sel.

    The same queries (``seed``) answer every release of a setting; Anatomy: mean over seeds.
    """
    from anonlab.utility.workload import generate_workload, workload_error

    runs = Runs(adult_table()) if runs is None else runs
    table = runs.table
    workloads: dict[tuple[int, float], Any] = {}

    def workload(qd: int, sel: float):
        key = (int(qd), float(sel))
        if key not in workloads:
            workloads[key] = generate_workload(table, n_queries, qd, sel, seed)
        return workloads[key]

    grid = [
        (p, x, me, l, DEFAULT_QD, DEFAULT_SELECTIVITY)
        for p, x, me, l in settings_grid(min_expectations, ls)
    ]
    grid += [("qd", q, DEFAULT_MIN_EXPECTATION, DEFAULT_L, q, DEFAULT_SELECTIVITY) for q in qds]
    grid += [("sel", s, DEFAULT_MIN_EXPECTATION, DEFAULT_L, DEFAULT_QD, s) for s in selectivities]
    rows = []
    for panel, x, me, l, qd, sel in grid:
        w = workload(qd, sel)
        inj = workload_error(runs.injector_at(me, l), w).mean_relative_error
        ana = np.mean(
            [workload_error(runs.anatomy_at(l, s), w).mean_relative_error for s in runs.seeds]
        )
        rows.append({"panel": panel, "x": x, "method": "Injector", "query_error": 100 * inj})
        rows.append({"panel": panel, "x": x, "method": "Anatomy", "query_error": 100 * ana})
    settings = runs_settings(runs)
    settings.update(
        {
            "n_queries": n_queries,
            "default_qd": DEFAULT_QD,
            "default_selectivity": DEFAULT_SELECTIVITY,
            "workload_seed": seed,
        }
    )
    return {"settings": settings, "frame": pd.DataFrame(rows)}
