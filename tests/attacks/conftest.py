"""Helpers shared by the attack tests, exposed as session fixtures (hypothesis tests can use
session-scoped fixtures)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest


def _enumerate_worlds(f, n):
    """Eqs. (1)-(3) of the foreground-knowledge attack by enumerating the C(N, n) possible
    worlds (exact with Fractions): ``p(t_j : x)`` for member weights ``f``."""
    N = len(f)
    if n == 0:
        return [F(0)] * N
    z = F(0)
    acc = [F(0)] * N
    for xs in itertools.combinations(range(N), n):
        pw = F(1)
        for j in range(N):
            pw *= f[j] if j in xs else 1 - f[j]
        z += pw
        for j in xs:
            acc[j] += pw
    if z == 0:
        return [F(n, N)] * N
    return [a / z for a in acc]


@pytest.fixture(scope="session")
def enumerate_worlds():
    """The possible-world enumeration oracle of the foreground attack's Eq. (3)."""
    return _enumerate_worlds
