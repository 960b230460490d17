"""``anonlab audit``: every check, attack and measure on a release, as HTML and JSON.

The reports are internal (record-level findings; a banner says so) unless ``--redact`` writes
the shareable form (aggregate figures only). Everything printed from the data or a path is a
:class:`rich.text.Text` (never read as console markup), so a value such as ``[/]`` prints as
itself.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table as RichTable
from rich.text import Text

from anonlab.cli.common import (
    AUDIT_OPTIONS,
    CLUSTER,
    JSON,
    WORKERS,
    AuditOptions,
    emit_json,
    err,
    open_release,
    out,
    split_list,
    takes_audit_options,
    truth_from_data,
)
from anonlab.cli.output import progress_event, progress_file
from anonlab.errors import AnonlabError


def register(app: typer.Typer, attack_app: typer.Typer) -> None:
    """Add ``audit`` to the top-level app."""
    app.command("audit")(audit_command)


class _StageSpinner(SpinnerColumn):
    """A spinner for the running stage, a dot for a waiting one, a tick for a finished one."""

    def render(self, task: Task) -> Text:
        return Text("·", style="dim") if not task.started else super().render(task)


class AuditProgress:
    """The audit's progress on a terminal: one line per stage, in the order they run.

    Each stage is a task that starts as pending; the running stage shows a bar with its
    iterations when it reports them (:class:`anonlab.report.audit.StageProgress` "advance"
    events: the deFinetti sweeps, the worst case's values of k) and otherwise a spinner with the
    elapsed time; a finished stage shows its verdict. Use as a context manager; pass
    :meth:`update` as ``on_progress`` to :func:`anonlab.report.audit`.
    """

    def __init__(self, stages: list[str], console: Console) -> None:
        self.progress = Progress(
            _StageSpinner(finished_text="[green]✓[/]"),
            TextColumn("{task.description:<16}"),
            BarColumn(),
            TextColumn("{task.fields[count]:>9}"),
            TextColumn("{task.fields[status]:<8}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.tasks: dict[str, TaskID] = {
            name: self.progress.add_task(name, total=None, start=False, status="waiting", count="")
            for name in stages
        }

    def __enter__(self) -> AuditProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def update(self, event) -> None:
        """Show one :class:`~anonlab.report.audit.StageProgress` event."""
        task = self.tasks[event.stage]
        if event.event == "start":
            self.progress.start_task(task)
            self.progress.update(task, status="running")
        elif event.event == "advance":
            self.progress.update(
                task,
                completed=event.completed,
                total=event.total,
                count=f"{event.completed}/{event.total}",
            )
        else:  # done
            verdict = event.finding.verdict if event.finding is not None else "done"
            total = self.progress.tasks[task].total or 1
            self.progress.update(task, total=total, completed=total, status=verdict)
            self.progress.stop_task(task)


def _write_at_risk(frame, path: Path) -> None:
    """The at-risk records file, atomically; a CSV is guarded against spreadsheet formulas."""
    import io

    from anonlab.atomic_output import atomic_write_bytes
    from anonlab.formula_guard import guard_frame

    buffer = io.BytesIO()
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(buffer, index=False)
    else:
        guard_frame(frame).to_csv(buffer, index=False)
    atomic_write_bytes(path, buffer.getvalue())


def _audit_here(release, stages: list[str], show: bool, kwargs: dict):
    """The audit on this machine, with a progress bar on a terminal (or the serve page's
    progress events)."""
    from anonlab.report import audit as run_audit

    if show:
        with AuditProgress(stages, err) as bar:
            return run_audit(release, on_progress=bar.update, **kwargs)
    if progress_file() is not None:  # run by `anonlab serve`: its page draws the stages

        def tell(event):
            inner = f" {event.completed}/{event.total}" if event.event == "advance" else ""
            progress_event(f"audit: {event.stage}{inner}", event.index, event.stages)

        return run_audit(release, on_progress=tell, **kwargs)
    return run_audit(release, **kwargs)


def _refuse_for_written(release_dir, data, at_risk, cluster, workers) -> None:
    """What a release the workers wrote cannot be audited with, refused before any work."""
    from anonlab.cli.common import require_cluster_for_written

    require_cluster_for_written(release_dir, cluster, workers, "audited")
    if data is not None:
        raise AnonlabError(
            "--data: a release the workers wrote keeps the publisher's records in its parts "
            "(sealed with the release); drop --data"
        )
    if at_risk is not None:
        raise AnonlabError(
            "--at-risk: the audit of a release the workers wrote lists no records (their "
            "values stay on the workers); drop --at-risk"
        )


def _audit_written(release_dir, cluster, workers, kwargs: dict, as_json: bool):
    """The audit of a release the workers wrote, on the cluster
    (:func:`anonlab.distributed.written_audit.audit_written_release`)."""
    from anonlab.cli.common import client_from_options, say
    from anonlab.distributed.written_audit import audit_written_release

    def tell(name: str) -> None:
        if not as_json:
            say(f"audit over the written parts: {name}")

    with client_from_options(cluster, workers) as client:
        return audit_written_release(client, release_dir, on_stage=tell, **kwargs)


@takes_audit_options()
def audit_command(
    release_dir: Path = typer.Argument(..., help="A release directory."),
    data: Path | None = typer.Option(
        None, "--data", help="The original table, checked against the release's publisher copy."
    ),
    report: Path | None = typer.Option(
        None, "--report", help="HTML report to write (default: RELEASE/audit.html)."
    ),
    summary: Path | None = typer.Option(
        None, "--summary", help="JSON summary to write (default: RELEASE/audit.json)."
    ),
    at_risk: Path | None = typer.Option(
        None,
        "--at-risk",
        help="Write the records at risk under any stage, keyed by the input's row id, to this "
        ".csv or .parquet file (internal: for the publisher only).",
    ),
    redacted_report: Path | None = typer.Option(
        None,
        "--redacted-report",
        help="Also write the shareable (redacted) HTML report here, from the same run.",
    ),
    redacted_summary: Path | None = typer.Option(
        None,
        "--redacted-summary",
        help="Also write the shareable (redacted) JSON summary here, from the same run.",
    ),
    stages: str | None = typer.Option(
        None, "--stages", help="Comma-separated subset of the stages (default: all)."
    ),
    audit: AuditOptions = AUDIT_OPTIONS,
    seed: int = typer.Option(
        0,
        "--seed",
        help="The audit's own seed (its targets, chains and queries); not the release's seed.",
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace an existing --report or --summary file."
    ),
    redact: bool = typer.Option(
        False,
        "--redact",
        help="Shareable reports: verdicts and aggregate figures only, no record-level value "
        "(default: an internal report that lists individual records).",
    ),
    cluster: str | None = CLUSTER,
    workers: int | None = WORKERS,
    as_json: bool = JSON,
) -> None:
    """Audit a release: privacy models, every attack beside its baseline, risk, utility.

    Writes a self-contained HTML report and a JSON summary (atomically) and prints the verdicts.
    Both are internal documents (they list individual records) unless --redact is given.

    A release written by a cluster's workers (anonymize --on-workers) is audited on a cluster
    (--cluster/--workers) from its part files: checks, negative rules, risk and utility; the
    other stages are reported as skipped, with the reason, and no finding lists records.
    """
    from anonlab.atomic_output import require_file_free
    from anonlab.distributed.written_release import is_written
    from anonlab.report import stage_names, write_html, write_json
    from anonlab.report.audit import at_risk_frame
    from anonlab.resources import check_audit_sizes

    written = is_written(release_dir)
    if written:
        _refuse_for_written(release_dir, data, at_risk, cluster, workers)
        release = None
    else:
        if cluster is not None or workers is not None:
            raise AnonlabError(
                "--cluster/--workers: a release folder is audited on this machine; they are "
                "for a release the workers wrote (anonymize --on-workers)"
            )
        release = open_release(release_dir)
        if data is not None:
            truth_from_data(release, data)  # the release must be this table's
    budget = audit.budget()
    chosen = split_list(stages)
    known = stage_names()
    if chosen is not None:
        unknown = [s for s in chosen if s not in known]
        if unknown:
            raise AnonlabError(f"--stages: unknown {unknown}; choose from {', '.join(known)}")
    # An explicit --report/--summary is not overwritten without --force; the default files in
    # the release folder are the audit's own and are replaced by a new audit.
    require_file_free(report, "--report", force)
    require_file_free(summary, "--summary", force)
    require_file_free(at_risk, "--at-risk", force)
    require_file_free(redacted_report, "--redacted-report", force)
    require_file_free(redacted_summary, "--redacted-summary", force)
    if at_risk is not None and at_risk.suffix.lower() not in (".csv", ".parquet"):
        raise AnonlabError(f"--at-risk {str(at_risk)!r}: use a .csv or .parquet file name")
    report = report or release_dir / "audit.html"
    summary = summary or release_dir / "audit.json"
    show = not as_json and err.is_terminal
    thresholds = audit.thresholds()
    kwargs = dict(stages=chosen, budget=budget, seed=seed, thresholds=thresholds)
    if written:
        result = _audit_written(release_dir, cluster, workers, kwargs, as_json)
    else:
        check_audit_sizes(release, **budget.sizes())
        result = _audit_here(release, list(chosen or known), show, kwargs)
    if at_risk is not None:  # from the internal audit, before any redaction
        _write_at_risk(at_risk_frame(result, release), at_risk)
    if redacted_report is not None or redacted_summary is not None:  # one run, both readers
        shareable = result.redacted()
        if redacted_report is not None:
            write_html(shareable, redacted_report, title=f"anonlab audit of {release_dir}")
        if redacted_summary is not None:
            write_json(shareable, redacted_summary)
    if redact:
        result = result.redacted()
    write_html(result, report, title=f"anonlab audit of {release_dir}")
    write_json(result, summary)
    if as_json:
        emit_json({"report": str(report), "summary": str(summary), **result.to_json()})
        return
    # user data (paths, values in the findings) goes out as Text, never parsed as markup
    tab = RichTable(title=Text(f"Audit of {release_dir}"))
    for col in ("stage", "verdict", "at risk", "what was found"):
        tab.add_column(col, justify="right" if col == "at risk" else "left")
    colors = {"pass": "green", "at risk": "red", "fail": "red"}
    for f in result.findings:
        risk = "" if f.at_risk is None else f"{f.at_risk:,} / {f.considered:,}"
        color = colors.get(f.verdict, "white")
        tab.add_row(Text(f.title), Text(f.verdict, style=color), risk, Text(f.headline))
    out.print(tab)
    for f in result.findings:
        if f.strongest:
            out.print(Text.assemble((f.title, "bold"), ": ", f.strongest), highlight=False)
    if result.decision is not None:
        color = "bold green" if result.decision.release else "bold red"
        out.print(Text(result.decision.summary, style=color), highlight=False)
    style = "bold green" if result.is_redacted else "bold red"
    out.print(Text(result.classification, style=style), highlight=False)
    out.print(Text(f"report: {report}\nsummary: {summary}"), highlight=False)
    if at_risk is not None:
        out.print(Text(f"records at risk (internal): {at_risk}"), highlight=False)
