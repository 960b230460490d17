"""Peak memory and time of the whole `anonlab anonymize` command (read, anonymize, write).

    python benchmarks/bench_export_memory.py [--resample 10000000] [--before-src PATH]
        [--configs anatomy-csv,mondrian-csv,anatomy-parquet,mondrian-parquet]

Each configuration is one child process running the command line as a user would::

    python -m anonlab anonymize --dataset census-kdd-workers --resample N --algorithm ALG \\
        --l 4 --out DIR --force [--published-format parquet] --export-key-file KEY

(census-kdd-workers with its default roles: 7 quasi-identifiers, sensitive
detailed_occupation_recode, resampled with replacement, seed 0, as the "Scale" section of
docs/benchmarks.md). Peak memory is the child's peak resident set size (``ru_maxrss`` from
``os.wait4``, the whole process: interpreter, imports, table, anonymizer and writing), time is
the wall-clock time of the child. The issue's goal is a peak under 4 GB at 10M records.

``--before-src`` points at the ``src`` folder of a checkout from before the change (put first
on ``PYTHONPATH`` of the child): each CSV configuration is then run with it too, with the same
export key, and the table says whether the published files are byte-identical (their SHA-256).
Parquet has no "before". ``--resample 1000000`` is a quick run.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import platform
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

CONFIGS = ("anatomy-csv", "mondrian-csv", "anatomy-parquet", "mondrian-parquet")
GOAL_BYTES = 4 * 10**9  # the 4 GB (also under 4 GiB)


def _sha256(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(args, config: str, src: str | None, work: pathlib.Path, key: pathlib.Path) -> dict:
    """Run one configuration in a child process; its peak RSS, time and published files."""
    algorithm, fmt = config.split("-")
    out = work / f"{config}-{'before' if src else 'after'}"
    argv = [sys.executable, "-m", "anonlab", "anonymize", "--dataset", args.dataset,
            "--resample", str(args.resample), "--algorithm", algorithm, "--l", str(args.l),
            "--out", str(out), "--force", "--export-key-file", str(key)]  # fmt: skip
    if fmt != "csv":
        argv += ["--published-format", fmt]
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    t0 = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    stdout, stderr = child.stdout.read(), child.stderr.read()
    child.stdout.close()
    child.stderr.close()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{config} failed ({child.returncode}):\n{stderr.decode()[-2000:]}")
    published = sorted((out / "published").iterdir())
    result = {
        "config": config,
        "code": "before" if src else "after",
        "peak": usage.ru_maxrss * 1024,  # kilobytes on Linux
        "wall": wall,
        "files": {p.name: p.stat().st_size for p in published},
        "sha": {p.name: _sha256(p) for p in published},
        "stdout": stdout.decode(),
    }
    shutil.rmtree(out)
    return result


def _size(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _peak(n: float) -> str:
    """Bytes as MiB (``ru_maxrss`` / 1024, as the Scale section gives it) and GB."""
    return f"{n / 2**20:,.0f} MiB ({n / 1e9:.2f} GB)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resample", type=int, default=10_000_000)
    parser.add_argument("--dataset", default="census-kdd-workers")
    parser.add_argument("--l", type=int, default=4)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--before-src", default=None, help="src folder of the code before")
    parser.add_argument("--workdir", default=None, help="where the releases are written")
    args = parser.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    unknown = sorted(set(configs) - set(CONFIGS))
    if unknown:
        raise SystemExit(f"unknown configuration(s) {unknown}; choose from {list(CONFIGS)}")

    import numpy
    import pandas
    import pyarrow

    mem = next(
        (line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "?"
    )
    print(
        f"{platform.machine()}, {os.cpu_count()} CPUs, {int(mem) / 2**20:.0f} GiB RAM; Python "
        f"{platform.python_version()}, numpy {numpy.__version__}, pandas {pandas.__version__}, "
        f"pyarrow {pyarrow.__version__}; {args.dataset} resampled to {args.resample:,} records, "
        f"ℓ = {args.l}\n"
    )
    work = pathlib.Path(tempfile.mkdtemp(dir=args.workdir, prefix="bench-export-"))
    try:
        key = work / "export-key"
        key.write_text(secrets.token_hex(32) + "\n")
        rows = []
        for config in configs:
            if args.before_src and config.endswith("-csv"):
                rows.append(run(args, config, args.before_src, work, key))
            rows.append(run(args, config, None, work, key))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    before = {r["config"]: r for r in rows if r["code"] == "before"}
    print("| configuration | code | peak RSS | wall time | published files | goal: peak < 4 GB "
          "| published bytes |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        files = ", ".join(f"{name} {_size(size)}" for name, size in r["files"].items())
        same = ""
        if r["code"] == "after" and r["config"] in before:
            same = "identical to before" if r["sha"] == before[r["config"]]["sha"] else "DIFFER"
        goal = "met" if r["peak"] < GOAL_BYTES else "**not met**"
        print(
            f"| {r['config']} | {r['code']} | {_peak(r['peak'])} | {r['wall']:.1f} s | {files} "
            f"| {goal} | {same} |"
        )


if __name__ == "__main__":
    main()
