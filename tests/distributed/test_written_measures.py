"""Utility measures and rule mining over the part files of a release the workers wrote (issue
21): equal to the single-machine measures of the same groups, with the driver holding no record.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from anonlab.distributed.worker_release import anonymize_on_workers  # noqa: E402
from anonlab.distributed.written_measures import (  # noqa: E402
    foreground_of_written_release,
    open_written_parts,
    record_groups,
    risk_of_written_release,
    rule_attack_of_written_release,
    rules_of_written_release,
    utility_of_written_release,
)
from anonlab.errors import AnonlabError  # noqa: E402
from anonlab.release import Release  # noqa: E402
from anonlab.table import Table  # noqa: E402

N = 9_000


@pytest.fixture(scope="module")
def census_table() -> Table:
    return Table.from_dataset("census-kdd-workers").take(np.arange(N))


@pytest.fixture(scope="module")
def census_parquet(census_table, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("census") / "census.parquet"
    frame = census_table.to_frame()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=2_000)
    return str(path)


@pytest.fixture(scope="module")
def written(dask_client, census_parquet, census_table, tmp_path_factory):
    """{algorithm: release folder} for Mondrian (generalization) and Anatomy (bucketization)."""
    out = {}
    for algorithm in ("mondrian", "anatomy"):
        path = tmp_path_factory.mktemp(algorithm) / "release"
        anonymize_on_workers(
            dask_client, census_parquet, census_table.take(np.zeros(0, dtype=np.int64)),
            algorithm, path, l=4, max_partition_rows=2_000,
        )  # fmt: skip
        out[algorithm] = path
    return out


def _single_machine(table: Table, path, scheme: str) -> Release:
    """The single-machine release of the same groups: the original records, each with the
    published group id the publisher's records give it."""
    records = pd.read_parquet(path / "publisher" / "records").sort_values("row")
    assert np.array_equal(records["row"].to_numpy(), np.arange(table.n_rows))
    return Release(table, records["group"].to_numpy(), scheme, {"parameters": {"l": 4}})


def _same(a, b, where: str) -> None:
    """Equal JSON, floats to 1e-12 relative (sums over groups laid out in memory differently may
    round differently in the last bit)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-300, nan_ok=True), where
    else:
        assert a == b, where


def _blind(read):
    """``read`` refusing the part files (the records and published tables), not the template."""

    def guarded(path, *args, **kwargs):
        if "part-" in str(path) or str(path).rstrip("/").endswith(("records", "published")):
            raise AssertionError(f"the driver read {path}")
        return read(path, *args, **kwargs)

    return guarded


@pytest.mark.parametrize("algorithm", ["mondrian", "anatomy"])
def test_utility_over_written_parts_equals_one_machine(
    dask_client, written, census_table, algorithm
):
    from anonlab.utility.defaults import default_measures

    path = written[algorithm]
    scheme = "generalization" if algorithm == "mondrian" else "bucketization"
    with pytest.MonkeyPatch.context() as blind:  # the records are read on the workers only
        blind.setattr(pq, "read_table", _blind(pq.read_table))
        blind.setattr(pd, "read_parquet", _blind(pd.read_parquet))
        parts = open_written_parts(dask_client, path)
        ours = utility_of_written_release(dask_client, parts, 1_500, seed=4)
    assert parts.release.table.n_rows == N and len(parts.partitions) > 1
    theirs = default_measures(_single_machine(census_table, path, scheme), 1_500, seed=4)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        if key != "workload-error":
            _same(ours[key].to_json(), theirs[key].to_json(), key)
    w_ours, w_theirs = ours["workload-error"], theirs["workload-error"]
    assert np.array_equal(w_ours.actual, w_theirs.actual)
    if scheme == "generalization":
        assert np.array_equal(w_ours.estimated, w_theirs.estimated)
    else:
        np.testing.assert_allclose(w_ours.estimated, w_theirs.estimated, rtol=1e-12)
    # the estimates differ from the answers: the comparison is not of two copies of the truth
    assert not np.array_equal(w_ours.estimated, w_ours.actual.astype(float))


def test_rules_over_written_parts_equal_one_machine(dask_client, written, census_table):
    from anonlab.mining import mine_association_rules, mine_negative_rules

    parts = open_written_parts(dask_client, written["anatomy"])  # opened once, mined twice
    ours = rules_of_written_release(dask_client, parts)
    theirs = mine_negative_rules(census_table)
    assert len(theirs.rules) > 0
    assert ours.to_json() == theirs.to_json()
    ours = rules_of_written_release(dask_client, parts, "association", min_support=0.02)
    theirs = mine_association_rules(census_table, min_support=0.02)
    assert len(theirs.rules) > 0
    assert ours.to_json() == theirs.to_json()


@pytest.mark.parametrize("algorithm", ["mondrian", "anatomy"])
def test_foreground_over_written_parts_equals_one_machine(
    dask_client, written, census_table, algorithm
):
    from anonlab.attacks.foreground import foreground_attack

    path = written[algorithm]
    scheme = "generalization" if algorithm == "mondrian" else "bucketization"
    options = {"max_attributes": 2, "attributes": ["sex", "race", "education"], "min_support": 50}
    with pytest.MonkeyPatch.context() as blind:
        blind.setattr(pq, "read_table", _blind(pq.read_table))
        blind.setattr(pd, "read_parquet", _blind(pd.read_parquet))
        ours, driver = foreground_of_written_release(dask_client, path, **options)
    one = _single_machine(census_table, path, scheme)
    theirs = foreground_attack(one, **options)
    row = driver.table.row_id  # the input row of each of our records (parts' order)
    assert sorted(row.tolist()) == list(range(N)) and not np.array_equal(row, np.arange(N))
    assert ours.attribute_sets == theirs.attribute_sets and len(ours.attribute_sets) > 3
    assert np.array_equal(ours.p_star, theirs.p_star[row])
    assert np.array_equal(ours.baseline, theirs.baseline[row])
    assert np.array_equal(ours.best_attributes, theirs.best_attributes[row])
    assert np.array_equal(ours.best_target, theirs.best_target[row])
    assert (ours.p_star > ours.baseline).any()  # the attack learns something: not a tautology
    # scored against the truth, which the driver does not hold: the publisher's records, in
    # the parts' order (the same groups)
    truth = Release(census_table.take(row), driver.group, scheme)
    _same(ours.score(truth, 2), theirs.score(one, 2), "score")
    with pytest.raises(AnonlabError, match="are in the release's parts, on the workers"):
        ours.score(driver, 2)


@pytest.mark.parametrize("algorithm", ["mondrian", "anatomy"])
def test_risk_over_written_parts_equals_one_machine(dask_client, written, census_table, algorithm):
    from anonlab.utility import measure

    path = written[algorithm]
    scheme = "generalization" if algorithm == "mondrian" else "bucketization"
    with pytest.MonkeyPatch.context() as blind:
        blind.setattr(pq, "read_table", _blind(pq.read_table))
        blind.setattr(pd, "read_parquet", _blind(pd.read_parquet))
        records = record_groups(dask_client, path)  # gathered once, for two measures
        ours, driver = risk_of_written_release(dask_client, records, sampling_fraction=0.05)
        foreground_of_written_release(dask_client, records, max_attributes=1, min_support=100)
    one = _single_machine(census_table, path, scheme)
    theirs = {
        "reidentification-risk": measure(one, "reidentification-risk"),
        "population-uniqueness": measure(one, "population-uniqueness", sampling_fraction=0.05),
    }
    row = driver.table.row_id
    for key in theirs:
        _same(ours[key].to_json(), theirs[key].to_json(), key)
    risk, ref = ours["reidentification-risk"], theirs["reidentification-risk"]
    for model in ("prosecutor", "journalist"):
        assert np.array_equal(getattr(risk, model).per_record, getattr(ref, model).per_record[row])
    # Anatomy's classes are the exact QI rows, not its groups (Mondrian's boxes are its groups)
    n_classes = ours["reidentification-risk"].sample_uniques.n_classes
    assert (n_classes > driver.n_groups) if scheme == "bucketization" else n_classes > 1
    assert 0 < risk.sample_uniques.n_unique < N or scheme == "generalization"


@pytest.mark.parametrize("algorithm", ["mondrian", "anatomy"])
def test_rule_attack_over_written_parts_equals_one_machine(
    dask_client, written, census_table, algorithm
):
    from anonlab.attacks.negative_rules import negative_rule_attack
    from anonlab.mining import mine_negative_rules

    path = written[algorithm]
    scheme = "generalization" if algorithm == "mondrian" else "bucketization"
    rules = mine_negative_rules(census_table, min_expectation=0.8)
    with pytest.MonkeyPatch.context() as blind:
        blind.setattr(pq, "read_table", _blind(pq.read_table))
        blind.setattr(pd, "read_parquet", _blind(pd.read_parquet))
        ours = rule_attack_of_written_release(dask_client, path, rules)
        mined = rule_attack_of_written_release(dask_client, path, min_expectation=0.8)
    one = _single_machine(census_table, path, scheme)
    ref = negative_rule_attack(one, rules, l=4)
    want = {**ref.to_json(), **ref.score(one)}
    assert {k: ours[k] for k in want} == want
    assert mined == {**ours, "n_rules": len(rules)}  # the rules mined on the workers are these
    # a real attack: the rules leave some records with fewer values than random worlds do
    assert ours["vulnerable_matching"] > ours["vulnerable_baseline"]


@pytest.mark.parametrize("algorithm", ["mondrian", "anatomy"])
def test_ck_safety_over_written_parts_equals_one_machine(
    dask_client, written, census_table, algorithm
):
    """(c,k)-safety couples groups (the attacker's implications may mention people of other
    groups), so it is decided from every part's count profiles, not part by part."""
    from anonlab.distributed.written_checks import check_written_release
    from anonlab.models import check

    path = written[algorithm]
    scheme = "generalization" if algorithm == "mondrian" else "bucketization"
    one = _single_machine(census_table, path, scheme)
    published_id = np.empty(one.n_groups, dtype=np.int64)
    published_id[one.group] = (
        pd.read_parquet(path / "publisher" / "records").sort_values("row")["group"].to_numpy()
    )
    seen_partial = False
    for k in (0, 1, 2, 4):
        per_group = check(one, "ck-safety", c=0.5, k=k).per_group
        c = float(np.quantile(per_group, 0.6))  # some groups violate, some do not (mostly)
        theirs = check(one, "ck-safety", c=c, k=k)
        [ours] = check_written_release(dask_client, path, only=["ck-safety"], c=c, k=k)
        assert (ours.holds, ours.value) == (theirs.holds, theirs.value), k
        assert ours.n_violating_groups == theirs.n_violating_groups, k
        assert ours.violating_records == theirs.violating_records, k
        assert ours.violating_groups == sorted(published_id[theirs.violating_groups].tolist())
        at_worst = published_id[np.flatnonzero(theirs.per_group == theirs.worst_value)]
        assert ours.worst_group == at_worst.min(), k
        assert ours.details["max_disclosure"] == theirs.details["max_disclosure"]
        seen_partial |= 0 < theirs.n_violating_groups < len(theirs.per_group)
    assert seen_partial or algorithm == "anatomy"  # Anatomy's groups mostly share one profile
    # with the other models, in the order anonlab check lists them
    both = check_written_release(dask_client, path, c=0.9, k=1, only=["l-diversity", "ck-safety"])
    models = [r.model for r in both]
    assert models == ["l-diversity", "ck-safety"]


def test_damaged_or_old_parts_are_refused(dask_client, written, tmp_path):
    import shutil

    from anonlab import export_order
    from anonlab.distributed.written_release import MANIFEST
    from anonlab.release_io.folder import canonical_manifest

    # a part's records changed after the release was written: refused where it is read
    copy = tmp_path / "changed"
    shutil.copytree(written["mondrian"], copy)
    part = sorted((copy / "publisher" / "records").glob("part-*.parquet"))[1]
    frame = pq.read_table(part).to_pandas()
    frame.iloc[0, 1] = frame.iloc[-1, 1]  # a record moved to another group
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), part)
    with pytest.raises(AnonlabError, match=r"part-00001\.parquet.*was changed"):
        utility_of_written_release(dask_client, copy, 100)
    # a release written before the records kept their codes (resealed, so only that differs)
    old = tmp_path / "old"
    shutil.copytree(written["mondrian"], old)
    manifest = json.loads((old / MANIFEST).read_text())
    for rel, info in manifest["files"].items():
        if rel.startswith("publisher/records/"):
            info.pop("rows")
    key = export_order.parse_export_key((old / export_order.KEY_FILE).read_text(), "key")
    manifest["seal"] = export_order.mac(key, canonical_manifest(manifest))
    (old / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(AnonlabError, match="before the publisher's records kept.*make it again"):
        open_written_parts(dask_client, old)


def test_cli_utility_of_a_written_release(dask_client, written, census_table, cli):
    from anonlab.utility.defaults import default_measures

    path = written["anatomy"]
    address = dask_client.scheduler.address
    argv = ["utility", str(path), "--cluster", address, "--queries", "400", "--seed", "2"]
    code, stdout, stderr = cli([*argv, "--sampling-fraction", "0.1", "--json"])
    assert code == 0, stderr
    got = json.loads(stdout)
    one = _single_machine(census_table, path, "bucketization")
    want = default_measures(one, 400, seed=2)
    _same(got["workload-error"], want["workload-error"].to_json(), "workload-error")
    assert got["discernibility"] == want["discernibility"].to_json()
    # the same run as `anonlab utility` of the single-machine release of these groups
    from anonlab.cli.utility import run_risk

    for key, value in run_risk(one, None, 0.1).items():
        _same(got[key], value.to_json(), key)
    code, stdout, stderr = cli(argv)
    assert code == 0, stderr
    text = " ".join(stdout.split()) + " ".join(stderr.split())
    assert "from its written parts" in text and "journalist and marketer" in text
    # what cannot be done is refused, naming the option, before any work
    for extra, message in [
        ([], "give --cluster ADDRESS or --workers N"),
        (["--cluster", address, "--population", str(path)], "--population: a population table"),
        (["--cluster", address, "--sensitive", "age"], "--sensitive 'age'"),
    ]:
        code, _, stderr = cli(["utility", str(path), *extra])
        assert code == 2, extra
        assert message in " ".join(stderr.split()) and "Traceback" not in stderr


@pytest.mark.parametrize(
    "argv", [["attack", "foreground"], ["attack", "definetti"], ["attack", "worst-case"]]
)
def test_commands_for_a_release_folder_name_the_written_releases_commands(written, cli, argv):
    path = written["mondrian"]
    code, _, stderr = cli([*argv, str(path)])
    text = " ".join(stderr.split())
    assert code == 2 and "Traceback" not in stderr, stderr
    assert "a release the workers wrote" in text and "anonlab audit DIR --cluster" in text


def test_cli_rule_attack_of_a_written_release(dask_client, written, cli, tmp_path):
    path = written["anatomy"]
    address = dask_client.scheduler.address
    argv = ["attack", "rules", str(path), "--cluster", address, "--min-exp", "0.8"]
    code, stdout, stderr = cli([*argv, "--json"])
    assert code == 0, stderr
    got = json.loads(stdout)
    want = rule_attack_of_written_release(dask_client, path, min_expectation=0.8)
    assert {k: got[k] for k in want} == want
    assert got["rules"].startswith("mined from the release's records")
    # rules from a file (`anonlab rules mine`) give the same attack
    from anonlab.distributed.written_measures import rules_of_written_release

    rules_file = tmp_path / "rules.json"
    rules_of_written_release(dask_client, path, min_expectation=0.8).write(rules_file)
    code, stdout, stderr = cli([*argv[:-2], "--rules", str(rules_file), "--json"])
    assert code == 0, stderr
    assert {k: json.loads(stdout)[k] for k in want} == want
    code, stdout, stderr = cli(argv)
    assert code == 0, stderr
    assert "random worlds (no rules)" in stdout
    for extra, message in [
        (["--data", str(path)], "--data: it describes an original table"),
        (["--sensitive", "age"], "--sensitive: it describes an original table"),
        (["--records", str(tmp_path / "r.csv")], "--records: the per-record results"),
    ]:
        code, _, stderr = cli([*argv, *extra])
        assert code == 2, extra
        assert message in " ".join(stderr.split()) and "Traceback" not in stderr
    code, _, stderr = cli(["attack", "rules", str(path)])
    assert code == 2 and "give --cluster ADDRESS or --workers N" in " ".join(stderr.split())


@pytest.mark.parametrize("algorithm", ["mondrian", "anatomy"])
def test_audit_of_a_written_release_equals_the_redacted_single_machine_audit(
    dask_client, written, census_table, algorithm
):
    """The stages that run over the parts give the single machine's findings on the same groups
    in their shareable form (no record-level data either way), and the same decision."""
    from anonlab.distributed.written_audit import audit_written_release
    from anonlab.report.audit import audit

    path = written[algorithm]
    scheme = "generalization" if algorithm == "mondrian" else "bucketization"
    one = _single_machine(census_table, path, scheme)
    one.manifest["algorithm"] = algorithm
    stages = ["checks", "foreground", "negative-rules", "worst-case", "risk", "utility",
              "distributions"]  # fmt: skip
    options = {"stages": stages, "seed": 3, "queries": 500, "min_expectation": 0.8}
    ours = audit_written_release(dask_client, path, **options).redacted()
    theirs = audit(one, **options).redacted()
    for a, b in zip(ours.findings, theirs.findings, strict=True):
        ja, jb = a.to_json(), b.to_json()
        ja.pop("seconds"), jb.pop("seconds")
        _same(ja, jb, a.key)
    assert ours.decision.to_json() == theirs.decision.to_json()
    assert "at risk" in [f.verdict for f in ours.findings]  # something is found: not vacuous
    # the distributions (values of the data: dropped from the redacted form) compared whole
    internal = audit_written_release(dask_client, path, stages=["distributions"])
    assert internal.findings[0].plot == audit(one, stages=["distributions"]).findings[0].plot
    # the other stages say why they did not run, and decide nothing
    full = audit_written_release(dask_client, path, seed=3, queries=200)
    skipped = {f.key: f.headline for f in full.findings if f.verdict == "skipped"}
    assert set(skipped) == {"definetti", "algorithm"}
    assert all(h.startswith("not over written parts: ") for h in skipped.values())


@pytest.mark.parametrize("parameters", [{"l": 4}, {"k": 4}])
def test_written_worst_case_from_group_statistics(census_table, parameters):
    """The written audit's worst case reads only the groups' statistics: the single machine's
    redacted finding, with a stated promise (1/ℓ) and without one (each group's random-worlds
    maximum, read from its histogram instead of its records)."""
    from anonlab.distributed.written_audit import _worst_case_finding
    from anonlab.distributed.written_release import table_without_records
    from anonlab.report.audit import audit, audit_options
    from anonlab.report.decision import Thresholds

    # mixed groups in the first half; in the second, one group per sensitive value (its
    # disclosure 1 from k = 0: above 1/ℓ at once, never above its own random-worlds maximum)
    group = np.random.default_rng(0).integers(0, 400, N)
    sensitive = census_table.codes[census_table.require_sensitive()]
    group[N // 2 :] = 400 + sensitive[N // 2 :]
    group = np.unique(group, return_inverse=True)[1].ravel()
    one = Release(census_table, group, "generalization", {"parameters": parameters})
    [theirs] = audit(one, stages=["worst-case"]).redacted().findings
    hist = np.asarray(one.sensitive_histogram)
    bare = Release._from_statistics(
        table_without_records(census_table, N), one.n_groups, one.group_sizes, lambda: hist,
        "generalization",
    )  # fmt: skip
    bare.manifest["parameters"] = parameters
    ours = _worst_case_finding(bare, audit_options(None, 0, Thresholds())).redacted()
    ja, jb = ours.to_json(), theirs.to_json()
    ja.pop("seconds"), jb.pop("seconds")
    _same(ja, jb, "worst-case")
    # not vacuous: records at two different smallest k (ℓ: 0 and 1; none: 1 and never)
    first = ours.measures["smallest_k_above_promise"]
    assert ours.verdict == "at risk" and sum(first.values()) == N
    assert len([k for k, records in first.items() if records]) == 2


def test_cli_audit_of_a_written_release(dask_client, written, cli, tmp_path):
    path = written["mondrian"]
    address = dask_client.scheduler.address
    report, summary = tmp_path / "audit.html", tmp_path / "audit.json"
    argv = ["audit", str(path), "--cluster", address, "--queries", "300", "--seed", "1",
            "--report", str(report), "--summary", str(summary)]  # fmt: skip
    code, stdout, stderr = cli([*argv, "--redacted-summary", str(tmp_path / "shared.json")])
    assert code == 0, stderr
    written_json = json.loads(summary.read_text())
    stages = {f["key"]: f["verdict"] for f in written_json["findings"]}
    assert stages["checks"] in ("pass", "fail") and stages["definetti"] == "skipped"
    assert written_json["release"]["written_by_workers"] is True
    assert "Privacy models" in report.read_text() and written_json["decision"] is not None
    shared = json.loads((tmp_path / "shared.json").read_text())
    assert shared["redacted"] is True and shared["decision"] == written_json["decision"]
    text = " ".join(stdout.split())
    assert "Audit of" in text and "skipped" in text
    for extra, message in [
        (["--data", str(path)], "--data: a release the workers wrote"),
        (["--at-risk", str(tmp_path / "r.csv")], "--at-risk: the audit of a release"),
    ]:
        code, _, stderr = cli([*argv, "--force", *extra])
        assert code == 2, extra
        assert message in " ".join(stderr.split()) and "Traceback" not in stderr
    code, _, stderr = cli(["audit", str(path)])
    assert code == 2 and "give --cluster ADDRESS or --workers N" in " ".join(stderr.split())
