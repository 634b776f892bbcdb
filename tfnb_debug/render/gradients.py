"""Plots for gradient reports: histograms per layer, a layers x steps heatmap, the loss.

Pure functions of NumPy arrays: the histogram panels (a few layers) and the
loss are :class:`matplotlib.figure.Figure` s (never pyplot), embedded as PNG
data URIs; the heatmap and the histograms of many layers are HTML colour maps
(:mod:`tfnb_debug.render.pixelmap`), which cost a millisecond where a
matplotlib figure of forty labelled rows cost a third of a second or more.
No TensorFlow here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfnb_debug.render.html import image_html
from tfnb_debug.render.pixelmap import pixel_maps_html, short_label
from tfnb_debug.render.plots import figure_data_uri, new_figure
from tfnb_debug.reports import Section

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FigureSection",
    "gradient_sections",
    "heatmap_html",
    "histogram_figure",
    "histogram_maps_html",
    "loss_figure",
]


class FigureSection(Section):
    """A :class:`~tfnb_debug.reports.Section` whose figure is drawn the first time its
    ``html`` is read, then kept: ``draw`` makes a matplotlib figure, or ``render`` the
    HTML itself."""

    def __init__(
        self,
        title: str,
        html: str | None = None,
        text: str = "",
        *,
        draw: Callable[[], Figure] | None = None,
        render: Callable[[], str] | None = None,
        alt: str = "",
    ) -> None:
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_drawn", html)
        object.__setattr__(self, "_draw", draw)
        object.__setattr__(self, "_render", render)
        object.__setattr__(self, "_alt", alt)

    _drawn: str | None
    _draw: Callable[[], Figure] | None
    _render: Callable[[], str] | None
    _alt: str

    @property
    def html(self) -> str:
        if self._drawn is None:
            draw, render = self._draw, self._render
            drawn = (
                render()
                if render
                else image_html(figure_data_uri(draw()), alt=self._alt)
                if draw
                else ""
            )
            object.__setattr__(self, "_drawn", drawn)
            object.__setattr__(self, "_draw", None)  # the arrays are no longer needed
            object.__setattr__(self, "_render", None)
        return str(self._drawn)

    @property
    def drawn(self) -> bool:
        """Whether the figure has been drawn yet."""
        return self._drawn is not None


def histogram_figure(
    layers: Sequence[str],
    last: np.ndarray,
    edges: Sequence[float],
    *,
    first: np.ndarray | None = None,
    columns: int = 4,
) -> Figure:
    """One small panel per layer: the distribution of log10|g| (last step; first step outlined).

    For at most :data:`PANELS_AT_MOST` layers; more get :func:`histogram_maps_html`
    (forty panels took three seconds to draw).
    """
    n = max(len(layers), 1)
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = new_figure(width=2.4 * cols, height=1.8 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    edges_arr = np.asarray(edges)
    centers = (edges_arr[:-1] + edges_arr[1:]) / 2
    for k, ax in enumerate(axes.flat):
        if k >= len(layers):
            ax.set_visible(False)
            continue
        # one filled outline per panel, the same picture as touching bars at a fraction of
        # the drawing time (a bar is an artist of its own: 32 per layer)
        ax.stairs(last[k], edges_arr, fill=True, color="#2563eb", alpha=0.8, label="last step")
        if first is not None:
            ax.step(centers, first[k], where="mid", color="#9ca3af", lw=1, label="first step")
        ax.set_title(short_label(layers[k]), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("log10 |g|", fontsize=7)
    return fig


#: layers drawn as one histogram panel each at most; more go into one colour map
PANELS_AT_MOST = 8


def histogram_shares(counts: np.ndarray) -> np.ndarray:
    """Each layer's (row's) counts as shares of its total; NaN where nothing was counted."""
    counts = np.asarray(counts, float)
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), np.nan)


def histogram_maps_html(
    layers: Sequence[str],
    last: np.ndarray,
    edges: Sequence[float],
    *,
    first: np.ndarray | None = None,
) -> str:
    """Layers (rows, forward order) x log10|g| bins, coloured by the share of the layer's
    counted entries in each bin: the first recorded step beside the last, one scale."""
    shown = [("last recorded step", histogram_shares(last))]
    if first is not None:
        shown.insert(0, ("first recorded step", histogram_shares(first)))
    finite = [s[np.isfinite(s)] for _, s in shown]
    top = max((float(f.max()) for f in finite if f.size), default=1.0)
    lo, hi = float(edges[0]), float(edges[-1])
    step = max(1, math.ceil((hi - lo) / 8))
    ticks = [  # inside the edges: the maps stand side by side
        ((value - lo) / (hi - lo), f"{value:g}")
        for value in range(math.ceil(lo), math.floor(hi) + 1, step)
        if lo < value < hi
    ]
    return pixel_maps_html(
        layers,
        shown,
        lo=0.0,
        hi=max(top, 1e-9),
        ticks=ticks,
        x_label="log10 |g|",
        legend="share of the layer's entries per bin (black: none counted)",
        alt="gradient histograms",
    )


def heatmap_html(layers: Sequence[str], steps: np.ndarray, log_norms: np.ndarray) -> str:
    """Layers (rows, forward order) x recorded steps (columns) of log10 gradient norm.

    Non-finite cells are drawn black.
    """
    log_norms = np.asarray(log_norms, float)
    finite = log_norms[np.isfinite(log_norms)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    cols = len(steps)
    at = np.unique(np.linspace(0, cols - 1, min(cols, 8)).astype(int))
    ticks = [((i + 0.5) / cols, str(int(steps[i]))) for i in at]
    return pixel_maps_html(
        layers,
        [("", log_norms)],
        lo=lo,
        hi=hi,
        ticks=ticks,
        x_label="optimizer step",
        legend="log10 grad norm (black: NaN/Inf)",
        alt="gradient norm heatmap",
    )


def loss_figure(steps: np.ndarray, loss: np.ndarray) -> Figure:
    fig = new_figure(width=5.0, height=2.2)
    ax = fig.add_subplot()
    finite = np.isfinite(loss)
    ax.plot(
        steps[finite], loss[finite], color="#111827", lw=1.2, marker="." if len(loss) < 40 else None
    )
    bad = ~finite
    if bad.any():
        top = float(np.nanmax(loss[finite])) if finite.any() else 1.0
        ax.scatter(
            steps[bad],
            np.full(int(bad.sum()), top),
            color="#b91c1c",
            marker="x",
            label="non-finite",
        )
        ax.legend(fontsize=7)
    ax.set_xlabel("optimizer step", fontsize=8)
    ax.set_ylabel("loss", fontsize=8)
    ax.tick_params(labelsize=7)
    return fig


def gradient_sections(
    *,
    layers: Sequence[str],
    steps: np.ndarray,
    layer_norms: np.ndarray,
    hist_last: np.ndarray,
    hist_first: np.ndarray | None,
    edges: Sequence[float],
    loss: np.ndarray,
    loss_known: np.ndarray,
) -> tuple[Section, ...]:
    """The report's plot sections, each with a short text form for ``text/plain``.

    The figures are drawn when a section's ``html`` is first read (the report
    is shown, or its HTML asked for), never here: a report that is only
    stored (``-q``) or read as text draws nothing.
    """

    sections: list[Section] = []
    if layers:
        layers = list(layers)

        def histograms() -> Figure:
            return histogram_figure(layers, hist_last, edges, first=hist_first)

        def histogram_maps() -> str:
            return histogram_maps_html(layers, hist_last, edges, first=hist_first)

        many = len(layers) > PANELS_AT_MOST
        sections.append(
            FigureSection(
                "Gradient histograms (log10 |g| per layer, last recorded step)",
                draw=None if many else histograms,
                render=histogram_maps if many else None,
                alt="gradient histograms",
            )
        )
    if layers and len(steps) > 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.where(layer_norms > 0, np.log10(layer_norms), -12.0)
        logs = np.where(np.isfinite(layer_norms), logs, np.nan)

        def heatmap() -> str:
            return heatmap_html(layers, steps, logs.T)

        sections.append(
            FigureSection(
                "log10 gradient norm: layers x steps",
                render=heatmap,
                alt="gradient norm heatmap",
                text=_heatmap_text(layers, layer_norms),
            )
        )
    known = np.asarray(loss_known, dtype=bool)
    if known.sum() > 1:
        values = loss[known]
        known_steps = steps[known]

        def loss_plot() -> Figure:
            return loss_figure(known_steps, values)

        sections.append(
            FigureSection(
                "Loss over steps",
                draw=loss_plot,
                alt="loss over steps",
                text=f"loss: first {values[0]:.6g}, last {values[-1]:.6g}, "
                f"min {np.nanmin(values) if np.isfinite(values).any() else float('nan'):.6g}",
            )
        )
    return tuple(sections)


def _heatmap_text(layers: Sequence[str], norms: np.ndarray) -> str:
    lines = []
    for j, layer in enumerate(layers):
        col = norms[:, j]
        finite = col[np.isfinite(col)]
        if finite.size:
            lines.append(
                f"{short_label(layer)}: grad norm first {col[0]:.3g}, last {col[-1]:.3g}, "
                f"range [{finite.min():.3g}, {finite.max():.3g}]"
            )
        else:
            lines.append(f"{short_label(layer)}: no finite gradient norm")
    return "\n".join(lines)
