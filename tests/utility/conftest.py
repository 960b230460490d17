"""Hypothesis strategies shared by the utility tests.

Test modules import this conftest by the name ``SUPPORT`` (as ``tests/app/conftest.py`` does):
pytest's importlib mode does not make it importable otherwise, and a strategy is needed when
the module is imported (``@given`` arguments), so it cannot be a fixture.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from anonlab import Hierarchy, Release, Table

SUPPORT = "anonlab_utility_test_support"
sys.modules.setdefault(SUPPORT, sys.modules[__name__])

HIER = Hierarchy([["a", "ab"], ["b", "ab"], ["c", "cde"], ["d", "cde"], ["e", "cde"]])


@st.composite
def random_releases(
    draw,
    *,
    max_rows: int,
    max_qis: int,
    max_code: int,
    sensitive: st.SearchStrategy[list],
    max_group: int,
):
    """A random release of 1..``max_rows`` records: 1..``max_qis`` quasi-identifiers (numeric
    codes 0..``max_code``, categorical, or categorical with :data:`HIER`), a sensitive attribute
    over the values ``sensitive`` draws (numeric when they are numbers), random groups
    0..``max_group``, either scheme, sometimes perturbed published sensitive values."""
    n = draw(st.integers(1, max_rows))
    n_qi = draw(st.integers(1, max_qis))
    cols, numeric, hierarchies = {}, [], {}
    for i in range(n_qi):
        kind = draw(st.sampled_from(["num", "cat", "hier"]))
        name = f"q{i}"
        if kind == "num":
            cols[name] = draw(st.lists(st.integers(0, max_code), min_size=n, max_size=n))
            numeric.append(name)
        else:
            cols[name] = draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n))
            if kind == "hier":
                hierarchies[name] = HIER
    values = draw(sensitive)
    cols["s"] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    if not isinstance(values[0], str):
        numeric.append("s")
    t = Table.from_frame(
        pd.DataFrame(cols),
        quasi_identifiers=[f"q{i}" for i in range(n_qi)],
        sensitive="s",
        numeric=numeric,
        hierarchies=hierarchies,
    )
    group = np.array(draw(st.lists(st.integers(0, max_group), min_size=n, max_size=n)))
    scheme = draw(st.sampled_from(["generalization", "bucketization"]))
    published = None
    if draw(st.booleans()):
        size = t.domain_size("s")
        published = np.array(draw(st.lists(st.integers(0, size - 1), min_size=n, max_size=n)))
    return Release(t, group, scheme, published_sensitive=published)
