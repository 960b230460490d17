"""``anonlab attack rules``: the negative-rule background-knowledge attack (Li & Li, ICDE 2008)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import typer

from anonlab.cli.common import (
    CLUSTER,
    DATA,
    DATASET,
    DROP_MISSING,
    FORCE_RECORDS,
    HIERARCHIES,
    HIERARCHY_SET,
    JSON,
    QI,
    RECORDS,
    RELEASE_DIR,
    SENSITIVE,
    WORKERS,
    add_column,
    add_row,
    emit_json,
    load_table,
    new_table,
    open_release,
    out,
    say,
    stage,
)
from anonlab.errors import AnonlabError


def attack_rules(
    release_dir: Path = RELEASE_DIR,
    rules: Path | None = typer.Option(
        None, "--rules", help="A negative-rule file (from `anonlab rules mine`)."
    ),
    dataset: str | None = DATASET,
    data: Path | None = DATA,
    qi: str | None = QI,
    sensitive: str | None = SENSITIVE,
    hierarchies: Path | None = HIERARCHIES,
    hierarchy_set: str | None = HIERARCHY_SET,
    drop_missing: bool = DROP_MISSING,
    l: int | None = typer.Option(
        None, "--l", help="Vulnerable: fewer than ℓ possible values (default: the release's ℓ)."
    ),
    min_exp: float = typer.Option(
        0.9, "--min-exp", help="minExp in (0, 1) when mining the rules from --data/--dataset."
    ),
    max_conditions: int = typer.Option(
        1, "--max-conditions", help="Most conditions per mined rule (>= 1)."
    ),
    records: Path | None = RECORDS,
    force: bool = FORCE_RECORDS,
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Negative association rules (Li & Li, Injector): records left with fewer than ℓ values.

    The rules come from a rule file (--rules) or are mined from the original table
    (--dataset/--data, with --min-exp and --max-conditions). Each record's possible values are
    reported in two readings: values of its group no rule excludes (simple), and values some
    one-to-one assignment of the group's values still gives it (matching); beside them the
    random-worlds baseline (every distinct value of the group).

    A release written by a cluster's workers (anonymize --on-workers) is attacked part by part
    on a cluster (--cluster/--workers); without --rules the rules are mined there from the
    release's own records.
    """
    from anonlab.attacks.negative_rules import negative_rule_attack
    from anonlab.distributed.written_release import is_written

    if not 0 < min_exp < 1:  # NaN too; the errors name the options
        raise AnonlabError(f"--min-exp (minExp) must lie in (0, 1), got {min_exp}")
    if max_conditions < 1:
        raise AnonlabError(f"--max-conditions must be at least 1, got {max_conditions}")
    if is_written(release_dir):
        given = {"--dataset": dataset, "--data": data, "--qi": qi, "--sensitive": sensitive,
                 "--hierarchies": hierarchies, "--hierarchy-set": hierarchy_set,
                 "--drop-missing": drop_missing or None}  # fmt: skip
        original = [name for name, value in given.items() if value is not None]
        _attack_written(release_dir, rules, original, l, min_exp, max_conditions, records,
                        cluster, workers, as_json)  # fmt: skip
        return
    if cluster is not None or workers is not None:
        raise AnonlabError(
            "--cluster/--workers: the negative-rule attack of a release folder runs on this "
            "machine; they are for a release the workers wrote (anonymize --on-workers)"
        )
    if (rules is None) == (dataset is None and data is None):
        raise AnonlabError(
            "give either --rules FILE or the original table (--dataset NAME or --data FILE) to "
            "mine the rules from"
        )
    from anonlab.atomic_output import require_file_free

    require_file_free(records, "--records", force)  # before any work
    # --sensitive names the original's sensitive column, and with it the attribute attacked
    release = open_release(release_dir, sensitive)
    l = _resolve_l(l, release.manifest, release.table)
    from anonlab.mining.negative_rules import NegativeRuleSet, mine_negative_rules

    original = None
    if rules is not None:
        rule_set = NegativeRuleSet.read(rules, release.table)
        source = str(rules)
    else:
        original = load_table(
            dataset,
            data,
            qi if qi is not None else ",".join(release.quasi_identifiers),
            sensitive if sensitive is not None else release.sensitive,
            hierarchies,
            hierarchy_set,
            drop_missing,
            as_json=as_json,
        )
        with stage("mining negative rules", as_json):
            rule_set = mine_negative_rules(
                original, min_expectation=min_exp, max_conditions=max_conditions
            )
        source = f"mined from {dataset or data} (minExp {min_exp}, <= {max_conditions} conditions)"
    with stage("attacking", as_json):
        # Rules mined here mean what the original's hierarchies say, whatever the release's are.
        result = negative_rule_attack(release, rule_set, l=l, rules_table=original)
    summary = {
        "release": str(release_dir),
        "algorithm": release.manifest.get("algorithm"),
        "rules": source,
        "n_rules": len(rule_set) if hasattr(rule_set, "__len__") else None,
        **result.to_json(),
        **result.score(release),
    }
    if records is not None:
        from anonlab.formula_guard import guard_frame
        from anonlab.release_io import atomic_write_text

        values = np.asarray(result.values, dtype=object)
        pinned = result.pinned_value()
        frame = pd.DataFrame(
            {
                "record": np.arange(release.table.n_rows),
                "group": result.group,
                "possible_matching": result.n_possible("matching"),
                "possible_simple": result.n_possible("simple"),
                "possible_baseline": result.n_possible("baseline"),
                "vulnerable": result.vulnerable("matching"),
                "pinned_value": np.where(pinned >= 0, values[np.maximum(pinned, 0)], ""),
            }
        )
        atomic_write_text(records, guard_frame(frame).to_csv(index=False))
    _print(summary, release_dir, l, source, as_json)


def _resolve_l(l: int | None, manifest: dict, table) -> int:
    """--l, or the release's ℓ; at most the sensitive domain's size."""
    from anonlab._validation import check_int

    if l is None:
        l = manifest.get("parameters", {}).get("l")
        if l is None:
            raise AnonlabError("--l is required: the release's manifest names no ℓ")
    l = check_int("l", l, minimum=1)
    n_values = table.domain_size(table.sensitive)
    if l > n_values:
        raise AnonlabError(
            f"--l {l} is larger than the sensitive domain ({n_values} values of "
            f"{table.sensitive!r}); choose l <= {n_values}"
        )
    return l


def _print(summary: dict, release_dir: Path, l: int, source: str, as_json: bool) -> None:
    """Print (or emit as JSON) the attack's summary."""
    if as_json:
        emit_json(summary)
        return
    tab = new_table(f"Negative-rule attack ({release_dir}), ℓ = {l}")
    for col in ("reading", f"vulnerable (< {l} values)", "pinned (1 value)"):
        add_column(tab, col, justify="left" if col == "reading" else "right")
    for reading, label in (
        ("matching", "matching (one-to-one assignment)"),
        ("simple", "simple (values not excluded)"),
        ("baseline", "random worlds (no rules)"),
    ):
        add_row(
            tab, label, f"{summary[f'vulnerable_{reading}']:,}", f"{summary[f'pinned_{reading}']:,}"
        )
    out.print(tab)
    say(
        f"{summary['records']:,} records; rules: {source}"
        + (f", {summary['n_rules']} rules" if summary["n_rules"] is not None else "")
        + f"; {summary['excluded_pairs']:,} (record, value) pairs excluded."
    )
    if summary["inconsistent_groups"]:
        say(
            f"{summary['inconsistent_groups']:,} groups have no assignment compatible with the "
            "rules (perturbed values?); they are read with the simple reading."
        )


def _attack_written(release_dir, rules, original, l, min_exp, max_conditions, records,
                    cluster, workers, as_json) -> None:  # fmt: skip
    """A release the workers wrote: attacked part by part on the cluster
    (:func:`anonlab.distributed.written_measures.rule_attack_of_written_release`)."""
    from anonlab.cli.common import client_from_options, require_cluster_for_written
    from anonlab.distributed.written_measures import (
        open_written_parts,
        rule_attack_of_written_release,
    )
    from anonlab.mining.negative_rules import NegativeRuleSet

    require_cluster_for_written(release_dir, cluster, workers, "attacked")
    if original:
        raise AnonlabError(
            f"{original[0]}: it describes an original table to mine the rules from; a release "
            "the workers wrote keeps its records in its parts, and without --rules the rules "
            f"are mined from them on the workers (drop {', '.join(original)})"
        )
    if records is not None:
        raise AnonlabError(
            "--records: the per-record results of a release the workers wrote stay on the "
            "workers (the attack reduces them to counts); drop --records"
        )
    with client_from_options(cluster, workers) as client:
        with stage("reading the written parts on the Dask cluster", as_json):
            parts = open_written_parts(client, release_dir)
        l = _resolve_l(l, parts.manifest, parts.release.table)
        rule_set = None if rules is None else NegativeRuleSet.read(rules, parts.release.table)
        with stage("attacking the parts on the Dask cluster", as_json):
            summary = rule_attack_of_written_release(
                client, parts, rule_set, l=l, min_expectation=min_exp,
                max_conditions=max_conditions,
            )  # fmt: skip
    source = (
        str(rules)
        if rules is not None
        else f"mined from the release's records (minExp {min_exp}, <= {max_conditions} conditions)"
    )
    summary = {"release": str(release_dir), "algorithm": parts.manifest.get("algorithm"),
               "rules": source, **summary}  # fmt: skip
    _print(summary, release_dir, l, source, as_json)


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``anonlab attack rules``."""
    attack_app.command("rules")(attack_rules)
