"""Wong, Fu, Wang, Xu, Yu (TKDD 2011), §5: the foreground-knowledge attack on Adult, reproduced.

    python -m anonlab.experiments.wong [--out DIR] [--seeds 3] [--figures] [--tcloseness]

Setting (paper §5; notes ``notes/wong-foreground-knowledge-attack.md`` §5):

* Data: Adult, train + test without missing values (45,222 rows). Attributes in the paper's
  order :data:`ATTRIBUTES` (Age, Work Class, Marital Status, Occupation, Race, Sex, Native
  Country, Salary Class); QI size ``d`` = the first ``d`` of them. Sensitive: Education, with the
  sensitive set :data:`LOW_EDUCATION` ``{Preschool, 1st-4th, 5th-6th, 7th-8th}`` (1,566 records,
  3.46%) treated as one value ``x``.
* Attack: :func:`anonlab.attacks.foreground.foreground_attack` with the paper's
  ``ε = 0.01, σ = 0.9`` (``J = 3993`` records per signature), every attribute set of the QI with
  a sufficient signature, the empty set included (so ``p* >= n/N``), ``p*`` compared with
  ``1/r``; ``r = ℓ`` for Anatomy, ``k = m = r`` for MASK.
* Measures (paper §5.1): recall = share of sensitive records with ``p* > 1/r``; false positive =
  share of the other records with ``p* > 1/r``; average breach = mean ``p*`` over the sensitive
  records (all of them, breached or not).

The two choices the paper leaves open, both options here (docs/reproductions/wong.md shows how
much each moves the result):

1. ``rule`` — the probability of a signature with fewer than ``J`` records
   (:data:`anonlab.attacks.foreground.SMALL_SIGNATURE`): ``"uniform-half"`` (``f = 0.5``,
   default: it reproduces 0.8917), ``"base-rate"`` (``f = 1566/45222``), ``"pooled"`` (one shared
   unknown).
2. ``reading`` — how Anatomy treats the non-sensitive Education values. Anatomy is run on a copy
   of the table whose four low values are merged into one label ``"low"`` (anonlab's
   ``sensitive_values`` constrains each listed value on its own, the paper treats the set as one
   value), and the original values are published with that grouping.
   ``"set-only"`` (default): only ``"low"`` is constrained, so every group (``ℓ`` or ``ℓ+1``
   records) holds at most one low-education record; the only reading under which ``ℓ = 4`` and
   ``ℓ = 10`` are feasible (HS-grad is 33% of the rows). ``"all-values"``: Anatomy on all 13
   labels of the merged table (12 non-sensitive + ``"low"``), every group holds distinct labels,
   hence also at most one low record; feasible for ``ℓ <= 3`` only.

Raw Age (74 values, none reaching 3,993 records) is pruned from every attribute set;
``age_width`` (e.g. 10) replaces Age by ``width``-year bins before anonymization and attack.

Injector (``minConf = 1, minExp = 0.9, ℓ = r``, the paper's §5.2 setting and Injector's own
defaults) is run on the merged table too, like Anatomy and MASK: its negative rules
``X ⇒ ¬s`` are mined from that table by Injector's own miner (one condition, as
:func:`anonlab.anonymize.injector` does by default, with the table's ``jin-asap`` hierarchies),
and the grouping is published with the original Education values. At ``ℓ = 10`` some records
keep fewer than 10 possible values even with the whole table as one bucket (1,191 records at
QI 3-5), so Injector refuses; the sweep records that as a row with the reason (``note``), not a
crash. ``"injector-suppress"`` runs Injector with ``suppress=True`` instead (those records are
withheld, counted in ``suppressed_records`` / ``suppressed_sensitive``; the measures are over
the records published).

Other choices: Anatomy, MASK and the attack are deterministic given the seed; numbers are the
mean over ``seeds`` Anatomy seeds (the paper averages 100 runs). MASK is run on the merged
table too (``m``-confidentiality of the set as one value), with the perturbed records' new
labels mapped back to the original domain. t-closeness (``t = 0.2``, full-domain, ``jin-asap``
hierarchies, equal ground distance on the 16 values) does not depend on ``r``: one release per
QI size, scored at ``r = 2`` and ``r = 10``. Average Δ (paper §5.2): for each group and each
non-empty attribute set, ``max f - min f`` over the group's members whose signature is
sufficient (groups with none are skipped), averaged over groups and sets. Utility: relative
error of COUNT queries (:func:`anonlab.utility.workload.workload_error`, ``qd = 3``,
``s = 0.05``; ``n_queries`` queries, default 1,000).

Claims of Figures 1-2 (:func:`check_claims`): a trend "grows with QI size" for the problematic
share allows dips of 0.02; for average Δ it is judged by Spearman's rank correlation with the QI
size (>= 0.8). "Average Δ is smaller when r = 10" (the paper's §5.2 text) is checked per
algorithm whose release depends on r (t-closeness excluded: the same release at every r).
"MASK below Anatomy and Injector" uses ``injector``, or ``injector-suppress`` where Injector
refused. Recall: :func:`recall_diagnosis` gives each missed sensitive record one cause;
:func:`recall_options` shows recall under each open choice, including counting ``p* = 1/r`` as
a breach (``measures(..., at_least=True)``; the paper's Problem 2 says ``> 1/r``, the default).

The package, one concept per module: :mod:`.data` (Adult, the set, the paper's numbers),
:mod:`.releases` (Anatomy, MASK, Injector, t-closeness), :mod:`.measures` (the attack and the
§5.1-5.2 measures, the case study), :mod:`.diagnosis` (why records are missed), :mod:`.runs`
(headline, sensitivity, accuracy, Figures 1-3), :mod:`.claims` (the checks), :mod:`.plots`,
and :mod:`.cli` (the report, ``python -m anonlab.experiments.wong``). Every public name is
importable from the package.
"""

from anonlab.experiments.wong.claims import (
    TIME_GROWS_RHO,
    check_claims,
    timing_claims,
    utility_claims,
)
from anonlab.experiments.wong.cli import main
from anonlab.experiments.wong.data import (
    ALGORITHMS,
    ATTRIBUTES,
    HEADLINE_TOLERANCE,
    HIERARCHY_SET,
    LOW_EDUCATION,
    MERGED,
    PAPER,
    PAPER_BREACH,
    READINGS,
    SENSITIVE,
    adult_frame,
    adult_tables,
    is_low,
    merged_table,
)
from anonlab.experiments.wong.diagnosis import (
    RECALL_CAUSES,
    best_mate,
    oracle_attack,
    recall_causes,
    recall_diagnosis,
    recall_options,
)
from anonlab.experiments.wong.measures import (
    attack,
    average_delta,
    case_study,
    measures,
    mined_accuracy,
    true_distribution,
)
from anonlab.experiments.wong.plots import plot_figures
from anonlab.experiments.wong.releases import (
    anatomy_release,
    injector_release,
    mask_release,
    release_for,
    tcloseness_release,
)
from anonlab.experiments.wong.runs import (
    accuracy_table,
    anatomy_run,
    figures,
    headline,
    sensitivity,
)

__all__ = [
    "ALGORITHMS",
    "ATTRIBUTES",
    "HEADLINE_TOLERANCE",
    "HIERARCHY_SET",
    "LOW_EDUCATION",
    "MERGED",
    "PAPER",
    "PAPER_BREACH",
    "READINGS",
    "RECALL_CAUSES",
    "SENSITIVE",
    "TIME_GROWS_RHO",
    "accuracy_table",
    "adult_frame",
    "adult_tables",
    "anatomy_release",
    "anatomy_run",
    "attack",
    "average_delta",
    "best_mate",
    "case_study",
    "check_claims",
    "figures",
    "headline",
    "injector_release",
    "is_low",
    "main",
    "mask_release",
    "measures",
    "merged_table",
    "mined_accuracy",
    "oracle_attack",
    "plot_figures",
    "recall_causes",
    "recall_diagnosis",
    "recall_options",
    "release_for",
    "sensitivity",
    "tcloseness_release",
    "timing_claims",
    "true_distribution",
    "utility_claims",
]
