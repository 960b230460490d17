"""What the app's forms mean (:mod:`anonlab.app.forms`): schema edits, builder parameters,
hierarchy choices and the ``anonlab`` command lines the anonymize, audit and compare forms run.

Pure functions: no server, no disk. The rules checked here are the ones that keep a form value
from becoming anything but one argument of the CLI (never an option of its own, never a path).
"""

from __future__ import annotations

import copy

import pytest

from anonlab.app import forms
from anonlab.app.forms import (
    ALGORITHMS,
    COMPARE_ALGORITHMS,
    LATTICE_MODELS,
    FormError,
    anonymize_argv,
    audit_argv,
    compare_argv,
    edit_schema,
    parse_builder_params,
    with_hierarchy,
)
from anonlab.errors import AnonlabError
from anonlab.schema_file import validate_schema_file


def _schema() -> dict:
    """A drafted discharge schema (as ``anonlab init`` writes it, trimmed)."""
    return {
        "format": "anonlab-schema",
        "format_version": 1,
        "columns": [
            {"name": "patient_id", "role": "identifier", "type": "text", "hierarchy": None},
            {
                "name": "zip",
                "role": "quasi-identifier",
                "type": "text",
                "hierarchy": {"builder": "prefix"},
            },
            {
                "name": "birth_date",
                "role": "quasi-identifier",
                "type": "date",
                "hierarchy": {"builder": "date", "levels": ["month", "year"]},
            },
            {"name": "sex", "role": "quasi-identifier", "type": "text", "value_sets": True},
            {
                "name": "icd10",
                "role": "quasi-identifier",
                "type": "text",
                "hierarchy": {"builder": "suppress"},
            },
            {
                "name": "insurer",
                "role": "sensitive",
                "type": "text",
                "hierarchy": "hierarchies/h5.csv",
            },
            {
                "name": "stay",
                "role": "quasi-identifier",
                "type": "integer",
                "hierarchy": {"builder": "interval", "width": 5},
            },
        ],
    }


def _col(schema: dict, name: str) -> dict:
    return next(c for c in schema["columns"] if c["name"] == name)


# ---------------------------------------------------------------------------- edit_schema


def test_edit_schema_applies_roles_and_types_and_leaves_the_input_alone():
    schema = _schema()
    before = copy.deepcopy(schema)
    new = edit_schema(
        schema,
        {
            "role-0": "identifier",
            "role-4": "sensitive",
            "type-6": "decimal",
            "role-6": "insensitive",
        },
    )
    assert schema == before  # a copy is edited
    assert _col(new, "icd10")["role"] == "sensitive"
    assert _col(new, "stay") == {"name": "stay", "role": "insensitive", "type": "decimal"}
    # a column the form does not mention keeps its role, type and hierarchy
    assert _col(new, "zip") == _col(before, "zip")
    validate_schema_file(new, "schema.json")


def test_edit_schema_empty_type_means_inferred():
    new = edit_schema(_schema(), {"type-1": ""})
    assert "type" not in _col(new, "zip")
    assert _col(new, "birth_date")["type"] == "date"  # not in the form: kept


@pytest.mark.parametrize("role", ["secret", "", "Quasi-Identifier", "sensitive ", "drop;x"])
def test_edit_schema_refuses_a_role_not_in_the_list_naming_the_column(role):
    with pytest.raises(FormError) as info:
        edit_schema(_schema(), {"role-2": role})
    message = str(info.value)
    assert "'birth_date'" in message and repr(role) in message
    for valid in forms.ROLES:
        assert valid in message


@pytest.mark.parametrize("kind", ["blob", "Date", "int", "text --force"])
def test_edit_schema_refuses_a_type_not_in_the_list_naming_the_column(kind):
    with pytest.raises(FormError) as info:
        edit_schema(_schema(), {"type-6": kind})
    assert "'stay'" in str(info.value) and repr(kind) in str(info.value)


@pytest.mark.parametrize("role", ["insensitive", "identifier", "drop"])
def test_a_column_that_stops_being_a_quasi_identifier_loses_its_hierarchy(role):
    new = edit_schema(_schema(), {"role-1": role, "role-3": role})
    assert "hierarchy" not in _col(new, "zip")
    assert "hierarchy" not in _col(new, "sex") and "value_sets" not in _col(new, "sex")
    validate_schema_file(new, "schema.json")


def test_a_quasi_identifier_turned_sensitive_loses_its_builder():
    new = edit_schema(_schema(), {"role-4": "sensitive", "role-3": "sensitive"})
    assert _col(new, "icd10")["role"] == "sensitive"
    assert _col(new, "icd10")["hierarchy"] is None  # the placeholder builder does not carry over
    assert "value_sets" not in _col(new, "sex")
    validate_schema_file(new, "schema.json")


def test_a_sensitive_column_that_stays_sensitive_keeps_its_hierarchy():
    new = edit_schema(_schema(), {"role-5": "sensitive"})
    assert _col(new, "insurer")["hierarchy"] == "hierarchies/h5.csv"


def test_a_sensitive_column_turned_insensitive_loses_its_hierarchy():
    new = edit_schema(_schema(), {"role-5": "insensitive"})
    assert "hierarchy" not in _col(new, "insurer")
    validate_schema_file(new, "schema.json")


def test_a_column_that_becomes_a_quasi_identifier_keeps_no_hierarchy():
    """One that becomes a quasi-identifier keeps none until one is chosen (edit_schema)."""
    schema = edit_schema(_schema(), {"role-1": "insensitive"})
    new = edit_schema(schema, {"role-1": "quasi-identifier", "role-0": "quasi-identifier"})
    assert _col(new, "zip").get("hierarchy") is None  # the old builder is not restored
    assert _col(new, "patient_id").get("hierarchy") is None
    validate_schema_file(new, "schema.json")


def test_edit_schema_result_is_checked_by_the_schema_validation():
    """Roles that are each valid but invalid together are the caller's check (the page)."""
    schema = _schema()
    schema["sensitive_values"] = ["public"]
    new = edit_schema(schema, {"role-4": "sensitive"})  # two sensitive columns
    with pytest.raises(AnonlabError, match="sensitive_values"):
        validate_schema_file(new, "schema.json")


# ---------------------------------------------------------------------------- builder parameters


def test_parse_builder_params_lines_and_semicolons():
    assert parse_builder_params("") == {}
    assert parse_builder_params("  \n ; \n") == {}
    assert parse_builder_params("width=5\nfanout=2") == {"width": 5, "fanout": 2}
    assert parse_builder_params("levels=month,year; age_at = 2020-01-01") == {
        "levels": ["month", "year"],
        "age_at": "2020-01-01",
    }
    assert parse_builder_params("keep=[3, 1]\r\nmask_char=#") == {"keep": [3, 1], "mask_char": "#"}


@pytest.mark.parametrize(
    "text",
    [
        "file=/etc/passwd",
        "file=../../schema.json",
        " file = x.csv ",
        "width=5\nfile=h.csv",
        "levels=a;file=C:\\x\\y.csv",
    ],
)
def test_parse_builder_params_refuses_a_server_path(text):
    with pytest.raises(FormError, match="'file' names a path"):
        parse_builder_params(text)


@pytest.mark.parametrize("text", ["width", "=5", "width=5\nwidth=6", "builder=mapping"])
def test_parse_builder_params_refuses_malformed_or_builder_overrides(text):
    with pytest.raises(AnonlabError):
        parse_builder_params(text)


# ---------------------------------------------------------------------------- with_hierarchy


def test_with_hierarchy_sets_a_builder_a_file_or_none():
    schema = _schema()
    new = with_hierarchy(schema, 1, {"builder": "prefix", "keep": [3, 1]})
    assert _col(new, "zip")["hierarchy"] == {"builder": "prefix", "keep": [3, 1]}
    assert _col(schema, "zip")["hierarchy"] == {"builder": "prefix"}  # input untouched
    new = with_hierarchy(schema, 3, "hierarchies/h3.csv")
    assert _col(new, "sex")["hierarchy"] == "hierarchies/h3.csv"
    assert "value_sets" not in _col(new, "sex")  # a hierarchy replaces value sets
    validate_schema_file(new, "schema.json")
    new = with_hierarchy(schema, 2, None)
    assert _col(new, "birth_date")["hierarchy"] is None
    new = with_hierarchy(schema, 5, {"builder": "suppress"})  # the sensitive attribute
    assert _col(new, "insurer")["hierarchy"] == {"builder": "suppress"}


@pytest.mark.parametrize("index", [0])
def test_with_hierarchy_refuses_a_column_that_is_not_qi_or_sensitive(index):
    schema = edit_schema(_schema(), {"role-6": "insensitive", "role-1": "drop"})
    for i in (index, 1, 6):
        with pytest.raises(FormError, match="only a quasi-identifier or a sensitive"):
            with_hierarchy(schema, i, {"builder": "suppress"})
        with pytest.raises(FormError):
            with_hierarchy(schema, i, "hierarchies/h.csv")


@pytest.mark.parametrize("index", [-1, 7, 10_000])
def test_with_hierarchy_refuses_a_column_out_of_range(index):
    with pytest.raises(FormError, match="no column"):
        with_hierarchy(_schema(), index, None)


# ---------------------------------------------------------------------------- anonymize_argv


FLAGS = ("--json", "--force", "--redact")


def _pairs(argv: list[str]) -> dict[str, str]:
    """Option -> value of an argv whose options each take one value (the flags: "")."""
    out: dict[str, str] = {}
    i = 0
    while i < len(argv):
        if argv[i] in FLAGS:
            out[argv[i]] = ""
            i += 1
            continue
        if argv[i].startswith("--"):
            out[argv[i]] = argv[i + 1]
            i += 2
        else:
            i += 1
    return out


def test_anonymize_argv_maps_every_option():
    form = {
        "algorithm": "lattice",
        "k": "5",
        "l": "3",
        "m": "2",
        "t": "0.2",
        "c": "1.5",
        "suppression": "0.02",
        "seed": "7",
        "metric": "precision",
        "scheme": "generalization",
        **{f"model-{m}": "1" for m in LATTICE_MODELS},
    }
    argv, request = anonymize_argv(form, "data.csv", "releases/r3")
    assert argv[0] == "anonymize"
    pairs = _pairs(argv)
    assert pairs == {
        "--data": "data.csv",
        "--schema": "schema.json",
        "--out": "releases/r3",
        "--algorithm": "lattice",
        "--json": "",
        "--k": "5",
        "--l": "3",
        "--m": "2",
        "--t": "0.2",
        "--c": "1.5",
        "--suppression": "0.02",
        "--seed": "7",
        "--model": ",".join(LATTICE_MODELS),
        "--metric": "precision",
        "--scheme": "generalization",
    }
    assert request == {
        "algorithm": "lattice",
        "k": "5",
        "l": "3",
        "m": "2",
        "t": "0.2",
        "c": "1.5",
        "suppression": "0.02",
        "seed": "7",
        "model": ",".join(LATTICE_MODELS),
        "metric": "precision",
        "scheme": "generalization",
    }
    # every option the form knows is one of the numbers, the models, metric or scheme
    assert set(forms.NUMBERS) == {"k", "l", "m", "t", "c", "suppression", "seed"}


def test_anonymize_argv_leaves_out_empty_fields():
    argv, request = anonymize_argv(
        {"algorithm": "mondrian", "k": " ", "l": "", "seed": None, "metric": "", "scheme": ""},
        "data.csv",
        "releases/r1",
    )
    assert argv == [
        "anonymize",
        "--data",
        "data.csv",
        "--schema",
        "schema.json",
        "--out",
        "releases/r1",
        "--algorithm",
        "mondrian",
        "--json",
    ]
    assert request == {"algorithm": "mondrian"}


def test_anonymize_argv_numbers_are_normalised_single_items():
    argv, _ = anonymize_argv({"algorithm": "mondrian", "k": " 5 ", "t": "1e-1"}, "d.csv", "r")
    assert _pairs(argv)["--k"] == "5" and _pairs(argv)["--t"] == "0.1"


@pytest.mark.parametrize(
    "field, value, what",
    [
        ("k", "5 --force", "a whole number"),
        ("k", "five", "a whole number"),
        ("k", "5.5", "a whole number"),
        ("l", "2;rm -rf /", "a whole number"),
        ("m", "--force", "a whole number"),
        ("seed", "0x10", "a whole number"),
        ("t", "0.2 --k 1", "a number"),
        ("c", "abc", "a number"),
        ("suppression", "2%", "a number"),
    ],
)
def test_anonymize_argv_bad_numbers_name_the_field(field, value, what):
    with pytest.raises(FormError) as info:
        anonymize_argv({"algorithm": "mondrian", field: value}, "data.csv", "releases/r1")
    assert str(info.value) == f"{field}: {value.strip()!r} is not {what}"


@pytest.mark.parametrize("algorithm", ["", "MONDRIAN", "mondrian --force", "rm", "mondrian+++"])
def test_anonymize_argv_refuses_an_unknown_algorithm(algorithm):
    with pytest.raises(FormError, match="algorithm: choose one of"):
        anonymize_argv({"algorithm": algorithm, "k": "5"}, "data.csv", "releases/r1")


def test_every_offered_algorithm_is_accepted():
    for algorithm in ALGORITHMS:
        argv, request = anonymize_argv({"algorithm": algorithm}, "data.csv", "releases/r1")
        assert _pairs(argv)["--algorithm"] == algorithm == request["algorithm"]


@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if a not in ("lattice", "lightning")])
def test_models_only_with_lattice_or_lightning(algorithm):
    with pytest.raises(FormError, match="models"):
        anonymize_argv({"algorithm": algorithm, "model-k-anonymity": "1"}, "d.csv", "r")


@pytest.mark.parametrize("algorithm", ["lattice", "lightning"])
def test_models_in_the_registry_order(algorithm):
    argv, _ = anonymize_argv(
        {
            "algorithm": algorithm,
            "model-t-closeness": "1",
            "model-k-anonymity": "on",
            "model-nonsense": "1",
        },
        "d.csv",
        "r",
    )
    assert _pairs(argv)["--model"] == "k-anonymity,t-closeness"


@pytest.mark.parametrize(
    "field, value",
    [
        ("metric", "loss"),
        ("metric", "precision --force"),
        ("scheme", "anatomy"),
        ("scheme", "generalization;x"),
    ],
)
def test_metric_and_scheme_from_their_lists(field, value):
    with pytest.raises(FormError, match=f"{field}: choose one of"):
        anonymize_argv({"algorithm": "lattice", field: value}, "d.csv", "r")


# ---------------------------------------------------------------------------- audit_argv


def test_audit_argv_writes_both_reports_from_one_run():
    argv = audit_argv({"max_risk": "0.2", "max_share_at_risk": " 0.05 "}, "releases/r1")
    assert argv[:3] == ["audit", "releases/r1", "--force"]
    assert _pairs(argv) == {
        "--force": "",
        "--report": "releases/r1/audit.html",
        "--summary": "releases/r1/audit.json",
        "--at-risk": "releases/r1/at-risk.csv",
        "--redacted-report": "releases/r1/audit-redacted.html",
        "--redacted-summary": "releases/r1/audit-redacted.json",
        "--max-risk": "0.2",
        "--max-share-at-risk": "0.05",
    }
    bare = audit_argv({"max_risk": "", "max_share_at_risk": None}, "releases/r2")
    assert "--max-risk" not in bare and "--max-share-at-risk" not in bare


@pytest.mark.parametrize("field", ["max_risk", "max_share_at_risk"])
@pytest.mark.parametrize("value", ["0.2 --redact", "high", "0,2"])
def test_audit_argv_bad_thresholds_name_the_field(field, value):
    with pytest.raises(FormError, match=f"^{field}: "):
        audit_argv({field: value}, "releases/r1")


# ---------------------------------------------------------------------------- compare_argv


@pytest.mark.parametrize("ls", ["2..5", "2,4,6", "3", " 2..4 ", "10"])
def test_compare_argv_l_patterns(ls):
    argv = compare_argv({"algorithm-mondrian": "1", "l": ls}, "data.csv")
    pairs = _pairs(argv)
    assert argv[0] == "compare" and pairs["--l"] == ls.strip()
    assert pairs["--data"] == "data.csv" and pairs["--out"] == "compare"
    assert pairs["--algorithms"] == "mondrian"


@pytest.mark.parametrize(
    "ls", ["", "2-5", "2..", "..5", "a", "2;rm", "2..5 --force", "2\n3", "2, 3", "-2", "2.5"]
)
def test_compare_argv_refuses_other_l(ls):
    with pytest.raises(FormError, match="ℓ: give a range"):
        compare_argv({"algorithm-mondrian": "1", "l": ls}, "data.csv")


def test_compare_argv_needs_an_algorithm():
    with pytest.raises(FormError, match="tick at least one"):
        compare_argv({"l": "2..4"}, "data.csv")
    with pytest.raises(FormError, match="tick at least one"):  # not an algorithm compare runs
        compare_argv({"l": "2..4", "algorithm-generalize": "1", "algorithm-x": "1"}, "data.csv")


def test_compare_argv_algorithms_in_order_and_thresholds():
    form = {f"algorithm-{a}": "1" for a in reversed(COMPARE_ALGORITHMS)}
    argv = compare_argv(
        {**form, "l": "2..3", "max_risk": "0.1", "max_share_at_risk": ""}, "data.parquet"
    )
    pairs = _pairs(argv)
    assert pairs["--algorithms"] == ",".join(COMPARE_ALGORITHMS)
    assert pairs["--max-risk"] == "0.1" and "--max-share-at-risk" not in pairs
    with pytest.raises(FormError, match="^max_share_at_risk: "):
        compare_argv({**form, "l": "2", "max_share_at_risk": "5%"}, "data.csv")
