"""Plain k-anonymity: a table with quasi-identifiers and no sensitive attribute (issue 19, item 1)
anonymized, saved, loaded, checked and audited; what needs a sensitive attribute says so."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anonlab.anonymize import anonymize
from anonlab.errors import AnonlabError
from anonlab.release import Release
from anonlab.release_io import load_release, save_release
from anonlab.report import audit
from anonlab.table import Table

QI = ["age", "sex", "race", "education"]


@pytest.fixture(scope="module")
def adult_qi_only() -> Table:
    table = Table.from_dataset("adult", quasi_identifiers=QI)
    return table.take(np.arange(6000))


def test_mondrian_k_without_a_sensitive_attribute(adult_qi_only, tmp_path):
    assert adult_qi_only.sensitive is None
    release = anonymize(adult_qi_only, "mondrian", k=5, seed=0)
    assert release.group_sizes.min() >= 5
    folder = save_release(release, tmp_path / "rel")
    published = pd.read_csv(folder / "published" / "generalized.csv")
    assert set(published.columns) == {"group", *QI}  # no sensitive column
    manifest = json.loads((folder / "manifest.json").read_text())
    assert "sensitive" not in {a["role"] for a in manifest["schema"]}
    loaded = load_release(folder)
    assert loaded.table.sensitive is None
    assert np.array_equal(np.sort(loaded.group_sizes), np.sort(release.group_sizes))


def test_the_groups_do_not_depend_on_a_sensitive_attribute(adult_qi_only):
    """k-anonymity ignores the sensitive attribute: the same search with one present finds the
    same node and loss, and Mondrian the same groups."""
    with_s = Table.from_dataset("adult", quasi_identifiers=QI, sensitive="occupation").take(
        np.arange(6000)
    )
    a = anonymize(adult_qi_only, "lattice", model="k-anonymity", k=5)
    b = anonymize(with_s, "lattice", model="k-anonymity", k=5)
    assert a.levels == b.levels
    assert a.manifest["lattice"]["metric_value"] == b.manifest["lattice"]["metric_value"]
    m1 = anonymize(adult_qi_only, "mondrian", k=5)
    m2 = anonymize(with_s, "mondrian", k=5)
    assert np.array_equal(m1.group, m2.group)


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [("anatomy", {"l": 3}), ("mondrian", {"l": 3}), ("lattice", {"model": "l-diversity", "l": 3})],
)
def test_what_needs_a_sensitive_attribute_says_so(adult_qi_only, algorithm, params):
    with pytest.raises(AnonlabError, match="sensitive"):
        anonymize(adult_qi_only, algorithm, **params)


def test_a_bucketized_release_needs_one(adult_qi_only):
    with pytest.raises(AnonlabError, match="bucketized release publishes each group's sensitive"):
        Release(adult_qi_only, np.zeros(adult_qi_only.n_rows, int), "bucketization")


def test_the_audit_checks_groups_and_skips_the_attacks(adult_qi_only):
    release = anonymize(adult_qi_only, "mondrian", k=5, seed=0)
    a = audit(release, queries=50)
    by = {f.key: f for f in a.findings}
    assert list(by["checks"].measures) == ["k-anonymity"] and by["checks"].verdict == "pass"
    for key in ("definetti", "foreground", "negative-rules", "worst-case", "algorithm"):
        assert by[key].verdict == "skipped" and "no sensitive attribute" in by[key].headline
    assert by["risk"].verdict == "pass" and by["risk"].measures["highest"] <= 0.2
    assert "workload" not in by["utility"].measures and "ncp" in by["utility"].measures
    assert a.decision.release and "no sensitive attribute" in a.decision.summary


def test_cli_end_to_end(tmp_path, cli):
    out = tmp_path / "k5"
    qi = ",".join(QI)
    code, stdout, stderr = cli(
        ["anonymize", "--dataset", "adult", "--qi", qi, "--algorithm", "mondrian", "--k", "5",
         "--out", str(out)]
    )  # fmt: skip
    assert code == 0, stderr
    code, stdout, stderr = cli(["audit", str(out), "--queries", "50", "--json"])
    assert code == 0, stderr
    assert json.loads(stdout)["decision"]["release"] is True
    code, stdout, stderr = cli(["attack", "list", str(out), "--json"])
    assert code == 0 and not any(a["applies"] for a in json.loads(stdout)["attacks"])
    code, stdout, stderr = cli(["attack", "definetti", str(out)])
    assert code == 2 and "this release has no sensitive attribute" in stderr
    code, stdout, stderr = cli(["anonymize", "--dataset", "adult", "--qi", ",".join(QI),
                                "--algorithm", "anatomy", "--l", "3", "--out",
                                str(tmp_path / "a")])  # fmt: skip
    assert code == 2 and "--sensitive" in stderr


def test_an_open_bound_is_said_in_words():
    from anonlab._validation import check_float

    with pytest.raises(
        AnonlabError, match=r"'max_seconds' must be a finite number >= 0.0, got nan"
    ):
        check_float("max_seconds", float("nan"), low=0.0)
    with pytest.raises(AnonlabError, match=r"must be a number in \[0.0, 1.0\]"):
        check_float("t", 2.0, low=0.0, high=1.0)
