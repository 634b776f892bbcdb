"""The live view's HTML and text line (see :mod:`tfnb_debug.features.live`): pure functions of a state.

The HTML is small and self-contained (inline styles; the heatmap strip is a
PNG of one pixel per cell, scaled up), since it is re-sent at every update:
one row per layer, one column per recent record, colour by log10 of the
gradient norm, red for NaN/Inf, grey where nothing was recorded.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from tfnb_debug.ground.values import format_bytes, format_float
from tfnb_debug.render.pixelmap import colours, pixel_img, rgb_data_uri, short_label

if TYPE_CHECKING:
    from tfnb_debug.records.live import LiveState

__all__ = ["heatmap_strip", "live_html", "live_text"]

#: layers shown in the strip at most (the first ones in forward order, then "n more")
MAX_LAYERS = 24
#: log10 |g| range of the colour scale
LOG_LO, LOG_HI = -8.0, 3.0
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


_BAD = np.array([228, 0, 43], np.uint8)  # NaN/Inf
_EMPTY = np.array([238, 238, 238], np.uint8)  # not recorded


def _colours(norms: np.ndarray) -> np.ndarray:
    """(rows, cols) norms -> (rows, cols, 3) uint8 colours on a log10 scale."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log10(np.maximum(np.abs(norms), 1e-30))
    rgb = colours(logs, LOG_LO, LOG_HI)
    rgb[np.isinf(norms)] = _BAD
    rgb[np.isnan(norms)] = _EMPTY
    return rgb


def heatmap_strip(layers: tuple[str, ...], norms: np.ndarray | None) -> str:
    """Layers x recent records of gradient norms: the layer names beside a small PNG, one
    pixel per cell scaled up (about 1 KB per update; empty string: nothing recorded yet)."""
    if norms is None or norms.size == 0 or not layers:
        return ""
    rows = min(len(layers), MAX_LAYERS)
    shown = np.asarray(norms, float)[:rows]
    cols = shown.shape[1]
    cell_w = max(2, min(8, 480 // max(cols, 1)))
    names = "".join(
        f'<div title="{html.escape(name)}: last norm {float(shown[i, -1]):.3g}">'
        f"{html.escape(short_label(name))}</div>"
        for i, name in enumerate(layers[:rows])
    )
    return (
        '<div class="tfnb-live-heatmap" style="display:flex;gap:6px;align-items:flex-start">'
        '<div style="font:9px/10px monospace;text-align:right;white-space:nowrap">'
        f"{names}</div>"
        + pixel_img(
            rgb_data_uri(_colours(shown)),
            cols * cell_w,
            rows * 10,
            alt="gradient norm per layer over the recent recorded steps",
        )
        + "</div>"
    )


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
    strip = heatmap_strip(part.layers, part.norms)
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
