"""PhD-25 scoring when MASK protected "below high school" as one value (Jin et al. §8.2, after
Wong et al.; issue 18 part 5): a group originally violated iff the set's count exceeds
⌊|G|/m⌋, not iff one of its values does."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonlab.attacks.mask_phd25 import phd25_attack
from anonlab.release import Release
from anonlab.table import Table


def release(as_one_value: bool | None) -> Release:
    """Two young groups of 4 (m = 2, cap 2). Group 0 holds 1st-4th, 5th-6th, 7th-8th and a
    Bachelors: no low value twice, but three low records > 2 — violating only as one value;
    MASK (as one value) changed one of them to HS-grad (the attack's rule is run with HS-grad as
    its value below). Group 1 is untouched."""
    df = pd.DataFrame(
        {
            "age": [20, 21, 22, 23, 21, 22, 24, 25],
            "education": ["1st-4th", "5th-6th", "7th-8th", "Bachelors"]
            + ["HS-grad", "HS-grad", "Bachelors", "7th-8th"],
        }
    )
    t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="education")
    code = {str(v): i for i, v in enumerate(t.values["education"])}
    published = t.codes["education"].copy()
    published[0] = code["HS-grad"]
    params = {"k": 4, "m": 2, "sensitive_values": ["1st-4th", "5th-6th", "7th-8th"]}
    if as_one_value is not None:
        params["as_one_value"] = as_one_value
    manifest = {"algorithm": "mask", "parameters": params}
    return Release(
        t, np.repeat([0, 1], 4), "bucketization", manifest, published_sensitive=published
    )


def test_violation_is_scored_as_the_release_protected_the_set():
    one = phd25_attack(release(True), value="HS-grad", threshold=0.5)
    per = phd25_attack(release(False), value="HS-grad", threshold=0.5)
    default = phd25_attack(release(None), value="HS-grad", threshold=0.5)
    # group 0 published: HS-grad, 5th-6th, 7th-8th, Bachelors -> 1/4 HS-grad, not > 0.5;
    # group 1: 2/4 HS-grad, not > 0.5 either: nothing problematic, so score on all groups
    assert one.problematic_groups.tolist() == per.problematic_groups.tolist() == []
    assert one.perturbed_groups == per.perturbed_groups == 1
    problem = phd25_attack(release(True), value="HS-grad", threshold=0.2)
    assert problem.problematic_groups.tolist() == [0, 1]
    assert problem.violating_groups == 1  # group 0: 3 low records > ⌊4/2⌋
    assert phd25_attack(release(False), value="HS-grad", threshold=0.2).violating_groups == 0
    assert default.to_json()["as_one_value"] is False  # no word in the manifest: per value
    assert problem.to_json()["as_one_value"] is True
    forced = phd25_attack(release(False), value="HS-grad", threshold=0.2, as_one_value=True)
    assert forced.violating_groups == 1
