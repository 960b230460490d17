"""Li & Li, "Injector" (ICDE 2008), §VI: Figures 3-8 on Adult, regenerated.

    python -m anonlab.experiments.li [--out DIR] [--dataset adult-train] [--seeds 10]
                                     [--figures 3,4,5,6,7,8] [--ablation 2,3]

Setting (paper §VI, Table III; notes ``notes/li-injector-negative-rules.md`` §9):

* Data: Adult without missing values, quasi-identifiers Age, Workclass, Education, Marital
  Status, Race, Gender (:data:`QUASI_IDENTIFIERS`), sensitive Occupation (14 values). The paper
  does not say which Adult file it used. Default ``adult-train`` (adult.data, 30,162 rows): its
  single-condition rule counts are within ±7 of the paper's Figure 3 and its N1 at minExp 0.75
  is the paper's 80.4%. ``adult`` (train + test, 45,222 rows) matches Table III's 74 ages
  (adult-train has 72) but gives 33 and 27 rules at minExp 0.75 and 0.8 (paper 45, 39). Table
  III's 8 Workclass values match neither (7 after removing missing values: "Never-worked" rows
  all lack an occupation). ``main`` prints Figure 3 for both.
* Hierarchies ``hierarchy_set="li-injector"`` with Table III's heights (levels, leaf and root
  included): Age 5 (year, 5, 10, 20 years, ``*``), Workclass 3, Education 4, Marital Status 3,
  Race 3, Gender 2.
* Negative rules (:func:`anonlab.mining.mine_negative_rules`): confidence 1, expectation
  ``>= minExp``, **one condition** per rule by default (``max_conditions=1``: one
  quasi-identifier at any hierarchy level), redundant specializations removed; minExp 0.75 …
  0.95, default 0.9. The multi-condition version is the ablation :func:`figure3` with
  ``max_conditions=2`` or 3.
* ℓ 3 … 6, default 6. Anatomy (``anonlab.anonymize.anatomy``) is averaged over seeds 0 … 9 (the
  paper: 10 runs); Injector (``anonlab.anonymize.injector``, ties to the lowest index) is
  deterministic, run once per setting, with ``suppress=True`` (suppressed records are counted
  in the frames; 0 on Adult).
* Vulnerable records (Figure 4): fewer than ℓ possible values under the rules mined at the same
  minExp, by the matching test (values possible in some one-to-one assignment of the group's
  values) and, beside it, by simple exclusion (:mod:`anonlab.attacks.negative_rules`).
* Time (Figure 5): rule mining and bucketization of Injector, Anatomy's time; wall clock on
  the machine that runs it.
* Rule-mining error (Figures 6, 7): :func:`anonlab.utility.rule_mining.rule_mining_error`, rules
  ``X ⇒ s`` with support ``>= 1%`` and conviction ``>= 1.2``, at most 3 conditions (the paper's
  thresholds are unstated; these are the notes' proposal).
* Query error (Figure 8): :func:`anonlab.utility.workload.workload_error`, 1,000 COUNT queries
  per setting (the paper's number), the foundation's generator (``qd`` quasi-identifiers, each
  predicate keeps ``ceil(|A|·sel^(1/(qd+1)))`` values); defaults ``qd = 3``, ``sel = 0.05`` (the
  paper's are unstated), the same queries for both methods (seed 0).

The package, one concept per module: :mod:`.setting` (the data, the hierarchies, the grids and
the paper's Figure 3), :mod:`.figure3` (the rules mined per minExp), :mod:`.runs` (the rule sets
and releases Figures 4-8 share), :mod:`.figures` (Figures 4-8), :mod:`.claims` (the checks),
:mod:`.plots`, and :mod:`.cli` (the report, ``python -m anonlab.experiments.li``). Every public
name is importable from the package.
"""

from anonlab.experiments.li.claims import (
    check_figure3,
    check_figures,
    figure3_mode,
)
from anonlab.experiments.li.cli import main
from anonlab.experiments.li.figure3 import (
    figure3,
    figure3_comparison,
)
from anonlab.experiments.li.figures import (
    figure4,
    figure5,
    figure8,
    figures6_7,
)
from anonlab.experiments.li.plots import (
    plot_figure3,
    plot_figure5,
    plot_panels,
)
from anonlab.experiments.li.runs import Runs
from anonlab.experiments.li.setting import (
    COUNT_TOLERANCE,
    DATASET,
    DEFAULT_L,
    DEFAULT_MIN_EXPECTATION,
    DEFAULT_QD,
    DEFAULT_SELECTIVITY,
    HIERARCHY_SET,
    LS,
    MIN_EXPECTATIONS,
    N_QUERIES,
    PAPER_FIGURE3,
    QDS,
    QUASI_IDENTIFIERS,
    SEEDS,
    SELECTIVITIES,
    SENSITIVE,
    SHARE_COLUMNS,
    adult_table,
)

__all__ = [
    "COUNT_TOLERANCE",
    "DATASET",
    "DEFAULT_L",
    "DEFAULT_MIN_EXPECTATION",
    "DEFAULT_QD",
    "DEFAULT_SELECTIVITY",
    "HIERARCHY_SET",
    "LS",
    "MIN_EXPECTATIONS",
    "N_QUERIES",
    "PAPER_FIGURE3",
    "QDS",
    "QUASI_IDENTIFIERS",
    "SEEDS",
    "SELECTIVITIES",
    "SENSITIVE",
    "SHARE_COLUMNS",
    "Runs",
    "adult_table",
    "check_figure3",
    "check_figures",
    "figure3",
    "figure3_comparison",
    "figure3_mode",
    "figure4",
    "figure5",
    "figure8",
    "figures6_7",
    "main",
    "plot_figure3",
    "plot_figure5",
    "plot_panels",
]
