"""The details pane: pure functions from :class:`LayerDetails` to HTML, text and figures.

Self-contained HTML (inline styles): histograms and the gradient-norm curve
are inline SVG (:mod:`tfnb_debug.render.svg`), feature maps one PNG data URI
coloured with :mod:`tfnb_debug.render.pixelmap`, so selecting a layer costs
no plotting library.  The ``*_figure`` functions draw the same histograms and
curve as ``matplotlib.figure.Figure`` objects (never pyplot) for an explicit
export; the pane never builds them.  No TensorFlow here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np

from tfnb_debug.render.html import FONT, MONO, findings_html, heading, image_html, table_html
from tfnb_debug.render.pixelmap import colours, rgb_png
from tfnb_debug.render.plots import png_data_uri
from tfnb_debug.render.svg import histogram_svg, line_svg
from tfnb_debug.render.text import render_findings_text, table_text
from tfnb_debug.render.values import format_value

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tfnb_debug.widgets.records import LayerDetails, ValueSummary

__all__ = [
    "details_html",
    "details_text",
    "feature_map_png",
    "histogram_figure",
    "log_histogram_figure",
    "norm_figure",
]

STAT_COLUMNS = ("mean", "std", "min", "max", "zeros", "NaN/Inf")
#: the colour of the gradient pictures
GRADIENT = "#b45309"


def stat_cells(stats: ValueSummary | None) -> tuple[Any, ...]:
    if stats is None:
        return ("-",) * len(STAT_COLUMNS)
    return (stats.mean, stats.std, stats.min, stats.max, f"{stats.zeros:.1%}", stats.nonfinite)


def _small_figure(width: float, height: float) -> Figure:
    """A figure without constrained layout (which costs more than drawing these plots)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=80)
    fig.subplots_adjust(left=0.06, right=0.97, bottom=0.2, top=0.84)
    return fig


def histogram_figure(stats: ValueSummary, *, title: str, color: str = "#2563eb") -> Figure:
    """A histogram of a summary's finite values (one filled step artist: cheap to draw)."""
    fig = _small_figure(3.4, 1.6)
    ax = fig.add_subplot()
    edges = np.asarray(stats.hist_edges)
    counts = np.asarray(stats.hist_counts)
    if counts.size:
        ax.stairs(counts, edges, fill=True, color=color)
    ax.set_title(title, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.set_yticks([])
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    return fig


def feature_map_png(maps: np.ndarray, *, cols: int = 8, cell: int = 56, gap: int = 2) -> bytes:
    """The first feature maps (H, W, k) as one PNG mosaic, row-major, each map scaled on its own.

    Drawn without a plotting library (a grid of subplots costs ~0.5 s): each
    map is normalized to [0, 1], enlarged by an integer factor to about ``cell``
    pixels, colored with viridis, and the mosaic is encoded once.
    """
    h, w, k = (int(d) for d in maps.shape)
    cols = max(1, min(cols, k))
    rows = math.ceil(k / cols)
    scale = max(1, cell // max(h, w))
    ch, cw = h * scale, w * scale
    mosaic = np.full((rows * (ch + gap) - gap, cols * (cw + gap) - gap), np.nan, np.float32)
    for i in range(k):
        m = maps[..., i].astype(np.float32)
        finite = np.isfinite(m)
        lo = float(m[finite].min()) if finite.any() else 0.0
        hi = float(m[finite].max()) if finite.any() else 0.0
        unit = (m - lo) / (hi - lo) if hi > lo else np.zeros_like(m)
        big = np.kron(np.where(finite, unit, 0.0), np.ones((scale, scale), np.float32))
        r, c = divmod(i, cols)
        mosaic[r * (ch + gap) : r * (ch + gap) + ch, c * (cw + gap) : c * (cw + gap) + cw] = big
    white = np.array([255, 255, 255], np.uint8)  # the gaps between the maps
    return rgb_png(colours(mosaic, 0.0, 1.0, missing=white))


def details_html(d: LayerDetails, *, figures: bool = True) -> str:
    """The whole details pane for one layer."""
    parts = [
        f'<div class="tfnb-details" data-layer="{escape(d.path)}" style="{FONT}">',
        f'<h3 class="tfnb-details-title" style="margin:2px 0 4px 0;">'
        f'<span style="{MONO}font-size:14px;">{escape(d.path)}</span> '
        f'<span style="color:#4b5563;font-weight:400;">{escape(d.class_name)} '
        f"&middot; row {d.row_index}</span></h3>",
    ]
    parts.append(_findings_block(d))
    parts.append(heading("Parameters"))
    parts.append(_arithmetic_html(d))
    parts.append(heading("Weights"))
    parts.append(_weights_html(d, figures))
    parts.append(heading("Output of this call"))
    parts.append(_activation_html(d, figures))
    parts.append(heading("Gradients"))
    parts.append(_gradients_html(d, figures))
    parts.append(heading("Configuration"))
    parts.append(table_html(("key", "value"), d.config) if d.config else "<div>-</div>")
    parts.append("</div>")
    return "".join(parts)


def _findings_block(d: LayerDetails) -> str:
    if not d.findings:
        return '<div style="color:#166534;margin:4px 0;">No findings name this layer.</div>'
    return findings_html(d.findings)


def _arithmetic_html(d: LayerDetails) -> str:
    a = d.arithmetic
    if a is None:
        return "<div>-</div>"
    split = f"{a.trainable:,} trainable, {a.non_trainable:,} non-trainable"
    source = {
        "formula": "",
        "weights": " (sum of the weight shapes)",
        "layers": " (sum over its layers)",
        "none": "",
    }[a.kind]
    return (
        f'<div class="tfnb-arithmetic" style="{MONO}font-size:13px;margin:2px 0;">'
        f"{escape(a.expression)}</div>"
        f'<div style="color:#4b5563;">{escape(split)}{escape(source)}'
        + (f"; {escape(a.breakdown)}" if a.breakdown else "")
        + "</div>"
    )


def _weights_html(d: LayerDetails, figures: bool) -> str:
    note = f'<div style="color:#4b5563;">{escape(d.weights_note)}.</div>' if d.weights_note else ""
    if not d.weights:
        return note or "<div>This layer has no weights.</div>"
    rows = [
        (
            _short_name(w.name, d.path),
            w.shape,
            w.dtype,
            "yes" if w.trainable else "no",
            *stat_cells(w.stats),
        )
        for w in d.weights
    ]
    columns = ("variable", "shape", "dtype", "trainable", *STAT_COLUMNS)
    parts = [f'<div class="tfnb-weights">{table_html(columns, rows)}</div>{note}']
    if figures:
        images = [
            histogram_svg(
                w.stats.hist_counts,
                w.stats.hist_edges,
                title=f"{w.name.split('/')[-1]} {w.shape}",
                label=f"histogram of {w.name}",
            )
            for w in d.weights
            if w.stats is not None and w.stats.hist_counts
        ]
        parts.append(f'<div style="display:flex;flex-wrap:wrap;gap:4px;">{"".join(images)}</div>')
    return "".join(parts)


def _short_name(name: str, layer_path: str) -> str:
    """A variable's path relative to its layer (``kernel``) when it sits under the layer's path."""
    return name[len(layer_path) + 1 :] if name.startswith(layer_path + "/") else name


def _activation_html(d: LayerDetails, figures: bool) -> str:
    a = d.activation
    if a is None:
        note = d.activation_note or "not captured"
        return f'<div class="tfnb-activation" style="color:#4b5563;">{escape(note)}</div>'
    head = (
        f"call #{a.call_index + 1} of this layer in the forward pass; output shape "
        f"{format_value(a.shape)}, {a.dtype}"
    )
    parts = [f'<div class="tfnb-activation">{escape(head)}</div>']
    if d.activation_note:
        parts.append(f'<div style="color:#4b5563;">{escape(d.activation_note)}</div>')
    parts.append(table_html(STAT_COLUMNS, [stat_cells(a.stats)]))
    if figures:
        if a.stats is not None and a.stats.hist_counts:
            parts.append(
                histogram_svg(
                    a.stats.hist_counts,
                    a.stats.hist_edges,
                    title="output values",
                    label="histogram of the output",
                    color="#059669",
                )
            )
        if a.feature_maps is not None and a.feature_maps.shape[-1] > 0:
            k = a.feature_maps.shape[-1]
            title = f"feature maps 0-{k - 1} of {a.channels}, example 0"
            png = feature_map_png(a.feature_maps)
            parts.append(
                '<div class="tfnb-feature-maps">'
                f'<div style="font-size:11px;color:#374151;">{escape(title)} '
                "(left to right, then down; each map scaled on its own)</div>"
                + image_html(png_data_uri(png), alt=title)
                + "</div>"
            )
    return "".join(parts)


def _gradients_html(d: LayerDetails, figures: bool) -> str:
    g = d.gradients
    if g is None:
        note = d.gradient_note or "no gradients"
        return f'<div class="tfnb-gradients" style="color:#4b5563;">{escape(note)}</div>'
    parts = [
        '<div class="tfnb-gradients">',
        f'<div style="color:#4b5563;">{escape(g.source)}</div>',
        table_html(("", "value"), g.rows),
    ]
    if figures:
        images = []
        if len(g.norms) > 1:
            images.append(norm_svg(g.steps, g.norms))
        if g.hist_counts and sum(g.hist_counts) > 0:
            images.append(
                histogram_svg(
                    g.hist_counts,
                    g.hist_edges,
                    title="log10|gradient|, last step",
                    label="histogram of log10|g|",
                    color=GRADIENT,
                )
            )
        parts.append(f'<div style="display:flex;flex-wrap:wrap;gap:4px;">{"".join(images)}</div>')
    parts.append("</div>")
    return "".join(parts)


def norm_svg(steps: Sequence[int], norms: Sequence[float]) -> str:
    """The layer's gradient norm over the recorded steps (log scale when every one is positive)."""
    values = np.asarray(norms, float)
    finite = values[np.isfinite(values)]
    return line_svg(
        np.asarray(steps, float),
        values,
        x_label="step",
        y_label="",
        label="gradient norm",
        title="gradient norm per step",
        log_y=bool(finite.size) and bool((finite > 0).all()),
        color=GRADIENT,
        width=272,
        height=128,
    )


def norm_figure(steps: Sequence[int], norms: Sequence[float]) -> Figure:
    """The layer's gradient norm over the recorded steps (log scale)."""
    fig = _small_figure(3.4, 1.6)
    ax = fig.add_subplot()
    ax.plot(list(steps), list(norms), color="#b45309", linewidth=1.2)
    positive = [n for n in norms if n > 0 and math.isfinite(n)]
    if positive:
        ax.set_yscale("log")
    ax.set_title("gradient norm per step", fontsize=8)
    ax.tick_params(labelsize=7)
    return fig


def log_histogram_figure(counts: Sequence[float], edges: Sequence[float]) -> Figure:
    """Histogram of log10|g| at the last recorded step."""
    fig = _small_figure(3.4, 1.6)
    ax = fig.add_subplot()
    e = np.asarray(edges)
    ax.stairs(np.asarray(counts), e, fill=True, color="#b45309")
    ax.set_title("log10|gradient|, last step", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.set_yticks([])
    return fig


def details_text(d: LayerDetails, *, width: int = 100) -> str:
    """The details pane as plain text (terminals, logs, tests)."""
    lines = [f"{d.path} ({d.class_name}), row {d.row_index}", ""]
    lines.append("Findings: " + ("none" if not d.findings else ""))
    if d.findings:
        lines.append(render_findings_text(d.findings))
    if d.arithmetic is not None:
        lines.append(f"Parameters: {d.arithmetic.expression}")
        lines.append(
            f"  {d.arithmetic.trainable:,} trainable, {d.arithmetic.non_trainable:,} non-trainable"
        )
    lines.append("")
    lines.append("Weights:" if d.weights else f"Weights: {d.weights_note or 'none'}")
    if d.weights:
        rows = [
            (w.name, w.shape, w.dtype, "yes" if w.trainable else "no", *stat_cells(w.stats))
            for w in d.weights
        ]
        columns = ("variable", "shape", "dtype", "trainable", *STAT_COLUMNS)
        lines.append(table_text(columns, rows, width=width))
    lines.append("")
    a = d.activation
    if a is None:
        lines.append(f"Output: {d.activation_note or 'not captured'}")
    else:
        lines.append(f"Output (call #{a.call_index + 1}): {format_value(a.shape)} {a.dtype}")
        lines.append(table_text(STAT_COLUMNS, [stat_cells(a.stats)], width=width))
    lines.append("")
    if d.gradients is not None:
        lines.append(f"Gradients ({d.gradients.source}):")
        lines.extend(f"  {k}: {format_value(v)}" for k, v in d.gradients.rows)
    else:
        lines.append(f"Gradients: {d.gradient_note or 'none'}")
    lines.append("")
    lines.append("Configuration:")
    lines.extend(f"  {k}: {v}" for k, v in d.config)
    return "\n".join(lines)
