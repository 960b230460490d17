"""The deFinetti attack as a registered attack (:mod:`anonlab.attacks.contract`).

Knowledge: the targets, drawn by the publisher (the audit's seed). Inference:
:func:`~anonlab.attacks.definetti.algorithm.definetti_attack` on the adversary's copy; per target
the most probable value, its posterior and its random-worlds probability beside it. Scoring: a
target is *at risk* when its true value's posterior exceeds the release's promise by more than
the Monte-Carlo noise; accuracy beside random worlds (Kifer, SIGMOD 2009, §6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from anonlab.attacks.common import at_risk_fields, worst_record
from anonlab.attacks.contract import (
    Attack,
    Inference,
    Knowledge,
    promise,
    register,
    strongest_sentence,
)
from anonlab.attacks.definetti.algorithm import definetti_attack
from anonlab.attacks.definetti.inputs import choose_targets
from anonlab.attacks.definetti.result import DeFinettiResult
from anonlab.attacks.definetti.scoring import score_posterior
from anonlab.finding import Finding
from anonlab.release import Release


def _know(release: Release, options: Mapping[str, Any]) -> Knowledge:
    """The targets: ``targets`` records drawn by the publisher (the audit's seed)."""
    n = release.table.n_rows
    rows = choose_targets(release, min(int(options.get("targets", 200)), n),
                          seed=int(options.get("seed", 0)))  # fmt: skip
    return Knowledge(
        {"targets": rows},
        "the targets' quasi-identifiers and groups; a Naive Bayes model of quasi-identifiers and "
        "sensitive value learnt from the release itself",
    )


def _infer(view: Release, knowledge: Knowledge, options: Mapping[str, Any]) -> Inference:
    rows = knowledge["targets"]
    res = definetti_attack(
        view,
        targets=rows,
        chains=int(options.get("chains", 4)),
        sweeps=int(options.get("sweeps", 200)),
        seed=int(options.get("seed", 0)),
        progress=options.get("tick"),  # chunked sampling, the same result
    )
    return inference_of(res)


def inference_of(res: DeFinettiResult) -> Inference:
    """The registry's :class:`Inference` of a deFinetti result: per target the most probable
    value, its posterior and its random-worlds probability, with the full posterior. ``anonlab
    attack definetti`` calls it on its own run to report the audit's count beside its own."""
    rows = res.rows
    best = res.posterior.argmax(axis=1)
    inferred = np.zeros(res.posterior.shape, dtype=bool)
    inferred[np.arange(len(rows)), best] = True
    at = np.arange(len(rows))
    return Inference(
        attack="definetti",
        values=res.values,
        records=rows,
        inferred=inferred,
        probability=res.posterior[at, best],
        baseline=res.baseline[at, best],
        posterior=res.posterior,
        summary={"r_hat": res.r_hat(), "chain_spread": res.chain_spread()},
        settings=dict(res.settings, targets=len(rows)),
        detail=res,
    )


def _judge(
    release: Release, knowledge: Knowledge, inference: Inference, options: Mapping[str, Any]
) -> Finding:
    """At risk: a target whose true value gets a posterior above the promise by more than the
    Monte-Carlo noise (0.01, or three between-chain standard errors).

    The strongest inference shown is the target whose *true* value the attack gives the highest
    probability (what is really disclosed), not its most confident guess, which may be wrong
    (the worst records list those, each with whether it is right)."""
    res: DeFinettiResult = inference.detail
    rows = inference.records
    at = np.arange(len(rows))
    truth = release.table.codes[release.sensitive][rows]
    bound, words = promise(release)
    ours = score_posterior(res.posterior, truth)
    base = score_posterior(res.baseline, truth)
    p_true = inference.probability_of(truth)
    noise = np.maximum(0.01, 3 * res.monte_carlo_error()[at, truth])
    risk = p_true > bound[rows] + noise
    order = np.argsort(-inference.probability, kind="stable")[:10]
    worst = []
    for i in order.tolist():
        j = int(np.flatnonzero(inference.inferred[i])[0])
        worst.append(
            worst_record(
                release,
                rows[i],
                res.attributes,
                inferred=res.values[j],
                probability=inference.probability[i],
                random_worlds=inference.baseline[i],
                correct=j == truth[i],
            )
        )
    top = int(np.argmax(p_true)) if len(rows) else None
    disclosed = (
        []
        if top is None
        else [
            worst_record(
                release,
                rows[top],
                res.attributes,
                inferred=res.values[int(truth[top])],
                probability=p_true[top],
                random_worlds=res.baseline[top, truth[top]],
            )
        ]
    )
    return ATTACK.finding(
        promise=words,
        headline=f"{int(risk.sum()):,} of {len(rows):,} targets have their true value inferred "
        f"above {words}; accuracy {ours['ACC']:.3f} vs {base['ACC']:.3f} for random worlds",
        **at_risk_fields(risk, rows),
        considered=len(rows),
        strongest=strongest_sentence(release, disclosed, set_of=False),
        measures={**ours, **inference.summary},
        baseline=base,
        worst=worst,
        plot={
            "kind": "posterior",
            "ours": p_true,
            "baseline": res.baseline[at, truth],
            "bound": float(np.median(bound)),
            "label": "deFinetti: probability of the true value",
        },
        settings=inference.settings,
    )


ATTACK = register(
    Attack(
        name="definetti",
        title="deFinetti attack",
        paper="Kifer, Attacks on privacy and deFinetti's theorem, SIGMOD 2009",
        attacker="knows the targets' quasi-identifiers and groups; learns a Naive Bayes model of "
        "quasi-identifiers and sensitive value from the release itself",
        knowledge=("targets",),
        know=_know,
        infer=_infer,
        judge=_judge,
        command="definetti",
        order=10,
        cost="grows with records × chains × sweeps (every record is resampled each sweep)",
        options=("targets", "chains", "sweeps"),
    )
)
