"""The common protocol of ``anonlab reproduce``: one :class:`Claim` per number or trend a paper
reports, judged against a criterion fixed before the run, and the Markdown summary of them all
(issue 18, item 4).

A claim holds the paper's value, ours, the difference, the settings that produced ours, the
tolerance in words and as a check (:class:`Tolerance`), and ``passed``: ``True``/``False`` when
the issue set a tolerance (or the claim is a trend the paper states and we checked), ``None``
when the number is only *reported* beside the paper's (the issue asks for it but sets no goal).

Each claim has a **kind** (:data:`CLAIM_KINDS`):

* ``"paper"``: a number or trend the paper reports, which our run could miss: a reproduction;
* ``"sanity"``: a check that holds by construction (a theorem, a property of the algorithm or of
  the bundled data, e.g. a random-worlds baseline equal to ``1/ℓ``, or Injector resisting the
  very rules it was built against). It guards the code, reproduces nothing, and is listed apart:
  the summary counts it in its own column, never as a pass. Its ``why`` says why it cannot fail.

Where a paper is ambiguous, a claim carries the **reading** it was computed under (e.g.
``"small signatures: base-rate"``); every defensible reading is run and shown side by side, and
the overview counts each reading on its own row (rows of one paper are alternatives: never add
them). Claims without a reading belong to every reading.

Modules report checks in their own shapes (``{claim, ok, detail}``, ``{figure, claim, holds,
numbers}``, ``{panel, paper, ours, holds}``, a DataFrame with ``claim``/``holds``);
:func:`from_check` is the one place they become :class:`Claim` objects.

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
#: Claim kinds: a reproduction of the paper, or a check that holds by construction.
CLAIM_KINDS = ("paper", "sanity")


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
        Data, parameters and seeds that produced ``ours`` (the reading apart).
    passed : bool or None
        The tolerance's verdict (``None``: reported only).
    kind : str
        ``"paper"`` (a reproduction) or ``"sanity"`` (holds by construction; not counted).
    reading : str
        The reading of an ambiguous paper this claim was computed under (``""``: every reading).
    why : str
        For a sanity check: why it cannot fail (required). For a paper claim: optional detail.
    """

    paper: str
    item: str
    paper_value: float | str | None
    ours: float | str | None
    tolerance: Tolerance
    settings: str
    passed: bool | None
    kind: str = "paper"
    reading: str = ""
    why: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CLAIM_KINDS:
            raise AnonlabError(f"claim kind {self.kind!r} is not one of {CLAIM_KINDS}")
        if self.kind == "sanity" and not self.why.strip():
            raise AnonlabError(f"sanity check {self.item!r}: say why it cannot fail (why=...)")

    @property
    def difference(self) -> float | None:
        """``ours − paper`` when both are numbers, else ``None``."""
        a, b = _number(self.ours), _number(self.paper_value)
        return None if a is None or b is None else a - b

    @property
    def mark(self) -> str:
        """``"pass"``, ``"miss"`` or ``"reported"``."""
        return {True: "pass", False: "miss", None: "reported"}[self.passed]

    @property
    def is_sanity(self) -> bool:
        """Whether this is a sanity check (listed apart, not counted as a reproduction)."""
        return self.kind == "sanity"

    def to_json(self) -> dict[str, Any]:
        """The claim as plain JSON values (``difference`` computed)."""
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
            "kind": self.kind,
            "reading": self.reading,
            "why": self.why,
        }


def claim(
    paper: str,
    item: str,
    paper_value: float | str | None,
    ours: float | str | None,
    tolerance: Tolerance,
    settings: str,
    holds: bool | None = None,
    *,
    kind: str = "paper",
    reading: str = "",
    why: str = "",
) -> Claim:
    """A :class:`Claim` with ``passed`` computed by ``tolerance`` (``holds`` for trends)."""
    if tolerance.kind == "holds" and holds is None:
        raise AnonlabError(f"claim {item!r}: a trend needs the experiment's verdict (holds)")
    passed = tolerance.check(paper_value, ours, holds)
    return Claim(
        paper,
        item,
        _plain(paper_value),
        _plain(ours),
        tolerance,
        settings,
        passed,
        kind=kind,
        reading=reading,
        why=why,
    )


def sanity(
    paper: str,
    item: str,
    expected: float | str | None,
    ours: float | str | None,
    tolerance: Tolerance,
    settings: str,
    why: str,
    holds: bool | None = None,
    *,
    reading: str = "",
) -> Claim:
    """A sanity check: a :func:`claim` of kind ``"sanity"``, with ``why`` it cannot fail."""
    return claim(
        paper,
        item,
        expected,
        ours,
        tolerance,
        settings,
        holds,
        kind="sanity",
        reading=reading,
        why=why,
    )


def from_check(
    paper: str,
    record: Any,
    settings: str,
    *,
    item: str | None = None,
    tolerance: Tolerance | None = None,
    kind: str = "paper",
    reading: str = "",
    why: str = "",
) -> Claim:
    """A module's check, in any of its shapes, as a :class:`Claim` (the one converter).

    Shapes: ``{"claim", "ok", "detail"}`` (:mod:`~anonlab.experiments.wong`), ``{"figure",
    "claim", "holds", "numbers"}`` (:mod:`~anonlab.experiments.martin`,
    :mod:`~anonlab.experiments.li`), ``{"panel", "paper", "ours", "holds"}``
    (:mod:`~anonlab.experiments.jin_utility`) and a DataFrame row or ``(claim, holds)`` pair
    with ``claim``/``holds`` (:mod:`~anonlab.experiments.jin`). The paper's statement becomes
    ``paper_value``, the module's evidence ``ours``, its verdict ``holds``; ``item`` defaults to
    the figure or panel (``"Figure N"``). ``tolerance`` defaults to :func:`trend`.
    """
    if hasattr(record, "_asdict"):
        record = record._asdict()
    elif hasattr(record, "to_dict"):
        record = record.to_dict()
    elif isinstance(record, tuple):
        record = {"claim": record[0], "holds": record[1]}
    rec = dict(record)
    if "ok" in rec:
        holds, evidence = rec["ok"], rec.get("detail", "")
    else:
        holds, evidence = rec["holds"], rec.get("numbers", rec.get("ours", ""))
    statement = rec.get("paper", rec.get("claim"))
    if item is None:
        if "panel" in rec:
            item = f"Figure {rec['panel']}"
        elif "figure" in rec:
            item = f"Figure {rec['figure']}"
        else:
            item = str(rec.get("claim"))
    return claim(
        paper,
        item,
        statement,
        evidence,
        tolerance or trend(),
        settings,
        holds=bool(holds),
        kind=kind,
        reading=reading,
        why=why,
    )


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

    def readings(self) -> list[str]:
        """The readings its claims were computed under, in first-seen order."""
        return list(dict.fromkeys(c.reading for c in self.claims if c.reading))

    def paper_claims(self, reading: str | None = None) -> list[Claim]:
        """The reproductions (sanity checks left out); with ``reading``, those computed under it
        and those that hold for every reading."""
        return [
            c
            for c in self.claims
            if not c.is_sanity and (reading is None or c.reading in ("", reading))
        ]

    def sanity_checks(self, reading: str | None = None) -> list[Claim]:
        """The checks that hold by construction (with ``reading``: under it or every reading)."""
        return [
            c
            for c in self.claims
            if c.is_sanity and (reading is None or c.reading in ("", reading))
        ]

    def counts(self, reading: str | None = None) -> dict[str, int]:
        """Paper claims by mark (``pass``, ``miss``, ``reported``) and the sanity checks
        (``sanity``: all, ``sanity_failed``: those that did not hold), which are never counted
        as passes. With ``reading``, the paper claims of that reading (see :meth:`paper_claims`);
        without, every claim under every reading once (alternatives summed: use per reading)."""
        marks = [c.mark for c in self.paper_claims(reading)]
        out = {m: marks.count(m) for m in ("pass", "miss", "reported")}
        checks = self.sanity_checks(reading)
        out["sanity"] = len(checks)
        out["sanity_failed"] = sum(c.passed is False for c in checks)
        return out

    def count_rows(self) -> list[tuple[str, dict[str, int]]]:
        """``(reading, counts)``: one row per reading, or one row ``("", counts)`` if the
        paper has none. The overview and the CLI print these."""
        readings = self.readings()
        if not readings:
            return [("", self.counts())]
        return [(r, self.counts(r)) for r in readings]


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


_RESULT = {"pass": "pass", "miss": "**miss**", "reported": "reported"}


def _settings_keys(claims: Sequence[Claim], keys: dict[str, str]) -> dict[str, str]:
    for c in claims:
        keys.setdefault(c.settings, f"S{len(keys) + 1}")
    return keys


def _legend(keys: dict[str, str]) -> str:
    return "Settings:\n\n" + "\n".join(f"- {k}: {_escape_text(t)}" for t, k in keys.items())


def claims_table(claims: Sequence[Claim], keys: dict[str, str] | None = None) -> str:
    """One row per claim: item, paper, ours, difference, tolerance, settings, result.

    Settings are long and shared by many rows: each distinct one gets a key (S1, S2, ...) in
    the table and is written out once in a list below it (pass ``keys`` to share the keys with
    other tables; the legend is then left to the caller). A claim computed under a reading has
    it in brackets before its item."""
    own = keys is None
    keys = _settings_keys(claims, {} if keys is None else keys)
    header = ("item", "paper", "ours", "difference", "tolerance", "settings", "result")
    rows = [
        (
            f"[{c.reading}] {c.item}" if c.reading else c.item,
            c.paper_value,
            c.ours,
            _difference(c.difference),
            c.tolerance.words,
            keys[c.settings],
            _RESULT[c.mark],
        )
        for c in claims
    ]
    table = markdown_table(header, rows)
    return table + "\n\n" + _legend(keys) if own else table


def readings_table(
    claims: Sequence[Claim], readings: Sequence[str], keys: dict[str, str] | None = None
) -> str:
    """The claims that depend on a reading, one row per item and one column pair (ours,
    result) per reading, side by side; no reading is preferred (the order is the adapter's).

    Items computed under different sets of readings (e.g. Jin's Figure 6 readings and its
    Figure 7 readings) go in separate tables, each with the columns of its own readings."""
    own = keys is None
    keys = _settings_keys(claims, {} if keys is None else keys)
    rows: dict[tuple[str, str, str], dict[str, Claim]] = {}
    for c in claims:
        rows.setdefault((c.item, str(c.paper_value), c.settings), {})[c.reading] = c
    groups: dict[tuple[str, ...], list[tuple[str, str, dict[str, Claim]]]] = {}
    for (item, _, settings), by in rows.items():
        present = tuple(r for r in readings if r in by)
        groups.setdefault(present, []).append((item, settings, by))
    tables = []
    for present, members in groups.items():
        header = ["item", "paper", "tolerance", "settings"]
        for r in present:
            header += [f"ours: {r}", f"result: {r}"]
        body = []
        for item, settings, by in members:
            first = next(iter(by.values()))
            row: list[Any] = [item, first.paper_value, first.tolerance.words, keys[settings]]
            for r in present:
                row += [by[r].ours, _RESULT[by[r].mark]]
            body.append(row)
        names = ", ".join(f"`{r}`" for r in present)
        tables.append(f"Readings {names}:\n\n" + markdown_table(header, body))
    table = "\n\n".join(tables)
    return table + "\n\n" + _legend(keys) if own else table


def sanity_table(claims: Sequence[Claim], keys: dict[str, str] | None = None) -> str:
    """The sanity checks: item, expected, ours, why it cannot fail, settings, result."""
    own = keys is None
    keys = _settings_keys(claims, {} if keys is None else keys)
    header = ("item", "expected", "ours", "why it cannot fail", "settings", "result")
    rows = [
        (
            f"[{c.reading}] {c.item}" if c.reading else c.item,
            c.paper_value,
            c.ours,
            c.why,
            keys[c.settings],
            {"pass": "holds", "miss": "**fails**", "reported": "reported"}[c.mark],
        )
        for c in claims
    ]
    table = markdown_table(header, rows)
    return table + "\n\n" + _legend(keys) if own else table


def _escape_text(text: str) -> str:
    """Free text in a list item: one line, with Markdown's table and emphasis characters kept
    literal."""
    return " ".join(str(text).split()).replace("|", "\\|")


def overview_table(results: Sequence[PaperResult]) -> str:
    """Per paper (per reading where the paper is ambiguous): paper claims, pass, miss,
    reported, sanity checks apart (held / failed), seconds."""
    rows = []
    for r in results:
        for reading, n in r.count_rows():
            claims = n["pass"] + n["miss"] + n["reported"]
            sanity = f"{n['sanity'] - n['sanity_failed']} held"
            if n["sanity_failed"]:
                sanity += f", **{n['sanity_failed']} failed**"
            rows.append(
                (r.title, reading or "—", claims, n["pass"], n["miss"], n["reported"], sanity,
                 f"{r.seconds:.1f}")
            )  # fmt: skip
    header = ("paper", "reading", "paper claims", "pass", "miss", "reported", "sanity checks")
    return markdown_table((*header, "seconds"), rows)


def render_summary(results: Sequence[PaperResult], header: str) -> str:
    """The whole summary: ``header`` (command, date, mode), the overview (paper claims per
    reading; sanity checks in their own column), then per paper its notes, the claims that
    hold for every reading, the reading-dependent claims side by side, the sanity checks apart,
    and the figures beside the paper's stated trends."""
    parts = [header.rstrip()]
    parts.append(
        "## Overview\n\n"
        + overview_table(results)
        + "\n\nA paper with an ambiguity has one row per reading: its counts are those of the "
        "claims under that reading plus the claims that hold for every reading. Rows of one "
        "paper are alternatives; do not add them. Sanity checks hold by construction and are "
        "not reproductions: they are never counted as passes."
    )
    for r in results:
        section = [f"## {r.title}"]
        if r.error is not None:
            section.append(f"**The experiment failed to run:** {escape_cell(r.error)}")
        section += r.notes
        keys: dict[str, str] = {}
        shared = [c for c in r.paper_claims() if not c.reading]
        varied = [c for c in r.paper_claims() if c.reading]
        checks = r.sanity_checks()
        if shared:
            title = "### Paper claims" + (" (every reading)" if varied else "")
            section.append(f"{title}\n\n" + claims_table(shared, keys))
        if varied:
            section.append(
                "### Paper claims under each reading, side by side (none preferred)\n\n"
                + readings_table(varied, r.readings(), keys)
            )
        if checks:
            section.append(
                "### Sanity checks (hold by construction; not counted as reproductions)\n\n"
                + sanity_table(checks, keys)
            )
        if keys:
            section.append(_legend(keys))
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
