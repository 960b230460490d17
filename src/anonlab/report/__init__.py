"""The publisher's audit of a release and its self-contained HTML report."""

from anonlab.attacks.contract import promise
from anonlab.report.audit import (
    INTERNAL,
    REDACTED,
    STAGES,
    Audit,
    Finding,
    audit,
    stage_names,
)
from anonlab.report.html import render_html, write_html, write_json

__all__ = [
    "INTERNAL",
    "REDACTED",
    "STAGES",
    "Audit",
    "Finding",
    "audit",
    "promise",
    "render_html",
    "stage_names",
    "write_html",
    "write_json",
]
