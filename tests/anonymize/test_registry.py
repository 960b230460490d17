"""The anonymizer registry (issue 18, item 1): every record's facts checked against what the
anonymizer does, everything that lists anonymizers reads the records, and a toy anonymizer
registered in this file alone reaches ``available()``, ``anonymize``, ``anonlab anonymize`` and
``compare``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from anonlab import resources
from anonlab.anonymize import (
    ALGORITHMS,
    ANONYMIZERS,
    FULL_DOMAIN,
    Anonymizer,
    anonymize,
    available,
    parameters,
    publication_scheme,
    registered,
    registry,
)
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table

QI = ["age", "sex", "race", "marital-status"]
SENSITIVE = "occupation"
#: Parameters that make a release of the small table below, per anonymizer.
PARAMS = {
    "anatomy": dict(l=3),
    "mondrian": dict(l=3),
    "hilb": dict(l=3),
    "mask": dict(k=4, m=2, sensitive_values=["Prof-specialty", "Exec-managerial"]),
    "generalize": dict(levels={"age": 2, "sex": 0, "race": 1, "marital-status": 1}),
    "lattice": dict(model="k-anonymity", k=2),
    "lightning": dict(model="k-anonymity", k=2, max_checks=50),
    "injector": dict(l=2, suppress=True),
    "mondrian+": dict(l=2),
    "mondrian++": dict(l=3),
    "hilb+": dict(l=3),
    "hilb++": dict(l=3),
    "mask+": dict(k=4, m=2),
    "mask++": dict(k=4, m=2),
}


@pytest.fixture(scope="module")
def small() -> Table:
    table = Table.from_dataset("adult", quasi_identifiers=QI, sensitive=SENSITIVE)
    return table.take(np.arange(400))


@pytest.fixture(scope="module")
def releases(small) -> dict[str, Release]:
    return {name: anonymize(small, name, seed=3, **PARAMS[name]) for name in ANONYMIZERS}


def test_every_registered_anonymizer_is_covered_here():
    assert set(PARAMS) == set(ANONYMIZERS)


# ------------------------------------------------------------------ each record's facts
@pytest.mark.parametrize("name", list(PARAMS))
def test_record_facts_hold(name, releases):
    record = ANONYMIZERS[name]
    release = releases[name]
    assert release.manifest["algorithm"] == name
    assert ALGORITHMS[name] is record.function
    # the default scheme is the one the release uses; a scheme= parameter offers both
    assert release.scheme == record.scheme
    assert record.schemes == (tuple(SCHEMES) if "scheme" in record.parameters else (record.scheme,))
    # parameters come from the signature, the privacy parameters are among them
    assert tuple(parameters(name)) == record.parameters
    assert set(record.privacy_parameters) <= set(record.parameters)
    assert set(PARAMS[name]) <= set(record.parameters)
    # full domain: one hierarchy level per quasi-identifier, and no scheme to check up front
    assert (release.levels is not None) == record.full_domain
    assert (name in FULL_DOMAIN) == record.full_domain
    assert publication_scheme(name) == (None if record.full_domain else record.scheme)
    assert record.paper and record.description


@pytest.mark.parametrize("name", [a.name for a in ANONYMIZERS.values() if a.l_eligible])
def test_l_eligible_anonymizers_refuse_an_ineligible_table(name):
    # value "a" in 5 of 8 records: more than n/ℓ for ℓ = 2, so no 2-diverse partition exists
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8], "y": list("pqpqpqpq"),
                          "s": list("aaaaabcd")})  # fmt: skip
    table = Table.from_frame(frame, quasi_identifiers=["x", "y"], sensitive="s")
    with pytest.raises(IneligibleError, match="largest ℓ this table allows is 1"):
        anonymize(table, name, l=2)
    # ... and an eligible one is accepted (the property is the whole condition)
    eligible = Table.from_frame(
        frame.assign(s=list("aaaabcdb")), quasi_identifiers=["x", "y"], sensitive="s"
    )
    assert anonymize(eligible, name, l=2).n_groups >= 1


def test_memory_constants_come_from_the_records():
    n, a = 1000, 5
    largest = max(r.bytes_per_row for r in ANONYMIZERS.values() if r.bytes_per_row is not None)
    for record in ANONYMIZERS.values():
        follows = record.memory_as or record.name
        constant = ANONYMIZERS[follows].bytes_per_row
        expected = largest if constant is None else constant
        assert resources.fixed_bytes_per_row(record.name) == expected
        assert resources.estimate_added_bytes(n, a, record.name) == int(
            n * (expected + 4 * a) * resources.SAFETY
        )
    # the fitted constants of issue 10 (docs/benchmarks.md "Scale"), and who follows whom
    assert {r.name: r.bytes_per_row for r in ANONYMIZERS.values() if r.bytes_per_row} == {
        "anatomy": 72,
        "mondrian": 12,
        "hilb": 60,
    }
    assert resources.fixed_bytes_per_row("injector") == 72
    assert resources.fixed_bytes_per_row("hilb++") == 60
    assert resources.fixed_bytes_per_row("no-such-anonymizer") == largest


def test_dask_backend_reads_the_records():
    from anonlab.distributed.anonymize import PARTITIONING
    from anonlab.distributed.anonymize import available as distributed

    assert distributed() == sorted(registry.distributed())
    assert dict(PARTITIONING) == {
        "anatomy": "random-runs",
        "mondrian": "mondrian-cuts",
        "hilb": "hilbert-runs",
        "mondrian+": "mondrian-cuts",
        "mondrian++": "mondrian-cuts",
        "hilb+": "hilbert-runs",
        "hilb++": "hilbert-runs",
    }


def test_compare_parameters_come_from_the_records():
    from anonlab.report.compare import comparable_algorithms, release_parameters

    assert comparable_algorithms() == sorted(
        ["anatomy", "mondrian", "hilb", "mask", "lattice", "lightning", "injector", "mondrian+",
         "mondrian++", "hilb+", "hilb++", "mask+", "mask++"]
    )  # fmt: skip
    assert release_parameters("mask", 4) == {"k": 4, "m": 4}
    assert release_parameters("mask++", 4, mask_k=6) == {"k": 6, "m": 4}
    assert release_parameters("lattice", 3) == {"l": 3, "model": "l-diversity"}
    assert release_parameters("injector", 3) == {"l": 3, "suppress": True}
    assert release_parameters("hilb", 3, sensitive_values=["x"]) == {
        "l": 3,
        "sensitive_values": ["x"],
    }
    with pytest.raises(AnonlabError, match="takes no ℓ"):
        release_parameters("generalize", 3)


def test_cli_help_lists_every_anonymizer():
    from anonlab.cli import app

    result = CliRunner().invoke(app, ["anonymize", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert registry.listing() in text
    for name in registry.distributed():
        assert name in text.split("--cluster", 1)[1]


# ------------------------------------------------------------------ registering
def _toy(table: Table, l: int, *, seed: int = 0) -> Release:
    """Everything in one bucket: ℓ-diverse iff the table is ℓ-eligible (no paper; a test
    double)."""
    if l < 1:
        raise AnonlabError(f"parameter 'l' must be >= 1, got {l}")
    group = np.zeros(table.n_rows, dtype=np.int64)
    manifest = {"algorithm": "toy", "parameters": {"l": l}, "seed": seed}
    return Release(table, group, "bucketization", manifest)


TOY = Anonymizer("toy", _toy, "none (a test double)", "one bucket of every record",
                 "bucketization")  # fmt: skip


def test_a_registered_toy_reaches_anonymize_cli_and_compare(small, tmp_path):
    from anonlab.cli import app
    from anonlab.report.compare import check_algorithms, comparable_algorithms, compare

    assert "toy" not in available()
    with registered(TOY):
        assert "toy" in available() and ALGORITHMS["toy"] is _toy
        assert parameters("toy") == ["l", "seed"]
        assert publication_scheme("toy") == "bucketization"
        # the API
        release = anonymize(small, "toy", l=2, seed=5)
        assert release.n_groups == 1 and release.manifest["seed"] == 5
        with pytest.raises(AnonlabError, match="does not take parameter"):
            anonymize(small, "toy", l=2, k=3)
        # the command line
        csv = tmp_path / "small.csv"
        small.to_frame().to_csv(csv, index=False)
        out = tmp_path / "rel"
        result = CliRunner().invoke(
            app,
            ["anonymize", "--algorithm", "toy", "--data", str(csv), "--qi", ",".join(QI),
             "--sensitive", SENSITIVE, "--l", "2", "--out", str(out), "--json"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        summary = json.loads(result.output)
        assert summary["algorithm"] == "toy" and summary["groups"] == 1
        assert (out / "published" / "qit.csv").exists()
        # compare: a candidate, swept over ℓ, audited
        assert "toy" in comparable_algorithms() and check_algorithms(["toy"]) == ["toy"]
        comparison = compare(
            small, ["toy"], [2], targets=10, chains=1, sweeps=5, k_max=1, queries=50
        )
        (row,) = comparison.rows
        assert row.status == "ok" and row.parameters == {"l": 2} and row.groups == 1
    # gone again everywhere
    assert "toy" not in available() and "toy" not in ALGORITHMS
    with pytest.raises(AnonlabError, match="unknown algorithm 'toy'"):
        anonymize(small, "toy", l=2)
    result = CliRunner().invoke(
        app,
        ["anonymize", "--algorithm", "toy", "--data", str(csv), "--qi", ",".join(QI),
         "--sensitive", SENSITIVE, "--l", "2", "--out", str(tmp_path / "again")],
    )  # fmt: skip
    assert result.exit_code != 0 and "unknown algorithm 'toy'" in str(result.exception)


def test_register_refuses_inconsistent_records():
    with pytest.raises(AnonlabError, match="already registered"):
        registry.register(Anonymizer("anatomy", _toy, "p", "d", "bucketization"))
    assert registry.register(ANONYMIZERS["anatomy"]) is ANONYMIZERS["anatomy"]  # same record
    with pytest.raises(AnonlabError, match="register takes an Anonymizer"):
        registry.register("toy")  # type: ignore[arg-type]
    with pytest.raises(AnonlabError, match="scheme must be one of"):
        Anonymizer("toy", _toy, "p", "d", "suppression")
    with pytest.raises(AnonlabError, match="function's scheme= defaults to 'generalization'"):
        Anonymizer("toy", ALGORITHMS["mondrian"], "p", "d", "bucketization")
    with pytest.raises(AnonlabError, match="ell_as 'm' is not one of its parameters"):
        Anonymizer("toy", _toy, "p", "d", "bucketization", ell_as="m")
    with pytest.raises(AnonlabError, match="partitioning must be one of"):
        Anonymizer("toy", _toy, "p", "d", "bucketization", partitioning="spark")
    assert Anonymizer("toy", _toy, "p", "d", "bucketization").ell_as == "l"
    assert "toy" not in ANONYMIZERS


def _docs_row(record: Anonymizer) -> str:
    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    if record.bytes_per_row is not None:
        memory = str(record.bytes_per_row)
    else:
        memory = f"as `{record.memory_as}`" if record.memory_as else "unmeasured"
    cells = [
        f"`{record.name}`",
        record.scheme,
        yes(len(record.schemes) == 2),
        ", ".join(record.privacy_parameters) or "—",
        yes(record.l_eligible),
        record.partitioning or "—",
        record.ell_as or "—",
        memory,
    ]
    return "| " + " | ".join(cells) + " |"


def test_docs_table_states_the_records():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "anonymizers.md").read_text("utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows == [_docs_row(r) for r in ANONYMIZERS.values()]
