"""The lattice search beside ARX 3.9.2, in the same run on the same machine (issue 20).

    python benchmarks/bench_lattice_arx.py [--repeat 5] [--replications 1,10]
        [--arx ../shared/arx] [--build /tmp/anonlab-arx-build]

ARX: ``ArxBench.java`` from ``--arx`` (its README) and ``benchmarks/ArxAlternate.java`` are compiled
with ``javac`` into ``--build`` (under /tmp by default), and one JVM per input size serves one
``ARXAnonymizer.anonymize()`` per request with ArxBench's own data definition and configuration
(ARX's time includes its dictionary encoding; the CSV is read and replicated before timing).

anonlab: ARX's ``adult.csv`` (the same rows in the same order as anonlab's ``adult-train``) is read
once with :func:`anonlab.table.read_frame` (text cells, as ARX holds them) and replicated like
ArxBench's second argument, and the hierarchies are the bundled ``arx`` set (ARX's files); both
untimed, as ARX's reading is. Timed: ``Table.from_frame`` (the encoding, like ARX's) followed by
``lattice(table, model, suppression=...)``. QIs age, sex, race, marital-status, education,
native-country, workclass; occupation sensitive (ℓ-diversity, t-closeness), salary-class
insensitive; ARX's Loss; 2,160 nodes. The table also gives the median of each part alone (each
the median of its own times, so the two need not add up to the total's median), and the
search's median over ARX's.

For each input size (``--replications``: 1 gives 30,162 rows, 10 gives 301,620) and each of the
six settings, one untimed warm-up of each, then ``--repeat`` alternating pairs (ARX, then
anonlab); the table gives medians, the per-pair ratio's range, nodes checked, and whether the node,
classes, suppressed records and Loss (``repr`` of the float, every digit) equal ARX's.

``--declare-text`` declares every column text (``types=``), as ArxBench's data definition leaves
every column an ARX string, so that anonlab skips its type inference (the node, classes and Loss
are the same: the hierarchies are on the labels).

To time another anonlab (e.g. the commit before a change), put its ``src`` first:
``PYTHONPATH=/tmp/lattice-base/src python benchmarks/bench_lattice_arx.py``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

import pandas as pd

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from anonlab import Table, datasets  # noqa: E402
from anonlab.anonymize.lattice import lattice  # noqa: E402
from anonlab.table import read_frame  # noqa: E402
from java_loop import JavaLoop, compile_java, environment  # noqa: E402
from timing import row  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
#: (ArxBench's model name, anonlab's model, its parameters)
MODELS = [
    ("5-anonymity", "k-anonymity", {"k": 5}),
    ("distinct-4-diversity(occupation)", "distinct-l-diversity", {"l": 4}),
    ("equal-distance-0.2-closeness(occupation)", "t-closeness", {"t": 0.2, "distance": "equal"}),
]
LABELS = ["5-anonymity", "distinct 4-diversity", "equal-distance 0.2-closeness"]
SUPPRESSION = [0.0, 0.02]


def compile_arx(arx: pathlib.Path, build: pathlib.Path) -> str:
    """Compile ArxBench.java and ArxAlternate.java; the class path to run them with."""
    return compile_java(arx, build, [arx / "ArxBench.java", HERE / "ArxAlternate.java"])


class Arx(JavaLoop):
    """One JVM running ArxAlternate: one anonymization per request."""

    def __init__(self, classpath: str, data: pathlib.Path, replication: int) -> None:
        super().__init__(classpath, "ArxAlternate", str(data), str(replication))

    def run(self, model: str, suppression: float) -> dict:
        answer = self.ask(f"{model} {suppression}")
        return {
            "seconds": float(answer["ms"]) / 1000,
            "levels": tuple(int(v) for v in answer["levels"].split(",")),
            "classes": int(answer["classes"]),
            "suppressed": int(answer["suppressed"]),
            "loss": answer["loss"],
            "checked": int(answer["checked"]),
        }


def run_anonlab(frame: pd.DataFrame, hierarchies: dict, model: str, params: dict,
                suppression: float, types: dict | None = None) -> dict:  # fmt: skip
    """Encode the raw frame and search; the times of both."""
    t0 = time.perf_counter()
    table = Table.from_frame(
        frame, quasi_identifiers=QI, sensitive="occupation", insensitive=["salary-class"],
        hierarchies=hierarchies, types=types,
    )  # fmt: skip
    t1 = time.perf_counter()
    release = lattice(table, model, suppression=suppression, **params)
    t2 = time.perf_counter()
    return {
        "seconds": t2 - t0,
        "encode": t1 - t0,
        "levels": tuple(release.levels[q] for q in QI),
        "classes": int(release.n_groups),
        "suppressed": int(release.manifest["suppressed_records"]),
        "loss": repr(float(release.manifest["lattice"]["metric_value"])),
        "checked": int(release.manifest["lattice"]["checked"]),
    }


def _same(arx: dict, ours: dict) -> str:
    differ = [k for k in ("levels", "classes", "suppressed", "loss") if arx[k] != ours[k]]
    if not differ:
        return "yes"
    return "NO: " + "; ".join(f"{k} ARX {arx[k]} anonlab {ours[k]}" for k in differ)


def bench_size(classpath: str, arx_dir: pathlib.Path, text: pd.DataFrame, hierarchies: dict,
               replication: int, repeat: int, types: dict | None = None) -> list[str]:  # fmt: skip
    frame = pd.concat([text] * replication, ignore_index=True) if replication > 1 else text
    arx = Arx(classpath, arx_dir / "data", replication)
    lines = [
        f"### adult-train × {replication} ({len(frame):,} rows), 2,160 nodes, ARX's Loss "
        f"(load average {os.getloadavg()[0]:.2f} at the start of this size)",
        "",
        row("setting", "ARX ms", "anonlab ms (encoding + search)", "anonlab / ARX (pairs)",
            "search alone / ARX", "nodes checked ARX / anonlab", "node found", "classes",
            "suppressed", "Loss", "same as ARX"),
        row(*["---"] * 11),
    ]  # fmt: skip
    try:
        for suppression in SUPPRESSION:
            for (arx_model, model, params), label in zip(MODELS, LABELS, strict=True):
                arx.run(arx_model, suppression)  # warm-up, untimed
                run_anonlab(frame, hierarchies, model, params, suppression, types)
                theirs, ours = [], []
                for _ in range(repeat):
                    theirs.append(arx.run(arx_model, suppression))
                    ours.append(run_anonlab(frame, hierarchies, model, params, suppression, types))
                a = statistics.median(r["seconds"] for r in theirs)
                b = statistics.median(r["seconds"] for r in ours)
                enc = statistics.median(r["encode"] for r in ours)
                search = statistics.median(r["seconds"] - r["encode"] for r in ours)
                pairs = [o["seconds"] / t["seconds"] for t, o in zip(theirs, ours, strict=True)]
                lines.append(
                    row(f"{label}, {suppression:.0%}", f"{a * 1000:.1f}",
                        f"{b * 1000:.1f} ({enc * 1000:.1f} + {search * 1000:.1f})",
                        f"**{b / a:.2f}** ({min(pairs):.2f}–{max(pairs):.2f})",
                        f"{search / a:.2f}",
                        f"{theirs[-1]['checked']:,} / {ours[-1]['checked']:,}",
                        ours[-1]["levels"], ours[-1]["classes"], ours[-1]["suppressed"],
                        ours[-1]["loss"], _same(theirs[-1], ours[-1]))
                )  # fmt: skip
                print(lines[-1], flush=True)
    finally:
        arx.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--replications", default="1,10")
    parser.add_argument("--arx", type=pathlib.Path, default=HERE.parents[1] / "shared" / "arx")
    parser.add_argument(
        "--build", type=pathlib.Path, default=pathlib.Path("/tmp/anonlab-arx-build")
    )
    parser.add_argument(
        "--declare-text",
        action="store_true",
        help="declare every column text (types=...), as ARX's data definition holds every "
        "column as a string, instead of anonlab's type inference",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    classpath = compile_arx(args.arx, args.build)
    print(environment("Lattice search beside ARX 3.9.2, same run", args.repeat), flush=True)
    text = read_frame(args.arx / "data" / "adult.csv", sep=";")
    hierarchies = {
        k: v for k, v in datasets.load_hierarchies("adult-train", "arx").items() if k in QI
    }
    for replication in (int(r) for r in args.replications.split(",")):
        types = dict.fromkeys(text.columns, "text") if args.declare_text else None
        lines = bench_size(classpath, args.arx, text, hierarchies, replication, args.repeat, types)
        print("\n" + "\n".join(lines) + "\n", flush=True)
    print(
        f"load average {os.getloadavg()[0]:.2f} at the end; "
        f"{time.perf_counter() - started:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
