"""Reproductions of published experiments (data, claim checks, plots).

* :mod:`anonlab.experiments.martin`: Martin et al., worst-case background knowledge, Figures 5
  and 6 (``python -m anonlab.experiments.martin --out DIR``).
* :mod:`anonlab.experiments.wong`: Wong et al., foreground knowledge.
* :mod:`anonlab.experiments.kifer`: Kifer, the deFinetti attack, Table 7.
* :mod:`anonlab.experiments.li`: Li & Li, Injector, Figures 3-8.
* :mod:`anonlab.experiments.jin` and :mod:`anonlab.experiments.jin_utility`: Jin et al.,
  algorithm-based disclosure (Figures 6, 9) and the repairs' utility (Figures 7, 10).

Shared by them: :mod:`~anonlab.experiments.claims` (the claims protocol of ``anonlab
reproduce``, whose per-paper adapters are :mod:`~anonlab.experiments.reproduce`),
:mod:`~anonlab.experiments.markdown` (the report tables and file) and
:mod:`~anonlab.experiments.adult_education` (the Adult setting of Wong et al. and Jin et al.).
"""
