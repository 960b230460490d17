"""The publisher's audit of a release the workers wrote, by map-reduce over its part files
(issue 21: "the audit's measures run as map-reduce over the written parts").

:func:`audit_written_release` returns the same :class:`~anonlab.report.audit.Audit` as
:func:`anonlab.report.audit.audit` (rendered by the same HTML and JSON writers, decided by the
same thresholds), with the stages that run over the parts computed on the workers:

* **checks**: :func:`~anonlab.distributed.written_checks.check_written_release` (the default
  models from the release's parameters; (c,k)-safety decided globally);
* **foreground**: the inference by
  :func:`~anonlab.distributed.written_measures.foreground_of_written_release` (the driver holds
  each record's group, input row and result), judged on the workers against the true values,
  which stay there (per part: ``p*``, best target and attribute set go out, counts come back);
* **negative-rules**: :func:`~anonlab.distributed.written_measures.rule_attack_of_written_release`
  with the rules mined from the release's records (minExp from the budget, one condition each,
  ℓ the release's: what the audit's attack does on one machine);
* **risk**: :func:`~anonlab.distributed.written_measures.risk_of_written_release` and, for a
  bucketized release, the per-bucket link risk from the group sizes;
* **utility**: :func:`~anonlab.distributed.written_measures.utility_of_written_release` (the
  audit's workload: its queries, qd and seed).

Each finding is built by the single machine's own finding builders
(:func:`~anonlab.report.audit.checks_finding`, :func:`~anonlab.report.audit.risk_finding`,
:func:`~anonlab.report.audit.utility_finding`, the attacks' ``*_finding``), so verdicts,
headlines and measures read the same. Every finding is aggregate: no stage here lists
individual records (``worst`` and ``example`` stay empty, and the only ``strongest`` is the
worst case's, which names a published group), because their values stay on the workers; the
audit is still the internal document (its parameters may name protected values), and
:meth:`~anonlab.report.audit.Audit.redacted` gives the shareable form.

The worst case reads a group only through its sensitive counts, so it runs on the driver from
the reduced group statistics (the single machine's curve and per-group disclosure; records
at risk are the sizes of the groups above the promise). Stages that do not run over written
parts are reported as *skipped*, with the reason (the decision neither passes nor fails a
release on them, and says so): the deFinetti attack (its Gibbs sweeps run on one machine) and
the algorithm-based attacks (they re-run the algorithm on the records). The per-column
distributions count each column's values on the workers and read the released side from the
group statistics and the published values; the checks stage's notes on quasi-identifiers
published as a group's exact value or as the set of its members' values are read from those
published values, reduced from per-group extremes
(:func:`~anonlab.distributed.measures.published_generalization`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anonlab.attacks.contract import stated_promise
from anonlab.attacks.negative_rules import promised_l

#: The audit stages computed over the written parts; any other is reported as skipped.
OVER_PARTS = (
    "checks", "foreground", "negative-rules", "worst-case", "risk", "utility", "distributions",
)  # fmt: skip

#: Why a stage does not run over written parts (the skipped finding's headline).
NOT_OVER_PARTS = {
    "definetti": "the deFinetti attack's Gibbs sweeps run on one machine",
    "algorithm": "the algorithm-based attacks re-run the algorithm on the records",
}


def _skipped(name: str) -> Any:
    from anonlab.finding import Finding

    why = NOT_OVER_PARTS.get(name, "this stage does not run over a release the workers wrote")
    return Finding(
        key=name, title=name, paper="", attacker="", promise="", verdict="skipped",
        headline=f"not over written parts: {why}",
    )  # fmt: skip


def _risk_fields(at_risk: Any) -> dict[str, Any]:
    """A finding's verdict and records at risk, counted on the workers (as
    :func:`~anonlab.attacks.common.at_risk_fields` without the positions, which stay there)."""
    return {"verdict": "at risk" if at_risk else "pass", "at_risk": int(at_risk)}


def _rules_finding(summary: dict, min_expectation: float) -> Any:
    """The negative-rule attack's finding from its reduced counts (the attack's own builder,
    without the worst records, which stay on the workers)."""
    from anonlab.attacks.negative_rules import knowledge_words, negative_rules_finding

    hist = summary["records_by_possible_values"]
    vulnerable = summary["vulnerable_matching"]
    skip = ("records_by_possible_values", "attack", "n_rules")
    measures = {k: v for k, v in summary.items() if k not in skip}
    measures["rules"] = summary["n_rules"]
    return negative_rules_finding(
        knowledge_words(summary["n_rules"], min_expectation),
        summary["l"],
        measures,
        np.asarray(hist["matching"]),
        np.asarray(hist["baseline"]),
        _risk_fields(vulnerable),
        {"min_expectation": min_expectation, "max_conditions": 1, "l": summary["l"]},
    )


def _foreground_part(block: Any, item: tuple) -> dict:
    """On a worker: the audit's foreground judgement of one part's records, against their true
    values, which stay here: at risk when ``p*`` exceeds the promise (``bound``, or, when the
    release states no ℓ or m, each record's random-worlds share of its true value in its group,
    counted here: a group never spans parts) for a target set that holds the true value."""
    bound, p_star, best_target, best_attributes, masks, n_sets = item
    truth = np.asarray(block.table.codes[block.table.require_sensitive()], dtype=np.int64)
    if bound is None:
        n_values = masks.shape[1]
        local, group = np.unique(block.group, return_inverse=True)
        group = group.ravel()
        cells = group * n_values + block.published_sensitive
        hist = np.bincount(cells, minlength=len(local) * n_values).reshape(len(local), n_values)
        bound = hist[group, truth] / np.maximum(hist.sum(axis=1), 1)[group]
    flagged = p_star > bound + 1e-9
    risk = flagged & masks[best_target, truth]
    return {
        "risk": np.int64(risk.sum()),
        "flagged": np.int64(flagged.sum()),
        "by_set": np.bincount(best_attributes[risk], minlength=n_sets).astype(np.int64),
    }


def _foreground_finding(client: Any, records: Any, max_attributes: int) -> Any:
    """The foreground attack's finding (:mod:`anonlab.attacks.foreground.attack`'s judge, its
    aggregates): the inference on the driver from the parts
    (:func:`~anonlab.distributed.written_measures.foreground_of_written_release`), judged on
    the workers against the true values (:func:`_foreground_part`)."""
    from anonlab.attacks.contract import sensitive_labels
    from anonlab.attacks.foreground.attack import foreground_finding, target_masks
    from anonlab.distributed.mapreduce import PerBlock, map_reduce
    from anonlab.distributed.written_measures import foreground_of_written_release

    release = records.release
    params = release.manifest.get("parameters", {})
    values = params.get("sensitive_values")
    result, release = foreground_of_written_release(
        client, records, values, max_attributes=max_attributes
    )
    bound, words = stated_promise(params)
    masks = target_masks(result, sensitive_labels(release))
    starts = list(records.partitions.starts) + [release.table.n_rows]
    n_sets = len(result.attribute_sets)
    items = [
        (bound, result.p_star[a:b], result.best_target[a:b], result.best_attributes[a:b],
         masks, n_sets)
        for a, b in zip(starts[:-1], starts[1:], strict=True)
    ]  # fmt: skip
    how = {"risk": "sum", "flagged": "sum", "by_set": "sum"}
    out = map_reduce(_foreground_part, records.partitions, PerBlock(tuple(items)), how)
    return foreground_finding(
        result,
        max_attributes,
        words,
        _risk_fields(out["risk"]),
        int(out["flagged"]),
        out["by_set"],
    )


def _worst_case_finding(release: Any, opts: dict) -> Any:
    """The worst-case stage (:mod:`anonlab.attacks.worst_case`'s judge, its aggregates) from
    the reduced group statistics on the driver: maximum disclosure reads a group only through
    its sensitive counts, so the curve and each group's disclosure are the single machine's;
    the records at risk are the sizes of the groups above the promise."""
    from anonlab.attacks.worst_case import (
        LANGUAGES,
        disclosure_by_group_curve,
        disclosure_curve,
        groups_above_promise,
        maximum_disclosure,
        records_by_smallest_k,
        worst_case_finding,
    )

    k_max, k_verdict = int(opts["k_max"]), int(opts["worst_case_k"])
    curve = {lang: disclosure_curve(release, k_max, language=lang) for lang in LANGUAGES}
    per_group = np.asarray(disclosure_by_group_curve(release, k_max))
    witness = maximum_disclosure(release, k_verdict)
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    # as anonlab.attacks.contract.promise, taken per group at its largest record's bound
    bound, words = stated_promise(release.manifest.get("parameters", {}))
    if bound is not None:
        bound = np.full(len(sizes), bound)
    else:
        hist = np.asarray(release.sensitive_histogram)
        bound = hist.max(axis=1) / np.maximum(sizes, 1)
    first_above, first_certain, above_by_k = groups_above_promise(per_group, bound, sizes, k_max)
    at_risk = sizes[(first_above >= 0) & (first_above <= k_verdict)].sum()
    return worst_case_finding(
        k_verdict=k_verdict,
        k_max=k_max,
        curve=curve,
        words=words,
        risk_fields=_risk_fields(at_risk),
        considered=int(sizes.sum()),
        above_by_k=above_by_k,
        smallest_k_above=records_by_smallest_k(first_above, sizes, k_max),
        smallest_k_certain=records_by_smallest_k(first_certain, sizes, k_max),
        strongest=witness.explain(),
        worst=[],
        settings={"k_max": k_max, "worst_case_k": k_verdict},
    )


def _value_counts_part(block: Any, names: tuple) -> dict:
    """On a worker: each column's records per value (code order) in one part."""
    table = block.table
    return {
        name: np.bincount(table.codes[name], minlength=table.domain_size(name)).astype(np.int64)
        for name in names
    }


def _distributions_finding(parts: Any) -> Any:
    """The distributions stage: each column's records per value counted on the workers, the
    released side from the group statistics and the published values."""
    from anonlab.distributed.mapreduce import map_reduce
    from anonlab.report.audit import distributions_finding
    from anonlab.report.distributions import column_distributions

    release = parts.release
    names = (*release.quasi_identifiers, *release.table.sensitive_attributes)
    counts = map_reduce(_value_counts_part, parts.partitions, names, dict.fromkeys(names, "sum"))
    return distributions_finding(column_distributions(release, value_counts=counts), 0)


def _info(parts: Any) -> dict[str, Any]:
    """The audit's description of the release (never its seed or export key)."""
    from anonlab.finding import SECRET_PARAMETERS

    manifest = parts.manifest
    table = parts.release.table
    params = manifest.get("parameters") or {}
    dropped = manifest.get("dropped") or {}
    return {
        "algorithm": manifest.get("algorithm"),
        "parameters": {k: v for k, v in params.items() if k not in SECRET_PARAMETERS},
        "scheme": manifest["scheme"],
        "records": int(manifest["rows"]),
        "groups": int(manifest["groups"]),
        "quasi_identifiers": list(table.quasi_identifiers),
        "sensitive": table.sensitive,
        "columns": {
            "insensitive": list(table.schema.insensitive),
            "not_published": list(dropped.get("columns") or []),
            "identifiers_dropped": list(dropped.get("identifiers") or []),
            "rows_with_missing": int(dropped.get("rows_with_missing") or 0),
            "types": dict(manifest.get("column_types") or {}),
        },
        "suppressed_records": 0,
        "written_by_workers": True,
    }


def _with_generalization(release: Any, parts: Any) -> None:
    """Give the driver's release its groups' published values (generalization), reduced from
    per-group extremes on the workers, once."""
    from anonlab.distributed.measures import published_generalization

    if release.scheme == "generalization" and "generalization" not in release.__dict__:
        release.__dict__["generalization"] = published_generalization(
            release, partitions=parts.partitions
        )


def audit_written_release(
    client: Any,
    path: str | Path,
    *,
    stages: Sequence[str] | None = None,
    budget: Any = None,
    seed: int = 0,
    thresholds: Any = None,
    on_stage: Any = None,
    **budget_fields: Any,
) -> Any:
    """Audit the release the workers wrote at ``path`` on ``client``'s cluster (module
    docstring): the same arguments as :func:`anonlab.report.audit.audit` (``stages``,
    ``budget`` and its fields, ``seed``, ``thresholds``); ``on_stage(name)`` is called before
    each stage. Returns an :class:`~anonlab.report.audit.Audit`."""
    from anonlab.distributed.written_checks import check_written_release
    from anonlab.distributed.written_measures import (
        open_written_parts,
        record_groups,
        risk_of_written_release,
        rule_attack_of_written_release,
        utility_of_written_release,
    )
    from anonlab.report.audit import (
        audit_of_findings,
        audit_options,
        checks_finding,
        chosen_stages,
        exact_values,
        risk_finding,
        utility_finding,
        utility_qd,
        value_sets,
    )
    from anonlab.report.decision import Thresholds
    from anonlab.utility import measure

    stages = chosen_stages(stages)
    thresholds = thresholds or Thresholds()
    opts = audit_options(budget, seed, thresholds, **budget_fields)
    parts = open_written_parts(client, path)
    release = parts.release
    params = parts.manifest.get("parameters") or {}
    n = int(parts.manifest["rows"])
    findings = []
    records = None  # each record's group and input row, gathered once if a stage needs them
    for name in stages:
        if on_stage is not None:
            on_stage(name)
        t0 = time.perf_counter()
        if name == "checks":
            results = check_written_release(client, path)
            _with_generalization(release, parts)
            finding = checks_finding(results, params, n, value_sets(release), exact_values(release))
        elif name == "negative-rules":
            summary = rule_attack_of_written_release(
                client,
                parts,
                l=promised_l(params),
                min_expectation=opts["min_expectation"],
                max_conditions=1,
            )
            finding = _rules_finding(summary, opts["min_expectation"])
        elif name == "foreground":
            records = records or record_groups(client, parts)
            finding = _foreground_finding(client, records, opts["foreground_attributes"])
        elif name == "risk":
            records = records or record_groups(client, parts)
            risk, driver = risk_of_written_release(client, records, threshold=opts["max_risk"])
            bucket = (
                measure(driver, "prosecutor-risk", threshold=opts["max_risk"])
                if driver.scheme == "bucketization"
                else None
            )
            # {}: one_level_up's answer for groups that are not lattice nodes (no hierarchy
            # levels: the workers' algorithms are partition-based)
            finding = risk_finding(
                risk["reidentification-risk"], bucket, n, opts["max_risk"], level_up={}
            )
            finding.at_risk_records = None  # positions in the parts' order: not kept
        elif name == "worst-case":
            finding = _worst_case_finding(release, opts)
        elif name == "distributions":
            _with_generalization(release, parts)
            finding = _distributions_finding(parts)
        elif name == "utility":
            qd = utility_qd(release.quasi_identifiers)
            res = utility_of_written_release(client, parts, opts["queries"], qd, 0.05, opts["seed"])
            finding = utility_finding(res, opts["queries"], qd)
        else:
            finding = _skipped(name)
        finding.seconds = time.perf_counter() - t0
        findings.append(finding)
    return audit_of_findings(_info(parts), findings, stages, opts, thresholds)
