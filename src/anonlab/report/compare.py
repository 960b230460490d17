"""Compare anonymizers: anonymize with each algorithm and each ℓ, audit every release, and draw
the privacy–utility frontier (issue 9 §2).

:func:`compare` runs, for every algorithm and every value of ℓ, the anonymizer
(:func:`anonlab.anonymize.anonymize`) and the publisher's audit
(:func:`anonlab.report.audit.audit`), and returns a :class:`Comparison` with one
:class:`CompareRow` per (algorithm, ℓ). Each row places its release on two axes:

* **privacy**: the share of records at risk under the *strongest* attack, i.e. the largest
  ``at_risk / considered`` over the audit's attacks with stated knowledge (deFinetti,
  foreground, negative rules, algorithm-based); the privacy-model checks, the
  re-identification risk and the utility stage are not attacks and are not counted. The row
  names the attack. Worst-case background knowledge (Martin et al.) is shown in its own column
  but is not a candidate: it is a bound over *every* set of k implications, near 100% at k = 1
  for any tight ℓ-diverse release (Anatomy 1.00 at every ℓ on Adult), so it would make the
  frontier rank query error alone.
* **utility**: the mean relative error of the audit's COUNT-query workload (the utility finding's
  ``measures["workload-error"]["mean_relative_error"]``).

A row is **Pareto-optimal** (on the frontier) when no other release has both a share at risk and
a query error at most its own, with one of them strictly smaller (:func:`pareto_optimal`).
:func:`render_compare_html` draws the table and the frontier in the audit report's format and
:func:`write_comparison` writes the whole folder (atomically).

Choices (documented in docs/compare.md):

* ℓ is passed as ``l`` to every algorithm that takes it; Injector also gets ``suppress=True``
  (records no bucketization can protect are withheld and counted, not an error); the lattice
  search gets ``model="l-diversity"``; the MASK family, which has no ℓ, gets ``m = ℓ``
  (m-confidentiality, whose promise 1/m the audit uses like 1/ℓ) and ``k = mask_k`` (default
  ``k = ℓ``, the smallest k MASK allows). Each of these is a field of the anonymizer's record
  (:class:`~anonlab.anonymize.registry.Anonymizer`: ``ell_as``, ``compare_parameters``).
* An algorithm that cannot make a release for a value (not ℓ-eligible, MASK+ infeasible, bad
  parameter) gives a *failed* row with the error's message as the reason; it is never dropped.
  Only :class:`~anonlab.errors.AnonlabError` is caught: any other exception is a bug and is
  raised.
* Shares, not counts, are compared: the deFinetti stage examines a random sample of targets,
  the other attacks every record. Among attacks with the same share the one that runs first in
  :func:`~anonlab.report.audit.stage_names` is named. A release on which no attack applies, or whose
  workload error is undefined, is shown but is not placed on the frontier (the reason is given).
* Two releases with the same (error, share) are both Pareto-optimal when nothing dominates them.
* ``seed`` seeds the anonymizers (it is each release's seed); the audits get their own seed,
  ``audit_seed`` (default 0), so no audit report states a release's seed. The compare page is
  an internal document (its banner says so): the folder holds every release's publisher copy
  and unredacted audit reports.
"""

from __future__ import annotations

import io
import json
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from anonlab._validation import check_int, check_seed
from anonlab.attacks import contract
from anonlab.errors import AnonlabError
from anonlab.finding import stage_of
from anonlab.release import Release
from anonlab.report.audit import (
    INTERNAL,
    Audit,
    attack_stages,
    audit,
    plain_json,
    stage_names,
)
from anonlab.report.budget import AuditBudget
from anonlab.report.decision import Thresholds
from anonlab.table import Table


def bound_stages() -> tuple[str, ...]:
    """The attacks that are worst-case bounds over all knowledge of a kind (:attr:`Attack.bound
    <anonlab.attacks.contract.Attack.bound>`): shown beside the others, never "the strongest"."""
    return tuple(a.name for a in contract.attacks() if a.bound)


def strongest_candidates() -> tuple[str, ...]:
    """The audit's attacks that can be "the strongest attack": every one that is not a bound."""
    bounds = bound_stages()
    return tuple(s for s in attack_stages() if s not in bounds)


# ---------------------------------------------------------------------- parameters
def comparable_algorithms() -> list[str]:
    """Names of the anonymizers whose record says which parameter takes ℓ
    (:attr:`Anonymizer.ell_as <anonlab.anonymize.registry.Anonymizer.ell_as>`: ``l``, or for
    the MASK family ``m``)."""
    from anonlab.anonymize.registry import compared

    return sorted(compared())


def check_algorithms(algorithms: Sequence[str]) -> list[str]:
    """The algorithm names, validated: known, comparable, each listed once."""
    from anonlab.anonymize import ALGORITHMS

    names = [str(a).strip() for a in algorithms]
    if not names:
        raise AnonlabError(
            f"parameter 'algorithms' is empty; choose from {', '.join(comparable_algorithms())}"
        )
    for name in names:
        if name not in ALGORITHMS:
            raise AnonlabError(
                f"unknown algorithm {name!r} in 'algorithms'; comparable: "
                f"{', '.join(comparable_algorithms())}"
            )
        if name not in comparable_algorithms():
            raise AnonlabError(
                f"algorithm {name!r} takes no ℓ (or m) parameter and cannot be swept over ℓ; "
                f"comparable: {', '.join(comparable_algorithms())}"
            )
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise AnonlabError(f"algorithm(s) {twice} listed more than once in 'algorithms'")
    return names


_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$")


def parse_l_values(text: str) -> list[int]:
    """``"2..6"`` -> [2, 3, 4, 5, 6]; ``"2,4,6"`` -> [2, 4, 6]; ``"4"`` -> [4]. Every ℓ >= 2."""
    text = str(text).strip()
    m = _RANGE.match(text)
    if m:
        low, high = int(m.group(1)), int(m.group(2))
        if low > high:
            raise AnonlabError(
                f"--l {text!r}: the range is empty (start {low} > end {high}); write LOW..HIGH, "
                "e.g. 2..6"
            )
        values = list(range(low, high + 1))
    else:
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not parts or not all(re.fullmatch(r"-?\d+", p) for p in parts):
            raise AnonlabError(
                f"--l {text!r} is not a range LOW..HIGH (e.g. 2..6), a list (e.g. 2,4,6) or one "
                "integer"
            )
        values = [int(p) for p in parts]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise AnonlabError(f"--l {text!r}: value(s) {twice} listed more than once")
    return check_l_values(values)


def check_l_values(values: Sequence[int]) -> list[int]:
    """ℓ values, validated: integers >= 2 (ℓ = 1 promises nothing), at least one."""
    values = [check_int("l", v, minimum=2) for v in values]
    if not values:
        raise AnonlabError("parameter 'l_values' is empty; give at least one ℓ >= 2")
    return values


def release_parameters(
    algorithm: str,
    l: int,
    *,
    mask_k: int | None = None,
    sensitive_values: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The keyword parameters that make ``algorithm``'s release for ℓ = ``l`` (see module),
    from its registry record (:meth:`Anonymizer.ell_parameters
    <anonlab.anonymize.registry.Anonymizer.ell_parameters>`)."""
    from anonlab.anonymize.registry import get

    record = get(algorithm)
    accepted = record.parameters
    params = record.ell_parameters(l, k=mask_k)
    if sensitive_values is not None and "sensitive_values" in accepted:
        params["sensitive_values"] = list(sensitive_values)
    return params


# ---------------------------------------------------------------------- results
@dataclass
class CompareRow:
    """One (algorithm, ℓ): its release's place on the frontier, or why it has none."""

    algorithm: str
    l: int
    name: str
    parameters: dict[str, Any]
    status: str  # "ok" or "failed"
    reason: str | None = None
    records: int | None = None  # records released
    suppressed: int = 0
    groups: int | None = None
    scheme: str | None = None
    strongest_attack: str | None = None  # the audit stage key
    strongest_title: str | None = None
    at_risk: int | None = None
    considered: int | None = None
    at_risk_share: float | None = None
    query_error: float | None = None
    pareto: bool = False
    meets_thresholds: bool | None = None  # its audit's decision (None: not audited)
    note: str | None = None  # why an ok row is not placed on the frontier
    attacks: dict[str, dict[str, Any]] = field(default_factory=dict)
    anonymize_seconds: float = 0.0
    audit_seconds: float = 0.0
    release: Release | None = field(default=None, repr=False)
    audit: Audit | None = field(default=None, repr=False)

    @property
    def placed(self) -> bool:
        """Whether the row has both coordinates (so it can be on the frontier)."""
        return self.at_risk_share is not None and self.query_error is not None

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("release", "audit")}
        out["report"] = f"{self.name}/audit.html" if self.status == "ok" else None
        return plain_json(out)


@dataclass
class Comparison:
    """Every row of a comparison, with the table described and the settings to re-run it."""

    table: dict[str, Any]
    algorithms: list[str]
    l_values: list[int]
    settings: dict[str, Any]
    rows: list[CompareRow]

    def frontier(self) -> list[CompareRow]:
        """The Pareto-optimal rows, by increasing query error."""
        return sorted((r for r in self.rows if r.pareto), key=lambda r: (r.query_error, r.name))

    def recommended(self) -> CompareRow | None:
        """Among the releases whose audit decides "release" against the thresholds, the one
        with the smallest query error (ties: the smaller share at risk, then the name); None
        when no release meets them."""
        ok = [r for r in self.rows if r.meets_thresholds and r.query_error is not None]
        if not ok:
            return None
        return min(ok, key=lambda r: (r.query_error, r.at_risk_share or 0.0, r.name))

    def row(self, algorithm: str, l: int) -> CompareRow:
        for r in self.rows:
            if r.algorithm == algorithm and r.l == l:
                return r
        raise KeyError((algorithm, l))

    def to_json(self) -> dict[str, Any]:
        return {
            "classification": INTERNAL,
            "table": plain_json(self.table),
            "algorithms": list(self.algorithms),
            "l_values": list(self.l_values),
            "settings": plain_json(self.settings),
            "axes": {
                "privacy": "share of records at risk under the strongest attack "
                "(largest at_risk / considered over "
                + ", ".join(strongest_candidates())
                + "; worst case is a bound and shown apart)",
                "utility": "mean relative error of the COUNT-query workload",
            },
            "frontier": [r.name for r in self.frontier()],
            "recommended": None if self.recommended() is None else self.recommended().name,
            "rows": [r.to_json() for r in self.rows],
        }


def pareto_optimal(errors: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """Which points no other point dominates (both coordinates <=, one <); smaller is better.

    ``errors`` and ``shares`` are 1-d and of equal length; NaN marks a point that is not placed
    (never optimal, never dominating).
    """
    x = np.asarray(errors, dtype=np.float64)
    y = np.asarray(shares, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise AnonlabError("errors and shares must be 1-d arrays of the same length")
    ok = np.isfinite(x) & np.isfinite(y)
    xo, yo = x[ok], y[ok]
    le = (xo[None, :] <= xo[:, None]) & (yo[None, :] <= yo[:, None])  # [i, j]: j at most i
    lt = (xo[None, :] < xo[:, None]) | (yo[None, :] < yo[:, None])
    dominated = (le & lt).any(axis=1)
    out = np.zeros(len(x), dtype=bool)
    out[np.flatnonzero(ok)] = ~dominated
    return out


def _strongest(result: Audit) -> tuple[dict[str, dict[str, Any]], str | None]:
    """Per attack stage its at-risk share; and the key of the largest (first on ties) among
    the attacks that are not bounds (:func:`bound_stages`)."""
    attacks: dict[str, dict[str, Any]] = {}
    best, best_share = None, -1.0
    all_attacks, bounds = attack_stages(), bound_stages()
    for f in result.findings:  # with several sensitive attributes, one per attack and attribute
        if stage_of(f.key) not in all_attacks:
            continue
        entry: dict[str, Any] = {"title": f.title, "verdict": f.verdict}
        if f.verdict != "skipped" and f.at_risk is not None and f.considered:
            share = f.at_risk / f.considered
            entry.update(at_risk=int(f.at_risk), considered=int(f.considered), share=share)
            if share > best_share and stage_of(f.key) not in bounds:
                best, best_share = f.key, share
        else:
            entry["reason"] = f.headline
        attacks[f.key] = entry
    return attacks, best


def _query_error(result: Audit) -> float | None:
    """The workload's mean relative error; with several sensitive attributes (one workload
    each, keyed ``utility/ATTRIBUTE``) the mean of theirs."""
    values = []
    for f in result.findings:
        if stage_of(f.key) != "utility":
            continue
        value = f.measures.get("workload-error", {}).get("mean_relative_error")
        if value is None or not math.isfinite(float(value)):
            return None
        values.append(float(value))
    return float(np.mean(values)) if values else None


def _suppressed(release: Release) -> int:
    return int(
        release.manifest.get("suppressed_records")
        or release.table.dropped.get("suppressed_records", 0)
        or 0
    )


# ---------------------------------------------------------------------- the comparison
def _timed(row: CompareRow, step: str, call: Callable[..., Any], /, *args: Any, **kwargs: Any):
    """``call(*args, **kwargs)`` (the step ``"anonymize"`` or ``"audit"`` of ``row``), its time
    in ``row.<step>_seconds``; on an :class:`~anonlab.errors.AnonlabError` the row is marked
    failed with the message as its reason (prefixed ``"audit: "`` for the audit) and the
    result is None."""
    t0 = time.perf_counter()
    try:
        return call(*args, **kwargs)
    except AnonlabError as exc:
        row.status, row.reason = "failed", f"{'audit: ' if step == 'audit' else ''}{exc}"
        return None
    finally:
        setattr(row, f"{step}_seconds", time.perf_counter() - t0)


def compare(
    table: Table,
    algorithms: Sequence[str],
    l_values: Sequence[int],
    *,
    stages: Sequence[str] | None = None,
    budget: AuditBudget | None = None,
    mask_k: int | None = None,
    sensitive_values: Sequence[str] | None = None,
    seed: int = 0,
    audit_seed: int = 0,
    progress: Callable[[str, str, CompareRow | None], None] | None = None,
    thresholds: Thresholds | None = None,
    **budget_fields: Any,
) -> Comparison:
    """Anonymize ``table`` with each algorithm at each ℓ, audit each release, mark the frontier.

    Parameters
    ----------
    table : Table
        The original table, with its quasi-identifiers and sensitive attribute.
    algorithms : sequence of str
        Names from :func:`comparable_algorithms` (each once).
    l_values : sequence of int
        The values of ℓ (each >= 2); the MASK family uses them as m.
    stages : sequence of str, optional
        The audit's stages (:func:`anonlab.report.audit.audit`); they must keep ``"utility"``
        and at least one attack.
    budget : AuditBudget, optional
        The audit's budget (:class:`~anonlab.report.budget.AuditBudget`); its fields may also
        be given by name (``**budget_fields``), as to :func:`~anonlab.report.audit.audit`.
    mask_k : int, optional
        k of the MASK family (default: k = ℓ).
    sensitive_values : sequence of str, optional
        Passed to the algorithms that take it (the protected value set).
    seed : int
        Seeds every anonymizer; stored in each manifest (publisher copy) and in the settings.
    audit_seed : int
        Seeds every audit (targets, chains, workload); the audit reports state it, never
        ``seed``.
    progress : callable, optional
        ``progress(name, step, row)``: ``step`` is ``"anonymize"``, an audit stage, or
        ``"done"`` (then ``row`` is the finished row, else None).
    thresholds : Thresholds, optional
        The publisher's thresholds (:class:`~anonlab.report.decision.Thresholds`): each audit
        decides release or not, and :meth:`Comparison.recommended` is the most useful release
        that meets them.

    Returns
    -------
    Comparison
        One row per (algorithm, ℓ), in the order given, failed ones included.
    """
    if not table.sensitive_attributes:
        table.require_sensitive()  # the error names --sensitive
    algorithms = check_algorithms(algorithms)
    l_values = check_l_values(l_values)
    known = stage_names()
    chosen = list(known if stages is None else stages)
    unknown = [s for s in chosen if s not in known]
    if unknown:
        raise AnonlabError(f"unknown audit stage(s) {unknown}; choose from {list(known)}")
    candidates = strongest_candidates()
    if "utility" not in chosen or not any(s in candidates for s in chosen):
        raise AnonlabError(
            f"parameter 'stages' {chosen} must keep 'utility' and at least one attack "
            f"({', '.join(candidates)}): the frontier needs both axes"
        )
    if mask_k is not None:
        mask_k = check_int("mask_k", mask_k, minimum=1)
    seed = check_seed(seed)
    audit_seed = check_seed(audit_seed)
    budget = AuditBudget.of(budget, **budget_fields)

    from anonlab.anonymize import anonymize

    rows: list[CompareRow] = []

    def done(row: CompareRow) -> None:
        rows.append(row)
        if progress is not None:
            progress(row.name, "done", row)

    for algorithm in algorithms:
        for l in l_values:
            name = f"{algorithm}-l{l}"
            params = release_parameters(
                algorithm, l, mask_k=mask_k, sensitive_values=sensitive_values
            )
            row = CompareRow(algorithm=algorithm, l=l, name=name, parameters=params, status="ok")
            if progress is not None:
                progress(name, "anonymize", None)
            release = _timed(row, "anonymize", anonymize, table, algorithm, seed=seed, **params)
            if release is None:
                done(row)
                continue
            row.records = int(release.table.n_rows)
            row.suppressed = _suppressed(release)
            row.groups = int(release.n_groups)
            row.scheme = release.scheme
            result = _timed(  # fails e.g. when every record is suppressed
                row,
                "audit",
                audit,
                release,
                stages=chosen,
                seed=audit_seed,
                progress=None if progress is None else (lambda s, n=name: progress(n, s, None)),
                budget=budget,
                thresholds=thresholds,
            )
            if result is None:
                done(row)
                continue
            row.release, row.audit = release, result
            row.meets_thresholds = None if result.decision is None else result.decision.release
            row.attacks, best = _strongest(result)
            if best is not None:
                a = row.attacks[best]
                row.strongest_attack, row.strongest_title = best, a["title"]
                row.at_risk, row.considered = a["at_risk"], a["considered"]
                row.at_risk_share = a["share"]
            row.query_error = _query_error(result)
            if best is None:
                row.note = "no attack applied to this release"
            elif row.query_error is None:
                row.note = "the workload error is undefined (no query had a nonzero answer)"
            done(row)

    nan = float("nan")
    optimal = pareto_optimal(
        np.array([nan if r.query_error is None else r.query_error for r in rows]),
        np.array([nan if r.at_risk_share is None else r.at_risk_share for r in rows]),
    )
    for r, on in zip(rows, optimal.tolist(), strict=True):
        r.pareto = bool(on)
    info = {
        "records": int(table.n_rows),
        "quasi_identifiers": list(table.quasi_identifiers),
        "sensitive": list(table.sensitive_attributes)
        if len(table.sensitive_attributes) > 1
        else table.sensitive,
        "dropped": dict(table.dropped),
    }
    settings = {
        "stages": chosen,
        **budget.to_dict(),
        "mask_k": mask_k,
        "sensitive_values": None if sensitive_values is None else list(sensitive_values),
        "seed": seed,
        "audit_seed": audit_seed,
        "thresholds": asdict(thresholds or Thresholds()),
    }
    return Comparison(info, list(algorithms), list(l_values), settings, rows)


# ---------------------------------------------------------------------- HTML
def frontier_plot(comparison: Comparison) -> str | None:
    """The privacy–utility plane as inline SVG: every placed release, the frontier as a line."""
    from anonlab.report.plots import figure

    placed = [r for r in comparison.rows if r.placed]
    if not placed:
        return None
    plt, fig, ax = figure(width=7.0, height=4.2)
    markers = "osD^vP*Xh<>"
    for i, algorithm in enumerate(comparison.algorithms):
        mine = [r for r in placed if r.algorithm == algorithm]
        if not mine:
            continue
        x = [r.query_error for r in mine]
        y = [r.at_risk_share for r in mine]
        ax.scatter(x, y, marker=markers[i % len(markers)], s=42, label=algorithm, zorder=3)
        for r in mine:
            ax.annotate(
                f"ℓ={r.l}", (r.query_error, r.at_risk_share), textcoords="offset points",
                xytext=(4, 4), fontsize=7,
            )  # fmt: skip
    front = comparison.frontier()
    if front:
        fx = [r.query_error for r in front]
        fy = [r.at_risk_share for r in front]
        ax.step(fx, fy, where="post", color="black", lw=1, ls="--", zorder=2,
                label="Pareto frontier")  # fmt: skip
        ax.scatter(fx, fy, s=140, facecolors="none", edgecolors="black", zorder=4)
    ax.set_xlabel("mean relative error of the COUNT queries (lower is better)")
    ax.set_ylabel("share of records at risk,\nstrongest attack (lower is better)")
    ax.set_ylim(0.0, 1.05)  # a share
    errors = [r.query_error for r in placed]
    if min(errors) > 0 and max(errors) / min(errors) > 10:  # spread over decades: log scale
        ax.set_xscale("log")
        ax.set_xlabel("mean relative error of the COUNT queries, log scale (lower is better)")
    else:
        ax.set_xlim(left=0.0)
    ax.legend(fontsize=8)
    buffer = io.StringIO()
    fig.tight_layout()
    # no date and fixed element ids: the same comparison gives the same page, byte for byte
    with plt.rc_context({"svg.hashsalt": "anonlab-compare"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _rows_table(comparison: Comparison) -> str:
    from anonlab.report.html import badge, escape

    head = (
        "<tr><th>release</th><th>ℓ</th><th>frontier</th><th>records (suppressed)</th>"
        "<th>groups</th><th>strongest attack</th><th>records at risk</th><th>share at risk</th>"
        "<th>query error</th><th>seconds (anonymize + audit)</th><th>note</th></tr>"
    )
    body = []
    for r in comparison.rows:
        if r.status != "ok":
            body.append(
                f"<tr><td>{escape(r.name)}</td><td class='num'>{r.l}</td>"
                f"<td>{badge('failed')}</td><td colspan='7'>{escape(r.reason)}</td>"
                f"<td class='num'>{r.anonymize_seconds + r.audit_seconds:.1f}</td></tr>"
            )
            continue
        link = f'<a href="{escape(quote(r.name, safe="+"))}/audit.html">{escape(r.name)}</a>'
        mark = "<b title='Pareto-optimal'>★</b>" if r.pareto else ""
        suppressed = f" ({r.suppressed:,})" if r.suppressed else ""
        risk = "—" if r.at_risk is None else f"{r.at_risk:,} of {r.considered:,}"
        share = "—" if r.at_risk_share is None else f"{r.at_risk_share:.2%}"
        error = "—" if r.query_error is None else f"{r.query_error:.4f}"
        body.append(
            f"<tr><td>{link}</td><td class='num'>{r.l}</td>"
            f"<td>{mark}</td><td class='num'>{r.records:,}{escape(suppressed)}</td>"
            f"<td class='num'>{r.groups:,}</td>"
            f"<td title='{escape(r.strongest_title or '')}'>"
            f"{escape(r.strongest_attack or '—')}</td>"
            f"<td class='num'>{escape(risk)}</td><td class='num'>{escape(share)}</td>"
            f"<td class='num'>{escape(error)}</td>"
            f"<td class='num'>{r.anonymize_seconds:.1f} + {r.audit_seconds:.1f}</td>"
            f"<td>{escape(r.note or '')}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _attacks_table(comparison: Comparison) -> str:
    from anonlab.report.html import escape

    ok = [r for r in comparison.rows if r.status == "ok"]
    if not ok:
        return ""
    keys = [k for k in attack_stages() if any(k in r.attacks for r in ok)]
    titles = {k: next(r.attacks[k]["title"] for r in ok if k in r.attacks) for k in keys}
    head = "<tr><th>release</th>" + "".join(f"<th>{escape(titles[k])}</th>" for k in keys) + "</tr>"
    body = []
    for r in ok:
        cells = []
        for k in keys:
            a = r.attacks.get(k)
            if a is None or "share" not in a:
                cells.append("<td class='muted'>skipped</td>")
                continue
            text = f"{a['share']:.2%} ({a['at_risk']:,} of {a['considered']:,})"
            strong = k == r.strongest_attack
            cells.append(f"<td class='num'>{'<b>' if strong else ''}{escape(text)}"
                         f"{'</b>' if strong else ''}</td>")  # fmt: skip
        body.append(f"<tr><td>{escape(r.name)}</td>{''.join(cells)}</tr>")
    return f"<table>{head}{''.join(body)}</table>"


def render_compare_html(comparison: Comparison, title: str | None = None) -> str:
    """The comparison as one self-contained HTML page (inline CSS and SVG, values escaped)."""
    from anonlab.report.html import document, escape, kv_table

    t = comparison.table
    title = title or "anonlab compare: the privacy–utility frontier"
    failed = [r for r in comparison.rows if r.status != "ok"]
    front = comparison.frontier()
    summary = (
        f"{t['records']:,} records; quasi-identifiers {', '.join(t['quasi_identifiers'])}; "
        f"sensitive {t['sensitive']}. Algorithms {', '.join(comparison.algorithms)} at ℓ = "
        f"{', '.join(map(str, comparison.l_values))}: {len(comparison.rows)} releases, "
        f"{len(failed)} failed, {len(front)} on the frontier."
    )
    front_words = (
        "; ".join(
            f"{r.name} ({r.at_risk_share:.2%} at risk under {r.strongest_title}, query error "
            f"{r.query_error:.4f})"
            for r in front
        )
        or "no release could be placed"
    )
    svg = frontier_plot(comparison)
    figure = (
        f"<figure>{svg}<figcaption>Each release at its query error and the share of records at "
        "risk under its strongest attack; circled points and the dashed line are the Pareto "
        "frontier.</figcaption></figure>"
        if svg
        else "<p class='muted'>No release could be placed on the plane.</p>"
    )
    best = comparison.recommended()
    th = comparison.settings.get("thresholds") or {}
    limits = (
        f"highest re-identification risk ≤ {th.get('max_risk')}, at most "
        f"{th.get('max_share_at_risk', 0):.0%} of records at risk under any attack, the "
        "release's own model holds"
    )
    meets = (
        f"<b>{escape(best.name)}</b> is the most useful release that meets the thresholds "
        f"({escape(limits)}): query error {best.query_error:.4f}, its audit decides "
        "&ldquo;release&rdquo;."
        if best is not None
        else f"No release meets the thresholds ({escape(limits)}); each release's audit says "
        "why and what to do next."
    )
    body = f"""<h2>Against the thresholds</h2>
<p>{meets}</p>
<h2>The frontier</h2>
<p>A release is on the frontier (Pareto-optimal, ★) when no other release is at least as good
on both axes (share of records at risk, query error) and better on one. <b>Frontier:</b>
{escape(front_words)}.</p>
{figure}
<h2>Releases</h2>
<p><b>Share at risk</b>: the largest share of records at risk (records whose true sensitive value
gets more than the release's promise) over the audit's attacks with stated knowledge; the
privacy-model checks, the re-identification risk, the utility stage and the worst-case bound
(shown in its own column below) are not counted. <b>Query error</b>: the mean
relative error of the COUNT-query workload. ★: on the frontier. A failed row says why the
algorithm could not make that release. Click a release for its full audit report.</p>
{_rows_table(comparison)}
<h2>Every attack</h2>
<p>Share of records at risk under each attack (bold: the strongest).</p>
{_attacks_table(comparison)}
<h2 id="settings">Settings and seeds</h2>
<p>Every anonymizer and every audit used these settings; re-running with them gives the same
page.</p>
{kv_table(comparison.settings)}"""
    return document(title, summary, body, banner=INTERNAL)


def write_comparison(
    comparison: Comparison, out: str | Path, *, force: bool = False, title: str | None = None
) -> Path:
    """Write ``out/compare.html``, ``out/compare.json`` and, per release made,
    ``out/<algorithm>-l<ℓ>/`` (the release files, ``audit.html``, ``audit.json``), atomically."""
    from anonlab.release_io import atomic_directory, atomic_write_text, save_release
    from anonlab.report.html import write_html, write_json

    out = Path(out)
    with atomic_directory(out, force=force) as tmp:
        for r in comparison.rows:
            if r.status != "ok" or r.release is None or r.audit is None:
                continue
            save_release(r.release, tmp / r.name)
            write_html(r.audit, tmp / r.name / "audit.html",
                       title=f"anonlab audit: {r.algorithm} at ℓ = {r.l}")  # fmt: skip
            write_json(r.audit, tmp / r.name / "audit.json")
        atomic_write_text(tmp / "compare.html", render_compare_html(comparison, title))
        atomic_write_text(
            tmp / "compare.json",
            json.dumps(comparison.to_json(), indent=2, ensure_ascii=False) + "\n",
        )
    return out
