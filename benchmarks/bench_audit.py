"""The whole audit of Adult (issue 19: "under 5 s on this machine"): the `anonlab audit` command
end to end in a fresh process, and the same work in one process split into its phases.

    python benchmarks/bench_audit.py [--repeat 5] [--algorithms anatomy,mondrian]

For each release of Adult (45,222 records, ℓ = 4, the audit's default budget and stages):

* **command**: ``anonlab audit REL --report FILE`` as a user runs it (a new Python process:
  interpreter, imports, numba's start-up, reading the release, every stage, the HTML and JSON
  files), median wall time of ``--repeat`` runs;
* **in one process**: the audit's stages (``anonlab.report.audit.audit``) and the HTML report
  (``render_html``) on a release already loaded, after one untimed warm-up, median of
  ``--repeat``; and, in ``--repeat`` fresh processes (medians), what the command adds before
  any stage: importing ``anonlab.cli``, the first read of the release, and a second read in
  the same process (the difference is what the first read pays once: numba's start-up at the
  first compiled call, lazy imports).

The command is run as ``python -c "from anonlab.cli import main; main()"`` with this
interpreter, not through a ``PATH`` wrapper (a pyenv shim adds 0.1-0.25 s).

Prints a Markdown table; the machine and its load are in the heading.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

from timing import cpu_name, row

HERE = pathlib.Path(__file__).resolve().parent

_COLD = """
import time, pathlib, json
t0 = time.perf_counter()
import anonlab.cli
t1 = time.perf_counter()
from anonlab.cli.loading import open_release
open_release(pathlib.Path({folder!r}))
t2 = time.perf_counter()
open_release(pathlib.Path({folder!r}))
t3 = time.perf_counter()
print(json.dumps({{"imports": t1 - t0, "load": t2 - t1, "load_again": t3 - t2}}))
"""


def _command(folder: pathlib.Path, report: pathlib.Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from anonlab.cli import main; main()", "audit", str(folder),
         "--report", str(report), "--force"],
        check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - start


def _cold(folder: pathlib.Path) -> dict[str, float]:
    import json

    out = subprocess.run(
        [sys.executable, "-c", _COLD.format(folder=str(folder))],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench(algorithm: str, repeat: int, work: pathlib.Path) -> list[str]:
    from anonlab import Table
    from anonlab.anonymize import anonymize
    from anonlab.release_io import load_release, save_release
    from anonlab.report.audit import audit
    from anonlab.report.html import render_html

    folder = work / algorithm
    save_release(anonymize(Table.from_dataset("adult"), algorithm, l=4), folder)
    report = work / f"{algorithm}.html"
    command = [_command(folder, report) for _ in range(repeat)]
    colds = [_cold(folder) for _ in range(repeat)]
    cold = {key: statistics.median(c[key] for c in colds) for key in colds[0]}
    release = load_release(folder)
    render_html(audit(release))  # warm-up: numba's and matplotlib's first calls
    stages, html, definetti = [], [], []
    for _ in range(repeat):
        start = time.perf_counter()
        result = audit(release)
        stages.append(time.perf_counter() - start)
        definetti.append(result.finding("definetti").seconds)
        start = time.perf_counter()
        render_html(result)
        html.append(time.perf_counter() - start)
    med = statistics.median
    in_process = med(stages) + med(html)
    return [
        row(
            f"Adult, {algorithm} ℓ=4",
            f"{med(command):.2f} s ({min(command):.2f}–{max(command):.2f})",
            f"{cold['imports']:.2f} s",
            f"{cold['load']:.2f} s (again {cold['load_again']:.3f})",
            f"{med(stages):.2f} s (deFinetti {med(definetti):.2f})",
            f"{med(html):.2f} s",
            f"{in_process:.2f} s",
            "5 s",
            f"{in_process / 5:.2f} / {med(command) / 5:.2f}",
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--algorithms", default="anatomy,mondrian")
    args = parser.parse_args(argv)
    print(
        f"## The whole audit of Adult\n\n{cpu_name()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f} at start; median of {args.repeat}.\n"
    )
    print(
        row(
            "release", "`anonlab audit` command (range)", "import anonlab.cli",
            "load release (a second read)",
            "stages, in one process", "HTML report", "stages + HTML", "goal",
            "ratio (in one process / command)",
        )
    )  # fmt: skip
    print(row(*["---"] * 9))
    with tempfile.TemporaryDirectory() as tmp:
        for algorithm in args.algorithms.split(","):
            for line in bench(algorithm, args.repeat, pathlib.Path(tmp)):
                print(line, flush=True)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main())
