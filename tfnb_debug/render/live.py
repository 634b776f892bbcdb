"""The live view's HTML and text line (see :mod:`tfnb_debug.live`): pure functions of a state.

The HTML is small and self-contained (inline styles, an inline SVG heatmap
strip), since it is re-sent at every update: one row per layer, one column
per recent record, colour by log10 of the gradient norm, red for NaN/Inf.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

import numpy as np

from tfnb_debug.values import format_bytes, format_float

if TYPE_CHECKING:
    from tfnb_debug.live_state import LiveState

__all__ = ["heatmap_svg", "live_html", "live_text"]

#: layers shown in the strip at most (the first ones in forward order, then "n more")
MAX_LAYERS = 24
#: log10 |g| range of the colour scale
LOG_LO, LOG_HI = -8.0, 3.0
_PALETTE = ("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725")  # viridis stops
_SEVERITY = {"error": "#b00020", "warning": "#a15c00", "info": "#1f5fa8"}


def _head(state: LiveState) -> list[str]:
    part = state.part
    bits = []
    if part.step is not None:
        bits.append(f"step {part.step:,}")
    if part.loss is not None:
        bits.append(f"loss {format_float(part.loss)}")
    bits.append(f"{state.elapsed:.1f} s")
    for name, current, peak in part.memory:
        peak_text = f" (peak {format_bytes(peak)})" if peak is not None else ""
        bits.append(f"{name} {format_bytes(current)}{peak_text}")
    return bits


def live_text(state: LiveState) -> str:
    """One line: ``%%tfgrad live: step 120 · loss 0.53 · 4.1 s · G03 ...``."""
    bits = _head(state)
    bits.extend(f"{f.code} {f.place or f.slug}" for f in state.part.findings)
    bits.extend(state.part.lines)
    if state.stopped is not None:
        bits.append(state.stopped.describe())
    word = "ended" if state.final else "live"
    return f"{state.title} {word}: " + " · ".join(bits)


def _colour(value: float) -> str:
    if not math.isfinite(value):
        return "#e4002b"
    position = (math.log10(max(value, 1e-30)) - LOG_LO) / (LOG_HI - LOG_LO)
    position = min(max(position, 0.0), 1.0) * (len(_PALETTE) - 1)
    return _PALETTE[int(round(position))]


def heatmap_svg(layers: tuple[str, ...], norms: np.ndarray) -> str:
    """Layers x recent records of gradient norms as a small SVG (empty string: nothing yet)."""
    if norms is None or norms.size == 0 or not layers:
        return ""
    rows = min(len(layers), MAX_LAYERS)
    cols = norms.shape[1]
    cell_w = max(2, min(8, 480 // max(cols, 1)))
    cell_h = 10
    label_w = 150
    width = label_w + cols * cell_w + 4
    height = rows * cell_h + 2
    out = [
        f'<svg class="tfnb-live-heatmap" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" role="img" aria-label="gradient norm per layer, recent steps">'
    ]
    for i in range(rows):
        name = layers[i]
        short = name if len(name) <= 24 else "…" + name[-23:]
        y = i * cell_h
        last = float(norms[i, -1])
        out.append(
            f'<text x="{label_w - 4}" y="{y + cell_h - 2}" font-size="9" text-anchor="end" '
            f'font-family="monospace"><title>{html.escape(name)}: last norm {last:.3g}</title>'
            f"{html.escape(short)}</text>"
        )
        for j in range(cols):
            value = float(norms[i, j])
            if math.isnan(value):
                continue  # no gradient recorded for this layer at this step
            out.append(
                f'<rect x="{label_w + j * cell_w}" y="{y}" width="{cell_w}" '
                f'height="{cell_h - 1}" fill="{_colour(value)}"/>'
            )
    out.append("</svg>")
    return "".join(out)


def live_html(state: LiveState) -> str:
    part = state.part
    head = " · ".join(html.escape(b) for b in _head(state))
    word = "ended" if state.final else f"live, every {state.interval:g} s"
    rows = [
        f'<div class="tfnb-live" data-updates="{state.updates}" '
        'style="font-family:var(--jp-ui-font-family, sans-serif);font-size:12px;'
        'border-left:3px solid #21918c;padding:4px 8px;margin:2px 0">',
        f'<div><b>{html.escape(state.title)}</b> <span style="color:#666">({word})</span>'
        f" &nbsp;{head}</div>",
    ]
    if state.stopped is not None:
        rows.append(
            f'<div style="color:#b00020;font-weight:bold">{html.escape(state.stopped.describe())}'
            "</div>"
        )
    strip = heatmap_svg(part.layers, part.norms) if part.norms is not None else ""
    if strip:
        more = len(part.layers) - MAX_LAYERS
        rows.append(
            '<div style="color:#666;margin-top:3px">gradient norm per layer, recent records '
            "(dark: small, yellow: large, red: NaN/Inf)"
            + (f"; {more} more layer(s) not shown" if more > 0 else "")
            + "</div>"
            + strip
        )
    for line in part.lines:
        rows.append(f"<div>{html.escape(line)}</div>")
    for f in part.findings:
        colour = _SEVERITY.get(str(f.severity), "#333")
        rows.append(
            f'<div style="color:{colour}"><b>{html.escape(f.code)}</b> {html.escape(f.slug)}: '
            f"{html.escape(f.message[:240])}</div>"
        )
    rows.append("</div>")
    return "".join(rows)
