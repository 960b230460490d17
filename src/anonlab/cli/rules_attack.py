"""``anonlab attack rules``: the negative-rule background-knowledge attack (Li & Li, ICDE 2008)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import typer

from anonlab.cli.common import (
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
    as_json: bool = JSON,
) -> None:
    """Negative association rules (Li & Li, Injector): records left with fewer than ℓ values.

    The rules come from a rule file (--rules) or are mined from the original table
    (--dataset/--data, with --min-exp and --max-conditions). Each record's possible values are
    reported in two readings: values of its group no rule excludes (simple), and values some
    one-to-one assignment of the group's values still gives it (matching); beside them the
    random-worlds baseline (every distinct value of the group).
    """
    from anonlab._validation import check_float, check_int
    from anonlab.attacks.negative_rules import negative_rule_attack

    if (rules is None) == (dataset is None and data is None):
        raise AnonlabError(
            "give either --rules FILE or the original table (--dataset NAME or --data FILE) to "
            "mine the rules from"
        )
    if not 0 < check_float("min_exp", min_exp) < 1:
        raise AnonlabError(f"--min-exp (minExp) must lie in (0, 1), got {min_exp}")
    max_conditions = check_int("max_conditions", max_conditions, minimum=1)
    from anonlab.atomic_output import require_file_free

    require_file_free(records, "--records", force)  # before any work
    # --sensitive names the original's sensitive column, and with it the attribute attacked
    release = open_release(release_dir, sensitive)
    n_values = release.table.domain_size(release.sensitive)
    if l is None:
        l = release.manifest.get("parameters", {}).get("l")
        if l is None:
            raise AnonlabError("--l is required: the release's manifest names no ℓ")
    l = check_int("l", l, minimum=1)
    if l > n_values:
        raise AnonlabError(
            f"--l {l} is larger than the sensitive domain ({n_values} values of "
            f"{release.sensitive!r}); choose l <= {n_values}"
        )
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


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``anonlab attack rules``."""
    attack_app.command("rules")(attack_rules)
