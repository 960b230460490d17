"""A release made and written by a Dask cluster's workers from Parquet (issue 21, items 1 and 3-5).

Checked against the single-machine algorithms on the same records: Mondrian's and Mondrian+'s
groups and published generalized values are the single-machine ones record by record; Anatomy's
published tables are ℓ-diverse and consistent. The driver cannot read a record (its Parquet
readers raise) and receives only counts, histograms and checksums.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from anonlab import export_order  # noqa: E402
from anonlab.anonymize import anonymize  # noqa: E402
from anonlab.distributed import worker_input, worker_release  # noqa: E402
from anonlab.distributed.worker_release import anonymize_on_workers  # noqa: E402
from anonlab.errors import AnonlabError, IneligibleError  # noqa: E402
from anonlab.table import Table  # noqa: E402

N = 12_000
ROW_GROUP = 1_700  # 8 row groups, the last one short


@pytest.fixture(scope="module")
def census_table() -> Table:
    return Table.from_dataset("census-kdd-workers").take(np.arange(N))


@pytest.fixture(scope="module")
def census_parquet(census_table, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("census") / "census.parquet"
    frame = census_table.to_frame()
    pq.write_table(
        pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=ROW_GROUP
    )
    return str(path)


def _refuse(*args, **kwargs):
    raise AssertionError("the driver read records")


def _run(client, path, table, algorithm, out, received=None, **kwargs):
    """anonymize_on_workers with the driver's own Parquet readers raising (the workers are
    other processes; the footer, with row counts and column names, stays readable)."""
    kinds = []

    def on_gather(kind, value):
        kinds.append(kind)
        if received is not None:
            received.append((kind, value))

    with pytest.MonkeyPatch.context() as blind:
        blind.setattr(pq.ParquetFile, "read_row_group", _refuse)
        blind.setattr(pq.ParquetFile, "read", _refuse)
        blind.setattr(pq.ParquetFile, "iter_batches", _refuse)
        blind.setattr(pq, "read_table", _refuse)
        blind.setattr(worker_input, "read_coded_frame", _refuse)
        release = anonymize_on_workers(
            client, path, table.take(np.zeros(0, dtype=np.int64)), algorithm, out,
            on_gather=on_gather, **kwargs,
        )  # fmt: skip
    return release, kinds


def _records(out) -> pd.DataFrame:
    return pd.read_parquet(out / "publisher" / "records").sort_values("row")


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two group arrays put the same records together (ids may differ)."""
    pairs = np.unique(np.column_stack([a, b]), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


@pytest.mark.parametrize(
    ("algorithm", "params", "max_rows"),
    [
        ("mondrian", {"l": 4}, 2_000),
        ("mondrian", {"k": 10}, 1_500),
        ("mondrian+", {"l": 4}, 2_000),
        ("mondrian", {"l": 5, "sensitive_values": ["2", "26"]}, 2_000),
    ],
)
def test_mondrian_groups_and_labels_equal_one_machine(
    dask_client, census_parquet, census_table, tmp_path,
    algorithm, params, max_rows,
):  # fmt: skip
    received: list = []
    out = tmp_path / "release"
    release, kinds = _run(
        dask_client, census_parquet, census_table, algorithm, out, received,
        max_partition_rows=max_rows, **params,
    )  # fmt: skip
    single = anonymize(census_table, algorithm, seed=0, **params)
    records = _records(out)
    assert records["row"].tolist() == list(range(N))
    group = records["group"].to_numpy()
    assert _same_partition(group, single.group)
    assert release.n_groups == single.n_groups == len(np.unique(group))
    assert sorted(np.unique(group)) == list(range(release.n_groups))
    assert release.n_parts > 1
    # the published generalized values, record by record through the publisher's records
    published = pd.read_parquet(out / "published" / "generalized")
    assert len(published) == N
    by_group = published.drop_duplicates("group").set_index("group")
    assert len(by_group) == release.n_groups  # one set of labels per group
    for q in census_table.quasi_identifiers:
        ours = by_group.loc[group, q].astype(str).to_numpy()
        theirs = single.generalization[q].labels[single.group].astype(str)
        assert (ours == theirs).all(), q
    sens = census_table.sensitive
    counts = published.groupby(["group", sens]).size()
    reference = pd.Series(census_table.column(sens).astype(str)).groupby(group).value_counts()
    assert dict(counts) == {(g, v): c for (g, v), c in reference.items()}
    # the driver received counts, histograms, summaries and checksums: no record
    assert set(kinds) <= {"value counts", "histogram", "part sizes", "part summaries", "files"}
    checked = 0
    for kind, value in received:
        if kind == "histogram":  # a level's cells: one row per open partition, not per record
            dense = value.dense()
            assert (
                2 * dense.shape[0] <= N and dense.sum() <= len(census_table.quasi_identifiers) * N
            ), kind
            checked += 1
        elif isinstance(value, np.ndarray):
            assert value.dtype == np.int64 and N not in value.shape, kind
            checked += 1
    assert checked >= 3  # the value counts, the part sizes and at least one level
    if algorithm == "mondrian+":
        assert release.manifest["refused_splits"] == single.manifest["refused_splits"]


def test_anatomy_published_tables_are_l_diverse(
    dask_client, census_parquet, census_table, tmp_path
):
    out = tmp_path / "release"
    release, kinds = _run(
        dask_client, census_parquet, census_table, "anatomy", out, l=4, max_partition_rows=2_500
    )
    assert set(kinds) <= {"value counts", "run histograms", "part summaries", "files"}
    qit = pd.read_parquet(out / "published" / "qit")
    st = pd.read_parquet(out / "published" / "st")
    sens = census_table.sensitive
    assert len(qit) == N and st["count"].sum() == N
    sizes = qit.groupby("group").size()
    st_sizes = st.groupby("group")["count"].sum()
    assert sizes.to_dict() == st_sizes.to_dict()
    assert sorted(sizes.index) == list(range(release.n_groups))
    # frequency ℓ-diversity, group by group, from what is published
    largest = st.groupby("group")["count"].max()
    assert (4 * largest <= st_sizes).all()
    # the QIT holds every record's exact quasi-identifiers and the ST every sensitive value
    frame = census_table.to_frame()
    qi = list(census_table.quasi_identifiers)
    assert sorted(map(tuple, qit[qi].astype(str).to_numpy())) == sorted(
        map(tuple, frame[qi].astype(str).to_numpy())
    )
    published_counts = st.groupby(sens)["count"].sum().to_dict()
    assert published_counts == frame[sens].astype(str).value_counts().to_dict()
    # each record's group in the publisher's records is its published group
    records = _records(out)
    assert records["row"].tolist() == list(range(N))
    assert np.bincount(records["group"]).tolist() == sizes.sort_index().tolist()
    assert release.manifest["distributed"]["method"] == "random-runs"
    assert sum(release.part_rows) == N


def test_export_key_decides_order_and_ids_and_files_are_unlinkable(
    dask_client, census_parquet, census_table, tmp_path
):
    key = bytes(range(32))
    paths = []
    for name, k in (("a", key), ("b", key), ("c", bytes(32))):
        out = tmp_path / name
        _run(dask_client, census_parquet, census_table, "anatomy", out, l=4,
             max_partition_rows=4_000, export_key=k)  # fmt: skip
        paths.append(out)

    def digests(out):
        return {
            p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((out / "published").rglob("*.parquet"))
        }

    assert digests(paths[0]) == digests(paths[1])  # same key: same files
    assert digests(paths[0]) != digests(paths[2])  # another key: another order
    assert (paths[0] / export_order.KEY_FILE).read_text().strip() == key.hex()
    manifest = json.loads((paths[0] / "publisher" / "manifest.json").read_text())
    published = [p for p in (paths[0] / "published").rglob("*") if p.is_file()]
    assert key.hex().encode() not in b"".join(p.read_bytes() for p in published)
    assert manifest["seed"] == 0 and key.hex() not in json.dumps(manifest)
    every_file = {
        p.relative_to(paths[0]).as_posix()
        for top in ("published", "publisher")
        for p in (paths[0] / top).rglob("*")
        if p.is_file()
    }
    assert set(manifest["files"]) == every_file - {"publisher/manifest.json"}
    # no row id column, and a part's QIT rows are not in input order
    qit = pq.read_table(next((paths[0] / "published" / "qit").glob("*.parquet"))).to_pandas()
    assert list(qit.columns) == ["group", *census_table.quasi_identifiers]
    records = _records(paths[0])
    members = records[records["group"].isin(qit["group"].unique())]["row"].to_numpy()
    frame = census_table.to_frame().iloc[members]
    qi = list(census_table.quasi_identifiers)
    assert not (frame[qi].astype(str).to_numpy() == qit[qi].astype(str).to_numpy()).all()


def test_csv_output_is_formula_guarded(dask_client, tmp_path):
    frame = pd.DataFrame(
        {
            "zip": ["=1+1", "+cmd", "13053", "13068", "-2", "@x"] * 20,
            "age": np.arange(120) % 40 + 20,
            "disease": ["=flu", "HIV", "cancer", "gastritis"] * 30,
        }
    )
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=50)
    table = Table.from_frame(
        frame, quasi_identifiers=["zip", "age"], sensitive="disease", types={"zip": "text"}
    )
    out = tmp_path / "release"
    release, _ = _run(dask_client, str(path), table, "anatomy", out, l=2, max_partition_rows=60,
                      published_format="csv")  # fmt: skip
    text = "".join(p.read_text() for p in (out / "published" / "qit").glob("*.csv"))
    assert "'=1+1" in text and "'+cmd" in text and "'@x" in text
    assert "\n=1+1" not in text and ",=1+1" not in text
    st = "".join(p.read_text() for p in (out / "published" / "st").glob("*.csv"))
    assert "'=flu" in st and ",=flu" not in st
    # the checks read the guarded cells back as the values they stand for
    from anonlab.distributed.written_checks import check_written_release

    verdicts = {c.model: c for c in check_written_release(dask_client, out, table)}
    # every group read back (as many as the release made: 120 records, ℓ = 2, about 60 groups;
    # the exact count depends on the seeded runs)
    assert 55 <= release.n_groups <= 60
    assert verdicts["l-diversity"].holds and verdicts["k-anonymity"].n_groups == release.n_groups


def test_bad_input_fails_whole_and_names_the_problem(
    dask_client, census_parquet, census_table, tmp_path
):
    out = tmp_path / "release"
    # a template whose domain lacks a value of the file
    small = Table.from_frame(
        census_table.to_frame().iloc[:50], quasi_identifiers=census_table.quasi_identifiers,
        sensitive=census_table.sensitive,
    )  # fmt: skip
    with pytest.raises(AnonlabError, match=r"column '.*'.*row group \d+.*is not in its domain"):
        anonymize_on_workers(dask_client, census_parquet, small, "anatomy", out, l=2)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".release")]
    # exact values published as sets without the publisher's choice: refused before the work
    with pytest.raises(AnonlabError, match="have no hierarchy"):
        anonymize_on_workers(dask_client, census_parquet, small, "mondrian", out, l=2)
    with pytest.raises(IneligibleError, match="not 40-eligible"):
        _run(dask_client, census_parquet, census_table, "anatomy", out, l=40)
    assert not out.exists()
    with pytest.raises(AnonlabError, match="algorithm.*mask"):
        _run(dask_client, census_parquet, census_table, "mask", out, l=4)
    with pytest.raises(AnonlabError, match="no column 'missing'"):
        frame = census_table.to_frame().iloc[:10].rename(columns={"age": "missing"})
        renamed = Table.from_frame(
            frame, quasi_identifiers=["missing"], sensitive=census_table.sensitive
        )
        _run(dask_client, census_parquet, renamed, "anatomy", out, l=2)
    # t-closeness per part would be measured against the part's distribution: refused, as is
    # a parameter the algorithm does not take, before any work
    with pytest.raises(AnonlabError, match="'t' is not available on the workers' path"):
        _run(dask_client, census_parquet, census_table, "mondrian", out, l=2, t=0.2)
    with pytest.raises(AnonlabError, match="anatomy has no parameter 'k'"):
        _run(dask_client, census_parquet, census_table, "anatomy", out, l=2, k=5)
    assert not out.exists()
    out.mkdir()
    with pytest.raises(AnonlabError, match="exists"):
        _run(dask_client, census_parquet, census_table, "anatomy", out, l=2)


@pytest.mark.parametrize(("algorithm", "fmt"), [("mondrian", "parquet"), ("anatomy", "csv")])
def test_checks_over_written_parts_equal_one_machine(
    dask_client, census_parquet, census_table, tmp_path, algorithm, fmt
):
    from anonlab.distributed.written_checks import check_written_release
    from anonlab.models.defaults import default_checks
    from anonlab.release import Release

    out = tmp_path / "release"
    _run(dask_client, census_parquet, census_table, algorithm, out, l=4,
         max_partition_rows=2_500, published_format=fmt)  # fmt: skip
    received: list = []
    ours = check_written_release(
        dask_client, out, census_table, t=0.15, on_gather=lambda k, v: received.append((k, v))
    )
    # the single-machine checks of the same groups (Release renumbers them: map the ids back)
    records = _records(out)
    scheme = "bucketization" if algorithm == "anatomy" else "generalization"
    published = records["group"].to_numpy()
    release = Release(census_table, published, scheme, {"parameters": {"l": 4}})
    published_id = np.empty(release.n_groups, dtype=np.int64)
    published_id[release.group] = published
    theirs = default_checks(release, t=0.15)
    assert [c.model for c in ours] == [c.model for c in theirs]
    for a, b in zip(ours, theirs, strict=True):
        assert a.holds == b.holds, a.model
        assert a.value == pytest.approx(b.value, rel=1e-12), a.model
        assert a.n_groups == len(b.per_group)
        at_worst = published_id[np.flatnonzero(b.per_group == b.worst_value)]
        assert a.worst_group == at_worst.min(), a.model
        assert a.n_violating_groups == b.n_violating_groups
        assert a.violating_records == b.violating_records
        assert a.violating_groups == sorted(published_id[b.violating_groups].tolist())
    assert any(not c.holds for c in ours)  # t = 0.15 is violated somewhere: a real comparison
    assert [k for k, _ in received] == ["value counts", "part checks"]


def _cli_argv(path, out, algorithm="mondrian"):
    qi = "age,sex,race,marital_stat,education,class_of_worker,country_of_birth_self"
    return ["anonymize", "--data", str(path), "--qi", qi,
            "--sensitive", "detailed_occupation_recode", "--value-sets", qi.split(",", 1)[1],
            "--algorithm", algorithm, "--l", "4", "--out", str(out),
            "--published-format", "parquet"]  # fmt: skip


def test_cli_on_workers_publishes_what_one_machine_publishes(
    dask_client, census_parquet, cli, tmp_path
):
    """The same file through `anonlab anonymize` with and without --on-workers: the template
    read from the file's distinct values (text digits read as integers, as one machine reads
    them) and the rows published are the same, as multisets."""
    ours, theirs = tmp_path / "workers", tmp_path / "one"
    address = dask_client.scheduler.address
    code, stdout, stderr = cli(
        [*_cli_argv(census_parquet, ours), "--on-workers", "--cluster", address]
    )
    assert code == 0, stderr
    assert "mondrian on the workers: 12,000 records" in " ".join(stdout.split())
    assert "l-diversity(l=4): holds" in stdout and "detailed_occupation_recode: integer" in stdout
    code, _, stderr = cli(_cli_argv(census_parquet, theirs))
    assert code == 0, stderr
    a = pd.read_parquet(ours / "published" / "generalized").drop(columns="group")
    b = pd.read_parquet(theirs / "published" / "generalized.parquet").drop(columns="group")
    assert list(a.columns) == list(b.columns)
    assert a.dtypes.to_dict() == b.dtypes.to_dict()
    key = list(a.columns)
    assert a.value_counts(key).to_dict() == b.value_counts(key).to_dict()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "--on-workers runs on a Dask cluster"),
        (["--cluster", "ADDRESS", "--algorithm", "mask"], "does not run with --on-workers"),
        (["--cluster", "ADDRESS", "--resample", "100"], "--resample draws records"),
        (["--cluster", "ADDRESS", "--t", "0.2"], "--t is not available with --on-workers"),
        (["--cluster", "ADDRESS", "--min-exp", "0.9"], "--min-exp is not available"),
        (["--cluster", "ADDRESS", "--algorithm", "anatomy", "--k", "5"], "no parameter 'k'"),
    ],
)
def test_cli_on_workers_refuses_what_it_cannot_do(
    dask_client, census_parquet, cli, tmp_path, extra, message
):
    extra = [dask_client.scheduler.address if e == "ADDRESS" else e for e in extra]
    out = tmp_path / "release"
    code, stdout, stderr = cli([*_cli_argv(census_parquet, out), "--on-workers", *extra])
    assert code == 2
    assert message in " ".join(stderr.split()) and "Traceback" not in stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def census_csv(census_table, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("census-csv") / "census.csv"
    census_table.to_frame().to_csv(path, index=False)
    return str(path)


def test_csv_in_blocks_gives_the_groups_of_one_machine(
    dask_client, census_csv, census_table, tmp_path
):
    """A CSV cut by Dask's byte reader into ~13 blocks of 40 KB, parsed and coded on the
    workers: the records numbered in file order, Mondrian's groups the single-machine ones."""
    out = tmp_path / "release"
    release, kinds = _run(dask_client, census_csv, census_table, "mondrian", out, l=4,
                          max_partition_rows=2_000, blocksize=40_000)  # fmt: skip
    assert release.manifest["distributed"]["input"]["format"] == "csv"
    assert release.manifest["distributed"]["input"]["blocks"] >= 10
    records = _records(out)
    assert records["row"].tolist() == list(range(N))
    single = anonymize(census_table, "mondrian", seed=0, l=4)
    assert _same_partition(records["group"].to_numpy(), single.group)


def test_a_quoted_line_break_across_blocks_is_refused(dask_client, tmp_path):
    rows = [f'{i % 50},"line one\nline two",{["a", "b", "c", "d"][i % 4]}' for i in range(3000)]
    path = tmp_path / "quoted.csv"
    path.write_text("age,note,disease\n" + "\n".join(rows) + "\n")
    frame = pd.DataFrame({"age": np.arange(3000) % 50, "note": "line one\nline two",
                          "disease": ["a", "b", "c", "d"] * 750})  # fmt: skip
    table = Table.from_frame(frame, quasi_identifiers=["age"], sensitive="disease",
                             insensitive=["note"])  # fmt: skip
    out = tmp_path / "release"
    with pytest.raises(AnonlabError, match="ends inside a quoted field"):
        _run(dask_client, str(path), table, "anatomy", out, l=2, blocksize=4_096)
    assert not out.exists()
    # in one block the same file reads (the quoted line breaks are parsed as pandas parses them)
    release, _ = _run(dask_client, str(path), table, "anatomy", out, l=2)
    assert release.n_rows == 3000
    qit = pd.read_parquet(out / "published" / "qit")
    assert (qit["note"] == "line one\nline two").all()


def test_a_block_starting_and_ending_inside_quotes_says_so():
    """An even number of quotes, the block cut inside a quoted field at both ends: the same
    message as an odd number (which of a file's blocks fails first is a race)."""
    data = b'line two",a\n1,"line one\n'
    with pytest.raises(AnonlabError, match="CSV block 3 ends inside a quoted field, or starts"):
        worker_input.parse_csv_block(data, 3, ["age", "note", "disease"], ",")


def test_cli_on_workers_reads_a_csv_as_one_machine_does(dask_client, census_csv, cli, tmp_path):
    ours, theirs = tmp_path / "workers", tmp_path / "one"
    address = dask_client.scheduler.address
    code, stdout, stderr = cli([*_cli_argv(census_csv, ours), "--on-workers", "--cluster", address])
    assert code == 0, stderr
    code, _, stderr = cli(_cli_argv(census_csv, theirs))
    assert code == 0, stderr
    a = pd.read_parquet(ours / "published" / "generalized").drop(columns="group")
    b = pd.read_parquet(theirs / "published" / "generalized.parquet").drop(columns="group")
    assert a.dtypes.to_dict() == b.dtypes.to_dict()
    key = list(a.columns)
    assert a.value_counts(key).to_dict() == b.value_counts(key).to_dict()


@pytest.mark.parametrize("algorithm", ["hilb", "hilb+", "hilb++"])
def test_hilb_family_parts_are_hilbert_runs_and_l_diverse(
    dask_client, census_parquet, census_table, tmp_path, algorithm
):
    from anonlab.anonymize.hilb_plus import hilbert_keys
    from anonlab.distributed.written_checks import check_written_release

    out = tmp_path / "release"
    release, kinds = _run(
        dask_client, census_parquet, census_table, algorithm, out, l=4, max_partition_rows=2_000
    )
    assert set(kinds) <= {"value counts", "hilbert key counts", "run histograms",
                          "part summaries", "files"}  # fmt: skip
    assert release.manifest["distributed"]["method"] == "hilbert-runs"
    assert release.n_parts >= N // 2_000 - 1 and sum(release.part_rows) == N
    records = _records(out)
    group = records["group"].to_numpy()
    # each part (one published file) is a range of the Hilbert order: the files' key ranges,
    # over the records of their groups, do not overlap
    keys, _ = hilbert_keys(census_table)
    file_of_group = {}
    files = sorted((out / "published" / "generalized").glob("*.parquet"))
    assert len(files) == release.n_parts
    for f, path in enumerate(files):
        for g in pq.read_table(path, columns=["group"]).column("group").to_pylist():
            file_of_group[g] = f
    file_of_record = np.array([file_of_group[g] for g in group])
    ranges = sorted(
        (int(keys[file_of_record == f].min()), int(keys[file_of_record == f].max()))
        for f in range(len(files))
    )
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    assert release.n_groups == len(np.unique(group))
    verdicts = {c.model: c for c in check_written_release(dask_client, out, census_table)}
    assert verdicts["l-diversity"].holds and verdicts["l-diversity"].value >= 4
    # a single-machine Hilb on the whole table forms about as many groups
    single = anonymize(census_table, algorithm, seed=0, l=4)
    assert abs(release.n_groups - single.n_groups) <= 0.05 * single.n_groups


def test_runs_of_buckets_by_hand():
    from anonlab.distributed.worker_release import runs_of_buckets

    # 3 + 4 fit in 8, 7 + 5 do not; 20 is a run alone; 1 + 1
    run = runs_of_buckets(np.array([0, 3, 0, 4, 5, 0, 20, 1, 1]), 8)
    assert run.tolist() == [0, 0, 0, 0, 1, 1, 2, 3, 3]
    assert runs_of_buckets(np.array([9, 9, 9]), 8).tolist() == [0, 1, 2]
    assert runs_of_buckets(np.zeros(4, dtype=np.int64), 8).tolist() == [0, 0, 0, 0]


@given(
    rows=st.lists(st.integers(0, 5_000), min_size=0, max_size=40),
    workers=st.integers(1, 20),
    min_slice=st.integers(1, 3_000),
)
@settings(max_examples=300, deadline=None)
def test_block_plan_covers_each_row_group_in_order(rows, workers, min_slice):
    plan = worker_input.block_plan(rows, workers, min_slice)
    # every record of every row group once, in file order, as contiguous slices
    assert [g for g, _, _ in plan] == sorted(g for g, _, _ in plan)
    for group, n in enumerate(rows):
        slices = [(lo, hi) for g, lo, hi in plan if g == group]
        assert slices[0][0] == 0 and slices[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(slices, slices[1:], strict=False))
        sizes = [hi - lo for lo, hi in slices]
        if len(slices) > 1:  # cut: equal slices, none below the smallest allowed
            assert min(sizes) >= min_slice and max(sizes) - min(sizes) <= 1
    if len(rows) >= workers:
        assert plan == [(g, 0, n) for g, n in enumerate(rows)]
    elif rows and all(n >= 2 * workers * min_slice for n in rows):  # records enough to cut
        assert len(plan) >= 2 * workers


@pytest.fixture(scope="module")
def one_row_group(census_table, tmp_path_factory) -> str:
    """The census records in a single row group: fewer blocks than workers unless cut."""
    path = tmp_path_factory.mktemp("one") / "census.parquet"
    frame = census_table.to_frame()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=N)
    return str(path)


def test_a_row_group_cut_into_slices_changes_nothing_published(
    dask_client, one_row_group, census_table, tmp_path, monkeypatch
):
    """A file of one row group is read in slices spread over the workers. Mondrian's groups are
    still the single-machine ones; Anatomy's release is the one made from the uncut row group
    (its runs are drawn per row group in fixed chunks, then sliced)."""
    dask_client.wait_for_workers(2, timeout=120)  # a test before may have restarted one
    assert len(worker_input.block_plan([N], 2, 500)) == 4
    # Anatomy's runs drawn in chunks of 1,100 records: the slices (3,000 each) start inside chunks
    monkeypatch.setattr(worker_release, "RUN_CHUNK", 1_100)
    key = export_order.new_export_key()
    records = {}
    for min_slice in (500, 10 * N):  # four slices, then the row group whole
        monkeypatch.setattr(worker_input, "MIN_SLICE_ROWS", min_slice)
        out = tmp_path / f"mondrian-{min_slice}"
        _run(dask_client, one_row_group, census_table, "mondrian", out, l=4,
             max_partition_rows=2_000)  # fmt: skip
        single = anonymize(census_table, "mondrian", seed=0, l=4)
        mondrian = _records(out)
        assert mondrian["row"].tolist() == list(range(N))
        assert _same_partition(mondrian["group"].to_numpy(), single.group)
        out = tmp_path / f"anatomy-{min_slice}"
        _run(dask_client, one_row_group, census_table, "anatomy", out, l=4,
             max_partition_rows=2_500, export_key=key)  # fmt: skip
        records[min_slice] = _records(out)[["row", "group"]].reset_index(drop=True)
        st_ = pd.read_parquet(out / "published" / "st")
        sizes = st_.groupby("group")["count"].sum()
        assert sizes.sum() == N and (4 * st_.groupby("group")["count"].max() <= sizes).all()
    pd.testing.assert_frame_equal(records[500], records[10 * N])


def test_the_slices_are_shared_out_over_the_workers(dask_client, one_row_group, census_table):
    dask_client.wait_for_workers(2, timeout=120)
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(worker_input, "MIN_SLICE_ROWS", 500)
    try:
        template = census_table.take(np.zeros(0, dtype=np.int64))
        names = list(template.schema.names)
        source = worker_input.InputFile.of(one_row_group)
        domains = {n: np.asarray(template.values[n]) for n in names}
        blocks, rows, origins = worker_input.coded_blocks(dask_client, source, names, domains, None)
        frames = dask_client.gather(blocks)
    finally:
        monkeypatch.undo()
    assert rows == [len(f) for f in frames] == [N // 4] * 4
    assert origins == [(0, b * N // 4, N) for b in range(4)]
    rows_read = np.concatenate([f[worker_input.ROW].to_numpy() for f in frames])
    assert rows_read.tolist() == list(range(N))
    holders = dask_client.who_has(blocks)
    assert len({w for ws in holders.values() for w in ws}) == 2  # both workers hold blocks


def test_the_shuffle_carries_the_smallest_type_of_each_domain():
    from anonlab.distributed.worker_release import shuffle_dtypes

    sizes = [1, 2, 256, 257, 65_536, 65_537]
    assert list(shuffle_dtypes(sizes).values()) == [
        np.uint8, np.uint8, np.uint8, np.uint16, np.uint16, np.uint32
    ]  # fmt: skip
    assert list(shuffle_dtypes(sizes)) == [worker_input.code_column(i) for i in range(6)]


def test_a_missing_value_is_named_with_its_row_group(dask_client, census_table, tmp_path):
    frame = census_table.to_frame().iloc[:600].copy()
    frame["age"] = frame["age"].astype("Int64")
    frame.loc[frame.index[450], "age"] = pd.NA  # row group 2 of 200-record groups
    path = tmp_path / "holes.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=200)
    out = tmp_path / "release"
    with pytest.raises(AnonlabError, match=r"column 'age' \(.*row group 2\): 1 missing value"):
        _run(dask_client, str(path), census_table, "anatomy", out, l=2)
    assert not out.exists()


def test_written_release_keeps_its_template_and_refuses_tampering(
    dask_client, census_parquet, census_table, tmp_path, cli
):
    """The folder holds its template (checks need no original), is sealed, and every file is
    verified where it is read; `anonlab check` runs on it with --cluster."""
    import shutil

    from anonlab.distributed.written_checks import check_written_release
    from anonlab.distributed.written_release import MANIFEST, TEMPLATE_DOMAINS, open_written

    out = tmp_path / "release"
    _run(dask_client, census_parquet, census_table, "anatomy", out, l=4, max_partition_rows=4_000)
    _, template = open_written(out)
    for name in census_table.schema.names:
        assert template.values[name].tolist() == census_table.values[name].tolist()
    own = [c.to_json() for c in check_written_release(dask_client, out)]
    given = [c.to_json() for c in check_written_release(dask_client, out, census_table)]
    assert own == given
    address = dask_client.scheduler.address
    code, stdout, stderr = cli(["check", str(out), "--cluster", address, "--json"])
    assert code == 0, stderr
    assert json.loads(stdout)["checks"] == own
    code, _, stderr = cli(["check", str(out)])
    assert code == 2 and "give --cluster ADDRESS or --workers N" in " ".join(stderr.split())

    def damaged(edit):
        copy = tmp_path / f"copy-{len(list(tmp_path.iterdir()))}"
        shutil.copytree(out, copy)
        edit(copy)
        return copy

    part = sorted((out / "published" / "st").glob("*.parquet"))[0].relative_to(out)
    with pytest.raises(AnonlabError, match="was changed after the release was written"):
        check_written_release(dask_client, damaged(lambda c: (c / part).write_bytes(
            (c / part).read_bytes() + b"x")))  # fmt: skip

    def edit_manifest(copy):
        m = json.loads((copy / MANIFEST).read_text())
        m["groups"] += 1
        (copy / MANIFEST).write_text(json.dumps(m))

    with pytest.raises(AnonlabError, match="seal does not match"):
        check_written_release(dask_client, damaged(edit_manifest))
    with pytest.raises(AnonlabError, match="is missing"):
        check_written_release(dask_client, damaged(lambda c: (c / TEMPLATE_DOMAINS).unlink()))
