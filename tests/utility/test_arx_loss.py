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
