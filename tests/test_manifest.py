"""manifest.json validation: the declared JSON Schema, the semantic checks, the messages."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from anonlab import manifest as mf
from anonlab.anonymize import anonymize
from anonlab.errors import AnonlabError
from anonlab.manifest import (
    FORMAT,
    FORMAT_VERSION,
    field_path,
    is_release_path,
    manifest_schema,
    parse_manifest,
    read_manifest,
    validate_manifest,
)
from anonlab.release_io.folder import json_default as _json_default
from anonlab.table import Table

SRC = "manifest.json"
HEX = "0123456789abcdef" * 4


def _entry(n: int = 100) -> dict:
    return {"sha256": HEX, "bytes": n}


#: A valid manifest as the new save_release writes it (a Mondrian release of 200 records).
BASE: dict = {
    "format": FORMAT,
    "format_version": FORMAT_VERSION,
    "algorithm": "mondrian",
    "parameters": {"k": None, "l": 4, "sensitive_values": None},
    "seed": 0,
    "scheme": "generalization",
    "schema": [
        {
            "name": "age",
            "role": "quasi-identifier",
            "kind": "numeric",
            "hierarchy_height": 4,
            "hierarchy_file": "publisher/hierarchies/age.csv",
        },
        {
            "name": "sex",
            "role": "quasi-identifier",
            "kind": "categorical",
            "hierarchy_height": None,
            "hierarchy_file": None,
        },
        {"name": "race", "role": "insensitive", "kind": "categorical", "hierarchy_height": None},
        {
            "name": "occupation",
            "role": "sensitive",
            "kind": "categorical",
            "hierarchy_height": 2,
            "hierarchy_file": "publisher/hierarchies/occupation.csv",
        },
    ],
    "rows": 200,
    "groups": 20,
    "dropped": {"columns": []},
    "perturbed_records": 0,
    "anonlab_version": "0.1.0",
    "published_files": ["generalized.csv"],
    "seal": HEX[::-1],
    "files": {
        "publisher/records.parquet": _entry(5000),
        "publisher/hierarchies/age.csv": _entry(),
        "publisher/hierarchies/occupation.csv": _entry(),
        "publisher/export-key": _entry(32),
        "published/generalized.csv": _entry(),
    },
}


def base() -> dict:
    return copy.deepcopy(BASE)


def test_base_is_valid():
    m = base()
    assert validate_manifest(m, SRC) is m
    assert m == BASE  # validation does not change the manifest


def test_schema_file_is_shipped_and_valid_draft_2020_12():
    schema = manifest_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["properties"]["format"]["const"] == FORMAT
    assert schema["properties"]["format_version"]["const"] == FORMAT_VERSION
    assert {"format", "format_version", "files", "schema", "scheme", "parameters", "seal"} <= set(
        schema["required"]
    )
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert "manifest.schema.json" in pyproject
    assert '"jsonschema>=4.18"' in pyproject


def test_algorithm_fields_are_allowed_and_typed():
    m = base()
    m.update(residue_records=3, hilbert_bits=7, lattice={"nodes": 4}, my_new_field=[1, 2])
    validate_manifest(m, SRC)
    m["residue_records"] = "3"
    with pytest.raises(AnonlabError, match=r"residue_records: must be an integer"):
        validate_manifest(m, SRC)


# ---------------------------------------------------------------------- malformed manifests
def _set(path: tuple, value: object) -> Callable[[dict], None]:
    def edit(m: dict) -> None:
        target = m
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = value

    return edit


def _del(path: tuple) -> Callable[[dict], None]:
    def edit(m: dict) -> None:
        target = m
        for p in path[:-1]:
            target = target[p]
        del target[path[-1]]

    return edit


def _both(*edits: Callable[[dict], None]) -> Callable[[dict], None]:
    def edit(m: dict) -> None:
        for e in edits:
            e(m)

    return edit


def _add_file(path: str) -> Callable[[dict], None]:
    return _set(("files", path), _entry())


# (id, edit of a valid manifest, words that the message must hold)
MALFORMED: list[tuple[str, Callable[[dict], None], tuple[str, ...]]] = [
    ("no-schema", _del(("schema",)), ("schema: required field is missing",)),
    ("schema-string", _set(("schema",), "x"), ("schema: must be a list", "'x'")),
    ("schema-empty", _set(("schema",), []), ("schema: must not be empty",)),
    ("schema-entry-string", _set(("schema", 1), "sex"), ("schema[1]: must be an object",)),
    ("no-scheme", _del(("scheme",)), ("scheme: required field is missing", "bucketization")),
    (
        "bad-scheme",
        _set(("scheme",), "anatomy"),
        ("scheme: 'anatomy' is not one of ['generalization', 'bucketization']",),
    ),
    ("parameters-null", _set(("parameters",), None), ("parameters: must be an object", "null")),
    ("parameters-list", _set(("parameters",), [4]), ("parameters: must be an object",)),
    (
        "bogus-role",
        _set(("schema", 2, "role"), "bogus"),
        ("schema[2].role: 'bogus' is not one of ['quasi-identifier', 'sensitive',",),
    ),
    ("bogus-kind", _set(("schema", 0, "kind"), "date"), ("schema[0].kind: 'date'", "numeric")),
    ("no-role", _del(("schema", 3, "role")), ("schema[3].role: required field is missing",)),
    ("no-name", _del(("schema", 0, "name")), ("schema[0].name: required field is missing",)),
    ("empty-name", _set(("schema", 1, "name"), ""), ("schema[1].name", "non-empty")),
    ("name-number", _set(("schema", 1, "name"), 7), ("schema[1].name: must be a string",)),
    ("unknown-attr-field", _set(("schema", 0, "colour"), "red"), ("schema[0].colour", "allowed")),
    (
        "height-negative",
        _set(("schema", 0, "hierarchy_height"), -1),
        ("schema[0].hierarchy_height: -1 must be >= 0",),
    ),
    (
        "height-float",
        _set(("schema", 0, "hierarchy_height"), 4.0),
        ("schema[0].hierarchy_height: must be an integer or null", "4.0"),
    ),
    ("duplicate-name", _set(("schema", 1, "name"), "age"), ("schema[1].name", "unique")),
    (
        "bucketized-without-sensitive",
        lambda m: (
            _set(("schema", 3, "role"), "insensitive")(m),
            _set(("scheme",), "bucketization")(m),
        ),  # fmt: skip
        ("schema:", "no attribute has role 'sensitive'", "bucketized"),
    ),
    (
        "two-sensitive-bucketized",
        lambda m: (
            _set(("schema", 2, "role"), "sensitive")(m),
            _set(("scheme",), "bucketization")(m),
        ),  # fmt: skip
        ("schema[3].role", "second sensitive", "bucketized release publishes one"),
    ),
    ("no-rows", _del(("rows",)), ("rows: required field is missing",)),
    ("rows-negative", _set(("rows",), -1), ("rows: -1 must be >= 0",)),
    ("rows-float", _set(("rows",), 200.0), ("rows: must be an integer", "200.0")),
    ("rows-bool", _set(("rows",), True), ("rows: must be an integer", "boolean")),
    ("rows-string", _set(("rows",), "200"), ("rows: must be an integer", "'200'")),
    ("groups-over-rows", _set(("groups",), 999), ("groups: 999 is more than rows (200)",)),
    ("groups-zero", _set(("groups",), 0), ("groups: 0", ">= 1 group")),
    ("groups-fraction", _set(("groups",), 2.5), ("groups: must be an integer",)),
    ("perturbed-over-rows", _set(("perturbed_records",), 201), ("perturbed_records: 201",)),
    ("seed-string", _set(("seed",), "0"), ("seed: must be an integer or null",)),
    ("seed-negative", _set(("seed",), -5), ("seed: -5 must be >= 0",)),
    ("param-l-string", _set(("parameters", "l"), "4"), ("parameters.l: must be a number",)),
    ("param-k-zero", _set(("parameters", "k"), 0), ("parameters.k: 0 must be >= 1",)),
    (
        "param-values-string",
        _set(("parameters", "sensitive_values"), "flu"),
        ("parameters.sensitive_values: must be a list or null",),
    ),
    ("no-format", _del(("format",)), ("format: required field is missing", FORMAT)),
    ("wrong-format", _set(("format",), "arx-project"), ("format: 'arx-project'", FORMAT)),
    ("no-format-version", _del(("format_version",)), ("format_version: required field",)),
    ("newer-format", _set(("format_version",), 2), ("format_version", "newer anonlab")),
    ("format-version-0", _set(("format_version",), 0), ("format_version: 0", "must be 1")),
    ("format-version-str", _set(("format_version",), "1"), ("format_version: must be an integer",)),
    ("no-files", _del(("files",)), ("files: required field is missing",)),
    ("files-list", _set(("files",), ["publisher/records.parquet"]), ("files: must be an object",)),
    ("files-parent", _add_file("../outside.csv"), ("files: key '../outside.csv'", "'..'")),
    ("files-inner-parent", _add_file("published/../../x"), ("files: key 'published/../../x'",)),
    ("files-absolute", _add_file("/etc/passwd"), ("files: key '/etc/passwd'", "leading '/'")),
    ("files-backslash", _add_file("published\\x.csv"), ("files: key", "backslash")),
    ("files-empty-segment", _add_file("published//x.csv"), ("files: key", "empty segment")),
    ("files-dot", _add_file("./manifest.json"), ("files: key './manifest.json'",)),
    ("files-newline", _add_file("published/x.csv\n"), ("files: key", "control")),
    (
        "sha-upper",
        _set(("files", "publisher/records.parquet", "sha256"), HEX.upper()),
        ('files["publisher/records.parquet"].sha256', "64 lowercase hexadecimal"),
    ),
    (
        "sha-short",
        _set(("files", "published/generalized.csv", "sha256"), "abc"),
        ('files["published/generalized.csv"].sha256', "'abc'"),
    ),
    (
        "sha-newline",
        _set(("files", "publisher/export-key", "sha256"), HEX + "\n"),
        ('files["publisher/export-key"].sha256', "64 lowercase hexadecimal"),
    ),
    ("seal-newline", _set(("seal",), HEX + "\n"), ("seal:", "64 lowercase hexadecimal")),
    (
        "bytes-negative",
        _set(("files", "publisher/export-key", "bytes"), -1),
        ('files["publisher/export-key"].bytes: -1 must be >= 0',),
    ),
    (
        "file-entry-no-sha",
        _del(("files", "publisher/export-key", "sha256")),
        ('files["publisher/export-key"].sha256: required field is missing',),
    ),
    (
        "file-entry-extra",
        _set(("files", "publisher/export-key", "md5"), "x"),
        ('files["publisher/export-key"].md5: unknown field',),
    ),
    (
        "no-records-file",
        _del(("files", "publisher/records.parquet")),
        ("files:", "publisher/records.parquet"),
    ),
    (
        "published-not-in-files",
        _set(("published_files",), ["generalized.csv", "st.csv"]),
        ("published_files[1]: 'st.csv' is not listed in files",),
    ),
    (
        "published-name-path",
        _both(_set(("published_files",), ["../x.csv"]), _add_file("published/../x.csv")),
        ("../x.csv",),
    ),
    (
        "published-duplicate",
        _set(("published_files",), ["generalized.csv", "generalized.csv"]),
        ("published_files: 'generalized.csv' is listed twice",),
    ),
    (
        "published-unnamed",
        _add_file("published/st.csv"),
        ("published_files: does not name 'published/st.csv'",),
    ),
    ("published-empty", _set(("published_files",), []), ("published_files: must not be empty",)),
    (
        "hierarchy-file-outside",
        _set(("schema", 0, "hierarchy_file"), "../../age.csv"),
        ("schema[0].hierarchy_file: '../../age.csv'", "relative POSIX path"),
    ),
    (
        "hierarchy-file-unlisted",
        _set(("schema", 0, "hierarchy_file"), "publisher/hierarchies/other.csv"),
        ("schema[0].hierarchy_file: 'publisher/hierarchies/other.csv' is not listed in files",),
    ),
    (
        "hierarchy-file-without-height",
        _set(("schema", 1, "hierarchy_file"), "publisher/hierarchies/age.csv"),
        ("schema[1].hierarchy_file", "hierarchy_height is null"),
    ),
    ("levels-not-qi", _set(("levels",), {"occupation": 1}), ("levels.occupation", "not a quasi")),
    ("levels-too-high", _set(("levels",), {"age": 5}), ("levels.age: level 5", "0..4")),
    ("levels-no-hierarchy", _set(("levels",), {"sex": 1}), ("levels.sex: level 1", "0..0")),
    ("levels-negative", _set(("levels",), {"age": -1}), ("levels.age: -1 must be >= 0",)),
    ("levels-list", _set(("levels",), [1, 2]), ("levels: must be an object",)),
    (
        "reference-negative",
        _set(("reference_counts",), [100, -1, 150]),
        ("reference_counts[1]: -1 must be >= 0",),
    ),
    (
        "reference-fraction",
        _set(("reference_counts",), [100, 0.5, 150]),
        ("reference_counts[1]: must be an integer",),
    ),
    (
        "reference-too-few",
        _set(("reference_counts",), [10, 20]),
        ("reference_counts:", "sum to 30, fewer than rows (200)"),
    ),
    (
        "suppressed-inconsistent",
        _both(_set(("input_rows",), 250), _set(("suppressed_records",), 10)),
        ("suppressed_records: 10", "input_rows (250)"),
    ),
    ("input-rows-below", _set(("input_rows",), 100), ("input_rows: 100 is fewer than rows",)),
    ("suppressed-negative", _set(("suppressed_records",), -3), ("suppressed_records: -3",)),
    ("residue-string", _set(("residue_records",), "2"), ("residue_records: must be an integer",)),
    ("dropped-list", _set(("dropped",), []), ("dropped: must be an object",)),
    (
        "dropped-rows-negative",
        _set(("dropped", "rows_with_missing"), -2),
        ("dropped.rows_with_missing: -2 must be >= 0",),
    ),
    (
        "resample-no-rows",
        _set(("resample",), {"seed": 0, "source": "adult"}),
        ("resample.rows: required field is missing",),
    ),
    ("algorithm-empty", _set(("algorithm",), ""), ("algorithm: ''", "non-empty")),
    ("algorithm-null", _set(("algorithm",), None), ("algorithm: must be a string", "null")),
    ("version-number", _set(("anonlab_version",), 0.1), ("anonlab_version: must be a string",)),
    ("no-seal", _del(("seal",)), ("seal: required field is missing", "HMAC")),
    ("seal-short", _set(("seal",), "abc"), ("seal: 'abc'", "64 lowercase hexadecimal")),
    ("seal-number", _set(("seal",), 12), ("seal: must be a string",)),
    ("no-dropped", _del(("dropped",)), ("dropped: required field is missing",)),
    ("no-perturbed", _del(("perturbed_records",)), ("perturbed_records: required field",)),
]


def test_a_generalized_release_may_have_no_sensitive_attribute():
    """Plain k-anonymity (issue 19): a generalized release without a sensitive attribute."""
    m = base()
    _set(("schema", 3, "role"), "insensitive")(m)
    validate_manifest(m, SRC)


@pytest.mark.parametrize(("edit", "words"), [pytest.param(e, w, id=i) for i, e, w in MALFORMED])
def test_malformed_manifest_names_the_field(edit, words):
    m = base()
    edit(m)
    with pytest.raises(AnonlabError) as info:
        validate_manifest(m, SRC)
    message = str(info.value)
    assert message.startswith(f"{SRC}: "), message
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert "Traceback" not in message
    assert len(message) < 700, message


def test_enough_malformed_cases():
    assert len(MALFORMED) >= 30
    assert len({i for i, _, _ in MALFORMED}) == len(MALFORMED)


@pytest.mark.parametrize(
    "obj",
    [[], [BASE], "manifest", 3, 2.5, None, True],
    ids=["empty-list", "list", "string", "int", "float", "null", "bool"],
)
def test_manifest_that_is_not_an_object(obj):
    with pytest.raises(AnonlabError, match=r"^manifest\.json: the manifest must be a JSON object"):
        validate_manifest(obj, SRC)


def test_message_names_the_source_given():
    m = base()
    m["scheme"] = "x"
    with pytest.raises(AnonlabError, match=r"^/data/rel/manifest\.json: scheme: "):
        validate_manifest(m, "/data/rel/manifest.json")


def test_several_errors_report_the_most_relevant_one():
    m = base()
    m["schema"][2]["role"] = "bogus"  # deep
    del m["scheme"]  # top level: reported first
    with pytest.raises(AnonlabError, match=r"manifest\.json: scheme: required field is missing"):
        validate_manifest(m, SRC)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        (("schema", 2, "role"), "x" * 1_000_000),
        (("schema", 0, "name"), "y" * 1_000_000),
        (("algorithm",), ["z"] * 100_000),
        (("scheme",), {"k" + str(i): i for i in range(10_000)}),
        (("files", "publisher/records.parquet", "sha256"), "f" * 500_000),
    ],
    ids=["role", "name", "list", "object", "sha"],
)
def test_huge_values_are_not_echoed(field, value):
    m = base()
    _set(field, value)(m)
    with pytest.raises(AnonlabError) as info:
        validate_manifest(m, SRC)
    assert len(str(info.value)) < 700
    assert str(field[-1]) in str(info.value)


def test_huge_key_is_not_echoed():
    m = base()
    m["files"]["../" + "k" * 100_000] = _entry()
    with pytest.raises(AnonlabError) as info:
        validate_manifest(m, SRC)
    assert len(str(info.value)) < 700
    assert "100,003 characters" in str(info.value)


def test_newer_format_version_says_upgrade_even_if_other_fields_differ():
    obj = {"format": FORMAT, "format_version": FORMAT_VERSION + 1, "something": "new"}
    with pytest.raises(AnonlabError, match="written by a newer anonlab.*upgrade anonlab"):
        validate_manifest(obj, SRC)


def test_foreign_json_is_not_an_anonlab_manifest():
    with pytest.raises(AnonlabError, match="format: 'arx'.*not an anonlab release manifest"):
        validate_manifest({"format": "arx", "version": 3}, SRC)


def test_old_release_without_format_says_make_again():
    m = base()
    for key in ("format", "format_version", "files"):
        del m[key]
    with pytest.raises(AnonlabError, match="format: required field is missing.*made again"):
        validate_manifest(m, SRC)


def test_empty_release_may_have_no_groups():
    m = base()
    m.update(rows=0, groups=0)
    validate_manifest(m, SRC)


@pytest.mark.parametrize(
    ("path", "ok"),
    [
        ("publisher/records.parquet", True),
        ("published/qit.csv", True),
        ("publisher/hierarchies/age.csv", True),
        ("publisher/export-key", True),
        ("publisher/hierarchies/.age.csv", True),
        ("published/a..b.csv", True),
        ("", False),
        ("/abs", False),
        ("../x", False),
        ("a/../b", False),
        ("a/..", False),
        ("./a", False),
        ("a/./b", False),
        ("a//b", False),
        ("a/", False),
        ("a\\b", False),
        ("a\x00b", False),
        ("a\nb", False),
        ("a\n", False),
        (3, False),
    ],
)
def test_is_release_path_agrees_with_schema_pattern(path, ok):
    assert is_release_path(path) is ok
    if isinstance(path, str) and path:
        m = base()
        m["files"][path] = _entry()
        if ok:
            if path.startswith("published/"):
                m["published_files"].append(path.removeprefix("published/"))
            validate_manifest(m, SRC)
        else:
            with pytest.raises(AnonlabError, match="files: key"):
                validate_manifest(m, SRC)


def test_field_path():
    assert field_path(["schema", 2, "role"]) == "schema[2].role"
    assert field_path(["files", "published/x.csv", "bytes"]) == 'files["published/x.csv"].bytes'
    assert field_path([]) == "(the manifest)"
    assert len(field_path(["files", "a" * 10_000])) < 100


# ---------------------------------------------------------------------- reading the file
def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "manifest.json"
    path.write_bytes(data)
    return path


def test_read_valid_manifest(tmp_path):
    path = _write(tmp_path, json.dumps(BASE, indent=2).encode())
    assert read_manifest(path) == BASE


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (json.dumps(BASE).encode()[:-20], ("not valid JSON", "line 1")),
        (b"", ("not valid JSON",)),
        (b"\xff\xfe{}", ("not UTF-8",)),
        (b"\x00\x01\x02binary", ("not valid JSON",)),
        (b'{"scheme": "generalization", "scheme": "bucketization"}', ("'scheme' appears twice",)),
        (b"[" * 200_000 + b"]" * 200_000, ("not a valid manifest",)),
        (b'{"rows": ' + b"9" * 10_000 + b"}", ("not a valid manifest",)),
        (b"[]", ("must be a JSON object",)),
        (b'{"format": "anonlab-release", "format_version": 99}', ("newer anonlab",)),
    ],
    ids=["truncated", "empty", "utf16", "binary", "dup-key", "deep", "huge-int", "list", "newer"],
)
def test_read_bad_manifest(tmp_path, data, words):
    path = _write(tmp_path, data)
    with pytest.raises(AnonlabError) as info:
        read_manifest(path, "manifest.json")
    message = str(info.value)
    assert message.startswith("manifest.json: ")
    for w in words:
        assert w in message, message
    assert len(message) < 700


def test_read_refuses_symlink_and_folder(tmp_path):
    real = _write(tmp_path, json.dumps(BASE).encode())
    link = tmp_path / "rel" / "manifest.json"
    link.parent.mkdir()
    os.symlink(real, link)
    with pytest.raises(AnonlabError, match="symbolic link"):
        read_manifest(link)
    folder = tmp_path / "dir" / "manifest.json"
    folder.mkdir(parents=True)
    with pytest.raises(AnonlabError, match="not a regular file"):
        read_manifest(folder)
    with pytest.raises(AnonlabError, match="no such file"):
        read_manifest(tmp_path / "nope" / "manifest.json")


def test_read_refuses_oversized_manifest(tmp_path, monkeypatch):
    monkeypatch.setattr(mf, "MAX_MANIFEST_BYTES", 1000)
    path = _write(tmp_path, json.dumps(BASE, indent=2).encode())
    with pytest.raises(AnonlabError, match="too large for a manifest"):
        read_manifest(path)
    with pytest.raises(AnonlabError, match="too large for a manifest"):
        parse_manifest(path.read_bytes(), "manifest.json")


# ---------------------------------------------------------------------- real releases
QI = ["age", "sex", "race"]


@pytest.fixture(scope="module")
def adult_small() -> Table:
    table = Table.from_dataset("adult", quasi_identifiers=QI, sensitive="occupation")
    return table.take(np.arange(2000))


def full_manifest(release) -> dict:
    """``release.manifest`` plus the fields the new save_release adds, through JSON."""
    m = dict(release.manifest)
    published = ["generalized.csv"] if release.scheme == "generalization" else ["qit.csv", "st.csv"]
    files = {"publisher/records.parquet": _entry(1234), "publisher/export-key": _entry(32)}
    schema = []
    for a in m["schema"]:
        a = dict(a)
        a["hierarchy_file"] = None
        if a["hierarchy_height"] is not None:
            a["hierarchy_file"] = f"publisher/hierarchies/{a['name']}.csv"
            files[a["hierarchy_file"]] = _entry()
        schema.append(a)
    for name in published:
        files[f"published/{name}"] = _entry()
    m.update(
        format=FORMAT,
        format_version=FORMAT_VERSION,
        schema=schema,
        published_files=published,
        files=files,
        seal=HEX,
    )
    return json.loads(json.dumps(m, default=_json_default))


REAL = [
    ("anatomy", {"l": 4}),
    ("mondrian", {"l": 4}),
    ("mondrian", {"k": 5, "scheme": "bucketization"}),
    ("generalize", {"levels": {"age": 2, "sex": 1, "race": 1}}),
    ("lattice", {"model": "k-anonymity", "k": 5}),
    ("lattice", {"model": "distinct-l-diversity", "l": 3, "suppression": 0.05}),
    ("mask", {"k": 5, "m": 2, "sensitive_values": ["Exec-managerial", "Prof-specialty"]}),
    ("mask++", {"k": 5, "m": 2}),
    ("injector", {"l": 3}),
    ("injector", {"l": 3, "suppress": True}),
    ("hilb", {"l": 4}),
    ("hilb+", {"l": 4}),
    ("mondrian++", {"l": 4, "scheme": "bucketization"}),
]


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [pytest.param(a, p, id=f"{a}-{i}") for i, (a, p) in enumerate(REAL)],
)
def test_real_release_manifests_are_valid(adult_small, algorithm, params):
    release = anonymize(adult_small, algorithm, **params)
    m = full_manifest(release)
    assert validate_manifest(m, SRC) is m
    assert m["algorithm"] == algorithm
    # and the same manifest with a wrong scheme is refused: validation is not vacuous
    m["scheme"] = "anonymization"
    with pytest.raises(AnonlabError, match="scheme: 'anonymization'"):
        validate_manifest(m, SRC)


def test_real_release_with_levels_checks_them(adult_small):
    release = anonymize(adult_small, "generalize", levels={"age": 2, "sex": 1, "race": 1})
    m = full_manifest(release)
    validate_manifest(m, SRC)
    m["levels"]["occupation"] = 1
    with pytest.raises(AnonlabError, match="levels.occupation"):
        validate_manifest(m, SRC)


def test_real_suppressed_release_counts_add_up(adult_small):
    release = anonymize(adult_small, "lattice", model="distinct-l-diversity", l=3, suppression=0.05)
    m = full_manifest(release)
    assert m["suppressed_records"] > 0 and sum(m["reference_counts"]) == m["input_rows"]
    validate_manifest(m, SRC)
    m["suppressed_records"] += 1
    with pytest.raises(AnonlabError, match="suppressed_records"):
        validate_manifest(m, SRC)


def test_resampled_release_manifest_is_valid(adult_small):
    from anonlab.cli.common import resample_manifest

    release = anonymize(adult_small.resample(500, 1), "mondrian", l=3)
    release.manifest["resample"] = resample_manifest(500, 1, "adult", None)
    validate_manifest(full_manifest(release), SRC)
