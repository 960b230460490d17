"""Small charts as inline SVG text, written directly (no plotting library): the audit report's
histograms, bars and curves.

Why not matplotlib: in the ``anonlab audit`` command, importing pyplot and drawing the report's
five charts took 1.1–1.5 s of the 5–6 s the whole audit of Adult took (benchmarks/bench_audit.py);
these charts are a few rectangles and lines. The compare page's frontier plot (scatter, log
axis, annotations) still uses matplotlib.

Safety: every text (labels, legend entries, tick values) is escaped character data
(:func:`html.escape`), so no value of the data reaches the page as markup; the output depends
only on the inputs (no ids, no dates), so the same audit gives the same page.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence

WIDTH, HEIGHT = 600, 320
#: Plot area margins: left (tick labels and the y label), right, top, bottom (x label).
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 48
COLORS = ("#c0392b", "#2c7fb8", "#27ae60", "#8e44ad", "#d35400", "#7f8c8d")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten) covering
    ``low``..``high``."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else [0.0]
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


#: Characters XML does not allow in text (a label holding one would make the SVG unreadable).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _escaped(value: object) -> str:
    return html.escape(_NOT_XML.sub("\ufffd", str(value)), quote=True)


def _number(value: float) -> str:
    if abs(value - round(value)) < 1e-9:
        return f"{int(round(value)):,}"
    return f"{value:.3g}"


class Chart:
    """One plot area with linear axes from ``x_range`` and ``y_range`` (data units)."""

    def __init__(
        self,
        x_range: tuple[float, float],
        y_range: tuple[float, float],
        *,
        width: int = WIDTH,
        height: int = HEIGHT,
        left: int = LEFT,
    ) -> None:
        # a range that is not finite (a NaN or infinite datum) falls back to 0..1
        self.x0, self.x1 = x_range if all(map(math.isfinite, x_range)) else (0.0, 1.0)
        self.y0, self.y1 = y_range if all(map(math.isfinite, y_range)) else (0.0, 1.0)
        if self.x1 <= self.x0:
            self.x1 = self.x0 + 1.0
        if self.y1 <= self.y0:
            self.y1 = self.y0 + 1.0
        self.width, self.height, self.left = width, height, left
        self.parts: list[str] = []
        self.legend: list[tuple[str, str, str]] = []  # (label, colour, "box" or "line")
        self.legend_corner = "upper right"  # or "lower right"

    # data -> pixels
    def x(self, value: float) -> float:
        span = self.width - self.left - RIGHT
        return self.left + (value - self.x0) / (self.x1 - self.x0) * span

    def y(self, value: float) -> float:
        span = self.height - TOP - BOTTOM
        return self.height - BOTTOM - (value - self.y0) / (self.y1 - self.y0) * span

    def rect(self, x0: float, x1: float, y0: float, y1: float, colour: str,
             opacity: float = 1.0) -> None:  # fmt: skip
        """A filled rectangle between data coordinates (none where one is not finite)."""
        if not all(map(math.isfinite, (x0, x1, y0, y1))):
            return
        left, right = sorted((self.x(x0), self.x(x1)))
        top, bottom = sorted((self.y(y1), self.y(y0)))
        self.parts.append(
            f'<rect x="{left:.2f}" y="{top:.2f}" width="{right - left:.2f}" '
            f'height="{bottom - top:.2f}" fill="{colour}" fill-opacity="{opacity:g}"/>'
        )

    def polyline(self, xs: Sequence[float], ys: Sequence[float], colour: str,
                 markers: bool = True, dashed: bool = False) -> None:  # fmt: skip
        """A data line (class ``curve``), with a dot at each point; points that are not
        finite are left out."""
        kept = [
            (a, b) for a, b in zip(xs, ys, strict=True) if math.isfinite(a) and math.isfinite(b)
        ]
        xs, ys = [a for a, _ in kept], [b for _, b in kept]
        points = " ".join(f"{self.x(a):.2f},{self.y(b):.2f}" for a, b in zip(xs, ys, strict=True))
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        self.parts.append(
            f'<polyline class="curve" points="{points}" fill="none" stroke="{colour}" '
            f'stroke-width="1.8"{dash}/>'
        )
        if markers:
            for a, b in zip(xs, ys, strict=True):
                self.parts.append(
                    f'<circle cx="{self.x(a):.2f}" cy="{self.y(b):.2f}" r="3" fill="{colour}"/>'
                )

    def vline(self, value: float, colour: str = "black") -> None:
        """A dashed vertical line at x = ``value`` (none if it is not finite)."""
        if not math.isfinite(value):
            return
        x = self.x(value)
        self.parts.append(
            f'<line x1="{x:.2f}" x2="{x:.2f}" y1="{TOP}" y2="{self.height - BOTTOM}" '
            f'stroke="{colour}" stroke-dasharray="5,3"/>'
        )

    def text(self, x: float, y: float, value: str, *, anchor: str = "middle", size: int = 11,
             rotate: bool = False) -> None:  # fmt: skip
        """Escaped text at pixel coordinates."""
        turn = f' transform="rotate(-90 {x:.2f} {y:.2f})"' if rotate else ""
        self.parts.append(
            f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size}" text-anchor="{anchor}"{turn}>'
            f"{_escaped(value)}</text>"
        )

    def axes(self, x_label: str, y_label: str, *, x_ticks: Sequence[float] | None = None,
             y_ticks: Sequence[float] | None = None, title: str | None = None,
             x_tick_labels: Sequence[str] | None = None) -> None:  # fmt: skip
        """The frame, ticks with their values, the axis labels and an optional title."""
        bottom, right = self.height - BOTTOM, self.width - RIGHT
        self.parts.append(
            f'<rect x="{self.left}" y="{TOP}" width="{right - self.left}" '
            f'height="{bottom - TOP}" fill="none" stroke="#333"/>'
        )
        xs = list(nice_ticks(self.x0, self.x1) if x_ticks is None else x_ticks)
        for i, value in enumerate(xs):
            x = self.x(value)
            self.parts.append(f'<line x1="{x:.2f}" x2="{x:.2f}" y1="{bottom}" y2="{bottom + 4}" '
                              'stroke="#333"/>')  # fmt: skip
            label = x_tick_labels[i] if x_tick_labels is not None else _number(value)
            self.text(x, bottom + 16, label, size=10)
        for value in nice_ticks(self.y0, self.y1) if y_ticks is None else y_ticks:
            y = self.y(value)
            self.parts.append(f'<line x1="{self.left - 4}" x2="{self.left}" y1="{y:.2f}" '
                              f'y2="{y:.2f}" stroke="#333"/>')  # fmt: skip
            self.text(self.left - 7, y + 3.5, _number(value), anchor="end", size=10)
        self.text((self.left + right) / 2, self.height - 10, x_label)
        self.text(14, (TOP + bottom) / 2, y_label, rotate=True)
        if title:
            self.text((self.left + right) / 2, 18, title, size=12)

    def add_legend(self, label: str, colour: str, kind: str = "box") -> None:
        self.legend.append((label, colour, kind))

    def svg(self) -> str:
        """The chart as one ``<svg>`` element (the legend in :attr:`legend_corner`)."""
        parts = list(self.parts)
        right = self.width - RIGHT
        if self.legend:  # a white box, so the entries stay readable over the data
            longest = max(len(str(label)) for label, _, _ in self.legend)
            box_height = 16 * len(self.legend) + 6
            first = (
                TOP + 14
                if self.legend_corner == "upper right"
                else self.height - BOTTOM - box_height + 10
            )
            parts.append(
                f'<rect x="{right - 158}" y="{first - 14}" width="{min(156, 30 + 6 * longest)}" '
                f'height="{box_height}" fill="white" fill-opacity="0.85" stroke="#ccc"/>'
            )
        for i, (label, colour, kind) in enumerate(self.legend):
            y = first + 16 * i
            sample = (
                f'<rect x="{right - 150}" y="{y - 8}" width="12" height="9" fill="{colour}" '
                'fill-opacity="0.7"/>'
                if kind == "box"
                else f'<line x1="{right - 152}" x2="{right - 138}" y1="{y - 4}" y2="{y - 4}" '
                f'stroke="{colour}" stroke-width="1.8"/>'
            )
            parts.append(sample)
            parts.append(
                f'<text x="{right - 132}" y="{y}" font-size="10" text-anchor="start">'
                f"{_escaped(label)}</text>"
            )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" font-family="sans-serif">'
            + "".join(parts)
            + "</svg>"
        )


def histogram_counts(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    """Counts per bin (numpy's convention: the last bin includes its right edge)."""
    import numpy as np

    counts, _ = np.histogram(np.asarray(values, dtype=np.float64), bins=np.asarray(edges))
    return [int(c) for c in counts]
