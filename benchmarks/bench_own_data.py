"""A publisher's own data at scale (issue 17's timing goal): schema inference, hierarchies built
from the schema, and a Mondrian release of N discharge records, each timed as a whole command.

    python benchmarks/bench_own_data.py [--rows 1000000] [--folder /tmp/anonlab-own-data]

Input: ``--rows`` synthetic discharge records (seed 0: a patient id and name, 600 zip codes with
leading zeros, birth dates over 60 years, admission dates over one year, sex, 8 ICD-10 codes, a
length of stay, an insurer), written once to CSV. Steps, each a fresh ``anonlab`` process (so
interpreter start-up and imports, about 1 s, are inside every figure): ``init`` (reading,
inference, the draft), then ``anonymize --schema`` with the draft reviewed as in
docs/tutorial-own-data.md (icd10 sensitive; length_of_stay and insurer insensitive; sex by the
order builder) and Mondrian k = 5 (reading, building every hierarchy, anonymizing, writing the
release). The issue's goal is under 10 s for each of inference, building the hierarchies and a
Mondrian release of 1,000,000 records; this times inference alone and the other two together.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np
import pandas as pd


def _discharges(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    zips = [f"{z:05d}" for z in rng.choice(np.arange(1000, 9999, 3), 600, replace=False)]
    day = pd.to_timedelta
    return pd.DataFrame(
        {
            "patient_id": [f"P{i:08d}" for i in range(n)],
            "name": [f"Person {i}" for i in range(n)],
            "zip": rng.choice(zips, n),
            "birth_date": (
                pd.Timestamp("1940-01-01") + day(rng.integers(0, 60 * 365, n), unit="D")
            ).strftime("%Y-%m-%d"),
            "sex": rng.choice(["F", "M"], n),
            "admission_date": (
                pd.Timestamp("2023-01-01") + day(rng.integers(0, 365, n), unit="D")
            ).strftime("%Y-%m-%d"),
            "icd10": rng.choice(["I10", "E11.9", "J18.9", "N39.0", "K21.9", "F32.9"], n),
            "length_of_stay": rng.integers(1, 30, n),
            "insurer": rng.choice(["public", "private", "none"], n),
        }
    )


def _run(folder: pathlib.Path, *args: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", "from anonlab.cli import main; main()", *args],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"anonlab {' '.join(args)} failed:\n{done.stderr}")
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--folder", default="/tmp/anonlab-own-data")
    args = parser.parse_args()
    folder = pathlib.Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"discharges-{args.rows}.csv"
    if not data.exists():
        _discharges(args.rows).to_csv(data, index=False)
    for name in ("schema.json", "rel"):
        path = folder / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    t_init = _run(folder, "init", data.name, "--out", "schema.json")
    schema = json.loads((folder / "schema.json").read_text())
    for column in schema["columns"]:
        if column["name"] == "icd10":
            column.update(role="sensitive", hierarchy=None)
        if column["name"] in ("length_of_stay", "insurer"):
            column.update(role="insensitive", hierarchy=None)
        if column["name"] == "sex":
            column["hierarchy"] = {"builder": "order", "order": ["F", "M"]}
    (folder / "schema.json").write_text(json.dumps(schema))
    t_anon = _run(
        folder, "anonymize", "--data", data.name, "--schema", "schema.json",
        "--algorithm", "mondrian", "--k", "5", "--out", "rel",
    )  # fmt: skip
    print(f"{'step':<55} {'seconds':>8}")
    print(f"{'anonlab init (read, infer, draft)':<55} {t_init:>8.1f}")
    print(f"{'anonlab anonymize --schema (read, hierarchies, Mondrian, write)':<55} {t_anon:>8.1f}")
    print(f"rows: {args.rows:,}")


if __name__ == "__main__":
    main()
