"""Reproductions of published experiments (data, claim checks, plots).

* :mod:`anonlab.experiments.martin`: Martin et al., worst-case background knowledge, Figures 5
  and 6 (``python -m anonlab.experiments.martin --out DIR``).
"""
