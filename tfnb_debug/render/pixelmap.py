"""Rows x columns colour maps in HTML, drawn without a plotting library.

One PNG pixel per cell (written with ``zlib`` alone), scaled up by the browser
without smoothing; the row labels, column ticks and the colour legend are
HTML beside it.  A map of forty layers costs about a millisecond, where the
same picture as a matplotlib figure took a third of a second or more (its
text layout and constrained layout), so reports with many layers show at
once.  Used by the live view's strip and by the gradient report's heatmap and
histogram maps.
"""

from __future__ import annotations

import html
import struct
import zlib
from collections.abc import Sequence

import numpy as np

from tfnb_debug.render.plots import png_data_uri

__all__ = ["colours", "pixel_img", "pixel_maps_html", "rgb_data_uri", "rgb_png"]

#: viridis at nine evenly spaced points
_VIRIDIS = (
    "#440154",
    "#472d7b",
    "#3b528b",
    "#2c728e",
    "#21918c",
    "#28ae80",
    "#5ec962",
    "#addc30",
    "#fde725",
)
_STOPS = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in _VIRIDIS], float)
BLACK = np.array([0, 0, 0], np.uint8)
#: label width at most, in characters (longer names keep their end)
LABEL_CHARS = 28


def colours(values: np.ndarray, lo: float, hi: float, *, missing: np.ndarray = BLACK) -> np.ndarray:
    """``values`` (rows, cols) -> (rows, cols, 3) uint8 viridis colours over ``[lo, hi]``;
    NaN cells get the colour ``missing``."""
    values = np.asarray(values, float)
    span = hi - lo if hi > lo else 1.0
    position = np.clip((values - lo) / span, 0.0, 1.0) * (len(_STOPS) - 1)
    position = np.nan_to_num(position)
    low = np.minimum(np.floor(position).astype(int), len(_STOPS) - 2)
    frac = (position - low)[..., None]
    rgb = (_STOPS[low] * (1 - frac) + _STOPS[low + 1] * frac).round().astype(np.uint8)
    rgb[np.isnan(values)] = missing
    return rgb


def rgb_data_uri(rgb: np.ndarray) -> str:
    """An (h, w, 3) uint8 array as a PNG data URI (zlib only: no imaging library)."""
    return png_data_uri(rgb_png(rgb))


def rgb_png(rgb: np.ndarray) -> bytes:
    """An (h, w, 3) uint8 array as the bytes of a PNG file (zlib only)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[i].tobytes() for i in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def pixel_img(uri: str, width: int, height: int, *, alt: str, style: str = "") -> str:
    """An ``<img>`` of a few pixels scaled to ``width`` x ``height`` CSS pixels, unsmoothed.

    The size is in the style too: front ends style output images with
    ``height: auto`` (JupyterLab does), which would otherwise scale a map of
    1000 x 2 pixels drawn 480 wide to 1 pixel high.
    """
    return (
        f'<img src="{uri}" alt="{html.escape(alt)}" width="{width}" height="{height}" '
        f'style="width:{width}px;height:{height}px;max-width:none;image-rendering:pixelated;'
        f'{style}"/>'
    )


def short_label(name: str, limit: int = LABEL_CHARS) -> str:
    return name if len(name) <= limit else "…" + name[-(limit - 1) :]


def pixel_maps_html(
    rows: Sequence[str],
    panels: Sequence[tuple[str, np.ndarray]],
    *,
    lo: float,
    hi: float,
    ticks: Sequence[tuple[float, str]],
    x_label: str,
    legend: str,
    alt: str,
    row_height: int = 12,
    width: int = 480,
) -> str:
    """Maps side by side that share their row labels and one colour scale.

    ``panels``: ``(title, values)`` with values of shape (len(rows), columns),
    NaN drawn black.  ``ticks``: ``(fraction of the width, label)`` under each
    map.  ``width``: the pixels the maps take together at most (a cell is at
    least one pixel wide; more columns widen them, and the output scrolls).
    """
    cols = sum(np.shape(values)[1] for _, values in panels)
    cell = max(1, min(16, width // max(cols, 1)))
    height = len(rows) * row_height
    labels = "".join(
        f'<div style="height:{row_height}px" title="{html.escape(name)}">'
        f"{html.escape(short_label(name))}</div>"
        for name in rows
    )
    parts = [
        '<div style="overflow-x:auto"><div style="display:inline-flex;gap:10px;'
        'align-items:flex-start;font:10px/12px var(--jp-ui-font-family, sans-serif)">',
        f'<div style="text-align:right;white-space:nowrap;padding-top:14px">{labels}</div>',
    ]
    for title, values in panels:
        map_width = np.shape(values)[1] * cell
        tick_html = "".join(
            f'<span style="position:absolute;left:{fraction * map_width:.1f}px;'
            f'transform:translateX(-50%);white-space:nowrap">{html.escape(label)}</span>'
            for fraction, label in ticks
        )
        parts.append(
            f'<div style="width:{map_width}px">'
            f'<div style="height:14px;text-align:center;white-space:nowrap">{html.escape(title)}'
            "</div>"
            + pixel_img(
                rgb_data_uri(colours(values, lo, hi)),
                map_width,
                height,
                alt=f"{alt}: {title}" if title else alt,
                style="display:block",
            )
            + f'<div style="position:relative;height:13px">{tick_html}</div>'
            f'<div style="text-align:center;white-space:nowrap">{html.escape(x_label)}</div>'
            "</div>"
        )
    parts.append("</div></div>")
    parts.append(_legend(lo, hi, legend))
    return "".join(parts)


def _legend(lo: float, hi: float, text: str) -> str:
    ramp = colours(np.linspace(lo, hi, 64)[None, :], lo, hi)
    return (
        '<div style="display:flex;gap:6px;align-items:center;margin-top:4px;'
        'font:10px/12px var(--jp-ui-font-family, sans-serif)">'
        f"<span>{lo:.3g}</span>"
        + pixel_img(rgb_data_uri(ramp), 160, 10, alt="colour scale")
        + f"<span>{hi:.3g}</span><span>{html.escape(text)}</span></div>"
    )
