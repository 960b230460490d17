"""ARX's Loss metric: hand-computed values and ARX 3.9.2's own values on adult-train."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab import AnonlabError, Hierarchy, Table
from anonlab.anonymize import generalize, mondrian
from anonlab.utility import measure

ARX_QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]


def tiny() -> Table:
    h = Hierarchy([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "*"]])
    df = pd.DataFrame({"q": list("aacd"), "s": list("1212")})
    return Table.from_frame(df, quasi_identifiers=["q"], sensitive="s", hierarchies={"q": h})


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (0, 0.0),  # A = 4 * 1/4 = 1 = m: no loss
        (1, 0.3333333333),  # A = 4 * 2/4 = 2; x = (2 - 1) / (4 - 1), truncated to 10 decimals
        (2, 1.0),  # everything '*': A = 4 = N
    ],
)
def test_hand_computed(level, expected):
    assert measure(generalize(tiny(), {"q": level}), "arx-loss").value == pytest.approx(
        expected, abs=1e-15
    )


def test_domain_share_counts_hierarchy_rows_not_data():
    """A leaf absent from the data still counts in |dom| (ARX reads it from the file)."""
    h = Hierarchy([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "*"],
                   ["e", "y", "*"]])  # fmt: skip
    df = pd.DataFrame({"q": list("aacd"), "s": list("1212")})
    t = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s", hierarchies={"q": h})
    # shares: x = 2/5, y = 3/5; A = 2*2/5 + 2*3/5 = 2; m = 4/5; x = (2 - 0.8) / (4 - 0.8)
    got = measure(generalize(t, {"q": 1}), "arx-loss").value
    assert got == pytest.approx(1.2 / 3.2, abs=1e-10)


@pytest.mark.parametrize(
    ("levels", "arx_loss"),
    [((4, 0, 0, 1, 3, 2, 2), 0.5644), ((4, 1, 1, 1, 3, 2, 2), 0.9070)],
)
def test_arx_values_on_adult_train(levels, arx_loss):
    """ARX 3.9.2's Loss at its 0%-suppression nodes (given to 4 decimals in shared/)."""
    table = Table.from_dataset(
        "adult-train", quasi_identifiers=ARX_QI, sensitive="occupation", hierarchy_set="arx"
    )
    got = measure(generalize(table, dict(zip(ARX_QI, levels, strict=True))), "arx-loss").value
    assert round(got, 4) == arx_loss


def test_needs_a_full_domain_release():
    df = pd.DataFrame({"q": [1, 2, 3, 4], "s": list("abab")})
    t = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s")
    with pytest.raises(AnonlabError, match="full-domain"):
        measure(mondrian(t, k=2), "arx-loss")


def test_suppressed_loss_sums_shares_as_the_lattice_does():
    """ARX's Loss truncates each attribute's term to 10 decimals; the release's measure sums
    the leaves under each record's node as integers and divides once, as the lattice search
    does, so the two agree exactly. Found by the lattice's property test: with 15 float shares
    of 1/12 summed one by one, two nodes of equal Loss came out 4e-11 apart and the search's
    choice looked worse than the optimum."""
    import numpy as np
    import pandas as pd

    from anonlab import Release, Table
    from anonlab.anonymize import generalize, lattice
    from anonlab.hierarchy import Hierarchy
    from anonlab.utility import measure

    age = Hierarchy.intervals(range(12), (3, 6))
    colour = Hierarchy([["red", "warm", "*"], ["blue", "cold", "*"]])
    size = Hierarchy([["S", "*"], ["M", "*"], ["L", "*"]])
    frame = pd.DataFrame({"age": [0] * 14 + [6, 0], "colour": ["red"] * 16,
                          "size": ["S"] * 15 + ["M"], "s": ["a"] * 16})  # fmt: skip
    table = Table.from_frame(frame, quasi_identifiers=["age", "colour", "size"], sensitive="s",
                             hierarchies={"age": age, "colour": colour, "size": size})  # fmt: skip

    def cost(levels: dict, drop: int) -> float:
        full = generalize(table, levels)
        keep = np.flatnonzero(np.arange(table.n_rows) != drop)
        kept = Release(table.take(keep), full.group[keep], "generalization",
                       {"suppressed_records": 1}, levels=levels)  # fmt: skip
        return measure(kept, "arx-loss").value

    a = cost({"age": 0, "colour": 0, "size": 1}, 14)  # the age-6 record suppressed
    b = cost({"age": 3, "colour": 0, "size": 0}, 15)  # the size-M record suppressed
    assert a == b  # the same Loss: 15 × 1/12 + 1 and 15 × 3/3 + 1 terms, swapped
    got = lattice(table, "k-anonymity", metric="arx-loss", suppression=0.1, k=2)
    assert measure(got, "arx-loss").value == a
