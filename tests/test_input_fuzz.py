"""Fuzz: a corrupted input file never crashes ``anonlab anonymize`` (issue 16, item 3).

A small valid CSV is corrupted by hypothesis (bytes flipped, inserted or deleted, lines
duplicated, cut or given extra fields, the header edited, hostile cells such as formulas,
console markup and NUL bytes spliced in) and anonymized through the real entry point. The
command must either succeed, writing a release that loads, or fail with exit code 2 and one
``error:`` line, no traceback, and nothing written.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab.release_io import load_release

HEADER = "age,zip,sex,disease"
ROWS = [
    f"{20 + i % 37},{['13053', '13068', '14850', '14853'][i % 4]},{'FM'[i % 2]},"
    f"{['flu', 'cold', 'hiv', 'acne', 'ulcer'][i % 5]}"
    for i in range(60)
]
HOSTILE = ["=cmd|' /C calc'!A0", "[/]", "[bold]x", "\x00", '"', "a,b", "\r", "é", "\ufeff", ""]


def _corrupt(text: str, seed: int, kinds: list[str]) -> bytes:
    rng = random.Random(seed)
    lines = text.split("\n")
    for kind in kinds:
        i = rng.randrange(len(lines))
        if kind == "extra-field":
            lines[i] += "," + rng.choice(HOSTILE)
        elif kind == "missing-field":
            lines[i] = lines[i].rsplit(",", 1)[0]
        elif kind == "hostile-cell":
            cells = lines[i].split(",")
            cells[rng.randrange(len(cells))] = rng.choice(HOSTILE)
            lines[i] = ",".join(cells)
        elif kind == "duplicate-line":
            lines.insert(i, lines[i])
        elif kind == "cut":
            lines = lines[: max(1, i)]
        elif kind == "header":
            lines[0] = rng.choice(["age,age,sex,disease", "age,zip,sex", "", "__group__,zip,sex,d"])
    data = bytearray("\n".join(lines).encode("utf-8"))
    for kind in kinds:
        if kind == "flip-byte" and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == "insert-bytes":
            at = rng.randrange(len(data) + 1)
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        elif kind == "delete-bytes" and data:
            at = rng.randrange(len(data))
            del data[at : at + rng.randrange(1, 20)]
    return bytes(data)


KINDS = [
    "extra-field",
    "missing-field",
    "hostile-cell",
    "duplicate-line",
    "cut",
    "header",
    "flip-byte",
    "insert-bytes",
    "delete-bytes",
]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32 - 1),
    kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3),
    algorithm=st.sampled_from(["anatomy", "mondrian"]),
)
def test_a_corrupted_csv_gives_a_release_or_a_clean_error(tmp_path, cli, seed, kinds, algorithm):
    folder = tmp_path / f"case-{seed}-{'-'.join(kinds)}-{algorithm}"
    folder.mkdir()
    data = folder / "data.csv"
    data.write_bytes(_corrupt("\n".join([HEADER, *ROWS]) + "\n", seed, kinds))
    out = folder / "rel"
    code, stdout, stderr = cli(
        ["anonymize", "--data", str(data), "--qi", "age,zip,sex", "--sensitive", "disease",
         "--algorithm", algorithm, "--l", "2", "--value-sets", "sex", "--out", str(out)]
    )  # fmt: skip
    assert "Traceback" not in stdout + stderr, stderr
    if code == 0:
        load_release(out)  # what was written is a whole release
    else:
        assert code == 2, (code, stderr)
        assert stderr.startswith("error:") and stderr.count("\n") == 1, stderr
        assert sorted(p.name for p in folder.iterdir()) == ["data.csv"]  # nothing written
