"""``anonlab reproduce``: every paper's experiments, as claims against criteria fixed before the
run (issue 18, item 4).

One adapter per paper (:data:`PAPERS`), each in its own module of this package and built
**only** by calling that paper's experiment module, turning what it returns into
:class:`~anonlab.experiments.claims.Claim` objects and regenerated figures:

* :mod:`.martin` — :mod:`anonlab.experiments.martin` (Figures 5, 6);
* :mod:`.kifer` — :mod:`anonlab.experiments.kifer` (Table 7);
* :mod:`.wong` — :mod:`anonlab.experiments.wong` (§5, Figures 1-2);
* :mod:`.li` — :mod:`anonlab.experiments.li` (Figures 3-8);
* :mod:`.jin` — :mod:`anonlab.experiments.jin` and :mod:`anonlab.experiments.jin_utility`
  (Figures 6, 7, 9, 10).

The papers' values come from the modules' ``PAPER`` constants; the tolerances are the ones the
issues set (issue 4 Kifer, 5 Wong, 6 Li, 7 Martin, 8 Jin), taken from the modules' constants
where they exist (``kifer.ACC_MARGIN``, ``kifer.SPREAD_TOLERANCE``, ``wong.HEADLINE_TOLERANCE``,
``li.COUNT_TOLERANCE``, ``martin.SMALL_GAP``, ``jin.TREND_SE``, ...). A number the issue asks to
*report* without a goal is a claim with ``passed = None``. A check that holds by construction is
a claim of kind ``"sanity"`` with the reason it cannot fail; it is listed apart and never counted
as a reproduction. Where a paper is ambiguous, each defensible reading the module parameterizes is
run and its claims carry the reading (Kifer's grouping, Wong's small-signature rule, Martin's
"non-increasing", Jin's protection of the sensitive set in Figures 6 and 7).

:func:`reproduce` runs the chosen adapters and writes one folder: ``reproduction.md`` (the
summary, :func:`anonlab.experiments.claims.render_summary`), ``claims.json`` and
``figures/<paper>/*.png``, atomically (the folder appears whole or not at all).

``quick=True`` runs reduced versions (fewer seeds, chains, sweeps, grid points and queries, a
sample of census-kdd-workers for Jin's Figure 10) that finish in minutes on a 2-core machine;
every reduction is written in the claims' settings column. The full run uses each module's own
defaults (its ``main()``'s), which take much longer (Kifer: 2 groupings × 5 seeds × 3 ℓ; Jin:
20 seeds per cell and the qi/qd/s sweeps). Left out even of the full run: Kifer's convergence
sweep and model comparison, Li's Figure 3 ablations (see each module's ``main``).

Quick settings (choices of ours, stated in every claim's settings): Kifer Anatomize grouping
only, grouping seeds 0-1, 2 chains × 60 sweeps; Wong one Anatomy seed and QI sizes 3-5 for
Figures 1-2, without the t-closeness panel; Li Anatomy seeds 0-1; Jin 3 seeds per Figure 6
cell, 3 shares, fewer k/m/ℓ values, 1,000 queries and a 20,000-row sample for Figure 10; Martin
unchanged (it takes seconds).

Each adapter has the signature ``(quick, figures_dir) -> PaperResult``: the claims, the figures
(written under ``figures_dir``), notes, and the error if the experiment failed; the runner times
it. A failing experiment does not stop the others: it is shown in the summary and the command
exits with code 1.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.experiments.claims import Claim, PaperResult, render_summary
from anonlab.experiments.reproduce.common import relative_path
from anonlab.experiments.reproduce.jin import jin_claims
from anonlab.experiments.reproduce.kifer import kifer_claims
from anonlab.experiments.reproduce.li import li_claims
from anonlab.experiments.reproduce.martin import martin_claims
from anonlab.experiments.reproduce.wong import wong_claims

SUMMARY_NAME = "reproduction.md"
CLAIMS_NAME = "claims.json"
FIGURES = "figures"


#: Paper key -> adapter. ``anonlab reproduce`` accepts these names (and ``all``).
PAPERS: dict[str, Callable[[bool, Path], PaperResult]] = {
    "martin": martin_claims,
    "kifer": kifer_claims,
    "wong": wong_claims,
    "li": li_claims,
    "jin": jin_claims,
}


def resolve_papers(names: Sequence[str] | None) -> list[str]:
    """Paper keys in :data:`PAPERS` order; empty or ``all`` means every paper."""
    names = [n.strip().lower() for n in (names or []) if n.strip()]
    if not names or "all" in names:
        return list(PAPERS)
    unknown = [n for n in names if n not in PAPERS]
    if unknown:
        raise AnonlabError(f"unknown paper(s) {unknown}; valid: {', '.join(PAPERS)} or all")
    return [p for p in PAPERS if p in names]


def run_papers(
    papers: Sequence[str],
    figures: Path,
    *,
    quick: bool,
    progress: Callable[[str], None] | None = None,
) -> list[PaperResult]:
    """Run each adapter; a failure is recorded in its result (the others still run)."""
    results = []
    for key in resolve_papers(papers):
        if progress:
            progress(f"{key}: running{' (quick)' if quick else ''}")
        t0 = time.perf_counter()
        try:
            r = PAPERS[key](quick, figures)
        except Exception as exc:  # noqa: BLE001 — reported in the summary, not swallowed
            r = PaperResult(key, key, error=f"{type(exc).__name__}: {exc}")
        r.seconds = time.perf_counter() - t0
        if progress:
            for reading, n in r.count_rows():
                label = f"{key} [{reading}]" if reading else key
                progress(
                    f"{label}: {n['pass']} pass, {n['miss']} miss, {n['reported']} reported; "
                    f"{n['sanity']} sanity checks apart ({r.seconds:.1f} s)"
                    + (f"; FAILED: {r.error}" if r.error else "")
                )
        results.append(r)
    return results


def header(command: str, quick: bool, seconds: float) -> str:
    """The summary's header: what produced it, when, and in which mode."""
    from anonlab._version import __version__

    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    mode = (
        "**--quick**: reduced settings (fewer seeds, chains, sweeps, grid points and queries; "
        "each claim's settings column says which), so some numbers differ from a full run"
        if quick
        else "full settings (each experiment module's defaults)"
    )
    return (
        "# Reproduction of the papers' experiments\n\n"
        f"Produced by `{command}` (anonlab {__version__}, {now}; {seconds:.0f} s on a shared "
        f"2-core machine). Mode: {mode}. **Generated file: do not edit by hand.**\n\n"
        "Each row: the paper's value (or stated trend), ours, ours − paper, the criterion fixed "
        "before the run (the tolerance the paper's issue set, or the module's pre-registered "
        "rule), the settings, and the result: *pass*, **miss**, or *reported* (the issue asks "
        "for the number beside the paper's without a goal). **Paper claims** are numbers or "
        "trends the paper reports, which our run could miss; **sanity checks** hold by "
        "construction (a theorem, a property of the algorithm or of the data), are listed "
        "apart with the reason, and are never counted as reproductions. Where a paper is "
        "ambiguous, every defensible reading is run and shown side by side, none preferred. "
        "Code: `src/anonlab/experiments/reproduce/` (one adapter per paper) and `claims.py` "
        "(protocol)."
    )


def reproduce(
    papers: Sequence[str] | None,
    out: str | os.PathLike,
    *,
    quick: bool = False,
    force: bool = False,
    summary: str | os.PathLike | None = None,
    command: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[PaperResult]:
    """Run the papers' experiments and write ``out`` (atomically): the summary, the claims as
    JSON and the figures; optionally a copy of the summary at ``summary`` (figure links made
    relative to it).

    Raises
    ------
    AnonlabError
        An unknown paper, an existing ``out`` without ``force``, a missing folder for ``out`` or
        ``summary``.
    """
    from anonlab.release_io import atomic_directory, atomic_write_text, require_output_free

    keys = resolve_papers(papers)
    out = require_output_free(out, force)
    if summary is not None:
        summary = Path(summary)
        if not summary.parent.is_dir():
            raise AnonlabError(f"the folder {str(summary.parent)!r} for --summary does not exist")
        if summary.is_dir():
            raise AnonlabError(f"--summary {str(summary)!r} is a directory; give a .md file")
    command = command or (
        f"anonlab reproduce {' '.join(keys)}{' --quick' if quick else ''} --out {out}"
    )
    t0 = time.perf_counter()
    with atomic_directory(out, force=force) as tmp:
        results = run_papers(keys, tmp / FIGURES, quick=quick, progress=progress)
        for r in results:
            r.figures = [replace(f, path=relative_path(Path(f.path), tmp)) for f in r.figures]
        head = header(command, quick, time.perf_counter() - t0)
        atomic_write_text(tmp / SUMMARY_NAME, render_summary(results, head))
        payload = {
            "command": command,
            "quick": quick,
            "papers": [
                {
                    "paper": r.key,
                    "title": r.title,
                    "seconds": r.seconds,
                    "error": r.error,
                    "counts": r.counts(),
                    "counts_by_reading": {rd: n for rd, n in r.count_rows() if rd},
                    "claims": [c.to_json() for c in r.claims],
                    "figures": [f.path for f in r.figures],
                }
                for r in results
            ],
        }
        atomic_write_text(tmp / CLAIMS_NAME, json.dumps(payload, indent=2, default=str) + "\n")
    if summary is not None:
        moved = [
            replace(
                r,
                figures=[
                    replace(f, path=relative_path(out / f.path, summary.parent)) for f in r.figures
                ],
            )
            for r in results
        ]
        atomic_write_text(summary, render_summary(moved, head))
    return results


def claims_frame(results: Sequence[PaperResult]) -> pd.DataFrame:
    """Every claim as one row (for scripts and tests)."""
    rows: list[dict] = []
    for r in results:
        rows += [c.to_json() for c in r.claims]
    return pd.DataFrame(rows)


__all__ = [
    "CLAIMS_NAME",
    "FIGURES",
    "PAPERS",
    "SUMMARY_NAME",
    "Claim",
    "PaperResult",
    "claims_frame",
    "header",
    "jin_claims",
    "kifer_claims",
    "li_claims",
    "martin_claims",
    "reproduce",
    "resolve_papers",
    "run_papers",
    "wong_claims",
]
