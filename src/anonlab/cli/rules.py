"""``anonlab rules``: mine negative association rules (Li & Li, ICDE 2008, §IV), show rule files.

``anonlab rules mine`` mines the rules ``X ⇒ ¬s`` of confidence 1 and expectation at least
``--min-exp`` from a table, prints them with their counts and expectations and the paper's
Figure 3 distribution (records by number of sensitive values the rules exclude), and writes the
rule file with ``--out``. ``anonlab rules show FILE`` reads a rule file against a table (every
attribute, node and value is checked) and prints the same summary.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import typer

from anonlab.cli.common import (
    DATA_OPTIONS,
    FORCE_OUT_FILE,
    JSON,
    DataOptions,
    add_column,
    add_row,
    column_summary,
    command_group,
    emit_json,
    new_table,
    out,
    say,
    stage,
    takes_data_options,
)

rules_app = command_group("Negative association rules X ⇒ ¬s (Injector, Li & Li 2008): mine, show.")

MIN_EXP = typer.Option(0.9, "--min-exp", help="Minimum expectation minExp, in (0, 1).")
MAX_CONDITIONS = typer.Option(
    1, "--max-conditions", help="Most conditions in X (1 reproduces the paper's Figure 3)."
)


def _summary(rules, table, seconds: float | None, source: str) -> dict:
    dist = rules.distribution(table)
    payload = rules.to_json()
    payload["source"] = source
    payload["rows"] = table.n_rows
    payload["quasi_identifiers"] = list(table.quasi_identifiers)
    payload["hierarchy_heights"] = {
        q: (None if table.schema[q].hierarchy is None else table.schema[q].hierarchy.height)
        for q in table.quasi_identifiers
    }
    payload["incompatible_values"] = dist
    if rules.thresholds:  # C_X needed per value (None: the value is absent, no rule possible)
        payload["count_thresholds"] = {
            v: (None if not math.isfinite(t) else round(t, 4)) for v, t in rules.thresholds.items()
        }
    if seconds is not None:
        payload["seconds"] = round(seconds, 4)
    return payload


def _print(rules, table, summary: dict, limit: int) -> None:
    tab = new_table(
        f"Negative rules X ⇒ ¬{rules.sensitive} (confidence 1, minExp {rules.min_expectation:g}"
        f", ≤ {rules.max_conditions} condition{'s' if rules.max_conditions > 1 else ''})"
    )
    tab.add_column("#", justify="right")
    tab.add_column("X")
    add_column(tab, f"¬ {rules.sensitive}")
    tab.add_column("C_X", justify="right")
    tab.add_column("expectation", justify="right")
    for i, r in enumerate(rules.rules[:limit]):
        add_row(
            tab,
            str(i + 1),
            ", ".join(f"{c.attribute} = {c.value}" for c in r.conditions),
            r.sensitive_value,
            f"{r.support_count:,}",
            f"{r.expectation:.4f}",
        )
    out.print(tab)
    if len(rules) > limit:
        say(f"... {len(rules) - limit:,} more rules (--limit, or --json for all)")
    dist = summary["incompatible_values"]
    d = new_table("Records by number of incompatible sensitive values (Figure 3)")
    d.add_column("")
    keys = [f"N{k}" for k in range(len(dist["counts"]))]
    for k in keys:
        d.add_column(k, justify="right")
    d.add_row("records", *[f"{c:,}" for c in dist["counts"]])
    d.add_row("share", *[f"{100 * s:.1f}%" for s in dist["shares"]])
    out.print(d)
    pruned = (
        ""
        if rules.n_unpruned is None
        else f" ({rules.n_unpruned:,} before removing redundant specializations)"
    )
    secs = f" in {summary['seconds']:.3f} s" if "seconds" in summary else ""
    say(
        f"{len(rules):,} rules{pruned}{secs}; {table.n_rows:,} records; quasi-identifiers "
        f"{', '.join(table.quasi_identifiers)}; a record is incompatible with s if some rule "
        "X ⇒ ¬s has X true for it."
    )


@rules_app.command("mine")
@takes_data_options(leave_out=("value_sets",))
def mine(
    data: DataOptions = DATA_OPTIONS,
    min_exp: float = MIN_EXP,
    max_conditions: int = MAX_CONDITIONS,
    out_file: Path | None = typer.Option(None, "--out", help="Write the rule file (JSON)."),
    force: bool = FORCE_OUT_FILE,
    limit: int = typer.Option(50, "--limit", help="Rules shown in the table (>= 0)."),
    as_json: bool = JSON,
) -> None:
    """Mine X ⇒ ¬s rules (confidence 1, expectation ≥ minExp) and their Figure 3 distribution."""
    from anonlab._validation import check_int
    from anonlab.atomic_output import require_file_free
    from anonlab.mining import mine_negative_rules
    from anonlab.mining.negative_rules import check_min_expectation

    check_min_expectation(min_exp)  # fail before loading anything
    check_int("max_conditions", max_conditions, minimum=1)
    check_int("limit", limit, minimum=0)
    require_file_free(out_file, "--out", force)
    table = data.load(as_json=as_json)
    with stage(f"mining rules on {table.n_rows:,} records", as_json):
        t0 = time.perf_counter()
        rules = mine_negative_rules(table, min_exp, max_conditions)
        seconds = time.perf_counter() - t0
    if out_file is not None:
        rules.write(out_file)
    summary = _summary(rules, table, seconds, str(data.dataset or data.data))
    summary["columns"] = column_summary(table)
    if out_file is not None:
        summary["out"] = str(out_file)
    if as_json:
        emit_json(summary)
        return
    _print(rules, table, summary, limit)
    if out_file is not None:
        say(f"wrote {out_file}")


@rules_app.command("show")
@takes_data_options(leave_out=("value_sets",))
def show(
    rule_file: Path = typer.Argument(..., help="A rule file written by `anonlab rules mine`."),
    data: DataOptions = DATA_OPTIONS,
    limit: int = typer.Option(50, "--limit", help="Rules shown in the table."),
    as_json: bool = JSON,
) -> None:
    """Read a rule file against a table (names checked) and show its rules and distribution."""
    from anonlab._validation import check_int
    from anonlab.mining import NegativeRuleSet

    check_int("limit", limit, minimum=0)
    table = data.load(as_json=as_json)
    rules = NegativeRuleSet.read(rule_file, table)
    summary = _summary(rules, table, None, str(data.dataset or data.data))
    summary["columns"] = column_summary(table)
    summary["rule_file"] = str(rule_file)
    if as_json:
        emit_json(summary)
        return
    _print(rules, table, summary, limit)


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add this module's commands to the top-level app and the ``attack`` group."""
    app.add_typer(rules_app, name="rules")
