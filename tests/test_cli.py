"""The command line end to end on the bundled data: datasets, anonymize, check, utility, import,
demo, each in table and --json form."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from anonlab import Release, Table, models
from anonlab.anonymize import mondrian
from anonlab.cli import main
from anonlab.release_io import load_release


def run_json(argv: list[str], cli) -> object:
    code, out, err = cli([*argv, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_datasets_json_lists_names_and_rows(cli):
    listed = {d["name"]: d["rows"] for d in run_json(["datasets"], cli)}
    assert listed == {
        "adult": 45_222,
        "adult-train": 30_162,
        "census-kdd": 99_762,
        "census-kdd-workers": 49_479,
    }
    code, out, _ = cli(["datasets"])
    assert code == 0 and "CC BY 4.0" in out


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "rel"
    argv = [
        "anonlab", "anonymize", "--dataset", "adult", "--qi", "age,sex,race,marital-status",
        "--sensitive", "occupation", "--algorithm", "mondrian", "--l", "4", "--seed", "7",
        "--out", str(out), "--json",
    ]  # fmt: skip
    old = sys.argv
    sys.argv = argv
    try:
        main()
    except SystemExit as exc:
        assert exc.code == 0
    finally:
        sys.argv = old
    return out


def test_anonymize_writes_manifest_with_seed_and_parameters(released):
    manifest = json.loads((released / "manifest.json").read_text())
    assert manifest["algorithm"] == "mondrian"
    assert manifest["seed"] == 7
    assert manifest["parameters"]["l"] == 4
    assert manifest["rows"] == 45_222
    release = load_release(released)
    direct = mondrian(
        Table.from_dataset(
            "adult", quasi_identifiers=["age", "sex", "race", "marital-status"],
            sensitive="occupation",
        ),
        l=4,
    )  # fmt: skip
    assert release.n_groups == direct.n_groups == manifest["groups"]


def test_check_json_reports_holds_per_model(released, cli):
    report = run_json(["check", str(released)], cli)
    by_model = {c["model"]: c for c in report["checks"]}
    # ck-safety only when asked for; matching ℓ-diversity needs rules (`anonlab attack rules`);
    # multi-attribute ℓ-diversity only with several sensitive attributes
    assert set(by_model) == set(models.available()) - {
        "ck-safety", "matching-l-diversity", "multi-attribute-l-diversity"
    }  # fmt: skip
    assert by_model["l-diversity"]["holds"] is True
    assert by_model["k-anonymity"]["holds"] is True
    # t = 0.01 is far stricter than what Mondrian at ℓ = 4 gives: must be violated.
    strict = run_json(["check", str(released), "--model", "t-closeness", "--t", "0.01"], cli)
    assert [c["holds"] for c in strict["checks"]] == [False]
    assert strict["checks"][0]["violating_groups"]


def test_check_unknown_model_is_a_clear_error(released, cli):
    code, _, err = cli(["check", str(released), "--model", "x-closeness"])
    assert code == 2 and "x-closeness" in err and "Traceback" not in err


def test_utility_json_matches_the_api(released, cli):
    from anonlab import utility

    report = run_json(["utility", str(released), "--queries", "500", "--seed", "3"], cli)
    direct = utility.measure(load_release(released), "workload-error", n_queries=500, seed=3)
    assert report["workload-error"]["mean_relative_error"] == pytest.approx(direct.value)
    assert report["prosecutor-risk"]["highest"] <= 1 / 4 + 1e-12  # ℓ = 4 groups have >= 4 rows
    code, out, _ = cli(["utility", str(released), "--queries", "200"])
    assert code == 0 and "mean relative error" in out


def test_import_round_trip_through_cli(released, tmp_path, cli):
    """The published generalized CSV, imported against the original, gives the same classes."""
    published = pd.read_csv(released / "published" / "generalized.csv")
    arx_like = published.drop(columns=["group"])
    path = tmp_path / "arx.csv"
    arx_like.to_csv(path, index=False)
    out = tmp_path / "imported"
    summary = run_json(
        ["import", "--generalized", str(path), "--dataset", "adult", "--qi",
         "age,sex,race,marital-status", "--sensitive", "occupation", "--out", str(out)],
        cli,
    )  # fmt: skip
    original = load_release(released)
    imported = load_release(out)
    assert summary["rows"] == 45_222
    # Classes = distinct published QI tuples: Mondrian's groups may share labels, never split.
    published_classes = arx_like.groupby(["age", "sex", "race", "marital-status"])
    assert imported.n_groups == published_classes.ngroups <= original.n_groups
    # Each imported class holds exactly the published sensitive values of its class.
    want = sorted(
        tuple(sorted(g["occupation"].value_counts().items())) for _, g in published_classes
    )
    values = imported.table.values["occupation"]
    got = sorted(
        tuple(sorted((str(values[v]), int(c)) for v, c in enumerate(row) if c))
        for row in imported.sensitive_histogram
    )
    assert got == want
    assert models.check(imported, "l-diversity", l=4).holds


def test_import_writes_parquet_published_files_on_request(released, tmp_path, cli):
    """`anonlab import --published-format parquet`: the same published rows as the CSV import
    (same export key), typed, as a multiset; an unknown format fails before any work."""
    published = pd.read_csv(released / "published" / "generalized.csv")
    path = tmp_path / "arx.csv"
    published.drop(columns=["group"]).to_csv(path, index=False)
    key = tmp_path / "key"
    key.write_text("ab" * 32 + "\n")
    base = ["import", "--generalized", str(path), "--dataset", "adult", "--qi",
            "age,sex,race,marital-status", "--sensitive", "occupation",
            "--export-key-file", str(key)]  # fmt: skip
    run_json([*base, "--out", str(tmp_path / "csv")], cli)
    run_json([*base, "--out", str(tmp_path / "pq"), "--published-format", "parquet"], cli)
    as_csv = pd.read_csv(tmp_path / "csv" / "published" / "generalized.csv", dtype=str)
    as_parquet = pd.read_parquet(tmp_path / "pq" / "published" / "generalized.parquet")
    assert not (tmp_path / "pq" / "published" / "generalized.csv").exists()
    assert as_parquet["group"].dtype.kind == "i"
    assert as_csv.equals(as_parquet.astype(str))  # same key: same rows in the same order
    code, _, stderr = cli([*base, "--out", str(tmp_path / "x"), "--published-format", "xml"])
    assert code == 2 and "published format must be one of" in stderr
    assert not (tmp_path / "x").exists()


def test_demo_audits_three_releases_and_writes_the_reports(cli, tmp_path):
    out = tmp_path / "demo"
    argv = ["demo", "--out", str(out), "--queries", "300", "--targets", "200", "--sweeps", "20"]
    report = run_json(argv, cli)
    assert report["rows"] == 45_222 and report["l"] == 4
    assert set(report["releases"]) == {"anatomy", "mondrian", "injector"}
    for name, rel in report["releases"].items():
        by = {f["key"]: f for f in rel["findings"]}
        holds = by["checks"]["measures"]
        assert holds["l-diversity"]["holds"] and holds["distinct-l-diversity"]["holds"], name
        assert by["utility"]["measures"]["workload-error"]["n_queries"] == 300
        assert by["definetti"]["considered"] == 200
        page = (out / name / "audit.html").read_text()
        assert page.count("<svg") >= 4 and "deFinetti attack" in page
        assert json.loads((out / name / "audit.json").read_text())["release"]["algorithm"] == name
    # Injector keeps every record matching ℓ-diverse under the rules the audit mines (the same
    # minExp 0.9, one condition); Anatomy, which ignores them, does not
    neg = {n: {f["key"]: f for f in r["findings"]}["negative-rules"] for n, r in
           report["releases"].items()}  # fmt: skip
    assert neg["injector"]["at_risk"] == 0
    assert neg["anatomy"]["at_risk"] > 0
    anatomy = {f["key"]: f for f in report["releases"]["anatomy"]["findings"]}
    curve = anatomy["worst-case"]["measures"]["curve_implications"]
    assert curve[0] == pytest.approx(0.25) and curve[3] == 1.0
    assert (out / "index.html").exists()
    code, _, err = cli(["demo", "--out", str(out)])  # exists: refuse without --force
    assert code == 2 and "--force" in err


def test_published_release_has_same_content_as_release(released):
    """published/generalized.csv carries every record once, with the published values."""
    release: Release = load_release(released)
    published = pd.read_csv(released / "published" / "generalized.csv")
    assert len(published) == release.table.n_rows
    assert sorted(published["occupation"]) == sorted(release.table.column("occupation"))


def test_generalize_with_levels_reports_the_node(tmp_path, cli):
    qi = "age,sex,race,marital-status,education,native-country,workclass"
    levels = "age=4,sex=0,race=0,marital-status=1,education=3,native-country=2,workclass=2"
    out = tmp_path / "node"
    summary = run_json(
        ["anonymize", "--dataset", "adult-train", "--qi", qi, "--sensitive", "occupation",
         "--algorithm", "generalize", "--levels", levels, "--hierarchy-set", "arx",
         "--out", str(out)],
        cli,
    )  # fmt: skip
    assert summary["groups"] == 20  # ARX 3.9.2's class count for this node
    report = run_json(["check", str(out), "--model", "k-anonymity", "--k", "5"], cli)
    assert report["levels"] == {
        k: int(v) for k, v in (item.split("=") for item in levels.split(","))
    }
    assert report["checks"][0]["holds"] is True


def test_lattice_search_through_cli(tmp_path, cli):
    out = tmp_path / "lattice"
    summary = run_json(
        ["anonymize", "--dataset", "adult-train", "--qi",
         "age,sex,race,marital-status,education,native-country,workclass",
         "--sensitive", "occupation", "--hierarchy-set", "arx", "--algorithm", "lattice",
         "--model", "t-closeness", "--t", "0.2", "--distance", "equal", "--out", str(out)],
        cli,
    )  # fmt: skip
    assert summary["groups"] == 2  # ARX 3.9.2's node for equal-distance 0.2-closeness
    report = run_json(["check", str(out), "--model", "t-closeness"], cli)
    assert list(report["levels"].values()) == [4, 1, 1, 1, 3, 2, 2]
    (result,) = report["checks"]
    assert result["holds"] and result["parameters"]["distance"] == "equal"


def test_lattice_with_suppression_through_cli(tmp_path, cli):
    out = tmp_path / "lattice2"
    summary = run_json(
        ["anonymize", "--dataset", "adult-train", "--qi",
         "age,sex,race,marital-status,education,native-country,workclass",
         "--sensitive", "occupation", "--hierarchy-set", "arx", "--algorithm", "lattice",
         "--model", "k-anonymity", "--k", "5", "--suppression", "0.02", "--out", str(out)],
        cli,
    )  # fmt: skip
    assert summary["suppressed_records"] == 552  # ARX 3.9.2: 552 suppressed, 233 classes
    assert summary["groups"] == 233
    assert summary["rows"] == 30_162 - 552


def test_attack_worst_case_through_cli(tmp_path, cli):
    out = tmp_path / "anatomy"
    run_json(
        ["anonymize", "--dataset", "adult", "--algorithm", "anatomy", "--l", "4",
         "--out", str(out)],
        cli,
    )  # fmt: skip
    report = run_json(["attack", "worst-case", str(out), "--k", "0..4"], cli)
    curve = [p["max_disclosure"] for p in report["curve"]]
    # Anatomy ℓ = 4: groups of 4 distinct values (some of 5): 1/4 with no knowledge, 1 once
    # k + 1 reaches a group's 4 distinct values (Martin et al.: d_b - 1 implications suffice).
    assert curve[0] == pytest.approx(0.25)
    assert curve == sorted(curve) and curve[3] == 1.0 and curve[2] < 1.0
    assert report["witness"]["k"] == 4
    code, _, err = cli(["attack", "worst-case", str(out), "--k", "5..2"])
    assert code == 2 and "K1 <= K2" in err
    png = tmp_path / "curve.png"
    code, _, err = cli(["attack", "worst-case", str(out), "--k", "0..3", "--plot", str(png)])
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ck_safe_lattice_search_through_cli(tmp_path, cli):
    out = tmp_path / "safe"
    run_json(
        ["anonymize", "--dataset", "adult", "--qi", "age,marital-status,race,sex",
         "--sensitive", "occupation", "--hierarchy-set", "martin", "--algorithm", "lattice",
         "--model", "ck-safety", "--c", "0.7", "--k", "3", "--out", str(out)],
        cli,
    )  # fmt: skip
    report = run_json(["check", str(out)], cli)
    by_model = {c["model"]: c for c in report["checks"]}
    assert by_model["ck-safety"]["holds"] and by_model["ck-safety"]["value"] < 0.7


def test_attack_foreground_through_cli(tmp_path, cli):
    out = tmp_path / "anatomy2"
    run_json(
        ["anonymize", "--dataset", "adult", "--qi", "age,workclass,marital-status,occupation,race",
         "--sensitive", "education", "--algorithm", "anatomy", "--l", "2", "--out", str(out)],
        cli,
    )  # fmt: skip
    low = "Preschool,1st-4th,5th-6th,7th-8th"
    per_record = tmp_path / "records.csv"
    report = run_json(
        ["attack", "foreground", str(out), "--sensitive-values", low, "--records", str(per_record)],
        cli,
    )
    assert report["sensitive_tuples"] == 1566
    assert 0 <= report["average_delta"] <= 1
    assert report["average_baseline"] <= report["average_breach"] <= 1
    assert 0 <= report["recall"] <= 1 and 0 <= report["false_positive"] <= 1
    frame = pd.read_csv(per_record)
    assert len(frame) == 45_222 and (frame["p_star"] >= frame["baseline"] - 1e-12).all()
    assert frame["problematic"].sum() == report["problematic_records"]
    for bad, words in ((["--r", "1"], "'r'"), (["--epsilon", "1.5"], "'epsilon'"),
                       (["--sensitive-values", "Nope"], "Nope")):  # fmt: skip
        code, _, err = cli(["attack", "foreground", str(out), *bad])
        assert code == 2 and words in err and "Traceback" not in err


def test_attack_rules_refuses_bad_options_naming_them(released, cli):
    """--min-exp outside (0, 1) (NaN included) and --max-conditions below 1: exit 2, the
    message names the option (checked before the release is read)."""
    for bad, words in ((["--min-exp", "nan"], "--min-exp"), (["--min-exp", "1"], "--min-exp"),
                       (["--max-conditions", "0"], "--max-conditions")):  # fmt: skip
        code, _, err = cli(["attack", "rules", str(released), "--dataset", "adult", *bad])
        assert code == 2 and words in err and "Traceback" not in err, err
