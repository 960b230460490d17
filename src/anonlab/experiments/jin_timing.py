"""Jin, Zhang, Das (ASAP), Tables 7 and 8: running times of the repairs, as ratios.

    python -m anonlab.experiments.jin_timing [--repeat 5] [--census-rows N]

The paper's seconds were measured in C++ on a 2010 Core 2 Duo (§8.1.1); ours are Python/numba
on a shared machine, so **no absolute time is compared**. What the paper *states* about its
tables is relative, and each statement becomes a claim on ratios measured in one run, on one
machine (:func:`check_claims`):

* **Table 7** (§8.2.4; k = 50, m = 3, Adult, 45,222 rows, SA education, Table 6a's 8 QIs):
  "MASK++ runs slower than MASK but their performances are still comparable" (65.7 s vs
  66.3 s, and 66.3 s for MASK++ in bucketization). MASK, MASK+ and MASK++ come from
  :func:`anonlab.experiments.jin.repair_release`, under each reading of which values MASK+ /
  MASK++ protect (:data:`anonlab.experiments.jin.REPAIR_READINGS`; the reproduce adapter runs
  ``"set"`` and ``"all-values"``, like Figure 7).
* **Table 8** (§8.3.5; ℓ = 4): "different schemes does not affect the time performance of
  Mondrian++ and Hilb++"; "either Mondrian++ or Hilb++ (in both two schemes) runs much faster
  than the original algorithm"; "the running time of Hilb++ [is] lower than Mondrian++, but
  higher than Anatomy". The paper's 300,000 IPUMS rows are not available: census-kdd-workers
  (49,479 rows, the Figure 10 stand-in, :func:`anonlab.experiments.jin_utility.census_table`)
  is timed instead, so the ratios are at a sixth of the paper's size.

Measurement (:func:`time_call`): one untimed warm-up call (numba kernels compiled or loaded
from their cache), then ``repeat`` timed calls of the anonymizer alone (the table already
loaded); the **median** is the algorithm's time, the range (min, max) its noise.

Criteria, fixed before any run (choices of ours; the paper defines none of its words):

* "A faster than B" / "B slower than A": the ranges do not overlap (``max(A) < min(B)``), so the
  order holds in every pair of repetitions (:func:`faster`);
* "much faster": the ratio of medians is at least :data:`MUCH_FASTER` (2×);
* "comparable" / "does not affect": the ratio of medians, slower over faster, is at most
  :data:`COMPARABLE_TIME` (1.5×; a loaded 2-core machine's repetition noise alone reaches tens
  of percent on calls of milliseconds).

The ``+`` variants (look-ahead without stratified pick-up) are not in the paper's tables; they
are timed as context.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from anonlab.experiments.markdown import frame_to_markdown
from anonlab.table import Table

#: "much faster": the slower median at least this many times the faster (our reading).
MUCH_FASTER = 2.0
#: "comparable" / "does not affect": slower median at most this many times the faster.
COMPARABLE_TIME = 1.5
#: Timed repetitions after the warm-up.
REPEAT = 5

#: Table 7 of the paper, seconds (k = 50, m = 3, qi = 8, qd = 3, sel = 5%).
PAPER_TABLE7 = {"MASK": 65.7, "MASK++": 66.3, "MASK++ (bucketization)": 66.3}
#: Table 8 of the paper, seconds (ℓ = 4, 300,000 IPUMS rows).
PAPER_TABLE8 = {
    "Mondrian": 9.2,
    "Mondrian++": 2.2,
    "Mondrian++ (bucketization)": 2.2,
    "Hilb": 2.1,
    "Hilb++": 0.6,
    "Hilb++ (bucketization)": 0.6,
    "Anatomy": 0.3,
}
#: Table 8's runs: label -> (algorithm, extra parameters).
TABLE8_RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "Anatomy": ("anatomy", {}),
    "Mondrian": ("mondrian", {"scheme": "generalization"}),
    "Mondrian+": ("mondrian+", {"scheme": "generalization"}),
    "Mondrian++": ("mondrian++", {"scheme": "generalization"}),
    "Mondrian++ (bucketization)": ("mondrian++", {"scheme": "bucketization"}),
    "Hilb": ("hilb", {"scheme": "generalization"}),
    "Hilb+": ("hilb+", {"scheme": "generalization"}),
    "Hilb++": ("hilb++", {"scheme": "generalization"}),
    "Hilb++ (bucketization)": ("hilb++", {"scheme": "bucketization"}),
}
#: Table 7's runs: label -> (algorithm, scheme).
TABLE7_RUNS: dict[str, tuple[str, str]] = {
    "MASK": ("mask", "generalization"),
    "MASK+": ("mask+", "generalization"),
    "MASK++": ("mask++", "generalization"),
    "MASK++ (bucketization)": ("mask++", "bucketization"),
}


def time_call(func: Callable[[], Any], repeat: int = REPEAT) -> tuple[list[float], Any]:
    """One untimed warm-up call, then ``repeat`` timed calls: (the seconds, the last result)."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    result = func()
    seconds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = func()
        seconds.append(time.perf_counter() - t0)
    return seconds, result


def _row(label: str, seconds: list[float], release: Any, paper: float | None) -> dict[str, Any]:
    return {
        "label": label,
        "median_s": statistics.median(seconds),
        "min_s": min(seconds),
        "max_s": max(seconds),
        "repeat": len(seconds),
        "groups": int(release.n_groups),
        "paper_s": paper,
    }


def table8(
    table: Table | None = None, *, l: int = 4, seed: int = 0, repeat: int = REPEAT
) -> pd.DataFrame:
    """Table 8: the time of Anatomy, Mondrian, Hilb and their repairs at ``ℓ = l``.

    Returns
    -------
    DataFrame
        One row per :data:`TABLE8_RUNS` label: ``median_s``, ``min_s``, ``max_s``, ``repeat``,
        ``groups``, ``paper_s`` (the paper's seconds, or None).
    """
    from anonlab.anonymize import anonymize
    from anonlab.experiments import jin_utility

    table = jin_utility.census_table() if table is None else table
    rows = []
    for label, (algorithm, params) in TABLE8_RUNS.items():
        seconds, release = time_call(
            lambda a=algorithm, p=params: anonymize(table, a, l=l, seed=seed, **p), repeat
        )
        rows.append(_row(label, seconds, release, PAPER_TABLE8.get(label)))
    return pd.DataFrame(rows)


def table7(
    table: Table | None = None,
    *,
    k: int = 50,
    m: int = 3,
    seed: int = 0,
    repeat: int = REPEAT,
    reading: str = "set",
) -> pd.DataFrame:
    """Table 7: the time of MASK, MASK+ and MASK++ at ``k``, ``m`` under ``reading``.

    Returns
    -------
    DataFrame
        One row per :data:`TABLE7_RUNS` label, columns as :func:`table8` plus ``reading``.
        ``groups`` is each release's own: MASK and MASK+ publish the k-anonymous groups (588 on
        Adult at k = 50), MASK++ the groups of its stratified pick-up with ℓ = m, which splits
        each of them into ``⌊|G|/m⌋`` groups of m to 2m − 1 records (§7, Theorem 7.1; 14,867).
    """
    from anonlab.experiments import jin, jin_utility

    table = jin_utility.adult_table() if table is None else table
    rows = []
    for label, (algorithm, scheme) in TABLE7_RUNS.items():
        seconds, release = time_call(
            lambda a=algorithm, s=scheme: jin.repair_release(
                table, a, k, m, seed, reading, scheme=s
            ),
            repeat,
        )
        rows.append({**_row(label, seconds, release, PAPER_TABLE7.get(label)), "reading": reading})
    return pd.DataFrame(rows)


def faster(frame: pd.DataFrame, a: str, b: str) -> bool:
    """``a`` runs faster than ``b`` beyond the noise: every repetition of ``a`` is quicker
    than every repetition of ``b`` (``max(a) < min(b)``)."""
    f = frame.set_index("label")
    return bool(f.loc[a, "max_s"] < f.loc[b, "min_s"])


def ratio(frame: pd.DataFrame, a: str, b: str) -> float:
    """Median time of ``a`` over median time of ``b``."""
    f = frame.set_index("label")
    return float(f.loc[a, "median_s"] / f.loc[b, "median_s"])


def _paper_ratio(paper: dict[str, float], a: str, b: str) -> float:
    return paper[a] / paper[b]


def _times(frame: pd.DataFrame, labels: Sequence[str]) -> str:
    f = frame.set_index("label")
    return "; ".join(
        f"{x} {1000 * f.loc[x, 'median_s']:.1f} ms "
        f"({1000 * f.loc[x, 'min_s']:.1f}–{1000 * f.loc[x, 'max_s']:.1f})"
        for x in labels
    )


def check_claims(t7: pd.DataFrame | None = None, t8: pd.DataFrame | None = None) -> list[dict]:
    """The paper's statements about Tables 7 and 8 as checks on our ratios.

    Returns
    -------
    list of dict
        Keys ``table`` (7 or 8), ``claim`` (the paper's statement), ``criterion`` (in words),
        ``paper_ratio`` (the ratio of the paper's seconds, or None), ``ratio`` (ours, medians),
        ``holds`` (bool) and ``numbers`` (our medians and ranges, as context).
    """
    out: list[dict] = []

    def add(table_no, claim, criterion, paper_ratio, our_ratio, holds, labels, frame):
        out.append(
            {
                "table": table_no,
                "claim": claim,
                "criterion": criterion,
                "paper_ratio": paper_ratio,
                "ratio": our_ratio,
                "holds": bool(holds),
                "numbers": f"ratio {our_ratio:.2f}; {_times(frame, labels)}",
            }
        )

    comparable = f"ratio of medians (slower / faster) ≤ {COMPARABLE_TIME:g}"
    much = f"ratio of medians ≥ {MUCH_FASTER:g} ('much')"
    if t7 is not None:
        p = PAPER_TABLE7
        r = ratio(t7, "MASK++", "MASK")
        add(
            7,
            "MASK++ runs slower than MASK",
            "every repetition slower (ranges disjoint)",
            _paper_ratio(p, "MASK++", "MASK"),
            r,
            faster(t7, "MASK", "MASK++"),
            ("MASK", "MASK++"),
            t7,
        )
        for label in ("MASK++", "MASK++ (bucketization)"):
            r = ratio(t7, label, "MASK")
            add(
                7,
                f"{label} and MASK: performances comparable",
                comparable,
                _paper_ratio(p, label, "MASK"),
                r,
                max(r, 1 / r) <= COMPARABLE_TIME,
                ("MASK", label),
                t7,
            )
    if t8 is not None:
        p = PAPER_TABLE8
        for alg in ("Mondrian++", "Hilb++"):
            bucket = f"{alg} (bucketization)"
            r = ratio(t8, bucket, alg)
            add(
                8,
                f"{alg}: the scheme (generalization, bucketization) does not affect the time",
                comparable,
                _paper_ratio(p, bucket, alg),
                r,
                max(r, 1 / r) <= COMPARABLE_TIME,
                (alg, bucket),
                t8,
            )
        for base in ("Mondrian", "Hilb"):
            for label in (f"{base}++", f"{base}++ (bucketization)"):
                r = ratio(t8, base, label)
                add(
                    8,
                    f"{label} runs much faster than {base}",
                    much,
                    _paper_ratio(p, base, label),
                    r,
                    r >= MUCH_FASTER,
                    (base, label),
                    t8,
                )
        order = ("Anatomy", "Hilb++", "Mondrian++")
        add(
            8,
            "Hilb++ lower than Mondrian++ but higher than Anatomy",
            "Anatomy < Hilb++ < Mondrian++, every repetition (ranges disjoint)",
            None,
            ratio(t8, "Mondrian++", "Anatomy"),
            faster(t8, "Anatomy", "Hilb++") and faster(t8, "Hilb++", "Mondrian++"),
            order,
            t8,
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print Tables 7 and 8 (our medians beside the paper's seconds) and the claims."""
    from anonlab.experiments import jin_utility

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=REPEAT)
    parser.add_argument("--census-rows", type=int, default=None)
    args = parser.parse_args(argv)
    t7 = pd.concat(
        [table7(repeat=args.repeat, reading=r) for r in ("set", "all-values")], ignore_index=True
    )
    t8 = table8(jin_utility.census_table(rows=args.census_rows), repeat=args.repeat)
    print("## Table 7 (Adult, k = 50, m = 3)\n\n" + frame_to_markdown(t7, ".4f") + "\n")
    print("## Table 8 (census-kdd-workers, ℓ = 4)\n\n" + frame_to_markdown(t8, ".4f") + "\n")
    claims = check_claims(None, t8)
    for reading, f in t7.groupby("reading"):
        claims += [{**c, "claim": f"{c['claim']} ({reading})"} for c in check_claims(f, None)]
    print("## Claims\n\n" + frame_to_markdown(pd.DataFrame(claims), ".2f"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
