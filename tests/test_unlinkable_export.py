"""Issue 16, item 1: what is published cannot be linked back to the input.

The attack of the issue: the export used to be shuffled with ``default_rng(seed)`` and group ids
numbered by first appearance in the input, so a reader of ``published/`` alone found the seed by
brute force and mapped every published row to its input row. Each test here runs that attack
(and a stronger variant that needs no group ids) on the files anonlab writes today, and on a
simulation of the old export as a control that the attack works.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab import export_order
from anonlab.anonymize import anonymize
from anonlab.grouping import dense_group_ids
from anonlab.release_io import GROUP_COLUMN, load_release, save_release
from anonlab.table import Table

QI = ["age", "sex", "race", "marital-status"]
N_ROWS = 1200
SEED = 37  # the release's seed: the attack searches for it
SEED_RANGE = 20_000  # seeds tried per release


@pytest.fixture(scope="module")
def sorted_table() -> Table:
    """1,200 Adult records sorted by the sensitive attribute: input order is itself a secret."""
    table = Table.from_dataset("adult", quasi_identifiers=QI, sensitive="occupation")
    first = table.take(np.arange(N_ROWS))
    order = np.argsort(first.codes["occupation"], kind="stable")
    return first.take(order)


ALGORITHMS = {
    "anatomy": dict(l=3),
    "mondrian": dict(l=3),
    "mondrian-bucketized": dict(l=3, scheme="bucketization"),
    "hilb": dict(l=3),
    "mask": dict(k=4, m=2, sensitive_values=["Prof-specialty", "Exec-managerial"]),
    "generalize": dict(levels={"age": 2, "sex": 0, "race": 1, "marital-status": 1}),
    "injector": dict(l=3),
    "mondrian+": dict(l=2),
    "mondrian++": dict(l=3),
    "hilb+": dict(l=3),
    "hilb++": dict(l=3),
    "mask+": dict(k=4, m=2),
    "mask++": dict(k=4, m=2),
    "lattice": dict(model="k-anonymity", k=2),
}


def _make(table: Table, name: str):
    algorithm = name.split("-")[0]
    return anonymize(table, algorithm, seed=SEED, **ALGORITHMS[name])


def _published(path) -> pd.DataFrame:
    pub = path / "published"
    file = pub / ("qit.csv" if (pub / "qit.csv").exists() else "generalized.csv")
    return pd.read_csv(file, keep_default_na=False)


def _first_position_attack(gid: np.ndarray, seeds: range) -> list[int]:
    """Seeds under whose permutation each published group's smallest input position increases
    with its id (the issue's search)."""
    n_groups = int(gid.max()) + 1
    found = []
    for s in seeds:
        position = np.random.default_rng(s).permutation(len(gid))
        first = np.full(n_groups, len(gid))
        np.minimum.at(first, gid, position)
        if np.all(np.diff(first) > 0):
            found.append(s)
    return found


def _row_match_attack(published_qi: np.ndarray, input_qi: np.ndarray, seeds: range) -> float:
    """The best share of published rows whose QI vector equals that of the input row a seed's
    permutation maps them to (1.0 for the true seed of a seed-shuffled export)."""
    best = 0.0
    for s in seeds:
        position = np.random.default_rng(s).permutation(len(input_qi))
        best = max(best, float(np.mean(np.all(published_qi == input_qi[position], axis=1))))
    return best


def _old_export(release) -> tuple[np.ndarray, np.ndarray]:
    """The export before this issue: rows by default_rng(seed), ids by first appearance."""
    order = np.random.default_rng(release.manifest["seed"]).permutation(release.table.n_rows)
    ids, _ = dense_group_ids(release.group)
    return order, ids[order]


def _input_qi(table: Table) -> np.ndarray:
    return np.stack([table.column(q).astype(str) for q in QI], axis=1)


def test_the_attack_finds_the_seed_of_the_old_export(sorted_table):
    """Control: the attacks work on a seed-shuffled export with first-appearance group ids."""
    release = _make(sorted_table, "anatomy")
    order, gid = _old_export(release)
    assert SEED in _first_position_attack(gid, range(SEED + 1))
    published_qi = _input_qi(sorted_table)[order]
    assert _row_match_attack(published_qi, _input_qi(sorted_table), range(SEED + 1)) == 1.0


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_no_seed_links_published_rows_to_input_rows(sorted_table, tmp_path, name):
    release = _make(sorted_table, name)
    save_release(release, tmp_path / "rel")
    published = _published(tmp_path / "rel")
    gid = published[GROUP_COLUMN].to_numpy()
    # with G groups a random order passes by chance with probability 1/G!: keep G! >> seeds
    assert release.n_groups >= 10
    seeds = range(SEED_RANGE if name == "anatomy" else 2_000)
    assert _first_position_attack(gid, seeds) == []
    if (tmp_path / "rel" / "published" / "qit.csv").exists():  # exact QIs published
        published_qi = published[QI].astype(str).to_numpy()
        chance = _row_match_attack(published_qi, _input_qi(sorted_table), range(200))
        # a seed-shuffled export matches every row under its seed; here no seed beats chance
        assert chance < 0.2, chance


@pytest.mark.parametrize("name", ["anatomy", "mondrian", "hilb", "injector"])
def test_published_group_ids_are_uncorrelated_with_input_order(sorted_table, tmp_path, name):
    release = _make(sorted_table, name)
    save_release(release, tmp_path / "rel")
    loaded = load_release(tmp_path / "rel")
    fingerprint = export_order.release_fingerprint(
        loaded.group, loaded.published_sensitive, loaded.manifest
    )
    order, published_id = export_order.export_plan(
        loaded.export_key, loaded.group, loaded.n_groups, fingerprint
    )
    # the file holds what the plan says, so the plan is what a reader sees
    gid = _published(tmp_path / "rel")[GROUP_COLUMN].to_numpy()
    np.testing.assert_array_equal(gid, published_id[loaded.group[order]])
    # internal ids are ranks of first appearance in the input (dense_group_ids)
    first_rank = np.arange(loaded.n_groups)
    rho = np.corrcoef(first_rank, published_id)[0, 1]
    assert abs(rho) < 4 / np.sqrt(loaded.n_groups), rho
    # the published row order is uncorrelated with the input position too
    rho_rows = np.corrcoef(np.arange(len(order)), order)[0, 1]
    assert abs(rho_rows) < 4 / np.sqrt(len(order)), rho_rows


def test_same_seed_and_key_give_identical_files_and_a_new_key_another_order(sorted_table, tmp_path):
    key = bytes(range(32))
    paths = []
    for i, k in enumerate([key, key, None]):
        release = _make(sorted_table, "anatomy")
        paths.append(save_release(release, tmp_path / f"r{i}", export_key=k))
    a, b, c = ([(p / "published" / f).read_bytes() for f in ("qit.csv", "st.csv")] for p in paths)
    assert a == b
    assert (tmp_path / "r0" / "publisher" / "records.parquet").read_bytes() == (
        tmp_path / "r1" / "publisher" / "records.parquet"
    ).read_bytes()
    assert a[0] != c[0] and a[1] != c[1]
    # a fresh key is drawn and kept in the publisher's copy only
    stored = (tmp_path / "r2" / "publisher" / "export-key").read_text().strip()
    assert len(stored) == 64 and stored != key.hex()


def test_two_releases_with_one_key_are_not_aligned_by_position(sorted_table, tmp_path):
    """The per-release key: two releases of the same people exported with the same key must
    not put the same person at the same position."""
    key = bytes(range(32))
    r1 = _make(sorted_table, "anatomy")
    r2 = anonymize(sorted_table, "mondrian", seed=SEED, l=3, scheme="bucketization")
    save_release(r1, tmp_path / "a", export_key=key)
    save_release(r2, tmp_path / "b", export_key=key)
    qa = pd.read_csv(tmp_path / "a" / "published" / "qit.csv")[QI].astype(str).to_numpy()
    qb = pd.read_csv(tmp_path / "b" / "published" / "qit.csv")[QI].astype(str).to_numpy()
    assert np.mean(np.all(qa == qb, axis=1)) < 0.2


def test_nothing_published_names_the_seed_or_the_key(sorted_table, tmp_path):
    release = _make(sorted_table, "mondrian")
    save_release(release, tmp_path / "rel")
    key_hex = (tmp_path / "rel" / "publisher" / "export-key").read_text().strip()
    for f in (tmp_path / "rel" / "published").iterdir():
        text = f.read_text().lower()
        assert "seed" not in text and key_hex not in text
    manifest = (tmp_path / "rel" / "manifest.json").read_text()
    assert key_hex not in manifest  # the manifest carries a seal made with it, not the key


def test_saving_a_loaded_release_reproduces_its_export(sorted_table, tmp_path):
    release = _make(sorted_table, "hilb")
    save_release(release, tmp_path / "a")
    save_release(load_release(tmp_path / "a"), tmp_path / "b")
    for f in ("qit.csv", "st.csv", "generalized.csv"):
        pa, pb = tmp_path / "a" / "published" / f, tmp_path / "b" / "published" / f
        if pa.exists():
            assert pa.read_bytes() == pb.read_bytes()


@pytest.mark.parametrize(
    "text",
    ["", "abc", "0" * 63, "0" * 65, "g" * 64, "0" * 32 + " " + "0" * 31],
)
def test_a_bad_export_key_file_names_the_file_and_the_format(tmp_path, text):
    from anonlab.errors import AnonlabError

    path = tmp_path / "key"
    path.write_text(text)
    with pytest.raises(AnonlabError, match=r"key.*64 hexadecimal digits"):
        export_order.read_export_key(path)


def test_keyed_permutation_is_a_permutation_and_depends_on_key_and_purpose():
    a = export_order.keyed_permutation(b"k" * 32, b"rows", 1000)
    assert sorted(a.tolist()) == list(range(1000))
    assert not np.array_equal(a, export_order.keyed_permutation(b"j" * 32, b"rows", 1000))
    assert not np.array_equal(a, export_order.keyed_permutation(b"k" * 32, b"ids", 1000))
    np.testing.assert_array_equal(a, export_order.keyed_permutation(b"k" * 32, b"rows", 1000))


def test_cli_export_key_file_reproduces_the_published_files(tmp_path, cli):
    args = ["anonymize", "--dataset", "adult", "--qi", "age,sex,race", "--sensitive"]
    args += ["occupation", "--algorithm", "anatomy", "--l", "3", "--seed", "9"]
    code, _, err = cli([*args, "--out", str(tmp_path / "a")])
    assert code == 0, err
    key_file = tmp_path / "a" / "publisher" / "export-key"
    code, _, err = cli([*args, "--out", str(tmp_path / "b"), "--export-key-file", str(key_file)])
    assert code == 0, err
    code, _, err = cli([*args, "--out", str(tmp_path / "c")])  # a fresh key
    assert code == 0, err
    for f in ("qit.csv", "st.csv"):
        a, b, c = ((tmp_path / r / "published" / f).read_bytes() for r in "abc")
        assert a == b and a != c
    bad = tmp_path / "bad-key"
    bad.write_text("not a key")
    code, out, err = cli([*args, "--out", str(tmp_path / "d"), "--export-key-file", str(bad)])
    assert code == 2 and "64 hexadecimal digits" in err and "Traceback" not in out + err
    assert not (tmp_path / "d").exists()
