"""The common protocol of ``anonlab reproduce``: one :class:`Claim` per number or trend a paper
reports, judged against the tolerance its issue set, and the Markdown summary of them all.

A claim holds the paper's value, ours, the difference, the settings that produced ours, the
tolerance in words and as a check (:class:`Tolerance`), and ``passed``: ``True``/``False`` when
the issue set a tolerance (or the claim is a trend the paper states and we checked), ``None``
when the number is only *reported* beside the paper's (the issue asks for it but sets no goal).

The per-paper adapters that build claims by calling the experiment modules live in
:mod:`anonlab.experiments.reproduce`; this module has no knowledge of any paper.

Choices (where the issues are silent):

* "≈" in a paper or an issue without a stated tolerance is read as "equal at the paper's printed
  precision": half a unit in the last digit the paper prints (:func:`printed_precision`).
* Differences are ``ours − paper``.
* Markdown cells escape ``|`` and backslashes and fold newlines, so values from the experiments
  (which may contain pipes, e.g. ``a|b`` attribute sets) cannot break the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from anonlab.errors import AnonlabError

#: Tolerance kinds: how ``ours`` (or the paper's value) is judged.
KINDS = ("absolute", "relative", "at-least", "at-most", "interval", "holds", "reported")


@dataclass(frozen=True)
class Tolerance:
    """A tolerance in words and as a check.

    Attributes
    ----------
    kind : str
        ``"absolute"``: ``|ours − paper| <= amount``; ``"relative"``: ``|ours − paper| <=
        amount·|paper|``; ``"at-least"``: ``ours >= amount``; ``"at-most"``: ``ours <= amount``;
        ``"interval"``: the *paper's* value lies in ``[low, high]`` (e.g. inside our seed spread
        widened by a margin); ``"holds"``: a stated trend, judged by a boolean computed by the
        experiment; ``"reported"``: no goal (``passed`` is ``None``).
    amount, low, high : float
        The parameters of the kind.
    words : str
        The tolerance as the summary prints it (the issue's wording where it has one).
    """

    kind: str
    words: str
    amount: float = 0.0
    low: float = -math.inf
    high: float = math.inf

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise AnonlabError(f"tolerance kind {self.kind!r} is not one of {KINDS}")

    def check(self, paper: Any, ours: Any, holds: bool | None = None) -> bool | None:
        """Whether ``ours`` meets the tolerance against ``paper`` (``None``: nothing to judge)."""
        if self.kind == "reported":
            return None
        if self.kind == "holds":
            return None if holds is None else bool(holds)
        if self.kind == "interval":
            return _number(paper) is not None and self.low <= float(paper) <= self.high
        value = _number(ours)
        if value is None:
            return False  # a number was expected and none came out: a miss, not a pass
        if self.kind == "at-least":
            return value >= self.amount
        if self.kind == "at-most":
            return value <= self.amount
        ref = _number(paper)
        if ref is None:
            raise AnonlabError(
                f"tolerance {self.kind!r} needs a numeric paper value, got {paper!r}"
            )
        bound = self.amount if self.kind == "absolute" else self.amount * abs(ref)
        return abs(value - ref) <= bound + 1e-12


def within(amount: float, words: str | None = None) -> Tolerance:
    """``|ours − paper| <= amount``."""
    return Tolerance("absolute", words or f"± {amount:g}", amount=amount)


def at_least(bound: float, words: str | None = None) -> Tolerance:
    """``ours >= bound``."""
    return Tolerance("at-least", words or f"≥ {bound:g}", amount=bound)


def at_most(bound: float, words: str | None = None) -> Tolerance:
    """``ours <= bound``."""
    return Tolerance("at-most", words or f"≤ {bound:g}", amount=bound)


def paper_inside(low: float, high: float, words: str) -> Tolerance:
    """The paper's value must lie in ``[low, high]``."""
    return Tolerance("interval", words, low=low, high=high)


def trend(words: str = "holds as stated") -> Tolerance:
    """A stated trend or claim, judged by the experiment's boolean."""
    return Tolerance("holds", words)


def reported(words: str = "reported (the issue sets no goal)") -> Tolerance:
    """No goal: the number is shown beside the paper's."""
    return Tolerance("reported", words)


def printed_precision(value: float, decimals: int | None = None) -> float:
    """Half a unit in the last printed digit: of ``decimals`` places when the paper's table
    fixes them (Kifer's Table 7 prints ACC with 3, e.g. ``0.500``), else of ``value`` as Python
    prints it (``0.02`` -> 0.005, ``0.8917`` -> 0.00005, ``1000.0`` -> 0.5)."""
    if decimals is not None:
        return 0.5 * 10.0 ** (-decimals)
    text = repr(float(value))
    if "e" in text or "E" in text:
        mantissa, exp = text.lower().split("e")
        digits = len(mantissa.partition(".")[2].rstrip("0")) - int(exp)
    else:
        digits = len(text.partition(".")[2].rstrip("0"))
    return 0.5 * 10.0 ** (-digits)


def as_printed(value: float, decimals: int | None = None) -> Tolerance:
    """``≈``: equal at the paper's printed precision (see :func:`printed_precision`)."""
    p = printed_precision(value, decimals)
    return Tolerance("absolute", f"≈, at the paper's printed precision (± {p:g})", amount=p)


@dataclass(frozen=True)
class Claim:
    """One number or trend a paper reports, beside ours.

    Attributes
    ----------
    paper : str
        The paper's key (e.g. ``"kifer"``).
    item : str
        What is compared, e.g. ``"Table 7, ℓ = 2, ACC"``.
    paper_value : float or str or None
        The published value (a number), or the stated trend in words.
    ours : float or str or None
        Our value (a number), or our evidence in words.
    tolerance : Tolerance
    settings : str
        Data, parameters and seeds that produced ``ours``.
    passed : bool or None
        The tolerance's verdict (``None``: reported only).
    """

    paper: str
    item: str
    paper_value: float | str | None
    ours: float | str | None
    tolerance: Tolerance
    settings: str
    passed: bool | None

    @property
    def difference(self) -> float | None:
        """``ours − paper`` when both are numbers, else ``None``."""
        a, b = _number(self.ours), _number(self.paper_value)
        return None if a is None or b is None else a - b

    @property
    def mark(self) -> str:
        """``"pass"``, ``"miss"`` or ``"reported"``."""
        return {True: "pass", False: "miss", None: "reported"}[self.passed]

    def to_json(self) -> dict[str, Any]:
        return {
            "paper": self.paper,
            "item": self.item,
            "paper_value": _plain(self.paper_value),
            "ours": _plain(self.ours),
            "difference": self.difference,
            "tolerance": self.tolerance.words,
            "tolerance_kind": self.tolerance.kind,
            "settings": self.settings,
            "passed": self.passed,
        }


def claim(
    paper: str,
    item: str,
    paper_value: float | str | None,
    ours: float | str | None,
    tolerance: Tolerance,
    settings: str,
    holds: bool | None = None,
) -> Claim:
    """A :class:`Claim` with ``passed`` computed by ``tolerance`` (``holds`` for trends)."""
    if tolerance.kind == "holds" and holds is None:
        raise AnonlabError(f"claim {item!r}: a trend needs the experiment's verdict (holds)")
    passed = tolerance.check(paper_value, ours, holds)
    return Claim(paper, item, _plain(paper_value), _plain(ours), tolerance, settings, passed)


@dataclass(frozen=True)
class Figure:
    """A regenerated figure: the PNG (relative to the output folder once written), what it
    shows, and the paper's stated trend to read it against."""

    path: str
    title: str
    paper_trend: str
    settings: str = ""


@dataclass
class PaperResult:
    """What one paper's adapter returns."""

    key: str
    title: str
    claims: list[Claim] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def counts(self) -> dict[str, int]:
        marks = [c.mark for c in self.claims]
        return {m: marks.count(m) for m in ("pass", "miss", "reported")}


# ---------------------------------------------------------------------- Markdown
def escape_cell(value: Any) -> str:
    """Text safe inside a Markdown table cell: ``\\`` and ``|`` escaped, newlines folded."""
    return _prepare_cell(value).replace("|", "\\|")


def _prepare_cell(value: Any) -> str:
    """A cell's text with backslashes escaped and newlines folded; pipes are left to the table
    writer (:func:`anonlab.experiments.markdown.frame_to_markdown` escapes them)."""
    text = format_value(value).replace("\\", "\\\\")
    return " ".join(text.split())


def format_value(value: Any) -> str:
    """Numbers for the summary: integers with separators, floats with 4 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value == int(value) and abs(value) >= 1:
            return f"{int(value):,}"
        return f"{value:,.2f}" if abs(value) >= 1000 else f"{value:.4g}"
    return str(value)


def _difference(d: float | None) -> str:
    return "" if d is None else f"{d:+.4g}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table with every cell escaped, written by the experiments' shared writer."""
    import pandas as pd

    from anonlab.experiments.markdown import frame_to_markdown

    frame = pd.DataFrame(
        [[_prepare_cell(c) for c in r] for r in rows],
        columns=[escape_cell(h) for h in header],
        dtype=object,
    )
    return frame_to_markdown(frame)


def claims_table(claims: Sequence[Claim]) -> str:
    """One row per claim: item, paper, ours, difference, tolerance, settings, result.

    Settings are long and shared by many rows: each distinct one gets a key (S1, S2, ...) in
    the table and is written out once in a list below it."""
    keys: dict[str, str] = {}
    for c in claims:
        keys.setdefault(c.settings, f"S{len(keys) + 1}")
    header = ("item", "paper", "ours", "difference", "tolerance", "settings", "result")
    rows = [
        (
            c.item,
            c.paper_value,
            c.ours,
            _difference(c.difference),
            c.tolerance.words,
            keys[c.settings],
            {"pass": "pass", "miss": "**miss**", "reported": "reported"}[c.mark],
        )
        for c in claims
    ]
    legend = "\n".join(f"- {key}: {_escape_text(text)}" for text, key in keys.items())
    return markdown_table(header, rows) + "\n\nSettings:\n\n" + legend


def _escape_text(text: str) -> str:
    """Free text in a list item: one line, with Markdown's table and emphasis characters kept
    literal."""
    return " ".join(str(text).split()).replace("|", "\\|")


def render_summary(results: Sequence[PaperResult], header: str) -> str:
    """The whole summary: ``header`` (command, date, mode), the per-paper counts, then per
    paper its claims table, notes and figures beside the paper's stated trends."""
    parts = [header.rstrip()]
    rows = []
    for r in results:
        n = r.counts()
        rows.append(
            (r.title, len(r.claims), n["pass"], n["miss"], n["reported"], f"{r.seconds:.1f}")
        )
    parts.append(
        "## Overview\n\n"
        + markdown_table(("paper", "claims", "pass", "miss", "reported", "seconds"), rows)
    )
    for r in results:
        section = [f"## {r.title}"]
        if r.error is not None:
            section.append(f"**The experiment failed to run:** {escape_cell(r.error)}")
        section += r.notes
        if r.claims:
            section.append(claims_table(r.claims))
        for fig in r.figures:
            text = f"**{fig.title}**. The paper: {fig.paper_trend}"
            if fig.settings:
                text += f"\n\nSettings: {_escape_text(fig.settings)}"
            section.append(f"{text}\n\n![{fig.title}]({fig.path})")
        parts.append("\n\n".join(section))
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------------- helpers
def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _plain(value: Any) -> Any:
    """numpy scalars to Python numbers (so JSON and formatting see ints and floats)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value
