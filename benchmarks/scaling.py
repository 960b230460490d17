"""Scale on one machine (issue 10): time and peak memory of Anatomy, Mondrian (k and ℓ), Hilb and
the privacy checks at 0.1M, 1M, 3M and 10M records.

    python benchmarks/scaling.py [--sizes 100000,1000000,3000000,10000000] [--plot docs/scaling.png]

Input: ``census-kdd-workers`` (49,479 rows, its default 7 quasi-identifiers and sensitive
``detailed_occupation_recode``) **resampled with replacement** to each size with
``Table.resample(n, seed=0)`` -- the same draw as ``anonlab anonymize --resample N --seed 0``.
Resampled data has many exact duplicates (each source row appears about n / 49,479 times), so
groups at 10M are not those of a real 10M-record census.

Each (task, size) runs in its own subprocess so the sizes do not share a peak: the worker builds
the input table, runs the task once on a 2,000-row resample (numba kernels compiled or loaded from
cache), then runs it once on the full input and times that run (wall clock, one run, no repeat).
Peak memory is the subprocess's ``ru_maxrss`` (whole process: interpreter, numba, the input table
and the task); "input" is the RSS right after the input was built, so peak - input is about what
the task itself adds. For the checks the release they check (Mondrian, k = 10 or ℓ = 3) is built
first, outside the timed part (then rebuilt from its group ids so that no group statistic is
cached and the check computes group sizes and histograms itself), and its memory is inside the
peak.

Tasks: ``anatomy`` (ℓ = 3), ``mondrian-k`` (k = 10), ``mondrian-l`` (ℓ = 3), ``hilb`` (ℓ = 3),
``check-k`` (k-anonymity, k = 10 on the Mondrian-k release), ``check-l`` (l-diversity, ℓ = 3 on
the Mondrian-ℓ release), ``check-t`` (t-closeness, t = 0.2 on the Mondrian-ℓ release). The fitted
exponent is the least-squares slope of log(time) against log(n) over the sizes measured; n log n
shows up as a slope a little above 1 (about 1.1 between 0.1M and 10M).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import ms  # noqa: E402

SOURCE = "census-kdd-workers"
TASKS = ["anatomy", "mondrian-k", "mondrian-l", "hilb", "check-k", "check-l", "check-t"]
DEFAULT_SIZES = [100_000, 1_000_000, 3_000_000, 10_000_000]


def _rss_mb() -> float:
    """Current resident set size (Linux /proc), MB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _task(name: str, table):
    """The function to time (a closure over its input; the release for checks built here)."""
    from anonlab.anonymize import anonymize
    from anonlab.models import check

    if name == "anatomy":
        return lambda: anonymize(table, "anatomy", l=3, seed=0)
    if name == "mondrian-k":
        return lambda: anonymize(table, "mondrian", k=10, seed=0)
    if name == "mondrian-l":
        return lambda: anonymize(table, "mondrian", l=3, seed=0)
    if name == "hilb":
        return lambda: anonymize(table, "hilb", l=3, seed=0)
    if name == "check-k":
        release = _fresh(anonymize(table, "mondrian", k=10, seed=0))
        return lambda: check(release, "k-anonymity", k=10)
    release = _fresh(anonymize(table, "mondrian", l=3, seed=0))
    if name == "check-l":
        return lambda: check(release, "l-diversity", l=3)
    if name == "check-t":
        return lambda: check(release, "t-closeness", t=0.2)
    raise ValueError(name)


def _fresh(release):
    """The same release with no cached group statistics, so the check computes them."""
    from anonlab.release import Release

    return Release(release.table, release.group, release.scheme, manifest=release.manifest)


def worker(name: str, n: int) -> dict:
    """Run one task at one size in this process; print a JSON line."""
    from anonlab.table import Table

    source = Table.from_dataset(SOURCE)
    _task(name, source.resample(2_000, seed=1))()  # warm-up: numba compile / cache load
    table = source.resample(n, seed=0)
    del source
    rss_input = _rss_mb()
    fn = _task(name, table)
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    ok = getattr(result, "holds", None)
    groups = getattr(result, "n_groups", None)
    return {
        "task": name,
        "rows": n,
        "seconds": seconds,
        "peak_mb": peak,
        "input_mb": rss_input,
        "groups": groups,
        "satisfied": ok,
    }


def run(name: str, n: int) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", name, str(n)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        return {"task": name, "rows": n, "error": f"exit {proc.returncode}: {tail}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def slope(rows: list[dict], min_rows: int = 0) -> float | None:
    """Least-squares slope of log(seconds) on log(rows) over the sizes >= ``min_rows``."""
    ok = [r for r in rows if "seconds" in r and r["seconds"] > 0 and r["rows"] >= min_rows]
    if len(ok) < 2:
        return None
    x = np.log([r["rows"] for r in ok])
    y = np.log([r["seconds"] for r in ok])
    return float(np.polyfit(x, y, 1)[0])


def plot(results: dict[str, list[dict]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, rows in results.items():
        ok = [r for r in rows if "seconds" in r]
        if not ok:
            continue
        n = [r["rows"] for r in ok]
        b = slope(rows)
        label = f"{name} (slope {b:.2f})" if b is not None else name
        ax_t.loglog(n, [r["seconds"] for r in ok], "o-", label=label)
        ax_m.loglog(n, [r["peak_mb"] for r in ok], "o-", label=name)
    ref = np.array([1e5, 1e7])
    ax_t.loglog(ref, 0.05 * ref / 1e5 * np.log(ref) / np.log(1e5), "k:", label="n log n")
    ax_m.axhline(4096, color="r", ls="--", label="4 GB goal")
    ax_t.set(xlabel="records (census-kdd-workers resampled)", ylabel="seconds", title="time")
    ax_m.set(xlabel="records (census-kdd-workers resampled)", ylabel="peak RSS, MB")
    ax_m.set_title("peak memory (whole process)")
    ax_t.legend(fontsize=7)
    ax_m.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", nargs=2, metavar=("TASK", "ROWS"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--plot", default="docs/scaling.png")
    ap.add_argument("--json", default=None, help="also write the raw results here")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]))))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[str, list[dict]] = {}
    for name in args.tasks.split(","):
        results[name] = []
        for n in sizes:
            r = run(name, n)
            results[name].append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
            if "error" in r:
                break  # stop at the largest size that works
    print(f"Input: {SOURCE} resampled with replacement (seed 0); one timed run per cell.\n")
    print(
        "| task | "
        + " | ".join(f"{n / 1e6:g}M rows" for n in sizes)
        + " | time slope (all sizes) | time slope (>= 1M) |"
    )
    print("|---|" + "---|" * len(sizes) + "---|---|")
    for name, rows in results.items():
        cells = []
        for n in sizes:
            r = next((r for r in rows if r["rows"] == n), None)
            if r is None:
                cells.append("not run")
            elif "error" in r:
                cells.append(f"failed: {r['error'][:60]}")
            else:
                extra = "" if r["satisfied"] in (None, True) else " (NOT satisfied)"
                cells.append(f"{ms(r['seconds'])} / {r['peak_mb']:,.0f} MB{extra}")
        b, b1 = slope(rows), slope(rows, 1_000_000)
        slopes = " | ".join("–" if v is None else f"{v:.2f}" for v in (b, b1))
        print(f"| {name} | " + " | ".join(cells) + f" | {slopes} |")
    print("\nCells: wall time of the task / peak RSS of its process (input table included).")
    ref = [n * np.log(n) for n in sizes]
    if len(sizes) > 1:
        nlogn = np.polyfit(np.log(sizes), np.log(ref), 1)[0]
        print(f"For reference, n log n over these sizes has slope {nlogn:.2f}.\n")
    print("| rows | input table RSS (MB) |")
    print("|---|---|")
    for n in sizes:
        rs = [r["input_mb"] for rows in results.values() for r in rows if r.get("rows") == n]
        if rs:
            print(f"| {n:,} | {min(rs):,.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.plot:
        plot(results, args.plot)
        print(f"\nplot: {args.plot}")


if __name__ == "__main__":
    main()
