"""The helpers the attacks share (attacks/common.py), against hand-computed rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.attacks.common import at_risk_fields, require_groups, worst_record
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.table import Table


@pytest.fixture(scope="module")
def release() -> Release:
    frame = pd.DataFrame(
        {"age": [30, 41, 52, 63], "sex": ["F", "M", "F", "M"], "disease": ["a", "b", "a", "c"]}
    )
    table = Table.from_frame(frame, quasi_identifiers=["age", "sex"], sensitive="disease")
    return Release(table, [0, 0, 1, 1], "bucketization")


def test_worst_record_is_one_row_of_plain_python_values(release):
    row = worst_record(
        release,
        np.int64(2),
        ["age", "sex"],
        inferred="a",
        probability=np.float64(0.75),
        random_worlds=0.5,
        correct=np.True_,
    )
    assert row == {
        "record": 2,
        "group": 1,
        "known": "age = 52, sex = F",
        "inferred": "a",
        "probability": 0.75,
        "random_worlds": 0.5,
        "correct": True,
    }
    assert list(row) == [
        "record",
        "group",
        "known",
        "inferred",
        "probability",
        "random_worlds",
        "correct",
    ]
    assert [type(row[k]) for k in ("record", "group", "probability", "correct")] == [
        int,
        int,
        float,
        bool,
    ]


def test_worst_record_without_correct_has_no_such_key_and_knows_anyone(release):
    row = worst_record(release, 1, [], inferred="{b, c}", probability=1.0, random_worlds=0.25)
    assert row == {
        "record": 1,
        "group": 0,
        "known": "anyone",
        "inferred": "{b, c}",
        "probability": 1.0,
        "random_worlds": 0.25,
    }


def test_at_risk_fields_count_and_place_the_records_at_risk():
    risk = np.array([False, True, False, True])
    fields = at_risk_fields(risk)
    assert fields["verdict"] == "at risk" and fields["at_risk"] == 2
    assert type(fields["at_risk"]) is int
    np.testing.assert_array_equal(fields["at_risk_records"], [1, 3])
    # over considered records (targets), the positions are the records', not the mask's
    targets = [10, 20, 30, 40]
    np.testing.assert_array_equal(at_risk_fields(risk, targets)["at_risk_records"], [20, 40])
    none = at_risk_fields(np.zeros(3, dtype=bool))
    assert none["verdict"] == "pass" and none["at_risk"] == 0 and len(none["at_risk_records"]) == 0


def test_require_groups_names_the_attack(release):
    require_groups(release, "the toy attack")  # groups: nothing raised
    with pytest.raises(AnonlabError, match="must be an anonlab Release, got str"):
        require_groups("release", "the toy attack")
    candidate = Release._from_statistics(
        release.table, 2, np.array([2, 2]), lambda: release.sensitive_histogram
    )
    with pytest.raises(AnonlabError, match="^the toy attack needs per-record groups; this release"):
        require_groups(candidate, "the toy attack")
