"""Reproductions of published experiments (data, claim checks, plots).

* :mod:`anonlab.experiments.martin`: Martin et al., worst-case background knowledge, Figures 5
  and 6 (``python -m anonlab.experiments.martin --out DIR``).
* :mod:`anonlab.experiments.wong`: Wong et al., foreground knowledge.
* :mod:`anonlab.experiments.kifer`: Kifer, the deFinetti attack, Table 7.
* :mod:`anonlab.experiments.li`: Li & Li, Injector, Figures 3-8.
* :mod:`anonlab.experiments.jin` and :mod:`anonlab.experiments.jin_utility`: Jin et al.,
  algorithm-based disclosure (Figures 6, 9) and the repairs' utility (Figures 7, 10).
"""
