"""Up-front memory check (issue 10 §3): the estimate, reading the available memory, the refusal
and its override, and the ``anonymize`` command refusing before any work."""

from __future__ import annotations

import pytest

from anonlab import resources
from anonlab.anonymize.registry import ANONYMIZERS
from anonlab.errors import AnonlabError
from anonlab.resources import (
    SAFETY,
    available_memory,
    check_memory,
    estimate_added_bytes,
    table_bytes,
)


def test_estimate_is_the_documented_linear_model():
    # mondrian: fixed 12 bytes per record + one int32 copy of 8 attributes, times the safety
    n, a = 1_000_000, 8
    assert ANONYMIZERS["mondrian"].bytes_per_row == 12
    per_row = ANONYMIZERS["mondrian"].bytes_per_row + 4 * a
    assert estimate_added_bytes(n, a, "mondrian") == int(n * per_row * SAFETY)
    assert estimate_added_bytes(2 * n, a, "mondrian") == 2 * estimate_added_bytes(n, a, "mondrian")
    # variants use their base algorithm's constant; unknown ones the largest (conservative)
    assert estimate_added_bytes(n, a, "mondrian++") == estimate_added_bytes(n, a, "mondrian")
    largest = max(r.bytes_per_row or 0 for r in ANONYMIZERS.values())
    assert estimate_added_bytes(n, a, "lattice") == int(n * (largest + 4 * a) * SAFETY)
    fg = resources.ATTACK_BYTES_PER_ROW["foreground"]
    assert estimate_added_bytes(n, a, "foreground") == int(n * (fg + 4 * a) * SAFETY)
    assert table_bytes(10_000_000, 8) == 10_000_000 * 40  # 8 int32 codes + an int64 row id
    with pytest.raises(AnonlabError, match="n_attributes"):
        estimate_added_bytes(10, 0, "anatomy")
    with pytest.raises(AnonlabError, match="n_rows"):
        estimate_added_bytes(-1, 3, "anatomy")


def test_refuses_with_a_clear_message_and_the_override_runs():
    need = estimate_added_bytes(10_000_000, 8, "anatomy")
    with pytest.raises(AnonlabError) as err:
        check_memory(10_000_000, 8, "anatomy", available=need - 1)
    msg = str(err.value)
    for part in ("10,000,000 records", "8 attributes", "--workers", "--cluster", "--resample"):
        assert part in msg
    assert "--no-memory-check" in msg and f"{(need - 1) / 2**30:.2f} GB" in msg
    est = check_memory(10_000_000, 8, "anatomy", available=need - 1, override=True)
    assert not est.fits and est.added_bytes == need
    est = check_memory(10_000_000, 8, "anatomy", available=need)
    assert est.fits and est.source == "given"
    assert est.to_json()["rows"] == 10_000_000


def test_available_memory_reads_meminfo_and_falls_back(tmp_path, monkeypatch):
    info = tmp_path / "meminfo"
    info.write_text("MemTotal:       24000000 kB\nMemFree: 100 kB\nMemAvailable:    2048 kB\n")
    assert available_memory(str(info)) == (2048 * 1024, "MemAvailable in /proc/meminfo")
    monkeypatch.setattr(resources.os, "sysconf", lambda name: 10 if "PAGES" in name else 4096)
    value, source = available_memory(str(tmp_path / "missing"))
    assert value == 40960 and "SC_AVPHYS_PAGES" in source

    def broken(name):
        raise ValueError(name)

    monkeypatch.setattr(resources.os, "sysconf", broken)
    assert available_memory(str(tmp_path / "missing"))[0] is None
    # unknown memory: the check passes and says so
    monkeypatch.setattr(resources, "available_memory", lambda: (None, "unknown"))
    est = check_memory(10**9, 8, "mondrian")
    assert est.fits and est.available_bytes is None and est.source == "unknown"


def test_anonymize_command_refuses_before_writing(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(resources, "available_memory", lambda: (1000, "MemAvailable (test)"))
    out = tmp_path / "rel"
    args = ["anonymize", "--dataset", "adult", "--algorithm", "anatomy", "--l", "2"]
    code, stdout, stderr = cli([*args, "--out", str(out)])
    assert code == 2
    text = stdout + stderr
    assert "not enough memory for anatomy on 45,222 records" in text
    assert "Traceback" not in text
    assert not out.exists()
    code, stdout, stderr = cli([*args, "--out", str(out), "--no-memory-check"])
    assert code == 0, stdout + stderr
    assert (out / "manifest.json").exists() or any(out.iterdir())
    from anonlab.release_io import load_release

    release = load_release(out)  # a whole release was written once the check was overridden
    assert release.table.n_rows == 45_222 and release.manifest["parameters"]["l"] == 2


@pytest.mark.parametrize("algorithm", ["anatomy", "mondrian"])
def test_count_profiles_blockwise_equals_the_whole_histogram(algorithm, monkeypatch):
    """The worst-case budget's profile count, made a block of groups at a time from the compact
    histogram, is the count of distinct sorted rows of the whole int64 histogram; the other
    budgets do not count them (the number of groups bounds them)."""
    import numpy as np

    from anonlab import Table
    from anonlab.anonymize import anonymize
    from anonlab.grouping import row_blocks

    table = Table.from_dataset("census-kdd-workers").take(np.arange(20_000))
    release = anonymize(table, algorithm, l=3, seed=1)
    hist = np.asarray(release.sensitive_histogram, dtype=np.int64)
    expected = len(np.unique(-np.sort(-hist, axis=1), axis=0))
    small = lambda n, width, cells=1 << 20: row_blocks(n, width, cells=64)  # noqa: E731
    monkeypatch.setattr("anonlab.grouping.row_blocks", small)  # many blocks, also at this size
    fresh = anonymize(table, algorithm, l=3, seed=1)
    assert resources.Shape.of(fresh, profiles=True).profiles == expected
    assert 1 < expected < release.n_groups or algorithm == "mondrian"
    assert resources.Shape.of(fresh).profiles == release.n_groups
