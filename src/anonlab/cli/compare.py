"""``anonlab compare``: every algorithm at every ℓ, each release audited, and the
privacy–utility frontier as HTML and JSON."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from anonlab.anonymize import registry
from anonlab.cli.common import (
    AUDIT_OPTIONS,
    DATA_OPTIONS,
    FORCE_OUT,
    JSON,
    SEED,
    SENSITIVE_VALUES,
    AuditOptions,
    DataOptions,
    add_row,
    check_group_sizes,
    column_summary,
    emit_json,
    err,
    new_table,
    out,
    say,
    schema_sensitive_values,
    split_list,
    styled,
    takes_audit_options,
    takes_data_options,
)
from anonlab.cli.output import progress_event
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``compare`` to the top-level app."""
    app.command("compare")(compare_command)


@takes_data_options()
@takes_audit_options()
def compare_command(
    algorithms: str = typer.Option(
        ...,
        "--algorithms",
        help=f"Comma-separated, from: {', '.join(registry.compared())} (ℓ is given to "
        f"{', '.join(registry.compared('m'))} as m).",
    ),
    l_values: str = typer.Option(
        ..., "--l", help="ℓ values: a range LOW..HIGH (e.g. 2..6), a list (2,4,6) or one value."
    ),
    data: DataOptions = DATA_OPTIONS,
    sensitive_values: str | None = SENSITIVE_VALUES,
    out_dir: Path = typer.Option(
        Path("anonlab-compare"), "--out", help="Folder for compare.html/json and each release."
    ),
    force: bool = FORCE_OUT,
    mask_k: int | None = typer.Option(
        None, "--mask-k", help="MASK family: k of the k-anonymization (default k = ℓ)."
    ),
    stages: str | None = typer.Option(
        None,
        "--stages",
        help="Audit stages (default: all); must keep utility and at least one attack.",
    ),
    audit: AuditOptions = AUDIT_OPTIONS,
    seed: int = SEED,
    as_json: bool = JSON,
) -> None:
    """Anonymize with each algorithm at each ℓ, audit every release, and draw the
    privacy–utility frontier (records at risk under the strongest attack vs query error).

    Writes --out/compare.html (table + plot, self-contained), --out/compare.json and, per
    release, --out/<algorithm>-l<ℓ>/ with the release files and its audit report. An algorithm
    that fails for some ℓ is a row with the reason.
    """
    from anonlab.release_io import require_output_free
    from anonlab.report.compare import (
        check_algorithms,
        compare,
        parse_l_values,
        write_comparison,
    )

    # every check that needs no data first, so bad input fails before any work
    names = check_algorithms(split_list(algorithms) or [])
    ls = parse_l_values(l_values)
    require_output_free(out_dir, force)
    thresholds = audit.thresholds()
    budget = audit.budget()
    chosen = split_list(stages)
    table = data.load(as_json=as_json, publishes=True)
    if not table.sensitive_attributes:
        raise AnonlabError("--sensitive is required to compare anonymizers")
    from anonlab.anonymize import publication_scheme
    from anonlab.release import require_no_value_sets

    for name in names:  # each release is saved: no exact values published as sets unasked
        require_no_value_sets(table, publication_scheme(name) or "")
    from anonlab.resources import check_audit_sizes

    check_group_sizes(table.n_rows, l=max(ls), mask_k=mask_k)
    # every release's audit, bounded on the table (a release has at most as many groups)
    check_audit_sizes(table, **budget.sizes())
    total = len(names) * len(ls)
    done = [0]

    def line(row) -> str:
        done[0] += 1
        head = f"[{done[0]}/{total}] {row.name}:"
        if row.status != "ok":
            return f"{head} failed — {row.reason}"
        risk = (
            "no attack applied"
            if row.at_risk_share is None
            else f"{row.at_risk_share:.2%} at risk ({row.strongest_attack})"
        )
        error = "—" if row.query_error is None else f"{row.query_error:.4f}"
        extra = f", {row.suppressed:,} suppressed" if row.suppressed else ""
        return (
            f"{head} {risk}, query error {error}{extra} "
            f"({row.anonymize_seconds:.1f} s + audit {row.audit_seconds:.1f} s)"
        )

    def run(progress):
        return compare(
            table,
            names,
            ls,
            stages=chosen,
            budget=budget,
            mask_k=mask_k,
            sensitive_values=schema_sensitive_values(sensitive_values, data.schema),
            seed=seed,
            progress=progress,
            thresholds=thresholds,
        )

    if err.is_terminal:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),  # names and steps, shown as they are
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        ) as bar:
            task = bar.add_task("compare", total=total)

            def progress(name, step, row):
                if step == "done":
                    bar.advance(task)
                    say(line(row), console=bar.console)
                else:
                    bar.update(task, description=f"{name}: {step}")

            result = run(progress)
    else:  # a log: one line per finished release (and the progress file, where one is set)
        finished = [0]

        def progress(name, step, row):
            if step == "done":
                finished[0] += 1
                say(line(row), console=err, soft_wrap=True)
            progress_event(f"{name}: {step}", finished[0], total)

        result = run(progress)

    write_comparison(result, out_dir, force=force)
    report, summary = out_dir / "compare.html", out_dir / "compare.json"
    if as_json:
        emit_json(
            {
                "report": str(report),
                "summary": str(summary),
                "columns": column_summary(table),
                **result.to_json(),
            }
        )
        return
    tab = new_table(f"Privacy–utility frontier ({table.n_rows:,} records, seed {seed})")
    for col in ("release", "frontier", "strongest attack", "at risk", "share", "query error"):
        tab.add_column(
            col, justify="right" if col in ("at risk", "share", "query error") else "left"
        )
    for r in result.rows:
        if r.status != "ok":
            add_row(tab, r.name, styled("failed", "red"), r.reason or "", "", "", "")
            continue
        add_row(
            tab,
            r.name + (f" ({r.suppressed:,} suppressed)" if r.suppressed else ""),
            styled("★", "green") if r.pareto else Text(""),
            r.strongest_attack or (r.note or "—"),
            "—" if r.at_risk is None else f"{r.at_risk:,} / {r.considered:,}",
            "—" if r.at_risk_share is None else f"{r.at_risk_share:.2%}",
            "—" if r.query_error is None else f"{r.query_error:.4f}",
        )
    out.print(tab)
    front = ", ".join(r.name for r in result.frontier()) or "none"
    best = result.recommended()
    say(
        f"meets the thresholds, most useful: {best.name} (query error {best.query_error:.4f})"
        if best is not None
        else "no release meets the thresholds (each audit report says why and what next)"
    )
    say(f"frontier: {front}\nreport: {report}\nsummary: {summary}")
