"""An :class:`~anonlab.report.audit.Audit` as one self-contained HTML page.

No network: the CSS is inline and the plots are inline SVG written directly
(:mod:`anonlab.report.svg_chart`, text escaped). Every value that comes from data or settings
goes through :func:`html.escape`, so a cell holding ``<script>`` shows as text.

Every page opens with a banner stating what it is: :data:`~anonlab.report.audit.INTERNAL` for a
report with record-level findings, :data:`~anonlab.report.audit.REDACTED` for the shareable form
(``redact=True``: :meth:`~anonlab.report.audit.Audit.redacted`). No page shows the release's seed
or export key.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from anonlab._version import __version__
from anonlab.report.audit import INTERNAL, REDACTED, Audit, Finding
from anonlab.report.plots import render as render_plot

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 70em; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0.1em 0.6em; border-radius: 0.8em; font-weight: 600; }
.pass { background: #d4efdf; color: #145a32; }
.at-risk, .fail { background: #f9d6d5; color: #78281f; }
.info, .skipped { background: #e8eaf0; color: #34495e; }
.muted { color: #666; }
figure { margin: 0.8em 0; }
figure svg { max-width: 100%; height: auto; }
code { background: #f4f4f4; padding: 0 0.2em; }
.banner { margin: 0 0 1em; padding: 0.6em 1em; border: 2px solid; font-weight: 700; }
.banner.internal { background: #f9d6d5; color: #78281f; border-color: #78281f; }
.banner.redacted { background: #d4efdf; color: #145a32; border-color: #145a32; }
"""


def escape(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict | list):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def badge(verdict: str) -> str:
    return f'<span class="badge {escape(verdict.replace(" ", "-"))}">{escape(verdict)}</span>'


def _verdicts(audit: Audit) -> str:
    rows = []
    for f in audit.findings:
        risk = (
            "—"
            if f.at_risk is None
            else f"{f.at_risk:,} of {f.considered:,}"
            if f.considered
            else f"{f.at_risk:,}"
        )
        rows.append(
            f'<tr><td><a href="#{escape(f.key)}">{escape(f.title)}</a></td>'
            f"<td>{badge(f.verdict)}</td>"
            f'<td class="num">{escape(risk)}</td><td>{escape(f.headline)}</td></tr>'
        )
    return (
        "<table><tr><th>check or attack</th><th>verdict</th><th>records at risk</th>"
        "<th>what was found</th></tr>" + "".join(rows) + "</table>"
    )


def _strongest(audit: Audit) -> str:
    if audit.is_redacted:
        return (
            "<p class='muted'>Withheld: the redacted report names no record (each attack's "
            "counts and shares are in its section).</p>"
        )
    items = [f"<li><b>{escape(f.title)}</b>: {escape(f.strongest)}</li>" for f in audit.findings
             if f.strongest]  # fmt: skip
    if not items:
        return "<p class='muted'>No attack produced an inference beyond random worlds.</p>"
    return "<ul>" + "".join(items) + "</ul>"


def _cell(value: Any) -> str:
    """One value as HTML: a nested dict as its own key–value table, a short list of scalars
    joined, a long one summarized (never raw JSON)."""
    if isinstance(value, dict):
        return kv_table(value) if value else "—"
    if isinstance(value, list | tuple):
        if all(not isinstance(v, dict | list | tuple) for v in value):
            if len(value) <= 12:
                return escape(", ".join(_fmt(v) for v in value)) or "—"
            numbers = [v for v in value if isinstance(v, int | float) and v == v]
            if len(numbers) == len(value):
                return escape(
                    f"{len(value):,} values from {_fmt(min(numbers))} to {_fmt(max(numbers))}"
                )
            return escape(", ".join(_fmt(v) for v in value[:12]) + f", … ({len(value):,} in all)")
        return escape(f"{len(value):,} items")
    return escape(_fmt(value))


def parameters_text(parameters: dict[str, Any] | None) -> str:
    """``"k = 5, l = 3, sensitive_values = a, b"``: a release's parameters in words (a mapping
    as ``levels = age 3, sex 1``, never JSON)."""
    items = []
    for key, value in (parameters or {}).items():
        if value is None:
            continue
        if isinstance(value, list | tuple):
            value = ", ".join(map(str, value))
        elif isinstance(value, dict):  # levels {"age": 3}, a distance per attribute
            value = ", ".join(f"{k} {_fmt(v)}" for k, v in value.items())
        items.append(f"{key} = {_fmt(value)}")
    return "; ".join(items) or "no parameters"


def kv_table(data: dict[str, Any]) -> str:
    """Key–value rows; a dict of flat dicts with the same keys becomes a table with columns;
    nested values are tables of their own, lists are joined or summarized (:func:`_cell`)."""
    inner = list(data.values())
    if inner and all(isinstance(v, dict) for v in inner):
        cols = list(inner[0])
        if all(list(v) == cols for v in inner):
            head = "<th></th>" + "".join(f"<th>{escape(c)}</th>" for c in cols)
            body = "".join(
                f"<tr><th>{escape(k)}</th>"
                + "".join(f"<td class='num'>{_cell(v.get(c))}</td>" for c in cols)
                + "</tr>"
                for k, v in data.items()
            )
            return f"<table><tr>{head}</tr>{body}</table>"
    rows = "".join(
        f"<tr><th>{escape(k)}</th><td class='num'>{_cell(v)}</td></tr>" for k, v in data.items()
    )
    return f"<table>{rows}</table>"


def _worst_table(worst: list[dict[str, Any]]) -> str:
    if not worst:
        return ""
    cols = list(worst[0])
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>"
        for r in worst
    )
    return f"<h3>Worst records</h3><table><tr>{head}</tr>{body}</table>"


def _section(f: Finding) -> str:
    parts = [f'<h2 id="{escape(f.key)}">{escape(f.title)} {badge(f.verdict)}</h2>']
    if f.paper:
        parts.append(f"<p class='muted'>{escape(f.paper)}</p>")
    parts.append(f"<p>{escape(f.headline)}.</p>")
    if f.attacker and f.attacker != "—":
        parts.append(
            f"<p><b>Attacker:</b> {escape(f.attacker)}. <b>Promise:</b> {escape(f.promise)}.</p>"
        )
    if f.example:
        parts.append(f"<p><b>Example:</b> {escape(f.example)}.</p>")
    svg = render_plot(f.plot)
    if svg:
        parts.append(f"<figure>{svg}<figcaption>{escape(f.plot['label'])}</figcaption></figure>")
    if f.measures:
        parts.append("<h3>Measures</h3>" + kv_table(f.measures))
    if f.baseline:
        parts.append("<h3>Random-worlds baseline</h3>" + kv_table(f.baseline))
    parts.append(_worst_table(f.worst))
    if f.settings:
        parts.append("<h3>Settings</h3>" + kv_table(f.settings))
    parts.append(f"<p class='muted'>{f.seconds:.2f} s</p>")
    return "\n".join(parts)


#: The header's lists of columns: (key of the columns' account, title, why).
_COLUMN_LISTS = (
    ("insensitive", "Published as they are", "insensitive"),
    (
        "not_published",
        "Not published",
        "no role given; give one with --qi, --sensitive, --insensitive or --identifiers",
    ),
    ("identifiers_dropped", "Identifiers dropped", "never published"),
)


def _columns(columns: dict[str, Any] | None) -> str:
    """The header's account of the input's columns: kept as they are, not published for want
    of a role, identifiers dropped, rows dropped, and each column's type (when known)."""
    if not columns:
        return ""
    items = [
        f"<li><b>{title}</b> ({why}): {escape(', '.join(columns[key]))}</li>"
        for key, title, why in _COLUMN_LISTS
        if columns.get(key)
    ]
    if columns.get("rows_with_missing"):
        items.append(
            f"<li><b>Rows dropped</b> for a missing value: {columns['rows_with_missing']:,}</li>"
        )
    types = columns.get("types") or {}
    if types:
        cells = "".join(
            f"<tr><th>{escape(name)}</th><td>{escape(t.get('type'))}</td><td>{escape(t.get('how'))}</td>"
            f"<td>{escape(t.get('note') or '')}</td></tr>"
            for name, t in types.items()
        )
        items.append(
            "<li><b>Column types</b>:<table><tr><th>column</th><th>type</th><th>how</th>"
            f"<th>note</th></tr>{cells}</table></li>"
        )
    if not items:
        return ""
    return '<h2 id="columns">Columns</h2>\n<ul class="columns">' + "".join(items) + "</ul>"


def _decision(decision: Any) -> str:
    """The report's opening: release or not against the publisher's thresholds, why, what to
    do next (:mod:`anonlab.report.decision`), and each criterion with its value."""
    if decision is None:
        return ""
    verdict = "Release" if decision.release else "Do not release"
    kind = "pass" if decision.release else "fail"
    rows = "".join(
        f"<tr><td>{escape(c['criterion'])}</td><td class='num'>{escape(_fmt(c['threshold']))}</td>"
        f"<td class='num'>{escape(_fmt(c['value']))}</td>"
        f"<td>{badge('pass' if c['holds'] else 'at risk')}"
        f"{'' if c.get('decides', True) else ' (a bound: shown, not deciding)'}</td></tr>"
        for c in decision.criteria
    )
    steps = "".join(f"<li>{escape(step)}</li>" for step in decision.next_steps)
    return (
        f'<h2 id="decision">Decision: <span class="badge {kind}">{escape(verdict)}</span></h2>\n'
        f"<p>{escape(decision.summary)}</p>\n"
        + (f"<h3>What to do next</h3><ul>{steps}</ul>\n" if steps else "")
        + "<table><tr><th>criterion</th><th>threshold</th><th>this release</th><th></th></tr>"
        + rows
        + "</table>"
    )


def _banner(classification: str) -> str:
    kind = "redacted" if classification.startswith("redacted") else "internal"
    return f'<div class="banner {kind}" role="note">{escape(classification)}</div>'


def render_html(audit: Audit, title: str | None = None, *, redact: bool = False) -> str:
    """The whole report as a string; ``redact=True`` renders :meth:`Audit.redacted`.

    The page opens with the audit's classification (:data:`~anonlab.report.audit.INTERNAL` or
    :data:`~anonlab.report.audit.REDACTED`) as a banner.
    """
    if redact and not audit.is_redacted:
        audit = audit.redacted()
    r = audit.release
    title = title or f"anonlab audit: {r.get('algorithm')} release"
    sensitive = r.get("sensitive")
    if isinstance(sensitive, list):  # several sensitive attributes
        sensitive = ", ".join(sensitive)
    summary = (
        f"{r['records']:,} records in {r['groups']:,} groups ({r['scheme']}); "
        f"quasi-identifiers {', '.join(r['quasi_identifiers'])}; "
        + (
            f"sensitive {sensitive}; "
            if sensitive is not None
            else "no sensitive attribute (plain k-anonymity); "
        )  # fmt: skip
        + f"made by {r.get('algorithm')} with {parameters_text(r.get('parameters'))}."
    )
    settings = kv_table(audit.settings)
    body = f"""{_decision(audit.decision)}
{_columns(r.get("columns"))}
<h2>Verdicts</h2>
{_verdicts(audit)}
<h2>Strongest inferences</h2>
{_strongest(audit)}
{"".join(_section(f) for f in audit.findings)}
<h2 id="settings">What was assumed, and how to re-run it</h2>
<p>Each attack states what its attacker knows. Attacks read only what is published (groups,
quasi-identifiers, published sensitive values) plus that knowledge; they are scored against the
publisher's copy of the original. Re-running with the same settings and seeds gives the same
report (up to the measured run times). <code>seed</code> is the audit's own seed (its targets,
chains and queries), not the release's: the release's seed and export key are not shown.</p>
{settings}"""
    return document(title, summary, body, banner=audit.classification)


def document(title: str, summary: str, body: str, banner: str | None = None) -> str:
    """A self-contained HTML page: ``banner`` (escaped, first thing on the page, when given),
    inline CSS, the escaped ``title`` as heading, the escaped ``summary`` paragraph, ``body``
    (already HTML) and the anonlab version. Shared by the audit report, the index page and
    ``compare``'s page."""
    top = _banner(banner) + "\n" if banner else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{_CSS}</style></head>
<body>
{top}<h1>{escape(title)}</h1>
<p>{escape(summary)}</p>
{body}
<p class="muted">anonlab {escape(__version__)}</p>
</body></html>
"""


def write_html(
    audit: Audit, path: str | Path, title: str | None = None, *, redact: bool = False
) -> Path:
    """Write the report atomically (a temporary file renamed into place); ``redact=True``
    writes the shareable form (:meth:`Audit.redacted`)."""
    from anonlab.release_io import atomic_write_text

    path = Path(path)
    atomic_write_text(path, render_html(audit, title, redact=redact))
    return path


def write_json(audit: Audit, path: str | Path, *, redact: bool = False) -> Path:
    """Write ``audit.to_json()`` atomically (``redact=True``: of :meth:`Audit.redacted`)."""
    from anonlab.release_io import atomic_write_text

    if redact and not audit.is_redacted:
        audit = audit.redacted()
    path = Path(path)
    atomic_write_text(path, json.dumps(audit.to_json(), indent=2, ensure_ascii=False) + "\n")
    return path


def render_index(audits: dict[str, Audit], title: str = "anonlab audits") -> str:
    """One page comparing several audited releases, linking to each release's report."""
    names = list(audits)
    first = audits[names[0]]
    head = "<th>check or attack</th>" + "".join(
        f'<th><a href="{escape(n)}/audit.html">{escape(n)}</a></th>' for n in names
    )
    rows = []
    for i, f0 in enumerate(first.findings):
        cells = []
        for n in names:
            f = audits[n].findings[i]
            risk = "" if f.at_risk is None else f"{f.at_risk:,} of {f.considered:,} "
            cells.append(f"<td>{badge(f.verdict)} {escape(risk)}<br>{escape(f.headline)}</td>")
        rows.append(f"<tr><th>{escape(f0.title)}</th>{''.join(cells)}</tr>")
    summary = (
        "Each column is one release of the same table; each cell the verdict, the records at "
        "risk beyond the release's promise (of those examined), and what was found. Click a "
        "release for its full report."
    )
    banner = REDACTED if all(a.is_redacted for a in audits.values()) else INTERNAL
    return document(title, summary, f"<table><tr>{head}</tr>{''.join(rows)}</table>", banner=banner)
