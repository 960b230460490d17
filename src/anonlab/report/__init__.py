"""The publisher's audit of a release and its self-contained HTML report."""

from anonlab.report.audit import STAGES, Audit, Finding, audit, promise
from anonlab.report.html import render_html, write_html

__all__ = ["STAGES", "Audit", "Finding", "audit", "promise", "render_html", "write_html"]
