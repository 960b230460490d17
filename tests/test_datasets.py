"""Bundled datasets: row counts, domains, hierarchies (coverage and the papers' heights), loading
from package data only, and the build script's checks."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import socket
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import datasets
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "datasets"
PACKAGE = resources.files("anonlab.datasets")

ROWS = {"adult": 45222, "adult-train": 30162, "census-kdd": 99762, "census-kdd-workers": 49479}

# The papers' heights, and what to subtract to get Hierarchy.height (levels above the leaf):
# Martin counts levels including the leaf ("Age can be generalized to six levels"), Li & Li's
# Table III counts the leaf too (Gender, with 2 values, has height 2), Jin et al.'s Table 6 counts
# levels above the leaf (sex "suppression" has height 1). ARX: the heights of ARX's own files,
# which give the 2,160-node lattice ARX reports. None: no height in the paper (added by us).
PAPER_HEIGHTS = {
    ("arx", "adult"): (
        0,
        {
            "age": 4, "education": 3, "marital-status": 2, "native-country": 2, "occupation": 2,
            "race": 1, "sex": 1, "workclass": 2, "income": 1,
        },
    ),
    ("martin", "adult"): (1, {"age": 6, "marital-status": 3, "race": 2, "sex": 2}),
    ("li-injector", "adult"): (
        1,
        {"age": 5, "workclass": 3, "education": 4, "marital-status": 3, "race": 3, "sex": 2},
    ),
    ("jin-asap", "adult"): (
        0,
        {
            "age": 4, "workclass": 3, "marital-status": 3, "occupation": 2, "race": 2, "sex": 1,
            "native-country": 3, "income": 1,
        },
    ),
    ("jin-asap", "census-kdd"): (
        0,
        {
            "sex": 1, "marital_stat": 3, "race": 2, "class_of_worker": 4,
            "country_of_birth_self": 3, "age": None, "education": None,
        },
    ),
}  # fmt: skip
BASE = {"adult": "adult", "adult-train": "adult", "census-kdd": "census-kdd"}
BASE["census-kdd-workers"] = "census-kdd"


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    return {name: datasets.load_frame(name) for name in datasets.names()}


def catalog() -> dict:
    return json.loads(PACKAGE.joinpath("catalog.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------ rows


def test_names() -> None:
    assert datasets.names() == list(ROWS)


@pytest.mark.parametrize("name", list(ROWS))
def test_row_counts_and_info(name: str, frames: dict[str, pd.DataFrame]) -> None:
    frame = frames[name]
    info = datasets.info(name)
    assert len(frame) == ROWS[name] == info.rows
    assert isinstance(frame.index, pd.RangeIndex)
    assert list(frame.index[[0, -1]]) == [0, ROWS[name] - 1]
    assert tuple(frame.columns) == info.columns
    assert info.license == "CC BY 4.0"
    assert "doi.org/10.24432/" in info.source and "doi.org/10.24432/" in info.citation
    assert set(info.default_qi) | {info.default_sensitive} <= set(frame.columns)
    assert info.default_sensitive not in info.default_qi
    assert info.hierarchy_sets[0] == info.default_hierarchy_set
    assert info.cleaning


@pytest.mark.parametrize("name", list(ROWS))
def test_dtypes(name: str, frames: dict[str, pd.DataFrame]) -> None:
    frame = frames[name]
    numeric = set(datasets.info(name).numeric)
    for col in frame.columns:
        if col in numeric:
            assert frame[col].dtype == np.int64, col
        else:
            assert frame[col].dtype == object, col
            assert all(type(v) is str for v in frame[col].unique()), col
            assert not frame[col].isin(["?", "NA", ""]).any(), col
            assert not frame[col].str.contains(r"^\s|\s$").any(), col


def test_load_frame_returns_a_fresh_copy() -> None:
    a = datasets.load_frame("adult-train")
    a.loc[0, "occupation"] = "changed"
    a.loc[0, "age"] = -1
    b = datasets.load_frame("adult-train")
    assert b.loc[0, "occupation"] == "Adm-clerical" and b.loc[0, "age"] == 39


def test_adult_rows(frames: dict[str, pd.DataFrame]) -> None:
    adult, train = frames["adult"], frames["adult-train"]
    pd.testing.assert_frame_equal(adult.iloc[:30162].reset_index(drop=True), train)
    first = adult.iloc[0].tolist()
    assert first == [
        39, "State-gov", 77516, "Bachelors", 13, "Never-married", "Adm-clerical",
        "Not-in-family", "White", "Male", 2174, 0, 40, "United-States", "<=50K",
    ]  # fmt: skip
    # The first adult.test row without a '?', its label without the trailing '.'.
    assert adult.iloc[30162].tolist()[:4] == [25, "Private", 226802, "11th"]
    assert adult.iloc[30162]["income"] == "<=50K"
    assert set(adult["income"]) == {"<=50K", ">50K"}
    assert adult["age"].between(17, 90).all() and adult["age"].nunique() == 74


ADULT_DOMAINS = {
    "occupation": 14, "education": 16, "workclass": 7, "marital-status": 7, "race": 5, "sex": 2,
    "relationship": 6, "native-country": 41, "income": 2,
}  # fmt: skip


@pytest.mark.parametrize("name", ["adult", "adult-train"])
def test_adult_domains(name: str, frames: dict[str, pd.DataFrame]) -> None:
    frame = frames[name]
    for col, size in ADULT_DOMAINS.items():
        assert frame[col].nunique() == size, col


def test_census_kdd(frames: dict[str, pd.DataFrame]) -> None:
    kdd = frames["census-kdd"]
    assert {
        "age", "sex", "race", "marital_stat", "education", "class_of_worker",
        "country_of_birth_self", "major_occupation_code", "detailed_occupation_recode",
        "major_industry_code", "income",
    } <= set(kdd.columns)  # fmt: skip
    assert set(kdd["income"]) == {"- 50000", "50000+"}
    assert (kdd["country_of_birth_self"] == "Unknown").sum() == 1764
    assert (kdd["hispanic_origin"] == "Unknown").sum() == 405
    assert kdd["country_of_birth_self"].nunique() == 43
    # Codes stay categorical strings.
    assert kdd["detailed_occupation_recode"].dtype == object
    assert kdd["detailed_occupation_recode"].nunique() == 47
    assert (kdd["major_occupation_code"] == "Not in universe").sum() == 99762 - 49479


def test_census_kdd_workers(frames: dict[str, pd.DataFrame]) -> None:
    w = frames["census-kdd-workers"]
    kdd = frames["census-kdd"]
    expected = kdd[kdd["major_occupation_code"] != "Not in universe"].reset_index(drop=True)
    pd.testing.assert_frame_equal(w, expected)
    occ = w["detailed_occupation_recode"].value_counts(normalize=True)
    assert len(occ) == 46 and round(occ.iloc[0], 3) == 0.088
    major = w["major_occupation_code"].value_counts(normalize=True)
    assert len(major) == 14 and round(major.iloc[0], 3) == 0.147
    assert "0" not in set(w["detailed_occupation_recode"])


# ------------------------------------------------------------------------------ hierarchies


def hierarchy_files() -> list[tuple[str, str, str, Path]]:
    """(set, base, attribute, path) for every CSV under hierarchies/."""
    root = Path(str(PACKAGE.joinpath("hierarchies")))
    return [
        (p.parent.parent.name, p.parent.name, p.stem, p) for p in sorted(root.glob("*/*/*.csv"))
    ]


def test_hierarchy_files_match_catalog() -> None:
    on_disk = {(s, b, a) for s, b, a, _ in hierarchy_files()}
    listed = {
        (s, b, a)
        for s, spec in catalog()["hierarchy_sets"].items()
        for b, attrs in spec["bases"].items()
        for a in attrs
    }
    assert on_disk == listed
    expected = {(s, b, a) for (s, b), (_, h) in PAPER_HEIGHTS.items() for a in h}
    assert on_disk == expected


@pytest.mark.parametrize(("hset", "base"), list(PAPER_HEIGHTS))
def test_hierarchy_heights(hset: str, base: str) -> None:
    offset, heights = PAPER_HEIGHTS[(hset, base)]
    root = Path(str(PACKAGE.joinpath("hierarchies", hset, base)))
    for attr, paper in heights.items():
        h = Hierarchy.read_csv(root / f"{attr}.csv", name=attr)
        assert h.leaves and h.labels(h.height).tolist() == ["*"]
        if paper is not None:
            assert h.height == paper - offset, (hset, attr, h.height, paper)


def test_hierarchy_domain_sizes_the_papers_state() -> None:
    li = datasets.load_hierarchies("adult", "li-injector")
    assert {a: len(h) for a, h in li.items()} == {
        "age": 74, "workclass": 8, "education": 16, "marital-status": 7, "race": 5, "sex": 2,
    }  # fmt: skip
    jin = datasets.load_hierarchies("adult", "jin-asap")
    assert {a: len(h) for a, h in jin.items()} == {
        "age": 74, "workclass": 7, "marital-status": 7, "occupation": 14, "race": 5, "sex": 2,
        "native-country": 41, "income": 2,
    }  # fmt: skip


@pytest.mark.parametrize("name", list(ROWS))
def test_hierarchies_cover_the_data(name: str, frames: dict[str, pd.DataFrame]) -> None:
    frame = frames[name]
    info = datasets.info(name)
    for hset in info.hierarchy_sets:
        hierarchies = datasets.load_hierarchies(name, hset)
        assert hierarchies, hset
        for attr, h in hierarchies.items():
            assert isinstance(h, Hierarchy) and h.name == attr
            values = [str(v) for v in frame[attr].unique()]
            codes = h.leaf_index(values, attribute=attr)  # raises on a value that is no leaf
            assert len(set(codes.tolist())) == len(values)


def test_default_hierarchy_set() -> None:
    assert datasets.info("adult").default_hierarchy_set == "arx"
    assert datasets.info("census-kdd-workers").default_hierarchy_set == "jin-asap"
    assert datasets.load_hierarchies("adult") == datasets.load_hierarchies("adult", "arx")
    # The default set covers the default quasi-identifiers.
    for name in ROWS:
        info = datasets.info(name)
        assert set(info.default_qi) <= set(datasets.load_hierarchies(name)), name


def test_lattice_sizes() -> None:
    arx = datasets.load_hierarchies("adult-train", "arx")
    qi = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
    assert math.prod(arx[a].height + 1 for a in qi) == 2160  # ARX's reported lattice size
    martin = datasets.load_hierarchies("adult", "martin")
    assert math.prod(h.height + 1 for h in martin.values()) == 72  # 6*3*2*2 (Martin, Sec. 4)


def test_martin_age_intervals() -> None:
    age = datasets.load_hierarchies("adult", "martin")["age"]
    row = age.rows()[age.leaves.index("37")]
    assert row == ["37", "[35-40[", "[30-40[", "[20-40[", "[0-40[", "*"]


def test_marital_trees_nest() -> None:
    """Jin's height-3 marital tree refines the 3-level tree of Martin and Li & Li."""
    three = datasets.load_hierarchies("adult", "martin")["marital-status"]
    jin = datasets.load_hierarchies("adult", "jin-asap")["marital-status"]
    assert three.leaves == jin.leaves
    assert list(three.map(1)) == list(jin.map(2))


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared datasets folder not present")
def test_arx_set_is_arx_files() -> None:
    src = SHARED / "adult" / "arx-hierarchies"
    root = Path(str(PACKAGE.joinpath("hierarchies", "arx", "adult")))
    for path in root.glob("*.csv"):
        name = "salary-class" if path.stem == "income" else path.stem
        assert path.read_bytes() == (src / f"adult_hierarchy_{name}.csv").read_bytes()


# --------------------------------------------------------------------------- package data only


def test_loading_needs_no_network_and_no_outside_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access while loading a bundled dataset")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.chdir(tmp_path)
    datasets._base_frame.cache_clear()
    datasets._catalog.cache_clear()
    for name in datasets.names():
        assert len(datasets.load_frame(name)) == ROWS[name]
        for hset in datasets.info(name).hierarchy_sets:
            assert datasets.load_hierarchies(name, hset)
    # Every file the catalog names lives inside the installed package.
    pkg = Path(datasets.__file__).resolve().parent
    cat = catalog()
    files = [e["file"] for e in cat["datasets"].values()]
    files += [
        a["file"] for s in cat["hierarchy_sets"].values() for b in s["bases"].values()
        for a in b.values()
    ]  # fmt: skip
    for f in files:
        assert (pkg / f).is_file(), f


def test_data_files_are_small_and_match_checksums() -> None:
    cat = catalog()
    total = 0
    for entry in cat["datasets"].values():
        data = PACKAGE.joinpath(*entry["file"].split("/")).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["file_sha256"]
        assert data[:4] == b"PAR1"
        total += len(data)
    assert total < 2 * 3_000_000  # adult and adult-train, census-kdd and -workers share files


# --------------------------------------------------------------------------------- errors


def test_unknown_names_raise_listing_the_valid_ones() -> None:
    for call in (datasets.info, datasets.load_frame, datasets.load_hierarchies):
        with pytest.raises(AnonlabError, match="adult, adult-train, census-kdd"):
            call("adultt")
    with pytest.raises(AnonlabError, match="unknown dataset"):
        datasets.info(["adult"])  # type: ignore[arg-type]
    with pytest.raises(AnonlabError, match="arx, martin, li-injector, jin-asap"):
        datasets.load_hierarchies("adult", "incognito")
    with pytest.raises(AnonlabError, match="its sets are jin-asap"):
        datasets.load_hierarchies("census-kdd", "arx")


# ----------------------------------------------------------------------------- build script


def build_script():
    spec = importlib.util.spec_from_file_location(
        "build_datasets", REPO / "scripts" / "build_datasets.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_build_script_rejects_a_wrong_checksum(tmp_path: Path) -> None:
    script = build_script()
    (tmp_path / "adult.data").write_text("39, State-gov\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(f"sha256:\n    {'0' * 64}  adult.data\n", encoding="utf-8")
    with pytest.raises(script.BuildError, match="sha256 of"):
        script.verify_inputs(tmp_path, ["adult.data"])
    with pytest.raises(script.BuildError, match="gives no sha256"):
        script.verify_inputs(tmp_path, ["adult.test"])


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared datasets folder not present")
def test_build_script_reproduces_the_shipped_files() -> None:
    script = build_script()
    out = Path(str(PACKAGE))
    assert script.main([str(SHARED), "--out", str(out), "--check"]) == 0
