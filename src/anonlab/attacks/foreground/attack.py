"""The foreground-knowledge attack as a registered attack (:mod:`anonlab.attacks.contract`).

Knowledge: the sensitive values the release protects (the manifest's ``sensitive_values``, a
parameter the publisher states; default every value). Inference: :func:`foreground_attack` on
the adversary's copy; per record the value set ``x`` with the highest breach probability
``p*(t)`` over the attribute sets mined, its random-world baseline ``n_k / N_k`` beside it.
Scoring: a record is *at risk* when ``p*`` exceeds the release's promise for a target set that
holds the record's true value (Wong et al., TKDD 2011, §5's breach decision, judged against
``1/ℓ`` or ``1/m`` as the audit judges every attack).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from anonlab.attacks.common import at_risk_fields, worst_record
from anonlab.attacks.contract import (
    Attack,
    Inference,
    Knowledge,
    promise,
    register,
    sensitive_labels,
    strongest_sentence,
)
from anonlab.attacks.foreground.algorithm import foreground_attack
from anonlab.attacks.foreground.result import ForegroundResult
from anonlab.finding import Finding
from anonlab.release import Release


def _know(release: Release, options: Mapping[str, Any]) -> Knowledge:
    values = release.manifest.get("parameters", {}).get("sensitive_values")
    return Knowledge(
        {"sensitive_values": values, "max_attributes": options.get("foreground_attributes", 1)},
        "every record's quasi-identifiers and group; mines global distributions "
        "p(signature : value) from the release itself",
    )


def _infer(view: Release, knowledge: Knowledge, options: Mapping[str, Any]) -> Inference:
    res = foreground_attack(
        view, knowledge["sensitive_values"], max_attributes=knowledge["max_attributes"]
    )
    return inference_of(res, view, knowledge["max_attributes"])


def inference_of(
    res: ForegroundResult, view: Release, max_attributes: int | None = None
) -> Inference:
    """The registry's :class:`Inference` of a foreground result on ``view``: per record the
    target set with the highest ``p*``, ``p*`` and its random-world baseline. ``anonlab attack
    foreground`` calls it on its own run to report the audit's count beside the paper's."""
    values = sensitive_labels(view)
    n = view.table.n_rows
    return Inference(
        attack="foreground",
        values=values,
        records=np.arange(n),
        inferred=target_masks(res, values)[res.best_target],
        probability=res.p_star,
        baseline=res.baseline,
        summary=inference_summary(res),
        settings=inference_settings(res, max_attributes),
        detail=res,
    )


def target_masks(res: ForegroundResult, values: Sequence[str]) -> np.ndarray:
    """(targets, values) bool: which of the sensitive ``values`` (labels, in code order) each
    target set of ``res`` holds."""
    return np.array([[v in set(map(str, t)) for v in values] for t in res.targets], dtype=bool)


def inference_summary(res: ForegroundResult) -> dict[str, Any]:
    """The inference's summary: mean ``p*``, attribute sets mined, the support bound."""
    return {
        "mean_p_star": float(res.p_star.mean()),
        "attribute_sets": len(res.attribute_sets),
        "min_support": res.min_support,
    }


def inference_settings(res: ForegroundResult, max_attributes: int | None) -> dict[str, Any]:
    """The inference's settings: the targets, the support bound and the attribute limit."""
    return {
        "targets": [list(t) for t in res.targets],
        "min_support": res.min_support,
        "max_attributes": max_attributes,
    }


def _judge(
    release: Release, knowledge: Knowledge, inference: Inference, options: Mapping[str, Any]
) -> Finding:
    res: ForegroundResult = inference.detail
    bound, words = promise(release)
    truth = release.table.codes[release.sensitive]
    # a breach: p* above the promise for a target set that holds the record's true value
    holds_true = inference.holds(truth)
    flagged = res.p_star > bound + 1e-9
    risk = flagged & holds_true
    order = np.argsort(-np.where(holds_true, res.p_star, -1), kind="stable")[:10]
    worst = []
    for row in order.tolist():
        attrs = res.attribute_sets[int(res.best_attributes[row])]
        target = res.targets[int(res.best_target[row])]
        worst.append(
            worst_record(
                release,
                row,
                attrs,
                inferred="{" + ", ".join(target) + "}",
                probability=res.p_star[row],
                random_worlds=res.baseline[row],
                correct=holds_true[row],
            )
        )
    n_sets = len(res.attribute_sets)
    return foreground_finding(
        res,
        inference.settings["max_attributes"],
        words,
        at_risk_fields(risk),
        int(flagged.sum()),
        np.bincount(res.best_attributes[risk], minlength=n_sets),
        strongest=strongest_sentence(release, worst, set_of=True),
        worst=worst,
    )


def foreground_finding(
    res: ForegroundResult,
    max_attributes: int | None,
    words: str,
    risk_fields: dict[str, Any],
    flagged: int,
    at_risk_by_set: np.ndarray,
    *,
    strongest: str | None = None,
    worst: list[dict] | None = None,
) -> Finding:
    """The foreground stage's finding from the attack's result (mined with ``max_attributes``;
    its summary and settings as the inference's, :func:`inference_of`), the promise in
    words, the records at risk (``risk_fields``: :func:`~anonlab.attacks.common.at_risk_fields`
    of them), the records flagged and the records at risk per attribute set (by the set that
    breaches each). The judge here counts them over the records; a cluster's audit on its
    workers, where the true values are (:mod:`anonlab.distributed.written_audit`)."""
    n = len(res.p_star)
    share_by_set = {
        " ∧ ".join(attrs) or "(none)": float(at_risk_by_set[ai]) / max(1, n)
        for ai, attrs in enumerate(res.attribute_sets)
        if (res.best_attributes == ai).any()
    }
    return ATTACK.finding(
        promise=words,
        headline=f"{int(risk_fields['at_risk']):,} records have their sensitive value inferred "
        f"above {words}; {flagged:,} records flagged in all",
        **risk_fields,
        considered=n,
        strongest=strongest,
        measures={"flagged_records": flagged, **inference_summary(res)},
        baseline={"mean": float(res.baseline.mean())},
        worst=worst or [],
        plot={
            "kind": "bars",
            "data": share_by_set,
            "label": "share of records breached, by the attribute set that breaches them",
        },
        value_paths=[("settings", "targets")],  # sensitive values, of the data's domain
        settings=inference_settings(res, max_attributes),
    )


ATTACK = register(
    Attack(
        name="foreground",
        title="Foreground-knowledge attack",
        paper="Wong, Fu, Wang, Xu, Yu, Can the utility of anonymized data be used for privacy "
        "breaches? (TKDD 2011)",
        attacker="knows every record's quasi-identifiers and group; mines global distributions "
        "p(signature : value) from the release itself",
        knowledge=("sensitive_values",),
        know=_know,
        infer=_infer,
        judge=_judge,
        cost="grows with records × attribute sets mined (2^QIs up to --foreground-attributes) "
        "× solver iterations",
        options=("foreground_attributes",),
        order=20,
        command="foreground",
    )
)
