"""Peak memory and time of reading a release back: `load_release`, `anonlab check` and
`anonlab utility` on it.

    python benchmarks/bench_release_read.py [--resample 10000000] [--algorithm anatomy]
        [--before-src PATH] [--steps load,check,utility] [--release DIR]

One child process writes the release as a user would::

    python -m anonlab anonymize --dataset census-kdd-workers --resample N --algorithm ALG \\
        --l 4 --out DIR --published-format parquet

then, each in a child process of its own (peak = the child's ``ru_maxrss`` from ``os.wait4``;
this parent holds no data, so the child does not inherit a large resident set at ``fork``):

* ``load``: ``anonlab.release_io.load_release(DIR)`` (files verified, records read);
* ``check``: ``python -m anonlab check DIR`` (the whole command);
* ``utility``: ``python -m anonlab utility DIR`` (the whole command: 10,000 COUNT queries,
  information loss, prosecutor and re-identification risk, population uniques).

``--steps`` picks some of them (default: all three); ``--release DIR`` measures a release
written before (e.g. by the command above) instead of writing one, so that a before/after pair
can be rerun on one release. ``--before-src`` points at the ``src``
folder of a checkout from before a change: the steps are run with it too (put first on the
child's ``PYTHONPATH``), on the same release.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time


def _child(argv: list[str], src: str | None) -> tuple[float, int]:
    """(wall seconds, peak RSS in bytes) of one child process; exits on its failure."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    t0 = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    stderr = child.stderr.read()
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:4]} failed:\n{stderr.decode()[-2000:]}")
    return wall, usage.ru_maxrss * 1024  # kilobytes on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resample", type=int, default=10_000_000)
    parser.add_argument("--algorithm", default="anatomy")
    parser.add_argument("--before-src", default=None)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--steps", default="load,check,utility")
    parser.add_argument("--release", default=None)
    args = parser.parse_args()
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    unknown = sorted(set(steps) - {"load", "check", "utility"})
    if unknown or not steps:
        parser.error(f"--steps: unknown step(s) {unknown}; use load, check, utility")
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-release-read-", dir=args.workdir))
    rel = work / "release"
    py = sys.executable
    try:
        if args.release:
            rel = pathlib.Path(args.release)
            print(f"the release in {str(rel)!r}\n")
        else:
            wall, peak = _child(
                [py, "-m", "anonlab", "anonymize", "--dataset", "census-kdd-workers",
                 "--resample", str(args.resample), "--algorithm", args.algorithm, "--l", "4",
                 "--out", str(rel), "--published-format", "parquet"],
                None,
            )  # fmt: skip
            print(
                f"census-kdd-workers resampled to {args.resample:,} records, {args.algorithm} "
                f"l = 4, Parquet; written in {wall:.1f} s, peak {peak / 2**20:,.0f} MiB\n"
            )
        print("| step | code | peak RSS | wall time |")
        print("| --- | --- | --- | --- |")
        code = f"from anonlab.release_io import load_release; load_release({str(rel)!r})"
        load = [py, "-c", code]
        commands = {
            "load": ("load_release", load),
            "check": ("anonlab check", [py, "-m", "anonlab", "check", str(rel)]),
            "utility": ("anonlab utility", [py, "-m", "anonlab", "utility", str(rel)]),
        }
        for label, src in (("after", None), ("before", args.before_src)):
            if label == "before" and not src:
                continue
            for step, argv in (commands[s] for s in steps):
                wall, peak = _child(argv, src)
                print(f"| {step} | {label} | {peak / 2**20:,.0f} MiB | {wall:.1f} s |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
