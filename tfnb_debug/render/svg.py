"""Small charts as inline SVG, written as text: histogram panels and line charts.

For reports shown after every training cell: a matplotlib figure costs a tenth
to a third of a second to lay out and rasterize (most of it measuring its tick
labels), an SVG of the same few hundred points is a string built in a
millisecond, stays sharp at any zoom and needs no image decoding.  Axis ticks
are round numbers picked as matplotlib's ``MaxNLocator`` picks them, without
importing matplotlib.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tfnb_debug.render.pixelmap import short_label

__all__ = [
    "Line",
    "Mark",
    "bar_chart_svg",
    "chart_svg",
    "histogram_panels_svg",
    "histogram_svg",
    "line_svg",
]

FONT = "font-family:var(--jp-ui-font-family, sans-serif)"
BLUE = "#2563eb"
GREY = "#9ca3af"
INK = "#111827"
RED = "#b91c1c"


#: MaxNLocator's default steps, a tenth of them below and 15 above
_STEPS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 15)


def _nice_values(lo: float, hi: float, count: int, *, integer: bool = False) -> np.ndarray:
    """Evenly spaced round values (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten
    apart) over ``[lo, hi]``, about ``count`` intervals, as matplotlib's ``MaxNLocator`` picks them:
    the smallest round step at least ``(hi - lo) / count`` that leaves two values inside,
    else the next smaller one that does."""
    raw = (hi - lo) / max(count, 1)
    scale = 10.0 ** math.floor(math.log10(raw))
    mean = (hi + lo) / 2
    # far from 0, ticks are multiples of the step above a round offset (as matplotlib's)
    offset = 0.0
    if abs(mean) / (hi - lo) >= 100:
        offset = math.copysign(10.0 ** math.floor(math.log10(abs(mean))), mean)
    steps = [f * scale for f in _STEPS]
    if integer:
        steps = [s for s in steps if s < 1 or abs(s - round(s)) < 0.001]
    first_large = next(k for k, s in enumerate(steps) if s >= raw)
    values = np.array([lo, hi])
    for step in reversed(steps[: first_large + 1]):
        if integer and math.floor(hi) - math.ceil(lo) >= 1:
            step = max(1.0, step)
        base = math.floor((lo - offset) / step) * step + offset
        low = math.floor((lo - base) / step + 1e-10)
        high = math.ceil((hi - base) / step - 1e-10)
        values = np.arange(low, high + 1) * step + base
        if ((values >= lo) & (values <= hi)).sum() >= 2:
            break
    return values


def _ticks(lo: float, hi: float, count: int = 5, *, integer: bool = False) -> list[float]:
    if not np.isfinite(lo) or not np.isfinite(hi):
        return []
    if hi <= lo:
        return [lo]
    values = _nice_values(lo, hi, count, integer=integer)
    span = hi - lo
    return [float(v) for v in values if lo - 1e-9 * span <= v <= hi + 1e-9 * span]


def _log_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    """Ticks of a log10 axis (values are log10 of the data): whole decades when the range
    spans one, else ordinary ticks of the log values."""
    if np.isfinite(lo) and np.isfinite(hi) and hi - lo >= 1:
        values = _nice_values(lo, hi, count, integer=True)
        return [float(v) for v in values if lo - 1e-9 <= v <= hi + 1e-9]
    return _ticks(lo, hi, count)


def _number(value: float) -> str:
    return f"{value:.3g}"


class _Frame:
    """A plot area inside an SVG: data coordinates to pixels, axes, ticks and labels."""

    def __init__(
        self,
        width: int,
        height: int,
        x: tuple[float, float],
        y: tuple[float, float],
        *,
        left: int = 34,
        right: int = 8,
        top: int = 16,
        bottom: int = 30,
        log_y: bool = False,
        counts: bool = False,
    ) -> None:
        self.width, self.height = width, height
        self.log_y = log_y  # y values are log10 of the data: ticks are labelled 10**value
        self.counts = counts  # y values are counts: whole-number ticks
        self.x0, self.x1 = left, width - right
        self.y0, self.y1 = height - bottom, top  # pixel rows of y's low and high end
        self.x, self.y = x, y

    def px(self, value: np.ndarray | float) -> np.ndarray:
        lo, hi = self.x
        return self.x0 + (np.asarray(value, float) - lo) / ((hi - lo) or 1.0) * (self.x1 - self.x0)

    def py(self, value: np.ndarray | float) -> np.ndarray:
        lo, hi = self.y
        return self.y0 - (np.asarray(value, float) - lo) / ((hi - lo) or 1.0) * (self.y0 - self.y1)

    def axes(
        self, x_label: str, y_label: str = "", *, x_ticks: bool = True, y_ticks: bool = True
    ) -> list[str]:
        parts = [
            f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x1}" y2="{self.y0}" stroke="#6b7280"/>',
            f'<line x1="{self.x0}" y1="{self.y0}" x2="{self.x0}" y2="{self.y1}" stroke="#6b7280"/>',
        ]
        for value in _ticks(*self.x) if x_ticks else ():
            x = float(self.px(value))
            parts.append(
                f'<line x1="{x:.1f}" y1="{self.y0}" x2="{x:.1f}" y2="{self.y0 + 3}" '
                'stroke="#6b7280"/>'
                f'<text x="{x:.1f}" y="{self.y0 + 12}" text-anchor="middle">'
                f"{_number(value)}</text>"
            )
        y_values = (
            _log_ticks(*self.y) if self.log_y else _ticks(*self.y, count=3, integer=self.counts)
        )
        for value in y_values if y_ticks else ():
            y = float(self.py(value))
            text = _number(10**value if self.log_y else value)
            parts.append(
                f'<line x1="{self.x0 - 3}" y1="{y:.1f}" x2="{self.x0}" y2="{y:.1f}" '
                'stroke="#6b7280"/>'
                f'<text x="{self.x0 - 5}" y="{y + 3:.1f}" text-anchor="end">{text}</text>'
            )
        middle = (self.x0 + self.x1) / 2
        parts.append(
            f'<text x="{middle:.1f}" y="{self.height - 4}" text-anchor="middle">'
            f"{html.escape(x_label)}</text>"
        )
        if y_label:
            centre = (self.y0 + self.y1) / 2
            parts.append(
                f'<text transform="translate(9 {centre:.1f}) rotate(-90)" text-anchor="middle">'
                f"{html.escape(y_label)}</text>"
            )
        return parts


def _svg(width: int, height: int, label: str, body: Sequence[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(label)}" '
        f'style="{FONT};font-size:9px;fill:{INK}">'
        f"<title>{html.escape(label)}</title>" + "".join(body) + "</svg>"
    )


def histogram_panels_svg(
    layers: Sequence[str],
    last: np.ndarray,
    edges: Sequence[float],
    *,
    first: np.ndarray | None = None,
    width: int = 210,
    height: int = 130,
) -> str:
    """One panel per layer: the counts per log10|g| bin at the last recorded step (filled)
    and, if given, at the first (a grey outline)."""
    edges_arr = np.asarray(edges, float)
    panels = []
    for k, layer in enumerate(layers):
        counts = np.asarray(last[k], float)
        top = float(counts.max()) if counts.size else 0.0
        if first is not None:
            top = max(top, float(np.asarray(first[k], float).max(initial=0.0)))
        frame = _Frame(width, height, (edges_arr[0], edges_arr[-1]), (0.0, top or 1.0))
        body = [
            f'<text x="{width / 2:.1f}" y="10" text-anchor="middle" font-size="10">'
            f"{html.escape(short_label(layer))}</text>",
            f'<path d="{_stairs(frame, counts, edges_arr, closed=True)}" fill="{BLUE}" '
            'fill-opacity="0.8" stroke="none"/>',
        ]
        if first is not None:
            body.append(
                f'<path d="{_stairs(frame, np.asarray(first[k], float), edges_arr)}" '
                f'fill="none" stroke="{GREY}" stroke-width="1.2"/>'
            )
        body += frame.axes("log10 |g|")
        panels.append(_svg(width, height, f"gradient histogram of {layer}", body))
    return '<div style="display:flex;flex-wrap:wrap;gap:4px">' + "".join(panels) + "</div>"


def _stairs(frame: _Frame, counts: np.ndarray, edges: np.ndarray, *, closed: bool = False) -> str:
    """An SVG path through the bin tops (a step outline); ``closed``: down to the axis."""
    xs = frame.px(edges)
    ys = frame.py(counts)
    base = frame.py(0.0)
    points = [f"M{xs[0]:.1f},{base:.1f}" if closed else f"M{xs[0]:.1f},{ys[0]:.1f}"]
    for i, y in enumerate(ys):
        points.append(f"L{xs[i]:.1f},{y:.1f}L{xs[i + 1]:.1f},{y:.1f}")
    if closed:
        points.append(f"L{xs[-1]:.1f},{base:.1f}Z")
    return "".join(points)


def histogram_svg(
    counts: Sequence[float],
    edges: Sequence[float],
    *,
    title: str,
    label: str,
    x_label: str = "",
    color: str = BLUE,
    width: int = 272,
    height: int = 128,
) -> str:
    """One histogram: filled steps over the bin ``edges``, counts unlabelled (the shape is
    what it shows; the statistics beside it carry the numbers)."""
    counts_arr = np.asarray(counts, float)
    edges_arr = np.asarray(edges, float)
    top = float(counts_arr.max()) if counts_arr.size else 0.0
    frame = _Frame(
        width,
        height,
        (float(edges_arr[0]), float(edges_arr[-1])),
        (0.0, top or 1.0),
        left=10,
        right=12,
        bottom=16 + (12 if x_label else 0),
    )
    body = [
        f'<text x="{width / 2:.1f}" y="10" text-anchor="middle" font-size="10">'
        f"{html.escape(title)}</text>"
    ]
    if counts_arr.size:
        body.append(
            f'<path d="{_stairs(frame, counts_arr, edges_arr, closed=True)}" fill="{color}" '
            'stroke="none"/>'
        )
    body += frame.axes(x_label, y_ticks=False)
    return _svg(width, height, label, body)


def bar_chart_svg(
    names: Sequence[str],
    counts: Sequence[float],
    *,
    title: str,
    y_label: str,
    label: str,
    color: str = "#4c78a8",
    height: int = 190,
) -> str:
    """Vertical bars, one per name, with its count as a tick on the y axis scale; names
    under the bars (slanted when there are many)."""
    values = np.asarray(counts, float)
    n = len(names)
    slant = n > 8
    longest = max((len(name) for name in names), default=1)
    width = int(max(240, min(800, 36 * n + 70)))
    bottom = 22 + (int(min(longest, 16) * 4.2) if slant else 0)
    frame = _Frame(
        width,
        height,
        (0.0, float(max(n, 1))),
        (0.0, float(values.max(initial=0)) or 1.0),
        left=40,
        top=24,
        bottom=bottom,
        counts=True,
    )
    slot = (frame.x1 - frame.x0) / max(n, 1)
    body = [f'<text x="{frame.x0}" y="11" font-size="10">{html.escape(title)}</text>']
    body += frame.axes("", y_label, x_ticks=False)
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        x = frame.x0 + slot * (i + 0.15)
        y = float(frame.py(value))
        body.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" '
            f'height="{frame.y0 - y:.1f}" fill="{color}"><title>{html.escape(name)}: '
            f"{_number(value)}</title></rect>"
        )
        centre = frame.x0 + slot * (i + 0.5)
        shown = html.escape(short_label(name, 16))
        if slant:
            body.append(
                f'<text transform="translate({centre:.1f} {frame.y0 + 10}) rotate(-45)" '
                f'text-anchor="end">{shown}</text>'
            )
        else:
            body.append(
                f'<text x="{centre:.1f}" y="{frame.y0 + 12}" text-anchor="middle">{shown}</text>'
            )
    return _svg(width, height, label, body)


#: line colours, in order (matplotlib's default cycle)
CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


@dataclass(frozen=True)
class Line:
    """A series of a :func:`chart_svg`: ``y`` over ``x``; ``dashed``: a reference line."""

    label: str
    x: np.ndarray
    y: np.ndarray
    color: str = INK
    dots: bool = False
    dashed: bool = False


@dataclass(frozen=True)
class Mark:
    """A point with a short text beside it (a peak)."""

    x: float
    y: float
    text: str
    color: str = INK


def chart_svg(
    lines: Sequence[Line],
    *,
    x_label: str,
    y_label: str,
    label: str,
    title: str = "",
    marks: Sequence[Mark] = (),
    rug: Sequence[float] = (),
    rug_label: str = "",
    bad_x: Sequence[float] = (),
    x_range: tuple[float, float] | None = None,
    y_floor: float | None = None,
    legend: bool = False,
    log_y: bool = False,
    width: int = 480,
    height: int = 200,
) -> str:
    """Lines over one x axis.  ``marks``: labelled points; ``rug``: short ticks along the
    bottom (training steps); ``bad_x``: red crosses along the top (non-finite values);
    ``log_y``: a log10 y axis (every finite value positive; ``y_floor`` is then ignored);
    ``y_floor``: the y axis starts there (0 for quantities that cannot be negative)."""
    if log_y:
        with np.errstate(divide="ignore", invalid="ignore"):
            lines = [replace(line, y=np.log10(np.asarray(line.y, float))) for line in lines]
            marks = [replace(m, y=float(np.log10(m.y))) for m in marks]
        y_floor = None
    finite = [line.y[np.isfinite(line.y)] for line in lines]
    values = np.concatenate([*finite, [m.y for m in marks]]) if lines or marks else np.zeros(0)
    low = float(values.min()) if values.size else 0.0
    high = float(values.max()) if values.size else 1.0
    if y_floor is not None:
        low = min(low, y_floor)
    pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
    if x_range is None:
        xs = np.concatenate([line.x for line in lines]) if lines else np.zeros(0)
        x_range = (float(xs.min()), float(xs.max())) if xs.size else (0.0, 1.0)
    if x_range[1] <= x_range[0]:
        x_range = (x_range[0] - 1, x_range[0] + 1)
    top = 16 + (12 if title or legend else 0)
    bottom = low - pad if y_floor is None else max(low - pad, y_floor)
    frame = _Frame(width, height, x_range, (bottom, high + pad), left=48, top=top, log_y=log_y)
    body = frame.axes(x_label, y_label)
    if title:
        body.append(f'<text x="{frame.x0}" y="11" font-size="10">{html.escape(title)}</text>')
    for line in lines:
        ok = np.isfinite(line.y)
        xs, ys = frame.px(line.x[ok]), frame.py(line.y[ok])
        if not xs.size:
            continue
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(xs, ys, strict=True))
        dash = ' stroke-dasharray="4 3"' if line.dashed else ""
        body.append(
            f'<polyline points="{points}" fill="none" stroke="{line.color}" '
            f'stroke-width="1.2"{dash}/>'
        )
        if line.dots:
            body += [
                f'<circle cx="{a:.1f}" cy="{b:.1f}" r="1.8" fill="{line.color}"/>'
                for a, b in zip(xs, ys, strict=True)
            ]
    for mark in marks:
        x, y = float(frame.px(mark.x)), float(frame.py(mark.y))
        right = x > frame.x0 + 0.7 * (frame.x1 - frame.x0)  # keep the text inside
        body.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{mark.color}"/>'
            f'<text x="{x + (-5 if right else 5):.1f}" y="{y - 4:.1f}" '
            f'text-anchor="{"end" if right else "start"}" fill="{mark.color}">'
            f"{html.escape(mark.text)}</text>"
        )
    if rug:
        body += [
            f'<line x1="{p:.1f}" y1="{frame.y0}" x2="{p:.1f}" y2="{frame.y0 - 6}" '
            f'stroke="{GREY}" stroke-width="0.8"/>'
            for p in frame.px(np.asarray(rug, float))
        ]
    if len(bad_x):
        cross_top = frame.y1 + 4
        body += [
            f'<path d="M{p - 3:.1f},{cross_top - 3}L{p + 3:.1f},{cross_top + 3}'
            f'M{p - 3:.1f},{cross_top + 3}L{p + 3:.1f},{cross_top - 3}" stroke="{RED}" '
            'stroke-width="1.4"/>'
            for p in frame.px(np.asarray(bad_x, float))
        ]
        body.append(
            f'<text x="{frame.x1}" y="{frame.y1 - 4}" text-anchor="end" fill="{RED}">'
            "x: non-finite</text>"
        )
    if legend:
        body.append(_legend(frame, lines, rug_label if rug else ""))
    return _svg(width, height, label, body)


def _legend(frame: _Frame, lines: Sequence[Line], rug_label: str) -> str:
    """Swatches and labels in one row at the top (the title's row), from the right end."""
    items = [(line.label, line.color, line.dashed) for line in lines if line.label]
    if rug_label:
        items.append((rug_label, GREY, False))
    parts, x = [], float(frame.x1)
    for text, color, dashed in reversed(items):
        x -= 6.0 * len(text) * 0.85
        dash = ' stroke-dasharray="3 2"' if dashed else ""
        parts.append(
            f'<line x1="{x - 16:.1f}" y1="8" x2="{x - 4:.1f}" y2="8" '
            f'stroke="{color}" stroke-width="2"{dash}/>'
            f'<text x="{x:.1f}" y="11">{html.escape(text)}</text>'
        )
        x -= 24
    return "".join(parts)


def line_svg(
    x: np.ndarray,
    y: np.ndarray,
    *,
    x_label: str,
    y_label: str,
    label: str,
    log_y: bool = False,
    title: str = "",
    color: str = INK,
    width: int = 480,
    height: int = 200,
) -> str:
    """``y`` over ``x`` as a line (dots too when there are few points); non-finite values
    are red crosses along the top; ``log_y``: a log10 y axis (every finite ``y`` > 0)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    finite = np.isfinite(y)
    line = Line("", x[finite], y[finite], color=color, dots=int(finite.sum()) < 40)
    x_range = (float(x.min()), float(x.max())) if x.size else None
    return chart_svg(
        [line],
        x_label=x_label,
        y_label=y_label,
        label=label,
        bad_x=list(x[~finite]),
        x_range=x_range,
        log_y=log_y,
        title=title,
        width=width,
        height=height,
    )
