"""Combined privacy criteria and several sensitive attributes: the lattice search beside ARX 3.9.2,
in the same run on the same machine (issue 19 with issue 20's set-up).

    python benchmarks/bench_lattice_criteria.py [--repeat 5] [--replications 1]
        [--arx ../shared/arx] [--build /tmp/anonlab-arx-criteria-build]

The same data, hierarchies, metric and alternation as ``bench_lattice_arx.py`` (read its
docstring): ARX's ``adult.csv`` (adult-train, 30,162 rows) with ARX's hierarchies on the QIs age,
sex, race, marital-status, education, native-country, workclass (2,160 nodes), ARX's Loss. Cells:

- (a) 5-anonymity + distinct 3-diversity on occupation (salary-class insensitive);
- (b) 5-anonymity + distinct 2-diversity on each of occupation and salary-class, both sensitive
  (ARX: one ``DistinctLDiversity`` per sensitive attribute);
- (c) 5-anonymity + distinct 3-diversity + equal-distance 0.2-closeness on occupation
  (salary-class insensitive);

each at 0% and 2% suppression. ARX: ``benchmarks/ArxCriteria.java`` (compiled with ARX's
``ArxBench.java`` for its QI list) adds one criterion object per criterion to one
``ARXConfiguration``; every attribute a criterion names is ``SENSITIVE_ATTRIBUTE``. anonlab:
``Table.from_frame(..., sensitive=...)`` (one name or a list) then ``lattice(table,
"k-anonymity,distinct-l-diversity[,t-closeness]", k=..., l=..., [t=..., distance="equal"])``.

Per cell: one untimed warm-up of each, then ``--repeat`` alternating pairs (ARX, then anonlab);
medians of the wall times; the per-pair ratio's range; the medians of CPU time (ARX: its calling
thread's, ``ThreadMXBean``, without the JVM's GC and JIT threads; anonlab: ``time.process_time``,
every thread of the process), which a loaded shared machine inflates less than wall time; nodes
checked; whether the node, classes, suppressed records and Loss (``repr`` of the float) equal
ARX's. Independently of the search, each tool's node is
re-checked with :func:`anonlab.models.check` on :func:`anonlab.anonymize.generalize` at that node
(no search code involved): the records of the classes that violate any criterion must number at
most ``floor(suppression * n)``, and the classes left and the records withheld are compared with
what each tool reported. Where the nodes differ, anonlab's Loss of ARX's node
(:class:`~anonlab.anonymize.lattice.NodeCheck`) is printed too.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from anonlab import Table, datasets, models  # noqa: E402
from anonlab.anonymize import generalize  # noqa: E402
from anonlab.anonymize.lattice import (  # noqa: E402
    NodeCheck,
    lattice,
    model_parameters,
    searchable_table,
)
from anonlab.table import read_frame  # noqa: E402
from bench_lattice_arx import QI, _same  # noqa: E402
from java_loop import JavaLoop, compile_java, environment  # noqa: E402
from timing import row  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
COLUMNS_NOT_QI = ["occupation", "salary-class"]
#: (label, ArxCriteria's criteria, anonlab's model, its parameters, the sensitive attributes)
CELLS = [
    (
        "(a) 5-anonymity + distinct 3-diversity (occupation)",
        "k=5 distinct-l=3:occupation",
        "k-anonymity,distinct-l-diversity",
        {"k": 5, "l": 3},
        ["occupation"],
    ),
    (
        "(b) 5-anonymity + distinct 2-diversity (occupation, salary-class)",
        "k=5 distinct-l=2:occupation distinct-l=2:salary-class",
        "k-anonymity,distinct-l-diversity",
        {"k": 5, "l": 2},
        ["occupation", "salary-class"],
    ),
    (
        "(c) 5-anonymity + distinct 3-diversity + equal-distance 0.2-closeness (occupation)",
        "k=5 distinct-l=3:occupation equal-t=0.2:occupation",
        "k-anonymity,distinct-l-diversity,t-closeness",
        {"k": 5, "l": 3, "t": 0.2, "distance": "equal"},
        ["occupation"],
    ),
]
SUPPRESSION = [0.0, 0.02]


def compile_arx(arx: pathlib.Path, build: pathlib.Path) -> str:
    """Compile ArxBench.java (for its QI list) and ArxCriteria.java; the class path."""
    return compile_java(arx, build, [arx / "ArxBench.java", HERE / "ArxCriteria.java"])


class Arx(JavaLoop):
    """One JVM running ArxCriteria: one anonymization per request."""

    def __init__(self, classpath: str, data: pathlib.Path, replication: int) -> None:
        super().__init__(classpath, "ArxCriteria", str(data), str(replication))

    def run(self, criteria: str, suppression: float) -> dict:
        answer = self.ask(f"{suppression} {criteria}")
        if "levels" not in answer:
            raise RuntimeError(f"ARX found no node for {criteria} at {suppression}: {answer}")
        return {
            "seconds": float(answer["ms"]) / 1000,
            "cpu": float(answer["cpu_ms"]) / 1000,
            "levels": tuple(int(v) for v in answer["levels"].split(",")),
            "classes": int(answer["classes"]),
            "suppressed": int(answer["suppressed"]),
            "loss": answer["loss"],
            "checked": int(answer["checked"]),
        }


def encode(frame: pd.DataFrame, hierarchies: dict, sensitive: list[str]) -> Table:
    return Table.from_frame(
        frame, quasi_identifiers=QI,
        sensitive=sensitive[0] if len(sensitive) == 1 else sensitive,
        insensitive=[c for c in COLUMNS_NOT_QI if c not in sensitive],
        hierarchies=hierarchies,
    )  # fmt: skip


def run_anonlab(frame: pd.DataFrame, hierarchies: dict, sensitive: list[str], model: str,
                params: dict, suppression: float) -> dict:  # fmt: skip
    """Encode the raw frame and search; the times of both."""
    c0, t0 = time.process_time(), time.perf_counter()
    table = encode(frame, hierarchies, sensitive)
    t1 = time.perf_counter()
    release = lattice(table, model, suppression=suppression, **params)
    t2, c2 = time.perf_counter(), time.process_time()
    return {
        "seconds": t2 - t0,
        "cpu": c2 - c0,
        "encode": t1 - t0,
        "levels": tuple(release.levels[q] for q in QI),
        "classes": int(release.n_groups),
        "suppressed": int(release.manifest["suppressed_records"]),
        "loss": repr(float(release.manifest["lattice"]["metric_value"])),
        "checked": int(
            release.manifest["lattice"].get("nodes_touched", release.manifest["lattice"]["checked"])
        ),
    }


def recheck(table: Table, model: str, params: dict, suppression: float, found: dict) -> str:
    """The node ``found`` (one tool's answer) re-checked without the search: ``models.check`` on
    ``generalize(table, levels)``; 'ok' when it holds after withholding the violating classes
    within the limit and those classes and records are what the tool reported."""
    limit = math.floor(suppression * table.n_rows + 1e-9)
    release = generalize(table, dict(zip(QI, found["levels"], strict=True)))
    result = models.check(release, model, **params)
    withheld = int(result.violating_records)
    classes = int(release.n_groups) - int(result.n_violating_groups)
    problems = []
    if withheld > limit:
        problems.append(f"{withheld} records violate, limit {limit}")
    if withheld != found["suppressed"]:
        problems.append(f"withholds {withheld}, reported {found['suppressed']}")
    if classes != found["classes"]:
        problems.append(f"{classes} classes, reported {found['classes']}")
    return "ok" if not problems else "NO: " + "; ".join(problems)


def anonlab_loss(table: Table, model: str, params: dict, suppression: float,
                 levels: tuple[int, ...]) -> str:  # fmt: skip
    """anonlab's Loss of a node (the search's own node check)."""
    name, params = model_parameters(model, **params)
    limit = math.floor(suppression * table.n_rows + 1e-9)
    evaluation = NodeCheck(searchable_table(table), name, params, limit=limit).evaluate(
        np.array(levels)
    )
    return f"{evaluation.cost!r} (suppresses {evaluation.suppressed}, limit {limit})"


def bench(classpath: str, arx_dir: pathlib.Path, text: pd.DataFrame, hierarchies: dict,
          replication: int, repeat: int) -> list[str]:  # fmt: skip
    frame = pd.concat([text] * replication, ignore_index=True) if replication > 1 else text
    arx = Arx(classpath, arx_dir / "data", replication)
    lines = [
        f"### adult-train × {replication} ({len(frame):,} rows), 2,160 nodes, ARX's Loss",
        "",
        row("cell", "load (1 min)", "ARX ms", "anonlab ms (encoding + search)",
            "anonlab / ARX (pairs)", "CPU ms ARX / anonlab (ratio)",
            "nodes checked ARX / anonlab", "node found", "classes",
            "suppressed", "Loss", "same as ARX", "re-check ARX / anonlab node"),
        row(*["---"] * 13),
    ]  # fmt: skip
    notes = []
    try:
        for suppression in SUPPRESSION:
            for label, criteria, model, params, sensitive in CELLS:
                load = os.getloadavg()[0]
                arx.run(criteria, suppression)  # warm-up, untimed
                run_anonlab(frame, hierarchies, sensitive, model, params, suppression)
                theirs, ours = [], []
                for _ in range(repeat):
                    theirs.append(arx.run(criteria, suppression))
                    ours.append(
                        run_anonlab(frame, hierarchies, sensitive, model, params, suppression)
                    )
                a = statistics.median(r["seconds"] for r in theirs)
                b = statistics.median(r["seconds"] for r in ours)
                enc = statistics.median(r["encode"] for r in ours)
                search = statistics.median(r["seconds"] - r["encode"] for r in ours)
                cpu_a = statistics.median(r["cpu"] for r in theirs)
                cpu_b = statistics.median(r["cpu"] for r in ours)
                pairs = [o["seconds"] / t["seconds"] for t, o in zip(theirs, ours, strict=True)]
                stable = all(
                    (t["levels"], t["loss"]) == (theirs[0]["levels"], theirs[0]["loss"])
                    and (o["levels"], o["loss"]) == (ours[0]["levels"], ours[0]["loss"])
                    for t, o in zip(theirs, ours, strict=True)
                )
                same = _same(theirs[-1], ours[-1]) + ("" if stable else " (varies by run!)")
                table = encode(frame, hierarchies, sensitive)
                checks = (
                    f"{recheck(table, model, params, suppression, theirs[-1])} / "
                    f"{recheck(table, model, params, suppression, ours[-1])}"
                )
                load = f"{load:.2f}–{os.getloadavg()[0]:.2f}"
                lines.append(
                    row(f"{label}, {suppression:.0%}", load, f"{a * 1000:.1f}",
                        f"{b * 1000:.1f} ({enc * 1000:.1f} + {search * 1000:.1f})",
                        f"**{b / a:.2f}** ({min(pairs):.2f}–{max(pairs):.2f})",
                        f"{cpu_a * 1000:.1f} / {cpu_b * 1000:.1f} ({cpu_b / cpu_a:.2f})",
                        f"{theirs[-1]['checked']:,} / {ours[-1]['checked']:,}",
                        ours[-1]["levels"], ours[-1]["classes"], ours[-1]["suppressed"],
                        ours[-1]["loss"], same, checks)
                )  # fmt: skip
                print(lines[-1], flush=True)
                if theirs[-1]["levels"] != ours[-1]["levels"]:
                    notes.append(
                        f"- {label}, {suppression:.0%}: ARX's node {theirs[-1]['levels']} "
                        f"(ARX Loss {theirs[-1]['loss']}), anonlab's Loss of it "
                        f"{anonlab_loss(table, model, params, suppression, theirs[-1]['levels'])}"
                    )
                    print(notes[-1], flush=True)
    finally:
        arx.close()
    return lines + ([""] + notes if notes else [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--replications", default="1")
    parser.add_argument("--arx", type=pathlib.Path, default=HERE.parents[1] / "shared" / "arx")
    parser.add_argument(
        "--build", type=pathlib.Path, default=pathlib.Path("/tmp/anonlab-arx-criteria-build")
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    classpath = compile_arx(args.arx, args.build)
    print(
        environment(
            "Combined criteria and several sensitive attributes, lattice beside ARX 3.9.2",
            args.repeat,
        ),
        flush=True,
    )
    text = read_frame(args.arx / "data" / "adult.csv", sep=";")
    hierarchies = {
        k: v for k, v in datasets.load_hierarchies("adult-train", "arx").items() if k in QI
    }
    for replication in (int(r) for r in args.replications.split(",")):
        lines = bench(classpath, args.arx, text, hierarchies, replication, args.repeat)
        print("\n" + "\n".join(lines) + "\n", flush=True)
    print(
        f"load average {os.getloadavg()[0]:.2f} at the end; "
        f"{time.perf_counter() - started:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
