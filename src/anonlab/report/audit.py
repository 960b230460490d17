"""The publisher's audit: every check, attack and utility measure that applies to a release.

:func:`audit` runs, in order, the privacy-model checks, each registered attack
(:mod:`anonlab.attacks.contract`; :func:`stage_names` lists the stages) whose input the release
can give, re-identification risk and the COUNT-query workload, and returns an :class:`Audit` of
:class:`~anonlab.finding.Finding` objects. The attacks' findings are built by the attacks' own
modules (each record's ``judge``); this module holds the stages that are not attacks. Each
finding states what the attacker is assumed to know, the *promise* the release makes (the
bound a record's inferred probability should stay under), how many records are at risk beyond
it, the worst records, the strongest inference in words, and the random-worlds baseline beside
it. :mod:`anonlab.report.html` renders an Audit as one
self-contained HTML file; ``to_json()`` is the JSON summary.

Choices (documented in docs/audit.md):

* The promise is ``1/ℓ`` when the release was made for ℓ (``l`` in its manifest), else ``1/m``
  (m-confidentiality), else each record's own random-worlds probability of its true value.
* A record is *at risk* under an attack when the attack gives its **true** value a probability
  above the promise (the publisher's view: confident wrong guesses are reported separately as
  confident records where the attack gives them). For the sampled deFinetti posterior "above"
  means by more than the Monte-Carlo noise: 0.01 or three between-chain standard errors.
* The worst case (Martin et al.) is judged at ``worst_case_k`` basic implications (default 1):
  (c,k)-safety with ``c`` = the promise; the curve to ``k_max`` is shown beside it (see
  :mod:`anonlab.attacks.worst_case`).
* Attacks are scored against the publisher's copy of the original (the release's table), never
  read by the attacks themselves: :func:`anonlab.attacks.contract.run` gives them the
  adversary's copy (:meth:`~anonlab.release.Release.adversary_copy`).
* An audit is an internal document: its findings name records (position, group, exact
  quasi-identifiers, inferred value, whether it is right). Every serialisation states so
  (:data:`INTERNAL`). :meth:`Audit.redacted` is the shareable form (:data:`REDACTED`): the
  verdicts and aggregate figures, no record-level value and no value of the data
  (:data:`Finding.RECORD_LEVEL` and each finding's ``value_paths`` say what goes).
* Neither form names the release's seed or its export key; ``settings["seed"]`` is the audit's
  own seed (its targets, chains and workload), an audit parameter chosen by whoever runs it.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonlab._validation import check_seed, require_release
from anonlab.attacks import contract
from anonlab.errors import AnonlabError
from anonlab.finding import (
    DATA_PARAMETERS,
    SECRET_PARAMETERS,
    Finding,
    attribute_key,
    plain_json,
    withheld,
)
from anonlab.release import Release
from anonlab.report.budget import AuditBudget
from anonlab.report.decision import Decision, Thresholds, decide
from anonlab.schema import Kind

#: Stages that are not attacks: before the attacks, the privacy-model checks; after them,
#: re-identification risk and utility.
CHECK_STAGES = ("checks",)
MEASURE_STAGES = ("risk", "utility", "distributions")


#: The stages besides the attacks that read one sensitive attribute, run once per attribute of
#: a release with several (the COUNT-query workload's queries name a sensitive value).
PER_ATTRIBUTE = ("utility",)


def attack_stages() -> tuple[str, ...]:
    """The attacks the audit runs, in order: every registered attack
    (:func:`anonlab.attacks.contract.names`, by ``order``)."""
    return contract.names()


def stage_names() -> tuple[str, ...]:
    """Every stage in the order it runs: the checks, the attacks (:func:`attack_stages`), risk
    and utility. Read at call time, so an attack registered after import (a plug-in, a test's
    toy) runs too."""
    return (*CHECK_STAGES, *attack_stages(), *MEASURE_STAGES)


#: The stages at import time (the built-in attacks); :func:`stage_names` includes attacks
#: registered later.
STAGES = stage_names()


#: The classification every unredacted report carries (HTML banner, JSON "classification").
INTERNAL = "internal: contains record-level findings; do not publish"
#: The classification of a redacted report (:meth:`Audit.redacted`).
REDACTED = (
    "redacted: aggregate figures only; record positions, group ids, quasi-identifier and "
    "sensitive values, strongest inferences, worst records and examples mined from the data "
    "removed"
)
#: An example value quoted in a column's type note (:func:`anonlab.table._show` quotes with
#: ``repr``), which the redacted audit withholds.
_EXAMPLE = re.compile(r"""e\.g\. (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


@dataclass
class Audit:
    """All findings on one release, with the settings to re-run the audit exactly.

    ``release`` describes the release (algorithm, parameters, scheme, counts, attribute names);
    it never holds the release's seed or export key. ``is_redacted`` is True for the shareable
    form made by :meth:`redacted`; :attr:`classification` is the banner either form carries.
    """

    release: dict[str, Any]
    findings: list[Finding]
    settings: dict[str, Any]
    is_redacted: bool = False
    #: Release or not against the publisher's thresholds (:mod:`anonlab.report.decision`).
    decision: Decision | None = None

    @property
    def classification(self) -> str:
        """:data:`INTERNAL` or, for a redacted audit, :data:`REDACTED`."""
        return REDACTED if self.is_redacted else INTERNAL

    def finding(self, key: str) -> Finding:
        for f in self.findings:
            if f.key == key:
                return f
        raise KeyError(key)

    def redacted(self) -> Audit:
        """The shareable form: verdicts and aggregate figures, no record-level value.

        Each finding is :meth:`Finding.redacted`; the release's parameters that hold values
        of the data (:data:`DATA_PARAMETERS`, e.g. the protected sensitive values) are replaced
        by how many values they held. The original audit is not changed.
        """
        release = copy.deepcopy(self.release)
        params = release.get("parameters")
        if isinstance(params, dict):
            for name in DATA_PARAMETERS:
                if params.get(name) is not None:
                    params[name] = withheld(params[name])
        types = (release.get("columns") or {}).get("types") or {}
        for decided in types.values():  # a type note quotes a value: "e.g. '01656'"
            if isinstance(decided, dict) and decided.get("note"):
                decided["note"] = _EXAMPLE.sub("e.g. (a value, withheld)", decided["note"])
        return Audit(
            release=release,
            findings=[f.redacted() for f in self.findings],
            settings=copy.deepcopy(self.settings),
            is_redacted=True,
            decision=copy.deepcopy(self.decision),  # aggregates only
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "classification": self.classification,
            "redacted": self.is_redacted,
            "decision": None if self.decision is None else plain_json(self.decision.to_json()),
            "release": plain_json(self.release),
            "settings": plain_json(self.settings),
            "findings": [f.to_json() for f in self.findings],
        }


def release_columns(release: Release) -> dict[str, Any]:
    """What the report's header says about the input's columns (issue 17, item 4): those
    published as they are (insensitive), those left out for want of a role and the
    identifiers dropped (``manifest["dropped"]``), the rows dropped for missing values, and
    how each column's type was decided where the release says (``manifest["column_types"]``,
    written by the CLI for ``--data``). Column names only, never values, so the redacted
    report keeps it."""
    dropped = release.manifest.get("dropped") or release.table.dropped or {}
    return {
        "insensitive": list(release.table.schema.insensitive),
        "not_published": list(dropped.get("columns") or []),
        "identifiers_dropped": list(dropped.get("identifiers") or []),
        "rows_with_missing": int(dropped.get("rows_with_missing") or 0),
        "types": dict(release.manifest.get("column_types") or {}),
    }


# ---------------------------------------------------------------------- stages
def _checks(release: Release, opts: dict) -> Finding:
    from anonlab.models.defaults import default_checks

    return checks_finding(
        default_checks(release),
        release.manifest.get("parameters", {}),
        release.table.n_rows,
        value_sets(release),
        exact_values(release),
    )


def checks_finding(
    results: Sequence[Any],
    made: dict,
    n_records: int,
    value_sets: dict[str, int] | None = None,
    exact: dict[str, int] | None = None,
) -> Finding:
    """The checks stage's finding from the models' verdicts (:class:`CheckResult` objects, or
    any with their ``model``, ``parameters``, ``holds``, ``value`` and ``violating_records``:
    a cluster's reduced verdicts), the release's parameters ``made`` (which models are its
    own), its number of records, and the quasi-identifiers published as value sets or exact
    values with the records concerned (empty where not computed)."""
    value_sets = value_sets or {}
    exact = exact or {}
    failed = [r for r in results if not r.holds]
    own = [r for r in results if _is_own_model(r, made)]
    own_failed = [r for r in own if not r.holds]
    verdict = "fail" if own_failed else "pass"
    at_risk = max((r.violating_records for r in own_failed), default=0)
    headline = (
        f"meets its own model ({', '.join(r.model for r in own)})"
        if own and not own_failed
        else (
            f"violates its own model: {', '.join(r.model for r in own_failed)}"
            if own_failed
            else "no model parameters in the manifest; common models checked at defaults"
        )
    )
    if failed:
        headline += f"; {len(failed)} of {len(results)} models checked are violated"
    if value_sets:
        headline += (
            "; published as the set of the members' exact values (no hierarchy): "
            + ", ".join(f"{q} ({n:,} records)" for q, n in value_sets.items())
        )
    if exact:
        headline += (
            "; published as an exact value (every member of the group has it): "
            + ", ".join(f"{q} ({n:,} records)" for q, n in exact.items())
        )
    return Finding(
        key="checks",
        title="Privacy models",
        paper="k-anonymity, ℓ-diversity (frequency, distinct, entropy, recursive), "
        "t-closeness, m-confidentiality",
        attacker="—",
        promise="the model the release was made for",
        verdict=verdict if own else "info",
        headline=headline,
        at_risk=at_risk,
        considered=n_records,
        value_paths=[
            ("measures", r.model, "parameters", name)
            for r in results
            for name in DATA_PARAMETERS
            if name in (r.parameters or {})
        ],
        measures={
            r.model: {
                "parameters": r.parameters,
                "holds": r.holds,
                "value": r.value,
                "violating_records": r.violating_records,
            }
            for r in results
        },
        settings={"value_sets": value_sets, "exact_values": exact},
    )


def _published_only(release: Release) -> bool:
    """Whether ``release`` has no per-record groups but its published generalized values (a
    cluster's release, whose records are on the workers)."""
    return release.group is None and "generalization" in release.__dict__


def exact_values(release: Release) -> dict[str, int]:
    """Records whose published quasi-identifier is one exact value of its domain (issue 17,
    item 3: the audit flags it), per quasi-identifier with any.

    Under generalization a group whose members share one value publishes that value (a
    single number, a hierarchy leaf); under full-domain generalization a node that covers one
    value of the domain is that value too. Either is allowed by k-anonymity (every member has
    it), and is reported so the publisher sees which attributes are published exactly for how
    many records. A bucketized release publishes every quasi-identifier exactly by design and
    gives ``{}`` here (its QI table is the published form). A release known by its group
    statistics and published values (a cluster's, :mod:`anonlab.distributed.written_audit`)
    is read from those: one value is a published value covering one value of the domain.
    """
    if release.scheme != "generalization" or (
        release.group is None and not _published_only(release)
    ):
        return {}
    out: dict[str, int] = {}
    sizes = release.group_sizes
    table = release.table
    for q in release.quasi_identifiers:
        if release.group is None:
            ga = release.generalization[q]
            single = ga.lo == ga.hi if ga.lo is not None else ga.cover_size() == 1
            if single.any():
                out[q] = int(sizes[single].sum())
            continue
        lo, hi = release.code_range(q)
        if release.levels is not None:
            h = table.schema[q].hierarchy
            per_value = h.map(release.levels[q])[table.leaf_codes(q)]  # code -> node
            covered = np.bincount(per_value, minlength=int(per_value.max()) + 1)
            single = covered[per_value[lo]] == 1
        else:
            single = lo == hi
        if single.any():
            out[q] = int(sizes[single].sum())
    return out


def value_sets(release: Release) -> dict[str, int]:
    """Records whose published quasi-identifier is the set of its group members' exact values.

    Under generalization a categorical quasi-identifier without a hierarchy is published as the
    set of the values in the group (``{a,b}``): every member's exact value in disguise (issue
    17, item 3). Per such attribute, the records of groups with two or more values (a group
    sharing one value publishes that value, as any k-anonymous generalization does). Numeric
    ranges and hierarchy nodes are not counted; bucketization publishes exact quasi-identifiers
    by design and full-domain releases publish hierarchy levels, so both give ``{}``.
    """
    if release.scheme != "generalization" or release.levels is not None:
        return {}
    if release.group is None and not _published_only(release):
        return {}
    out: dict[str, int] = {}
    sizes = release.group_sizes
    for q in release.quasi_identifiers:
        att = release.table.schema[q]
        if att.kind is Kind.NUMERIC or att.hierarchy is not None:
            continue
        sets = release.generalization[q].mask.sum(axis=1) >= 2
        if sets.any():
            out[q] = int(sizes[sets].sum())
    return out


def _is_own_model(result, params: dict) -> bool:
    """Whether ``result`` checks a model the release was made for: the manifest's ``model``
    (a lattice search's, several joined by :data:`anonlab.models.COMBINATION`) when it names
    one, else the model each parameter given stands for (k, ℓ in the frequency form, m, t)."""
    made = params.get("model")
    if made:
        from anonlab import models

        return result.model in {spec.name for spec in models.parts(made)}
    if result.model == "k-anonymity":
        return "k" in params and params.get("k") is not None
    if result.model == "l-diversity":
        return params.get("l") is not None
    if result.model == "m-confidentiality":
        return params.get("m") is not None
    if result.model == "t-closeness":
        return params.get("t") is not None
    return result.model == params.get("model")


def one_level_up(release: Release, k: int) -> dict[str, dict[str, int]]:
    """For a full-domain release, per quasi-identifier below its hierarchy's top: the records
    that would stay in classes smaller than ``k`` if that attribute alone were generalized one
    level further (the "what to do next" of the decision: which attribute to generalize, and
    how many records it would leave to suppress). Other releases give ``{}`` (their groups are
    not lattice nodes)."""
    if release.levels is None:
        return {}
    table = release.table
    qi = list(release.quasi_identifiers)
    leaf = {q: table.leaf_codes(q)[table.codes[q]] for q in qi}  # per record
    nodes = {q: table.schema[q].hierarchy.map(release.levels[q])[leaf[q]] for q in qi}
    out: dict[str, dict[str, int]] = {}
    for q in qi:
        hierarchy = table.schema[q].hierarchy
        level = release.levels[q] + 1
        if level > hierarchy.height:
            continue
        columns = [nodes[a] if a != q else hierarchy.map(level)[leaf[q]] for a in qi]
        _, inverse, counts = np.unique(
            np.stack(columns, axis=1), axis=0, return_inverse=True, return_counts=True
        )
        size = counts[inverse.ravel()]
        out[q] = {"level": level, "records_below_k": int((size < k).sum())}
    return out


def _risk(release: Release, opts: dict) -> Finding:
    """Re-identification risk (El Emam 2013; ARX's sample summary,
    :func:`anonlab.utility.reidentification.reidentification_risk`).

    Under generalization the verdict is the prosecutor risk over the *published classes*
    (records publishing the same quasi-identifiers), journalist and marketer risk and the
    sample uniques beside it. A bucketized release publishes every record's exact
    quasi-identifiers, so who is in the data is disclosed by design: the finding says so in
    words, counts the records alone in their exact-QI class, and judges the risk the buckets
    control, the link of a record to its bucket (``1/|bucket|``)."""
    from anonlab.utility import measure
    from anonlab.utility.reidentification import reidentification_risk

    max_risk = opts.get("max_risk", 0.2)
    summary = reidentification_risk(release, threshold=max_risk)
    bucket = (
        measure(release, "prosecutor-risk", threshold=max_risk)  # per bucket
        if release.scheme == "bucketization"
        else None
    )
    level_up = None
    if (bucket if bucket is not None else summary.prosecutor).n_records_at_risk:
        level_up = one_level_up(release, int(np.ceil(1 / max_risk - 1e-9)))
    return risk_finding(summary, bucket, release.table.n_rows, max_risk, level_up)


def risk_finding(
    summary: Any,
    bucket: Any,
    n_records: int,
    max_risk: float,
    level_up: dict | None = None,
) -> Finding:
    """The risk stage's finding from the re-identification summary
    (:func:`~anonlab.utility.reidentification.reidentification_risk`), the per-bucket
    prosecutor risk of a bucketized release (``bucket``; None under generalization), the
    number of records, the publisher's threshold, and :func:`one_level_up` where computed."""
    if bucket is not None:
        risk = bucket
        title = "Re-identification risk (bucketized: presence disclosed; link 1/|bucket|)"
        model = "the link of a record to its bucket, 1/|bucket|"
        per_record = risk.per_record
        highest, average, n_at_risk = risk.highest, risk.average, risk.n_records_at_risk
    else:
        title = "Re-identification risk (prosecutor)"
        model = "the prosecutor model: 1/|class| over the published classes"
        p = summary.prosecutor
        per_record = p.per_record
        highest, average, n_at_risk = p.highest, p.average, p.n_records_at_risk
    measures: dict[str, Any] = {
        "highest": highest,
        "average": average,
        "n_records_at_risk": int(n_at_risk),
        "threshold": max_risk,
        "sample_uniques": summary.sample_uniques.to_json(),
        "journalist": summary.journalist.to_json(),
        "marketer": summary.marketer.to_json(),
    }
    if n_at_risk and level_up is not None:
        measures["one_level_up"] = level_up
    headline = (
        f"highest risk {highest:.3f}, average {average:.4f}; {int(n_at_risk):,} records above "
        f"{max_risk}; {summary.sample_uniques.n_unique:,} records alone in their class"
    )
    if bucket is not None:
        headline += f". {summary.statement}"
    return Finding(
        key="risk",
        title=title,
        paper=model,
        attacker="knows a target's quasi-identifiers and that the target is in the data",
        promise=f"risk <= {max_risk} per record (the publisher's threshold)",
        verdict="at risk" if n_at_risk else "pass",
        headline=headline,
        at_risk=int(n_at_risk),
        at_risk_records=np.flatnonzero(per_record > max_risk),
        considered=n_records,
        measures=measures,
    )


def _utility(release: Release, opts: dict) -> Finding:
    from anonlab.utility.defaults import default_measures

    qd = utility_qd(release.quasi_identifiers)
    res = default_measures(release, queries=opts["queries"], qd=qd, seed=opts["seed"])
    return utility_finding(res, opts["queries"], qd)


def utility_qd(quasi_identifiers: Sequence[str]) -> int:
    """The audit workload's quasi-identifiers per query: the papers' qd = 3, fewer when the
    release has fewer."""
    return min(3, len(quasi_identifiers))


def utility_finding(res: dict[str, Any], queries: int, qd: int) -> Finding:
    """The utility stage's finding from ``default_measures``' results (or the same measures
    computed on a cluster) for ``queries`` queries of ``qd`` quasi-identifiers."""
    if "workload-error" not in res:  # plain k-anonymity: information loss only
        ncp = res["ncp"].to_json()
        title = "Utility: information loss"
        paper = "LeFevre et al. discernibility; Xu et al. NCP"
        headline = (
            "no COUNT-query workload (its queries need a sensitive attribute); "
            f"normalized certainty penalty {float(ncp.get('value', float('nan'))):.3f}"
        )
        workload: dict[str, Any] = {}
    else:
        work = res["workload-error"].to_json()
        title = "Utility: COUNT-query workload and information loss"
        paper = "Xiao & Tao (Anatomy, VLDB 2006) workload; LeFevre et al. discernibility"
        headline = (
            f"{queries:,} random COUNT queries: mean relative error "
            f"{work['mean_relative_error']:.3f}, median {work['median_relative_error']:.3f}"
        )
        workload = {
            "plot": {
                "kind": "errors",
                "errors": res["workload-error"].relative_error,
                "label": "relative error of each query",
            },
            "settings": {"queries": queries, "qd": qd, "selectivity": 0.05},
        }
    return Finding(
        key="utility",
        title=title,
        paper=paper,
        attacker="—",
        promise="—",
        verdict="info",
        headline=headline,
        measures={k: v.to_json() for k, v in res.items()},
        **workload,
    )


def _distributions(release: Release, opts: dict) -> Finding:
    from anonlab.report.distributions import column_distributions

    return distributions_finding(
        column_distributions(release), int(release.manifest.get("suppressed_records") or 0)
    )


def distributions_finding(columns: dict[str, dict[str, Any]], suppressed: int) -> Finding:
    """The distributions stage's finding from
    :func:`~anonlab.report.distributions.column_distributions` and the number of suppressed
    records."""
    headline = f"records per value of {len(columns)} columns, original beside released" + (
        f"; {suppressed:,} suppressed records are in neither" if suppressed else ""
    )
    return Finding(
        key="distributions",
        title="Distributions: original and released, per column",
        paper="",
        attacker="—",
        promise="—",
        verdict="info",
        headline=headline,
        measures={name: {"how": d["how"]} for name, d in columns.items()},
        plot={
            "kind": "distributions",
            "columns": columns,
            "has_values": True,
            "label": "records per value: original (left), released (right)",
        },  # fmt: skip
    )


#: The stages that are not attacks.
RUNNERS: dict[str, Callable[[Release, dict], Finding]] = {
    "checks": _checks,
    "risk": _risk,
    "utility": _utility,
    "distributions": _distributions,
}


def _timed_stage(name: str, release: Release, opts: dict, attribute: str | None) -> Finding:
    """One stage's finding, timed; a stage that does not apply says why (verdict
    ``skipped``). With ``attribute`` (a release with several sensitive attributes) the stage
    runs on :meth:`Release.for_sensitive <anonlab.release.Release.for_sensitive>` and its
    finding is keyed and titled by the attribute (:func:`anonlab.finding.attribute_key`)."""
    t0 = time.perf_counter()
    view = release if attribute is None else release.for_sensitive(attribute)
    try:
        finding = run_stage(name, view, opts)
    except AnonlabError as exc:  # the stage does not apply to this release
        finding = Finding(
            key=name,
            title=name,
            paper="",
            attacker="",
            promise="",
            verdict="skipped",
            headline=f"not applicable: {exc}",
        )
    if attribute is not None:
        finding.key = attribute_key(name, attribute)
        finding.title = f"{finding.title} — sensitive attribute {attribute}"
    finding.seconds = time.perf_counter() - t0
    return finding


def run_stage(name: str, release: Release, opts: dict) -> Finding:
    """One stage's finding: a registered attack through :func:`anonlab.attacks.contract.run`
    (knowledge from the publisher's copy, inference from the adversary's copy, scoring on the
    truth), any other stage from :data:`RUNNERS`."""
    if name in RUNNERS:
        return RUNNERS[name](release, opts)
    return contract.run(name, release, opts)[1]


def at_risk_frame(result: Audit, release: Release) -> pd.DataFrame:
    """The records at risk under any stage, keyed by the input's row id (the publisher's
    copy only: it links input rows to what the attacks learn about them).

    One row per record at risk under at least one stage, in input row order: ``row_id`` (the
    input's, :attr:`anonlab.table.Table.row_id`), ``group`` (the release's own group id; the
    published files number groups in the secret export order instead), one boolean column per
    stage that counts records (True where the record is among those it counts at risk) and
    ``stages`` (how many). A redacted audit has no
    record positions and is refused.
    """
    if result.is_redacted:
        raise AnonlabError("a redacted audit names no record: write the at-risk file from the "
                           "internal audit")  # fmt: skip
    n = release.table.n_rows
    columns: dict[str, np.ndarray] = {}
    for f in result.findings:
        if f.at_risk_records is not None:
            mask = np.zeros(n, dtype=bool)
            mask[np.asarray(f.at_risk_records, dtype=np.int64)] = True
            columns[f.key] = mask
    hit = np.zeros(n, dtype=np.int64)
    for mask in columns.values():
        hit += mask
    rows = np.flatnonzero(hit > 0)
    frame = pd.DataFrame({"row_id": np.asarray(release.table.row_id)[rows],
                          "group": np.asarray(release.group)[rows]})  # fmt: skip
    for key, mask in columns.items():
        frame[key] = mask[rows]
    frame["stages"] = hit[rows]
    return frame.sort_values("row_id", kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class StageProgress:
    """One progress event of :func:`audit`, for a progress bar drawn by the caller.

    ``event`` is ``"start"`` (before the stage runs), ``"advance"`` (the stage has done
    ``completed`` of ``total`` iterations: the deFinetti sweeps, the worst case's values of k;
    other stages send none) or ``"done"`` (with its ``finding``). ``index`` counts the stages
    run from 0; ``stages`` is how many run. The audit itself draws nothing: this module stays
    free of terminal code (the command line draws the bar, ``anonlab.cli.audit``).
    """

    stage: str
    index: int
    stages: int
    event: str
    completed: int | None = None
    total: int | None = None
    finding: Finding | None = None


def audit(
    release: Release,
    *,
    stages: Sequence[str] | None = None,
    budget: AuditBudget | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    on_progress: Callable[[StageProgress], None] | None = None,
    thresholds: Thresholds | None = None,
    **budget_fields: Any,
) -> Audit:
    """Run every stage of :data:`STAGES` (or ``stages``) on ``release``.

    Parameters
    ----------
    release : Release
        With its publisher copy (the truth the attacks are scored against).
    stages : sequence of str, optional
        A subset of :data:`STAGES` (default: all).
    budget : AuditBudget, optional
        Each stage's budget (:class:`~anonlab.report.budget.AuditBudget`: the deFinetti
        attack's ``targets``, ``chains``, ``sweeps``; the worst case's ``k_max`` and
        ``worst_case_k``; the workload's ``queries``; the negative rules' ``min_expectation``;
        the foreground attack's ``foreground_attributes``). Default: its defaults.
    **budget_fields
        Any of those fields by name, applied over ``budget`` (``audit(release, targets=40)``).
    seed : int
        The audit's own seed: seeds targets, chains and the workload; stored in the settings
        (an audit parameter, independent of the release's seed, which no report shows).
    progress : callable, optional
        Called with each stage's name before it runs.
    on_progress : callable, optional
        Called with a :class:`StageProgress` when each stage starts, advances and ends (for a
        progress bar). Neither callback changes the result.
    thresholds : Thresholds, optional
        The publisher's thresholds for the decision to release
        (:class:`~anonlab.report.decision.Thresholds`; default: its stated defaults). The risk
        stage counts records above ``max_risk``.
    """
    require_release(release, where="audit")
    stages = chosen_stages(stages)
    thresholds = thresholds or Thresholds()
    opts = audit_options(budget, seed, thresholds, **budget_fields)
    if release.table.n_rows == 0:
        raise AnonlabError("the release has no records to audit")
    findings = []
    several = release.table.sensitive_attributes
    several = several if len(several) > 1 else ()
    per_attribute = {*attack_stages(), *PER_ATTRIBUTE}
    for index, name in enumerate(stages):
        if progress is not None:
            progress(name)
        tick = None
        if on_progress is not None:
            on_progress(StageProgress(name, index, len(stages), "start"))

            def tick(done: int, total: int, name: str = name, index: int = index) -> None:
                on_progress(StageProgress(name, index, len(stages), "advance", done, total))

        # An attack infers one sensitive attribute: with several, it runs once for each
        for attribute in several if several and name in per_attribute else (None,):
            finding = _timed_stage(name, release, {**opts, "tick": tick}, attribute)
            findings.append(finding)
        if on_progress is not None:
            on_progress(StageProgress(name, index, len(stages), "done", finding=finding))
    # never the release's seed or export key (they stay in the publisher's copy)
    params = release.manifest.get("parameters") or {}
    info = {
        "algorithm": release.manifest.get("algorithm"),
        "parameters": {k: v for k, v in params.items() if k not in SECRET_PARAMETERS},
        "scheme": release.scheme,
        "records": release.table.n_rows,
        "groups": release.n_groups,
        "quasi_identifiers": list(release.quasi_identifiers),
        # None for plain k-anonymity; a list when there are several
        "sensitive": (list(several) if several else release.table.sensitive),
        "columns": release_columns(release),
        "suppressed_records": int(release.manifest.get("suppressed_records") or 0),
    }
    return audit_of_findings(info, findings, stages, opts, thresholds)


def chosen_stages(stages: Sequence[str] | None) -> list[str]:
    """``stages`` (default: every stage, :func:`stage_names`), refused naming the unknown ones."""
    known = stage_names()
    stages = list(known if stages is None else stages)
    unknown = [s for s in stages if s not in known]
    if unknown:
        raise AnonlabError(f"unknown audit stage(s) {unknown}; choose from {list(known)}")
    return stages


def audit_options(
    budget: AuditBudget | None, seed: int, thresholds: Thresholds, **budget_fields: Any
) -> dict[str, Any]:
    """The options every stage reads: the budget's fields, the audit's seed and the risk
    threshold."""
    return {
        **AuditBudget.of(budget, **budget_fields).to_dict(),
        "seed": check_seed(seed),
        "max_risk": thresholds.max_risk,
    }


def audit_of_findings(
    info: dict[str, Any],
    findings: list[Finding],
    stages: Sequence[str],
    opts: dict[str, Any],
    thresholds: Thresholds,
) -> Audit:
    """The :class:`Audit` of ``findings`` on the release ``info`` describes (never its seed or
    export key), with the settings to re-run it and the decision against ``thresholds``."""
    bounds = tuple(a.name for a in contract.attacks() if a.bound)
    settings = {"stages": list(stages), **opts, "thresholds": asdict(thresholds)}
    settings.pop("max_risk")
    settings.pop("tick", None)
    return Audit(
        release=info,
        findings=findings,
        settings=settings,
        decision=decide(findings, info, thresholds, bounds=bounds, attacks=attack_stages()),
    )
