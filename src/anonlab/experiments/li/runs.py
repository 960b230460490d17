"""Li & Li (ICDE 2008), Figures 4-8: the rule sets and releases they share (:class:`Runs`,
computed on first use and timed for Figure 5), the grid of settings of their panels and the
settings they report."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from anonlab.experiments.li.setting import DEFAULT_L, DEFAULT_MIN_EXPECTATION, SEEDS
from anonlab.mining import NegativeRuleSet, mine_negative_rules
from anonlab.release import Release
from anonlab.table import Table


@dataclass
class Runs:
    """Rule sets and releases shared by Figures 4-8, computed on first use.

    Attributes
    ----------
    table : Table
    seeds : tuple of int
        Anatomy's seeds (averaged over).
    max_conditions : int
        Conditions per negative rule.
    """

    table: Table
    seeds: tuple[int, ...] = SEEDS
    max_conditions: int = 1
    rules: dict[float, NegativeRuleSet] = field(default_factory=dict)
    mining_seconds: dict[float, float] = field(default_factory=dict)
    injector: dict[tuple[float, int], Release] = field(default_factory=dict)
    injector_seconds: dict[tuple[float, int], float] = field(default_factory=dict)
    anatomy: dict[tuple[int, int], Release] = field(default_factory=dict)
    anatomy_seconds: dict[tuple[int, int], float] = field(default_factory=dict)

    def rules_at(self, min_exp: float) -> NegativeRuleSet:
        key = float(min_exp)
        if key not in self.rules:
            t0 = time.perf_counter()
            self.rules[key] = mine_negative_rules(self.table, key, self.max_conditions)
            self.mining_seconds[key] = time.perf_counter() - t0
        return self.rules[key]

    def injector_at(self, min_exp: float, l: int) -> Release:
        from anonlab.anonymize import anonymize

        key = (float(min_exp), int(l))
        if key not in self.injector:
            rules = self.rules_at(min_exp)
            t0 = time.perf_counter()
            self.injector[key] = anonymize(self.table, "injector", l=l, rules=rules, suppress=True)
            self.injector_seconds[key] = time.perf_counter() - t0
        return self.injector[key]

    def anatomy_at(self, l: int, seed: int) -> Release:
        from anonlab.anonymize import anonymize

        key = (int(l), int(seed))
        if key not in self.anatomy:
            t0 = time.perf_counter()
            self.anatomy[key] = anonymize(self.table, "anatomy", l=l, seed=seed)
            self.anatomy_seconds[key] = time.perf_counter() - t0
        return self.anatomy[key]


def settings_grid(
    min_expectations: Sequence[float], ls: Sequence[int]
) -> list[tuple[str, float, float, int]]:
    """The settings of Figures 4-8's panels (a) and (b), in the paper's order: ``(panel, x,
    minExp, ℓ)`` with panel ``"minExp"`` varying minExp at ℓ = :data:`DEFAULT_L` and panel
    ``"l"`` varying ℓ at minExp = :data:`DEFAULT_MIN_EXPECTATION`."""
    grid = [("minExp", me, me, DEFAULT_L) for me in min_expectations]
    grid += [("l", l, DEFAULT_MIN_EXPECTATION, l) for l in ls]
    return grid


def suppressed_records(release: Release) -> int:
    """The records ``release`` withheld, from its manifest (0 when it says nothing)."""
    return int(release.manifest.get("suppressed_records", 0) or 0)


def runs_settings(runs: Runs) -> dict[str, Any]:
    """The settings every figure of Figures 4-8 reports: the table, Anatomy's seeds, the
    conditions per rule and the default minExp and ℓ."""
    return {
        "rows": runs.table.n_rows,
        "quasi_identifiers": list(runs.table.quasi_identifiers),
        "sensitive": runs.table.sensitive,
        "anatomy_seeds": list(runs.seeds),
        "max_conditions": runs.max_conditions,
        "default_min_exp": DEFAULT_MIN_EXPECTATION,
        "default_l": DEFAULT_L,
    }
