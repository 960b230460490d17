"""``anonlab attack foreground``: the foreground-knowledge attack (Wong et al., TKDD 2011)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import typer

from anonlab.cli.common import (
    ATTACKED,
    CLUSTER,
    FORCE_RECORDS,
    JSON,
    RECORDS,
    RELEASE_DIR,
    WORKERS,
    emit_json,
    open_release_with_workers,
    print_measures,
    say,
    split_list,
    stage,
)
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add the command to the command line."""
    attack_app.command("foreground")(attack_foreground)


def attack_foreground(
    release_dir: Path = RELEASE_DIR,
    sensitive: str | None = ATTACKED,
    sensitive_values: str | None = typer.Option(
        None,
        "--sensitive-values",
        help="The sensitive value set, one target (default: the release's, else each value).",
    ),
    r: float = typer.Option(2.0, "--r", help="A record is problematic when p* > 1/r (r >= 2)."),
    epsilon: float = typer.Option(0.01, "--epsilon", help="Hoeffding ε, in (0, 1)."),
    sigma: float = typer.Option(0.9, "--sigma", help="Hoeffding σ, in (0, 1)."),
    small_signature: str = typer.Option(
        "uniform-half", "--small-signature", help="uniform-half, base-rate or pooled."
    ),
    records: Path | None = RECORDS,
    force: bool = FORCE_RECORDS,
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Foreground knowledge (Wong et al.): global distributions mined from the release itself.

    With --cluster/--workers the signature counts are map-reduced on Dask and the mining runs
    here on them (same results)."""
    from anonlab._validation import check_float
    from anonlab.attacks import foreground_attack as single_machine_attack
    from anonlab.cli.common import client_from_options

    def foreground_attack(release, values, **options):
        if cluster is None and workers is None:
            return single_machine_attack(release, values, **options)
        from anonlab.distributed.measures import foreground_attack_distributed

        with client_from_options(cluster, workers) as client:
            return foreground_attack_distributed(release, values, client=client, **options)

    from anonlab.atomic_output import require_file_free

    require_file_free(records, "--records", force)  # before any work
    release = open_release_with_workers(release_dir, workers, sensitive)
    if check_float("r", r) < 2:
        raise AnonlabError(f"parameter 'r' must be >= 2 (problematic means p* > 1/r), got {r}")
    for name, value in (("epsilon", epsilon), ("sigma", sigma)):
        if not 0 < check_float(name, value) < 1:
            raise AnonlabError(f"parameter {name!r} must be in (0, 1), got {value}")
    values = split_list(sensitive_values) or release.manifest.get("parameters", {}).get(
        "sensitive_values"
    )
    with stage("mining global distributions", as_json):
        result = foreground_attack(
            release, values, epsilon=epsilon, sigma=sigma, small_signature=small_signature
        )
    score = result.score(release, r)
    # the audit's definition on this same run (anonlab.attacks.foreground.attack): a record is
    # at risk when p* exceeds the release's promise for a target set holding its true value
    from anonlab.attacks.contract import Knowledge
    from anonlab.attacks.foreground.attack import ATTACK, inference_of

    audit_view = ATTACK.judge(release, Knowledge({}), inference_of(result, release), {})
    worst = int(np.argmax(result.p_star))
    attrs = result.attribute_sets[int(result.best_attributes[worst])]
    target = result.targets[int(result.best_target[worst])]
    signature = ", ".join(f"{a} = {release.table.column(a)[worst]}" for a in attrs) or "anyone"
    strongest = (
        f"a person with {signature} in group {int(release.group[worst])} has "
        f"{release.sensitive} in {{{', '.join(target)}}} with probability "
        f"{result.p_star[worst]:.3f} (random worlds: {result.baseline[worst]:.3f})"
    )
    summary = {
        "release": str(release_dir),
        "attack": "foreground",
        "targets": [list(t) for t in result.targets],
        "attribute_sets": [list(a) for a in result.attribute_sets],
        "min_support": result.min_support,
        "small_signature": result.small_signature,
        "r": r,
        "problematic_records": int(result.problematic(r).sum()),
        "audit_at_risk": int(audit_view.at_risk or 0),
        "audit_promise": audit_view.promise,
        **score,
        "average_delta": result.average_delta(release)["mean"],
        "strongest_inference": strongest,
    }
    if records is not None:
        from anonlab.formula_guard import guard_frame
        from anonlab.release_io import atomic_write_text

        frame = pd.DataFrame(
            {
                "record": np.arange(release.table.n_rows),
                "group": release.group,
                "p_star": result.p_star,
                "baseline": result.baseline,
                "attributes": [
                    "|".join(result.attribute_sets[i]) for i in result.best_attributes.tolist()
                ],
                "problematic": result.problematic(r),
            }
        )
        atomic_write_text(records, guard_frame(frame).to_csv(index=False))
    if as_json:
        emit_json(summary)
        return
    measures = (
        "problematic_records",
        "sensitive_tuples",
        "recall",
        "false_positive",
        "average_breach",
        "average_baseline",
        "average_delta",
    )
    print_measures(
        f"Foreground-knowledge attack ({release_dir})",
        ["value"],
        [(key.replace("_", " "), summary[key]) for key in measures],
    )
    say(f"Strongest inference: {strongest}.")
    say(
        f"{len(result.attribute_sets)} attribute sets with signatures of at least "
        f"{result.min_support:,} records (ε = {epsilon}, σ = {sigma}); small signatures: "
        f"{result.small_signature}; problematic means p* > 1/{r:g}."
    )
    say(
        f"The audit counts differently: {summary['audit_at_risk']:,} records have p* above the "
        f"release's promise ({audit_view.promise}) for a target set that holds their true "
        "value (here with every attribute set; the audit mines sets of up to "
        "--foreground-attributes, 1 by default)."
    )
