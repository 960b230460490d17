"""Lightning (heuristic lattice search) beside ARX 3.9.2's, on census-kdd with 12 quasi-identifiers.

    python benchmarks/bench_lattice_heuristic.py [--repeat 5] [--checks 500,2000] [--seconds 5]
        [--arx ../shared/arx] [--build /tmp/anonlab-arx-heuristic-build]

The input (issue 20, part 3): the bundled ``census-kdd`` (99,762 rows), sensitive
``detailed_occupation_recode``, and 12 quasi-identifiers whose lattice has 2,592,000 nodes
(:data:`QI`; heights 4, 1, 2, 3, 3, 4, 3, 4, 2, 2, 2, 1). Seven hierarchies are the bundled
``jin-asap`` set (age, sex, race, marital_stat, education, class_of_worker,
country_of_birth_self); five are built here with :mod:`anonlab.hierarchy_builders`
(:func:`census_kdd_hierarchies`): weeks_worked_in_year ``interval`` (width 10, fanout 2),
detailed_industry_recode ``mapping`` to the data's own major_industry_code (each detailed code has
one), hispanic_origin ``mapping`` to Not Hispanic / Hispanic / Unknown, citizenship ``mapping`` to
Native / Foreign born, income ``suppress``.

Both tools read the same files, written once to a temporary folder: ``data.csv`` (';'-separated
text) and ``hierarchy_QI.csv`` in ARX's format. ARX: ``benchmarks/ArxHeuristic.java`` is compiled
with ``javac`` into ``--build`` and one JVM serves one ``ARXAnonymizer.anonymize()`` per request
with ``AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP`` (ARX's Lightning), the step limit counted in
checks and the time limit; ARX's time includes its dictionary encoding. anonlab: timed
``Table.from_frame`` (the encoding) plus
:func:`anonlab.anonymize.lightning.lightning` with ``max_checks`` or ``max_seconds`` (the time of
the lower bound's enumeration after the search included). Both: ARX's Loss, the same model and
suppression limit.

Per setting (model, suppression, budget): one untimed warm-up of each, then ``--repeat``
alternating pairs (ARX, then anonlab); medians of the time, and the loss found and nodes checked
(the same in every run with a budget in checks). The lower bound and the gap are anonlab's
(ARX reports none); the gap of ARX's loss is measured against the same bound, which bounds the
optimum whoever found the node. As a cross-check, anonlab's node check evaluates the node ARX
found: its Loss must equal ARX's.
"""

from __future__ import annotations

import argparse
import csv
import os
import pathlib
import statistics
import sys
import tempfile
import time

import numpy as np
import pandas as pd

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from anonlab import Hierarchy, Table, datasets  # noqa: E402
from anonlab.anonymize.lattice import NodeCheck, model_parameters, searchable_table  # noqa: E402
from anonlab.anonymize.lightning import lightning  # noqa: E402
from anonlab.hierarchy_builders import build_hierarchy  # noqa: E402
from anonlab.table import read_frame  # noqa: E402
from java_loop import JavaLoop, compile_java, environment  # noqa: E402
from timing import row  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
QI = [
    "age", "sex", "race", "marital_stat", "education", "class_of_worker",
    "country_of_birth_self", "weeks_worked_in_year", "detailed_industry_recode",
    "hispanic_origin", "citizenship", "income",
]  # fmt: skip
SENSITIVE = "detailed_occupation_recode"
#: (label, ArxHeuristic's model and parameter, anonlab's model, its parameters)
MODELS = [
    ("5-anonymity", "k-anonymity 5", "k-anonymity", {"k": 5}),
    ("distinct 3-diversity", "distinct-l-diversity 3", "distinct-l-diversity", {"l": 3}),
]
SUPPRESSION = [0.0, 0.02]
#: ARX's limit where the other budget binds (its limits must be positive).
UNLIMITED_CHECKS, UNLIMITED_MS = 2**31 - 1, 2**31 - 1


def census_kdd_hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """The 12 quasi-identifiers' hierarchies: seven bundled (``jin-asap``), five built."""
    hierarchies = {
        q: h for q, h in datasets.load_hierarchies("census-kdd", "jin-asap").items() if q in QI
    }

    def values(column: str) -> list[str]:
        return sorted({str(v) for v in frame[column]}, key=lambda v: (len(v), v))

    pairs = frame[["detailed_industry_recode", "major_industry_code"]].drop_duplicates()
    industry = dict(pairs.itertuples(index=False, name=None))  # one major code per detailed
    hispanic = {
        v: "Not Hispanic" if v == "All other" else
        "Unknown" if v in ("Do not know", "Unknown") else "Hispanic"
        for v in values("hispanic_origin")
    }  # fmt: skip
    citizenship = {v: v.split("-")[0] for v in values("citizenship")}  # Native / Foreign born
    specs = {
        "weeks_worked_in_year": {"builder": "interval", "width": 10},
        "detailed_industry_recode": {"builder": "mapping", "levels": [industry]},
        "hispanic_origin": {"builder": "mapping", "levels": [hispanic]},
        "citizenship": {"builder": "mapping", "levels": [citizenship]},
        "income": {"builder": "suppress"},
    }
    for column, spec in specs.items():
        hierarchies[column] = build_hierarchy(spec, values(column), column)
    return hierarchies


def write_input(folder: pathlib.Path) -> None:
    """census-kdd as ARX reads it: data.csv and one hierarchy file per quasi-identifier."""
    frame = datasets.load_frame("census-kdd")
    frame.astype(str).to_csv(folder / "data.csv", sep=";", index=False)
    for q, h in census_kdd_hierarchies(frame).items():
        # Plain text as the data is, not formula-guarded: ARX matches '- 50000' to no "'- 50000".
        with open(folder / f"hierarchy_{q}.csv", "w", newline="", encoding="utf-8") as f:
            csv.writer(f, delimiter=";", lineterminator="\n").writerows(h.rows())


def compile_arx(arx: pathlib.Path, build: pathlib.Path) -> str:
    """Compile ArxHeuristic.java; the class path to run it with."""
    return compile_java(arx, build, [HERE / "ArxHeuristic.java"])


class Arx(JavaLoop):
    """One JVM running ArxHeuristic: one anonymization per request."""

    def __init__(self, classpath: str, folder: pathlib.Path) -> None:
        super().__init__(classpath, "ArxHeuristic", str(folder), ",".join(QI), SENSITIVE)

    def run(self, model: str, suppression: float, checks: int, millis: int) -> dict:
        answer = self.ask(f"{model} {suppression} {checks} {millis}")
        found = answer["levels"] != "none"
        return {
            "seconds": float(answer["ms"]) / 1000,
            "levels": tuple(int(v) for v in answer["levels"].split(",")) if found else None,
            "loss": float(answer["loss"]) if found else None,
            "suppressed": int(answer["suppressed"]) if found else None,
            "checked": int(answer["checked"]),
            "optimal": answer.get("optimal") == "true",
        }


def run_anonlab(frame: pd.DataFrame, hierarchies: dict, model: str, params: dict,
                suppression: float, checks: int | None, seconds: float | None) -> dict:  # fmt: skip
    """Encode the text frame and search; the times of both."""
    t0 = time.perf_counter()
    table = Table.from_frame(
        frame, quasi_identifiers=QI, sensitive=SENSITIVE,
        insensitive=[c for c in frame.columns if c not in QI and c != SENSITIVE],
        hierarchies=hierarchies,
    )  # fmt: skip
    t1 = time.perf_counter()
    release = lightning(
        table, model, suppression=suppression, max_checks=checks, max_seconds=seconds, **params
    )
    t2 = time.perf_counter()
    info = release.manifest["lattice"]
    return {
        "seconds": t2 - t0,
        "encode": t1 - t0,
        "levels": tuple(release.levels[q] for q in QI),
        "loss": info["metric_value"],
        "suppressed": int(release.manifest["suppressed_records"]),
        "checked": int(info["checked"]),
        "lower": info["lower_bound"],
        "proven": info["proven_optimal"],
        "table": table,
    }


def arx_node_by_anonlab(table: Table, model: str, params: dict, suppression: float,
                        levels: tuple[int, ...]) -> float:  # fmt: skip
    """anonlab's Loss of the node ARX found (the same node check as the search)."""
    name, params = model_parameters(model, **params)
    limit = int(np.floor(suppression * table.n_rows + 1e-9))
    check = NodeCheck(searchable_table(table), name, params, limit=limit)
    return check.evaluate(np.array(levels)).cost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--checks", default="500,2000", help="budgets in nodes checked")
    parser.add_argument("--seconds", default="5", help="budgets in seconds ('' for none)")
    parser.add_argument("--arx", type=pathlib.Path, default=HERE.parents[1] / "shared" / "arx")
    parser.add_argument(
        "--build", type=pathlib.Path, default=pathlib.Path("/tmp/anonlab-arx-heuristic-build")
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    classpath = compile_arx(args.arx, args.build)
    print(
        environment("Heuristic lattice search beside ARX 3.9.2, same run", args.repeat), flush=True
    )
    budgets = [("checks", int(c)) for c in args.checks.split(",") if c]
    budgets += [("seconds", float(s)) for s in args.seconds.split(",") if s]
    lines = [
        row("setting", "budget", "ARX ms", "anonlab ms (encoding + search)", "nodes checked "
            "ARX / anonlab", "Loss ARX / anonlab", "anonlab lower bound", "gap ARX / anonlab",
            "ARX's node by anonlab's check", "node anonlab", "same node"),
        row(*["---"] * 11),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="anonlab-heuristic-") as tmp:
        folder = pathlib.Path(tmp)
        write_input(folder)
        frame = read_frame(folder / "data.csv", sep=";")
        hierarchies = {q: Hierarchy.read_csv(folder / f"hierarchy_{q}.csv", sep=";") for q in QI}
        sizes = [h.height + 1 for h in hierarchies.values()]
        print(f"census-kdd: {len(frame):,} rows, {len(QI)} quasi-identifiers, "
              f"{int(np.prod(sizes)):,} nodes\n", flush=True)  # fmt: skip
        arx = Arx(classpath, folder)
        try:
            for suppression in SUPPRESSION:
                for label, arx_model, model, params in MODELS:
                    for kind, budget in budgets:
                        checks = budget if kind == "checks" else None
                        seconds = budget if kind == "seconds" else None
                        arx_args = (
                            (int(budget), UNLIMITED_MS)
                            if kind == "checks"
                            else (UNLIMITED_CHECKS, int(budget * 1000))
                        )
                        arx.run(arx_model, suppression, *arx_args)  # warm-up, untimed
                        run_anonlab(frame, hierarchies, model, params, suppression, checks,
                                    seconds)  # fmt: skip
                        theirs, ours = [], []
                        for _ in range(args.repeat):
                            theirs.append(arx.run(arx_model, suppression, *arx_args))
                            ours.append(run_anonlab(frame, hierarchies, model, params,
                                                    suppression, checks, seconds))  # fmt: skip
                        a = statistics.median(r["seconds"] for r in theirs)
                        b = statistics.median(r["seconds"] for r in ours)
                        enc = statistics.median(r["encode"] for r in ours)
                        t, o = theirs[-1], ours[-1]
                        found = sum(r["levels"] is not None for r in theirs)
                        if kind == "seconds":  # the node may differ between runs: medians
                            t_loss = statistics.median(
                                np.inf if r["loss"] is None else r["loss"] for r in theirs
                            )
                            o_loss = statistics.median(r["loss"] for r in ours)
                            t_checked = int(statistics.median(r["checked"] for r in theirs))
                            o_checked = int(statistics.median(r["checked"] for r in ours))
                        else:
                            t_loss = np.inf if t["loss"] is None else t["loss"]
                            o_loss = o["loss"]
                            t_checked, o_checked = t["checked"], o["checked"]
                        cross = f"none found (ARX found a node in {found} of {args.repeat})"
                        if t["levels"] is not None:
                            ours_of_theirs = arx_node_by_anonlab(
                                o["table"], model, params, suppression, t["levels"]
                            )
                            cross = "equal" if abs(ours_of_theirs - t["loss"]) < 1e-9 else "DIFFERS"
                            if found < args.repeat:
                                cross += f" (ARX found a node in {found} of {args.repeat} runs)"
                        lines.append(
                            row(f"{label}, {suppression:.0%}",
                                f"{int(budget):,} checks" if kind == "checks" else f"{budget:g} s",
                                f"{a * 1000:.0f}",
                                f"{b * 1000:.0f} ({enc * 1000:.0f} + {(b - enc) * 1000:.0f})",
                                f"{t_checked:,} / {o_checked:,}",
                                f"{t_loss:.4f} / {o_loss:.4f}", f"{o['lower']:.4f}",
                                f"{t_loss - o['lower']:.4f} / {o_loss - o['lower']:.4f}",
                                cross, ",".join(map(str, o["levels"])),
                                "yes" if t["levels"] == o["levels"] else "no")
                        )  # fmt: skip
                        print(lines[-1], flush=True)
        finally:
            arx.close()
    print("\n" + "\n".join(lines) + "\n")
    print(
        f"load average {os.getloadavg()[0]:.2f} at the end; "
        f"{time.perf_counter() - started:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
