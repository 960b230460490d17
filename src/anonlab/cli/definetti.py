"""``anonlab attack definetti``: Kifer's deFinetti attack on a release, scored against the truth."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import typer

from anonlab.cli.common import (
    ATTACKED,
    FORCE_RECORDS,
    JSON,
    RELEASE_DIR,
    counting_bar,
    emit_json,
    open_release,
    print_measures,
    say,
    truth_from_data,
)
from anonlab.errors import AnonlabError
from anonlab.formula_guard import guard_frame


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``attack definetti`` to the ``attack`` group."""
    attack_app.command("definetti")(attack_definetti)


def _write_records(path: Path, release, result, truth: np.ndarray) -> None:
    from anonlab.release_io import atomic_write_bytes

    values = result.values
    top = result.posterior.argmax(axis=1)
    frame = pd.DataFrame(
        {
            "record": result.rows,
            "group": release.group[result.rows],
            "top_value": [values[i] for i in top.tolist()],
            "top_probability": result.posterior.max(axis=1),
            "random_worlds_top": result.baseline.max(axis=1),
            "correct": top == truth,
        }
    )
    for j, v in enumerate(values):
        frame[f"p[{v}]"] = result.posterior[:, j]
    buffer = io.BytesIO()
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(buffer, index=False)
    elif path.suffix.lower() == ".csv":
        guard_frame(frame).to_csv(buffer, index=False)
    else:
        raise AnonlabError(f"--records {str(path)!r}: use a .parquet or .csv file name")
    atomic_write_bytes(path, buffer.getvalue())


def attack_definetti(
    release_dir: Path = RELEASE_DIR,
    sensitive: str | None = ATTACKED,
    data: Path | None = typer.Option(
        None, "--data", help="The original table (CSV/Parquet), checked against the release."
    ),
    targets: int | None = typer.Option(
        1000, "--targets", help="Random records to attack and score (0 or less: error)."
    ),
    all_records: bool = typer.Option(False, "--all", help="Attack every record."),
    chains: int = typer.Option(4, "--chains", help="Independent chains (random starts)."),
    iterations: int = typer.Option(200, "--iterations", help="Sweeps per chain (half burn-in)."),
    model: str = typer.Option("naive-bayes", "--model", help="naive-bayes or joint."),
    combine: str = typer.Option("pool", "--combine", help="pool (the paper) or weight."),
    sampler: str = typer.Option(
        "collapsed", "--sampler", help="collapsed, or uncollapsed (the paper's Algorithm 1)."
    ),
    threshold: float = typer.Option(
        0.8, "--threshold", help="A record is confidently inferred at this posterior."
    ),
    records: Path | None = typer.Option(
        None, "--records", help="Write per-record posteriors to this .parquet or .csv file."
    ),
    force: bool = FORCE_RECORDS,
    seed: int = typer.Option(0, "--seed", help="Seed for targets, starts and chains."),
    as_json: bool = JSON,
) -> None:
    """deFinetti (Kifer, SIGMOD 2009): a model learned from the release itself."""
    from anonlab.atomic_output import require_file_free
    from anonlab.attacks.definetti import (
        choose_targets,
        definetti_attack,
        random_worlds_posterior,
        score_posterior,
    )
    from anonlab.resources import check_definetti

    if not all_records and (targets is None or targets < 1):
        raise AnonlabError(f"--targets must be at least 1 (or use --all), got {targets}")
    if not 0 < threshold <= 1:
        raise AnonlabError(f"--threshold must be in (0, 1], got {threshold}")
    if records is not None and records.suffix.lower() not in (".parquet", ".csv"):
        raise AnonlabError(f"--records {str(records)!r}: use a .parquet or .csv file name")
    require_file_free(records, "--records", force)  # before any work
    release = open_release(release_dir, sensitive)
    n = release.table.n_rows
    # chains, sweeps and targets against the memory available, before any array is made
    check_definetti(
        release,
        n if all_records else min(targets, n),
        chains,
        iterations,
        names=("--targets", "--chains", "--iterations"),
    )
    truth_all = (
        release.table.codes[release.sensitive] if data is None else truth_from_data(release, data)
    )
    rows = choose_targets(
        release, None if all_records else min(targets, release.table.n_rows), seed=seed
    )
    with counting_bar("deFinetti sweeps", iterations, as_json) as progress:
        result = definetti_attack(
            release,
            targets=rows,
            chains=chains,
            sweeps=iterations,
            model=model,
            combine=combine,
            sampler=sampler,
            seed=seed,
            progress=progress,
        )
    truth = truth_all[rows]
    ours = score_posterior(result.posterior, truth, threshold)
    base = score_posterior(random_worlds_posterior(release, rows), truth, threshold)
    l = release.manifest.get("parameters", {}).get("l")
    breached = result.breached(truth, l)
    worst = int(np.argmax(result.posterior.max(axis=1)))
    row = int(result.rows[worst])
    value = result.values[int(result.posterior[worst].argmax())]
    known = ", ".join(f"{a} = {release.table.column(a)[row]}" for a in result.attributes)
    strongest = (
        f"a person with {known} in group {int(release.group[row])} has {release.sensitive} = "
        f"{value} with probability {result.posterior[worst].max():.3f} (random worlds: "
        f"{result.baseline[worst].max():.3f})"
    )
    # the audit's definition on this same run (anonlab.attacks.definetti.attack): above the
    # promise by more than the Monte-Carlo noise, the strongest inference a true one
    from anonlab.attacks.contract import Knowledge
    from anonlab.attacks.definetti.attack import ATTACK, inference_of

    audit_view = ATTACK.judge(release, Knowledge({"targets": rows}), inference_of(result), {})
    strongest = audit_view.strongest or strongest
    if records is not None:
        _write_records(records, release, result, truth)
    summary = {
        "release": str(release_dir),
        "attack": "definetti",
        "targets": int(len(rows)),
        "definetti": ours,
        "random_worlds": base,
        "breached_beyond": f"1/{l}" if l else "random worlds",
        "breached_records": int(len(breached)),
        "audit_at_risk": int(audit_view.at_risk or 0),
        "audit_promise": audit_view.promise,
        "confident_records": int(len(result.confident(threshold))),
        "strongest_inference": strongest,
        **result.to_json(),
    }
    if as_json:
        emit_json(summary)
        return
    formats = {
        "ABS": ".2f",
        "SSQ": ".2f",
        "ACC": ".3f",
        "mean_true_probability": ".3f",
        "confident_share": ".3f",
        "confident_precision": ".3f",
    }
    print_measures(
        f"deFinetti attack ({release_dir}, {len(rows):,} targets)",
        ["deFinetti", "random worlds"],
        [
            (
                key.replace("_", " ").replace("confident", f"p ≥ {threshold:g}"),
                *("–" if np.isnan(x[key]) else format(x[key], fmt) for x in (ours, base)),
            )
            for key, fmt in formats.items()
        ],
    )
    bound = f"1/{l}" if l else "their random-worlds probability"
    say(
        f"{len(breached):,} of {len(rows):,} targets have their true value inferred with "
        f"probability above {bound}; strongest inference: "
        f"{strongest}."
    )
    say(
        f"The audit counts {summary['audit_at_risk']:,}: it requires the true value's posterior "
        f"to exceed {audit_view.promise} by more than the Monte-Carlo noise (0.01, or three "
        "between-chain standard errors), so a sampling wobble is not a breach."
    )
    say(
        f"{chains} chains × {iterations} sweeps (model {model}, {combine}); R-hat of the log "
        f"posterior {result.r_hat():.2f}, largest difference between chains "
        f"{result.chain_spread():.3f}, mean Monte-Carlo error "
        f"{result.monte_carlo_error().mean():.4f}."
    )
